//! Runs the service started: queued for a slot, each on its own task, its state, events,
//! screenshots and result written to the store as they happen (and streamed when asked),
//! cancellable by id from any replica sharing the store.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio::sync::OwnedSemaphorePermit;

use axum::body::Bytes;
use tokio::sync::{mpsc, oneshot, watch};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::api::{EndedRun, PlannedLine, ResultLine, ResultTag, RunProgress, RunView, StreamLine};
use super::error::{ApiError, ApiErrorKind};
use super::inboxes;
use super::registry::{Done, valid_screenshot_name};
use super::request::{Ask, Inboxes, Options, ReadBody, RunBody};
use super::state::{AppState, Caller, QueueTicket};
use super::store::{NewRun, StoredRun, now_ms};
use super::webhook::{self, Callback};
use crate::inbox::binding::BindInboxes;
use crate::lock::{AddressPolicy, Lock};
use crate::pipeline::run::{Unlocked, lock_run, ready};
use crate::plan::Plan;
use crate::runner::{
    self, Binding, Event, Failure, LockedRun, Progress, RunRecord, RunResult, RunSpec, Settings,
    StepDetail, step_refs,
};

/// A locked run and what the service gives it to start.
pub struct Launch {
    pub run: LockedRun,
    /// A line streamed before the run's events (`act`: the plan).
    pub prelude: Option<PlannedLine>,
    /// Where to POST the result when the run ends.
    pub callback: Option<Callback>,
    /// The request again, for the replica that claims the run from a shared queue.
    pub replay: Replay,
}

/// What a replica needs to run a queued run it did not accept: the request as a replay of
/// its plan (an `act` run's lock kept as its sites). It holds the caller's secrets, so it
/// leaves the store when a replica claims the run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Replay {
    plan: serde_json::Value,
    name: Option<String>,
    vars: BTreeMap<String, String>,
    secrets: BTreeMap<String, String>,
    inbox: Vec<String>,
    allowed_hosts: Vec<String>,
    callback_url: Option<String>,
    strict: bool,
}

impl Replay {
    /// The answers to a plan's questions that the request's variables did not give: run as
    /// variables wherever the run goes.
    pub fn answered(&mut self, answers: &[crate::pipeline::Answer]) {
        for a in answers
            .iter()
            .filter(|a| a.source != crate::pipeline::AnswerSource::Given)
        {
            self.vars.insert(a.var.clone(), a.value.clone());
        }
    }

    /// The run again, on this replica, under the id it was accepted with.
    pub async fn launch(self, state: &AppState, run_id: &str) -> Result<Launch, ApiError> {
        let body = RunBody {
            plan: self.plan,
            options: Options {
                vars: self.vars,
                secrets: self.secrets,
                inbox: Inboxes::Many(self.inbox),
                allowed_hosts: self.allowed_hosts,
                callback_url: self.callback_url,
                strict: self.strict,
                ..Options::default()
            },
        };
        let (plan, ask) = body.read(state)?;
        let mut spec = replay_spec(state, plan, &ask);
        if let Some(name) = self.name {
            spec = spec.named(name);
        }
        prepare_as(state, spec, ask, run_id.to_string()).await
    }
}

/// A run that was accepted (queued or running).
pub struct Started {
    pub run_id: String,
    /// Becomes `Some` when the run ends and its result is stored.
    pub done: Done,
    /// The NDJSON lines (events, then the result), when streaming was asked for.
    /// Typed: the HTTP stream writes each as an NDJSON [`line`], MCP reads its events.
    pub lines: Option<mpsc::UnboundedReceiver<StreamLine>>,
}

/// One NDJSON line.
pub(super) fn line(value: &StreamLine) -> Bytes {
    let mut text = serde_json::to_vec(value).unwrap_or_else(|_| b"{}".to_vec());
    text.push(b'\n');
    Bytes::from(text)
}

