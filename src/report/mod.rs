//! Renderers that only read the run model: the JSON Lines event log, human progress on
//! stderr, the result JSON and JUnit XML.

use std::fmt::Write as _;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::runner::{Event, EventDetail, EventKind, Listener, RunResult, RunStatus, StepStatus};

/// Writes each event as one JSON line and flushes it at once, so a crash loses nothing.
pub struct EventLog {
    out: Arc<Mutex<Box<dyn Write + Send>>>,
}

impl EventLog {
    /// `-` is stdout; anything else a file, created or truncated.
    pub fn open(target: &str) -> std::io::Result<EventLog> {
        let out: Box<dyn Write + Send> = if target == "-" {
            Box::new(std::io::stdout())
        } else {
            Box::new(std::fs::File::create(target)?)
        };
        Ok(EventLog {
            out: Arc::new(Mutex::new(out)),
        })
    }

    /// Another handle on the same log (concurrent runs share one file).
    pub fn share(&self) -> EventLog {
        EventLog {
            out: self.out.clone(),
        }
    }
}

impl Listener for EventLog {
    fn on_event(&mut self, event: &Event) {
        let Ok(mut line) = serde_json::to_string(event) else {
            return;
        };
        line.push('\n');
        if let Ok(mut out) = self.out.lock() {
            // A closed pipe must not stop the run; the result still says what happened.
            let _ = out.write_all(line.as_bytes()).and_then(|()| out.flush());
        }
    }
}

/// Human progress on stderr: one line per step, a spinner on long waits when a terminal.
pub struct Progress {
    prefix: String,
    terminal: bool,
    spinner: Option<(Arc<AtomicBool>, std::thread::JoinHandle<()>)>,
    total: usize,
}

impl Progress {
    /// `label` prefixes every line when several runs share the terminal.
    pub fn new(label: Option<String>) -> Progress {
        Progress {
            prefix: label.map(|l| format!("[{l}] ")).unwrap_or_default(),
            terminal: std::io::stderr().is_terminal(),
            spinner: None,
            total: 0,
        }
    }

    fn stop_spinner(&mut self) {
        if let Some((stop, handle)) = self.spinner.take() {
            stop.store(true, Ordering::Relaxed);
            let _ = handle.join();
            eprint!("\r\x1b[2K");
        }
    }
}

