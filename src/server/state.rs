//! The state every handler shares, reached only through its methods: the configuration, the
//! shared browser, the run store, the live runs, the queue in front of them, and shutdown.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

use super::browser::{BrowserHandle, BrowserSlot, BrowserSource};
use super::error::{ApiError, ApiErrorKind};
use super::inboxes::ServerInboxes;
use super::metrics::{Gauges, Metrics};
use super::registry::Registry;
use super::store::{Admission, Notice, Refusal, Store, StoreError};
use crate::browser::BrowserError;
use crate::inbox::Inbox;
use crate::plan::Limits;
use crate::planner::PlannerConfig;
use crate::runner::{Secrets, Settings};
use crate::wait;

/// Largest request body by default: plans are a few KiB.
pub const DEFAULT_BODY_LIMIT: usize = 1 << 20;
/// Runs that may wait for a slot by default.
pub const DEFAULT_QUEUE: usize = 32;
/// Days finished runs are kept by default.
pub const DEFAULT_KEEP_DAYS: u32 = 7;
/// How long a draining replica lets its runs finish by default.
pub const DEFAULT_DRAIN: Duration = Duration::from_secs(60);
/// How long a client may take to send a request's head, and then its body, by default.
pub const DEFAULT_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Waits before the 2nd, 3rd, … attempt of a webhook, by default.
pub const DEFAULT_WEBHOOK_RETRIES: &[Duration] = &[
    Duration::from_secs(1),
    Duration::from_secs(5),
    Duration::from_secs(30),
    Duration::from_secs(120),
    Duration::from_secs(600),
];

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
    /// Runs one caller may have executing and waiting at once; more are answered 429.
    /// `None`: half of all places (`max_runs + queue`), at least `max_runs`.
    pub max_runs_per_caller: Option<usize>,
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
    pub replica: ReplicaConfig,
    /// Finished runs older than this are forgotten.
    pub keep_days: u32,
    pub webhook: WebhookConfig,
    /// The longest a client may take to send a request's head (from the connection's start,
    /// or the end of its previous answer) and, then, its body.
    pub read_timeout: Duration,
    /// The command serving: `planlock serve`, or `planlock mcp` over stdio. Hints that name
    /// a server option name this one (both take the same options).
    pub command: &'static str,
}

/// This replica among those sharing a store: its name, the lease of its live runs, and how
/// it stops.
#[derive(Debug, Clone)]
pub struct ReplicaConfig {
    /// This replica's name in the store. Runs it owned that are still live when it starts
    /// again are marked interrupted at once, so two live replicas must not share one.
    pub id: String,
    /// How often this replica renews the lease of its live runs.
    pub heartbeat: Duration,
    /// A live run whose lease was not renewed for this long is marked interrupted.
    pub lease: Duration,
    /// With a shared queue: how long a replica told to stop lets its runs finish before it
    /// cancels them (it claims no new ones meanwhile).
    pub drain: Duration,
}

/// How the results of runs with a `callback_url` are sent.
#[derive(Debug, Clone)]
pub struct WebhookConfig {
    /// Signs webhook bodies; `callback_url` is refused without it.
    pub secret: Option<String>,
    /// Waits between webhook attempts.
    pub retries: Vec<Duration>,
}

impl ServerConfig {
    /// Defaults around a browser source: no planner, no token, 4 runs and a queue of 32,
    /// 1 MiB bodies, a temporary store, a random replica id.
    pub fn new(browser: BrowserSource) -> ServerConfig {
        ServerConfig {
            browser,
            planner: Err(ApiError::new(
                ApiErrorKind::ModelNotConfigured,
                "this server has no planner configured",
            )),
            token: None,
            max_runs: 4,
            queue: DEFAULT_QUEUE,
            max_runs_per_caller: None,
            settings: Settings::default(),
            limits: Limits::default(),
            body_limit: DEFAULT_BODY_LIMIT,
            host_names: Vec::new(),
            secrets: Secrets::none(),
            inboxes: Vec::new(),
            allow_request_inboxes: false,
            store: None,
            replica: ReplicaConfig {
                id: format!("replica-{}", crate::runner::new_run_id()),
                heartbeat: Duration::from_secs(5),
                lease: Duration::from_secs(30),
                drain: DEFAULT_DRAIN,
            },
            keep_days: DEFAULT_KEEP_DAYS,
            webhook: WebhookConfig {
                secret: None,
                retries: DEFAULT_WEBHOOK_RETRIES.to_vec(),
            },
            read_timeout: DEFAULT_READ_TIMEOUT,
            command: "planlock serve",
        }
    }
}

