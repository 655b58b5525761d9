//! Embedded SMTP receiver: the app under test sends mail to planlock itself, each run at
//! `run-RUNID@DOMAIN` (or every run at one fixed address); messages live in memory and wake
//! waiting steps at once.
//!
//! Why not a crate: `mailin-embedded` (the maintained embeddable server) is blocking and
//! thread-per-connection, and its `serve()` never returns — no shutdown, no port-0 address
//! reporting, no async hand-off to waiting steps. What is needed here is a small subset of
//! RFC 5321 (EHLO/HELO, MAIL, RCPT, DATA with dot-unstuffing, RSET, NOOP, QUIT, 8BITMIME,
//! SIZE, PIPELINING; no relay, no auth), which is ~300 lines on tokio and fully under test.

mod session;
mod slots;
mod store;

use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::Arc;

use async_trait::async_trait;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use self::store::HeldMail;
use super::message::is_addressed_to;
use super::{Inbox, InboxError, Message, RunMailbox};

/// Messages kept in memory; older ones are dropped first.
pub const MAX_STORED_MESSAGES: usize = 1000;
/// Largest message accepted (advertised with `SIZE`).
pub const MAX_MESSAGE_BYTES: usize = 25 * 1024 * 1024;
/// Message bytes held at once by default, over every run and transfer in progress.
pub const MAX_HELD_BYTES: usize = 64 * 1024 * 1024;

/// How a receiver is started; [`SmtpOptions::default`] is what `smtp://` URLs get.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmtpOptions {
    /// Listen on an address other than loopback (e.g. `0.0.0.0`, for an app under test in a
    /// container). Off unless asked for: the receiver takes mail from anyone who can reach it.
    pub allow_remote: bool,
    /// Message bytes held at once, over every run; beyond it, mail is refused with a 452
    /// until runs read theirs or close their mailbox.
    pub max_held_bytes: usize,
    /// Every run receives at this one address (in the receiver's domain) instead of its own
    /// `run-RUNID@DOMAIN`: an account made before the run, at an address nobody could know
    /// per run, can be used. Like a mailbox without plus addressing, runs open at the same
    /// time see each other's mail to it.
    pub address: Option<String>,
}

impl Default for SmtpOptions {
    fn default() -> Self {
        SmtpOptions {
            allow_remote: false,
            max_held_bytes: MAX_HELD_BYTES,
            address: None,
        }
    }
}

/// The embedded receiver. Dropping it stops accepting connections.
pub struct SmtpInbox {
    local_addr: SocketAddr,
    store: Arc<HeldMail>,
    acceptor: JoinHandle<()>,
}

impl SmtpInbox {
    /// Binds `addr` on loopback (port 0 picks a free port) and starts accepting mail for
    /// `domain`. Any other address is refused; see [`SmtpInbox::start_with`].
    pub async fn start(addr: SocketAddr, domain: &str) -> Result<Arc<SmtpInbox>, InboxError> {
        SmtpInbox::start_with(addr, domain, SmtpOptions::default()).await
    }

    /// Binds `addr` and starts accepting mail for `domain`, as `options` allow.
    pub async fn start_with(
        addr: SocketAddr,
        domain: &str,
        options: SmtpOptions,
    ) -> Result<Arc<SmtpInbox>, InboxError> {
        if !addr.ip().is_loopback() && !options.allow_remote {
            return Err(InboxError::Unreachable(format!(
                "the embedded SMTP receiver listens on loopback only (127.0.0.1 or ::1): {addr} \
                 would take mail from other machines; allow it explicitly (allow_remote=true in \
                 the inbox URL)"
            )));
        }
        let listener = TcpListener::bind(addr).await.map_err(|e| {
            InboxError::Unreachable(format!(
                "cannot start the embedded SMTP receiver on {addr}: {e}{}",
                if e.kind() == std::io::ErrorKind::AddrInUse {
                    " (another program uses that port; pick another, or port 0 for any free one)"
                } else {
                    ""
                }
            ))
        })?;
        let local_addr = listener.local_addr().map_err(|e| {
            InboxError::Unreachable(format!("the embedded SMTP receiver on {addr}: {e}"))
        })?;
        let address = match options.address {
            Some(a) if !is_in_domain(&a, domain) => {
                return Err(InboxError::Unreachable(format!(
                    "the embedded SMTP receiver for {domain} cannot take mail for {a}: the \
                     address must be in {domain}"
                )));
            }
            a => a,
        };
        let store = Arc::new(HeldMail::new(domain, address, options.max_held_bytes));
        let acceptor = tokio::spawn(session::accept_loop(listener, store.clone()));
        tracing::debug!(%local_addr, domain = %store.domain, "embedded SMTP receiver listening");
        Ok(Arc::new(SmtpInbox {
            local_addr,
            store,
            acceptor,
        }))
    }

