//! What a click did, as the executor and the page saw it: kinds of effect, the requests it
//! caused, and the changes of the document and of controls, typed until they are written.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::texts::{Texts, texts};

/// One kind of thing a click can do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum EffectKind {
    /// A new document started loading in the page.
    Navigation,
    /// The URL changed without a new document (a fragment, the history API).
    SameDocument,
    /// The page opened another page (a popup, `target=_blank`).
    NewTab,
    /// The page opened a JavaScript dialog (`alert`, `confirm`, `prompt`).
    Dialog,
    /// The page sent a request (`fetch`, XHR, a beacon, a frame's form).
    Request,
    /// A form was submitted.
    Submission,
    /// A control's checked, selected or value state changed.
    State,
    /// The document changed (elements added or removed, attributes, text).
    Document,
    /// Focus moved to another element.
    Focus,
}

/// What a click did, as the executor saw it in the short window after it: the evidence that
/// the action happened. `did` is empty when nothing at all happened.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct Effect {
    /// Each kind of thing it did, strongest first.
    #[serde(default)]
    pub did: Vec<EffectKind>,
    /// Where the page went (a navigation or a same-document one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The first requests the page sent (`POST http://…/api/login`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requests: Vec<String>,
    /// The first changes in the document (`added <div.alert> "wrong code"`).
    #[serde(default, skip_serializing_if = "Vec::is_empty", with = "worded")]
    #[cfg_attr(feature = "server", schema(value_type = Vec<String>))]
    pub changes: Vec<Change>,
    /// How many changes in all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed: Option<usize>,
    /// Controls whose state changed (`checked of <input#terms>: false → true`; values are
    /// never quoted).
    #[serde(default, skip_serializing_if = "Vec::is_empty", with = "worded")]
    #[cfg_attr(feature = "server", schema(value_type = Vec<String>))]
    pub states: Vec<StateChange>,
    /// Where focus moved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focus: Option<String>,
    /// The dialog the page opened: its type and message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog: Option<String>,
    /// Whether the form this run filled was sent: submitted, its data requested, or taken in
    /// (its field gone from view, what was typed shown back in new text). Absent when no field
    /// of this page was filled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sent: Option<bool>,
    /// Milliseconds from the click to its first effect, as the page saw it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_ms: Option<f64>,
    /// How long the executor watched a click that did nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watched_ms: Option<u64>,
    /// The requests the click caused that its step waited for until they were answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answers: Option<Answers>,
}

/// The requests a click caused (documents of its frames, its scripts' requests) that a step
/// waited for, until each was answered or the wait's bound: how long, and what for.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct Answers {
    /// How long the step waited, in milliseconds.
    pub waited_ms: u64,
    /// The requests answered while it waited (`POST http://…/register`), the first three.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub answered: Vec<String>,
    /// The requests still unanswered when it stopped waiting (a long poll, a stream), the
    /// first three: the step went on without them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unanswered: Vec<String>,
    /// The same in a sentence: `waited 0.8 s for POST http://…/register to be answered`.
    pub said: String,
}

texts!(Answers: answered, unanswered, said; not: waited_ms);

impl Effect {
    /// Nothing happened.
    pub fn is_none(&self) -> bool {
        self.did.is_empty()
    }

    pub fn did(&self, kind: EffectKind) -> bool {
        self.did.contains(&kind)
    }

    fn note(&mut self, kind: EffectKind) {
        if !self.did.contains(&kind) {
            self.did.push(kind);
            self.did.sort_by_key(|k| *k as u8);
        }
    }
}

texts!(Effect: url, requests, changes, states, focus, dialog, answers;
    not: did, changed, sent, after_ms, watched_ms);

/// A change of the document that a click caused, as the page reported it (tagged by `kind`).
/// Events write it in its `Display` form (`added <div.alert> "wrong code"`) and read it back
/// from there.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Change {
    /// An element was added.
    Added { el: String },
    /// Text was added to an element (its first 40 characters).
    AddedText { text: String, el: String },
    /// An attribute of an element changed.
    Attribute { name: String, el: String },
    /// A text changed, in this element (`None`: one without a parent).
    Text { el: Option<String> },
    /// Children of an element were removed.
    Removed { el: String },
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::Added { el } => write!(f, "added {el}"),
            Change::AddedText { text, el } => write!(f, "added \"{text}\" to {el}"),
            Change::Attribute { name, el } => write!(f, "{name} of {el}"),
            Change::Text { el: Some(el) } => write!(f, "text of {el}"),
            Change::Text { el: None } => f.write_str("text"),
            Change::Removed { el } => write!(f, "removed from {el}"),
        }
    }
}

