//! The verdict follows the executor's own evidence, on real Chromium with the fixture site's
//! pages: what each click did (its effect), a click that did nothing failing as `no_effect`,
//! implicit submission of the form just filled, a guessed check that cannot let a run pass
//! after an action that did not happen, and a run that ends with a form it filled never sent.

use std::time::{Duration, Instant};

use planlock::browser::{Change, EffectKind, StateChange};
use planlock::error::ErrorKind;
use planlock::runner::{RunResult, RunSpec, RunStatus, Settings, StepStatus};

use crate::util::{self, need_browser, plan, run_spec, sink_hits};

fn spec(json: &str) -> RunSpec {
    RunSpec::new(plan(json))
        .allow_host("127.0.0.1")
        .settings(Settings {
            step_timeout: Duration::from_secs(3),
            ..Settings::default()
        })
}

fn dump(result: &RunResult) -> String {
    serde_json::to_string_pretty(result).unwrap()
}

/// Clicks `text` on the effects page. The step names no role: what says the text is clicked,
/// a heading or a paragraph too.
fn click_on_effects_page(text: &str) -> RunResult {
    run_spec(spec(&format!(
        r#"{{"reasoning":"","steps":[
        {{"type":"navigate","url":"{{SITE}}/effects.html"}},
        {{"type":"click","describe":"{text}","text":"{text}"}},
        {{"type":"done","summary":"clicked"}}]}}"#
    )))
    .0
}

#[test]
fn each_click_records_what_it_did() {
    need_browser!();
    for (text, kind) in [
        ("Remember me", EffectKind::State),
        ("Options", EffectKind::Document),
        ("Save quietly", EffectKind::Request),
        ("Save later", EffectKind::Document),
        ("Jump to section", EffectKind::SameDocument),
        ("Open preview", EffectKind::NewTab),
        ("Display name", EffectKind::Focus),
    ] {
        let result = click_on_effects_page(text);
        util::assert_succeeded(&result);
        let effect = result.steps[1]
            .detail
            .effect
            .clone()
            .unwrap_or_else(|| panic!("{text}: no effect recorded: {}", dump(&result)));
        assert!(
            effect.did.contains(&kind),
            "{text}: expected {kind:?} in {effect:?}"
        );
        assert!(
            effect.after_ms.is_some_and(|ms| ms < 1500.0),
            "{text}: {effect:?}"
        );
    }
    // What each kind says.
    let result = click_on_effects_page("Options");
    let effect = result.steps[1].detail.effect.clone().unwrap();
    assert_eq!(
        effect.changes,
        [Change::Attribute {
            name: "aria-expanded".into(),
            el: "<button#toggle> \"options\"".into(),
        }],
        "{effect:?}"
    );
    let result = click_on_effects_page("Save quietly");
    let effect = result.steps[1].detail.effect.clone().unwrap();
    assert!(
        effect.requests[0].starts_with("POST http://")
            && effect.requests[0].ends_with("/sink/effect-ping"),
        "{effect:?}"
    );
    let result = click_on_effects_page("Remember me");
    let effect = result.steps[1].detail.effect.clone().unwrap();
    assert_eq!(
        effect.states,
        [StateChange {
            state: "checked".into(),
            el: "<input#remember>".into(),
            before: Some("false".into()),
            after: Some("true".into()),
        }],
        "{effect:?}"
    );
}

#[test]
fn a_click_that_does_nothing_fails_as_no_effect_naming_the_element_and_its_role() {
    need_browser!();
    for (text, named) in [
        (
            "Account settings",
            "the heading \"account settings\" (<h1>)",
        ),
        (
            "Does nothing",
            "the button \"does nothing\" (<button#nothing>)",
        ),
        (
            "Some words about",
            "the paragraph \"some words about the settings of this",
        ),
    ] {
        let began = Instant::now();
        let result = click_on_effects_page(text);
        assert_eq!(
            result.status,
            RunStatus::Failed,
            "{text}: {}",
            dump(&result)
        );
        assert_eq!(result.failed_step, Some(1));
        let error = result.error.clone().unwrap();
        assert_eq!(error.kind, ErrorKind::NoEffect, "{}", error.message);
        assert!(
            error.message.starts_with(&format!("clicked {named}"))
                && error
                    .message
                    .contains("but nothing happened within 1.5 s: no navigation, no request"),
            "{text}: {}",
            error.message
        );
        // The failed step says what it clicked and that it did nothing.
        let detail = &result.steps[1].detail;
        assert!(detail.located.is_some(), "{}", dump(&result));
        assert!(detail.effect.as_ref().is_some_and(|e| e.is_none()));
        assert!(
            began.elapsed() < Duration::from_secs(8),
            "{:?}",
            began.elapsed()
        );
    }
}

