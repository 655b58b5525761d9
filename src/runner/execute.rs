//! A run's course: its mailboxes and tab made ready, each step run (again, when a person asks
//! to retry it), what the step's criticality makes of a failure, and what is left after the
//! last step.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::untrusted::capped;
use super::{
    Binding, Failure, LockedRun, Run, RunResult, Screenshots, Settings, ShouldChoice, StepDetail,
    StepRef, StepStatus, Stop, Warning, wrap_untrusted,
};
use crate::browser::{BrowserError, Chromium, Tab};
use crate::error::StepError;
use crate::inbox::RunMailbox;
use crate::plan::{Criticality, Step, Template, Vars, VarsError};

/// How long a warning waits for the page's text.
const PAGE_TEXT_WAIT: Duration = Duration::from_secs(1);

/// Whether a failed step ends the run.
enum Carry {
    Retry,
    /// Record it as a warning and go on.
    On,
    Stop,
}

/// The run's view of each bound mailbox, by the plan's name for it.
type Mailboxes = HashMap<Option<String>, Box<dyn RunMailbox>>;

/// What ends a step besides the step itself: the run's cancellation, the browser going away,
/// the run's deadline.
struct Ends<'c> {
    cancel: &'c CancellationToken,
    crashed: Pin<Box<dyn Future<Output = String> + Send>>,
    run_deadline: Instant,
}

/// One run of a step, once it ended: its tab, its place in the plan, the step, how long it took.
#[derive(Clone, Copy)]
struct Ran<'r> {
    tab: &'r Tab,
    index: usize,
    step: &'r Step,
    took: Duration,
}

/// How one run of a step ended, for the plan.
enum Turn {
    /// A person asked to retry it: it runs again.
    Again,
    /// On to the next step: it succeeded, or failed as a warning.
    Next,
    /// The plan's `done` succeeded, with its summary.
    Done(String),
    /// The run stops here.
    Stop(Stop),
}

