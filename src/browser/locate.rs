//! The protocol between Rust and the locator (`locator/`), as typed as CDP is: what a step asks
//! the locator for, and the verdict it answers, tagged by `state`. The locator returns codes and
//! facts, never sentences; the runner words them (runner/failure.rs). And its installation:
//! an isolated world of every new document, where the locator waits for each step.

use std::sync::{Arc, Mutex};

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::page::AddScriptToEvaluateOnNewDocumentParams;
use chromiumoxide::cdp::js_protocol::runtime::EventExecutionContextCreated;
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use tokio::task::JoinHandle;

use super::facts::{Blocker, FormError, InvalidField, Rejection, Target};
use super::{BrowserError, timed};

/// Joins the locator's parts, in order, into [`LOCATOR_JS`] and lists them as
/// [`LOCATOR_PARTS`] (name, text) for the test that checks the join.
macro_rules! locator_parts {
    ($($part:literal),+ $(,)?) => {
        /// The locator itself: the parts of `locator/`, joined in order into one function (of
        /// the accessible-name computation, the word lists and what a person can click) applied
        /// to `vendor/accname.js`, the pinned dom-accessibility-api bundled by
        /// `scripts/accname/build`, `vocabulary.js`, generated from `src/vocabulary/pages.rs`,
        /// and `reach.js`.
        pub(super) const LOCATOR_JS: &str = concat!(
            "(",
            $(include_str!(concat!("locator/", $part)),)+
            ")(",
            include_str!("vendor/accname.js"),
            ",\n",
            include_str!("vocabulary.js"),
            ",\n",
            include_str!("reach.js"),
            ")"
        );
        #[cfg(test)]
        const LOCATOR_PARTS: &[(&str, &str)] =
            &[$(($part, include_str!(concat!("locator/", $part)))),+];
    };
}
// The parts are one closure cut where its sections begin, so none of them parses alone: `rules`
// opens the closure and the request's function, every part after it lives in that scope, and
// `retry` closes both. Each operation is a function of the part it belongs to; `retry` holds
// the table that dispatches them. `common`, `page` and `painted` are the outline's too (outline.rs).
locator_parts!(
    // The types of the request and of the facts each operation answers, as the Rust side
    // reads them (JSDoc only: no code).
    "types.js",
    // The closure's arguments and the request; the tables that rank candidates, and `rank`
    // with the facts of what it chose.
    "rules.js",
    // Text as compared, the verdicts, the answer as plain JSON, waiting for a change.
    "common.js",
    // The page model: reading the DOM, the tree, element state, names, roles, landmarks.
    "page.js",
    // What a person sees: painted, on the page, at a size (the outline's measure too).
    "painted.js",
    // Finding candidates by text, label and selector; what a describe asks for; the text a
    // person reads. Operations: text, extract, accessible.
    "find.js",
    // Actionability: waiting on the chosen element, and choosing among candidates.
    "ready.js",
    // The in-page actions. Operations: click, fill, code.
    "act.js",
    // A form that came back, and what a click did. Operations: sent, errors, watch, effect,
    // asking, quiet, pending.
    "watch.js",
    // The dispatch of an operation, what the page offers instead, and the attempts retried
    // until found or out of budget.
    "retry.js",
);
/// The locator as a script the page runs: installed in planlock's world of every document
/// under [`LOCATOR_GLOBAL`], evaluated whole where that world is missing.
pub(super) const LOCATOR: Script = Script {
    name: "locator",
    global: Some(LOCATOR_GLOBAL),
    source: LOCATOR_JS,
};

/// One of planlock's scripts (the locator, the look's outline): a function of one request,
/// answering a [`Verdict`].
pub(super) struct Script {
    /// What an error about its answer calls it.
    pub name: &'static str,
    /// The global it is installed under in planlock's world of every document, if it is.
    pub global: Option<&'static str>,
    /// The script: an expression whose value is the function.
    pub source: &'static str,
}

