//! Throughput and memory of `planlock serve` at several concurrencies: the demo shop's signup
//! (form, emailed 6-digit code through the embedded SMTP receiver, split code boxes) replayed
//! over HTTP by C concurrent clients.
//!
//! ```sh
//! cargo build --release && cargo run --release --example serve_bench -- --levels 1,4,8,16,32
//! cargo run --release --example serve_bench -- --max-runs 4    # the rest queue
//! ```
//!
//! For each level it starts a fresh `planlock serve` (the binary next to this example's
//! directory, or `--bin PATH`) with `--max-runs` as many as the level's clients (or the
//! `--max-runs N` given: the rest wait in its queue), runs `--runs-per-slot` runs per client
//! (at least `--min-runs`),
//! and prints runs/min, run duration quantiles, and the peak memory (PSS) of the server and
//! every process under it (Chromium included), sampled every 100 ms.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use planlock::demo::{DemoSite, SmtpMailer};
use serde_json::{Value, json};

struct Options {
    bin: PathBuf,
    /// The server's `--max-runs`; `None`: as many as the level's clients.
    max_runs: Option<usize>,
    levels: Vec<usize>,
    runs_per_slot: usize,
    min_runs: usize,
}

fn options() -> Options {
    let mut o = Options {
        bin: std::env::current_exe()
            .ok()
            .and_then(|p| Some(p.parent()?.parent()?.join("planlock")))
            .unwrap_or_else(|| PathBuf::from("planlock")),
        max_runs: None,
        levels: vec![1, 4, 8, 16, 32],
        runs_per_slot: 4,
        min_runs: 12,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{a} needs a value"));
        match a.as_str() {
            "--bin" => o.bin = PathBuf::from(value()),
            "--max-runs" => o.max_runs = Some(value().parse().expect("a number")),
            "--levels" => {
                o.levels = value()
                    .split(',')
                    .map(|n| n.trim().parse().expect("--levels 1,4,8"))
                    .collect()
            }
            "--runs-per-slot" => o.runs_per_slot = value().parse().expect("a number"),
            "--min-runs" => o.min_runs = value().parse().expect("a number"),
            other => panic!(
                "unknown option {other}: --bin PATH --levels 1,4,8 [--max-runs N] \
                 --runs-per-slot N --min-runs N"
            ),
        }
    }
    assert!(
        o.bin.is_file(),
        "no planlock binary at {} (cargo build --release first, or pass --bin)",
        o.bin.display()
    );
    o
}

/// `planlock serve` with `slots` runs at once and the demo inbox; killed on drop.
struct Serve {
    child: Child,
    base: String,
    _store: tempfile::TempDir,
}

impl Serve {
    fn start(bin: &PathBuf, slots: usize, smtp_port: u16) -> Serve {
        let store = tempfile::tempdir().unwrap();
        let mut child = Command::new(bin)
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(["--max-runs", &slots.to_string(), "--queue", "1024"])
            .arg("--inbox")
            .arg(format!(
                "demo=smtp://127.0.0.1:{smtp_port}?domain={}",
                planlock::demo::DEMO_MAIL_DOMAIN
            ))
            .arg("--store")
            .arg(format!(
                "sqlite:{}",
                store.path().join("runs.sqlite3").display()
            ))
            .env("PLANLOCK_LOG", "warn")
            .env_remove("PLANLOCK_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start planlock serve");
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let base = loop {
            let line = lines.next().expect("serve said nothing").unwrap();
            if let Some(w) = line.split_whitespace().find(|w| w.starts_with("http://")) {
                break w.to_string();
            }
        };
        std::thread::spawn(move || for _ in lines {});
        Serve {
            child,
            base,
            _store: store,
        }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        // SAFETY: signalling the server this benchmark started, then reaping it.
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
        }
        let _ = self.child.wait();
    }
}

