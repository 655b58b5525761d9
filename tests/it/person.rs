//! Plans written blind, resolved as a person would: near misses of a guessed text, the
//! editable control a label means, a form that was not sent, checks marked as guesses
//! (criticality), and content others can post on the allowed site, which decides nothing.
//! Each on real Chromium with the fixture site's pages.

use std::time::{Duration, Instant};

use planlock::error::ErrorKind;
use planlock::plan::Criticality;
use planlock::runner::{
    AskShould, RunResult, RunSpec, RunStatus, Secrets, Settings, ShouldChoice, StepRef, StepStatus,
};

use crate::util::{self, need_browser, plan, run_spec, sink_hits, site};

fn quick() -> Settings {
    Settings {
        step_timeout: Duration::from_secs(3),
        ..Settings::default()
    }
}

fn spec(json: &str) -> RunSpec {
    RunSpec::new(plan(json))
        .allow_host("127.0.0.1")
        .settings(quick())
}

fn dump(result: &RunResult) -> String {
    serde_json::to_string_pretty(result).unwrap()
}

/// The strategy and the chosen element's text of step `i`.
fn chose(result: &RunResult, i: usize) -> (String, String) {
    let located = result.steps[i].detail.located.as_ref().expect("located");
    let text = located
        .chosen
        .as_ref()
        .and_then(|c| c.text.clone())
        .unwrap_or_default();
    (located.strategy.clone(), text)
}

/// Every step before `done` succeeded (a plan that only fills, to see where: the run itself
/// fails at `done`, since nothing sent the form).
fn assert_filled(result: &RunResult) {
    let done = result.steps.len() - 1;
    for step in &result.steps[..done] {
        assert_eq!(step.status, StepStatus::Succeeded, "{}", dump(result));
    }
    let error = result.error.clone().unwrap();
    assert_eq!(
        (result.failed_step, error.kind),
        (Some(done), ErrorKind::FormNotSent),
        "{}",
        dump(result)
    );
}

/// The page the run ended on, as the last navigation or click detail says.
fn landed(result: &RunResult) -> String {
    result
        .steps
        .iter()
        .rev()
        .find_map(|s| s.detail.navigation.clone().or(s.detail.url.clone()))
        .unwrap_or_default()
}

#[test]
fn a_guessed_button_text_finds_the_forms_one_submit_control() {
    need_browser!();
    for (page, field, value, click) in [
        ("near-request-access.html", "Email", "ada@x.test", "Sign up"),
        ("near-add-teammate.html", "Email", "bob@x.test", "Invite"),
    ] {
        let (result, _) = run_spec(spec(&format!(
            r#"{{"reasoning":"","steps":[
            {{"type":"navigate","url":"{{SITE}}/{page}"}},
            {{"type":"fill","describe":"the Email field","label":"{field}","value":"{value}"}},
            {{"type":"click","describe":"the {click} button","text":"{click}"}},
            {{"type":"wait_for_text","text":"arrived with ?"}},
            {{"type":"done","summary":"ok"}}]}}"#
        )));
        util::assert_succeeded(&result);
        let (strategy, text) = chose(&result, 2);
        assert_eq!(strategy, "form_submit", "{page}: {}", dump(&result));
        assert!(
            text == "request access" || text == "add teammate",
            "{page}: recorded what it really says: {text}"
        );
    }
}

