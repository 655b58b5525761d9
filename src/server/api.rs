//! What the service answers beyond the library's own types: a run's view while it goes on,
//! the webhook's state, the list of runs. Handlers build these; the OpenAPI document
//! describes them.

use serde::{Deserialize, Serialize};

use super::store::{StoredRun, timestamp};
use crate::runner::{Progress, RunResult, StepProgress};

/// Where a run's webhook delivery stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallbackState {
    pub url: String,
    /// `pending`, `delivered` or `failed` (every attempt used, or the address refused).
    pub status: Option<String>,
    pub attempts: i64,
    pub last_error: Option<String>,
}

/// A run that has ended: its result, with its webhook's state.
#[derive(Debug, Clone, Serialize)]
pub struct EndedRun {
    #[serde(flatten)]
    pub result: RunResult,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub callback: Option<CallbackState>,
}

/// A run that is queued or running: the steps started so far.
#[derive(Debug, Clone, Serialize)]
pub struct RunProgress {
    pub run_id: String,
    /// `queued` (waiting for a slot) or `running`.
    pub status: String,
    pub created_at: String,
    pub started_at: Option<String>,
    pub steps_total: i64,
    pub steps: Vec<StepProgress>,
    pub extracted: Vec<String>,
    pub inbox_address: Option<String>,
    pub allowed_hosts: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub callback: Option<CallbackState>,
}

impl RunProgress {
    pub fn of(run: &StoredRun, progress: Progress) -> RunProgress {
        RunProgress {
            run_id: run.id.clone(),
            status: run.status.clone(),
            created_at: timestamp(run.created_ms),
            started_at: run.started_ms.map(timestamp),
            steps_total: run.steps_total,
            steps: progress.steps,
            extracted: progress.extracted,
            inbox_address: progress.inbox_address,
            allowed_hosts: run.allowed_hosts.clone(),
            plan: run.plan_name.clone(),
            callback: run.callback.clone(),
        }
    }
}

/// `GET /v1/runs/{id}`: the result once the run has ended, its progress before.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum RunView {
    Ended(Box<EndedRun>),
    InFlight(Box<RunProgress>),
}

/// One run in a list.
#[derive(Debug, Clone, Serialize)]
pub struct RunSummary {
    pub run_id: String,
    /// `queued`, `running`, `succeeded`, `failed` or `cancelled`.
    pub status: String,
    pub created_at: String,
    pub started_at: Option<String>,
    pub finished_at: Option<String>,
    pub summary: Option<String>,
    pub plan: Option<String>,
    pub steps_total: i64,
    pub allowed_hosts: Vec<String>,
    pub href: String,
}

impl RunSummary {
    pub fn of(run: &StoredRun) -> RunSummary {
        RunSummary {
            run_id: run.id.clone(),
            status: run.status.clone(),
            created_at: timestamp(run.created_ms),
            started_at: run.started_ms.map(timestamp),
            finished_at: run.finished_ms.map(timestamp),
            summary: run.summary.clone(),
            plan: run.plan_name.clone(),
            steps_total: run.steps_total,
            allowed_hosts: run.allowed_hosts.clone(),
            href: format!("/v1/runs/{}", run.id),
        }
    }
}

/// A page of runs, newest first.
#[derive(Debug, Clone, Serialize)]
pub struct RunList {
    pub runs: Vec<RunSummary>,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
}
