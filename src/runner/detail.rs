//! What each step did, as typed facts: the `detail` of a step's events and of its entry in the
//! result, and of a run's first and last events. Reports and services read these fields.

use serde::{Deserialize, Serialize};

use crate::browser::{Answers, Effect, Located, texts};

/// The facts of one step. Which fields are set depends on the step type; absent ones are
/// left out of the JSON.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
#[non_exhaustive]
pub struct StepDetail {
    /// The page's URL after the step (`navigate`, an email's link, a failure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The HTTP status of the document a `navigate` loaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The URL only changed its fragment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_document: Option<bool>,
    /// Where a click sent the page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub navigation: Option<String>,
    /// The error texts the page showed about the form a click submitted, once it came back.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub form_errors: Vec<String>,
    /// What a click did: the evidence that it happened (empty `did`: nothing did).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effect: Option<Effect>,
    /// The element a `click`, `fill`, `extract_text` or code step used, and how it was chosen.
    #[serde(flatten, default)]
    pub located: Option<Located>,
    /// An inbox step right after a click: the requests the click caused that it waited for
    /// to be answered before it read the mail (absent when they already were).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answers: Option<Answers>,
    /// The email an inbox step read.
    #[serde(flatten, default)]
    pub email: Option<EmailSeen>,
    /// The one-time code, masked (`48••••`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The link an `open_link_from_inbox` chose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor_text: Option<String>,
    /// How an inbox step chose its link or code among the mail's others: what the chosen one's
    /// text, sentence and address say, one phrase each (`its sentence says "set a password"`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chosen_by: Vec<String>,
    /// The words of `open_link_from_inbox`'s `describe` that the chosen link's words matched.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub describe_matched: Vec<String>,
    /// `wait_for_text`: the text seen; `extract_text`: the text read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// `wait_seconds`: how long.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    /// `done`: the summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// A screenshot of the page after the step (a file path; services give a URL instead).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshot: Option<String>,
    /// Why a step that was to have a screenshot has none, in one sentence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_screenshot: Option<String>,
    /// `step_started`: the step's deadline, in ms from its start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Where a service serves that screenshot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshot_url: Option<String>,
}

texts!(StepDetail: url, navigation, form_errors, effect, located, answers, email, code, link,
    anchor_text, chosen_by, describe_matched, text, summary, screenshot, no_screenshot,
    screenshot_url; not: status, same_document, seconds, timeout_ms);

impl StepDetail {
    /// The element a step used, and how it was chosen.
    pub(super) fn located(located: Located) -> StepDetail {
        StepDetail {
            located: Some(located),
            ..StepDetail::default()
        }
    }

    /// The text a step saw or read.
    pub(super) fn text(text: String) -> StepDetail {
        StepDetail {
            text: Some(text),
            ..StepDetail::default()
        }
    }

    /// The mail an inbox step read, and the requests of the click before it that the step
    /// waited for to be answered.
    pub(super) fn mail(email: EmailSeen, answers: Option<Answers>) -> StepDetail {
        StepDetail {
            email: Some(email),
            answers,
            ..StepDetail::default()
        }
    }
}

/// The message an inbox step matched. (Its fields are optional in the API's schema: they are
/// a step detail's only when the step read an email.)
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct EmailSeen {
    #[serde(rename = "email_subject")]
    #[cfg_attr(feature = "server", schema(required = false))]
    pub subject: String,
    #[serde(rename = "email_from")]
    #[cfg_attr(feature = "server", schema(required = false))]
    pub from: String,
    /// RFC 3339, UTC.
    #[serde(rename = "email_received_at")]
    #[cfg_attr(feature = "server", schema(required = false))]
    pub received_at: String,
    /// Older copies of this mail (the same sender and subject) that had arrived unused: the
    /// newest copy was taken, and they were marked used with it.
    #[serde(
        rename = "email_older_copies",
        default,
        skip_serializing_if = "is_zero"
    )]
    #[cfg_attr(feature = "server", schema(required = false))]
    pub older_copies: usize,
}

texts!(EmailSeen: subject, from, received_at; not: older_copies);

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// What a `run_started` event says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct RunStarted {
    /// The plan's file or name.
    pub plan: Option<String>,
    /// How many steps the plan has.
    pub steps: usize,
    /// This run's address in its default inbox.
    pub inbox_address: Option<String>,
    /// The sites the lock allows.
    pub allowed_hosts: Vec<String>,
    /// The bound inboxes, without credentials.
    pub inboxes: Vec<BoundInbox>,
}

/// One inbox bound to a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct BoundInbox {
    /// `None` for the default inbox.
    pub name: Option<String>,
    pub inbox: String,
}

