//! What a person can click, read and mean, on stock pages and in stock mail, through the real
//! runner on real Chromium: a Bootstrap modal dialog over a page with a same-named button
//! (Bootstrap's own package, pinned in the corpus), an AJAX form that answers under its field
//! while its mail is on the way, the user menus of MoinMoin and MediaWiki read by
//! `wait_for_text`, a MediaWiki confirmation mail opened by a describe that names the link to
//! avoid, and the browser's own `alert()`, `confirm()` and `prompt()`.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Json, Path as UrlPath, Query};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use planlock::error::ErrorKind;
use planlock::inbox::smtp::SmtpInbox;
use planlock::plan::{self, Limits, Vars};
use planlock::runner::{RunResult, RunSpec, RunStatus, Settings};
use serde_json::{Value, json};

use crate::util::{self, smtp};

/// The stock pages (`fixtures/corpus/web`, the corpus's packages beside them) and what their
/// scripts ask of a server: a sign-in link mailed (`POST /api/email-link`), and a wiki's
/// confirmation pages. Every confirmation link that was opened is recorded.
struct Stock {
    url: String,
    opened: Arc<Mutex<Vec<String>>>,
}

fn stock() -> &'static Stock {
    static STOCK: LazyLock<Stock> = LazyLock::new(|| {
        let listener = util::rt()
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .expect("bind the stock pages' server");
        let addr = listener.local_addr().expect("addr");
        let opened: Arc<Mutex<Vec<String>>> = Arc::default();
        let log = opened.clone();
        let app =
            Router::new()
                .route("/api/email-link", post(email_link))
                .route(
                    "/index.php/{page}/{token}",
                    get(move |UrlPath((page, token)): UrlPath<(String, String)>| {
                        let log = log.clone();
                        async move {
                            log.lock().unwrap().push(format!("{page}/{token}"));
                            Html(format!("<h1>{page}</h1><p>E-mail address confirmed.</p>"))
                        }
                    }),
                )
                .route(
                    "/{*path}",
                    get(|UrlPath(path): UrlPath<String>| async move {
                        crate::corpus::static_file(&path)
                    }),
                );
        util::rt().spawn(async move {
            axum::serve(listener, app)
                .await
                .expect("serve the stock pages");
        });
        Stock {
            url: format!("http://{addr}"),
            opened,
        }
    });
    &STOCK
}

/// What the Bootstrap page's sign-up form sends by fetch, answered as its query says: a
/// refusal (`status=400`, nothing mailed), or "Please check your email!" with the sign-in link
/// mailed to the run's SMTP receiver (`smtp=PORT`) before the answer (`mail=before`) or 1.5 s
/// after it (`mail=after`): the page shows its notice before the mail arrives, every time.
async fn email_link(Query(q): Query<HashMap<String, String>>, Json(body): Json<Value>) -> Response {
    if q.get("status").map(String::as_str) == Some("400") {
        let said = json!({"said": "Enter a valid email address."});
        return (StatusCode::BAD_REQUEST, Json(said)).into_response();
    }
    let to = body["email"].as_str().unwrap_or_default().to_string();
    let link = format!(
        "{}?signed_in=1&token=9c1f2e7a4b",
        body["back"].as_str().unwrap_or_default()
    );
    let port: u16 = q
        .get("smtp")
        .and_then(|p| p.parse().ok())
        .unwrap_or_default();
    let raw = smtp::message(
        "Quill <no-reply@quill.test>",
        &to,
        "Your sign-in link",
        &format!("Click the link below to sign in to Quill:\r\n\r\n{link}\r\n"),
    );
    let send = async move {
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        smtp::send_mail(addr, "no-reply@quill.test", &[&to], &raw).await;
    };
    if q.get("mail").map(String::as_str) == Some("before") {
        send.await;
    } else {
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(1500)).await;
            send.await;
        });
    }
    Json(json!({"said": "Please check your email!"})).into_response()
}

fn ready() -> bool {
    util::browser().is_some() && crate::corpus::installed()
}

fn dump(result: &RunResult) -> String {
    serde_json::to_string_pretty(result).unwrap()
}

