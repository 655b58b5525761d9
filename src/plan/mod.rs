//! The plan: its ten step types (the single source of truth for the JSON Schema),
//! template variables, and validation that names the JSON path of every problem.

mod selector;
mod template;
mod validate;
mod wording;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
    pub steps: Vec<Step>,
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
    },
    /// Pause for a fixed time.
    WaitSeconds {
        /// Seconds to wait, positive.
        seconds: f64,
    },
    /// Wait until a text is visible on the page.
    WaitForText {
        /// Text to wait for (whitespace-normalised, case-insensitive substring).
        text: String,
        /// Deadline in seconds (default 30).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_seconds: Option<f64>,
    },
    /// Wait for a message to this run's inbox address and remember it.
    WaitForEmail {
        /// Named inbox (from `--inbox NAME=URL`); the default inbox when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        inbox_id: Option<String>,
        /// Case-insensitive substring of the sender.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from: Option<String>,
        /// Case-insensitive substring of the subject.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        subject: Option<String>,
        /// Deadline in seconds (default 120).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_seconds: Option<f64>,
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
    },
    /// Open the verification or magic link from the remembered (or next) message.
    OpenLinkFromInbox {
        /// Named inbox; the default inbox when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        inbox_id: Option<String>,
        /// Case-insensitive substring of the sender.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from: Option<String>,
        /// Deadline in seconds (default 120).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_seconds: Option<f64>,
    },
    /// Return an element's visible text (or the page's main text) in the result's `extracted`.
    ExtractText {
        /// What is extracted, for humans and logs.
        describe: String,
        /// CSS selector; the page's main visible text when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        selector: Option<String>,
    },
    /// End the run as succeeded.
    Done {
        /// What was achieved (and, for big goals, what is left).
        summary: String,
    },
}

