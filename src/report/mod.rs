//! Renderers that only read what runs produced: the JSON Lines event log and human progress
//! while runs go, then JUnit XML and a static HTML report once they have ended. One file (or
//! folder) per format.

mod events;
pub mod html;
pub mod junit;
mod printable;
mod progress;

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::runner::{Event, EventKind, RunResult, RunStatus};

pub use events::{EventLog, event_line};
pub use printable::{Printable, json_printable, printable, printable_lines};
pub use progress::{ProgressLog, WAIT_REPORT_EVERY, wait_line};

/// One plan file given to `run`, and what became of it: what every end-of-run report reads.
#[derive(Debug, Clone)]
pub struct PlanReport {
    /// The plan's path as given on the command line.
    pub plan: String,
    pub outcome: PlanOutcome,
}

/// What became of a plan.
#[derive(Debug, Clone)]
pub enum PlanOutcome {
    /// It ran (to its end, its first failure or cancellation) and wrote these events.
    Ran {
        result: Box<RunResult>,
        events: Vec<Event>,
    },
    /// It could not run: unreadable, not a plan, or refused before its lock was made.
    Invalid { problems: Vec<String> },
}

impl PlanReport {
    pub fn result(&self) -> Option<&RunResult> {
        match &self.outcome {
            PlanOutcome::Ran { result, .. } => Some(result),
            PlanOutcome::Invalid { .. } => None,
        }
    }

    /// The events of the run, empty for an invalid plan.
    pub fn events(&self) -> &[Event] {
        match &self.outcome {
            PlanOutcome::Ran { events, .. } => events,
            PlanOutcome::Invalid { .. } => &[],
        }
    }

    /// When the run started (its `run_started` event), RFC 3339.
    pub fn started(&self) -> Option<&str> {
        self.events()
            .iter()
            .find(|e| e.kind() == EventKind::RunStarted)
            .map(|e| e.ts())
    }
}

/// How many plans passed, failed, were invalid or cancelled: `2 passed, 1 failed, 1 invalid`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub passed: usize,
    pub failed: usize,
    pub invalid: usize,
    pub cancelled: usize,
}

impl Tally {
    pub fn of(reports: &[PlanReport]) -> Tally {
        let mut t = Tally::default();
        for r in reports {
            match r.result().map(|r| r.status) {
                Some(RunStatus::Succeeded) => t.passed += 1,
                Some(RunStatus::Failed) => t.failed += 1,
                Some(RunStatus::Cancelled) => t.cancelled += 1,
                None => t.invalid += 1,
            }
        }
        t
    }
}

impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} passed, {} failed", self.passed, self.failed)?;
        if self.invalid > 0 {
            write!(f, ", {} invalid", self.invalid)?;
        }
        if self.cancelled > 0 {
            write!(f, ", {} cancelled", self.cancelled)?;
        }
        Ok(())
    }
}

/// The snake_case name of an error kind, as results spell it (`not_found`).
pub fn kind_name(kind: crate::error::ErrorKind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// Any step detail as JSON, whatever type the runner keeps it in.
pub(crate) fn as_json<T: Serialize>(detail: &T) -> Value {
    serde_json::to_value(detail).unwrap_or(Value::Null)
}
