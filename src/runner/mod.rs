//! The model-free executor: runs a validated plan step by step in one tab and the bound
//! mailboxes, stops at the first failure, and always returns a complete [`RunResult`].

mod camera;
mod detail;
pub mod event;
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
use untrusted::capped;
pub use untrusted::wrap_untrusted;

use crate::browser::Chromium;
use crate::error::StepError;
use crate::inbox::{Message, RunMailbox};
use crate::plan::{Criticality, Masker, Step, Template, Vars, VarsError};
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
/// How long a warning waits for the page's text.
const PAGE_TEXT_WAIT: Duration = Duration::from_secs(1);
/// The most of a page's text a warning keeps.
const WARNING_TEXT: usize = 1000;

/// Whether a failed step ends the run.
enum Carry {
    Retry,
    /// Record it as a warning and go on.
    On,
    Stop,
}

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
    remembered: HashMap<Option<String>, Message>,
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

    async fn execute(
        &mut self,
        browser: &Chromium,
        req: &LockedRun,
        cancel: CancellationToken,
    ) -> RunResult {
        let run_deadline = self.started + req.settings.run_timeout;
        // Mailboxes are opened before any step can trigger mail (their watermark is "now"),
        // while the browser context starts: both take a while, neither needs the other.
        let run_id = self.run_id.as_str();
        let (opened, tab) = tokio::join!(
            async {
                let opened = open_mailboxes(&req.inboxes, run_id).await;
                crate::phase::mark(run_id, "mailboxes open");
                opened
            },
            async {
                let tab = browser.new_tab(req.lock.clone()).await;
                crate::phase::mark(run_id, "context ready");
                tab
            }
        );
        match opened {
            Ok(mailboxes) => self.mailboxes = mailboxes,
            Err(failure) => {
                self.emit_run_started(req);
                if let Ok(tab) = tab {
                    browser.close_tab(tab).await;
                }
                return self.finish(req, Some(Stop::Before(failure)), None);
            }
        }
        // `{{inbox_address}}`: the default inbox's address, else the first bound inbox's.
        let first = req
            .inboxes
            .iter()
            .find(|(name, _)| name.is_none())
            .or(req.inboxes.first())
            .map(|(name, _)| name.clone());
        self.inbox_address = first
            .and_then(|name| self.mailboxes.get(&name))
            .map(|mb| mb.address().to_string());
        let vars = req
            .vars
            .clone()
            .with_run(&self.run_id, self.inbox_address.as_deref());
        self.emit_run_started(req);
        let tab = match tab {
            Ok(tab) => tab,
            Err(e) => return self.finish(req, Some(Stop::Before(e.into())), None),
        };
        let mut summary = None;
        let mut stop = None;
        let mut crashed = tab.crashed();
        for (index, raw_step) in req.plan.steps.iter().enumerate() {
            let step = match render(raw_step, &vars) {
                Ok(s) => s,
                Err(failure) => {
                    let e = self.masked_error(&failure.to_step_error());
                    let none = StepDetail::default();
                    self.emit_step_started(index, raw_step, none.clone());
                    self.emit_step_ended(index, raw_step, Duration::ZERO, Some(&e), &none);
                    let mut outcome = self.skipped(index, raw_step, StepStatus::Failed);
                    outcome.error = Some(e);
                    self.outcomes.push(outcome);
                    stop = Some(Stop::At(index, failure));
                    break;
                }
            };
            // A `should` step a person asked to retry runs again; every other outcome ends it.
            loop {
                let began = Instant::now();
                let deadline = (began + self.step_deadline(&step, &req.settings)).min(run_deadline);
                // The deadline lets progress say how long a wait may still take.
                let starting = StepDetail {
                    timeout_ms: Some(deadline.saturating_duration_since(began).as_millis() as u64),
                    ..StepDetail::default()
                };
                self.emit_step_started(index, &step, starting);
                let outcome = tokio::select! {
                    r = self.step(&tab, index, &step, deadline) => r,
                    _ = cancel.cancelled() => Err(Failure::Cancelled),
                    reason = &mut crashed => Err(Failure::BrowserCrashed { reason }),
                    _ = tokio::time::sleep_until(run_deadline) => Err(Failure::RunTimeout {
                        limit: req.settings.run_timeout,
                    }),
                };
                // A refusal of a page-initiated navigation fails the step it happened in.
                let outcome = match (outcome, tab.take_refusal()) {
                    (Ok(_), Some(r)) => Err(Failure::Page {
                        error: Box::new(crate::browser::PageError::Refused(r)),
                        waited: Duration::ZERO,
                        previous: None,
                    }),
                    (o, _) => o,
                };
                let took = began.elapsed();
                crate::phase::step(&self.run_id, index, step.kind());
                match outcome {
                    Ok(detail) => {
                        if let Step::Done { summary: s, .. } = &step {
                            summary = Some(s.clone());
                        }
                        let mut detail = self.masked(detail);
                        if step.kind().returns_text() {
                            let text = detail.text.clone().unwrap_or_default();
                            let shown = if req.settings.wrap_untrusted {
                                wrap_untrusted(&text)
                            } else {
                                text
                            };
                            detail.text = Some(shown.clone());
                            self.extracted.push(shown);
                        }
                        if req.settings.screenshots == Screenshots::All {
                            self.camera(&req.settings)
                                .take(&tab, index, &mut detail)
                                .await;
                        }
                        self.emit_step_ended(index, &step, took, None, &detail);
                        self.record(index, &step, StepStatus::Succeeded, took, detail, None);
                    }
                    Err(failure) => {
                        let mut detail =
                            self.camera(&req.settings).failure_detail(&tab, index).await;
                        if let Some((located, effect)) = failure.click_facts() {
                            detail.located = Some(located);
                            detail.effect = Some(effect);
                        }
                        let detail = self.masked(detail);
                        // A check the plan let fail, failing right after an action that did
                        // not happen, is the evidence the goal was not reached.
                        let failure = match self.doubt() {
                            Some(previous)
                                if step.kind().is_check()
                                    && step.criticality() != Criticality::Must
                                    && !matches!(failure, Failure::Cancelled) =>
                            {
                                Failure::Unconfirmed {
                                    check: Box::new(failure),
                                    previous: Box::new(previous.clone()),
                                }
                            }
                            _ => failure,
                        };
                        let err = self.masked_error(&failure.to_step_error());
                        let (step_ref, criticality) =
                            (self.step_ref(index, &step), step.criticality());
                        let carried = if matches!(failure, Failure::Unconfirmed { .. }) {
                            Carry::Stop
                        } else {
                            carry(
                                step_ref,
                                criticality,
                                &failure,
                                &err,
                                &detail,
                                &req.settings,
                            )
                            .await
                        };
                        let warning = matches!(carried, Carry::On);
                        self.emit_step_end(index, &step, took, Some(&err), warning, &detail);
                        match carried {
                            Carry::Retry => continue,
                            Carry::On => {
                                let text = tab.extract_text(None, Instant::now() + PAGE_TEXT_WAIT);
                                let text =
                                    text.await.ok().map(|t| self.masker.mask(&capped(&t.text)));
                                self.warnings.push(Warning {
                                    step: index,
                                    step_type: step.kind(),
                                    describe: self.masker.mask(&step.describe()),
                                    criticality: step.criticality(),
                                    error: err.clone(),
                                    url: detail.url.clone(),
                                    text,
                                });
                                self.record(
                                    index,
                                    &step,
                                    StepStatus::Warned,
                                    took,
                                    detail,
                                    Some(err),
                                );
                                break;
                            }
                            Carry::Stop => {}
                        }
                        let status = if matches!(failure, Failure::Cancelled) {
                            StepStatus::Cancelled
                        } else {
                            StepStatus::Failed
                        };
                        self.record(index, &step, status, took, detail, Some(err));
                        stop = Some(Stop::At(index, failure));
                        break;
                    }
                }
                break;
            }
            if stop.is_some() {
                break;
            }
            if summary.is_some() {
                break;
            }
        }
        // A plan that ran out of steps without `done` ends as `done` would.
        if stop.is_none()
            && summary.is_none()
            && let Some(failure) = self
                .unfinished(&tab, Instant::now() + req.settings.step_timeout)
                .await
        {
            stop = Some(Stop::After(failure));
        }
        if stop.is_none()
            && let Some(refusal) = tab.settle_refusal(req.settings.settle).await
        {
            stop = Some(Stop::After(Failure::LateRefusal(refusal)));
        }
        crate::phase::mark(&self.run_id, "settled");
        self.refused = tab.refused_count();
        browser.release_tab(tab);
        crate::phase::mark(&self.run_id, "tab closed");
        if let Some(Stop::At(index, _)) = &stop {
            for (i, s) in req.plan.steps.iter().enumerate().skip(index + 1) {
                let skipped = self.skipped(i, s, StepStatus::Skipped);
                self.outcomes.push(skipped);
            }
        }
        let summary = summary.unwrap_or_else(|| format!("all {} steps ran", req.plan.steps.len()));
        self.finish(req, stop, Some(summary))
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

/// Opens this run's view of every bound mailbox.
async fn open_mailboxes(
    inboxes: &[Binding],
    run_id: &str,
) -> Result<HashMap<Option<String>, Box<dyn RunMailbox>>, Failure> {
    let mut opened = HashMap::new();
    for (name, inbox) in inboxes {
        let mailbox = inbox
            .open(run_id)
            .await
            .map_err(|error| Failure::InboxOpen {
                inbox: Some(inbox.describe()),
                error,
            })?;
        opened.insert(name.clone(), mailbox);
    }
    Ok(opened)
}

/// Substitutes every `{{variable}}` of a step.
fn render(step: &Step, vars: &Vars) -> Result<Step, Failure> {
    let mut rendered = step.clone();
    for (_, text) in rendered.strings_mut() {
        let template = Template::parse(text).map_err(|problem| {
            Failure::Variable(VarsError::BadTemplate {
                text: text.clone(),
                problem,
            })
        })?;
        *text = template.render(vars).map_err(Failure::Variable)?;
    }
    Ok(rendered)
}

/// What a step's criticality makes of its failure. The run's own ends (cancelled, its
/// deadline, a crash) and the lock's refusals end the run whatever the plan says.
async fn carry(
    step: StepRef,
    criticality: Criticality,
    failure: &Failure,
    error: &StepError,
    detail: &StepDetail,
    settings: &Settings,
) -> Carry {
    use crate::error::ErrorKind::*;
    let final_kind = matches!(
        failure.kind(),
        Cancelled | BrowserCrashed | RunTimeout | LockRefused | InvalidInput | Browser
    );
    match criticality {
        _ if final_kind => Carry::Stop,
        Criticality::Must => Carry::Stop,
        Criticality::Could => Carry::On,
        Criticality::Should if settings.strict => Carry::Stop,
        Criticality::Should => match &settings.ask {
            None => Carry::On,
            Some(ask) => {
                let shot = detail.screenshot.as_deref();
                match ask.choose(&step, &error.message, shot).await {
                    ShouldChoice::Retry => Carry::Retry,
                    ShouldChoice::Skip => Carry::On,
                    ShouldChoice::Stop => Carry::Stop,
                }
            }
        },
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