/// Replaces a failure's server-side `screenshot` path by `screenshot_url`, where it is
/// served: no path on the server reaches a caller. Returns the file, to be stored.
fn link_screenshot(run_id: &str, detail: &mut StepDetail) -> Option<PathBuf> {
    let path = PathBuf::from(detail.screenshot.take()?);
    let file = path.file_name()?.to_str()?.to_string();
    detail.screenshot_url = Some(format!("/v1/runs/{run_id}/screenshots/{file}"));
    Some(path)
}

/// What a run's task hands its writer, in order.
enum Record {
    Screenshot(PathBuf),
    Event(Box<Event>),
}

/// Writes a run's screenshots and events to the store as they happen, in order. A store
/// that fails is logged; the run goes on.
fn spawn_writer(
    state: &AppState,
    run_id: String,
) -> (mpsc::UnboundedSender<Record>, oneshot::Receiver<()>) {
    let (tx, mut rx) = mpsc::unbounded_channel::<Record>();
    let (flushed_tx, flushed) = oneshot::channel();
    let store = state.store().clone();
    tokio::spawn(
        async move {
            let mut seq = 0i64;
            while let Some(record) = rx.recv().await {
                match record {
                    Record::Screenshot(path) => {
                        let Some(file) = path.file_name().and_then(|f| f.to_str()) else {
                            continue;
                        };
                        match tokio::fs::read(&path).await {
                            Ok(png) => match store.put_screenshot(&run_id, file, png).await {
                                Ok(()) => {
                                    let _ = tokio::fs::remove_file(&path).await;
                                }
                                Err(e) => tracing::error!(error = %e, "screenshot not stored"),
                            },
                            Err(e) => tracing::warn!(error = %e, "screenshot unreadable"),
                        }
                    }
                    Record::Event(event) => {
                        if let Err(e) = store.append_event(&run_id, seq, &event).await {
                            tracing::error!(error = %e, "event not stored");
                        }
                        seq += 1;
                    }
                }
            }
            let _ = flushed_tx.send(());
        }
        .in_current_span(),
    );
    (tx, flushed)
}

/// The run of a plan a caller gave (`POST /v1/runs`): its lock is built from the plan's
/// `navigate` URLs and the allowed hosts, under the service's address rule.
pub fn replay_spec(state: &AppState, plan: Plan, ask: &Ask) -> RunSpec {
    RunSpec::new(plan)
        .vars(ask.vars.clone())
        .allow_hosts(ask.options.allowed_hosts.iter().cloned())
        .address_policy(AddressPolicy::Service)
        .service_addresses(state.listen_addresses())
}

/// What a request brings besides its plan, judged and bound inside the run's lock (the
/// request's own): its webhook, then its inboxes.
pub struct RequestSides<'a> {
    state: &'a AppState,
    ask: &'a Ask,
    /// The webhook, once judged; `None` inside when the request has none. Left out (`None`)
    /// when only the inboxes are bound (`validate_plan`).
    callback: Option<std::sync::Mutex<Option<Callback>>>,
}

impl<'a> RequestSides<'a> {
    /// The webhook and the inboxes of `ask`.
    pub fn of(state: &'a AppState, ask: &'a Ask) -> RequestSides<'a> {
        RequestSides {
            state,
            ask,
            callback: Some(std::sync::Mutex::new(None)),
        }
    }

    /// The inboxes of `ask` alone.
    pub fn inboxes(state: &'a AppState, ask: &'a Ask) -> RequestSides<'a> {
        RequestSides {
            state,
            ask,
            callback: None,
        }
    }

    /// The webhook judged while binding.
    fn callback(self) -> Option<Callback> {
        let slot = self.callback?;
        slot.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

#[async_trait::async_trait]
impl BindInboxes for RequestSides<'_> {
    type Error = ApiError;

    async fn bind(&self, lock: &Lock) -> Result<Vec<Binding>, ApiError> {
        if let (Some(slot), Some(url)) = (&self.callback, &self.ask.options.callback_url) {
            let callback = webhook::callback_of(self.state, url, lock).await?;
            *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(callback);
        }
        self.state.inboxes().connect(&self.ask.inboxes, lock).await
    }
}

/// A request that cannot become a run, in the API's words.
pub fn unlocked(e: Unlocked<ApiError>) -> ApiError {
    match e {
        Unlocked::Spec(e) => e.into(),
        Unlocked::Binding(e) => e,
    }
}

