//! The handlers behind each endpoint: they read the request, ask the library (planner,
//! [`RunSpec`]), and answer in the API's shapes.

use axum::body::Body;
use axum::extract::Query;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde::Deserialize;
use strum::VariantNames;
use utoipa::IntoParams;

use super::api::{
    Accepted, ActResult, Health, PlanPreview, Planned, PlansAnswer, RunList, RunSummary, RunView,
    StreamLine,
};
use super::cancel;
use super::error::{ApiError, ApiErrorKind};
use super::extract::JsonBody;
use super::planning::{launch_planned, lock_and_look, plan_goal};
use super::queue;
use super::request::{ActBody, PlansBody, ReadBody, RunBody};
use super::runs::{self, Started};
use super::state::{AppState, Caller};
use super::store::{RunState, decode_cursor};
use crate::plan;
use crate::runner::RunResult;

pub(super) async fn not_found(method: Method, uri: Uri) -> ApiError {
    ApiError::new(
        ApiErrorKind::NotFound,
        format!(
            "there is no {method} {}: the endpoints are listed at /openapi.json",
            uri.path()
        ),
    )
}

pub(super) async fn method_not_allowed(method: Method, uri: Uri) -> ApiError {
    ApiError::new(
        ApiErrorKind::MethodNotAllowed,
        format!(
            "{} does not take {method}: the endpoints are listed at /openapi.json",
            uri.path()
        ),
    )
}

/// Liveness and load; open to load balancers (no token, any `Host`).
#[utoipa::path(get, path = "/healthz", tag = "service",
    responses((status = 200, description = "The replica's state.", body = Health)))]
pub(super) async fn healthz(State(state): State<AppState>) -> axum::Json<Health> {
    let browser = match state.browser_status().await {
        Ok(()) => "ok".to_string(),
        Err(e) => e,
    };
    let gauges = state.gauges().await;
    axum::Json(Health {
        status: if state.shutting_down() {
            "shutting_down"
        } else if state.draining_token().is_cancelled() {
            "draining"
        } else {
            "ok"
        },
        version: env!("CARGO_PKG_VERSION"),
        replica: state.replica().to_string(),
        browser,
        runs_in_flight: gauges.runs_in_flight,
        max_runs: gauges.max_runs,
        queue_depth: gauges.queue_depth,
        queue_limit: gauges.queue_limit,
    })
}

/// Counters and gauges of this replica, for Prometheus.
#[utoipa::path(get, path = "/metrics", tag = "service",
    responses((status = 200, description = "Counters and gauges of this replica, in the Prometheus text format.",
        content_type = "text/plain; version=0.0.4",
        body = String, example = "planlock_runs_total{status=\"succeeded\"} 12\nplanlock_queue_depth 0\n")))]
pub(super) async fn metrics(State(state): State<AppState>) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
        )],
        state.metrics().render(&state.gauges().await),
    )
        .into_response()
}

/// The plan's JSON Schema.
#[utoipa::path(get, path = "/v1/schema/plan", tag = "planning",
    responses((status = 200, description = "The JSON Schema of plans (draft 2020-12).",
        content_type = "application/schema+json", body = Object)))]
pub(super) async fn plan_schema() -> Response {
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/schema+json"),
        )],
        plan::json_schema_text(),
    )
        .into_response()
}

/// The headers that choose how a run is answered.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Header)]
#[allow(dead_code)]
struct RunHeaders {
    /// `application/x-ndjson`: stream each event as it happens, then the result.
    #[param(rename = "Accept")]
    accept: Option<String>,
    /// `respond-async`: answer 202 at once; poll the run.
    #[param(rename = "Prefer")]
    prefer: Option<String>,
}

/// How the caller wants a run answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reply {
    /// Wait for the run, answer its result.
    Wait,
    /// `Accept: application/x-ndjson`: each event as a line, then the result.
    Stream,
    /// `Prefer: respond-async`: 202 at once, with the run's id and where to poll.
    Async,
}

impl Reply {
    fn of(headers: &HeaderMap) -> Reply {
        let has = |name: header::HeaderName, needle: &str| {
            headers.get_all(name).iter().any(|v| {
                v.to_str()
                    .is_ok_and(|s| s.to_ascii_lowercase().contains(needle))
            })
        };
        if has(header::ACCEPT, "application/x-ndjson") {
            Reply::Stream
        } else if has(HeaderName::from_static("prefer"), "respond-async") {
            Reply::Async
        } else {
            Reply::Wait
        }
    }
}

/// Plans a goal with one model call (none when cached); nothing runs.
#[utoipa::path(post, path = "/v1/plans", tag = "planning", request_body = PlansBody,
    responses((status = 200, description = "The plan; with `dry_run`, the model's request instead.", body = PlansAnswer)))]
