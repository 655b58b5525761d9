//! IMAP backend (async-imap): one shared connection per configured mailbox serves every run,
//! polling at a short cadence while a step waits, IDLE push otherwise, reconnecting on loss.
//!
//! Why one shared connection: concurrent runs share a mailbox through plus-addressing, and
//! servers cap connections per user (Dovecot: 10 per IP, Gmail: 15), so a connection per run
//! would not scale. A background task (the watcher) owns the session; runs talk to it through
//! a channel and read its cache of fetched messages.
//!
//! Why polling while a step waits: Dovecot batches IDLE notifications (`NOTIFY_DELAY_MSECS`,
//! 500 ms in its source), so IDLE alone is too slow on a local server. While some step waits,
//! the watcher sends `NOOP` + `UID SEARCH` every `poll` (25 ms on loopback, 1 s remote, or
//! `poll_ms=`); when `poll` is long enough to matter it IDLEs between polls, so push still
//! wins on servers that notify at once. Servers without IDLE are polled, and kept alive with
//! NOOP. IDLE is re-issued every [`REIDLE_AFTER`], well before the 30-minute logout of RFC 2177.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll};
use std::time::Duration;

use async_imap::extensions::idle::IdleResponse;
use async_trait::async_trait;
use chrono::Utc;
use futures::TryStreamExt;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::{Notify, mpsc, oneshot, watch};
use tokio::time::{Instant, sleep_until, timeout};
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;
use tokio_rustls::rustls;

use super::binding::ImapUrl;
use super::message::{is_addressed_to, parse_message};
use super::{Inbox, InboxError, Message, RunMailbox};

/// Deadline for the TCP connect and the TLS handshake.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Deadline for every IMAP command except FETCH.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(15);
/// Deadline for fetching a batch of whole messages (attachments can be large).
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(60);
/// IDLE is ended and re-issued this often (RFC 2177 servers may log out after 30 min).
pub const REIDLE_AFTER: Duration = Duration::from_secs(5 * 60);
/// Without IDLE, a NOOP this often keeps an otherwise quiet connection alive.
const KEEPALIVE_AFTER: Duration = Duration::from_secs(5 * 60);
/// Below this poll cadence, IDLE between polls cannot deliver sooner than the next poll.
const IDLE_BETWEEN_POLLS_FROM: Duration = Duration::from_millis(200);
/// The shared connection stays open this long after the last run closed, for the next run.
const LINGER: Duration = Duration::from_secs(10);
const BACKOFF_FIRST: Duration = Duration::from_millis(50);
const BACKOFF_MAX: Duration = Duration::from_secs(2);
/// Cached messages per mailbox; the oldest are dropped first.
const MAX_CACHED: usize = 1000;
/// UIDs per FETCH command.
const FETCH_BATCH: usize = 50;

/// A mailbox on an IMAP server, shared by every run bound to it.
pub struct ImapInbox {
    shared: Arc<Shared>,
}

impl ImapInbox {
    /// Nothing connects until [`Inbox::check`] or the first [`Inbox::open`].
    pub fn new(url: ImapUrl) -> ImapInbox {
        ImapInbox {
            shared: Arc::new(Shared {
                url,
                state: Mutex::new(State::default()),
                updates: watch::Sender::new(0),
                wake: Notify::new(),
                waiting: AtomicUsize::new(0),
                watcher: Mutex::new(None),
                next_key: AtomicU64::new(1),
            }),
        }
    }

    pub fn url(&self) -> &ImapUrl {
        &self.shared.url
    }
}

#[async_trait]
impl Inbox for ImapInbox {
    async fn check(&self) -> Result<(), InboxError> {
        let mut connection = connect(&self.shared.url).await?;
        let _ = timeout(Duration::from_secs(2), connection.session.logout()).await;
        Ok(())
    }

    async fn open(&self, run_id: &str) -> Result<Box<dyn RunMailbox>, InboxError> {
        let shared = self.shared.clone();
        let key = shared.next_key.fetch_add(1, Ordering::Relaxed);
        shared.lock().runs.insert(key, None);
        // From here on, dropping `run` (also when this future is cancelled) unregisters it.
        let run = ImapRunMailbox {
            address: shared.url.run_address(run_id),
            updates: shared.updates.subscribe(),
            shared,
            key,
        };
        run.request(|reply| Request::Watermark { key, reply })
            .await?;
        Ok(Box::new(run))
    }

    fn describe(&self) -> String {
        self.shared.url.to_string()
    }
}

