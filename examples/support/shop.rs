//! What the serve benchmarks share: the demo shop's mail appended to a Dovecot of their own,
//! the signup request, the `planlock` binary next to the example, percentiles and the load
//! average. Shared by the examples with `#[path]`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use async_trait::async_trait;
use planlock::demo::{Mailer, SIGNUP_PLAN};
use serde_json::{Value, json};

use crate::dovecot;

/// The mail domain of the benchmark's addresses (`bob+TAG@bench.test`).
pub const DOMAIN: &str = "bench.test";
/// The name `serve` knows the benchmark's Dovecot mailbox by.
pub const INBOX_NAME: &str = "bench";

/// The shop's mail, appended to the benchmark's Dovecot over a few kept sessions.
pub struct DovecotMailer {
    dovecot: Arc<dovecot::Dovecot>,
    sessions: tokio::sync::Mutex<Vec<dovecot::Appender>>,
    permits: tokio::sync::Semaphore,
}

impl DovecotMailer {
    pub fn new(dovecot: Arc<dovecot::Dovecot>) -> DovecotMailer {
        DovecotMailer {
            dovecot,
            sessions: tokio::sync::Mutex::new(Vec::new()),
            permits: tokio::sync::Semaphore::new(4),
        }
    }
}

#[async_trait]
impl Mailer for DovecotMailer {
    async fn send(&self, _from: &str, _to: &str, raw: Vec<u8>) -> Result<(), String> {
        let _permit = self.permits.acquire().await.map_err(|e| e.to_string())?;
        let kept = self.sessions.lock().await.pop();
        let mut session = match kept {
            Some(s) => s,
            None => self.dovecot.appender().await,
        };
        session.append(&raw).await;
        self.sessions.lock().await.push(session);
        Ok(())
    }
}

/// The signup plan's request body for `POST /v1/runs`.
pub fn run_body(site: &str, inbox: &str) -> Value {
    let plan: Value = serde_json::from_str(SIGNUP_PLAN).expect("the bundled plan is JSON");
    json!({
        "plan": plan,
        "vars": {"base_url": site, "password": "correct horse battery staple"},
        "inbox": inbox,
        "allowed_hosts": ["127.0.0.1"],
    })
}

/// The `planlock` binary built next to this example.
pub fn planlock_binary() -> Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .context("no directory above the example")?;
    let bin = dir.join("planlock");
    if !bin.exists() {
        bail!(
            "{} is missing: build it first (cargo build --bin planlock; scripts/bench does)",
            bin.display()
        );
    }
    Ok(bin)
}

/// Nearest-rank percentile.
pub fn percentile(samples: &[f64], p: f64) -> f64 {
    if samples.is_empty() {
        return f64::NAN;
    }
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * s.len() as f64).ceil() as usize;
    s[rank.clamp(1, s.len()) - 1]
}

/// The load average over 1, 5 and 15 minutes.
pub fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}
