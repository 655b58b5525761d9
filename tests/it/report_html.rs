//! The HTML report as a person sees it: `planlock run --report DIR --screenshots all`, then
//! the report served on loopback and opened in the shared Chromium by a plan (index, then
//! the run's page). The DOM shows every step row, every screenshot is fetched and painted
//! (the magenta of the page it shows is in the screenshot of the report), and the pages
//! load nothing from anywhere else.

use std::io::Cursor;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use planlock::runner::{RunSpec, Screenshots, Settings};
use serde_json::Value;

use crate::util;

/// Every request a server answered: `(path, status)`.
type Requests = Arc<Mutex<Vec<(String, u16)>>>;

/// Serves `root` on 127.0.0.1:0 and records every request.
fn serve(root: PathBuf) -> (SocketAddr, Requests) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let seen = log.clone();
    let app = Router::new().fallback(move |req: Request| {
        let root = root.clone();
        let seen = seen.clone();
        async move {
            let path = req.uri().path().trim_start_matches('/').to_string();
            let response: Response = if path.contains("..") {
                StatusCode::BAD_REQUEST.into_response()
            } else {
                match std::fs::read(root.join(&path)) {
                    Ok(bytes) => {
                        let ty = if path.ends_with(".png") {
                            "image/png"
                        } else if path.ends_with(".html") {
                            "text/html; charset=utf-8"
                        } else {
                            "application/octet-stream"
                        };
                        ([(header::CONTENT_TYPE, ty)], bytes).into_response()
                    }
                    Err(_) => StatusCode::NOT_FOUND.into_response(),
                }
            };
            seen.lock()
                .unwrap()
                .push((format!("/{path}"), response.status().as_u16()));
            response
        }
    });
    let listener = util::rt()
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    util::rt().spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (addr, log)
}

/// Pixels of exactly this colour in a PNG.
fn pixels_of(png: &Path, rgb: [u8; 3]) -> usize {
    let mut decoder = png::Decoder::new(Cursor::new(std::fs::read(png).unwrap()));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    buf[..info.line_size * info.height as usize]
        .chunks(channels)
        .filter(|p| p.len() >= 3 && p[..3] == rgb)
        .count()
}

#[test]
fn the_report_renders_in_chromium_with_every_step_and_picture() {
    if util::browser().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("colour.json");
    std::fs::write(
        &plan,
        r##"{"reasoning":"","steps":[
          {"type":"navigate","url":"{SITE}/report-colour.html"},
          {"type":"wait_for_text","text":"Colour check"},
          {"type":"extract_text","describe":"the heading","selector":"h1"},
          {"type":"done","summary":"seen"}]}"##
            .replace("{SITE}", &util::site().url("")),
    )
    .unwrap();
    let report = dir.path().join("report");
    let out = util::planlock()
        .arg("run")
        .arg(&plan)
        .args(["--json", "--screenshots", "all", "--report"])
        .arg(&report)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    let run_id = result["run_id"].as_str().unwrap().to_string();
    let page = std::fs::read_to_string(report.join(&run_id).join("index.html")).unwrap();
    assert!(!page.contains("<script"), "no JavaScript in the report");
    assert!(
        !page.contains("http://") || !page.contains("src=\"http"),
        "nothing fetched from elsewhere"
    );

    let (addr, requests) = serve(report.clone());
    let base = format!("http://{addr}");
    let viewer = util::plan(&format!(
        r##"{{"reasoning":"","steps":[
          {{"type":"navigate","url":"{base}/index.html"}},
          {{"type":"click","describe":"the run's link","selector":"#runs a"}},
          {{"type":"wait_for_text","text":"Timeline"}},
          {{"type":"extract_text","describe":"the step rows","selector":"#steps"}},
          {{"type":"navigate","url":"{base}/index.html"}},
          {{"type":"navigate","url":"{base}/{run_id}/index.html#step-1"}},
          {{"type":"wait_for_text","text":"after step 1"}},
          {{"type":"done","summary":"read the report"}}]}}"##
    ));
    let shots = tempfile::tempdir().unwrap();
    let settings = Settings {
        screenshots: Screenshots::All,
        artifacts_dir: Some(shots.path().to_path_buf()),
        ..Settings::default()
    };
    let (seen, _) = util::run_spec(RunSpec::new(viewer).settings(settings));
    util::assert_succeeded(&seen);

    let rows = &seen.extracted[0];
    for needle in [
        "navigate",
        "wait_for_text",
        "extract_text",
        "done",
        "the heading",
        "Colour check",
    ] {
        assert!(rows.contains(needle), "step rows lack {needle:?}:\n{rows}");
    }
    assert_eq!(rows.matches("succeeded").count(), 4, "{rows}");

    let requests = requests.lock().unwrap().clone();
    for n in 1..=4 {
        let png = format!("/{run_id}/{run_id}-step-{n}.png");
        assert!(
            requests.contains(&(png.clone(), 200)),
            "{png} was not loaded: {requests:?}"
        );
    }
    assert!(
        requests.iter().all(|(_, status)| *status == 200),
        "{requests:?}"
    );

    let last = seen.steps[6]
        .detail
        .screenshot
        .clone()
        .expect("a screenshot of the report");
    let magenta = pixels_of(Path::new(&last), [255, 0, 255]);
    assert!(
        magenta > 10_000,
        "the report's picture of step 1 is painted: {magenta} magenta pixels in {last}"
    );
}

#[test]
fn a_could_step_that_failed_is_listed_under_warnings_and_beside_the_run() {
    if util::browser().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("guess.json");
    std::fs::write(
        &plan,
        r##"{"reasoning":"","steps":[
          {"type":"navigate","url":"{SITE}/report-colour.html"},
          {"type":"wait_for_text","text":"Welcome aboard","timeout_seconds":1,"criticality":"could"},
          {"type":"done","summary":"seen"}]}"##
            .replace("{SITE}", &util::site().url("")),
    )
    .unwrap();
    let report = dir.path().join("report");
    let out = util::planlock()
        .arg("run")
        .arg(&plan)
        .args(["--json", "--report"])
        .arg(&report)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "a could step warns: {stderr}");
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["warnings"].as_array().map(Vec::len), Some(1));

    let (addr, _) = serve(report.clone());
    let base = format!("http://{addr}");
    let viewer = util::plan(&format!(
        r##"{{"reasoning":"","steps":[
          {{"type":"navigate","url":"{base}/index.html"}},
          {{"type":"extract_text","describe":"the run's row","selector":"#runs tr.run"}},
          {{"type":"click","describe":"the run's link","selector":"#runs a"}},
          {{"type":"extract_text","describe":"the warnings","selector":"#warnings"}},
          {{"type":"extract_text","describe":"the second step","selector":"#step-2"}},
          {{"type":"done","summary":"read the report"}}]}}"##
    ));
    let (seen, _) = util::run_spec(RunSpec::new(viewer));
    util::assert_succeeded(&seen);
    let row = &seen.extracted[0];
    assert!(
        row.contains("succeeded") && row.contains("1 warning"),
        "{row}"
    );
    let warnings = &seen.extracted[1];
    for needle in [
        "step 2",
        "wait_for_text",
        "could",
        "Welcome aboard",
        "report-colour.html",
    ] {
        assert!(
            warnings.contains(needle),
            "warnings lack {needle:?}:\n{warnings}"
        );
    }
    assert!(
        seen.extracted[2].contains("warned"),
        "{}",
        seen.extracted[2]
    );
}
