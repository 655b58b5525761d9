//! What a page answered, as facts for the runner to word: which element a step used and how it
//! was chosen, and, when a step could not act, what was looked for and what the page showed.

use serde::{Deserialize, Serialize};

use crate::lock::Refusal;

mod effect;
mod texts;

pub(super) use effect::PageEffect;
pub use effect::{Answers, Change, Effect, EffectKind, StateChange};
pub use texts::Texts;
pub(crate) use texts::texts;

/// The element a step acted on, how it was found, and how it was chosen among others.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct Located {
    /// How it was found: `text`, `text-substring`, `label`, `aria-label`,
    /// `aria-labelledby`, `placeholder`, `selector`, `split` (code boxes), `fallback`.
    /// (Optional in the API's schema: these fields are a step detail's only when it located.)
    #[cfg_attr(feature = "server", schema(required = false))]
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
    /// What a submitting step did not click: the texts it matched that are no control (a
    /// heading) or links away from the form this run was filling, and the form's other submit
    /// buttons (`form_submit` pressed that form's one submit control, `implicit_submit` its
    /// default button, as Enter would).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub passed_over: Vec<Candidate>,
    /// Matches that were not visible.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden: Option<usize>,
    /// Matches behind an open modal dialog, or inert.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub behind_modal: Option<usize>,
    /// Matches something else covered where a click would land (a person could not click them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covered: Option<usize>,
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
    /// The key pressed in the field this run filled instead of a click (`Enter`: implicit
    /// submission by a default button the page hides).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

texts!(Located: strategy, element, decided_by, runners_up, chosen, passed_over, fallback, form, key;
    not: x, y, candidates, ambiguous, hidden, behind_modal, covered, locate_ms, boxes);

/// One element that matched, as the ranking saw it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
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
    /// A person could not click it: something is on top where a click would land (a dialog's
    /// backdrop, a banner), named in `covered_by`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covered: Option<bool>,
    /// What is on top where a click on it would land, e.g. `<div#signup.modal.fade>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covered_by: Option<String>,
    /// A person could not click it: the page made it `inert`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inert: Option<bool>,
}

texts!(Candidate: element, tag, text, role, landmark, form, covered_by;
    not: submits, in_filled_form, covered, inert);

/// A candidate and where clicking it leads, when the page says (`GET https://…`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Destined {
    #[serde(flatten)]
    pub candidate: Candidate,
    #[serde(default)]
    pub destination: Option<String>,
}

/// What a `fill` (or a code) typed into, and where its value may be sent from there.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Filled {
    #[serde(flatten)]
    pub located: Located,
    /// The form's action (absolute), when the control belongs to a form.
    pub action: Option<String>,
    /// The control's name or id.
    pub field: Option<String>,
}

/// A control the browser found invalid when a click tried to send its form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InvalidField {
    /// The field as a person names it (its label).
    pub field: String,
    /// The browser's own message ("Please fill out this field.").
    pub message: String,
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
    /// What the click did.
    pub effect: Effect,
    /// The URL a navigation the click started went to.
    pub navigation: Option<String>,
    /// What the page said about the form the click submitted, once it came back.
    pub form_errors: Vec<FormError>,
    /// The page came back with a field the run had filled.
    pub form_back: bool,
}

/// What a page that came back with the form the run submitted says about it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum FormError {
    /// Its words about a field, named as a person reads it.
    Said { field: String, said: String },
    /// A field it marks invalid (`aria-invalid`) without words (`invalid: true`).
    Invalid { field: String },
    /// A line of it tied to no field.
    Line { said: String },
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

/// What kept a matched element from being acted on, as the page reported it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Blocker {
    /// It left the document.
    Removed,
    /// It is not visible (hidden, collapsed, zero-sized).
    Hidden,
    Disabled,
    /// A field that cannot be typed into (read-only, not a text control).
    NotEditable,
    /// Its box changed between two animation frames.
    Moving,
    /// An animation that moves or fades it (or what is around it) is running.
    Animating,
    /// Another element is where a click would land (`by`, when the page could say which),
    /// or it is outside an open modal dialog (`by`: the dialog, or what covers it).
    Covered {
        by: Option<Cover>,
    },
    /// The page made it `inert` (it, or what holds it): no person can operate it.
    Inert,
}

