//! What `--screenshots all` costs per step: the sign-up form flow (5 steps) through
//! `runner::run`, alternately with a screenshot after every step and with none, on pages
//! served here on 127.0.0.1:0. A step's screenshot cost is the time from the end of the step
//! (its `duration_ms`) to its `step_succeeded` event, which is emitted once the PNG is
//! written (also per step type). What a user pays is the last row: how much longer a whole
//! run takes with a screenshot after every step, per step.
//!
//! ```text
//! cargo run --example screenshot_bench -- [--runs 20]
//! ```

use std::net::SocketAddr;
use std::path::Path;

use anyhow::{Result, bail};
use axum::Router;
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use chrono::DateTime;
use clap::Parser;
use planlock::browser::{Chromium, LaunchOptions};
use planlock::plan::{self, Limits, Vars};
use planlock::runner::{self, Event, EventKind, Recorder, RunSpec, Screenshots, Settings};
use tokio_util::sync::CancellationToken;

#[derive(Parser, Debug)]
struct Args {
    /// Measured runs of each kind (after 2 unmeasured ones).
    #[arg(long, default_value_t = 20)]
    runs: usize,
}

const FLOW: &str = r#"{"reasoning":"","steps":[
  {"type":"navigate","url":"{SITE}/form.html"},
  {"type":"fill","describe":"name","label":"Full name","value":"Ada"},
  {"type":"click","describe":"submit","text":"Create account"},
  {"type":"wait_for_text","text":"Welcome aboard"},
  {"type":"done","summary":"ok"}]}"#;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<()> {
    let args = Args::parse();
    let site = serve_site().await?;
    let browser = Chromium::start(&LaunchOptions::default()).await?;
    browser.keep_warm(true);
    let plan = plan::parse_and_validate(
        &FLOW.replace("{SITE}", &format!("http://{site}")),
        &Limits::default(),
        &Vars::default(),
    )?;
    let shots = tempfile::tempdir()?;
    let mut per_shot = Vec::new();
    let mut by_step: Vec<(String, Vec<f64>)> = Vec::new();
    let mut missing = 0;
    let (mut with, mut without) = (Vec::new(), Vec::new());
    let (mut whole_with, mut whole_without) = (Vec::new(), Vec::new());
    for i in 0..args.runs + 2 {
        for mode in [Screenshots::All, Screenshots::None] {
            let settings = Settings {
                screenshots: mode,
                artifacts_dir: Some(shots.path().to_path_buf()),
                ..Settings::default()
            };
            let run = RunSpec::new(plan.clone()).settings(settings).lock().await?;
            let mut rec = Recorder::default();
            let result = runner::run(&browser, run, &mut rec, CancellationToken::new()).await;
            if !result.succeeded() {
                bail!("the flow failed: {}", result.summary);
            }
            if i < 2 {
                continue;
            }
            let steps: f64 = result.steps.iter().map(|s| s.duration_ms as f64).sum();
            let total = result.duration_ms as f64 - steps;
            if mode == Screenshots::All {
                whole_with.push(result.duration_ms as f64);
                with.push(total);
                for (step, ms, shot) in shot_costs(&rec.events) {
                    if shot {
                        per_shot.push(ms);
                        match by_step.iter_mut().find(|(s, _)| *s == step) {
                            Some((_, v)) => v.push(ms),
                            None => by_step.push((step, vec![ms])),
                        }
                    } else {
                        missing += 1;
                    }
                }
            } else {
                whole_without.push(result.duration_ms as f64);
                without.push(total);
            }
        }
    }
    let mut capture = Vec::new();
    let lock = RunSpec::new(plan.clone()).lock().await?.lock().clone();
    let tab = browser.new_tab(lock).await?;
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    tab.navigate(&format!("http://{site}/form.html"), deadline)
        .await
        .map_err(|e| anyhow::anyhow!("{e:?}"))?;
    for _ in 0..args.runs * 2 {
        let began = std::time::Instant::now();
        if tab.screenshot(&[]).await.is_err() {
            bail!("no screenshot of a loaded page");
        }
        capture.push(began.elapsed().as_secs_f64() * 1000.0);
    }
    // With a secret to keep out of the picture: looked for before and after the capture,
    // first where the page does not show it, then where a field shows it (painted over).
    let hidden = ["Ada Lovelace-4711".to_string()];
    let (mut masked_none, mut masked_one) = (Vec::new(), Vec::new());
    for _ in 0..args.runs * 2 {
        let began = std::time::Instant::now();
        if tab.screenshot(&hidden).await.is_err() {
            bail!("no masked screenshot of a loaded page");
        }
        masked_none.push(began.elapsed().as_secs_f64() * 1000.0);
    }
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    tab.fill("name", Some("Full name"), None, &hidden[0], false, deadline)
        .await
        .map_err(|e| anyhow::anyhow!("{e:?}"))?;
    for _ in 0..args.runs * 2 {
        let began = std::time::Instant::now();
        if tab.screenshot(&hidden).await.is_err() {
            bail!("no masked screenshot of a loaded page");
        }
        masked_one.push(began.elapsed().as_secs_f64() * 1000.0);
    }
    // A long page (a 3,000-row table: about 26,000 nodes, a ::before on each row): what
    // looking costs where there is much to look through (the layout snapshot above all).
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    tab.navigate(&format!("http://{site}/long-table.html"), deadline)
        .await
        .map_err(|e| anyhow::anyhow!("{e:?}"))?;
    let (mut long_plain, mut long_masked) = (Vec::new(), Vec::new());
    for _ in 0..args.runs {
        for (hidden, times) in [(&[][..], &mut long_plain), (&hidden[..], &mut long_masked)] {
            let began = std::time::Instant::now();
            if let Err(why) = tab.screenshot(hidden).await {
                bail!("no screenshot of the long page: {why}");
            }
            times.push(began.elapsed().as_secs_f64() * 1000.0);
        }
    }
    browser.close_tab(tab).await;
    browser.close().await;
    let n = plan.steps.len() as f64;
    let diff: Vec<f64> = with
        .iter()
        .zip(&without)
        .map(|(a, b)| (a - b) / n)
        .collect();
    let mut whole: Vec<f64> = whole_with
        .iter()
        .zip(&whole_without)
        .map(|(a, b)| (a - b) / n)
        .collect();
    println!("| measure | median | p95 | max |\n|---|---:|---:|---:|");
    row("screenshot after a step (ms)", &mut per_shot);
    for (step, ms) in &mut by_step {
        row(&format!("… after {step} (ms)"), ms);
    }
    row("capture alone, loaded page (ms)", &mut capture);
    row("… with a secret it does not show (ms)", &mut masked_none);
    row(
        "… with a secret a field shows, painted over (ms)",
        &mut masked_one,
    );
    row("capture alone, long page (ms)", &mut long_plain);
    row("… with a secret it does not show (ms)", &mut long_masked);
    row(
        "run time outside steps, all − none, per step (ms)",
        &mut diff.clone(),
    );
    row("whole run, all − none, per step (ms)", &mut whole);
    println!(
        "\n{} screenshots over {} runs; {missing} step(s) had no screenshot (page mid-navigation)",
        per_shot.len(),
        args.runs
    );
    Ok(())
}

