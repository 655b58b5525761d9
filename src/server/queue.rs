//! The queue the replicas of a PostgreSQL store share: an accepted run is a `queued` row,
//! each replica claims rows up to its free slots, `LISTEN` wakes it when one is queued and
//! brings cancels to the replica running the run. A caller waiting on another replica's run
//! follows it through the store. A SQLite store keeps the server's own queue ([`runs::start`]).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{broadcast, mpsc, watch};
use tracing::Instrument;

use super::api::{PlannedLine, ResultLine, ResultTag, StreamLine};
use super::error::ApiError;
use super::runs::{self, Launch, Started};
use super::state::{AppState, Caller};
use super::store::Notice;

/// How often an idle replica looks at the queue without being woken: the fallback, should a
/// notice be lost.
const SLOW_POLL: Duration = Duration::from_secs(1);
/// How long a replica waits before listening again when the store will not listen.
const LISTEN_RETRY: Duration = Duration::from_secs(1);

/// Accepts a run: into the shared queue, for whichever replica has a slot first, or into this
/// server's own queue. 429 when the caller holds its share, or the queue is full (counted
/// across replicas when shared).
pub async fn start(
    state: &AppState,
    caller: &Caller,
    launch: Launch,
    stream: bool,
) -> Result<Started, ApiError> {
    if !state.shared_queue() {
        return runs::start(state, caller, launch, stream).await;
    }
    let run_id = launch.run.run_id().to_string();
    let (sites, steps) = runs::new_run_parts(&launch);
    let request = serde_json::to_string(&launch.replay)
        .map_err(|e| ApiError::internal(format!("a run's request is not JSON: {e}")))?;
    let key = caller.key();
    // Subscribed before the run can start, so none of its notices is missed.
    let notices = state.notices();
    let admitted = state
        .store()
        .enqueue(
            &runs::new_run(&run_id, &launch, &sites, &steps),
            &request,
            &state.admission(&key),
        )
        .await?;
    if let Err(refusal) = admitted {
        return Err(state.refusal(caller, refusal));
    }
    crate::phase::mark(&run_id, "queued");
    tracing::info!(run_id = %run_id, steps = steps.len(), "run queued for any replica");
    // This replica looks at once, without waiting for its own notice.
    state.wake_claimer();
    Ok(follow(state, run_id, launch.prelude, stream, notices))
}

/// Follows a run wherever it runs, through the store: its events as lines (when `stream`),
/// and its result once it has ended.
fn follow(
    state: &AppState,
    run_id: String,
    prelude: Option<PlannedLine>,
    stream: bool,
    mut notices: broadcast::Receiver<Notice>,
) -> Started {
    let (done_tx, done) = watch::channel(None);
    let (lines_tx, lines) = if stream {
        let (tx, rx) = mpsc::unbounded_channel();
        (Some(tx), Some(rx))
    } else {
        (None, None)
    };
    let send = |tx: &mpsc::UnboundedSender<StreamLine>, value: StreamLine| {
        let _ = tx.send(value);
    };
    if let (Some(tx), Some(prelude)) = (&lines_tx, prelude) {
        send(tx, StreamLine::Planned(Box::new(prelude)));
    }
    let state = state.clone();
    let id = run_id.clone();
    let span = tracing::info_span!("follow", run_id = %run_id);
    tokio::spawn(
        async move {
            let mut next_event = 0i64;
            loop {
                if let Some(tx) = &lines_tx {
                    match state.store().events_from(&id, next_event).await {
                        Ok(events) => {
                            for event in events {
                                next_event += 1;
                                send(tx, StreamLine::Event(Box::new(event)));
                            }
                        }
                        Err(e) => tracing::warn!(error = %e, "cannot read the run's events"),
                    }
                }
                match state.store().get(&id).await {
                    Ok(Some(run)) => {
                        if let Some(result) = run.result {
                            if let Some(tx) = &lines_tx {
                                send(
                                    tx,
                                    StreamLine::Result(Box::new(ResultLine {
                                        event: ResultTag::Result,
                                        result: result.clone(),
                                    })),
                                );
                            }
                            let _ = done_tx.send(Some(Arc::new(result)));
                            return;
                        }
                    }
                    Ok(None) => return,
                    Err(e) => tracing::warn!(error = %e, "cannot read the run"),
                }
                if !wait_for(&state, &mut notices, &id, lines_tx.is_some()).await {
                    // Shutting down: the caller is answered where to poll.
                    return;
                }
            }
        }
        .instrument(span),
    );
    Started {
        run_id,
        done,
        lines,
    }
}

/// Waits for news of run `id`: its end, or (`events`) a new event; at most [`SLOW_POLL`].
/// False when the server shuts down.
async fn wait_for(
    state: &AppState,
    notices: &mut broadcast::Receiver<Notice>,
    id: &str,
    events: bool,
) -> bool {
    let news = async {
        loop {
            match notices.recv().await {
                Ok(Notice::Ended(n)) if n == id => return,
                Ok(Notice::Event(n)) if events && n == id => return,
                Ok(Notice::Missed) | Err(broadcast::error::RecvError::Lagged(_)) => return,
                Ok(_) => {}
                Err(broadcast::error::RecvError::Closed) => {
                    return std::future::pending().await;
                }
            }
        }
    };
    tokio::select! {
        () = news => true,
        () = tokio::time::sleep(SLOW_POLL) => true,
        () = state.shutdown_token().cancelled() => false,
    }
}

