//! What a page does on its own, between and during steps: the requests it sends and which of
//! them are still unanswered, the documents it commits, the pages it opens, the submissions its
//! server refused (4xx). Read to judge a click, whether a form the run filled was sent or came
//! back with errors, and when a page has gone quiet.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::network::{
    EventLoadingFailed, EventLoadingFinished, EventRequestWillBeSent, EventResponseReceived,
    RequestId, ResourceType,
};
use chromiumoxide::cdp::browser_protocol::page::EventFrameNavigated;
use futures::StreamExt;
use tokio::sync::{mpsc, oneshot, watch};
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
    /// The page's own requests (as [`page_request`] counts them) not answered yet.
    unanswered: Mutex<Vec<Unanswered>>,
    /// Documents the main frame committed: which document a request was sent from.
    documents: AtomicU64,
    /// Moves on every request sent or answered, for a wait on answers to wake.
    moved: watch::Sender<u64>,
    /// Asks the watcher to answer once it has read every event already reported to it.
    flush: mpsc::UnboundedSender<oneshot::Sender<()>>,
    flushes: Mutex<Option<mpsc::UnboundedReceiver<oneshot::Sender<()>>>>,
}

/// A request the page sent itself that has no answer yet.
struct Unanswered {
    id: RequestId,
    /// `POST http://…/register`.
    said: String,
    sent: Instant,
    /// The main-frame document it was sent from (see [`Activity::documents`]).
    document: u64,
    /// An `EventSource`: a stream, answered once its response starts.
    stream: bool,
    /// It sends something (not a `GET`, `HEAD` or `OPTIONS`): a submission, not a poll.
    write: bool,
}

/// A request still unanswered, as a wait for answers sees it.
pub(crate) struct Waiting {
    /// `POST http://…/register`.
    pub said: String,
    /// It sends something: a submission, which a long poll or a stream never is.
    pub write: bool,
}

/// The most unanswered requests kept: past it the oldest are forgotten (a page that opens
/// stream after stream).
const UNANSWERED_KEPT: usize = 256;

/// A moment of the page (a click's): what it had sent and which document it showed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Mark {
    pub at: Instant,
    document: u64,
    requests: u64,
}

impl Activity {
    pub(crate) fn new() -> Activity {
        let (flush, flushes) = mpsc::unbounded_channel();
        Activity {
            requests: AtomicU64::new(0),
            popups: AtomicU64::new(0),
            refused: AtomicU64::new(0),
            last: Mutex::new(Instant::now()),
            unanswered: Mutex::new(Vec::new()),
            documents: AtomicU64::new(0),
            moved: watch::Sender::new(0),
            flush,
            flushes: Mutex::new(Some(flushes)),
        }
    }

    /// This moment of the page, to ask later what it sent since.
    pub(crate) fn mark(&self) -> Mark {
        Mark {
            at: Instant::now(),
            document: self.documents.load(Ordering::Relaxed),
            requests: self.requests(),
        }
    }

    /// Whether the page sent a request of its own since `mark`.
    pub(crate) fn sent_since(&self, mark: Mark) -> bool {
        self.requests() > mark.requests
    }

    /// The requests the marked document sent since `mark` that have no answer yet, oldest
    /// first.
    pub(crate) fn unanswered_since(&self, mark: Mark) -> Vec<Waiting> {
        let Ok(unanswered) = self.unanswered.lock() else {
            return Vec::new();
        };
        unanswered
            .iter()
            .filter(|u| u.sent >= mark.at && u.document == mark.document)
            .map(|u| Waiting {
                said: u.said.clone(),
                write: u.write,
            })
            .collect()
    }

    /// Wakes on every request sent or answered.
    pub(crate) fn moves(&self) -> watch::Receiver<u64> {
        self.moved.subscribe()
    }

    /// Resolves once the watcher has read every event reported before the call: a request the
    /// browser reported to a step is then counted here too (or the watcher has stopped).
    pub(crate) async fn caught_up(&self) {
        let (tx, rx) = oneshot::channel();
        if self.flush.send(tx).is_ok() {
            let _ = rx.await;
        }
    }