/// Runs `steps` (a plan's steps, `{{stock}}` its pages' address) with an SMTP receiver of its
/// own as the run's inbox; `{{smtp}}` is that receiver's port.
fn run_stock(steps: &str) -> RunResult {
    let inbox = util::rt()
        .block_on(SmtpInbox::start(
            SocketAddr::from(([127, 0, 0, 1], 0)),
            "quill.test",
        ))
        .expect("an SMTP receiver");
    let port = inbox.local_addr().port().to_string();
    let text = format!(r#"{{"reasoning": "", "steps": [{steps}]}}"#)
        .replace("{{stock}}", &stock().url)
        .replace("{{smtp}}", &port);
    let plan = plan::parse_and_validate(&text, &Limits::default(), &Vars::default())
        .unwrap_or_else(|e| panic!("the plan is invalid: {e}\n{text}"));
    let spec = RunSpec::new(plan)
        .allow_host("127.0.0.1")
        .inbox(None, inbox)
        .settings(Settings {
            step_timeout: Duration::from_secs(5),
            ..Settings::default()
        });
    util::run_spec(spec).0
}

/// The Bootstrap page's flow: open the sign-up dialog, type the address, press its "Email Me
/// a Link" (the log-in form's button of the same name stays under the backdrop), then take the
/// mailed link. `query` says how the page's server answers.
fn sign_up_by_mail(query: &str) -> RunResult {
    run_stock(&format!(
        r#"{{"type": "navigate", "url": "{{{{stock}}}}/pages/bootstrap-modal.html?smtp={{{{smtp}}}}&{query}"}},
        {{"type": "click", "describe": "the Sign Up button", "text": "Sign Up"}},
        {{"type": "fill", "describe": "the Email field", "label": "Email", "value": "{{{{inbox_address}}}}"}},
        {{"type": "click", "describe": "the Email Me a Link button", "text": "Email Me a Link"}},
        {{"type": "open_link_from_inbox", "describe": "the sign-in link", "timeout_seconds": 30}},
        {{"type": "wait_for_text", "text": "Welcome to Quill."}},
        {{"type": "done", "summary": "Signed up and signed in."}}"#
    ))
}

#[test]
fn a_bootstrap_modals_button_is_chosen_over_the_same_named_one_under_its_backdrop() {
    if !ready() {
        return;
    }
    let result = sign_up_by_mail("mail=after&notice=text");
    util::assert_succeeded(&result);
    // The field typed into is the dialog's, not the page's "Email" under the backdrop.
    let fill = result.steps[2].detail.located.clone().unwrap();
    assert_eq!(
        fill.element.as_deref(),
        Some("<input#signup-email>"),
        "{}",
        dump(&result)
    );
    let click = result.steps[3].detail.located.clone().unwrap();
    let chosen = click.chosen.clone().unwrap();
    assert_eq!(
        chosen.form.as_deref(),
        Some("form#signup-form"),
        "{}",
        dump(&result)
    );
    assert_eq!(click.ambiguous, Some(false), "{}", dump(&result));
    // The log-in form's button is listed, as covered, by the dialog Bootstrap opened.
    assert_eq!(click.behind_modal, Some(1), "{}", dump(&result));
    let covered = &click.runners_up[0];
    assert_eq!(
        covered.form.as_deref(),
        Some("form#login"),
        "{}",
        dump(&result)
    );
    assert_eq!(covered.covered, Some(true), "{}", dump(&result));
    assert!(
        covered
            .covered_by
            .as_deref()
            .is_some_and(|by| by.starts_with("<div#signup")),
        "{covered:?}"
    );
}

/// The dialog answers "Please check your email!" under its still-filled field, and the mail
/// comes 1.5 s later: a notice that no evidence marks as an error (help text, a success
/// alert) is no form that came back, and the inbox step waits for the mail. When the page does
/// mark its words as an error, the mail already there wins.
#[test]
fn an_ajax_forms_notice_under_its_field_is_no_error_and_the_mail_wins() {
    if !ready() {
        return;
    }
    for query in [
        "mail=after&notice=text",
        "mail=after&notice=success",
        "mail=before&notice=error",
        "mail=after&notice=text",
        "mail=after&notice=success",
    ] {
        let result = sign_up_by_mail(query);
        assert_eq!(
            result.status,
            RunStatus::Succeeded,
            "{query}: {}",
            dump(&result)
        );
        // What the page marked as an error is recorded; the rest is no error at all.
        let errors = &result.steps[3].detail.form_errors;
        if query.ends_with("notice=error") {
            assert!(
                errors
                    .iter()
                    .all(|e| e.contains("Please check your email!")),
                "{query}: {errors:?}"
            );
        } else {
            assert!(errors.is_empty(), "{query}: {}", dump(&result));
        }
    }
}

/// Refused by the server (400), the same words in the same place are what the page says
/// about the form: the inbox step ends within seconds, quoting them.
#[test]
fn an_ajax_form_the_server_refused_ends_the_wait_for_its_mail() {
    if !ready() {
        return;
    }
    let began = Instant::now();
    let result = sign_up_by_mail("status=400");
    assert_eq!(result.status, RunStatus::Failed, "{}", dump(&result));
    assert_eq!(result.failed_step, Some(4), "{}", dump(&result));
    let error = result.error.clone().unwrap();
    assert_eq!(error.kind, ErrorKind::FormNotSent, "{}", error.message);
    assert_eq!(
        error.message,
        "the page came back with the form step 4 sent and says: \"Enter your email address.: \
         Enter a valid email address.\""
    );
    assert!(
        began.elapsed() < Duration::from_secs(20),
        "took {:?}",
        began.elapsed()
    );
}

#[test]
fn moinmoins_user_menu_is_read_at_once() {
    if !ready() {
        return;
    }
    let began = Instant::now();
    let result = run_stock(
        r##"{"type": "navigate", "url": "{{stock}}/pages/moinmoin-focus.html"},
        {"type": "wait_for_text", "text": "Logout", "timeout_seconds": 5},
        {"type": "extract_text", "describe": "the user menu", "selector": "#moin-username"},
        {"type": "click", "describe": "the Logout link", "text": "Logout"},
        {"type": "done", "summary": "Logged out."}"##,
    );
    util::assert_succeeded(&result);
    assert!(
        result.steps[1].duration_ms < 2000,
        "the wait took {} ms",
        result.steps[1].duration_ms
    );
    assert_eq!(result.extracted.len(), 1, "{}", dump(&result));
    assert!(
        result.extracted[0].contains("Logout"),
        "{:?}",
        result.extracted
    );
    let click = result.steps[3].detail.located.clone().unwrap();
    assert_eq!(
        click.element.as_deref(),
        Some("<a.moin-logout> \"logout\""),
        "{}",
        dump(&result)
    );
    assert!(
        result.steps[3]
            .detail
            .navigation
            .as_deref()
            .is_some_and(|u| u.ends_with("?logout_submit=1")),
        "{}",
        dump(&result)
    );
    assert!(began.elapsed() < Duration::from_secs(15));
}

#[test]
fn mediawikis_personal_tools_are_read_and_its_writers_links_are_not() {
    if !ready() {
        return;
    }
    let result = run_stock(
        r#"{"type": "navigate", "url": "{{stock}}/pages/mediawiki-vector.html"},
        {"type": "wait_for_text", "text": "Log out", "timeout_seconds": 5},
        {"type": "click", "describe": "the Log out link", "text": "Log out"},
        {"type": "done", "summary": "Logged out."}"#,
    );
    util::assert_succeeded(&result);
    assert!(result.steps[1].duration_ms < 2000, "{}", dump(&result));
    assert!(
        result.steps[2]
            .detail
            .navigation
            .as_deref()
            .is_some_and(|u| u.contains("Special:UserLogout")),
        "{}",
        dump(&result)
    );
    // The article's external link (rel="nofollow", in a sentence of the main text) is what
    // the wiki's writers put there: its words are no sign of the run.
    let result = run_stock(
        r#"{"type": "navigate", "url": "{{stock}}/pages/mediawiki-vector.html"},
        {"type": "wait_for_text", "text": "User's Guide", "timeout_seconds": 1},
        {"type": "done", "summary": "Read."}"#,
    );
    assert_eq!(result.status, RunStatus::Failed, "{}", dump(&result));
    assert_eq!(result.error.unwrap().kind, ErrorKind::Timeout);
}

/// MediaWiki's confirmation mail, its hosts this test's server: the confirm link, then "If you
/// did *not* register the account, follow this link to cancel".
fn mediawiki_confirmation(to: &str) -> Vec<u8> {
    let raw = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/emails/steering/invalidate_email.eml"),
    )
    .expect("the MediaWiki-shaped mail");
    let host = stock().url.trim_start_matches("http://").to_string();
    raw.replace("http://wiki.test/", &format!("http://{host}/"))
        .replace("run-7f3a@inbox.test", to)
        .into_bytes()
}

