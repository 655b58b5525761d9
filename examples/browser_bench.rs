//! planlock's browser benchmark: browser launch, each step type (median, p95 and CDP
//! round trips), and the sign-up form flow end to end through `runner::run`, side by side with
//! the same flow driven by Playwright (`bench/playwright/flow.js`) on the same Chromium binary
//! and the same local pages, served here on 127.0.0.1:0.
//!
//! ```text
//! scripts/bench                                   # installs what is missing, then runs this
//! cargo run --release --example browser_bench -- [--launches 10] [--steps 30] [--flows 20]
//! ```
//!
//! Not a test: it asserts only that every step succeeds, and prints Markdown tables.

use std::cell::Cell;
use std::future::Future;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use axum::Router;
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use clap::Parser;
use planlock::browser::PageError;
use planlock::browser::{Chromium, LaunchOptions, Tab};
use planlock::lock::Lock;
use planlock::plan::{self, Limits, Vars};
use planlock::runner::{self, Event, EventKind, RunSpec};
use serde_json::{Value, json};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// Unmeasured runs before each series (first-use costs: compilation, caches).
const WARMUP: usize = 2;
/// The deadline given to every measured step.
const STEP_DEADLINE: Duration = Duration::from_secs(10);

#[derive(Parser, Debug)]
#[command(about = "planlock browser benchmark (side by side with Playwright)")]
struct Args {
    /// Browser launches to time.
    #[arg(long, default_value_t = 10)]
    launches: usize,
    /// Measured runs of each step type.
    #[arg(long, default_value_t = 30)]
    steps: usize,
    /// Measured runs of the form flow (each side).
    #[arg(long, default_value_t = 20)]
    flows: usize,
    /// Skip the Playwright side.
    #[arg(long)]
    no_playwright: bool,
    /// Run Playwright once after planlock (`flow.js BASE N LAUNCHES`) instead of alternating
    /// run by run with it (`flow.js BASE --serve`).
    #[arg(long)]
    batch: bool,
    /// Also write every sample as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
}

/// Timings (ms) of one measured thing, with the CDP commands each sample sent when known.
#[derive(Debug, Clone)]
struct Series {
    name: String,
    ms: Vec<f64>,
    calls: Vec<u64>,
}

impl Series {
    fn new(name: &str) -> Series {
        Series {
            name: name.to_string(),
            ms: Vec::new(),
            calls: Vec::new(),
        }
    }

    fn from_ms(name: &str, ms: Vec<f64>) -> Series {
        Series {
            name: name.to_string(),
            ms,
            calls: Vec::new(),
        }
    }

    fn push(&mut self, took: Duration, calls: Option<u64>) {
        self.ms.push(took.as_secs_f64() * 1e3);
        if let Some(c) = calls {
            self.calls.push(c);
        }
    }

    fn median(&self) -> f64 {
        percentile(&self.ms, 50.0)
    }

    fn p95(&self) -> f64 {
        percentile(&self.ms, 95.0)
    }

    /// "3" when every sample sent the same number of commands, else "min–max (median m)".
    fn calls_text(&self) -> String {
        if self.calls.is_empty() {
            return "–".into();
        }
        let min = *self.calls.iter().min().expect("non-empty");
        let max = *self.calls.iter().max().expect("non-empty");
        if min == max {
            min.to_string()
        } else {
            let mut sorted = self.calls.clone();
            sorted.sort_unstable();
            format!("{min}–{max} (median {})", sorted[sorted.len() / 2])
        }
    }

    fn row(&self) -> String {
        format!(
            "| {} | {} | {:.1} | {:.1} | {:.1} | {} |",
            self.name,
            self.ms.len(),
            self.median(),
            self.p95(),
            self.ms.iter().copied().fold(f64::INFINITY, f64::min),
            self.calls_text()
        )
    }

    fn to_json(&self) -> Value {
        json!({
            "name": self.name,
            "n": self.ms.len(),
            "median_ms": self.median(),
            "p95_ms": self.p95(),
            "ms": self.ms,
            "cdp_calls": self.calls,
        })
    }
}

/// Nearest-rank percentile.
fn percentile(samples: &[f64], p: f64) -> f64 {
    if samples.is_empty() {
        return f64::NAN;
    }
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * s.len() as f64).ceil() as usize;
    s[rank.clamp(1, s.len()) - 1]
}