    fn sent(&self, ev: &EventRequestWillBeSent, said: String) {
        // A socket is open for as long as the page wants: nothing to wait for.
        if ev.r#type == Some(ResourceType::WebSocket) {
            return;
        }
        if let Ok(mut unanswered) = self.unanswered.lock() {
            // A redirect is the same request, still waiting.
            if !unanswered.iter().any(|u| u.id == ev.request_id) {
                if unanswered.len() >= UNANSWERED_KEPT {
                    unanswered.remove(0);
                }
                unanswered.push(Unanswered {
                    id: ev.request_id.clone(),
                    said,
                    sent: Instant::now(),
                    document: self.documents.load(Ordering::Relaxed),
                    stream: ev.r#type == Some(ResourceType::EventSource),
                    write: !matches!(ev.request.method.as_str(), "GET" | "HEAD" | "OPTIONS"),
                });
            }
        }
        self.moved.send_modify(|n| *n += 1);
    }

    /// `id` was answered; `started`: only its response started (a stream counts then).
    fn answered(&self, id: &RequestId, started: bool) {
        if let Ok(mut unanswered) = self.unanswered.lock()
            && let Some(i) = unanswered
                .iter()
                .position(|u| u.id == *id && (u.stream || !started))
        {
            unanswered.remove(i);
            self.moved.send_modify(|n| *n += 1);
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
        let mut finished = timed(page.event_listener::<EventLoadingFinished>()).await?;
        let mut failed = timed(page.event_listener::<EventLoadingFailed>()).await?;
        let mut flushes = self
            .flushes
            .lock()
            .ok()
            .and_then(|mut f| f.take())
            .ok_or_else(|| BrowserError::Cdp("a page's activity is watched once".into()))?;
        let main = page.target_id().inner().clone();
        let activity = self.clone();
        Ok(tokio::spawn(async move {
            // The scripts' requests that send something, until answered.
            let mut sending: Vec<RequestId> = Vec::new();
            loop {
                tokio::select! {
                    // Every event already reported before a flush is read before it; a commit
                    // before the requests its document sends.
                    biased;
                    ev = committed.next() => match ev {
                        Some(ev) => if ev.frame.parent_id.is_none() {
                            activity.documents.fetch_add(1, Ordering::Relaxed);
                            activity.touch();
                        },
                        None => break,
                    },
                    ev = sent.next() => match ev {
                        Some(ev) => if let Some(said) = page_request(&ev, &main) {
                            activity.requests.fetch_add(1, Ordering::Relaxed);
                            activity.touch();
                            activity.sent(&ev, said);
                            if ev.request.method != "GET" && sending.len() < 64 {
                                sending.push(ev.request_id.clone());
                            }
                        },
                        None => break,
                    },
                    ev = finished.next() => match ev {
                        Some(ev) => activity.answered(&ev.request_id, false),
                        None => break,
                    },
                    ev = failed.next() => match ev {
                        Some(ev) => activity.answered(&ev.request_id, false),
                        None => break,
                    },
                    ev = answered.next() => match ev {
                        Some(ev) => {
                            activity.answered(&ev.request_id, true);
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
                    Some(flushed) = flushes.recv() => {
                        let _ = flushed.send(());
                    },
                }
            }
        }))
    }
}

/// A request the page sent itself, as an effect names it (`POST http://…/api`): its scripts'
/// requests and beacons, and documents of its frames. Not what a document loads as it renders
/// (images, styles, scripts come with a change of the document anyway), not what the browser
/// asks for on its own (a favicon, a prefetch), not the main frame's own navigation.
pub(super) fn page_request(ev: &EventRequestWillBeSent, main: &str) -> Option<String> {
    use ResourceType::*;
    let sent = match ev.r#type.as_ref()? {
        Xhr | Fetch | Ping | EventSource | WebSocket => true,
        Document => ev.frame_id.as_ref().is_some_and(|f| f.inner() != main),
        _ => false,
    };
    sent.then(|| format!("{} {}", ev.request.method, ev.request.url))
}
