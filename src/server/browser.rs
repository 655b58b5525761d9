//! The one browser the service shares: every run opens its own context in it. Launched at
//! start, launched again if it dies, closed at shutdown.

use std::ops::Deref;
use std::sync::Arc;

use super::metrics::Metrics;
use crate::browser::{BrowserError, Chromium, LaunchOptions};

/// The environment variable naming a remote browser (`ws://…`) instead of launching one.
pub const BROWSER_WS_VAR: &str = "PLANLOCK_BROWSER_WS";

/// Where the service's browser comes from.
pub enum BrowserSource {
    /// Launched (or connected to, with `connect_to`) by the service, which closes it.
    Launch(LaunchOptions),
    /// A browser owned elsewhere for the life of the process (tests, embedding).
    Shared(&'static Chromium),
}

/// A browser a run can use, kept alive for the run even if the service replaces it.
#[derive(Clone)]
pub enum BrowserHandle {
    Owned(Arc<Chromium>),
    Shared(&'static Chromium),
}

impl Deref for BrowserHandle {
    type Target = Chromium;

    fn deref(&self) -> &Chromium {
        match self {
            BrowserHandle::Owned(b) => b,
            BrowserHandle::Shared(b) => b,
        }
    }
}

pub struct BrowserSlot {
    source: BrowserSource,
    current: tokio::sync::Mutex<Option<Arc<Chromium>>>,
    metrics: Arc<Metrics>,
}

impl BrowserSlot {
    pub fn new(source: BrowserSource, metrics: Arc<Metrics>) -> BrowserSlot {
        BrowserSlot {
            source,
            current: tokio::sync::Mutex::new(None),
            metrics,
        }
    }

    /// The live browser, launching one when there is none or the last one died.
    pub async fn get(&self) -> Result<BrowserHandle, BrowserError> {
        match &self.source {
            BrowserSource::Shared(b) => {
                b.check_alive()?;
                Ok(BrowserHandle::Shared(b))
            }
            BrowserSource::Launch(opts) => {
                let mut current = self.current.lock().await;
                if let Some(b) = current.as_ref()
                    && b.check_alive().is_ok()
                {
                    return Ok(BrowserHandle::Owned(b.clone()));
                }
                if current.take().is_some() {
                    tracing::warn!("the browser went away; starting a new one");
                    self.metrics.browser_restart();
                }
                let b = Arc::new(Chromium::start(opts).await?);
                // A service runs one plan after another: keep the next context ready.
                b.keep_warm(true);
                *current = Some(b.clone());
                Ok(BrowserHandle::Owned(b))
            }
        }
    }

    /// `Ok` when a browser is up (without launching one).
    pub async fn status(&self) -> Result<(), String> {
        match &self.source {
            BrowserSource::Shared(b) => b.check_alive().map_err(|e| e.to_string()),
            BrowserSource::Launch(_) => match self.current.lock().await.as_ref() {
                Some(b) => b.check_alive().map_err(|e| e.to_string()),
                None => Err("not started".to_string()),
            },
        }
    }

    /// Closes a browser this service launched. Runs still holding it keep it until they end;
    /// dropping the last handle kills the process either way.
    pub async fn close(&self) {
        let Some(b) = self.current.lock().await.take() else {
            return;
        };
        match Arc::try_unwrap(b) {
            Ok(b) => b.close().await,
            Err(b) => drop(b),
        }
    }
}
