//! One run's page: the step actions, each a single in-page locator call plus the input events
//! it needs, and the lock guard that intercepts every top-level document request.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chromiumoxide::Page;
use chromiumoxide::cdp::IntoEventKind;
use chromiumoxide::cdp::browser_protocol::browser::BrowserContextId;
use chromiumoxide::cdp::browser_protocol::input::{
    DispatchKeyEventParams, DispatchKeyEventType, DispatchMouseEventParams, DispatchMouseEventType,
    MouseButton,
};
use chromiumoxide::cdp::browser_protocol::network::{
    EventRequestWillBeSent, EventResponseReceived, ResourceType,
};
use chromiumoxide::cdp::browser_protocol::page::{
    ClientNavigationReason, EventFrameNavigated, EventFrameRequestedNavigation,
    EventFrameStoppedLoading, EventJavascriptDialogOpening, EventLifecycleEvent,
    EventNavigatedWithinDocument, NavigateParams,
};
use chromiumoxide::cdp::js_protocol::runtime::EvaluateParams;
use chromiumoxide::listeners::EventStream;
use futures::StreamExt;
use serde_json::{Value, json};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use url::Url;

use serde::de::DeserializeOwned;

use super::activity::{Activity, Mark, page_request};
use super::facts::{
    Clicked, Difference, Effect, EffectKind, Extracted, Filled, Located, Navigated, PageEffect,
    PageError, Rejection, Target,
};
use super::gate::seals::Sealed;
use super::gate::{HopRule, HopRules, Submitting};
use super::locate::{
    Accessible, AccessibleElements, Asking, Describe, FormCheck, FormErrors, LOCATOR, Operation,
    PendingForm, Quiet, Request, Verdict, Watched, install_locator,
};
use super::refusals::{Refusals, check_commit, check_scheme};
use super::{BrowserError, CDP_TIMEOUT, timed};
use crate::lock::{Lock, Refusal};
use crate::wait;

mod answers;
mod camera;
mod click;
mod navigate;
mod script;

/// The longest one in-page wait runs before Rust checks on the run (cancel, crash, refusals).
const LOCATOR_SLICE: Duration = Duration::from_secs(2);

/// How long a click that starts no navigation at once is watched for any other effect. Effects
/// come within a frame or two (a handler's change, a request); the window allows for a page
/// whose handler waits or a machine that is busy (measured: BENCHMARKS.md).
pub const CLICK_WINDOW: Duration = Duration::from_millis(1500);

/// How long a page must go without a navigation, a request or a change of its document for a
/// guessed text it does not show to be taken as not coming.
pub const QUIET: Duration = Duration::from_secs(2);
/// How often a guessed check looks at whether the page has gone quiet.
const QUIET_POLL: Duration = Duration::from_millis(250);

/// How long after a click's press a page's script may send a value the run typed, to the site
/// it was typed on (an AJAX sign-in, and the site's own re-post of it): the submission window.
/// The run's next action (a fill, a click, a navigation) closes it sooner.
pub const SUBMISSION_WINDOW: Duration = Duration::from_secs(10);

/// The longest a click waits for the navigation it started to commit.
const NAVIGATION_SETTLE: Duration = Duration::from_secs(10);
/// The longest a click, and an inbox step after it, wait for the requests the click caused to
/// be answered, from the click: a request still unanswered then is taken as long-lived (a long
/// poll, a stream) and named in the click's effect. A server's answer comes as fast as a
/// navigation's; the margin is for a slow one.
pub const ANSWER_BOUND: Duration = Duration::from_secs(NAVIGATION_SETTLE.as_secs() + 2);
/// The longest an inbox step waits, from the click before it, for a submission that click sent
/// (a request that is not a `GET`) to be answered before it reads the mail. A site may mail a
/// link before it commits what the link needs (Plone does), and a busy machine can take longer
/// than [`ANSWER_BOUND`] to answer; a submission is never a long poll or a stream.
pub const SUBMISSION_ANSWER_BOUND: Duration = Duration::from_secs(60);
/// How much longer than its grace the late-refusal watch waits for a page that is too busy to
/// run its timers, and then for a navigation requested in the grace to be judged.
const SETTLE_CAP: Duration = Duration::from_secs(1);

