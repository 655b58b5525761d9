//! A click ends only when what it caused has answered: a page on loopback whose form is sent by
//! script and whose server mails the link BEFORE it answers, and commits only as it answers (as
//! Plone does), so a link opened before the answer finds nothing; and a click that starts a
//! request no one answers (a long poll), which must not hold the run.

use crate::util;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::{Query, State};
use axum::response::Html;
use axum::routing::get;
use planlock::demo::Mailer;
use planlock::plan::{Limits, Plan, Vars};
use planlock::runner::{self, RunResult, RunSpec, Settings};
use serde_json::Value;

/// How long the server takes to answer the registration after it mailed the link.
const ANSWER_AFTER: Duration = Duration::from_millis(1500);
/// The same for a server slower than a click step's deadline ([`SHORT_STEPS`]).
const SLOW_ANSWER_AFTER: Duration = Duration::from_secs(5);
/// A step timeout shorter than [`SLOW_ANSWER_AFTER`]: the click's own step ends before the
/// answer.
const SHORT_STEPS: Duration = Duration::from_secs(3);

/// The registration dialog's page: the form is posted by `fetch`, a spinner shows while it
/// runs, and the answer replaces the form with the server's words.
const REGISTER: &str = r#"<!doctype html><html><head><title>Register</title></head><body>
<h1>Register</h1>
<form id="register" action="/register" method="post">
  <label for="email">Email</label> <input id="email" name="email" type="email">
  <button type="submit">Register</button>
</form>
<p id="spinner" hidden>Working…</p>
<script>
document.getElementById('register').addEventListener('submit', async (e) => {
  e.preventDefault();
  document.getElementById('spinner').hidden = false;
  const body = new URLSearchParams(new FormData(e.target));
  const res = await fetch('/register', { method: 'POST', body });
  const said = await res.text();
  document.getElementById('spinner').hidden = true;
  e.target.outerHTML = '<p>' + said + '</p>';
});
</script>
</body></html>"#;

/// A page whose button starts a request that is never answered (a long poll for updates).
const LONG_POLL: &str = r#"<!doctype html><html><head><title>Updates</title></head><body>
<h1>Updates</h1>
<button id="follow">Follow updates</button>
<p id="state"></p>
<script>
document.getElementById('follow').addEventListener('click', () => {
  document.getElementById('state').textContent = 'Following updates';
  fetch('/poll').then(r => r.text()).then(t => {
    document.getElementById('state').textContent = t;
  });
});
</script>
</body></html>"#;

/// The app: what it recorded, in order (`mailed`, `committed`, `opened committed` or `opened
/// before the commit`), and its mailer.
#[derive(Clone)]
struct App {
    records: Arc<Mutex<Vec<String>>>,
    committed: Arc<Mutex<Vec<String>>>,
    mailer: Arc<dyn Mailer>,
    base: Arc<Mutex<String>>,
    answer_after: Duration,
    /// The registration's first attempt mails a link and is rolled back, as a site whose
    /// database retries a conflicting transaction does (Zope's under concurrent sign-ups).
    retried: bool,
}

#[derive(serde::Deserialize)]
struct Token {
    token: String,
}

#[derive(serde::Deserialize)]
struct Registration {
    email: String,
}

