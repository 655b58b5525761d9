//! The shared queue's benchmark: 1, 2 and 3 `planlock serve` replicas on one PostgreSQL (a
//! server of its own, as the tests start it), each with its own Chromium and `--max-runs 2`,
//! running the demo shop's signup with an emailed code (over real IMAP, a Dovecot of its own).
//!
//! - Throughput: with N replicas up, runs are posted to the first replica only, twice as many
//!   at once as there are slots in all, so the queue is never empty; the shared queue spreads
//!   them. Reports runs/s, each run's time (POST to answer), CPU seconds per run of the
//!   replicas, of their Chromiums and of PostgreSQL (from /proc), runs per Chromium CPU
//!   second, and how many runs each replica ran.
//! - Pick-up: one run at a time posted to the first replica, the time from `POST` to the
//!   run's phases (`accepted`, `queued`, `claimed`, its first step starting and ending), from
//!   the replicas' phase marks: once with every replica idle, once with the first replica's
//!   slots held by long runs, so another, idle replica must claim each run.
//!
//! ```text
//! scripts/bench --queue                              # builds, installs what is missing, runs this
//! cargo run --example queue_bench -- --replicas 1,2,3 --runs 24 --latency-runs 24
//! ```
//!
//! Needs the `planlock` binary next to this example (`cargo build --bin planlock`), PostgreSQL
//! (Debian's `postgresql`), Dovecot (`dovecot-imapd`) and Chromium. Not a test: it prints
//! Markdown tables.

#[path = "../tests/it/util/dovecot.rs"]
mod dovecot;
#[path = "support/phases.rs"]
mod phases;
#[path = "../tests/it/util/postgres.rs"]
mod postgres;
#[path = "support/procfs.rs"]
mod procfs;
#[path = "support/shop.rs"]
mod shop;

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, Result, anyhow, bail};
use clap::Parser;
use phases::{Marks, unix_ms};
use planlock::browser::Preference;
use planlock::demo::DemoSite;
use procfs::Sampler;
use serde_json::{Value, json};
use shop::{DOMAIN, DovecotMailer, INBOX_NAME, load, percentile, planlock_binary, run_body};

/// What the harness's PostgreSQL asks of its crate: with `CI=true` a missing part fails.
fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

#[derive(Parser, Debug)]
#[command(
    about = "planlock's shared queue: runs/s with 1, 2, 3 replicas on one PostgreSQL, and the time from POST to a run's first step"
)]
struct Args {
    /// Replica counts to measure throughput at, comma-separated, ascending.
    #[arg(long, default_value = "1,2,3", value_delimiter = ',')]
    replicas: Vec<usize>,
    /// Runs per replica count: at least this many, and at least twice the runs at once.
    #[arg(long, default_value_t = 24)]
    runs: usize,
    /// `--max-runs` of each replica.
    #[arg(long, default_value_t = 2)]
    max_runs: usize,
    /// Runs, one at a time, for each pick-up measurement.
    #[arg(long, default_value_t = 24)]
    latency_runs: usize,
}

/// One `planlock serve` on the shared store, a child process on a port of its choosing.
struct Replica {
    child: Child,
    base: String,
    id: String,
}

impl Replica {
    fn start(
        bin: &Path,
        chrome: &Path,
        db: &str,
        id: &str,
        max_runs: usize,
        inbox: &str,
        marks: &Marks,
    ) -> Result<Replica> {
        let mut serve = Command::new(bin);
        serve
            .env("CHROME", chrome)
            .args(["serve", "--listen", "127.0.0.1:0", "--store", db])
            .args(["--replica-id", id, "--max-runs", &max_runs.to_string()])
            .args(["--inbox", &format!("{INBOX_NAME}={inbox}")])
            .env_remove("PLANLOCK_REPLICA_ID");
        let (child, base) =
            phases::serve_logging_phases(serve, marks).with_context(|| format!("replica {id}"))?;
        Ok(Replica {
            child,
            base,
            id: id.to_string(),
        })
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Runs this replica ended `succeeded`, from its `/metrics`.
    async fn succeeded(&self, client: &reqwest::Client) -> Result<u64> {
        let text = client
            .get(format!("{}/metrics", self.base))
            .send()
            .await?
            .text()
            .await?;
        let needle = "planlock_runs_total{status=\"succeeded\"} ";
        Ok(text
            .lines()
            .find_map(|l| l.strip_prefix(needle))
            .and_then(|n| n.trim().parse::<f64>().ok())
            .unwrap_or(0.0) as u64)
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        // SAFETY: SIGTERM to our own child, which drains and exits.
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
        }
        let _ = self.child.wait();
    }
}

/// A run that succeeded: its time from POST to answer (ms), its id, when it was sent (Unix ms).
type Answered = (f64, String, f64);

