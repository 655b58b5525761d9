//! The one waiting loop every inbox step uses: re-check the run's mailbox whenever it may
//! have changed, until a matching message arrives or the deadline passes.

use std::collections::HashSet;
use std::time::Duration;

use tokio::time::{Instant, sleep_until, timeout_at};

use super::sender::SenderMismatch;
use super::{Message, RETRY_AFTER_ERROR, RunMailbox};
use crate::plan::SenderFilter;

/// Longest pause between retries after backend errors.
const MAX_RETRY_AFTER_ERROR: Duration = Duration::from_secs(2);

/// What an inbox step asks for beyond "addressed to this run": the sender (an address, or a
/// domain and its subdomains; never the display name) and a case-insensitive substring of
/// the subject.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MailFilter {
    pub from: Option<String>,
    pub subject: Option<String>,
}

impl MailFilter {
    pub fn matches(&self, message: &Message) -> bool {
        self.mismatch(message).is_none()
    }

    /// Why `message` does not match, for the timeout sentence.
    fn mismatch(&self, message: &Message) -> Option<Mismatch> {
        let from = match non_empty(self.from.as_deref()) {
            None => Ok(()),
            Some(from) => SenderFilter::parse(from)
                .map_err(SenderMismatch::Filter)
                .and_then(|filter| message.sender.check(&filter)),
        };
        let subject = contains(&message.subject, self.subject.as_deref());
        match (from, subject) {
            (Ok(()), true) => None,
            (Err(why), true) => Some(Mismatch::Sender(why)),
            (Ok(()), false) => Some(Mismatch::Subject),
            (Err(why), false) => Some(Mismatch::SenderAndSubject(why)),
        }
    }
}

/// A filter's non-empty `from` or `subject`, trimmed.
pub fn non_empty(s: Option<&str>) -> Option<&str> {
    s.map(str::trim).filter(|s| !s.is_empty())
}

fn contains(haystack: &str, needle: Option<&str>) -> bool {
    match non_empty(needle) {
        None => true,
        Some(needle) => haystack.to_lowercase().contains(&needle.to_lowercase()),
    }
}

/// A message that arrived for the run during the wait but was not taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passed {
    pub subject: String,
    pub from: String,
    pub reason: Mismatch,
}

/// Why a message that arrived was not taken (the runner words it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mismatch {
    /// An earlier step used it.
    AlreadyUsed,
    /// Its subject does not hold the filter's words.
    Subject,
    /// It is not from the filter's sender.
    Sender(SenderMismatch),
    /// Neither its sender nor its subject match.
    SenderAndSubject(SenderMismatch),
}

/// Why no message was returned: facts the step's failure sentence is made of
/// (`runner/failure.rs`).
#[derive(Debug, Clone)]
pub enum WaitError {
    /// The deadline passed without a matching message.
    Timeout {
        address: String,
        filter: MailFilter,
        waited: Duration,
        /// Messages for this run that arrived but did not match (or were already used).
        passed: Vec<Passed>,
        /// Backend errors during the wait (the inbox recovered from them).
        errors: usize,
        last_error: Option<String>,
    },
    /// The mailbox could not be read when the deadline passed.
    Unreachable {
        address: String,
        waited: Duration,
        last_error: String,
    },
}

impl WaitError {
    pub fn is_timeout(&self) -> bool {
        matches!(self, WaitError::Timeout { .. })
    }
}

/// The message an inbox step takes, and how many older copies of it it set aside.
#[derive(Debug, Clone)]
pub struct Taken {
    pub message: Message,
    /// Unused mail that arrived before it with the same sender and subject: earlier copies of
    /// the same mail (a site that sent it again, a "resend" clicked twice). A person uses the
    /// newest; the older ones are marked used with it.
    pub older_copies: usize,
}