const TABLE_HEAD: &str =
    "| what | n | median ms | p95 ms | min ms | CDP round trips |\n|---|---:|---:|---:|---:|---|";

fn site_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/site")
}

/// Serves `fixtures/site` on 127.0.0.1:0.
async fn serve_site() -> Result<SocketAddr> {
    async fn file(uri: Uri) -> Response {
        let path = uri.path().trim_start_matches('/');
        if path.contains("..") {
            return StatusCode::BAD_REQUEST.into_response();
        }
        match tokio::fs::read(site_root().join(path)).await {
            Ok(bytes) => {
                let ty = match path.rsplit('.').next() {
                    Some("html") => "text/html; charset=utf-8",
                    Some("js") => "text/javascript",
                    Some("css") => "text/css",
                    _ => "application/octet-stream",
                };
                ([(header::CONTENT_TYPE, ty)], bytes).into_response()
            }
            Err(_) => (StatusCode::NOT_FOUND, "not found").into_response(),
        }
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, Router::new().fallback(file)).await {
            eprintln!("fixture server stopped: {e}");
        }
    });
    Ok(addr)
}

fn deadline() -> Instant {
    Instant::now() + STEP_DEADLINE
}

fn step_failed(what: &str) -> impl FnOnce(PageError) -> anyhow::Error + '_ {
    move |e| anyhow!("{what} failed: {e:?}")
}

/// Runs `step` WARMUP + n times on `tab`, timing the measured ones and counting their CDP
/// commands; `before` runs untimed ahead of each (e.g. loading the page a click needs).
async fn series<B, BF, S, SF, T>(
    name: &str,
    tab: &Tab,
    n: usize,
    mut before: B,
    mut step: S,
) -> Result<Series>
where
    B: FnMut(usize) -> BF,
    BF: Future<Output = Result<(), PageError>>,
    S: FnMut(usize) -> SF,
    SF: Future<Output = Result<T, PageError>>,
{
    let mut out = Series::new(name);
    for i in 0..WARMUP + n {
        before(i).await.map_err(step_failed(name))?;
        let calls = tab.cdp_calls();
        let began = Instant::now();
        step(i).await.map_err(step_failed(name))?;
        let took = began.elapsed();
        if i >= WARMUP {
            out.push(took, Some(tab.cdp_calls() - calls));
        }
    }
    Ok(out)
}

async fn nothing(_: usize) -> Result<(), PageError> {
    Ok(())
}

fn lock() -> Lock {
    Lock::of_hosts(["127.0.0.1"]).expect("a valid lock")
}

/// Browser launch (and close) through `Chromium::start`, alternating with Playwright's launch.
async fn bench_launch(
    n: usize,
    mut playwright: Option<&mut Playwright>,
) -> Result<(Series, Series, Series)> {
    let mut start = Series::new("planlock launch (`Chromium::start`)");
    let mut close = Series::new("planlock close (`Chromium::close`, process reaped)");
    let mut pw = Series::new("Playwright `chromium.launch`");
    for _ in 0..n {
        let began = Instant::now();
        let browser = Chromium::start(&LaunchOptions::default()).await?;
        start.push(began.elapsed(), None);
        let began = Instant::now();
        browser.close().await;
        close.push(began.elapsed(), None);
        if let Some(p) = playwright.as_deref_mut() {
            let answer = p.ask("launch").await?;
            pw.ms
                .push(answer["launch_ms"].as_f64().context("no launch_ms")?);
        }
    }
    Ok((start, close, pw))
}