/// `POST /v1/runs`, waiting for the result.
async fn post(client: &reqwest::Client, base: &str, body: &Value) -> Result<Answered, String> {
    let t = Instant::now();
    let sent = unix_ms(SystemTime::now());
    let r = client
        .post(format!("{base}/v1/runs"))
        .json(body)
        .send()
        .await
        .map_err(|e| e.to_string())?;
    let status = r.status();
    let v: Value = r.json().await.unwrap_or(Value::Null);
    if status.is_success() && v["status"] == "succeeded" {
        let id = v["run_id"].as_str().unwrap_or_default().to_string();
        Ok((t.elapsed().as_secs_f64() * 1e3, id, sent))
    } else {
        Err(format!(
            "{status}: {}",
            v["summary"].as_str().unwrap_or(&v.to_string())
        ))
    }
}

/// `runs` runs, `at_once` at a time, all posted to `to`.
async fn closed_loop(
    client: &reqwest::Client,
    to: &str,
    body: &Value,
    runs: usize,
    at_once: usize,
) -> Result<(Vec<Answered>, Vec<String>)> {
    let next = Arc::new(AtomicUsize::new(0));
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..at_once {
        let (client, to, body, next) = (client.clone(), to.to_string(), body.clone(), next.clone());
        workers.spawn(async move {
            let mut done = Vec::new();
            while next.fetch_add(1, Ordering::Relaxed) < runs {
                done.push(post(&client, &to, &body).await);
            }
            done
        });
    }
    let (mut ok, mut failed) = (Vec::new(), Vec::new());
    while let Some(done) = workers.join_next().await {
        for outcome in done? {
            match outcome {
                Ok(a) => ok.push(a),
                Err(e) => failed.push(e),
            }
        }
    }
    Ok((ok, failed))
}

/// Throughput with some replicas up.
struct Level {
    replicas: usize,
    at_once: usize,
    wall_s: f64,
    runs_ms: Vec<f64>,
    failures: Vec<String>,
    planlock_s: f64,
    chromium_s: f64,
    postgres_s: f64,
    per_replica: Vec<u64>,
}

impl Level {
    fn rate(&self) -> f64 {
        self.runs_ms.len() as f64 / self.wall_s
    }

    fn per_run(&self, s: f64) -> f64 {
        s / self.runs_ms.len().max(1) as f64
    }

    fn row(&self, max_runs: usize) -> String {
        format!(
            "| {} | {} | {} | {}{} | {:.2} | {:.0} | {:.0} | {:.3} | {:.3} | {:.2} | {:.3} | {} |",
            self.replicas,
            self.replicas * max_runs,
            self.at_once,
            self.runs_ms.len(),
            if self.failures.is_empty() {
                String::new()
            } else {
                format!(" ({} failed)", self.failures.len())
            },
            self.rate(),
            percentile(&self.runs_ms, 50.0),
            percentile(&self.runs_ms, 95.0),
            self.per_run(self.planlock_s),
            self.per_run(self.chromium_s),
            self.runs_ms.len() as f64 / self.chromium_s,
            self.per_run(self.postgres_s),
            self.per_replica
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(" / "),
        )
    }
}

async fn throughput(
    client: &reqwest::Client,
    replicas: &[Replica],
    pg_pid: u32,
    body: &Value,
    runs: usize,
    max_runs: usize,
) -> Result<Level> {
    let at_once = 2 * max_runs * replicas.len();
    let runs = runs.max(2 * at_once);
    let mut before = Vec::new();
    for r in replicas {
        before.push(r.succeeded(client).await?);
    }
    let samplers: Vec<Sampler> = replicas.iter().map(|r| Sampler::start(r.pid())).collect();
    let pg = Sampler::start(pg_pid);
    let began = Instant::now();
    let (ok, failures) = closed_loop(client, &replicas[0].base, body, runs, at_once).await?;
    let wall_s = began.elapsed().as_secs_f64();
    let (mut planlock_s, mut chromium_s) = (0.0, 0.0);
    for s in samplers {
        let (usage, _, _) = s.finish();
        planlock_s += usage.driver_s;
        chromium_s += usage.browser_s;
    }
    let (pg_usage, _, _) = pg.finish();
    let mut per_replica = Vec::new();
    for (r, b) in replicas.iter().zip(before) {
        per_replica.push(r.succeeded(client).await?.saturating_sub(b));
    }
    Ok(Level {
        replicas: replicas.len(),
        at_once,
        wall_s,
        runs_ms: ok.iter().map(|a| a.0).collect(),
        failures,
        planlock_s,
        chromium_s,
        // The postmaster and its backends.
        postgres_s: pg_usage.driver_s + pg_usage.browser_s,
        per_replica,
    })
}

