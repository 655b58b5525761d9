//! The locator's answers always parse: over generated pages (labels repeated, nested, empty,
//! huge, in shadow roots and frames; forms whose controls are named like the form's own
//! properties, `action`, `id`, `method`…), every operation a run can ask for is answered with
//! something the Rust side reads, in real Chromium. An answer that does not parse fails a run
//! with "the locator's answer: …"; a locator that throws fails it with "the locator failed in
//! the page". Neither may happen, whatever the page holds.
//!
//! Failing cases found by proptest are saved in `tests/it/locator_answers.proptest-regressions`
//! and replayed first. `PROPTEST_CASES=200` looks longer.

use std::time::Duration;

use planlock::browser::{PageError, Rejection};
use planlock::lock::Lock;
use proptest::prelude::*;

use crate::util;

/// Label texts as pages write them: the set-password pair, repeated words, nothing, spaces,
/// markup inside, a zero-width space, another script, and a huge one.
fn label_text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("New Password".to_string()),
        Just("New Password (again)".to_string()),
        Just("Password".to_string()),
        Just("Email".to_string()),
        Just("Teammate email".to_string()),
        Just(String::new()),
        Just("   ".to_string()),
        Just("<b>New</b> Password <i class=\"fa fa-key\"> </i>".to_string()),
        Just("Pass\u{200b}word:".to_string()),
        Just("パスワード".to_string()),
        Just(format!("New Password {}", "very long ".repeat(3000))),
    ]
}

/// Names a control may have, among them the properties of its form they shadow.
fn control_name() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("action"),
        Just("id"),
        Just("method"),
        Just("title"),
        Just("name"),
        Just("submit"),
        Just("target"),
        Just("elements"),
        Just("length"),
        Just("tagName"),
        Just("password1"),
        Just("password2"),
    ]
    .prop_map(str::to_string)
}

/// One control of a form, labelled one of several ways.
fn control() -> impl Strategy<Value = String> {
    (0..8u8, label_text(), control_name(), 0..1000u32).prop_map(|(how, text, name, n)| {
        let id = format!("c{n}");
        match how {
            0 => format!("<label>{text} <input type=password name=\"{name}\"></label>"),
            1 => format!("<label for=\"{id}\">{text}</label><input id=\"{id}\" name=\"{name}\">"),
            2 => format!("<input aria-label=\"{}\" name=\"{name}\">", attr(&text)),
            3 => format!("<input placeholder=\"{}\" name=\"{name}\">", attr(&text)),
            4 => format!("<button type=submit name=\"{name}\">{text}</button>"),
            5 => format!("<input type=hidden name=\"{name}\" value=\"x\">"),
            // Nested labels, and an aria-labelledby that points at itself, at nothing and at
            // a label.
            6 => format!("<label>{text}<label>{text} <input name=\"{name}\"></label></label>"),
            _ => format!(
                "<span id=\"l{id}\">{text}</span><input id=\"{id}\" name=\"{name}\" \
                 aria-labelledby=\"{id} missing l{id}\">"
            ),
        }
    })
}

fn attr(text: &str) -> String {
    text.replace('&', "&amp;").replace('"', "&quot;")
}

fn form() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(control(), 1..5),
        any::<bool>(),
        label_text(),
    )
        .prop_map(|(controls, with_id, heading)| {
            let id = if with_id { " id=\"f\" name=\"f\"" } else { "" };
            format!(
                "<h1>{heading}</h1><form method=get{id}>{}<button type=submit>Save</button></form>",
                controls.join("\n")
            )
        })
}

/// A part of the page: a form as it is, in an open shadow root, in a same-origin frame, or
/// in a footer.
fn block() -> impl Strategy<Value = String> {
    (0..4u8, form(), 0..1000u32).prop_map(|(place, form, n)| match place {
        0 => form,
        1 => {
            let js = serde_json::to_string(&form).unwrap();
            format!(
                "<x-host-{n}></x-host-{n}><script>customElements.define('x-host-{n}', class \
                 extends HTMLElement {{ constructor() {{ super(); this.attachShadow({{mode: \
                 'open'}}).innerHTML = {js}; }} }});</script>"
            )
        }
        2 => format!("<iframe srcdoc=\"{}\"></iframe>", attr(&form)),
        _ => format!("<footer>{form}</footer>"),
    })
}

