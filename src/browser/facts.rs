//! What a page answered, as facts for the runner to word: which element a step used and how it
//! was chosen, and, when a step could not act, what was looked for and what the page showed.

use serde::{Deserialize, Serialize};

use crate::lock::Refusal;

/// The element a step acted on, how it was found, and how it was chosen among others.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Located {
    /// How it was found: `text`, `text-substring`, `label`, `aria-label`,
    /// `aria-labelledby`, `placeholder`, `selector`, `split` (code boxes), `fallback`.
    pub strategy: String,
    /// The element as `<tag#id> "text"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element: Option<String>,
    /// Where it was clicked, in CSS pixels of the viewport.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<f64>,
    /// How many visible elements matched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidates: Option<usize>,
    /// The ranking rule that set the chosen element apart from the next one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    /// The top two stayed tied under every rule but document order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ambiguous: Option<bool>,
    /// The next candidates in rank order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runners_up: Vec<Candidate>,
    /// What the chosen element is: its role, landmark and form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chosen: Option<Candidate>,
    /// Matches that were not visible.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden: Option<usize>,
    /// Matches behind an open modal dialog.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub behind_modal: Option<usize>,
    /// Milliseconds the locator spent choosing (for benchmarks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locate_ms: Option<f64>,
    /// What marked the code field when the step's selector matched none
    /// (`autocomplete`, `name`, `boxes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
    /// Split code boxes filled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boxes: Option<usize>,
    /// How a code was typed: `as shown` or `compact` (without its separator).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<String>,
}

/// One element that matched, as the ranking saw it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// ARIA role, explicit or implicit (`link`, `button`, `tab`…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// `main`, or the landmark it sits in: `nav`, `header`, `footer`, `aside` (or their ARIA
    /// roles).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub landmark: Option<String>,
    /// The form it belongs to, e.g. `form#signup`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<String>,
    /// It submits its form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submits: Option<bool>,
    /// It belongs to the form of the field this run filled last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_filled_form: Option<bool>,
}

/// Where a `navigate` (or an email's link) ended up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Navigated {
    /// The page's URL once loaded (after redirects).
    pub url: String,
    /// The HTTP status of the loaded document.
    pub status: Option<u16>,
    /// The URL only changed its fragment: no document was loaded.
    pub same_document: bool,
}

/// What a click hit, and the navigation it started.
#[derive(Debug, Clone, PartialEq)]
pub struct Clicked {
    pub located: Located,
    /// The URL a navigation the click started went to.
    pub navigation: Option<String>,
}

/// Text read from the page.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Extracted {
    pub text: String,
    /// The element it was read from.
    pub element: String,
}

/// What a step looked for on the page.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Target {
    /// `click`: by visible text, else selector.
    Click {
        text: Option<String>,
        selector: Option<String>,
    },
    /// `fill`: by label, else selector.
    Field {
        label: Option<String>,
        selector: Option<String>,
    },
    /// `use_otp_from_inbox`: the code input(s).
    CodeInput { selector: String },
    /// `extract_text`: an element, or the page's main content.
    Element { selector: Option<String> },
}

/// Why a step could not do its work in the page. Facts only: the runner words them.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum PageError {
    /// Nothing visible matched before the deadline; `seen` is what the page offered instead
    /// (clickable texts, field names, text lines).
    NotFound { target: Target, seen: Vec<String> },
    /// Something matched but never became actionable; `why` says what held it back
    /// (`<button> "Sign up" is covered by <div#cookie-banner>`).
    NotActionable { target: Target, why: String },
    /// The element was found but refused the action (a value the page rewrote, a select
    /// without that option, a code longer than its boxes).
    Rejected { target: Target, why: String },
    /// `wait_for_text`: the text did not appear; `seen` are lines the page shows.
    TextAbsent {
        text: String,
        url: String,
        seen: Vec<String>,
    },
    /// A URL that does not parse.
    BadUrl { url: String, problem: String },
    /// The browser could not load the URL (DNS, connection, TLS…).
    LoadFailed { url: String, reason: String },
    /// The load did not start, or did not finish, before the step's deadline.
    LoadTimedOut { url: String, started: bool },
    /// The document answered with an HTTP error status.
    HttpStatus { url: String, status: u16 },
    /// The plan lock refused a destination during the step.
    Refused(Refusal),
    /// The page was closed while the step waited for it.
    PageClosed,
    /// The browser went away.
    BrowserGone { reason: String },
    /// A browser command failed.
    Command(String),
}
