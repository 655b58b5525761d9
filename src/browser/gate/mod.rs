//! The one gate every request of every run passes: the browser pauses each request (documents,
//! scripts' requests, a page's resources, its workers') before it is sent, and this module
//! judges it by the rules of the run it belongs to, wherever in the run it comes from: the
//! run's tab, a popup, a frame, a worker.
//!
//! The rules, in one place:
//! - the lock: a top-level document (the tab's, a popup's) outside it fails the step, and a
//!   refused popup is closed; a frame outside it is not loaded, and counted;
//! - a typed value (a secret, an emailed code): a document carries it only to a form it was
//!   typed into ([`seals::document`]), a script only while a click submits it, to its site
//!   ([`seals::script`]);
//! - after an emailed link, no document and no script's request goes to an address that says
//!   it undoes something.
//!
//! A refused document fails the step it happened in (but a frame outside the lock); a refused
//! script request is counted in `refused` and fails nothing, as a page's refused connection is.

mod owner;
pub(crate) mod seals;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use chromiumoxide::cdp::browser_protocol::browser::BrowserContextId;
use chromiumoxide::cdp::browser_protocol::fetch::{
    ContinueRequestParams, EnableParams as FetchEnable, EventRequestPaused, FailRequestParams,
    RequestPattern, RequestStage,
};
use chromiumoxide::cdp::browser_protocol::network::{ErrorReason, ResourceType};
use chromiumoxide::cdp::browser_protocol::target::{CloseTargetParams, TargetId};
use futures::StreamExt;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use url::Url;

use super::activity::Activity;
use super::egress::Egress;
use super::refusals::Refusals;
use super::{BrowserError, timed};
use crate::lock::{Asker, Lock, Refusal, Undoing, Why};
use owner::{Found, Owner, Owners, Place};
use seals::{Sealed, Sent};

/// One run's tab, as the gate sees it.
pub(super) struct GuardedTab {
    /// The tab's own main frame.
    pub main_frame: String,
    /// The tab's page, whose frame tree places the requests of its frames.
    pub page: chromiumoxide::Page,
    pub lock: Arc<Lock>,
    pub refusals: Weak<Refusals>,
    /// Values typed in the run (secrets, codes) with the forms and pages each was typed into.
    pub sealed: Seals,
    /// A rule the run's documents and scripts' requests must pass too, while it is set (an
    /// emailed link's hops).
    pub hops: HopRules,
    /// Until when a click of the run is submitting (see [`super::SUBMISSION_WINDOW`]).
    pub submitting: Submitting,
    /// The tab's CDP command count (its navigations' interception is counted there).
    pub calls: Arc<AtomicU64>,
    /// What the tab's page does; a page it opens is counted there.
    pub activity: Arc<Activity>,
    /// The context's egress (server mode), closed with it.
    #[expect(dead_code, reason = "held, not read: dropping it closes the egress")]
    pub egress: Option<Egress>,
}

/// The values a run typed, shared by its tab and the gate.
pub(super) type Seals = Arc<Mutex<Vec<Sealed>>>;

/// Until when a click's submission is under way, if one is.
pub(super) type Submitting = Arc<Mutex<Option<Instant>>>;

/// A rule a document request must pass besides the lock: `Some(said)` refuses the URL, `said`
/// being what says it undoes or destroys something.
pub type HopRule = Arc<dyn Fn(&Url) -> Option<Undoing> + Send + Sync>;

/// A tab's [`HopRule`], if one is set; shared with the guard.
pub(super) type HopRules = Arc<Mutex<Option<HopRule>>>;

/// The runs' tabs, by browser context (one tab per context), and the places of their frames.
#[derive(Clone, Default)]
pub(super) struct Gate {
    pub tabs: GuardedTabs,
    owners: Arc<Owners>,
}

/// The browser contexts of open tabs.
pub(super) type GuardedTabs = Arc<Mutex<HashMap<BrowserContextId, GuardedTab>>>;

impl Gate {
    pub fn admit(&self, context: BrowserContextId, tab: GuardedTab) {
        if let Ok(mut g) = self.tabs.lock() {
            g.insert(context, tab);
        }
    }