/// Every step type on its own, in one tab.
async fn bench_steps(
    browser: &Chromium,
    base: &str,
    n: usize,
    notes: &mut Vec<String>,
) -> Result<Vec<Series>> {
    let form = format!("{base}/form.html");
    let otp = format!("{base}/split-otp.html");
    let mut out = Vec::new();

    // A fresh context + page, as every run opens, and its disposal.
    let mut open = Series::new("new_tab (fresh context + page)");
    let mut close = Series::new("close_tab (dispose context)");
    for i in 0..WARMUP + n {
        let began = Instant::now();
        let tab = browser.new_tab(lock()).await?;
        let opened = began.elapsed();
        let began = Instant::now();
        browser.close_tab(tab).await;
        if i >= WARMUP {
            open.push(opened, None);
            close.push(began.elapsed(), None);
        }
    }

    let tab = browser.new_tab(lock()).await?;
    let result = async {
        let tab = &tab;
        let form = form.as_str();
        out.push(
            series("navigate (form.html, load)", tab, n, nothing, |_| {
                tab.navigate(form, deadline())
            })
            .await?,
        );
        out.push(
            series("fill (label for)", tab, n, nothing, |i| {
                let value = format!("Ada {i}");
                async move {
                    tab.fill("", Some("Full name"), None, &value, false, deadline())
                        .await
                }
            })
            .await?,
        );
        out.push(
            series("fill (aria-labelledby)", tab, n, nothing, |i| {
                let value = format!("secret {i}");
                async move {
                    tab.fill("", Some("Password"), None, &value, false, deadline())
                        .await
                }
            })
            .await?,
        );
        out.push(
            series(
                "click (checkbox label, no navigation)",
                tab,
                n,
                nothing,
                |_| tab.click("", Some("I accept the terms"), None, &[], deadline()),
            )
            .await?,
        );
        out.push(
            series("wait_for_text (already shown)", tab, n, nothing, |_| {
                tab.wait_for_text("Create your account", deadline())
            })
            .await?,
        );
        out.push(
            series("extract_text (main)", tab, n, nothing, |_| {
                tab.extract_text(None, deadline())
            })
            .await?,
        );
        out.push(
            series("extract_text (h1 selector)", tab, n, nothing, |_| {
                tab.extract_text(Some("h1"), deadline())
            })
            .await?,
        );
        // A click that submits the form. Before each: wait until the previous submission has
        // landed (a `navigate` racing a pending submission loses to it), then load the form.
        let noticed = Cell::new(0usize);
        out.push(
            series(
                "click (submit → navigation)",
                tab,
                n,
                |i| async move {
                    if i > 0 {
                        tab.wait_for_text("Welcome aboard", deadline()).await?;
                    }
                    tab.navigate(form, deadline()).await?;
                    Ok(())
                },
                |_| async {
                    let detail = tab
                        .click("", Some("Create account"), None, &[], deadline())
                        .await?;
                    if detail.navigation.is_some() {
                        noticed.set(noticed.get() + 1);
                    }
                    Ok(detail)
                },
            )
            .await?,
        );
        tab.wait_for_text("Welcome aboard", deadline())
            .await
            .map_err(step_failed("wait_for_text"))?;
        notes.push(format!(
            "click (submit → navigation): the click noticed the navigation it started (and waited \
             for it to load) in {} of {} clicks; the others returned before it began",
            noticed.get(),
            n + WARMUP
        ));
        out.push(
            series(
                "wait_for_text (after navigating click)",
                tab,
                n,
                |_| async {
                    tab.navigate(form, deadline()).await?;
                    tab.click("", Some("Create account"), None, &[], deadline())
                        .await?;
                    Ok(())
                },
                |_| tab.wait_for_text("Welcome aboard", deadline()),
            )
            .await?,
        );
        tab.navigate(&otp, deadline())
            .await
            .map_err(step_failed("navigate"))?;
        out.push(
            series("fill_code (split OTP, 6 boxes)", tab, n, nothing, |_| {
                tab.fill_code(".otp", "123456", deadline())
            })
            .await?,
        );
        tab.wait_for_text("Verified with 123456", deadline())
            .await
            .map_err(step_failed("the split OTP check"))?;
        anyhow::Ok(())
    }
    .await;
    browser.close_tab(tab).await;
    result?;
    out.insert(0, open);
    out.insert(1, close);
    Ok(out)
}

const FLOW_LABELS: [(&str, &str); 4] = [
    ("Full name", "Ada Lovelace"),
    ("Email address", "ada@example.com"),
    ("Company", "ACME"),
    ("Password", "pw"),
];

fn flow_plan(base: &str) -> Result<plan::Plan> {
    let mut steps = vec![json!({"type": "navigate", "url": format!("{base}/form.html")})];
    for (label, value) in FLOW_LABELS {
        steps.push(json!({
            "type": "fill", "describe": format!("the {label} field"), "label": label, "value": value
        }));
    }
    steps.push(json!({
        "type": "click", "describe": "the submit button", "text": "Create account"
    }));
    steps.push(json!({"type": "wait_for_text", "text": "Welcome aboard"}));
    steps.push(json!({"type": "done", "summary": "signed up"}));
    let text = json!({"reasoning": "benchmark: the sign-up form", "steps": steps}).to_string();
    plan::parse_and_validate(&text, &Limits::default(), &Vars::default())
        .map_err(|e| anyhow!("the benchmark plan is invalid: {e}"))
}