/// A page in its own browser context.
pub struct Tab {
    page: Page,
    context: BrowserContextId,
    lock: Arc<Lock>,
    refusals: Arc<Refusals>,
    /// Secrets and codes typed in this tab, each with the form actions it may go to.
    sealed: Arc<Mutex<Vec<Sealed>>>,
    /// A rule every document the tab loads must pass too, while it is set.
    hops: HopRules,
    /// Until when the last click's submission window is open, if it is.
    submitting: Submitting,
    gone: watch::Receiver<Option<String>>,
    guard: JoinHandle<()>,
    /// CDP commands sent on behalf of steps (interception included), for the benchmark.
    calls: Arc<AtomicU64>,
    /// The unique id of the main frame's planlock world, once its document created it.
    world: Arc<Mutex<Option<String>>>,
    worlds: JoinHandle<()>,
    /// What the page does on its own (requests, documents, popups), and its watcher.
    activity: Arc<Activity>,
    /// Answers the JavaScript dialogs the page opens (`dialogs.rs`).
    dialogs: JoinHandle<()>,
    /// The form this run filled, as it was just before the last click (see `form_errors`).
    shape: Mutex<Option<serde_json::Value>>,
    /// Submissions the server had refused (4xx) just before the last click.
    refused_before: AtomicU64,
    /// The moment of the last click: what it caused is what the page sent after it.
    clicked: Mutex<Option<Mark>>,
    watcher: JoinHandle<()>,
}

impl Tab {
    pub(super) async fn new(
        page: Page,
        context: BrowserContextId,
        lock: Lock,
        gone: watch::Receiver<Option<String>>,
    ) -> Result<Tab, BrowserError> {
        let lock = Arc::new(lock);
        let refusals = Arc::new(Refusals::new());
        // Document requests are judged by the browser-wide guard (see `Chromium::new_tab`);
        // this task watches what the page asks for and commits, as a backstop.
        let mut committed = timed(page.event_listener::<EventFrameNavigated>()).await?;
        let mut requested = timed(page.event_listener::<EventFrameRequestedNavigation>()).await?;
        let main_frame = page.target_id().inner().clone();
        let calls = Arc::new(AtomicU64::new(0));
        let guard = {
            let page = page.clone();
            let lock = lock.clone();
            let refusals = refusals.clone();
            tokio::spawn(async move {
                loop {
                    tokio::select! {
                        // Commits first: they were reported before any request their page makes.
                        biased;
                        ev = committed.next() => match ev {
                            Some(ev) => check_commit(&page, &lock, &refusals, &main_frame, &ev),
                            None => break,
                        },
                        ev = requested.next() => match ev {
                            Some(ev) => check_scheme(&lock, &refusals, &main_frame, &ev),
                            None => break,
                        },
                    }
                }
            })
        };
        let (world, worlds) = install_locator(&page).await?;
        let activity = Arc::new(Activity::new());
        let watcher = activity.watch(&page).await?;
        let dialogs = super::dialogs::answer_dialogs(&page).await?;
        Ok(Tab {
            page,
            context,
            lock,
            refusals,
            sealed: Arc::default(),
            hops: Arc::default(),
            submitting: Arc::default(),
            gone,
            guard,
            calls,
            world,
            worlds,
            activity,
            watcher,
            dialogs,
            shape: Mutex::new(None),
            refused_before: AtomicU64::new(0),
            clicked: Mutex::new(None),
        })
    }

    pub(super) fn context_id(&self) -> BrowserContextId {
        self.context.clone()
    }

    /// Stops the guard; the page itself goes with its browser context.
    pub(super) fn close(self) {
        self.guard.abort();
        self.worlds.abort();
        self.watcher.abort();
        self.dialogs.abort();
    }

    /// The lock this tab enforces.
    pub fn lock(&self) -> &Lock {
        &self.lock
    }

    /// Resolves with the reason once the browser goes away (a crash, a kill, a closed
    /// connection), so a run can stop whatever step it is in.
    pub fn crashed(&self) -> std::pin::Pin<Box<dyn std::future::Future<Output = String> + Send>> {
        let mut gone = self.gone.clone();
        Box::pin(async move {
            match gone.wait_for(Option::is_some).await {
                Ok(reason) => reason.clone().unwrap_or_default(),
                Err(_) => "the connection to the browser closed".to_string(),
            }
        })
    }

