//! The locator corpus as a benchmark: replays every plan of `fixtures/corpus/plans/` N times
//! on real Chromium against the corpus pages and apps, and reports how many runs pass, how
//! long the locator took to find and rank the target of each click and fill (`locate_ms` of
//! its answer: in-page, waiting excluded), and how long the whole step took (the
//! `Tab::click`/`Tab::fill` call the runner makes: waiting, stability checks, input events and
//! any navigation included), median and p95.
//!
//! ```text
//! fixtures/corpus/install
//! cargo run --example corpus_bench -- [--runs 5] [--only NAME]... [--json FILE]
//! ```
//!
//! To compare two locators, run it once per build of the locator (`src/browser/locator/`). Not a test:
//! a failing plan is counted, not fatal.
//!
//! `--explain CASE`: no measuring; the one plan run once, each click and fill explained before
//! it is done (the candidates, the ones each ranking rule kept, the deciding rule), as
//! `examples/support/replay.rs` prints it.
//!
//! `--guessed`: what a guessed check that misses costs. Every plan with a `wait_for_text` runs
//! through the runner twice per round, its checks marked `could` (a guess): once as written
//! (they hit) and once with texts no page shows (they miss), with the step's default timeout
//! as a guess has. The table gives each plan's run time both ways and the time the misses
//! added, median and worst.

#[path = "support/replay.rs"]
mod replay;

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use axum::Router;
use axum::extract::Path as UrlPath;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use clap::Parser;
use planlock::browser::{Chromium, LaunchOptions};
use planlock::lock::Lock;
use planlock::plan::{self, Limits, Vars};
use serde_json::json;

/// Journeys in several plans, each needing what the one before left in its app (a password
/// changed, a link mailed): `tests/it/corpus.rs` runs them in order; replayed alone and
/// repeatedly they would measure nothing.
const JOURNEY_PARTS: [&str; 4] = [
    "allauth-password-reset",
    "allauth-set-password",
    "fab-reset-password",
    "fab-sign-in-again",
];

/// Plans that show a failure on purpose: a run of one "passes" when it fails.
const FAILURE_CASES: [&str; 4] = [
    "fab-sign-in-by-text",
    "cookie-banner-blocked",
    "mui-dialog-slow",
    "shoelace-fill-a-button",
];

#[derive(Parser, Debug)]
#[command(about = "planlock locator corpus benchmark")]
struct Args {
    /// Runs of each plan.
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Only these plans (file stems); all when absent.
    #[arg(long)]
    only: Vec<String>,
    /// Also write every sample as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Measure what guessed checks that miss add to a run, instead.
    #[arg(long)]
    guessed: bool,
    /// Instead of measuring, run this one plan once and print, before each click and fill,
    /// the candidates the locator found and which ranking rule kept which.
    #[arg(long, value_name = "CASE")]
    explain: Option<String>,
}

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/corpus")
}

/// One Python app of the corpus on a free loopback port, stopped by its PID on drop.
struct App {
    child: Child,
    url: String,
    _data: tempfile::TempDir,
}