#[test]
fn all_the_words_and_equivalent_phrases_are_near_misses() {
    need_browser!();
    // "Create account" ~ "Create your account", in the form just filled, over the menu
    // link that says "Create account" exactly; "E-mail" is "Email".
    let (result, _) = run_spec(spec(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/near-create-your-account.html"},
        {"type":"fill","describe":"the Email field","label":"Email","value":"ada@x.test"},
        {"type":"fill","describe":"the Password field","label":"Password","value":"pw"},
        {"type":"click","describe":"the Create account button","text":"Create account"},
        {"type":"wait_for_text","text":"email=ada"},
        {"type":"done","summary":"ok"}]}"#,
    ));
    util::assert_succeeded(&result);
    assert_eq!(chose(&result, 1).0, "label-words", "{}", dump(&result));
    let (strategy, text) = chose(&result, 3);
    assert_eq!(
        (strategy.as_str(), text.as_str()),
        ("words", "create your account")
    );
    let located = result.steps[3].detail.located.as_ref().unwrap();
    assert_eq!(
        located.decided_by.as_deref(),
        Some("form"),
        "{}",
        dump(&result)
    );
    // "Sign up" ~ "Register": the same action in the fixed table.
    let (result, _) = run_spec(spec(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/near-register.html"},
        {"type":"click","describe":"the Sign up button","text":"Sign up"},
        {"type":"wait_for_text","text":"arrived with"},
        {"type":"done","summary":"ok"}]}"#,
    ));
    util::assert_succeeded(&result);
    assert_eq!(chose(&result, 1), ("equivalent".into(), "register".into()));
}

#[test]
fn a_step_that_submits_the_filled_form_follows_no_link_away_from_it() {
    need_browser!();
    // The plan guessed "Register"; the menu has a "Register" link, the form's one button says
    // "Submit". Following the link would lose what was typed: a person presses "Submit".
    let steps = |describe: &str, then: &str| {
        format!(
            r#"{{"reasoning":"","steps":[
            {{"type":"navigate","url":"{{SITE}}/near-register-link.html"}},
            {{"type":"fill","describe":"the Username field","label":"Username","value":"ken"}},
            {{"type":"fill","describe":"the Password field","label":"Password","value":"pw"}},
            {{"type":"click","describe":"{describe}","text":"Register"}},
            {{"type":"wait_for_text","text":"{then}"}},
            {{"type":"done","summary":"ok"}}]}}"#
        )
    };
    let (result, _) = run_spec(spec(&steps(
        "the Register button that submits the form",
        "arrived with",
    )));
    util::assert_succeeded(&result);
    assert_eq!(
        chose(&result, 3),
        ("form_submit".into(), "submit".into()),
        "{}",
        dump(&result)
    );
    let located = result.steps[3].detail.located.as_ref().unwrap();
    assert_eq!(located.passed_over.len(), 1, "{}", dump(&result));
    assert_eq!(located.passed_over[0].landmark.as_deref(), Some("nav"));
    assert!(landed(&result).contains("user=ken"), "{}", landed(&result));

    // A step that asks for the link gets the link.
    let (result, _) = run_spec(spec(&steps(
        "the Register link in the menu",
        "Create an account",
    )));
    util::assert_succeeded(&result);
    let (strategy, _) = chose(&result, 3);
    assert_eq!(strategy, "text", "{}", dump(&result));
    assert!(landed(&result).contains("from=nav"), "{}", landed(&result));
}

#[test]
fn the_place_a_step_names_decides_between_equal_matches() {
    need_browser!();
    for (describe, from) in [
        ("the Sign up link", "from=main"),
        (
            "the Sign up link in the site's navigation menu",
            "from=menu",
        ),
        ("the Sign up link in the footer", "from=footer"),
    ] {
        let (result, _) = run_spec(spec(&format!(
            r#"{{"reasoning":"","steps":[
            {{"type":"navigate","url":"{{SITE}}/places.html"}},
            {{"type":"click","describe":"{describe}","text":"Sign up"}},
            {{"type":"wait_for_text","text":"arrived with"}},
            {{"type":"done","summary":"ok"}}]}}"#
        )));
        util::assert_succeeded(&result);
        assert!(
            landed(&result).ends_with(from),
            "{describe}: {}",
            landed(&result)
        );
    }
}