impl Step {
    /// The `type` tag, as written in plans.
    pub fn kind(&self) -> &'static str {
        match self {
            Step::Navigate { .. } => "navigate",
            Step::Click { .. } => "click",
            Step::Fill { .. } => "fill",
            Step::WaitSeconds { .. } => "wait_seconds",
            Step::WaitForText { .. } => "wait_for_text",
            Step::WaitForEmail { .. } => "wait_for_email",
            Step::UseOtpFromInbox { .. } => "use_otp_from_inbox",
            Step::OpenLinkFromInbox { .. } => "open_link_from_inbox",
            Step::ExtractText { .. } => "extract_text",
            Step::Done { .. } => "done",
        }
    }

    /// A one-line human description, for progress output and events.
    pub fn describe(&self) -> String {
        match self {
            Step::Navigate { url } => format!("go to {url}"),
            Step::Click { describe, .. }
            | Step::Fill { describe, .. }
            | Step::ExtractText { describe, .. } => describe.clone(),
            Step::WaitSeconds { seconds } => format!("wait {seconds} s"),
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
            Step::OpenLinkFromInbox { .. } => "open the link from the email".to_string(),
            Step::Done { summary } => summary.clone(),
        }
    }

    /// Every template-bearing string field, with its JSON field name.
    pub fn strings(&self) -> Vec<(&'static str, &String)> {
        let mut out: Vec<(&'static str, &String)> = Vec::new();
        fn push<'a>(
            out: &mut Vec<(&'static str, &'a String)>,
            name: &'static str,
            v: Option<&'a String>,
        ) {
            if let Some(v) = v {
                out.push((name, v));
            }
        }
        match self {
            Step::Navigate { url } => push(&mut out, "url", Some(url)),
            Step::Click {
                describe,
                text,
                selector,
                ..
            } => {
                push(&mut out, "describe", Some(describe));
                push(&mut out, "text", text.as_ref());
                push(&mut out, "selector", selector.as_ref());
            }
            Step::Fill {
                describe,
                selector,
                label,
                value,
                ..
            } => {
                push(&mut out, "describe", Some(describe));
                push(&mut out, "selector", selector.as_ref());
                push(&mut out, "label", label.as_ref());
                push(&mut out, "value", Some(value));
            }
            Step::WaitSeconds { .. } => {}
            Step::WaitForText { text, .. } => push(&mut out, "text", Some(text)),
            Step::WaitForEmail {
                inbox_id,
                from,
                subject,
                ..
            } => {
                push(&mut out, "inbox_id", inbox_id.as_ref());
                push(&mut out, "from", from.as_ref());
                push(&mut out, "subject", subject.as_ref());
            }
            Step::UseOtpFromInbox {
                inbox_id, selector, ..
            } => {
                push(&mut out, "inbox_id", inbox_id.as_ref());
                push(&mut out, "selector", Some(selector));
            }
            Step::OpenLinkFromInbox { inbox_id, from, .. } => {
                push(&mut out, "inbox_id", inbox_id.as_ref());
                push(&mut out, "from", from.as_ref());
            }
            Step::ExtractText { describe, selector } => {
                push(&mut out, "describe", Some(describe));
                push(&mut out, "selector", selector.as_ref());
            }
            Step::Done { summary } => push(&mut out, "summary", Some(summary)),
        }
        out
    }

    /// Applies `f` to every string field (used for template substitution).
    pub fn map_strings(&self, f: &mut dyn FnMut(&str) -> String) -> Step {
        let f = std::cell::RefCell::new(f);
        let m = |s: &String| (f.borrow_mut())(s);
        let mo = |s: &Option<String>| s.as_ref().map(|s| (f.borrow_mut())(s));
        match self {
            Step::Navigate { url } => Step::Navigate { url: m(url) },
            Step::Click {
                describe,
                text,
                selector,
                timeout_seconds,
            } => Step::Click {
                describe: m(describe),
                text: mo(text),
                selector: mo(selector),
                timeout_seconds: *timeout_seconds,
            },
            Step::Fill {
                describe,
                selector,
                label,
                value,
                timeout_seconds,
            } => Step::Fill {
                describe: m(describe),
                selector: mo(selector),
                label: mo(label),
                value: m(value),
                timeout_seconds: *timeout_seconds,
            },
            Step::WaitSeconds { seconds } => Step::WaitSeconds { seconds: *seconds },
            Step::WaitForText {
                text,
                timeout_seconds,
            } => Step::WaitForText {
                text: m(text),
                timeout_seconds: *timeout_seconds,
            },
            Step::WaitForEmail {
                inbox_id,
                from,
                subject,
                timeout_seconds,
            } => Step::WaitForEmail {
                inbox_id: mo(inbox_id),
                from: mo(from),
                subject: mo(subject),
                timeout_seconds: *timeout_seconds,
            },
            Step::UseOtpFromInbox {
                inbox_id,
                selector,
                timeout_seconds,
            } => Step::UseOtpFromInbox {
                inbox_id: mo(inbox_id),
                selector: m(selector),
                timeout_seconds: *timeout_seconds,
            },
            Step::OpenLinkFromInbox {
                inbox_id,
                from,
                timeout_seconds,
            } => Step::OpenLinkFromInbox {
                inbox_id: mo(inbox_id),
                from: mo(from),
                timeout_seconds: *timeout_seconds,
            },
            Step::ExtractText { describe, selector } => Step::ExtractText {
                describe: m(describe),
                selector: mo(selector),
            },
            Step::Done { summary } => Step::Done {
                summary: m(summary),
            },
        }
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
            _ => None,
        }
    }

    /// The inbox this step reads, if it is an inbox step (`None` inside = the default inbox).
    pub fn inbox(&self) -> Option<Option<&str>> {
        match self {
            Step::WaitForEmail { inbox_id, .. }
            | Step::UseOtpFromInbox { inbox_id, .. }
            | Step::OpenLinkFromInbox { inbox_id, .. } => Some(inbox_id.as_deref()),
            _ => None,
        }
    }
}

/// The ten step types, as written in plans.
pub const STEP_TYPES: [&str; 10] = [
    "navigate",
    "click",
    "fill",
    "wait_seconds",
    "wait_for_text",
    "wait_for_email",
    "use_otp_from_inbox",
    "open_link_from_inbox",
    "extract_text",
    "done",
];

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
