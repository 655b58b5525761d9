//! What the service answers when the library refuses a request: every such error, provoked
//! over real HTTP against the real `planlock serve` (in-process only where a real server
//! cannot be made to fail so), is worded for a caller of the API. It names the request's
//! fields (`inbox[0]`, `vars.NAME`, `allowed_hosts`), never a command-line flag: what the
//! server is configured with is said as such, and that its operator can change it.

use crate::util;
use crate::util::model::FakeModel;
use crate::util::serve::ServeProcess;

use axum::body::Body;
use axum::http::Request;
use planlock::browser::LaunchOptions;
use planlock::server::{self, AppState, BrowserSource, ServerConfig};
use serde_json::{Value, json};
use tower::ServiceExt;

/// Every `--flag` of `message`: a caller of the API cannot change how the server was
/// started, so no message it gets names a flag, not even as the operator's command.
fn flags_for_callers(message: &str) -> Vec<String> {
    message
        .split_whitespace()
        .filter(|w| {
            w.find("--")
                .is_some_and(|at| w[at + 2..].starts_with(|c: char| c.is_ascii_lowercase()))
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn the_check_finds_every_flag() {
    assert_eq!(
        flags_for_callers("unknown variable `{{x}}`; pass it with `--var x=VALUE`"),
        ["`--var"]
    );
    assert_eq!(
        flags_for_callers("inbox[0]: --inbox `imap://b@h`: no password"),
        ["--inbox"]
    );
    assert_eq!(
        flags_for_callers("no Chromium found: install it, or pass --browser PATH"),
        ["--browser"]
    );
    assert_eq!(
        flags_for_callers("(it has none: planlock serve --inbox NAME=URL); text read -- fixed"),
        ["--inbox"]
    );
    assert!(
        flags_for_callers("this server keeps finished runs for 7 days; its operator can add it")
            .is_empty()
    );
}

/// What one request provoked: where it went, what it sent, and what the service said.
struct Answer {
    case: String,
    status: u16,
    body: Value,
}

impl Answer {
    fn message(&self) -> &str {
        self.body["error"]["message"].as_str().unwrap_or_default()
    }

    /// The status and kind expected, and a message in the API's words.
    fn expect(&self, status: u16, kind: &str, says: &str) {
        let Answer { case, body, .. } = self;
        assert_eq!(self.status, status, "{case}: {body}");
        assert_eq!(body["error"]["kind"], kind, "{case}: {body}");
        assert!(self.message().contains(says), "{case}: {body}");
        let mut sentences = vec![self.message().to_string()];
        if let Some(problems) = body["error"]["problems"].as_array() {
            sentences.extend(problems.iter().map(|p| p["message"].to_string()));
        }
        for sentence in sentences {
            let flags = flags_for_callers(&sentence);
            assert!(flags.is_empty(), "{case}: {flags:?} in {sentence}");
        }
    }
}

async fn post(server: &ServeProcess, path: &str, case: &str, body: Value) -> Answer {
    let response = reqwest::Client::new()
        .post(server.url(path))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    Answer {
        case: format!("{case}: POST {path} {body}"),
        status,
        body: response.json().await.unwrap_or(Value::Null),
    }
}

fn plan(steps: Value) -> Value {
    let mut steps = steps.as_array().cloned().unwrap_or_default();
    steps.push(json!({"type": "done", "summary": "done"}));
    json!({"reasoning": "", "steps": steps})
}

fn runs(steps: Value) -> Value {
    json!({"plan": plan(steps)})
}

#[test]
fn no_error_the_service_answers_names_a_command_line_flag() {
    if util::browser().is_none() {
        return;
    }
    let model = FakeModel::openai_plan(plan(json!([
        {"type": "navigate", "url": "https://shop.example/?c={{coupon}}"}
    ])));
    let cache = tempfile::tempdir().unwrap();
    let model_url = model.openai_url();
    let cache_dir = cache.path().display().to_string();
    let server = ServeProcess::start(
        &["--allow-request-inboxes", "--secret", "PW@127.0.0.1"],
        &[
            ("PLANLOCK_SECRET_PW", "correct horse battery"),
            ("PLANLOCK_MODEL", "openai:test-model"),
            ("OPENAI_BASE_URL", &model_url),
            ("PLANLOCK_CACHE_DIR", &cache_dir),
        ],
    );
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed_port = closed.local_addr().unwrap().port();
    // Held open, so a receiver asked for on this port cannot listen.
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let busy_port = busy.local_addr().unwrap().port();
    drop(closed);
    let wait = json!([{"type": "wait_for_email", "subject": "hi", "timeout_seconds": 5}]);
    let fine = json!([{"type": "wait_seconds", "seconds": 0.1}]);
    util::rt().block_on(async {
        let s = &server;

        // Variables.
        let a = post(
            s,
            "/v1/runs",
            "unknown variable",
            runs(json!([
                {"type": "navigate", "url": "https://shop.example/?c={{coupon}}"}
            ])),
        )
        .await;
        a.expect(422, "invalid_plan", "unknown variable `{{coupon}}`");
        let problem = a.body["error"]["problems"][0]["message"].as_str().unwrap();
        assert!(problem.ends_with("; give it in `vars`"), "{problem}");
        for (name, says) in [
            ("1st", "vars.1st: a name is"),
            ("run_id", "vars.run_id: the name is built in"),
        ] {
            let mut body = runs(fine.clone());
            body["vars"] = Value::Object([(name.to_string(), json!("x"))].into_iter().collect());
            post(s, "/v1/runs", "bad variable", body)
                .await
                .expect(422, "invalid_variables", says);
        }
        let mut body = runs(fine.clone());
        body["secrets"] = json!({"1x": "v"});
        post(s, "/v1/runs", "bad secret name", body).await.expect(
            422,
            "invalid_variables",
            "secrets.1x",
        );
        post(
            s,
            "/v1/runs",
            "missing secret",
            runs(json!([
                {"type": "navigate", "url": "https://shop.example/"},
                {"type": "fill", "describe": "pw", "label": "Password", "value": "{{secret.NOPE}}"}
            ])),
        )
        .await
        .expect(
            422,
            "invalid_variables",
            "give it in the request's `secrets`",
        );
        let mut body = runs(json!([
            {"type": "navigate", "url": "http://127.0.0.2:9/?s={{secret.PW}}"}
        ]));
        body["allowed_hosts"] = json!(["127.0.0.1", "127.0.0.2"]);
        post(s, "/v1/runs", "secret outside its hosts", body)
            .await
            .expect(422, "secret_not_allowed", "secret.PW");
        let mut body = runs(json!([{"type": "navigate", "url": "{{base}}/signup"}]));
        body["vars"] = json!({"base": "ftp://shop.example"});
        post(s, "/v1/runs", "navigate URL with its variables", body)
            .await
            .expect(422, "invalid_plan", "steps[0].url");

        // The plan and the lock.
        post(
            s,
            "/v1/runs",
            "invalid plan",
            json!({"plan": {"reasoning": "", "steps": [
            {"type": "wait_for_mail"}]}}),
        )
        .await
        .expect(422, "invalid_plan", "did you mean `wait_for_email`");
        post(s, "/v1/runs", "plan not an object", json!({"plan": 3}))
            .await
            .expect(422, "invalid_plan", "`plan` must be a plan object");
        let mut body = runs(fine.clone());
        body["allowed_hosts"] = json!(["not a host"]);
        post(s, "/v1/runs", "bad allowed host", body).await.expect(
            422,
            "invalid_allowed_hosts",
            "allowed_hosts: `not a host`",
        );
        post(
            s,
            "/v1/runs",
            "private address",
            runs(json!([
                {"type": "navigate", "url": "http://10.0.0.1/"}
            ])),
        )
        .await
        .expect(422, "lock_refused", "to `allowed_hosts`");

        // Inboxes the steps need.
        post(s, "/v1/runs", "no inbox", runs(wait.clone()))
            .await
            .expect(422, "invalid_inbox", "pass `inbox`");
        post(
            s,
            "/v1/runs",
            "unbound named inbox",
            runs(json!([
                {"type": "wait_for_email", "inbox_id": "work", "subject": "hi"}
            ])),
        )
        .await
        .expect(422, "invalid_inbox", "add \"work=URL\" to `inbox`");
        post(
            s,
            "/v1/runs",
            "no inbox address",
            runs(json!([
                {"type": "navigate", "url": "https://shop.example/"},
                {"type": "fill", "describe": "e", "label": "Email", "value": "{{inbox_address}}"}
            ])),
        )
        .await
        .expect(422, "invalid_inbox", "pass `inbox`");
        let mut body = runs(wait.clone());
        body["inbox"] = json!("support");
        post(s, "/v1/runs", "unknown server inbox", body)
            .await
            .expect(
                422,
                "invalid_inbox",
                "inbox[0]: this server has no inbox named `support`",
            );

        // Inbox URLs the request brings.
        for (url, says) in [
            (
                "imap://bob@127.0.0.1/INBOX?address=b@x.test",
                "inbox[0]: no password",
            ),
            ("pop3://b:pw@127.0.0.1/", "inbox[0]: the scheme `pop3`"),
            (
                "my inbox=imap://b:pw@127.0.0.1/?address=a@b.test",
                "the inbox name `my inbox`",
            ),
            (
                "imap://b:pw@127.0.0.1/?address=a@b.test&plus=maybe",
                "plus=`maybe`",
            ),
            (
                "imap://b:p%zz@127.0.0.1/?address=a@b.test",
                "the password has a `%`",
            ),
            (
                "imap://b:pw@127.0.0.1/?adress=a@b.test",
                "unknown parameter `adress`",
            ),
            ("smtp://127.0.0.1:0", "inbox[0]: no domain"),
            ("smtp://0.0.0.0:0?domain=d.test", "listens on loopback only"),
        ] {
            let mut body = runs(wait.clone());
            body["inbox"] = json!(url);
            let a = post(s, "/v1/runs", "bad inbox URL", body).await;
            a.expect(422, "invalid_inbox", says);
            assert!(!a.message().contains(":pw@"), "{}", a.message());
        }
        let mut body = runs(fine.clone());
        body["inbox"] = json!([
            "a=smtp://127.0.0.1:0?domain=d.test",
            "a=smtp://127.0.0.1:0?domain=d.test"
        ]);
        post(s, "/v1/runs", "inbox twice", body).await.expect(
            422,
            "invalid_inbox",
            "inbox[1]: the inbox name `a` is given twice",
        );
        let imap = format!("imap://b:pw@127.0.0.1:{closed_port}/?address=a@b.test");
        let mut body = runs(wait.clone());
        body["inbox"] = json!(imap);
        post(s, "/v1/runs", "inbox on a private address", body)
            .await
            .expect(422, "lock_refused", "inbox[0]: ");
        let mut body = runs(wait.clone());
        body["inbox"] = json!(imap);
        body["allowed_hosts"] = json!([format!("127.0.0.1:{closed_port}")]);
        post(s, "/v1/runs", "inbox unreachable", body).await.expect(
            503,
            "inbox_unavailable",
            "is unreachable: cannot connect",
        );
        let mut body = runs(wait.clone());
        body["inbox"] = json!(format!("smtp://127.0.0.1:{busy_port}?domain=d.test"));
        post(s, "/v1/runs", "receiver cannot listen", body)
            .await
            .expect(
                503,
                "inbox_unavailable",
                "inbox[0]: cannot start the embedded SMTP receiver",
            );
        let mut body = runs(fine.clone());
        body["callback_url"] = json!("https://hooks.example/x");
        post(s, "/v1/runs", "callback without a signing secret", body)
            .await
            .expect(422, "invalid_callback", "callback_url: ");

        // Planning.
        post(s, "/v1/plans", "empty goal", json!({"goal": " "}))
            .await
            .expect(422, "invalid_goal", "the goal is empty");
        post(
            s,
            "/v1/plans",
            "planner's allowed host",
            json!({
            "goal": "sign up at https://shop.example", "allowed_hosts": ["not a host"]}),
        )
        .await
        .expect(422, "invalid_input", "allowed_hosts: `not a host`");
        post(
            s,
            "/v1/act",
            "act's variables",
            json!({
            "goal": "sign up at https://shop.example", "vars": {"1st": "x"}}),
        )
        .await
        .expect(422, "invalid_variables", "vars.1st");
        post(
            s,
            "/v1/plans",
            "the model's plan",
            json!({"goal": "buy at https://shop.example"}),
        )
        .await
        .expect(422, "invalid_plan", "unknown variable `{{coupon}}`");
    });
    drop(busy);
}

#[test]
fn a_server_that_takes_no_mailbox_urls_says_its_operator_can_allow_them() {
    if util::browser().is_none() {
        return;
    }
    let server = ServeProcess::start(&[], &[]);
    util::rt().block_on(async {
        let mut body = runs(json!([{"type": "wait_for_email", "subject": "hi"}]));
        body["inbox"] = json!("smtp://127.0.0.1:0?domain=d.test");
        post(&server, "/v1/runs", "request inbox", body)
            .await
            .expect(
                422,
                "invalid_inbox",
                "its operator can let requests bring mailbox URLs",
            );
    });
}

/// A browser that cannot start: a real server does not listen without one, so this one is
/// driven in-process.
#[test]
fn a_browser_that_cannot_start_is_the_servers_to_fix() {
    let mut config = ServerConfig::new(BrowserSource::Launch(LaunchOptions {
        executable: Some("/nonexistent/planlock-test-chromium".into()),
        ..LaunchOptions::default()
    }));
    config.settings.step_timeout = std::time::Duration::from_secs(2);
    let state = util::rt()
        .block_on(AppState::start(config))
        .expect("the service starts");
    let app = server::app(state);
    let body = runs(json!([{"type": "wait_seconds", "seconds": 0.1}]));
    let answer = util::rt().block_on(async {
        let response = app
            .oneshot(
                Request::post("/v1/runs")
                    .header("content-type", "application/json")
                    .header("host", "127.0.0.1")
                    .body(Body::from(body.to_string()))
                    .unwrap(),
            )
            .await
            .unwrap();
        let status = response.status().as_u16();
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .unwrap();
        Answer {
            case: "browser".into(),
            status,
            body: serde_json::from_slice(&bytes).unwrap(),
        }
    });
    answer.expect(
        503,
        "browser_unavailable",
        "/nonexistent/planlock-test-chromium",
    );
}
