//! The plan: its ten step types (the single source of truth for the JSON Schema),
//! template variables, and validation that names the JSON path of every problem.

mod selector;
mod sender_filter;
mod template;
mod validate;
mod wording;

use std::sync::LazyLock;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use sender_filter::SenderFilter;
pub use template::{
    LONG_SECRET, MASK, Masker, SECRET_ENV_PREFIX, Template, VarProblem, Vars, VarsError,
};
pub use validate::{Limits, PlanError, Problem, duplicate_keys, parse, parse_and_validate};
pub use wording::json_kind;

/// A plan: why, then what, in order. Produced by the planner or written by hand.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "planlock plan")]
pub struct Plan {
    /// Optional link to this schema, so editors can autocomplete plans.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Why these steps reach the goal. Informational only.
    pub reasoning: String,
    /// The steps, run in order. Must end with `done`.
    #[schemars(length(min = 1))]
    pub steps: Vec<Step>,
    /// Values the goal did not give that the page asks for, each a `{{var}}` of the plan
    /// with a question and a suggested answer (taken when nobody answers).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub questions: Vec<Question>,
}

/// A value a plan needs that the goal did not give: the plan writes it as `{{var}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Question {
    /// The variable's name, as the plan writes it (`full_name` for `{{full_name}}`).
    pub var: String,
    /// The question for a person: "Full name for the account?".
    pub ask: String,
    /// The answer taken when nobody gives one.
    pub suggested: String,
}

impl Plan {
    /// Parses and validates a plan with the default limits, allowing every variable name
    /// that is built in or a secret (caller variables: use [`parse_and_validate`]).
    pub fn from_json(text: &str) -> Result<Plan, PlanError> {
        parse_and_validate(text, &Limits::default(), &template::Vars::default())
    }
}

/// One step of a plan, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Step {
    /// Go to an absolute http(s) URL and wait for it to load.
    Navigate {
        /// Absolute http(s) URL; its host must be inside the run's plan lock.
        url: String,
        /// What a failure of this step means: `must` (default) ends the run, `should` and
        /// `could` are recorded as warnings (`should` asks at a terminal).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        criticality: Option<Criticality>,
    },
    /// Click an element found by its visible text, else by CSS selector.
    Click {
        /// What is clicked, for humans and logs.
        describe: String,
        /// Visible text (whitespace-normalised, case-insensitive; exact beats substring).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// CSS selector, used when `text` is absent or finds nothing.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        selector: Option<String>,
        /// Deadline in seconds for the element to appear and become actionable (default 10).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_seconds: Option<f64>,
        /// What a failure of this step means: `must` (default) ends the run, `should` and
        /// `could` are recorded as warnings (`should` asks at a terminal).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        criticality: Option<Criticality>,
    },
    /// Type a value into a form control found by label, else by CSS selector.
    Fill {
        /// What is filled, for humans and logs.
        describe: String,
        /// CSS selector of the control.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        selector: Option<String>,
        /// Label text, aria-label, aria-labelledby text or placeholder of the control.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        label: Option<String>,
        /// The value to type; may use `{{variables}}`.
        value: String,
        /// Deadline in seconds for the control to appear and become editable (default 10).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_seconds: Option<f64>,
        /// What a failure of this step means: `must` (default) ends the run, `should` and
        /// `could` are recorded as warnings (`should` asks at a terminal).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        criticality: Option<Criticality>,
    },
    /// Pause for a fixed time.
    WaitSeconds {
        /// Seconds to wait, positive.
        seconds: f64,
        /// What a failure of this step means: `must` (default) ends the run, `should` and
        /// `could` are recorded as warnings (`should` asks at a terminal).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        criticality: Option<Criticality>,
    },
    /// Wait until a text is visible on the page.
    WaitForText {
        /// Text to wait for (whitespace-normalised, case-insensitive substring).
        text: String,
        /// Deadline in seconds (default 30).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_seconds: Option<f64>,
        /// What a failure of this step means: `must` (default) ends the run, `should` and
        /// `could` are recorded as warnings (`should` asks at a terminal).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        criticality: Option<Criticality>,
    },
    /// Wait for a message to this run's inbox address and remember it.
    WaitForEmail {
        /// Named inbox (from `--inbox NAME=URL`); the default inbox when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        inbox_id: Option<String>,
        /// The sender's domain (`shop.example`, which also matches its subdomains) or
        /// address (`no-reply@shop.example`); never the display name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from: Option<String>,
        /// Case-insensitive substring of the subject.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        subject: Option<String>,
        /// Deadline in seconds (default 120).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_seconds: Option<f64>,
        /// What a failure of this step means: `must` (default) ends the run, `should` and
        /// `could` are recorded as warnings (`should` asks at a terminal).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        criticality: Option<Criticality>,
    },
    /// Read the one-time code from the remembered (or next) message and fill it in.
    UseOtpFromInbox {
        /// Named inbox; the default inbox when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        inbox_id: Option<String>,
        /// CSS selector of the code input, or of the split single-character boxes.
        selector: String,
        /// Deadline in seconds (default 120).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_seconds: Option<f64>,
        /// What a failure of this step means: `must` (default) ends the run, `should` and
        /// `could` are recorded as warnings (`should` asks at a terminal).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        criticality: Option<Criticality>,
    },
    /// Open the verification or magic link from the remembered (or next) message.
    OpenLinkFromInbox {
        /// Named inbox; the default inbox when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        inbox_id: Option<String>,
        /// The sender's domain (`shop.example`, which also matches its subdomains) or
        /// address (`no-reply@shop.example`); never the display name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from: Option<String>,
        /// Which link of the email, in words (`the link to set a password`): its words rank
        /// the mail's links. Never makes a link that undoes something (cancel, unsubscribe…)
        /// eligible.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        describe: Option<String>,
        /// Deadline in seconds (default 120).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_seconds: Option<f64>,
        /// What a failure of this step means: `must` (default) ends the run, `should` and
        /// `could` are recorded as warnings (`should` asks at a terminal).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        criticality: Option<Criticality>,
    },
    /// Return an element's visible text (or the page's main text) in the result's `extracted`.
    ExtractText {
        /// What is extracted, for humans and logs.
        describe: String,
        /// CSS selector; the page's main visible text when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        selector: Option<String>,
        /// What a failure of this step means: `must` (default) ends the run, `should` and
        /// `could` are recorded as warnings (`should` asks at a terminal).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        criticality: Option<Criticality>,
    },
    /// End the run as succeeded.
    Done {
        /// What was achieved (and, for big goals, what is left).
        summary: String,
        /// What a failure of this step means: `must` (default) ends the run, `should` and
        /// `could` are recorded as warnings (`should` asks at a terminal).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        criticality: Option<Criticality>,
    },
}

