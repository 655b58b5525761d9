//! planlock's browser benchmark (issue 3): browser launch, each step type (median, p95 and CDP
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
use planlock::browser::{Chromium, LaunchOptions, Tab};
use planlock::error::StepError;
use planlock::lock::Lock;
use planlock::plan::{self, Limits, Vars};
use planlock::runner::{self, Event, EventKind, RunRequest, Settings};
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

fn step_failed(what: &str) -> impl FnOnce(StepError) -> anyhow::Error + '_ {
    move |e| anyhow!("{what} failed ({:?}): {}", e.kind, e.message)
}

/// Runs `step` WARMUP + n times on `tab`, timing the measured ones and counting their CDP
/// commands; `before` runs untimed ahead of each (e.g. loading the page a click needs).
async fn series<B, BF, S, SF>(
    name: &str,
    tab: &Tab,
    n: usize,
    mut before: B,
    mut step: S,
) -> Result<Series>
where
    B: FnMut(usize) -> BF,
    BF: Future<Output = Result<(), StepError>>,
    S: FnMut(usize) -> SF,
    SF: Future<Output = Result<Value, StepError>>,
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

async fn nothing(_: usize) -> Result<(), StepError> {
    Ok(())
}

fn lock() -> Lock {
    Lock::of_hosts(["127.0.0.1"]).expect("a valid lock")
}

/// Browser launch (and close) through `Chromium::start`.
async fn bench_launch(n: usize) -> Result<(Series, Series)> {
    let mut start = Series::new("launch (`Chromium::start`)");
    let mut close = Series::new("close (`Chromium::close`, process reaped)");
    for _ in 0..n {
        let began = Instant::now();
        let browser = Chromium::start(&LaunchOptions::default()).await?;
        start.push(began.elapsed(), None);
        let began = Instant::now();
        browser.close().await;
        close.push(began.elapsed(), None);
    }
    Ok((start, close))
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
                async move { tab.fill(Some("Full name"), None, &value, deadline()).await }
            })
            .await?,
        );
        out.push(
            series("fill (aria-labelledby)", tab, n, nothing, |i| {
                let value = format!("secret {i}");
                async move { tab.fill(Some("Password"), None, &value, deadline()).await }
            })
            .await?,
        );
        out.push(
            series(
                "click (checkbox label, no navigation)",
                tab,
                n,
                nothing,
                |_| tab.click(Some("I accept the terms"), None, deadline()),
            )
            .await?,
        );
        out.push(
            series("wait_for_text (already shown)", tab, n, nothing, |_| {
                tab.wait_for_text("Create your account", deadline(), STEP_DEADLINE)
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
                        tab.wait_for_text("Welcome aboard", deadline(), STEP_DEADLINE)
                            .await?;
                    }
                    tab.navigate(form, deadline()).await?;
                    Ok(())
                },
                |_| async {
                    let detail = tab.click(Some("Create account"), None, deadline()).await?;
                    if detail.get("navigation").is_some() {
                        noticed.set(noticed.get() + 1);
                    }
                    Ok(detail)
                },
            )
            .await?,
        );
        tab.wait_for_text("Welcome aboard", deadline(), STEP_DEADLINE)
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
                    tab.click(Some("Create account"), None, deadline()).await?;
                    Ok(())
                },
                |_| tab.wait_for_text("Welcome aboard", deadline(), STEP_DEADLINE),
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
        tab.wait_for_text("Verified with 123456", deadline(), STEP_DEADLINE)
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

