//! A replica's upkeep, for as long as its state lives: it renews its live runs' lease, marks
//! runs whose owner stopped as interrupted, cancels its runs that a `DELETE` on another
//! replica asked for, and forgets old runs.

use std::time::Duration;

use super::state::{AppState, ServerConfig};
use super::store::{StoreError, now_ms};
use super::{queue, runs};

/// How often a replica looks for `DELETE`s of its runs made on other replicas.
const CANCEL_POLL: Duration = Duration::from_millis(250);
/// How often retention forgets old runs.
const RETENTION_EVERY: Duration = Duration::from_secs(3600);

impl AppState {
    /// Opens the store, marks the runs this replica left behind as interrupted, and starts
    /// the upkeep (leases, cancellations from other replicas, retention).
    pub async fn start(config: ServerConfig) -> Result<AppState, StoreError> {
        let state = AppState::open(config).await?;
        let interrupted = runs::sweep_orphans(&state, true).await;
        if interrupted > 0 {
            tracing::warn!(
                runs = interrupted,
                "runs left in flight by a stopped server were marked interrupted"
            );
        }
        forget_old_runs(&state).await;
        spawn(&state);
        queue::spawn(&state);
        Ok(state)
    }
}

fn spawn(state: &AppState) {
    let weak = state.downgrade();
    let stop = state.shutdown_token().clone();
    let heartbeat = state.heartbeat();
    tokio::spawn(async move {
        let mut last_beat = tokio::time::Instant::now();
        let mut last_retention = tokio::time::Instant::now();
        loop {
            tokio::select! {
                _ = tokio::time::sleep(CANCEL_POLL) => {}
                _ = stop.cancelled() => return,
            }
            let Some(state) = weak.upgrade() else { return };
            // A shared queue's store says so itself (NOTIFY); only SQLite is asked.
            if !state.shared_queue() && !state.registry().is_empty() {
                match state.store().cancel_requests(state.replica_id()).await {
                    Ok(ids) => {
                        for id in ids {
                            if state.registry().cancel(&id) {
                                tracing::info!(run_id = %id, "cancelled on another replica's request");
                            }
                        }
                    }
                    Err(e) => tracing::warn!(error = %e, "cannot read cancellation requests"),
                }
            }
            if last_beat.elapsed() >= heartbeat {
                last_beat = tokio::time::Instant::now();
                if let Err(e) = state.store().heartbeat(state.replica_id()).await {
                    tracing::warn!(error = %e, "cannot renew the lease of this replica's runs");
                }
                runs::sweep_orphans(&state, false).await;
            }
            if last_retention.elapsed() >= RETENTION_EVERY {
                last_retention = tokio::time::Instant::now();
                forget_old_runs(&state).await;
            }
        }
    });
}

async fn forget_old_runs(state: &AppState) {
    let keep = Duration::from_secs(u64::from(state.keep_days()) * 86_400);
    let before = now_ms() - keep.as_millis() as i64;
    match state.store().forget_finished_before(before).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(
            runs = n,
            keep_days = state.keep_days(),
            "old runs forgotten"
        ),
        Err(e) => tracing::warn!(error = %e, "retention failed"),
    }
}