#[test]
fn two_submit_controls_and_no_match_press_the_default_button_as_enter_would() {
    need_browser!();
    let (result, _) = run_spec(spec(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/two-submits.html"},
        {"type":"fill","describe":"the Title field","label":"Title","value":"Hello"},
        {"type":"click","describe":"the Submit button","text":"Submit"},
        {"type":"done","summary":"ok"}]}"#,
    ));
    util::assert_succeeded(&result);
    // Enter in the title field presses the first submit button in tree order.
    assert!(landed(&result).contains("as=draft"), "{}", landed(&result));
    let located = result.steps[2].detail.located.as_ref().unwrap();
    assert_eq!(located.strategy, "implicit_submit");
    assert_eq!(
        located.chosen.as_ref().unwrap().text.as_deref(),
        Some("save draft")
    );
    let passed: Vec<&str> = located
        .passed_over
        .iter()
        .filter_map(|c| c.text.as_deref())
        .collect();
    assert_eq!(passed, ["publish"], "the buttons it passed over");
}

#[test]
fn fill_types_only_into_editable_controls_and_finds_the_one_email_field() {
    need_browser!();
    // The radio "Via email" is no place to type an address; "E-mail" is the field.
    let (result, _) = run_spec(spec(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/fill-radio-email.html"},
        {"type":"fill","describe":"the Email field","label":"Email","value":"ada@x.test"},
        {"type":"done","summary":"ok"}]}"#,
    ));
    // The plan only fills: the run ends failing that nothing sent the form, after the fills.
    assert_filled(&result);
    let located = result.steps[1].detail.located.as_ref().unwrap();
    assert_eq!(
        located.element.as_deref(),
        Some("<input#address>"),
        "{}",
        dump(&result)
    );
    // No label says Email or Password: the form's one control of each kind.
    let (result, _) = run_spec(spec(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/fill-by-type.html"},
        {"type":"fill","describe":"the Email field","label":"Email","value":"ada@x.test"},
        {"type":"fill","describe":"the Password field","label":"Password","value":"pw"},
        {"type":"done","summary":"ok"}]}"#,
    ));
    // The plan only fills: the run ends failing that nothing sent the form, after the fills.
    assert_filled(&result);
    assert_eq!(chose(&result, 1).0, "type");
    let located = result.steps[2].detail.located.as_ref().unwrap();
    assert_eq!(
        (located.strategy.as_str(), located.element.as_deref()),
        ("type", Some("<input#secret>"))
    );
}

#[test]
fn a_form_the_browser_refused_to_send_fails_the_click_naming_the_field() {
    need_browser!();
    let began = Instant::now();
    let (result, _) = run_spec(spec(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/required-password.html"},
        {"type":"fill","describe":"the Email field","label":"Email","value":"ada@x.test"},
        {"type":"fill","describe":"the Password field","label":"Password","value":"pw-123456"},
        {"type":"click","describe":"the Create account button","text":"Create account"},
        {"type":"wait_for_text","text":"Welcome"},
        {"type":"done","summary":"ok"}]}"#,
    ));
    assert_eq!(result.status, RunStatus::Failed);
    assert_eq!(result.failed_step, Some(3), "the click, not the wait");
    let error = result.error.clone().unwrap();
    assert_eq!(error.kind, ErrorKind::FormNotSent);
    assert!(
        error
            .message
            .starts_with("clicked <button> \"create account\", but the browser did not send its form: \"Retype Password\" ("),
        "{}",
        error.message
    );
    assert!(began.elapsed() < Duration::from_secs(15));
}

#[test]
fn a_form_that_comes_back_with_errors_cuts_the_next_wait_short() {
    need_browser!();
    let began = Instant::now();
    let (result, _) = run_spec(
        RunSpec::new(plan(
            r#"{"reasoning":"","steps":[
            {"type":"navigate","url":"{SITE}/person-register"},
            {"type":"fill","describe":"the Username field","label":"Username","value":"ada"},
            {"type":"fill","describe":"the Email field","label":"Email","value":"ada@x.test"},
            {"type":"fill","describe":"the Password field","label":"Password","value":"pw-123456"},
            {"type":"click","describe":"the Sign up button","text":"Sign up"},
            {"type":"wait_for_text","text":"Welcome"},
            {"type":"done","summary":"ok"}]}"#,
        ))
        .allow_host("127.0.0.1"),
    );
    assert_eq!(result.status, RunStatus::Failed, "{}", dump(&result));
    assert_eq!(result.failed_step, Some(5));
    let error = result.error.clone().unwrap();
    assert_eq!(error.kind, ErrorKind::FormNotSent);
    assert!(
        error
            .message
            .contains("the page came back with the form step 5 sent")
            && error
                .message
                .contains("\"Retype Password: This field is required.\""),
        "{}",
        error.message
    );
    assert_eq!(
        result.steps[4].detail.form_errors,
        ["Retype Password: This field is required."],
        "the click's detail records them"
    );
    assert!(
        began.elapsed() < Duration::from_secs(15),
        "failed in {:?}, not at the wait's 30 s",
        began.elapsed()
    );
}