#[test]
fn a_click_the_plan_let_fail_warns_when_it_does_nothing() {
    need_browser!();
    let (result, _) = run_spec(spec(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/effects.html"},
        {"type":"click","describe":"the heading","text":"Account settings","criticality":"could"},
        {"type":"click","describe":"the Options button","text":"Options"},
        {"type":"done","summary":"ok"}]}"#,
    ));
    util::assert_succeeded(&result);
    assert_eq!(
        result.steps[1].status,
        StepStatus::Warned,
        "{}",
        dump(&result)
    );
    assert_eq!(result.warnings[0].error.kind, ErrorKind::NoEffect);
}

/// What the sign-in form the page's heading names received with `code` (`POST /sink/signin`).
fn signin_hits(before: usize, code: &str) -> Vec<String> {
    sink_hits()[before..]
        .iter()
        .filter(|h| h.starts_with("signin?") && h.contains(&format!("code={code}")))
        .cloned()
        .collect()
}

#[test]
fn a_submitting_click_whose_text_only_a_heading_says_submits_the_form_by_its_default_button() {
    need_browser!();
    // The heading says "Sign In"; the form's buttons "Submit" and "Send Code". On main the
    // heading was clicked, nothing happened, the guessed check warned, and the run succeeded.
    let before = sink_hits().len();
    let (result, _) = run_spec(spec(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/code-heading-two-buttons.html"},
        {"type":"fill","describe":"the Code field","label":"Code","value":"482913"},
        {"type":"click","describe":"the Sign In submit button","text":"Sign In"},
        {"type":"wait_for_text","text":"posted to signin","criticality":"could"},
        {"type":"done","summary":"signed in"}]}"#,
    ));
    util::assert_succeeded(&result);
    let sent = signin_hits(before, "482913");
    assert_eq!(sent.len(), 1, "{sent:?}");
    // Enter in the field presses the first submit button in tree order: "Submit".
    assert!(
        sent[0].contains("code=482913") && !sent[0].contains("resend"),
        "{sent:?}"
    );
    let located = result.steps[2].detail.located.clone().unwrap();
    assert_eq!(located.strategy, "implicit_submit", "{}", dump(&result));
    assert_eq!(
        located.chosen.as_ref().and_then(|c| c.text.as_deref()),
        Some("submit")
    );
    let passed: Vec<String> = located
        .passed_over
        .iter()
        .map(|c| {
            format!(
                "{} {}",
                c.tag.as_deref().unwrap_or_default(),
                c.text.as_deref().unwrap_or_default()
            )
        })
        .collect();
    assert_eq!(
        passed,
        ["h1 sign in", "button send code"],
        "{}",
        dump(&result)
    );
    let effect = result.steps[2].detail.effect.clone().unwrap();
    assert!(effect.did(EffectKind::Navigation), "{effect:?}");
    assert_eq!(effect.sent, Some(true), "{effect:?}");
}

#[test]
fn a_guessed_check_after_a_click_that_left_the_form_unsent_fails_the_run() {
    need_browser!();
    // "Need help?" shows a hint: the click did something, but not send the code.
    let before = sink_hits().len();
    let (result, _) = run_spec(spec(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/code-heading-two-buttons.html"},
        {"type":"fill","describe":"the Code field","label":"Code","value":"482914"},
        {"type":"click","describe":"the Need help button","text":"Need help?"},
        {"type":"wait_for_text","text":"Welcome back","timeout_seconds":2,"criticality":"could"},
        {"type":"done","summary":"signed in"}]}"#,
    ));
    assert_eq!(result.status, RunStatus::Failed, "{}", dump(&result));
    assert_eq!(result.failed_step, Some(3));
    assert!(result.warnings.is_empty(), "{:?}", result.warnings);
    let error = result.error.clone().unwrap();
    assert_eq!(error.kind, ErrorKind::FormNotSent);
    assert!(
        error.message.starts_with("the text \"Welcome back\" did not appear")
            && error
                .message
                .contains("step 3 clicked the button \"need help?\" and the page did not go anywhere (it changed")
            && error
                .message
                .contains("the form filled in step 2 was not submitted; step 3 did not do what the plan needs"),
        "{}",
        error.message
    );
    assert!(signin_hits(before, "482914").is_empty());
}

