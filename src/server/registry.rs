//! The runs this replica runs now, by id: how to cancel each and when it ends, and where their
//! failure screenshots wait until they are in the store.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::runner::RunResult;

/// Becomes `Some` when the run ends and its result is stored.
pub type Done = watch::Receiver<Option<Arc<RunResult>>>;

/// A run of this replica that has not ended.
struct Live {
    cancel: CancellationToken,
    done: Done,
}

/// The live runs of this replica.
pub struct Registry {
    live: Mutex<HashMap<String, Live>>,
    /// Failure screenshots go to `artifacts/RUN_ID/` until they are in the store.
    artifacts: PathBuf,
}

impl Registry {
    pub fn new(artifacts: PathBuf) -> Registry {
        Registry {
            live: Mutex::new(HashMap::new()),
            artifacts,
        }
    }

    fn live(&self) -> std::sync::MutexGuard<'_, HashMap<String, Live>> {
        self.live.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A run accepted by this replica, until [`remove`](Self::remove).
    pub fn insert(&self, run_id: &str, cancel: CancellationToken, done: Done) {
        self.live()
            .insert(run_id.to_string(), Live { cancel, done });
    }

    /// The run has ended (its result is stored).
    pub fn remove(&self, run_id: &str) {
        self.live().remove(run_id);
    }

    /// Where the failure screenshots of a run go.
    pub fn artifacts_of(&self, run_id: &str) -> PathBuf {
        self.artifacts.join(run_id)
    }

    /// The run's cancel token and completion, when this replica runs it.
    pub fn handle(&self, run_id: &str) -> Option<(CancellationToken, Done)> {
        self.live()
            .get(run_id)
            .map(|e| (e.cancel.clone(), e.done.clone()))
    }

    /// Cancels a live run of this replica; false when it runs elsewhere or has ended.
    pub fn cancel(&self, run_id: &str) -> bool {
        match self.live().get(run_id) {
            Some(e) => {
                e.cancel.cancel();
                true
            }
            None => false,
        }
    }

    /// The ids of the runs this replica runs now (queued ones included).
    pub fn running(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.live().keys().cloned().collect();
        ids.sort();
        ids
    }

    pub fn is_empty(&self) -> bool {
        self.live().is_empty()
    }

    /// A screenshot still on this replica's disk (stored a moment later), by file name.
    pub fn local_screenshot(&self, run_id: &str, file: &str) -> Option<PathBuf> {
        valid_screenshot_name(run_id, file)
            .then(|| self.artifacts.join(run_id).join(file))
            .filter(|p| p.is_file())
    }
}

/// `RUNID-step-N.png`, nothing that could leave the run's folder.
pub fn valid_screenshot_name(run_id: &str, file: &str) -> bool {
    file.ends_with(".png")
        && file.starts_with(run_id)
        && file
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
        && !file.contains("..")
}