pub(super) async fn create_plan(
    State(state): State<AppState>,
    JsonBody(body): JsonBody<PlansBody>,
) -> Result<axum::Json<PlansAnswer>, ApiError> {
    let (goal, ask, dry_run) = body.read(&state)?;
    if dry_run {
        state.accepting()?;
        let config = state.planner()?;
        let _permit = state.planning_permit()?;
        let (request, _) = lock_and_look(&state, goal, &ask, false).await?;
        let request = request.preview(config);
        return Ok(axum::Json(PlansAnswer::Preview(PlanPreview { request })));
    }
    let planning = plan_goal(&state, goal, &ask, false).await?;
    let answers = planning.request.answers(&planning.outcome.plan, &[]);
    Ok(axum::Json(PlansAnswer::Planned(Box::new(Planned::of(
        &planning.request,
        planning.outcome,
        answers,
    )))))
}

/// Plans the goal with one model call, then runs the plan.
///
/// Answered like `POST /v1/runs`, with the planning added.
#[utoipa::path(post, path = "/v1/act", tag = "planning", request_body = ActBody,
    params(RunHeaders),
    responses(
        (status = 200, description = "The run ended (read `status`); with `Accept: application/x-ndjson`, a `planned` line, each event, then the result.",
            content((ActResult = "application/json"), (StreamLine = "application/x-ndjson")),
            headers(("Location" = String, description = "/v1/runs/RUN_ID"))),
        AcceptedRun))]
pub(super) async fn act(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    JsonBody(body): JsonBody<ActBody>,
) -> Result<Response, ApiError> {
    let reply = Reply::of(&headers);
    let (goal, ask) = body.read(&state)?;
    let planning = plan_goal(&state, goal, &ask, true).await?;
    // The service asks nobody: `vars` answers the plan's questions, else its suggestions.
    let (launch, planning) = launch_planned(&state, planning, &[], ask).await?;
    let started = queue::start(&state, &caller, launch, reply == Reply::Stream).await?;
    Ok(respond(&state, started, reply, Some(planning)).await)
}

/// Replays a plan; no model involved. Queued when every slot is busy.
#[utoipa::path(post, path = "/v1/runs", tag = "runs", request_body = RunBody,
    params(RunHeaders),
    responses(
        (status = 200, description = "The run ended (read `status`); with `Accept: application/x-ndjson`, each event as it happens, then the result (`event: result`).",
            content((RunResult = "application/json"), (StreamLine = "application/x-ndjson")),
            headers(("Location" = String, description = "/v1/runs/RUN_ID"))),
        AcceptedRun))]
pub(super) async fn create_run(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    JsonBody(body): JsonBody<RunBody>,
) -> Result<Response, ApiError> {
    let reply = Reply::of(&headers);
    let (plan, ask) = body.read(&state)?;
    state.accepting()?;
    let spec = runs::replay_spec(&state, plan, &ask);
    let launch = runs::prepare(&state, spec, ask).await?;
    let started = queue::start(&state, &caller, launch, reply == Reply::Stream).await?;
    Ok(respond(&state, started, reply, None).await)
}

/// Answers a started run the way the caller asked.
async fn respond(
    state: &AppState,
    started: Started,
    reply: Reply,
    planning: Option<Planned>,
) -> Response {
    let href = format!("/v1/runs/{}", started.run_id);
    let location = HeaderValue::from_str(&href).ok();
    let mut response = match (reply, started.lines) {
        (Reply::Stream, Some(mut lines)) => {
            let stream = futures::stream::poll_fn(move |cx| lines.poll_recv(cx))
                .map(|line| Ok::<_, std::convert::Infallible>(runs::line(&line)));
            (
                [(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/x-ndjson"),
                )],
                Body::from_stream(stream),
            )
                .into_response()
        }
        (Reply::Async, _) => accepted(state, &started.run_id, &href, planning, true).await,
        _ => {
            let mut done = started.done;
            let result = match done.wait_for(Option::is_some).await {
                Ok(r) => r.clone(),
                Err(_) => None,
            };
            crate::phase::mark(&started.run_id, "answered");
            match (result, planning) {
                (Some(result), None) => axum::Json(result.as_ref()).into_response(),
                (Some(result), Some(planning)) => axum::Json(ActResult {
                    result: result.as_ref().clone(),
                    planning,
                })
                .into_response(),
                // Followed on another replica until this one stopped: it goes on there.
                (None, planning) => accepted(state, &started.run_id, &href, planning, false).await,
            }
        }
    };
    if let Some(l) = location {
        response.headers_mut().insert(header::LOCATION, l);
    }
    response
}

/// 202: the run was accepted and goes on; poll `href`. `Preference-Applied` when the caller
/// asked for this answer.
async fn accepted(
    state: &AppState,
    run_id: &str,
    href: &str,
    planning: Option<Planned>,
    asked: bool,
) -> Response {
    let status = match state.store().get(run_id).await {
        Ok(Some(run)) => run.status.as_str().to_string(),
        _ => "queued".to_string(),
    };
    let mut r = AcceptedRun(Accepted {
        run_id: run_id.to_string(),
        status,
        href: href.to_string(),
        planning,
    })
    .into_response();
    if asked {
        r.headers_mut().insert(
            HeaderName::from_static("preference-applied"),
            HeaderValue::from_static("respond-async"),
        );
    }
    r
}