impl Script {
    /// The expression that calls the script with `req` (JSON): by its global in planlock's
    /// world (`in_world`) where it is installed, else evaluated whole.
    pub(super) fn call(&self, req: &str, in_world: bool) -> String {
        match self.global {
            Some(global) if in_world => format!("globalThis.{global}({req})"),
            _ => format!("({})({req})", self.source),
        }
    }
}

/// The isolated world (per document) where the locator is installed.
const WORLD: &str = "planlock";
/// The locator's name inside that world.
pub(super) const LOCATOR_GLOBAL: &str = "__planlockLocate";
/// Tracks whether the document changed since the last rendered frame, so the locator can skip
/// its stability frames on a settled page: a DOM change marks it unsettled until two frames
/// have been produced without another change.
const MUTATION_WATCH: &str = "(() => { let change = 0, settled = 0; \
    const settle = (n) => requestAnimationFrame(() => requestAnimationFrame(() => { settled = n; })); \
    new MutationObserver(() => { change += 1; settle(change); globalThis.__planlockChangedAt = performance.now(); }).observe(document, \
    { subtree: true, childList: true, attributes: true, characterData: true }); \
    globalThis.__planlockSettled = () => settled === change; \
    document.addEventListener('invalid', (e) => { const w = globalThis.__planlockSubmitting; if (w) w.invalid.push(e.target); }, true); \
    document.addEventListener('submit', () => { globalThis.__planlockSubmits = (globalThis.__planlockSubmits || 0) + 1; const w = globalThis.__planlockSubmitting; if (w) w.submitted += 1; }, true); })();";
/// Installs the locator in an isolated world of every new document, and tracks the main
/// frame's world so [`Tab::locate`] can evaluate there.
pub(super) async fn install_locator(
    page: &Page,
) -> Result<(Arc<Mutex<Option<String>>>, JoinHandle<()>), BrowserError> {
    let world = Arc::new(Mutex::new(None));
    let mut created = timed(page.event_listener::<EventExecutionContextCreated>()).await?;
    let main_frame = page.target_id().inner().clone();
    let task = {
        let world = world.clone();
        tokio::spawn(async move {
            while let Some(ev) = created.next().await {
                let ctx = &ev.context;
                let frame = ctx.aux_data.as_ref().and_then(|a| a["frameId"].as_str());
                if ctx.name == WORLD
                    && frame == Some(main_frame.as_str())
                    && let Ok(mut w) = world.lock()
                {
                    *w = Some(ctx.unique_id.clone());
                }
            }
        })
    };
    let script = AddScriptToEvaluateOnNewDocumentParams {
        source: format!("{MUTATION_WATCH}\nglobalThis.{LOCATOR_GLOBAL} = ({LOCATOR_JS});"),
        world_name: Some(WORLD.to_string()),
        include_command_line_api: None,
        run_immediately: None,
    };
    timed(page.execute(script)).await?;
    Ok((world, task))
}

