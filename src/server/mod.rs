//! The HTTP API over the planner and the runner (docs/http-api.md): one shared browser, a
//! context per run, a queue in front of a bounded number of runs, a run store shared by
//! replicas, bearer tokens beyond loopback, and only this server's own origin in browsers.

mod api;
mod browser;
mod error;
mod guard;
mod listener;
mod metrics;
mod openapi;
mod request;
mod routes;
mod runs;
mod store;
mod webhook;

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;
use tracing::Instrument;

pub use browser::{BrowserHandle, BrowserSource};
pub use error::ApiError;
pub use openapi::document as openapi_document;
pub use store::{Store, StoreError, default_sqlite_path};
pub use webhook::{SECRET_VAR as WEBHOOK_SECRET_VAR, SIGNATURE_HEADER, signature};

use crate::inbox::Inbox;
use crate::plan::Limits;
use crate::planner::PlannerConfig;
use crate::runner::{Secrets, Settings};
use browser::BrowserSlot;
use listener::ApiListener;
use metrics::{Gauges, Metrics};
use request::SmtpReceivers;
use routes::{
    act, cancel_run, create_plan, create_run, get_run, healthz, list_runs, method_not_allowed,
    metrics as metrics_route, not_found, openapi, plan_schema, screenshot,
};
use runs::Registry;

/// Largest request body by default: plans are a few KiB.
pub const DEFAULT_BODY_LIMIT: usize = 1 << 20;
/// Runs that may wait for a slot by default.
pub const DEFAULT_QUEUE: usize = 32;
/// Days finished runs are kept by default.
pub const DEFAULT_KEEP_DAYS: u32 = 7;
/// The environment variable holding the bearer token.
pub const TOKEN_VAR: &str = "PLANLOCK_TOKEN";
/// The environment variable naming a remote browser (`ws://…`) instead of launching one.
pub const BROWSER_WS_VAR: &str = "PLANLOCK_BROWSER_WS";
/// How long a client may take to send a request's head, and then its body, by default.
pub const DEFAULT_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How long shutdown waits for cancelled runs to report before closing the browser.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(20);
/// How long `DELETE` waits for the cancelled run to end before answering.
const CANCEL_WAIT: Duration = Duration::from_secs(10);
/// How often a replica looks for `DELETE`s of its runs made on other replicas.
const CANCEL_POLL: Duration = Duration::from_millis(250);
/// How often retention forgets old runs.
const RETENTION_EVERY: Duration = Duration::from_secs(3600);

/// How the service is set up.
pub struct ServerConfig {
    pub browser: BrowserSource,
    /// The planner's configuration, or why there is none (answered as 503 by act and plans).
    pub planner: Result<PlannerConfig, ApiError>,
    /// Callers must send `Authorization: Bearer TOKEN` when set.
    pub token: Option<String>,
    /// Runs at once; more wait in the queue.
    pub max_runs: usize,
    /// Runs that may wait for a slot (FIFO); more are answered 429.
    pub queue: usize,
    /// Runner settings of every run (step and run deadlines).
    pub settings: Settings,
    pub limits: Limits,
    pub body_limit: usize,
    /// Names callers may use in `Host`, besides IP addresses and `localhost`.
    pub host_names: Vec<String>,
    /// The server's own secrets, each bound to the hosts it may be sent to. Nothing else
    /// of the server's environment is readable by requests.
    pub secrets: Secrets,
    /// The server's inboxes, by name: requests choose them with `"inbox": "NAME"`.
    pub inboxes: Vec<(String, Arc<dyn Inbox>)>,
    /// Whether requests may bring mailbox URLs of their own.
    pub allow_request_inboxes: bool,
    /// `sqlite:PATH` or `postgres://…`; `None`: a SQLite file in a temp dir removed with
    /// the server (tests, embedding).
    pub store: Option<String>,
    /// This replica's name in the store. Runs it owned that are still live when it starts
    /// again are marked interrupted at once, so two live replicas must not share one.
    pub replica_id: String,
    /// How often this replica renews the lease of its live runs.
    pub heartbeat: Duration,
    /// A live run whose lease was not renewed for this long is marked interrupted.
    pub lease: Duration,
    /// Finished runs older than this are forgotten.
    pub keep_days: u32,
    /// Signs webhook bodies; `callback_url` is refused without it.
    pub webhook_secret: Option<String>,
    /// Waits between webhook attempts.
    pub webhook_retries: Vec<Duration>,
    /// The longest a client may take to send a request's head (from the connection's start,
    /// or the end of its previous answer) and, then, its body.
    pub read_timeout: Duration,
}