/// How much a step's failure matters. Plans are written blind, so a check whose words are a
/// guess (a confirmation text) can say so.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Criticality {
    /// The run cannot go on without it: a failure ends the run.
    #[default]
    Must,
    /// Expected to work: a person at a terminal chooses to retry, skip or stop; elsewhere a
    /// warning, unless the run is strict.
    Should,
    /// A guess that may not hold: a failure is a warning and the run goes on.
    Could,
}

impl Criticality {
    /// As written in plans.
    pub fn as_str(self) -> &'static str {
        match self {
            Criticality::Must => "must",
            Criticality::Should => "should",
            Criticality::Could => "could",
        }
    }
}

/// A step's `type`, as written in plans.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum StepType {
    Navigate,
    Click,
    Fill,
    WaitSeconds,
    WaitForText,
    WaitForEmail,
    UseOtpFromInbox,
    OpenLinkFromInbox,
    ExtractText,
    Done,
}

impl StepType {
    /// Every step type, in the schema's order (a test holds this list to the schema that
    /// serde derives from [`Step`]).
    pub const ALL: [StepType; 10] = [
        StepType::Navigate,
        StepType::Click,
        StepType::Fill,
        StepType::WaitSeconds,
        StepType::WaitForText,
        StepType::WaitForEmail,
        StepType::UseOtpFromInbox,
        StepType::OpenLinkFromInbox,
        StepType::ExtractText,
        StepType::Done,
    ];

