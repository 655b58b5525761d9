//! What a model reads of a run: the verdict sentence, the values the run extracted, and for a
//! failure the step that failed, the element it chose and the runners-up, and what to change
//! in the plan. The structured answer carries the whole result beside it.

use crate::browser::{Candidate, Located};
use crate::error::ErrorKind;
use crate::plan::StepType;
use crate::report::{kind_name, printable};
use crate::runner::{RunResult, RunStatus, StepOutcome};
use crate::server::api::{RunProgress, RunView};

/// Runners-up shown: the next few are where a wrong choice usually went.
const RUNNERS_UP: usize = 3;

/// The run's verdict, what it extracted and, when it failed, why and what to change.
pub fn result_text(result: &RunResult) -> String {
    let mut text = verdict(result);
    if !result.extracted.is_empty() {
        text.push_str("\nExtracted:");
        for (i, value) in result.extracted.iter().enumerate() {
            text.push_str(&format!("\n  [{i}] {}", printable(value)));
        }
    }
    for w in &result.warnings {
        text.push_str(&format!(
            "\nWarning at steps[{}] ({}: {}, {}): {}",
            w.step,
            w.step_type,
            printable(&w.describe),
            kind_name(w.error.kind),
            printable(&w.error.message)
        ));
    }
    if result.status == RunStatus::Failed
        && let Some(index) = result.failed_step
    {
        text.push_str(&failure_detail(result, index));
    }
    text
}

/// `Run ID succeeded: SUMMARY`, or `Run ID failed at steps[3], step 4 of 9 (click: the Sign
/// up button): KIND: SENTENCE`.
fn verdict(result: &RunResult) -> String {
    let id = &result.run_id;
    match (&result.error, result.failed_step) {
        (None, _) => format!(
            "Run {id} {}: {}",
            result.status.as_str(),
            printable(&result.summary)
        ),
        (Some(error), Some(index)) => {
            let step = result.steps.get(index);
            format!(
                "Run {id} {} at steps[{index}], step {} of {} ({}): {}: {}",
                result.status.as_str(),
                index + 1,
                result.steps.len(),
                step.map(step_name).unwrap_or_default(),
                kind_name(error.kind),
                printable(&error.message)
            )
        }
        (Some(error), None) => format!(
            "Run {id} {}: {}: {}",
            result.status.as_str(),
            kind_name(error.kind),
            printable(&error.message)
        ),
    }
}

/// `click: the Sign up button`.
fn step_name(step: &StepOutcome) -> String {
    format!("{}: {}", step.step_type, printable(&step.describe))
}

/// The element the failed step chose (or, when it chose none, the step before it that did:
/// a wait that timed out usually follows the click that went wrong), its runners-up, and
/// what to change.
fn failure_detail(result: &RunResult, index: usize) -> String {
    let mut text = String::new();
    let Some(step) = result.steps.get(index) else {
        return text;
    };
    let chose = result.steps[..=index]
        .iter()
        .rev()
        .find_map(|s| s.detail.located.as_ref().map(|l| (s, l)));
    if let Some((by, located)) = chose {
        let whose = if by.index == index {
            "It chose".to_string()
        } else {
            format!("steps[{}] ({}) before it chose", by.index, step_name(by))
        };
        text.push_str(&format!("\n{whose} {}", chosen(located)));
        if !located.runners_up.is_empty() {
            let others: Vec<String> = located
                .runners_up
                .iter()
                .take(RUNNERS_UP)
                .map(candidate)
                .collect();
            text.push_str(&format!("\nRunners-up: {}", others.join("; ")));
        }
    }
    if !step.detail.form_errors.is_empty() {
        let errors: Vec<String> = step
            .detail
            .form_errors
            .iter()
            .map(|e| format!("\"{}\"", printable(e)))
            .collect();
        text.push_str(&format!("\nThe form said: {}", errors.join(", ")));
    }
    if let Some(url) = &step.detail.url {
        text.push_str(&format!("\nThe page was {}", printable(url)));
    }
    if let Some(error) = &step.error.as_ref().or(result.error.as_ref()) {
        text.push_str(&format!(
            "\nWhat to change: {}",
            what_to_change(error.kind, step.step_type, index)
        ));
    }
    text
}

/// `<button#go> "Sign up" (button, in form#signup, main; N matched, decided by exact text)`.
fn chosen(located: &Located) -> String {
    let element = located
        .element
        .as_deref()
        .map(|e| printable(e).into_owned())
        .unwrap_or_else(|| "an element".into());
    let mut facts = Vec::new();
    if let Some(c) = &located.chosen {
        facts.extend(where_it_is(c));
    }
    facts.push(format!("found by {}", located.strategy));
    if let Some(n) = located.candidates {
        facts.push(format!("{n} matched"));
    }
    if let Some(rule) = &located.decided_by {
        facts.push(format!("decided by {rule}"));
    }
    if located.ambiguous == Some(true) {
        facts.push("tied with the next".into());
    }
    format!("{element} ({})", facts.join(", "))
}

