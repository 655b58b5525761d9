//! Shared harness of the browser tests: one runtime, one real headless Chromium (each test
//! gets its own browser context, as runs do in production), the fixture site on port 0, and
//! an "attacker" server that records every request it receives.
#![allow(dead_code)]

pub mod dovecot;
pub mod model;
pub mod ocr;
pub mod pages;
pub mod postgres;
pub mod recorded;
pub mod serve;
pub mod smtp;

use std::net::SocketAddr;
use std::sync::{Arc, LazyLock, Mutex, OnceLock};
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, Query, Request};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use planlock::browser::{Chromium, LaunchOptions};
use planlock::plan::{self, Limits, Plan, Vars};
use planlock::runner::{self, Event, Recorder, RunResult, RunSpec};
use tokio::runtime::Runtime;
use tokio_util::sync::CancellationToken;

/// The one runtime every browser test runs on (the browser's CDP handler lives here).
pub fn rt() -> &'static Runtime {
    static RT: LazyLock<Runtime> = LazyLock::new(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime")
    });
    &RT
}

/// Returns from the test when no Chromium is installed (outside CI; in CI it fails).
macro_rules! need_browser {
    () => {
        if crate::util::browser().is_none() {
            return;
        }
    };
}
pub(crate) use need_browser;

/// The `planlock` binary, run from the package root with a quiet environment: no log
/// filter, no backtraces, nothing on stdin. Tests add what they need.
pub fn planlock() -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_planlock"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("PLANLOCK_LOG")
        .env_remove("RUST_BACKTRACE")
        .stdin(std::process::Stdio::null());
    cmd
}

/// True when a missing component must fail the test (CI), not skip it.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

static BROWSER: OnceLock<Option<Chromium>> = OnceLock::new();

/// The shared Chromium, or `None` (and a note) when it is missing outside CI.
pub fn browser() -> Option<&'static Chromium> {
    BROWSER
        .get_or_init(|| {
            let full = planlock::browser::Preference::FullBrowser;
            if planlock::browser::find_executable(None, false, full).is_err() {
                if in_ci() {
                    panic!(
                        "CI=true but no Chromium is installed: scripts/test installs it (apt-get install chromium)"
                    );
                }
                eprintln!("skipping: no Chromium installed (scripts/test installs it)");
                return None;
            }
            let b = rt()
                .block_on(Chromium::start(&LaunchOptions::default()))
                .unwrap_or_else(|e| panic!("cannot start Chromium: {e}"));
            // As a service does: the tests below use warm contexts; the CLI tests cold ones.
            rt().block_on(async { b.keep_warm(true) });
            // A static is never dropped: stop the browser and remove its profile at exit.
            // SAFETY: registering a plain `extern "C"` function with libc.
            unsafe {
                libc::atexit(stop_shared_browser);
            }
            Some(b)
        })
        .as_ref()
}

/// Whether the tests drive Chromium's headless shell (`CHROME=…/chromium-headless-shell`),
/// where a few documented behaviours differ from the full browser's.
pub fn on_headless_shell() -> bool {
    planlock::browser::find_executable(None, false, planlock::browser::Preference::FullBrowser)
        .is_ok_and(|p| planlock::browser::is_headless_shell(&p))
}

extern "C" fn stop_shared_browser() {
    let Some(Some(browser)) = BROWSER.get() else {
        return;
    };
    if let Some(pid) = browser.pid() {
        // SAFETY: a plain syscall on the Chromium process this test binary started.
        unsafe {
            libc::kill(pid as libc::pid_t, libc::SIGKILL);
        }
        // Give it a moment to exit before its profile goes.
        for _ in 0..50 {
            if !std::path::Path::new(&format!("/proc/{pid}")).exists()
                || std::fs::read_to_string(format!("/proc/{pid}/stat"))
                    .is_ok_and(|s| s.split(") ").nth(1).is_some_and(|r| r.starts_with('Z')))
            {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    if let Some(dir) = browser.profile_dir() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// The fixture site: `fixtures/site` plus a few dynamic routes.
pub struct Site {
    pub addr: SocketAddr,
}

impl Site {
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }
}

pub fn site() -> &'static Site {
    static SITE: LazyLock<Site> = LazyLock::new(serve_site);
    &SITE
}

/// The fixture site again, on another port of the same address: another origin (a frame from
/// it is cross-origin to the site's pages) on the same site.
pub fn other_origin() -> &'static Site {
    static OTHER: LazyLock<Site> = LazyLock::new(serve_site);
    &OTHER
}

/// The fixture site on 127.0.0.2: another site (Chromium puts a frame from it in a process
/// of its own). `None` where that address cannot be bound.
pub fn other_site() -> Option<&'static Site> {
    static OTHER: LazyLock<Option<Site>> = LazyLock::new(|| {
        rt().block_on(tokio::net::TcpListener::bind("127.0.0.2:0"))
            .ok()
            .map(serve_site_on)
    });
    OTHER.as_ref()
}