impl ServerConfig {
    /// Defaults around a browser source: no planner, no token, 4 runs and a queue of 32,
    /// 1 MiB bodies, a temporary store, a random replica id.
    pub fn new(browser: BrowserSource) -> ServerConfig {
        ServerConfig {
            browser,
            planner: Err(ApiError::unavailable(
                "model_not_configured",
                "this server has no planner configured",
            )),
            token: None,
            max_runs: 4,
            queue: DEFAULT_QUEUE,
            settings: Settings::default(),
            limits: Limits::default(),
            body_limit: DEFAULT_BODY_LIMIT,
            host_names: Vec::new(),
            secrets: Secrets::none(),
            inboxes: Vec::new(),
            allow_request_inboxes: false,
            store: None,
            replica_id: format!("replica-{}", crate::runner::new_run_id()),
            heartbeat: Duration::from_secs(5),
            lease: Duration::from_secs(30),
            keep_days: DEFAULT_KEEP_DAYS,
            webhook_secret: None,
            webhook_retries: webhook::DEFAULT_RETRIES.to_vec(),
            read_timeout: DEFAULT_READ_TIMEOUT,
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
    queue_limit: usize,
    settings: Settings,
    limits: Limits,
    body_limit: usize,
    host_names: Vec<String>,
    secrets: Secrets,
    inboxes: Vec<(String, Arc<dyn Inbox>)>,
    allow_request_inboxes: bool,
    browser: BrowserSlot,
    registry: Registry,
    store: Store,
    replica_id: String,
    heartbeat: Duration,
    lease: Duration,
    keep_days: u32,
    webhook_secret: Option<String>,
    webhook_retries: Vec<Duration>,
    read_timeout: Duration,
    metrics: Arc<Metrics>,
    /// One permit per run executing.
    runs: Arc<Semaphore>,
    /// Runs accepted and not ended (executing or waiting): at most `max_runs + queue_limit`.
    admitted: Arc<AtomicUsize>,
    /// Runs waiting for a permit.
    waiting: Arc<AtomicUsize>,
    /// One permit per `/v1/plans` or `/v1/act` model call in flight.
    planning: Arc<Semaphore>,
    /// Cancelled at shutdown; every run's token is a child of it.
    shutdown: CancellationToken,
    smtp: SmtpReceivers,
    /// The addresses the API listens on, once it does: runs never reach them.
    listening: std::sync::Mutex<Vec<std::net::SocketAddr>>,
    /// Failure screenshots until they are stored, and the temporary store.
    _scratch: tempfile::TempDir,
}

/// A run's place in the queue: given up when the run ends, whether or not it got a slot.
pub struct QueueTicket {
    runs: Arc<Semaphore>,
    admitted: Arc<AtomicUsize>,
    waiting: Arc<AtomicUsize>,
}

impl QueueTicket {
    /// Waits (first come, first served) for a slot to run in.
    pub async fn slot(&self) -> OwnedSemaphorePermit {
        /// Counts the run as waiting until it has a slot or stops waiting (a run cancelled
        /// in the queue drops this future mid-wait).
        struct Waiting<'a>(&'a AtomicUsize);
        impl Drop for Waiting<'_> {
            fn drop(&mut self) {
                self.0.fetch_sub(1, Ordering::SeqCst);
            }
        }
        self.waiting.fetch_add(1, Ordering::SeqCst);
        let _waiting = Waiting(&self.waiting);
        self.runs
            .clone()
            .acquire_owned()
            .await
            .expect("the run semaphore is never closed")
    }
}

impl Drop for QueueTicket {
    fn drop(&mut self) {
        self.admitted.fetch_sub(1, Ordering::SeqCst);
    }
}

