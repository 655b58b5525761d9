//! What a page does on its own, between and during steps: the requests it sends, the documents
//! it commits, the pages it opens, the submissions its server refused (4xx). Read to judge a
//! click, whether a form the run filled was sent or came back with errors, and when a page has
//! gone quiet.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::network::{
    EventRequestWillBeSent, EventResponseReceived, RequestId, ResourceType,
};
use chromiumoxide::cdp::browser_protocol::page::EventFrameNavigated;
use futures::StreamExt;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::{BrowserError, timed};

/// Counts and the time of the last one, shared by a tab, its watcher task and the guard.
pub(crate) struct Activity {
    requests: AtomicU64,
    popups: AtomicU64,
    /// Submissions the server answered with a client error (4xx): a document of the page, or
    /// a script's request that sends (not a `GET`).
    refused: AtomicU64,
    last: Mutex<Instant>,
}

impl Activity {
    pub(crate) fn new() -> Activity {
        Activity {
            requests: AtomicU64::new(0),
            popups: AtomicU64::new(0),
            refused: AtomicU64::new(0),
            last: Mutex::new(Instant::now()),
        }
    }

    fn touch(&self) {
        if let Ok(mut last) = self.last.lock() {
            *last = Instant::now();
        }
    }

    /// Requests the page sent itself (scripts, beacons, its frames' documents).
    pub(crate) fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    /// Submissions the page's server answered with a client error (4xx) so far.
    pub(crate) fn refused_submissions(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }

    /// Pages opened from this one (popups), counted by the navigation guard.
    pub(crate) fn popups(&self) -> u64 {
        self.popups.load(Ordering::Relaxed)
    }

    pub(crate) fn popup(&self) {
        self.popups.fetch_add(1, Ordering::Relaxed);
        self.touch();
    }

    /// When the page last sent a request, committed a document or opened a page.
    pub(crate) fn last(&self) -> Instant {
        self.last
            .lock()
            .map(|l| *l)
            .unwrap_or_else(|_| Instant::now())
    }

    /// Watches `page` for as long as the task runs.
    pub(super) async fn watch(
        self: &std::sync::Arc<Self>,
        page: &Page,
    ) -> Result<JoinHandle<()>, BrowserError> {
        let mut sent = timed(page.event_listener::<EventRequestWillBeSent>()).await?;
        let mut committed = timed(page.event_listener::<EventFrameNavigated>()).await?;
        let mut answered = timed(page.event_listener::<EventResponseReceived>()).await?;
        let main = page.target_id().inner().clone();
        let activity = self.clone();
        Ok(tokio::spawn(async move {
            // The scripts' requests that send something, until answered.
            let mut sending: Vec<RequestId> = Vec::new();
            loop {
                tokio::select! {
                    ev = sent.next() => match ev {
                        Some(ev) => if super::tab::page_request(&ev, &main).is_some() {
                            activity.requests.fetch_add(1, Ordering::Relaxed);
                            activity.touch();
                            if ev.request.method != "GET" && sending.len() < 64 {
                                sending.push(ev.request_id.clone());
                            }
                        },
                        None => break,
                    },
                    ev = answered.next() => match ev {
                        Some(ev) => {
                            let script = sending.iter().position(|id| *id == ev.request_id);
                            if let Some(i) = script {
                                sending.swap_remove(i);
                            }
                            let document = ev.r#type == ResourceType::Document
                                && ev.frame_id.as_ref().is_some_and(|f| f.inner() == &main);
                            if (document || script.is_some()) && (400..500).contains(&ev.response.status) {
                                activity.refused.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                        None => break,
                    },
                    ev = committed.next() => match ev {
                        Some(ev) => if ev.frame.parent_id.is_none() {
                            activity.touch();
                        },
                        None => break,
                    },
                }
            }
        }))
    }
}
