//! The handlers behind each endpoint: they read the request, ask the library (planner,
//! [`RunSpec`]), and answer in the API's shapes.

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde_json::{Value, json};
use tokio::sync::OwnedSemaphorePermit;

use super::error::ApiError;
use super::request::{
    ActBody, JsonBody, PlansBody, RequestInbox, RunBody, caller_vars, check_inboxes,
    connect_inboxes, parse_bindings, plan_from, request_secrets, spec_error,
};
use super::runs::{self, Launch, Started};
use super::{AppState, CANCEL_WAIT};
use crate::lock::AddressPolicy;
use crate::plan::{self, Limits};
use crate::planner::{self, PlanOutcome, PlanRequest, PlannerConfig};
use crate::runner::{RunSpec, Settings};

pub(super) async fn not_found(method: Method, uri: Uri) -> ApiError {
    ApiError::not_found(
        "not_found",
        format!(
            "there is no {method} {}: the endpoints are listed at /openapi.json",
            uri.path()
        ),
    )
}

pub(super) async fn method_not_allowed(method: Method, uri: Uri) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!(
            "{} does not take {method}: the endpoints are listed at /openapi.json",
            uri.path()
        ),
    )
}

pub(super) async fn healthz(State(state): State<AppState>) -> Response {
    let browser = match state.0.browser.status().await {
        Ok(()) => "ok".to_string(),
        Err(e) => e,
    };
    axum::Json(json!({
        "status": if state.0.shutdown.is_cancelled() { "shutting_down" } else { "ok" },
        "version": env!("CARGO_PKG_VERSION"),
        "browser": browser,
        "runs_in_flight": state.runs_in_flight(),
        "max_runs": state.0.max_runs,
    }))
    .into_response()
}

pub(super) async fn openapi() -> Response {
    axum::Json(super::openapi_document().clone()).into_response()
}

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

/// What the planner produced, as callers see it (no server paths).
fn planned(outcome: &PlanOutcome) -> Value {
    json!({
        "plan": outcome.plan,
        "cached": outcome.cached,
        "usage": outcome.usage,
        "model": outcome.model,
        "prompt_version": outcome.prompt_version,
        "goal": outcome.goal,
        "site": outcome.site,
        "retries": outcome.retries,
        "warnings": outcome.warnings,
    })
}

fn plan_request(
    config: PlannerConfig,
    inbox: &[RequestInbox],
    allowed_hosts: &[String],
    vars: crate::plan::Vars,
    limits: &Limits,
    no_cache: bool,
) -> PlanRequest {
    let mut req = PlanRequest::new(config).with_inboxes(inbox.iter().map(|(n, _)| n.as_deref()));
    req.allowed_hosts = allowed_hosts.to_vec();
    req.vars = vars;
    req.limits = limits.clone();
    req.no_cache = no_cache;
    req
}

/// Plans with the one model call, unless the server shuts down first.
async fn plan_goal(
    state: &AppState,
    goal: &str,
    req: &PlanRequest,
) -> Result<PlanOutcome, ApiError> {
    tokio::select! {
        r = planner::plan_goal(goal, req) => r.map_err(|e| ApiError::from_planner(&e)),
        _ = state.0.shutdown.cancelled() => Err(ApiError::unavailable(
            "shutting_down",
            "the server is shutting down; the plan was not made",
        )),
    }
}

/// `POST /v1/plans`: a plan from the goal, no run.
pub(super) async fn create_plan(
    State(state): State<AppState>,
    JsonBody(body): JsonBody<PlansBody>,
) -> Result<Response, ApiError> {
    let vars = caller_vars(&body.vars)?;
    let bindings = parse_bindings(&state, &body.inbox.list())?;
    state.accepting()?;
    let config = state.planner()?;
    let _permit = state.planning_permit()?;
    let req = plan_request(
        config,
        &bindings,
        &body.allowed_hosts,
        vars,
        &state.0.limits,
        body.no_cache,
    );
    let outcome = plan_goal(&state, &body.goal, &req).await?;
    Ok(axum::Json(planned(&outcome)).into_response())
}

/// `POST /v1/act`: plan with one model call, then run the plan.
pub(super) async fn act(
    State(state): State<AppState>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<ActBody>,
) -> Result<Response, ApiError> {
    let reply = Reply::of(&headers);
    let vars = caller_vars(&body.vars)?;
    let bindings = parse_bindings(&state, &body.inbox.list())?;
    state.accepting()?;
    let config = state.planner()?;
    let permit = state.run_permit()?;
    let req = plan_request(
        config,
        &bindings,
        &body.allowed_hosts,
        vars.clone(),
        &state.0.limits,
        body.no_cache,
    );
    let outcome = plan_goal(&state, &body.goal, &req).await?;
    let planning = planned(&outcome);
    let launch = prepare(
        &state,
        Some(&body.goal),
        outcome.plan,
        vars,
        &body.secrets,
        &bindings,
        &body.allowed_hosts,
        permit,
    )
    .await?;
    let prelude = {
        let mut line = json!({ "event": "planned" });
        if let (Some(l), Some(p)) = (line.as_object_mut(), planning.as_object()) {
            l.extend(p.clone());
        }
        line
    };
    let launch = Launch {
        prelude: Some(prelude),
        ..launch
    };
    let started = runs::start(&state, launch, reply == Reply::Stream);
    Ok(respond(started, reply, Some(planning)).await)
}