/// The page's texts in the change, to be masked in place (not the words around them).
impl Texts for Change {
    fn texts_into<'a>(&'a mut self, out: &mut Vec<&'a mut String>) {
        match self {
            Change::Added { el } | Change::Removed { el } | Change::Text { el: Some(el) } => {
                out.push(el)
            }
            Change::AddedText { text, el } => out.extend([text, el]),
            Change::Attribute { name, el } => out.extend([name, el]),
            Change::Text { el: None } => {}
        }
    }
}

impl FromStr for Change {
    type Err = String;

    /// Reads a change back from its words; `Display` writes the same text again.
    fn from_str(said: &str) -> Result<Change, String> {
        let el = |el: &str| el.to_string();
        if said == "text" {
            return Ok(Change::Text { el: None });
        }
        if let Some(rest) = said.strip_prefix("added \"")
            && let Some((text, to)) = rest.split_once("\" to ")
        {
            return Ok(Change::AddedText {
                text: text.to_string(),
                el: el(to),
            });
        }
        if let Some(added) = said.strip_prefix("added ") {
            return Ok(Change::Added { el: el(added) });
        }
        if let Some(from) = said.strip_prefix("removed from ") {
            return Ok(Change::Removed { el: el(from) });
        }
        if let Some(of) = said.strip_prefix("text of ") {
            return Ok(Change::Text { el: Some(el(of)) });
        }
        match said.split_once(" of ") {
            Some((name, of)) => Ok(Change::Attribute {
                name: name.to_string(),
                el: el(of),
            }),
            None => Err(format!(
                "`{said}` is no change of a document: one says `added <el>`, `added \"text\" to \
                 <el>`, `removed from <el>`, `text of <el>` or `<attribute> of <el>`"
            )),
        }
    }
}

/// A control's state that a click changed: `checked`, `indeterminate`, `selected` (an index)
/// or `open`, from `before` to `after` as the page gives them as text (`false`, `2`); or its
/// `value`, never given (it may be a secret). [`Effect::states`] notes it in its `Display`
/// form (`checked of <input#terms>: false → true`) and read it back from there.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct StateChange {
    pub state: String,
    pub el: String,
    #[serde(default)]
    pub before: Option<String>,
    #[serde(default)]
    pub after: Option<String>,
}

texts!(StateChange: state, el, before, after);

impl FromStr for StateChange {
    type Err = String;

    /// Reads a state change back from its words; `Display` writes the same text again.
    fn from_str(said: &str) -> Result<StateChange, String> {
        let Some((state, rest)) = said.split_once(" of ") else {
            return Err(format!(
                "`{said}` is no change of a control's state: one says `<state> of <el>` or \
                 `<state> of <el>: <before> → <after>`"
            ));
        };
        let (el, before, after) = match rest
            .rsplit_once(": ")
            .and_then(|(el, was)| Some((el, was.split_once(" → ")?)))
        {
            Some((el, (before, after))) => (el, Some(before), Some(after)),
            None => (rest, None, None),
        };
        Ok(StateChange {
            state: state.to_string(),
            el: el.to_string(),
            before: before.map(str::to_string),
            after: after.map(str::to_string),
        })
    }
}

/// Writes typed facts as their words, and reads them back: the form event logs and the wire
/// have always had.
mod worded {
    use std::fmt::Display;
    use std::str::FromStr;

    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<T: Display, S: Serializer>(facts: &[T], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(facts.iter().map(ToString::to_string))
    }

    pub fn deserialize<'de, T, D>(d: D) -> Result<Vec<T>, D::Error>
    where
        T: FromStr<Err = String>,
        D: Deserializer<'de>,
    {
        Vec::<String>::deserialize(d)?
            .iter()
            .map(|said| said.parse().map_err(D::Error::custom))
            .collect()
    }
}

impl fmt::Display for StateChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} of {}", self.state, self.el)?;
        if let (Some(before), Some(after)) = (&self.before, &self.after) {
            write!(f, ": {before} → {after}")?;
        }
        Ok(())
    }
}