/// The state every handler shares. Cheap to clone.
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

/// The state, without keeping it alive (the upkeep task holds this).
pub struct WeakState(Weak<Shared>);

impl WeakState {
    pub fn upgrade(&self) -> Option<AppState> {
        self.0.upgrade().map(AppState)
    }
}

struct Shared {
    command: &'static str,
    planner: Result<PlannerConfig, ApiError>,
    token: Option<String>,
    max_runs: usize,
    queue_limit: usize,
    max_runs_per_caller: usize,
    /// Runs accepted and not ended, by caller.
    by_caller: CallerCounts,
    settings: Settings,
    limits: Limits,
    body_limit: usize,
    host_names: Vec<String>,
    secrets: Secrets,
    inboxes: ServerInboxes,
    browser: BrowserSlot,
    registry: Registry,
    store: Store,
    replica: ReplicaConfig,
    keep_days: u32,
    webhook: WebhookConfig,
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
    /// Cancelled when a replica stops claiming runs (drain, then shutdown).
    draining: CancellationToken,
    /// Set once this replica claims from the store's shared queue (a started PostgreSQL
    /// store); until then it runs what it accepts itself.
    shared: std::sync::atomic::AtomicBool,
    /// Wakes this replica's claimer: a run was queued, or a slot freed.
    claims: Arc<tokio::sync::Notify>,
    /// The store's notices (shared queue only), for whoever follows a run.
    notices: tokio::sync::broadcast::Sender<Notice>,
    /// The addresses the API listens on, once it does: runs never reach them.
    listening: std::sync::Mutex<Vec<std::net::SocketAddr>>,
    /// Failure screenshots until they are stored, and the temporary store.
    _scratch: tempfile::TempDir,
}

/// Who asks for runs, for `--max-runs-per-caller`: the bearer token it was let in with, or
/// its address when the server takes no token.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Caller {
    /// Holders of the server's token (the one token: they count as one).
    Token,
    /// The client's address (a caller through a proxy is the proxy).
    Address(std::net::IpAddr),
    /// A request that came with no connection (driven in-process).
    Unknown,
}

/// Runs accepted and not ended, by caller.
type CallerCounts = Arc<std::sync::Mutex<std::collections::HashMap<Caller, usize>>>;

/// Half of all places, but never fewer than the slots: one caller may always fill them.
fn default_runs_per_caller(max_runs: usize, queue: usize) -> usize {
    (max_runs + queue).div_ceil(2).max(max_runs)
}

/// A run's place in the queue: given up when the run ends, whether or not it got a slot.
pub struct QueueTicket {
    runs: Arc<Semaphore>,
    admitted: Arc<AtomicUsize>,
    waiting: Arc<AtomicUsize>,
    /// The caller's count of runs, given back with the place.
    caller: Option<(Caller, CallerCounts)>,
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
        if let Some((caller, counts)) = self.caller.take() {
            let mut counts = counts.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(n) = counts.get_mut(&caller) {
                *n -= 1;
                if *n == 0 {
                    counts.remove(&caller);
                }
            }
        }
    }
}

impl Caller {
    /// The caller as the store counts it across replicas.
    pub fn key(&self) -> String {
        match self {
            Caller::Token => "token".to_string(),
            Caller::Address(ip) => ip.to_string(),
            Caller::Unknown => "unknown".to_string(),
        }
    }

    /// The caller, in a sentence that answers it.
    fn phrase(&self) -> String {
        match self {
            Caller::Token => "this server's token".to_string(),
            Caller::Address(ip) => format!("the caller at {ip}"),
            Caller::Unknown => "this caller".to_string(),
        }
    }
}

