//! The HTTP API over the planner and the runner (docs/http-api.md): one shared browser, a
//! context per run, bounded bodies and concurrency, bearer tokens beyond loopback.

mod browser;
mod error;
mod guard;
mod listener;
mod openapi;
mod request;
mod routes;
mod runs;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use tokio::net::TcpListener;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

pub use browser::{BrowserHandle, BrowserSource};
pub use error::ApiError;
pub use openapi::document as openapi_document;

use crate::inbox::Inbox;
use crate::plan::Limits;
use crate::planner::PlannerConfig;
use crate::runner::{Secrets, Settings};
use browser::BrowserSlot;
use listener::ApiListener;
use request::SmtpReceivers;
use routes::{
    act, cancel_run, create_plan, create_run, get_run, healthz, method_not_allowed, not_found,
    openapi, plan_schema, screenshot,
};
use runs::Registry;

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
    /// Names callers may use in `Host`, besides IP addresses and `localhost`.
    pub host_names: Vec<String>,
    /// The server's own secrets, each bound to the hosts it may be sent to. Nothing else
    /// of the server's environment is readable by requests.
    pub secrets: Secrets,
    /// The server's inboxes, by name: requests choose them with `"inbox": "NAME"`.
    pub inboxes: Vec<(String, Arc<dyn Inbox>)>,
    /// Whether requests may bring mailbox URLs of their own.
    pub allow_request_inboxes: bool,
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
            host_names: Vec::new(),
            secrets: Secrets::none(),
            inboxes: Vec::new(),
            allow_request_inboxes: false,
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
    host_names: Vec<String>,
    secrets: Secrets,
    inboxes: Vec<(String, Arc<dyn Inbox>)>,
    allow_request_inboxes: bool,
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
            host_names: config.host_names,
            secrets: config.secrets,
            inboxes: config.inboxes,
            allow_request_inboxes: config.allow_request_inboxes,
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
    pub(crate) fn host_names(&self) -> &[String] {
        &self.0.host_names
    }
    pub(crate) fn secrets(&self) -> &Secrets {
        &self.0.secrets
    }
    pub(crate) fn allows_request_inboxes(&self) -> bool {
        self.0.allow_request_inboxes
    }
    pub(crate) fn has_inbox(&self, name: &str) -> bool {
        self.0.inboxes.iter().any(|(n, _)| n == name)
    }
    pub(crate) fn server_inbox(&self, name: &str) -> Option<Arc<dyn Inbox>> {
        self.0
            .inboxes
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, i)| i.clone())
    }
    /// `: its inboxes are a, b` (or how to configure some), for messages.
    pub(crate) fn inbox_names_phrase(&self) -> String {
        if self.0.inboxes.is_empty() {
            " (it has none: planlock serve --inbox NAME=URL)".to_string()
        } else {
            let names: Vec<&str> = self.0.inboxes.iter().map(|(n, _)| n.as_str()).collect();
            format!(" (its inboxes: {})", names.join(", "))
        }
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

    /// Whether callers must send the bearer token.
    pub fn requires_token(&self) -> bool {
        self.0.token.is_some()
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
        .layer(middleware::from_fn_with_state(
            state.clone(),
            guard::same_origin_only,
        ))
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
    let result = axum::serve(ApiListener(listener), app(state.clone()))
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
