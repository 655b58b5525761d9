//! The locator against real third-party UI code: pages built from stock npm packages (Material
//! UI, Shoelace, Bootstrap, vanilla-cookieconsent) and two stock server-rendered auth apps from
//! PyPI (Django's contrib.auth with django-registration-redux, Flask-AppBuilder), each driven
//! by a committed plan in `fixtures/corpus/plans/` through the real runner on real Chromium.
//! `fixtures/corpus/install` puts the packages in place; outside CI a missing install skips.
//! The servers here are also what `blind.rs` runs the blind plans against.

use crate::util;

#[path = "../../examples/support/replay.rs"]
mod replay;

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::Path as UrlPath;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use planlock::error::ErrorKind;
use planlock::lock::Lock;
use planlock::plan::{self, Limits, Plan, Vars};
use planlock::runner::{RunResult, RunSpec, RunStatus};
use serde_json::Value;

pub(crate) fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/corpus")
}

/// True when the corpus is installed; else a note (or, in CI, a failure).
pub(crate) fn installed() -> bool {
    static READY: LazyLock<bool> = LazyLock::new(|| {
        let check = Command::new(corpus_dir().join("install"))
            .arg("--check")
            .output();
        let ok = check.as_ref().is_ok_and(|o| o.status.success());
        if !ok {
            let why = match &check {
                Ok(o) => String::from_utf8_lossy(&o.stderr).trim().to_string(),
                Err(e) => e.to_string(),
            };
            if util::in_ci() {
                panic!("CI=true but the locator corpus is not installed: {why}");
            }
            eprintln!("skipping: the locator corpus is not installed ({why})");
        }
        ok
    });
    *READY
}

macro_rules! need_corpus {
    () => {
        if util::browser().is_none() || !installed() {
            return;
        }
    };
}

/// The front-end pages of the corpus, shared by the tests here.
fn web() -> &'static str {
    static WEB: LazyLock<CorpusWeb> = LazyLock::new(CorpusWeb::start);
    &WEB.url
}

/// The front-end pages and their packages, served from `fixtures/corpus/web` on a loopback
/// port of its own, and the success states its pages reported reaching.
pub(crate) struct CorpusWeb {
    pub url: String,
    reached: Arc<Mutex<Vec<Reached>>>,
    server: tokio::task::JoinHandle<()>,
}

impl Drop for CorpusWeb {
    fn drop(&mut self) {
        self.server.abort();
    }
}

/// One success state a page reported (`POST /__reached/FLOW` with a JSON object): its flow
/// (`PAGE/STATE`) and what the page held when it got there.
#[derive(Debug, Clone)]
pub(crate) struct Reached {
    pub flow: String,
    pub facts: serde_json::Map<String, Value>,
}

impl CorpusWeb {
    /// Serves until dropped.
    pub fn start() -> CorpusWeb {
        let listener = util::rt()
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .expect("bind the corpus server");
        let addr = listener.local_addr().expect("addr");
        let reached = Arc::new(Mutex::new(Vec::new()));
        let log = reached.clone();
        let app = Router::new()
            .route(
                "/__reached/{*flow}",
                post(
                    move |UrlPath(flow): UrlPath<String>, body: String| async move {
                        let facts = serde_json::from_str(&body).unwrap_or_default();
                        log.lock().unwrap().push(Reached { flow, facts });
                        StatusCode::NO_CONTENT
                    },
                ),
            )
            .route(
                "/{*path}",
                get(|UrlPath(path): UrlPath<String>| async move { static_file(&path) }),
            );
        let server = util::rt().spawn(async move {
            axum::serve(listener, app)
                .await
                .expect("serve the corpus pages");
        });
        CorpusWeb {
            url: format!("http://{addr}"),
            reached,
            server,
        }
    }

    /// Every success state reported so far, oldest first.
    pub fn reached(&self) -> Vec<Reached> {
        self.reached.lock().unwrap().clone()
    }
}

