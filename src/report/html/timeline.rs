//! The run's timeline as SVG drawn here, not in the browser: one row per step, a bar from
//! when the step started to when it ended, on one time axis.

use std::fmt::Write as _;

use chrono::DateTime;

use super::esc;
use crate::report::PlanReport;
use crate::runner::{EventKind, RunResult, StepStatus};

const WIDTH: f64 = 1000.0;
const LABEL: f64 = 260.0;
const ROW: f64 = 24.0;
const TOP: f64 = 26.0;

/// `<svg class="timeline">` for the run.
pub(super) fn svg(r: &PlanReport, result: &RunResult) -> String {
    let starts = step_starts(r, result);
    let span = result
        .steps
        .iter()
        .zip(&starts)
        .map(|(s, start)| start + s.duration_ms)
        .max()
        .unwrap_or(0)
        .max(result.duration_ms)
        .max(1);
    let height = TOP + ROW * result.steps.len() as f64 + 8.0;
    let scale = (WIDTH - LABEL - 10.0) / span as f64;
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg class=\"timeline\" role=\"img\" aria-label=\"step timeline\" viewBox=\"0 0 {WIDTH} {height}\" \
         width=\"{WIDTH}\" height=\"{height}\" xmlns=\"http://www.w3.org/2000/svg\">"
    );
    for i in 0..=4 {
        let at = span as f64 * i as f64 / 4.0;
        let x = LABEL + at * scale;
        let _ = write!(
            s,
            "<line class=\"axis\" x1=\"{x:.1}\" y1=\"{}\" x2=\"{x:.1}\" y2=\"{height:.1}\"/>\
             <text class=\"tick\" x=\"{x:.1}\" y=\"14\" text-anchor=\"{}\">{}</text>",
            TOP - 6.0,
            match i {
                0 => "start",
                4 => "end",
                _ => "middle",
            },
            esc(&seconds(at))
        );
    }
    for (i, (step, start)) in result.steps.iter().zip(&starts).enumerate() {
        let y = TOP + ROW * i as f64;
        let status = match step.status {
            StepStatus::Succeeded => "succeeded",
            StepStatus::Failed => "failed",
            StepStatus::Cancelled => "cancelled",
            StepStatus::Skipped => "skipped",
            StepStatus::Warned => "warned",
        };
        let label = format!("{} {}", step.index + 1, step.step_type);
        if step.status == StepStatus::Skipped {
            let _ = write!(
                s,
                "<text x=\"4\" y=\"{:.1}\" class=\"tick\">{} (not run)</text>",
                y + ROW * 0.68,
                esc(&label)
            );
            continue;
        }
        let x = LABEL + *start as f64 * scale;
        // A step of a few milliseconds still shows as a sliver.
        let w = (step.duration_ms as f64 * scale).max(2.0);
        let _ = write!(
            s,
            "<text x=\"4\" y=\"{:.1}\">{}</text><rect class=\"bar {status}\" x=\"{x:.1}\" y=\"{:.1}\" \
             width=\"{w:.1}\" height=\"{:.1}\" rx=\"2\"><title>{}</title></rect>",
            y + ROW * 0.68,
            esc(&label),
            y + 4.0,
            ROW - 8.0,
            esc(&format!(
                "{label}: {} ({status}, {} ms)",
                step.describe, step.duration_ms
            ))
        );
    }
    s.push_str("</svg>");
    s
}

/// Each step's start in ms after the run started: from the events when there are any, else
/// one after the other.
fn step_starts(r: &PlanReport, result: &RunResult) -> Vec<u64> {
    let ms = |ts: &str| {
        DateTime::parse_from_rfc3339(ts)
            .ok()
            .map(|t| t.timestamp_millis())
    };
    let run_start = r.started().and_then(ms);
    let mut cursor = 0;
    result
        .steps
        .iter()
        .map(|step| {
            let from_events = r
                .events()
                .iter()
                .find(|e| e.kind() == EventKind::StepStarted && e.index() == Some(step.index))
                .and_then(|e| Some((ms(e.ts())? - run_start?).max(0) as u64));
            let start = from_events.unwrap_or(cursor);
            cursor = start + step.duration_ms;
            start
        })
        .collect()
}

fn seconds(ms: f64) -> String {
    if ms >= 10_000.0 {
        format!("{:.0} s", ms / 1000.0)
    } else {
        format!("{:.1} s", ms / 1000.0)
    }
}