const PHASES: [&str; 4] = ["navigate", "fill ×4", "click (submit)", "wait_for_text"];

/// Which phase plan step `index` belongs to (0 navigate, 1–4 fills, 5 click, 6 wait).
fn phase_of(index: usize) -> usize {
    match index {
        0 => 0,
        1..=4 => 1,
        5 => 2,
        _ => 3,
    }
}

/// Timings of one side of the flow comparison.
struct FlowSeries {
    /// Fresh context + page, the steps, context disposal.
    total: Series,
    /// From the first step's start to the last step's success.
    steps: Series,
    /// navigate, the 4 fills, click, wait_for_text.
    phases: Vec<Series>,
}

impl FlowSeries {
    fn new(who: &str, total: &str, steps: &str) -> FlowSeries {
        FlowSeries {
            total: Series::new(&format!("{who}, whole run ({total})")),
            steps: Series::new(&format!("{who}, steps only ({steps})")),
            phases: PHASES
                .iter()
                .map(|p| Series::new(&format!("{who}: {p}")))
                .collect(),
        }
    }

    fn all(&self) -> impl Iterator<Item = &Series> {
        [&self.total, &self.steps].into_iter().chain(&self.phases)
    }
}

/// One run of the form flow through `runner::run`, the product's path (fresh context per run).
/// Returns whether the submit click noticed the navigation it started.
async fn runner_flow(
    browser: &Chromium,
    plan: &plan::Plan,
    into: Option<&mut FlowSeries>,
) -> Result<bool> {
    let browser_steps = plan.steps.len() - 1;
    let mut started: Vec<Option<Instant>> = vec![None; browser_steps];
    let mut ended: Vec<Option<Instant>> = vec![None; browser_steps];
    let mut noticed = false;
    let mut listener = |e: &Event| {
        let Some(ix) = e.index().filter(|&ix| ix < browser_steps) else {
            return;
        };
        match e.kind() {
            EventKind::StepStarted => started[ix] = Some(Instant::now()),
            EventKind::StepSucceeded => {
                ended[ix] = Some(Instant::now());
                if ix == 5 && e.step_detail().is_some_and(|d| d.navigation.is_some()) {
                    noticed = true;
                }
            }
            _ => {}
        }
    };
    let run = RunSpec::new(plan.clone())
        .named("browser_bench")
        .lock()
        .await
        .context("the form flow's plan cannot be locked")?;
    let began = Instant::now();
    let result = runner::run(browser, run, &mut listener, CancellationToken::new()).await;
    let took = began.elapsed();
    if !result.succeeded() {
        bail!(
            "the form flow failed: {}",
            serde_json::to_string_pretty(&result)?
        );
    }
    let started: Vec<Instant> = started.into_iter().flatten().collect();
    let ended: Vec<Instant> = ended.into_iter().flatten().collect();
    if started.len() != browser_steps || ended.len() != browser_steps {
        bail!("the run did not report every step");
    }
    if let Some(into) = into {
        into.total.push(took, None);
        into.steps.push(ended[browser_steps - 1] - started[0], None);
        let mut per = [Duration::ZERO; 4];
        for ix in 0..browser_steps {
            per[phase_of(ix)] += ended[ix] - started[ix];
        }
        for (series, d) in into.phases.iter_mut().zip(per) {
            series.push(d, None);
        }
    }
    Ok(noticed)
}

/// One run of the same flow through the Tab API, counting CDP round trips per phase (and
/// checking that the form really was submitted with the values filled).
async fn tab_api_flow(browser: &Chromium, base: &str, into: Option<&mut FlowSeries>) -> Result<()> {
    let form = format!("{base}/form.html");
    let opened = Instant::now();
    let tab = browser.new_tab(lock()).await?;
    let flow = async {
        let mut marks = vec![(Instant::now(), tab.cdp_calls())];
        tab.navigate(&form, deadline()).await?;
        marks.push((Instant::now(), tab.cdp_calls()));
        for (label, value) in FLOW_LABELS {
            tab.fill("", Some(label), None, value, false, deadline())
                .await?;
        }
        marks.push((Instant::now(), tab.cdp_calls()));
        tab.click("", Some("Create account"), None, &[], deadline())
            .await?;
        marks.push((Instant::now(), tab.cdp_calls()));
        tab.wait_for_text("Welcome aboard", deadline()).await?;
        marks.push((Instant::now(), tab.cdp_calls()));
        let who = tab.extract_text(Some("#who"), deadline()).await?;
        Ok::<_, PageError>((marks, who))
    }
    .await;
    browser.close_tab(tab).await;
    let took = opened.elapsed();
    let (marks, who) = flow.map_err(step_failed("the Tab API flow"))?;
    let who = who.text.as_str();
    if !who.contains("ada@example.com") || !who.contains("ACME") {
        bail!("the Tab API flow did not submit the form: {who:?}");
    }
    if let Some(into) = into {
        let (first, last) = (marks[0], marks[marks.len() - 1]);
        into.total.push(took, None);
        into.steps.push(last.0 - first.0, Some(last.1 - first.1));
        for (series, w) in into.phases.iter_mut().zip(marks.windows(2)) {
            series.push(w[1].0 - w[0].0, Some(w[1].1 - w[0].1));
        }
    }
    Ok(())
}