pub(crate) fn static_file(path: &str) -> Response {
    if path.split('/').any(|part| part == "..") {
        return StatusCode::BAD_REQUEST.into_response();
    }
    let root = corpus_dir().join("web");
    match std::fs::read(root.join(path)) {
        Ok(bytes) => {
            let ty = match path.rsplit('.').next() {
                Some("html") => "text/html; charset=utf-8",
                Some("js" | "mjs") => "text/javascript",
                Some("css") => "text/css",
                Some("svg") => "image/svg+xml",
                Some("json") => "application/json",
                Some("woff2") => "font/woff2",
                _ => "application/octet-stream",
            };
            ([(header::CONTENT_TYPE, ty)], bytes).into_response()
        }
        Err(_) => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

/// A Python app of the corpus, on a free loopback port, stopped (by its PID) on drop.
pub(crate) struct App {
    child: Child,
    pub url: String,
    /// Its SQLite database.
    pub db: PathBuf,
    /// Where its stderr goes (the servers log each request there).
    log: PathBuf,
    _data: tempfile::TempDir,
}

impl App {
    /// What the app has logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The mails the app has sent so far (the Django site writes each to a file in
    /// `mail/`), oldest first.
    pub fn mails(&self) -> Vec<String> {
        let dir = self._data.path().join("mail");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        files.sort();
        files
            .iter()
            .filter_map(|f| std::fs::read_to_string(f).ok())
            .collect()
    }
}

impl Drop for App {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) fn python() -> PathBuf {
    corpus_dir().join("py/.venv/bin/python")
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

/// Starts `args` (after the venv's python) with its database at `db` (in `data`) named by
/// the variable `db_var`, and waits until it accepts connections.
fn start_app(
    name: &str,
    args: &[&str],
    (db_var, db): (&str, PathBuf),
    port: u16,
    data: tempfile::TempDir,
) -> App {
    let log = data.path().join("server.log");
    let stderr = std::fs::File::create(&log).expect("create the app's log");
    let child = Command::new(python())
        .args(args)
        .current_dir(corpus_dir().join("py"))
        .env(db_var, &db)
        .env("CORPUS_DJANGO_MAIL", data.path().join("mail"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start the {name} app: {e}"));
    let mut app = App {
        child,
        url: format!("http://127.0.0.1:{port}"),
        db,
        log,
        _data: data,
    };
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let started = Instant::now();
    while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
        if let Ok(Some(status)) = app.child.try_wait() {
            panic!(
                "the {name} app exited ({status}) before it listened: {}",
                app.log()
            );
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the {name} app did not listen on {addr} within 60 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    app
}

/// The Django project: a fresh database, migrated, then the dev server.
pub(crate) fn django() -> App {
    let data = tempfile::tempdir().expect("tempdir");
    let db = data.path().join("db.sqlite3");
    let migrate = Command::new(python())
        .args(["django_site/manage.py", "migrate", "--noinput"])
        .current_dir(corpus_dir().join("py"))
        .env("CORPUS_DJANGO_DB", &db)
        .output()
        .expect("run Django's migrate");
    assert!(
        migrate.status.success(),
        "Django's migrate failed: {}",
        String::from_utf8_lossy(&migrate.stderr)
    );
    let port = free_port();
    let bind = format!("127.0.0.1:{port}");
    start_app(
        "Django",
        &["django_site/manage.py", "runserver", &bind, "--noreload"],
        ("CORPUS_DJANGO_DB", db),
        port,
        data,
    )
}

/// The Flask-AppBuilder app, with its own database and its one user.
pub(crate) fn flask_appbuilder() -> App {
    let data = tempfile::tempdir().expect("tempdir");
    let db = data.path().join("fab.db");
    let port = free_port();
    start_app(
        "Flask-AppBuilder",
        &["fab_app/app.py", &port.to_string()],
        ("CORPUS_FAB_DB", db),
        port,
        data,
    )
}

/// Loads `fixtures/corpus/plans/NAME.json`, validated with the corpus's variables.
fn corpus_plan(name: &str, vars: &Vars) -> Plan {
    let path = corpus_dir().join("plans").join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    plan::parse_and_validate(&text, &Limits::default(), vars)
        .unwrap_or_else(|e| panic!("{} is invalid: {e}", path.display()))
}

fn vars(pairs: &[(&str, &str)]) -> Vars {
    Vars::from_pairs(pairs.iter().map(|(k, v)| format!("{k}={v}"))).expect("corpus variables")
}

/// Runs a corpus plan in a fresh context of the shared browser; the lock allows loopback only.
fn run_plan(name: &str, pairs: &[(&str, &str)]) -> RunResult {
    let vars = vars(pairs);
    let plan = corpus_plan(name, &vars);
    util::run_spec(RunSpec::new(plan).named(name).vars(vars)).0
}

fn run_web(name: &str) -> RunResult {
    run_plan(name, &[("corpus", web())])
}

/// A step's facts as the event log shows them.
fn detail(result: &RunResult, step: usize) -> Value {
    serde_json::to_value(&result.steps[step].detail).expect("a step's detail is JSON")
}

fn element(result: &RunResult, step: usize) -> String {
    detail(result, step)["element"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Asserts how the locator chose at `step`: the rule that decided and how many matched.
fn assert_choice(result: &RunResult, step: usize, decided_by: &str, candidates: u64) {
    let d = detail(result, step);
    assert_eq!(d["decided_by"], decided_by, "step {step}: {d:#}");
    assert_eq!(d["candidates"], candidates, "step {step}: {d:#}");
}

#[test]
fn every_corpus_plan_is_valid() {
    let vars = vars(&[
        ("corpus", "http://127.0.0.1:1"),
        ("django", "http://127.0.0.1:2"),
        ("fab", "http://127.0.0.1:3"),
        (
            "link",
            "http://127.0.0.1:2/allauth/password/reset/key/1-set-password/",
        ),
    ]);
    let mut seen = 0;
    for entry in std::fs::read_dir(corpus_dir().join("plans")).expect("list corpus plans") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "json") {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            corpus_plan(&name, &vars);
            seen += 1;
        }
    }
    assert!(seen >= 10, "only {seen} corpus plans");
}

// ---- Bootstrap: a site menu and a form sharing "Sign Up" ----

/// `scripts/bench --explain CASE` on the Bootstrap sign-up: before each step, every candidate
/// and what each rule kept, the deciding rule marked, and the choice the same as the run's.
#[test]
fn explain_prints_each_rule_and_the_one_that_decided() {
    need_corpus!();
    let vars = vars(&[("corpus", web())]);
    let plan = replay::render(&corpus_plan("bootstrap-signup", &vars), &vars);
    let browser = util::browser().expect("a browser");
    let replayed = util::rt().block_on(async {
        let lock = Lock::of_hosts(["127.0.0.1"]).expect("a lock");
        let tab = browser.new_tab(lock).await.expect("a tab");
        let replayed = replay::replay(&tab, &plan, true).await;
        browser.close_tab(tab).await;
        replayed
    });
    let said = replayed.explained;
    assert_eq!(replayed.error, None, "{said}");
    let step = |n: usize| {
        let start = said
            .find(&format!("step {n} "))
            .expect("the step is explained");
        let end = said[start..]
            .find(&format!("step {} ", n + 1))
            .map_or(said.len(), |e| start + e);
        &said[start..end]
    };
    // "Sign Up": the menu's link, the form's button and the footer's link all match exactly;
    // `ugc` keeps the three, `form` the button of the form just filled, and decides.
    let click = step(6);
    assert!(click.contains("candidates: 3"), "{click}");
    assert!(
        click.contains("*[1] <button.btn.btn-primary> \"sign up\""),
        "{click}"
    );
    assert!(click.contains("ugc          kept [0, 1, 2]\n"), "{click}");
    assert!(
        click.contains("form         kept [1]  <- decided"),
        "{click}"
    );
    assert!(click.contains("decided_by form"), "{click}");
    // "Password": exact for one field, the start of "Password again".
    let fill = step(3);
    assert!(fill.contains("*[0] <input#password>"), "{fill}");
    assert!(fill.contains("[1] <input#password2>"), "{fill}");
    assert!(fill.contains("exact        kept [0]  <- decided"), "{fill}");
}

#[test]
fn bootstrap_sign_up_clicks_the_form_button_not_the_menu_link() {
    need_corpus!();
    let result = run_web("bootstrap-signup");
    util::assert_succeeded(&result);
    // Menu link, form button and footer link all say "Sign Up"; the form of the password the
    // run just typed holds the button.
    assert_choice(&result, 5, "form", 3);
    assert!(
        element(&result, 5).starts_with("<button.btn.btn-primary>"),
        "{}",
        element(&result, 5)
    );
    let d = detail(&result, 5);
    let runners: Vec<&str> = d["runners_up"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["landmark"].as_str().unwrap())
        .collect();
    assert_eq!(runners, ["nav", "footer"]);
    // "Password" is exact for one field and a substring of "Password again".
    assert_choice(&result, 2, "exact", 2);
    assert_eq!(element(&result, 2), "<input#password>");
}

#[test]
fn bootstrap_sign_up_link_when_the_plan_asks_for_a_link() {
    need_corpus!();
    let result = run_web("bootstrap-menu-link");
    util::assert_succeeded(&result);
    // The footer's link ranks below the other two by `margin` (a footer is fine print, where
    // others' words may stand); the menu's link beats the form's button by role.
    assert_choice(&result, 1, "role", 3);
    assert_eq!(detail(&result, 1)["runners_up"][1]["landmark"], "footer");
    assert_eq!(detail(&result, 1)["ambiguous"], false);
    assert!(element(&result, 1).starts_with("<a.btn.btn-outline-primary>"));
}

#[test]
fn bootstrap_pricing_link_in_main_content_beats_the_menu() {
    need_corpus!();
    let result = run_web("bootstrap-pricing");
    util::assert_succeeded(&result);
    assert_choice(&result, 1, "landmark", 2);
    assert_eq!(detail(&result, 1)["runners_up"][0]["landmark"], "nav");
    assert_eq!(detail(&result, 1)["ambiguous"], false);
}

// ---- Material UI: tabs, floating labels, icon buttons, hidden checkbox, dialogs, wizard ----

#[test]
fn mui_sign_in_tab_then_sign_in_submit() {
    need_corpus!();
    let result = run_web("mui-signin");
    util::assert_succeeded(&result);
    // Before anything is filled, "the Sign in tab" is the tab (by role), not the submit button
    // (the page's "Sign in" heading is no candidate for a tab).
    assert_choice(&result, 1, "role", 2);
    assert!(
        element(&result, 1).contains("MuiTab-root"),
        "{}",
        element(&result, 1)
    );
    // Floating labels reach their inputs.
    assert_eq!(detail(&result, 2)["strategy"], "label");
    assert_eq!(detail(&result, 3)["strategy"], "label");
    // An icon-only button, named by aria-label.
    assert!(
        element(&result, 4).contains("MuiIconButton-root"),
        "{}",
        element(&result, 4)
    );
    // The checkbox's real input is invisible: its label is clicked.
    assert!(
        element(&result, 5).starts_with("<label.MuiFormControlLabel-root"),
        "{}",
        element(&result, 5)
    );
    // After the password, "Sign in" is the submit button of that form, not the tab.
    assert_choice(&result, 6, "form", 2);
    assert!(
        element(&result, 6).contains("MuiButton-root"),
        "{}",
        element(&result, 6)
    );
}

#[test]
fn mui_create_account_tab_then_submit() {
    need_corpus!();
    let result = run_web("mui-create-account");
    util::assert_succeeded(&result);
    assert_choice(&result, 1, "only", 1);
    assert_choice(&result, 4, "form", 2);
    assert!(element(&result, 4).contains("MuiButton-root"));
}

#[test]
fn mui_wizard_steps_select_and_confirmation_dialog() {
    need_corpus!();
    let result = run_web("mui-wizard");
    util::assert_succeeded(&result);
    // The option of MUI's own select (a listbox, not a <select>).
    assert!(
        element(&result, 6).contains("MuiMenuItem-root"),
        "{}",
        element(&result, 6)
    );
    // The dialog repeats "Create workspace": the page's button is behind the modal, and the
    // dialog's title "Create workspace?" is a heading, no candidate for a button.
    let d = detail(&result, 9);
    assert_eq!(d["behind_modal"], 1, "{d:#}");
    assert_eq!(d["candidates"], 1, "{d:#}");
    assert_eq!(d["chosen"]["role"], "button", "{d:#}");
}

/// The wizard's last "Create workspace" only opens MUI's confirmation dialog (a submission
/// that sends nothing): a run that ends there, its guessed check missing, has not created the
/// workspace, and says so instead of reporting success (a blind plan did exactly this).
#[test]
fn mui_wizard_left_at_its_confirmation_dialog_fails_as_form_not_sent() {
    need_corpus!();
    let text = r#"{"reasoning": "", "steps": [
        {"type": "navigate", "url": "{{corpus}}/pages/mui-wizard.html"},
        {"type": "fill", "describe": "the Work email field", "label": "Work email", "value": "linus@acme.test"},
        {"type": "fill", "describe": "the Password field", "label": "Password", "value": "penguin-1991"},
        {"type": "click", "describe": "the Next button", "text": "Next"},
        {"type": "fill", "describe": "the Full name field", "label": "Full name", "value": "Linus T"},
        {"type": "click", "describe": "the Next button", "text": "Next"},
        {"type": "click", "describe": "the Create workspace button", "text": "Create workspace"},
        {"type": "wait_for_text", "text": "created", "criticality": "could"},
        {"type": "done", "summary": "Workspace created."}]}"#;
    let vars = vars(&[("corpus", web())]);
    let plan = plan::parse_and_validate(text, &Limits::default(), &vars).expect("a valid plan");
    let result = util::run_spec(RunSpec::new(plan).vars(vars)).0;
    assert_eq!(result.status, RunStatus::Failed, "{result:?}");
    assert_eq!(result.failed_step, Some(8), "{result:?}");
    let err = result.error.unwrap();
    assert_eq!(err.kind, ErrorKind::FormNotSent);
    assert!(
        err.message.starts_with(
            "the run reached its end, but the form step 7 submitted was not sent: the page \
             asks \"create workspace?\" in a dialog, and no step answered it; step 7 clicked \
             the button \"create workspace\""
        ),
        "{}",
        err.message
    );
}

#[test]
fn mui_dialog_form_and_close_icon() {
    need_corpus!();
    let result = run_web("mui-dialog");
    util::assert_succeeded(&result);
    assert_eq!(detail(&result, 3)["behind_modal"], 1);
    let result = run_web("mui-dialog-close");
    util::assert_succeeded(&result);
    assert!(
        element(&result, 3).contains("MuiIconButton-root"),
        "{}",
        element(&result, 3)
    );
    // Once closed, the opener is reachable again.
    assert!(detail(&result, 5)["behind_modal"].is_null());
}

#[test]
fn a_dialog_still_fading_in_fails_as_animating() {
    need_corpus!();
    let result = run_web("mui-dialog-slow");
    assert_eq!(result.status, RunStatus::Failed);
    assert_eq!(result.failed_step, Some(2));
    let err = result.error.unwrap();
    assert_eq!(err.kind, ErrorKind::NotActionable);
    assert!(
        err.message.contains("\"subscribe\" is still animating"),
        "{}",
        err.message
    );
}

// ---- Shoelace: inputs in shadow DOM labelled by an attribute ----

#[test]
fn shoelace_labels_in_shadow_roots_and_the_form_button() {
    need_corpus!();
    let result = run_web("shoelace-signup");
    util::assert_succeeded(&result);
    for step in [1, 2] {
        assert_eq!(detail(&result, step)["strategy"], "label");
        assert!(
            element(&result, step).starts_with("<input#input> in <sl-input>"),
            "{}",
            element(&result, step)
        );
    }
    assert!(
        element(&result, 3).contains("in <sl-checkbox>"),
        "{}",
        element(&result, 3)
    );
    assert_choice(&result, 4, "form", 2);
}

#[test]
fn shoelace_selectors_on_hosts_reach_the_inner_controls() {
    need_corpus!();
    let result = run_web("shoelace-selectors");
    util::assert_succeeded(&result);
    assert_eq!(detail(&result, 1)["strategy"], "selector");
    assert!(
        element(&result, 1).starts_with("<input#input> in <sl-input>"),
        "{}",
        element(&result, 1)
    );
}

#[test]
fn a_fill_aimed_at_a_button_fails_naming_it() {
    need_corpus!();
    let result = run_web("shoelace-fill-a-button");
    assert_eq!(result.status, RunStatus::Failed);
    let err = result.error.unwrap();
    assert_eq!(err.kind, ErrorKind::NotActionable);
    assert!(
        err.message
            .contains("<sl-button> \"sign up\" is not editable"),
        "{}",
        err.message
    );
}

// ---- vanilla-cookieconsent: a banner over the submit button ----

#[test]
fn cookie_banner_answered_first() {
    need_corpus!();
    let result = run_web("cookie-banner-accept");
    util::assert_succeeded(&result);
}

#[test]
fn cookie_banner_covering_the_submit_fails_naming_the_banner() {
    need_corpus!();
    let result = run_web("cookie-banner-blocked");
    assert_eq!(result.status, RunStatus::Failed);
    assert_eq!(result.failed_step, Some(4));
    let err = result.error.clone().unwrap();
    assert_eq!(err.kind, ErrorKind::NotActionable);
    assert!(
        err.message
            .contains("\"join the waitlist\" is covered by <div#cc-main> \"we use cookies"),
        "{}",
        err.message
    );
    // The click's own timeout_seconds (2 s), not the 10 s default.
    let took = result.steps[4].duration_ms;
    assert!((2000..6000).contains(&took), "the click waited {took} ms");
}

// ---- Stock server-rendered auth apps ----

#[test]
fn flask_appbuilder_sign_in_named_without_a_role_prefers_the_interactive_match() {
    need_corpus!();
    let app = flask_appbuilder();
    let result = run_plan("fab-sign-in-by-text", &[("fab", &app.url)]);
    // Nothing filled, no role named, both in main content: the submit input beats the
    // panel title because it is interactive. Its form's fields are required, so the browser
    // does not send it, and the click says so at once, naming the fields.
    assert_eq!(
        result.failed_step,
        Some(1),
        "{}",
        serde_json::to_string_pretty(&result).unwrap()
    );
    let error = result.error.clone().unwrap();
    assert_eq!(error.kind, planlock::error::ErrorKind::FormNotSent);
    assert!(
        error.message.starts_with(
            "clicked <input.btn.btn-primary> \"sign in\", but the browser did not send its form:"
        ) && error.message.contains("\"Username\"")
            && error.message.contains("\"Password\""),
        "{}",
        error.message
    );
}

#[test]
fn django_registration_then_log_in_with_the_form_button() {
    need_corpus!();
    let app = django();
    let result = run_plan("django-register-login", &[("django", &app.url)]);
    util::assert_succeeded(&result);
    // "Password:" is exact; "Password confirmation:" only contains it.
    assert_choice(&result, 3, "exact", 2);
    assert_eq!(element(&result, 3), "<input#id_password1>");
    // The menu's "Log in" link; the welcome text that mentions logging in is a paragraph, no
    // candidate for a link.
    assert_choice(&result, 8, "only", 1);
    // Then the menu link and the form's submit both say "Log in": the form's wins.
    assert_choice(&result, 11, "form", 2);
    assert_eq!(element(&result, 11), "<input> \"log in\"");
    assert_eq!(detail(&result, 11)["runners_up"][0]["landmark"], "nav");
}

#[test]
fn flask_appbuilder_sign_in() {
    need_corpus!();
    let app = flask_appbuilder();
    let result = run_plan("fab-login", &[("fab", &app.url)]);
    util::assert_succeeded(&result);
    // The panel title "Sign In" (plain text) is no candidate for "the Sign In button": the
    // submit input is the only one.
    assert_choice(&result, 3, "only", 1);
    assert!(
        element(&result, 3).starts_with("<input.btn.btn-primary>"),
        "{}",
        element(&result, 3)
    );
}

// ---- The one-time code when the plan's selector finds no field ----

#[test]
fn a_code_selector_that_matches_nothing_falls_back_to_the_boxes_the_page_shows() {
    use std::sync::Arc;

    use planlock::demo::{self, DemoSite, SmtpMailer};
    use planlock::inbox::smtp::SmtpInbox;

    if util::browser().is_none() {
        return;
    }
    let (_, signup) = demo::bundled_plans()
        .into_iter()
        .find(|(n, _)| *n == "signup")
        .expect("the demo's signup plan");
    // The plan guessed `#otp-code`; the shop renders six single-character boxes instead.
    let mut steps = signup.steps.clone();
    let otp = steps
        .iter()
        .position(|s| s.kind() == "use_otp_from_inbox")
        .expect("an OTP step");
    steps[otp] = serde_json::from_value(serde_json::json!({
        "type": "use_otp_from_inbox", "selector": "#otp-code"
    }))
    .unwrap();
    let plan = Plan { steps, ..signup };
    let result = util::rt().block_on(async {
        let smtp = SmtpInbox::start(
            SocketAddr::from(([127, 0, 0, 1], 0)),
            demo::DEMO_MAIL_DOMAIN,
        )
        .await
        .unwrap();
        let site = DemoSite::start(Arc::new(SmtpMailer::new(smtp.local_addr())))
            .await
            .unwrap();
        let vars = Vars::from_pairs([
            format!("base_url={}", site.url("")),
            "password=pw-123456".into(),
        ])
        .unwrap();
        let spec = RunSpec::new(plan).vars(vars).inbox(None, smtp);
        util::run_locked(spec).await.0
    });
    util::assert_succeeded(&result);
    let d = detail(&result, otp);
    assert_eq!(d["strategy"], "fallback", "{d:#}");
    assert_eq!(d["fallback"], "boxes", "{d:#}");
    assert_eq!(d["boxes"], 6, "{d:#}");
    assert!(
        d["element"].as_str().unwrap().starts_with("<input.otp>"),
        "{d:#}"
    );
}

// ---- Stock set-password pages and headings that say a button's words ----

/// The password-reset link in the last mail `app` sent.
fn reset_link(app: &App) -> String {
    let mails = app.mails();
    let mail = mails.last().expect("the app sent a mail");
    mail.split_whitespace()
        .find(|w| w.starts_with("http://") && w.contains("/password/reset/key/"))
        .unwrap_or_else(|| panic!("no reset link in the mail: {mail}"))
        .to_string()
}

#[test]
fn allauth_password_reset_heading_then_set_password_page() {
    need_corpus!();
    let app = django();
    // "the Password Reset submit button": the page's <h1> says "Password Reset", its one
    // button "Reset My Password". The button is pressed, and the app sends the mail.
    let result = run_plan("allauth-password-reset", &[("django", &app.url)]);
    util::assert_succeeded(&result);
    let d = detail(&result, 9);
    assert_eq!(d["chosen"]["role"], "button", "{d:#}");
    assert_eq!(d["chosen"]["text"], "reset my password", "{d:#}");
    let link = reset_link(&app);
    // allauth's set-password form: "New Password" and "New Password (again)", its submit
    // button named "action" (which makes `form.action` that button in the page's DOM).
    let result = run_plan(
        "allauth-set-password",
        &[("django", &app.url), ("link", &link)],
    );
    util::assert_succeeded(&result);
    assert_eq!(element(&result, 1), "<input#id_password1>");
    assert_eq!(detail(&result, 1)["decided_by"], "exact");
    assert_eq!(element(&result, 2), "<input#id_password2>");
    // The app's own record: the new password signs in (the last wait saw the session).
    assert!(app.log().contains("POST /accounts/login/"), "{}", app.log());
}

#[test]
fn flask_appbuilder_reset_password_heading_and_form() {
    need_corpus!();
    let app = flask_appbuilder();
    // The panel's <h4> "Reset Password Form" starts with the step's words; its form's one
    // button says "Save". The button is pressed, and the new password signs in.
    let result = run_plan("fab-reset-password", &[("fab", &app.url)]);
    util::assert_succeeded(&result);
    assert_eq!(element(&result, 5), "<input#password>");
    assert_eq!(element(&result, 6), "<input#conf_password>");
    let d = detail(&result, 7);
    assert_eq!(d["strategy"], "form_submit", "{d:#}");
    assert_eq!(d["chosen"]["role"], "button", "{d:#}");
    // The app's own record: the new password signs in.
    let result = run_plan("fab-sign-in-again", &[("fab", &app.url)]);
    util::assert_succeeded(&result);
}