impl Listener for Progress {
    fn on_event(&mut self, e: &Event) {
        let p = self.prefix.clone();
        match e.event {
            EventKind::RunStarted => {
                let EventDetail::RunStarted(started) = &e.detail else {
                    return;
                };
                self.total = started.steps;
                let hosts = &started.allowed_hosts;
                let inbox = started
                    .inbox_address
                    .as_ref()
                    .map(|a| format!(" · inbox {a}"))
                    .unwrap_or_default();
                eprintln!(
                    "{p}run {} · {} steps{inbox} · may visit: {}",
                    e.run_id,
                    self.total,
                    if hosts.is_empty() {
                        "nothing".to_string()
                    } else {
                        hosts.join(", ")
                    }
                );
            }
            EventKind::StepStarted => {
                if self.terminal {
                    let stop = Arc::new(AtomicBool::new(false));
                    let line = format!(
                        "{p}  {}/{} {} {}",
                        e.index.unwrap_or(0) + 1,
                        self.total,
                        e.step_type.unwrap_or(""),
                        e.describe.clone().unwrap_or_default()
                    );
                    let flag = stop.clone();
                    let handle = std::thread::spawn(move || {
                        let frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
                        let started = Instant::now();
                        let mut i = 0;
                        // Only long waits get a spinner; quick steps print once.
                        while !flag.load(Ordering::Relaxed) {
                            if started.elapsed() > Duration::from_millis(700) {
                                eprint!(
                                    "\r\x1b[2K{} {line} {:.1} s",
                                    frames[i % frames.len()],
                                    started.elapsed().as_secs_f64()
                                );
                                i += 1;
                            }
                            std::thread::sleep(Duration::from_millis(100));
                        }
                    });
                    self.spinner = Some((stop, handle));
                }
            }
            EventKind::StepSucceeded | EventKind::StepFailed => {
                self.stop_spinner();
                let ok = e.event == EventKind::StepSucceeded;
                let detail = e.detail.step().cloned().unwrap_or_default();
                let mut extra = String::new();
                // The two most telling details of the step, e.g. `code=48•••• strategy=split`.
                let telling = [
                    ("code", detail.code.clone()),
                    ("link", detail.link.clone()),
                    (
                        "email_subject",
                        detail.email.as_ref().map(|m| m.subject.clone()),
                    ),
                    (
                        "strategy",
                        detail.located.as_ref().map(|l| l.strategy.clone()),
                    ),
                    ("status", detail.status.map(|s| s.to_string())),
                ];
                for (key, value) in telling
                    .iter()
                    .filter_map(|(k, v)| Some((k, v.as_ref()?)))
                    .take(2)
                {
                    let _ = write!(extra, " {key}={value}");
                }
                eprintln!(
                    "{p}  {} {}/{} {:<20} {}  {} ms{}",
                    if ok { "✓" } else { "✗" },
                    e.index.unwrap_or(0) + 1,
                    self.total,
                    e.step_type.unwrap_or(""),
                    e.describe.clone().unwrap_or_default(),
                    e.duration_ms.unwrap_or(0),
                    if ok { extra } else { String::new() }
                );
                if let Some(err) = &e.error {
                    eprintln!("{p}    {}: {}", kind_name(err.kind), err.message);
                    if let Some(shot) = &detail.screenshot {
                        eprintln!("{p}    screenshot: {shot}");
                    }
                    if let Some(url) = detail.url.as_ref().filter(|u| !u.is_empty()) {
                        eprintln!("{p}    page: {url}");
                    }
                }
            }
            EventKind::RunFinished => {
                self.stop_spinner();
                let EventDetail::RunFinished(finished) = &e.detail else {
                    return;
                };
                let status = serde_json::to_value(finished.status)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                let mark = if status == "succeeded" { "✓" } else { "✗" };
                eprintln!(
                    "{p}{mark} {status} in {} ms: {}",
                    e.duration_ms.unwrap_or(0),
                    finished.summary
                );
            }
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop_spinner();
    }
}

fn kind_name(kind: crate::error::ErrorKind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// Writes `results` as JUnit XML: one test suite, one test case per plan, one failure each.
pub fn write_junit(path: &Path, results: &[RunResult]) -> std::io::Result<()> {
    let failures = results
        .iter()
        .filter(|r| r.status == RunStatus::Failed)
        .count();
    let skipped = results
        .iter()
        .filter(|r| r.status == RunStatus::Cancelled)
        .count();
    let total_ms: u64 = results.iter().map(|r| r.duration_ms).sum();
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        xml,
        "<testsuites><testsuite name=\"planlock\" tests=\"{}\" failures=\"{failures}\" skipped=\"{skipped}\" time=\"{:.3}\">",
        results.len(),
        total_ms as f64 / 1000.0
    );
    for r in results {
        let name = r.plan.clone().unwrap_or_else(|| r.run_id.clone());
        let _ = write!(
            xml,
            "  <testcase classname=\"planlock\" name=\"{}\" time=\"{:.3}\">",
            escape_xml(&name),
            r.duration_ms as f64 / 1000.0
        );
        match r.status {
            RunStatus::Succeeded => {}
            RunStatus::Cancelled => xml.push_str("<skipped message=\"cancelled\"/>"),
            RunStatus::Failed => {
                let message = r
                    .error
                    .as_ref()
                    .map(|e| e.message.clone())
                    .unwrap_or_default();
                let kind = r
                    .error
                    .as_ref()
                    .map(|e| kind_name(e.kind))
                    .unwrap_or_default();
                let mut body = String::new();
                for s in &r.steps {
                    let mark = match s.status {
                        StepStatus::Succeeded => "ok",
                        StepStatus::Failed => "FAILED",
                        StepStatus::Cancelled => "cancelled",
                        StepStatus::Skipped => "skipped",
                    };
                    let _ = writeln!(
                        body,
                        "{}. {} {}: {} ({} ms)",
                        s.index + 1,
                        mark,
                        s.step_type,
                        s.describe,
                        s.duration_ms
                    );
                }
                let _ = write!(
                    xml,
                    "<failure type=\"{}\" message=\"{}\">{}</failure>",
                    escape_xml(&kind),
                    escape_xml(&message),
                    escape_xml(&body)
                );
            }
        }
        xml.push_str("</testcase>\n");
    }
    xml.push_str("</testsuite></testsuites>\n");
    std::fs::write(path, xml)
}

fn escape_xml(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '&' => "&amp;".to_string(),
            '<' => "&lt;".to_string(),
            '>' => "&gt;".to_string(),
            '"' => "&quot;".to_string(),
            '\'' => "&apos;".to_string(),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => " ".to_string(),
            c => c.to_string(),
        })
        .collect()
}