/// One operation of the locator.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub(super) enum Operation<'a> {
    /// Find the element to click (by visible text, else selector), wait until it can be.
    Click {
        text: Option<&'a str>,
        selector: Option<&'a str>,
        describe: Describe,
    },
    /// Find the control (by label, else selector) and type `value` into it.
    Fill {
        label: Option<&'a str>,
        selector: Option<&'a str>,
        value: &'a str,
        /// A secret: never typed into content others posted.
        sensitive: bool,
        describe: Describe,
    },
    /// Type a one-time code into the input(s) at `selector`, or the field the page marks.
    Code { selector: &'a str, code: &'a str },
    /// Is `text` visible on the page?
    Text { text: &'a str },
    /// Read the visible text at `selector`, or of the page's main content.
    Extract { selector: Option<&'a str> },
    /// After a click: did the browser refuse to send the form (invalid fields)?
    Sent,
    /// Did the page come back with the form as `before` (its shape before the click) and the
    /// fields in `filled`, and what does it say about it? `refused`: the server answered the
    /// submission with a client error (4xx), which makes what the page says beside a field an
    /// error without any other mark.
    Errors {
        filled: &'a [String],
        before: Option<&'a serde_json::Value>,
        refused: bool,
    },
    /// Just before a click's mouse events: start watching what the element found does.
    Watch,
    /// What the watched click did so far; waits for a first effect as long as its budget.
    Effect,
    /// Is the field this run filled last still on the page, its form never sent?
    Pending,
    /// Is a modal dialog open that the element clicked last is not in (the page asking)?
    Asking,
    /// How long has the document gone without a change?
    Quiet,
    /// The role and accessible name of each element at `selector`.
    Accessible { selector: &'a str },
    /// Find and rank the candidates of a click or a fill as it would, rule by rule, and act
    /// on nothing.
    Explain { of: &'a Operation<'a> },
}

impl Operation<'_> {
    /// What the operation looks for on the page, as a failure to find it names it.
    pub(super) fn target(&self) -> Target {
        let owned = |s: &Option<&str>| s.map(str::to_string);
        match self {
            Operation::Click { text, selector, .. } => Target::Click {
                text: owned(text),
                selector: owned(selector),
            },
            Operation::Fill {
                label, selector, ..
            } => Target::Field {
                label: owned(label),
                selector: owned(selector),
            },
            Operation::Code { selector, .. } => Target::CodeInput {
                selector: selector.to_string(),
            },
            Operation::Extract { selector } => Target::Element {
                selector: owned(selector),
            },
            Operation::Accessible { selector } => Target::Element {
                selector: Some(selector.to_string()),
            },
            Operation::Explain { of } => of.target(),
            Operation::Text { .. }
            | Operation::Sent
            | Operation::Errors { .. }
            | Operation::Watch
            | Operation::Effect
            | Operation::Pending
            | Operation::Asking
            | Operation::Quiet => Target::Element { selector: None },
        }
    }
}

/// A step's `describe` as the locator reads it: a sentence, what a negation in it names to
/// avoid left out ("the Save button, not the Delete link" asks for a button), by the one
/// reader of negation (`vocabulary/negation.rs`) the validator and the mail's links use too.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub(super) struct Describe(String);

impl Describe {
    pub(super) fn read(describe: &str) -> Describe {
        Describe(crate::vocabulary::negation::Reading::of(describe).wanted())
    }
}

/// What [`Operation::Accessible`] found.
#[derive(Debug, Clone, Default, Deserialize)]
pub(super) struct AccessibleElements {
    #[serde(default)]
    pub elements: Vec<Accessible>,
}

/// An element as assistive technology announces it: its role (explicit, else implicit by
/// element and attributes) and its accessible name, normalised (trimmed, spaces collapsed,
/// lower case) as the locator compares it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Accessible {
    pub element: String,
    pub role: String,
    pub name: String,
}

/// What [`Operation::Sent`] found.
#[derive(Debug, Clone, Default, Deserialize)]
pub(super) struct FormCheck {
    #[serde(default)]
    pub invalid: Vec<InvalidField>,
}

/// What [`Operation::Watch`] answers: the shape of the form this run filled, as it was just
/// before the click (opaque here: only the locator reads it, in the document that answers).
#[derive(Debug, Clone, Default, Deserialize)]
pub(super) struct Watched {
    #[serde(default)]
    pub shape: Option<serde_json::Value>,
}

/// What [`Operation::Quiet`] found: milliseconds since the document last changed (`None`
/// where the change watch is not installed).
#[derive(Debug, Clone, Default, Deserialize)]
pub(super) struct Quiet {
    #[serde(default)]
    pub quiet_ms: Option<u64>,
}

/// What [`Operation::Asking`] found: the open dialog's name, or the start of its text.
#[derive(Debug, Clone, Default, Deserialize)]
pub(super) struct Asking {
    #[serde(default)]
    pub dialog: Option<String>,
}

