//! Why a step or a run failed, as data ([`Failure`]), and the one place those facts become the
//! sentences people read: what was looked for, what was found, and — when a wait ran out —
//! what the step before it did, since that is usually the cause.

use std::fmt;
use std::time::Duration;

use crate::browser::{
    Blocker, BrowserError, Candidate, Cover, Difference, Effect, FormError, Located, PageError,
    Rejection, Target,
};
use crate::error::{ErrorKind, StepError};
use crate::inbox::{InboxError, WaitError};
use crate::lock::{Refusal, Undoing};
use crate::plan::VarsError;

mod mail;
mod page;
mod refusal;

pub use mail::mail_wait_sentence;
pub(super) use page::form_error_phrase;
use page::*;

/// Why a step (or the run around it) failed.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Failure {
    /// The page could not do what the step asked.
    Page {
        error: Box<PageError>,
        /// How long the step waited (for `wait_for_text`'s sentence).
        waited: Duration,
        /// What the browser step before this one did, when this was a wait that ran out.
        previous: Option<Box<Previous>>,
    },
    /// An inbox step's wait ended without a usable message.
    Mail {
        error: Box<WaitError>,
        previous: Option<Box<Previous>>,
    },
    /// The page came back with the form the run submitted and error texts about it: the
    /// wait after the submission would only run out.
    FormErrors {
        errors: Vec<String>,
        previous: Option<Box<Previous>>,
    },
    /// A click did nothing that could be seen within its window.
    NoEffect {
        located: Box<Located>,
        effect: Box<Effect>,
        /// 0-based indexes of the `fill` steps whose form was waiting for this click.
        filled: Vec<usize>,
    },
    /// A check the plan let fail (`could`, `should`) failed right after a browser action that
    /// did not do what the plan needs (`previous`): a click that did nothing, one that left the
    /// form this run filled unsent, a form that came back. The run cannot have reached its goal.
    Unconfirmed {
        check: Box<Failure>,
        previous: Box<Previous>,
    },
    /// The run reached its end with a form it filled still on the page, never sent.
    NeverSent {
        /// 0-based indexes of the fill steps.
        filled: Vec<usize>,
        /// The last browser step before the end.
        previous: Option<Box<Previous>>,
    },
    /// The run reached its end while the page still asked, in a modal dialog, about the
    /// submission of its last click (a confirmation no step answered).
    Unanswered {
        /// The dialog's name, or the start of its text.
        question: String,
        /// The click that submitted the form.
        previous: Box<Previous>,
    },
    /// The matched email has no one-time code.
    NoCode { subject: String, from: String },
    /// The matched email has no verification or sign-in link.
    NoLink { subject: String, from: String },
    /// The matched email links only outside the run's lock.
    LinksOutside { subject: String, refusal: Refusal },
    /// The only links of the matched email that look like the one to follow undo or destroy
    /// something (cancel, remove, unsubscribe…); such a link is never opened.
    LinkRefused {
        subject: String,
        from: String,
        url: String,
        why: Undoing,
    },
    /// Two links of the matched email to different places stayed equally plausible.
    AmbiguousLink {
        subject: String,
        first: String,
        second: String,
    },
    /// Two different codes of the matched email stayed equally plausible (masked).
    AmbiguousCode {
        subject: String,
        first: String,
        second: String,
    },
    /// A step names an inbox the run does not have.
    UnboundInbox { name: Option<String> },
    /// A variable has no value at run time.
    Variable(VarsError),
    /// A mailbox could not be opened for the run.
    InboxOpen {
        /// The inbox as its description names it (no password); `None` where the error came
        /// without one.
        inbox: Option<String>,
        error: InboxError,
    },
    /// The browser could not give the run a page, or a command of it failed.
    Browser(BrowserError),
    /// The browser process went away while the step ran.
    BrowserCrashed { reason: String },
    /// A page left for a refused destination after the last step.
    LateRefusal(Refusal),
    /// Ctrl-C, a signal, `DELETE`, or server shutdown.
    Cancelled,
    /// Cancelled while it waited in a service's queue for a slot.
    CancelledWaiting,
    /// The service's task that ran it stopped unexpectedly (a bug).
    Lost,
    /// The replica that claimed the run from a shared queue could not start it.
    NotStarted { replica: String, reason: String },
    /// The service running it (this replica) stopped before the run ended.
    Interrupted { replica: String },
    /// The run's own deadline passed.
    RunTimeout { limit: Duration },
}