#[test]
fn a_guessed_check_marked_could_is_a_warning_and_the_run_goes_on() {
    need_browser!();
    let json = |criticality: &str| {
        format!(
            r#"{{"reasoning":"","steps":[
            {{"type":"navigate","url":"{{SITE}}/person-done.html"}},
            {{"type":"wait_for_text","text":"verified","timeout_seconds":1,"criticality":"{criticality}"}},
            {{"type":"done","summary":"checked"}}]}}"#
        )
    };
    for criticality in ["could", "should"] {
        let (result, _) = run_spec(spec(&json(criticality)));
        util::assert_succeeded(&result);
        assert_eq!(result.summary, "checked");
        assert_eq!(result.steps[1].status, StepStatus::Warned);
        let warning = &result.warnings[0];
        assert_eq!(
            (warning.step, warning.criticality),
            (
                1,
                if criticality == "could" {
                    Criticality::Could
                } else {
                    Criticality::Should
                }
            )
        );
        assert!(
            warning
                .error
                .message
                .contains("\"verified\" did not appear"),
            "{}",
            warning.error.message
        );
        assert!(
            warning
                .url
                .as_deref()
                .is_some_and(|u| u.ends_with("/person-done.html"))
        );
        assert!(
            warning.text.as_deref().is_some_and(|t| t.contains("Done")),
            "{:?}",
            warning.text
        );
        let json = serde_json::to_value(&result).unwrap();
        assert_eq!(json["warnings"][0]["criticality"], criticality);
    }
    // Strict: a `should` step that fails is a `must` one.
    let strict = Settings {
        strict: true,
        ..quick()
    };
    let (result, _) = run_spec(spec(&json("should")).settings(strict.clone()));
    assert_eq!(result.status, RunStatus::Failed);
    let (result, _) = run_spec(spec(&json("could")).settings(strict));
    util::assert_succeeded(&result);
    // A plan without criticality: unchanged, the failure ends the run.
    let (result, _) = run_spec(spec(&json("must")));
    assert_eq!(result.status, RunStatus::Failed);
    assert!(result.warnings.is_empty());
}

/// Answers a failed `should` step from a script, as a person at a terminal would.
struct Answers(
    std::sync::Mutex<Vec<ShouldChoice>>,
    std::sync::Mutex<Vec<String>>,
);

#[async_trait::async_trait]
impl AskShould for Answers {
    async fn choose(&self, step: &StepRef, sentence: &str, _shot: Option<&str>) -> ShouldChoice {
        self.1
            .lock()
            .unwrap()
            .push(format!("{} {sentence}", step.index));
        self.0.lock().unwrap().remove(0)
    }
}

#[test]
fn a_person_retries_skips_or_stops_a_failed_should_step() {
    need_browser!();
    let json = r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/person-done.html"},
        {"type":"wait_for_text","text":"verified","timeout_seconds":1,"criticality":"should"},
        {"type":"done","summary":"checked"}]}"#;
    for (choices, status, asked) in [
        (
            vec![ShouldChoice::Retry, ShouldChoice::Skip],
            RunStatus::Succeeded,
            2,
        ),
        (vec![ShouldChoice::Stop], RunStatus::Failed, 1),
    ] {
        let answers = std::sync::Arc::new(Answers(choices.into(), Default::default()));
        let settings = Settings {
            ask: Some(answers.clone()),
            ..quick()
        };
        let (result, events) = run_spec(spec(json).settings(settings));
        assert_eq!(result.status, status, "{}", dump(&result));
        let asked_about = answers.1.lock().unwrap().clone();
        assert_eq!(asked_about.len(), asked, "{asked_about:?}");
        assert!(
            asked_about[0].starts_with("1 the text \"verified\""),
            "{asked_about:?}"
        );
        let started = events
            .iter()
            .filter(|e| {
                e.kind() == planlock::runner::EventKind::StepStarted && e.index() == Some(1)
            })
            .count();
        assert_eq!(started, asked, "each try of the step is in the log");
    }
}

