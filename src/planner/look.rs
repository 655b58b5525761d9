//! The look before planning, as the planner takes it: the start page loaded once under the
//! request's lock and outlined ([`look_within`]), and what the model is
//! shown of it ([`shown`]), the one way a look reaches a model request.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{PlanRequest, goal};
use crate::browser::{Chromium, Look, LookError};
use crate::lock::{Lock, LockError};
use crate::plan::{Masker, Vars};

/// What the planner was shown of the start page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct Looked {
    /// The page looked at, after redirects.
    pub url: String,
    /// Form fields in the outline.
    pub fields: usize,
    /// Buttons in the outline.
    pub buttons: usize,
    /// Texts on the page that read like instructions to a model (counted, never sent).
    pub flagged: usize,
    /// Texts of the outline withheld from the model for that, each marked in it.
    pub withheld: usize,
    /// The outline's size in the model's request, in tokens (about 4 characters each).
    pub outline_tokens: u64,
}

impl Looked {
    pub(super) fn of(shown: &Shown) -> Looked {
        let look = shown.look();
        let (fields, buttons) = look.counts();
        Looked {
            url: look.url.clone(),
            fields,
            buttons,
            flagged: look.flagged,
            withheld: look.withheld,
            outline_tokens: super::prompt::outline_block(shown)
                .chars()
                .count()
                .div_ceil(4) as u64,
        }
    }
}

/// A look as the model may be shown it. Only [`shown`] makes one, and the user message, the
/// dry run's preview, the plan cache's key and [`Looked`] are made from nothing else, so no
/// front end can send a look the masker did not read.
#[derive(Debug, Clone)]
pub struct Shown(pub(super) Look);

impl Shown {
    /// The masked look.
    pub fn look(&self) -> &Look {
        &self.0
    }
}

/// The request's look as the model is shown it: every string the look produced (each text of
/// the outline, the page's address) with each value the model must never read masked
/// ([`never_read`]), in any letter case and wherever it stands in a text. Texts are cut to
/// the outline's length only when the outline is written, after this, so no cut can leave a
/// part of a value unmasked.
pub(super) fn shown(req: &PlanRequest) -> Option<Shown> {
    let mut look = req.look.clone()?;
    let masker = never_read(&req.vars, &req.secrets);
    look.url = masker.mask(&look.url);
    look.outline.mask(&masker);
    // Read only to count instruction-like text; never written, and not kept past here.
    look.outline.prose.clear();
    Some(Shown(look))
}

/// What the model must never read of a request: every secret's value (the run's, whichever
/// of them its plan will use), and each caller variable's value of three or more characters
/// (a shorter one says next to nothing, and masking it would blot out words of the page).
/// Each also as a page shows it with its whitespace collapsed.
fn never_read(vars: &Vars, secrets: &[String]) -> Masker {
    let callers = vars
        .caller_names()
        .filter_map(|name| vars.value(name))
        .filter(|v| v.trim().chars().count() >= 3);
    let values: Vec<String> = vars
        .masker()
        .values()
        .into_iter()
        .chain(secrets.iter().cloned())
        .chain(callers.map(str::to_string))
        .collect();
    let collapsed: Vec<String> = values
        .iter()
        .map(|v| v.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|c| !c.is_empty() && !values.contains(c))
        .collect();
    Masker::new(values.into_iter().chain(collapsed))
}

/// Whether planning looks at the start page first: the one choice every front end spells its
/// own way. On the command line `--blind` or `--look=required` (the only value `--look`
/// takes); in a request body or a tool's arguments `look`: `true` (or `null`, or left out),
/// `false` or `"required"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LookChoice {
    /// No page text reaches the model at all.
    Blind,
    /// Look; when the look fails, say so in one line and plan blind.
    #[default]
    Try,
    /// Look, or do not plan (exit 3).
    Required,
}

/// `--look`'s value: only `required` (`--blind` says the other choice, and looking is the
/// default).
#[cfg(feature = "cli")]
impl clap::ValueEnum for LookChoice {
    fn value_variants<'a>() -> &'a [LookChoice] {
        &[LookChoice::Required]
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        (*self == LookChoice::Required).then(|| clap::builder::PossibleValue::new("required"))
    }
}

impl<'de> Deserialize<'de> for LookChoice {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<LookChoice, D::Error> {
        match Value::deserialize(d)? {
            Value::Bool(true) | Value::Null => Ok(LookChoice::Try),
            Value::Bool(false) => Ok(LookChoice::Blind),
            Value::String(s) if s == "required" => Ok(LookChoice::Required),
            other => Err(serde::de::Error::custom(format!(
                "`look` is true, false or \"required\", not {other}"
            ))),
        }
    }
}