#[test]
fn a_run_that_ends_with_a_form_it_filled_never_sent_fails() {
    need_browser!();
    for (then, cause) in [
        (
            r#"{"type":"click","describe":"the Need help button","text":"Need help?"},"#,
            "; step 3 clicked the button \"need help?\" and the page did not go anywhere (it changed",
        ),
        ("", "; no step after it submitted it"),
    ] {
        let (result, _) = run_spec(spec(&format!(
            r#"{{"reasoning":"","steps":[
            {{"type":"navigate","url":"{{SITE}}/code-heading-two-buttons.html"}},
            {{"type":"fill","describe":"the Code field","label":"Code","value":"111111"}},
            {then}
            {{"type":"done","summary":"signed in"}}]}}"#
        )));
        assert_eq!(result.status, RunStatus::Failed, "{}", dump(&result));
        let done = result.steps.len() - 1;
        assert_eq!(result.failed_step, Some(done));
        let error = result.error.clone().unwrap();
        assert_eq!(error.kind, ErrorKind::FormNotSent);
        assert!(
            error.message.starts_with(
                "the run reached its end, but the form filled in step 2 was never sent: the page \
                 still shows it as it was filled"
            ) && error.message.contains(cause),
            "{}",
            error.message
        );
    }
    // Sent, it passes.
    let (result, _) = run_spec(spec(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/code-heading-two-buttons.html"},
        {"type":"fill","describe":"the Code field","label":"Code","value":"111111"},
        {"type":"click","describe":"the Submit button","text":"Submit"},
        {"type":"done","summary":"signed in"}]}"#,
    ));
    util::assert_succeeded(&result);
}

#[test]
fn a_run_that_ends_while_the_page_asks_to_confirm_its_submission_fails() {
    need_browser!();
    let plan = |then: &str| {
        format!(
            r#"{{"reasoning":"","steps":[
            {{"type":"navigate","url":"{{SITE}}/confirm-dialog.html"}},
            {{"type":"fill","describe":"the Reason field","label":"Reason","value":"moving on"}},
            {{"type":"click","describe":"the Close account button","text":"Close account"}},
            {then}
            {{"type":"wait_for_text","text":"Account closed","criticality":"could"}},
            {{"type":"done","summary":"account closed"}}]}}"#
        )
    };
    // The submission only opened the modal <dialog>; nothing was sent.
    let before = sink_hits().len();
    let (result, _) = run_spec(spec(&plan("")));
    assert_eq!(result.status, RunStatus::Failed, "{}", dump(&result));
    assert_eq!(result.failed_step, Some(4), "{}", dump(&result));
    let error = result.error.clone().unwrap();
    assert_eq!(error.kind, ErrorKind::FormNotSent);
    assert!(
        error.message.starts_with(
            "the run reached its end, but the form step 3 submitted was not sent: the page asks \
             \"close your account for good?\" in a dialog, and no step answered it; step 3 \
             clicked the button \"close account\" and the page did not go anywhere (it submitted \
             a form"
        ),
        "{}",
        error.message
    );
    assert!(
        !sink_hits()[before..]
            .iter()
            .any(|h| h.starts_with("closed")),
        "nothing was sent"
    );
    // Answered, the run passes (its guessed check warns: the page says "account is closed").
    let (result, _) = run_spec(spec(&plan(
        r#"{"type":"click","describe":"the Yes, close it button","text":"Yes, close it"},"#,
    )));
    util::assert_succeeded(&result);
    assert!(
        sink_hits()[before..]
            .iter()
            .any(|h| h.starts_with("closed")),
        "{:?}",
        sink_hits()
    );
}

#[test]
fn a_form_that_came_back_is_known_by_its_shape_and_ends_the_next_wait_quoting_the_page() {
    use planlock::inbox::smtp::SmtpInbox;
    need_browser!();
    // The page draws its error as a plain sentence after the field: no class, no ARIA.
    for then in [
        r#"{"type":"wait_for_text","text":"Welcome"}"#,
        r#"{"type":"open_link_from_inbox","timeout_seconds":60}"#,
        r#"{"type":"wait_for_email","timeout_seconds":60}"#,
    ] {
        let began = Instant::now();
        let smtp = util::rt()
            .block_on(SmtpInbox::start(
                std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
                "verdict.test",
            ))
            .unwrap();
        let (result, _) = run_spec(
            spec(&format!(
                r#"{{"reasoning":"","steps":[
                {{"type":"navigate","url":"{{SITE}}/plain-register"}},
                {{"type":"fill","describe":"the Username field","label":"Username","value":"ada"}},
                {{"type":"fill","describe":"the Email field","label":"Email","value":"ada@x.test"}},
                {{"type":"fill","describe":"the Password field","label":"Password","value":"pw-123456"}},
                {{"type":"click","describe":"the Register button","text":"Register"}},
                {then},
                {{"type":"done","summary":"ok"}}]}}"#
            ))
            .inbox(None, smtp),
        );
        assert_eq!(
            result.status,
            RunStatus::Failed,
            "{then}: {}",
            dump(&result)
        );
        assert_eq!(result.failed_step, Some(5), "{then}: {}", dump(&result));
        let error = result.error.clone().unwrap();
        assert_eq!(error.kind, ErrorKind::FormNotSent, "{}", error.message);
        assert_eq!(
            error.message,
            "the page came back with the form step 5 sent and says: \"Retype Password: Please \
             enter your retype password.\""
        );
        assert_eq!(
            result.steps[4].detail.form_errors,
            ["Retype Password: Please enter your retype password."]
        );
        assert!(
            began.elapsed() < Duration::from_secs(15),
            "{then}: failed in {:?}",
            began.elapsed()
        );
    }
}