impl Drop for App {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_app(args: &[&str], db_var: &str, db_name: &str, migrate: bool) -> Result<App> {
    let data = tempfile::tempdir()?;
    let db = data.path().join(db_name);
    let python = corpus().join("py/.venv/bin/python");
    let py = corpus().join("py");
    if migrate {
        let out = Command::new(&python)
            .args(["django_site/manage.py", "migrate", "--noinput"])
            .current_dir(&py)
            .env(db_var, &db)
            .output()?;
        if !out.status.success() {
            bail!("migrate failed: {}", String::from_utf8_lossy(&out.stderr));
        }
    }
    let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    let args: Vec<String> = args
        .iter()
        .map(|a| a.replace("PORT", &port.to_string()))
        .collect();
    let child = Command::new(&python)
        .args(&args)
        .current_dir(&py)
        .env(db_var, &db)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    let app = App {
        child,
        url: format!("http://127.0.0.1:{port}"),
        _data: data,
    };
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let started = std::time::Instant::now();
    while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
        if started.elapsed() > Duration::from_secs(60) {
            bail!("{} did not listen within 60 s", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok(app)
}

async fn serve_web() -> Result<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let app = Router::new().route(
        "/{*path}",
        axum::routing::get(|UrlPath(path): UrlPath<String>| async move { static_file(&path) }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(format!("http://{addr}"))
}

fn static_file(path: &str) -> Response {
    if path.split('/').any(|p| p == "..") {
        return StatusCode::BAD_REQUEST.into_response();
    }
    match std::fs::read(corpus().join("web").join(path)) {
        Ok(bytes) => {
            let ty = match path.rsplit('.').next() {
                Some("html") => "text/html; charset=utf-8",
                Some("js" | "mjs") => "text/javascript",
                Some("css") => "text/css",
                Some("svg") => "image/svg+xml",
                _ => "application/octet-stream",
            };
            ([(header::CONTENT_TYPE, ty)], bytes).into_response()
        }
        Err(_) => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

/// The variables of a corpus plan, with the fresh Django it may need (kept alive by the
/// caller while the plan runs).
fn case_vars(name: &str, web: &str, fab: &str) -> Result<(Option<App>, Vars)> {
    let django = django_for(name)?;
    let django_url = django.as_ref().map_or("http://127.0.0.1:9", |d| &d.url);
    let vars = Vars::from_pairs([
        format!("corpus={web}"),
        format!("django={django_url}"),
        format!("fab={fab}"),
    ])?;
    Ok((django, vars))
}

/// A fresh Django for a plan that registers (its user table must be empty).
fn django_for(name: &str) -> Result<Option<App>> {
    if !name.starts_with("django") {
        return Ok(None);
    }
    start_app(
        &[
            "django_site/manage.py",
            "runserver",
            "127.0.0.1:PORT",
            "--noreload",
        ],
        "CORPUS_DJANGO_DB",
        "db.sqlite3",
        true,
    )
    .map(Some)
}

/// A plan's text with every `wait_for_text` marked as a guess (`could`) with the step's default
/// timeout, as a writer who never saw the page leaves it (the corpus plans' own 5 s timeouts
/// were chosen by someone who had), its text replaced by one no page shows when `miss`.
fn as_guessed(text: &str, miss: bool) -> Result<String> {
    let mut plan: serde_json::Value = serde_json::from_str(text)?;
    for step in plan["steps"].as_array_mut().into_iter().flatten() {
        if step["type"] == "wait_for_text" {
            step["criticality"] = json!("could");
            if let Some(step) = step.as_object_mut() {
                step.remove("timeout_seconds");
            }
            if miss {
                step["text"] = json!("Nothing on this page says this");
            }
        }
    }
    Ok(serde_json::to_string(&plan)?)
}

/// `--guessed`: each plan with checks, as guesses that hit and that miss, `runs` times; the
/// run times and what the misses added.
fn guessed(
    rt: &tokio::runtime::Runtime,
    browser: &Chromium,
    names: &[String],
    runs: usize,
    web: &str,
    fab: &str,
) -> Result<()> {
    use planlock::runner::{self, Recorder, RunSpec, RunStatus};
    let mut rows = Vec::new();
    let mut added_all = Vec::new();
    for name in names {
        let text = std::fs::read_to_string(corpus().join("plans").join(format!("{name}.json")))?;
        if FAILURE_CASES.contains(&name.as_str()) || !text.contains("wait_for_text") {
            continue;
        }
        let (mut hits, mut misses, mut added) = (Vec::new(), Vec::new(), Vec::new());
        let mut note = String::new();
        for _ in 0..runs {
            let mut took = [0.0; 2];
            for (i, miss) in [false, true].into_iter().enumerate() {
                let (_django, vars) = case_vars(name, web, fab)?;
                let plan =
                    plan::parse_and_validate(&as_guessed(&text, miss)?, &Limits::default(), &vars)
                        .with_context(|| format!("{name} is invalid"))?;
                let result = rt.block_on(async {
                    let locked = RunSpec::new(plan)
                        .vars(vars)
                        .allow_host("127.0.0.1")
                        .lock()
                        .await?;
                    let mut events = Recorder::default();
                    let cancel = tokio_util::sync::CancellationToken::new();
                    anyhow::Ok(runner::run(browser, locked, &mut events, cancel).await)
                })?;
                if result.status != RunStatus::Succeeded {
                    note = format!("{}: {}", if miss { "miss" } else { "hit" }, result.summary);
                }
                took[i] = result.duration_ms as f64 / 1000.0;
            }
            hits.push(took[0]);
            misses.push(took[1]);
            added.push(took[1] - took[0]);
        }
        for v in [&mut hits, &mut misses, &mut added] {
            v.sort_by(f64::total_cmp);
        }
        added_all.extend(added.iter().copied());
        eprintln!("{name}: added {:.1} s median", quantile(&added, 0.5));
        rows.push((name.clone(), hits, misses, added, note));
    }
    println!(
        "| plan | run, checks hit (median s) | run, checks miss (median s) | added median s | added worst s | not succeeded |"
    );
    println!("|---|---|---|---|---|---|");
    for (name, hits, misses, added, note) in &rows {
        println!(
            "| {name} | {:.1} | {:.1} | {:.1} | {:.1} | {} |",
            quantile(hits, 0.5),
            quantile(misses, 0.5),
            quantile(added, 0.5),
            added.last().copied().unwrap_or(f64::NAN),
            note.replace('|', "\\|")
        );
    }
    added_all.sort_by(f64::total_cmp);
    println!(
        "\nall: {} pairs of runs; a missed guessed check added {:.1} s median, {:.1} s worst\n",
        added_all.len(),
        quantile(&added_all, 0.5),
        added_all.last().copied().unwrap_or(f64::NAN)
    );
    Ok(())
}

/// `--explain CASE`: the plan run once, each click and fill explained before it is done.
fn explain_case(
    rt: &tokio::runtime::Runtime,
    browser: &Chromium,
    case: &str,
    web: &str,
    fab: &str,
) -> Result<()> {
    let path = corpus().join("plans").join(format!("{case}.json"));
    let text = std::fs::read_to_string(&path).with_context(|| {
        format!(
            "no corpus case {case}: {} does not exist (the cases are the plans in fixtures/corpus/plans)",
            path.display()
        )
    })?;
    if JOURNEY_PARTS.contains(&case) {
        bail!(
            "{case} is part of a journey that needs the plan before it; explain that one alone is not possible"
        );
    }
    let (_django, vars) = case_vars(case, web, fab)?;
    let plan = plan::parse_and_validate(&text, &Limits::default(), &vars)
        .with_context(|| format!("{case} is invalid"))?;
    let plan = replay::render(&plan, &vars);
    let replayed = rt.block_on(async {
        let tab = browser.new_tab(Lock::of_hosts(["127.0.0.1"])?).await?;
        let replayed = replay::replay(&tab, &plan, true).await;
        browser.close_tab(tab).await;
        anyhow::Ok(replayed)
    })?;
    print!("{}", replayed.explained);
    match replayed.error {
        Some(e) if !FAILURE_CASES.contains(&case) => bail!("{case}: {e}"),
        Some(e) => println!("(fails on purpose) {e}"),
        None => {}
    }
    Ok(())
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[i]
}

fn main() -> Result<()> {
    let args = Args::parse();
    let check = Command::new(corpus().join("install"))
        .arg("--check")
        .status()
        .context("run fixtures/corpus/install --check")?;
    if !check.success() {
        bail!("the corpus is not installed: run fixtures/corpus/install");
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let mut names: Vec<String> = std::fs::read_dir(corpus().join("plans"))?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .filter(|n| args.only.is_empty() || args.only.contains(n))
        .filter(|n| !JOURNEY_PARTS.contains(&n.as_str()))
        .collect();
    names.sort();
    let fab = start_app(
        &["fab_app/app.py", "PORT"],
        "CORPUS_FAB_DB",
        "fab.db",
        false,
    )?;
    let browser = rt.block_on(Chromium::start(&LaunchOptions::default()))?;
    let web = rt.block_on(serve_web())?;
    if args.guessed {
        let table = guessed(&rt, &browser, &names, args.runs, &web, &fab.url);
        rt.block_on(browser.close());
        return table;
    }
    if let Some(case) = &args.explain {
        let explained = explain_case(&rt, &browser, case, &web, &fab.url);
        rt.block_on(browser.close());
        return explained;
    }
    let mut rows = Vec::new();
    let mut all: Vec<(String, &'static str, f64, f64)> = Vec::new();
    let mut effects: Vec<f64> = Vec::new();
    for name in &names {
        let text = std::fs::read_to_string(corpus().join("plans").join(format!("{name}.json")))?;
        let mut passed = 0;
        let mut last_error = None;
        for _ in 0..args.runs {
            // Registration plans need an empty user table: a fresh Django per run.
            let (_django, vars) = case_vars(name, &web, &fab.url)?;
            let plan = plan::parse_and_validate(&text, &Limits::default(), &vars)
                .with_context(|| format!("{name} is invalid"))?;
            let plan = replay::render(&plan, &vars);
            let result = rt.block_on(async {
                let tab = browser.new_tab(Lock::of_hosts(["127.0.0.1"])?).await?;
                let r = replay::replay(&tab, &plan, false).await;
                browser.close_tab(tab).await;
                anyhow::Ok(r)
            })?;
            let expected_failure = FAILURE_CASES.contains(&name.as_str());
            if result.error.is_some() == expected_failure {
                passed += 1;
            } else {
                last_error = result.error.clone();
            }
            for (kind, locate, ms) in result.steps {
                all.push((name.clone(), kind, locate, ms));
            }
            effects.extend(result.effects);
        }
        eprintln!("{name}: {passed}/{} as expected", args.runs);
        rows.push((name.clone(), passed, last_error));
    }
    rt.block_on(browser.close());
    drop(fab);

    println!("| plan | runs as expected | last unexpected outcome |");
    println!("|---|---|---|");
    let mut total = 0;
    for (name, passed, err) in &rows {
        total += passed;
        let err = err.as_deref().unwrap_or("").replace('|', "\\|");
        println!("| {name} | {passed}/{} | {err} |", args.runs);
    }
    println!(
        "\n{total}/{} runs as expected ({} plans x {} runs)\n",
        rows.len() * args.runs,
        rows.len(),
        args.runs
    );
    println!("| steps | n | locate median ms | locate p95 ms | step median ms | step p95 ms |");
    println!("|---|---|---|---|---|---|");
    for kind in ["click", "fill", "click+fill"] {
        let pick = |f: fn(&(String, &'static str, f64, f64)) -> f64| {
            let mut v: Vec<f64> = all
                .iter()
                .filter(|s| kind.contains(s.1))
                .map(f)
                .filter(|x| !x.is_nan())
                .collect();
            v.sort_by(f64::total_cmp);
            v
        };
        let locate = pick(|s| s.2);
        let step = pick(|s| s.3);
        println!(
            "| {kind} | {} | {:.3} | {:.3} | {:.1} | {:.1} |",
            step.len(),
            quantile(&locate, 0.5),
            quantile(&locate, 0.95),
            quantile(&step, 0.5),
            quantile(&step, 0.95)
        );
    }
    // How long the clicks that did something took to show it: what the no-effect window
    // (planlock::browser::CLICK_WINDOW) must cover.
    effects.sort_by(f64::total_cmp);
    println!(
        "\nclick to first effect: {} clicks, median {:.0} ms, p95 {:.0} ms, max {:.0} ms (window {} ms)\n",
        effects.len(),
        quantile(&effects, 0.5),
        quantile(&effects, 0.95),
        effects.last().copied().unwrap_or(f64::NAN),
        planlock::browser::CLICK_WINDOW.as_millis()
    );
    if let Some(path) = args.json {
        let samples: Vec<_> = all
            .iter()
            .map(|(plan, kind, locate, ms)| {
                json!({ "plan": plan, "step": kind, "locate_ms": locate, "step_ms": ms })
            })
            .collect();
        std::fs::write(&path, serde_json::to_string_pretty(&samples)?)?;
    }
    Ok(())
}
