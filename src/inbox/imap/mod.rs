//! IMAP backend (async-imap): one shared connection per mailbox serves every run reading it,
//! polling at a short cadence while a step waits, IDLE push otherwise, reconnecting on loss.
//!
//! Why one shared connection, kept between runs: concurrent runs share a mailbox through
//! plus-addressing, and servers cap connections per user and address (Dovecot: 10, Gmail: 15),
//! so neither a connection per run nor one per request would scale. Every inbox bound to the
//! same mailbox in this process (each request of `serve` binds its inboxes anew) finds the
//! same `Mailbox`: a background task (the watcher) owns its session, runs talk to it through
//! a channel and read its cache of fetched messages. The connection outlives the runs for
//! [`KEEP_UNUSED`], so the next request reuses it; all mailboxes of one account together stay
//! within `max_connections=` (see `gate.rs`).
//!
//! Why polling while a step waits: Dovecot batches IDLE notifications (`NOTIFY_DELAY_MSECS`,
//! 500 ms in its source), so IDLE alone is too slow on a local server. While some step waits,
//! the watcher sends `NOOP` + `UID SEARCH` every `poll` (25 ms on loopback, 1 s remote, or
//! `poll_ms=`); when `poll` is long enough to matter it IDLEs between polls, so push still
//! wins on servers that notify at once. Servers without IDLE are polled, and kept alive with
//! NOOP. IDLE is re-issued every [`REIDLE_AFTER`], well before the 30-minute logout of RFC 2177.

mod connection;
mod gate;
mod run;
mod watcher;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::{Notify, mpsc, oneshot, watch};
use tokio::time::Instant;

use self::gate::Gate;
use self::run::ImapRunMailbox;
use self::watcher::Watcher;
use super::message::is_addressed_to;
use super::{ImapUrl, Inbox, InboxError, Message, RunMailbox};

/// Deadline for the TCP connect and the TLS handshake.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Deadline for every IMAP command except FETCH.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(15);
/// Deadline for fetching a batch of whole messages (attachments can be large).
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(60);
/// IDLE is ended and re-issued this often (RFC 2177 servers may log out after 30 min).
pub const REIDLE_AFTER: Duration = Duration::from_secs(5 * 60);
/// A mailbox's connection stays open this long after its last run closed, for the next run.
/// It is given up sooner when another mailbox of the account waits for a connection.
pub const KEEP_UNUSED: Duration = Duration::from_secs(5 * 60);
/// How long a mailbox waits in line for a connection when its account's `max_connections`
/// are all in use.
pub const QUEUE_TIMEOUT: Duration = Duration::from_secs(30);
/// Cached messages per mailbox; the oldest are dropped first.
const MAX_CACHED: usize = 1000;

/// A mailbox on an IMAP server as one `--inbox` URL binds it: the shared `Mailbox`, plus
/// what the URL says about addresses and polling.
pub struct ImapInbox {
    mailbox: Arc<Mailbox>,
    url: ImapUrl,
}

impl ImapInbox {
    /// Binds `url` to the process's one `Mailbox` for its server, user, password and
    /// mailbox, creating it if need be. Nothing connects until [`Inbox::check`] or the first
    /// [`Inbox::open`]; a connection already open for the mailbox is reused.
    pub fn bind(url: ImapUrl) -> ImapInbox {
        ImapInbox {
            mailbox: Mailbox::of(&url),
            url,
        }
    }

    pub fn url(&self) -> &ImapUrl {
        &self.url
    }
}

#[async_trait]
impl Inbox for ImapInbox {
    /// Logs in (or confirms that the live connection still works) through the mailbox's
    /// shared connection: a check never opens a second one.
    async fn check(&self) -> Result<(), InboxError> {
        self.mailbox.request(|reply| Request::Sync { reply }).await
    }

    async fn open(&self, run_id: &str) -> Result<Box<dyn RunMailbox>, InboxError> {
        let address = self.url.run_address(run_id);
        let run = ImapRunMailbox::register(self.mailbox.clone(), address, self.url.poll);
        // From here on, dropping `run` (also when this future is cancelled) unregisters it.
        let key = run.key();
        self.mailbox
            .request(|reply| Request::Watermark { key, reply })
            .await?;
        Ok(Box::new(run))
    }

    fn describe(&self) -> String {
        self.url.to_string()
    }
}

/// One mailbox on a server, as every inbox bound to it in this process shares it: the
/// runs reading it, the watcher's request channel, and the cache of fetched messages.
struct Mailbox {
    /// The first URL bound to it: everything a connection needs is the same in all of them.
    url: ImapUrl,
    gate: Arc<Gate>,
    state: Mutex<State>,
    /// Bumped whenever the cache or the connection state changes.
    updates: watch::Sender<u64>,
    /// Pokes the watcher out of IDLE or a sleep (a step started waiting, a run closed).
    wake: Notify,
    /// The live watcher's request channel; `None` when no watcher runs.
    watcher: Mutex<Option<mpsc::UnboundedSender<Request>>>,
    next_key: AtomicU64,
}

/// What identifies a mailbox: the password is part of it, so a URL with a wrong password
/// never reads through a connection that another URL logged in.
#[derive(Clone, PartialEq, Eq, Hash)]
struct MailboxKey {
    tls: bool,
    host: String,
    port: u16,
    user: String,
    password: String,
    mailbox: String,
    /// Pinned addresses are part of it too: a mailbox judged at one address is never
    /// reached through a connection made to another.
    connect_to: Vec<std::net::IpAddr>,
}