#[test]
fn content_others_posted_decides_no_click() {
    need_browser!();
    // A comment's "Verify" before the real button, one in a comment's fake modal, a footer
    // link marked ugc, a tooltip and an image's alt: the real "Verify email" is clicked.
    let before = sink_hits().len();
    let (result, _) = run_spec(spec(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/ugc-verify.html"},
        {"type":"click","describe":"the Verify button","text":"Verify"},
        {"type":"done","summary":"verified"}]}"#,
    ));
    util::assert_succeeded(&result);
    assert!(landed(&result).contains("verified=1"), "{}", dump(&result));
    let located = result.steps[1].detail.located.as_ref().unwrap();
    assert_eq!(
        located.chosen.as_ref().unwrap().text.as_deref(),
        Some("verify email")
    );
    assert_eq!(
        located.behind_modal, None,
        "a comment's aria-modal is no modal"
    );
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(sink_hits().len(), before, "{:?}", sink_hits());
}

#[test]
fn content_others_posted_decides_no_field_and_gets_no_secret() {
    need_browser!();
    let secrets =
        || Secrets::none().with_given([("PW".to_string(), "correct-horse-42".to_string())].into());
    let before = sink_hits().len();
    // Exact labels "Email" and "Password" in a comment point at the comment form; a
    // comment's button "Log in" would send the login form to the comments endpoint.
    let (result, _) = run_spec(
        spec(
            r#"{"reasoning":"","steps":[
            {"type":"navigate","url":"{SITE}/ugc-login.html"},
            {"type":"fill","describe":"the Email field","label":"Email","value":"ada@x.test"},
            {"type":"fill","describe":"the Password field","label":"Password","value":"{{secret.PW}}"},
            {"type":"click","describe":"the Log in button","text":"Log in"},
            {"type":"wait_for_text","text":"arrived with"},
            {"type":"done","summary":"in"}]}"#,
        )
        .secrets(secrets()),
    );
    util::assert_succeeded(&result);
    let element = |i: usize| {
        result.steps[i]
            .detail
            .located
            .as_ref()
            .unwrap()
            .element
            .clone()
    };
    assert_eq!(element(1).as_deref(), Some("<input#em>"));
    assert_eq!(element(2).as_deref(), Some("<input#pw>"));
    assert!(
        landed(&result).contains("person-done.html"),
        "{}",
        dump(&result)
    );
    // Even a plan that presses the comment's button by selector sends nothing there.
    let (result, _) = run_spec(
        spec(
            r##"{"reasoning":"","steps":[
            {"type":"navigate","url":"{SITE}/ugc-login.html"},
            {"type":"fill","describe":"the Email field","label":"Email","value":"ada@x.test"},
            {"type":"fill","describe":"the Password field","label":"Password","value":"{{secret.PW}}"},
            {"type":"click","describe":"the comment's button","selector":"#ugc-login"},
            {"type":"done","summary":"in"}]}"##,
        )
        .secrets(secrets()),
    );
    assert_eq!(result.status, RunStatus::Failed, "{}", dump(&result));
    let error = result.error.clone().unwrap();
    assert_eq!(error.kind, ErrorKind::LockRefused);
    assert!(
        error
            .message
            .contains("/sink/comments carries a value this run typed")
            && error
                .message
                .contains("only to the address of the form it was typed into"),
        "{}",
        error.message
    );
    std::thread::sleep(Duration::from_millis(300));
    let reached: Vec<String> = sink_hits()[before..].to_vec();
    assert!(
        reached.is_empty(),
        "the comments endpoint received {reached:?}"
    );
}