    pub fn release(&self, context: &BrowserContextId) {
        if let Ok(mut g) = self.tabs.lock() {
            g.remove(context);
        }
        self.owners.forget(context);
    }
}

/// Starts the gate: every request of every page, frame and worker is paused here (popups
/// included: they are new targets a page-level interception never sees, and headless Chromium
/// ignores `--block-new-web-contents`).
pub(super) async fn start(
    browser: &Arc<chromiumoxide::Browser>,
    gate: &Gate,
) -> Result<JoinHandle<()>, BrowserError> {
    // Subscribe before enabling interception, so no paused request is missed.
    let mut paused = timed(browser.event_listener::<EventRequestPaused>()).await?;
    let task = {
        let browser = browser.clone();
        let gate = gate.clone();
        tokio::spawn(async move {
            let mut decisions = tokio::task::JoinSet::new();
            while let Some(ev) = paused.next().await {
                // One at a time would stall every page behind one slow answer.
                decisions.spawn(decide(browser.clone(), gate.clone(), ev));
                while decisions.try_join_next().is_some() {}
            }
        })
    };
    let pattern = RequestPattern {
        url_pattern: Some("*".into()),
        resource_type: None,
        request_stage: Some(RequestStage::Request),
    };
    let enabled = timed(browser.execute(FetchEnable {
        patterns: Some(vec![pattern]),
        handle_auth_requests: None,
    }))
    .await;
    if let Err(e) = enabled {
        task.abort();
        return Err(e);
    }
    Ok(task)
}

/// A refusal and what comes of it.
struct Refused {
    refusal: Refusal,
    /// Fails the step it happened in (else it is counted only).
    fails: bool,
    /// The run whose refusal it is (none when no run could be named).
    refusals: Option<Weak<Refusals>>,
    /// A popup to close: its document was refused.
    close: Option<TargetId>,
}

/// Continues or refuses one paused request.
async fn decide(browser: Arc<chromiumoxide::Browser>, gate: Gate, ev: Arc<EventRequestPaused>) {
    let frame = ev.frame_id.inner().clone();
    let document = ev.resource_type == ResourceType::Document;
    let verdict = match gate.owners.find(&browser, &gate.tabs, &frame).await {
        Found::Run(owner) => judge(&gate.tabs, &owner, document, &ev).await,
        Found::NotOurs => None,
        Found::Unknown(error) => unplaced(&gate.tabs, document, &ev, error).await,
    };
    let id = ev.request_id.clone();
    let sent = match verdict {
        None => timed(browser.execute(ContinueRequestParams::new(id)))
            .await
            .map(|_| ()),
        Some(refused) => {
            if let Some(run) = refused.refusals.and_then(|w| w.upgrade()) {
                match refused.fails {
                    true => run.push(refused.refusal),
                    false => run.count_quietly(&refused.refusal),
                }
            }
            let failed =
                timed(browser.execute(FailRequestParams::new(id, ErrorReason::BlockedByClient)))
                    .await
                    .map(|_| ());
            if let Some(popup) = refused.close {
                // Nothing is left for the popup to show; the run has one tab.
                let _ = timed(browser.execute(CloseTargetParams::new(popup))).await;
            }
            failed
        }
    };
    if let Err(e) = sent {
        tracing::debug!("gate: {e}");
    }
}

