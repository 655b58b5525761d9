//! What the lock refused in one tab, and the two checks behind the request guard that catch
//! a top-level document no paused request announced (a non-http(s) navigation, a commit that
//! bypassed the guard).

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::page::{
    EventFrameNavigated, EventFrameRequestedNavigation, NavigateParams,
};
use tokio::sync::watch;
use url::Url;

use super::timed;
use crate::lock::{Lock, Refusal, Why};

/// Destinations the lock refused in one tab — by the tab's own guard or the browser-wide
/// navigation guard — with a signal, so a step waiting for a page stops at once; and the
/// connections its context's egress refused (frames, sub-resources: counted, failing no step).
pub(crate) struct Refusals {
    list: Mutex<Vec<Refusal>>,
    signal: watch::Sender<u64>,
    connections: AtomicUsize,
}

impl Refusals {
    /// Every refusal so far, taken or not, refused connections included.
    pub(super) fn count(&self) -> usize {
        *self.signal.borrow() as usize + self.connections.load(Ordering::Relaxed)
    }

    /// A connection of the page that the lock refused.
    pub(crate) fn count_connection(&self) {
        self.connections.fetch_add(1, Ordering::Relaxed);
    }

    /// A request refused without failing a step (a frame of another site, a script's
    /// request): counted with the refused connections.
    pub(crate) fn count_quietly(&self, refusal: &Refusal) {
        tracing::debug!(url = %refusal.url, "the lock refused a request quietly");
        self.connections.fetch_add(1, Ordering::Relaxed);
    }

    pub(super) fn new() -> Refusals {
        Refusals {
            list: Mutex::new(Vec::new()),
            connections: AtomicUsize::new(0),
            signal: watch::Sender::new(0),
        }
    }

    pub(crate) fn push(&self, refusal: Refusal) {
        tracing::debug!(url = %refusal.url, "lock refused a navigation");
        if let Ok(mut list) = self.list.lock() {
            list.push(refusal);
        }
        self.signal.send_modify(|n| *n += 1);
    }

    /// The first refusal since the last call; the rest are dropped (the step fails on the first).
    pub(super) fn take(&self) -> Option<Refusal> {
        let mut list = self.list.lock().ok()?;
        if list.is_empty() {
            return None;
        }
        let first = list.remove(0);
        list.clear();
        Some(first)
    }

    /// A refusal taken by a look at the page that had no step to fail (a check on the side),
    /// kept for the step, uncounted a second time.
    pub(super) fn put_back(&self, refusal: Refusal) {
        if let Ok(mut list) = self.list.lock() {
            list.insert(0, refusal);
        }
    }

    pub(super) fn subscribe(&self) -> watch::Receiver<u64> {
        self.signal.subscribe()
    }
}

/// A page asking for a top-level URL that is not http(s), e.g. `blob:`: no request the guard could
/// pause comes of it, so the request is refused here, when the navigation is asked for (the
/// commit check below then replaces the page). Chromium blocks `data:` and `file:` ones from
/// pages itself, before reporting them. `javascript:` runs in the page and is no navigation;
/// whatever it navigates to is checked as usual.
pub(super) fn check_scheme(
    lock: &Lock,
    refusals: &Refusals,
    main_frame: &str,
    ev: &EventFrameRequestedNavigation,
) {
    if ev.frame_id.inner() != main_frame {
        return;
    }
    if let Ok(u) = Url::parse(&ev.url)
        && !matches!(u.scheme(), "http" | "https" | "javascript")
        && let Err(refusal) = lock.check(&u)
    {
        refusals.push(refusal);
    }
}

/// Backstop behind the request guard: a document the main frame committed without a request the
/// guard could pause (a `blob:` URL, or anything else that bypassed it) must pass the lock too.
/// If it does not, the refusal is recorded and the page is replaced by `about:blank`.
pub(super) fn check_commit(
    page: &Page,
    lock: &Lock,
    refusals: &Refusals,
    main_frame: &str,
    ev: &EventFrameNavigated,
) {
    let frame = &ev.frame;
    if frame.parent_id.is_some() || frame.id.inner() != main_frame {
        return;
    }
    // Chromium's own error page (a refused or failed load) is not a destination.
    if frame.url.starts_with("chrome-error://") {
        return;
    }
    let verdict = match Url::parse(&frame.url) {
        Ok(u) => lock.check(&u),
        Err(_) => Err(Refusal::new(frame.url.as_str(), Why::NotAUrl)),
    };
    if let Err(refusal) = verdict {
        refusals.push(refusal);
        // Not awaited here: the guard keeps answering paused requests meanwhile.
        let page = page.clone();
        tokio::spawn(async move {
            let _ = timed(page.execute(NavigateParams::new("about:blank"))).await;
        });
    }
}
