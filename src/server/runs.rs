//! Runs the service started: each on its own task, its events recorded (and streamed when
//! asked), its result kept in memory for `GET /v1/runs/{id}` (bounded), cancellable by id.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use serde_json::{Value, json};
use tokio::sync::{OwnedSemaphorePermit, mpsc, watch};
use tokio_util::sync::CancellationToken;

use super::AppState;
use super::browser::BrowserHandle;
use crate::error::{ErrorKind, StepError};
use crate::runner::{
    self, Event, EventDetail, EventKind, LockedRun, RunResult, RunStatus, StepDetail,
};

/// A locked run and what the service gives it to start.
pub struct Launch {
    pub run: LockedRun,
    pub browser: BrowserHandle,
    /// The `--max-runs` slot this run holds until it ends.
    pub permit: OwnedSemaphorePermit,
    /// A line streamed before the run's events (`act`: the plan).
    pub prelude: Option<Value>,
}

/// A run that was started.
pub struct Started {
    pub run_id: String,
    /// Becomes `Some` when the run ends.
    pub done: watch::Receiver<Option<Arc<RunResult>>>,
    /// The NDJSON lines (events, then the result), when streaming was asked for.
    pub lines: Option<mpsc::UnboundedReceiver<Bytes>>,
}

/// What is known about one run.
struct Entry {
    cancel: CancellationToken,
    done: watch::Receiver<Option<Arc<RunResult>>>,
    /// While running: the events so far. Dropped once the result exists.
    events: Vec<Event>,
    started_at: String,
    result: Option<Arc<RunResult>>,
}

/// Every run of this server: the running ones, and the most recent finished ones.
pub struct Registry {
    inner: Mutex<Inner>,
    keep_finished: usize,
    /// Failure screenshots go to `artifacts/RUN_ID/`, removed with the run.
    artifacts: PathBuf,
}

#[derive(Default)]
struct Inner {
    runs: HashMap<String, Entry>,
    finished: VecDeque<String>,
}

