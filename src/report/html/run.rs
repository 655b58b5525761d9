//! One run's page: what ran, how long each step took (the timeline), what each step found
//! and a picture of it, and why the run stopped.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

use super::{badge, esc, shell, timeline, took};
use crate::report::{PlanReport, as_json, kind_name};
use crate::runner::{RunResult, RunStatus, StepStatus, Warning};

/// Puts every screenshot of the run in its directory (the runner may have written them
/// elsewhere); step index → file name, relative to the run's page.
pub(super) fn gather_screenshots(
    run_dir: &Path,
    result: &RunResult,
) -> std::io::Result<HashMap<usize, String>> {
    let mut shots = HashMap::new();
    for step in &result.steps {
        let detail = as_json(&step.detail);
        let Some(path) = detail["screenshot"].as_str().map(Path::new) else {
            continue;
        };
        let Some(name) = path.file_name() else {
            continue;
        };
        let target = run_dir.join(name);
        let same = path.canonicalize().ok() == target.canonicalize().ok() && target.exists();
        if !same {
            if !path.exists() {
                continue;
            }
            std::fs::copy(path, &target)?;
        }
        shots.insert(step.index, name.to_string_lossy().into_owned());
    }
    Ok(shots)
}

/// The run's page.
pub(super) fn page(r: &PlanReport, result: &RunResult, shots: &HashMap<usize, String>) -> String {
    let status = status_name(result.status);
    let mut b = String::new();
    let _ = write!(
        b,
        "<h1>{} {}</h1><p class=\"summary\">{}</p>",
        esc(&r.plan),
        badge(&status),
        esc(&result.summary)
    );
    b.push_str("<dl class=\"facts\">");
    let passed = result
        .steps
        .iter()
        .filter(|s| s.status == StepStatus::Succeeded)
        .count();
    let mut fact = |name: &str, value: String| {
        let _ = write!(b, "<dt>{}</dt><dd>{}</dd>", esc(name), value);
    };
    fact("run", esc(&result.run_id));
    if let Some(started) = r.started() {
        fact("started", esc(started));
    }
    fact("took", esc(&took(result.duration_ms)));
    fact(
        "steps",
        esc(&format!("{passed} of {} succeeded", result.steps.len())),
    );
    fact(
        "may visit",
        esc(&if result.allowed_hosts.is_empty() {
            "nothing".to_string()
        } else {
            result.allowed_hosts.join(", ")
        }),
    );
    if let Some(address) = &result.inbox_address {
        fact("inbox", esc(address));
    }
    fact(
        "files",
        "<a href=\"result.json\">result.json</a> · <a href=\"events.jsonl\">events.jsonl</a> · \
         <a href=\"../index.html\">all runs</a>"
            .to_string(),
    );
    b.push_str("</dl>");
    if let Some(err) = &result.error {
        let class = if result.status == RunStatus::Cancelled {
            "error cancelled"
        } else {
            "error"
        };
        let _ = write!(
            b,
            "<div class=\"{class}\" id=\"failure\"><strong>{}</strong>: {}</div>",
            esc(&kind_name(err.kind)),
            esc(&err.message)
        );
    }
    if !result.warnings.is_empty() {
        b.push_str(&warnings(&result.warnings));
    }
    b.push_str("<h2>Timeline</h2>");
    b.push_str(&timeline::svg(r, result));
    let _ = write!(b, "<h2>Steps</h2><div id=\"steps\">");
    for step in &result.steps {
        let status = step_status_name(step.status);
        let _ = write!(
            b,
            "<section class=\"step {status}\" id=\"step-{n}\"><h3><span class=\"index\">{n}</span>\
             <span class=\"type\">{}</span><span class=\"describe\">{}</span>{}\
             <span class=\"took\">{}</span></h3>",
            esc(step.step_type.as_str()),
            esc(&step.describe),
            badge(status),
            if step.status == StepStatus::Skipped {
                String::new()
            } else {
                esc(&took(step.duration_ms))
            },
            n = step.index + 1,
        );
        if let Some(err) = &step.error {
            let _ = write!(
                b,
                "<div class=\"error\">{}: {}</div>",
                esc(&kind_name(err.kind)),
                esc(&err.message)
            );
        }
        let detail = as_json(&step.detail);
        let has_detail = detail
            .as_object()
            .is_some_and(|o| o.keys().any(|k| k != "screenshot"));
        let shot = shots.get(&step.index);
        if has_detail || shot.is_some() {
            b.push_str("<div class=\"step-body\"><div>");
            if has_detail {
                b.push_str(&detail_list(&detail));
            }
            b.push_str("</div>");
            if let Some(file) = shot {
                let _ = write!(
                    b,
                    "<figure class=\"shot\"><a href=\"{f}\"><img src=\"{f}\" alt=\"the page after step {n}\" \
                     width=\"320\" height=\"225\"></a><figcaption>after step {n}</figcaption></figure>",
                    f = esc(file),
                    n = step.index + 1
                );
            }
            b.push_str("</div>");
        }
        b.push_str("</section>");
    }
    b.push_str("</div>");
    if !result.extracted.is_empty() {
        b.push_str("<h2>Extracted</h2><ul class=\"extracted\">");
        for text in &result.extracted {
            let _ = write!(b, "<li><pre>{}</pre></li>", esc(text));
        }
        b.push_str("</ul>");
    }
    shell(
        &format!("{} · {} · planlock", r.plan, status),
        "../index.html",
        &b,
    )
}