#[test]
fn a_secret_leaves_through_every_form_it_was_typed_into_and_nowhere_else() {
    need_browser!();
    let secrets =
        || Secrets::none().with_given([("PW".to_string(), "correct-horse-42".to_string())].into());
    let steps = |then: &str| {
        format!(
            r#"{{"reasoning":"","steps":[
            {{"type":"navigate","url":"{{SITE}}/secret-register.html"}},
            {{"type":"fill","describe":"the Username field","label":"Username","value":"ada"}},
            {{"type":"fill","describe":"the Password field","label":"Password","value":"{{{{secret.PW}}}}"}},
            {{"type":"click","describe":"the Create account button","text":"Create account"}},
            {{"type":"wait_for_text","text":"posted to register"}},
            {{"type":"navigate","url":"{{SITE}}/secret-login.html"}},
            {{"type":"fill","describe":"the Username field","label":"Username","value":"ada"}},
            {{"type":"fill","describe":"the Password field","label":"Password","value":"{{{{secret.PW}}}}"}},
            {then},
            {{"type":"done","summary":"in"}}]}}"#
        )
    };
    // Sign up, then log in with the same secret: the log-in form's own action is one it was
    // typed into.
    let before = sink_hits().len();
    let (result, _) = run_spec(
        spec(&steps(
            r#"{"type":"click","describe":"the Log in button","text":"Log in"},
            {"type":"wait_for_text","text":"posted to login"}"#,
        ))
        .secrets(secrets()),
    );
    util::assert_succeeded(&result);
    let reached: Vec<String> = sink_hits()[before..].to_vec();
    assert_eq!(reached.len(), 2, "{reached:?}");
    assert!(
        reached[0].starts_with("register? ") && reached[0].contains("correct-horse-42"),
        "{reached:?}"
    );
    assert!(
        reached[1].starts_with("login? ") && reached[1].contains("correct-horse-42"),
        "{reached:?}"
    );
    // The page's own script sends it to another address of the site: refused, naming the
    // two forms it may go to.
    let before = sink_hits().len();
    let (result, _) = run_spec(
        spec(&steps(
            r#"{"type":"click","describe":"the Check password strength button","text":"Check password strength"}"#,
        ))
        .secrets(secrets()),
    );
    assert_eq!(result.status, RunStatus::Failed, "{}", dump(&result));
    let error = result.error.clone().unwrap();
    assert_eq!(error.kind, ErrorKind::LockRefused);
    assert!(
        error
            .message
            .contains("/sink/stolen carries a value this run typed")
            && error.message.contains(&format!(
                "only to the addresses of the forms it was typed into, {} and {}.",
                site().url("/sink/register"),
                site().url("/sink/login")
            )),
        "{}",
        error.message
    );
    std::thread::sleep(Duration::from_millis(300));
    let reached: Vec<String> = sink_hits()[before..].to_vec();
    assert_eq!(reached.len(), 1, "only the sign-up was sent: {reached:?}");
    assert!(reached[0].starts_with("register? "), "{reached:?}");
}

#[test]
fn an_emailed_code_never_goes_into_a_field_others_posted() {
    need_browser!();
    util::rt().block_on(async {
        let browser = util::browser().unwrap();
        let tab = browser
            .new_tab(planlock::lock::Lock::of_hosts(["127.0.0.1"]).unwrap())
            .await
            .unwrap();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        tab.navigate(&site().url("/ugc-code.html"), deadline)
            .await
            .unwrap();
        let filled = tab
            .fill_code("#no-such-box", "482913", deadline)
            .await
            .unwrap();
        assert_eq!(filled.located.strategy, "fallback");
        assert_eq!(filled.located.element.as_deref(), Some("<input#code>"));
        browser.close_tab(tab).await;
    });
}

