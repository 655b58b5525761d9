//! planlock as a library: a plan locked with `RunSpec`, run in headless Chromium, events
//! printed as they happen, the result printed as JSON. The page it visits is served from
//! this process on 127.0.0.1, so nothing leaves the machine.
//!
//!     cargo run --example library

use std::net::SocketAddr;

use planlock::runner::EventKind;
use planlock::{Chromium, Event, LaunchOptions, Plan, RunSpec};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

const PAGE: &str = r#"<!doctype html><title>Newsletter</title>
<nav><a href="/">Home</a> <a href="/">Subscribe</a></nav>
<main><form onsubmit="event.preventDefault(); document.querySelector('#done').hidden = false">
  <label>Email <input type="email" name="email"></label>
  <button>Subscribe</button></form>
  <p id="done" hidden>Thanks for subscribing!</p></main>"#;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let site = serve_page().await?;
    let plan = Plan::from_json(&format!(
        r#"{{"reasoning": "Subscribe with an address.",
            "steps": [
              {{"type": "navigate", "url": "http://{site}/"}},
              {{"type": "fill", "describe": "the Email field", "label": "Email",
                "value": "ada@example.com"}},
              {{"type": "click", "describe": "the Subscribe button", "text": "Subscribe"}},
              {{"type": "wait_for_text", "text": "Thanks for subscribing"}},
              {{"type": "done", "summary": "Subscribed."}}]}}"#
    ))?;
    let run = RunSpec::new(plan).named("newsletter").lock().await?;
    println!("may visit: {}", run.lock().describe());

    let browser = Chromium::start(&LaunchOptions::default()).await?;
    let mut print = |e: &Event| {
        if let (Some(step), Some(ms)) = (e.step(), e.duration_ms()) {
            let ended = if e.kind() == EventKind::StepSucceeded {
                "succeeded"
            } else {
                "failed"
            };
            println!(
                "step {} {} {ended} in {ms} ms",
                step.index + 1,
                step.step_type
            );
        }
    };
    let result = planlock::run(&browser, run, &mut print, CancellationToken::new()).await;
    browser.close().await;

    println!("{}", serde_json::to_string_pretty(&result)?);
    anyhow::ensure!(result.succeeded(), "the run failed: {}", result.summary);
    Ok(())
}

/// Answers every request on a loopback port with `PAGE`.
async fn serve_page() -> std::io::Result<SocketAddr> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut request = [0u8; 4096];
                let _ = socket.read(&mut request).await;
                let response = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\n\
                     content-length: {}\r\nconnection: close\r\n\r\n{PAGE}",
                    PAGE.len()
                );
                let _ = socket.write_all(response.as_bytes()).await;
            });
        }
    });
    Ok(addr)
}