/// `bench/playwright/flow.js --serve`: Playwright driving its own instance of the same Chromium,
/// one command at a time, so its runs can alternate with planlock's.
struct Playwright {
    child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    lines: tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStdout>>,
    about: Value,
}

impl Playwright {
    fn dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/playwright")
    }

    fn check_installed() -> Result<()> {
        let dir = Self::dir();
        if !dir.join("node_modules/playwright-core").exists() {
            bail!(
                "playwright-core is not installed: run `npm ci` in {} (scripts/bench does)",
                dir.display()
            );
        }
        Ok(())
    }

    async fn start(base: &str) -> Result<Playwright> {
        use tokio::io::AsyncBufReadExt;
        Self::check_installed()?;
        let dir = Self::dir();
        // The binary planlock launches (the one behind a distribution's launch script).
        let chrome = planlock::browser::find_executable(
            None,
            false,
            planlock::browser::Preference::FullBrowser,
        )?;
        let mut child = tokio::process::Command::new("node")
            .arg(dir.join("flow.js"))
            .arg(base)
            .arg("--serve")
            .env("CHROME", chrome)
            .current_dir(&dir)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .context("cannot run node")?;
        let stdin = child.stdin.take().context("no stdin")?;
        let stdout = child.stdout.take().context("no stdout")?;
        let mut p = Playwright {
            child,
            stdin,
            lines: tokio::io::BufReader::new(stdout).lines(),
            about: Value::Null,
        };
        p.about = p.read().await?;
        if p.about["ready"] != json!(true) {
            bail!("flow.js did not start: {}", p.about);
        }
        Ok(p)
    }

    async fn read(&mut self) -> Result<Value> {
        let line = self
            .lines
            .next_line()
            .await?
            .context("flow.js exited (see its error above)")?;
        let v: Value = serde_json::from_str(&line).with_context(|| format!("flow.js: {line}"))?;
        if let Some(e) = v["error"].as_str() {
            bail!("flow.js: {e}");
        }
        Ok(v)
    }

    async fn ask(&mut self, command: &str) -> Result<Value> {
        use tokio::io::AsyncWriteExt;
        self.stdin
            .write_all(format!("{command}\n").as_bytes())
            .await?;
        self.stdin.flush().await?;
        self.read().await
    }

    /// One flow, recorded into `into` when given.
    async fn flow(&mut self, into: Option<&mut FlowSeries>) -> Result<()> {
        let v = self.ask("flow").await?;
        if let Some(into) = into {
            let num = |x: &Value| x.as_f64().context("flow.js answered without a time");
            into.total.ms.push(num(&v["total"])?);
            into.steps.ms.push(num(&v["steps_only"])?);
            for (series, key) in
                into.phases
                    .iter_mut()
                    .zip(["goto", "fill4", "click", "wait_for_text"])
            {
                series.ms.push(num(&v["steps"][key])?);
            }
        }
        Ok(())
    }

    /// Closes its input, so it closes its browser and exits.
    async fn finish(self) -> Result<()> {
        let Playwright {
            mut child, stdin, ..
        } = self;
        drop(stdin);
        let status = tokio::time::timeout(Duration::from_secs(20), child.wait()).await;
        match status {
            Ok(Ok(s)) if s.success() => Ok(()),
            Ok(Ok(s)) => bail!("flow.js exited with {s}"),
            Ok(Err(e)) => Err(e.into()),
            Err(_) => {
                child.kill().await?;
                bail!("flow.js did not exit");
            }
        }
    }
}

