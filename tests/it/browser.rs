//! The executor against real headless Chromium and the fixture site: every browser step,
//! the hard cases of locating (docs/locating.md), and the failure paths.

use crate::util::{self, need_browser};

use std::time::{Duration, Instant};

use crate::util::{assert_succeeded, plan, run, run_spec};
use planlock::error::ErrorKind;
use planlock::lock::{AddressPolicy, LockError};
use planlock::runner::{EventKind, RunSpec, RunStatus, Settings, SpecError, StepStatus};

fn quick() -> Settings {
    Settings {
        step_timeout: Duration::from_secs(2),
        ..Settings::default()
    }
}

#[test]
fn form_flow_with_every_label_kind_and_extract() {
    need_browser!();
    let p = plan(
        r##"{"reasoning":"sign up","steps":[
        {"type":"navigate","url":"{SITE}/form.html"},
        {"type":"fill","describe":"name (label for)","label":"Full name","value":"Ada Lovelace"},
        {"type":"fill","describe":"email (wrapping label)","label":"email address","value":"ada@example.com"},
        {"type":"fill","describe":"company (aria-label)","label":"Company","value":"ACME"},
        {"type":"fill","describe":"password (aria-labelledby)","label":"Password","value":"pw"},
        {"type":"fill","describe":"promo (placeholder)","label":"Promo code","value":"SPRING"},
        {"type":"click","describe":"terms","text":"I accept the terms"},
        {"type":"click","describe":"submit","text":"Create account"},
        {"type":"wait_for_text","text":"welcome ABOARD"},
        {"type":"extract_text","describe":"who","selector":"#who"},
        {"type":"extract_text","describe":"main text"},
        {"type":"done","summary":"signed up"}]}"##,
    );
    let (result, events) = run(&p);
    assert_succeeded(&result);
    let strategies: Vec<&str> = result.steps[1..6]
        .iter()
        .map(|s| s.detail.located.as_ref().unwrap().strategy.as_str())
        .collect();
    assert_eq!(
        strategies,
        [
            "label",
            "label",
            "aria-label",
            "aria-labelledby",
            "placeholder"
        ]
    );
    assert_eq!(result.extracted[0], "Signed up as ada@example.com for ACME");
    assert!(
        result.extracted[1].starts_with("Welcome aboard"),
        "{:?}",
        result.extracted
    );
    assert_eq!(result.summary, "signed up");
    // The event log is complete and ordered.
    let kinds: Vec<EventKind> = events.iter().map(|e| e.kind()).collect();
    assert_eq!(kinds.first(), Some(&EventKind::RunStarted));
    assert_eq!(kinds.last(), Some(&EventKind::RunFinished));
    assert_eq!(
        kinds
            .iter()
            .filter(|k| **k == EventKind::StepSucceeded)
            .count(),
        12
    );
}

#[test]
fn waits_for_delayed_rendering() {
    need_browser!();
    let p = plan(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/delayed.html"},
        {"type":"click","describe":"late button","text":"Continue"},
        {"type":"wait_for_text","text":"Clicked the late button","timeout_seconds":5},
        {"type":"done","summary":"ok"}]}"#,
    );
    let (result, _) = run(&p);
    assert_succeeded(&result);
    assert!(
        result.steps[1].duration_ms >= 500,
        "the click waited for the button to render"
    );
}

#[test]
fn spa_route_changes() {
    need_browser!();
    let p = plan(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/spa/home"},
        {"type":"wait_for_text","text":"Welcome home"},
        {"type":"click","describe":"settings tab","text":"Settings"},
        {"type":"fill","describe":"nickname","label":"Nickname","value":"ada"},
        {"type":"click","describe":"save","text":"Save settings"},
        {"type":"wait_for_text","text":"Saved nickname ada"},
        {"type":"done","summary":"ok"}]}"#,
    );
    let (result, _) = run(&p);
    assert_succeeded(&result);
}