    /// How many requests the lock refused in this tab so far.
    pub fn refused_count(&self) -> usize {
        self.refusals.count()
    }

    /// The first destination the lock refused since the last call, if any.
    pub fn take_refusal(&self) -> Option<Refusal> {
        self.refusals.take()
    }

    /// What the browser-wide guard needs to judge this tab's requests: its lock, where to
    /// record refusals, the values typed that may go to one form only, and the tab's CDP
    /// command count.
    pub(super) fn guard_handles(&self) -> GuardHandles {
        GuardHandles {
            page: self.page.clone(),
            lock: self.lock.clone(),
            refusals: Arc::downgrade(&self.refusals),
            sealed: self.sealed.clone(),
            hops: self.hops.clone(),
            submitting: self.submitting.clone(),
            calls: self.calls.clone(),
            activity: self.activity.clone(),
        }
    }

    /// A click's submission starts now: for [`SUBMISSION_WINDOW`], a page's script may send
    /// what the run typed to the site it was typed on.
    pub(super) fn start_submission(&self) {
        if let Ok(mut until) = self.submitting.lock() {
            *until = Some(Instant::now() + SUBMISSION_WINDOW);
        }
    }

    /// The run acts again: the last click's submission window is over.
    pub(super) fn end_submission(&self) {
        if let Ok(mut until) = self.submitting.lock() {
            *until = None;
        }
    }

    /// From now on, every document request of this tab's page must also pass `rule` (a
    /// refusal fails the request before it is sent, like one of the lock's); `None` ends it.
    /// The runner judges an emailed link's every hop this way.
    pub fn judge_hops(&self, rule: Option<HopRule>) {
        if let Ok(mut hops) = self.hops.lock() {
            *hops = rule;
        }
    }

    /// The main frame's id (the page's target id).
    pub(super) fn main_frame(&self) -> String {
        self.page.target_id().inner().clone()
    }

    /// The first refusal of a navigation the page started within `grace` of the last step (a
    /// late script redirect, a popup). The runner calls this before it reports a run as
    /// succeeded.
    ///
    /// `grace` runs on the page's own clock: a timer in planlock's world of the page fires
    /// after every page timer due before it, so on a busy machine, where the page's timers run
    /// late, the window stretches with them. A navigation requested by then is waited for
    /// until it is refused, committed or stopped.
    pub async fn settle_refusal(&self, grace: Duration) -> Option<Refusal> {
        if let Some(r) = self.take_refusal() {
            return Some(r);
        }
        let mut signal = self.refusals.subscribe();
        let listeners = async {
            let requested = self
                .page
                .event_listener::<EventFrameRequestedNavigation>()
                .await;
            let committed = self.page.event_listener::<EventFrameNavigated>().await;
            let stopped = self.page.event_listener::<EventFrameStoppedLoading>().await;
            Some((requested.ok()?, committed.ok()?, stopped.ok()?))
        };
        let Ok(Some((mut requested, mut committed, mut stopped))) =
            tokio::time::timeout(CDP_TIMEOUT, listeners).await
        else {
            let _ = tokio::time::timeout(grace, signal.changed()).await;
            return self.take_refusal();
        };
        let page_clock = async {
            if self.page_timer(grace).await.is_none() {
                tokio::time::sleep(grace).await;
            }
            // Whatever the last timer started is requested after one more task turn.
            let _ = tokio::time::timeout(CDP_TIMEOUT, self.page.execute(task_barrier())).await;
        };
        tokio::select! {
            _ = signal.changed() => return self.take_refusal(),
            _ = tokio::time::timeout(grace + SETTLE_CAP, page_clock) => {}
        }
        if matches!(requested.now_or_never_ready(), Some(Some(_))) {
            let outcome = async {
                tokio::select! {
                    _ = signal.changed() => {}
                    _ = committed.next() => {}
                    _ = stopped.next() => {}
                }
            };
            let _ = tokio::time::timeout(SETTLE_CAP, outcome).await;
        }
        self.take_refusal()
    }