impl AppState {
    /// Opens the store and nothing more: no run is swept and no task is spawned, so handlers
    /// can be driven on it in tests. [`AppState::start`] is what a server runs.
    pub async fn open(config: ServerConfig) -> Result<AppState, StoreError> {
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
        Ok(AppState(Arc::new(Shared {
            command: config.command,
            planner: config.planner,
            token: config.token.filter(|t| !t.is_empty()),
            max_runs,
            queue_limit: config.queue,
            max_runs_per_caller: config
                .max_runs_per_caller
                .unwrap_or_else(|| default_runs_per_caller(max_runs, config.queue))
                .max(1),
            by_caller: Arc::default(),
            settings: config.settings,
            limits: config.limits,
            body_limit: config.body_limit,
            host_names: config.host_names,
            secrets: config.secrets,
            inboxes: ServerInboxes::new(config.inboxes, config.allow_request_inboxes),
            browser: BrowserSlot::new(config.browser, metrics.clone()),
            registry: Registry::new(scratch.path().join("artifacts")),
            store,
            replica: config.replica,
            keep_days: config.keep_days,
            webhook: WebhookConfig {
                secret: config.webhook.secret.filter(|s| !s.is_empty()),
                ..config.webhook
            },
            read_timeout: config.read_timeout,
            metrics,
            runs: Arc::new(Semaphore::new(max_runs)),
            admitted: Arc::new(AtomicUsize::new(0)),
            waiting: Arc::new(AtomicUsize::new(0)),
            planning: Arc::new(Semaphore::new(max_runs)),
            shutdown: CancellationToken::new(),
            draining: CancellationToken::new(),
            shared: std::sync::atomic::AtomicBool::new(false),
            claims: Arc::new(tokio::sync::Notify::new()),
            notices: tokio::sync::broadcast::channel(1024).0,
            listening: std::sync::Mutex::default(),
            _scratch: scratch,
        })))
    }

    pub(crate) fn downgrade(&self) -> WeakState {
        WeakState(Arc::downgrade(&self.0))
    }

    /// The addresses the API listens on (runs never reach them).
    pub(crate) fn listen_addresses(&self) -> Vec<std::net::SocketAddr> {
        self.0
            .listening
            .lock()
            .map(|l| l.clone())
            .unwrap_or_default()
    }

    /// Remembers an address the API listens on.
    pub(crate) fn listens_on(&self, addr: std::net::SocketAddr) {
        if let Ok(mut listening) = self.0.listening.lock() {
            listening.push(addr);
        }
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
    /// The bearer token callers must send, when there is one.
    pub(crate) fn token(&self) -> Option<&str> {
        self.0.token.as_deref()
    }
    pub(crate) fn secrets(&self) -> &Secrets {
        &self.0.secrets
    }
    /// `planlock serve` or `planlock mcp`: the command whose options hints name.
    pub(crate) fn command(&self) -> &'static str {
        self.0.command
    }
    pub(crate) fn inboxes(&self) -> &ServerInboxes {
        &self.0.inboxes
    }
    pub(crate) fn settings(&self) -> &Settings {
        &self.0.settings
    }
    pub(crate) fn limits(&self) -> &Limits {
        &self.0.limits
    }
    pub(crate) fn registry(&self) -> &Registry {
        &self.0.registry
    }
    pub(crate) fn store(&self) -> &Store {
        &self.0.store
    }
    pub(crate) fn replica_id(&self) -> &str {
        &self.0.replica.id
    }
    pub(crate) fn heartbeat(&self) -> Duration {
        self.0.replica.heartbeat
    }
    pub(crate) fn lease(&self) -> Duration {
        self.0.replica.lease
    }
    pub(crate) fn keep_days(&self) -> u32 {
        self.0.keep_days
    }
    pub(crate) fn metrics(&self) -> &Metrics {
        &self.0.metrics
    }
    pub(crate) fn metrics_arc(&self) -> Arc<Metrics> {
        self.0.metrics.clone()
    }
    /// How webhooks are signed and retried (no secret: `callback_url` is refused).
    pub(crate) fn webhook(&self) -> &WebhookConfig {
        &self.0.webhook
    }
    pub(crate) fn shutdown_token(&self) -> &CancellationToken {
        &self.0.shutdown
    }
    pub(crate) fn shutting_down(&self) -> bool {
        self.0.shutdown.is_cancelled()
    }
    pub(crate) async fn browser(&self) -> Result<BrowserHandle, BrowserError> {
        self.0.browser.get().await
    }
    /// `Ok` when the browser is up (without launching one), else why not.
    pub(crate) async fn browser_status(&self) -> Result<(), String> {
        self.0.browser.status().await
    }