/// Everything a run needs, checked and locked from the request before anything is read,
/// by the pipeline's run half: the secrets, the lock, the callback and the inboxes judged
/// by it, the inboxes reachable, and a browser. `spec` is the run as the request made it
/// (its plan, variables and lock or hosts).
pub async fn prepare(state: &AppState, spec: RunSpec, ask: Ask) -> Result<Launch, ApiError> {
    prepare_as(state, spec, ask, crate::runner::new_run_id()).await
}

/// [`prepare`], under a given run id.
async fn prepare_as(
    state: &AppState,
    spec: RunSpec,
    ask: Ask,
    run_id: String,
) -> Result<Launch, ApiError> {
    crate::phase::mark(&run_id, "accepted");
    let secrets = ask.secrets(state)?;
    let plan = serde_json::to_value(spec.plan())
        .map_err(|e| ApiError::internal(format!("a plan is not JSON: {e}")))?;
    let spec = spec.run_id(run_id.clone()).settings(Settings {
        artifacts_dir: Some(state.registry().artifacts_of(&run_id)),
        strict: ask.options.strict,
        ..state.settings().clone()
    });
    let sides = RequestSides::of(state, &ask);
    let run = lock_run(spec, secrets, &sides).await.map_err(unlocked)?;
    let callback = sides.callback();
    // Asked now so a dead browser is a 503, not a failed run; the run asks again once it
    // has a slot.
    let browser = async { Ok::<_, ApiError>(state.browser().await?) };
    ready(run.inboxes(), inboxes::unreachable, browser)
        .await
        .map_err(|(e, _)| e)?;
    crate::phase::mark(run.run_id(), "checked");
    let given = ask.options;
    let mut allowed_hosts = given.allowed_hosts;
    for site in run.lock().sites() {
        if !allowed_hosts.contains(&site) {
            allowed_hosts.push(site);
        }
    }
    let replay = Replay {
        plan,
        name: run.name().map(str::to_string),
        vars: given.vars,
        secrets: given.secrets,
        inbox: given.inbox.list(),
        allowed_hosts,
        callback_url: given.callback_url,
        strict: given.strict,
    };
    Ok(Launch {
        run,
        prelude: None,
        callback,
        replay,
    })
}

/// Queues a run for a slot and starts it on its own task once it has one. The run goes on
/// when the caller disconnects; it ends at its last step, its first failure, its deadline,
/// `DELETE` (from any replica), or server shutdown (`cancelled`). 429 when the caller holds
/// its share of the places already, or the queue is full.
pub async fn start(
    state: &AppState,
    caller: &Caller,
    launch: Launch,
    stream: bool,
) -> Result<Started, ApiError> {
    let ticket = state.admit(caller)?;
    let run_id = launch.run.run_id().to_string();
    let (sites, steps) = new_run_parts(&launch);
    state
        .store()
        .create(&NewRun {
            owner: state.replica_id(),
            ..new_run(&run_id, &launch, &sites, &steps)
        })
        .await?;
    crate::phase::mark(&run_id, "queued");
    let (lines_tx, lines) = if stream {
        let (tx, rx) = mpsc::unbounded_channel();
        (Some(tx), Some(rx))
    } else {
        (None, None)
    };
    if let (Some(tx), Some(prelude)) = (&lines_tx, launch.prelude.clone()) {
        let _ = tx.send(StreamLine::Planned(Box::new(prelude)));
    }
    let done = spawn_run(state, launch, Slot::Waiting(ticket), lines_tx);
    Ok(Started {
        run_id,
        done,
        lines,
    })
}

/// The lock's sites and the plan's steps, as a new run is recorded with.
pub fn new_run_parts(launch: &Launch) -> (Vec<String>, Vec<runner::StepRef>) {
    (
        launch.run.lock().sites().collect(),
        step_refs(&launch.run.plan().steps),
    )
}

