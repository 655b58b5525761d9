//! Why a step or a run failed, as data ([`Failure`]), and the one place those facts become the
//! sentences people read: what was looked for, what was found, and — when a wait ran out —
//! what the step before it did, since that is usually the cause.

use std::fmt;
use std::time::Duration;

use crate::browser::{
    Blocker, BrowserError, Candidate, Difference, Effect, Located, PageError, Rejection, Target,
};
use crate::error::{ErrorKind, StepError};
use crate::inbox::wait::{MailFilter, Mismatch, Passed};
use crate::inbox::{self, AuthFailure, InboxError, SenderMismatch, WaitError};
use crate::lock::Refusal;
use crate::plan::VarsError;

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
        why: String,
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
    InboxOpen { inbox: String, error: String },
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
                PageError::NotFound {
                    target: Target::Element { .. },
                    ..
                } => ErrorKind::NotFound,
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
            Failure::Lost => ErrorKind::Browser,
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
            inbox: String::new(),
            error: e.to_string(),
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
                "the email \"{subject}\" links only outside this run: {}",
                refusal.reason
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
            Failure::InboxOpen { inbox, error } if inbox.is_empty() => {
                write!(f, "cannot open the inbox: {error}")
            }
            Failure::InboxOpen { inbox, error } => write!(f, "cannot open {inbox}: {error}"),
            Failure::Browser(e) => browser_sentence(f, e),
            Failure::BrowserCrashed { reason } => {
                write!(f, "the browser went away during the step: {reason}")
            }
            Failure::LateRefusal(r) => write!(
                f,
                "after the last step, the page tried to leave the lock: {}",
                r.reason
            ),
            Failure::Cancelled => write!(f, "the run was cancelled"),
            Failure::CancelledWaiting => {
                write!(f, "the run was cancelled while it waited for a slot")
            }
            Failure::Lost => write!(
                f,
                "the run stopped unexpectedly inside the server; the details are in its log"
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

fn page_sentence(f: &mut fmt::Formatter<'_>, error: &PageError, waited: Duration) -> fmt::Result {
    match error {
        PageError::NotFound { target, seen } => {
            write!(f, "no visible {} on the page", target_phrase(target))?;
            let close = closest(query_of(target), seen, 5);
            if !close.is_empty() {
                write!(f, "; {} on the page: {close}", offered(target))?;
            }
            Ok(())
        }
        PageError::NotActionable {
            target,
            element,
            blocker,
        } => write!(
            f,
            "found the {}, but it never became actionable: {element} {}",
            target_phrase(target),
            blocker_phrase(blocker)
        ),
        PageError::StillLoading { target, url } => write!(
            f,
            "{url} was still loading when the step's deadline passed, so the {} was not looked \
             for in it (a page that takes this long to arrive: give the step a longer \
             `timeout_seconds`)",
            target_phrase(target)
        ),
        PageError::Rejected { target, why } => rejection_sentence(f, target, why),
        PageError::FormNotSent { element, fields } => {
            let each: Vec<String> = fields
                .iter()
                .map(|i| match i.message.as_str() {
                    "" => format!("\"{}\"", i.field),
                    m => format!("\"{}\" ({m})", i.field),
                })
                .collect();
            write!(
                f,
                "clicked {element}, but the browser did not send its form: {} {} not valid",
                each.join(", "),
                if fields.len() == 1 { "is" } else { "are" }
            )
        }
        PageError::TextAbsent {
            text,
            url,
            seen,
            quiet: Some(after),
        } => {
            write!(
                f,
                "the text \"{text}\" did not appear on {url}: the page went quiet (no \
                 navigation, request or change for {} s) and still did not show it, {} s after \
                 the step began",
                fmt_secs(crate::browser::QUIET),
                fmt_secs(*after)
            )?;
            let close = closest(text, seen, 3);
            if !close.is_empty() {
                write!(f, "; the page shows: {close}")?;
            }
            Ok(())
        }
        PageError::TextAbsent {
            text,
            url,
            seen,
            quiet: None,
        } => {
            write!(
                f,
                "the text \"{text}\" did not appear on {url} within {} s",
                fmt_secs(waited)
            )?;
            let close = closest(text, seen, 3);
            if !close.is_empty() {
                write!(f, "; the page shows: {close}")?;
            }
            Ok(())
        }
        PageError::BadUrl { url, problem } => write!(f, "`{url}` is not a URL: {problem}"),
        PageError::LoadFailed { url, reason } => write!(f, "could not load {url}: {reason}"),
        PageError::LoadTimedOut {
            url,
            started: false,
        } => write!(f, "{url} did not start loading before the step deadline"),
        PageError::LoadTimedOut { url, started: true } => write!(
            f,
            "{url} started loading but did not finish before the step deadline"
        ),
        PageError::HttpStatus { url, status } => write!(
            f,
            "{url} answered HTTP {status}: the page is missing or broken"
        ),
        PageError::Refused(r) => write!(f, "{}", r.reason),
        PageError::PageClosed => write!(f, "the page closed while the step waited for it"),
        PageError::BrowserGone { reason } => {
            write!(f, "the browser went away during the step: {reason}")
        }
        PageError::Command(e) => write!(f, "browser command failed: {e}"),
    }
}

/// What held an element back, after its name: "is covered by <div#banner>".
fn blocker_phrase(blocker: &Blocker) -> String {
    match blocker {
        Blocker::Removed => "was removed from the page".into(),
        Blocker::Hidden => "is not visible".into(),
        Blocker::Disabled => "is disabled".into(),
        Blocker::NotEditable => "is not editable".into(),
        Blocker::Moving => "is still moving".into(),
        Blocker::Animating => "is still animating".into(),
        Blocker::Covered { by: Some(by) } => format!("is covered by {by}"),
        Blocker::Covered { by: None } => "is covered by another element".into(),
    }
}

fn rejection_sentence(f: &mut fmt::Formatter<'_>, target: &Target, why: &Rejection) -> fmt::Result {
    match why {
        Rejection::Rewritten {
            element,
            holds: Some(holds),
            ..
        } => write!(
            f,
            "{element} holds \"{holds}\" after typing: the page rejected or rewrote the value"
        ),
        Rejection::Rewritten {
            element,
            holds: None,
            difference,
        } => {
            let how = match difference {
                Some(Difference::Empty) => "it is empty".to_string(),
                Some(Difference::CutShort { kept, typed }) => {
                    format!("only the first {kept} of {typed} characters: the page cut it short")
                }
                Some(Difference::Case) => "the same characters in another letter case".into(),
                Some(Difference::Trimmed) => {
                    "the same characters without the surrounding spaces".into()
                }
                Some(Difference::Other { holds, typed }) => {
                    format!("{holds} characters where {typed} were typed")
                }
                None => "a different value".into(),
            };
            write!(
                f,
                "{element} holds a different value after typing ({how}): the page rejected or \
                 rewrote the value"
            )
        }
        Rejection::NoOption {
            element,
            value,
            options,
        } => write!(
            f,
            "{element} has no option \"{value}\" (options: {})",
            options.join(", ")
        ),
        Rejection::TooFewBoxes { characters, boxes } => write!(
            f,
            "the code has {characters} characters but {} matches {boxes} boxes",
            query_of(target)
        ),
        Rejection::Script { message } => write!(f, "the locator failed in the page: {message}"),
        Rejection::Ambiguous { candidates } => {
            let names: Vec<String> = candidates
                .iter()
                .map(|c| {
                    let mut s = candidate_phrase(&c.candidate);
                    if let Some(d) = &c.destination {
                        s.push_str(&format!(" ({d})"));
                    }
                    s
                })
                .collect();
            write!(
                f,
                "\"{}\" is ambiguous: {} match equally and lead to different places; a \
                 `selector` or a more exact `text` says which",
                query_of(target),
                names.join(" and ")
            )
        }
        Rejection::UserContent { element } => write!(
            f,
            "{element} is in content others posted on the page (a comment, a user-generated \
             link): a secret or code is never typed there"
        ),
        Rejection::NotAControl { wanted, matched } => {
            let each: Vec<String> = matched
                .iter()
                .map(|c| {
                    format!(
                        "{} ({})",
                        c.element.as_deref().unwrap_or("an element"),
                        role_phrase(c.role.as_deref().unwrap_or("generic"))
                    )
                })
                .collect();
            write!(
                f,
                "only {} says \"{}\", and the step asks for {}: planlock never clicks a heading, \
                 a paragraph or plain text in place of a control, and nothing the page offers to \
                 operate says it",
                each.join(" and "),
                query_of(target),
                role_phrase(wanted)
            )
        }
    }
}

/// A role as a sentence names it: "a button", "a heading", "plain text".
fn role_phrase(role: &str) -> String {
    match role {
        "generic" => "plain text".to_string(),
        "textbox" | "searchbox" | "spinbutton" => "a field".to_string(),
        "combobox" | "listbox" => "a dropdown".to_string(),
        "menuitem" => "a menu item".to_string(),
        "img" => "an image".to_string(),
        "option" => "an option".to_string(),
        other => format!("a {other}"),
    }
}

/// What a run's results say when the browser failed it. A run only meets a browser that has
/// started, so only a lost connection or a failed command can end it here; the others are
/// said as their own sentences (the front end that starts the browser words them there).
fn browser_sentence(f: &mut fmt::Formatter<'_>, error: &BrowserError) -> fmt::Result {
    match error {
        BrowserError::Gone(reason) => write!(f, "the browser went away: {reason}"),
        BrowserError::Cdp(reason) => write!(f, "browser command failed: {reason}"),
        other => write!(f, "{other}"),
    }
}

fn target_phrase(target: &Target) -> String {
    match target {
        Target::Click { text, selector } => match (text, selector) {
            (Some(t), Some(s)) => format!("element with text \"{t}\" or matching `{s}`"),
            (Some(t), None) => format!("element with text \"{t}\""),
            (None, Some(s)) => format!("element matching `{s}`"),
            (None, None) => "element".to_string(),
        },
        Target::Field { label, selector } => match (label, selector) {
            (Some(l), Some(s)) => format!("field labelled \"{l}\" or matching `{s}`"),
            (Some(l), None) => format!("field labelled \"{l}\""),
            (None, Some(s)) => format!("field matching `{s}`"),
            (None, None) => "field".to_string(),
        },
        Target::CodeInput { selector } => format!("code input matching `{selector}`"),
        Target::Element { selector } => {
            format!(
                "element matching `{}`",
                selector.as_deref().unwrap_or("main")
            )
        }
    }
}

fn query_of(target: &Target) -> &str {
    match target {
        Target::Click { text, selector } => text.as_deref().or(selector.as_deref()),
        Target::Field { label, selector } => label.as_deref().or(selector.as_deref()),
        Target::CodeInput { selector } => Some(selector.as_str()),
        Target::Element { selector } => selector.as_deref(),
    }
    .unwrap_or_default()
}

/// What the page offers instead, by the kind of target.
fn offered(target: &Target) -> &'static str {
    match target {
        Target::Click { .. } => "clickable texts",
        Target::Field { .. } | Target::CodeInput { .. } => "fields",
        Target::Element { .. } => "texts",
    }
}

