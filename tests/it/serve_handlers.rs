//! The handlers driven with `oneshot` on a state from `AppState::open`: its store on a real
//! PostgreSQL, no upkeep task, the browser launched only when a run needs one. Each answer is
//! checked against the OpenAPI document's schema for it.

use crate::util;
use crate::util::serve::ServeProcess;

use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, header};
use planlock::browser::LaunchOptions;
use planlock::server::{self, AppState, BrowserSource, ServerConfig};
use serde_json::{Value, json};
use tower::ServiceExt;

/// A state opened on `store`, its browser never launched unless a run starts.
fn opened(store: &str, replica: &str, browser: BrowserSource) -> AppState {
    let mut config = ServerConfig::new(browser);
    config.store = Some(store.to_string());
    config.replica.id = replica.to_string();
    config.replica.lease = Duration::from_secs(1);
    config.replica.heartbeat = Duration::from_millis(200);
    config.settings.step_timeout = Duration::from_secs(2);
    util::rt()
        .block_on(AppState::open(config))
        .expect("the store opens")
}

fn unlaunched() -> BrowserSource {
    BrowserSource::Launch(LaunchOptions::default())
}

/// One request through the router, as a client on loopback sends it: status and JSON body.
async fn call(state: &AppState, method: &str, uri: &str, body: Option<Value>) -> (u16, Value) {
    let mut req = Request::builder()
        .method(method)
        .uri(uri)
        .header(header::HOST, "127.0.0.1");
    if body.is_some() {
        req = req.header(header::CONTENT_TYPE, "application/json");
    }
    let body = body.map_or_else(Body::empty, |b| Body::from(b.to_string()));
    let response = server::app(state.clone())
        .oneshot(req.body(body).unwrap())
        .await
        .unwrap();
    let status = response.status().as_u16();
    let bytes = axum::body::to_bytes(response.into_body(), 64 << 20)
        .await
        .unwrap();
    let value = serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("{method} {uri}: not JSON ({e}): {bytes:?}"));
    (status, value)
}

/// The answer fits the document's schema `name`.
fn assert_fits(name: &str, answer: &Value) {
    let doc = server::openapi_document();
    assert!(
        doc["components"]["schemas"][name].is_object(),
        "the document has no {name}"
    );
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": format!("#/components/schemas/{name}"),
        "components": doc["components"],
    });
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(answer)
        .map(|e| format!("{e} at {}", e.instance_path))
        .collect();
    assert!(errors.is_empty(), "{name}: {errors:#?}\n{answer:#}");
}

#[test]
fn an_opened_state_answers_health_lists_and_refusals_without_a_browser() {
    let Some(db) = util::postgres::database() else {
        return;
    };
    let state = opened(&db, "handlers-a", unlaunched());
    util::rt().block_on(async {
        let (status, health) = call(&state, "GET", "/healthz", None).await;
        assert_eq!(status, 200, "{health:#}");
        assert_eq!(health["status"], "ok");
        assert_eq!(health["browser"], "not started", "{health:#}");
        assert_eq!(health["replica"], "handlers-a");
        assert_eq!(health["max_runs"], 4);
        assert_fits("Health", &health);

        let (status, list) = call(&state, "GET", "/v1/runs", None).await;
        assert_eq!(
            (status, list.clone()),
            (200, json!({"runs": [], "next_cursor": null}))
        );
        assert_fits("RunList", &list);

        let (status, e) = call(&state, "GET", "/v1/runs/nosuchrun", None).await;
        assert_eq!(
            (status, &e["error"]["kind"]),
            (404, &json!("run_not_found"))
        );
        assert_fits("ErrorBody", &e);

        let (status, e) = call(&state, "GET", "/v1/runs?status=done", None).await;
        assert_eq!(
            (status, &e["error"]["kind"]),
            (400, &json!("invalid_query"))
        );
        assert!(
            e["error"]["message"].as_str().is_some_and(
                |m| m.ends_with("give one of queued, running, succeeded, failed, cancelled")
            ),
            "{e}"
        );
        assert_fits("ErrorBody", &e);

        let plan = json!({"reasoning": "", "steps": [{"type": "click", "describe": "x"}]});
        let (status, e) = call(&state, "POST", "/v1/runs", Some(json!({"plan": plan}))).await;
        assert_eq!((status, &e["error"]["kind"]), (422, &json!("invalid_plan")));
        assert_eq!(e["error"]["problems"][0]["path"], "steps[0]", "{e:#}");
        assert_fits("ErrorBody", &e);

        let goal = json!({"goal": "sign up at shop.example"});
        let (status, e) = call(&state, "POST", "/v1/plans", Some(goal)).await;
        assert_eq!(
            (status, &e["error"]["kind"]),
            (503, &json!("model_not_configured"))
        );
        assert_fits("ErrorBody", &e);

        let (status, doc) = call(&state, "GET", "/openapi.json", None).await;
        assert_eq!(status, 200);
        assert_eq!(&doc, server::openapi_document());
        let kinds = &doc["components"]["schemas"]["ErrorKind"]["enum"];
        assert!(
            kinds
                .as_array()
                .is_some_and(|k| k.contains(&json!("interrupted"))),
            "{kinds}"
        );

        // None of this needed the browser.
        let (_, health) = call(&state, "GET", "/healthz", None).await;
        assert_eq!(health["browser"], "not started");
    });
}

