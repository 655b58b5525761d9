//! How the locator would choose the target of a click or a fill, rule by rule, without acting:
//! every candidate it found, the candidates each ranking rule kept, and the rule that decided.
//! For `scripts/bench --explain`, which prints it before each step of a corpus plan.

use serde::Deserialize;
use tokio::time::Instant;

use super::facts::{Candidate, PageError};
use super::locate::{Describe, Operation};
use super::tab::Tab;
use crate::plan::Step;

/// The locator's account of one choice.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Explained {
    /// How the candidates were found (`text`, `selector`, `label`, `type`, `form_submit`,
    /// `implicit_submit`).
    pub strategy: Option<String>,
    /// The key pressed instead of a click (`Enter`: a default button the page hides).
    pub key: Option<String>,
    /// Every element that matched, in document order.
    pub candidates: Vec<Considered>,
    /// The rules in order, each with the candidates it kept of those the rules before it kept.
    pub rules: Vec<RuleKept>,
    /// The rule that set the chosen candidate apart from the next one (`only`, `order`).
    pub decided_by: Option<String>,
    /// The chosen candidate's index in `candidates`.
    pub chosen: Option<usize>,
}

/// One candidate as the ranking saw it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Considered {
    #[serde(flatten)]
    pub candidate: Candidate,
    /// How its text or label matched the step's: `exact`, `start`, `substring`, `words`,
    /// `equivalent` (a selector's matches are `exact`).
    pub r#match: Option<String>,
    /// A person can see it; hidden candidates are not ranked.
    pub visible: bool,
    /// It was ranked: visible, and within a person's reach (not covered where a click would
    /// land, behind an open modal dialog, or inert: then `candidate` says which).
    pub ranked: bool,
}

/// A ranking rule and the indexes of the candidates it kept.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct RuleKept {
    pub rule: String,
    pub kept: Vec<usize>,
}

impl Tab {
    /// The choice a `click` or `fill` step would make now, explained; nothing is clicked or
    /// typed. Waits, as the step would, until something matches or `deadline` passes. `None`
    /// for the other steps, which choose no element.
    pub async fn explain(
        &self,
        step: &Step,
        deadline: Instant,
    ) -> Option<Result<Explained, PageError>> {
        let of = match step {
            Step::Click {
                describe,
                text,
                selector,
                ..
            } => Operation::Click {
                text: text.as_deref(),
                selector: selector.as_deref(),
                describe: Describe::read(describe),
            },
            Step::Fill {
                describe,
                label,
                selector,
                ..
            } => Operation::Fill {
                label: label.as_deref(),
                selector: selector.as_deref(),
                value: "",
                sensitive: false,
                describe: Describe::read(describe),
            },
            _ => return None,
        };
        Some(self.locate(&Operation::Explain { of: &of }, deadline).await)
    }
}
