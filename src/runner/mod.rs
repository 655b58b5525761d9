//! The model-free executor: runs a validated plan step by step in one tab and the bound
//! mailboxes, stops at the first failure, and always returns a complete [`RunResult`].

mod camera;
mod detail;
pub mod event;
mod execute;
mod failure;
pub mod result;
mod spec;
mod steps;
mod untrusted;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::time::Duration;

use chrono::{SecondsFormat, Utc};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

pub use detail::{BoundInbox, EmailSeen, RunFinished, RunStarted, StepDetail};
pub use event::{Event, EventKind, Listener, Recorder, StepRef};
pub use failure::mail_wait_sentence;
pub(crate) use failure::page_error_sentence;
pub use failure::{Failure, Previous, PreviousAction};
pub use result::{
    Progress, RunRecord, RunResult, RunStatus, StepOutcome, StepProgress, StepState, StepStatus,
    Warning, step_refs,
};
pub use spec::{Binding, LockedRun, RunSpec, Secrets, SpecError};
pub use untrusted::wrap_untrusted;

use crate::browser::{Chromium, Texts};
use crate::error::StepError;
use crate::inbox::RunMailbox;
use crate::plan::{Masker, Step};
use camera::Camera;

/// Default deadline of steps that locate elements.
pub const STEP_TIMEOUT: Duration = Duration::from_secs(10);
/// Default deadline of `wait_for_text`.
pub const TEXT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default deadline of inbox steps.
pub const INBOX_TIMEOUT: Duration = Duration::from_secs(120);
/// Default deadline of a whole run.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(600);
/// Default time a successful run watches for a late refusal before reporting.
pub const SETTLE: Duration = Duration::from_millis(200);
/// The most of a page's text a warning keeps.
const WARNING_TEXT: usize = 1000;

/// How a run behaves, beyond its plan.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Deadline of locating steps without their own `timeout_seconds`.
    pub step_timeout: Duration,
    /// Deadline of the whole run.
    pub run_timeout: Duration,
    /// Where failure screenshots go (default: `$TMPDIR/planlock/RUN_ID`).
    pub artifacts_dir: Option<PathBuf>,
    /// Wrap extracted (untrusted) text in a tag carrying a per-call random nonce.
    pub wrap_untrusted: bool,
    /// How long a run that succeeded watches its page for a late attempt to leave the lock
    /// (a script redirect scheduled by the last step) before it reports success.
    pub settle: Duration,
    /// Which steps get a screenshot in `artifacts_dir`.
    pub screenshots: Screenshots,
    /// A failed `should` step ends the run, as a `must` step would.
    pub strict: bool,
    /// Who decides, when a `should` step fails, whether to retry it, skip it or stop (a
    /// person at a terminal). Without one, it is skipped with a warning (unless `strict`).
    pub ask: Option<std::sync::Arc<dyn AskShould>>,
}

/// What to do about a `should` step that failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShouldChoice {
    Retry,
    /// Go on, with the failure as a warning.
    Skip,
    /// End the run here, as failed.
    Stop,
}

/// Decides about a failed `should` step, knowing what a person would see: the step, the
/// sentence, and the screenshot.
#[async_trait::async_trait]
pub trait AskShould: Send + Sync {
    async fn choose(
        &self,
        step: &StepRef,
        sentence: &str,
        screenshot: Option<&str>,
    ) -> ShouldChoice;
}

impl std::fmt::Debug for dyn AskShould {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AskShould")
    }
}

/// Which steps are photographed (the viewport, after the step).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Screenshots {
    /// Every step, for reports that show the whole run.
    All,
    /// Only a step that failed or was cancelled.
    #[default]
    Failure,
    /// None at all.
    None,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            step_timeout: STEP_TIMEOUT,
            run_timeout: RUN_TIMEOUT,
            artifacts_dir: None,
            wrap_untrusted: false,
            settle: SETTLE,
            screenshots: Screenshots::Failure,
            strict: false,
            ask: None,
        }
    }
}

/// A fresh run id: 8 lower-case letters and digits (safe inside e-mail addresses).
pub fn new_run_id() -> String {
    use rand::Rng;
    const ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyz23456789";
    let mut rng = rand::rng();
    (0..8)
        .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char)
        .collect()
}

/// Runs a locked run to its end, its first failure, cancellation or the run deadline.
/// Never returns early: the result and the event log are complete on every path.
pub async fn run(
    browser: &Chromium,
    req: LockedRun,
    listener: &mut dyn Listener,
    cancel: CancellationToken,
) -> RunResult {
    let mut run = Run::new(&req, listener);
    let result = run.execute(browser, &req, cancel).await;
    run.emit_run_finished(&result);
    result
}

/// Where a run stopped when it did not succeed.
enum Stop {
    /// Before its first step (inboxes, browser).
    Before(Failure),
    /// At a step.
    At(usize, Failure),
    /// After its last step (a late refusal).
    After(Failure),
}