/// What runs and the watcher share.
struct Shared {
    url: ImapUrl,
    state: Mutex<State>,
    /// Bumped whenever the cache or the connection state changes.
    updates: watch::Sender<u64>,
    /// Pokes the watcher out of IDLE or a sleep (a step started waiting, a run closed).
    wake: Notify,
    /// Steps currently inside [`RunMailbox::changed`]; while non-zero, the watcher polls.
    waiting: AtomicUsize,
    /// The live watcher's request channel; `None` when no watcher runs.
    watcher: Mutex<Option<mpsc::UnboundedSender<Request>>>,
    next_key: AtomicU64,
}

#[derive(Default)]
struct State {
    /// Open runs and their watermark (the mailbox's UIDNEXT at `open`; `None` until known).
    runs: HashMap<u64, Option<u32>>,
    uid_validity: Option<u32>,
    /// Every message with a UID below this (and at or above the lowest watermark) is cached.
    next_unfetched: u32,
    messages: BTreeMap<u32, Message>,
    /// When the last successful sync began.
    synced_at: Option<Instant>,
    /// Why the watcher is disconnected, while it is.
    error: Option<String>,
}

impl State {
    fn lowest_watermark(&self) -> Option<u32> {
        self.runs.values().flatten().copied().min()
    }

    fn prune(&mut self) {
        match self.lowest_watermark() {
            Some(low) => self.messages.retain(|uid, _| *uid >= low),
            None => self.messages.clear(),
        }
        while self.messages.len() > MAX_CACHED {
            self.messages.pop_first();
        }
    }
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn bump(&self) {
        self.updates.send_modify(|generation| *generation += 1);
    }

    /// Hands a request to the watcher, starting one if none runs.
    fn send(self: &Arc<Self>, request: Request) {
        let mut slot = self.watcher.lock().unwrap_or_else(|e| e.into_inner());
        let request = match slot.as_ref() {
            Some(tx) => match tx.send(request) {
                Ok(()) => return,
                Err(mpsc::error::SendError(request)) => request,
            },
            None => request,
        };
        let (tx, rx) = mpsc::unbounded_channel();
        let _ = tx.send(request);
        *slot = Some(tx);
        let watcher = Watcher {
            shared: self.clone(),
            rx,
            pending: Vec::new(),
            connection: None,
            dirty: false,
        };
        tokio::spawn(watcher.run());
    }
}

enum Request {
    /// Record the run's watermark (UIDNEXT now).
    Watermark {
        key: u64,
        reply: oneshot::Sender<Result<(), InboxError>>,
    },
    /// Bring the cache up to date with the server.
    Sync {
        reply: oneshot::Sender<Result<(), InboxError>>,
    },
}

impl Request {
    fn answer(self, result: Result<(), String>) {
        let reply = match self {
            Request::Watermark { reply, .. } | Request::Sync { reply } => reply,
        };
        let _ = reply.send(result.map_err(InboxError::Unreachable));
    }
}

struct ImapRunMailbox {
    shared: Arc<Shared>,
    key: u64,
    address: String,
    updates: watch::Receiver<u64>,
}

impl ImapRunMailbox {
    async fn request(
        &self,
        make: impl FnOnce(oneshot::Sender<Result<(), InboxError>>) -> Request,
    ) -> Result<(), InboxError> {
        let (tx, rx) = oneshot::channel();
        self.shared.send(make(tx));
        rx.await.unwrap_or_else(|_| {
            Err(InboxError::Unreachable(format!(
                "the connection to {} stopped unexpectedly",
                self.shared.url
            )))
        })
    }
}

impl Drop for ImapRunMailbox {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        state.runs.remove(&self.key);
        state.prune();
        drop(state);
        self.shared.wake.notify_one();
    }
}

#[async_trait]
impl RunMailbox for ImapRunMailbox {
    fn address(&self) -> &str {
        &self.address
    }

    async fn arrived(&mut self) -> Result<Vec<Message>, InboxError> {
        // Mark as seen before reading: an update after this line makes `changed` return.
        self.updates.borrow_and_update();
        let fresh = {
            let state = self.shared.lock();
            state.error.is_none()
                && state
                    .synced_at
                    .is_some_and(|at| at.elapsed() < self.shared.url.poll)
        };
        // A recent poll is as good as a new one: anything it missed bumps `updates` when the
        // next poll finds it, so the waiting loop's `changed` returns and it asks again.
        if !fresh {
            self.request(|reply| Request::Sync { reply }).await?;
        }
        let state = self.shared.lock();
        let Some(watermark) = state.runs.get(&self.key).copied().flatten() else {
            return Ok(Vec::new());
        };
        Ok(state
            .messages
            .range(watermark..)
            .map(|(_, m)| m)
            .filter(|m| is_addressed_to(m, &self.address))
            .cloned()
            .collect())
    }