/// "; step 5 clicked the link "Sign Up" in the page's navigation; the form filled in steps
/// 2–4 was not submitted": the sentence that points at the likely cause of a wait that ran
/// out.
fn cause(f: &mut fmt::Formatter<'_>, previous: Option<&Previous>) -> fmt::Result {
    let Some(p) = previous else {
        return Ok(());
    };
    let n = p.step + 1;
    match &p.action {
        PreviousAction::Clicked {
            element,
            described,
            navigated,
            effect,
            came_back,
        } => {
            write!(
                f,
                "; step {n} clicked {}",
                element_phrase(element.as_ref(), described)
            )?;
            if *navigated && let Some(url) = &p.url {
                write!(f, " and the page went to {url}")?;
            } else if effect.as_deref().is_some_and(Effect::is_none) {
                write!(f, " and nothing happened")?;
            } else if let Some(e) = effect.as_ref().filter(|_| !*navigated) {
                write!(
                    f,
                    " and the page did not go anywhere ({})",
                    effect_phrase(e)
                )?;
            } else if !*navigated {
                write!(f, " and the page did not go anywhere")?;
            }
            if !came_back.is_empty() {
                write!(
                    f,
                    "; the page came back with the form and says: {}",
                    quoted(came_back)
                )?;
            }
            let submitted = match effect.as_ref().and_then(|e| e.sent) {
                Some(sent) => sent,
                None => element
                    .as_ref()
                    .is_some_and(|e| e.submits == Some(true) && e.in_filled_form != Some(false)),
            };
            if !p.filled.is_empty() && !submitted {
                write!(
                    f,
                    "; the form filled in {} was not submitted",
                    steps_phrase(&p.filled)
                )?;
            }
            Ok(())
        }
        PreviousAction::Opened => match &p.url {
            Some(url) => write!(f, "; step {n} opened {url}"),
            None => Ok(()),
        },
        PreviousAction::Filled => write!(
            f,
            "; the last browser step ({n}) filled a field, and nothing was submitted after it"
        ),
    }
}

