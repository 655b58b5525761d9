//! The task that owns a mailbox's IMAP session: it connects (waiting in line for the account's
//! allowance), serves the runs' requests, polls or IDLEs, reconnects with backoff, keeps the
//! connection for the next run, and logs out once nobody has needed it for a while.

use std::sync::Arc;
use std::time::Duration;

use async_imap::extensions::idle::IdleResponse;
use chrono::Utc;
use futures::TryStreamExt;
use tokio::sync::{mpsc, watch};
use tokio::time::{Instant, sleep_until, timeout};

use super::connection::{self, Connection, command, drain_unsolicited, imap_error_text};
use super::{
    COMMAND_TIMEOUT, FETCH_TIMEOUT, KEEP_UNUSED, Mailbox, QUEUE_TIMEOUT, REIDLE_AFTER, Request,
};
use crate::inbox::InboxError;
use crate::inbox::message::parse_message;

/// Without IDLE, a NOOP this often keeps an otherwise quiet connection alive.
const KEEPALIVE_AFTER: Duration = Duration::from_secs(5 * 60);
/// Below this poll cadence, IDLE between polls cannot deliver sooner than the next poll.
const IDLE_BETWEEN_POLLS_FROM: Duration = Duration::from_millis(200);
/// A connection quiet this long may have been dropped by the server or a middlebox without
/// our noticing; when its first command fails, reconnect once at once instead of failing the
/// requests it was serving.
const STALE_AFTER: Duration = Duration::from_secs(10);
const BACKOFF_FIRST: Duration = Duration::from_millis(50);
const BACKOFF_MAX: Duration = Duration::from_secs(2);
/// UIDs per FETCH command.
const FETCH_BATCH: usize = 50;

pub(super) struct Watcher {
    mailbox: Arc<Mailbox>,
    rx: mpsc::UnboundedReceiver<Request>,
    pending: Vec<Request>,
    connection: Option<Connection>,
    /// The server announced a change (IDLE) that no sync has picked up yet.
    dirty: bool,
    /// The connection was kept with no run open since its last successful command.
    kept: bool,
    /// How many wait for a connection to this account.
    queue: watch::Receiver<usize>,
}

/// Why a turn ended the session.
struct Lost {
    error: String,
    /// The requests were left pending, to be served again on a fresh connection.
    retry: bool,
}

impl Watcher {
    pub(super) fn new(mailbox: Arc<Mailbox>, rx: mpsc::UnboundedReceiver<Request>) -> Watcher {
        Watcher {
            queue: mailbox.gate.queue(),
            mailbox,
            rx,
            pending: Vec::new(),
            connection: None,
            dirty: false,
            kept: false,
        }
    }

    pub(super) async fn run(mut self) {
        let mut backoff = BACKOFF_FIRST;
        let mut last_needed = Instant::now();
        loop {
            while let Ok(request) = self.rx.try_recv() {
                self.pending.push(request);
            }
            if self.needed() {
                last_needed = Instant::now();
            } else if (self.connection.is_none()
                || last_needed.elapsed() >= KEEP_UNUSED
                || *self.queue.borrow() > 0)
                && self.retire()
            {
                if let Some(mut connection) = self.connection.take() {
                    let _ = timeout(Duration::from_secs(2), connection.session.logout()).await;
                }
                return;
            }

            if self.connection.is_none() {
                if !self.needed() {
                    // `retire` found a request in the channel; the next round takes it.
                    continue;
                }
                if let Err(error) = self.connect().await {
                    tracing::debug!(url = %self.mailbox.url, "IMAP connect failed: {error}");
                    self.disconnected(&error);
                    self.backoff(Instant::now() + backoff, &error).await;
                    backoff = (backoff * 2).min(BACKOFF_MAX);
                }
                continue;
            }

            match self.turn(last_needed + KEEP_UNUSED).await {
                // Backoff restarts only once a session has worked, so a server that accepts
                // logins but fails every command is not hammered.
                Ok(()) => backoff = BACKOFF_FIRST,
                Err(Lost { error, retry }) => {
                    tracing::debug!(url = %self.mailbox.url, retry, "IMAP connection lost: {error}");
                    self.connection = None;
                    if retry {
                        continue;
                    }
                    let error = InboxError::Unreachable(format!(
                        "lost the connection to {}: {error}",
                        self.mailbox.url
                    ));
                    self.disconnected(&error);
                    self.backoff(Instant::now() + backoff, &error).await;
                    backoff = (backoff * 2).min(BACKOFF_MAX);
                }
            }
        }
    }