impl Registry {
    pub fn new(keep_finished: usize, artifacts: PathBuf) -> Registry {
        Registry {
            inner: Mutex::new(Inner::default()),
            keep_finished: keep_finished.max(1),
            artifacts,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A fresh id no known run has.
    pub fn new_id(&self) -> String {
        let inner = self.lock();
        loop {
            let id = runner::new_run_id();
            if !inner.runs.contains_key(&id) {
                return id;
            }
        }
    }

    /// Where the failure screenshots of a run go.
    pub fn artifacts_of(&self, run_id: &str) -> PathBuf {
        self.artifacts.join(run_id)
    }

    fn record(&self, run_id: &str, event: &Event) {
        if let Some(e) = self.lock().runs.get_mut(run_id)
            && e.result.is_none()
        {
            e.events.push(event.clone());
        }
    }

    fn finish(&self, run_id: &str, result: Arc<RunResult>) {
        let evicted: Vec<String> = {
            let mut inner = self.lock();
            if let Some(e) = inner.runs.get_mut(run_id) {
                e.result = Some(result);
                e.events = Vec::new();
            }
            inner.finished.push_back(run_id.to_string());
            let mut evicted = Vec::new();
            while inner.finished.len() > self.keep_finished {
                if let Some(old) = inner.finished.pop_front() {
                    inner.runs.remove(&old);
                    evicted.push(old);
                }
            }
            evicted
        };
        for id in evicted {
            let _ = std::fs::remove_dir_all(self.artifacts.join(id));
        }
    }

    /// The run's cancel token and completion, if it is known.
    pub fn handle(
        &self,
        run_id: &str,
    ) -> Option<(CancellationToken, watch::Receiver<Option<Arc<RunResult>>>)> {
        self.lock()
            .runs
            .get(run_id)
            .map(|e| (e.cancel.clone(), e.done.clone()))
    }

    /// `GET /v1/runs/{id}`: the result when finished, else the run's progress so far.
    pub fn view(&self, run_id: &str) -> Option<Value> {
        let inner = self.lock();
        let entry = inner.runs.get(run_id)?;
        Some(match &entry.result {
            Some(result) => serde_json::to_value(result.as_ref()).unwrap_or_default(),
            None => running_view(run_id, &entry.started_at, &entry.events),
        })
    }

    /// The ids of the runs still running.
    pub fn running(&self) -> Vec<String> {
        self.lock()
            .runs
            .iter()
            .filter(|(_, e)| e.result.is_none())
            .map(|(id, _)| id.clone())
            .collect()
    }

    /// A failure screenshot of a known run, by file name.
    pub fn screenshot(&self, run_id: &str, file: &str) -> Option<PathBuf> {
        let inner = self.lock();
        inner.runs.get(run_id)?;
        let ok = file.ends_with(".png")
            && file.starts_with(run_id)
            && file
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
        ok.then(|| self.artifacts.join(run_id).join(file))
            .filter(|p| p.is_file())
    }
}

/// Progress of a running run, built from its events: each step started so far with its
/// status (`running` for the current one).
fn running_view(run_id: &str, started_at: &str, events: &[Event]) -> Value {
    let mut steps: Vec<Value> = Vec::new();
    let mut inbox_address = Value::Null;
    let mut allowed_hosts = json!([]);
    let mut plan = Value::Null;
    let mut total = Value::Null;
    for e in events {
        match e.event {
            EventKind::RunStarted => {
                if let EventDetail::RunStarted(started) = &e.detail {
                    inbox_address = json!(started.inbox_address);
                    allowed_hosts = json!(started.allowed_hosts);
                    plan = json!(started.plan);
                    total = json!(started.steps);
                }
            }
            EventKind::StepStarted => steps.push(json!({
                "index": e.index,
                "type": e.step_type,
                "describe": e.describe,
                "status": "running",
            })),
            EventKind::StepSucceeded | EventKind::StepFailed => {
                let status = match (&e.event, &e.error) {
                    (EventKind::StepSucceeded, _) => "succeeded",
                    (_, Some(err)) if err.kind == ErrorKind::Cancelled => "cancelled",
                    _ => "failed",
                };
                let mut step = json!({
                    "index": e.index,
                    "type": e.step_type,
                    "describe": e.describe,
                    "status": status,
                    "duration_ms": e.duration_ms,
                    "detail": e.detail,
                });
                if let Some(err) = &e.error {
                    step["error"] = json!(err);
                }
                match steps.last_mut() {
                    Some(last) if last["index"] == json!(e.index) => *last = step,
                    _ => steps.push(step),
                }
            }
            EventKind::RunFinished => {}
        }
    }
    let mut view = json!({
        "run_id": run_id,
        "status": "running",
        "started_at": started_at,
        "steps_total": total,
        "steps": steps,
        "inbox_address": inbox_address,
        "allowed_hosts": allowed_hosts,
    });
    if !plan.is_null() {
        view["plan"] = plan;
    }
    view
}

/// One NDJSON line.
pub fn line(value: &impl serde::Serialize) -> Bytes {
    let mut text = serde_json::to_vec(value).unwrap_or_else(|_| b"{}".to_vec());
    text.push(b'\n');
    Bytes::from(text)
}

/// Adds `screenshot_url` next to a failure's server-side `screenshot` path.
fn link_screenshot(run_id: &str, detail: &mut StepDetail) {
    let file = detail
        .screenshot
        .as_deref()
        .and_then(|p| Path::new(p).file_name())
        .and_then(|f| f.to_str())
        .map(str::to_string);
    if let Some(file) = file {
        detail.screenshot_url = Some(format!("/v1/runs/{run_id}/screenshots/{file}"));
    }
}

/// Starts a run on its own task. It goes on when the caller disconnects; it ends at its
/// last step, its first failure, its deadline, `DELETE`, or server shutdown (`cancelled`).
pub fn start(state: &AppState, launch: Launch, stream: bool) -> Started {
    let registry = state.registry();
    let run_id = launch.run.run_id().to_string();
    let cancel = state.shutdown_token().child_token();
    let (done_tx, done) = watch::channel(None);
    registry.lock().runs.insert(
        run_id.clone(),
        Entry {
            cancel: cancel.clone(),
            done: done.clone(),
            events: Vec::new(),
            started_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            result: None,
        },
    );
    let (lines_tx, lines) = if stream {
        let (tx, rx) = mpsc::unbounded_channel();
        (Some(tx), Some(rx))
    } else {
        (None, None)
    };
    let Launch {
        run,
        browser,
        // Held until the result is recorded: shutdown waits for every permit to come back.
        permit,
        prelude,
    } = launch;
    eprintln!(
        "planlock: run {run_id} started: {} step{}, may visit {}",
        run.plan().steps.len(),
        if run.plan().steps.len() == 1 { "" } else { "s" },
        run.lock().describe()
    );
    if let (Some(tx), Some(prelude)) = (&lines_tx, &prelude) {
        let _ = tx.send(line(prelude));
    }
    let id = run_id.clone();
    let registry_for_task = registry.clone();
    let run = {
        let lines_tx = lines_tx.clone();
        let id = id.clone();
        let registry = registry.clone();
        async move {
            let mut listener = |event: &Event| {
                let mut event = event.clone();
                if let EventDetail::Step(detail) = &mut event.detail {
                    link_screenshot(&id, detail);
                }
                registry.record(&id, &event);
                if let Some(tx) = &lines_tx {
                    let _ = tx.send(line(&event));
                }
            };
            runner::run(&browser, run, &mut listener, cancel).await
        }
    };
    tokio::spawn(async move {
        // A run of its own task: a panic inside it becomes a failed result, not a lost run.
        let mut result = match tokio::spawn(run).await {
            Ok(result) => result,
            Err(e) => crashed(&id, &e),
        };
        for step in &mut result.steps {
            link_screenshot(&id, &mut step.detail);
        }
        eprintln!(
            "planlock: run {id} {} in {} ms{}",
            match result.status {
                RunStatus::Succeeded => "succeeded",
                RunStatus::Failed => "failed",
                RunStatus::Cancelled => "was cancelled",
            },
            result.duration_ms,
            if result.succeeded() {
                String::new()
            } else {
                format!(": {}", result.summary)
            }
        );
        if let Some(tx) = lines_tx {
            let _ = tx.send(line(&result));
        }
        let result = Arc::new(result);
        registry_for_task.finish(&id, result.clone());
        // The slot frees once the result is known, so a caller who has it can start again.
        drop(permit);
        let _ = done_tx.send(Some(result));
    });
    Started {
        run_id,
        done,
        lines,
    }
}

/// The result of a run whose task panicked: failed, and saying so.
fn crashed(run_id: &str, e: &tokio::task::JoinError) -> RunResult {
    eprintln!("planlock: run {run_id} stopped unexpectedly: {e}");
    let error = StepError::new(
        ErrorKind::Browser,
        "the run stopped unexpectedly inside the server; the details are in its log",
    );
    RunResult {
        run_id: run_id.to_string(),
        status: RunStatus::Failed,
        summary: format!("failed: {}", error.message),
        failed_step: None,
        error: Some(error),
        steps: Vec::new(),
        extracted: Vec::new(),
        inbox_address: None,
        duration_ms: 0,
        allowed_hosts: Vec::new(),
        refused: 0,
        plan: None,
    }
}