/// What [`Operation::Pending`] found.
#[derive(Debug, Clone, Default, Deserialize)]
pub(super) struct PendingForm {
    #[serde(default)]
    pub unsent: bool,
}

/// What [`Operation::Errors`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct FormErrors {
    #[serde(default)]
    pub errors: Vec<FormError>,
    #[serde(default)]
    pub form_back: bool,
}

/// An operation with how long the locator may wait inside the page before it answers.
#[derive(Debug, Clone, Serialize)]
pub(super) struct Request<'a> {
    #[serde(flatten)]
    pub op: &'a Operation<'a>,
    pub budget_ms: u64,
}

/// The locator's answer.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub(super) enum Verdict<T> {
    /// Done; the facts of what was found and done.
    Found { facts: T },
    /// Nothing matches (yet). `seen`: what the page offers instead, on the last answer.
    NotFound {
        #[serde(default, deserialize_with = "offers")]
        seen: Vec<String>,
    },
    /// Something matches but cannot be acted on yet.
    NotActionable { element: String, blocker: Blocker },
    /// The document is still being parsed.
    Loading,
    /// The element refused the action: waiting longer would not help.
    Rejected { rejection: Rejection },
}

/// One thing the page offers instead of what a step looked for: a control's text, a field's
/// label, a line of text, or a field's `name` or `id`.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Offer {
    Text { text: String },
    Name { name: String },
    Id { id: String },
}

