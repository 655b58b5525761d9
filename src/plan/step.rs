//! What a step is: the step types of a plan (the single source of truth for the JSON
//! Schema) and each type's facts — whether it reads mail, acts on the page, checks — that the
//! rest of planlock asks rather than listing step types again. Adding a step type:
//! `docs/adding-a-step.md`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The inbox steps' `from`, as the schema describes it.
const FROM: &str = "The sender's domain (`shop.example`, which also matches its subdomains) or\n\
                    address (`no-reply@shop.example`); never the display name.";

/// Every step's `criticality`, as the schema describes it (the field is in each variant
/// because serde's tagged enums have no shared fields).
const CRITICALITY: &str = "What a failure of this step means: `must` (default) ends the run, \
                           `should` and\n`could` are recorded as warnings (`should` asks at a \
                           terminal).";

/// One step of a plan, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Step {
    /// Go to an absolute http(s) URL and wait for it to load.
    Navigate {
        /// Absolute http(s) URL; its host must be inside the run's plan lock.
        url: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(description = CRITICALITY)]
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
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(description = CRITICALITY)]
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
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(description = CRITICALITY)]
        criticality: Option<Criticality>,
    },
    /// Pause for a fixed time.
    WaitSeconds {
        /// Seconds to wait, positive.
        seconds: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(description = CRITICALITY)]
        criticality: Option<Criticality>,
    },
    /// Wait until a text is visible on the page.
    WaitForText {
        /// Text to wait for (whitespace-normalised, case-insensitive substring).
        text: String,
        /// Deadline in seconds (default 30).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_seconds: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(description = CRITICALITY)]
        criticality: Option<Criticality>,
    },
    /// Wait for a message to this run's inbox address and remember it.
    WaitForEmail {
        /// Named inbox (from `--inbox NAME=URL`); the default inbox when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        inbox_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(description = FROM)]
        from: Option<String>,
        /// Case-insensitive substring of the subject.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        subject: Option<String>,
        /// Deadline in seconds (default 120).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_seconds: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(description = CRITICALITY)]
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
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(description = CRITICALITY)]
        criticality: Option<Criticality>,
    },
    /// Open the verification or magic link from the remembered (or next) message.
    OpenLinkFromInbox {
        /// Named inbox; the default inbox when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        inbox_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(description = FROM)]
        from: Option<String>,
        /// Which link of the email, in words (`the link to set a password`): its words rank
        /// the mail's links. Never makes a link that undoes something (cancel, unsubscribe…)
        /// eligible.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        describe: Option<String>,
        /// Deadline in seconds (default 120).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_seconds: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(description = CRITICALITY)]
        criticality: Option<Criticality>,
    },
    /// Return an element's visible text (or the page's main text) in the result's `extracted`.
    ExtractText {
        /// What is extracted, for humans and logs.
        describe: String,
        /// CSS selector; the page's main visible text when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        selector: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(description = CRITICALITY)]
        criticality: Option<Criticality>,
    },
    /// End the run as succeeded.
    Done {
        /// What was achieved (and, for big goals, what is left).
        summary: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(description = CRITICALITY)]
        criticality: Option<Criticality>,
    },
}

/// How much a step's failure matters. Plans are written blind, so a check whose words are a
/// guess (a confirmation text) can say so.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[derive(strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
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
        self.into()
    }
}

