//! What a request names is what the lock allows: a host given with a port allows that port
//! only (on the command line and in the service); in the service, a name allows only the
//! addresses it resolved to when the lock was made, a private one only when that address is
//! listed itself, and a run never reaches the service's own API. On real Chromium and a real
//! `planlock serve`, loopback only.

use std::time::Duration;

use planlock::error::ErrorKind;
use planlock::lock::AddressPolicy;
use planlock::runner::{RunSpec, RunStatus, Secrets, Settings};
use serde_json::{Value, json};

use crate::util::serve::ServeProcess;
use crate::util::{self, Attacker, need_browser, site};

/// How long a late request to the attacker would take to show up.
const GRACE: Duration = Duration::from_millis(300);

fn quick() -> Settings {
    Settings {
        step_timeout: Duration::from_secs(5),
        ..Settings::default()
    }
}

fn enc(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

fn assert_untouched(a: &Attacker) {
    std::thread::sleep(GRACE);
    let hits = a.hits();
    assert!(hits.is_empty(), "{} was reached: {hits:?}", a.addr);
}

/// A plan that opens the site's redirect to `to`.
fn redirect_plan(to: &str) -> String {
    format!(
        r#"{{"reasoning":"","steps":[
        {{"type":"navigate","url":"{}/redirect?to={}"}},
        {{"type":"done","summary":"ok"}}]}}"#,
        site().url(""),
        enc(to)
    )
}

/// A plan whose page frames, fetches, loads an image from and opens a WebSocket to `to`.
fn probe_plan(to: &str) -> String {
    format!(
        r#"{{"reasoning":"","steps":[
        {{"type":"navigate","url":"{}/tpl/probe-private.html?to={}"}},
        {{"type":"wait_for_text","text":"widgets settled","timeout_seconds":5}},
        {{"type":"done","summary":"ok"}}]}}"#,
        site().url(""),
        enc(to)
    )
}

#[test]
fn allow_host_with_a_port_allows_that_port_only_on_the_command_line() {
    need_browser!();
    // Another service on the site's own address: a redirect there is refused, however the
    // allowed host is written.
    let site_port = site().addr.port();
    for allowed in [
        format!("127.0.0.1:{site_port}"),
        format!("http://127.0.0.1:{site_port}/"),
    ] {
        let a = Attacker::start_beside_the_site();
        let dir = tempfile::tempdir().unwrap();
        let plan = dir.path().join("plan.json");
        std::fs::write(&plan, redirect_plan(&format!("http://{}/x", a.addr))).unwrap();
        let out = util::planlock()
            .arg("run")
            .arg(&plan)
            .args(["--allow-host", &allowed, "--json", "--timeout", "30"])
            .output()
            .unwrap();
        let result: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
        assert_eq!(
            out.status.code(),
            Some(1),
            "--allow-host {allowed}: {result}"
        );
        assert_eq!(result["error"]["kind"], "lock_refused", "{result}");
        let message = result["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with(&format!(
                "[plan] {} is not part of this run. This run may visit: 127.0.0.1:{site_port}.",
                a.addr
            )),
            "{message}"
        );
        assert_untouched(&a);
    }
}

#[test]
fn in_the_service_an_allowed_port_bounds_navigations_and_sub_resources() {
    need_browser!();
    let site_port = site().addr.port();
    // Allowed with its port, or allowed without one while the plan names that port: either
    // way the address's other ports are other services.
    for allowed in [format!("127.0.0.1:{site_port}"), "127.0.0.1".to_string()] {
        let a = Attacker::start_beside_the_site();
        let spec = |json: &str| {
            RunSpec::new(util::plan(json))
                .allow_host(&allowed)
                .address_policy(AddressPolicy::Service)
                .settings(quick())
        };
        let (result, _) = util::run_spec(spec(&redirect_plan(&format!("http://{}/x", a.addr))));
        assert_eq!(
            result.status,
            RunStatus::Failed,
            "{allowed}: {}",
            result.summary
        );
        let error = result.error.expect("refused");
        assert_eq!(error.kind, ErrorKind::LockRefused, "{}", error.message);
        let (result, _) = util::run_spec(spec(&probe_plan(&format!("http://{}", a.addr))));
        util::assert_succeeded(&result);
        assert!(
            result.refused >= 4,
            "{allowed}: the frame, image, fetch and WebSocket to {} were refused: refused = {}",
            a.addr,
            result.refused
        );
        assert_untouched(&a);
    }
}

#[test]
fn in_the_service_a_name_brings_no_private_address_with_it() {
    need_browser!();
    let site_port = site().addr.port();
    let page = format!("http://localhost:{site_port}/form.html");
    let plan = |url: &str| {
        util::plan(&format!(
            r#"{{"reasoning":"","steps":[{{"type":"navigate","url":"{url}"}},
            {{"type":"done","summary":"ok"}}]}}"#
        ))
    };
    // `localhost` is listed, the loopback address it resolves to is not: refused before any
    // page is read, with the address to list.
    let refused = util::rt().block_on(
        RunSpec::new(plan(&page))
            .allow_host("localhost")
            .address_policy(AddressPolicy::Service)
            .lock(),
    );
    let e = refused
        .err()
        .expect("localhost alone is refused")
        .to_string();
    assert!(e.contains("localhost resolves to 127.0.0.1"), "{e}");
    // Listed with its address (on the site's port), the name reaches that address on that
    // port, and nothing else of it.
    let a = Attacker::start_beside_the_site();
    let spec = RunSpec::new(util::plan(
        &probe_plan(&format!("http://{}", a.addr))
            .replace(&site().url(""), &format!("http://localhost:{site_port}")),
    ))
    .allow_hosts(["localhost".to_string(), format!("127.0.0.1:{site_port}")])
    .address_policy(AddressPolicy::Service)
    .settings(quick());
    let (result, _) = util::run_spec(spec);
    util::assert_succeeded(&result);
    assert!(result.refused >= 4, "refused = {}", result.refused);
    assert_untouched(&a);
}