fn serve_site() -> Site {
    let listener = rt()
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("bind the fixture site");
    serve_site_on(listener)
}

fn serve_site_on(listener: tokio::net::TcpListener) -> Site {
    let addr = listener.local_addr().expect("addr");
    rt().spawn(async move {
        axum::serve(listener, site_routes())
            .await
            .expect("serve the fixture site");
    });
    Site { addr }
}

fn site_routes() -> Router {
    Router::new()
        .route(
            "/redirect",
            get(|Query(q): Query<Target>| async move { redirect(&q.to) }),
        )
        .route(
            "/chain/{n}",
            get(|Path(n): Path<u32>, Query(q): Query<Target>| async move {
                if n == 0 {
                    redirect(&q.to)
                } else {
                    redirect(&format!("/chain/{}?to={}", n - 1, urlencode(&q.to)))
                }
            }),
        )
        .route(
            "/slow",
            get(|Query(q): Query<Slow>| async move {
                tokio::time::sleep(Duration::from_millis(q.ms)).await;
                file(&q.page)
            }),
        )
        .route(
            "/status/{code}",
            get(|Path(code): Path<u16>| async move {
                let status =
                    StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
                (
                    status,
                    [(header::CONTENT_TYPE, "text/html")],
                    format!("<h1>Error {code}</h1>"),
                )
            }),
        )
        .route(
            "/hang",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                "never"
            }),
        )
        .route("/spa/{*rest}", get(|| async { file("spa.html") }))
        // Same-host endpoints a page may be tricked into sending to (a comment box): records
        // what reaches it.
        .route(
            "/sink/{name}",
            axum::routing::any(|Path(name): Path<String>, req: Request| async move {
                let query = req.uri().query().unwrap_or_default().to_string();
                let body = axum::body::to_bytes(req.into_body(), 1 << 20)
                    .await
                    .unwrap_or_default();
                let line = format!("{name}?{query} {}", String::from_utf8_lossy(&body));
                SINK.lock().unwrap().push(line);
                axum::response::Html(format!("<h1>posted to {name}</h1>"))
            }),
        )
        // A stock-style registration form: re-rendered with the errors of the fields left
        // empty, as server-side frameworks do; filled whole, it signs the user up.
        .route(
            "/person-register",
            get(|| async { person_register(&[]) }).post(
                |axum::extract::Form(form): axum::extract::Form<
                    std::collections::HashMap<String, String>,
                >| async move {
                    let missing: Vec<&str> = ["username", "email", "password1", "password2"]
                        .into_iter()
                        .filter(|f| form.get(*f).is_none_or(|v| v.is_empty()))
                        .collect();
                    if missing.is_empty() {
                        redirect("/person-done.html?welcome=1")
                    } else {
                        person_register(&missing)
                    }
                },
            ),
        )
        // The same form as a site drawn without any framework draws it: the words of an error
        // in a plain element after the field, no class or ARIA to say it is one; the values
        // typed kept (but a password's).
        .route(
            "/plain-register",
            get(|| async { plain_register(&Default::default(), &[]) }).post(
                |axum::extract::Form(form): axum::extract::Form<
                    std::collections::HashMap<String, String>,
                >| async move {
                    let missing: Vec<&str> = ["username", "email", "password1", "password2"]
                        .into_iter()
                        .filter(|f| form.get(*f).is_none_or(|v| v.is_empty()))
                        .collect();
                    if missing.is_empty() {
                        redirect("/person-done.html?welcome=1")
                    } else {
                        plain_register(&form, &missing)
                    }
                },
            ),
        )
        .route(
            "/trickle/{page}",
            get(|Path(page): Path<String>| async move { trickle(&page) }),
        )
        // Lock probes: a fixture page with `{{TO}}` (HTML-escaped), `{{TO_JSON}}` (a JS string),
        // `{{TO_Q}}` (URL-encoded) and `{{FORM}}` (the submitted form: POST body or query) filled in; any method.
        .route(
            "/tpl/{*path}",
            axum::routing::any(
                |Path(path): Path<String>,
                 Query(q): Query<std::collections::HashMap<String, String>>,
                 req: Request| async move { template(&path, &q, req).await },
            ),
        )
        .route(
            "/{*path}",
            get(|Path(path): Path<String>| async move { file(&path) }),
        )
}

#[derive(serde::Deserialize)]
struct Target {
    to: String,
}

#[derive(serde::Deserialize)]
struct Slow {
    ms: u64,
    page: String,
}

