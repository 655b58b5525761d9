//! What each step did, as typed facts: the `detail` of a step's events and of its entry in the
//! result. Reports and services read these fields; nothing reads them back by string keys.

use serde::{Deserialize, Serialize};

use crate::browser::Located;

/// The facts of one step. Which fields are set depends on the step type; absent ones are
/// left out of the JSON.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct StepDetail {
    /// The page's URL after the step (`navigate`, an email's link, a failure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The HTTP status of the document a `navigate` loaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The URL only changed its fragment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_document: Option<bool>,
    /// Where a click sent the page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub navigation: Option<String>,
    /// The element a `click`, `fill`, `extract_text` or code step used, and how it was chosen.
    #[serde(flatten, default)]
    pub located: Option<Located>,
    /// The email an inbox step read.
    #[serde(flatten, default)]
    pub email: Option<EmailSeen>,
    /// The one-time code, masked (`48••••`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The link an `open_link_from_inbox` chose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor_text: Option<String>,
    /// `wait_for_text`: the text seen; `extract_text`: the text read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// `wait_seconds`: how long.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    /// `done`: the summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// A screenshot of the page after the step (a file path; services give a URL instead).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshot: Option<String>,
    /// Where a service serves that screenshot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshot_url: Option<String>,
}

/// The message an inbox step matched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmailSeen {
    #[serde(rename = "email_subject")]
    pub subject: String,
    #[serde(rename = "email_from")]
    pub from: String,
    /// RFC 3339, UTC.
    #[serde(rename = "email_received_at")]
    pub received_at: String,
}

/// What a `run_started` event says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunStarted {
    /// The plan's file or name.
    pub plan: Option<String>,
    /// How many steps the plan has.
    pub steps: usize,
    /// This run's address in its default inbox.
    pub inbox_address: Option<String>,
    /// The sites the lock allows.
    pub allowed_hosts: Vec<String>,
    /// The bound inboxes, without credentials.
    pub inboxes: Vec<BoundInbox>,
}

/// One inbox bound to a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoundInbox {
    /// `None` for the default inbox.
    pub name: Option<String>,
    pub inbox: String,
}

/// What a `run_finished` event says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunFinished {
    pub status: super::RunStatus,
    pub summary: String,
    pub failed_step: Option<usize>,
    pub inbox_address: Option<String>,
    /// Requests the lock refused during the run.
    #[serde(default)]
    pub refused: usize,
}

/// The `detail` of an event: the run's facts at its start and end, a step's in between.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum EventDetail {
    RunStarted(RunStarted),
    Step(Box<StepDetail>),
    RunFinished(RunFinished),
}

impl EventDetail {
    /// The step's facts, for step events.
    pub fn step(&self) -> Option<&StepDetail> {
        match self {
            EventDetail::Step(d) => Some(d),
            _ => None,
        }
    }
}
