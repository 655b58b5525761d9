//! `planlock serve` (docs/http-api.md): the HTTP API driven in-process with `oneshot` and on a real
//! loopback port with reqwest, runs on real Chromium against the fixture site, a local fake
//! model for `act`, the embedded SMTP receiver for inbox steps, and the real binary.

use crate::util;

use crate::util::model::FakeModel;
use crate::util::serve::ServeProcess;
use crate::util::smtp;

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use planlock::browser::LaunchOptions;
use planlock::planner::{PlannerConfig, ProviderAccess};
use planlock::server::{self, AppState, BrowserSource, ServerConfig};
use serde_json::{Value, json};
use tokio::sync::oneshot;
use tower::ServiceExt;

const STEP_TIMEOUT: Duration = Duration::from_secs(2);

/// A config over the shared test browser, or `None` when Chromium is missing (outside CI).
pub(crate) fn with_browser() -> Option<ServerConfig> {
    // The fixture site starts on first use, which must not happen inside `block_on`.
    util::site();
    let browser = util::browser()?;
    let mut config = ServerConfig::new(BrowserSource::Shared(browser));
    config.settings.step_timeout = STEP_TIMEOUT;
    Some(config)
}

/// A config whose browser is never launched: for requests answered before any run starts.
fn without_browser() -> ServerConfig {
    util::site();
    let mut config = ServerConfig::new(BrowserSource::Launch(LaunchOptions::default()));
    config.settings.step_timeout = STEP_TIMEOUT;
    config
}

/// The state of a service over `config`, its store a temporary SQLite file.
pub(crate) fn started(config: ServerConfig) -> AppState {
    util::rt()
        .block_on(AppState::start(config))
        .expect("the service starts")
}