    /// Where the receiver listens; point the app under test's SMTP settings here.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    pub fn domain(&self) -> &str {
        &self.store.domain
    }

    /// The address a run with this id receives mail at: its own, or the fixed one.
    pub fn run_address(&self, run_id: &str) -> String {
        match &self.store.address {
            Some(address) => address.clone(),
            None => format!("run-{}@{}", run_id.to_lowercase(), self.store.domain),
        }
    }

    /// Every message held for open runs, oldest first (at most [`MAX_STORED_MESSAGES`]). A
    /// message every recipient has consumed keeps its headers but not its bytes (`raw` is
    /// empty).
    pub fn messages(&self) -> Vec<Message> {
        let state = self.store.lock();
        state.messages.iter().map(|h| h.message.clone()).collect()
    }

    /// Message bytes held now, counting messages still being received.
    pub fn held_bytes(&self) -> usize {
        let state = self.store.lock();
        state.held_bytes + state.reserved_bytes
    }
}

impl Drop for SmtpInbox {
    fn drop(&mut self) {
        self.acceptor.abort();
    }
}

#[async_trait]
impl Inbox for SmtpInbox {
    async fn check(&self) -> Result<(), InboxError> {
        if self.acceptor.is_finished() {
            return Err(InboxError::Unreachable(format!(
                "the embedded SMTP receiver on {} has stopped",
                self.local_addr
            )));
        }
        Ok(())
    }

    async fn open(&self, run_id: &str) -> Result<Box<dyn RunMailbox>, InboxError> {
        // Subscribe before reading the watermark, so a delivery in between still wakes us.
        let delivered = self.store.delivered.subscribe();
        let address = self.run_address(run_id);
        let after = self.store.open(&address);
        Ok(Box::new(SmtpRunMailbox {
            store: self.store.clone(),
            address,
            after,
            delivered,
            consumed: HashSet::new(),
        }))
    }

    fn describe(&self) -> String {
        match &self.store.address {
            Some(address) => format!(
                "smtp://{}?address={address} (embedded receiver)",
                self.local_addr
            ),
            None => format!(
                "smtp://{}?domain={} (embedded receiver)",
                self.local_addr, self.store.domain
            ),
        }
    }
}

struct SmtpRunMailbox {
    store: Arc<HeldMail>,
    address: String,
    /// Messages with a sequence number above this arrived after `open`.
    after: u64,
    delivered: watch::Receiver<u64>,
    /// Sequence numbers of messages this run consumed: returned without their bytes.
    consumed: HashSet<u64>,
}

impl Drop for SmtpRunMailbox {
    fn drop(&mut self) {
        self.store.close(&self.address);
    }
}

#[async_trait]
impl RunMailbox for SmtpRunMailbox {
    fn address(&self) -> &str {
        &self.address
    }

    async fn arrived(&mut self) -> Result<Vec<Message>, InboxError> {
        // Mark as seen first: a delivery after this line makes `changed` return at once.
        self.delivered.borrow_and_update();
        let state = self.store.lock();
        Ok(state
            .messages
            .iter()
            .filter(|h| h.seq > self.after && is_addressed_to(&h.message, &self.address))
            .map(|h| {
                if self.consumed.contains(&h.seq) {
                    without_bytes(&h.message)
                } else {
                    h.message.clone()
                }
            })
            .collect())
    }

    async fn changed(&mut self, until: Instant) -> Result<(), InboxError> {
        tokio::select! {
            // The sender lives in the store we hold, so this never reports a closed channel.
            _ = self.delivered.changed() => {}
            _ = tokio::time::sleep_until(until) => {}
        }
        Ok(())
    }

    fn consumed(&mut self, message_id: &str) {
        if let Ok(seq) = message_id.parse::<u64>() {
            self.consumed.insert(seq);
            self.store.consumed(&self.address, seq);
        }
    }
}

/// Whether `address` is `local@domain`, in any letter case.
fn is_in_domain(address: &str, domain: &str) -> bool {
    address
        .rsplit_once('@')
        .is_some_and(|(local, d)| !local.is_empty() && d.eq_ignore_ascii_case(domain.trim()))
}

/// A message's headers without its bytes.
fn without_bytes(message: &Message) -> Message {
    Message {
        id: message.id.clone(),
        from: message.from.clone(),
        sender: message.sender.clone(),
        to: message.to.clone(),
        subject: message.subject.clone(),
        received_at: message.received_at,
        raw: Vec::new(),
    }
}