impl AppState {
    /// Opens the store, marks the runs this replica left behind as interrupted, and starts
    /// the upkeep (leases, cancellations from other replicas, retention).
    pub async fn start(config: ServerConfig) -> Result<AppState, StoreError> {
        let scratch = tempfile::Builder::new()
            .prefix("planlock-serve-")
            .tempdir()
            .map_err(|e| StoreError::from(format!("cannot create a temp dir: {e}")))?;
        let spec = match &config.store {
            Some(s) => s.clone(),
            None => format!("sqlite:{}", scratch.path().join("runs.sqlite3").display()),
        };
        let store = Store::open(&spec).await?;
        let max_runs = config.max_runs.max(1);
        let metrics = Arc::new(Metrics::default());
        let state = AppState(Arc::new(Shared {
            planner: config.planner,
            token: config.token.filter(|t| !t.is_empty()),
            max_runs,
            queue_limit: config.queue,
            settings: config.settings,
            limits: config.limits,
            body_limit: config.body_limit,
            host_names: config.host_names,
            secrets: config.secrets,
            inboxes: config.inboxes,
            allow_request_inboxes: config.allow_request_inboxes,
            browser: BrowserSlot::new(config.browser, metrics.clone()),
            registry: Registry::new(scratch.path().join("artifacts")),
            store,
            replica_id: config.replica_id,
            heartbeat: config.heartbeat,
            lease: config.lease,
            keep_days: config.keep_days,
            webhook_secret: config.webhook_secret.filter(|s| !s.is_empty()),
            webhook_retries: config.webhook_retries,
            read_timeout: config.read_timeout,
            metrics,
            runs: Arc::new(Semaphore::new(max_runs)),
            admitted: Arc::new(AtomicUsize::new(0)),
            waiting: Arc::new(AtomicUsize::new(0)),
            planning: Arc::new(Semaphore::new(max_runs)),
            shutdown: CancellationToken::new(),
            smtp: SmtpReceivers::default(),
            listening: std::sync::Mutex::default(),
            _scratch: scratch,
        }));
        let interrupted = runs::sweep_orphans(&state, true).await;
        if interrupted > 0 {
            tracing::warn!(
                runs = interrupted,
                "runs left in flight by a stopped server were marked interrupted"
            );
        }
        state.forget_old_runs().await;
        spawn_upkeep(&state);
        Ok(state)
    }

    /// The addresses the API listens on (runs never reach them).
    pub(crate) fn listen_addresses(&self) -> Vec<std::net::SocketAddr> {
        self.0
            .listening
            .lock()
            .map(|l| l.clone())
            .unwrap_or_default()
    }

