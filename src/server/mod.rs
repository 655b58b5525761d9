//! `planlock serve` (SPEC §7): the HTTP API over the planner and the runner — one shared
//! browser, a context per run, bounded bodies and concurrency, bearer tokens beyond loopback.

mod browser;
mod error;
mod openapi;
mod request;
mod runs;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Path, Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures::StreamExt;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

pub use browser::{BrowserHandle, BrowserSource};
pub use error::ApiError;
pub use openapi::document as openapi_document;

use crate::browser::LaunchOptions;
use crate::exit;
use crate::plan::{self, Limits};
use crate::planner::{self, PlanOutcome, PlanRequest, PlannerConfig};
use crate::runner::Settings;
use browser::BrowserSlot;
use request::{
    ActBody, JsonBody, PlansBody, RunBody, SmtpReceivers, bind_inboxes, caller_vars, load_secrets,
    parse_bindings, plan_from, server_lock,
};
use runs::{Launch, Registry, Started};

/// Largest request body by default: plans are a few KiB.
pub const DEFAULT_BODY_LIMIT: usize = 1 << 20;
/// Finished runs kept in memory for `GET /v1/runs/{id}` by default.
pub const DEFAULT_KEEP_FINISHED: usize = 1000;
/// The environment variable holding the bearer token.
pub const TOKEN_VAR: &str = "PLANLOCK_TOKEN";
/// The environment variable naming a remote browser (`ws://…`) instead of launching one.
pub const BROWSER_WS_VAR: &str = "PLANLOCK_BROWSER_WS";
/// How long shutdown waits for cancelled runs to report before closing the browser.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(20);
/// How long `DELETE` waits for the cancelled run to end before answering.
const CANCEL_WAIT: Duration = Duration::from_secs(10);

/// How the service is set up.
pub struct ServerConfig {
    pub browser: BrowserSource,
    /// The planner's configuration, or why there is none (answered as 503 by act and plans).
    pub planner: Result<PlannerConfig, ApiError>,
    /// Callers must send `Authorization: Bearer TOKEN` when set.
    pub token: Option<String>,
    /// Runs (and plannings) at once; more are answered 429.
    pub max_runs: usize,
    /// Runner settings of every run (step and run deadlines).
    pub settings: Settings,
    pub limits: Limits,
    pub body_limit: usize,
    pub keep_finished: usize,
}

impl ServerConfig {
    /// Defaults around a browser source: no planner, no token, 4 runs, 1 MiB bodies.
    pub fn new(browser: BrowserSource) -> ServerConfig {
        ServerConfig {
            browser,
            planner: Err(ApiError::unavailable(
                "model_not_configured",
                "this server has no planner configured",
            )),
            token: None,
            max_runs: 4,
            settings: Settings::default(),
            limits: Limits::default(),
            body_limit: DEFAULT_BODY_LIMIT,
            keep_finished: DEFAULT_KEEP_FINISHED,
        }
    }
}

/// The state every handler shares. Cheap to clone.
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

struct Shared {
    planner: Result<PlannerConfig, ApiError>,
    token: Option<String>,
    max_runs: usize,
    settings: Settings,
    limits: Limits,
    body_limit: usize,
    browser: BrowserSlot,
    registry: Arc<Registry>,
    /// One permit per run (or `act` planning) in flight.
    runs: Arc<Semaphore>,
    /// One permit per `/v1/plans` model call in flight.
    planning: Arc<Semaphore>,
    /// Cancelled at shutdown; every run's token is a child of it.
    shutdown: CancellationToken,
    smtp: SmtpReceivers,
    /// Failure screenshots, removed with the server.
    _artifacts: Option<tempfile::TempDir>,
}