struct Run<'l> {
    run_id: String,
    started: Instant,
    masker: Masker,
    listener: &'l mut dyn Listener,
    outcomes: Vec<StepOutcome>,
    extracted: Vec<String>,
    inbox_address: Option<String>,
    mailboxes: HashMap<Option<String>, Box<dyn RunMailbox>>,
    /// The message `wait_for_email` matched, per inbox, until an OTP or link step uses it.
    remembered: HashMap<Option<String>, crate::inbox::wait::Taken>,
    consumed: HashMap<Option<String>, HashSet<String>>,
    /// The last browser step, to explain a wait that runs out after it.
    previous: Option<Previous>,
    /// `fill` steps since the last click or navigation.
    filled: Vec<usize>,
    /// The names of the fields filled on the page since it was opened.
    filled_fields: Vec<String>,
    /// Fill steps whose form the run has not seen sent (a submission, a request, the page
    /// taking the fields in); opening a page leaves them behind.
    unsent: Vec<usize>,
    /// The page's own requests when the run last filled a field.
    requests_at_fill: u64,
    refused: usize,
    /// Failed `should` and `could` steps the run went on after.
    warnings: Vec<Warning>,
    /// What no screenshot may show: the secrets, and each code this run took from a mail.
    never_shown: Vec<String>,
}

impl<'l> Run<'l> {
    fn camera<'a>(&'a self, settings: &'a Settings) -> Camera<'a> {
        Camera {
            run_id: &self.run_id,
            settings,
            never_shown: &self.never_shown,
        }
    }

    fn new(req: &LockedRun, listener: &'l mut dyn Listener) -> Run<'l> {
        Run {
            run_id: req.run_id.clone(),
            started: Instant::now(),
            masker: req.vars.masker(),
            listener,
            outcomes: Vec::new(),
            extracted: Vec::new(),
            inbox_address: None,
            mailboxes: HashMap::new(),
            remembered: HashMap::new(),
            consumed: HashMap::new(),
            previous: None,
            filled: Vec::new(),
            filled_fields: Vec::new(),
            unsent: Vec::new(),
            requests_at_fill: 0,
            refused: 0,
            warnings: Vec::new(),
            never_shown: req.vars.masker().values(),
        }
    }

    fn emit(&mut self, event: Event) {
        self.listener.on_event(&event);
    }

    fn now() -> String {
        Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true)
    }

    /// The step as its events name it, secrets masked.
    fn step_ref(&self, index: usize, step: &Step) -> StepRef {
        StepRef {
            index,
            step_type: step.kind(),
            describe: self.masker.mask(&step.describe()),
        }
    }

    fn emit_step_started(&mut self, index: usize, step: &Step, detail: StepDetail) {
        let event = Event::StepStarted {
            run_id: self.run_id.clone(),
            ts: Self::now(),
            step: self.step_ref(index, step),
            detail: Box::new(detail),
        };
        self.emit(event);
    }

    /// A step's end: succeeded, or failed with `error` (already masked).
    fn emit_step_ended(
        &mut self,
        index: usize,
        step: &Step,
        took: Duration,
        error: Option<&StepError>,
        detail: &StepDetail,
    ) {
        self.emit_step_end(index, step, took, error, false, detail);
    }

    /// [`Run::emit_step_ended`], saying whether a failure is only a warning.
    fn emit_step_end(
        &mut self,
        index: usize,
        step: &Step,
        took: Duration,
        error: Option<&StepError>,
        warning: bool,
        detail: &StepDetail,
    ) {
        let (run_id, ts, step) = (self.run_id.clone(), Self::now(), self.step_ref(index, step));
        let duration_ms = took.as_millis() as u64;
        let detail = Box::new(detail.clone());
        let event = match error {
            None => Event::StepSucceeded {
                run_id,
                ts,
                step,
                duration_ms,
                detail,
            },
            Some(error) => Event::StepFailed {
                run_id,
                ts,
                step,
                duration_ms,
                error: error.clone(),
                warning,
                detail,
            },
        };
        self.emit(event);
    }

    fn emit_run_started(&mut self, req: &LockedRun) {
        let detail = RunStarted {
            plan: req.name.clone(),
            steps: req.plan.steps.len(),
            inbox_address: self.inbox_address.clone(),
            allowed_hosts: req.lock.sites().collect(),
            inboxes: req
                .inboxes
                .iter()
                .map(|(name, inbox)| BoundInbox {
                    name: name.clone(),
                    inbox: inbox.describe(),
                })
                .collect(),
        };
        let event = Event::RunStarted {
            run_id: self.run_id.clone(),
            ts: Self::now(),
            detail,
        };
        self.emit(event);
    }