/// What covers an element where a click would land: the outermost element around the one hit
/// that does not hold it (a banner or a dialog as a whole), with the `role` and the name
/// (`aria-label`, `aria-labelledby` or `title`, cut to 40 characters) its author gave it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Cover {
    pub element: String,
    #[serde(default)]
    pub role: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
}

/// Why an element refused a step's action.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Rejection {
    /// The control holds something else than was typed: the page rewrote or cut it.
    /// `holds` is `None` when the value was secret (it is never quoted), with how it differs.
    Rewritten {
        element: String,
        holds: Option<String>,
        #[serde(skip)]
        difference: Option<Difference>,
    },
    /// A select without the option asked for.
    NoOption {
        element: String,
        value: String,
        options: Vec<String>,
    },
    /// A one-time code longer than the row of boxes the selector matched.
    TooFewBoxes { characters: usize, boxes: usize },
    /// The two best candidates stayed tied under every rule and lead to different places.
    Ambiguous { candidates: Vec<Destined> },
    /// A secret or code was to be typed into a control that content others posted holds.
    UserContent { element: String },
    /// The step asks for a control of role `wanted` (its describe names it), and only
    /// elements a person does not operate say its text: a heading, a paragraph, plain text.
    NotAControl {
        wanted: String,
        matched: Vec<Candidate>,
    },
    /// The locator itself failed in the page (a script error).
    Script { message: String },
    /// The locator has no such operation: the executor asked it for one it does not know
    /// (a bug in planlock, never the page's doing).
    UnknownOperation { op: String },
}

/// How a value the page rewrote differs from what was typed, said without either value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Difference {
    Empty,
    /// Only the first `kept` of `typed` characters are left.
    CutShort {
        kept: usize,
        typed: usize,
    },
    /// The same characters in another letter case.
    Case,
    /// The same characters without the surrounding spaces.
    Trimmed,
    /// `holds` characters where `typed` were typed.
    Other {
        holds: usize,
        typed: usize,
    },
}

impl Difference {
    pub fn between(holds: &str, typed: &str) -> Difference {
        let (h, t) = (holds.chars().count(), typed.chars().count());
        if holds.is_empty() {
            Difference::Empty
        } else if h < t && typed.starts_with(holds) {
            Difference::CutShort { kept: h, typed: t }
        } else if holds.to_lowercase() == typed.to_lowercase() {
            Difference::Case
        } else if holds.trim() == typed.trim() {
            Difference::Trimmed
        } else {
            Difference::Other { holds: h, typed: t }
        }
    }
}

/// Why a step could not do its work in the page. Facts only: the runner words them.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum PageError {
    /// Nothing visible matched before the deadline; `seen` is what the page offered instead
    /// (clickable texts, field names, text lines).
    NotFound { target: Target, seen: Vec<String> },
    /// Something matched but never became actionable: `element` was held back by `blocker`.
    NotActionable {
        target: Target,
        element: String,
        blocker: Blocker,
    },
    /// The document was still being parsed when the deadline passed.
    StillLoading { target: Target, url: String },
    /// The element was found but refused the action.
    Rejected { target: Target, why: Rejection },
    /// A click on `element` tried to send a form and the browser refused (constraint
    /// validation).
    FormNotSent {
        element: String,
        fields: Vec<InvalidField>,
    },
    /// `wait_for_text`: the text did not appear; `seen` are lines the page shows.
    TextAbsent {
        text: String,
        url: String,
        seen: Vec<String>,
        /// A guessed text: the wait ended this long after it began, once the page had gone
        /// quiet.
        quiet: Option<std::time::Duration>,
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