    /// Makes sure the shared browser is up (the server starts it before listening).
    /// Returns which browser runs, in words for the log.
    pub async fn start_browser(&self) -> Result<String, BrowserError> {
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

    /// Runs waiting for a slot right now: in the shared queue, on every replica's behalf,
    /// or in this server's own.
    pub async fn queue_depth(&self) -> usize {
        if self.shared_queue() {
            match self.0.store.queue_depth().await {
                Ok(n) => return n,
                Err(e) => tracing::warn!(error = %e, "cannot count the shared queue"),
            }
        }
        self.0.waiting.load(Ordering::SeqCst)
    }

    /// Whether queued runs wait in the store for any replica: a PostgreSQL store, once
    /// [`AppState::start`] has this replica claiming from it. An opened state (handlers
    /// driven in tests) runs what it accepts itself.
    pub fn shared_queue(&self) -> bool {
        self.0.shared.load(Ordering::SeqCst)
    }

    /// This replica claims from the store's shared queue from now on, when it has one.
    pub(crate) fn share_queue(&self) -> bool {
        let shared = self.0.store.is_shared_queue();
        self.0.shared.store(shared, Ordering::SeqCst);
        shared
    }

    /// Slots free on this replica.
    pub(crate) fn free_slots(&self) -> usize {
        self.0.runs.available_permits()
    }

    /// A slot, when one is free now.
    pub(crate) fn try_slot(&self) -> Option<OwnedSemaphorePermit> {
        self.0.runs.clone().try_acquire_owned().ok()
    }

    /// Wakes this replica's claimer.
    pub(crate) fn wake_claimer(&self) {
        self.0.claims.notify_one();
    }

    /// Resolves when the claimer should look at the queue again.
    pub(crate) fn claims(&self) -> Arc<tokio::sync::Notify> {
        self.0.claims.clone()
    }

    /// The store's notices, from now on.
    pub(crate) fn notices(&self) -> tokio::sync::broadcast::Receiver<Notice> {
        self.0.notices.subscribe()
    }

    /// Passes a notice on to whoever follows runs.
    pub(crate) fn tell(&self, notice: Notice) {
        let _ = self.0.notices.send(notice);
    }

    /// Cancelled once this replica stops claiming runs.
    pub(crate) fn draining_token(&self) -> &CancellationToken {
        &self.0.draining
    }

    /// Stops claiming and accepting runs (a shared queue keeps the waiting ones for the
    /// other replicas), then waits until this replica's runs have ended, at most the drain
    /// deadline. Returns whether they all did.
    pub async fn drain(&self) -> bool {
        self.0.draining.cancel();
        let deadline = tokio::time::Instant::now() + self.0.replica.drain;
        let registry = &self.0.registry;
        wait::until(deadline, Duration::from_millis(25), || async {
            registry.is_empty().then_some(())
        })
        .await
        .is_some()
    }

    /// This replica's name in the store.
    pub fn replica(&self) -> &str {
        &self.0.replica.id
    }

    /// Where runs are kept, for logs (no password).
    pub fn store_place(&self) -> &str {
        self.0.store.place()
    }

    /// Cancels every run in flight or queued (their results say `cancelled`) and refuses
    /// new ones.
    pub fn begin_shutdown(&self) {
        self.0.draining.cancel();
        self.0.shutdown.cancel();
    }

    /// After [`begin_shutdown`](Self::begin_shutdown): waits until every run has stored its
    /// result (at most `grace`), then closes the browser the service launched and the store.
    pub async fn finish_shutdown(&self, grace: Duration) {
        let deadline = tokio::time::Instant::now() + grace;
        let registry = &self.0.registry;
        wait::until(deadline, Duration::from_millis(25), || async {
            registry.is_empty().then_some(())
        })
        .await;
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

    /// 503 once shutdown has begun.
    pub(crate) fn accepting(&self) -> Result<(), ApiError> {
        if self.0.shutdown.is_cancelled() || self.0.draining.is_cancelled() {
            return Err(ApiError::new(
                ApiErrorKind::ShuttingDown,
                "the server is shutting down and starts no new runs",
            ));
        }
        Ok(())
    }

    /// A place among the runs executing or waiting, or 429 when the caller holds its share
    /// of them already, or when the queue is full.
    pub(crate) fn admit(&self, caller: &Caller) -> Result<QueueTicket, ApiError> {
        let limit = self.0.max_runs + self.0.queue_limit;
        {
            let mut counts = self.0.by_caller.lock().unwrap_or_else(|e| e.into_inner());
            let held = counts.entry(caller.clone()).or_insert(0);
            if *held >= self.0.max_runs_per_caller {
                return Err(self.refusal(caller, Refusal::Caller));
            }
            *held += 1;
        }
        let before = self.0.admitted.fetch_add(1, Ordering::SeqCst);
        let ticket = QueueTicket {
            runs: self.0.runs.clone(),
            admitted: self.0.admitted.clone(),
            waiting: self.0.waiting.clone(),
            caller: Some((caller.clone(), self.0.by_caller.clone())),
        };
        if before < limit {
            return Ok(ticket);
        }
        drop(ticket);
        Err(self.refusal(caller, Refusal::Queue))
    }

    /// What a shared queue admits a run of `caller` against.
    pub(crate) fn admission<'a>(&self, caller: &'a str) -> Admission<'a> {
        Admission {
            caller,
            per_caller: self.0.max_runs_per_caller,
            queue: self.0.queue_limit,
            free_slots: self.free_slots(),
        }
    }