struct FlowResults {
    /// `runner::run` wall time: fresh context + page, the steps, events, context disposal.
    total: Series,
    /// From the first step's start to the last browser step's success.
    steps: Series,
    /// Per phase of the runner's flow: navigate, the 4 fills, click, wait_for_text.
    phases: Vec<Series>,
    /// The same steps through the Tab API in one fresh tab each, with CDP round trips.
    tab_api: Series,
    /// Per phase of the Tab API flow, with CDP round trips.
    tab_phases: Vec<Series>,
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

/// The form flow: navigate, fill ×4 by label, click the submit button, wait for the next page.
async fn bench_flow(
    browser: &Chromium,
    base: &str,
    n: usize,
    notes: &mut Vec<String>,
) -> Result<FlowResults> {
    let plan = flow_plan(base)?;
    let browser_steps = plan.steps.len() - 1;
    let mut total = Series::new("planlock `runner::run`, whole run (fresh context per run)");
    let mut steps = Series::new("planlock `runner::run`, steps only");
    let mut phases: Vec<Series> = PHASES
        .iter()
        .map(|p| Series::new(&format!("planlock runner: {p}")))
        .collect();
    let mut noticed = 0;
    for i in 0..WARMUP + n {
        let mut started: Vec<Option<Instant>> = vec![None; browser_steps];
        let mut ended: Vec<Option<Instant>> = vec![None; browser_steps];
        let mut click_noticed = false;
        let mut listener = |e: &Event| {
            let Some(ix) = e.index.filter(|&ix| ix < browser_steps) else {
                return;
            };
            match e.event {
                EventKind::StepStarted => started[ix] = Some(Instant::now()),
                EventKind::StepSucceeded => {
                    ended[ix] = Some(Instant::now());
                    if ix == 5 && e.detail.get("navigation").is_some() {
                        click_noticed = true;
                    }
                }
                _ => {}
            }
        };
        let req = RunRequest {
            plan: &plan,
            plan_name: Some("browser_bench".into()),
            run_id: runner::new_run_id(),
            lock: lock(),
            vars: Vars::default(),
            inboxes: Vec::new(),
            settings: Settings::default(),
        };
        let began = Instant::now();
        let result = runner::run(browser, req, &mut listener, CancellationToken::new()).await;
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
        if i >= WARMUP {
            total.push(took, None);
            steps.push(ended[browser_steps - 1] - started[0], None);
            let mut per = [Duration::ZERO; 4];
            for ix in 0..browser_steps {
                per[phase_of(ix)] += ended[ix] - started[ix];
            }
            for (series, d) in phases.iter_mut().zip(per) {
                series.push(d, None);
            }
            noticed += usize::from(click_noticed);
        }
    }
    notes.push(format!(
        "form flow through `runner::run`: the submit click noticed its navigation in {noticed} of {n} \
         runs; otherwise `wait_for_text` absorbed the page change"
    ));

    // The same steps through the Tab API, to count their round trips (and check the result).
    let mut tab_api = Series::new("planlock Tab API, steps only (fresh tab per run)");
    let mut tab_phases: Vec<Series> = PHASES
        .iter()
        .map(|p| Series::new(&format!("planlock Tab API: {p}")))
        .collect();
    let form = format!("{base}/form.html");
    for i in 0..WARMUP + n {
        let tab = browser.new_tab(lock()).await?;
        let flow = async {
            let mut marks = vec![(Instant::now(), tab.cdp_calls())];
            tab.navigate(&form, deadline()).await?;
            marks.push((Instant::now(), tab.cdp_calls()));
            for (label, value) in FLOW_LABELS {
                tab.fill(Some(label), None, value, deadline()).await?;
            }
            marks.push((Instant::now(), tab.cdp_calls()));
            tab.click(Some("Create account"), None, deadline()).await?;
            marks.push((Instant::now(), tab.cdp_calls()));
            tab.wait_for_text("Welcome aboard", deadline(), STEP_DEADLINE)
                .await?;
            marks.push((Instant::now(), tab.cdp_calls()));
            let who = tab.extract_text(Some("#who"), deadline()).await?;
            Ok::<_, StepError>((marks, who))
        }
        .await;
        browser.close_tab(tab).await;
        let (marks, who) = flow.map_err(step_failed("the Tab API flow"))?;
        let who = who["text"].as_str().unwrap_or_default();
        if !who.contains("ada@example.com") || !who.contains("ACME") {
            bail!("the Tab API flow did not submit the form: {who:?}");
        }
        if i >= WARMUP {
            let (first, last) = (marks[0], marks[marks.len() - 1]);
            tab_api.push(last.0 - first.0, Some(last.1 - first.1));
            for (series, w) in tab_phases.iter_mut().zip(marks.windows(2)) {
                series.push(w[1].0 - w[0].0, Some(w[1].1 - w[0].1));
            }
        }
    }
    Ok(FlowResults {
        total,
        steps,
        phases,
        tab_api,
        tab_phases,
    })
}

/// Runs `node bench/playwright/flow.js BASE N LAUNCHES` and returns its JSON.
async fn run_playwright(base: &str, flows: usize, launches: usize) -> Result<Value> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/playwright");
    if !dir.join("node_modules/playwright-core").exists() {
        bail!(
            "playwright-core is not installed: run `npm ci` in {} (scripts/bench does)",
            dir.display()
        );
    }
    let out = tokio::process::Command::new("node")
        .arg(dir.join("flow.js"))
        .arg(base)
        .arg(flows.to_string())
        .arg(launches.to_string())
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
    serde_json::from_slice(&out.stdout).context("flow.js printed no JSON")
}

fn ms_list(v: &Value) -> Vec<f64> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default()
}