/// `POST /v1/runs`: replay a plan, no model involved.
pub(super) async fn create_run(
    State(state): State<AppState>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<RunBody>,
) -> Result<Response, ApiError> {
    let reply = Reply::of(&headers);
    let vars = caller_vars(&body.vars)?;
    let plan = plan_from(&body.plan, &state.0.limits, &vars)?;
    let bindings = parse_bindings(&state, &body.inbox.list())?;
    state.accepting()?;
    let permit = state.run_permit()?;
    let launch = prepare(
        &state,
        None,
        plan,
        vars,
        &body.secrets,
        &bindings,
        &body.allowed_hosts,
        permit,
    )
    .await?;
    let started = runs::start(&state, launch, reply == Reply::Stream);
    Ok(respond(started, reply, None).await)
}

/// Everything a run needs, checked and locked from the request before anything is read.
#[allow(clippy::too_many_arguments)]
async fn prepare(
    state: &AppState,
    goal: Option<&str>,
    plan: crate::plan::Plan,
    vars: crate::plan::Vars,
    secrets: &std::collections::BTreeMap<String, String>,
    bindings: &[RequestInbox],
    allowed_hosts: &[String],
    permit: OwnedSemaphorePermit,
) -> Result<Launch, ApiError> {
    let secrets = request_secrets(state, secrets)?;
    let inboxes = connect_inboxes(state, bindings, allowed_hosts).await?;
    let registry = state.registry();
    let run_id = registry.new_id();
    let mut spec = RunSpec::new(plan)
        .run_id(run_id.clone())
        .vars(vars)
        .secrets(secrets)
        .allow_hosts(allowed_hosts.iter().cloned())
        .inboxes(inboxes.iter().cloned())
        .address_policy(AddressPolicy::Service)
        .settings(Settings {
            artifacts_dir: Some(registry.artifacts_of(&run_id)),
            ..state.settings().clone()
        });
    if let Some(goal) = goal {
        spec = spec.goal(goal).named("act");
    }
    let run = spec.lock().await.map_err(spec_error)?;
    check_inboxes(&inboxes).await?;
    let browser = state
        .0
        .browser
        .get()
        .await
        .map_err(|e| ApiError::unavailable("browser_unavailable", e.to_string()))?;
    Ok(Launch {
        run,
        browser,
        permit,
        prelude: None,
    })
}

/// Answers a started run the way the caller asked.
async fn respond(started: Started, reply: Reply, planning: Option<Value>) -> Response {
    let href = format!("/v1/runs/{}", started.run_id);
    let location = HeaderValue::from_str(&href).ok();
    let mut response = match (reply, started.lines) {
        (Reply::Stream, Some(mut lines)) => {
            let stream = futures::stream::poll_fn(move |cx| lines.poll_recv(cx))
                .map(Ok::<_, std::convert::Infallible>);
            (
                [(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/x-ndjson"),
                )],
                Body::from_stream(stream),
            )
                .into_response()
        }
        (Reply::Async, _) => {
            let mut body = json!({
                "run_id": started.run_id,
                "status": "running",
                "href": href,
            });
            if let Some(p) = planning {
                body["planning"] = p;
            }
            let mut r = (StatusCode::ACCEPTED, axum::Json(body)).into_response();
            r.headers_mut().insert(
                HeaderName::from_static("preference-applied"),
                HeaderValue::from_static("respond-async"),
            );
            r
        }
        _ => {
            let mut done = started.done;
            let result = match done.wait_for(Option::is_some).await {
                Ok(r) => r.clone(),
                Err(_) => None,
            };
            match result {
                Some(result) => {
                    let mut body = serde_json::to_value(result.as_ref()).unwrap_or_default();
                    if let Some(p) = planning {
                        body["planning"] = p;
                    }
                    axum::Json(body).into_response()
                }
                None => ApiError::internal("a run ended without a result").into_response(),
            }
        }
    };
    if let Some(l) = location {
        response.headers_mut().insert(header::LOCATION, l);
    }
    response
}

/// `GET /v1/runs/{id}`
pub(super) async fn get_run(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    match state.registry().view(&id) {
        Some(view) => Ok(axum::Json(view).into_response()),
        None => Err(unknown_run(&id)),
    }
}

fn unknown_run(id: &str) -> ApiError {
    ApiError::not_found(
        "run_not_found",
        format!(
            "there is no run `{id}` on this server (finished runs are kept for a while, then \
             forgotten; a restarted server knows none)"
        ),
    )
}

/// `DELETE /v1/runs/{id}`: cancels a running run and answers its result (`cancelled`); a
/// finished run is left as it is and its result answered.
pub(super) async fn cancel_run(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let registry = state.registry();
    let Some((cancel, mut done)) = registry.handle(&id) else {
        return Err(unknown_run(&id));
    };
    cancel.cancel();
    let finished = tokio::time::timeout(CANCEL_WAIT, done.wait_for(Option::is_some))
        .await
        .is_ok();
    let view = registry.view(&id).ok_or_else(|| unknown_run(&id))?;
    let status = if finished {
        StatusCode::OK
    } else {
        StatusCode::ACCEPTED
    };
    Ok((status, axum::Json(view)).into_response())
}

/// `GET /v1/runs/{id}/screenshots/{file}`: a failure screenshot of a known run.
pub(super) async fn screenshot(
    State(state): State<AppState>,
    Path((id, file)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let path = state
        .registry()
        .screenshot(&id, &file)
        .ok_or_else(|| ApiError::not_found("not_found", format!("run `{id}` has no {file}")))?;
    let bytes = tokio::fs::read(&path)
        .await
        .map_err(|_| ApiError::not_found("not_found", format!("run `{id}` has no {file}")))?;
    Ok((
        [(header::CONTENT_TYPE, HeaderValue::from_static("image/png"))],
        bytes,
    )
        .into_response())
}