/// A model's careful describe ("…, not the link to cancel or invalidate it") validates, and
/// opens the confirm link; the cancel link is never opened.
#[test]
fn a_describe_that_names_the_link_to_avoid_validates_and_opens_the_confirm_link() {
    if util::browser().is_none() {
        return;
    }
    const DESCRIBE: &str = "the link to confirm the email address (Special:ConfirmEmail), not \
                            the link to cancel or invalidate it";
    let plan = json!({"reasoning": "", "steps": [
        {"type": "open_link_from_inbox", "describe": DESCRIBE, "timeout_seconds": 30},
        {"type": "wait_for_text", "text": "E-mail address confirmed."},
        {"type": "done", "summary": "Confirmed."}]});
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("confirm.json");
    std::fs::write(&path, plan.to_string()).unwrap();
    let out = util::planlock()
        .arg("validate")
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Without its negation the describe asks for the cancel link, and is refused.
    let careless = plan
        .to_string()
        .replace(DESCRIBE, "the link to cancel or invalidate it");
    std::fs::write(&path, careless).unwrap();
    let out = util::planlock()
        .arg("validate")
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("asks for a link that says \"cancel\""),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let inbox = util::rt()
        .block_on(SmtpInbox::start(
            SocketAddr::from(([127, 0, 0, 1], 0)),
            "wiki.test",
        ))
        .unwrap();
    let smtp_at = inbox.local_addr();
    let run_id = planlock::runner::new_run_id();
    let to = format!("run-{}@wiki.test", run_id.to_lowercase());
    let raw = mediawiki_confirmation(&to);
    // The mail arrives once the run has started, as a wiki's would.
    util::rt().spawn(async move {
        tokio::time::sleep(Duration::from_millis(500)).await;
        smtp::send_mail(smtp_at, "apache@wiki.test", &[&to], &raw).await;
    });
    let plan =
        plan::parse_and_validate(&plan.to_string(), &Limits::default(), &Vars::default()).unwrap();
    let spec = RunSpec::new(plan)
        .run_id(run_id)
        .allow_host("127.0.0.1")
        .inbox(None, inbox);
    let before = stock().opened.lock().unwrap().len();
    let (result, _) = util::run_spec(spec);
    util::assert_succeeded(&result);
    let detail = &result.steps[0].detail;
    assert!(
        detail
            .link
            .as_deref()
            .is_some_and(|l| l.contains("/index.php/Special:ConfirmEmail/")),
        "{}",
        dump(&result)
    );
    assert!(
        detail.describe_matched.contains(&"confirm".to_string()),
        "{}",
        dump(&result)
    );
    let opened = stock().opened.lock().unwrap()[before..].to_vec();
    assert!(
        opened
            .iter()
            .all(|p| p.starts_with("Special:ConfirmEmail/")),
        "{opened:?}"
    );
}

