//! How the locator would choose the target of a click or a fill, rule by rule, without acting:
//! every candidate it found, the candidates each ranking rule kept, and the rule that decided.
//! For `scripts/bench --explain`, which prints it before each step of a corpus plan.

use serde::Deserialize;
use tokio::time::Instant;

use super::facts::{Candidate, PageError, Target};
use super::locate::Operation;
use super::tab::Tab;

/// The locator's account of one choice.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Explained {
    /// How the candidates were found (`text`, `selector`, `label`, `type`, `form_submit`,
    /// `implicit_submit`).
    #[serde(default)]
    pub strategy: Option<String>,
    /// The key pressed instead of a click (`Enter`: a default button the page hides).
    #[serde(default)]
    pub key: Option<String>,
    /// Every element that matched, in document order.
    #[serde(default)]
    pub candidates: Vec<Considered>,
    /// The rules in order, each with the candidates it kept of those the rules before it kept.
    #[serde(default)]
    pub rules: Vec<RuleKept>,
    /// The rule that set the chosen candidate apart from the next one (`only`, `order`).
    #[serde(default)]
    pub decided_by: Option<String>,
    /// The chosen candidate's index in `candidates`.
    #[serde(default)]
    pub chosen: Option<usize>,
}

/// One candidate as the ranking saw it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Considered {
    #[serde(flatten)]
    pub candidate: Candidate,
    /// How its text or label matched the step's: `exact`, `start`, `substring`, `words`,
    /// `equivalent` (a selector's matches are `exact`).
    #[serde(default)]
    pub r#match: Option<String>,
    /// A person can see it; hidden candidates are not ranked.
    #[serde(default)]
    pub visible: bool,
    /// It was ranked: visible, and not behind an open modal dialog.
    #[serde(default)]
    pub ranked: bool,
}

/// A ranking rule and the indexes of the candidates it kept.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct RuleKept {
    pub rule: String,
    pub kept: Vec<usize>,
}

impl Tab {
    /// The choice [`Tab::click`] would make now, explained; nothing is clicked. Waits, as the
    /// click would, until something matches or `deadline` passes.
    pub async fn explain_click(
        &self,
        describe: &str,
        text: Option<&str>,
        selector: Option<&str>,
        deadline: Instant,
    ) -> Result<Explained, PageError> {
        let of = Operation::Click {
            text,
            selector,
            describe,
        };
        let target = Target::Click {
            text: text.map(str::to_string),
            selector: selector.map(str::to_string),
        };
        self.locate_op(&Operation::Explain { of: &of }, target, deadline)
            .await
    }

    /// The choice [`Tab::fill`] would make now, explained; nothing is typed.
    pub async fn explain_fill(
        &self,
        describe: &str,
        label: Option<&str>,
        selector: Option<&str>,
        deadline: Instant,
    ) -> Result<Explained, PageError> {
        let of = Operation::Fill {
            label,
            selector,
            value: "",
            sensitive: false,
            describe,
        };
        let target = Target::Field {
            label: label.map(str::to_string),
            selector: selector.map(str::to_string),
        };
        self.locate_op(&Operation::Explain { of: &of }, target, deadline)
            .await
    }
}