/// The code field a page names, when the plan's selector finds none, is found by the words the
/// mail reader knows codes by, in its languages: a German page's `Bestätigungscode`, and not the
/// field for a backup code listed first.
#[test]
fn the_code_field_is_found_by_the_mails_code_words() {
    need_browser!();
    let page = site().url("/code-fields.html");
    util::rt().block_on(async {
        let browser = util::browser().unwrap();
        let tab = browser
            .new_tab(planlock::lock::Lock::of_hosts(["127.0.0.1"]).unwrap())
            .await
            .unwrap();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        tab.navigate(&page, deadline).await.unwrap();
        let filled = tab
            .fill_code("#no-such-box", "482913", deadline)
            .await
            .unwrap();
        assert_eq!(filled.located.strategy, "fallback");
        assert_eq!(
            filled.located.element.as_deref(),
            Some("<input#bestaetigung>")
        );
        browser.close_tab(tab).await;
    });
}

#[test]
fn text_others_posted_satisfies_no_wait() {
    need_browser!();
    let (result, _) = run_spec(spec(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/ugc-failed.html"},
        {"type":"wait_for_text","text":"Your email is verified","timeout_seconds":1},
        {"type":"done","summary":"verified"}]}"#,
    ));
    assert_eq!(result.status, RunStatus::Failed, "{}", dump(&result));
    assert_eq!(result.error.unwrap().kind, ErrorKind::Timeout);
}

#[test]
fn a_true_tie_between_different_places_is_refused() {
    need_browser!();
    let (result, _) = run_spec(spec(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/ambiguous-continue.html"},
        {"type":"click","describe":"the Continue link","text":"Continue"},
        {"type":"done","summary":"ok"}]}"#,
    ));
    assert_eq!(result.status, RunStatus::Failed);
    let error = result.error.unwrap();
    assert_eq!(error.kind, ErrorKind::Ambiguous);
    assert!(
        error.message.contains("plan=basic") && error.message.contains("plan=pro"),
        "{}",
        error.message
    );
    // Two that lead to the same place: either is that place.
    let (result, _) = run_spec(spec(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/ambiguous-continue.html"},
        {"type":"click","describe":"the Next step link","text":"Next step"},
        {"type":"wait_for_text","text":"plan=same"},
        {"type":"done","summary":"ok"}]}"#,
    ));
    util::assert_succeeded(&result);
    let located = result.steps[1].detail.located.as_ref().unwrap();
    assert_eq!(located.ambiguous, Some(true));
}

#[test]
fn a_link_in_a_sidebar_satisfies_a_wait_for_its_text() {
    need_browser!();
    // The sidebar's "Logout" link (an icon, then the word in a span) is on the page, beside an
    // icon-only link marked nofollow and a comment that says only "ok": neither of those
    // (content others may post) takes the rest of the page's text with it.
    let (result, _) = run_spec(spec(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/sidebar-logout.html"},
        {"type":"wait_for_text","text":"Logout","timeout_seconds":2},
        {"type":"wait_for_text","text":"Book a demo","timeout_seconds":2},
        {"type":"done","summary":"signed in"}]}"#,
    ));
    util::assert_succeeded(&result);
}

#[test]
fn an_exact_text_others_posted_in_a_footer_or_sidebar_loses_to_the_main_control() {
    need_browser!();
    // Nothing marks them as posted by others, yet a footer's and a sidebar's exact "Verify"
    // (to an undoing address) lose to the main content's button that holds the words.
    let before = sink_hits().len();
    let (result, _) = run_spec(spec(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/same-host-verify.html"},
        {"type":"click","describe":"the Verify button","text":"Verify"},
        {"type":"wait_for_text","text":"verified=1"},
        {"type":"done","summary":"verified"}]}"#,
    ));
    util::assert_succeeded(&result);
    let located = result.steps[1].detail.located.as_ref().unwrap();
    assert_eq!(chose(&result, 1).1, "verify email", "{}", dump(&result));
    assert_eq!(
        located.decided_by.as_deref(),
        Some("margin"),
        "{}",
        dump(&result)
    );
    // Even when the step asks for a link, the footer's link is not the main content's.
    let (result, _) = run_spec(spec(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/same-host-verify.html"},
        {"type":"click","describe":"the Verify link","text":"Verify"},
        {"type":"wait_for_text","text":"verified=1"},
        {"type":"done","summary":"verified"}]}"#,
    ));
    util::assert_succeeded(&result);
    std::thread::sleep(Duration::from_millis(200));
    let reached: Vec<String> = sink_hits()[before..].to_vec();
    assert!(
        reached.is_empty(),
        "an undoing address was opened: {reached:?}"
    );
}