fn candidate(c: &Candidate) -> String {
    let name = c
        .element
        .as_deref()
        .or(c.text.as_deref())
        .map(|e| printable(e).into_owned())
        .unwrap_or_else(|| "an element".into());
    let facts = where_it_is(c);
    if facts.is_empty() {
        name
    } else {
        format!("{name} ({})", facts.join(", "))
    }
}

/// Its role, form and landmark.
fn where_it_is(c: &Candidate) -> Vec<String> {
    let mut facts = Vec::new();
    if let Some(role) = &c.role {
        facts.push(role.clone());
    }
    if let Some(form) = &c.form {
        facts.push(format!("in {form}"));
    }
    if let Some(landmark) = &c.landmark {
        facts.push(landmark.clone());
    }
    facts
}

/// What in the plan to change for a failure of `kind` at step `index`, in the plan's own
/// fields. A failure of the environment says so: the plan is not the cause.
pub fn what_to_change(kind: ErrorKind, step: StepType, index: usize) -> String {
    let at = format!("steps[{index}]");
    match kind {
        ErrorKind::NotFound => match step {
            StepType::Fill => format!(
                "set {at}.label to the field's label as the page shows it (`look` at the page \
                 lists each form's fields), or add a `selector`"
            ),
            StepType::Click => format!(
                "set {at}.text to words the page shows on the element (`look` lists the \
                 buttons and links), name its role in `describe`, or add a `selector`"
            ),
            _ => format!(
                "point {at} at an element the page has (`look` at the page), or fix its \
                 `selector`"
            ),
        },
        ErrorKind::NotActionable => format!(
            "the element of {at} was there but hidden, disabled or covered: do what the page \
             needs first (fill the required fields, close a dialog, open a menu or tab)"
        ),
        ErrorKind::Timeout => format!(
            "the text of {at} never appeared: see what the step before did (above); if the \
             text is a guess, wait for words the next page surely shows, or mark it \
             \"criticality\": \"could\""
        ),
        ErrorKind::Navigation => {
            format!("check the URL of {at} (a path the site has) and that the site is up")
        }
        ErrorKind::LockRefused => "read the sentence above: a host outside the lock goes into \
             `allowed_hosts` only if the task needs it (else fix the URL); a value the run typed \
             (a secret, a code) that the page sent elsewhere than the form it was typed into, or \
             an emailed link leading to an undoing page, is refused whatever the plan says"
            .into(),
        ErrorKind::EmailTimeout => format!(
            "no mail came for {at}: check the form before it was sent with \
             {{{{inbox_address}}}}, and loosen the `from` and `subject` filters (leave them out \
             when unsure) or raise `timeout_seconds`"
        ),
        ErrorKind::NoCode => format!(
            "the mail of {at} holds no code: use `open_link_from_inbox` if it sends a link, or \
             narrow `from`/`subject` to the mail with the code"
        ),
        ErrorKind::NoLink => format!(
            "the mail of {at} holds no link to open: use `use_otp_from_inbox` if it sends a \
             code, say which link in `describe`, or narrow `from`/`subject`"
        ),
        ErrorKind::Ambiguous => format!(
            "two candidates were equally likely for {at}: make `text` exact, name the role and \
             place in `describe` (\"the Sign up button in the form\"), or add a `selector`"
        ),
        ErrorKind::FormNotSent => format!(
            "the form was not accepted: fill every field the message names (required fields, \
             valid values) before {at}"
        ),
        ErrorKind::NoEffect => format!(
            "clicking the element of {at} did nothing: click another one (the runners-up \
             above), or fill the form's fields first"
        ),
        ErrorKind::InvalidInput => {
            "fix the request: its `vars`, `secrets` or `inbox` (server_info lists the inboxes)"
                .into()
        }
        ErrorKind::RunTimeout => {
            "the run's deadline passed: shorten the waits, or split the plan in two".into()
        }
        ErrorKind::Cancelled => "nothing: the run was cancelled".into(),
        ErrorKind::Inbox
        | ErrorKind::Browser
        | ErrorKind::BrowserCrashed
        | ErrorKind::Interrupted => {
            "nothing in the plan: the environment failed (browser, mailbox or server); run it \
             again"
                .into()
        }
    }
}

/// A run by id: its result's text once it ended, else where it stands.
pub fn view_text(view: &RunView) -> String {
    match view {
        RunView::Ended(ended) => result_text(&ended.result),
        RunView::InFlight(progress) => progress_text(progress),
    }
}

/// `Run ID running: step 3 of 9 (fill: the Email field) is running. It has not ended: …`.
fn progress_text(p: &RunProgress) -> String {
    let status = p.status.as_str();
    let mut text = match p.steps.last() {
        Some(step) => format!(
            "Run {} {status}: step {} of {} ({}: {}) is {}.",
            p.run_id,
            step.index + 1,
            p.steps_total,
            step.step_type,
            printable(&step.describe),
            serde_json::to_value(step.status)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default()
        ),
        None => format!("Run {} {status}: no step has started.", p.run_id),
    };
    text.push_str(&format!(
        " It has not ended: call get_run with {{\"id\": \"{}\", \"wait_seconds\": 30}}, or \
         cancel_run.",
        p.run_id
    ));
    text
}
