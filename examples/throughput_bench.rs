//! planlock's throughput benchmark: the demo shop's signup with an emailed code (over real
//! IMAP, a Dovecot of its own) at 1, 2, 4, … concurrent runs, through `planlock serve`
//! (concurrent `POST /v1/runs`) and through `planlock run --jobs N`, alternating level by level
//! with the same flow in Playwright (`bench/playwright/throughput.js`: one browser, a context
//! per run). Reports runs/s, per-run p50/p95, CPU seconds per run (the driver and Chromium
//! separately, from /proc) and Chromium's memory (PSS from /proc/PID/smaps_rollup, summed over
//! its processes) while the runs are in flight. Every side launches the Chromium `serve` picks:
//! `$CHROME`, else Chromium's headless shell when installed, else the full browser.
//!
//! ```text
//! scripts/bench --throughput                        # builds, installs what is missing, runs this
//! cargo run --example throughput_bench -- --levels 1,2,4,8 --runs 16 [--no-playwright] [--no-cli]
//! scripts/bench --throughput --other-chrome /usr/lib/chromium/chromium   # and serve on the full browser
//! ```
//!
//! Needs the `planlock` binary next to this example (`cargo build --bin planlock`), Dovecot
//! (`apt-get install dovecot-imapd`), and for the Playwright side Node.js with
//! `bench/playwright/node_modules` (`npm ci` there). Not a test: it prints Markdown tables.

#[path = "../tests/it/util/dovecot.rs"]
mod dovecot;
#[path = "support/phases.rs"]
mod phases;
#[path = "support/procfs.rs"]
mod procfs;
#[path = "support/shop.rs"]
mod shop;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, anyhow, bail};
use clap::Parser;
use phases::{Marks, Timeline, unix_ms};
use planlock::browser::Preference;
use planlock::demo::{DemoSite, SIGNUP_PLAN};
use procfs::{Sampler, Usage, browser_pss_kib};
use serde_json::{Value, json};
use shop::{DOMAIN, DovecotMailer, INBOX_NAME, load, percentile, planlock_binary, run_body};

#[derive(Parser, Debug)]
#[command(about = "planlock throughput benchmark (side by side with Playwright)")]
struct Args {
    /// Concurrency levels, comma-separated.
    #[arg(long, default_value = "1,2,4,8,16,32", value_delimiter = ',')]
    levels: Vec<usize>,
    /// Runs per level and side: at least this many, and at least twice the level.
    #[arg(long, default_value_t = 12)]
    runs: usize,
    /// Skip the Playwright side.
    #[arg(long)]
    no_playwright: bool,
    /// Skip `planlock run --jobs N`.
    #[arg(long)]
    no_cli: bool,
    /// The `planlock` binary to drive (default: the one built next to this example), e.g.
    /// an older build for a before/after comparison.
    #[arg(long)]
    planlock: Option<PathBuf>,
    /// Also drive `planlock serve` of this binary (e.g. a build of an earlier commit), as a
    /// side of its own ("planlock serve (baseline)"), alternating with the others.
    #[arg(long)]
    baseline: Option<PathBuf>,
    /// Also drive `serve` of the same binary with this Chromium (as `$CHROME`), as a side of
    /// its own ("planlock serve (other Chromium)"): e.g. the full browser while `$CHROME` names
    /// Chromium's headless shell, to compare the two in one run.
    #[arg(long)]
    other_chrome: Option<PathBuf>,
    /// Also write every batch as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Instead of the levels: this many whole processes of each side, alternating, one after
    /// another: `planlock run PLAN` against `node throughput.js --once` (launch, one signup,
    /// close), each timed from spawn to exit.
    #[arg(long)]
    whole: Option<usize>,
}

/// One batch: `runs` runs, `level` at a time, on one side.
#[derive(Debug, Clone)]
struct Batch {
    side: &'static str,
    level: usize,
    wall_s: f64,
    runs_ms: Vec<f64>,
    failures: Vec<String>,
    cpu: Usage,
    idle_pss_mib: f64,
    peak_pss_mib: f64,
    mean_pss_mib: f64,
    /// Each run's phases, where the side reports them.
    timelines: Vec<Timeline>,
}

