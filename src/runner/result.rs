//! The complete outcome of a run, always whole, even when a step failed; and what a run's
//! events say of it while it goes on ([`Progress`]), from which a run whose server stopped is
//! given its result.

use std::time::Duration;

use super::event::{Event, StepRef};
use super::{Failure, LockedRun, StepDetail};
use crate::error::StepError;
use crate::plan::{Criticality, Step, StepType};
use serde::{Deserialize, Serialize};

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::IntoStaticStr)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum RunStatus {
    Succeeded,
    Failed,
    Cancelled,
}

impl RunStatus {
    /// The word results and the store use.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// How one step stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    Succeeded,
    Failed,
    Cancelled,
    /// Not reached because an earlier step failed.
    Skipped,
    /// Failed, and its criticality (`should`, `could`) let the run go on: see `warnings`.
    Warned,
}

/// Where a step of a run that goes on stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum StepState {
    /// Started, not ended.
    Running,
    Succeeded,
    Failed,
    Cancelled,
}

/// One step's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct StepOutcome {
    pub index: usize,
    #[serde(rename = "type")]
    pub step_type: StepType,
    pub describe: String,
    pub status: StepStatus,
    pub duration_ms: u64,
    pub detail: StepDetail,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<StepError>,
}

impl StepOutcome {
    /// A step the run did not reach (or, with `status`, one that ended before it began).
    pub fn unreached(index: usize, step: &StepRef, status: StepStatus) -> StepOutcome {
        StepOutcome {
            index,
            step_type: step.step_type,
            describe: step.describe.clone(),
            status,
            duration_ms: 0,
            detail: StepDetail::default(),
            error: None,
        }
    }
}

/// The result JSON (docs/steps.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct RunResult {
    pub run_id: String,
    pub status: RunStatus,
    pub summary: String,
    pub failed_step: Option<usize>,
    pub error: Option<StepError>,
    pub steps: Vec<StepOutcome>,
    pub extracted: Vec<String>,
    pub inbox_address: Option<String>,
    pub duration_ms: u64,
    /// The sites the plan lock allowed.
    pub allowed_hosts: Vec<String>,
    /// Requests the lock refused during the run (each one is blocked; the first one that
    /// happened during a step fails it).
    #[serde(default)]
    pub refused: usize,
    /// The plan's file or name, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<String>,
    /// Steps that failed without ending the run (`should` and `could` steps).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
}

/// A step that failed without ending the run: what it said, and what the page showed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct Warning {
    pub step: usize,
    #[serde(rename = "type")]
    pub step_type: StepType,
    pub describe: String,
    #[cfg_attr(feature = "server", schema(schema_with = criticality_ref))]
    pub criticality: Criticality,
    pub error: StepError,
    /// The page's URL then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The page's main visible text then (the first 1,000 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// The plan schema's own `Criticality`, which the service's OpenAPI document includes.
#[cfg(feature = "server")]
fn criticality_ref() -> utoipa::openapi::Ref {
    utoipa::openapi::Ref::from_schema_name("Criticality")
}

impl RunResult {
    pub fn succeeded(&self) -> bool {
        self.status == RunStatus::Succeeded
    }

    /// A run that ended with `error` and nothing else known: no steps, nothing extracted,
    /// refused or warned of. The constructors below start from it.
    fn ended(run_id: &str, status: RunStatus, summary: String, error: StepError) -> RunResult {
        RunResult {
            run_id: run_id.to_string(),
            status,
            summary,
            failed_step: None,
            error: Some(error),
            steps: Vec::new(),
            extracted: Vec::new(),
            inbox_address: None,
            duration_ms: 0,
            allowed_hosts: Vec::new(),
            refused: 0,
            plan: None,
            warnings: Vec::new(),
        }
    }

    /// A run that ended before its first step (cancelled in a queue, no browser to be had):
    /// every step skipped.
    pub fn before_start(run: &LockedRun, failure: &Failure, took: Duration) -> RunResult {
        let cancelled = matches!(failure, Failure::Cancelled | Failure::CancelledWaiting);
        let (status, word) = if cancelled {
            (RunStatus::Cancelled, "cancelled")
        } else {
            (RunStatus::Failed, "failed")
        };
        let error = failure.to_step_error();
        let summary = format!("{word} before the first step: {}", error.message);
        RunResult {
            steps: step_refs(&run.plan().steps)
                .iter()
                .enumerate()
                .map(|(i, s)| StepOutcome::unreached(i, s, StepStatus::Skipped))
                .collect(),
            duration_ms: took.as_millis() as u64,
            allowed_hosts: run.lock().sites().collect(),
            plan: run.name().map(str::to_string),
            ..RunResult::ended(run.run_id(), status, summary, error)
        }
    }

    /// A run whose own task was lost (it panicked): failed, saying so, with nothing else
    /// known.
    pub fn lost(run_id: &str, failure: &Failure) -> RunResult {
        let error = failure.to_step_error();
        let summary = format!("failed: {}", error.message);
        RunResult::ended(run_id, RunStatus::Failed, summary, error)
    }