/// The pick-up rows: each a phase and its times since the POST (ms), over the runs.
const PICKUP: [&str; 5] = [
    "accepted",
    "queued",
    "claimed",
    "first step starts",
    "first step ends",
];

/// One pick-up measurement.
struct Pickup {
    case: String,
    runs: usize,
    failures: Vec<String>,
    /// Runs claimed by a replica other than the one posted to.
    elsewhere: usize,
    /// Per row of [`PICKUP`], the samples.
    since_post: Vec<Vec<f64>>,
}

/// When each [`PICKUP`] row's phase ended, in ms since `sent`, from run `id`'s marks.
fn pickup_times(marks: &Marks, id: &str, sent: f64) -> Vec<Option<f64>> {
    let deadline = Instant::now() + Duration::from_secs(1);
    let mut m = marks.of(id);
    while !m.iter().any(|(p, _)| p.starts_with("step 1 ")) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
        m = marks.of(id);
    }
    let at = |name: &str| m.iter().find(|(p, _)| p == name).map(|(_, t)| *t - sent);
    // The mailboxes open beside the context; the first step starts when both are ready.
    let ready = [at("context ready"), at("mailboxes open")]
        .into_iter()
        .flatten()
        .reduce(f64::max);
    let first = m
        .iter()
        .find(|(p, _)| p.starts_with("step 1 "))
        .map(|(_, t)| *t - sent);
    vec![at("accepted"), at("queued"), at("claimed"), ready, first]
}

async fn pickup(
    case: &str,
    client: &reqwest::Client,
    to: &Replica,
    body: &Value,
    runs: usize,
    marks: &Marks,
    owners: &dyn Fn() -> std::collections::HashMap<String, String>,
) -> Result<Pickup> {
    let mut out = Pickup {
        case: case.to_string(),
        runs: 0,
        failures: Vec::new(),
        elsewhere: 0,
        since_post: vec![Vec::new(); PICKUP.len()],
    };
    let mut ids = Vec::new();
    for _ in 0..runs {
        match post(client, &to.base, body).await {
            Ok((_, id, sent)) => {
                let marks = marks.clone();
                let key = id.clone();
                let times =
                    tokio::task::spawn_blocking(move || pickup_times(&marks, &key, sent)).await?;
                for (samples, t) in out.since_post.iter_mut().zip(times) {
                    samples.extend(t);
                }
                out.runs += 1;
                ids.push(id);
            }
            Err(e) => out.failures.push(e),
        }
    }
    let owners = owners();
    out.elsewhere = ids
        .iter()
        .filter(|id| owners.get(*id).is_some_and(|o| *o != to.id))
        .count();
    Ok(out)
}

/// A run that holds a slot (300 s) until it is cancelled.
fn holding_run(site: &str) -> Value {
    json!({"plan": {"reasoning": "hold a slot", "steps": [
        {"type": "navigate", "url": site},
        {"type": "wait_seconds", "seconds": 300},
        {"type": "done", "summary": "held"}]},
        "allowed_hosts": ["127.0.0.1"]})
}