#[test]
fn a_navigate_that_only_changes_the_fragment_stays_in_the_document() {
    need_browser!();
    let p = plan(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/spa/settings"},
        {"type":"fill","describe":"nickname","label":"Nickname","value":"ada"},
        {"type":"navigate","url":"{SITE}/spa/settings#top"},
        {"type":"navigate","url":"{SITE}/spa/settings#top"},
        {"type":"click","describe":"save","text":"Save settings"},
        {"type":"wait_for_text","text":"Saved nickname ada"},
        {"type":"done","summary":"ok"}]}"#,
    );
    let (result, _) = run(&p);
    assert_succeeded(&result);
    // Nothing was loaded: what step 2 filled in is still there for step 5 to save.
    for step in &result.steps[2..4] {
        assert_eq!(step.detail.same_document, Some(true), "{:?}", step.detail);
        assert_eq!(
            step.detail.url.as_deref(),
            Some(&*util::site().url("/spa/settings#top"))
        );
    }
}

#[test]
fn overlay_that_goes_away_is_waited_for() {
    need_browser!();
    let p = plan(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/overlay.html?auto=700"},
        {"type":"click","describe":"subscribe","text":"Subscribe"},
        {"type":"wait_for_text","text":"Subscribed to the newsletter","timeout_seconds":3},
        {"type":"done","summary":"ok"}]}"#,
    );
    let (result, _) = run(&p);
    assert_succeeded(&result);
}

#[test]
fn overlay_dismissed_by_a_step_then_click() {
    need_browser!();
    let p = plan(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/overlay.html?auto=never"},
        {"type":"click","describe":"accept cookies","text":"Accept cookies"},
        {"type":"click","describe":"subscribe","text":"Subscribe"},
        {"type":"wait_for_text","text":"Subscribed","timeout_seconds":3},
        {"type":"done","summary":"ok"}]}"#,
    );
    let (result, _) = run(&p);
    assert_succeeded(&result);
}

#[test]
fn a_field_not_found_is_offered_the_fields_names_as_selectors() {
    need_browser!();
    let p = plan(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/form.html"},
        {"type":"fill","describe":"the promo code","selector":"[name=promocode]","value":"X1"},
        {"type":"done","summary":"ok"}]}"#,
    );
    let (result, _) = run_spec(RunSpec::new(p.clone()).settings(quick()));
    let err = result.error.unwrap();
    assert_eq!(err.kind, ErrorKind::NotFound);
    // The locator reports a field's name and id as facts; the failure writes them as the
    // selectors that find them.
    assert!(
        err.message.contains("fields on the page: ") && err.message.contains("\"[name=promo]\""),
        "{}",
        err.message
    );
}

#[test]
fn covered_element_fails_naming_the_overlay() {
    need_browser!();
    let p = plan(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/overlay.html?auto=never"},
        {"type":"click","describe":"subscribe","text":"Subscribe"},
        {"type":"done","summary":"ok"}]}"#,
    );
    let (result, _) = run_spec(RunSpec::new(p.clone()).settings(quick()));
    assert_eq!(result.status, RunStatus::Failed);
    assert_eq!(result.failed_step, Some(1));
    let err = result.error.unwrap();
    assert_eq!(err.kind, ErrorKind::NotActionable);
    assert!(err.message.contains("covered by"), "{}", err.message);
    assert!(
        err.message.contains("banner"),
        "names the overlay: {}",
        err.message
    );
}

#[test]
fn disabled_then_enabled_button() {
    need_browser!();
    let p = plan(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/disabled.html?enable=600"},
        {"type":"click","describe":"order","text":"Place order"},
        {"type":"wait_for_text","text":"Order placed","timeout_seconds":3},
        {"type":"done","summary":"ok"}]}"#,
    );
    let (result, _) = run(&p);
    assert_succeeded(&result);
}

#[test]
fn a_button_that_stays_disabled_fails_as_disabled() {
    need_browser!();
    let p = plan(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/disabled.html"},
        {"type":"click","describe":"order","text":"Place order"},
        {"type":"done","summary":"ok"}]}"#,
    );
    let started = Instant::now();
    let (result, _) = run_spec(RunSpec::new(p.clone()).settings(quick()));
    let err = result.error.expect("failed");
    assert_eq!(err.kind, ErrorKind::NotActionable);
    assert!(err.message.contains("disabled"), "{}", err.message);
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "fails at the 2 s step deadline"
    );
}

