//! What the service answers beyond the library's own types ([`RunResult`], [`Event`]): a
//! run's view while it goes on, a run accepted, a plan made, the list of runs, the lines of a
//! stream, the replica's health. Handlers build these; the OpenAPI document is derived from
//! them.

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;
use utoipa::openapi::{RefOr, Schema};

use super::store::{CallbackState, RunState, StoredRun, timestamp};
use crate::pipeline::{Answer, LockedRequest};
use crate::plan::Plan;
use crate::planner::{GeneratedPlan, Looked, Review, Usage};
use crate::runner::{Event, Progress, RunResult, StepProgress};

/// A run that has ended: its result, with its webhook's state.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct EndedRun {
    #[serde(flatten)]
    pub result: RunResult,
    /// The webhook delivery, when the run has a `callback_url`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub callback: Option<CallbackState>,
}

/// A run that is queued or running: the steps started so far.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({"run_id": "qsbqxhbb", "status": "running", "created_at": "2026-12-01T07:17:25.170Z", "started_at": "2026-12-01T07:17:25.175Z", "steps_total": 3, "steps": [{"index": 0, "type": "navigate", "describe": "go to https://shop.example/", "status": "succeeded", "duration_ms": 249, "detail": {"url": "https://shop.example/", "status": 200}}, {"index": 1, "type": "wait_seconds", "describe": "wait 2 s", "status": "running"}], "extracted": [], "inbox_address": null, "allowed_hosts": ["shop.example"]}))]
pub struct RunProgress {
    pub run_id: String,
    /// `queued` (waiting for a slot) or `running`.
    #[schema(value_type = String)]
    pub status: RunState,
    pub created_at: String,
    pub started_at: Option<String>,
    pub steps_total: i64,
    /// The steps started so far.
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
            status: run.status,
            created_at: timestamp(run.times.created_ms),
            started_at: run.times.started_ms.map(timestamp),
            steps_total: run.plan.steps_total,
            steps: progress.steps,
            extracted: progress.extracted,
            inbox_address: progress.inbox_address,
            allowed_hosts: run.plan.allowed_hosts.clone(),
            plan: run.plan.name.clone(),
            callback: run.callback(),
        }
    }
}

/// A run: its result once it has ended, its progress before.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(untagged)]
pub enum RunView {
    Ended(Box<EndedRun>),
    InFlight(Box<RunProgress>),
}

/// One run in a list.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RunSummary {
    pub run_id: String,
    /// `queued`, `running`, `succeeded`, `failed` or `cancelled`.
    #[schema(value_type = String)]
    pub status: RunState,
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
            status: run.status,
            created_at: timestamp(run.times.created_ms),
            started_at: run.times.started_ms.map(timestamp),
            finished_at: run.times.finished_ms.map(timestamp),
            summary: run.summary.clone(),
            plan: run.plan.name.clone(),
            steps_total: run.plan.steps_total,
            allowed_hosts: run.plan.allowed_hosts.clone(),
            href: format!("/v1/runs/{}", run.id),
        }
    }
}

/// A page of runs, newest first.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({"runs": [{"run_id": "qsbqxhbb", "status": "succeeded", "created_at": "2026-12-01T07:17:25.170Z", "started_at": "2026-12-01T07:17:25.175Z", "finished_at": "2026-12-01T07:17:27.301Z", "summary": "signed up", "plan": null, "steps_total": 7, "allowed_hosts": ["shop.example"], "href": "/v1/runs/qsbqxhbb"}], "next_cursor": "MTc2NDU3MzQ0NTE3MDpxc2JxeGhiYg"}))]
pub struct RunList {
    pub runs: Vec<RunSummary>,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
}

