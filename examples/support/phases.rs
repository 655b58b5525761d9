//! Where one run's time goes, phase by phase: `planlock serve`'s phase marks (its debug log of
//! target `planlock::phase`, as JSON lines) and the Playwright script's own marks, turned into
//! the same rows so the throughput benchmark can set them side by side.
#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

/// One run's phases: each row's name and how long it took, in milliseconds, in run order.
pub type Timeline = Vec<(String, f64)>;

/// The milliseconds since the Unix epoch of `t`.
pub fn unix_ms(t: SystemTime) -> f64 {
    t.duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs_f64()
        * 1e3
}

/// The phase marks a `planlock serve` logged, by run id: (phase, Unix ms), in log order.
#[derive(Clone, Default)]
pub struct Marks(Arc<Mutex<HashMap<String, Vec<Mark>>>>);

/// A phase and when it ended (Unix ms).
type Mark = (String, f64);

impl Marks {
    /// Reads one line of the server's log; keeps it when it is a phase mark.
    pub fn read(&self, line: &str) {
        if !line.contains("planlock::phase") {
            return;
        }
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            return;
        };
        let fields = &v["fields"];
        // A mark of the whole process has no run.
        let (Some(run), Some(phase), Some(ts)) = (
            Some(fields["run_id"].as_str().unwrap_or_default()),
            fields["phase"].as_str(),
            v["timestamp"].as_str(),
        ) else {
            return;
        };
        let Ok(at) = chrono::DateTime::parse_from_rfc3339(ts) else {
            return;
        };
        let at = at.timestamp_micros() as f64 / 1e3;
        let name = match (fields["step"].as_u64(), fields["step_type"].as_str()) {
            (Some(n), Some(t)) => format!("step {n} {t}"),
            _ => phase.to_string(),
        };
        if let Ok(mut marks) = self.0.lock() {
            marks.entry(run.to_string()).or_default().push((name, at));
        }
    }

    /// The marks of run `run_id` so far, as (phase, Unix ms), in log order; a step's phase
    /// is named `step N TYPE`.
    pub fn of(&self, run_id: &str) -> Vec<(String, f64)> {
        self.0
            .lock()
            .ok()
            .and_then(|m| m.get(run_id).cloned())
            .unwrap_or_default()
    }

    /// Every mark of every run, as (phase, ms since `start`), in log order: one process's
    /// marks (`planlock run` runs one plan).
    pub fn since(&self, start: f64) -> Vec<(String, f64)> {
        let Ok(marks) = self.0.lock() else {
            return Vec::new();
        };
        let mut all: Vec<(String, f64)> = marks
            .values()
            .flatten()
            .map(|(p, t)| (p.clone(), t - start))
            .collect();
        all.sort_by(|a, b| a.1.total_cmp(&b.1));
        all
    }

    /// The timeline of run `run_id`, sent at `sent` and answered at `received` (Unix ms),
    /// once its `answered` mark is in (waiting up to a second for the log to catch up).
    pub fn timeline(&self, run_id: &str, sent: f64, received: f64) -> Option<Timeline> {
        let deadline = std::time::Instant::now() + Duration::from_secs(1);
        let marks = loop {
            let marks = self.0.lock().ok()?.get(run_id).cloned().unwrap_or_default();
            if marks.iter().any(|(p, _)| p == "answered") || std::time::Instant::now() >= deadline {
                break marks;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        if marks.is_empty() {
            return None;
        }
        let at = |name: &str| marks.iter().find(|(p, _)| p == name).map(|(_, t)| *t);
        let mut rows = Vec::new();
        let mut last = sent;
        let mut push = |rows: &mut Timeline, name: &str, t: f64| {
            rows.push((name.to_string(), t - last));
            last = t;
        };
        for (mark, row) in [
            ("accepted", "request read (POST → accepted)"),
            ("checked", "checked (secrets, inboxes, lock)"),
            ("queued", "queued (stored)"),
            ("claimed", "claimed (a slot)"),
        ] {
            if let Some(t) = at(mark) {
                push(&mut rows, row, t);
            }
        }
        // The mailboxes open beside the context: the run goes on when both are ready.
        let ready = [at("context ready"), at("mailboxes open")]
            .into_iter()
            .flatten()
            .fold(None, |a: Option<f64>, t| Some(a.map_or(t, |a| a.max(t))));
        if let Some(t) = ready {
            push(&mut rows, "context ready", t);
        }
        for (name, t) in marks.iter().filter(|(p, _)| p.starts_with("step ")) {
            push(&mut rows, name, *t);
        }
        for (mark, row) in [
            ("settled", "late-refusal watch"),
            ("tab closed", "tab closed"),
            ("result stored", "result stored"),
            ("answered", "answered"),
        ] {
            if let Some(t) = at(mark) {
                push(&mut rows, row, t);
            }
        }
        push(&mut rows, "answer received", received);
        rows.push(("whole run".to_string(), received - sent));
        Some(rows)
    }
}

/// A Playwright run's timeline from its marks (`{"context ready": MS, "step 1": MS, …}`, ms
/// since its start), its steps named as the plan's (`step_types`, in order).
pub fn playwright_timeline(marks: &Value, total_ms: f64, step_types: &[String]) -> Timeline {
    let Some(obj) = marks.as_object() else {
        return Vec::new();
    };
    let mut ends: Vec<(String, f64)> = obj
        .iter()
        .filter_map(|(k, v)| Some((k.clone(), v.as_f64()?)))
        .collect();
    ends.sort_by(|a, b| a.1.total_cmp(&b.1));
    let mut rows = Vec::new();
    let mut last = 0.0;
    for (name, t) in ends {
        let name = match name
            .strip_prefix("step ")
            .and_then(|n| n.parse::<usize>().ok())
        {
            Some(n) => format!(
                "step {n} {}",
                step_types.get(n - 1).map(String::as_str).unwrap_or("?")
            ),
            None => name,
        };
        rows.push((name, t - last));
        last = t;
    }
    rows.push(("whole run".to_string(), total_ms));
    rows
}

/// The rows of every timeline, in first-seen order.
pub fn row_names<'a>(timelines: impl IntoIterator<Item = &'a Timeline>) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for t in timelines {
        for (i, (name, _)) in t.iter().enumerate() {
            if names.contains(name) {
                continue;
            }
            // After the row it follows in this timeline, so both sides' rows interleave.
            let after = i
                .checked_sub(1)
                .and_then(|p| names.iter().position(|n| *n == t[p].0));
            match after {
                Some(p) => names.insert(p + 1, name.clone()),
                None if i == 0 => names.insert(0, name.clone()),
                None => names.push(name.clone()),
            }
        }
    }
    // The whole run last.
    if let Some(p) = names.iter().position(|n| n == "whole run") {
        let whole = names.remove(p);
        names.push(whole);
    }
    names
}