impl Batch {
    fn rate(&self) -> f64 {
        self.runs_ms.len() as f64 / self.wall_s
    }

    fn per_run(&self, s: f64) -> f64 {
        s / self.runs_ms.len().max(1) as f64
    }

    fn row(&self) -> String {
        format!(
            "| {} | {} | {}{} | {:.2} | {:.0} | {:.0} | {:.2} | {:.2} | {:.0} → {:.0} (peak {:.0}) | {:.1} |",
            self.side,
            self.level,
            self.runs_ms.len(),
            if self.failures.is_empty() {
                String::new()
            } else {
                format!(" ({} failed)", self.failures.len())
            },
            self.rate(),
            percentile(&self.runs_ms, 50.0),
            percentile(&self.runs_ms, 95.0),
            self.per_run(self.cpu.driver_s),
            self.per_run(self.cpu.browser_s),
            self.idle_pss_mib,
            self.mean_pss_mib,
            self.peak_pss_mib,
            (self.peak_pss_mib - self.idle_pss_mib) / self.level as f64,
        )
    }

    fn to_json(&self) -> Value {
        json!({
            "side": self.side, "level": self.level, "wall_s": self.wall_s,
            "runs_per_s": self.rate(), "runs_ms": self.runs_ms, "failures": self.failures,
            "p50_ms": percentile(&self.runs_ms, 50.0), "p95_ms": percentile(&self.runs_ms, 95.0),
            "driver_cpu_s_per_run": self.per_run(self.cpu.driver_s),
            "browser_cpu_s_per_run": self.per_run(self.cpu.browser_s),
            "browser_cpu_s_per_run_by_type": self.cpu.by_type.iter().map(|(k, s)| (k.clone(), json!(self.per_run(*s)))).collect::<serde_json::Map<_, _>>(),
            "idle_pss_mib": self.idle_pss_mib, "mean_pss_mib": self.mean_pss_mib,
            "peak_pss_mib": self.peak_pss_mib,
        })
    }
}

const TABLE_HEAD: &str = "| side | concurrent | runs | runs/s | p50 ms | p95 ms | driver CPU s/run | Chromium CPU s/run | Chromium PSS MiB idle → mean (peak) | PSS MiB per concurrent run (peak − idle) / N |\n|---|---:|---:|---:|---:|---:|---:|---:|---|---:|";

const SERVE: &str = "planlock serve";
const BASELINE: &str = "planlock serve (baseline)";
const OTHER_CHROME: &str = "planlock serve (other Chromium)";

/// `planlock serve` on a port of its choosing, as a child process.
struct Server {
    child: Child,
    base: String,
    /// Its runs' phase marks, read from its log.
    marks: Marks,
}

impl Server {
    /// `inboxes`: `--inbox NAME=URL` arguments (older builds took mailbox URLs in requests
    /// only); `chrome`: the Chromium it launches.
    fn start(bin: &Path, max_runs: usize, inboxes: &[String], chrome: &Path) -> Result<Server> {
        let mut serve = Command::new(bin);
        serve
            .env("CHROME", chrome)
            .args(["serve", "--listen", "127.0.0.1:0", "--max-runs"])
            .arg(max_runs.to_string())
            .args(inboxes);
        // Its phase marks, with microsecond timestamps, for the per-phase table.
        let marks = Marks::default();
        let (child, base) = phases::serve_logging_phases(serve, &marks)?;
        Ok(Server { child, base, marks })
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // SAFETY: SIGTERM to our own child, which then shuts down gracefully.
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
        }
        let _ = self.child.wait();
    }
}