/// What the last browser step before a failed wait did, as facts.
#[derive(Debug, Clone, PartialEq)]
pub struct Previous {
    /// 0-based index of that step.
    pub step: usize,
    pub action: PreviousAction,
    /// Where the page was after it.
    pub url: Option<String>,
    /// 0-based indexes of the `fill` steps since the last click or navigation.
    pub filled: Vec<usize>,
}

/// The kind of browser step a wait followed.
#[derive(Debug, Clone, PartialEq)]
#[expect(
    clippy::large_enum_variant,
    reason = "a run keeps one, its last browser step; the click's is the one that says most"
)]
pub enum PreviousAction {
    /// A click on this element, which did or did not start a navigation.
    Clicked {
        element: Option<Candidate>,
        described: Option<String>,
        navigated: bool,
        /// What the click did (`None`: not watched).
        effect: Option<Box<Effect>>,
        /// The error texts of the form it submitted, when the page came back with that form.
        came_back: Vec<String>,
    },
    /// A `navigate` or an email's link.
    Opened,
    /// A `fill` or code step (nothing submitted yet).
    Filled,
}

impl Failure {
    /// The kind reported in results (`error.kind`).
    pub fn kind(&self) -> ErrorKind {
        match self {
            Failure::Page { error, .. } => match error.as_ref() {
                PageError::NotFound { .. } => ErrorKind::NotFound,
                PageError::NotActionable { .. } => ErrorKind::NotActionable,
                PageError::StillLoading { .. } => ErrorKind::Timeout,
                PageError::Rejected {
                    target: Target::Element { .. },
                    ..
                } => ErrorKind::NotFound,
                PageError::Rejected {
                    why: Rejection::Ambiguous { .. },
                    ..
                } => ErrorKind::Ambiguous,
                PageError::Rejected {
                    why: Rejection::NotAControl { .. },
                    ..
                } => ErrorKind::NotFound,
                PageError::Rejected { .. } => ErrorKind::NotActionable,
                PageError::FormNotSent { .. } => ErrorKind::FormNotSent,
                PageError::TextAbsent { .. } => ErrorKind::Timeout,
                PageError::BadUrl { .. } => ErrorKind::InvalidInput,
                PageError::LoadFailed { .. }
                | PageError::LoadTimedOut { .. }
                | PageError::HttpStatus { .. } => ErrorKind::Navigation,
                PageError::Refused(_) => ErrorKind::LockRefused,
                PageError::BrowserGone { .. } => ErrorKind::BrowserCrashed,
                PageError::PageClosed | PageError::Command(_) => ErrorKind::Browser,
            },
            Failure::Mail { error, .. } => {
                if error.is_timeout() {
                    ErrorKind::EmailTimeout
                } else {
                    ErrorKind::Inbox
                }
            }
            Failure::FormErrors { .. } | Failure::NeverSent { .. } | Failure::Unanswered { .. } => {
                ErrorKind::FormNotSent
            }
            Failure::NoEffect { .. } => ErrorKind::NoEffect,
            Failure::Unconfirmed { previous, .. } => match &previous.action {
                PreviousAction::Clicked {
                    effect: Some(e), ..
                } if e.is_none() => ErrorKind::NoEffect,
                _ => ErrorKind::FormNotSent,
            },
            Failure::NoCode { .. } => ErrorKind::NoCode,
            Failure::NoLink { .. } | Failure::LinkRefused { .. } => ErrorKind::NoLink,
            Failure::AmbiguousLink { .. } | Failure::AmbiguousCode { .. } => ErrorKind::Ambiguous,
            Failure::LinksOutside { .. } | Failure::LateRefusal(_) => ErrorKind::LockRefused,
            Failure::UnboundInbox { .. } | Failure::Variable(_) => ErrorKind::InvalidInput,
            Failure::InboxOpen { .. } => ErrorKind::Inbox,
            Failure::Browser(_) => ErrorKind::Browser,
            Failure::BrowserCrashed { .. } => ErrorKind::BrowserCrashed,
            Failure::Cancelled | Failure::CancelledWaiting => ErrorKind::Cancelled,
            Failure::Lost | Failure::NotStarted { .. } => ErrorKind::Browser,
            Failure::Interrupted { .. } => ErrorKind::Interrupted,
            Failure::RunTimeout { .. } => ErrorKind::RunTimeout,
        }
    }

