//! The report's front page: every run in the directory, newest first, and the plans of this
//! invocation that could not run.

use std::fmt::Write as _;
use std::path::Path;

use super::{badge, esc, run::status_name, shell, took};
use crate::report::{PlanOutcome, PlanReport};
use crate::runner::{RunResult, StepStatus};

/// A run found in the report directory.
pub(super) struct ListedRun {
    pub result: RunResult,
    /// RFC 3339, from its event log.
    pub started: String,
}

/// Every `DIR/RUN_ID/result.json`, newest first.
pub(super) fn runs_in(dir: &Path) -> Vec<ListedRun> {
    let mut runs = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return runs;
    };
    for entry in entries.flatten() {
        let run_dir = entry.path();
        let Ok(text) = std::fs::read_to_string(run_dir.join("result.json")) else {
            continue;
        };
        let Ok(result) = serde_json::from_str::<RunResult>(&text) else {
            continue;
        };
        let started = std::fs::read_to_string(run_dir.join("events.jsonl"))
            .ok()
            .and_then(|log| {
                let first = log.lines().next()?.to_string();
                let v: serde_json::Value = serde_json::from_str(&first).ok()?;
                v["ts"].as_str().map(str::to_string)
            })
            .unwrap_or_default();
        runs.push(ListedRun { result, started });
    }
    runs.sort_by(|a, b| {
        b.started
            .cmp(&a.started)
            .then_with(|| a.result.plan.cmp(&b.result.plan))
    });
    runs
}

pub(super) fn page(runs: &[ListedRun], reports: &[PlanReport]) -> String {
    let mut b = String::new();
    let passed = runs.iter().filter(|r| r.result.succeeded()).count();
    let _ = write!(
        b,
        "<h1>planlock runs</h1><p class=\"muted\">{} runs, {passed} succeeded</p>",
        runs.len()
    );
    let invalid: Vec<_> = reports
        .iter()
        .filter_map(|r| match &r.outcome {
            PlanOutcome::Invalid { problems } => Some((&r.plan, problems)),
            PlanOutcome::Ran { .. } => None,
        })
        .collect();
    if !invalid.is_empty() {
        b.push_str("<h2>Plans that could not run</h2><table id=\"invalid\"><tr><th>plan</th><th>status</th><th>why</th></tr>");
        for (plan, problems) in invalid {
            let _ = write!(
                b,
                "<tr><td>{}</td><td>{}</td><td><pre>{}</pre></td></tr>",
                esc(plan),
                badge("invalid"),
                esc(&problems.join("\n"))
            );
        }
        b.push_str("</table>");
    }
    b.push_str(
        "<h2>Runs</h2><table id=\"runs\"><tr><th>plan</th><th>status</th><th>steps</th><th>took</th>\
         <th>started</th><th>summary</th></tr>",
    );
    for run in runs {
        let r = &run.result;
        let ok = r
            .steps
            .iter()
            .filter(|s| s.status == StepStatus::Succeeded)
            .count();
        let _ = write!(
            b,
            "<tr class=\"run\"><td><a href=\"{id}/index.html\">{}</a></td><td>{}</td>\
             <td class=\"num\">{ok}/{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td></tr>",
            esc(r.plan.as_deref().unwrap_or(&r.run_id)),
            badge(&status_name(r.status)) + &warned(r.warnings.len()),
            r.steps.len(),
            esc(&took(r.duration_ms)),
            esc(run.started.replace('T', " ").trim_end_matches('Z')),
            esc(&r.summary),
            id = esc(&r.run_id),
        );
    }
    b.push_str("</table>");
    shell("planlock runs", "index.html", &b)
}

/// ` ⚠ 2 warnings` beside a run's status, when steps failed that the plan let it go past.
fn warned(count: usize) -> String {
    match count {
        0 => String::new(),
        1 => " <span class=\"warned\">⚠ 1 warning</span>".to_string(),
        n => format!(" <span class=\"warned\">⚠ {n} warnings</span>"),
    }
}