fn page() -> impl Strategy<Value = String> {
    prop::collection::vec(block(), 1..4).prop_map(|blocks| {
        format!(
            "<!doctype html><html><head><meta charset=utf-8><title>Set password</title></head>\
             <body><main>{}</main></body></html>",
            blocks.join("\n")
        )
    })
}

/// Fails the case when an answer did not parse or the locator threw in the page.
fn readable<T>(what: &str, answer: Result<T, PageError>) -> Result<(), TestCaseError> {
    match answer {
        Err(PageError::Command(message)) => Err(TestCaseError::fail(format!(
            "{what}: a browser command failed: {message}"
        ))),
        Err(PageError::Rejected {
            why: Rejection::Script { message },
            ..
        }) => Err(TestCaseError::fail(format!(
            "{what}: the locator failed in the page: {message}"
        ))),
        _ => Ok(()),
    }
}

fn check(html: String, label: &str, text: &str) -> Result<(), TestCaseError> {
    let browser = util::browser().expect("a browser");
    let url = util::pages::pages().add(html);
    util::rt().block_on(async {
        let soon = || tokio::time::Instant::now() + Duration::from_millis(400);
        let lock = || Lock::of_hosts(["127.0.0.1"]).unwrap();
        let tab = browser.new_tab(lock()).await.unwrap();
        let outcome: Result<(), TestCaseError> = async {
            tab.navigate(&url, tokio::time::Instant::now() + Duration::from_secs(10))
                .await
                .map_err(|e| TestCaseError::fail(format!("navigate: {e:?}")))?;
            readable(
                "fill",
                tab.fill("the field", Some(label), None, "pw-1", true, soon())
                    .await,
            )?;
            readable(
                "errors",
                tab.form_errors(&["password1".into()], soon()).await,
            )?;
            readable("wait_for_text", tab.wait_for_text(text, soon()).await)?;
            readable(
                "click",
                tab.click("the Save button", Some(text), None, &[], soon())
                    .await,
            )?;
            readable(
                "accessible",
                tab.accessible("input, button, label", soon()).await,
            )?;
            Ok(())
        }
        .await;
        browser.close_tab(tab).await;
        outcome?;
        // The look before planning reads the same page through the outline operation; the
        // planner words what went wrong.
        if let Err(error) = browser.look(&url, lock()).await {
            let url = url.to_string();
            let said = planlock::planner::LookFailure::Look { url, error }.to_string();
            prop_assert!(
                !said.contains("the locator") && !said.contains("browser command failed"),
                "look: {said}"
            );
        }
        Ok(())
    })
}

proptest! {
    #![proptest_config(util::pages::config())]

    #[test]
    fn every_answer_of_the_locator_is_readable(
        html in page(),
        label in label_text(),
        text in prop_oneof![Just("Save"), Just("New Password"), Just("Password"), Just("")],
    ) {
        if util::browser().is_none() {
            return Ok(());
        }
        check(html, &label, text)?;
    }
}

/// The stock case, kept whatever proptest generates: django-allauth's set-password form, whose
/// submit button is named `action`.
#[test]
fn a_form_whose_button_is_named_action_is_filled() {
    if util::browser().is_none() {
        return;
    }
    let html = "<!doctype html><html><body><main><h1>Change Password</h1>\
        <form method=post action=\"/p/none\">\
        <p><label for=id_password1>New Password:</label> <input type=password name=password1 id=id_password1></p>\
        <p><label for=id_password2>New Password (again):</label> <input type=password name=password2 id=id_password2></p>\
        <button type=submit name=action>Change Password</button></form></main></body></html>";
    let url = util::pages::pages().add(html.to_string());
    let browser = util::browser().unwrap();
    util::rt().block_on(async {
        let tab = browser
            .new_tab(Lock::of_hosts(["127.0.0.1"]).unwrap())
            .await
            .unwrap();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        tab.navigate(&url, deadline).await.unwrap();
        let filled = tab
            .fill(
                "the New Password field",
                Some("New Password"),
                None,
                "pw-1",
                true,
                deadline,
            )
            .await;
        browser.close_tab(tab).await;
        let filled = filled.unwrap();
        assert_eq!(
            filled.located.element.as_deref(),
            Some("<input#id_password1>")
        );
        // The form's real address, not the button that shadows it.
        assert!(
            filled
                .action
                .as_deref()
                .is_some_and(|a| a.ends_with("/p/none")),
            "{:?}",
            filled.action
        );
    });
}