    /// A run is open or a request waits.
    fn needed(&self) -> bool {
        !self.pending.is_empty() || !self.mailbox.lock().runs.is_empty()
    }

    /// Gives up the watcher slot if nobody needs it. Done under the slot lock so a request
    /// sent at the same moment either finds this watcher or starts a new one.
    fn retire(&mut self) -> bool {
        let mut slot = self
            .mailbox
            .watcher
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if self.mailbox.lock().runs.is_empty() && self.rx.is_empty() {
            *slot = None;
            true
        } else {
            false
        }
    }

    /// Waits in line for a share of the account's connections, then connects. Returns
    /// without connecting when nobody needs the connection any more.
    async fn connect(&mut self) -> Result<(), InboxError> {
        let gate = self.mailbox.gate.clone();
        let entry = gate.enter(Instant::now() + QUEUE_TIMEOUT);
        tokio::pin!(entry);
        let permit = loop {
            tokio::select! {
                permit = &mut entry => break permit.map_err(|e| {
                    InboxError::Unreachable(format!(
                        "cannot connect to {}: {e} for {} s",
                        self.mailbox.url,
                        QUEUE_TIMEOUT.as_secs()
                    ))
                })?,
                request = self.rx.recv() => self.pending.extend(request),
                _ = self.mailbox.wake.notified() => {
                    if !self.needed() {
                        return Ok(());
                    }
                }
            }
        };
        let connection = connection::connect(&self.mailbox.url, permit).await?;
        tracing::debug!(url = %self.mailbox.url, idle = connection.idle, "IMAP connected");
        self.connected(connection);
        Ok(())
    }