/// How a launch is recorded in the store.
pub fn new_run<'a>(
    id: &'a str,
    launch: &'a Launch,
    sites: &'a [String],
    steps: &'a [runner::StepRef],
) -> NewRun<'a> {
    NewRun {
        id,
        owner: "",
        steps,
        plan_name: launch.run.name(),
        allowed_hosts: sites,
        callback_url: launch.callback.as_ref().map(|c| c.url.as_str()),
        // The webhook is judged by the run's lock: its sites make it again elsewhere.
        callback_hosts: if launch.callback.is_some() {
            sites
        } else {
            &[]
        },
    }
}

/// How a run gets its slot: it waits in this server's queue, or it was claimed from the
/// shared queue with a slot already held.
pub enum Slot {
    Waiting(QueueTicket),
    Held(OwnedSemaphorePermit),
}

/// Runs a launch on its own task (once it has a slot): its events and result go to the
/// store, and to `lines` when given. Returns its completion.
pub fn spawn_run(
    state: &AppState,
    launch: Launch,
    slot: Slot,
    lines_tx: Option<mpsc::UnboundedSender<StreamLine>>,
) -> Done {
    let run_id = launch.run.run_id().to_string();
    let cancel = state.shutdown_token().child_token();
    let (done_tx, done) = watch::channel(None);
    state
        .registry()
        .insert(&run_id, cancel.clone(), done.clone());
    let span = tracing::info_span!("run", run_id = %run_id);
    let state = state.clone();
    let id = run_id;
    tokio::spawn(
        async move {
            let Launch { run, callback, .. } = launch;
            tracing::info!(
                steps = run.plan().steps.len(),
                may_visit = %run.lock().describe(),
                "run queued"
            );
            let (writer, flushed) = spawn_writer(&state, id.clone());
            let mut result = execute(&state, run, slot, &writer, lines_tx.as_ref(), cancel).await;
            for step in &mut result.steps {
                link_screenshot(&id, &mut step.detail);
            }
            drop(writer);
            let _ = flushed.await;
            let status = result.status.as_str();
            tracing::info!(status, duration_ms = result.duration_ms, summary = %result.summary, "run ended");
            state.metrics().run(status, result.duration_ms);
            // Only the one who ends a run delivers its webhook: a run another replica
            // already marked interrupted keeps that result, and its one delivery.
            let ended_here = match state.store().finish(&result).await {
                Ok(ended) => ended,
                Err(e) => {
                    tracing::error!(error = %e, "result not stored");
                    true
                }
            };
            crate::phase::mark(&id, "result stored");
            if let Some(tx) = lines_tx {
                let _ = tx.send(StreamLine::Result(Box::new(ResultLine {
                    event: ResultTag::Result,
                    result: result.clone(),
                })));
            }
            if let Some(callback) = callback.filter(|_| ended_here) {
                webhook::spawn_delivery(&state, id.clone(), callback, &result);
            }
            state.registry().remove(&id);
            state.wake_claimer();
            let _ = done_tx.send(Some(Arc::new(result)));
        }
        .instrument(span),
    );
    done
}