#[derive(Default)]
struct State {
    runs: HashMap<u64, OpenRun>,
    /// The poll cadence of every step waiting right now; while any waits, the watcher polls
    /// at the shortest.
    waiting: Vec<Duration>,
    uid_validity: Option<u32>,
    /// Every message with a UID below this (and at or above the lowest watermark) is cached.
    next_unfetched: u32,
    messages: BTreeMap<u32, Message>,
    /// When the last successful sync began.
    synced_at: Option<Instant>,
    /// Why the watcher is disconnected, while it is.
    error: Option<String>,
}

struct OpenRun {
    address: String,
    /// The mailbox's UIDNEXT at `open`; `None` until known.
    watermark: Option<u32>,
}

impl State {
    fn lowest_watermark(&self) -> Option<u32> {
        self.runs.values().filter_map(|run| run.watermark).min()
    }

    /// Drops what no open run can be shown: mail from before every watermark, and mail to
    /// none of their addresses (a run opened later has a later watermark).
    fn prune(&mut self) {
        let Some(low) = self.lowest_watermark() else {
            self.messages.clear();
            return;
        };
        let runs = &self.runs;
        self.messages.retain(|uid, message| {
            *uid >= low
                && runs
                    .values()
                    .any(|run| is_addressed_to(message, &run.address))
        });
        while self.messages.len() > MAX_CACHED {
            self.messages.pop_first();
        }
    }

    fn poll(&self) -> Option<Duration> {
        self.waiting.iter().min().copied()
    }
}

impl Mailbox {
    /// The mailbox `url` names, shared process-wide. The registry holds it weakly: it lives
    /// as long as an inbox bound to it or its watcher (which keeps the connection for
    /// [`KEEP_UNUSED`] after the last run).
    fn of(url: &ImapUrl) -> Arc<Mailbox> {
        static MAILBOXES: OnceLock<Mutex<HashMap<MailboxKey, Weak<Mailbox>>>> = OnceLock::new();
        let key = MailboxKey {
            tls: url.tls,
            host: url.host.clone(),
            port: url.port,
            user: url.user.clone(),
            password: url.password.clone(),
            mailbox: url.mailbox.clone(),
            connect_to: url.connect_to.clone(),
        };
        let mut mailboxes = MAILBOXES
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        // The gate is looked up every time, so a smaller `max_connections` takes effect.
        let gate = Gate::of(url);
        if let Some(mailbox) = mailboxes.get(&key).and_then(Weak::upgrade) {
            return mailbox;
        }
        mailboxes.retain(|_, mailbox| mailbox.strong_count() > 0);
        let mailbox = Arc::new(Mailbox {
            url: url.clone(),
            gate,
            state: Mutex::new(State::default()),
            updates: watch::Sender::new(0),
            wake: Notify::new(),
            watcher: Mutex::new(None),
            next_key: AtomicU64::new(1),
        });
        mailboxes.insert(key, Arc::downgrade(&mailbox));
        mailbox
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn bump(&self) {
        self.updates.send_modify(|generation| *generation += 1);
    }

    fn next_key(&self) -> u64 {
        self.next_key.fetch_add(1, Ordering::Relaxed)
    }

    /// Hands a request to the watcher (starting one if none runs) and waits for its answer.
    async fn request(
        self: &Arc<Self>,
        make: impl FnOnce(oneshot::Sender<Result<(), InboxError>>) -> Request,
    ) -> Result<(), InboxError> {
        let (tx, rx) = oneshot::channel();
        self.send(make(tx));
        rx.await.unwrap_or_else(|_| {
            Err(InboxError::Unreachable(format!(
                "the connection to {} stopped unexpectedly",
                self.url
            )))
        })
    }

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
        tokio::spawn(Watcher::new(self.clone(), rx).run());
    }
}

enum Request {
    /// Record the run's watermark (UIDNEXT now).
    Watermark {
        key: u64,
        reply: oneshot::Sender<Result<(), InboxError>>,
    },
    /// Bring the cache up to date with the server (which also proves the session works).
    Sync {
        reply: oneshot::Sender<Result<(), InboxError>>,
    },
}

impl Request {
    fn answer(self, result: Result<(), InboxError>) {
        let reply = match self {
            Request::Watermark { reply, .. } | Request::Sync { reply } => reply,
        };
        let _ = reply.send(result);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> ImapUrl {
        match crate::inbox::parse_url(s).unwrap() {
            crate::inbox::InboxUrl::Imap(u) => u,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn inboxes_of_one_mailbox_share_it_whatever_their_address() {
        let a = ImapInbox::bind(url("imap://b:pw@127.0.0.1:1/?address=a@b.test"));
        let b = ImapInbox::bind(url("imap://b:pw@127.0.0.1:1/?address=a@b.test&plus=true"));
        let c = ImapInbox::bind(url("imap://b:pw@127.0.0.1:1/INBOX?address=c@b.test"));
        assert!(Arc::ptr_eq(&a.mailbox, &b.mailbox));
        assert!(Arc::ptr_eq(&a.mailbox, &c.mailbox));
        let other_folder = ImapInbox::bind(url("imap://b:pw@127.0.0.1:1/Sent?address=a@b.test"));
        let other_password = ImapInbox::bind(url("imap://b:pw2@127.0.0.1:1/?address=a@b.test"));
        assert!(!Arc::ptr_eq(&a.mailbox, &other_folder.mailbox));
        assert!(!Arc::ptr_eq(&a.mailbox, &other_password.mailbox));
        // Same account: one allowance of connections.
        assert!(Arc::ptr_eq(&a.mailbox.gate, &other_password.mailbox.gate));
    }
}