    async fn changed(&mut self, until: Instant) -> Result<(), InboxError> {
        let _waiting = Waiting::register(&self.shared);
        tokio::select! {
            // The sender lives in `shared`, which we hold, so this never reports closed.
            _ = self.updates.changed() => {}
            _ = sleep_until(until) => {}
        }
        Ok(())
    }
}

/// Counts a step as waiting (so the watcher polls) for as long as it lives.
struct Waiting<'a>(&'a Shared);

impl<'a> Waiting<'a> {
    fn register(shared: &'a Shared) -> Waiting<'a> {
        shared.waiting.fetch_add(1, Ordering::SeqCst);
        shared.wake.notify_one();
        Waiting(shared)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.waiting.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The task that owns the IMAP session.
struct Watcher {
    shared: Arc<Shared>,
    rx: mpsc::UnboundedReceiver<Request>,
    pending: Vec<Request>,
    connection: Option<Connection>,
    /// The server announced a change (IDLE) that no sync has picked up yet.
    dirty: bool,
}

impl Watcher {
    async fn run(mut self) {
        let mut backoff = BACKOFF_FIRST;
        let mut last_needed = Instant::now();
        loop {
            while let Ok(request) = self.rx.try_recv() {
                self.pending.push(request);
            }
            if self.runs_open() > 0 || !self.pending.is_empty() {
                last_needed = Instant::now();
            } else if last_needed.elapsed() >= LINGER && self.retire() {
                if let Some(mut connection) = self.connection.take() {
                    let _ = timeout(Duration::from_secs(2), connection.session.logout()).await;
                }
                return;
            }

            if self.connection.is_none() {
                if self.runs_open() == 0 && self.pending.is_empty() {
                    self.pause_until(last_needed + LINGER).await;
                    continue;
                }
                match connect(&self.shared.url).await {
                    Ok(connection) => {
                        tracing::debug!(url = %self.shared.url, idle = connection.idle, "IMAP connected");
                        self.connected(connection);
                    }
                    Err(e) => {
                        let error = e.to_string();
                        tracing::debug!(url = %self.shared.url, "IMAP reconnect failed: {error}");
                        self.disconnected(&error);
                        self.backoff(Instant::now() + backoff, &error).await;
                        backoff = (backoff * 2).min(BACKOFF_MAX);
                        continue;
                    }
                }
            }

            let retire_at = (self.runs_open() == 0).then(|| last_needed + LINGER);
            match self.turn(retire_at).await {
                // Backoff restarts only once a session has worked, so a server that accepts
                // logins but fails every command is not hammered.
                Ok(()) => backoff = BACKOFF_FIRST,
                Err(e) => {
                    tracing::debug!(url = %self.shared.url, "IMAP connection lost: {e}");
                    self.connection = None;
                    let error = format!("lost the connection to {}: {e}", self.shared.url);
                    self.disconnected(&error);
                    self.backoff(Instant::now() + backoff, &error).await;
                    backoff = (backoff * 2).min(BACKOFF_MAX);
                }
            }
        }
    }

    fn runs_open(&self) -> usize {
        self.shared.lock().runs.len()
    }

    /// Gives up the watcher slot if nobody needs it. Done under the slot lock so a run that
    /// opens at the same moment either finds this watcher or starts a new one.
    fn retire(&mut self) -> bool {
        let mut slot = self
            .shared
            .watcher
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if self.runs_open() == 0 && self.rx.is_empty() {
            *slot = None;
            true
        } else {
            false
        }
    }

    fn connected(&mut self, connection: Connection) {
        let mut state = self.shared.lock();
        let validity = connection.selected.uid_validity;
        if let (Some(old), Some(new)) = (state.uid_validity, validity)
            && old != new
        {
            // The mailbox was recreated: old UIDs mean nothing. Runs keep waiting for mail
            // that arrives from now on; anything delivered during the gap is not seen.
            tracing::warn!(url = %self.shared.url, old, new, "UIDVALIDITY changed; watermarks reset");
            let next = connection.selected.uid_next.unwrap_or(1);
            state.messages.clear();
            for watermark in state.runs.values_mut().flatten() {
                *watermark = next;
            }
            state.next_unfetched = next;
        }
        if validity.is_some() {
            state.uid_validity = validity;
        }
        state.error = None;
        drop(state);
        self.connection = Some(connection);
        self.dirty = true;
        self.shared.bump();
    }

    fn disconnected(&mut self, error: &str) {
        self.shared.lock().error = Some(error.to_string());
        self.shared.bump();
        for request in self.pending.drain(..) {
            request.answer(Err(error.to_string()));
        }
    }

    /// Waits out a reconnect backoff, answering requests that come meanwhile with `error`.
    async fn backoff(&mut self, until: Instant, error: &str) {
        loop {
            tokio::select! {
                request = self.rx.recv() => match request {
                    Some(request) => request.answer(Err(error.to_string())),
                    None => return,
                },
                _ = sleep_until(until) => return,
            }
        }
    }

    /// Sleeps until `until`, a request, or a wake-up.
    async fn pause_until(&mut self, until: Instant) {
        tokio::select! {
            request = self.rx.recv() => self.pending.extend(request),
            _ = self.shared.wake.notified() => {}
            _ = sleep_until(until) => {}
        }
    }

    /// One round on a live connection: serve requests, sync if due, then wait for the next
    /// reason to act. `retire_at` is set while no run is open. An error means the session
    /// is unusable.
    async fn turn(&mut self, retire_at: Option<Instant>) -> Result<(), String> {
        let mut requests = std::mem::take(&mut self.pending).into_iter();
        while let Some(request) = requests.next() {
            match request {
                Request::Watermark { key, reply } => {
                    let result = self.watermark(key).await;
                    let failed = result.as_ref().err().cloned();
                    let _ = reply.send(result.map_err(InboxError::Unreachable));
                    if let Some(e) = failed {
                        // The rest are answered with this error when the caller disconnects.
                        self.pending.extend(requests);
                        return Err(e);
                    }
                }
                sync @ Request::Sync { .. } => self.pending.push(sync),
            }
        }
        let poll = self.shared.url.poll;
        let waiting = self.shared.waiting.load(Ordering::SeqCst) > 0;
        let synced_at = self.shared.lock().synced_at;
        let poll_due = synced_at.is_none_or(|at| at.elapsed() >= poll);
        if !self.pending.is_empty() || self.dirty || (waiting && poll_due) {
            let result = self.sync().await;
            for request in self.pending.drain(..) {
                request.answer(result.clone());
            }
            result?;
            self.dirty = false;
        }

        let connection = self.connection.as_ref().expect("turn runs connected");
        let can_idle = connection.idle;
        let quiet_since = connection.last_command;
        let waiting = self.shared.waiting.load(Ordering::SeqCst) > 0;
        let next_poll = self.shared.lock().synced_at.unwrap_or_else(Instant::now) + poll;
        if let Some(retire_at) = retire_at {
            // Nobody to notify: just keep the session for a run that may open soon.
            self.pause_until(retire_at).await;
            Ok(())
        } else if waiting {
            if can_idle && poll >= IDLE_BETWEEN_POLLS_FROM {
                self.idle_until(next_poll).await
            } else {
                self.pause_until(next_poll).await;
                Ok(())
            }
        } else if can_idle {
            self.idle_until(Instant::now() + REIDLE_AFTER).await
        } else if quiet_since.elapsed() >= KEEPALIVE_AFTER {
            self.sync_noop().await
        } else {
            self.pause_until(quiet_since + KEEPALIVE_AFTER).await;
            Ok(())
        }
    }

    /// Records a run's watermark: the UIDNEXT the server reports now.
    async fn watermark(&mut self, key: u64) -> Result<(), String> {
        let connection = self.connection.as_mut().expect("connected");
        let mailbox = self.shared.url.mailbox.clone();
        let status = timeout(
            COMMAND_TIMEOUT,
            connection.session.status(&mailbox, "(UIDNEXT UIDVALIDITY)"),
        )
        .await;
        let (uid_next, uid_validity) = match status {
            Ok(Ok(status)) => (status.uid_next, status.uid_validity),
            // RFC 3501 lets a server refuse STATUS on the selected mailbox. Then the highest
            // UID after a NOOP, plus one, is as good: no message can sit between it and UIDNEXT.
            Ok(Err(async_imap::error::Error::No(_) | async_imap::error::Error::Bad(_))) => {
                command("NOOP", COMMAND_TIMEOUT, connection.session.noop()).await?;
                let highest = command(
                    "UID SEARCH",
                    COMMAND_TIMEOUT,
                    connection.session.uid_search("UID *"),
                )
                .await?;
                let next = highest
                    .into_iter()
                    .max()
                    .map(|uid| uid + 1)
                    .or(connection.selected.uid_next);
                (next, None)
            }
            Ok(Err(e)) => return Err(format!("STATUS failed: {}", imap_error_text(&e))),
            Err(_) => {
                return Err(format!(
                    "STATUS got no answer within {} s",
                    COMMAND_TIMEOUT.as_secs()
                ));
            }
        };
        drain_unsolicited(connection);
        let Some(uid_next) = uid_next else {
            return Err(format!("the server did not report UIDNEXT for {mailbox:?}"));
        };
        let mut state = self.shared.lock();
        if let (Some(old), Some(new)) = (state.uid_validity, uid_validity)
            && old != new
        {
            return Err(format!(
                "mailbox {mailbox:?} was recreated (UIDVALIDITY {old} became {new})"
            ));
        }
        // Still registered? (The run may have been dropped while STATUS ran.)
        if let Some(watermark) = state.runs.get_mut(&key) {
            *watermark = Some(uid_next);
        }
        Ok(())
    }

    async fn sync_noop(&mut self) -> Result<(), String> {
        let connection = self.connection.as_mut().expect("connected");
        command("NOOP", COMMAND_TIMEOUT, connection.session.noop()).await?;
        drain_unsolicited(connection);
        Ok(())
    }

    /// Brings the cache up to date: NOOP (so the server notices new mail), UID SEARCH from the
    /// first UID not yet seen, FETCH what is new.
    async fn sync(&mut self) -> Result<(), String> {
        let started = Instant::now();
        let from = {
            let state = self.shared.lock();
            state
                .lowest_watermark()
                .map(|low| low.max(state.next_unfetched))
        };
        let Some(from) = from else {
            // No run needs messages yet; keep the session warm and report success.
            self.sync_noop().await?;
            self.shared.lock().synced_at = Some(started);
            return Ok(());
        };
        self.sync_noop().await?;
        let connection = self.connection.as_mut().expect("connected");
        let found = command(
            "UID SEARCH",
            COMMAND_TIMEOUT,
            connection.session.uid_search(format!("UID {from}:*")),
        )
        .await?;
        let mut new: Vec<u32> = {
            let state = self.shared.lock();
            // `N:*` also matches the highest UID when it is below N; skip that one.
            found
                .into_iter()
                .filter(|uid| *uid >= from && !state.messages.contains_key(uid))
                .collect()
        };
        new.sort_unstable();
        let mut fetched = Vec::with_capacity(new.len());
        for batch in new.chunks(FETCH_BATCH) {
            let set = batch
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(",");
            let session = &mut connection.session;
            let fetches = command("UID FETCH", FETCH_TIMEOUT, async move {
                session
                    .uid_fetch(set, "(UID INTERNALDATE BODY.PEEK[])")
                    .await?
                    .try_collect::<Vec<_>>()
                    .await
            })
            .await?;
            for fetch in fetches {
                let Some(uid) = fetch.uid else { continue };
                let raw = fetch.body().map(<[u8]>::to_vec).unwrap_or_default();
                let received_at = fetch
                    .internal_date()
                    .map(|d| d.with_timezone(&Utc))
                    .unwrap_or_else(Utc::now);
                fetched.push(parse_message(uid.to_string(), raw, received_at, &[]));
            }
        }
        drain_unsolicited(connection);
        let mut state = self.shared.lock();
        if let Some(last) = new.last() {
            state.next_unfetched = state.next_unfetched.max(last + 1);
        }
        let changed = !fetched.is_empty();
        for message in fetched {
            if let Ok(uid) = message.id.parse::<u32>() {
                state.messages.insert(uid, message);
            }
        }
        state.prune();
        state.synced_at = Some(started);
        drop(state);
        if changed {
            self.shared.bump();
        }
        Ok(())
    }

    /// IDLEs until `until`, a request, a wake-up or a server notification.
    async fn idle_until(&mut self, until: Instant) -> Result<(), String> {
        let connection = self.connection.take().expect("connected");
        let Connection {
            session,
            idle,
            selected,
            ..
        } = connection;
        tracing::trace!(url = %self.shared.url, "IDLE");
        let mut handle = session.idle();
        match timeout(COMMAND_TIMEOUT, handle.init()).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(format!("IDLE failed: {}", imap_error_text(&e))),
            Err(_) => return Err("IDLE got no answer".into()),
        }
        let news = {
            let (wait, _interrupt) = handle
                .wait_with_timeout(until.saturating_duration_since(Instant::now()) + REIDLE_AFTER);
            tokio::select! {
                response = wait => match response {
                    Ok(IdleResponse::NewData(_)) => true,
                    // The stream ended (connection closed) or went quiet: DONE below finds out.
                    Ok(_) => false,
                    Err(e) => return Err(format!("IDLE failed: {}", imap_error_text(&e))),
                },
                request = self.rx.recv() => {
                    self.pending.extend(request);
                    false
                }
                _ = self.shared.wake.notified() => false,
                _ = sleep_until(until) => false,
            }
        };
        let session = match timeout(COMMAND_TIMEOUT, handle.done()).await {
            Ok(Ok(session)) => session,
            Ok(Err(e)) => return Err(format!("ending IDLE failed: {}", imap_error_text(&e))),
            Err(_) => return Err("ending IDLE got no answer".into()),
        };
        self.connection = Some(Connection {
            session,
            idle,
            selected,
            last_command: Instant::now(),
        });
        tracing::trace!(url = %self.shared.url, news, "IDLE ended");
        self.dirty |= news;
        Ok(())
    }
}

type Session = async_imap::Session<ImapStream>;

/// A logged-in session with the mailbox selected.
struct Connection {
    session: Session,
    /// The server advertises IDLE.
    idle: bool,
    selected: async_imap::types::Mailbox,
    last_command: Instant,
}

/// Runs one IMAP command under `limit`, naming it in the error.
async fn command<T>(
    what: &str,
    limit: Duration,
    fut: impl Future<Output = async_imap::error::Result<T>>,
) -> Result<T, String> {
    match timeout(limit, fut).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => Err(format!("{what} failed: {}", imap_error_text(&e))),
        Err(_) => Err(format!("{what} got no answer within {} s", limit.as_secs())),
    }
}

fn drain_unsolicited(connection: &mut Connection) {
    connection.last_command = Instant::now();
    while connection.session.unsolicited_responses.try_recv().is_ok() {}
}

/// Connects, logs in and selects the mailbox, each step under a deadline, with a sentence
/// naming the step that failed.
async fn connect(url: &ImapUrl) -> Result<Connection, InboxError> {
    let server = url.server();
    let unreachable = |detail: String| InboxError::Unreachable(detail);
    let tcp = match timeout(
        CONNECT_TIMEOUT,
        TcpStream::connect((url.host.as_str(), url.port)),
    )
    .await
    {
        Ok(Ok(tcp)) => tcp,
        Ok(Err(e)) => {
            let hint = match e.kind() {
                std::io::ErrorKind::ConnectionRefused => {
                    " (is the IMAP server running, and is the port right?)"
                }
                _ => "",
            };
            return Err(unreachable(format!(
                "cannot connect to {server}: {e}{hint}"
            )));
        }
        Err(_) => {
            return Err(unreachable(format!(
                "cannot connect to {server}: no answer within {} s",
                CONNECT_TIMEOUT.as_secs()
            )));
        }
    };
    let _ = tcp.set_nodelay(true);
    let stream = if url.tls {
        let name = rustls::pki_types::ServerName::try_from(url.host.clone())
            .map_err(|e| unreachable(format!("cannot use TLS with {server}: {e}")))?;
        let connector = TlsConnector::from(tls_config()?);
        match timeout(CONNECT_TIMEOUT, connector.connect(name, tcp)).await {
            Ok(Ok(tls)) => ImapStream::Tls(Box::new(tls)),
            Ok(Err(e)) => {
                return Err(unreachable(format!(
                    "cannot connect to {server}: TLS handshake failed: {e}"
                )));
            }
            Err(_) => {
                return Err(unreachable(format!(
                    "cannot connect to {server}: the TLS handshake got no answer within {} s",
                    CONNECT_TIMEOUT.as_secs()
                )));
            }
        }
    } else {
        ImapStream::Plain(tcp)
    };

    let tls_hint = if url.tls {
        ""
    } else {
        " (if this is a TLS port such as 993, use imaps://)"
    };
    let mut stream = stream;
    match timeout(COMMAND_TIMEOUT, read_greeting(&mut stream)).await {
        Ok(Ok(line)) => check_greeting(&line)
            .map_err(|why| unreachable(format!("cannot connect to {server}: {why}")))?,
        Ok(Err(e)) => {
            return Err(unreachable(format!(
                "cannot connect to {server}: reading the greeting failed: {e}{tls_hint}"
            )));
        }
        Err(_) => {
            return Err(unreachable(format!(
                "cannot connect to {server}: no greeting within {} s{tls_hint}",
                COMMAND_TIMEOUT.as_secs()
            )));
        }
    }
    // The greeting is consumed: the client starts at the first command.
    let client = async_imap::Client::new(stream);
    let user = &url.user;
    let mut session = match timeout(COMMAND_TIMEOUT, client.login(user, &url.password)).await {
        Ok(Ok(session)) => session,
        Ok(Err((e, _client))) => {
            return Err(unreachable(format!(
                "cannot log in to {server} as {user}: {}",
                imap_error_text(&e)
            )));
        }
        Err(_) => {
            return Err(unreachable(format!(
                "cannot log in to {server} as {user}: no answer within {} s",
                COMMAND_TIMEOUT.as_secs()
            )));
        }
    };
    let idle = match timeout(COMMAND_TIMEOUT, session.capabilities()).await {
        Ok(Ok(capabilities)) => capabilities.has_str("IDLE"),
        Ok(Err(e)) => {
            return Err(unreachable(format!(
                "logged in to {server} as {user}, but CAPABILITY failed: {}",
                imap_error_text(&e)
            )));
        }
        Err(_) => {
            return Err(unreachable(format!(
                "logged in to {server} as {user}, but CAPABILITY got no answer"
            )));
        }
    };
    let mailbox = &url.mailbox;
    let selected = match timeout(COMMAND_TIMEOUT, session.select(mailbox)).await {
        Ok(Ok(selected)) => selected,
        Ok(Err(e)) => {
            return Err(unreachable(format!(
                "logged in to {server} as {user}, but cannot open mailbox {mailbox:?}: {}",
                imap_error_text(&e)
            )));
        }
        Err(_) => {
            return Err(unreachable(format!(
                "logged in to {server} as {user}, but opening mailbox {mailbox:?} got no answer"
            )));
        }
    };
    Ok(Connection {
        session,
        idle,
        selected,
        last_command: Instant::now(),
    })
}

/// The longest greeting line read; real ones (with a capability list) are a few hundred bytes.
const MAX_GREETING: usize = 4096;
/// How much of unexpected server output an error message quotes.
const QUOTED_CHARS: usize = 80;

/// Reads the server's first line, up to and including `\n`, at most [`MAX_GREETING`] bytes.
/// Byte by byte, so nothing after the line is taken from the stream.
async fn read_greeting(stream: &mut ImapStream) -> std::io::Result<Vec<u8>> {
    use tokio::io::AsyncReadExt;
    let mut line = Vec::with_capacity(256);
    let mut byte = [0u8; 1];
    while line.len() < MAX_GREETING && !line.ends_with(b"\n") {
        if stream.read(&mut byte).await? == 0 {
            break;
        }
        line.push(byte[0]);
    }
    Ok(line)
}

/// Accepts `* OK` and `* PREAUTH`; anything else is a sentence saying what arrived instead.
fn check_greeting(line: &[u8]) -> Result<(), String> {
    let text = String::from_utf8_lossy(line);
    let upper = text.to_ascii_uppercase();
    if upper.starts_with("* OK") || upper.starts_with("* PREAUTH") {
        return Ok(());
    }
    if line.is_empty() {
        return Err("the server closed the connection before greeting".into());
    }
    if let Some(reason) = text.get(5..).filter(|_| upper.starts_with("* BYE")) {
        return Err(format!(
            "the server refused the connection: {}",
            quoted(reason.trim().as_bytes())
        ));
    }
    let kind = if upper.starts_with("HTTP/") {
        " (that is a web server, not IMAP)"
    } else if upper.starts_with("220") {
        " (that is an SMTP server, not IMAP)"
    } else if upper.starts_with("+OK") {
        " (that is a POP3 server, not IMAP)"
    } else if line.first().is_some_and(|b| *b == 0x15 || *b == 0x16) {
        " (that looks like TLS: use imaps://)"
    } else {
        ""
    };
    Err(format!(
        "expected an IMAP greeting (\"* OK ...\") but the server sent \"{}\"{kind}",
        quoted(line)
    ))
}

/// The start of what a server sent, as one printable line: control characters become `?`,
/// at most [`QUOTED_CHARS`] characters, `…` when cut.
fn quoted(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end_matches(['\r', '\n']);
    let mut out: String = text
        .chars()
        .take(QUOTED_CHARS)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if text.chars().count() > QUOTED_CHARS {
        out.push('…');
    }
    out
}

fn tls_config() -> Result<Arc<rustls::ClientConfig>, InboxError> {
    static CONFIG: OnceLock<Result<Arc<rustls::ClientConfig>, String>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let roots = rustls::RootCertStore {
                roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
            };
            rustls::ClientConfig::builder_with_provider(Arc::new(
                rustls::crypto::ring::default_provider(),
            ))
            .with_safe_default_protocol_versions()
            .map(|builder| Arc::new(builder.with_root_certificates(roots).with_no_client_auth()))
            .map_err(|e| format!("cannot set up TLS: {e}"))
        })
        .clone()
        .map_err(InboxError::Unreachable)
}