impl AppState {
    pub fn new(config: ServerConfig) -> AppState {
        let dir = tempfile::Builder::new().prefix("planlock-serve-").tempdir();
        let artifacts_path = match &dir {
            Ok(d) => d.path().to_path_buf(),
            Err(_) => std::env::temp_dir().join("planlock-serve"),
        };
        let max_runs = config.max_runs.max(1);
        AppState(Arc::new(Shared {
            planner: config.planner,
            token: config.token.filter(|t| !t.is_empty()),
            max_runs,
            settings: config.settings,
            limits: config.limits,
            body_limit: config.body_limit,
            browser: BrowserSlot::new(config.browser),
            registry: Arc::new(Registry::new(config.keep_finished, artifacts_path)),
            runs: Arc::new(Semaphore::new(max_runs)),
            planning: Arc::new(Semaphore::new(max_runs)),
            shutdown: CancellationToken::new(),
            smtp: SmtpReceivers::default(),
            _artifacts: dir.ok(),
        }))
    }

    pub(crate) fn body_limit(&self) -> usize {
        self.0.body_limit
    }
    pub(crate) fn settings(&self) -> &Settings {
        &self.0.settings
    }
    pub(crate) fn registry(&self) -> Arc<Registry> {
        self.0.registry.clone()
    }
    pub(crate) fn shutdown_token(&self) -> &CancellationToken {
        &self.0.shutdown
    }
    pub(crate) fn smtp(&self) -> &SmtpReceivers {
        &self.0.smtp
    }

    /// Makes sure the shared browser is up (the server starts it before listening).
    pub async fn start_browser(&self) -> Result<(), crate::browser::BrowserError> {
        self.0.browser.get().await.map(drop)
    }

    /// Runs in flight right now.
    pub fn runs_in_flight(&self) -> usize {
        self.0.max_runs - self.0.runs.available_permits()
    }

    /// Cancels every run in flight (their results say `cancelled`) and refuses new ones.
    pub fn begin_shutdown(&self) {
        self.0.shutdown.cancel();
    }

    /// After [`begin_shutdown`](Self::begin_shutdown): waits until every run has reported
    /// its result (at most `grace`), then closes the browser the service launched.
    pub async fn finish_shutdown(&self, grace: Duration) {
        let all = self.0.max_runs as u32;
        if tokio::time::timeout(grace, self.0.runs.acquire_many(all))
            .await
            .is_err()
        {
            eprintln!(
                "planlock: {} run(s) did not end within {} s; closing the browser anyway",
                self.runs_in_flight(),
                grace.as_secs()
            );
        }
        self.0.browser.close().await;
    }

    fn accepting(&self) -> Result<(), ApiError> {
        if self.0.shutdown.is_cancelled() {
            return Err(ApiError::unavailable(
                "shutting_down",
                "the server is shutting down and starts no new runs",
            ));
        }
        Ok(())
    }

    fn run_permit(&self) -> Result<OwnedSemaphorePermit, ApiError> {
        self.0.runs.clone().try_acquire_owned().map_err(|_| {
            let n = self.0.max_runs;
            ApiError {
                retry_after: Some(1),
                ..ApiError::new(
                    StatusCode::TOO_MANY_REQUESTS,
                    "too_many_runs",
                    format!(
                        "{n} run{} already in flight, the most this server runs at once \
                         (--max-runs {n}); try again when one finishes",
                        if n == 1 { " is" } else { "s are" }
                    ),
                )
            }
        })
    }

    fn planning_permit(&self) -> Result<OwnedSemaphorePermit, ApiError> {
        self.0.planning.clone().try_acquire_owned().map_err(|_| {
            let n = self.0.max_runs;
            ApiError {
                retry_after: Some(1),
                ..ApiError::new(
                    StatusCode::TOO_MANY_REQUESTS,
                    "too_many_plans",
                    format!(
                        "{n} plan request{} already waiting for the model, the most this \
                         server allows at once; try again shortly",
                        if n == 1 { " is" } else { "s are" }
                    ),
                )
            }
        })
    }

    fn planner(&self) -> Result<PlannerConfig, ApiError> {
        self.0.planner.clone()
    }
}

/// The service's routes. Tests drive it with `oneshot` or on a real port.
pub fn app(state: AppState) -> Router {
    let v1 = Router::new()
        .route("/v1/act", post(act))
        .route("/v1/plans", post(create_plan))
        .route("/v1/runs", post(create_run))
        .route("/v1/runs/{id}", get(get_run).delete(cancel_run))
        .route("/v1/runs/{id}/screenshots/{file}", get(screenshot))
        .route("/v1/schema/plan", get(plan_schema))
        .route_layer(middleware::from_fn_with_state(state.clone(), require_token));
    Router::new()
        .route("/healthz", get(healthz))
        .route("/openapi.json", get(openapi))
        .merge(v1)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(state.body_limit()))
        .with_state(state)
}

