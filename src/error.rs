//! Why a step failed: a kind for programs and a sentence for people.

use serde::{Deserialize, Serialize};

/// The kind of a step or run failure, as reported in results (`error.kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// Nothing on the page matched what the step looks for.
    NotFound,
    /// Something matched but never became actionable (hidden, disabled, covered, moving).
    NotActionable,
    /// A wait ran out (`wait_for_text`, the step deadline).
    Timeout,
    /// A page failed to load, or answered with an HTTP error.
    Navigation,
    /// The plan lock refused a destination.
    LockRefused,
    /// No matching email arrived in time.
    EmailTimeout,
    /// The matched email has no one-time code.
    NoCode,
    /// The matched email has no usable link.
    NoLink,
    /// The mailbox could not be reached.
    Inbox,
    /// The browser could not be started, or a browser command failed.
    Browser,
    /// The browser process went away while a step ran.
    BrowserCrashed,
    /// The run was cancelled (Ctrl-C, DELETE).
    Cancelled,
    /// The request itself was invalid (variables, inbox names).
    InvalidInput,
    /// The run's overall deadline passed.
    RunTimeout,
    /// The service running the run stopped before the run ended.
    Interrupted,
    /// Two candidates (elements, links, codes) stayed equally plausible and lead to different
    /// places: planlock refuses to guess.
    Ambiguous,
    /// A form was not sent: the browser refused it, the page came back with it and errors, or
    /// the run ended with a form it filled never sent, or still asked in a dialog to confirm
    /// the last submission.
    FormNotSent,
    /// A click did nothing: no navigation, request, change of the page, dialog, new tab, or
    /// change of state or focus.
    NoEffect,
}

/// A failure with its kind and a sentence that says what was looked for and what was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
#[error("{message}")]
pub struct StepError {
    pub kind: ErrorKind,
    pub message: String,
}

impl StepError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> StepError {
        StepError {
            kind,
            message: message.into(),
        }
    }
}