/// `--batch`: runs `node bench/playwright/flow.js BASE N LAUNCHES` once, after planlock's runs,
/// and returns its launch times and flow timings.
async fn run_playwright_batch(
    base: &str,
    flows: usize,
    launches: usize,
) -> Result<(Value, Series, FlowSeries)> {
    Playwright::check_installed()?;
    let dir = Playwright::dir();
    let chrome = planlock::browser::find_executable(
        None,
        false,
        planlock::browser::Preference::FullBrowser,
    )?;
    let out = tokio::process::Command::new("node")
        .arg(dir.join("flow.js"))
        .arg(base)
        .arg(flows.to_string())
        .arg(launches.to_string())
        .env("CHROME", chrome)
        .current_dir(&dir)
        .kill_on_drop(true)
        .output()
        .await
        .context("cannot run node")?;
    if !out.status.success() {
        bail!(
            "flow.js failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let v: Value = serde_json::from_slice(&out.stdout).context("flow.js printed no JSON")?;
    let launch = Series::from_ms("Playwright `chromium.launch`", ms_list(&v["launch_ms"]));
    let mut flow = playwright_flow_series();
    flow.total.ms = ms_list(&v["flow_total_ms"]);
    flow.steps.ms = ms_list(&v["flow_steps_ms"]);
    for (series, key) in flow
        .phases
        .iter_mut()
        .zip(["goto", "fill4", "click", "wait_for_text"])
    {
        series.ms = ms_list(&v["step_ms"][key]);
    }
    Ok((v, launch, flow))
}

fn playwright_flow_series() -> FlowSeries {
    FlowSeries::new("Playwright", "newContext … close", "goto … text visible")
}

fn ms_list(v: &Value) -> Vec<f64> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default()
}

/// The 1-minute load average (Linux), to tell a busy machine from a quiet one.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

fn chromium_version() -> String {
    let Ok(exe) =
        planlock::browser::find_executable(None, false, planlock::browser::Preference::FullBrowser)
    else {
        return "not found".into();
    };
    std::process::Command::new(&exe)
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| format!("{} (version unknown)", exe.display()))
}