    /// What a click that failed found and did, for the step's detail.
    pub(crate) fn click_facts(&self) -> Option<(Located, Effect)> {
        match self {
            Failure::NoEffect {
                located, effect, ..
            } => Some((located.as_ref().clone(), effect.as_ref().clone())),
            _ => None,
        }
    }

    /// The kind and the sentence, as results carry them.
    pub fn to_step_error(&self) -> StepError {
        StepError::new(self.kind(), self.to_string())
    }

    /// A wait that ran out is explained by the browser step before it.
    pub(crate) fn after(mut self, previous: Option<Previous>) -> Failure {
        match &mut self {
            Failure::Page {
                error, previous: p, ..
            } if matches!(error.as_ref(), PageError::TextAbsent { .. }) => {
                *p = previous.map(Box::new)
            }
            Failure::Mail { previous: p, .. } => *p = previous.map(Box::new),
            _ => {}
        }
        self
    }
}

impl From<BrowserError> for Failure {
    fn from(e: BrowserError) -> Failure {
        Failure::Browser(e)
    }
}

impl From<InboxError> for Failure {
    fn from(e: InboxError) -> Failure {
        Failure::InboxOpen {
            inbox: None,
            error: e,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Page {
                error,
                waited,
                previous,
            } => {
                page_sentence(f, error, *waited)?;
                cause(f, previous.as_deref())
            }
            Failure::Mail { error, previous } => {
                f.write_str(&mail_wait_sentence(error))?;
                if error.is_timeout() {
                    cause(f, previous.as_deref())?;
                }
                Ok(())
            }
            Failure::FormErrors { errors, previous } => {
                let sent = match previous.as_deref() {
                    Some(p) => format!("the form step {} sent", p.step + 1),
                    None => "the form".to_string(),
                };
                write!(
                    f,
                    "the page came back with {sent} and says: {}",
                    quoted(errors)
                )
            }
            // The window, not the time it took: the same page gets the same sentence.
            Failure::NoEffect {
                located, filled, ..
            } => {
                write!(
                    f,
                    "clicked {}, but nothing happened within {} s: no navigation, no request, no \
                     change of the page, no dialog, no new tab, no change of state or focus",
                    located_phrase(located),
                    fmt_secs(crate::browser::CLICK_WINDOW)
                )?;
                if !filled.is_empty() {
                    write!(
                        f,
                        "; the form filled in {} was not submitted",
                        steps_phrase(filled)
                    )?;
                }
                Ok(())
            }
            Failure::Unconfirmed { check, previous } => write!(
                f,
                "{check}; step {} did not do what the plan needs, so this check ends the run \
                 although the plan let it fail",
                previous.step + 1
            ),
            Failure::NeverSent { filled, previous } => {
                write!(
                    f,
                    "the run reached its end, but the form filled in {} was never sent: the \
                     page still shows it as it was filled",
                    steps_phrase(filled)
                )?;
                match previous.as_deref() {
                    Some(
                        p @ Previous {
                            action: PreviousAction::Clicked { .. },
                            ..
                        },
                    ) => cause(f, Some(p)),
                    _ => write!(f, "; no step after it submitted it"),
                }
            }
            Failure::Unanswered { question, previous } => {
                write!(
                    f,
                    "the run reached its end, but the form step {} submitted was not sent: the \
                     page asks \"{question}\" in a dialog, and no step answered it",
                    previous.step + 1
                )?;
                cause(f, Some(previous))
            }
            Failure::NoCode { subject, from } => {
                write!(
                    f,
                    "the email \"{subject}\" from {from} has no one-time code"
                )
            }
            Failure::NoLink { subject, from } => write!(
                f,
                "the email \"{subject}\" from {from} has no verification or sign-in link"
            ),
            Failure::LinksOutside { subject, refusal } => write!(
                f,
                "the email \"{subject}\" links only outside this run: {refusal}"
            ),
            Failure::LinkRefused {
                subject,
                from,
                url,
                why,
            } => write!(
                f,
                "the email \"{subject}\" from {from} has no link to follow: its only candidate, \
                 {url}, undoes or destroys something ({why}), and such a link is never opened"
            ),
            Failure::AmbiguousLink {
                subject,
                first,
                second,
            } => write!(
                f,
                "the email \"{subject}\" has two links to different places that are equally \
                 plausible, {first} and {second}; planlock does not guess: say which in the \
                 step's describe"
            ),
            Failure::AmbiguousCode {
                subject,
                first,
                second,
            } => write!(
                f,
                "the email \"{subject}\" has two different codes that are equally plausible, \
                 {first} and {second}; planlock does not guess"
            ),
            Failure::UnboundInbox { name: Some(name) } => {
                write!(f, "no inbox named \"{name}\" is bound to this run")
            }
            Failure::UnboundInbox { name: None } => write!(f, "no inbox is bound to this run"),
            Failure::Variable(e) => write!(f, "{e}"),
            Failure::InboxOpen { inbox: None, error } => {
                write!(f, "cannot open the inbox: {error}")
            }
            Failure::InboxOpen {
                inbox: Some(inbox),
                error,
            } => write!(f, "cannot open {inbox}: {error}"),
            Failure::Browser(e) => browser_sentence(f, e),
            Failure::BrowserCrashed { reason } => {
                write!(f, "the browser went away during the step: {reason}")
            }
            Failure::LateRefusal(r) => write!(
                f,
                "after the last step, the page tried to leave the lock: {r}"
            ),
            Failure::Cancelled => write!(f, "the run was cancelled"),
            Failure::CancelledWaiting => {
                write!(f, "the run was cancelled while it waited for a slot")
            }
            Failure::Lost => write!(
                f,
                "the run stopped unexpectedly inside the server; the details are in its log"
            ),
            Failure::NotStarted { replica, reason } => write!(
                f,
                "the server that took this run from the queue ({replica}) could not start it: \
                 {reason}"
            ),
            Failure::Interrupted { replica } => write!(
                f,
                "the server running this run ({replica}) stopped before the run ended"
            ),
            Failure::RunTimeout { limit } => write!(
                f,
                "the run's deadline of {} s passed during this step",
                limit.as_secs()
            ),
        }
    }
}

