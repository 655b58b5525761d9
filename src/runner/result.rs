//! The complete outcome of a run: always whole, even when a step failed.

use super::StepDetail;
use crate::error::StepError;
use serde::{Deserialize, Serialize};

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Succeeded,
    Failed,
    Cancelled,
}

/// How one step ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    Succeeded,
    Failed,
    Cancelled,
    /// Not reached because an earlier step failed.
    Skipped,
}

/// One step's outcome.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StepOutcome {
    pub index: usize,
    #[serde(rename = "type")]
    pub step_type: String,
    pub describe: String,
    pub status: StepStatus,
    pub duration_ms: u64,
    pub detail: StepDetail,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<StepError>,
}

/// The result JSON (docs/steps.md).
#[derive(Debug, Clone, Serialize, Deserialize)]
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
}

impl RunResult {
    pub fn succeeded(&self) -> bool {
        self.status == RunStatus::Succeeded
    }
}