#[tokio::main]
async fn main() -> Result<()> {
    let args = Args::parse();
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let version = chromium_version();
    let load_before = load_average();
    eprintln!("planlock browser benchmark ({profile} build, {cpus} CPUs, {version})");

    let addr = serve_site().await?;
    let base = format!("http://{addr}");
    let plan = flow_plan(&base)?;
    let interleaved = !args.no_playwright && !args.batch;
    let mut playwright = if interleaved {
        eprintln!("starting Playwright (flow.js --serve)...");
        Some(Playwright::start(&base).await?)
    } else {
        None
    };

    eprintln!("launching the browser {} times...", args.launches);
    let (launch, close, mut pw_launch) = bench_launch(args.launches, playwright.as_mut()).await?;

    let browser = Chromium::start(&LaunchOptions::default()).await?;
    // A second browser as a service or multi-plan run uses it: the next context is made
    // during the current run (`Chromium::keep_warm`).
    let warm_browser = Chromium::start(&LaunchOptions::default()).await?;
    warm_browser.keep_warm(true);
    let mut warm_flows = FlowSeries::new(
        "planlock `runner::run`, warm context",
        "`keep_warm`: the context was made during the previous run",
        "first step start … last step success",
    );
    let mut notes = Vec::new();
    let mut runner_flows = FlowSeries::new(
        "planlock `runner::run`",
        "fresh context per run",
        "first step start … last step success",
    );
    let mut tab_flows = FlowSeries::new(
        "planlock Tab API",
        "new_tab … close_tab",
        "navigate … text seen",
    );
    let mut pw_flows = playwright_flow_series();
    let measured = async {
        eprintln!("step types, {} runs each...", args.steps);
        let steps = bench_steps(&browser, &base, args.steps, &mut notes).await?;
        eprintln!(
            "form flow, {} runs{}...",
            args.flows,
            if interleaved {
                ", alternating with Playwright"
            } else {
                ""
            }
        );
        let mut noticed = 0;
        for i in 0..WARMUP + args.flows {
            let keep = i >= WARMUP;
            let seen = runner_flow(&browser, &plan, keep.then_some(&mut runner_flows)).await?;
            noticed += usize::from(keep && seen);
            if let Some(p) = playwright.as_mut() {
                p.flow(keep.then_some(&mut pw_flows)).await?;
            }
            tab_api_flow(&browser, &base, keep.then_some(&mut tab_flows)).await?;
            runner_flow(&warm_browser, &plan, keep.then_some(&mut warm_flows)).await?;
        }
        notes.push(format!(
            "form flow through `runner::run`: the submit click noticed its navigation in \
             {noticed} of {} runs; in the others `wait_for_text` absorbed the page change",
            args.flows
        ));
        anyhow::Ok(steps)
    }
    .await;
    browser.close().await;
    warm_browser.close().await;
    let mut pw_info = playwright.as_ref().map_or(Value::Null, |p| p.about.clone());
    if let Some(p) = playwright.take() {
        p.finish().await?;
    }
    let steps = measured?;
    let mut pw_raw = Value::Null;
    if args.batch && !args.no_playwright {
        eprintln!(
            "Playwright (batch): {} launches, {} flows...",
            args.launches, args.flows
        );
        let (raw, l, f) = run_playwright_batch(&base, args.flows, args.launches).await?;
        pw_info = raw.clone();
        (pw_raw, pw_launch, pw_flows) = (raw, l, f);
    }

    println!("## planlock browser benchmark\n");
    println!(
        "{profile} build · {cpus} CPUs · {version} · pages on {base} · warm-up runs per series: \
         {WARMUP} · load average {load_before} before, {} after\n",
        load_average()
    );
    println!("### Browser launch\n\n{TABLE_HEAD}");
    println!("{}\n{}", launch.row(), close.row());
    if !pw_launch.ms.is_empty() {
        println!("{}", pw_launch.row());
    }
    println!("\n### Step types (one tab, page already loaded unless the step loads it)\n");
    println!("{TABLE_HEAD}");
    for s in &steps {
        println!("{}", s.row());
    }

    println!(
        "\n### Form flow: navigate, fill ×4 by label, click \"Create account\", wait for \"Welcome aboard\"\n"
    );
    let have_pw = !pw_flows.total.ms.is_empty();
    println!("{TABLE_HEAD}");
    println!("{}", runner_flows.total.row());
    println!("{}", warm_flows.total.row());
    println!("{}", tab_flows.total.row());
    if have_pw {
        println!("{}", pw_flows.total.row());
    }
    println!("{}", runner_flows.steps.row());
    println!("{}", tab_flows.steps.row());
    if have_pw {
        println!("{}", pw_flows.steps.row());
    }
    println!("\nPer phase of the flow:\n\n{TABLE_HEAD}");
    for i in 0..PHASES.len() {
        println!("{}", runner_flows.phases[i].row());
        println!("{}", tab_flows.phases[i].row());
        if have_pw {
            println!("{}", pw_flows.phases[i].row());
        }
    }
    if have_pw {
        let total_ratio = runner_flows.total.median() / pw_flows.total.median();
        let warm_ratio = warm_flows.total.median() / pw_flows.total.median();
        let steps_ratio = runner_flows.steps.median() / pw_flows.steps.median();
        println!(
            "\n**planlock / Playwright (medians): whole run {total_ratio:.2}× (warm context \
             {warm_ratio:.2}×), steps only {steps_ratio:.2}×** (target ≤ 0.60×; {})",
            if interleaved {
                "runs alternated one by one"
            } else {
                "Playwright ran after planlock"
            }
        );
        println!(
            "\nPlaywright {} on node {}, driving Chromium {}",
            pw_info["playwright"].as_str().unwrap_or("?"),
            pw_info["node"].as_str().unwrap_or("?"),
            pw_info["browser"].as_str().unwrap_or("?")
        );
    }
    if !notes.is_empty() {
        println!("\nNotes:\n");
        for note in &notes {
            println!("- {note}");
        }
    }

    if let Some(path) = &args.json {
        let mut all: Vec<Value> = vec![launch.to_json(), close.to_json(), pw_launch.to_json()];
        all.extend(steps.iter().map(Series::to_json));
        all.extend(
            runner_flows
                .all()
                .chain(tab_flows.all())
                .chain(pw_flows.all())
                .map(Series::to_json),
        );
        let doc = json!({
            "profile": profile,
            "cpus": cpus,
            "chromium": version,
            "load_before": load_before,
            "series": all,
            "playwright_batch_raw": pw_raw,
        });
        std::fs::write(path, serde_json::to_string_pretty(&doc)?)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}