/// What a click did, in a few words: `it sent POST http://…/api; it changed the page (added
/// <div.alert>)`.
fn effect_phrase(e: &Effect) -> String {
    use crate::browser::EffectKind::*;
    let mut said = Vec::new();
    for kind in &e.did {
        said.push(match kind {
            Navigation => "it started a navigation".to_string(),
            SameDocument => format!(
                "it changed the address to {}",
                e.url.as_deref().unwrap_or("another")
            ),
            NewTab => "it opened another page".to_string(),
            Dialog => format!("it opened a dialog ({})", e.dialog.as_deref().unwrap_or("")),
            Request => format!("it sent {}", e.requests.join(", ")),
            Submission => "it submitted a form".to_string(),
            State => format!("it changed {}", e.states.join(", ")),
            Document => match e.changes.first() {
                Some(first) => format!("it changed the page ({first})"),
                None => "it changed the page".to_string(),
            },
            Focus => format!("it moved focus to {}", e.focus.as_deref().unwrap_or("")),
        });
    }
    said.join("; ")
}

/// The element a click located, by its role and text: `the heading "sign in" (<h1>)`.
fn located_phrase(located: &Located) -> String {
    match &located.chosen {
        Some(c) => {
            let mut s = candidate_phrase(c);
            if let Some(el) = c.element.as_deref().or(located.element.as_deref())
                && c.text.as_deref().is_some_and(|t| !t.is_empty())
            {
                let tag = el.split('>').next().unwrap_or(el);
                s.push_str(&format!(" ({tag}>)"));
            }
            s
        }
        None => located
            .element
            .clone()
            .unwrap_or_else(|| "the element".to_string()),
    }
}