    /// Waits `wait` by a timer in planlock's world of the page. `None` if that world is not
    /// there (the page is between documents) or the document went away meanwhile.
    async fn page_timer(&self, wait: Duration) -> Option<()> {
        let world = self.world.lock().ok().and_then(|w| w.clone())?;
        let params = EvaluateParams::builder()
            .expression(format!(
                "new Promise(r => setTimeout(r, {}))",
                wait.as_millis()
            ))
            .unique_context_id(world)
            .await_promise(true)
            .build()
            .ok()?;
        self.page.execute(params).await.ok().map(|_| ())
    }

    /// The page's current URL (no round trip: tracked from CDP events).
    pub async fn url(&self) -> String {
        match tokio::time::timeout(Duration::from_secs(1), self.page.url()).await {
            Ok(Ok(Some(u))) => u,
            _ => String::new(),
        }
    }

    fn browser_gone(&self) -> Option<PageError> {
        self.gone
            .borrow()
            .clone()
            .map(|reason| PageError::BrowserGone { reason })
    }

    fn refused(&self) -> Option<PageError> {
        self.take_refusal().map(PageError::Refused)
    }

    /// The answer of a look at the page that fails no step by itself (is the form still
    /// there, has the page gone quiet): a refusal it met is left for the step to fail with.
    fn aside<T>(&self, answer: Result<T, PageError>) -> Option<T> {
        match answer {
            Ok(v) => Some(v),
            Err(PageError::Refused(r)) => {
                self.refusals.put_back(r);
                None
            }
            Err(_) => None,
        }
    }

    /// The one wait of a step: `done` until `deadline`, ended early by a refusal of the plan
    /// lock or the browser going away (both reported as the step's error).
    async fn wait_until<T>(
        &self,
        deadline: Instant,
        done: impl std::future::Future<Output = T>,
    ) -> Result<Option<T>, PageError> {
        let mut refused = self.refusals.subscribe();
        let mut gone = self.gone.clone();
        let outcome = tokio::select! {
            biased;
            _ = refused.changed() => None,
            _ = gone.wait_for(Option::is_some) => None,
            v = done => Some(Some(v)),
            _ = tokio::time::sleep_until(deadline) => Some(None),
        };
        match outcome {
            Some(v) => Ok(v),
            None => Err(self
                .refused()
                .or_else(|| self.browser_gone())
                .unwrap_or(PageError::PageClosed)),
        }
    }

    /// Requests the page has sent itself so far (its scripts, beacons, frames).
    pub fn page_requests(&self) -> u64 {
        self.activity.requests()
    }

    /// Whether the field this run filled last is still on the page as typed, its form never
    /// sent (no submission in this document since): `None` when the page cannot say.
    pub async fn form_pending(&self, deadline: Instant) -> Option<bool> {
        let answer = self.locate(&Operation::Pending, deadline).await;
        let pending: PendingForm = self.aside(answer)?;
        Some(pending.unsent)
    }

    /// The modal dialog the page shows now, outside the element clicked last: what the page
    /// asks before it goes on (its name, or the start of its text). `None` when there is none
    /// or the page cannot say.
    pub async fn asking(&self, deadline: Instant) -> Option<String> {
        let answer = self.locate(&Operation::Asking, deadline).await;
        let asking: Asking = self.aside(answer)?;
        asking.dialog
    }

    /// Whether the page came back with the form the last click sent (its fields, named in
    /// `filled`, as they were before the click) and what it says about each field.
    pub async fn form_errors(
        &self,
        filled: &[String],
        deadline: Instant,
    ) -> Result<FormErrors, PageError> {
        let before = self.shape.lock().ok().and_then(|s| s.clone());
        let op = Operation::Errors {
            filled,
            before: before.as_ref(),
            refused: self.activity.refused_submissions()
                > self.refused_before.load(Ordering::Relaxed),
        };
        // A look on the side of a step: a refusal it meets is left for the step.
        let answer = self.locate(&op, deadline).await;
        if let Err(PageError::Refused(r)) = &answer {
            self.refusals.put_back(r.clone());
        }
        answer
    }