/// A server's NO/BAD text (`[AUTHENTICATIONFAILED] Authentication failed.`) rather than
/// async-imap's debug rendering of it.
fn imap_error_text(e: &async_imap::error::Error) -> String {
    use async_imap::error::Error;
    match e {
        Error::No(detail) | Error::Bad(detail) => {
            let info = detail
                .split_once("info: Some(\"")
                .and_then(|(_, rest)| rest.rsplit_once("\")"))
                .map(|(text, _)| text.replace("\\\"", "\"").replace("\\\\", "\\"));
            let code = detail
                .strip_prefix("code: Some(")
                .and_then(|rest| rest.split_once("), info:"))
                .map(|(code, _)| code.to_string());
            match (code, info) {
                (Some(code), Some(info)) => format!("[{code}] {info}"),
                (None, Some(info)) => info,
                _ => e.to_string(),
            }
        }
        Error::ConnectionLost => "the server closed the connection".into(),
        Error::Io(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            "the server closed the connection".into()
        }
        // async-imap renders unparsable input as `{nom error:?} during parsing of {input:?}`,
        // which can be tens of kilobytes; quote the start of the input instead.
        Error::Io(io) if io.to_string().contains(" during parsing of ") => {
            let rendered = io.to_string();
            let input = rendered
                .split_once(" during parsing of ")
                .map(|(_, input)| input.trim_matches('"').replace("\\r\\n", " "))
                .unwrap_or_default();
            format!(
                "the server sent something that is not IMAP: \"{}\"",
                quoted(input.as_bytes())
            )
        }
        other => other.to_string(),
    }
}