/// What the page itself saw of a click (the `effect` operation of the locator).
#[derive(Debug, Clone, Default, Deserialize)]
pub(in crate::browser) struct PageEffect {
    /// The watch was not there: the click's document was replaced.
    #[serde(default)]
    pub replaced: bool,
    #[serde(default)]
    pub changes: Vec<Change>,
    #[serde(default)]
    pub changed: usize,
    #[serde(default)]
    pub states: Vec<StateChange>,
    #[serde(default)]
    pub focus: Option<String>,
    #[serde(default)]
    pub submitted: bool,
    #[serde(default)]
    pub filled_gone: bool,
    /// New text on the page shows a value the run typed into the form.
    #[serde(default)]
    pub echoed: bool,
    #[serde(default)]
    pub after_ms: Option<f64>,
}

impl Effect {
    /// Adds what the page saw.
    pub(in crate::browser) fn add_page(&mut self, page: PageEffect) {
        if page.replaced {
            self.note(EffectKind::Navigation);
        }
        if page.submitted {
            self.note(EffectKind::Submission);
        }
        if !page.states.is_empty() {
            self.note(EffectKind::State);
        }
        if page.changed > 0 {
            self.note(EffectKind::Document);
            self.changed = Some(page.changed);
        }
        if page.focus.is_some() {
            self.note(EffectKind::Focus);
        }
        if page.filled_gone {
            // The filled field left the view: the page took the form in (a wizard's step, a
            // dialog that closed). Always with a change of the document.
            self.note(EffectKind::Document);
        }
        self.changes = page.changes;
        self.states = page.states;
        self.focus = page.focus;
        if self.after_ms.is_none() {
            self.after_ms = page.after_ms;
        }
        if page.submitted || page.filled_gone || page.echoed {
            self.sent = Some(true);
        }
    }

    pub(in crate::browser) fn navigated(&mut self, url: String, same_document: bool) {
        self.note(if same_document {
            EffectKind::SameDocument
        } else {
            EffectKind::Navigation
        });
        self.url = Some(url);
    }

    pub(in crate::browser) fn requested(&mut self, request: String) {
        self.note(EffectKind::Request);
        if self.requests.len() < 3 && !self.requests.contains(&request) {
            self.requests.push(request);
        }
    }

    pub(in crate::browser) fn dialog(&mut self, said: String) {
        self.note(EffectKind::Dialog);
        self.dialog = Some(said);
    }

    pub(in crate::browser) fn new_tab(&mut self) {
        self.note(EffectKind::NewTab);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The changes and states the page reports are noted in the event log as these words.
    #[test]
    fn changes_and_states_are_noted_as_words() {
        let page: PageEffect = serde_json::from_value(json!({
            "changes": [
                { "kind": "added", "el": "<div.alert> \"wrong code\"" },
                { "kind": "added_text", "text": "Saved", "el": "<div#msg>" },
                { "kind": "attribute", "name": "class", "el": "<button#x> \"go\"" },
                { "kind": "text", "el": "<p>" },
                { "kind": "text", "el": null },
                { "kind": "removed", "el": "<ul>" },
            ],
            "changed": 6,
            "states": [
                { "state": "checked", "el": "<input#terms>", "before": "false", "after": "true" },
                { "state": "value", "el": "<input#q>" },
            ],
        }))
        .unwrap();
        let mut effect = Effect::default();
        effect.add_page(page);
        let words = json!({
            "did": ["state", "document"],
            "changes": [
                "added <div.alert> \"wrong code\"",
                "added \"Saved\" to <div#msg>",
                "class of <button#x> \"go\"",
                "text of <p>",
                "text",
                "removed from <ul>",
            ],
            "changed": 6,
            "states": ["checked of <input#terms>: false → true", "value of <input#q>"],
        });
        assert_eq!(serde_json::to_value(&effect).unwrap(), words);
        // An event log's words read back as the same facts.
        let read: Effect = serde_json::from_value(words).unwrap();
        assert_eq!(read, effect);
    }

    /// Words that are no change say what a change says instead of passing for one.
    #[test]
    fn words_that_are_no_change_are_refused() {
        let e = serde_json::from_value::<Effect>(json!({ "did": [], "changes": ["moved"] }))
            .unwrap_err();
        assert!(
            e.to_string().contains("`moved` is no change of a document"),
            "{e}"
        );
        let e = serde_json::from_value::<Effect>(json!({ "did": [], "states": ["ticked"] }))
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("`ticked` is no change of a control's state"),
            "{e}"
        );
    }
}
