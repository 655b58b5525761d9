//! Human progress on stderr: one line per step. On a terminal a spinner shows the time a
//! long step has taken; elsewhere (CI logs) a plain line every 10 s says how long a waiting
//! step has waited and may still wait. No line holds a control character: those of texts
//! from pages, mails and plans are escaped.

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::printable;
use crate::runner::{Event, EventKind, Listener, StepDetail};

/// How often a waiting step is reported outside a terminal.
pub const WAIT_REPORT_EVERY: Duration = Duration::from_secs(10);

/// Prints a run's progress on stderr.
pub struct ProgressLog {
    prefix: String,
    terminal: bool,
    every: Duration,
    ticker: Option<Ticker>,
    total: usize,
    /// Failed steps the run went on after (`should`, `could`).
    warnings: usize,
}

/// The thread that redraws the spinner or prints the periodic wait line of one step.
struct Ticker {
    stop: Arc<(Mutex<bool>, Condvar)>,
    drew: Arc<AtomicBool>,
    handle: std::thread::JoinHandle<()>,
}

impl ProgressLog {
    /// `label` prefixes every line when several runs share the terminal.
    pub fn new(label: Option<String>) -> ProgressLog {
        ProgressLog {
            prefix: label.map(|l| format!("[{l}] ")).unwrap_or_default(),
            terminal: std::io::stderr().is_terminal(),
            every: WAIT_REPORT_EVERY,
            ticker: None,
            total: 0,
            warnings: 0,
        }
    }

    /// Reports waiting steps every `every` instead of every 10 s (outside a terminal).
    pub fn every(mut self, every: Duration) -> ProgressLog {
        self.every = every;
        self
    }

    fn stop_ticker(&mut self) {
        if let Some(t) = self.ticker.take() {
            let (lock, wake) = &*t.stop;
            if let Ok(mut stopped) = lock.lock() {
                *stopped = true;
            }
            wake.notify_all();
            let _ = t.handle.join();
            if t.drew.load(Ordering::Relaxed) {
                eprint!("\r\x1b[2K");
            }
        }
    }

    fn start_ticker(&mut self, e: &Event) {
        let Some(step) = e.step() else { return };
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let drew = Arc::new(AtomicBool::new(false));
        let index = step.index + 1;
        let total = self.total;
        let step_type = step.step_type.as_str();
        let timeout = e
            .step_detail()
            .and_then(|d| d.timeout_ms)
            .map(Duration::from_millis);
        let prefix = self.prefix.clone();
        let handle = if self.terminal {
            let line = printable(&format!(
                "{prefix}  {index}/{total} {step_type} {}",
                step.describe
            ))
            .into_owned();
            let (stop, drew) = (stop.clone(), drew.clone());
            std::thread::spawn(move || spin(&line, &stop, &drew))
        } else {
            let every = self.every;
            let stop = stop.clone();
            std::thread::spawn(move || {
                let started = Instant::now();
                let (lock, wake) = &*stop;
                let mut stopped = lock.lock().expect("progress lock");
                for n in 1u32.. {
                    let next = every * n;
                    while !*stopped && started.elapsed() < next {
                        let left = next.saturating_sub(started.elapsed());
                        stopped = wake.wait_timeout(stopped, left).expect("progress lock").0;
                    }
                    if *stopped {
                        return;
                    }
                    let waited = started.elapsed();
                    say(&wait_line(
                        &prefix, index, total, step_type, waited, timeout,
                    ));
                }
            })
        };
        self.ticker = Some(Ticker { stop, drew, handle });
    }
}

/// `step 6/10 wait_for_email: 20 s of 120 s`.
pub fn wait_line(
    prefix: &str,
    index: usize,
    total: usize,
    step_type: &str,
    waited: Duration,
    timeout: Option<Duration>,
) -> String {
    let mut line = format!(
        "{prefix}  step {index}/{total} {step_type}: {} s",
        waited.as_secs()
    );
    if let Some(t) = timeout {
        let _ = write!(line, " of {} s", t.as_secs());
    }
    line
}

