//! The look before planning: the start page loaded once, read-only, under the run's lock,
//! and digested into an outline of its structure — title, headings, forms with their fields
//! and buttons, the texts of other links and buttons — for a planner that has not seen it.
//! Never its prose, values or hidden elements; every string capped, and the whole capped.

use std::fmt::Write as _;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use super::locate::Operation;
use super::{Chromium, PageError, Target};
use crate::lock::Lock;

/// The most characters of an outline as the planner reads it.
pub const OUTLINE_LIMIT: usize = 3_000;
/// How long a page may take to load and settle before its outline is taken as it is.
pub const LOOK_DEADLINE: Duration = Duration::from_secs(8);
/// A page with a form is settled when its outline stayed the same this long.
const SETTLED_WITH_FORM: Duration = Duration::from_millis(500);
/// A page without a form yet waits this long without change (a script may render it late).
const SETTLED_WITHOUT_FORM: Duration = Duration::from_millis(2_500);
const POLL: Duration = Duration::from_millis(200);

/// What the page showed, as structure.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outline {
    pub title: String,
    #[serde(default)]
    pub headings: Vec<Heading>,
    #[serde(default)]
    pub forms: Vec<Form>,
    /// Links and buttons outside forms, with the landmark they are in.
    #[serde(default)]
    pub outside: Vec<Control>,
    /// The page's visible prose, read only to count instruction-like text (the planner
    /// clears it); never rendered.
    #[serde(default, skip_serializing)]
    pub prose: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Heading {
    pub level: u8,
    pub text: String,
}

/// A form (or the fields outside any form), its fields and its buttons.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Form {
    /// Its id, name or label; empty when it has none (or for fields outside any form).
    pub name: String,
    #[serde(default)]
    pub fields: Vec<Field>,
    #[serde(default)]
    pub buttons: Vec<Button>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Field {
    /// The label `fill` would match it by.
    pub label: String,
    /// `email`, `password`, `text`, `select`, `radio`, `checkbox`, `textarea`…
    pub kind: String,
    /// Its `name` attribute, as a selector would say it (`input[name=…]`).
    pub name: String,
    /// Its `id`, when it has no `name` (`#…`).
    #[serde(default)]
    pub id: String,
    pub required: bool,
    pub autocomplete: String,
    pub placeholder: String,
    /// A select's options, a radio group's choices.
    #[serde(default)]
    pub options: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Button {
    pub text: String,
    /// It submits the form.
    pub submit: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Control {
    /// `main`, `nav`, `header`, `footer`, `aside`.
    pub landmark: String,
    /// `link`, `button`, `tab`, `menuitem`.
    pub role: String,
    pub text: String,
}

/// A look at a start page: where it ended up, and what it showed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Look {
    /// The page's URL once loaded (after redirects inside the lock).
    pub url: String,
    pub outline: Outline,
    /// Texts on the page that read like instructions to a model (counted, never decided on).
    pub flagged: usize,
}

/// Why there is no outline.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LookError {
    /// The start page could not be loaded (refused by the lock, an HTTP error, a timeout…).
    #[error("{}", crate::runner::page_error_sentence(.0))]
    Page(PageError),
    /// No browser to look with.
    #[error("{0}")]
    Browser(String),
}

impl Look {
    /// How many fields and buttons the outline lists (for the review).
    pub fn counts(&self) -> (usize, usize) {
        let fields = self.outline.forms.iter().map(|f| f.fields.len()).sum();
        let buttons = self
            .outline
            .forms
            .iter()
            .map(|f| f.buttons.len())
            .sum::<usize>()
            + self
                .outline
                .outside
                .iter()
                .filter(|c| c.role == "button")
                .count();
        (fields, buttons)
    }