impl App {
    async fn start(
        mailer: Arc<dyn Mailer>,
        answer_after: Duration,
        retried: bool,
    ) -> (App, String) {
        let app = App {
            records: Arc::default(),
            committed: Arc::default(),
            mailer,
            base: Arc::default(),
            answer_after,
            retried,
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        *app.base.lock().unwrap() = base.clone();
        let router = Router::new()
            .route("/register", get(|| async { Html(REGISTER) }).post(register))
            .route("/confirm", get(confirm))
            .route("/updates", get(|| async { Html(LONG_POLL) }))
            .route(
                "/poll",
                get(|| async {
                    tokio::time::sleep(Duration::from_secs(3600)).await;
                    "never"
                }),
            )
            .with_state(app.clone());
        tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
        (app, base)
    }

    fn records(&self) -> Vec<String> {
        self.records.lock().unwrap().clone()
    }

    fn record(&self, what: &str) {
        self.records.lock().unwrap().push(what.to_string());
    }
}

/// Mails the link at once (as Plone does, `immediate=True`), and commits the token only as it
/// answers, the app's `answer_after` later.
async fn register(
    State(app): State<App>,
    axum::extract::Form(form): axum::extract::Form<Registration>,
) -> Html<String> {
    if app.retried {
        // A first attempt that mailed its link and then lost a conflict: rolled back, its
        // token never committed; the retry below mails again.
        let _ = mail_link(&app, &form.email).await;
        app.record("rolled back");
    }
    let (token, sent) = mail_link(&app, &form.email).await;
    app.record("mailed");
    tokio::time::sleep(app.answer_after).await;
    app.committed.lock().unwrap().push(token);
    app.record("committed");
    Html(match sent {
        Ok(()) => "A link to set your password is on its way.".to_string(),
        Err(e) => format!("Mail failed: {e}"),
    })
}

/// Mails a link with a fresh token to `to`: the token, and whether the mail went.
async fn mail_link(app: &App, to: &str) -> (String, Result<(), String>) {
    let token = format!("{:016x}", rand_token());
    let base = app.base.lock().unwrap().clone();
    let raw = format!(
        "From: Site <noreply@site.test>\r\nTo: {to}\r\nSubject: Set your password\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\n\
         Welcome! To set your password, open this link:\r\n\r\n\
         {base}/confirm?token={token}\r\n"
    );
    let sent = app
        .mailer
        .send("noreply@site.test", to, raw.into_bytes())
        .await;
    (token, sent)
}

async fn confirm(State(app): State<App>, Query(q): Query<Token>) -> Html<&'static str> {
    if app.committed.lock().unwrap().contains(&q.token) {
        app.record("opened committed");
        Html("<h1>Set your password</h1>")
    } else {
        app.record("opened before the commit");
        Html("<h1>Error</h1><p>Sorry, this appears to be an invalid request.</p>")
    }
}

fn rand_token() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(std::time::SystemTime::now())
}

/// Navigates to the registration page, registers the run's address, opens the emailed link and
/// checks what the page it opens says.
const REGISTER_PLAN: &str = r#"{"reasoning":"","steps":[
    {"type":"navigate","url":"{BASE}/register"},
    {"type":"fill","describe":"the Email field","label":"Email","value":"{{inbox_address}}"},
    {"type":"click","describe":"the Register button","text":"Register"},
    {"type":"open_link_from_inbox","describe":"the link to set the password"},
    {"type":"wait_for_text","text":"Set your password"},
    {"type":"done","summary":"registered"}]}"#;

fn plan(json: &str, base: &str) -> Plan {
    let json = json.replace("{BASE}", base);
    planlock::plan::parse_and_validate(&json, &Limits::default(), &Vars::default())
        .unwrap_or_else(|e| panic!("test plan is invalid: {e}\n{json}"))
}

fn dump(result: &RunResult) -> String {
    serde_json::to_string_pretty(result).unwrap()
}

/// Step `i`'s click effect, as the event log has it.
fn effect(result: &RunResult, i: usize) -> Value {
    serde_json::to_value(&result.steps[i].detail).unwrap()["effect"].clone()
}

/// What the site records when the run opened the link once the registration was committed.
const OPENED_AFTER_THE_COMMIT: &[&str] = &["mailed", "committed", "opened committed"];

/// An app as [`App::start`] makes it, registered through with [`REGISTER_PLAN`] and
/// `settings`: the run succeeded, and the site's records are `records` (the link opened after
/// the commit). The result, and the site's origin.
async fn registered(
    answer_after: Duration,
    retried: bool,
    settings: Settings,
    records: &[&str],
) -> (RunResult, String) {
    let (smtp, mailer) = util::smtp::loopback_inbox().await;
    let (app, base) = App::start(mailer, answer_after, retried).await;
    let spec = RunSpec::new(plan(REGISTER_PLAN, &base))
        .run_id(runner::new_run_id())
        .inbox(None, smtp.clone())
        .settings(settings);
    let (result, _) = util::run_locked(spec).await;
    assert_eq!(
        app.records(),
        records,
        "the site's records: the link was opened after the commit\n{}",
        dump(&result)
    );
    util::assert_succeeded(&result);
    (result, base)
}

/// The inbox step (step 4) waited for the registration to be answered, and says so.
fn assert_inbox_step_waited_for_the_answer(result: &RunResult, base: &str) {
    let open = serde_json::to_value(&result.steps[3].detail).unwrap();
    assert!(
        open["answers"]["answered"]
            .to_string()
            .contains(&format!("POST {base}/register")),
        "the inbox step waited for it and says so: {open:#}"
    );
}