#[test]
fn a_run_through_an_opened_state_is_kept_in_postgres_and_read_back_by_another() {
    util::site();
    let Some(browser) = util::browser() else {
        return;
    };
    let Some(db) = util::postgres::database() else {
        return;
    };
    let state = opened(&db, "handlers-a", BrowserSource::Shared(browser));
    let other = opened(&db, "handlers-b", unlaunched());
    let site = util::site().url("");
    let plan = json!({"reasoning": "r", "steps": [
        {"type": "navigate", "url": format!("{site}/form.html")},
        {"type": "fill", "describe": "name", "label": "Full name", "value": "{{name}}"},
        {"type": "fill", "describe": "email", "label": "Email address", "value": "ada@example.com"},
        {"type": "click", "describe": "submit", "text": "Create account"},
        {"type": "wait_for_text", "text": "Welcome aboard"},
        {"type": "extract_text", "describe": "confirmation", "selector": "#who"},
        {"type": "done", "summary": "signed up"}]});
    let body = json!({"plan": plan, "vars": {"name": "Ada"}, "allowed_hosts": ["127.0.0.1"]});
    util::rt().block_on(async {
        let (status, result) = call(&state, "POST", "/v1/runs", Some(body)).await;
        assert_eq!(status, 200, "{result:#}");
        assert_eq!(result["status"], "succeeded", "{result:#}");
        assert_eq!(
            result["extracted"][0], "Signed up as ada@example.com for",
            "{result:#}"
        );
        assert_fits("RunResult", &result);
        let id = result["run_id"].as_str().unwrap().to_string();

        let (status, view) = call(&state, "GET", &format!("/v1/runs/{id}"), None).await;
        assert_eq!(status, 200);
        assert_eq!(view, result);
        assert_fits("RunView", &view);

        // Another state on the same database reads the same run: it is in PostgreSQL.
        let (status, view) = call(&other, "GET", &format!("/v1/runs/{id}"), None).await;
        assert_eq!(status, 200);
        assert_eq!(view, result);
        let (status, list) = call(&other, "GET", "/v1/runs?status=succeeded", None).await;
        assert_eq!(status, 200);
        assert_eq!(list["runs"][0]["run_id"], json!(id), "{list:#}");
        assert_eq!(list["runs"][0]["href"], json!(format!("/v1/runs/{id}")));
        assert_fits("RunList", &list);
    });
}