    /// The outline as the planner reads it: deterministic lines, at most [`OUTLINE_LIMIT`]
    /// characters.
    pub fn render(&self) -> String {
        let o = &self.outline;
        // No URL: the goal says where the page is (a caller variable's value stays unsaid).
        let mut s = String::new();
        if !o.title.is_empty() {
            let _ = writeln!(s, "title: {}", quote(&o.title));
        }
        for h in &o.headings {
            let _ = writeln!(s, "h{}: {}", h.level, quote(&h.text));
        }
        for form in &o.forms {
            match form.name.as_str() {
                "" => s.push_str("form:\n"),
                name => {
                    let _ = writeln!(s, "form {}:", quote(name));
                }
            }
            for f in &form.fields {
                let mut facts = vec![f.kind.clone()];
                if !f.name.is_empty() {
                    facts.push(format!("name={}", f.name));
                } else if !f.id.is_empty() {
                    facts.push(format!("id={}", f.id));
                }
                if f.required {
                    facts.push("required".into());
                }
                if !f.autocomplete.is_empty() {
                    facts.push(format!("autocomplete={}", f.autocomplete));
                }
                if !f.placeholder.is_empty() {
                    facts.push(format!("placeholder {}", quote(&f.placeholder)));
                }
                if !f.options.is_empty() {
                    let options: Vec<String> = f.options.iter().map(|o| quote(o)).collect();
                    facts.push(format!("options {}", options.join(", ")));
                }
                let label = if f.label.is_empty() {
                    "(no label)".to_string()
                } else {
                    quote(&f.label)
                };
                let _ = writeln!(s, "  field {label} ({})", facts.join(", "));
            }
            for b in &form.buttons {
                let what = if b.submit { "submit button" } else { "button" };
                let _ = writeln!(s, "  {what} {}", quote(&b.text));
            }
        }
        for landmark in ["header", "nav", "main", "aside", "footer"] {
            for role in ["button", "link", "tab", "menuitem"] {
                let texts: Vec<String> = o
                    .outside
                    .iter()
                    .filter(|c| c.landmark == landmark && c.role == role)
                    .map(|c| quote(&c.text))
                    .collect();
                if !texts.is_empty() {
                    let _ = writeln!(s, "{landmark} {role}s: {}", texts.join(", "));
                }
            }
        }
        if s.chars().count() > OUTLINE_LIMIT {
            let cut: String = s.chars().take(OUTLINE_LIMIT).collect();
            let end = cut.rfind('\n').unwrap_or(cut.len());
            s = format!(
                "{}\n(outline cut at {OUTLINE_LIMIT} characters)\n",
                &cut[..end]
            );
        }
        s
    }

    /// A short hash of the outline, for the plan cache: a changed page is planned again.
    pub fn digest(&self) -> String {
        use sha2::{Digest, Sha256};
        let h = Sha256::digest(self.render().as_bytes());
        h[..8].iter().map(|b| format!("{b:02x}")).collect()
    }
}

fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "'"))
}

impl Chromium {
    /// Loads `url` once in a fresh context under `lock` (through the service's egress where
    /// the lock refuses private addresses), waits until the page settles — long enough for
    /// a form a script renders late — and takes its outline. Read-only: nothing is typed or
    /// clicked.
    pub async fn look(&self, url: &str, lock: Lock) -> Result<Look, LookError> {
        let deadline = Instant::now() + LOOK_DEADLINE;
        let tab = self
            .new_tab(lock)
            .await
            .map_err(|e| LookError::Browser(e.to_string()))?;
        let looked = async {
            let nav = tab.navigate(url, deadline).await?;
            let op = Operation::Outline;
            let target = Target::Element { selector: None };
            let mut last: Option<Outline> = None;
            let mut since = Instant::now();
            loop {
                let slice = (Instant::now() + POLL * 3).min(deadline);
                let now: Outline = tab.locate_op(&op, target.clone(), slice).await?;
                if last.as_ref() != Some(&now) {
                    last = Some(now);
                    since = Instant::now();
                }
                let outline = last.as_ref().expect("set above");
                let calm = if outline.forms.is_empty() {
                    SETTLED_WITHOUT_FORM
                } else {
                    SETTLED_WITH_FORM
                };
                if since.elapsed() >= calm || Instant::now() >= deadline {
                    break;
                }
                tokio::time::sleep(POLL).await;
            }
            Ok::<_, PageError>(Look {
                url: if nav.url.is_empty() {
                    url.to_string()
                } else {
                    tab.url().await
                },
                outline: last.unwrap_or_default(),
                flagged: 0,
            })
        }
        .await;
        self.close_tab(tab).await;
        looked.map_err(LookError::Page)
    }
}