#[test]
fn a_label_that_starts_with_the_words_beats_one_where_they_come_later() {
    need_browser!();
    // "Teammate email" (a <label> in a web component's form) against "Email address" (an
    // aria-label in the main form): how well the words match decides before the label's kind.
    let (result, _) = run_spec(spec(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/match-quality.html"},
        {"type":"fill","describe":"the Email field","label":"Email","value":"ada@x.test"},
        {"type":"fill","describe":"the Password field","label":"Password","value":"pw-1"},
        {"type":"click","describe":"the Continue button","text":"Continue"},
        {"type":"wait_for_text","text":"email=ada"},
        {"type":"done","summary":"ok"}]}"#,
    ));
    util::assert_succeeded(&result);
    let located = result.steps[1].detail.located.as_ref().unwrap();
    assert_eq!(located.strategy, "aria-label", "{}", dump(&result));
    assert_eq!(
        located.decided_by.as_deref(),
        Some("start"),
        "{}",
        dump(&result)
    );
    // The same for a click's text: "Sign in with SSO" over "Or sign in with SSO".
    let (result, _) = run_spec(spec(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/match-quality.html"},
        {"type":"click","describe":"the Sign in link","text":"Sign in"},
        {"type":"wait_for_text","text":"sso=start"},
        {"type":"done","summary":"ok"}]}"#,
    ));
    util::assert_succeeded(&result);
    assert_eq!(chose(&result, 1).1, "sign in with sso", "{}", dump(&result));
}

#[test]
fn a_step_that_asks_for_a_button_never_clicks_a_heading() {
    need_browser!();
    // After the code, "the Sign In submit button" with text "Sign In": the page's <h1> says
    // it, the form's one button says "Continue". The button is pressed.
    let (result, _) = run_spec(spec(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/heading-sign-in.html"},
        {"type":"fill","describe":"the Code field","label":"Code","value":"482913"},
        {"type":"click","describe":"the Sign In submit button","text":"Sign In"},
        {"type":"wait_for_text","text":"code=482913"},
        {"type":"done","summary":"in"}]}"#,
    ));
    util::assert_succeeded(&result);
    assert_eq!(
        chose(&result, 2),
        ("form_submit".into(), "continue".into()),
        "{}",
        dump(&result)
    );
    // Two buttons that say neither: never the heading.
    let (result, _) = run_spec(spec(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/heading-two-buttons.html"},
        {"type":"fill","describe":"the Code field","label":"Code","value":"482913"},
        {"type":"click","describe":"the Sign In submit button","text":"Sign In"},
        {"type":"done","summary":"in"}]}"#,
    ));
    if let Some(located) = result.steps[2].detail.located.as_ref() {
        let chosen = located.chosen.as_ref().unwrap();
        assert_eq!(chosen.role.as_deref(), Some("button"), "{}", dump(&result));
    } else {
        assert_eq!(result.status, RunStatus::Failed, "{}", dump(&result));
    }
    // Nothing but a heading and a paragraph say it: the step fails at once, saying so.
    let started = Instant::now();
    let (result, _) = run_spec(spec(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/heading-only.html"},
        {"type":"click","describe":"the Sign In button","text":"Sign In"},
        {"type":"done","summary":"in"}]}"#,
    ));
    assert_eq!(result.status, RunStatus::Failed, "{}", dump(&result));
    let error = result.error.clone().unwrap();
    assert_eq!(error.kind, ErrorKind::NotFound, "{}", error.message);
    assert!(
        error.message.contains("<h1> \"sign in\" (a heading)")
            && error.message.contains("asks for a button"),
        "{}",
        error.message
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "waited {:?}",
        started.elapsed()
    );
}