/// One request of a run, by the run's rules.
async fn judge(
    tabs: &GuardedTabs,
    owner: &Owner,
    document: bool,
    ev: &EventRequestPaused,
) -> Option<Refused> {
    let tab = tabs.lock().ok().and_then(|g| {
        g.get(&owner.context).map(|t| {
            (
                t.lock.clone(),
                t.refusals.clone(),
                t.sealed.clone(),
                t.hops.clone(),
                t.submitting.clone(),
                t.calls.clone(),
                t.activity.clone(),
            )
        })
    })?;
    let (lock, refusals, sealed, hops, submitting, calls, activity) = tab;
    let url = ev.request.url.as_str();
    let submitting = submitting
        .lock()
        .ok()
        .and_then(|s| *s)
        .is_some_and(|until| Instant::now() < until);
    let refused = |refusal: Refusal, fails: bool| {
        let close = match (&owner.place, fails && document) {
            (Place::Popup(target), true) => Some(target.clone()),
            _ => None,
        };
        let by = match (&owner.place, document) {
            (_, false) => Some(Asker::Script),
            (Place::Tab, true) => None,
            (Place::Popup(_), true) => Some(Asker::Popup),
            (Place::Frame, true) => Some(Asker::Frame),
        };
        Some(Refused {
            refusal: match by {
                Some(by) => refusal.by(by),
                None => refusal,
            },
            fails,
            refusals: Some(refusals.clone()),
            close,
        })
    };
    if document {
        match owner.place {
            Place::Tab => {
                calls.fetch_add(1, Ordering::Relaxed);
            }
            Place::Popup(_) => activity.popup(),
            Place::Frame => {}
        }
        if let Err(r) = judge_lock(&lock, url).await {
            // Pages embed frames of other sites all the time: not loaded, counted.
            return refused(r, owner.place != Place::Frame);
        }
    }
    let checked = sealed.lock().map_or(Ok(()), |seals| {
        // Most requests are judged before anything is typed: nothing to read then.
        match (seals.is_empty(), Sent::of(&ev.request)) {
            (false, Some(sent)) if document => seals::document(&seals, &sent, submitting),
            (false, Some(sent)) => seals::script(&seals, &sent, submitting),
            _ => Ok(()),
        }
    });
    if let Err(r) = checked {
        return refused(r, document);
    }
    if (document || sends(&ev.resource_type))
        && let Err(r) = passes_hop_rule(&hops, url)
    {
        return refused(r, document);
    }
    None
}

/// A request the gate could not place in a run. A document is judged as a frame of the only
/// run there is, else refused (fail closed); a script's request is refused when it carries a
/// value any run typed.
async fn unplaced(
    tabs: &GuardedTabs,
    document: bool,
    ev: &EventRequestPaused,
    error: String,
) -> Option<Refused> {
    let contexts: Vec<BrowserContextId> = tabs
        .lock()
        .map(|g| g.keys().cloned().collect())
        .unwrap_or_default();
    if let [only] = contexts.as_slice() {
        let owner = Owner {
            context: only.clone(),
            place: Place::Frame,
        };
        return judge(tabs, &owner, document, ev).await;
    }
    if document {
        return Some(Refused {
            refusal: Refusal::new(ev.request.url.as_str(), Why::UnknownPage { error }),
            fails: true,
            refusals: None,
            close: None,
        });
    }
    let sent = Sent::of(&ev.request)?;
    let runs: Vec<(Seals, Weak<Refusals>)> = tabs
        .lock()
        .map(|g| {
            g.values()
                .map(|t| (t.sealed.clone(), t.refusals.clone()))
                .collect()
        })
        .unwrap_or_default();
    for (sealed, refusals) in runs {
        let judged = sealed
            .lock()
            .map_or(Ok(()), |seals| seals::script(&seals, &sent, false));
        if let Err(refusal) = judged {
            return Some(Refused {
                refusal: refusal.by(Asker::Script),
                fails: false,
                refusals: Some(refusals),
                close: None,
            });
        }
    }
    None
}

/// Requests a page's scripts send (not what a document loads as it renders).
fn sends(kind: &ResourceType) -> bool {
    matches!(
        kind,
        ResourceType::Xhr | ResourceType::Fetch | ResourceType::Ping | ResourceType::EventSource
    )
}

/// A request while an emailed link's navigation goes on: it may not go to an address that says
/// it undoes or destroys something, whichever hop or script brought it there.
fn passes_hop_rule(hops: &HopRules, url: &str) -> Result<(), Refusal> {
    let rule = hops.lock().ok().and_then(|h| h.clone());
    let (Some(rule), Ok(parsed)) = (rule, url::Url::parse(url)) else {
        return Ok(());
    };
    match rule(&parsed) {
        None => Ok(()),
        Some(said) => Err(Refusal::new(url, Why::UndoingHop { said })),
    }
}

/// One top-level destination against a lock (resolved addresses too, in server mode).
async fn judge_lock(lock: &Lock, url: &str) -> Result<(), Refusal> {
    match url::Url::parse(url) {
        Ok(u) => lock.check_navigation(&u).await,
        Err(_) => Err(Refusal::new(url, Why::NotAUrl)),
    }
}