/// Plain TCP or TLS, so one session type serves `imap://` and `imaps://`.
enum ImapStream {
    Plain(TcpStream),
    Tls(Box<TlsStream<TcpStream>>),
}

impl fmt::Debug for ImapStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ImapStream::Plain(_) => "ImapStream::Plain",
            ImapStream::Tls(_) => "ImapStream::Tls",
        })
    }
}

impl AsyncRead for ImapStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            ImapStream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            ImapStream::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for ImapStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        match self.get_mut() {
            ImapStream::Plain(s) => Pin::new(s).poll_write(cx, buf),
            ImapStream::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            ImapStream::Plain(s) => Pin::new(s).poll_flush(cx),
            ImapStream::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            ImapStream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            ImapStream::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_refusals_read_as_the_server_wrote_them() {
        let e = async_imap::error::Error::No(
            "code: None, info: Some(\"[AUTHENTICATIONFAILED] Authentication failed.\")".into(),
        );
        assert_eq!(
            imap_error_text(&e),
            "[AUTHENTICATIONFAILED] Authentication failed."
        );
        let e = async_imap::error::Error::No(
            "code: Some(TryCreate), info: Some(\"Mailbox doesn't exist: Nope\")".into(),
        );
        assert_eq!(
            imap_error_text(&e),
            "[TryCreate] Mailbox doesn't exist: Nope"
        );
    }