fn chromium_version() -> String {
    let Ok(exe) = planlock::browser::find_executable(None) else {
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
    eprintln!("planlock browser benchmark ({profile} build, {cpus} CPUs, {version})");

    let addr = serve_site().await?;
    let base = format!("http://{addr}");

    eprintln!("launching the browser {} times...", args.launches);
    let (launch, close) = bench_launch(args.launches).await?;

    let browser = Chromium::start(&LaunchOptions::default()).await?;
    let mut notes = Vec::new();
    let measured = async {
        eprintln!("step types, {} runs each...", args.steps);
        let steps = bench_steps(&browser, &base, args.steps, &mut notes).await?;
        eprintln!("form flow, {} runs...", args.flows);
        let flow = bench_flow(&browser, &base, args.flows, &mut notes).await?;
        anyhow::Ok((steps, flow))
    }
    .await;
    browser.close().await;
    let (steps, flow) = measured?;

    let playwright = if args.no_playwright {
        None
    } else {
        eprintln!(
            "Playwright: {} launches, {} flows...",
            args.launches, args.flows
        );
        Some(run_playwright(&base, args.flows, args.launches).await?)
    };

    println!("## planlock browser benchmark\n");
    println!(
        "{profile} build · {cpus} CPUs · {version} · pages on {base} · warm-up runs per series: {WARMUP}\n"
    );
    println!("### Browser launch\n\n{TABLE_HEAD}");
    println!("{}\n{}", launch.row(), close.row());
    let pw_launch = playwright
        .as_ref()
        .map(|p| Series::from_ms("Playwright `chromium.launch`", ms_list(&p["launch_ms"])));
    if let Some(s) = &pw_launch {
        println!("{}", s.row());
    }
    println!("\n### Step types (one tab, page already loaded unless the step loads it)\n");
    println!("{TABLE_HEAD}");
    for s in &steps {
        println!("{}", s.row());
    }

    println!(
        "\n### Form flow: navigate, fill ×4 by label, click \"Create account\", wait for \"Welcome aboard\"\n"
    );
    let pw: Vec<Series> = match &playwright {
        Some(p) => {
            let mut v = vec![
                Series::from_ms(
                    "Playwright, whole run (fresh context per run: newContext … close)",
                    ms_list(&p["flow_total_ms"]),
                ),
                Series::from_ms(
                    "Playwright, steps only (goto … text visible)",
                    ms_list(&p["flow_steps_ms"]),
                ),
            ];
            for (key, phase) in ["goto", "fill4", "click", "wait_for_text"]
                .into_iter()
                .zip(PHASES)
            {
                v.push(Series::from_ms(
                    &format!("Playwright: {phase}"),
                    ms_list(&p["step_ms"][key]),
                ));
            }
            v
        }
        None => Vec::new(),
    };
    println!("{TABLE_HEAD}");
    println!("{}", flow.total.row());
    if let Some(s) = pw.first() {
        println!("{}", s.row());
    }
    println!("{}", flow.steps.row());
    println!("{}", flow.tab_api.row());
    if let Some(s) = pw.get(1) {
        println!("{}", s.row());
    }
    println!("\nPer phase of the flow:\n\n{TABLE_HEAD}");
    for (i, phase) in flow.phases.iter().enumerate() {
        println!("{}", phase.row());
        println!("{}", flow.tab_phases[i].row());
        if let Some(s) = pw.get(2 + i) {
            println!("{}", s.row());
        }
    }
    if let Some(p) = &playwright {
        let total_ratio = flow.total.median() / pw[0].median();
        let steps_ratio = flow.steps.median() / pw[1].median();
        println!(
            "\n**planlock / Playwright (medians): whole run {total_ratio:.2}×, steps only \
             {steps_ratio:.2}×** (target ≤ 0.60×)"
        );
        println!(
            "\nPlaywright {} on node {}, browser {}",
            p["playwright"].as_str().unwrap_or("?"),
            p["node"].as_str().unwrap_or("?"),
            p["browser"].as_str().unwrap_or("?")
        );
    }
    if !notes.is_empty() {
        println!("\nNotes:\n");
        for note in &notes {
            println!("- {note}");
        }
    }

    if let Some(path) = &args.json {
        let mut all: Vec<Value> = vec![launch.to_json(), close.to_json()];
        all.extend(steps.iter().map(Series::to_json));
        all.extend(
            [&flow.total, &flow.steps, &flow.tab_api]
                .into_iter()
                .chain(&flow.phases)
                .chain(&flow.tab_phases)
                .map(Series::to_json),
        );
        all.extend(pw_launch.iter().chain(pw.iter()).map(Series::to_json));
        let doc = json!({
            "profile": profile,
            "cpus": cpus,
            "chromium": version,
            "series": all,
            "playwright_raw": playwright,
        });
        std::fs::write(path, serde_json::to_string_pretty(&doc)?)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}