/// The sentence of a page error outside any step (the look before planning).
pub(crate) fn page_error_sentence(error: &PageError) -> String {
    Failure::Page {
        error: Box::new(error.clone()),
        waited: Duration::ZERO,
        previous: None,
    }
    .to_string()
}

/// Seconds without a needless `.0`.
pub(crate) fn fmt_secs(d: Duration) -> String {
    let s = (d.as_secs_f64() * 10.0).round() / 10.0;
    if s.fract() == 0.0 {
        format!("{s:.0}")
    } else {
        format!("{s:.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::mail::wait_seconds;
    use super::*;
    use crate::inbox::wait::{MailFilter, Mismatch, Passed};

    #[test]
    fn mail_wait_sentences() {
        let e = WaitError::Timeout {
            address: "run-ab12@demo.test".into(),
            filter: MailFilter {
                from: Some("shop.example".into()),
                subject: None,
            },
            waited: Duration::from_secs(120),
            passed: vec![Passed {
                subject: "Welcome!".into(),
                from: "news@shop.example".into(),
                reason: Mismatch::Subject,
            }],
            errors: 0,
            last_error: None,
        };
        assert_eq!(
            mail_wait_sentence(&e),
            "no email to run-ab12@demo.test from \"shop.example\" arrived within 120 s; 1 other \
             message arrived: \"Welcome!\" from news@shop.example (subject does not match)"
        );
        let e = WaitError::Timeout {
            address: "run-ab12@demo.test".into(),
            filter: MailFilter::default(),
            waited: Duration::from_millis(5000),
            passed: vec![],
            errors: 2,
            last_error: Some("connection lost".into()),
        };
        assert_eq!(
            mail_wait_sentence(&e),
            "no email at all arrived for run-ab12@demo.test within 5 s (reading the inbox \
             failed 2 times during the wait; last: connection lost)"
        );
        assert_eq!(wait_seconds(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(wait_seconds(Duration::from_micros(999_998)), "1 s");
        assert_eq!(wait_seconds(Duration::from_millis(1_499)), "1.5 s");
        assert_eq!(wait_seconds(Duration::from_millis(119_999)), "120 s");
    }

    fn link_in_nav() -> Candidate {
        Candidate {
            tag: Some("a".into()),
            text: Some("Sign Up".into()),
            role: Some("link".into()),
            landmark: Some("nav".into()),
            submits: Some(false),
            in_filled_form: Some(false),
            ..Candidate::default()
        }
    }

    #[test]
    fn a_wait_after_a_menu_click_names_the_click_and_the_unsent_form() {
        let previous = Previous {
            step: 4,
            action: PreviousAction::Clicked {
                element: Some(link_in_nav()),
                described: None,
                navigated: true,
                effect: None,
                came_back: Vec::new(),
            },
            url: Some("http://shop.test/signup".into()),
            filled: vec![1, 2, 3],
        };
        struct Cause<'a>(&'a Previous);
        impl fmt::Display for Cause<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                cause(f, Some(self.0))
            }
        }
        let s = Cause(&previous).to_string();
        assert_eq!(
            s,
            "; step 5 clicked the link \"Sign Up\" in the page's navigation and the page went \
             to http://shop.test/signup; the form filled in steps 2–4 was not submitted"
        );
    }

    #[test]
    fn a_covering_element_is_named_with_its_role_and_name() {
        let cover = |role: Option<&str>, name: Option<&str>| Blocker::Covered {
            by: Some(Cover {
                element: "<div#cc-main>".into(),
                role: role.map(Into::into),
                name: name.map(Into::into),
            }),
        };
        assert_eq!(
            blocker_phrase(&cover(Some("dialog"), Some("cookie preferences"))),
            "is covered by <div#cc-main> (dialog \"cookie preferences\")"
        );
        assert_eq!(
            blocker_phrase(&cover(None, Some("cookies"))),
            "is covered by <div#cc-main> (\"cookies\")"
        );
        assert_eq!(
            blocker_phrase(&cover(None, None)),
            "is covered by <div#cc-main>"
        );
        assert_eq!(
            blocker_phrase(&Blocker::Covered { by: None }),
            "is covered by another element"
        );
    }

    #[test]
    fn step_lists_read_naturally() {
        assert_eq!(steps_phrase(&[1]), "step 2");
        assert_eq!(steps_phrase(&[1, 3]), "steps 2 and 4");
        assert_eq!(steps_phrase(&[1, 2, 3]), "steps 2–4");
        assert_eq!(steps_phrase(&[0, 2, 5]), "steps 1, 3, 6");
    }

    /// What the page says about a form that came back, as the locator gives it, worded.
    #[test]
    fn form_errors_are_worded_from_the_page_facts() {
        let page: Vec<FormError> = serde_json::from_str(
            r#"[{"field": "Email", "said": "is already taken"},
                {"field": "Email", "invalid": true},
                {"said": "Wrong email or password."}]"#,
        )
        .unwrap();
        let words: Vec<String> = page.iter().map(form_error_phrase).collect();
        assert_eq!(
            words,
            [
                "Email: is already taken",
                "Email is marked invalid",
                "Wrong email or password."
            ]
        );
    }
}