/// Why there is no look at the start page.
#[derive(Debug, thiserror::Error)]
pub enum LookFailure {
    #[error("the goal names no start page to look at (no http(s) URL in it)")]
    NoStartPage,
    #[error("{0}")]
    Lock(LockError),
    #[error("could not look at {url}: {}", look_sentence(.error))]
    Look { url: String, error: LookError },
}

/// Why a look failed, in words: a page that could not be loaded as a run's step would say it.
fn look_sentence(error: &LookError) -> String {
    match error {
        LookError::Page(page) => crate::runner::page_error_sentence(page),
        LookError::Browser(why) => why.clone(),
    }
}

/// The goal's start page: its first absolute http(s) URL, caller variables filled in.
pub fn start_page(goal: &str, vars: &Vars) -> Option<url::Url> {
    let rendered = goal::rendered(goal, vars);
    rendered
        .split(|c: char| c.is_whitespace() || "\"'<>(),;".contains(c))
        .map(|w| w.trim_end_matches(|c: char| ".:!?".contains(c)))
        .filter(|w| w.starts_with("http://") || w.starts_with("https://"))
        .find_map(|w| url::Url::parse(w).ok())
}

/// Looks at `url` in a fresh context under `lock` (made from the request before anything was
/// read) and outlines it for the model: texts that read like instructions withheld and
/// counted. The values the model must never read are masked when a request is built from it
/// ([`shown`]).
pub async fn look_within(
    browser: &Chromium,
    url: url::Url,
    lock: Lock,
) -> Result<Look, LookFailure> {
    let mut look = browser
        .look(url.as_str(), lock)
        .await
        .map_err(|error| LookFailure::Look {
            url: url.to_string(),
            error,
        })?;
    // Counted, never decided on: the number is told to the model and the reviewer. Texts of
    // the outline that read like instructions are withheld from it; those the prose does not
    // show (an aria-label, a placeholder) count besides the prose's own.
    use crate::lock::injection::{count_suspicious, normalise, reads_like_instruction};
    let withheld = look.outline.withhold(reads_like_instruction);
    let prose = normalise(&look.outline.prose);
    let mut beside_prose: Vec<String> = withheld
        .iter()
        .map(|t| normalise(t))
        .filter(|t| !prose.contains(t.as_str()))
        .collect();
    // A placeholder that also names its field is one text.
    beside_prose.sort();
    beside_prose.dedup();
    look.flagged = count_suspicious(&look.outline.prose) + beside_prose.len();
    look.withheld = withheld.len();
    look.outline.prose.clear();
    Ok(look)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::{Outline, outline::Heading};

    fn request(title: &str, headings: &[&str], url: &str) -> PlanRequest {
        let mut req = PlanRequest {
            vars: Vars::from_pairs(["who=Ada-Lovelace-7", "id=42", "spaced=a  b\tc"]).unwrap(),
            secrets: vec!["hunter2-Secret".into()],
            ..PlanRequest::default()
        };
        req.look = Some(Look {
            url: url.into(),
            outline: Outline {
                title: title.into(),
                headings: headings
                    .iter()
                    .map(|t| Heading {
                        level: 2,
                        text: t.to_string(),
                    })
                    .collect(),
                prose: "HUNTER2-SECRET in prose".into(),
                ..Outline::default()
            },
            flagged: 0,
            withheld: 0,
        });
        req
    }

    #[test]
    fn every_value_is_masked_before_any_text_is_cut() {
        let long = format!("{} HUNTER2-SECRET", "x".repeat(76));
        let req = request(
            "Results for ada-lovelace-7, order 42",
            &[&long, "Hi a b c", "ADA-LOVELACE-7 or hunter2-secret"],
            "https://shop.example/?who=Ada-Lovelace-7",
        );
        let shown = shown(&req).unwrap();
        let text = shown.look().render();
        assert_eq!(
            text,
            format!(
                "title: \"Results for ••••, order 42\"\nh2: \"{} ••…\"\nh2: \"Hi ••••\"\n\
                 h2: \"•••• or ••••\"\n",
                "x".repeat(76)
            )
        );
        assert_eq!(shown.look().url, "https://shop.example/?who=••••");
        assert!(shown.look().outline.prose.is_empty());
        assert!(super::shown(&PlanRequest::default()).is_none(), "blind");
    }
}