    /// Types `value` into the control found by `label` (preferred) or `selector`. A
    /// `sensitive` value (a secret) is never quoted back, even as the page rewrote it: the
    /// failure says only how the control's value differs.
    pub async fn fill(
        &self,
        describe: &str,
        label: Option<&str>,
        selector: Option<&str>,
        value: &str,
        sensitive: bool,
        deadline: Instant,
    ) -> Result<Filled, PageError> {
        self.end_submission();
        if sensitive {
            // Sealed before it is typed: a request the typing itself starts (a handler of
            // `input` or `change`) is judged with it.
            self.seal(value, None).await;
        }
        let op = Operation::Fill {
            label,
            selector,
            value,
            sensitive,
            describe: Describe::read(describe),
        };
        let filled: Filled = self.locate(&op, deadline).await.map_err(|e| match e {
            PageError::Rejected {
                target,
                why: Rejection::Rewritten { element, holds, .. },
            } => PageError::Rejected {
                target,
                why: Rejection::Rewritten {
                    element,
                    difference: holds.as_deref().map(|h| Difference::between(h, value)),
                    holds: holds.filter(|_| !sensitive),
                },
            },
            other => other,
        })?;
        if sensitive {
            self.seal(value, filled.action.as_deref()).await;
        }
        Ok(filled)
    }

    /// From now on, a request of this run that carries `value` (in any encoding) is judged by
    /// the typed-value rule: a document goes only to `action` or the action of another form
    /// `value` was typed into before, a script's request only during a click's submission, to
    /// their site (or this page's, when there is no form).
    async fn seal(&self, value: &str, action: Option<&str>) {
        let page = self.url().await;
        if let Ok(mut sealed) = self.sealed.lock() {
            let seal = match sealed.iter().position(|s| s.holds(value)) {
                Some(i) => &mut sealed[i],
                None => {
                    sealed.push(Sealed::new(value, None));
                    sealed.last_mut().expect("just pushed")
                }
            };
            seal.typed_into(action);
            seal.typed_on(&page);
        }
    }

    /// Fills a one-time code into `selector`, spreading it over split single-character boxes.
    /// The code may then leave only through the form it was typed into.
    pub async fn fill_code(
        &self,
        selector: &str,
        code: &str,
        deadline: Instant,
    ) -> Result<Filled, PageError> {
        self.end_submission();
        let compact: String = code.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
        self.seal(code, None).await;
        if compact != code {
            self.seal(&compact, None).await;
        }
        let filled: Filled = self
            .locate(&Operation::Code { selector, code }, deadline)
            .await?;
        self.seal(code, filled.action.as_deref()).await;
        if compact != code {
            self.seal(&compact, filled.action.as_deref()).await;
        }
        Ok(filled)
    }

    /// Waits until `text` is visible on the page.
    pub async fn wait_for_text(&self, text: &str, deadline: Instant) -> Result<(), PageError> {
        match self
            .locate::<serde::de::IgnoredAny>(&Operation::Text { text }, deadline)
            .await
        {
            Ok(_) => Ok(()),
            Err(PageError::NotFound { seen, .. }) => Err(PageError::TextAbsent {
                text: text.to_string(),
                url: self.url().await,
                seen,
                quiet: None,
            }),
            Err(e) => Err(e),
        }
    }

    /// Waits until `text`, which the plan only guessed, is visible on the page; but no longer
    /// than the page goes on doing something: once it has had no navigation, request or
    /// change of its document for [`QUIET`] since `since` (the end of the last action), the
    /// text is not coming, and the wait ends there (`quiet` in the error).
    pub async fn wait_for_guessed_text(
        &self,
        text: &str,
        deadline: Instant,
        since: Instant,
    ) -> Result<(), PageError> {
        loop {
            let slice = deadline.min(Instant::now() + QUIET_POLL);
            let seen = match self
                .locate::<serde::de::IgnoredAny>(&Operation::Text { text }, slice)
                .await
            {
                Ok(_) => return Ok(()),
                Err(PageError::NotFound { seen, .. }) => seen,
                Err(e) => return Err(e),
            };
            let now = Instant::now();
            let quiet = match self.page_quiet().await {
                Some(page) => {
                    let last = [
                        since,
                        self.activity.last(),
                        now.checked_sub(page).unwrap_or(now),
                    ]
                    .into_iter()
                    .max()
                    .unwrap_or(now);
                    now.saturating_duration_since(last) >= QUIET
                }
                None => false,
            };
            if quiet || now >= deadline {
                return Err(PageError::TextAbsent {
                    text: text.to_string(),
                    url: self.url().await,
                    seen,
                    quiet: quiet.then(|| now.saturating_duration_since(since)),
                });
            }
        }
    }