/// Waits until run `id` has ended (at most `limit`): whether it has.
pub async fn wait_ended(state: &AppState, id: &str, limit: Duration) -> Result<bool, ApiError> {
    let mut notices = state.notices();
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        let run = state.store().get(id).await?;
        if run.is_none_or(|r| r.result.is_some()) {
            return Ok(true);
        }
        if tokio::time::Instant::now() >= deadline {
            return Ok(false);
        }
        let left = deadline - tokio::time::Instant::now();
        if tokio::time::timeout(left, wait_for(state, &mut notices, id, false))
            .await
            .is_ok_and(|alive| !alive)
        {
            return Ok(false);
        }
    }
}

/// Cancels a run still waiting in the shared queue: it ends `cancelled` here, and its
/// webhook goes from here. False when a replica has claimed it (or it has ended).
pub async fn cancel_waiting(state: &AppState, id: &str) -> Result<bool, ApiError> {
    let Some(run) = state.store().get(id).await? else {
        return Ok(false);
    };
    if run.owner.is_empty() && run.result.is_none() {
        let result = runs::cancelled_waiting(&run);
        if state.store().cancel_queued(&result).await? {
            tracing::info!(run_id = %id, "cancelled while it waited in the shared queue");
            runs::deliver(state, &run, &result).await;
            return Ok(true);
        }
    }
    Ok(false)
}

/// With a shared queue: listens to the store's notices and claims runs while slots are free,
/// until the replica drains.
pub fn spawn(state: &AppState) {
    if !state.share_queue() {
        return;
    }
    spawn_listener(state);
    spawn_claimer(state);
}

/// Passes the store's notices on: queued runs wake the claimer, cancels stop this replica's
/// runs, events and ends wake whoever follows a run.
fn spawn_listener(state: &AppState) {
    let weak = state.downgrade();
    let stop = state.shutdown_token().clone();
    let store = state.store().clone();
    tokio::spawn(async move {
        'listen: loop {
            let mut notices = match store.notices().await {
                Ok(n) => n,
                Err(e) => {
                    tracing::warn!(error = %e, "cannot listen to the store; polling meanwhile");
                    tokio::select! {
                        () = tokio::time::sleep(LISTEN_RETRY) => continue 'listen,
                        () = stop.cancelled() => return,
                    }
                }
            };
            // Anything sent before listening began is looked at once.
            if let Some(state) = weak.upgrade() {
                catch_up(&state).await;
            }
            loop {
                let notice = tokio::select! {
                    n = notices.next() => n,
                    () = stop.cancelled() => return,
                };
                let Some(state) = weak.upgrade() else { return };
                match notice {
                    Ok(Notice::Queued) => state.wake_claimer(),
                    Ok(Notice::Cancel(id)) => {
                        if state.registry().cancel(&id) {
                            tracing::info!(run_id = %id, "cancelled on another replica's request");
                        }
                    }
                    Ok(Notice::Missed) => {
                        catch_up(&state).await;
                        state.tell(Notice::Missed);
                    }
                    Ok(notice) => state.tell(notice),
                    Err(e) => {
                        tracing::warn!(error = %e, "the store's notices stopped; listening again");
                        state.tell(Notice::Missed);
                        continue 'listen;
                    }
                }
            }
        }
    });
}

/// What notices may have said while none could be heard: queued runs, and cancels of this
/// replica's runs.
async fn catch_up(state: &AppState) {
    state.wake_claimer();
    if let Ok(ids) = state.store().cancel_requests(state.replica_id()).await {
        for id in ids {
            state.registry().cancel(&id);
        }
    }
}

/// Claims queued runs, oldest first, while this replica has free slots; sleeps until woken
/// (a run queued, a slot freed) or [`SLOW_POLL`]. Stops when the replica drains.
fn spawn_claimer(state: &AppState) {
    let weak = state.downgrade();
    let draining = state.draining_token().clone();
    let wake = state.claims();
    tokio::spawn(async move {
        loop {
            let Some(state) = weak.upgrade() else { return };
            let free = state.free_slots();
            if free > 0 && !draining.is_cancelled() {
                match state.store().claim(state.replica_id(), free).await {
                    Ok(claimed) => {
                        for run in claimed {
                            let Some(slot) = state.try_slot() else {
                                // Never: only this task takes slots of a shared queue.
                                tracing::error!(run_id = %run.id, "a claimed run found no slot");
                                continue;
                            };
                            let request = run
                                .request
                                .as_deref()
                                .and_then(|r| serde_json::from_str(r).ok());
                            tracing::info!(run_id = %run.id, "run claimed");
                            runs::run_claimed(&state, run.id, request, slot).await;
                        }
                    }
                    Err(e) => tracing::warn!(error = %e, "cannot claim queued runs"),
                }
            }
            // Runs beyond the free slots wait for the wake of a slot that frees.
            drop(state);
            tokio::select! {
                () = wake.notified() => {}
                () = tokio::time::sleep(SLOW_POLL) => {}
                () = draining.cancelled() => return,
            }
        }
    });
}