/// What a `run_finished` event says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct RunFinished {
    pub status: super::RunStatus,
    pub summary: String,
    pub failed_step: Option<usize>,
    pub inbox_address: Option<String>,
    /// Requests the lock refused during the run.
    #[serde(default)]
    pub refused: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::{Candidate, Change, StateChange, Texts};

    fn leaves(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::String(s) => out.push(s.clone()),
            serde_json::Value::Array(a) => a.iter().for_each(|v| leaves(v, out)),
            serde_json::Value::Object(o) => o.values().for_each(|v| leaves(v, out)),
            _ => {}
        }
    }

    /// Masking goes through `strings_mut`: every text a detail writes must be in it (whole,
    /// or, for facts written in words, each text of the page or the plan the words hold).
    #[test]
    fn every_text_of_a_detail_can_be_masked() {
        let mut n = 0;
        let mut t = || {
            n += 1;
            Some(format!("text-{n}"))
        };
        let candidate = |t: &mut dyn FnMut() -> Option<String>| Candidate {
            element: t(),
            tag: t(),
            text: t(),
            role: t(),
            landmark: t(),
            form: t(),
            submits: Some(true),
            in_filled_form: Some(false),
            covered: Some(true),
            covered_by: t(),
            inert: Some(false),
        };
        let located = Located {
            strategy: "text".into(),
            element: t(),
            x: Some(1.0),
            y: Some(2.0),
            candidates: Some(2),
            decided_by: t(),
            ambiguous: Some(false),
            runners_up: vec![candidate(&mut t)],
            chosen: Some(candidate(&mut t)),
            passed_over: vec![candidate(&mut t)],
            hidden: Some(1),
            behind_modal: Some(1),
            covered: Some(1),
            locate_ms: Some(0.5),
            fallback: t(),
            boxes: Some(6),
            form: t(),
            key: t(),
        };
        let mut detail = StepDetail {
            url: t(),
            status: Some(200),
            same_document: Some(true),
            navigation: t(),
            form_errors: vec![t().unwrap()],
            effect: Some(Effect {
                // Kinds, not text: nothing of a page or a plan is in them.
                did: Vec::new(),
                url: t(),
                requests: vec![t().unwrap()],
                changes: vec![
                    Change::Added { el: t().unwrap() },
                    Change::AddedText {
                        text: t().unwrap(),
                        el: t().unwrap(),
                    },
                    Change::Attribute {
                        name: t().unwrap(),
                        el: t().unwrap(),
                    },
                    Change::Text { el: t() },
                    Change::Text { el: None },
                    Change::Removed { el: t().unwrap() },
                ],
                changed: Some(1),
                states: vec![
                    StateChange {
                        state: t().unwrap(),
                        el: t().unwrap(),
                        before: t(),
                        after: t(),
                    },
                    StateChange {
                        state: t().unwrap(),
                        el: t().unwrap(),
                        before: None,
                        after: None,
                    },
                ],
                focus: t(),
                dialog: t(),
                sent: Some(true),
                after_ms: Some(1.0),
                watched_ms: Some(1),
                answers: Some(Answers {
                    waited_ms: 1,
                    answered: vec![t().unwrap()],
                    unanswered: vec![t().unwrap()],
                    said: t().unwrap(),
                }),
            }),
            located: Some(located),
            answers: Some(Answers {
                waited_ms: 1,
                answered: vec![t().unwrap()],
                unanswered: vec![t().unwrap()],
                said: t().unwrap(),
            }),
            email: Some(EmailSeen {
                subject: "s".into(),
                from: "f".into(),
                received_at: "r".into(),
                older_copies: 1,
            }),
            code: t(),
            link: t(),
            anchor_text: t(),
            chosen_by: vec![t().unwrap()],
            describe_matched: vec![t().unwrap()],
            text: t(),
            seconds: Some(1.0),
            summary: t(),
            screenshot: t(),
            no_screenshot: t(),
            timeout_ms: Some(1),
            screenshot_url: t(),
        };
        let mut written = Vec::new();
        leaves(&serde_json::to_value(&detail).unwrap(), &mut written);
        for text in detail.strings_mut() {
            assert!(
                written.iter().any(|w| w.contains(text.as_str())),
                "{text} is not written"
            );
            *text = "•".into();
        }
        let mut masked = Vec::new();
        leaves(&serde_json::to_value(&detail).unwrap(), &mut masked);
        let escaped: Vec<&String> = masked.iter().filter(|w| w.contains("text-")).collect();
        assert!(escaped.is_empty(), "not masked: {escaped:?}");
        assert!(written.iter().filter(|w| w.contains("text-")).count() > 40);
    }
}
