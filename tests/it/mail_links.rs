//! Which link of a real mail a run opens, end to end: a page on loopback that mails this run's
//! address when it is visited (through planlock's embedded SMTP inbox, or into Dovecot for
//! IMAP), real Chromium, and the page's own log of every request it served. A cancel or
//! unsubscribe link beside the real one is never requested, a mail whose only link undoes
//! something fails the step without requesting it, and two links alike to different places
//! fail as ambiguous with neither requested.

use crate::util;
use crate::util::dovecot::{Dovecot, DovecotMailer};

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Query, Request, State};
use axum::response::Html;
use axum::routing::get;
use planlock::demo::Mailer;
use planlock::error::ErrorKind;
use planlock::inbox::{Inbox, connect, parse_url};
use planlock::plan::{Limits, Plan, Vars};
use planlock::runner::{self, RunResult, RunSpec};

/// The app under test: `/signup?to=ADDR` mails ADDR the mail `compose` writes for this
/// app's address, every other path answers with a page that names it. Every request's path
/// and query is logged.
#[derive(Clone)]
struct App {
    hits: Arc<Mutex<Vec<String>>>,
    mailer: Arc<dyn Mailer>,
    compose: fn(&str, &str) -> String,
    base: Arc<Mutex<String>>,
}

#[derive(serde::Deserialize)]
struct To {
    to: String,
}