/// Posts a holding run to `to` and waits until it runs: its id.
async fn hold(client: &reqwest::Client, to: &Replica, site: &str) -> Result<String> {
    let v: Value = client
        .post(format!("{}/v1/runs", to.base))
        .header("prefer", "respond-async")
        .json(&holding_run(site))
        .send()
        .await?
        .json()
        .await?;
    let id = v["run_id"]
        .as_str()
        .ok_or_else(|| anyhow!("a holding run was not accepted: {v}"))?
        .to_string();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let view: Value = client
            .get(format!("{}/v1/runs/{id}", to.base))
            .send()
            .await?
            .json()
            .await?;
        if view["status"] == "running" {
            return Ok(id);
        }
        if Instant::now() > deadline || !matches!(view["status"].as_str(), Some("queued")) {
            bail!("a holding run did not start: {view}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<()> {
    let args = Args::parse();
    let bin = planlock_binary()?;
    let pg = postgres::server().ok_or_else(|| {
        anyhow!("PostgreSQL is needed for the shared queue (apt-get install postgresql)")
    })?;
    let db = postgres::database().context("a database")?;
    let dovecot = Arc::new(dovecot::Dovecot::start().ok_or_else(|| {
        anyhow!("Dovecot is needed for the mail part (apt-get install dovecot-imapd)")
    })?);
    let site = DemoSite::start(Arc::new(DovecotMailer::new(dovecot.clone()))).await?;
    let base = site.url("");
    let inbox = dovecot.url(&format!("address={}@{DOMAIN}&plus=true", dovecot::USER));
    let body = run_body(&base, INBOX_NAME);
    let chrome: PathBuf =
        planlock::browser::find_executable(None, false, Preference::HeadlessShell)?;
    let client = reqwest::Client::new();
    let marks = Marks::default();
    let mut named = 0;
    let mut start = |marks: &Marks| {
        let id = format!("q{named}");
        named += 1;
        Replica::start(&bin, &chrome, &db, &id, args.max_runs, &inbox, marks)
    };

    let load_before = load();
    eprintln!("load average before: {load_before}");
    let mut replicas: Vec<Replica> = Vec::new();
    let mut levels = Vec::new();
    for &n in &args.replicas {
        while replicas.len() < n {
            replicas.push(start(&marks)?);
        }
        // Unmeasured: each new browser's first contexts, the IMAP connections.
        let at_once = args.max_runs * n;
        let (_, failed) = closed_loop(&client, &replicas[0].base, &body, at_once, at_once).await?;
        if !failed.is_empty() {
            bail!("the warm-up runs failed: {failed:?}");
        }
        eprintln!("{n} replica(s) …");
        let level = throughput(
            &client,
            &replicas[..n],
            pg.pid(),
            &body,
            args.runs,
            args.max_runs,
        )
        .await?;
        eprintln!("  {}", level.row(args.max_runs));
        levels.push(level);
    }

    let owners = || -> std::collections::HashMap<String, String> {
        pg.query(&db, "SELECT id, owner FROM runs")
            .lines()
            .filter_map(|l| l.split_once('|'))
            .map(|(id, owner)| (id.to_string(), owner.to_string()))
            .collect()
    };
    let mut pickups = Vec::new();
    let idle = format!("{} replicas, all idle", replicas.len());
    eprintln!("pick-up: {idle} …");
    pickups.push(
        pickup(
            &idle,
            &client,
            &replicas[0],
            &body,
            args.latency_runs,
            &marks,
            &owners,
        )
        .await?,
    );
    // The first replica's slots held, one other replica idle: every run is claimed there.
    replicas.truncate(1);
    let mut held = Vec::new();
    for _ in 0..args.max_runs {
        held.push(hold(&client, &replicas[0], &base).await?);
    }
    replicas.push(start(&marks)?);
    closed_loop(&client, &replicas[0].base, &body, 2, 1).await?;
    let busy = "the replica posted to busy, another idle".to_string();
    eprintln!("pick-up: {busy} …");
    pickups.push(
        pickup(
            &busy,
            &client,
            &replicas[0],
            &body,
            args.latency_runs,
            &marks,
            &owners,
        )
        .await?,
    );
    for id in &held {
        client
            .delete(format!("{}/v1/runs/{id}", replicas[0].base))
            .send()
            .await?;
    }
    let load_after = load();
    drop(replicas);

    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    println!("### The shared queue: replicas on one PostgreSQL\n");
    println!(
        "{profile} build; load average {load_before} before, {load_after} after; {} CPUs; each replica `--max-runs {}` with its own Chromium ({}); the demo shop's signup with an emailed code (IMAP).\n",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        args.max_runs,
        chrome.display()
    );
    println!(
        "Runs posted to the first replica only, twice as many at once as all replicas' slots; the queue spreads them. CPU from /proc: \"planlock\" is the replicas' processes, \"Chromium\" every process below them, PostgreSQL its server and backends.\n"
    );
    println!(
        "| replicas | slots | at once | runs | runs/s | p50 ms | p95 ms | planlock CPU s/run | Chromium CPU s/run | runs per Chromium CPU s | PostgreSQL CPU s/run | runs per replica |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    );
    for l in &levels {
        println!("{}", l.row(args.max_runs));
    }
    println!(
        "\nFrom `POST` to each phase of the run (ms; one run at a time, posted to the first replica; a run's first step starts when its context and mailbox are ready):\n"
    );
    let mut head = "| case | runs | claimed elsewhere |".to_string();
    let mut rule = "|---|---:|---:|".to_string();
    for name in PICKUP {
        head.push_str(&format!(" {name} p50 | p95 |"));
        rule.push_str("---:|---:|");
    }
    println!("{head}\n{rule}");
    for p in &pickups {
        let mut row = format!(
            "| {} | {}{} | {} |",
            p.case,
            p.runs,
            if p.failures.is_empty() {
                String::new()
            } else {
                format!(" ({} failed)", p.failures.len())
            },
            p.elsewhere
        );
        for samples in &p.since_post {
            row.push_str(&format!(
                " {:.0} | {:.0} |",
                percentile(samples, 50.0),
                percentile(samples, 95.0)
            ));
        }
        println!("{row}");
    }
    for l in &levels {
        for f in l.failures.iter().take(3) {
            println!("\n{} replicas: a run failed: {f}", l.replicas);
        }
    }
    for p in &pickups {
        for f in p.failures.iter().take(3) {
            println!("\n{}: a run failed: {f}", p.case);
        }
    }
    Ok(())
}