    /// The name plans write: serde's name of the variant.
    pub fn as_str(self) -> &'static str {
        static NAMES: LazyLock<Vec<String>> = LazyLock::new(|| {
            StepType::ALL
                .iter()
                .map(|t| match serde_json::to_value(t) {
                    Ok(serde_json::Value::String(name)) => name,
                    _ => unreachable!("a unit variant serialises as its name"),
                })
                .collect()
        });
        &NAMES[self as usize]
    }

    /// The inbox steps: they read mail, and wait for it by default.
    pub fn reads_mail(self) -> bool {
        match self {
            StepType::WaitForEmail | StepType::UseOtpFromInbox | StepType::OpenLinkFromInbox => {
                true
            }
            StepType::Navigate
            | StepType::Click
            | StepType::Fill
            | StepType::WaitSeconds
            | StepType::WaitForText
            | StepType::ExtractText
            | StepType::Done => false,
        }
    }
}

impl std::fmt::Display for StepType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `pad`, so `{:<20}` lines step types up in columns.
        f.pad(self.as_str())
    }
}

impl PartialEq<&str> for StepType {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// The step types' names, in the schema's order.
pub fn step_types() -> impl Iterator<Item = &'static str> {
    StepType::ALL.iter().map(|t| t.as_str())
}

impl Step {
    /// The `type` tag, as written in plans.
    pub fn kind(&self) -> StepType {
        match self {
            Step::Navigate { .. } => StepType::Navigate,
            Step::Click { .. } => StepType::Click,
            Step::Fill { .. } => StepType::Fill,
            Step::WaitSeconds { .. } => StepType::WaitSeconds,
            Step::WaitForText { .. } => StepType::WaitForText,
            Step::WaitForEmail { .. } => StepType::WaitForEmail,
            Step::UseOtpFromInbox { .. } => StepType::UseOtpFromInbox,
            Step::OpenLinkFromInbox { .. } => StepType::OpenLinkFromInbox,
            Step::ExtractText { .. } => StepType::ExtractText,
            Step::Done { .. } => StepType::Done,
        }
    }

    /// A one-line human description, for progress output and events.
    pub fn describe(&self) -> String {
        match self {
            Step::Navigate { url, .. } => format!("go to {url}"),
            Step::Click { describe, .. }
            | Step::Fill { describe, .. }
            | Step::ExtractText { describe, .. } => describe.clone(),
            Step::WaitSeconds { seconds, .. } => format!("wait {seconds} s"),
            Step::WaitForText { text, .. } => format!("wait for text \"{text}\""),
            Step::WaitForEmail { from, subject, .. } => {
                let mut s = String::from("wait for email");
                if let Some(f) = from {
                    s.push_str(&format!(" from \"{f}\""));
                }
                if let Some(sub) = subject {
                    s.push_str(&format!(" with subject \"{sub}\""));
                }
                s
            }
            Step::UseOtpFromInbox { selector, .. } => {
                format!("fill the emailed code into {selector}")
            }
            Step::OpenLinkFromInbox {
                describe: Some(d), ..
            } if !d.trim().is_empty() => d.clone(),
            Step::OpenLinkFromInbox { .. } => "open the link from the email".to_string(),
            Step::Done { summary, .. } => summary.clone(),
        }
    }