    fn emit_run_finished(&mut self, result: &RunResult) {
        let event = Event::RunFinished {
            run_id: self.run_id.clone(),
            ts: Self::now(),
            duration_ms: result.duration_ms,
            error: result.error.clone(),
            detail: RunFinished {
                status: result.status,
                summary: result.summary.clone(),
                failed_step: result.failed_step,
                inbox_address: result.inbox_address.clone(),
                refused: result.refused,
            },
        };
        self.emit(event);
    }

    /// Hides every secret in a step's facts, field by field.
    fn masked(&self, mut detail: StepDetail) -> StepDetail {
        for text in detail.strings_mut() {
            *text = self.masker.mask(text);
        }
        detail
    }

    /// A step that did not run (or ended before it began), as the result lists it.
    /// How a step the run began ended.
    fn record(
        &mut self,
        index: usize,
        step: &Step,
        status: StepStatus,
        took: Duration,
        detail: StepDetail,
        error: Option<StepError>,
    ) {
        let step = self.step_ref(index, step);
        self.outcomes.push(StepOutcome {
            index,
            step_type: step.step_type,
            describe: step.describe,
            status,
            duration_ms: took.as_millis() as u64,
            detail,
            error,
        });
    }

    fn skipped(&self, index: usize, step: &Step, status: StepStatus) -> StepOutcome {
        StepOutcome::unreached(index, &self.step_ref(index, step), status)
    }

    fn masked_error(&self, e: &StepError) -> StepError {
        StepError::new(e.kind, self.masker.mask(&e.message))
    }

    fn finish(
        &mut self,
        req: &LockedRun,
        stop: Option<Stop>,
        summary: Option<String>,
    ) -> RunResult {
        let (status, failed_step, error, summary) = match stop {
            None => (
                RunStatus::Succeeded,
                None,
                None,
                summary.unwrap_or_default(),
            ),
            Some(stop) => {
                let (index, failure) = match &stop {
                    Stop::Before(f) | Stop::After(f) => (None, f),
                    Stop::At(i, f) => (Some(*i), f),
                };
                let error = self.masked_error(&failure.to_step_error());
                let cancelled = matches!(failure, Failure::Cancelled);
                let summary = match (&stop, cancelled) {
                    (Stop::At(i, _), true) => {
                        format!("cancelled during step {} ({})", i + 1, error.message)
                    }
                    (Stop::At(i, _), false) => format!(
                        "failed at step {} ({}): {}",
                        i + 1,
                        req.plan.steps[*i].kind(),
                        error.message
                    ),
                    (Stop::Before(_), _) => {
                        format!("failed before the first step: {}", error.message)
                    }
                    (Stop::After(_), _) => {
                        format!("failed after the last step: {}", error.message)
                    }
                };
                let status = if cancelled {
                    RunStatus::Cancelled
                } else {
                    RunStatus::Failed
                };
                (status, index, Some(error), summary)
            }
        };
        RunResult {
            run_id: self.run_id.clone(),
            status,
            summary: self.masker.mask(&summary),
            failed_step,
            error,
            steps: std::mem::take(&mut self.outcomes),
            extracted: std::mem::take(&mut self.extracted),
            inbox_address: self.inbox_address.clone(),
            duration_ms: self.started.elapsed().as_millis() as u64,
            allowed_hosts: req.lock.sites().collect(),
            refused: self.refused,
            plan: req.name.clone(),
            warnings: std::mem::take(&mut self.warnings),
        }
    }

    fn step_deadline(&self, step: &Step, settings: &Settings) -> Duration {
        if let Some(t) = step.timeout_seconds() {
            return Duration::from_secs_f64(t);
        }
        match step {
            Step::WaitSeconds { seconds, .. } => {
                Duration::from_secs_f64(*seconds) + Duration::from_secs(1)
            }
            Step::WaitForText { .. } => TEXT_TIMEOUT,
            Step::WaitForEmail { .. }
            | Step::UseOtpFromInbox { .. }
            | Step::OpenLinkFromInbox { .. } => INBOX_TIMEOUT,
            Step::Navigate { .. } => settings.step_timeout.max(Duration::from_secs(30)),
            Step::Click { .. } | Step::Fill { .. } | Step::ExtractText { .. } => {
                settings.step_timeout
            }
            // Ends at once; the deadline only bounds a page that does not answer.
            Step::Done { .. } => settings.step_timeout,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Services drive runs with `tokio::spawn`, which needs a `Send` future.
    #[allow(dead_code)]
    fn runs_are_send(browser: &Chromium, req: LockedRun, listener: &mut dyn Listener) {
        fn send<T: Send>(_: T) {}
        send(run(browser, req, listener, CancellationToken::new()));
    }

    #[test]
    fn run_ids_are_address_safe() {
        let id = new_run_id();
        assert_eq!(id.len(), 8);
        assert!(
            id.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()),
            "{id}"
        );
        assert_ne!(new_run_id(), new_run_id());
    }
}
