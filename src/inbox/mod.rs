//! Mailboxes a run can read: one narrow interface ([`Inbox`] / [`RunMailbox`]), two real
//! backends (IMAP, embedded SMTP receiver), the one waiting loop, and pure extraction.

pub mod binding;
pub mod extract;
#[cfg(test)]
mod generated_mail;
pub mod imap;
mod message;
mod sender;
pub mod smtp;
pub mod wait;

pub use binding::{
    Caller, ImapUrl, InboxUrl, SmtpUrl, UrlPart, UrlProblem, parse_binding, parse_binding_as,
    parse_url, parse_url_as,
};
pub use sender::{AuthFailure, Sender, SenderMismatch};
pub use wait::{MailFilter, Taken, WaitError, wait_for_message};

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use tokio::time::Instant;

/// Reads an untrusted message with planlock's own parsers. They must never panic: their
/// tests (property tests over generated mails, headers and HTML parts among them) call them
/// with this guard off, so a panic fails the test. In a run, a panic that slipped through
/// anyway costs the one message (`fallback`), never the run, and is logged.
pub(crate) fn read_untrusted<T>(what: &str, fallback: T, read: impl FnOnce() -> T) -> T {
    if cfg!(test) {
        return read();
    }
    skip_on_panic(what, fallback, read)
}

/// The guard of [`read_untrusted`] in a run: `read`'s panic becomes `fallback` and a log line.
fn skip_on_panic<T>(what: &str, fallback: T, read: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(read)).unwrap_or_else(|_| {
        tracing::error!("reading {what} of an untrusted message panicked; the message is skipped");
        fallback
    })
}

/// One received message, as the inbox steps see it.
#[derive(Debug, Clone)]
pub struct Message {
    /// Unique within its backend (IMAP UID, or the receiver's sequence number).
    pub id: String,
    /// The `From` header as written (display name and address), for people to read.
    pub from: String,
    /// What a `from` filter may trust about the sender: the address(es) and the receiving
    /// server's authentication verdict.
    pub sender: Sender,
    /// Every recipient address (envelope and `To`/`Cc`), lower-cased.
    pub to: Vec<String>,
    pub subject: String,
    pub received_at: DateTime<Utc>,
    /// The whole RFC 5322 message, as delivered.
    pub raw: Vec<u8>,
}

/// Why an inbox could not be bound or read.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum InboxError {
    /// The inbox URL itself is wrong (exit 2). Front ends say where it came from (a flag, a
    /// request field) before the problem's sentence.
    #[error("the inbox `{given}`: {problem}")]
    InvalidUrl {
        /// The binding or URL as given, its password hidden.
        given: String,
        problem: UrlProblem,
    },
    /// The server cannot be reached or refused us (exit 3 before a run; a step failure during
    /// one). A sentence built from the server's own answer, which names the server (without
    /// its password) and the step that failed: connecting, logging in, opening the mailbox.
    #[error("{0}")]
    Unreachable(String),
    /// The mail server failed, refused or stayed silent at one `stage` of opening the mailbox
    /// (exit 3 before a run; a step failure during one). `server` is the URL's scheme, user, host
    /// and port, never its password; `said` the stage's sentence, from the server's answer.
    #[error("{said}")]
    Refused {
        stage: Stage,
        server: String,
        said: String,
    },
}

/// The stages of opening a mailbox, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Reaching the server: TCP, TLS and its greeting.
    Connect,
    /// Logging in (and asking what the server can do).
    LogIn,
    /// Opening the mailbox the URL names.
    Select,
}

/// A configured mailbox, shared by runs. Cheap to `open` once per run.
#[async_trait]
pub trait Inbox: Send + Sync {
    /// Checks that the mailbox can be reached and logged into. Called before any step runs.
    async fn check(&self) -> Result<(), InboxError>;

    /// Opens this run's view of the mailbox: the run's own address, and a watermark taken
    /// now, so mail that arrived before this call is never returned.
    async fn open(&self, run_id: &str) -> Result<Box<dyn RunMailbox>, InboxError>;

    /// A short description for logs, without the password (e.g. `imap://bob@127.0.0.1:1143/INBOX`).
    fn describe(&self) -> String;
}

/// One run's view of a mailbox.
#[async_trait]
pub trait RunMailbox: Send {
    /// The address this run's mail is sent to.
    fn address(&self) -> &str;

    /// Every message addressed to [`RunMailbox::address`] that arrived after `open`,
    /// oldest first. Reconnects as needed.
    async fn arrived(&mut self) -> Result<Vec<Message>, InboxError>;

    /// Returns when new mail may have arrived, or at `until`, whichever is first.
    /// Spurious wake-ups are fine; callers re-check with [`RunMailbox::arrived`].
    async fn changed(&mut self, until: Instant) -> Result<(), InboxError>;

    /// The run took the message with this id (a step used it): the backend may let go of
    /// its bytes. Later [`RunMailbox::arrived`] calls may return it without `raw`.
    fn consumed(&mut self, _message_id: &str) {}
}

/// Starts the backend a URL names. IMAP connects lazily (call [`Inbox::check`] to fail early);
/// SMTP binds its listening socket now (beyond loopback only if the URL allowed it, which a
/// URL parsed for [`Caller::Service`] never does).
///
/// Every IMAP URL naming the same mailbox (server, user, password, folder) shares one
/// connection in this process, kept between runs: binding the URL again for each request
/// `serve` handles reuses it.
pub async fn connect(url: &InboxUrl) -> Result<Arc<dyn Inbox>, InboxError> {
    Ok(match url {
        InboxUrl::Imap(u) => Arc::new(imap::ImapInbox::bind(u.clone())),
        InboxUrl::Smtp(u) => {
            let options = smtp::SmtpOptions {
                allow_remote: u.allow_remote,
                address: u.address.clone(),
                ..smtp::SmtpOptions::default()
            };
            smtp::SmtpInbox::start_with(u.listen, &u.domain, options).await?
        }
    })
}

/// How long the waiting loop sleeps after a backend error before it tries again.
pub const RETRY_AFTER_ERROR: Duration = Duration::from_millis(250);

#[cfg(test)]
mod tests {
    use super::skip_on_panic;

    #[test]
    fn in_a_run_a_reader_that_panics_costs_its_message_only() {
        assert_eq!(skip_on_panic("the headers", 7, || 8), 8);
        assert_eq!(
            skip_on_panic("the headers", 7, || panic!("a reader's bug")),
            7
        );
    }
}