/// Waits for the oldest message for this run that matches `filter` and whose id is not in
/// `consumed`; when newer copies of it (the same sender and subject) have arrived too, the
/// newest of them. Backend errors are retried with backoff until `deadline`; the error then
/// names the last one. The message taken and the copies it replaced are added to `consumed`,
/// and the mailbox is told, so it may let go of their bytes.
pub async fn wait_for_message(
    mailbox: &mut dyn RunMailbox,
    filter: &MailFilter,
    consumed: &mut HashSet<String>,
    deadline: Instant,
) -> Result<Taken, WaitError> {
    let started = Instant::now();
    let mut passed: Vec<(String, Passed)> = Vec::new();
    let mut errors = 0usize;
    let mut last_error: Option<String> = None;
    let mut failing = false;
    let mut retry_after = RETRY_AFTER_ERROR;
    loop {
        match timeout_at(deadline, mailbox.arrived()).await {
            Err(_elapsed) => break,
            Ok(Err(e)) => {
                errors += 1;
                last_error = Some(e.to_string());
                failing = true;
                tracing::debug!(
                    address = mailbox.address(),
                    "inbox read failed, retrying: {e}"
                );
                // Returns early when the backend reports a change (e.g. it reconnected).
                let retry_at = deadline.min(Instant::now() + retry_after);
                if mailbox.changed(retry_at).await.is_err() {
                    sleep_until(retry_at).await;
                }
                retry_after = (retry_after * 2).min(MAX_RETRY_AFTER_ERROR);
                if Instant::now() >= deadline {
                    break;
                }
                continue;
            }
            Ok(Ok(messages)) => {
                failing = false;
                retry_after = RETRY_AFTER_ERROR;
                let mut messages = messages.into_iter();
                while let Some(message) = messages.next() {
                    if passed.iter().any(|(id, _)| *id == message.id) {
                        continue;
                    }
                    let reason = if consumed.contains(&message.id) {
                        Mismatch::AlreadyUsed
                    } else {
                        match filter.mismatch(&message) {
                            None => return Ok(take(mailbox, message, messages, consumed)),
                            Some(reason) => reason,
                        }
                    };
                    passed.push((
                        message.id.clone(),
                        Passed {
                            subject: message.subject.clone(),
                            from: message.from.clone(),
                            reason,
                        },
                    ));
                }
            }
        }
        if Instant::now() >= deadline {
            break;
        }
        if let Err(e) = mailbox.changed(deadline).await {
            errors += 1;
            last_error = Some(e.to_string());
            sleep_until(deadline.min(Instant::now() + retry_after)).await;
            retry_after = (retry_after * 2).min(MAX_RETRY_AFTER_ERROR);
        }
    }
    let waited = deadline.saturating_duration_since(started);
    let address = mailbox.address().to_string();
    match (failing, last_error) {
        (true, Some(last_error)) => Err(WaitError::Unreachable {
            address,
            waited,
            last_error,
        }),
        (_, last_error) => Err(WaitError::Timeout {
            address,
            filter: filter.clone(),
            waited,
            passed: passed.into_iter().map(|(_, p)| p).collect(),
            errors,
            last_error,
        }),
    }
}

/// Takes `first`, the oldest match, or the newest unused copy of it among the `later` mail;
/// every copy passed over is marked used with it.
fn take(
    mailbox: &mut dyn RunMailbox,
    first: Message,
    later: impl Iterator<Item = Message>,
    consumed: &mut HashSet<String>,
) -> Taken {
    let copies: Vec<Message> = later
        .filter(|m| !consumed.contains(&m.id) && is_copy(&first, m))
        .collect();
    let older_copies = copies.len();
    let mut taken = first;
    for newer in copies {
        let older = std::mem::replace(&mut taken, newer);
        consumed.insert(older.id.clone());
        mailbox.consumed(&older.id);
    }
    consumed.insert(taken.id.clone());
    mailbox.consumed(&taken.id);
    Taken {
        message: taken,
        older_copies,
    }
}

/// The same mail again: the same sender (its addresses and the receiving server's verdict on
/// them, never the display name) and the same subject.
fn is_copy(a: &Message, b: &Message) -> bool {
    a.sender == b.sender && a.subject == b.subject
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;

    /// A message as the backends build it, from its `From` and `Subject` headers.
    fn message(from: &str, subject: &str) -> Message {
        let raw =
            format!("From: {from}\r\nTo: run-ab12@demo.test\r\nSubject: {subject}\r\n\r\nhi\r\n");
        super::super::message::parse_message("1".into(), raw.into_bytes(), Utc::now(), &[])
    }

    fn from(f: &str) -> MailFilter {
        MailFilter {
            from: Some(f.into()),
            subject: None,
        }
    }

    #[test]
    fn the_display_name_never_counts() {
        let spoof = message(
            "\"Shop <no-reply@shop.example>\" <codes@evil.test>",
            "Your code",
        );
        assert!(!from("shop.example").matches(&spoof));
        assert!(!from("no-reply@shop.example").matches(&spoof));
        assert!(from("evil.test").matches(&spoof));
        // A name is not a filter: it would only ever match what the sender wrote.
        assert!(!from("Shop").matches(&message("Shop <no-reply@shop.example>", "x")));
        let real = message("Shop <no-reply@shop.example>", "Your code");
        assert!(from("shop.example").matches(&real));
        assert!(from("no-reply@shop.example").matches(&real));
        assert!(from("no-reply@shop.example").matches(&message("no-reply@shop.example", "x")));
    }

    #[test]
    fn the_sender_is_matched_by_domain_and_the_subject_by_substring() {
        let m = message("Shop Team <hello@SHOP.example>", "Verify your e-mail");
        let f = |from: Option<&str>, subject: Option<&str>| MailFilter {
            from: from.map(Into::into),
            subject: subject.map(Into::into),
        };
        assert!(f(None, None).matches(&m));
        assert!(f(Some("shop.EXAMPLE"), Some("verify")).matches(&m));
        assert!(f(Some(" "), Some("")).matches(&m));
        let not_the_sender = Some(Mismatch::Sender(SenderMismatch::NotTheSender));
        assert_eq!(f(Some("bank.example"), None).mismatch(&m), not_the_sender);
        assert_eq!(f(Some("hop.example"), None).mismatch(&m), not_the_sender);
        assert_eq!(f(None, Some("reset")).mismatch(&m), Some(Mismatch::Subject));
        assert_eq!(
            f(Some("bank.example"), Some("reset")).mismatch(&m),
            Some(Mismatch::SenderAndSubject(SenderMismatch::NotTheSender))
        );
    }
}