async fn serve_batch(
    side: &'static str,
    server: &Server,
    body: &Value,
    runs: usize,
    level: usize,
) -> Result<Batch> {
    let client = reqwest::Client::new();
    let url = format!("{}/v1/runs", server.base);
    let idle = browser_pss_kib(server.pid()) as f64 / 1024.0;
    let sampler = Sampler::start(server.pid());
    let began = Instant::now();
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..level {
        let (client, url, body, next) = (client.clone(), url.clone(), body.clone(), next.clone());
        workers.spawn(async move {
            let mut done = Vec::new();
            while next.fetch_add(1, std::sync::atomic::Ordering::Relaxed) < runs {
                let t = Instant::now();
                let sent = unix_ms(std::time::SystemTime::now());
                let answer = client.post(&url).json(&body).send().await;
                let outcome = match answer {
                    Ok(r) => {
                        let status = r.status();
                        let v: Value = r.json().await.unwrap_or(Value::Null);
                        let received = unix_ms(std::time::SystemTime::now());
                        if status.is_success() && v["status"] == "succeeded" {
                            let id = v["run_id"].as_str().unwrap_or_default().to_string();
                            Ok((t.elapsed().as_secs_f64() * 1e3, id, sent, received))
                        } else {
                            Err(format!(
                                "{status}: {}",
                                v["summary"].as_str().unwrap_or(&v.to_string())
                            ))
                        }
                    }
                    Err(e) => Err(e.to_string()),
                };
                done.push(outcome);
            }
            done
        });
    }
    let mut runs_ms = Vec::new();
    let mut answered = Vec::new();
    let mut failures = Vec::new();
    while let Some(done) = workers.join_next().await {
        for outcome in done? {
            match outcome {
                Ok((ms, id, sent, received)) => {
                    runs_ms.push(ms);
                    answered.push((id, sent, received));
                }
                Err(e) => failures.push(e),
            }
        }
    }
    let wall_s = began.elapsed().as_secs_f64();
    let (cpu, peak, mean) = sampler.finish();
    let marks = server.marks.clone();
    let timelines = tokio::task::spawn_blocking(move || {
        answered
            .iter()
            .filter_map(|(id, sent, received)| marks.timeline(id, *sent, *received))
            .collect()
    })
    .await?;
    Ok(Batch {
        side,
        level,
        wall_s,
        runs_ms,
        failures,
        cpu,
        idle_pss_mib: idle,
        peak_pss_mib: peak,
        mean_pss_mib: mean,
        timelines,
    })
}

/// `planlock run PLAN ×runs --jobs level`: a process of its own, browser launch included.
fn cli_batch(
    bin: &Path,
    chrome: &Path,
    plan: &Path,
    site: &str,
    inbox: &str,
    runs: usize,
    level: usize,
) -> Result<Batch> {
    let mut cmd = Command::new(bin);
    cmd.env("CHROME", chrome).arg("run");
    for _ in 0..runs {
        cmd.arg(plan);
    }
    cmd.args([
        "--jobs",
        &level.to_string(),
        "--inbox",
        inbox,
        "--allow-host",
        "127.0.0.1",
    ])
    .args(["--var", &format!("base_url={site}")])
    .args(["--var", "password=correct horse battery staple", "--json"])
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::null());
    let began = Instant::now();
    let mut child = cmd.spawn().context("start planlock run")?;
    let pid = child.id();
    let sampler = Sampler::start(pid);
    let mut stdout = String::new();
    std::io::Read::read_to_string(child.stdout.as_mut().context("stdout")?, &mut stdout)?;
    let (cpu, peak, mean) = sampler.finish();
    let status = child.wait()?;
    let wall_s = began.elapsed().as_secs_f64();
    let mut runs_ms = Vec::new();
    let mut failures = Vec::new();
    // `--json` prints one result per plan, as a JSON array or one object per line.
    let results: Vec<Value> = match serde_json::from_str::<Value>(&stdout) {
        Ok(Value::Array(a)) => a,
        Ok(v) => vec![v],
        Err(_) => stdout
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect(),
    };
    for r in &results {
        if r["status"] == "succeeded" {
            runs_ms.push(r["duration_ms"].as_f64().unwrap_or(f64::NAN));
        } else {
            failures.push(r["summary"].as_str().unwrap_or("?").to_string());
        }
    }
    if results.is_empty() {
        failures.push(format!("planlock run exited {status} with no result"));
    }
    Ok(Batch {
        side: "planlock run --jobs",
        level,
        wall_s,
        runs_ms,
        failures,
        cpu,
        idle_pss_mib: 0.0,
        peak_pss_mib: peak,
        mean_pss_mib: mean,
        timelines: Vec::new(),
    })
}

/// `node bench/playwright/throughput.js --serve`, asked one batch at a time.
struct Playwright {
    child: Child,
    stdin: ChildStdin,
    answers: std::io::Lines<BufReader<std::process::ChildStdout>>,
    about: Value,
}