#[test]
fn shadow_dom_fill_and_click() {
    need_browser!();
    let p = plan(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/shadow.html"},
        {"type":"fill","describe":"email","label":"Your email","value":"ada@example.com"},
        {"type":"click","describe":"join","text":"Join the list"},
        {"type":"wait_for_text","text":"Joined as ada@example.com","timeout_seconds":3},
        {"type":"done","summary":"ok"}]}"#,
    );
    let (result, _) = run(&p);
    assert_succeeded(&result);
}

#[test]
fn same_origin_iframe_fill_and_click() {
    need_browser!();
    let p = plan(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/iframe.html"},
        {"type":"fill","describe":"holder","label":"Card holder","value":"Ada"},
        {"type":"click","describe":"pay","text":"Pay now"},
        {"type":"wait_for_text","text":"Paid by Ada","timeout_seconds":3},
        {"type":"done","summary":"ok"}]}"#,
    );
    let (result, _) = run(&p);
    assert_succeeded(&result);
}

#[test]
fn react_controlled_inputs_see_the_fill() {
    need_browser!();
    let p = plan(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/react.html"},
        {"type":"fill","describe":"email","label":"Work email","value":"ada@example.com"},
        {"type":"fill","describe":"code","label":"Invite code","value":"ABC123"},
        {"type":"click","describe":"request","text":"Request access"},
        {"type":"wait_for_text","text":"React saw ada@example.com / ABC123","timeout_seconds":3},
        {"type":"done","summary":"ok"}]}"#,
    );
    let (result, _) = run(&p);
    assert_succeeded(&result);
}

#[test]
fn ambiguous_texts_prefer_exact_visible_interactive_elements() {
    need_browser!();
    let p = plan(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/ambiguous.html"},
        {"type":"click","describe":"sign in","text":"sign IN"},
        {"type":"wait_for_text","text":"clicked Sign in","timeout_seconds":2},
        {"type":"click","describe":"create","text":"create one"},
        {"type":"wait_for_text","text":"clicked Create one","timeout_seconds":2},
        {"type":"click","describe":"sso (substring)","text":"with SSO"},
        {"type":"wait_for_text","text":"clicked Sign in with SSO","timeout_seconds":2},
        {"type":"done","summary":"ok"}]}"#,
    );
    let (result, _) = run(&p);
    assert_succeeded(&result);
    assert_eq!(
        result.steps[1].detail.located.as_ref().unwrap().strategy,
        "text"
    );
    assert_eq!(
        result.steps[5].detail.located.as_ref().unwrap().strategy,
        "text-substring"
    );
}

#[test]
fn selector_fallback_when_text_finds_nothing() {
    need_browser!();
    let p = plan(
        r##"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/disabled.html?enable=1"},
        {"type":"click","describe":"order","text":"Buy it now","selector":"#go"},
        {"type":"wait_for_text","text":"Order placed","timeout_seconds":2},
        {"type":"done","summary":"ok"}]}"##,
    );
    let (result, _) = run_spec(RunSpec::new(p.clone()).settings(quick()));
    assert_succeeded(&result);
    assert_eq!(
        result.steps[1].detail.located.as_ref().unwrap().strategy,
        "selector"
    );
}

#[test]
fn missing_element_fails_with_closest_texts_screenshot_and_url() {
    need_browser!();
    let p = plan(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/form.html"},
        {"type":"click","describe":"register","text":"Create acount now"},
        {"type":"done","summary":"ok"}]}"#,
    );
    let dir = tempfile::tempdir().unwrap();
    let settings = Settings {
        artifacts_dir: Some(dir.path().to_path_buf()),
        ..quick()
    };
    let (result, events) = run_spec(RunSpec::new(p.clone()).settings(settings));
    assert_eq!(result.status, RunStatus::Failed);
    assert_eq!(result.failed_step, Some(1));
    let err = result.error.clone().unwrap();
    assert_eq!(err.kind, ErrorKind::NotFound);
    assert!(
        err.message.contains("\"Create acount now\""),
        "{}",
        err.message
    );
    assert!(
        err.message.contains("\"create account\""),
        "suggests the closest text: {}",
        err.message
    );
    let failed = &result.steps[1];
    assert_eq!(failed.status, StepStatus::Failed);
    let shot = failed
        .detail
        .screenshot
        .as_deref()
        .expect("a screenshot path");
    let png = std::fs::read(shot).unwrap();
    assert_eq!(&png[..4], b"\x89PNG");
    assert!(
        failed
            .detail
            .url
            .as_deref()
            .unwrap()
            .ends_with("/form.html")
    );
    assert_eq!(result.steps[2].status, StepStatus::Skipped);
    assert_eq!(events.last().unwrap().kind(), EventKind::RunFinished);
    assert!(
        events
            .iter()
            .any(|e| e.kind() == EventKind::StepFailed && e.index() == Some(1))
    );
}