impl App {
    async fn start(mailer: Arc<dyn Mailer>, compose: fn(&str, &str) -> String) -> (App, String) {
        let app = App {
            hits: Arc::default(),
            mailer,
            compose,
            base: Arc::default(),
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        *app.base.lock().unwrap() = base.clone();
        let router = Router::new()
            .route("/signup", get(signup))
            // An open redirector, as many apps have (`/redir?to=/next/page`).
            .route(
                "/redir",
                get(|Query(q): Query<To>| async move { axum::response::Redirect::to(&q.to) }),
            )
            // A tracking link whose address says nothing: it answers with a redirect.
            .route(
                "/r/{id}",
                get(|| async { axum::response::Redirect::to("/account/delete?confirm=1") }),
            )
            .fallback(page)
            .layer(axum::middleware::from_fn_with_state(app.clone(), log))
            .with_state(app.clone());
        tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
        (app, base)
    }

    fn hits(&self) -> Vec<String> {
        self.hits.lock().unwrap().clone()
    }
}

async fn log(
    State(app): State<App>,
    req: Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let uri = req.uri();
    let path = uri.path_and_query().map_or(uri.path(), |p| p.as_str());
    app.hits.lock().unwrap().push(path.to_string());
    next.run(req).await
}

async fn signup(State(app): State<App>, Query(q): Query<To>) -> Html<String> {
    let base = app.base.lock().unwrap().clone();
    // the plan writes the address into the query as it is, where a `+` reads as a space
    let to = q.to.replace(' ', "+");
    let raw = (app.compose)(&base, &to);
    let sent = app
        .mailer
        .send("noreply@shop.test", &to, raw.into_bytes())
        .await;
    Html(match sent {
        Ok(()) => "<h1>Check your inbox</h1>".to_string(),
        Err(e) => format!("<h1>Mail failed: {e}</h1>"),
    })
}

async fn page(req: Request) -> Html<String> {
    let path = req.uri().path().to_string();
    let said = match path.as_str() {
        p if p.starts_with("/wiki/Special:ConfirmEmail/") => "Email verified",
        p if p.starts_with("/wiki/Special:InvalidateEmail/") => "Email address invalidated",
        "/account/cancel" => "Registration cancelled",
        "/account/delete" | "/account/close" => "Account deleted",
        "/unsubscribe" => "Unsubscribed",
        _ => "Some page",
    };
    Html(format!("<h1>{said}</h1>"))
}

/// A genuine confirmation mail as MediaWiki sends it (plain text) with a link that undoes
/// below the real one: "follow this link to cancel the email address confirmation", whose
/// path says `InvalidateEmail`, plus an unsubscribe line and a `List-Unsubscribe` header.
fn confirm_beside_invalidate(base: &str, to: &str) -> String {
    let token = "8f14e45fceea167a5a36dedd4bea2543";
    format!(
        "From: Shop <noreply@shop.test>\r\nTo: {to}\r\nSubject: Email address confirmation\r\n\
         List-Unsubscribe: <{base}/unsubscribe?u=8a7d6c5b4a39281706f5>\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n\
         To confirm that this account really does belong to you, open this link in your \
         browser:\r\n\r\n{base}/wiki/Special:ConfirmEmail/{token}\r\n\r\n\
         If you did *not* register the account, follow this link\r\n\
         to cancel the email address confirmation:\r\n\r\n\
         {base}/wiki/Special:InvalidateEmail/{token}\r\n\r\n\
         Unsubscribe: {base}/unsubscribe?u=8a7d6c5b4a39281706f5\r\n"
    )
}

/// A mail whose only link confirms cancelling the registration.
fn only_cancel(base: &str, to: &str) -> String {
    format!(
        "From: Shop <noreply@shop.test>\r\nTo: {to}\r\nSubject: Confirm the cancellation\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\n\
         We received a request to cancel your registration.\r\n\r\n\
         To confirm the cancellation, open this link:\r\n\
         {base}/account/cancel?token=c4nc3lT0kenAbCdEf12\r\n"
    )
}

/// Two confirmation buttons to different places, alike in every way.
fn two_alike(base: &str, to: &str) -> String {
    format!(
        "From: Shop <noreply@shop.test>\r\nTo: {to}\r\nSubject: Confirm your email\r\n\
         Content-Type: text/html; charset=utf-8\r\n\r\n\
         <p><a class=\"button\" href=\"{base}/email/verify?store=eu&amp;token=Eu28hJq4MzXc6bNa\">\
         Confirm your email</a></p>\
         <p><a class=\"button\" href=\"{base}/email/verify?store=us&amp;token=Us28hJq4MzXc6bNa\">\
         Confirm your email</a></p>\r\n"
    )
}

/// A verification mail whose one link goes through the app's redirector to a path that
/// deletes the account: the link's words say "verify", where it leads says "delete".
fn verify_through_redirector(base: &str, to: &str) -> String {
    format!(
        "From: Shop <noreply@shop.test>\r\nTo: {to}\r\nSubject: Verify your email\r\n\
         Content-Type: text/html; charset=utf-8\r\n\r\n\
         <p>Welcome! Please confirm your address.</p>\
         <p><a class=\"button\" href=\"{base}/redir?to=/account/delete%3Fconfirm%3D1\">\
         Verify your email</a></p>\r\n"
    )
}

/// The same through a fully encoded path to "close" the account.
fn verify_through_redirector_encoded(base: &str, to: &str) -> String {
    format!(
        "From: Shop <noreply@shop.test>\r\nTo: {to}\r\nSubject: Verify your email\r\n\
         Content-Type: text/html; charset=utf-8\r\n\r\n\
         <p><a href=\"{base}/redir?to=%2Faccount%2Fclose\">Verify your email</a></p>\r\n"
    )
}

/// A verification mail whose link says nothing of where it leads; the app answers it with a
/// redirect to the path that deletes the account.
fn verify_through_opaque_redirect(base: &str, to: &str) -> String {
    format!(
        "From: Shop <noreply@shop.test>\r\nTo: {to}\r\nSubject: Verify your email\r\n\
         Content-Type: text/html; charset=utf-8\r\n\r\n\
         <p><a class=\"button\" href=\"{base}/r/Zq8xK2mN4pL7wR1tYv3B\">Verify your email</a></p>\r\n"
    )
}

fn plan(base: &str) -> Plan {
    let json = format!(
        r#"{{"reasoning":"","steps":[
        {{"type":"navigate","url":"{base}/signup?to={{{{inbox_address}}}}"}},
        {{"type":"wait_for_text","text":"Check your inbox"}},
        {{"type":"open_link_from_inbox","timeout_seconds":20}},
        {{"type":"wait_for_text","text":"Email verified","timeout_seconds":10}},
        {{"type":"done","summary":"verified"}}]}}"#
    );
    planlock::plan::parse_and_validate(&json, &Limits::default(), &Vars::default())
        .unwrap_or_else(|e| panic!("test plan is invalid: {e}\n{json}"))
}

async fn run(plan: &Plan, inbox: Arc<dyn Inbox>) -> RunResult {
    let spec = RunSpec::new(plan.clone())
        .run_id(runner::new_run_id())
        .inbox(None, inbox);
    util::run_locked(spec).await.0
}

/// No request ever reached a link that undoes something.
fn assert_nothing_undone(app: &App) {
    let hits = app.hits();
    assert!(
        !hits.iter().any(|h| [
            "/account/cancel",
            "/account/delete",
            "/account/close",
            "/unsubscribe",
            "/wiki/Special:InvalidateEmail"
        ]
        .iter()
        .any(|undo| h.starts_with(undo))),
        "an undoing link was requested: {hits:?}"
    );
}

