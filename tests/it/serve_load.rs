//! `planlock serve` under load and at its edges: 32 concurrent runs through a queue in front
//! of 4 slots, 429 with `Retry-After` once the queue is full, the queue on `/healthz` and
//! `/metrics`; webhooks delivered signed, retried, and judged by the address rule.

use crate::serve::{Server, with_browser};
use crate::util;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

fn http() -> reqwest::Client {
    reqwest::Client::new()
}

fn quick_run() -> Value {
    let site = util::site().url("");
    json!({"plan": {"reasoning": "r", "steps": [
        {"type": "navigate", "url": format!("{site}/form.html")},
        {"type": "fill", "describe": "name", "label": "Full name", "value": "Ada"},
        {"type": "click", "describe": "submit", "text": "Create account"},
        {"type": "wait_for_text", "text": "Welcome aboard"},
        {"type": "done", "summary": "signed up"}]},
        "allowed_hosts": ["127.0.0.1"]})
}

async fn health(server: &Server) -> Value {
    http()
        .get(server.url("/healthz"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[test]
fn thirty_two_concurrent_runs_wait_in_the_queue_and_all_end() {
    let Some(mut config) = with_browser() else {
        return;
    };
    config.max_runs = 4;
    config.queue = 28;
    // One caller may take every place here: the server's own bound is what is tested.
    config.max_runs_per_caller = Some(100);
    let server = Server::start(config);
    util::rt().block_on(async {
        // Four runs hold the slots, so the queue fills and stays full.
        let mut holders = Vec::new();
        for _ in 0..4 {
            let response = http()
                .post(server.url("/v1/runs"))
                .header("prefer", "respond-async")
                .json(&util::serve::holding_run(60))
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 202);
            let accepted: Value = response.json().await.unwrap();
            holders.push(accepted["run_id"].as_str().unwrap().to_string());
        }
        let began = Instant::now();
        while health(&server).await["runs_in_flight"] != 4 {
            assert!(began.elapsed() < Duration::from_secs(30));
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        // A queued run cancelled never starts.
        let response = http()
            .post(server.url("/v1/runs"))
            .header("prefer", "respond-async")
            .json(&quick_run())
            .send()
            .await
            .unwrap();
        let queued: Value = response.json().await.unwrap();
        assert_eq!(queued["status"], "queued", "{queued}");
        let id = queued["run_id"].as_str().unwrap();
        let cancelled: Value = http()
            .delete(server.url(&format!("/v1/runs/{id}")))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(cancelled["status"], "cancelled", "{cancelled:#}");
        assert_eq!(cancelled["error"]["kind"], "cancelled");
        assert!(
            cancelled["steps"]
                .as_array()
                .unwrap()
                .iter()
                .all(|s| s["status"] == "skipped"),
            "{cancelled:#}"
        );
        let body = quick_run();
        let runs: Vec<_> = (0..28)
            .map(|_| {
                let request = http().post(server.url("/v1/runs")).json(&body).send();
                tokio::spawn(async move { request.await.unwrap() })
            })
            .collect();
        let began = Instant::now();
        loop {
            let h = health(&server).await;
            assert!(h["runs_in_flight"].as_u64().unwrap() <= 4, "{h}");
            if h["queue_depth"] == 28 {
                assert_eq!(h["runs_in_flight"], 4, "{h}");
                assert_eq!(h["queue_limit"], 28, "{h}");
                break;
            }
            assert!(began.elapsed() < Duration::from_secs(60), "{h}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        // One more than 4 + 28 is turned away, with when to come back.
        let extra = http()
            .post(server.url("/v1/runs"))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(extra.status(), StatusCode::TOO_MANY_REQUESTS);
        let secs: u64 = extra.headers()["retry-after"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!((1..=60).contains(&secs), "{secs}");
        let refused: Value = extra.json().await.unwrap();
        assert_eq!(refused["error"]["kind"], "too_many_runs");
        let metrics = http()
            .get(server.url("/metrics"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(metrics.contains("planlock_queue_depth 28"), "{metrics}");
        // The holders end; the queue drains first come, first served, and every run ends.
        for id in &holders {
            let cancelled: Value = http()
                .delete(server.url(&format!("/v1/runs/{id}")))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            assert_eq!(cancelled["status"], "cancelled", "{cancelled:#}");
        }
        let mut ids = Vec::new();
        for run in runs {
            let response = run.await.unwrap();
            assert_eq!(response.status(), 200);
            let result: Value = response.json().await.unwrap();
            assert_eq!(result["status"], "succeeded", "{result:#}");
            ids.push(result["run_id"].as_str().unwrap().to_string());
        }
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), 28);
        let metrics = http()
            .get(server.url("/metrics"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let succeeded: u64 = metrics
            .lines()
            .find_map(|l| l.strip_prefix("planlock_runs_total{status=\"succeeded\"} "))
            .unwrap()
            .parse()
            .unwrap();
        assert!(succeeded >= 28, "{metrics}");
        assert!(
            metrics.contains("planlock_step_duration_seconds_count{type=\"fill\"}"),
            "{metrics}"
        );
        assert!(metrics.contains("planlock_queue_depth 0"), "{metrics}");
        // Every run is listed, newest first, a page at a time.
        let mut listed = Vec::new();
        let mut next: Option<String> = None;
        loop {
            let path = match &next {
                Some(c) => format!("/v1/runs?limit=10&status=succeeded&cursor={c}"),
                None => "/v1/runs?limit=10&status=succeeded".to_string(),
            };
            let page: Value = http()
                .get(server.url(&path))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            let runs = page["runs"].as_array().unwrap();
            assert!(runs.len() <= 10);
            listed.extend(
                runs.iter()
                    .map(|r| r["run_id"].as_str().unwrap().to_string()),
            );
            match page["next_cursor"].as_str() {
                Some(c) => next = Some(c.to_string()),
                None => break,
            }
        }
        let mut sorted = listed.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), listed.len(), "a run listed twice");
        for id in &ids {
            assert!(listed.contains(id), "{id} not listed");
        }
        let bad: Value = http()
            .get(server.url("/v1/runs?status=done"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(bad["error"]["kind"], "invalid_query", "{bad}");
        let response = http()
            .get(server.url("/v1/runs?cursor=bm90LWEtY3Vyc29y"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 400);
    });
}

/// A webhook receiver on loopback: answers the first `fail_first` deliveries with 500, then
/// 200, recording each delivery's headers and body.
struct Receiver {
    url: String,
    got: Arc<Mutex<Vec<(HeaderMap, Bytes)>>>,
}

impl Receiver {
    fn start(fail_first: usize) -> Receiver {
        let got: Arc<Mutex<Vec<(HeaderMap, Bytes)>>> = Arc::default();
        let recorded = got.clone();
        let app = Router::new().route(
            "/hook",
            post(move |headers: HeaderMap, body: Bytes| {
                let recorded = recorded.clone();
                async move {
                    let mut got = recorded.lock().unwrap();
                    got.push((headers, body));
                    if got.len() <= fail_first {
                        StatusCode::INTERNAL_SERVER_ERROR
                    } else {
                        StatusCode::OK
                    }
                }
            }),
        );
        let listener = util::rt()
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        util::rt().spawn(async move { axum::serve(listener, app).await });
        Receiver { url, got }
    }

    fn deliveries(&self) -> Vec<(HeaderMap, Bytes)> {
        self.got.lock().unwrap().clone()
    }
}

const WEBHOOK_SECRET: &str = "whsec-test-0123456789";

/// Checks `Planlock-Signature: t=…,v1=…` against the body, computed here independently.
fn verify(headers: &HeaderMap, body: &[u8]) {
    let header = headers["planlock-signature"].to_str().unwrap();
    let (t, v1) = header
        .split_once(',')
        .map(|(t, v)| {
            (
                t.strip_prefix("t=").unwrap(),
                v.strip_prefix("v1=").unwrap(),
            )
        })
        .unwrap();
    let t: i64 = t.parse().unwrap();
    assert!((chrono::Utc::now().timestamp() - t).abs() < 60, "{header}");
    let mut mac = Hmac::<Sha256>::new_from_slice(WEBHOOK_SECRET.as_bytes()).unwrap();
    mac.update(format!("{t}.").as_bytes());
    mac.update(body);
    let expected: String = mac
        .finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(v1, expected, "the signature does not match the body");
}

#[test]
fn a_webhook_is_signed_retried_and_never_holds_up_the_run() {
    let Some(mut config) = with_browser() else {
        return;
    };
    config.webhook.secret = Some(WEBHOOK_SECRET.to_string());
    config.webhook.retries = vec![
        Duration::from_millis(200),
        Duration::from_millis(400),
        Duration::from_millis(400),
    ];
    let receiver = Receiver::start(2);
    let server = Server::start(config);
    util::rt().block_on(async {
        let body = util::serve::hooked(quick_run(), &receiver.url);
        let response = http()
            .post(server.url("/v1/runs"))
            .header("prefer", "respond-async")
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 202);
        let id = response.json::<Value>().await.unwrap()["run_id"]
            .as_str()
            .unwrap()
            .to_string();
        let deadline = Instant::now() + Duration::from_secs(30);
        let view = loop {
            let view: Value = http()
                .get(server.url(&format!("/v1/runs/{id}")))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            if view["callback"]["status"] == "delivered" {
                break view;
            }
            assert!(Instant::now() < deadline, "{view:#}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        assert_eq!(view["status"], "succeeded");
        assert_eq!(view["callback"]["attempts"], 3, "{view:#}");
        let deliveries = receiver.deliveries();
        assert_eq!(deliveries.len(), 3);
        for (headers, body) in &deliveries {
            verify(headers, body);
            assert_eq!(headers["planlock-run-id"], id.as_str());
            assert_eq!(headers["content-type"], "application/json");
            let result: Value = serde_json::from_slice(body).unwrap();
            assert_eq!(result["run_id"], json!(id));
            assert_eq!(result["status"], "succeeded");
        }
        // A body changed in transit no longer matches its signature.
        let (headers, body) = &deliveries[2];
        let mut tampered = body.to_vec();
        tampered.extend_from_slice(b" ");
        let caught = std::panic::catch_unwind(|| verify(headers, &tampered));
        assert!(caught.is_err(), "a tampered body verified");
    });
}

#[test]
fn a_webhook_to_a_private_address_needs_allowing_and_a_server_secret() {
    let Some(mut config) = with_browser() else {
        return;
    };
    config.webhook.secret = Some(WEBHOOK_SECRET.to_string());
    let receiver = Receiver::start(0);
    let server = Server::start(config);
    let Some(unsigned) = with_browser() else {
        return;
    };
    let unsigned = Server::start(unsigned);
    util::rt().block_on(async {
        let mut body = quick_run();
        body["allowed_hosts"] = json!([]);
        body["plan"]["steps"] = json!([{"type": "done", "summary": "nothing"}]);
        body["callback_url"] = json!(receiver.url);
        let response = http()
            .post(server.url("/v1/runs"))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 422);
        let error: Value = response.json().await.unwrap();
        assert_eq!(error["error"]["kind"], "lock_refused", "{error}");
        let message = error["error"]["message"].as_str().unwrap();
        assert!(message.starts_with("callback_url: "), "{message}");
        assert!(message.contains("127.0.0.1"), "{message}");
        // Cloud metadata stays refused even by name of a link-local address.
        body["callback_url"] = json!("http://169.254.169.254/latest/meta-data/");
        let response = http()
            .post(server.url("/v1/runs"))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 422);
        // A server without PLANLOCK_WEBHOOK_SECRET cannot sign: it refuses callbacks.
        body["callback_url"] = json!(receiver.url);
        body["allowed_hosts"] = json!(["127.0.0.1"]);
        let response = unsigned.post_json("/v1/runs", &body).await;
        assert_eq!(response.0, 422);
        assert_eq!(
            response.1["error"]["kind"], "invalid_callback",
            "{}",
            response.1
        );
        assert!(
            response.1["error"]["message"]
                .as_str()
                .unwrap()
                .contains("PLANLOCK_WEBHOOK_SECRET")
        );
        assert!(receiver.deliveries().is_empty());
    });
}

/// A webhook is judged by the run's own lock, as its pages are: where the plan names one
/// port of an allowed `127.0.0.1`, the lock allows that port only (the others are other
/// services), so a receiver on another loopback port is refused; named with its port in
/// `allowed_hosts`, it is allowed and gets the result.
#[test]
fn a_webhook_is_judged_by_the_runs_own_lock() {
    let Some(mut config) = with_browser() else {
        return;
    };
    config.webhook.secret = Some(WEBHOOK_SECRET.to_string());
    let receiver = Receiver::start(0);
    let server = Server::start(config);
    let port_of = |url: &str| url::Url::parse(url).unwrap().port().unwrap();
    let hook_port = port_of(&receiver.url);
    let site_port = port_of(&util::site().url(""));
    util::rt().block_on(async {
        let mut body = quick_run();
        body["callback_url"] = json!(receiver.url);
        let (status, error) = server.post_json("/v1/runs", &body).await;
        assert_eq!(status, 422, "{error}");
        assert_eq!(error["error"]["kind"], "lock_refused", "{error}");
        let message = error["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("callback_url: ")
                && message.contains(&format!("127.0.0.1:{hook_port}"))
                && message.contains(&format!("127.0.0.1:{site_port}")),
            "{message}"
        );
        body["allowed_hosts"] = json!([
            format!("127.0.0.1:{site_port}"),
            format!("127.0.0.1:{hook_port}")
        ]);
        let (status, result) = server.post_json("/v1/runs", &body).await;
        assert_eq!(status, 200, "{result}");
        assert_eq!(result["status"], "succeeded", "{result:#}");
        let deadline = Instant::now() + Duration::from_secs(30);
        while receiver.deliveries().is_empty() {
            assert!(Instant::now() < deadline, "the webhook never came");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
}

impl Server {
    async fn post_json(&self, path: &str, body: &Value) -> (u16, Value) {
        let response = http().post(self.url(path)).json(body).send().await.unwrap();
        (response.status().as_u16(), response.json().await.unwrap())
    }
}

/// A callback at the service's own API would have it POST to itself, with retries: refused
/// before anything runs, as a run's page is refused that address. Its address spelt as IPv6
/// (IPv4-compatible `[::127.0.0.1]`, IPv4-mapped `[::ffff:127.0.0.1]`) is its address too,
/// even where the request allows that spelling as a host.
#[test]
fn a_callback_at_the_services_own_address_is_refused() {
    let Some(mut config) = with_browser() else {
        return;
    };
    config.webhook.secret = Some(WEBHOOK_SECRET.to_string());
    let server = Server::start(config);
    util::rt().block_on(async {
        let api = server.url("/v1/runs");
        let spelt = |host: &str| api.replace("127.0.0.1", host);
        for (own, allowed) in [
            (api.clone(), "127.0.0.1"),
            (server.url("/healthz"), "127.0.0.1"),
            (spelt("[::127.0.0.1]"), "[::127.0.0.1]"),
            (spelt("[::7f00:1]"), "::7f00:1"),
            (spelt("[::ffff:127.0.0.1]"), "[::ffff:127.0.0.1]"),
        ] {
            let mut body = quick_run();
            body["callback_url"] = json!(own);
            body["allowed_hosts"] = json!(["127.0.0.1", allowed]);
            let (status, error) = server.post_json("/v1/runs", &body).await;
            assert_eq!(status, 422, "{own}: {error}");
            assert_eq!(error["error"]["kind"], "lock_refused", "{error}");
            let message = error["error"]["message"].as_str().unwrap();
            assert!(
                message.starts_with("callback_url: ")
                    && message.contains("this service's own address"),
                "{own}: {message}"
            );
        }
    });
}

/// An unspecified address reaches this machine on every port: it is never an allowed host.
#[test]
fn an_unspecified_address_is_never_an_allowed_host() {
    let Some(config) = with_browser() else {
        return;
    };
    let server = Server::start(config);
    util::rt().block_on(async {
        for host in [
            "0.0.0.0",
            "0.0.0.0:9222",
            "::",
            "[::]:9222",
            "http://0.0.0.0:8080/",
            "[::ffff:0.0.0.0]",
            "[::ffff:0.0.0.0]:9222",
            "::ffff:0:0",
            "http://[0:0:0:0:0:ffff:0.0.0.0]:8080/",
        ] {
            let mut body = quick_run();
            body["allowed_hosts"] = json!(["127.0.0.1", host]);
            let (status, error) = server.post_json("/v1/runs", &body).await;
            assert_eq!(status, 422, "{host}: {error}");
            let message = error["error"]["message"].as_str().unwrap();
            assert!(
                message.contains("unspecified address") && message.contains("127.0.0.1"),
                "{host}: {message}"
            );
        }
    });
}

/// One caller cannot take every slot and the whole queue: beyond `--max-runs-per-caller`
/// its runs are answered 429 with a sentence and `Retry-After`, and another caller's run
/// still gets in.
#[test]
fn one_caller_holds_at_most_its_share_of_the_runs() {
    let Some(mut config) = with_browser() else {
        return;
    };
    config.max_runs = 2;
    config.queue = 8;
    config.max_runs_per_caller = Some(2);
    let server = Server::start(config);
    let from = |ip: [u8; 4]| {
        reqwest::Client::builder()
            .local_address(std::net::IpAddr::from(ip))
            .build()
            .unwrap()
    };
    util::rt().block_on(async {
        let post = |client: reqwest::Client, body: Value| {
            let url = server.url("/v1/runs");
            async move {
                client
                    .post(url)
                    .header("prefer", "respond-async")
                    .json(&body)
                    .send()
                    .await
                    .unwrap()
            }
        };
        let mut ids = Vec::new();
        for _ in 0..2 {
            let response = post(from([127, 0, 0, 1]), util::serve::holding_run(60)).await;
            assert_eq!(response.status(), 202);
            let accepted: Value = response.json().await.unwrap();
            ids.push(accepted["run_id"].as_str().unwrap().to_string());
        }
        let response = post(from([127, 0, 0, 1]), util::serve::holding_run(60)).await;
        assert_eq!(response.status(), 429);
        let retry: u64 = response.headers()["retry-after"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!((1..=60).contains(&retry), "{retry}");
        let error: Value = response.json().await.unwrap();
        assert_eq!(
            error["error"]["kind"], "too_many_runs_for_caller",
            "{error}"
        );
        let message = error["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("2 runs")
                && message.contains("the most one caller may")
                && !message.contains("--"),
            "{message}"
        );
        // Another caller is not kept out by the first one's runs.
        let response = post(from([127, 0, 0, 2]), quick_run()).await;
        assert_eq!(response.status(), 202, "{:?}", response.text().await);
        for id in ids {
            let response = http()
                .delete(server.url(&format!("/v1/runs/{id}")))
                .send()
                .await
                .unwrap();
            assert!(response.status().is_success(), "{}", response.status());
        }
    });
}