/// Redraws `line` with a spinner and the time so far, once the step takes over 0.7 s.
fn spin(line: &str, stop: &(Mutex<bool>, Condvar), drew: &AtomicBool) {
    let frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
    let started = Instant::now();
    let (lock, wake) = stop;
    let mut stopped = lock.lock().expect("progress lock");
    let mut i = 0;
    loop {
        stopped = wake
            .wait_timeout(stopped, Duration::from_millis(100))
            .expect("progress lock")
            .0;
        if *stopped {
            return;
        }
        // Only long waits get a spinner; quick steps print once.
        if started.elapsed() > Duration::from_millis(700) {
            eprint!(
                "\r\x1b[2K{} {line} {:.1} s",
                frames[i % frames.len()],
                started.elapsed().as_secs_f64()
            );
            drew.store(true, Ordering::Relaxed);
            i += 1;
        }
    }
}

impl Listener for ProgressLog {
    fn on_event(&mut self, e: &Event) {
        let p = self.prefix.clone();
        match e {
            Event::RunStarted {
                run_id,
                detail: started,
                ..
            } => {
                self.total = started.steps;
                let hosts = &started.allowed_hosts;
                let inbox = started
                    .inbox_address
                    .as_ref()
                    .map(|a| format!(" · inbox {a}"))
                    .unwrap_or_default();
                say(&format!(
                    "{p}run {run_id} · {} steps{inbox} · may visit: {}",
                    self.total,
                    if hosts.is_empty() {
                        "nothing".to_string()
                    } else {
                        hosts.join(", ")
                    }
                ));
            }
            Event::StepStarted { .. } => {
                self.stop_ticker();
                self.start_ticker(e);
            }
            Event::StepSucceeded {
                step,
                duration_ms,
                detail,
                ..
            }
            | Event::StepFailed {
                step,
                duration_ms,
                detail,
                ..
            } => {
                self.stop_ticker();
                let ok = e.kind() == EventKind::StepSucceeded;
                let warned = matches!(e, Event::StepFailed { warning: true, .. });
                self.warnings += usize::from(warned);
                say(&format!(
                    "{p}  {} {}/{} {:<20} {}  {} ms{}",
                    match (ok, warned) {
                        (true, _) => "✓",
                        (false, true) => "⚠",
                        (false, false) => "✗",
                    },
                    step.index + 1,
                    self.total,
                    step.step_type.as_str(),
                    step.describe,
                    duration_ms,
                    if ok {
                        telling_details(detail)
                    } else {
                        String::new()
                    }
                ));
                if let Some(err) = e.error() {
                    let what = super::kind_name(err.kind);
                    let what = if warned {
                        format!("warning, {what}")
                    } else {
                        what.to_string()
                    };
                    say(&format!("{p}    {what}: {}", err.message));
                    if let Some(shot) = &detail.screenshot {
                        say(&format!("{p}    screenshot: {shot}"));
                    } else if let Some(why) = &detail.no_screenshot {
                        say(&format!("{p}    no screenshot: {why}"));
                    }
                    if let Some(url) = detail.url.as_ref().filter(|u| !u.is_empty()) {
                        say(&format!("{p}    page: {url}"));
                    }
                }
            }
            Event::RunFinished {
                duration_ms,
                detail: finished,
                ..
            } => {
                self.stop_ticker();
                let status = finished.status.as_str();
                let mark = if status == "succeeded" { "✓" } else { "✗" };
                let warnings = match self.warnings {
                    0 => String::new(),
                    1 => " (1 warning)".to_string(),
                    n => format!(" ({n} warnings)"),
                };
                say(&format!(
                    "{p}{mark} {status}{warnings} in {duration_ms} ms: {}",
                    finished.summary
                ));
            }
        }
    }
}

/// Prints one line of progress. Its words are planlock's, but the texts in it (describes,
/// page and mail texts, URLs, sentences that quote them) came from outside: every control
/// character is escaped, so the line stays one line and drives no terminal.
fn say(line: &str) {
    eprintln!("{}", printable(line));
}

/// The two most telling details of a step, e.g. ` code=48•••• strategy=split`.
fn telling_details(detail: &StepDetail) -> String {
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
    let mut extra = String::new();
    for (key, value) in telling
        .iter()
        .filter_map(|(k, v)| Some((k, v.as_ref()?)))
        .take(2)
    {
        let _ = write!(extra, " {key}={value}");
    }
    extra
}

impl Drop for ProgressLog {
    fn drop(&mut self) {
        self.stop_ticker();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_line_is_plain_text() {
        let line = wait_line(
            "",
            6,
            10,
            "wait_for_email",
            Duration::from_millis(20_400),
            Some(Duration::from_secs(120)),
        );
        assert_eq!(line, "  step 6/10 wait_for_email: 20 s of 120 s");
        assert!(!line.chars().any(char::is_control));
    }
}