#[test]
fn a_page_that_never_loads_fails_at_the_deadline() {
    need_browser!();
    let p = plan(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/hang"},
        {"type":"done","summary":"ok"}]}"#,
    );
    let settings = Settings {
        run_timeout: Duration::from_secs(3),
        ..quick()
    };
    let started = Instant::now();
    let (result, _) = run_spec(RunSpec::new(p.clone()).settings(settings));
    assert_eq!(result.status, RunStatus::Failed);
    assert!(started.elapsed() < Duration::from_secs(10));
    let err = result.error.unwrap();
    assert!(
        matches!(err.kind, ErrorKind::Navigation | ErrorKind::RunTimeout),
        "{err:?}"
    );
}

#[test]
fn navigation_errors_and_http_errors_fail_clearly() {
    need_browser!();
    // A port nobody listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let p = plan(&format!(
        r#"{{"reasoning":"","steps":[{{"type":"navigate","url":"http://{closed}/"}},{{"type":"done","summary":"ok"}}]}}"#
    ));
    let (result, _) = run_spec(RunSpec::new(p.clone()).settings(quick()));
    let err = result.error.unwrap();
    assert_eq!(err.kind, ErrorKind::Navigation);
    assert!(
        err.message.contains("ERR_CONNECTION_REFUSED"),
        "{}",
        err.message
    );

    let p = plan(
        r#"{"reasoning":"","steps":[{"type":"navigate","url":"{SITE}/status/500"},{"type":"done","summary":"ok"}]}"#,
    );
    let (result, _) = run(&p);
    let err = result.error.unwrap();
    assert_eq!(err.kind, ErrorKind::Navigation);
    assert!(err.message.contains("HTTP 500"), "{}", err.message);
}

#[test]
fn wait_for_text_timeout_says_what_the_page_shows() {
    need_browser!();
    let p = plan(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/welcome.html"},
        {"type":"wait_for_text","text":"Welcome back","timeout_seconds":1},
        {"type":"done","summary":"ok"}]}"#,
    );
    let (result, _) = run(&p);
    let err = result.error.unwrap();
    assert_eq!(err.kind, ErrorKind::Timeout);
    assert!(
        err.message.contains("\"Welcome back\" did not appear"),
        "{}",
        err.message
    );
    assert!(err.message.contains("welcome aboard"), "{}", err.message);
}

#[test]
fn wait_seconds_waits() {
    need_browser!();
    let p = plan(
        r#"{"reasoning":"","steps":[{"type":"wait_seconds","seconds":0.3},{"type":"done","summary":"ok"}]}"#,
    );
    let (result, _) = run(&p);
    assert_succeeded(&result);
    assert!(result.steps[0].duration_ms >= 300);
}

#[test]
fn a_plan_without_done_succeeds_with_a_generic_summary() {
    need_browser!();
    // Built directly: validation requires `done`, but replayed plans may be trimmed by callers.
    let mut p = plan(
        r#"{"reasoning":"","steps":[{"type":"wait_seconds","seconds":0.05},{"type":"done","summary":"x"}]}"#,
    );
    p.steps.pop();
    let (result, _) = run(&p);
    assert_succeeded(&result);
    assert_eq!(result.summary, "all 1 steps ran");
}

