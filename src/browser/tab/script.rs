//! Running one of planlock's scripts in the page (the locator, the look's outline): evaluated
//! in planlock's isolated world when the document has one, called again while it waits and
//! after navigations, until it answers or the deadline passes.

use super::*;
use crate::browser::locate::Script;

impl Tab {
    /// Runs `script` with the request `request(budget_ms)` until it answers or the deadline
    /// passes, re-running after navigations; a failure names `target`.
    pub(in crate::browser) async fn run_script<T: DeserializeOwned>(
        &self,
        script: &Script,
        request: impl Fn(u64) -> serde_json::Result<String>,
        target: Target,
        deadline: Instant,
    ) -> Result<T, PageError> {
        // What the page last said while the step waited: reported when the deadline passes.
        let mut last: Option<Verdict<T>> = None;
        // The script waits in the page; a call that failed (the document went away under
        // it, the browser did not answer) is tried again this far apart.
        let pace = wait::Pace::new(deadline, Duration::from_millis(20));
        loop {
            if let Some(e) = self.refused().or_else(|| self.browser_gone()) {
                return Err(e);
            }
            let left = remaining(deadline);
            let slice = left.min(LOCATOR_SLICE);
            let req =
                request(slice.as_millis() as u64).map_err(|e| PageError::Command(e.to_string()))?;
            // In the page's planlock world when it exists: page scripts cannot tamper with the
            // script there (and the locator was compiled once per document). Else the main
            // world.
            let world = self.world.lock().ok().and_then(|w| w.clone());
            let params = match world.clone() {
                Some(unique_id) => EvaluateParams::builder()
                    .expression(script.call(&req, true))
                    .unique_context_id(unique_id),
                None => EvaluateParams::builder().expression(script.call(&req, false)),
            }
            .await_promise(true)
            .return_by_value(true)
            .build()
            .map_err(PageError::Command)?;
            self.count();
            let answer = tokio::time::timeout(slice + CDP_TIMEOUT, self.page.execute(params)).await;
            match answer {
                // An exception outside the script's own guard: the document went away under
                // it. Try again.
                Ok(Ok(resp)) if resp.result.exception_details.is_some() => {}
                Ok(Ok(resp)) => {
                    let value = resp.result.result.value.clone().unwrap_or(Value::Null);
                    let verdict: Verdict<T> = serde_json::from_value(value).map_err(|e| {
                        PageError::Command(format!("the {}'s answer: {e}", script.name))
                    })?;
                    match verdict {
                        Verdict::Found { facts } => return Ok(facts),
                        Verdict::Rejected { rejection } => {
                            return Err(PageError::Rejected {
                                target,
                                why: rejection,
                            });
                        }
                        waiting => last = Some(waiting),
                    }
                    if remaining(deadline).is_zero() {
                        return Err(unfound(target, last, self.url().await));
                    }
                    continue;
                }
                // The document was replaced mid-call (navigation): try again in the new one,
                // at once in the main world if our world's context went with the old document.
                Ok(Err(_)) => {
                    if let Some(stale) = &world
                        && let Ok(mut w) = self.world.lock()
                        && w.as_ref() == Some(stale)
                    {
                        *w = None;
                        continue;
                    }
                }
                Err(_) => {}
            }
            if let Some(e) = self.refused().or_else(|| self.browser_gone()) {
                return Err(e);
            }
            if !pace.again().await {
                return Err(unfound(target, last, self.url().await));
            }
        }
    }
}