    #[test]
    fn greetings_name_what_answered_instead() {
        assert_eq!(
            check_greeting(b"* OK [CAPABILITY IMAP4rev1] ready\r\n"),
            Ok(())
        );
        assert_eq!(check_greeting(b"* preauth welcome back\r\n"), Ok(()));
        assert_eq!(
            check_greeting(b"* BYE Too many connections\r\n").unwrap_err(),
            "the server refused the connection: Too many connections"
        );
        assert_eq!(
            check_greeting(b"+OK POP3 ready\r\n").unwrap_err(),
            "expected an IMAP greeting (\"* OK ...\") but the server sent \"+OK POP3 ready\" \
             (that is a POP3 server, not IMAP)"
        );
        assert_eq!(
            check_greeting(b"").unwrap_err(),
            "the server closed the connection before greeting"
        );
        let long = quoted(&[b'a'; 500]);
        assert_eq!(long.chars().count(), QUOTED_CHARS + 1);
        assert_eq!(quoted(b"a\x00b\x1b[31m\r\n"), "a?b?[31m");
    }

    #[test]
    fn unparsable_responses_are_quoted_not_dumped() {
        let input = format!("* OK hi\r\n{}", "garbage ".repeat(5000));
        let e = async_imap::error::Error::Io(std::io::Error::other(format!(
            "{:?} during parsing of {:?}",
            input.as_bytes(),
            input
        )));
        let text = imap_error_text(&e);
        assert!(
            text.starts_with("the server sent something that is not IMAP: \"* OK hi garbage "),
            "{text}"
        );
        assert!(text.len() < 200, "{text}");
    }
}