/// A plan made from a goal, as callers see it (no server paths).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Planned {
    #[schema(schema_with = plan_ref)]
    pub plan: Plan,
    /// The plan came from the cache (no model call; usage all zeros).
    pub cached: bool,
    pub usage: Usage,
    #[schema(example = "anthropic:claude-sonnet-4-5")]
    pub model: String,
    pub prompt_version: String,
    /// The goal as planned (runs of whitespace collapsed).
    pub goal: String,
    /// The registrable domain of the first site the goal names.
    pub site: String,
    /// Transport retries of the one request.
    pub retries: u32,
    pub warnings: Vec<String>,
    /// What the planner was shown of the start page, when it looked.
    pub looked: Option<Looked>,
    /// The plan's questions and the values the run gives them (the request's `vars`, else
    /// the suggestions).
    pub answers: Vec<Answer>,
    /// The plan reviewed inside the run's lock: what each step does and where, the steps
    /// that look destructive or costly, the steps outside the lock.
    pub review: Review,
}

impl Planned {
    /// The plan of `request` as callers see it, reviewed inside its lock.
    pub fn of(request: &LockedRequest, outcome: GeneratedPlan, answers: Vec<Answer>) -> Planned {
        Planned {
            review: request.review(&outcome.plan, &answers),
            answers,
            plan: outcome.plan,
            cached: outcome.cached,
            usage: outcome.usage,
            model: outcome.model,
            prompt_version: outcome.prompt_version,
            goal: outcome.goal,
            site: outcome.site,
            retries: outcome.retries,
            warnings: outcome.warnings,
            looked: outcome.looked,
        }
    }
}

/// `dry_run`: the exact request the model would get.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PlanPreview {
    /// The system prompt, the user message and the tool schema, as the provider takes them.
    #[schema(value_type = Object)]
    pub request: Value,
}

/// `POST /v1/plans`: the plan, or with `dry_run` the model's request.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(untagged)]
pub enum PlansAnswer {
    Planned(Box<Planned>),
    Preview(PlanPreview),
}

/// The result of `POST /v1/act`: a run result with the planning.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ActResult {
    #[serde(flatten)]
    pub result: RunResult,
    pub planning: Planned,
}

/// `202 Accepted` for `Prefer: respond-async`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({"run_id": "qsbqxhbb", "status": "queued", "href": "/v1/runs/qsbqxhbb"}))]
pub struct Accepted {
    pub run_id: String,
    /// `queued` or `running`.
    pub status: String,
    /// Where to poll.
    pub href: String,
    /// `POST /v1/act` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub planning: Option<Planned>,
}

/// `planned`: the first line `POST /v1/act` streams.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PlannedTag {
    Planned,
}

/// `result`: the last line of a stream.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ResultTag {
    Result,
}

/// The plan `POST /v1/act` made, streamed before the run's events.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PlannedLine {
    pub event: PlannedTag,
    #[serde(flatten)]
    pub planned: Planned,
}

/// The run's result, the last line streamed.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ResultLine {
    pub event: ResultTag,
    #[serde(flatten)]
    pub result: RunResult,
}

/// One NDJSON line of a streamed run: `planned` (act, first), each event, then `result`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(untagged)]
#[schema(example = json!({"event": "step_succeeded", "run_id": "rczdrdic", "ts": "2026-12-01T07:17:23.098Z", "index": 0, "type": "navigate", "describe": "go to https://shop.example/", "duration_ms": 265, "detail": {"url": "https://shop.example/", "status": 200}}))]
pub enum StreamLine {
    Planned(Box<PlannedLine>),
    Event(Box<Event>),
    Result(Box<ResultLine>),
}

/// `GET /healthz`
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({"status": "ok", "version": "0.1.0", "replica": "web-1:8080", "browser": "ok", "runs_in_flight": 1, "max_runs": 4, "queue_depth": 0, "queue_limit": 32}))]
pub struct Health {
    /// `ok`, or `shutting_down`.
    pub status: &'static str,
    pub version: &'static str,
    /// This replica's name in the run store.
    pub replica: String,
    /// `ok`, or why the browser is not usable.
    pub browser: String,
    pub runs_in_flight: usize,
    pub max_runs: usize,
    /// Runs waiting for a slot.
    pub queue_depth: usize,
    pub queue_limit: usize,
}

/// The plan (the plan schema's `Plan`, which the document includes).
fn plan_ref() -> impl Into<RefOr<Schema>> {
    utoipa::openapi::Ref::from_schema_name("Plan")
}