/// `node bench/playwright/throughput.js MODE`, configured for the benchmark's shop and mailbox.
fn playwright_command(
    mode: &str,
    site: &str,
    dovecot: &dovecot::Dovecot,
    chrome: &Path,
) -> Result<Command> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/playwright");
    if !dir.join("node_modules/imapflow").exists() {
        bail!("bench/playwright/node_modules is missing: run `npm ci` there (scripts/bench does)");
    }
    let mut cmd = Command::new("node");
    cmd.arg(dir.join("throughput.js"))
        .arg(mode)
        .env("BASE", site)
        .env("IMAP_PORT", dovecot.port().to_string())
        .env("IMAP_USER", dovecot::USER)
        .env("IMAP_PASS", dovecot::PASSWORD)
        .env("MAIL_DOMAIN", DOMAIN)
        .env("CHROME", chrome);
    Ok(cmd)
}

/// The step types of the benchmark's plan, in order.
fn step_types() -> Vec<String> {
    let plan: Value = serde_json::from_str(SIGNUP_PLAN).expect("the bundled plan is JSON");
    plan["steps"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|s| s["type"].as_str().unwrap_or("?").to_string())
                .collect()
        })
        .unwrap_or_default()
}

impl Playwright {
    fn start(site: &str, dovecot: &dovecot::Dovecot, chrome: &Path) -> Result<Playwright> {
        let mut child = playwright_command("--serve", site, dovecot, chrome)?
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .context("start node (is Node.js installed?)")?;
        let stdin = child.stdin.take().context("stdin")?;
        let mut answers = BufReader::new(child.stdout.take().context("stdout")?).lines();
        let first = answers
            .next()
            .context("throughput.js exited before it was ready")??;
        let about: Value = serde_json::from_str(&first)?;
        if about["ready"] != true {
            bail!("throughput.js: {first}");
        }
        Ok(Playwright {
            child,
            stdin,
            answers,
            about,
        })
    }

    fn batch(&mut self, runs: usize, level: usize) -> Result<Batch> {
        let pid = self.child.id();
        let idle = browser_pss_kib(pid) as f64 / 1024.0;
        let sampler = Sampler::start(pid);
        writeln!(self.stdin, "batch {runs} {level}")?;
        self.stdin.flush()?;
        let line = self.answers.next().context("throughput.js exited")??;
        let (cpu, peak, mean) = sampler.finish();
        let v: Value = serde_json::from_str(&line)?;
        if let Some(e) = v["error"].as_str() {
            bail!("throughput.js: {e}");
        }
        let nums = |k: &str| -> Vec<f64> {
            v[k].as_array()
                .map(|a| a.iter().filter_map(Value::as_f64).collect())
                .unwrap_or_default()
        };
        let runs_ms = nums("runs_ms");
        let types = step_types();
        let timelines = v["phases"]
            .as_array()
            .map(|a| {
                a.iter()
                    .zip(&runs_ms)
                    .map(|(marks, ms)| phases::playwright_timeline(marks, *ms, &types))
                    .collect()
            })
            .unwrap_or_default();
        Ok(Batch {
            side: "Playwright",
            level,
            wall_s: v["wall_ms"].as_f64().unwrap_or(f64::NAN) / 1e3,
            runs_ms,
            failures: v["failures"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|f| f.as_str().unwrap_or("?").to_string())
                        .collect()
                })
                .unwrap_or_default(),
            cpu,
            idle_pss_mib: idle,
            peak_pss_mib: peak,
            mean_pss_mib: mean,
            timelines,
        })
    }
}

impl Drop for Playwright {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Spawns `cmd`, waits for it to exit successfully: its wall time in ms and, when it logged
/// phase marks as JSON lines on stderr, their times since the spawn.
fn timed_process(cmd: &mut Command) -> Result<(f64, Vec<(String, f64)>)> {
    let spawned = unix_ms(std::time::SystemTime::now());
    let t = Instant::now();
    let out = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .with_context(|| format!("start {cmd:?}"))?;
    let ms = t.elapsed().as_secs_f64() * 1e3;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        bail!("{:?} exited {}: {stderr}", cmd.get_program(), out.status);
    }
    let marks = Marks::default();
    for line in stderr.lines() {
        marks.read(line);
    }
    Ok((ms, marks.since(spawned)))
}