#[test]
fn the_confirm_link_is_opened_and_never_the_cancel_or_unsubscribe_link_over_smtp() {
    if util::browser().is_none() {
        return;
    }
    util::rt().block_on(async {
        let (smtp, mailer) = util::smtp::loopback_inbox().await;
        let (app, base) = App::start(mailer, confirm_beside_invalidate).await;
        let result = run(&plan(&base), smtp.clone()).await;
        util::assert_succeeded(&result);
        let open = &result.steps[2].detail;
        assert_eq!(
            open.link.as_deref(),
            Some(
                format!("{base}/wiki/Special:ConfirmEmail/8f14e45fceea167a5a36dedd4bea2543")
                    .as_str()
            )
        );
        assert!(
            open.chosen_by.iter().any(|r| r.contains("confirm")),
            "the choice says which words decided: {:?}",
            open.chosen_by
        );
        assert_nothing_undone(&app);
        assert!(
            app.hits()
                .iter()
                .any(|h| h.starts_with("/wiki/Special:ConfirmEmail/")),
            "{:?}",
            app.hits()
        );
    });
}

#[test]
fn a_mail_whose_only_link_cancels_fails_without_requesting_it_over_imap() {
    if util::browser().is_none() {
        return;
    }
    let Some(dovecot) = Dovecot::start().map(Arc::new) else {
        return;
    };
    let url = parse_url(&dovecot.url("address=bob@inbox.test&plus=true")).unwrap();
    let inbox = util::rt().block_on(connect(&url)).unwrap();
    util::rt().block_on(async {
        let (app, base) = App::start(Arc::new(DovecotMailer(dovecot.clone())), only_cancel).await;
        let result = run(&plan(&base), inbox).await;
        assert_eq!(result.failed_step, Some(2), "{result:?}");
        let err = result.error.as_ref().expect("the step failed");
        assert_eq!(err.kind, ErrorKind::NoLink, "{}", err.message);
        assert!(
            err.message.contains("/account/cancel?token=")
                && err.message.contains("cancel")
                && err.message.contains("never opened"),
            "the failure names the refused link and why: {}",
            err.message
        );
        assert_nothing_undone(&app);
    });
}

#[test]
fn two_links_alike_to_different_places_fail_as_ambiguous_and_neither_is_opened() {
    if util::browser().is_none() {
        return;
    }
    util::rt().block_on(async {
        let (smtp, mailer) = util::smtp::loopback_inbox().await;
        let (app, base) = App::start(mailer, two_alike).await;
        let result = run(&plan(&base), smtp.clone()).await;
        assert_eq!(result.failed_step, Some(2), "{result:?}");
        let err = result.error.as_ref().expect("the step failed");
        assert_eq!(err.kind, ErrorKind::Ambiguous, "{}", err.message);
        assert!(
            err.message.contains("store=eu") && err.message.contains("store=us"),
            "the failure names both: {}",
            err.message
        );
        assert!(
            !app.hits().iter().any(|h| h.starts_with("/email/verify")),
            "{:?}",
            app.hits()
        );
    });
}

#[test]
fn a_verify_link_whose_query_carries_an_undoing_path_is_never_opened() {
    if util::browser().is_none() {
        return;
    }
    for (compose, undoing) in [
        (
            verify_through_redirector as fn(&str, &str) -> String,
            "delete",
        ),
        (verify_through_redirector_encoded, "close"),
    ] {
        util::rt().block_on(async {
            let (smtp, mailer) = util::smtp::loopback_inbox().await;
            let (app, base) = App::start(mailer, compose).await;
            let result = run(&plan(&base), smtp.clone()).await;
            assert_eq!(result.failed_step, Some(2), "{result:?}");
            let err = result.error.as_ref().expect("the step failed");
            assert_eq!(err.kind, ErrorKind::NoLink, "{}", err.message);
            assert!(
                err.message.contains("/redir?to=")
                    && err.message.contains(undoing)
                    && err.message.contains("never opened"),
                "the failure names the link and where it leads: {}",
                err.message
            );
            assert_nothing_undone(&app);
            assert!(
                !app.hits().iter().any(|h| h.starts_with("/redir")),
                "{:?}",
                app.hits()
            );
        });
    }
}

#[test]
fn a_redirect_from_an_emailed_link_to_an_undoing_path_is_refused() {
    if util::browser().is_none() {
        return;
    }
    util::rt().block_on(async {
        let (smtp, mailer) = util::smtp::loopback_inbox().await;
        let (app, base) = App::start(mailer, verify_through_opaque_redirect).await;
        let result = run(&plan(&base), smtp.clone()).await;
        assert_eq!(result.failed_step, Some(2), "{result:?}");
        let err = result.error.as_ref().expect("the step failed");
        assert_eq!(err.kind, ErrorKind::LockRefused, "{}", err.message);
        assert!(
            err.message.contains("/account/delete") && err.message.contains("\"delete\""),
            "the refusal names the hop and why: {}",
            err.message
        );
        assert!(
            app.hits().iter().any(|h| h.starts_with("/r/")),
            "the link itself was opened: {:?}",
            app.hits()
        );
        assert_nothing_undone(&app);
    });
}