    /// A run that stopped at `failure` (its server went away) with what its events recorded:
    /// the step it was in fails, the steps after it are skipped.
    pub fn interrupted(run: &RunRecord<'_>, progress: &Progress, failure: &Failure) -> RunResult {
        let error = failure.to_step_error();
        let mut failed_step = None;
        let mut steps: Vec<StepOutcome> = progress
            .steps
            .iter()
            .map(|p| {
                let mut outcome = p.outcome();
                if p.status == StepState::Running {
                    failed_step = Some(p.index);
                    outcome.error = Some(error.clone());
                }
                outcome
            })
            .collect();
        let seen = steps.len();
        steps.extend(
            run.steps
                .iter()
                .enumerate()
                .skip(seen)
                .map(|(i, s)| StepOutcome::unreached(i, s, StepStatus::Skipped)),
        );
        let summary = match failed_step {
            Some(i) => format!("failed at step {}: {}", i + 1, error.message),
            None => format!("failed: {}", error.message),
        };
        RunResult {
            failed_step,
            steps,
            extracted: progress.extracted.clone(),
            inbox_address: progress.inbox_address.clone(),
            duration_ms: run.ran_for.as_millis() as u64,
            allowed_hosts: run.allowed_hosts.to_vec(),
            plan: run.plan.map(str::to_string),
            ..RunResult::ended(run.run_id, RunStatus::Failed, summary, error)
        }
    }
}

/// What a store knows of a run apart from its events.
#[derive(Debug, Clone, Copy)]
pub struct RunRecord<'a> {
    pub run_id: &'a str,
    /// The plan's steps (empty when the store did not keep them).
    pub steps: &'a [StepRef],
    pub allowed_hosts: &'a [String],
    pub plan: Option<&'a str>,
    /// How long it had run.
    pub ran_for: Duration,
}

/// The steps of a plan as events name them.
pub fn step_refs(steps: &[Step]) -> Vec<StepRef> {
    steps
        .iter()
        .enumerate()
        .map(|(index, s)| StepRef {
            index,
            step_type: s.kind(),
            describe: s.describe(),
        })
        .collect()
}

/// One step as a run's events tell it so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct StepProgress {
    pub index: usize,
    #[serde(rename = "type")]
    pub step_type: StepType,
    pub describe: String,
    pub status: StepState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<StepDetail>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<StepError>,
}

impl StepProgress {
    /// As a result lists it; a step still running counts as failed there.
    fn outcome(&self) -> StepOutcome {
        StepOutcome {
            index: self.index,
            step_type: self.step_type,
            describe: self.describe.clone(),
            status: match self.status {
                StepState::Succeeded => StepStatus::Succeeded,
                StepState::Cancelled => StepStatus::Cancelled,
                StepState::Running | StepState::Failed => StepStatus::Failed,
            },
            duration_ms: self.duration_ms.unwrap_or(0),
            detail: self.detail.clone().unwrap_or_default(),
            error: self.error.clone(),
        }
    }
}

/// What a run's events say so far: each step started, with its status (`running` for the
/// current one), the text extracted, and the run's address.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Progress {
    pub steps: Vec<StepProgress>,
    pub extracted: Vec<String>,
    pub inbox_address: Option<String>,
}

impl Progress {
    /// Folds a run's events, in order, into its progress.
    pub fn of<'e>(events: impl IntoIterator<Item = &'e Event>) -> Progress {
        let mut progress = Progress::default();
        for event in events {
            progress.add(event);
        }
        progress
    }

    /// Takes one more event into account.
    pub fn add(&mut self, event: &Event) {
        match event {
            Event::RunStarted { detail, .. } => self.inbox_address = detail.inbox_address.clone(),
            Event::StepStarted { step, .. } => self.steps.push(StepProgress {
                index: step.index,
                step_type: step.step_type,
                describe: step.describe.clone(),
                status: StepState::Running,
                duration_ms: None,
                detail: None,
                error: None,
            }),
            Event::StepSucceeded {
                step,
                duration_ms,
                detail,
                ..
            } => {
                if step.step_type.returns_text() {
                    self.extracted.push(detail.text.clone().unwrap_or_default());
                }
                self.ended(step, StepState::Succeeded, *duration_ms, detail, None);
            }
            Event::StepFailed {
                step,
                duration_ms,
                detail,
                error,
                ..
            } => {
                let status = if error.kind == crate::error::ErrorKind::Cancelled {
                    StepState::Cancelled
                } else {
                    StepState::Failed
                };
                self.ended(step, status, *duration_ms, detail, Some(error.clone()));
            }
            Event::RunFinished { .. } => {}
        }
    }

    fn ended(
        &mut self,
        step: &StepRef,
        status: StepState,
        duration_ms: u64,
        detail: &StepDetail,
        error: Option<StepError>,
    ) {
        let ended = StepProgress {
            index: step.index,
            step_type: step.step_type,
            describe: step.describe.clone(),
            status,
            duration_ms: Some(duration_ms),
            detail: Some(detail.clone()),
            error,
        };
        match self.steps.last_mut() {
            Some(last) if last.index == step.index => *last = ended,
            _ => self.steps.push(ended),
        }
    }
}
