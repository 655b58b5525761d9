//! The verdict on stock apps (`fixtures/journeys`, judged by each app's own records): a click
//! whose text only the page's heading says, on two apps (submitting the form just filled by
//! its default button; failing at once where nothing was filled); a form the app answered
//! with itself and an error, on two apps. Plans as a writer who guessed the words would write
//! them. Each reported success or waited out its inbox step on the previous main.

use std::time::Duration;

use crate::journeys::{Outcome, run_plan_for};

fn no_false_success(o: &Outcome) {
    assert!(
        !o.false_success(),
        "FALSE SUCCESS: {} reported succeeded, but {}",
        o.journey,
        o.evidence.seen
    );
}

fn reached(o: &Outcome) {
    no_false_success(o);
    assert!(
        o.status == "succeeded" && o.evidence.reached,
        "{}: {} ({:?}: {}); warnings {:?}; the app: {}",
        o.journey,
        o.status,
        o.error_kind,
        o.message.as_deref().unwrap_or(""),
        o.warnings,
        o.evidence.seen
    );
}

#[test]
fn two_factor_the_token_is_submitted_though_only_the_heading_says_login() {
    // django-two-factor-auth's login wizard: the heading "Login" on every step, its buttons
    // "Back" and "Next", and a hidden first submit button that makes Enter go forward. After
    // the emailed token is typed, "Login" names only the heading: on the previous main the
    // click landed there, nothing happened, the guessed check warned and the run reported
    // success with nobody logged in.
    let Some(o) = run_plan_for(
        "twofactor",
        "login-email-code",
        r#"{"reasoning": "", "steps": [
        {"type": "navigate", "url": "{{twofactor}}/account/login/"},
        {"type": "fill", "describe": "the Username field", "label": "Username", "value": "{{username}}"},
        {"type": "fill", "describe": "the Password field", "label": "Password", "value": "{{secret.PASSWORD}}"},
        {"type": "click", "describe": "the Next button", "text": "Next"},
        {"type": "use_otp_from_inbox", "selector": "input[name='token-otp_token']"},
        {"type": "click", "describe": "the Login submit button", "text": "Login"},
        {"type": "wait_for_text", "text": "You are logged in", "criticality": "could"},
        {"type": "done", "summary": "Logged in with the emailed code."}]}"#,
    ) else {
        return;
    };
    reached(&o);
}

#[test]
fn allauth_a_click_on_the_confirmation_heading_fails_at_once() {
    // allauth's confirmation page: the heading "Confirm Email Address", the button "Confirm".
    // Nothing was filled on it, so there is no form to submit for the plan: the step fails at
    // once, where the previous main clicked the heading, let the guessed check after it warn
    // and reported success for an address never confirmed.
    let Some(o) = run_plan_for(
        "allauth",
        "signup-confirm-login",
        r#"{"reasoning": "", "steps": [
        {"type": "navigate", "url": "{{allauth}}/accounts/signup/"},
        {"type": "fill", "describe": "the Email field", "label": "Email", "value": "{{inbox_address}}"},
        {"type": "fill", "describe": "the Password field", "label": "Password", "value": "{{secret.PASSWORD}}"},
        {"type": "fill", "describe": "the Password (again) field", "label": "Password (again)", "value": "{{secret.PASSWORD}}"},
        {"type": "click", "describe": "the Sign Up button", "text": "Sign Up"},
        {"type": "open_link_from_inbox", "describe": "the confirmation link"},
        {"type": "click", "describe": "the Confirm Email Address button", "text": "Confirm Email Address"},
        {"type": "wait_for_text", "text": "confirmed", "criticality": "could"},
        {"type": "done", "summary": "Signed up and confirmed."}]}"#,
    ) else {
        return;
    };
    no_false_success(&o);
    assert_eq!(
        (o.status.as_str(), o.failed_step),
        ("failed", Some(6)),
        "{}: {:?}",
        o.journey,
        o.message
    );
    // The step asks for a button: only a heading says its text, and it is never clicked.
    let message = o.message.clone().unwrap_or_default();
    assert!(
        o.error_kind.as_deref() == Some("not_found")
            && message.contains("\"confirm email address\"")
            && message.contains("never clicks a heading"),
        "{message}"
    );
}

/// The form came back: the run fails at the inbox step after the click within seconds,
/// quoting the page's words about the field, instead of waiting for a mail that will not come.
fn came_back(o: &Outcome, words: &str) {
    no_false_success(o);
    assert_eq!(o.status, "failed", "{}: {:?}", o.journey, o.message);
    assert_eq!(
        o.error_kind.as_deref(),
        Some("form_not_sent"),
        "{}: {:?}",
        o.journey,
        o.message
    );
    let message = o.message.clone().unwrap_or_default();
    assert!(
        message.starts_with("the page came back with the form step ") && message.contains(words),
        "{}: {message}",
        o.journey
    );
    assert!(
        o.took < Duration::from_secs(25),
        "{}: took {:?}, the inbox step waited",
        o.journey,
        o.took
    );
}

#[test]
fn allauth_a_sign_up_answered_with_the_form_ends_the_wait_for_the_link() {
    // The second password is another secret: allauth shows the form again with an error.
    let Some(o) = run_plan_for(
        "allauth",
        "signup-confirm-login",
        r#"{"reasoning": "", "steps": [
        {"type": "navigate", "url": "{{allauth}}/accounts/signup/"},
        {"type": "fill", "describe": "the Email field", "label": "Email", "value": "{{inbox_address}}"},
        {"type": "fill", "describe": "the Password field", "label": "Password", "value": "{{secret.PASSWORD}}"},
        {"type": "fill", "describe": "the Password (again) field", "label": "Password (again)", "value": "{{secret.NEW_PASSWORD}}"},
        {"type": "click", "describe": "the Sign Up button", "text": "Sign Up"},
        {"type": "open_link_from_inbox", "describe": "the confirmation link", "timeout_seconds": 60},
        {"type": "done", "summary": "Signed up."}]}"#,
    ) else {
        return;
    };
    came_back(
        &o,
        "Password (again): You must type the same password each time.",
    );
}

#[test]
fn redux_a_registration_answered_with_the_form_ends_the_wait_for_the_link() {
    let Some(o) = run_plan_for(
        "redux",
        "register-activate-login",
        r#"{"reasoning": "", "steps": [
        {"type": "navigate", "url": "{{redux}}/accounts/register/"},
        {"type": "fill", "describe": "the Username field", "label": "Username", "value": "{{username}}"},
        {"type": "fill", "describe": "the E-mail field", "label": "E-mail", "value": "{{inbox_address}}"},
        {"type": "fill", "describe": "the Password field", "label": "Password", "value": "{{secret.PASSWORD}}"},
        {"type": "fill", "describe": "the Password confirmation field", "label": "Password confirmation", "value": "{{secret.NEW_PASSWORD}}"},
        {"type": "click", "describe": "the Submit button", "text": "Submit"},
        {"type": "open_link_from_inbox", "describe": "the activation link", "timeout_seconds": 60},
        {"type": "done", "summary": "Registered."}]}"#,
    ) else {
        return;
    };
    came_back(&o, "Password confirmation: The two password fields didn");
}
