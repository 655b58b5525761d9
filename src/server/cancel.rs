//! Cancelling a run, wherever it runs: on this replica, waiting in the shared queue, or on
//! another replica (told through the store). `DELETE /v1/runs/{id}` and MCP's `cancel_run`
//! both call it.

use std::time::Duration;

use super::api::RunView;
use super::error::ApiError;
use super::queue;
use super::runs;
use super::state::AppState;
use crate::wait;

/// How long `DELETE` (and MCP's `cancel_run`) waits for the cancelled run to end before
/// answering.
const CANCEL_WAIT: Duration = Duration::from_secs(10);

/// Cancels a run on this replica or, through the store, on the one running it, and waits up
/// to 10 s for it to end: whether it ended, and the run as it is then.
pub async fn run(state: &AppState, id: &str) -> Result<(bool, RunView), ApiError> {
    let finished = if let Some((cancel, mut done)) = state.registry().handle(id) {
        cancel.cancel();
        tokio::time::timeout(CANCEL_WAIT, done.wait_for(Option::is_some))
            .await
            .is_ok()
    } else {
        let run = runs::stored(state, id).await?;
        if run.result.is_some() {
            true
        } else if state.shared_queue() {
            // Waiting in the shared queue: it ends here. Claimed: the store tells the replica
            // running it (NOTIFY), and tells this one when it has ended.
            if !queue::cancel_waiting(state, id).await? {
                state.store().request_cancel(id).await?;
            }
            queue::wait_ended(state, id, CANCEL_WAIT).await?
        } else {
            state.store().request_cancel(id).await?;
            let deadline = tokio::time::Instant::now() + CANCEL_WAIT;
            let ended = wait::until(deadline, Duration::from_millis(100), || async {
                match runs::stored(state, id).await {
                    Ok(run) => run.result.is_some().then_some(Ok(())),
                    Err(e) => Some(Err(e)),
                }
            });
            ended.await.transpose()?.is_some()
        }
    };
    let run = runs::stored(state, id).await?;
    Ok((finished, runs::view(state, &run).await?))
}