#[test]
fn an_emailed_link_is_opened_only_after_the_click_that_sent_the_form_was_answered() {
    if util::browser().is_none() {
        return;
    }
    util::rt().block_on(async {
        let (result, base) = registered(
            ANSWER_AFTER,
            false,
            Settings::default(),
            OPENED_AFTER_THE_COMMIT,
        )
        .await;
        let effect = effect(&result, 2);
        let answered = effect["answers"]["answered"].to_string();
        assert!(
            answered.contains(&format!("POST {base}/register")),
            "the click says what it waited for: {effect:#}"
        );
        let said = effect["answers"]["said"].as_str().unwrap_or_default();
        assert!(
            said.starts_with("waited ") && said.ends_with("/register to be answered"),
            "{said}"
        );
        let waited = effect["answers"]["waited_ms"].as_u64().unwrap_or_default();
        assert!(
            waited >= 1000,
            "it waited for the answer, which came {ANSWER_AFTER:?} after the request: {waited} ms"
        );
    });
}

#[test]
fn a_request_the_click_started_that_is_never_answered_does_not_hold_the_step() {
    if util::browser().is_none() {
        return;
    }
    util::rt().block_on(async {
        let (_smtp, mailer) = util::smtp::loopback_inbox().await;
        let (_app, base) = App::start(mailer, ANSWER_AFTER, false).await;
        let plan = plan(
            r#"{"reasoning":"","steps":[
            {"type":"navigate","url":"{BASE}/updates"},
            {"type":"click","describe":"the Follow updates button","text":"Follow updates"},
            {"type":"wait_for_text","text":"Following updates"},
            {"type":"done","summary":"following"}]}"#,
            &base,
        );
        let step_timeout = Duration::from_secs(60);
        let spec = RunSpec::new(plan)
            .run_id(runner::new_run_id())
            .settings(Settings {
                step_timeout,
                ..Settings::default()
            });
        let (result, _) = util::run_locked(spec).await;
        util::assert_succeeded(&result);
        let effect = effect(&result, 1);
        let unanswered = effect["answers"]["unanswered"].to_string();
        assert!(
            unanswered.contains(&format!("GET {base}/poll")),
            "the click says what was still unanswered: {effect:#}"
        );
        let click = &result.steps[1];
        assert!(
            Duration::from_millis(click.duration_ms) < step_timeout / 2,
            "the click ended at its bound for answers, not at its deadline: {} ms",
            click.duration_ms
        );
    });
}

#[test]
fn an_inbox_step_after_a_click_whose_deadline_came_first_waits_for_the_answer_before_the_mail() {
    if util::browser().is_none() {
        return;
    }
    util::rt().block_on(async {
        // Steps of 3 s: the click's own step ends before the answer (5 s); the inbox step has
        // its own 120 s.
        let short = Settings {
            step_timeout: SHORT_STEPS,
            ..Settings::default()
        };
        let (result, base) =
            registered(SLOW_ANSWER_AFTER, false, short, OPENED_AFTER_THE_COMMIT).await;
        let click = effect(&result, 2);
        assert!(
            click["answers"]["unanswered"]
                .to_string()
                .contains(&format!("POST {base}/register"))
                && click["answers"]["said"]
                    .as_str()
                    .unwrap_or_default()
                    .ends_with("(the step's deadline came first)"),
            "the click's step ended at its deadline, unanswered: {click:#}"
        );
        assert_inbox_step_waited_for_the_answer(&result, &base);
    });
}

#[test]
fn an_inbox_step_waits_past_the_clicks_bound_for_a_slow_submission_before_the_mail() {
    if util::browser().is_none() {
        return;
    }
    util::rt().block_on(async {
        // A busy site: it mails at once and answers (commits) only after the click's bound for
        // answers has passed, so the click's own step ends first.
        let slower = planlock::browser::ANSWER_BOUND + Duration::from_secs(2);
        let (result, base) =
            registered(slower, false, Settings::default(), OPENED_AFTER_THE_COMMIT).await;
        let click = effect(&result, 2);
        assert!(
            click["answers"]["unanswered"]
                .to_string()
                .contains(&format!("POST {base}/register")),
            "the click's step ended at its bound, unanswered: {click:#}"
        );
        assert_inbox_step_waited_for_the_answer(&result, &base);
    });
}

#[test]
fn of_two_copies_of_a_mail_the_newest_is_opened() {
    if util::browser().is_none() {
        return;
    }
    util::rt().block_on(async {
        let kept = ["rolled back", "mailed", "committed", "opened committed"];
        let (result, _) = registered(ANSWER_AFTER, true, Settings::default(), &kept).await;
        let open = serde_json::to_value(&result.steps[3].detail).unwrap();
        assert_eq!(
            open["email_older_copies"], 1,
            "the step says it set an older copy aside: {open:#}"
        );
    });
}