/// The service on a real loopback port; stopped (gracefully) on drop.
pub(crate) struct Server {
    base: String,
    state: AppState,
    stop: Option<oneshot::Sender<()>>,
    served: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

impl Server {
    pub(crate) fn start(config: ServerConfig) -> Server {
        let state = started(config);
        let listener = util::rt()
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (stop, stopped) = oneshot::channel::<()>();
        let served = util::rt().spawn(server::serve(listener, state.clone(), async move {
            let _ = stopped.await;
        }));
        Server {
            base,
            state,
            stop: Some(stop),
            served: Some(served),
        }
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Triggers graceful shutdown and waits for the server to stop.
    async fn shutdown(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(served) = self.served.take() {
            tokio::time::timeout(Duration::from_secs(30), served)
                .await
                .expect("the server stops within 30 s")
                .unwrap()
                .unwrap();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

fn http() -> reqwest::Client {
    reqwest::Client::new()
}

/// One request through the router in-process, addressed to the server as a client would.
async fn oneshot(
    state: &AppState,
    mut req: Request<Body>,
) -> (StatusCode, axum::http::HeaderMap, Value) {
    req.headers_mut()
        .entry(header::HOST)
        .or_insert(axum::http::HeaderValue::from_static("127.0.0.1"));
    let response = server::app(state.clone()).oneshot(req).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = axum::body::to_bytes(response.into_body(), 64 << 20)
        .await
        .unwrap();
    let body = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
    (status, headers, body)
}

fn post_json(path: &str, body: &Value) -> Request<Body> {
    Request::post(path)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body.to_string()))
        .unwrap()
}

fn get(path: &str) -> Request<Body> {
    Request::get(path).body(Body::empty()).unwrap()
}

fn signup_plan() -> Value {
    let site = util::site().url("");
    json!({
        "reasoning": "Fill the signup form and submit it.",
        "steps": [
            {"type": "navigate", "url": format!("{site}/form.html")},
            {"type": "fill", "describe": "name", "label": "Full name", "value": "{{name}}"},
            {"type": "fill", "describe": "email", "label": "Email address", "value": "ada@example.com"},
            {"type": "click", "describe": "submit", "text": "Create account"},
            {"type": "wait_for_text", "text": "Welcome aboard"},
            {"type": "extract_text", "describe": "confirmation", "selector": "#who"},
            {"type": "done", "summary": "signed up"}
        ]
    })
}

/// A plan that waits on the fixture site until cancelled (or 30 s).
fn waiting_plan() -> Value {
    let site = util::site().url("");
    json!({
        "reasoning": "Open the form, then wait for text that never comes.",
        "steps": [
            {"type": "navigate", "url": format!("{site}/form.html")},
            {"type": "wait_for_text", "text": "this text never appears", "timeout_seconds": 30},
            {"type": "done", "summary": "never reached"}
        ]
    })
}

fn run_body(plan: Value) -> Value {
    json!({ "plan": plan, "vars": {"name": "Ada"}, "allowed_hosts": ["127.0.0.1"] })
}

/// Polls `GET /v1/runs/{id}` until `pred` holds (10 s at most).
async fn poll_run(server: &Server, id: &str, pred: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let view: Value = http()
            .get(server.url(&format!("/v1/runs/{id}")))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if pred(&view) {
            return view;
        }
        assert!(Instant::now() < deadline, "run never got there: {view:#}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Starts a run with `Prefer: respond-async` and returns its id.
async fn start_async(server: &Server, body: &Value) -> String {
    let response = http()
        .post(server.url("/v1/runs"))
        .header("Prefer", "respond-async")
        .json(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 202);
    let location = response.headers()[header::LOCATION]
        .to_str()
        .unwrap()
        .to_string();
    let accepted: Value = response.json().await.unwrap();
    assert!(
        accepted["status"] == "running" || accepted["status"] == "queued",
        "{accepted}"
    );
    let id = accepted["run_id"].as_str().unwrap().to_string();
    assert_eq!(location, format!("/v1/runs/{id}"));
    id
}

#[test]
fn a_replayed_plan_succeeds_on_a_real_port() {
    let Some(config) = with_browser() else { return };
    let server = Server::start(config);
    util::rt().block_on(async {
        let response = http()
            .post(server.url("/v1/runs"))
            .json(&run_body(signup_plan()))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let location = response.headers()[header::LOCATION]
            .to_str()
            .unwrap()
            .to_string();
        let result: Value = response.json().await.unwrap();
        assert_eq!(result["status"], "succeeded", "{result:#}");
        assert_eq!(result["summary"], "signed up");
        assert_eq!(result["extracted"][0], "Signed up as ada@example.com for");
        assert_eq!(result["steps"].as_array().unwrap().len(), 7);
        // `127.0.0.1` allowed, on the one port the plan names: its others are other services.
        let site = format!("127.0.0.1:{}", util::site().addr.port());
        assert_eq!(result["allowed_hosts"], json!([site]));
        // The finished run stays readable by id.
        let id = result["run_id"].as_str().unwrap();
        assert_eq!(location, format!("/v1/runs/{id}"));
        let again: Value = http()
            .get(server.url(&location))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(again, result);
    });
}

#[test]
fn a_replayed_plan_succeeds_through_oneshot() {
    let Some(config) = with_browser() else { return };
    let state = started(config);
    util::rt().block_on(async {
        let (status, _, result) =
            oneshot(&state, post_json("/v1/runs", &run_body(signup_plan()))).await;
        assert_eq!(status, 200, "{result:#}");
        assert_eq!(result["status"], "succeeded", "{result:#}");
    });
}

#[test]
fn loopback_is_refused_unless_allowed_explicitly() {
    let state = started(without_browser());
    util::rt().block_on(async {
        let body = json!({ "plan": signup_plan(), "vars": {"name": "Ada"} });
        let (status, _, body) = oneshot(&state, post_json("/v1/runs", &body)).await;
        assert_eq!(status, 422, "{body:#}");
        assert_eq!(body["error"]["kind"], "lock_refused");
        assert_eq!(
            body["error"]["message"],
            "[plan] 127.0.0.1 is a private, loopback or link-local address, which the service \
             never visits unless it is allowed explicitly. To let this run visit it, add \
             \"127.0.0.1\" to `allowed_hosts`."
        );
        // Cloud metadata too, and names that resolve to loopback.
        for url in [
            "http://169.254.169.254/latest/meta-data/",
            "http://localhost:9/",
        ] {
            let plan = json!({"reasoning": "r", "steps": [
                {"type": "navigate", "url": url}, {"type": "done", "summary": "s"}]});
            let (status, _, body) =
                oneshot(&state, post_json("/v1/runs", &json!({"plan": plan}))).await;
            assert_eq!(status, 422, "{url}: {body:#}");
            assert_eq!(body["error"]["kind"], "lock_refused", "{url}");
        }
    });
}

#[test]
fn ndjson_streams_events_as_they_happen_then_the_result() {
    let Some(config) = with_browser() else { return };
    let server = Server::start(config);
    util::rt().block_on(async {
        let site = util::site().url("");
        let plan = json!({"reasoning": "r", "steps": [
            {"type": "navigate", "url": format!("{site}/form.html")},
            {"type": "wait_seconds", "seconds": 1},
            {"type": "done", "summary": "streamed"}]});
        let mut response = http()
            .post(server.url("/v1/runs"))
            .header(header::ACCEPT, "application/x-ndjson")
            .json(&json!({"plan": plan, "allowed_hosts": ["127.0.0.1"]}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(
            response.headers()[header::CONTENT_TYPE],
            "application/x-ndjson"
        );
        let mut text = String::new();
        // The first event arrives while the run is still running.
        while !text.contains('\n') {
            let chunk = response.chunk().await.unwrap().expect("a first line");
            text.push_str(&String::from_utf8_lossy(&chunk));
        }
        let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        assert_eq!(first["event"], "run_started");
        let id = first["run_id"].as_str().unwrap().to_string();
        let view: Value = http()
            .get(server.url(&format!("/v1/runs/{id}")))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(view["status"], "running", "{view:#}");
        while let Some(chunk) = response.chunk().await.unwrap() {
            text.push_str(&String::from_utf8_lossy(&chunk));
        }
        assert!(text.ends_with('\n'));
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let events: Vec<&str> = lines[..lines.len() - 1]
            .iter()
            .map(|l| l["event"].as_str().unwrap())
            .collect();
        assert_eq!(
            events,
            [
                "run_started",
                "step_started",
                "step_succeeded",
                "step_started",
                "step_succeeded",
                "step_started",
                "step_succeeded",
                "run_finished"
            ]
        );
        let result = lines.last().unwrap();
        assert_eq!(result["event"], "result");
        assert_eq!(result["run_id"], json!(id));
        assert_eq!(result["status"], "succeeded");
        assert_eq!(result["summary"], "streamed");
    });
}

#[test]
fn an_invalid_plan_is_422_with_every_problem_and_its_path() {
    let state = started(without_browser());
    util::rt().block_on(async {
        let plan = json!({"reasoning": "r", "steps": [
            {"type": "navigate", "url": "shop.example/signup"},
            {"type": "wait_for_mail", "subject": "code"},
            {"type": "fill", "describe": "x", "value": "{{nobody}}"}]});
        let (status, _, body) =
            oneshot(&state, post_json("/v1/runs", &json!({"plan": plan}))).await;
        assert_eq!(status, 422, "{body:#}");
        assert_eq!(body["error"]["kind"], "invalid_plan");
        let paths: Vec<&str> = body["error"]["problems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["path"].as_str().unwrap())
            .collect();
        for expected in ["steps[0].url", "steps[1].type", "steps[2]"] {
            assert!(
                paths.iter().any(|p| p.starts_with(expected)),
                "{expected} missing from {paths:?}"
            );
        }
        let message = body["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("did you mean `wait_for_email`"),
            "{message}"
        );
        assert!(message.contains("{{nobody}}"), "{message}");
        // A bad caller variable name is a 422 too.
        let body = json!({"plan": signup_plan(), "vars": {"9lives": "x"}});
        let (status, _, body) = oneshot(&state, post_json("/v1/runs", &body)).await;
        assert_eq!(status, 422);
        assert_eq!(body["error"]["kind"], "invalid_variables");
    });
}

#[test]
fn a_key_given_twice_is_refused_in_the_plan_and_in_the_request() {
    let state = started(without_browser());
    util::rt().block_on(async {
        let post = |text: &str| {
            Request::post("/v1/runs")
                .header(header::CONTENT_TYPE, "application/json")
                .body(Body::from(text.to_string()))
                .unwrap()
        };
        // A reviewer reads the first `url`; a JSON parser would visit the second.
        let twice_in_plan = r#"{"plan": {"reasoning": "r", "steps": [
            {"type": "navigate", "url": "https://shop.example/", "url": "https://evil.example/"},
            {"type": "done", "summary": "s"}]}}"#;
        let (status, _, body) = oneshot(&state, post(twice_in_plan)).await;
        assert_eq!(status, 422, "{body:#}");
        assert_eq!(body["error"]["kind"], "invalid_plan");
        assert_eq!(
            body["error"]["problems"],
            json!([{"path": "steps[0].url", "message": "the key `url` is given twice in this \
                object; a reader sees the first, a JSON parser keeps the last: keep one"}])
        );
        let twice_in_request = r#"{"plan": {"reasoning": "r", "steps": [
            {"type": "done", "summary": "s"}]},
            "allowed_hosts": ["shop.example"], "allowed_hosts": ["evil.example"]}"#;
        let (status, _, body) = oneshot(&state, post(twice_in_request)).await;
        assert_eq!(status, 400, "{body:#}");
        assert_eq!(body["error"]["kind"], "invalid_request");
        assert_eq!(
            body["error"]["message"],
            "the request body is not a valid request: allowed_hosts: the key `allowed_hosts` \
             is given twice in this object; a reader sees the first, a JSON parser keeps the \
             last: keep one"
        );
    });
}

#[test]
fn the_service_never_binds_an_embedded_receiver_beyond_loopback() {
    let mut config = without_browser();
    config.allow_request_inboxes = true;
    let state = started(config);
    util::rt().block_on(async {
        for inbox in [
            "smtp://0.0.0.0:0?domain=x.test&allow_remote=true",
            "smtp://0.0.0.0:0?domain=x.test",
        ] {
            let plan = json!({"reasoning": "r", "steps": [
                {"type": "wait_for_email"}, {"type": "done", "summary": "s"}]});
            let body = json!({"plan": plan, "inbox": inbox});
            let (status, _, body) = oneshot(&state, post_json("/v1/runs", &body)).await;
            assert_eq!(status, 422, "{inbox}: {body:#}");
            assert_eq!(body["error"]["kind"], "invalid_inbox", "{inbox}");
            let message = body["error"]["message"].as_str().unwrap();
            assert!(message.contains("loopback"), "{inbox}: {message}");
        }
    });
}

#[test]
fn malformed_or_misshapen_bodies_are_400() {
    let state = started(without_browser());
    util::rt().block_on(async {
        for (raw, kind) in [
            (r#"{"plan": "#, "malformed_json"),
            ("", "malformed_json"),
            ("not json", "malformed_json"),
            (r#"{"plan": {}, "allowed_host": ["x"]}"#, "invalid_request"),
            (r#"{"vars": {}}"#, "invalid_request"),
            (r#"{"plan": {}, "vars": {"a": 1}}"#, "invalid_request"),
        ] {
            let req = Request::post("/v1/runs")
                .header(header::CONTENT_TYPE, "application/json")
                .body(Body::from(raw))
                .unwrap();
            let (status, _, body) = oneshot(&state, req).await;
            assert_eq!(status, 400, "{raw}: {body:#}");
            assert_eq!(body["error"]["kind"], kind, "{raw}");
            assert!(
                body["error"]["message"].as_str().unwrap().len() > 20,
                "{body}"
            );
        }
    });
}

#[test]
fn a_body_over_the_limit_is_413() {
    let state = started(without_browser());
    let server = Server::start(without_browser());
    util::rt().block_on(async {
        let big = json!({"plan": {"reasoning": "x".repeat(2 << 20), "steps": []}});
        let (status, _, body) = oneshot(&state, post_json("/v1/runs", &big)).await;
        assert_eq!(status, 413, "{body:#}");
        assert_eq!(body["error"]["kind"], "body_too_large");
        assert!(
            body["error"]["message"].as_str().unwrap().contains("1 MiB"),
            "{body}"
        );
        // On a real port, with a Content-Length the server reads no further than the limit.
        let response = http()
            .post(server.url("/v1/runs"))
            .json(&big)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 413);
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"]["kind"], "body_too_large");
    });
}

#[test]
fn a_configured_token_is_required_on_v1() {
    let mut config = without_browser();
    config.token = Some("s3cret-token-for-tests".to_string());
    let state = started(config);
    util::rt().block_on(async {
        let (status, headers, body) = oneshot(&state, get("/v1/schema/plan")).await;
        assert_eq!(status, 401);
        assert_eq!(body["error"]["kind"], "unauthorized");
        assert!(
            headers[header::WWW_AUTHENTICATE]
                .to_str()
                .unwrap()
                .starts_with("Bearer")
        );
        let wrong = Request::get("/v1/schema/plan")
            .header(header::AUTHORIZATION, "Bearer nope")
            .body(Body::empty())
            .unwrap();
        let (status, _, body) = oneshot(&state, wrong).await;
        assert_eq!(status, 401);
        assert_eq!(body["error"]["message"], "the bearer token is not valid");
        // Checked before the body is read.
        let (status, _, _) = oneshot(&state, post_json("/v1/runs", &json!({"plan": 1}))).await;
        assert_eq!(status, 401);
        let right = Request::get("/v1/schema/plan")
            .header(header::AUTHORIZATION, "bearer s3cret-token-for-tests")
            .body(Body::empty())
            .unwrap();
        let (status, _, _) = oneshot(&state, right).await;
        assert_eq!(status, 200);
        // Health and the API description stay open (load balancers, tooling).
        assert_eq!(oneshot(&state, get("/healthz")).await.0, 200);
        assert_eq!(oneshot(&state, get("/openapi.json")).await.0, 200);
    });
}

#[test]
fn a_full_queue_answers_429_while_a_run_is_in_flight() {
    let Some(mut config) = with_browser() else {
        return;
    };
    config.max_runs = 1;
    config.queue = 0;
    // One caller may take every place here: the server's own bound is what is tested.
    config.max_runs_per_caller = Some(100);
    let server = Server::start(config);
    util::rt().block_on(async {
        let id = start_async(&server, &run_body(waiting_plan())).await;
        let response = http()
            .post(server.url("/v1/runs"))
            .json(&run_body(signup_plan()))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 429);
        assert_eq!(response.headers()[header::RETRY_AFTER], "1");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"]["kind"], "too_many_runs");
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("1 run is executing and 0 waiting, the most this server takes"),
            "{body}"
        );
        let health: Value = http()
            .get(server.url("/healthz"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(health["runs_in_flight"], 1);
        // Once the run ends, the slot is free again.
        let cancelled = http()
            .delete(server.url(&format!("/v1/runs/{id}")))
            .send()
            .await
            .unwrap();
        assert_eq!(cancelled.status(), 200);
        let response = http()
            .post(server.url("/v1/runs"))
            .json(&run_body(signup_plan()))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let result: Value = response.json().await.unwrap();
        assert_eq!(result["status"], "succeeded", "{result:#}");
    });
}

#[test]
fn delete_cancels_a_running_run_and_get_shows_progress() {
    let Some(config) = with_browser() else { return };
    let server = Server::start(config);
    util::rt().block_on(async {
        let id = start_async(&server, &run_body(waiting_plan())).await;
        // While running: the steps so far, the current one `running`.
        let view = poll_run(&server, &id, |v| {
            v["steps"].as_array().is_some_and(|s| s.len() == 2)
        })
        .await;
        assert_eq!(view["status"], "running");
        assert_eq!(view["steps_total"], 3);
        assert_eq!(view["steps"][0]["status"], "succeeded");
        assert_eq!(view["steps"][0]["type"], "navigate");
        assert_eq!(view["steps"][1]["status"], "running");
        assert_eq!(view["steps"][1]["type"], "wait_for_text");
        let began = Instant::now();
        let response = http()
            .delete(server.url(&format!("/v1/runs/{id}")))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let result: Value = response.json().await.unwrap();
        assert!(
            began.elapsed() < Duration::from_secs(5),
            "{:?}",
            began.elapsed()
        );
        assert_eq!(result["status"], "cancelled", "{result:#}");
        assert_eq!(result["failed_step"], 1);
        assert_eq!(result["error"]["kind"], "cancelled");
        assert_eq!(result["steps"][1]["status"], "cancelled");
        assert_eq!(result["steps"][2]["status"], "skipped");
        let after: Value = http()
            .get(server.url(&format!("/v1/runs/{id}")))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(after, result);
        // Deleting again answers the same result; unknown ids are 404.
        let again = http()
            .delete(server.url(&format!("/v1/runs/{id}")))
            .send()
            .await
            .unwrap();
        assert_eq!(again.status(), 200);
        let missing = http()
            .get(server.url("/v1/runs/nosuchrun"))
            .send()
            .await
            .unwrap();
        assert_eq!(missing.status(), 404);
        let body: Value = missing.json().await.unwrap();
        assert_eq!(body["error"]["kind"], "run_not_found");
    });
}

#[test]
fn a_failed_step_links_its_screenshot() {
    let Some(config) = with_browser() else { return };
    let server = Server::start(config);
    util::rt().block_on(async {
        let site = util::site().url("");
        let plan = json!({"reasoning": "r", "steps": [
            {"type": "navigate", "url": format!("{site}/form.html")},
            {"type": "click", "describe": "missing", "text": "No such button"},
            {"type": "done", "summary": "s"}]});
        let result: Value = http()
            .post(server.url("/v1/runs"))
            .json(&json!({"plan": plan, "allowed_hosts": ["127.0.0.1"]}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(result["status"], "failed", "{result:#}");
        assert_eq!(result["error"]["kind"], "not_found", "{result:#}");
        let url = result["steps"][1]["detail"]["screenshot_url"]
            .as_str()
            .expect("a screenshot");
        let png = http().get(server.url(url)).send().await.unwrap();
        assert_eq!(png.status(), 200);
        assert_eq!(png.headers()[header::CONTENT_TYPE], "image/png");
        assert!(png.bytes().await.unwrap().starts_with(b"\x89PNG"));
        // Only the URL: no path on the server.
        assert!(url.starts_with("/v1/runs/"), "{url}");
        assert!(!result.to_string().contains("/tmp"), "{result}");
        let other = http()
            .get(server.url(&format!(
                "/v1/runs/{}/screenshots/..%2F..%2Fetc%2Fpasswd",
                result["run_id"].as_str().unwrap()
            )))
            .send()
            .await
            .unwrap();
        assert_eq!(other.status(), 404);
    });
}

#[test]
fn health_schema_and_openapi() {
    let state = started(without_browser());
    util::rt().block_on(async {
        let (status, _, health) = oneshot(&state, get("/healthz")).await;
        assert_eq!(status, 200);
        assert_eq!(health["status"], "ok");
        assert_eq!(health["runs_in_flight"], 0);

        let (status, headers, schema) = oneshot(&state, get("/v1/schema/plan")).await;
        assert_eq!(status, 200);
        assert_eq!(headers[header::CONTENT_TYPE], "application/schema+json");
        assert_eq!(schema, planlock::plan::json_schema());

        let (status, _, doc) = oneshot(&state, get("/openapi.json")).await;
        assert_eq!(status, 200);
        assert_eq!(doc["openapi"], "3.1.0");
        let paths: Vec<&str> = doc["paths"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        for p in [
            "/v1/act",
            "/v1/plans",
            "/v1/runs",
            "/v1/runs/{id}",
            "/v1/schema/plan",
            "/openapi.json",
            "/healthz",
        ] {
            assert!(paths.contains(&p), "{p} missing from {paths:?}");
        }
        assert!(doc["paths"]["/v1/runs/{id}"]["delete"].is_object());
        for status in ["400", "401", "413", "422", "429", "503"] {
            assert!(
                doc["paths"]["/v1/runs"]["post"]["responses"][status].is_object(),
                "POST /v1/runs documents {status}"
            );
        }
        // The plan schema inside is the generated one, its definitions moved to components.
        let back = |v: &Value| -> Value {
            serde_json::from_str(&v.to_string().replace("#/components/schemas/", "#/$defs/"))
                .unwrap()
        };
        let mut generated = planlock::plan::json_schema();
        let defs = generated.as_object_mut().unwrap().remove("$defs").unwrap();
        generated.as_object_mut().unwrap().remove("$schema");
        assert_eq!(back(&doc["components"]["schemas"]["Plan"]), generated);
        for (name, def) in defs.as_object().unwrap() {
            assert_eq!(&back(&doc["components"]["schemas"][name]), def, "{name}");
        }

        let (status, _, body) = oneshot(&state, get("/v1/nothing")).await;
        assert_eq!(status, 404);
        assert_eq!(body["error"]["kind"], "not_found");
        let delete_all = Request::delete("/v1/runs").body(Body::empty()).unwrap();
        let (status, _, body) = oneshot(&state, delete_all).await;
        assert_eq!(status, 405);
        assert_eq!(body["error"]["kind"], "method_not_allowed");
    });
}

fn planner_for(model: &FakeModel, cache: &std::path::Path) -> PlannerConfig {
    PlannerConfig {
        model: Some("openai:test-model".to_string()),
        openai: ProviderAccess {
            api_key: None,
            base_url: Some(model.openai_url()),
        },
        cache_dir: Some(cache.to_path_buf()),
        ..PlannerConfig::default()
    }
}

#[test]
fn act_plans_with_one_model_call_then_runs() {
    let Some(mut config) = with_browser() else {
        return;
    };
    let mut plan = signup_plan();
    plan["steps"][1]["value"] = json!("Ada");
    let model = FakeModel::openai_plan(plan);
    let cache = tempfile::tempdir().unwrap();
    config.planner = Ok(planner_for(&model, cache.path()));
    let server = Server::start(config);
    util::rt().block_on(async {
        let goal = format!("sign up at {}/form.html as Ada", util::site().url(""));
        let body = json!({"goal": goal, "allowed_hosts": ["127.0.0.1"]});
        let result: Value = http()
            .post(server.url("/v1/act"))
            .json(&body)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(result["status"], "succeeded", "{result:#}");
        assert_eq!(result["extracted"][0], "Signed up as ada@example.com for");
        assert_eq!(result["planning"]["cached"], false);
        assert_eq!(result["planning"]["usage"]["output_tokens"], 200);
        assert_eq!(result["planning"]["plan"]["steps"][0]["type"], "navigate");
        assert_eq!(model.count(), 1);
        // The goal reached the model; page text never did.
        let sent = model.bodies()[0].to_string();
        assert!(sent.contains("as Ada"), "{sent}");
        assert!(!sent.contains("Welcome aboard"), "{sent}");

        // Streaming act: the plan first (from the cache: no second model call), then events.
        let text = http()
            .post(server.url("/v1/act"))
            .header(header::ACCEPT, "application/x-ndjson")
            .json(&body)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines[0]["event"], "planned");
        assert_eq!(lines[0]["cached"], true);
        assert_eq!(lines[1]["event"], "run_started");
        assert_eq!(lines[lines.len() - 2]["event"], "run_finished");
        assert_eq!(lines.last().unwrap()["status"], "succeeded");
        assert_eq!(model.count(), 1);
    });
}

#[test]
fn plans_only_plans() {
    let mut plan = signup_plan();
    plan["steps"][1]["value"] = json!("Ada");
    let model = FakeModel::openai_plan(plan.clone());
    let cache = tempfile::tempdir().unwrap();
    let mut config = without_browser();
    config.planner = Ok(planner_for(&model, cache.path()));
    let state = started(config);
    util::rt().block_on(async {
        let goal = format!("sign up at {}/form.html as Ada", util::site().url(""));
        let (status, _, body) =
            oneshot(&state, post_json("/v1/plans", &json!({"goal": goal}))).await;
        assert_eq!(status, 200, "{body:#}");
        assert_eq!(body["plan"], plan);
        assert_eq!(body["cached"], false);
        assert_eq!(body["usage"]["cache_read_input_tokens"], 800);
        assert_eq!(body["model"], "openai:test-model");
        assert!(
            body.get("cache_file").is_none(),
            "server paths stay private"
        );
        let (_, _, again) = oneshot(&state, post_json("/v1/plans", &json!({"goal": goal}))).await;
        assert_eq!(again["cached"], true);
        assert_eq!(model.count(), 1);
        // A goal without a site is the caller's to fix.
        let (status, _, body) = oneshot(
            &state,
            post_json("/v1/plans", &json!({"goal": "sign up somewhere"})),
        )
        .await;
        assert_eq!(status, 422, "{body:#}");
        assert_eq!(body["error"]["kind"], "invalid_goal");
    });
}

#[test]
fn an_unconfigured_or_unreachable_model_is_503() {
    let state = started(without_browser());
    util::rt().block_on(async {
        let body = json!({"goal": "sign up at https://shop.example"});
        let (status, _, body) = oneshot(&state, post_json("/v1/act", &body)).await;
        assert_eq!(status, 503, "{body:#}");
        assert_eq!(body["error"]["kind"], "model_not_configured");
    });
    let mut config = without_browser();
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    config.planner = Ok(PlannerConfig {
        model: Some("openai:test-model".to_string()),
        openai: ProviderAccess {
            api_key: None,
            base_url: Some(format!("http://127.0.0.1:{port}/v1")),
        },
        cache_dir: None,
        ..PlannerConfig::default()
    });
    let state = started(config);
    util::rt().block_on(async {
        let body = json!({"goal": "sign up at https://shop.example"});
        let (status, _, body) = oneshot(&state, post_json("/v1/plans", &body)).await;
        assert_eq!(status, 503, "{body:#}");
        assert_eq!(body["error"]["kind"], "model_unreachable");
    });
}

/// An embedded SMTP receiver on a free loopback port, as a server inbox; and its port.
fn smtp_inbox(domain: &str) -> (std::sync::Arc<dyn planlock::inbox::Inbox>, u16) {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let url =
        planlock::inbox::parse_url(&format!("smtp://127.0.0.1:{port}?domain={domain}")).unwrap();
    let inbox = util::rt().block_on(planlock::inbox::connect(&url)).unwrap();
    (inbox, port)
}

#[test]
fn an_inbox_step_reads_mail_sent_to_a_server_inbox() {
    let Some(mut config) = with_browser() else {
        return;
    };
    let (inbox, port) = smtp_inbox("serve.test");
    config.inboxes = vec![("mail".to_string(), inbox)];
    let server = Server::start(config);
    util::rt().block_on(async {
        let plan = json!({"reasoning": "r", "steps": [
            {"type": "wait_for_email", "subject": "code", "timeout_seconds": 10},
            {"type": "done", "summary": "got it"}]});
        let id = start_async(&server, &json!({"plan": plan, "inbox": "mail"})).await;
        let view = poll_run(&server, &id, |v| v["inbox_address"].is_string()).await;
        let address = view["inbox_address"].as_str().unwrap().to_string();
        assert_eq!(address, format!("run-{id}@serve.test"));
        let raw = smtp::message("shop@example.com", &address, "Your code", "Code: 482913");
        smtp::send_mail(
            ([127, 0, 0, 1], port).into(),
            "shop@example.com",
            &[&address],
            &raw,
        )
        .await;
        let result = poll_run(&server, &id, |v| v["status"] != "running").await;
        assert_eq!(result["status"], "succeeded", "{result:#}");
        assert_eq!(result["steps"][0]["detail"]["email_subject"], "Your code");

        // A plan that reads mail without an inbox is refused before it runs.
        let plan = json!({"reasoning": "r", "steps": [
            {"type": "wait_for_email"}, {"type": "done", "summary": "s"}]});
        let response = http()
            .post(server.url("/v1/runs"))
            .json(&json!({"plan": plan}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 422);
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"]["kind"], "invalid_inbox");
        // So is an inbox this server does not have, naming the ones it has.
        let response = http()
            .post(server.url("/v1/runs"))
            .json(&json!({"plan": plan, "inbox": "work"}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 422);
        let body: Value = response.json().await.unwrap();
        assert_eq!(
            body["error"]["message"],
            "inbox[0]: this server has no inbox named `work` (its inboxes: mail)"
        );
        // And a URL, which this server does not take from requests.
        let plan = json!({"reasoning": "r", "steps": [{"type": "done", "summary": "s"}]});
        let response = http()
            .post(server.url("/v1/runs"))
            .json(&json!({"plan": plan, "inbox": "smtp://127.0.0.1:2525?domain=x.test"}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 422);
        let body: Value = response.json().await.unwrap();
        let message = body["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("its operator can let requests bring mailbox URLs"),
            "{message}"
        );
        assert!(!message.contains("--"), "{message}");
        assert!(message.contains("(its inboxes: mail)"), "{message}");
    });
}

#[test]
fn shutdown_cancels_runs_in_flight_and_their_callers_get_the_result() {
    let Some(config) = with_browser() else { return };
    let mut server = Server::start(config);
    util::rt().block_on(async {
        let mut response = http()
            .post(server.url("/v1/runs"))
            .header(header::ACCEPT, "application/x-ndjson")
            .json(&run_body(waiting_plan()))
            .send()
            .await
            .unwrap();
        let mut text = String::new();
        // Wait until the run is inside its waiting step.
        while text.matches("step_started").count() < 2 {
            let chunk = response.chunk().await.unwrap().expect("more events");
            text.push_str(&String::from_utf8_lossy(&chunk));
        }
        let waiting = tokio::spawn(async move {
            let mut rest = String::new();
            while let Some(chunk) = response.chunk().await.unwrap() {
                rest.push_str(&String::from_utf8_lossy(&chunk));
            }
            rest
        });
        let began = Instant::now();
        server.shutdown().await;
        assert!(
            began.elapsed() < Duration::from_secs(10),
            "{:?}",
            began.elapsed()
        );
        let rest = waiting.await.unwrap();
        let last: Value = serde_json::from_str(rest.lines().last().unwrap()).unwrap();
        assert_eq!(last["status"], "cancelled", "{rest}");
        assert!(server.state.runs_in_flight() == 0);
        // Nothing listens any more.
        assert!(http().get(server.url("/healthz")).send().await.is_err());
    });
}

#[test]
fn the_binary_refuses_a_public_address_without_a_token() {
    let out = util::planlock()
        .args(["serve", "--listen", "0.0.0.0:0"])
        .env_remove("PLANLOCK_TOKEN")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with("planlock: refusing to listen on 0.0.0.0:0 without a token"),
        "{stderr}"
    );
    assert!(stderr.contains("PLANLOCK_TOKEN"), "{stderr}");
}

#[test]
fn the_binary_serves_and_stops_on_sigterm() {
    if util::browser().is_none() {
        return;
    }
    let mut child = util::planlock()
        .args(["serve", "--listen", "127.0.0.1:0", "--max-runs", "2"])
        .env("PLANLOCK_TOKEN", "binary-test-token")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let base = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    util::rt().block_on(async {
        let health: Value = http()
            .get(format!("{base}/healthz"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(health["browser"], "ok");
        assert_eq!(health["max_runs"], 2);
        let denied = http()
            .get(format!("{base}/v1/schema/plan"))
            .send()
            .await
            .unwrap();
        assert_eq!(denied.status(), 401);
        let allowed = http()
            .get(format!("{base}/v1/schema/plan"))
            .bearer_auth("binary-test-token")
            .send()
            .await
            .unwrap();
        assert_eq!(allowed.status(), 200);
    });
    // SAFETY: signalling a child this test spawned and has not reaped.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "serve did not stop on SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut rest = String::new();
    let _ = std::io::Read::read_to_string(&mut stderr, &mut rest);
    assert_eq!(status.code(), Some(0), "{line}{rest}");
    assert!(rest.contains("shutting down"), "{rest}");
}

#[test]
fn the_service_runs_in_the_headless_shell_when_it_is_installed() {
    let Some(_) = util::browser() else { return };
    const SHELL: &str = "/usr/lib/chromium/chromium-headless-shell";
    if !std::path::Path::new("/usr/bin/chromium-headless-shell").exists() {
        assert!(
            !util::in_ci(),
            "CI=true but Chromium's headless shell is not installed: scripts/test installs it \
             (apt-get install chromium-headless-shell)"
        );
        return;
    }
    // Unnamed, the service picks the shell (Debian's launch script is replaced by the binary)
    // and says so; `$CHROME` still chooses.
    let serving = |chrome: &str| {
        let server = ServeProcess::start(&[], &[("CHROME", chrome)]);
        let said = server.stderr();
        said.lines()
            .find(|l| l.contains("serving on http://"))
            .unwrap_or_else(|| panic!("no serving line: {said}"))
            .to_string()
    };
    let line = serving("");
    assert!(
        line.contains(&format!("runs in Chromium's headless shell {SHELL};")),
        "{line}"
    );
    let line = serving("/usr/bin/chromium");
    assert!(
        line.contains("runs in Chromium /usr/lib/chromium/chromium;"),
        "{line}"
    );
}