/// The memory of `root` and every process under it, in bytes: the sum of their proportional
/// set sizes (PSS), so pages Chromium's processes share are counted once, not per process.
fn tree_rss(root: u32) -> u64 {
    let mut parent_of = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
            continue;
        };
        let ppid: u32 = rest
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse().ok())
            .unwrap_or(0);
        parent_of.push((pid, ppid));
    }
    let mut tree = vec![root];
    let mut grew = true;
    while grew {
        grew = false;
        for (pid, ppid) in &parent_of {
            if tree.contains(ppid) && !tree.contains(pid) {
                tree.push(*pid);
                grew = true;
            }
        }
    }
    tree.iter()
        .filter_map(|pid| std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok())
        .filter_map(|s| {
            s.lines()
                .find(|l| l.starts_with("Pss:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .sum::<u64>()
        * 1024
}

fn quantile(sorted: &[u64], q: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

#[tokio::main]
async fn main() {
    let o = options();
    let smtp_port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let site = DemoSite::start(Arc::new(SmtpMailer::new(
        ([127, 0, 0, 1], smtp_port).into(),
    )))
    .await
    .expect("start the demo shop");
    let plan: Value = serde_json::from_str(planlock::demo::SIGNUP_PLAN).unwrap();
    let body = json!({
        "plan": plan,
        "vars": {"base_url": site.url(""), "password": "correct horse battery staple"},
        "inbox": "demo",
        "allowed_hosts": ["127.0.0.1"],
    });
    let http = reqwest::Client::new();
    println!(
        "| concurrent runs (clients) | --max-runs | runs | failed | seconds | succeeded runs/min | run p50 ms | run p95 ms | peak memory, PSS (server + Chromium) |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for &clients in &o.levels {
        let slots = o.max_runs.unwrap_or(clients);
        let serve = Serve::start(&o.bin, slots, smtp_port);
        let pid = serve.child.id();
        // One run first: the browser's first context and page are not what is measured.
        let warm: Value = http
            .post(format!("{}/v1/runs", serve.base))
            .json(&body)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(warm["status"], "succeeded", "{warm:#}");
        let peak = Arc::new(AtomicU64::new(tree_rss(pid)));
        let sampling = Arc::new(AtomicBool::new(true));
        let sampler = {
            let (peak, sampling) = (peak.clone(), sampling.clone());
            std::thread::spawn(move || {
                while sampling.load(Ordering::Relaxed) {
                    peak.fetch_max(tree_rss(pid), Ordering::Relaxed);
                    std::thread::sleep(Duration::from_millis(100));
                }
            })
        };
        let total = (clients * o.runs_per_slot).max(o.min_runs);
        let next = Arc::new(AtomicU64::new(0));
        let began = Instant::now();
        let workers: Vec<_> = (0..clients)
            .map(|_| {
                let (http, body, next) = (http.clone(), body.clone(), next.clone());
                let url = format!("{}/v1/runs", serve.base);
                tokio::spawn(async move {
                    let mut done = Vec::new();
                    while next.fetch_add(1, Ordering::SeqCst) < total as u64 {
                        let result: Value = http
                            .post(&url)
                            .json(&body)
                            .send()
                            .await
                            .unwrap()
                            .json()
                            .await
                            .unwrap();
                        done.push((
                            result["status"] == "succeeded",
                            result["duration_ms"].as_u64().unwrap_or(0),
                            result["summary"].as_str().unwrap_or("").to_string(),
                        ));
                    }
                    done
                })
            })
            .collect();
        let mut outcomes = Vec::new();
        for w in workers {
            outcomes.extend(w.await.unwrap());
        }
        let elapsed = began.elapsed();
        sampling.store(false, Ordering::Relaxed);
        sampler.join().unwrap();
        let failed: Vec<&String> = outcomes.iter().filter(|o| !o.0).map(|o| &o.2).collect();
        let mut durations: Vec<u64> = outcomes.iter().map(|o| o.1).collect();
        durations.sort_unstable();
        println!(
            "| {clients} | {slots} | {} | {} | {:.1} | {:.1} | {} | {} | {:.0} MiB |",
            outcomes.len(),
            failed.len(),
            elapsed.as_secs_f64(),
            // Only runs that succeeded count: a failed run did no work.
            (outcomes.len() - failed.len()) as f64 / elapsed.as_secs_f64() * 60.0,
            quantile(&durations, 0.5),
            quantile(&durations, 0.95),
            peak.load(Ordering::Relaxed) as f64 / (1024.0 * 1024.0),
        );
        if let Some(first) = failed.first() {
            eprintln!("  first failure at {clients}: {first}");
        }
        drop(serve);
    }
}