/// `open` spawns no upkeep: a run its replica left in flight stays as the store has it, past
/// the lease; `start` on the same store marks it interrupted at once.
#[test]
fn an_opened_state_sweeps_nothing_and_a_started_one_does() {
    if util::browser().is_none() {
        return;
    }
    util::site();
    let Some(db) = util::postgres::database() else {
        return;
    };
    let site = util::site().url("");
    let waiting = json!({"plan": {"reasoning": "r", "steps": [
        {"type": "navigate", "url": format!("{site}/form.html")},
        {"type": "wait_for_text", "text": "this text never appears", "timeout_seconds": 30},
        {"type": "done", "summary": "never reached"}]},
        "allowed_hosts": ["127.0.0.1"]});
    let mut gone = ServeProcess::start(&["--store", &db, "--replica-id", "gone"], &[]);
    let id = util::rt().block_on(async {
        let http = reqwest::Client::new();
        let accepted: Value = http
            .post(gone.url("/v1/runs"))
            .header("prefer", "respond-async")
            .json(&waiting)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let id = accepted["run_id"].as_str().unwrap().to_string();
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let view: Value = http
                .get(gone.url(&format!("/v1/runs/{id}")))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            if view["status"] == "running" && view["steps"].as_array().is_some_and(|s| s.len() == 2)
            {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the run never got going: {view:#}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        id
    });
    gone.kill();

    // The same replica's name, a lease of 1 s: upkeep, had it run, would sweep this run.
    let state = opened(&db, "gone", unlaunched());
    util::rt().block_on(async {
        tokio::time::sleep(Duration::from_secs(3)).await;
        let (status, view) = call(&state, "GET", &format!("/v1/runs/{id}"), None).await;
        assert_eq!(status, 200);
        assert_eq!(view["status"], "running", "{view:#}");
        assert_fits("RunView", &view);
    });
    drop(state);

    let mut config = ServerConfig::new(unlaunched());
    config.store = Some(db.clone());
    config.replica.id = "gone".to_string();
    let started = util::rt()
        .block_on(AppState::start(config))
        .expect("the service starts");
    util::rt().block_on(async {
        let (status, result) = call(&started, "GET", &format!("/v1/runs/{id}"), None).await;
        assert_eq!(status, 200);
        assert_eq!(result["status"], "failed", "{result:#}");
        assert_eq!(result["error"]["kind"], "interrupted", "{result:#}");
        assert_eq!(result["steps"][0]["status"], "succeeded", "{result:#}");
        assert_fits("RunView", &result);
        started.begin_shutdown();
    });
}

/// The look before planning and a run need the same browser: when it cannot start, both
/// answer the same 503, worded for whoever runs the service.
#[test]
fn a_browser_that_cannot_start_is_answered_alike_by_the_look_and_by_a_run() {
    let Some(db) = util::postgres::database() else {
        return;
    };
    let mut config = ServerConfig::new(BrowserSource::Launch(LaunchOptions {
        executable: Some("/nonexistent/planlock-test-chromium".into()),
        ..LaunchOptions::default()
    }));
    config.store = Some(db);
    // Never called: the look fails first.
    config.planner = Ok(planlock::planner::PlannerConfig {
        model: Some("openai:test-model".to_string()),
        openai: planlock::planner::ProviderAccess {
            api_key: None,
            base_url: Some("http://127.0.0.1:9/v1".to_string()),
        },
        ..Default::default()
    });
    let state = util::rt()
        .block_on(AppState::open(config))
        .expect("the store opens");
    util::rt().block_on(async {
        let plan = json!({"reasoning": "r", "steps": [
            {"type": "wait_seconds", "seconds": 0.1}, {"type": "done", "summary": "s"}]});
        let (status, by_run) = call(&state, "POST", "/v1/runs", Some(json!({"plan": plan}))).await;
        assert_eq!(status, 503, "{by_run:#}");
        assert_eq!(by_run["error"]["kind"], "browser_unavailable");
        assert!(
            by_run["error"]["message"]
                .as_str()
                .unwrap()
                .contains("/nonexistent/planlock-test-chromium"),
            "{by_run:#}"
        );
        assert_fits("ErrorBody", &by_run);
        let goal = json!({"goal": "sign up at https://shop.example", "look": "required"});
        let (status, by_look) = call(&state, "POST", "/v1/plans", Some(goal)).await;
        assert_eq!(status, 503, "{by_look:#}");
        assert_eq!(by_look, by_run);
    });
}