/// The steps that failed without ending the run: what each said, where the page was and
/// what it showed, each linked to its step.
fn warnings(warnings: &[Warning]) -> String {
    let mut b = format!(
        "<h2>Warnings</h2><p class=\"muted\">{} the plan let the run go on past</p>\
         <ul class=\"warnings\" id=\"warnings\">",
        match warnings.len() {
            1 => "1 step failed that".to_string(),
            n => format!("{n} steps failed that"),
        }
    );
    for w in warnings {
        let _ = write!(
            b,
            "<li class=\"warning\"><a href=\"#step-{n}\">step {n}</a> <span class=\"type\">{}</span> \
             <span class=\"describe\">{}</span> ({}): <strong>{}</strong>: {}",
            esc(w.step_type.as_str()),
            esc(&w.describe),
            esc(w.criticality.as_str()),
            esc(&kind_name(w.error.kind)),
            esc(&w.error.message),
            n = w.step + 1,
        );
        if let Some(url) = &w.url {
            let _ = write!(b, "<div class=\"at\">at {}</div>", esc(url));
        }
        if let Some(text) = w.text.as_deref().filter(|t| !t.trim().is_empty()) {
            let _ = write!(
                b,
                "<details><summary>what the page showed</summary><pre>{}</pre></details>",
                esc(text)
            );
        }
        b.push_str("</li>");
    }
    b.push_str("</ul>");
    b
}

/// A step's detail as a definition list; lists of records (candidates) as tables.
fn detail_list(detail: &Value) -> String {
    let mut out = String::from("<dl class=\"detail\">");
    if let Some(o) = detail.as_object() {
        for (k, v) in o {
            if k == "screenshot" || v.is_null() {
                continue;
            }
            let _ = write!(out, "<dt>{}</dt><dd>{}</dd>", esc(k), value_html(v));
        }
    }
    out.push_str("</dl>");
    out
}

fn value_html(v: &Value) -> String {
    match v {
        Value::String(s) => esc(s),
        Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_object) => {
            let mut keys: Vec<&String> = Vec::new();
            for item in items {
                for k in item.as_object().into_iter().flat_map(|o| o.keys()) {
                    if !keys.contains(&k) {
                        keys.push(k);
                    }
                }
            }
            let mut t = String::from("<table><tr>");
            for k in &keys {
                let _ = write!(t, "<th>{}</th>", esc(k));
            }
            t.push_str("</tr>");
            for item in items {
                t.push_str("<tr>");
                for k in &keys {
                    let cell = item.get(k.as_str()).map(value_html).unwrap_or_default();
                    let _ = write!(t, "<td>{cell}</td>");
                }
                t.push_str("</tr>");
            }
            t.push_str("</table>");
            t
        }
        Value::Array(items) => items.iter().map(value_html).collect::<Vec<_>>().join(", "),
        Value::Object(_) => detail_list(v),
        other => esc(&other.to_string()),
    }
}

pub(super) fn status_name(status: RunStatus) -> String {
    as_json(&status).as_str().unwrap_or_default().to_string()
}

fn step_status_name(status: StepStatus) -> &'static str {
    match status {
        StepStatus::Succeeded => "succeeded",
        StepStatus::Failed => "failed",
        StepStatus::Cancelled => "cancelled",
        StepStatus::Skipped => "skipped",
        StepStatus::Warned => "warned",
    }
}