/// Posts a run to a real service and returns its status and body.
fn post(server: &ServeProcess, body: &Value, headers: &[(&str, &str)]) -> (u16, Value) {
    util::rt().block_on(async {
        let mut req = reqwest::Client::new()
            .post(server.url("/v1/runs"))
            .header("content-type", "application/json")
            .body(body.to_string());
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let response = req.send().await.unwrap();
        let status = response.status().as_u16();
        let text = response.text().await.unwrap();
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    })
}

#[test]
fn a_service_request_naming_localhost_must_list_its_address() {
    need_browser!();
    let server = ServeProcess::start(&[], &[]);
    let site_port = site().addr.port();
    let plan = json!({"reasoning": "", "steps": [
        {"type": "navigate", "url": format!("http://localhost:{site_port}/form.html")},
        {"type": "done", "summary": "ok"}]});
    let (status, body) = post(
        &server,
        &json!({"plan": plan, "allowed_hosts": ["localhost"]}),
        &[],
    );
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["error"]["kind"], "lock_refused", "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("localhost resolves to 127.0.0.1")
            && message.contains(r#"add "127.0.0.1" to `allowed_hosts`"#),
        "{message}"
    );
    let (status, body) = post(
        &server,
        &json!({"plan": plan, "allowed_hosts": ["localhost", format!("127.0.0.1:{site_port}")]}),
        &[],
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["status"], "succeeded", "{body}");
}

#[test]
fn a_service_run_never_reaches_the_service_itself() {
    need_browser!();
    let server = ServeProcess::start(&[], &[]);
    let site_port = site().addr.port();
    let own = server.authority().to_string();
    // Even with the service's port listed, a page's frame, image, fetch and WebSocket to the
    // API are refused, and the API never sees them.
    let plan: Value = serde_json::from_str(&probe_plan(&format!("http://{own}"))).unwrap();
    let (status, body) = post(
        &server,
        &json!({"plan": plan, "allowed_hosts": [format!("127.0.0.1:{site_port}"), own]}),
        &[],
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["status"], "succeeded", "{body}");
    assert!(body["refused"].as_u64().unwrap() >= 4, "{body}");
    std::thread::sleep(GRACE);
    let log = server.stderr();
    for path in ["/frame", "/pixel.png", "/fetch", "/socket"] {
        assert!(
            !log.contains(&format!("path={path}"))
                && !log.contains(&format!("\"path\":\"{path}\"")),
            "the API answered the run's {path}: {log}"
        );
    }
    // A navigation there is refused with the reason.
    let plan: Value =
        serde_json::from_str(&redirect_plan(&format!("http://{own}/healthz"))).unwrap();
    let (_, body) = post(
        &server,
        &json!({"plan": plan, "allowed_hosts": [format!("127.0.0.1:{site_port}"), own]}),
        &[],
    );
    assert_eq!(body["error"]["kind"], "lock_refused", "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("is this service's own address"),
        "{body}"
    );
}

#[test]
fn every_ipv6_spelling_of_a_private_ipv4_address_is_refused_by_the_service() {
    need_browser!();
    let server = ServeProcess::start(&[], &[]);
    for host in [
        "[::127.0.0.1]",
        "[::ffff:0:127.0.0.1]",
        "[2002:7f00:1::1]",
        "[64:ff9b::a9fe:a9fe]",
        "[2002:a9fe:a9fe::1]",
    ] {
        let plan = json!({"reasoning": "", "steps": [
            {"type": "navigate", "url": format!("http://{host}:8080/")},
            {"type": "done", "summary": "ok"}]});
        let (status, body) = post(
            &server,
            &json!({"plan": plan}),
            &[("prefer", "respond-async")],
        );
        assert_eq!(status, 422, "{host}: {body}");
        assert_eq!(body["error"]["kind"], "lock_refused", "{host}: {body}");
    }
}

#[test]
fn the_fill_check_never_quotes_a_secret_the_page_rewrote() {
    need_browser!();
    let secret = "correct-horse-42";
    for (label, rewritten, how) in [
        (
            "Password (shouted)",
            "CORRECT-HORSE-42",
            "another letter case",
        ),
        (
            "Password (short)",
            "correct-ho",
            "the first 10 of 16 characters",
        ),
    ] {
        let plan = util::plan(&format!(
            r#"{{"reasoning":"","steps":[
            {{"type":"navigate","url":"{{SITE}}/rewrite.html"}},
            {{"type":"fill","describe":"the password field","label":"{label}","value":"{{{{secret.PW}}}}"}},
            {{"type":"done","summary":"ok"}}]}}"#
        ));
        let given = [("PW".to_string(), secret.to_string())]
            .into_iter()
            .collect();
        let (result, events) = util::run_spec(
            RunSpec::new(plan)
                .allow_host("127.0.0.1")
                .secrets(Secrets::none().with_given(given))
                .settings(quick()),
        );
        assert_eq!(result.status, RunStatus::Failed, "{label}");
        let message = result.error.as_ref().unwrap().message.clone();
        assert!(message.contains(how), "{label}: {message}");
        let everything = format!(
            "{}\n{}",
            serde_json::to_string(&result).unwrap(),
            events
                .iter()
                .map(|e| serde_json::to_string(e).unwrap())
                .collect::<Vec<_>>()
                .join("\n")
        );
        for leaked in [secret, rewritten] {
            assert!(
                !everything.contains(leaked),
                "{label}: {leaked:?} is in the run's output: {message}"
            );
        }
    }
}