/// Serves `app` on `listener` until `shutdown` resolves; then stops accepting, cancels the
/// runs in flight (their callers get `cancelled` results), and closes the browser.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let on_signal = state.clone();
    let result = axum::serve(listener, app(state.clone()))
        .with_graceful_shutdown(async move {
            shutdown.await;
            let running = on_signal.registry().running();
            if running.is_empty() {
                eprintln!("planlock: shutting down");
            } else {
                eprintln!(
                    "planlock: shutting down: cancelling {} run(s) in flight: {}",
                    running.len(),
                    running.join(", ")
                );
            }
            on_signal.begin_shutdown();
        })
        .await;
    state.begin_shutdown();
    state.finish_shutdown(SHUTDOWN_GRACE).await;
    result
}

/// `planlock serve [--listen ADDR] [--max-runs N]`. The token comes from `PLANLOCK_TOKEN`,
/// the planner from `PLANLOCK_MODEL` etc., the browser from `$CHROME` (or
/// `PLANLOCK_BROWSER_WS` for a remote one).
pub async fn serve_command(listen: String, max_runs: usize) -> u8 {
    let addr = match parse_listen(&listen) {
        Ok(a) => a,
        Err(m) => {
            eprintln!("planlock: {m}");
            return exit::INVALID_INPUT;
        }
    };
    let token = std::env::var(TOKEN_VAR)
        .ok()
        .filter(|t| !t.trim().is_empty());
    if !addr.ip().is_loopback() && token.is_none() {
        eprintln!(
            "planlock: refusing to listen on {addr} without a token: anyone who can reach that \
             address could drive the browser and read mail through this server. Set {TOKEN_VAR} \
             to a long random secret (callers then send `Authorization: Bearer TOKEN`), or \
             listen on 127.0.0.1."
        );
        return exit::INVALID_INPUT;
    }
    if max_runs == 0 {
        eprintln!("planlock: --max-runs must be at least 1");
        return exit::INVALID_INPUT;
    }
    let launch = LaunchOptions {
        executable: None,
        connect_to: std::env::var(BROWSER_WS_VAR)
            .ok()
            .filter(|v| !v.trim().is_empty()),
        headful: false,
    };
    let mut config = ServerConfig::new(BrowserSource::Launch(launch));
    config.planner = PlannerConfig::from_env().map_err(|e| ApiError::from_planner(&e));
    config.token = token;
    config.max_runs = max_runs;
    let state = AppState::new(config);
    if let Err(e) = state.start_browser().await {
        eprintln!("planlock: {e}");
        return exit::ENVIRONMENT;
    }
    let listener = match TcpListener::bind(addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!(
                "planlock: cannot listen on {addr}: {}",
                crate::cli::io_sentence(&e)
            );
            state.begin_shutdown();
            state.finish_shutdown(Duration::ZERO).await;
            return exit::ENVIRONMENT;
        }
    };
    let local = listener.local_addr().unwrap_or(addr);
    eprintln!(
        "planlock: serving on http://{local} (at most {max_runs} run{} at once; {})",
        if max_runs == 1 { "" } else { "s" },
        if state.0.token.is_some() {
            "callers must send the bearer token"
        } else {
            "no token required on loopback"
        }
    );
    match serve(listener, state, shutdown_signal()).await {
        Ok(()) => exit::SUCCESS,
        Err(e) => {
            eprintln!("planlock: the server stopped: {e}");
            exit::ENVIRONMENT
        }
    }
}