/// A fixture page sent in two parts, 600 ms apart, split at `<!--trickle-->` (a slow server
/// or network): for that long the document is loading with only its first part in it.
fn trickle(page: &str) -> Response {
    use futures::StreamExt;
    let html = match site_page(page) {
        Ok(html) => html,
        Err(status) => return (status, status.canonical_reason().unwrap_or("")).into_response(),
    };
    let (head, tail) = html.split_once("<!--trickle-->").unwrap_or((&html, ""));
    let parts = [
        (Duration::ZERO, head.to_string()),
        (Duration::from_millis(600), tail.to_string()),
    ];
    let body = futures::stream::iter(parts).then(|(wait, part)| async move {
        tokio::time::sleep(wait).await;
        Ok::<_, std::io::Error>(part)
    });
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        axum::body::Body::from_stream(body),
    )
        .into_response()
}

/// What reached `/sink/NAME`: `NAME?QUERY BODY` per request.
static SINK: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Every request `/sink/…` received so far.
pub fn sink_hits() -> Vec<String> {
    SINK.lock().unwrap().clone()
}

/// The registration form, with Django-style error lists above the fields left empty.
fn person_register(missing: &[&str]) -> Response {
    let field = |name: &str, label: &str, kind: &str| {
        let error = if missing.contains(&name) {
            "<ul class=\"errorlist\"><li>This field is required.</li></ul>"
        } else {
            ""
        };
        let invalid = if missing.contains(&name) {
            " aria-invalid=\"true\""
        } else {
            ""
        };
        format!(
            "<p>{error}<label for=\"id_{name}\">{label}:</label> \
             <input type=\"{kind}\" name=\"{name}\" id=\"id_{name}\"{invalid}></p>"
        )
    };
    let body = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Register</title></head>\
         <body><main><h1>Create an account</h1><form method=\"post\" action=\"/person-register\">\
         {}{}{}{}<button type=\"submit\">Register</button></form></main></body></html>",
        field("username", "Username", "text"),
        field("email", "Email", "email"),
        field("password1", "Password", "password"),
        field("password2", "Retype Password", "password"),
    );
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response()
}

/// The registration form of `/plain-register`, with what was typed (but passwords) and a
/// plain sentence after each field left empty.
fn plain_register(typed: &std::collections::HashMap<String, String>, missing: &[&str]) -> Response {
    let field = |name: &str, label: &str, kind: &str| {
        let value = match typed.get(name) {
            Some(v) if kind != "password" => format!(" value=\"{}\"", v.replace('"', "&quot;")),
            _ => String::new(),
        };
        let error = if missing.contains(&name) {
            format!("<div>Please enter your {}.</div>", label.to_lowercase())
        } else {
            String::new()
        };
        format!(
            "<div><label for=\"{name}\">{label}</label>\
             <input type=\"{kind}\" name=\"{name}\" id=\"{name}\"{value}>{error}</div>"
        )
    };
    let body = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Register</title></head>\
         <body><main><h1>Join us</h1><form method=\"post\" action=\"/plain-register\">\
         {}{}{}{}<button type=\"submit\">Register</button></form></main></body></html>",
        field("username", "Username", "text"),
        field("email", "Email", "email"),
        field("password1", "Password", "password"),
        field("password2", "Retype Password", "password"),
    );
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response()
}

fn redirect(to: &str) -> Response {
    (StatusCode::FOUND, [(header::LOCATION, to.to_string())]).into_response()
}

fn urlencode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// `fixtures/site/PATH`, or `None` for a path that would leave it.
fn site_path(path: &str) -> Option<std::path::PathBuf> {
    let path = path.trim_start_matches('/');
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/site");
    (!path.contains("..")).then(|| root.join(path))
}

/// A fixture page's text; a 400 or 404 response when there is none to serve.
fn site_page(path: &str) -> Result<String, StatusCode> {
    let full = site_path(path).ok_or(StatusCode::BAD_REQUEST)?;
    std::fs::read_to_string(full).map_err(|_| StatusCode::NOT_FOUND)
}