/// The durations of row `name` over `timelines`.
pub fn samples(timelines: &[Timeline], name: &str) -> Vec<f64> {
    timelines
        .iter()
        .flat_map(|t| t.iter().filter(|(n, _)| n == name).map(|(_, ms)| *ms))
        .collect()
}

/// Starts `serve` (a `planlock serve` command with its own arguments) logging its phase
/// marks as JSON, waits until it says where it serves, and from then on reads its log into
/// `marks` on a thread of its own: the child and its base URL.
pub fn serve_logging_phases(mut serve: Command, marks: &Marks) -> anyhow::Result<(Child, String)> {
    use anyhow::Context;
    let mut child = serve
        .env_remove("PLANLOCK_TOKEN")
        .env("PLANLOCK_LOG", "planlock=warn,planlock::phase=debug")
        .env("PLANLOCK_LOG_FORMAT", "json")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .context("start planlock serve")?;
    let stderr = child.stderr.take().context("no stderr")?;
    let mut lines = BufReader::new(stderr).lines();
    let base = loop {
        let line = lines
            .next()
            .context("planlock serve exited before serving")??;
        if let Some(rest) = line.split("serving on ").nth(1) {
            break rest
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_string();
        }
    };
    let kept = marks.clone();
    std::thread::spawn(move || {
        for line in lines.by_ref().map_while(Result::ok) {
            kept.read(&line);
        }
    });
    Ok((child, base))
}