/// Waits for a slot, then runs. Always returns a whole result: cancelled while queued, or
/// failed when the browser cannot be had.
async fn execute(
    state: &AppState,
    run: LockedRun,
    slot: Slot,
    writer: &mpsc::UnboundedSender<Record>,
    lines: Option<&mpsc::UnboundedSender<StreamLine>>,
    cancel: CancellationToken,
) -> RunResult {
    let began = std::time::Instant::now();
    // The ticket is held until the run ends: it is the run's place among those admitted.
    let (_ticket, permit) = match slot {
        Slot::Held(permit) => (None, permit),
        Slot::Waiting(ticket) => {
            let permit = tokio::select! {
                p = ticket.slot() => p,
                _ = cancel.cancelled() => {
                    return RunResult::before_start(&run, &Failure::CancelledWaiting, began.elapsed());
                }
            };
            (Some(ticket), permit)
        }
    };
    crate::phase::mark(run.run_id(), "claimed");
    let browser = match state.browser().await {
        Ok(b) => b,
        Err(e) => return RunResult::before_start(&run, &Failure::from(e), began.elapsed()),
    };
    if let Err(e) = state.store().set_running(run.run_id()).await {
        tracing::error!(error = %e, "start not stored");
    }
    tracing::info!(
        queued_ms = began.elapsed().as_millis() as u64,
        "run started"
    );
    let id = run.run_id().to_string();
    let run_id = id.clone();
    let metrics = state.metrics_arc();
    let task = {
        let writer = writer.clone();
        let lines = lines.cloned();
        async move {
            let mut listener = |event: &Event| {
                let mut event = event.clone();
                if let Some(detail) = event.step_detail_mut()
                    && let Some(shot) = link_screenshot(&id, detail)
                {
                    let _ = writer.send(Record::Screenshot(shot));
                }
                if let (Some(step), Some(ms)) = (event.step(), event.duration_ms()) {
                    metrics.step(step.step_type, ms);
                }
                if let Some(tx) = &lines {
                    let _ = tx.send(StreamLine::Event(Box::new(event.clone())));
                }
                let _ = writer.send(Record::Event(Box::new(event)));
            };
            runner::run(&browser, run, &mut listener, cancel).await
        }
    };
    // A run of its own task: a panic inside it becomes a failed result, not a lost run.
    let result = match tokio::spawn(task.in_current_span()).await {
        Ok(result) => result,
        Err(e) => {
            tracing::error!(error = %e, "run stopped unexpectedly");
            RunResult::lost(&run_id, &Failure::Lost)
        }
    };
    drop(permit);
    result
}

/// `GET /v1/runs/{id}` of a stored run: its result once ended, else its progress so far.
pub async fn view(state: &AppState, run: &StoredRun) -> Result<RunView, ApiError> {
    if let Some(result) = &run.result {
        return Ok(RunView::Ended(Box::new(EndedRun {
            result: result.clone(),
            callback: run.callback(),
        })));
    }
    let events = state.store().events(&run.id).await?;
    Ok(RunView::InFlight(Box::new(RunProgress::of(
        run,
        Progress::of(&events),
    ))))
}

/// The result of a run whose server stopped before it ended: `failed`, kind `interrupted`,
/// with the steps its events recorded.
pub fn interrupted(run: &StoredRun, events: &[Event]) -> RunResult {
    let ran_for = run
        .times
        .started_ms
        .map(|s| (now_ms() - s).max(0))
        .unwrap_or(0);
    let failure = Failure::Interrupted {
        replica: run.owner.clone(),
    };
    RunResult::interrupted(
        &record(run, std::time::Duration::from_millis(ran_for as u64)),
        &Progress::of(events),
        &failure,
    )
}

/// What the store knows of `run` apart from its events, as its result is made from.
fn record(run: &StoredRun, ran_for: std::time::Duration) -> RunRecord<'_> {
    RunRecord {
        run_id: &run.id,
        steps: &run.plan.steps,
        allowed_hosts: &run.plan.allowed_hosts,
        plan: run.plan.name.as_deref(),
        ran_for,
    }
}

/// Marks the live runs whose server is gone as interrupted: this replica's own from an
/// earlier life (`own`), and any whose lease ran out. Returns how many.
pub async fn sweep_orphans(state: &AppState, own: bool) -> usize {
    let store = state.store();
    let stale_before = now_ms() - state.lease().as_millis() as i64;
    let owner = own.then(|| state.replica_id());
    let orphans = match store.orphans(owner, stale_before).await {
        Ok(o) => o,
        Err(e) => {
            tracing::warn!(error = %e, "cannot look for interrupted runs");
            return 0;
        }
    };
    let mut marked = 0;
    for run in orphans {
        // This replica's live runs renew their lease; never interrupt one of them.
        if state.registry().handle(&run.id).is_some() {
            continue;
        }
        let events = match store.events(&run.id).await {
            Ok(events) => events,
            Err(e) => {
                tracing::warn!(run_id = %run.id, error = %e, "a run's events cannot be read");
                Vec::new()
            }
        };
        let result = interrupted(&run, &events);
        match store.finish(&result).await {
            Ok(true) => {
                marked += 1;
                state.metrics().interrupted();
                tracing::warn!(run_id = %run.id, owner = %run.owner, "run marked interrupted");
                deliver(state, &run, &result).await;
            }
            Ok(false) => {}
            Err(e) => tracing::warn!(error = %e, "cannot mark a run interrupted"),
        }
    }
    marked
}