    fn connected(&mut self, connection: Connection) {
        let mut state = self.mailbox.lock();
        let validity = connection.selected.uid_validity;
        if let (Some(old), Some(new)) = (state.uid_validity, validity)
            && old != new
        {
            // The mailbox was recreated: old UIDs mean nothing. Runs keep waiting for mail
            // that arrives from now on; anything delivered during the gap is not seen.
            tracing::warn!(url = %self.mailbox.url, old, new, "UIDVALIDITY changed; watermarks reset");
            let next = connection.selected.uid_next.unwrap_or(1);
            state.messages.clear();
            for run in state.runs.values_mut() {
                if run.watermark.is_some() {
                    run.watermark = Some(next);
                }
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
        self.kept = false;
        self.mailbox.bump();
    }

    fn disconnected(&mut self, error: &InboxError) {
        self.mailbox.lock().error = Some(error.to_string());
        self.mailbox.bump();
        for request in self.pending.drain(..) {
            request.answer(Err(error.clone()));
        }
    }

    /// Waits out a reconnect backoff, answering requests that come meanwhile with `error`.
    async fn backoff(&mut self, until: Instant, error: &InboxError) {
        loop {
            tokio::select! {
                request = self.rx.recv() => match request {
                    Some(request) => request.answer(Err(error.clone())),
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
            _ = self.mailbox.wake.notified() => {}
            _ = sleep_until(until) => {}
        }
    }

    /// Keeps an unused connection until `until`, a request, or another mailbox of the
    /// account waiting for a connection (then the caller gives this one up).
    async fn keep_until(&mut self, until: Instant) {
        self.kept = true;
        if *self.queue.borrow_and_update() > 0 {
            return;
        }
        tokio::select! {
            request = self.rx.recv() => self.pending.extend(request),
            _ = self.mailbox.wake.notified() => {}
            _ = self.queue.changed() => {}
            _ = sleep_until(until) => {}
        }
    }

    /// One round on a live connection: serve requests, sync if due, then wait for the next
    /// reason to act. With no run open, the connection is kept until `keep_until`.
    ///
    /// Requests never fail because of a connection that died while nobody used it: when the
    /// session breaks in IDLE, or on the first command after it was kept unused or sat quiet,
    /// the requests stay pending for a fresh connection ([`Lost::retry`]).
    async fn turn(&mut self, keep_until: Instant) -> Result<(), Lost> {
        let quiet = self
            .connection
            .as_ref()
            .expect("turn runs connected")
            .last_command
            .elapsed();
        let poll = self.mailbox.lock().poll();
        let synced_at = self.mailbox.lock().synced_at;
        let poll_due = poll.is_some_and(|poll| synced_at.is_none_or(|at| at.elapsed() >= poll));
        if !self.pending.is_empty() || self.dirty || poll_due {
            match self.serve().await {
                Ok(()) => {
                    for request in self.pending.drain(..) {
                        request.answer(Ok(()));
                    }
                    self.dirty = false;
                    self.kept = false;
                }
                Err(error) if self.kept || quiet >= STALE_AFTER => {
                    return Err(Lost { error, retry: true });
                }
                Err(error) => {
                    return Err(Lost {
                        error,
                        retry: false,
                    });
                }
            }
        }

        let connection = self.connection.as_ref().expect("turn runs connected");
        let can_idle = connection.idle;
        let quiet_since = connection.last_command;
        let (poll, synced_at, unused) = {
            let state = self.mailbox.lock();
            (state.poll(), state.synced_at, state.runs.is_empty())
        };
        let result = if unused {
            // Nobody to notify: just keep the session for a run that may open soon.
            self.keep_until(keep_until).await;
            Ok(())
        } else if let Some(poll) = poll {
            let next_poll = synced_at.unwrap_or_else(Instant::now) + poll;
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
        };
        // Requests that came in meanwhile were not sent yet: a fresh connection serves them.
        result.map_err(|error| Lost {
            retry: !self.pending.is_empty(),
            error,
        })
    }

    /// Serves the pending requests: the watermarks of newly opened runs, then a sync when a
    /// request asks for one, the server announced news, or a waiting step's poll is due.
    async fn serve(&mut self) -> Result<(), String> {
        let keys: Vec<u64> = self
            .pending
            .iter()
            .filter_map(|request| match request {
                Request::Watermark { key, .. } => Some(*key),
                Request::Sync { .. } => None,
            })
            .collect();
        if !keys.is_empty() {
            self.watermark(&keys).await?;
        }
        let asked = self
            .pending
            .iter()
            .any(|request| matches!(request, Request::Sync { .. }));
        let poll_due = {
            let state = self.mailbox.lock();
            state
                .poll()
                .is_some_and(|poll| state.synced_at.is_none_or(|at| at.elapsed() >= poll))
        };
        if asked || self.dirty || poll_due {
            self.sync().await?;
        }
        Ok(())
    }

    /// Records the watermark of the runs `keys`: the UIDNEXT the server reports now. One
    /// STATUS serves every run that opened since the last.
    async fn watermark(&mut self, keys: &[u64]) -> Result<(), String> {
        let connection = self.connection.as_mut().expect("connected");
        let mailbox = self.mailbox.url.mailbox.clone();
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
        let mut state = self.mailbox.lock();
        if let (Some(old), Some(new)) = (state.uid_validity, uid_validity)
            && old != new
        {
            return Err(format!(
                "mailbox {mailbox:?} was recreated (UIDVALIDITY {old} became {new})"
            ));
        }
        for key in keys {
            // Still registered? (The run may have been dropped while STATUS ran.)
            if let Some(run) = state.runs.get_mut(key) {
                run.watermark = Some(uid_next);
            }
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
            let state = self.mailbox.lock();
            state
                .lowest_watermark()
                .map(|low| low.max(state.next_unfetched))
        };
        let Some(from) = from else {
            // No run needs messages yet; keep the session warm and report success.
            self.sync_noop().await?;
            self.mailbox.lock().synced_at = Some(started);
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
            let state = self.mailbox.lock();
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
        let mut state = self.mailbox.lock();
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
            self.mailbox.bump();
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
            permit,
            ..
        } = connection;
        tracing::trace!(url = %self.mailbox.url, "IDLE");
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
                _ = self.mailbox.wake.notified() => false,
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
            permit,
        });
        tracing::trace!(url = %self.mailbox.url, news, "IDLE ended");
        self.dirty |= news;
        Ok(())
    }
}