/// Per succeeded step: its name (`N type`), ms from its end to its `step_succeeded` event,
/// and whether it has a screenshot.
fn shot_costs(events: &[Event]) -> Vec<(String, f64, bool)> {
    let ms = |e: &Event| {
        DateTime::parse_from_rfc3339(e.ts())
            .unwrap()
            .timestamp_millis()
    };
    let mut out = Vec::new();
    for done in events
        .iter()
        .filter(|e| e.kind() == EventKind::StepSucceeded)
    {
        let Some(start) = events
            .iter()
            .find(|e| e.kind() == EventKind::StepStarted && e.index() == done.index())
        else {
            continue;
        };
        let cost = ms(done) - ms(start) - done.duration_ms().unwrap_or(0) as i64;
        let shot = done.step_detail().is_some_and(|d| d.screenshot.is_some());
        let Some(ran) = done.step() else { continue };
        let step = format!("{} {}", ran.index + 1, ran.step_type);
        out.push((step, cost as f64, shot));
    }
    out
}

fn row(name: &str, ms: &mut [f64]) {
    if ms.is_empty() {
        println!("| {name} | – | – | – |");
        return;
    }
    ms.sort_by(f64::total_cmp);
    let at = |q: f64| ms[((ms.len() - 1) as f64 * q).round() as usize];
    println!(
        "| {name} | {:.0} | {:.0} | {:.0} |",
        at(0.5),
        at(0.95),
        ms[ms.len() - 1]
    );
}

async fn serve_site() -> Result<SocketAddr> {
    async fn file(uri: Uri) -> Response {
        if uri.path() == "/long-table.html" {
            let rows: String = (0..3000)
                .map(|i| format!("<tr><td>Row {i}</td><td><span class=n>{}</span></td><td><a href=#{i}>open {i}</a></td></tr>", i * 7))
                .collect();
            let page = format!(
                "<!doctype html><html><head><style>.n::before {{ content: '#' }}</style></head>\
                 <body><table>{rows}</table></body></html>"
            );
            return ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], page).into_response();
        }
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/site");
        let path = uri.path().trim_start_matches('/');
        if path.contains("..") {
            return StatusCode::BAD_REQUEST.into_response();
        }
        match tokio::fs::read(root.join(path)).await {
            Ok(bytes) => {
                ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], bytes).into_response()
            }
            Err(_) => (StatusCode::NOT_FOUND, "not found").into_response(),
        }
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move {
        let _ = axum::serve(listener, Router::new().fallback(file)).await;
    });
    Ok(addr)
}