    /// Every template-bearing string field, with its JSON field name: the one list of a
    /// step's text, for substituting variables in place.
    pub fn strings_mut(&mut self) -> Vec<(&'static str, &mut String)> {
        fn push<'a>(
            out: &mut Vec<(&'static str, &'a mut String)>,
            name: &'static str,
            v: Option<&'a mut String>,
        ) {
            if let Some(v) = v {
                out.push((name, v));
            }
        }
        let mut out = Vec::new();
        // No `..`: a new field must be listed here or said to carry no text.
        match self {
            Step::Navigate {
                url,
                criticality: _,
            } => push(&mut out, "url", Some(url)),
            Step::Click {
                describe,
                text,
                selector,
                timeout_seconds: _,
                criticality: _,
            } => {
                push(&mut out, "describe", Some(describe));
                push(&mut out, "text", text.as_mut());
                push(&mut out, "selector", selector.as_mut());
            }
            Step::Fill {
                describe,
                selector,
                label,
                value,
                timeout_seconds: _,
                criticality: _,
            } => {
                push(&mut out, "describe", Some(describe));
                push(&mut out, "selector", selector.as_mut());
                push(&mut out, "label", label.as_mut());
                push(&mut out, "value", Some(value));
            }
            Step::WaitSeconds {
                seconds: _,
                criticality: _,
            } => {}
            Step::WaitForText {
                text,
                timeout_seconds: _,
                criticality: _,
            } => push(&mut out, "text", Some(text)),
            Step::WaitForEmail {
                inbox_id,
                from,
                subject,
                timeout_seconds: _,
                criticality: _,
            } => {
                push(&mut out, "inbox_id", inbox_id.as_mut());
                push(&mut out, "from", from.as_mut());
                push(&mut out, "subject", subject.as_mut());
            }
            Step::UseOtpFromInbox {
                inbox_id,
                selector,
                timeout_seconds: _,
                criticality: _,
            } => {
                push(&mut out, "inbox_id", inbox_id.as_mut());
                push(&mut out, "selector", Some(selector));
            }
            Step::OpenLinkFromInbox {
                inbox_id,
                from,
                describe,
                timeout_seconds: _,
                criticality: _,
            } => {
                push(&mut out, "inbox_id", inbox_id.as_mut());
                push(&mut out, "from", from.as_mut());
                push(&mut out, "describe", describe.as_mut());
            }
            Step::ExtractText {
                describe,
                selector,
                criticality: _,
            } => {
                push(&mut out, "describe", Some(describe));
                push(&mut out, "selector", selector.as_mut());
            }
            Step::Done {
                summary,
                criticality: _,
            } => push(&mut out, "summary", Some(summary)),
        }
        out
    }

    /// The step's text fields with their JSON names, as [`Step::strings_mut`] lists them.
    pub fn strings(&self) -> Vec<(&'static str, String)> {
        let mut copy = self.clone();
        copy.strings_mut()
            .into_iter()
            .map(|(name, value)| (name, value.clone()))
            .collect()
    }

    /// The step's own deadline in seconds, if it names one.
    pub fn timeout_seconds(&self) -> Option<f64> {
        match self {
            Step::Click {
                timeout_seconds, ..
            }
            | Step::Fill {
                timeout_seconds, ..
            }
            | Step::WaitForText {
                timeout_seconds, ..
            }
            | Step::WaitForEmail {
                timeout_seconds, ..
            }
            | Step::UseOtpFromInbox {
                timeout_seconds, ..
            }
            | Step::OpenLinkFromInbox {
                timeout_seconds, ..
            } => *timeout_seconds,
            Step::Navigate { .. }
            | Step::WaitSeconds { .. }
            | Step::ExtractText { .. }
            | Step::Done { .. } => None,
        }
    }

    /// How much the step's failure matters (`must` when the plan does not say).
    pub fn criticality(&self) -> Criticality {
        match self {
            Step::Navigate { criticality, .. }
            | Step::Click { criticality, .. }
            | Step::Fill { criticality, .. }
            | Step::WaitSeconds { criticality, .. }
            | Step::WaitForText { criticality, .. }
            | Step::WaitForEmail { criticality, .. }
            | Step::UseOtpFromInbox { criticality, .. }
            | Step::OpenLinkFromInbox { criticality, .. }
            | Step::ExtractText { criticality, .. }
            | Step::Done { criticality, .. } => criticality.unwrap_or_default(),
        }
    }

    /// The inbox this step reads, if it is an inbox step (`None` inside = the default inbox).
    pub fn inbox(&self) -> Option<Option<&str>> {
        match self {
            Step::WaitForEmail { inbox_id, .. }
            | Step::UseOtpFromInbox { inbox_id, .. }
            | Step::OpenLinkFromInbox { inbox_id, .. } => Some(inbox_id.as_deref()),
            Step::Navigate { .. }
            | Step::Click { .. }
            | Step::Fill { .. }
            | Step::WaitSeconds { .. }
            | Step::WaitForText { .. }
            | Step::ExtractText { .. }
            | Step::Done { .. } => None,
        }
    }
}

/// The plan's JSON Schema, generated from the types above.
pub fn json_schema() -> serde_json::Value {
    let schema = schemars::schema_for!(Plan);
    serde_json::to_value(schema).expect("a generated schema is valid JSON")
}

/// The schema as checked in at `schema/plan.schema.json` (pretty, trailing newline).
pub fn json_schema_text() -> String {
    let mut s = serde_json::to_string_pretty(&json_schema()).expect("schema serialises");
    s.push('\n');
    s
}

/// Checks a `navigate` URL once its variables are filled in: absolute http(s) with a host.
pub fn check_navigate_url(url: &str) -> Result<(), String> {
    validate::check_url(url)
}