    /// How long the document has gone without a change (`None`: it cannot say yet).
    async fn page_quiet(&self) -> Option<Duration> {
        let answer = self.locate(&Operation::Quiet, Instant::now()).await;
        let quiet: Quiet = self.aside(answer)?;
        quiet.quiet_ms.map(Duration::from_millis)
    }

    /// The role and accessible name of each element `selector` matches (open shadow roots and
    /// same-origin frames included), as the locator reads them.
    pub async fn accessible(
        &self,
        selector: &str,
        deadline: Instant,
    ) -> Result<Vec<Accessible>, PageError> {
        let found: AccessibleElements = self
            .locate(&Operation::Accessible { selector }, deadline)
            .await?;
        Ok(found.elements)
    }

    /// The visible text of the element at `selector`, or of the page's main content.
    pub async fn extract_text(
        &self,
        selector: Option<&str>,
        deadline: Instant,
    ) -> Result<Extracted, PageError> {
        self.locate(&Operation::Extract { selector }, deadline)
            .await
    }

    /// Runs the locator until it answers or the deadline passes, re-running after navigations.
    pub(super) async fn locate<T: DeserializeOwned>(
        &self,
        op: &Operation<'_>,
        deadline: Instant,
    ) -> Result<T, PageError> {
        let request = |budget_ms| serde_json::to_string(&Request { op, budget_ms });
        self.run_script(&LOCATOR, request, op.target(), deadline)
            .await
    }

    fn count(&self) {
        self.calls.fetch_add(1, Ordering::Relaxed);
    }

    /// CDP commands sent so far for steps (navigation interception included).
    pub fn cdp_calls(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }

    /// The page's `E` events from now on: subscribed before an action, so what the action
    /// starts is seen.
    async fn events<E: IntoEventKind>(&self) -> Result<EventStream<E>, PageError> {
        timed(self.page.event_listener::<E>())
            .await
            .map_err(|e| self.cdp_failure(e))
    }

    fn cdp_failure(&self, e: BrowserError) -> PageError {
        self.browser_gone()
            .unwrap_or_else(|| PageError::Command(e.to_string()))
    }
}

/// A tab as the browser-wide guard holds it.
pub(super) struct GuardHandles {
    pub page: Page,
    pub lock: Arc<Lock>,
    pub refusals: std::sync::Weak<Refusals>,
    pub sealed: Arc<Mutex<Vec<Sealed>>>,
    pub hops: HopRules,
    pub submitting: Submitting,
    pub calls: Arc<AtomicU64>,
    pub activity: Arc<Activity>,
}

/// One task turn in the page: a navigation the page scheduled (a form submission, a script
/// redirect) has been requested once this answers. A message-channel task, because
/// `setTimeout(0)` would wait for the next frame.
fn task_barrier() -> EvaluateParams {
    EvaluateParams::builder()
        .expression(
            "new Promise(r => { const c = new MessageChannel(); c.port1.onmessage = () => r(); \
             c.port2.postMessage(0); })",
        )
        .await_promise(true)
        .build()
        .expect("expression is set")
}

/// What the locator's last "not yet" means once the deadline passed: the target was there but
/// never actionable, the page never finished loading, or nothing matched.
fn unfound<T>(target: Target, last: Option<Verdict<T>>, url: String) -> PageError {
    match last {
        Some(Verdict::NotActionable {
            element, blocker, ..
        }) => PageError::NotActionable {
            target,
            element,
            blocker,
        },
        Some(Verdict::Loading) => PageError::StillLoading { target, url },
        Some(Verdict::NotFound { seen }) => PageError::NotFound { target, seen },
        Some(Verdict::Found { .. } | Verdict::Rejected { .. }) | None => PageError::NotFound {
            target,
            seen: Vec::new(),
        },
    }
}

pub(crate) fn remaining(deadline: Instant) -> Duration {
    deadline.saturating_duration_since(Instant::now())
}

/// Polls a stream once without waiting.
trait NowOrNever: StreamExt + Unpin {
    fn now_or_never_ready(&mut self) -> Option<Option<Self::Item>> {
        futures::FutureExt::now_or_never(self.next())
    }
}
impl<S: StreamExt + Unpin> NowOrNever for S {}