    /// The 429 that says why a run was not admitted.
    pub(crate) fn refusal(&self, caller: &Caller, refusal: Refusal) -> ApiError {
        let (n, q) = (self.0.max_runs, self.0.queue_limit);
        // Roughly when a place frees: one run's time spread over the places that free.
        let retry = |places: usize| {
            self.0
                .metrics
                .mean_run_seconds()
                .map(|s| (s / places.max(1) as f64).ceil() as u64)
                .unwrap_or(1)
                .clamp(1, 60)
        };
        let across = if self.shared_queue() {
            " on all replicas"
        } else {
            ""
        };
        match refusal {
            Refusal::Caller => {
                let share = self.0.max_runs_per_caller;
                let retry = retry(share.min(n));
                ApiError::new(
                    ApiErrorKind::TooManyRunsForCaller,
                    format!(
                        "{} already holds {share} run{} executing or waiting{across}, the most \
                         one caller may on this server, so that others get their turn; try \
                         again in about {retry} s, when one of them has ended",
                        caller.phrase(),
                        if share == 1 { "" } else { "s" }
                    ),
                )
                .retry_after(retry)
            }
            Refusal::Queue if self.shared_queue() => {
                let retry = retry(n);
                ApiError::new(
                    ApiErrorKind::TooManyRuns,
                    format!(
                        "{q} runs are waiting in the queue the replicas share, the most it \
                         holds, and this replica's {n} slot{} busy; try again in about {retry} \
                         s",
                        if n == 1 { " is" } else { "s are" }
                    ),
                )
                .retry_after(retry)
            }
            Refusal::Queue => {
                let retry = retry(n);
                ApiError::new(
                    ApiErrorKind::TooManyRuns,
                    format!(
                        "{n} run{} executing and {q} waiting, the most this server takes; try \
                         again in about {retry} s",
                        if n == 1 { " is" } else { "s are" }
                    ),
                )
                .retry_after(retry)
            }
        }
    }

    /// Runs one caller may have executing and waiting at once.
    pub fn max_runs_per_caller(&self) -> usize {
        self.0.max_runs_per_caller
    }

    /// A place among the model calls in flight, or 429.
    pub(crate) fn planning_permit(&self) -> Result<OwnedSemaphorePermit, ApiError> {
        self.0.planning.clone().try_acquire_owned().map_err(|_| {
            let n = self.0.max_runs;
            ApiError::new(
                ApiErrorKind::TooManyPlans,
                format!(
                    "{n} plan request{} already waiting for the model, the most this \
                     server allows at once; try again shortly",
                    if n == 1 { " is" } else { "s are" }
                ),
            )
            .retry_after(1)
        })
    }

    /// The planner's configuration, or the 503 that says there is none.
    pub(crate) fn planner(&self) -> Result<PlannerConfig, ApiError> {
        self.0.planner.clone()
    }

    pub(crate) async fn gauges(&self) -> Gauges {
        Gauges {
            runs_in_flight: self.runs_in_flight(),
            queue_depth: self.queue_depth().await,
            max_runs: self.0.max_runs,
            queue_limit: self.0.queue_limit,
        }
    }
}
