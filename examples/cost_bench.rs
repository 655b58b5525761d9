//! Where a run's CPU goes: each part of the demo signup on its own, repeated, with the CPU
//! seconds Chromium spends on it (by process type, from /proc) and planlock's own, next to
//! its wall time. The browser is launched here, so "driver" is this process.
//!
//! ```text
//! cargo run --example cost_bench -- [--n 20]
//! ```

#[path = "support/procfs.rs"]
mod procfs;

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Result, anyhow};
use async_trait::async_trait;
use clap::Parser;
use planlock::browser::{Chromium, LaunchOptions, Tab};
use planlock::demo::{DemoSite, Mailer};
use planlock::lock::Lock;
use procfs::Sampler;
use tokio::time::Instant;

#[derive(Parser, Debug)]
struct Args {
    /// Repetitions of each part.
    #[arg(long, default_value_t = 20)]
    n: usize,
}

/// The shop's mail goes nowhere: this benchmark stops before the code is needed.
struct NoMail;

#[async_trait]
impl Mailer for NoMail {
    async fn send(&self, _: &str, _: &str, _: Vec<u8>) -> Result<(), String> {
        Ok(())
    }
}

fn deadline() -> Instant {
    Instant::now() + Duration::from_secs(10)
}

fn open_lock() -> Lock {
    Lock::of_hosts(["127.0.0.1"]).expect("lock")
}

fn service_lock() -> Lock {
    open_lock().refusing_private_addresses()
}

async fn measure<F, Fut>(name: &str, n: usize, mut part: F) -> Result<()>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<()>>,
{
    part().await?;
    let sampler = Sampler::start(std::process::id());
    let began = std::time::Instant::now();
    for _ in 0..n {
        part().await?;
    }
    let wall = began.elapsed().as_secs_f64() * 1e3 / n as f64;
    let (usage, _, _) = sampler.finish();
    let per = |s: f64| s * 1e3 / n as f64;
    let types: Vec<String> = usage
        .by_type
        .iter()
        .filter(|(_, s)| *s > 0.0)
        .map(|(k, s)| format!("{k} {:.0}", per(*s)))
        .collect();
    println!(
        "| {name} | {wall:.0} | {:.0} | {:.0} | {} |",
        per(usage.driver_s),
        per(usage.browser_s),
        types.join(", ")
    );
    Ok(())
}

async fn signup_page(tab: &Tab, site: &DemoSite) -> Result<()> {
    tab.navigate(&site.url("/signup"), deadline())
        .await
        .map_err(|e| anyhow!("navigate: {e:?}"))?;
    Ok(())
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<()> {
    let args = Args::parse();
    let n = args.n;
    let site = DemoSite::start(Arc::new(NoMail)).await?;
    let browser = Chromium::start(&LaunchOptions::default()).await?;
    println!(
        "| part (×{n}) | wall ms | planlock CPU ms | Chromium CPU ms | Chromium by process type (ms) |"
    );
    println!("|---|---:|---:|---:|---|");
    measure("new_tab + close_tab", n, || async {
        let tab = browser.new_tab(open_lock()).await?;
        browser.close_tab(tab).await;
        Ok(())
    })
    .await?;
    measure("new_tab + close_tab (server mode: egress)", n, || async {
        let tab = browser.new_tab(service_lock()).await?;
        browser.close_tab(tab).await;
        Ok(())
    })
    .await?;
    measure("new_tab + navigate /signup + close_tab", n, || async {
        let tab = browser.new_tab(open_lock()).await?;
        signup_page(&tab, &site).await?;
        browser.close_tab(tab).await;
        Ok(())
    })
    .await?;
    measure(
        "new_tab + navigate /signup + close_tab (server mode)",
        n,
        || async {
            let tab = browser.new_tab(service_lock()).await?;
            signup_page(&tab, &site).await?;
            browser.close_tab(tab).await;
            Ok(())
        },
    )
    .await?;
    let tab = browser.new_tab(open_lock()).await?;
    measure("navigate /signup (same tab)", n, || {
        signup_page(&tab, &site)
    })
    .await?;
    measure("fill Email", n, || async {
        tab.fill("email", Some("Email"), None, "a@b.test", false, deadline())
            .await
            .map_err(|e| anyhow!("fill: {e:?}"))?;
        Ok(())
    })
    .await?;
    measure("wait_for_text (shown)", n, || async {
        tab.wait_for_text("Create your account", deadline())
            .await
            .map_err(|e| anyhow!("wait: {e:?}"))?;
        Ok(())
    })
    .await?;
    let fill_form = || async {
        signup_page(&tab, &site).await?;
        for (label, value) in [("Email", "a@b.test"), ("Password", "pw")] {
            tab.fill("field", Some(label), None, value, false, deadline())
                .await
                .map_err(|e| anyhow!("fill: {e:?}"))?;
        }
        anyhow::Ok(())
    };
    measure("navigate /signup, fill ×2", n, fill_form).await?;
    measure(
        "navigate /signup, fill ×2, click Create account (→ /verify)",
        n,
        || async {
            fill_form().await?;
            tab.click("the button", Some("Create account"), None, &[], deadline())
                .await
                .map_err(|e| anyhow!("click: {e:?}"))?;
            tab.wait_for_text("Check your email", deadline())
                .await
                .map_err(|e| anyhow!("wait: {e:?}"))?;
            Ok(())
        },
    )
    .await?;
    measure("fill_code (6 boxes, on /verify)", n, || async {
        tab.fill_code("input.otp", "123456", deadline())
            .await
            .map_err(|e| anyhow!("fill_code: {e:?}"))?;
        Ok(())
    })
    .await?;
    measure("screenshot", n, || async {
        tab.screenshot(&[])
            .await
            .map_err(|why| anyhow!("no screenshot: {why}"))?;
        Ok(())
    })
    .await?;
    measure("idle page, 100 ms", n, || async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        Ok(())
    })
    .await?;
    browser.close_tab(tab).await;
    browser.close().await;
    Ok(())
}
