//! How an inbox step's wait that ended without a message is worded: what arrived, why each
//! message was passed over, or why the mailbox could not be read. And the failure of a step
//! that found no code or no link to take from the message it waited for.

use super::*;
use crate::inbox::extract::{LinkError, OtpError};
use crate::inbox::wait::{MailFilter, Mismatch, Passed};
use crate::inbox::{self, AuthFailure, SenderMismatch};
use crate::lock::Lock;

impl Failure {
    /// Why the step took no code from the message `subject` from `from`.
    pub(in crate::runner) fn code_not_taken(
        error: OtpError,
        subject: String,
        from: String,
    ) -> Failure {
        match error {
            OtpError::NoCode => Failure::NoCode { subject, from },
            OtpError::Ambiguous { first, second } => Failure::AmbiguousCode {
                subject,
                first,
                second,
            },
        }
    }

    /// Why the step took no link from the message `subject` from `from`; `lock` is
    /// the run's, which says why a link outside it is refused.
    pub(in crate::runner) fn link_not_taken(
        error: LinkError,
        lock: &Lock,
        subject: String,
        from: String,
    ) -> Failure {
        match error {
            LinkError::OnlyOutside { candidates } => {
                match candidates.first().and_then(|url| lock.check(url).err()) {
                    Some(refusal) => Failure::LinksOutside { subject, refusal },
                    None => Failure::NoLink { subject, from },
                }
            }
            LinkError::NoCandidates => Failure::NoLink { subject, from },
            LinkError::Refused { url, why } => Failure::LinkRefused {
                subject,
                from,
                url: url.to_string(),
                why,
            },
            LinkError::Ambiguous { first, second } => Failure::AmbiguousLink {
                subject,
                first: first.to_string(),
                second: second.to_string(),
            },
        }
    }
}

/// Why an inbox step's wait ended without a message: what arrived and why each was passed
/// over, or why the mailbox could not be read. The sentence a step's failure shows.
pub fn mail_wait_sentence(error: &WaitError) -> String {
    match error {
        WaitError::Timeout {
            address,
            filter,
            waited,
            passed,
            errors,
            last_error,
        } => timeout_sentence(
            address,
            filter,
            *waited,
            passed,
            *errors,
            last_error.as_deref(),
        ),
        WaitError::Unreachable {
            address,
            waited,
            last_error,
        } => format!(
            "could not read the inbox for {address} within {}: {last_error}",
            wait_seconds(*waited)
        ),
    }
}

fn timeout_sentence(
    address: &str,
    filter: &MailFilter,
    waited: Duration,
    passed: &[Passed],
    errors: usize,
    last_error: Option<&str>,
) -> String {
    let within = wait_seconds(waited);
    let mut s = if passed.is_empty() {
        format!("no email at all arrived for {address} within {within}")
    } else {
        let n = passed.len();
        let listed: Vec<String> = passed
            .iter()
            .take(5)
            .map(|p| {
                let from = if p.from.is_empty() {
                    "an unknown sender"
                } else {
                    &p.from
                };
                format!(
                    "{:?} from {from} ({})",
                    p.subject,
                    mismatch_words(&p.reason)
                )
            })
            .collect();
        let more = if n > 5 {
            format!(" and {} more", n - 5)
        } else {
            String::new()
        };
        format!(
            "no email to {address}{} arrived within {within}; {n} other message{} arrived: {}{more}",
            filter_words(filter),
            if n == 1 { "" } else { "s" },
            listed.join(", ")
        )
    };
    if let (n @ 1.., Some(last)) = (errors, last_error) {
        s.push_str(&format!(
            " (reading the inbox failed {n} time{} during the wait; last: {last})",
            if n == 1 { "" } else { "s" }
        ));
    }
    s
}

/// ` from "shop.example" with subject containing "verify"`, or nothing.
fn filter_words(filter: &MailFilter) -> String {
    let mut s = String::new();
    if let Some(from) = inbox::wait::non_empty(filter.from.as_deref()) {
        s.push_str(&format!(" from {from:?}"));
    }
    if let Some(subject) = inbox::wait::non_empty(filter.subject.as_deref()) {
        s.push_str(&format!(" with subject containing {subject:?}"));
    }
    s
}

/// Why a message that arrived was passed over.
fn mismatch_words(mismatch: &Mismatch) -> String {
    match mismatch {
        Mismatch::AlreadyUsed => "already used by an earlier step".into(),
        Mismatch::Subject => "subject does not match".into(),
        Mismatch::Sender(why) => sender_words(why),
        Mismatch::SenderAndSubject(SenderMismatch::NotTheSender) => {
            "neither sender nor subject match".into()
        }
        Mismatch::SenderAndSubject(why) => format!("{}; nor does the subject", sender_words(why)),
    }
}

/// Why a message is not from the sender a step names.
fn sender_words(mismatch: &SenderMismatch) -> String {
    match mismatch {
        SenderMismatch::Filter(why) => why.clone(),
        SenderMismatch::NoAddress => "it has no sender address".into(),
        SenderMismatch::Several(n) => format!("it names {n} senders, and a mail has one"),
        SenderMismatch::NotTheSender => "sender does not match".into(),
        SenderMismatch::Unauthentic { failure, filter } => {
            let said = match failure {
                AuthFailure::Dmarc { domain } => {
                    format!("the receiving server says DMARC failed for {domain}")
                }
                AuthFailure::Dkim { domain } => {
                    format!("the receiving server says the DKIM signature of {domain} failed")
                }
            };
            format!("{said}, so it may not be from {filter}")
        }
    }
}

/// `120 s`, `2.5 s`, `0.2 s` (to the nearest tenth; whole numbers without a decimal, and
/// from ten seconds on).
pub(super) fn wait_seconds(d: Duration) -> String {
    let tenths = (d.as_millis() + 50) / 100;
    if tenths.is_multiple_of(10) || tenths >= 100 {
        format!("{} s", (tenths + 5) / 10)
    } else {
        format!("{}.{} s", tenths / 10, tenths % 10)
    }
}