/// The browser's own dialogs: an `alert` is accepted (OK), a `confirm` and a `prompt` are
/// dismissed (Cancel: nothing the plan did not foresee is agreed to), each at once and
/// recorded in the click's detail.
#[test]
fn the_pages_own_dialogs_are_answered_and_recorded() {
    if util::browser().is_none() {
        return;
    }
    let plan = util::plan(
        r#"{"reasoning":"","steps":[
        {"type":"navigate","url":"{SITE}/js-dialogs.html"},
        {"type":"click","describe":"the Save draft button","text":"Save draft"},
        {"type":"wait_for_text","text":"Saved, and the alert was answered."},
        {"type":"click","describe":"the Delete draft button","text":"Delete draft"},
        {"type":"wait_for_text","text":"Kept: the deletion was not confirmed."},
        {"type":"click","describe":"the Rename draft button","text":"Rename draft"},
        {"type":"wait_for_text","text":"Name unchanged."},
        {"type":"done","summary":"ok"}]}"#,
    );
    let (result, _) = util::run_spec(RunSpec::new(plan).allow_host("127.0.0.1"));
    util::assert_succeeded(&result);
    for (step, said) in [
        (1, "alert: Your draft is saved. (accepted)"),
        (3, "confirm: Delete this draft for good? (dismissed)"),
        (5, "prompt: New name? (dismissed)"),
    ] {
        let effect = result.steps[step].detail.effect.clone().unwrap();
        assert_eq!(effect.dialog.as_deref(), Some(said), "{}", dump(&result));
        // It used to hang the click for its whole 10 s deadline.
        assert!(result.steps[step].duration_ms < 5000, "{}", dump(&result));
    }
}