/// `n` whole processes of each side, alternating: `planlock run` of the plan against the
/// Playwright script of the same flow (launch, one signup, close). Prints a table.
fn whole_processes(n: usize, mut cli: Command, mut node: Command) -> Result<()> {
    let load_before = load();
    // One of each first, unmeasured: the page cache and the shop's first requests.
    timed_process(&mut cli)?;
    timed_process(&mut node)?;
    let (mut ours, mut theirs, mut marks) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..n {
        let (ms, m) = timed_process(&mut cli)?;
        ours.push(ms);
        marks.push(m);
        theirs.push(timed_process(&mut node)?.0);
        eprintln!(
            "  {}/{n}: planlock run {ms:.0} ms, Playwright {:.0} ms",
            i + 1,
            theirs[i]
        );
    }
    let load_after = load();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    println!(
        "### A whole process: `planlock run PLAN` against a Playwright script, one signup each
"
    );
    println!("Load average {load_before} before, {load_after} after; {n} processes of each side, alternating.
");
    println!(
        "| side | processes | p50 ms | p95 ms | mean ms |
|---|---:|---:|---:|---:|"
    );
    for (side, v) in [
        ("planlock run", &ours),
        ("Playwright script (node)", &theirs),
    ] {
        println!(
            "| {side} | {} | {:.0} | {:.0} | {:.0} |",
            v.len(),
            percentile(v, 50.0),
            percentile(v, 95.0),
            mean(v)
        );
    }
    println!(
        "
planlock run / Playwright: {:.2}× at p50, {:.2}× in the mean (time; lower is faster).\n",
        percentile(&ours, 50.0) / percentile(&theirs, 50.0),
        mean(&ours) / mean(&theirs)
    );
    // When each phase of `planlock run` ended, in ms since its spawn (p50 over the processes).
    let mut names: Vec<String> = Vec::new();
    for m in &marks {
        for (name, _) in m {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
    }
    if !names.is_empty() {
        println!("`planlock run`, when each phase ended (ms since the process was spawned):\n");
        println!(
            "| phase | p50 ms | p95 ms |
|---|---:|---:|"
        );
        for name in &names {
            let v: Vec<f64> = marks
                .iter()
                .flat_map(|m| m.iter().filter(|(n, _)| n == name).map(|(_, t)| *t))
                .collect();
            println!(
                "| {name} | {:.0} | {:.0} |",
                percentile(&v, 50.0),
                percentile(&v, 95.0)
            );
        }
        println!(
            "| exited | {:.0} | {:.0} |",
            percentile(&ours, 50.0),
            percentile(&ours, 95.0)
        );
    }
    Ok(())
}

/// The per-phase table of the sides that report phases, at one level.
fn phase_table(batches: &[Batch], level: usize) {
    let sides: Vec<&Batch> = batches
        .iter()
        .filter(|b| b.level == level && !b.timelines.is_empty())
        .collect();
    if sides.is_empty() {
        return;
    }
    println!(
        "\nWhere one run's time goes at {level} concurrent, phase by phase (ms; a row is the time from the end of the row above):\n"
    );
    let mut head = "| phase |".to_string();
    let mut rule = "|---|".to_string();
    for b in &sides {
        head.push_str(&format!(" {} p50 | p95 |", b.side));
        rule.push_str("---:|---:|");
    }
    println!("{head}\n{rule}");
    for name in phases::row_names(sides.iter().flat_map(|b| b.timelines.iter())) {
        let mut row = format!("| {name} |");
        for b in &sides {
            let v = phases::samples(&b.timelines, &name);
            if v.is_empty() {
                row.push_str(" – | – |");
            } else {
                row.push_str(&format!(
                    " {:.1} | {:.1} |",
                    percentile(&v, 50.0),
                    percentile(&v, 95.0)
                ));
            }
        }
        println!("{row}");
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<()> {
    let args = Args::parse();
    let bin = match &args.planlock {
        Some(p) => p.clone(),
        None => planlock_binary()?,
    };
    let dovecot = Arc::new(dovecot::Dovecot::start().ok_or_else(|| {
        anyhow!("Dovecot is needed for the mail part (apt-get install dovecot-imapd)")
    })?);
    let mailer = Arc::new(DovecotMailer::new(dovecot.clone()));
    let site = DemoSite::start(mailer).await?;
    let base = site.url("");
    let inbox = dovecot.url(&format!("address={}@{DOMAIN}&plus=true", dovecot::USER));
    // `serve` reads the mailbox as a service does: a server inbox the requests choose by
    // name. The baseline build took the mailbox URL in each request.
    let body = run_body(&base, INBOX_NAME);
    let baseline_body = run_body(&base, &inbox);
    let server_inbox = ["--inbox".to_string(), format!("{INBOX_NAME}={inbox}")];
    let plan_file = tempfile::Builder::new().suffix(".json").tempfile()?;
    std::fs::write(plan_file.path(), SIGNUP_PLAN)?;

    let max_level = args.levels.iter().copied().max().unwrap_or(1);
    let chrome = planlock::browser::find_executable(None, false, Preference::HeadlessShell)?;
    if let Some(n) = args.whole {
        let cli = |plan: &Path| {
            let mut cmd = Command::new(&bin);
            cmd.env("CHROME", &chrome)
                .arg("run")
                .arg(plan)
                .args(["--inbox", &inbox, "--allow-host", "127.0.0.1"])
                .args(["--var", &format!("base_url={base}")])
                .args(["--var", "password=correct horse battery staple"])
                .env("PLANLOCK_LOG", "planlock=warn,planlock::phase=debug")
                .env("PLANLOCK_LOG_FORMAT", "json");
            cmd
        };
        let node = playwright_command("--once", &base, &dovecot, &chrome)?;
        return tokio::task::block_in_place(|| whole_processes(n, cli(plan_file.path()), node));
    }
    let server = Server::start(&bin, max_level, &server_inbox, &chrome)?;
    // Two unmeasured runs: the browser's first contexts, the IMAP connection.
    let warm = serve_batch(SERVE, &server, &body, 2, 1).await?;
    if !warm.failures.is_empty() {
        bail!("the warm-up runs through serve failed: {:?}", warm.failures);
    }
    // A baseline that knows server inboxes reads the mail as `serve` does; an older one is
    // given the mailbox URL in each request.
    let mut baseline_body = baseline_body;
    let baseline = match &args.baseline {
        Some(path) => {
            let server = Server::start(path, max_level, &server_inbox, &chrome)?;
            let warm = serve_batch(BASELINE, &server, &body, 2, 1).await?;
            let server = if warm.failures.is_empty() {
                baseline_body = body.clone();
                server
            } else {
                drop(server);
                let server = Server::start(path, max_level, &[], &chrome)?;
                let warm = serve_batch(BASELINE, &server, &baseline_body, 2, 1).await?;
                if !warm.failures.is_empty() {
                    bail!("the baseline's warm-up runs failed: {:?}", warm.failures);
                }
                server
            };
            Some(server)
        }
        None => None,
    };
    let other_chrome = match &args.other_chrome {
        Some(other) => {
            let server = Server::start(&bin, max_level, &server_inbox, other)?;
            let warm = serve_batch(OTHER_CHROME, &server, &body, 2, 1).await?;
            if !warm.failures.is_empty() {
                bail!(
                    "the warm-up runs with the other Chromium failed: {:?}",
                    warm.failures
                );
            }
            Some(server)
        }
        None => None,
    };
    let mut playwright = if args.no_playwright {
        None
    } else {
        Some(Playwright::start(&base, &dovecot, &chrome)?)
    };
    let load_before = load();
    eprintln!("load average before: {load_before}");
    let mut batches = Vec::new();
    for &level in &args.levels {
        let runs = args.runs.max(2 * level);
        eprintln!("{level} concurrent, {runs} runs per side …");
        // Alternating, so both sides see the same machine load.
        let b = serve_batch(SERVE, &server, &body, runs, level).await?;
        eprintln!("  {}", b.row());
        batches.push(b);
        if let Some(baseline) = &baseline {
            let b = serve_batch(BASELINE, baseline, &baseline_body, runs, level).await?;
            eprintln!("  {}", b.row());
            batches.push(b);
        }
        if let Some(other) = &other_chrome {
            let b = serve_batch(OTHER_CHROME, other, &body, runs, level).await?;
            eprintln!("  {}", b.row());
            batches.push(b);
        }
        if let Some(p) = playwright.as_mut() {
            let b = tokio::task::block_in_place(|| p.batch(runs, level))?;
            eprintln!("  {}", b.row());
            batches.push(b);
        }
        if !args.no_cli {
            let (bin, plan, base, inbox) = (&bin, plan_file.path(), &base, &inbox);
            let b = tokio::task::block_in_place(|| {
                cli_batch(bin, &chrome, plan, base, inbox, runs, level)
            })?;
            eprintln!("  {}", b.row());
            batches.push(b);
        }
    }
    let load_after = load();
    drop(server);
    let baseline_given = baseline.is_some();
    drop(baseline);
    drop(other_chrome);

    println!("### Throughput: signup with an emailed code (IMAP), N runs at once\n");
    println!(
        "Load average {load_before} before, {load_after} after. CPU and PSS from /proc: \"driver\" is the planlock process (or node with Playwright), \"Chromium\" every process below it.\n"
    );
    println!("{TABLE_HEAD}");
    for b in &batches {
        println!("{}", b.row());
    }
    println!("\nChromium CPU seconds per run by process type:\n");
    println!("| side | concurrent | by process type (s/run) |\n|---|---:|---|");
    for b in &batches {
        let parts: Vec<String> = b
            .cpu
            .by_type
            .iter()
            .filter(|(_, s)| *s > 0.0)
            .map(|(k, s)| format!("{k} {:.3}", b.per_run(*s)))
            .collect();
        println!("| {} | {} | {} |", b.side, b.level, parts.join(", "));
    }
    println!();
    if baseline_given {
        println!(
            "| concurrent | planlock serve runs/s | Playwright runs/s | planlock / Playwright | baseline serve runs/s | planlock / baseline |\n|---:|---:|---:|---:|---:|---:|"
        );
    } else {
        println!(
            "| concurrent | planlock serve runs/s | Playwright runs/s | planlock / Playwright |\n|---:|---:|---:|---:|"
        );
    }
    // Runs/s of one side at one level, when measured.
    let rate = |side: &str, level: usize| {
        batches
            .iter()
            .find(|b| b.side == side && b.level == level)
            .map(Batch::rate)
    };
    for &level in &args.levels {
        let rate = |side: &str| rate(side, level);
        if let (Some(p), Some(w)) = (rate(SERVE), rate("Playwright")) {
            let before = rate(BASELINE)
                .map(|b| format!(" {b:.2} | {:.2}× |", p / b))
                .unwrap_or_default();
            println!("| {level} | {p:.2} | {w:.2} | {:.2}× |{before}", p / w);
        }
    }
    if let Some(other) = &args.other_chrome {
        println!(
            "\n\"{OTHER_CHROME}\" launches {}; the other sides {}.\n",
            other.display(),
            chrome.display()
        );
        println!(
            "| concurrent | planlock serve runs/s | other Chromium runs/s | ratio |\n|---:|---:|---:|---:|"
        );
        for &level in &args.levels {
            if let (Some(p), Some(o)) = (rate(SERVE, level), rate(OTHER_CHROME, level)) {
                println!("| {level} | {p:.2} | {o:.2} | {:.2}× |", p / o);
            }
        }
    }
    if let Some(p) = &playwright {
        println!(
            "\nPlaywright {} on node {}, driving Chromium {}",
            p.about["playwright"].as_str().unwrap_or("?"),
            p.about["node"].as_str().unwrap_or("?"),
            p.about["browser"].as_str().unwrap_or("?")
        );
    }
    for &level in &args.levels {
        phase_table(&batches, level);
    }
    for b in &batches {
        for f in b.failures.iter().take(3) {
            println!("\n{} at {}: a run failed: {f}", b.side, b.level);
        }
    }
    if let Some(path) = &args.json {
        let all: Vec<Value> = batches.iter().map(Batch::to_json).collect();
        std::fs::write(
            path,
            serde_json::to_string_pretty(
                &json!({"batches": all, "load_before": load_before, "load_after": load_after}),
            )?,
        )?;
    }
    drop(playwright);
    Ok(())
}