    pub(crate) fn read_timeout(&self) -> Duration {
        self.0.read_timeout
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
    /// ` (its inboxes: a, b)` (or how to configure some), for messages.
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
    pub(crate) fn registry(&self) -> &Registry {
        &self.0.registry
    }
    pub(crate) fn store(&self) -> &Store {
        &self.0.store
    }
    pub(crate) fn replica_id(&self) -> &str {
        &self.0.replica_id
    }
    pub(crate) fn lease(&self) -> Duration {
        self.0.lease
    }
    pub(crate) fn metrics(&self) -> &Metrics {
        &self.0.metrics
    }
    pub(crate) fn metrics_arc(&self) -> Arc<Metrics> {
        self.0.metrics.clone()
    }
    pub(crate) fn webhook_secret(&self) -> Option<&str> {
        self.0.webhook_secret.as_deref()
    }
    pub(crate) fn webhook_retries(&self) -> &[Duration] {
        &self.0.webhook_retries
    }
    pub(crate) fn shutdown_token(&self) -> &CancellationToken {
        &self.0.shutdown
    }
    pub(crate) fn smtp(&self) -> &SmtpReceivers {
        &self.0.smtp
    }
    pub(crate) async fn browser(&self) -> Result<BrowserHandle, crate::browser::BrowserError> {
        self.0.browser.get().await
    }

    /// Makes sure the shared browser is up (the server starts it before listening).
    /// Returns which browser runs, in words for the log.
    pub async fn start_browser(&self) -> Result<String, crate::browser::BrowserError> {
        let browser = self.0.browser.get().await?;
        Ok(match browser.executable() {
            Some(path) if crate::browser::is_headless_shell(path) => {
                format!("Chromium's headless shell {}", path.display())
            }
            Some(path) => format!("Chromium {}", path.display()),
            None => "a remote browser".to_string(),
        })
    }

    /// Whether callers must send the bearer token.
    pub fn requires_token(&self) -> bool {
        self.0.token.is_some()
    }

    /// Runs executing right now.
    pub fn runs_in_flight(&self) -> usize {
        self.0.max_runs - self.0.runs.available_permits()
    }

    /// Runs waiting for a slot right now.
    pub fn queue_depth(&self) -> usize {
        self.0.waiting.load(Ordering::SeqCst)
    }

    /// This replica's name in the store.
    pub fn replica(&self) -> &str {
        &self.0.replica_id
    }

    /// Where runs are kept, for logs (no password).
    pub fn store_place(&self) -> &str {
        self.0.store.place()
    }

    /// Cancels every run in flight or queued (their results say `cancelled`) and refuses
    /// new ones.
    pub fn begin_shutdown(&self) {
        self.0.shutdown.cancel();
    }

    /// After [`begin_shutdown`](Self::begin_shutdown): waits until every run has stored its
    /// result (at most `grace`), then closes the browser the service launched and the store.
    pub async fn finish_shutdown(&self, grace: Duration) {
        let deadline = tokio::time::Instant::now() + grace;
        while !self.0.registry.is_empty() && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        if !self.0.registry.is_empty() {
            tracing::warn!(
                runs = ?self.0.registry.running(),
                "runs did not end within {} s; closing the browser anyway",
                grace.as_secs()
            );
        }
        self.0.browser.close().await;
        self.0.store.close().await;
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

    /// A place among the runs executing or waiting, or 429 when the queue is full.
    fn admit(&self) -> Result<QueueTicket, ApiError> {
        let limit = self.0.max_runs + self.0.queue_limit;
        let before = self.0.admitted.fetch_add(1, Ordering::SeqCst);
        let ticket = QueueTicket {
            runs: self.0.runs.clone(),
            admitted: self.0.admitted.clone(),
            waiting: self.0.waiting.clone(),
        };
        if before < limit {
            return Ok(ticket);
        }
        drop(ticket);
        let (n, q) = (self.0.max_runs, self.0.queue_limit);
        // Roughly when a place frees: one run's time spread over the slots.
        let retry = self
            .0
            .metrics
            .mean_run_seconds()
            .map(|s| (s / n as f64).ceil() as u64)
            .unwrap_or(1)
            .clamp(1, 60);
        Err(ApiError {
            retry_after: Some(retry),
            ..ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "too_many_runs",
                format!(
                    "{n} run{} executing and {q} waiting, the most this server takes \
                     (--max-runs {n}, --queue {q}); try again in about {retry} s",
                    if n == 1 { " is" } else { "s are" }
                ),
            )
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

    fn gauges(&self) -> Gauges {
        Gauges {
            runs_in_flight: self.runs_in_flight(),
            queue_depth: self.queue_depth(),
            max_runs: self.0.max_runs,
            queue_limit: self.0.queue_limit,
        }
    }

    async fn forget_old_runs(&self) {
        let keep = Duration::from_secs(u64::from(self.0.keep_days) * 86_400);
        let before = store::now_ms() - keep.as_millis() as i64;
        match self.0.store.forget_finished_before(before).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(runs = n, keep_days = self.0.keep_days, "old runs forgotten"),
            Err(e) => tracing::warn!(error = %e, "retention failed"),
        }
    }
}

/// The replica's upkeep, for as long as the state lives: renews its live runs' lease, marks
/// runs whose owner stopped as interrupted, cancels its runs that a `DELETE` on another
/// replica asked for, and forgets old runs.
fn spawn_upkeep(state: &AppState) {
    let weak: Weak<Shared> = Arc::downgrade(&state.0);
    let stop = state.0.shutdown.clone();
    let heartbeat = state.0.heartbeat;
    tokio::spawn(async move {
        let mut last_beat = tokio::time::Instant::now();
        let mut last_retention = tokio::time::Instant::now();
        loop {
            tokio::select! {
                _ = tokio::time::sleep(CANCEL_POLL) => {}
                _ = stop.cancelled() => return,
            }
            let Some(shared) = weak.upgrade() else { return };
            let state = AppState(shared);
            if !state.0.registry.is_empty() {
                match state.0.store.cancel_requests(&state.0.replica_id).await {
                    Ok(ids) => {
                        for id in ids {
                            if state.0.registry.cancel(&id) {
                                tracing::info!(run_id = %id, "cancelled on another replica's request");
                            }
                        }
                    }
                    Err(e) => tracing::warn!(error = %e, "cannot read cancellation requests"),
                }
            }
            if last_beat.elapsed() >= heartbeat {
                last_beat = tokio::time::Instant::now();
                if let Err(e) = state.0.store.heartbeat(&state.0.replica_id).await {
                    tracing::warn!(error = %e, "cannot renew the lease of this replica's runs");
                }
                runs::sweep_orphans(&state, false).await;
            }
            if last_retention.elapsed() >= RETENTION_EVERY {
                last_retention = tokio::time::Instant::now();
                state.forget_old_runs().await;
            }
        }
    });
}

/// The service's routes. Tests drive it with `oneshot` or on a real port.
pub fn app(state: AppState) -> Router {
    let v1 = Router::new()
        .route("/v1/act", post(act))
        .route("/v1/plans", post(create_plan))
        .route("/v1/runs", post(create_run).get(list_runs))
        .route("/v1/runs/{id}", get(get_run).delete(cancel_run))
        .route("/v1/runs/{id}/screenshots/{file}", get(screenshot))
        .route("/v1/schema/plan", get(plan_schema))
        .route_layer(middleware::from_fn_with_state(state.clone(), require_token));
    Router::new()
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics_route))
        .route("/openapi.json", get(openapi))
        .merge(v1)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(
            state.clone(),
            guard::same_origin_only,
        ))
        .layer(DefaultBodyLimit::max(state.body_limit()))
        .layer(middleware::from_fn_with_state(state.clone(), request_log))
        .with_state(state)
}