/// Delivers the webhook of a stored run this replica has just ended (it ran elsewhere, or
/// not at all), its receiver judged by the run's lock made again from its stored sites.
pub async fn deliver(state: &AppState, run: &StoredRun, result: &RunResult) {
    let Some(callback) = &run.webhook else {
        return;
    };
    // Stores made before the callback's sites were kept have the lock's own.
    let sites = if callback.hosts.is_empty() {
        &run.plan.allowed_hosts
    } else {
        &callback.hosts
    };
    match webhook::stored_callback(&callback.delivery.url, sites, &state.listen_addresses()).await {
        Ok(callback) => webhook::spawn_delivery(state, run.id.clone(), callback, result),
        Err(e) => tracing::warn!(run_id = %run.id, error = %e, "webhook not delivered"),
    }
}

/// The result of a run cancelled while it waited in the shared queue.
pub fn cancelled_waiting(run: &StoredRun) -> RunResult {
    let mut result = RunResult::interrupted(
        &record(run, std::time::Duration::ZERO),
        &Progress::of(&[]),
        &Failure::CancelledWaiting,
    );
    result.status = runner::RunStatus::Cancelled;
    result.summary = format!(
        "cancelled before the first step: {}",
        Failure::CancelledWaiting.to_step_error().message
    );
    result
}

/// A run claimed from the shared queue, already `running` in the store and holding one of
/// this replica's slots: rebuilt from its request and run here. One that cannot be rebuilt
/// (its inbox unreachable now, say) ends `failed` with the reason.
pub async fn run_claimed(
    state: &AppState,
    id: String,
    replay: Option<Replay>,
    slot: OwnedSemaphorePermit,
) {
    let launch = match replay {
        Some(replay) => replay.launch(state, &id).await,
        None => Err(ApiError::internal(
            "the queued run kept no request to run it from",
        )),
    };
    match launch {
        Ok(launch) => {
            spawn_run(state, launch, Slot::Held(slot), None);
            // A cancel asked for between the claim and now found no run here to stop.
            if let Ok(true) = state.store().cancel_asked(&id).await {
                state.registry().cancel(&id);
            }
        }
        Err(e) => {
            drop(slot);
            let failure = Failure::NotStarted {
                replica: state.replica_id().to_string(),
                reason: e.to_string(),
            };
            let result = RunResult::lost(&id, &failure);
            tracing::warn!(run_id = %id, error = %e, "a claimed run could not start");
            if let Ok(true) = state.store().finish(&result).await
                && let Ok(Some(run)) = state.store().get(&id).await
            {
                deliver(state, &run, &result).await;
            }
            state.wake_claimer();
        }
    }
}

/// Screenshots are kept with their run in the store; a local one that has not been stored
/// yet is served from disk.
pub async fn screenshot(state: &AppState, run_id: &str, file: &str) -> Option<Vec<u8>> {
    if !valid_screenshot_name(run_id, file) {
        return None;
    }
    if let Ok(Some(png)) = state.store().screenshot(run_id, file).await {
        return Some(png);
    }
    let path = state.registry().local_screenshot(run_id, file)?;
    tokio::fs::read(path).await.ok()
}

/// Run `id` as the store has it, or 404.
pub(super) async fn stored(state: &AppState, id: &str) -> Result<StoredRun, ApiError> {
    state
        .store()
        .get(id)
        .await?
        .ok_or_else(|| unknown_run(state, id))
}

/// 404 for run `id`, with how long this server keeps the runs it knows.
pub(super) fn unknown_run(state: &AppState, id: &str) -> ApiError {
    let days = state.keep_days();
    ApiError::new(
        ApiErrorKind::RunNotFound,
        format!(
            "there is no run `{id}` (this server keeps finished runs for {days} day{}, then \
             forgets them)",
            if days == 1 { "" } else { "s" }
        ),
    )
}
