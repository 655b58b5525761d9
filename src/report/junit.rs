//! JUnit XML, as GitLab, Jenkins and GitHub test reporters read it: a `<testsuite>` per plan
//! (named by its path), a `<testcase>` per step (`N type: describe`). The failing step has a
//! `<failure>` with its sentence and page URL; steps after it are `<skipped>`; a cancelled
//! step, a lock refusal, a run that could not start and an invalid plan are `<error>`s. Each
//! step's events are in its `<system-out>`, with its screenshot as `[[ATTACHMENT|path]]`.

use std::path::Path;
use std::time::Duration;

use chrono::{DateTime, FixedOffset};
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::{PlanOutcome, PlanReport, as_json, event_line, kind_name};
use crate::error::ErrorKind;
use crate::runner::{EventKind, RunResult, StepOutcome, StepStatus};

/// The JUnit model of these plans.
pub fn junit(reports: &[PlanReport]) -> Report {
    let mut report = Report::new("planlock");
    let mut total = Duration::ZERO;
    for r in reports {
        let suite = match &r.outcome {
            PlanOutcome::Ran { result, .. } => {
                total += Duration::from_millis(result.duration_ms);
                ran_suite(r, result)
            }
            PlanOutcome::Invalid { problems } => invalid_suite(&r.plan, problems),
        };
        report.add_test_suite(suite);
    }
    if let Some(first) = reports.iter().filter_map(|r| timestamp(r.started())).min() {
        report.set_timestamp(first);
    }
    report.set_time(total);
    report
}

/// Writes the JUnit XML of these plans to `path`.
pub fn write_junit(path: &Path, reports: &[PlanReport]) -> std::io::Result<()> {
    let xml = junit(reports)
        .to_string()
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    std::fs::write(path, xml)
}

fn timestamp(ts: Option<&str>) -> Option<DateTime<FixedOffset>> {
    DateTime::parse_from_rfc3339(ts?).ok()
}

fn ran_suite(r: &PlanReport, result: &RunResult) -> TestSuite {
    let mut suite = TestSuite::new(r.plan.as_str());
    if let Some(ts) = timestamp(r.started()) {
        suite.set_timestamp(ts);
    }
    suite.set_time(Duration::from_millis(result.duration_ms));
    suite.add_property(("run_id", result.run_id.as_str()));
    suite.add_property(("status", status_name(result).as_str()));
    if let Some(address) = &result.inbox_address {
        suite.add_property(("inbox_address", address.as_str()));
    }
    let failed_at = result.failed_step;
    for step in &result.steps {
        suite.add_test_case(step_case(r, result, step, failed_at));
    }
    // A run that ended before its first step (an inbox that would not open, a browser that
    // went away) has no step to carry the error.
    if let (Some(err), None) = (&result.error, failed_at) {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
        status
            .set_type(kind_name(err.kind))
            .set_message(err.message.as_str());
        let mut case = TestCase::new("run: start", status);
        case.set_classname(r.plan.as_str());
        suite.add_test_case(case);
    }
    let run_events: Vec<String> = r
        .events()
        .iter()
        .filter(|e| e.index().is_none())
        .map(event_line)
        .collect();
    suite.set_system_out(run_events.join("\n"));
    suite
}

fn status_name(result: &RunResult) -> String {
    as_json(&result.status)
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn step_case(
    r: &PlanReport,
    result: &RunResult,
    step: &StepOutcome,
    failed_at: Option<usize>,
) -> TestCase {
    let detail = as_json(&step.detail);
    let status = match step.status {
        // The plan let the run go on: not the app failing its test; the warning is in the
        // case's stderr.
        StepStatus::Succeeded | StepStatus::Warned => TestCaseStatus::success(),
        StepStatus::Skipped => {
            let mut s = TestCaseStatus::skipped();
            let why = match (failed_at, result.status) {
                (Some(i), crate::runner::RunStatus::Cancelled) => {
                    format!("not run: the run was cancelled during step {}", i + 1)
                }
                (Some(i), _) => format!("not run: step {} failed", i + 1),
                (None, _) => "not run".to_string(),
            };
            s.set_message(why);
            s
        }
        StepStatus::Failed | StepStatus::Cancelled => {
            let err = step.error.as_ref();
            let kind = err.map(|e| e.kind);
            // A refusal by the lock or a cancellation is not the app failing its test.
            let non_success = match kind {
                Some(ErrorKind::LockRefused | ErrorKind::Cancelled) => NonSuccessKind::Error,
                _ if step.status == StepStatus::Cancelled => NonSuccessKind::Error,
                _ => NonSuccessKind::Failure,
            };
            let mut s = TestCaseStatus::non_success(non_success);
            let message = err.map(|e| e.message.clone()).unwrap_or_default();
            let mut description = message.clone();
            if let Some(url) = detail["url"].as_str().filter(|u| !u.is_empty()) {
                description.push_str(&format!("\npage: {url}"));
            }
            if let Some(shot) = detail["screenshot"].as_str() {
                description.push_str(&format!("\nscreenshot: {shot}"));
            }
            s.set_message(message)
                .set_type(kind.map(kind_name).unwrap_or_default())
                .set_description(description);
            s
        }
    };
    let mut case = TestCase::new(
        format!("{} {}: {}", step.index + 1, step.step_type, step.describe),
        status,
    );
    case.set_classname(r.plan.as_str());
    case.set_time(Duration::from_millis(step.duration_ms));
    if step.status == StepStatus::Warned
        && let Some(err) = &step.error
    {
        case.set_system_err(format!(
            "warning ({}): {}",
            kind_name(err.kind),
            err.message
        ));
    }
    let events: Vec<_> = r
        .events()
        .iter()
        .filter(|e| e.index() == Some(step.index))
        .collect();
    if let Some(ts) = events
        .iter()
        .find(|e| e.kind() == EventKind::StepStarted)
        .and_then(|e| timestamp(Some(e.ts())))
    {
        case.set_timestamp(ts);
    }
    let mut out: Vec<String> = events.iter().map(|e| event_line(e)).collect();
    if let Some(shot) = detail["screenshot"].as_str() {
        // GitLab and Jenkins (JUnit Attachments) link a test case to this file. GitLab looks
        // it up among the job's artifacts from the project directory, so a relative
        // `--report` directory gives a path that works there as written.
        out.push(format!("[[ATTACHMENT|{shot}]]"));
    }
    if !out.is_empty() {
        case.set_system_out(out.join("\n"));
    }
    case
}

fn invalid_suite(plan: &str, problems: &[String]) -> TestSuite {
    let mut suite = TestSuite::new(plan);
    let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
    status
        .set_type("invalid_plan")
        .set_message(problems.first().cloned().unwrap_or_default())
        .set_description(problems.join("\n"));
    let mut case = TestCase::new("the plan is valid", status);
    case.set_classname(plan);
    suite.add_test_case(case);
    suite
}