/// A role as people say it. An element without one of its own is named by its tag: a heading,
/// a paragraph, text.
fn role_word(c: &Candidate) -> &str {
    match c.role.as_deref() {
        Some(role) if role != "generic" => role,
        _ => match c.tag.as_deref() {
            Some("h1" | "h2" | "h3" | "h4" | "h5" | "h6") => "heading",
            Some("p") => "paragraph",
            Some("img") => "image",
            Some("label") => "label",
            Some(_) => "text",
            None => "element",
        },
    }
}

/// `the button "Sign up" (form#signup)`.
fn candidate_phrase(c: &Candidate) -> String {
    let role = role_word(c);
    let mut s = match c.text.as_deref().filter(|t| !t.is_empty()) {
        Some(t) => format!("the {role} \"{t}\""),
        None => format!("the {role} {}", c.element.as_deref().unwrap_or("")),
    };
    if let Some(place) = c.landmark.as_deref().filter(|l| *l != "main") {
        s.push_str(&format!(" in {place}"));
    }
    s
}

/// `"a", "b"`.
fn quoted(texts: &[String]) -> String {
    texts
        .iter()
        .map(|t| format!("\"{t}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

fn element_phrase(element: Option<&Candidate>, described: &Option<String>) -> String {
    let Some(e) = element else {
        return described
            .clone()
            .unwrap_or_else(|| "an element".to_string());
    };
    let role = role_word(e);
    let mut s = match e.text.as_deref().filter(|t| !t.is_empty()) {
        Some(t) => format!("the {role} \"{t}\""),
        None => format!("the {role} {}", e.element.as_deref().unwrap_or("")),
    };
    match e.landmark.as_deref() {
        Some("nav") => s.push_str(" in the page's navigation"),
        Some("header") => s.push_str(" in the page's header"),
        Some("footer") => s.push_str(" in the page's footer"),
        Some("aside") => s.push_str(" in a sidebar"),
        _ => {}
    }
    s
}

/// `step 3`, `steps 2 and 4`, `steps 2–4`.
fn steps_phrase(indexes: &[usize]) -> String {
    let nums: Vec<usize> = indexes.iter().map(|i| i + 1).collect();
    match nums.as_slice() {
        [one] => format!("step {one}"),
        [a, b] => format!("steps {a} and {b}"),
        [first, .., last] if last - first + 1 == nums.len() => format!("steps {first}–{last}"),
        _ => format!(
            "steps {}",
            nums.iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The `n` texts most like `query`, quoted and comma-separated.
fn closest(query: &str, seen: &[String], n: usize) -> String {
    let q = query.to_lowercase();
    let mut scored: Vec<(f64, &String)> = seen
        .iter()
        .map(|s| (strsim::jaro_winkler(&q, &s.to_lowercase()), s))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored
        .iter()
        .take(n)
        .map(|(_, s)| format!("\"{s}\""))
        .collect::<Vec<_>>()
        .join(", ")
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
fn wait_seconds(d: Duration) -> String {
    let tenths = (d.as_millis() + 50) / 100;
    if tenths.is_multiple_of(10) || tenths >= 100 {
        format!("{} s", (tenths + 5) / 10)
    } else {
        format!("{}.{} s", tenths / 10, tenths % 10)
    }
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
    use super::*;

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
    fn step_lists_read_naturally() {
        assert_eq!(steps_phrase(&[1]), "step 2");
        assert_eq!(steps_phrase(&[1, 3]), "steps 2 and 4");
        assert_eq!(steps_phrase(&[1, 2, 3]), "steps 2–4");
        assert_eq!(steps_phrase(&[0, 2, 5]), "steps 1, 3, 6");
    }
}