fn parse_listen(listen: &str) -> Result<SocketAddr, String> {
    if let Ok(a) = listen.parse::<SocketAddr>() {
        return Ok(a);
    }
    if let Some(port) = listen.strip_prefix("localhost:")
        && let Ok(port) = port.parse::<u16>()
    {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    Err(format!(
        "--listen `{listen}` is not an address: give IP:PORT, e.g. 127.0.0.1:8080 (this \
         machine only) or 0.0.0.0:8080 (every interface; needs {TOKEN_VAR})"
    ))
}

/// Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

async fn require_token(State(state): State<AppState>, req: Request, next: Next) -> Response {
    if let Some(token) = &state.0.token {
        let given = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| {
                let (scheme, rest) = v.trim().split_once(' ')?;
                scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
            });
        let problem = match given {
            None => Some(
                "this server requires a bearer token: send `Authorization: Bearer TOKEN` \
                 (the token is the server's PLANLOCK_TOKEN)",
            ),
            Some(g) if !same_secret(g, token) => Some("the bearer token is not valid"),
            Some(_) => None,
        };
        if let Some(message) = problem {
            return ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", message)
                .into_response();
        }
    }
    next.run(req).await
}

/// Compares digests, so the time taken says nothing about the token.
fn same_secret(a: &str, b: &str) -> bool {
    use sha2::{Digest, Sha256};
    let (x, y) = (Sha256::digest(a.as_bytes()), Sha256::digest(b.as_bytes()));
    x.iter()
        .zip(y.iter())
        .fold(0u8, |acc, (p, q)| acc | (p ^ q))
        == 0
}

async fn not_found(method: Method, uri: Uri) -> ApiError {
    ApiError::not_found(
        "not_found",
        format!(
            "there is no {method} {}: the endpoints are listed at /openapi.json",
            uri.path()
        ),
    )
}

async fn method_not_allowed(method: Method, uri: Uri) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!(
            "{} does not take {method}: the endpoints are listed at /openapi.json",
            uri.path()
        ),
    )
}

async fn healthz(State(state): State<AppState>) -> Response {
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

async fn openapi() -> Response {
    axum::Json(openapi::document().clone()).into_response()
}

async fn plan_schema() -> Response {
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
    inbox: &[(Option<String>, crate::inbox::InboxUrl)],
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
async fn create_plan(
    State(state): State<AppState>,
    JsonBody(body): JsonBody<PlansBody>,
) -> Result<Response, ApiError> {
    let vars = caller_vars(&body.vars)?;
    let bindings = parse_bindings(&body.inbox.list())?;
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
async fn act(
    State(state): State<AppState>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<ActBody>,
) -> Result<Response, ApiError> {
    let reply = Reply::of(&headers);
    let vars = caller_vars(&body.vars)?;
    let bindings = parse_bindings(&body.inbox.list())?;
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
        plan_name: Some("act".to_string()),
        prelude: Some(prelude),
        ..launch
    };
    let started = runs::start(&state, launch, reply == Reply::Stream);
    Ok(respond(started, reply, Some(planning)).await)
}

/// `POST /v1/runs`: replay a plan, no model involved.
async fn create_run(
    State(state): State<AppState>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<RunBody>,
) -> Result<Response, ApiError> {
    let reply = Reply::of(&headers);
    let vars = caller_vars(&body.vars)?;
    let plan = plan_from(&body.plan, &state.0.limits, &vars)?;
    let bindings = parse_bindings(&body.inbox.list())?;
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

/// Everything a run needs, built from the request before anything is read.
#[allow(clippy::too_many_arguments)]
async fn prepare(
    state: &AppState,
    goal: Option<&str>,
    plan: crate::plan::Plan,
    mut vars: crate::plan::Vars,
    secrets: &std::collections::BTreeMap<String, String>,
    bindings: &[(Option<String>, crate::inbox::InboxUrl)],
    allowed_hosts: &[String],
    permit: OwnedSemaphorePermit,
) -> Result<Launch, ApiError> {
    load_secrets(&mut vars, &plan, secrets)?;
    let lock = server_lock(goal, &plan, &vars, allowed_hosts).await?;
    let inboxes = bind_inboxes(state, bindings, &plan).await?;
    let browser = state
        .0
        .browser
        .get()
        .await
        .map_err(|e| ApiError::unavailable("browser_unavailable", e.to_string()))?;
    Ok(Launch {
        plan,
        plan_name: None,
        lock,
        vars,
        inboxes,
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
async fn get_run(
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
async fn cancel_run(
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
async fn screenshot(
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