fn file(path: &str) -> Response {
    let Some(full) = site_path(path) else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    match std::fs::read(full) {
        Ok(bytes) => {
            let ty = match path.rsplit('.').next() {
                Some("html") => "text/html; charset=utf-8",
                Some("js") => "text/javascript",
                Some("css") => "text/css",
                Some("png") => "image/png",
                _ => "application/octet-stream",
            };
            ([(header::CONTENT_TYPE, ty)], bytes).into_response()
        }
        Err(_) => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

/// A server standing in for an attacker: records every request it receives.
pub struct Attacker {
    pub addr: SocketAddr,
    pub hits: Arc<Mutex<Vec<String>>>,
    /// Each hit's `Sec-Purpose` header (`prefetch`, `prefetch;prerender`), when it had one.
    purposes: Arc<Mutex<Vec<Option<String>>>>,
}

impl Attacker {
    /// On 127.0.0.2 (another address than the fixture site's), else 127.0.0.1.
    pub fn start() -> Attacker {
        let listener = rt()
            .block_on(tokio::net::TcpListener::bind("127.0.0.2:0"))
            .or_else(|_| rt().block_on(tokio::net::TcpListener::bind("127.0.0.1:0")))
            .expect("bind the attacker server");
        Attacker::serve(listener)
    }

    /// On the fixture site's own address, another port.
    pub fn start_beside_the_site() -> Attacker {
        let listener = rt()
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .expect("bind the attacker server");
        Attacker::serve(listener)
    }

    fn serve(listener: tokio::net::TcpListener) -> Attacker {
        let hits = Arc::new(Mutex::new(Vec::new()));
        let purposes = Arc::new(Mutex::new(Vec::new()));
        let addr = listener.local_addr().expect("addr");
        let (recorded, purposed) = (hits.clone(), purposes.clone());
        let app = Router::new().fallback(move |req: Request| {
            let (recorded, purposed) = (recorded.clone(), purposed.clone());
            async move {
                let purpose = req
                    .headers()
                    .get("sec-purpose")
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_string);
                purposed.lock().unwrap().push(purpose);
                recorded.lock().unwrap().push(req.uri().to_string());
                "<h1>you have been phished</h1>"
            }
        });
        rt().spawn(async move {
            axum::serve(listener, app)
                .await
                .expect("serve the attacker");
        });
        Attacker {
            addr,
            hits,
            purposes,
        }
    }

    pub fn hits(&self) -> Vec<String> {
        self.hits.lock().unwrap().clone()
    }

    /// Every hit with its `Sec-Purpose` header.
    pub fn hits_with_purpose(&self) -> Vec<(String, Option<String>)> {
        let purposes = self.purposes.lock().unwrap().clone();
        self.hits().into_iter().zip(purposes).collect()
    }
}

/// Parses and validates a plan written in a test (`{SITE}` is replaced by the site's origin).
pub fn plan(json: &str) -> Plan {
    let json = json.replace("{SITE}", &site().url(""));
    plan::parse_and_validate(&json, &Limits::default(), &Vars::default())
        .unwrap_or_else(|e| panic!("test plan is invalid: {e}\n{json}"))
}

/// Runs a plan in a fresh context of the shared browser, locked from the plan alone.
pub fn run(plan: &Plan) -> (RunResult, Vec<Event>) {
    run_spec(RunSpec::new(plan.clone()))
}

/// Locks a run the way every front end does, then runs it in a fresh context of the shared
/// browser, recording its events.
pub fn run_spec(spec: RunSpec) -> (RunResult, Vec<Event>) {
    rt().block_on(run_locked(spec))
}

/// [`run_spec`] for tests already on the runtime.
pub async fn run_locked(spec: RunSpec) -> (RunResult, Vec<Event>) {
    let browser = browser().expect("browser");
    let run = spec
        .lock()
        .await
        .unwrap_or_else(|e| panic!("the test's run cannot be locked: {e}"));
    let mut rec = Recorder::default();
    let result = runner::run(browser, run, &mut rec, CancellationToken::new()).await;
    (result, rec.events)
}

/// Fails with the whole result when a run did not succeed.
pub fn assert_succeeded(result: &RunResult) {
    assert!(
        result.succeeded(),
        "run failed: {}",
        serde_json::to_string_pretty(result).unwrap()
    );
}

/// Serves `fixtures/site/PATH` with `{{TO}}`, `{{TO_JSON}}`, `{{TO_Q}}` (URL-encoded) and
/// `{{FORM}}` filled in (lock probes).
async fn template(
    path: &str,
    query: &std::collections::HashMap<String, String>,
    req: Request,
) -> Response {
    let page = match site_page(path) {
        Ok(page) => page,
        Err(status) => return (status, status.canonical_reason().unwrap_or("")).into_response(),
    };
    let form = match req.method().as_str() {
        "POST" => {
            let body = axum::body::to_bytes(req.into_body(), 1 << 20)
                .await
                .unwrap_or_default();
            String::from_utf8_lossy(&body).into_owned()
        }
        _ => req.uri().query().unwrap_or_default().to_string(),
    };
    let to = query.get("to").map(String::as_str).unwrap_or_default();
    let html = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
            .replace('\'', "&#39;")
    };
    let json = serde_json::to_string(to)
        .unwrap_or_default()
        .replace('<', "\\u003c");
    let page = page
        .replace("{{TO_JSON}}", &json)
        .replace("{{TO_Q}}", &urlencode(to))
        .replace("{{TO}}", &html(to))
        .replace("{{FORM}}", &html(&form));
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], page).into_response()
}