/// Gives every request an id (the caller's `X-Request-Id` when it is short and plain),
/// returns it, and logs the answer with it.
async fn request_log(State(state): State<AppState>, req: Request, next: Next) -> Response {
    static REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");
    let id = req
        .headers()
        .get(&REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .filter(|v| {
            !v.is_empty()
                && v.len() <= 64
                && v.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
        })
        .map(str::to_string)
        .unwrap_or_else(|| format!("req-{}", crate::runner::new_run_id()));
    let (method, path) = (req.method().clone(), req.uri().path().to_string());
    let began = std::time::Instant::now();
    let span = tracing::info_span!("request", request_id = %id, %method, path = %path);
    let mut response = next.run(req).instrument(span.clone()).await;
    let status = response.status().as_u16();
    state.metrics().http(status);
    span.in_scope(|| {
        tracing::info!(
            status,
            duration_ms = began.elapsed().as_millis() as u64,
            "answered"
        )
    });
    if let Ok(v) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(REQUEST_ID.clone(), v);
    }
    response
}

/// Serves `app` on `listener` until `shutdown` resolves; then stops accepting, cancels the
/// runs in flight and queued (their callers get `cancelled` results), and closes the
/// browser and the store.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    if let (Ok(addr), Ok(mut listening)) = (listener.local_addr(), state.0.listening.lock()) {
        listening.push(addr);
    }
    // A client gets `read_timeout` for each request head, idle keep-alive included: a
    // connection that drips its head byte by byte, or says nothing, is closed then.
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(state.read_timeout());
    let connections = GracefulShutdown::new();
    let router = app(state.clone());
    let mut listener = ApiListener(listener);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (io, _) = tokio::select! {
            accepted = axum::serve::Listener::accept(&mut listener) => accepted,
            () = &mut shutdown => break,
        };
        let router = router.clone();
        let service =
            hyper::service::service_fn(move |req: axum::http::Request<hyper::body::Incoming>| {
                router.clone().oneshot(req.map(axum::body::Body::new))
            });
        let connection = http.serve_connection(TokioIo::new(io), service);
        let connection = connections.watch(connection);
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(target: "planlock::server", "connection ended: {e}");
            }
        });
    }
    drop(listener);
    let running = state.registry().running();
    if running.is_empty() {
        tracing::info!("shutting down");
    } else {
        tracing::info!(runs = ?running, "shutting down: cancelling the runs in flight");
    }
    state.begin_shutdown();
    // Answers in flight are finished (cancelled runs answer with their results).
    connections.shutdown().await;
    state.finish_shutdown(SHUTDOWN_GRACE).await;
    Ok(())
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
