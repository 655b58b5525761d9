//! CPU time and memory of a driver process and the browser below it, from /proc: what the
//! benchmarks report per run. Shared by the examples with `#[path]`.
#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// How often CPU times are read while a batch runs (PSS every fourth time).
const CPU_SAMPLE: Duration = Duration::from_millis(50);

/// CPU seconds of a driver process (planlock, or node with Playwright) and of the browser
/// below it, by Chromium process type (`browser`, `renderer`, `gpu-process`, `network`, …).
#[derive(Debug, Clone, Default)]
pub struct Usage {
    pub driver_s: f64,
    pub browser_s: f64,
    pub by_type: Vec<(String, f64)>,
}

pub fn clock_ticks() -> f64 {
    // SAFETY: sysconf has no preconditions.
    (unsafe { libc::sysconf(libc::_SC_CLK_TCK) }) as f64
}

/// (ppid, start time, utime+stime) in ticks, from /proc/PID/stat.
pub fn stat_of(pid: u32) -> Option<(u32, u64, u64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &text[text.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // Fields after the command: state(0) ppid(1) … utime(11) stime(12) … starttime(19).
    let n = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    Some((n(1) as u32, n(19), n(11) + n(12)))
}

/// Every process below `root`.
pub fn descendants(root: u32) -> Vec<u32> {
    let mut parent = HashMap::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for entry in dir.flatten() {
            if let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|s| s.parse::<u32>().ok())
                && let Some((ppid, _, _)) = stat_of(pid)
            {
                parent.insert(pid, ppid);
            }
        }
    }
    let mut out = Vec::new();
    let mut frontier = vec![root];
    while let Some(p) = frontier.pop() {
        for (&child, &pp) in &parent {
            if pp == p {
                out.push(child);
                frontier.push(child);
            }
        }
    }
    out
}

/// What kind of Chromium process `pid` is, from its command line.
pub fn process_type(pid: u32) -> String {
    let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    // Chromium rewrites its command line into one string: split on spaces too.
    let args: Vec<String> = cmd
        .split(|b| *b == 0 || *b == b' ')
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    let value = |flag: &str| {
        args.iter()
            .find_map(|a| a.strip_prefix(flag).map(str::to_string))
    };
    match value("--type=").as_deref() {
        None => "browser".into(),
        Some("utility") => match value("--utility-sub-type=") {
            Some(sub) if sub.contains("NetworkService") => "network".into(),
            Some(sub) if sub.contains("Storage") => "storage".into(),
            Some(sub) => format!("utility ({})", sub.rsplit('.').next().unwrap_or(&sub)),
            None => "utility".into(),
        },
        Some("renderer") if args.iter().any(|a| a == "--top-chrome-webui") => {
            "renderer (browser UI)".into()
        }
        Some(t) => t.to_string(),
    }
}

/// PSS (KiB) of one process, from /proc/PID/smaps_rollup.
pub fn pss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("Pss:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<u64>().ok())
        })
        .unwrap_or(0)
}

/// Chromium's PSS (KiB): every process below `driver`.
pub fn browser_pss_kib(driver: u32) -> u64 {
    descendants(driver).into_iter().map(pss_kib).sum()
}

/// Watches a driver and its browser while a batch runs: every process's CPU time at its
/// first and last sighting (a process that exits loses at most one interval), and the
/// browser's PSS.
pub struct Sampler {
    stop: Arc<std::sync::atomic::AtomicBool>,
    thread: std::thread::JoinHandle<Sampled>,
}

#[derive(Default)]
pub struct Sampled {
    /// (pid, start time) → (type, first ticks, last ticks); the driver's type is "".
    cpu: HashMap<(u32, u64), (String, u64, u64)>,
    pss_kib: Vec<u64>,
}

impl Sampler {
    pub fn start(driver: u32) -> Sampler {
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut out = Sampled::default();
            let mut round = 0u64;
            loop {
                let last = flag.load(std::sync::atomic::Ordering::Relaxed);
                let below = descendants(driver);
                for pid in below.iter().copied().chain([driver]) {
                    if let Some((_, start, ticks)) = stat_of(pid) {
                        let entry = out.cpu.entry((pid, start)).or_insert_with(|| {
                            let kind = if pid == driver {
                                String::new()
                            } else {
                                process_type(pid)
                            };
                            // Seen after the batch began: it started during the batch.
                            let first = if round == 0 { ticks } else { 0 };
                            (kind, first, ticks)
                        });
                        entry.2 = ticks;
                    }
                }
                if round.is_multiple_of(4) || last {
                    out.pss_kib.push(below.into_iter().map(pss_kib).sum());
                }
                if last {
                    return out;
                }
                round += 1;
                std::thread::sleep(CPU_SAMPLE);
            }
        });
        Sampler { stop, thread }
    }

    /// CPU used since the start, and the browser's PSS (peak, mean) in MiB.
    pub fn finish(self) -> (Usage, f64, f64) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let sampled = self.thread.join().unwrap_or_default();
        let hz = clock_ticks();
        let mut usage = Usage::default();
        let mut by_type: HashMap<String, f64> = HashMap::new();
        for (kind, first, last) in sampled.cpu.values() {
            let s = last.saturating_sub(*first) as f64 / hz;
            if kind.is_empty() {
                usage.driver_s += s;
            } else {
                usage.browser_s += s;
                *by_type.entry(kind.clone()).or_default() += s;
            }
        }
        usage.by_type = by_type.into_iter().collect();
        usage.by_type.sort_by(|a, b| b.1.total_cmp(&a.1));
        let p = &sampled.pss_kib;
        let (peak, mean) = if p.is_empty() {
            (f64::NAN, f64::NAN)
        } else {
            (
                *p.iter().max().unwrap() as f64 / 1024.0,
                p.iter().sum::<u64>() as f64 / p.len() as f64 / 1024.0,
            )
        };
        (usage, peak, mean)
    }
}