impl Run<'_> {
    pub(super) async fn execute(
        &mut self,
        browser: &Chromium,
        req: &LockedRun,
        cancel: CancellationToken,
    ) -> RunResult {
        let (opened, tab) = open(browser, req, &self.run_id).await;
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
        let vars = self.vars(req);
        self.emit_run_started(req);
        let tab = match tab {
            Ok(tab) => tab,
            Err(e) => return self.finish(req, Some(Stop::Before(e.into())), None),
        };
        let (mut stop, summary) = self.steps(&tab, req, &vars, &cancel).await;
        if stop.is_none() {
            stop = self.after_last_step(&tab, req, summary.is_some()).await;
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

    /// The plan's variables and the run's own. `{{inbox_address}}`: the default inbox's
    /// address, else the first bound inbox's.
    fn vars(&mut self, req: &LockedRun) -> Vars {
        let first = req
            .inboxes
            .iter()
            .find(|(name, _)| name.is_none())
            .or(req.inboxes.first())
            .map(|(name, _)| name.clone());
        self.inbox_address = first
            .and_then(|name| self.mailboxes.get(&name))
            .map(|mb| mb.address().to_string());
        req.vars
            .clone()
            .with_run(&self.run_id, self.inbox_address.as_deref())
    }

    /// Runs the plan's steps in order, until one stops the run or `done` ends it: where it
    /// stopped, and `done`'s summary.
    async fn steps(
        &mut self,
        tab: &Tab,
        req: &LockedRun,
        vars: &Vars,
        cancel: &CancellationToken,
    ) -> (Option<Stop>, Option<String>) {
        let mut ends = Ends {
            cancel,
            crashed: tab.crashed(),
            run_deadline: self.started + req.settings.run_timeout,
        };
        for (index, raw_step) in req.plan.steps.iter().enumerate() {
            let step = match render(raw_step, vars) {
                Ok(s) => s,
                Err(failure) => return (Some(self.unrendered(index, raw_step, failure)), None),
            };
            // A `should` step a person asked to retry runs again; every other outcome ends it.
            loop {
                match self.turn(tab, index, &step, req, &mut ends).await {
                    Turn::Again => continue,
                    Turn::Next => break,
                    Turn::Done(summary) => return (None, Some(summary)),
                    Turn::Stop(stop) => return (Some(stop), None),
                }
            }
        }
        (None, None)
    }

    /// A step whose variables could not be filled in: it fails as it starts.
    fn unrendered(&mut self, index: usize, raw_step: &Step, failure: Failure) -> Stop {
        let e = self.masked_error(&failure.to_step_error());
        let none = StepDetail::default();
        self.emit_step_started(index, raw_step, none.clone());
        self.emit_step_ended(index, raw_step, Duration::ZERO, Some(&e), &none);
        let mut outcome = self.skipped(index, raw_step, StepStatus::Failed);
        outcome.error = Some(e);
        self.outcomes.push(outcome);
        Stop::At(index, failure)
    }

    /// One run of a step: started, raced against the run's own ends, and recorded.
    async fn turn(
        &mut self,
        tab: &Tab,
        index: usize,
        step: &Step,
        req: &LockedRun,
        ends: &mut Ends<'_>,
    ) -> Turn {
        let began = Instant::now();
        let deadline = (began + self.step_deadline(step, &req.settings)).min(ends.run_deadline);
        // The deadline lets progress say how long a wait may still take.
        let starting = StepDetail {
            timeout_ms: Some(deadline.saturating_duration_since(began).as_millis() as u64),
            ..StepDetail::default()
        };
        self.emit_step_started(index, step, starting);
        let outcome = tokio::select! {
            r = self.step(tab, index, step, deadline) => r,
            _ = ends.cancel.cancelled() => Err(Failure::Cancelled),
            reason = &mut ends.crashed => Err(Failure::BrowserCrashed { reason }),
            _ = tokio::time::sleep_until(ends.run_deadline) => Err(Failure::RunTimeout {
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
        let ran = Ran {
            tab,
            index,
            step,
            took: began.elapsed(),
        };
        crate::phase::step(&self.run_id, index, step.kind());
        match outcome {
            Ok(detail) => {
                self.succeeded(ran, detail, &req.settings).await;
                match step {
                    Step::Done { summary, .. } => Turn::Done(summary.clone()),
                    _ => Turn::Next,
                }
            }
            Err(failure) => self.failed(ran, failure, &req.settings).await,
        }
    }

    /// A step that succeeded: the text it read kept (wrapped as untrusted, if asked), its
    /// screenshot taken (if asked), its end told and recorded.
    async fn succeeded(&mut self, ran: Ran<'_>, detail: StepDetail, settings: &Settings) {
        let (tab, index, step, took) = (ran.tab, ran.index, ran.step, ran.took);
        let mut detail = self.masked(detail);
        if step.kind().returns_text() {
            let text = detail.text.clone().unwrap_or_default();
            let shown = if settings.wrap_untrusted {
                wrap_untrusted(&text)
            } else {
                text
            };
            detail.text = Some(shown.clone());
            self.extracted.push(shown);
        }
        if settings.screenshots == Screenshots::All {
            self.camera(settings).take(tab, index, &mut detail).await;
        }
        self.emit_step_ended(index, step, took, None, &detail);
        self.record(index, step, StepStatus::Succeeded, took, detail, None);
    }

    /// A step that failed: its facts and screenshot, what its criticality makes of the
    /// failure, its end told; then it runs again, the run goes on after a warning, or stops.
    async fn failed(&mut self, ran: Ran<'_>, failure: Failure, settings: &Settings) -> Turn {
        let (tab, index, step, took) = (ran.tab, ran.index, ran.step, ran.took);
        let mut detail = self.camera(settings).failure_detail(tab, index).await;
        if let Some((located, effect)) = failure.click_facts() {
            detail.located = Some(located);
            detail.effect = Some(effect);
        }
        let detail = self.masked(detail);
        let failure = self.unconfirmed(step, failure);
        let err = self.masked_error(&failure.to_step_error());
        let (step_ref, criticality) = (self.step_ref(index, step), step.criticality());
        let carried = if matches!(failure, Failure::Unconfirmed { .. }) {
            Carry::Stop
        } else {
            carry(step_ref, criticality, &failure, &err, &detail, settings).await
        };
        let warning = matches!(carried, Carry::On);
        self.emit_step_end(index, step, took, Some(&err), warning, &detail);
        match carried {
            Carry::Retry => Turn::Again,
            Carry::On => {
                self.warned(ran, detail, err).await;
                Turn::Next
            }
            Carry::Stop => {
                let status = if matches!(failure, Failure::Cancelled) {
                    StepStatus::Cancelled
                } else {
                    StepStatus::Failed
                };
                self.record(index, step, status, took, detail, Some(err));
                Turn::Stop(Stop::At(index, failure))
            }
        }
    }

    /// A check the plan let fail, failing right after an action that did not happen, is the
    /// evidence the goal was not reached.
    fn unconfirmed(&self, step: &Step, failure: Failure) -> Failure {
        match self.doubt() {
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
        }
    }

    /// A failed step the run goes on after: a warning, with the page's text as it stands.
    async fn warned(&mut self, ran: Ran<'_>, detail: StepDetail, err: StepError) {
        let (tab, index, step, took) = (ran.tab, ran.index, ran.step, ran.took);
        let text = tab.extract_text(None, Instant::now() + PAGE_TEXT_WAIT);
        let text = text.await.ok().map(|t| self.masker.mask(&capped(&t.text)));
        self.warnings.push(Warning {
            step: index,
            step_type: step.kind(),
            describe: self.masker.mask(&step.describe()),
            criticality: step.criticality(),
            error: err.clone(),
            url: detail.url.clone(),
            text,
        });
        self.record(index, step, StepStatus::Warned, took, detail, Some(err));
    }

    /// After the last step, when no step stopped the run: a plan that ran out of steps without
    /// `done` ends as `done` would, and a late refusal fails the run.
    async fn after_last_step(&mut self, tab: &Tab, req: &LockedRun, done: bool) -> Option<Stop> {
        if !done
            && let Some(failure) = self
                .unfinished(tab, Instant::now() + req.settings.step_timeout)
                .await
        {
            return Some(Stop::After(failure));
        }
        let refusal = tab.settle_refusal(req.settings.settle).await?;
        Some(Stop::After(Failure::LateRefusal(refusal)))
    }
}

/// Opens the mailboxes and the tab. Mailboxes are opened before any step can trigger mail
/// (their watermark is "now"), while the browser context starts: both take a while, neither
/// needs the other.
async fn open(
    browser: &Chromium,
    req: &LockedRun,
    run_id: &str,
) -> (Result<Mailboxes, Failure>, Result<Tab, BrowserError>) {
    tokio::join!(
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
    )
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