/// The page's offers as a failure compares them with the query: texts as they are, names and
/// ids as the selectors that find them (`[name=email]`, `#email`), each once.
fn offers<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let mut out: Vec<String> = Vec::new();
    for offer in Vec::<Offer>::deserialize(d)? {
        let seen = match offer {
            Offer::Text { text } => text,
            Offer::Name { name } => format!("[name={name}]"),
            Offer::Id { id } => format!("#{id}"),
        };
        if !out.contains(&seen) {
            out.push(seen);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn requests_are_tagged_by_op() {
        let op = Operation::Click {
            text: Some("Sign up"),
            selector: None,
            describe: Describe::read("the Sign up button, not the Delete link"),
        };
        let req = serde_json::to_value(Request {
            op: &op,
            budget_ms: 2000,
        })
        .unwrap();
        assert_eq!(
            req,
            json!({"op": "click", "text": "Sign up", "selector": null,
                   "describe": "the Sign up button,  ", "budget_ms": 2000})
        );
    }

    #[test]
    fn verdicts_read_by_state() {
        let v: Verdict<serde_json::Value> = serde_json::from_value(json!({
            "state": "not_actionable", "element": "<button> \"Go\"",
            "blocker": {"kind": "covered", "by": {"element": "<div#banner>", "role": null}},
            "seen": ["Go"]
        }))
        .unwrap();
        assert!(matches!(
            v,
            Verdict::NotActionable {
                blocker: Blocker::Covered { by: Some(_) },
                ..
            }
        ));
        let v: Verdict<serde_json::Value> = serde_json::from_value(json!({
            "state": "not_found",
            "seen": [{"kind": "text", "text": "email address"}, {"kind": "name", "name": "email"},
                     {"kind": "id", "id": "email"}, {"kind": "text", "text": "email address"}]
        }))
        .unwrap();
        let Verdict::NotFound { seen } = v else {
            panic!("not_found reads as NotFound: {v:?}")
        };
        assert_eq!(seen, ["email address", "[name=email]", "#email"]);
        let v: Verdict<serde_json::Value> =
            serde_json::from_value(json!({"state": "loading"})).unwrap();
        assert!(matches!(v, Verdict::Loading));
        let v: Verdict<serde_json::Value> = serde_json::from_value(json!({
            "state": "rejected",
            "rejection": {"kind": "rewritten", "element": "<input#pw>", "holds": "X"}
        }))
        .unwrap();
        assert!(matches!(
            v,
            Verdict::Rejected {
                rejection: Rejection::Rewritten { holds: Some(_), .. }
            }
        ));
    }

    /// The script the browser receives is every part of `locator/`, each once, in the listed
    /// order; a part left out of the list (or a file left behind) fails here, as does a part
    /// grown past what a reader takes in at once.
    #[test]
    fn the_locator_is_its_parts_joined() {
        let joined: String = LOCATOR_PARTS.iter().map(|(_, text)| *text).collect();
        let expected = format!(
            "({joined})({},\n{},\n{})",
            include_str!("vendor/accname.js"),
            include_str!("vocabulary.js"),
            include_str!("reach.js")
        );
        assert!(
            LOCATOR_JS == expected,
            "the browser receives the parts joined in order"
        );
        super::super::assert_script_parts(
            "locator",
            LOCATOR_PARTS
                .iter()
                .map(|(name, text)| (format!("locator/{name}"), *text)),
        );
    }

    /// The op names of the JSDoc `Operation` in `locator/types.js` (each `*Op` typedef's `op`
    /// and the union that lists them) are the Rust enum's, as serde names them: the mirror
    /// cannot drift from what the Rust side sends.
    #[test]
    fn the_jsdoc_operation_is_the_rust_one() {
        let rust = include_str!("locate.rs");
        let body = rust
            .split_once("pub(super) enum Operation<'a> {")
            .and_then(|(_, rest)| rest.split_once("\n}\n"))
            .expect("locate.rs declares `enum Operation`")
            .0;
        assert!(
            rust.contains(
                "#[serde(tag = \"op\", rename_all = \"snake_case\")]\npub(super) enum Operation"
            ),
            "Operation is tagged by `op` in snake case"
        );
        let snake = |name: &str| {
            let mut out = String::new();
            for (i, c) in name.chars().enumerate() {
                if c.is_ascii_uppercase() && i > 0 {
                    out.push('_');
                }
                out.push(c.to_ascii_lowercase());
            }
            out
        };
        let mut in_rust: Vec<String> = body
            .lines()
            .filter_map(|l| l.strip_prefix("    "))
            .filter(|l| l.starts_with(|c: char| c.is_ascii_uppercase()))
            .map(|l| snake(l.split([' ', ',', '{']).next().unwrap_or_default()))
            .collect();
        in_rust.sort();
        let types = include_str!("locator/types.js");
        // `@typedef {{ op: "click", … }} ClickOp`: the op and the typedef's name.
        let mut typedefs: Vec<(String, String)> = types
            .split("@typedef {{ op: \"")
            .skip(1)
            .map(|rest| {
                let (op, rest) = rest.split_once('"').expect("an op name ends its quote");
                let name = rest.split_once("}} ").expect("a typedef names its type").1;
                let name = name.split_whitespace().next().unwrap_or_default();
                (op.to_string(), name.to_string())
            })
            .collect();
        typedefs.sort();
        let in_js: Vec<String> = typedefs.iter().map(|(op, _)| op.clone()).collect();
        assert_eq!(
            in_js, in_rust,
            "locator/types.js's operations are locate.rs's `Operation`"
        );
        let union = types
            .lines()
            .find(|l| {
                l.trim_end().ends_with("}} Operation") || l.trim_end().ends_with("} Operation")
            })
            .expect("types.js has `@typedef {…} Operation`");
        let mut members: Vec<&str> = union
            .split_once('{')
            .and_then(|(_, r)| r.rsplit_once('}'))
            .expect("the union in braces")
            .0
            .split('|')
            .map(str::trim)
            .collect();
        members.sort();
        let mut names: Vec<&str> = typedefs.iter().map(|(_, n)| n.as_str()).collect();
        names.sort();
        assert_eq!(members, names, "`Operation` is the union of every `*Op`");
    }
}