/// The 202 `POST /v1/runs` and `POST /v1/act` answer: described once for both in the API
/// document, and built here.
#[derive(utoipa::IntoResponses)]
#[response(status = 202, description = "`Prefer: respond-async`: the run was accepted; poll `href`.",
    headers(("Location" = String, description = "/v1/runs/RUN_ID"), ("Preference-Applied" = String, description = "respond-async")))]
struct AcceptedRun(Accepted);

impl IntoResponse for AcceptedRun {
    fn into_response(self) -> Response {
        (StatusCode::ACCEPTED, axum::Json(self.0)).into_response()
    }
}

/// A run, from the store, so any replica answers, and after a restart.
#[utoipa::path(get, path = "/v1/runs/{id}", tag = "runs",
    params(("id" = String, Path, description = "The run's id.")),
    responses((status = 200, description = "The run's result once it has ended, else its progress so far.", body = RunView)))]
pub(super) async fn get_run(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<axum::Json<RunView>, ApiError> {
    let run = runs::stored(&state, &id).await?;
    Ok(axum::Json(runs::view(&state, &run).await?))
}

/// `GET /v1/runs?status=&limit=&cursor=`
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(super) struct ListQuery {
    /// Only runs in this state: `queued`, `running`, `succeeded`, `failed` or `cancelled`.
    status: Option<String>,
    /// Runs per page, 1 to 100 (default 20).
    limit: Option<usize>,
    /// Where to go on: the `next_cursor` of the previous page.
    cursor: Option<String>,
}

/// Runs, newest first, a page at a time; a cursor stays valid as runs are added.
#[utoipa::path(get, path = "/v1/runs", tag = "runs", params(ListQuery),
    responses((status = 200, description = "A page of runs, newest first.", body = RunList)))]
pub(super) async fn list_runs(
    State(state): State<AppState>,
    query: Result<Query<ListQuery>, QueryRejection>,
) -> Result<axum::Json<RunList>, ApiError> {
    let Query(q) = query.map_err(|e| {
        ApiError::new(
            ApiErrorKind::InvalidQuery,
            format!("the query string is not valid: {}", e.body_text()),
        )
    })?;
    if let Some(s) = &q.status
        && s.parse::<RunState>().is_err()
    {
        return Err(ApiError::new(
            ApiErrorKind::InvalidQuery,
            format!(
                "status `{s}` is not a run status: give one of {}",
                RunState::VARIANTS.join(", ")
            ),
        ));
    }
    let limit = q.limit.unwrap_or(20);
    if !(1..=100).contains(&limit) {
        return Err(ApiError::new(
            ApiErrorKind::InvalidQuery,
            format!("limit {limit} is out of range: give 1 to 100"),
        ));
    }
    if let Some(c) = &q.cursor
        && decode_cursor(c).is_none()
    {
        return Err(ApiError::new(
            ApiErrorKind::InvalidQuery,
            format!("cursor `{c}` is not one this server gave: pass a page's `next_cursor`"),
        ));
    }
    let page = state
        .store()
        .list(q.status.as_deref(), limit, q.cursor.as_deref())
        .await?;
    Ok(axum::Json(RunList {
        runs: page.runs.iter().map(RunSummary::of).collect(),
        next_cursor: page.next,
    }))
}

/// Cancels a queued or running run.
///
/// On this replica or, through the store, on the one running it; answers its result
/// (`cancelled`). A finished run is left as it is and its result answered.
#[utoipa::path(delete, path = "/v1/runs/{id}", tag = "runs",
    params(("id" = String, Path, description = "The run's id.")),
    responses(
        (status = 200, description = "The run has ended: `cancelled` (or as it ended before).", body = RunView),
        (status = 202, description = "Cancellation was asked for; the run has not ended within 10 s: its progress.", body = RunView)))]
pub(super) async fn cancel_run(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let (finished, view) = cancel::run(&state, &id).await?;
    let status = if finished {
        StatusCode::OK
    } else {
        StatusCode::ACCEPTED
    };
    Ok((status, axum::Json(view)).into_response())
}

/// A failure screenshot of a run.
#[utoipa::path(get, path = "/v1/runs/{id}/screenshots/{file}", tag = "runs",
    params(("id" = String, Path, description = "The run's id."),
           ("file" = String, Path, description = "As in the step's `screenshot_url`.")),
    responses(
        (status = 200, description = "The PNG.", content_type = "image/png", body = Vec<u8>)))]
pub(super) async fn screenshot(
    State(state): State<AppState>,
    Path((id, file)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let png = runs::screenshot(&state, &id, &file).await.ok_or_else(|| {
        ApiError::new(ApiErrorKind::NotFound, format!("run `{id}` has no {file}"))
    })?;
    Ok((
        [(header::CONTENT_TYPE, HeaderValue::from_static("image/png"))],
        png,
    )
        .into_response())
}