#[test]
fn an_unknown_variable_at_run_time_fails_its_step_with_a_complete_log() {
    need_browser!();
    // Built without validation, as a caller of the library could.
    let p: planlock::plan::Plan = serde_json::from_str(
        r#"{"reasoning":"","steps":[
        {"type":"fill","describe":"x","label":"x","value":"{{who}}"},
        {"type":"done","summary":"x"}]}"#,
    )
    .unwrap();
    let (result, events) = run(&p);
    let err = result.error.unwrap();
    assert_eq!(err.kind, ErrorKind::InvalidInput);
    // Results are the library's: they name the variable, and no front end's flag.
    assert_eq!(
        err.message,
        "unknown variable `{{who}}`: the run has no value for it"
    );
    assert_eq!(result.failed_step, Some(0));
    assert!(
        events
            .iter()
            .any(|e| e.kind() == EventKind::StepFailed && e.index() == Some(0))
    );
    assert_eq!(events.last().unwrap().kind(), EventKind::RunFinished);
}

#[test]
fn a_click_that_submits_a_form_waits_for_the_new_page() {
    need_browser!();
    // Each click starts a form submission; the next step navigates at once. Without waiting
    // for the submission's navigation, the two race (ERR_ABORTED, or the wrong page).
    let pair = r#"{"type":"navigate","url":"{SITE}/form.html"},
        {"type":"click","describe":"submit","text":"Create account"},"#;
    let p = plan(&format!(
        r#"{{"reasoning":"","steps":[{}
        {{"type":"wait_for_text","text":"Welcome aboard"}},
        {{"type":"done","summary":"ok"}}]}}"#,
        pair.repeat(6)
    ));
    let (result, _) = run(&p);
    assert_succeeded(&result);
    for click in result.steps.iter().filter(|s| s.step_type == "click") {
        assert!(
            click
                .detail
                .navigation
                .as_deref()
                .is_some_and(|u| u.contains("/welcome.html")),
            "every submit click saw its navigation: {:?}",
            click.detail
        );
    }
}

#[test]
fn a_moving_button_is_clicked_once_it_stops() {
    need_browser!();
    let p = plan(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/moving.html"},
        {"type":"wait_seconds","seconds":0.15},
        {"type":"click","describe":"catch","text":"Catch me"},
        {"type":"wait_for_text","text":"Caught it","timeout_seconds":2},
        {"type":"done","summary":"ok"}]}"#,
    );
    let (result, _) = run(&p);
    assert_succeeded(&result);
    // 150 ms into a 800 ms slide the button is surely moving: the click waits for it to stop.
    let x = result.steps[2].detail.located.as_ref().unwrap().x.unwrap();
    assert!(
        x > 600.0,
        "clicked where it stopped: {:?}",
        result.steps[2].detail
    );
}

#[test]
fn server_mode_visits_a_private_name_only_when_its_address_is_allowed() {
    need_browser!();
    let port = util::site().addr.port();
    let p = plan(&format!(
        r#"{{"reasoning":"","steps":[{{"type":"navigate","url":"http://localhost:{port}/form.html"}},{{"type":"done","summary":"x"}}]}}"#
    ));
    let service = || {
        RunSpec::new(p.clone())
            .address_policy(AddressPolicy::Service)
            .settings(quick())
    };
    // Not allowed: refused before anything runs, saying how to allow it.
    let refused = util::rt()
        .block_on(service().lock())
        .err()
        .expect("refused");
    assert!(
        matches!(
            &refused,
            SpecError::Lock(LockError::PrivateAddress { host, .. }) if host == "localhost"
        ),
        "{refused}"
    );
    // Allowed by that name alone, still refused: the name brings no private address in.
    let refused = util::rt()
        .block_on(service().allow_host("localhost").lock())
        .err()
        .expect("refused");
    assert!(
        matches!(
            &refused,
            SpecError::Lock(LockError::PrivateAddress { host, ip }) if host == "localhost" && ip.is_loopback()
        ),
        "{refused}"
    );
    // With the address it resolves to: the run visits it (the advice of the refusal works).
    let (result, _) = run_spec(service().allow_host("localhost").allow_host("127.0.0.1"));
    assert_succeeded(&result);
    // Outside server mode the name alone decides.
    let (result, _) = run_spec(RunSpec::new(p.clone()).settings(quick()));
    assert_succeeded(&result);
}