/// A step's `type`, as written in plans.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
#[derive(strum::VariantArray, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
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
    pub const ALL: &[StepType] = <StepType as strum::VariantArray>::VARIANTS;

    /// The name plans write (a test holds it to serde's name of the variant).
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The inbox steps: they read mail and wait for it (120 s by default); the service
    /// counts their waits on their own (`planlock_inbox_wait_seconds`).
    pub fn reads_mail(self) -> bool {
        self.facts().reads_mail
    }

    /// Whether the step acts on the page or leads it elsewhere. Where what it starts leads (a
    /// navigation, and whatever the page does on its own after it) is judged from this step
    /// until the run acts again.
    pub fn acts_on_page(self) -> bool {
        self.facts().acts_on_page
    }

    /// Whether the step checks what the page or the mailbox shows after the actions before
    /// it. A check the plan let fail, failing right after an action that had no effect, is
    /// the evidence the goal was not reached: the run fails as unconfirmed.
    pub fn is_check(self) -> bool {
        self.facts().is_check
    }

    /// Whether what the step read is returned in the result's `extracted`.
    pub fn returns_text(self) -> bool {
        self.facts().returns_text
    }

    /// Names other tools give this step, answered with "did you mean" when a plan writes one
    /// (`goto` → `navigate`). Lower case, `_` between words.
    pub fn other_names(self) -> &'static [&'static str] {
        self.facts().other_names
    }

    /// Each type's answers, one row a type, naming what is true of the type: what a row does
    /// not name is false. A new type writes its row (the match makes it); a new question is a
    /// field of [`Facts`] that the rows it holds for name (the methods above say what each
    /// means).
    fn facts(self) -> Facts {
        match self {
            StepType::Navigate => Facts {
                acts_on_page: true,
                other_names: &["goto", "go_to", "open", "visit", "open_url", "load"],
                ..Facts::NONE
            },
            StepType::Click => Facts {
                acts_on_page: true,
                other_names: &["press", "tap", "click_button", "click_link"],
                ..Facts::NONE
            },
            StepType::Fill => Facts {
                acts_on_page: true,
                other_names: &[
                    "type",
                    "input",
                    "enter",
                    "enter_text",
                    "type_text",
                    "fill_in",
                ],
                ..Facts::NONE
            },
            StepType::WaitSeconds => Facts {
                is_check: true,
                other_names: &["sleep", "wait", "pause"],
                ..Facts::NONE
            },
            StepType::WaitForText => Facts {
                is_check: true,
                ..Facts::NONE
            },
            StepType::WaitForEmail => Facts {
                reads_mail: true,
                is_check: true,
                other_names: &["wait_for_mail", "wait_email", "check_email", "read_email"],
                ..Facts::NONE
            },
            StepType::UseOtpFromInbox => Facts {
                reads_mail: true,
                acts_on_page: true,
                is_check: true,
                other_names: &["otp", "enter_otp", "fill_otp", "use_otp"],
                ..Facts::NONE
            },
            StepType::OpenLinkFromInbox => Facts {
                reads_mail: true,
                acts_on_page: true,
                is_check: true,
                other_names: &["open_link", "click_email_link", "magic_link"],
                ..Facts::NONE
            },
            StepType::ExtractText => Facts {
                is_check: true,
                returns_text: true,
                other_names: &["extract", "get_text", "read_text", "scrape"],
                ..Facts::NONE
            },
            StepType::Done => Facts {
                other_names: &["finish", "end", "stop", "complete"],
                ..Facts::NONE
            },
        }
    }
}

/// What planlock asks of a step type, answered by [`StepType::facts`]; the method of each
/// name says what the answer changes.
struct Facts {
    reads_mail: bool,
    acts_on_page: bool,
    is_check: bool,
    returns_text: bool,
    other_names: &'static [&'static str],
}

impl Facts {
    /// A type that reads no mail, does not act on the page, checks nothing and returns no
    /// text, and has no other names: what each row starts from.
    const NONE: Facts = Facts {
        reads_mail: false,
        acts_on_page: false,
        is_check: false,
        returns_text: false,
        other_names: &[],
    };
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A step of each type, as small as the schema allows: its required fields only.
    fn sample(t: StepType) -> Step {
        let mut step = match t {
            StepType::Navigate => json!({"url": "https://shop.example/"}),
            StepType::Click => json!({"describe": "x", "text": "x"}),
            StepType::Fill => json!({"describe": "x", "label": "x", "value": "x"}),
            StepType::WaitSeconds => json!({"seconds": 1.0}),
            StepType::WaitForText => json!({"text": "x"}),
            StepType::WaitForEmail | StepType::OpenLinkFromInbox => json!({}),
            StepType::UseOtpFromInbox => json!({"selector": "#code"}),
            StepType::ExtractText => json!({"describe": "x"}),
            StepType::Done => json!({"summary": "x"}),
        };
        step["type"] = t.as_str().into();
        serde_json::from_value(step.clone()).unwrap_or_else(|e| panic!("{step}: {e}"))
    }

    #[test]
    fn each_type_names_its_steps_and_stands_at_its_place_in_all() {
        for &t in StepType::ALL {
            let step = sample(t);
            assert_eq!(step.kind(), t);
            assert_eq!(serde_json::to_value(&step).unwrap()["type"], t.as_str());
            assert_eq!(
                StepType::ALL[t as usize],
                t,
                "ALL lists the types in the order they are declared"
            );
        }
    }

    #[test]
    fn the_steps_that_read_mail_are_the_ones_with_an_inbox() {
        for &t in StepType::ALL {
            assert_eq!(sample(t).inbox().is_some(), t.reads_mail(), "{t}");
        }
    }

    #[test]
    fn another_tools_name_means_one_type_and_is_none_of_ours() {
        let mut seen: Vec<&str> = Vec::new();
        for &t in StepType::ALL {
            for name in t.other_names() {
                assert!(!step_types().any(|own| own == *name), "{name} is a type");
                assert!(!seen.contains(name), "{name} names two types");
                assert_eq!(*name, name.to_ascii_lowercase().replace('-', "_"));
                seen.push(name);
            }
        }
    }
}