#[test]
fn each_run_gets_a_context_no_run_used_before() {
    need_browser!();
    let p = plan(
        r##"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/storage.html"},
        {"type":"extract_text","describe":"visit","selector":"#out"},
        {"type":"done","summary":"ok"}]}"##,
    );
    // The shared browser keeps a warm spare context: consecutive runs must still not share
    // cookies or storage.
    for _ in 0..3 {
        let (result, _) = run(&p);
        assert_succeeded(&result);
        assert_eq!(result.extracted, ["first visit"]);
    }
}

#[test]
fn a_wait_that_runs_out_names_what_the_click_before_it_did() {
    need_browser!();
    // The plan guessed "Pricing" where the form's button says "Join": the click follows the
    // menu link, the form is never sent, and the wait for the welcome page runs out. The
    // sentence must point at that click, not only at the missing text.
    let p = plan(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/menu-form.html"},
        {"type":"fill","describe":"the Email field","label":"Email","value":"ada@example.com"},
        {"type":"fill","describe":"the Company field","label":"Company","value":"ACME"},
        {"type":"click","describe":"the Pricing link","text":"Pricing"},
        {"type":"wait_for_text","text":"Welcome aboard","timeout_seconds":1},
        {"type":"done","summary":"joined"}]}"#,
    );
    let (result, _) = run(&p);
    assert_eq!(result.status, RunStatus::Failed);
    assert_eq!(result.failed_step, Some(4));
    let err = result.error.expect("an error");
    assert_eq!(err.kind, ErrorKind::Timeout);
    let site = util::site().url("");
    assert_eq!(
        err.message,
        format!(
            "the text \"Welcome aboard\" did not appear on {site}/menu-form.html within 1 s; \
             the page shows: \"email company join\", \"home pricing\", \"join the list\"; step 4 clicked the link \
             \"pricing\" in the page's navigation and the page went to {site}/menu-form.html; \
             the form filled in steps 2 and 3 was not submitted"
        )
    );
}

/// Clicks `link` on a page whose links lead to pages sent in two parts 600 ms apart, then
/// runs `then` on the page it lands on, still loading when the click step ends (the new
/// document committed).
fn on_a_page_still_loading<T>(
    link: &str,
    then: impl AsyncFnOnce(&planlock::browser::Tab, tokio::time::Instant) -> T,
) -> T {
    let browser = util::browser().expect("browser");
    let lock = planlock::lock::Lock::of_hosts(["127.0.0.1"]).unwrap();
    let start = util::site().url("/to-code.html");
    util::rt().block_on(async {
        let tab = browser.new_tab(lock).await.unwrap();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        tab.navigate(&start, deadline).await.unwrap();
        let clicked = tab
            .click(link, Some(link), None, &[], deadline)
            .await
            .unwrap();
        assert!(clicked.navigation.is_some(), "the click navigated");
        let out = then(&tab, deadline).await;
        browser.close_tab(tab).await;
        out
    })
}

#[test]
fn a_code_page_still_loading_is_waited_for_not_judged_by_its_first_boxes() {
    need_browser!();
    // Two of the six code boxes are there when the click ends: counting them then would fail
    // a six-digit code that the loaded page takes.
    let filled = on_a_page_still_loading("Enter the code", async |tab, deadline| {
        tab.fill_code("input.otp", "123456", deadline).await
    });
    let located = filled.expect("the code went into the loaded page");
    assert_eq!(located.located.strategy, "split");
    assert_eq!(located.located.boxes, Some(6));
}

#[test]
fn text_is_read_from_the_whole_page_not_the_part_loaded_so_far() {
    need_browser!();
    let extracted = on_a_page_still_loading("Read the terms", async |tab, deadline| {
        tab.extract_text(Some("main"), deadline).await
    });
    let text = extracted.expect("the terms were read").text;
    assert!(
        text.contains("You may cancel at any time.") && text.contains("Refunds take five days."),
        "{text}"
    );
}
