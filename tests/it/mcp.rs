//! MCP with a real client: the official Python SDK (PyPI `mcp`, pinned in scripts/test)
//! drives `planlock mcp` over stdio and `/mcp` on `planlock serve` over streamable HTTP,
//! against the demo shop (its own record of verified accounts) and stock apps (their
//! databases): the corpus's Django app, and django-allauth of the journeys. The stand-in
//! model speaks the OpenAI wire format (`util::model`).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use planlock::demo::{self, DemoSite, SmtpMailer};
use serde_json::{Value, json};

use crate::journeys;
use crate::util::model::FakeModel;
use crate::util::serve::ServeProcess;
use crate::util::{self, rt};

const MAIL_DOMAIN: &str = "demo.planlock.test";

/// The Python with the MCP SDK (scripts/test makes it: target/mcp-venv).
pub(crate) fn python() -> Option<PathBuf> {
    let python = std::env::var_os("PLANLOCK_MCP_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("target/mcp-venv/bin/python")
        });
    if python.exists() {
        return Some(python);
    }
    if util::in_ci() {
        panic!(
            "CI=true but there is no MCP client at {} (scripts/test installs it)",
            python.display()
        );
    }
    eprintln!("skipping: no MCP client at {}", python.display());
    None
}

#[macro_export]
macro_rules! need_mcp {
    () => {{
        if $crate::util::browser().is_none() {
            return;
        }
        match $crate::mcp::python() {
            Some(p) => p,
            None => return,
        }
    }};
}

/// Runs `tests/mcp/client.py` with `scenario`: what each call answered.
pub(crate) fn client(python: &Path, scenario: &Value) -> Vec<Value> {
    let mut child = Command::new(python)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the MCP client");
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(scenario.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the MCP client failed:\n{stderr}");
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{stderr}", String::from_utf8_lossy(&out.stdout)))
}

pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The demo shop, mailing to an embedded receiver the service binds as inbox `demo` on
/// `port`.
pub(crate) fn shop(port: u16) -> DemoSite {
    let mailer = Arc::new(SmtpMailer::new(([127, 0, 0, 1], port).into()));
    rt().block_on(DemoSite::start(mailer))
        .expect("the demo shop")
}

pub(crate) fn inbox_arg(port: u16) -> String {
    format!("demo=smtp://127.0.0.1:{port}?domain={MAIL_DOMAIN}")
}

/// `planlock mcp` as the client starts it.
fn stdio(store: &Path, port: u16, env: Value) -> Value {
    json!({
        "stdio": [
            env!("CARGO_BIN_EXE_planlock"), "mcp",
            "--store", format!("sqlite:{}", store.join("runs.sqlite3").display()),
            "--inbox", inbox_arg(port),
        ],
        "env": env,
    })
}

fn signup_plan() -> Value {
    serde_json::from_str(demo::SIGNUP_PLAN).unwrap()
}

/// The bundled signup plan as a model would write it for the shop at `base`: the password a
/// question with a suggested answer.
fn planned_signup(base: &str) -> Value {
    let text = demo::SIGNUP_PLAN.replace("{{base_url}}", base);
    let mut plan: Value = serde_json::from_str(&text).unwrap();
    plan.as_object_mut().unwrap().remove("$schema");
    plan["questions"] = json!([{
        "var": "password",
        "ask": "Password for the new account?",
        "suggested": "correct horse battery staple"
    }]);
    plan
}

pub(crate) fn model_env(model: &FakeModel, cache: &Path) -> Vec<(String, String)> {
    vec![
        ("PLANLOCK_MODEL".into(), "openai:test-model".into()),
        ("OPENAI_BASE_URL".into(), model.openai_url()),
        ("PLANLOCK_CACHE_DIR".into(), cache.display().to_string()),
    ]
}

/// The one run's result of a call, after checking the call did not fail.
pub(crate) fn result_of(outcome: &Value) -> &Value {
    assert!(!outcome["is_error"].as_bool().unwrap(), "{outcome:#}");
    &outcome["structured"]["result"]
}

#[test]
fn run_plan_over_stdio_replays_the_committed_demo_plan_and_the_shop_verifies_the_account() {
    let python = need_mcp!();
    let port = free_port();
    let site = shop(port);
    let store = tempfile::tempdir().unwrap();
    let password = "correct horse battery staple";
    let outcomes = client(
        &python,
        &json!({
            "server": stdio(store.path(), port, json!({})),
            "calls": [{"tool": "run_plan", "arguments": {
                "plan": signup_plan(),
                "vars": {"base_url": site.url(""), "password": password},
                "inbox": "demo",
                "allowed_hosts": ["127.0.0.1"],
            }}],
        }),
    );
    let result = result_of(&outcomes[0]);
    assert_eq!(result["status"], "succeeded", "{result:#}");
    // The shop's own record: the run's address is a verified account.
    let address = result["inbox_address"].as_str().unwrap();
    assert_eq!(site.verified_accounts(), [address]);
    assert!(address.ends_with(MAIL_DOMAIN), "{address}");
    // A step is a progress notification, and the inbox steps say they wait for mail.
    let progress = outcomes[0]["progress"].as_array().unwrap();
    assert!(
        progress.iter().any(|p| p
            .as_str()
            .unwrap()
            .contains("step 5 of 9: waiting for mail")),
        "{progress:?}"
    );
    let events = &outcomes[0]["structured"]["events"];
    assert_eq!(events["run_id"], result["run_id"]);
    assert!(events["count"].as_u64().unwrap() >= 18, "{events}");
    // The caller's variable is not a secret, but the emailed code is: masked everywhere.
    let code = result["steps"][5]["detail"]["code"].as_str().unwrap();
    assert!(code.contains('•'), "{code}");
}

/// `act` through the stand-in model on the demo shop, over streamable HTTP, with the plan's
/// question answered by the client's user: in `mode` (`auto`: the 2026-07-28 retry with the
/// answers; `legacy`: an elicitation request).
fn act_with_an_elicited_answer(mode: &str) {
    let python = need_mcp!();
    let port = free_port();
    let site = shop(port);
    let model = FakeModel::openai_plan(planned_signup(&site.url("")));
    let cache = tempfile::tempdir().unwrap();
    let env = model_env(&model, cache.path());
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let server = ServeProcess::start(&["--inbox", &inbox_arg(port)], &env);
    let goal = format!(
        "sign up at {} with {{{{inbox_address}}}} and verify the email",
        site.url("/signup")
    );
    let outcomes = client(
        &python,
        &json!({
            "server": {"http": server.url("/mcp")},
            "mode": mode,
            "answers": {"Password for the new account?": "an elicited passphrase"},
            "calls": [{"tool": "act", "arguments": {
                "goal": goal, "inbox": "demo", "allowed_hosts": ["127.0.0.1"], "look": false,
            }}],
        }),
    );
    let outcome = &outcomes[0];
    let result = result_of(outcome);
    assert_eq!(result["status"], "succeeded", "{outcome:#}");
    assert_eq!(model.count(), 1, "one model call");
    assert_eq!(
        outcome["asked"],
        json!(["Password for the new account? (suggested: correct horse battery staple)"])
    );
    let answers = &outcome["structured"]["planning"]["answers"];
    assert_eq!(
        answers,
        &json!([{"var": "password", "ask": "Password for the new account?",
                 "value": "an elicited passphrase", "source": "asked"}])
    );
    // The shop's own records: the run's address is verified, its account has the answer
    // as its password.
    let address = result["inbox_address"].as_str().unwrap();
    assert_eq!(site.verified_accounts(), [address]);
    assert!(site.has_password(address, "an elicited passphrase"));
    assert!(!site.has_password(address, "correct horse battery staple"));
    // The review shows the lock the run had.
    let review = &outcome["structured"]["planning"]["review"];
    assert_eq!(review["allowed_hosts"], result["allowed_hosts"]);
}

#[test]
fn act_over_http_asks_the_plans_question_by_input_required_retry() {
    act_with_an_elicited_answer("auto");
}

#[test]
fn act_over_http_asks_the_plans_question_by_elicitation_request() {
    act_with_an_elicited_answer("legacy");
}

#[test]
fn act_without_elicitation_takes_the_suggestion_and_says_so() {
    let python = need_mcp!();
    let port = free_port();
    let site = shop(port);
    let model = FakeModel::openai_plan(planned_signup(&site.url("")));
    let cache = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let env: serde_json::Map<String, Value> = model_env(&model, cache.path())
        .into_iter()
        .map(|(k, v)| (k, Value::String(v)))
        .collect();
    let goal = format!(
        "sign up at {} with {{{{inbox_address}}}}",
        site.url("/signup")
    );
    let outcomes = client(
        &python,
        &json!({
            "server": stdio(store.path(), port, Value::Object(env)),
            "calls": [{"tool": "act", "arguments": {
                "goal": goal, "inbox": "demo", "allowed_hosts": ["127.0.0.1"], "look": false,
            }}],
        }),
    );
    let outcome = &outcomes[0];
    let result = result_of(outcome);
    assert_eq!(result["status"], "succeeded", "{outcome:#}");
    assert_eq!(
        outcome["structured"]["planning"]["answers"][0]["source"],
        "suggested"
    );
    let address = result["inbox_address"].as_str().unwrap();
    assert!(site.has_password(address, "correct horse battery staple"));
    let text = outcome["text"].as_str().unwrap();
    assert!(
        text.contains(
            "nobody answered the plan's questions, so their suggestions were taken: \
             {{password}} = \"correct horse battery staple\""
        ),
        "{text}"
    );
}

/// A plan that opens a page, then waits a minute at step 2 of 3.
pub(crate) fn waiting_plan() -> Value {
    json!({
        "reasoning": "Open a page, then wait long.",
        "steps": [
            {"type": "navigate", "url": util::site().url("/form.html")},
            {"type": "wait_seconds", "seconds": 60},
            {"type": "done", "summary": "waited"}
        ]
    })
}

#[test]
fn cancel_run_ends_a_run_the_client_is_following_as_cancelled() {
    let python = need_mcp!();
    let server = ServeProcess::start(&[], &[]);
    let plan = waiting_plan();
    let began = std::time::Instant::now();
    let outcomes = client(
        &python,
        &json!({
            "server": {"http": server.url("/mcp")},
            "calls": [{"tool": "run_plan", "cancel_at": "step 2 of 3",
                       "arguments": {"plan": plan, "allowed_hosts": ["127.0.0.1"]}}],
        }),
    );
    let result = result_of(&outcomes[0]);
    assert_eq!(result["status"], "cancelled", "{result:#}");
    assert_eq!(result["failed_step"], 1, "{result:#}");
    assert!(began.elapsed().as_secs() < 45, "{:?}", began.elapsed());
    let cancelled = &outcomes[0]["cancel"][0]["run"];
    assert_eq!(cancelled["run_id"], result["run_id"]);
    assert_eq!(cancelled["status"], "cancelled");
}

/// Makes a `run_plan` call to `server` that waits a minute, gives it up at step 2, and
/// answers the run as `get_run` shows it once it ended.
fn give_up_a_waiting_run(python: &Path, server: Value) -> Value {
    let plan = waiting_plan();
    let began = std::time::Instant::now();
    let outcomes = client(
        python,
        &json!({
            "server": server,
            "calls": [{"tool": "run_plan", "abandon_at": "step 2 of 3",
                       "arguments": {"plan": plan, "allowed_hosts": ["127.0.0.1"]}}],
        }),
    );
    // The run ended at the step the call was given up in, as cancelled, well before its
    // minute.
    let run = &outcomes[0]["run"];
    assert_eq!(run["run_id"], outcomes[0]["abandoned"], "{run:#}");
    assert_eq!(run["status"], "cancelled", "{run:#}");
    assert_eq!(run["failed_step"], 1, "{run:#}");
    assert!(began.elapsed().as_secs() < 45, "{:?}", began.elapsed());
    run.clone()
}

/// Over stdio the client's SDK sends `notifications/cancelled` for the call it gave up.
#[test]
fn giving_up_a_run_plan_call_over_stdio_cancels_its_run() {
    let python = need_mcp!();
    let store = tempfile::tempdir().unwrap();
    give_up_a_waiting_run(
        &python,
        json!({"stdio": [
            env!("CARGO_BIN_EXE_planlock"), "mcp",
            "--store", format!("sqlite:{}", store.path().join("runs.sqlite3").display()),
        ]}),
    );
}

/// Over streamable HTTP (MCP 2026-07-28) the client gives up a call by closing its request.
#[test]
fn giving_up_a_run_plan_call_over_http_cancels_its_run() {
    let python = need_mcp!();
    let server = ServeProcess::start(&[], &[]);
    give_up_a_waiting_run(&python, json!({"http": server.url("/mcp")}));
}

#[test]
fn a_navigation_outside_the_lock_is_refused_with_its_sentence_in_the_result() {
    let python = need_mcp!();
    let site = util::site().url("");
    let elsewhere = site.replace("127.0.0.1", "localhost");
    let model = FakeModel::openai_plan(json!({
        "reasoning": "Open the form, then a page the goal did not name.",
        "steps": [
            {"type": "navigate", "url": format!("{site}/form.html")},
            {"type": "navigate", "url": format!("{elsewhere}/form.html")},
            {"type": "done", "summary": "went elsewhere"}
        ]
    }));
    let cache = tempfile::tempdir().unwrap();
    let env = model_env(&model, cache.path());
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let server = ServeProcess::start(&[], &env);
    let outcomes = client(
        &python,
        &json!({
            "server": {"http": server.url("/mcp")},
            "calls": [{"tool": "act", "arguments": {
                "goal": format!("open {site}/form.html"),
                "allowed_hosts": ["127.0.0.1"],
                "look": false,
            }}],
        }),
    );
    // The goal named 127.0.0.1 only: the lock, fixed before the plan, holds no localhost.
    let outcome = &outcomes[0];
    let result = result_of(outcome);
    assert_eq!(result["status"], "failed", "{outcome:#}");
    assert_eq!(result["failed_step"], 1);
    assert_eq!(result["error"]["kind"], "lock_refused");
    let message = result["error"]["message"].as_str().unwrap();
    assert!(message.contains("is not part of this run"), "{message}");
    assert!(outcome["text"].as_str().unwrap().contains(message));
    let review = &outcome["structured"]["planning"]["review"];
    assert_eq!(review["outside_lock"], json!([1]), "{review:#}");
}

#[test]
fn mcp_over_http_is_behind_the_apis_token_and_origin_guards() {
    if python().is_none() {
        return;
    }
    let server = ServeProcess::start(&[], &[("PLANLOCK_TOKEN", "s3cret-token-for-mcp")]);
    let post = |token: Option<&str>, origin: Option<&str>| {
        rt().block_on(async {
            let mut request = reqwest::Client::new()
                .post(server.url("/mcp"))
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
            if let Some(t) = token {
                request = request.bearer_auth(t);
            }
            if let Some(o) = origin {
                request = request.header("origin", o);
            }
            request.send().await.unwrap().status().as_u16()
        })
    };
    assert_eq!(post(None, None), 401, "no token");
    assert_eq!(post(Some("wrong"), None), 401, "a wrong token");
    // A page on another origin cannot drive the tools, token or not.
    assert_eq!(
        post(Some("s3cret-token-for-mcp"), Some("https://evil.example")),
        403
    );
    // With the token, a real client lists the tools.
    let python = python().unwrap();
    let outcomes = client(
        &python,
        &json!({
            "server": {"http": server.url("/mcp"), "token": "s3cret-token-for-mcp"},
            "calls": [{"tool": "get_run", "arguments": {"id": "nothing-here"}}],
        }),
    );
    assert!(outcomes[0]["is_error"].as_bool().unwrap());
    assert!(
        outcomes[0]["text"]
            .as_str()
            .unwrap()
            .contains("run_not_found"),
        "{outcomes:?}"
    );
}

#[test]
fn run_plan_over_http_registers_on_a_stock_django_app() {
    let python = need_mcp!();
    if !crate::corpus::installed() {
        return;
    }
    let app = crate::corpus::django();
    let server = ServeProcess::start(&[], &[]);
    let text = std::fs::read_to_string(
        crate::corpus::corpus_dir().join("plans/django-register-login.json"),
    )
    .unwrap();
    let plan: Value = serde_json::from_str(&text).unwrap();
    let outcomes = client(
        &python,
        &json!({
            "server": {"http": server.url("/mcp")},
            "calls": [{"tool": "run_plan", "arguments": {
                "plan": plan, "vars": {"django": app.url}, "allowed_hosts": ["127.0.0.1"],
            }}],
        }),
    );
    let result = result_of(&outcomes[0]);
    assert_eq!(result["status"], "succeeded", "{result:#}");
    // Django's own record: the user the plan registered.
    let users = Command::new(crate::corpus::python())
        .args([
            "-c",
            "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(\
             'select username, email from auth_user').fetchall())",
        ])
        .arg(&app.db)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&users.stdout).trim(),
        "[('ken', 'ken@quill.test')]"
    );
}

/// `run_plan` over stdio of a stock app's committed journey plan: django-allauth, an
/// instance of its own mailing to the MCP server's inbox; sign up, confirm by the emailed
/// link, sign in with the same password. Judged by allauth's own records, as the journeys are.
#[test]
fn run_plan_over_stdio_takes_a_stock_app_through_its_emailed_confirmation() {
    let python = need_mcp!();
    if !journeys::ready() {
        return;
    }
    let journey = journeys::journey("allauth", "signup-confirm-login");
    let port = free_port();
    let app = journeys::start_mailing_to(journey.app, port);
    let plan = std::fs::read_to_string(journey.file(journeys::PlanKind::Hand)).unwrap();
    let plan: Value = serde_json::from_str(&plan).unwrap();
    let password = journeys::fresh_password();
    let store = tempfile::tempdir().unwrap();
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let outcomes = client(
        &python,
        &json!({
            "server": {"stdio": [
                env!("CARGO_BIN_EXE_planlock"), "mcp",
                "--store", format!("sqlite:{}", store.path().join("runs.sqlite3").display()),
                "--inbox", format!(
                    "journeys=smtp://127.0.0.1:{port}?domain={}", journeys::MAIL_DOMAIN
                ),
            ]},
            "calls": [{"tool": "run_plan", "arguments": {
                "plan": plan,
                "vars": {journey.def().var: app.url},
                "secrets": {"PASSWORD": password},
                "inbox": "journeys",
                "allowed_hosts": ["127.0.0.1"],
            }}],
        }),
    );
    let result = result_of(&outcomes[0]);
    assert_eq!(result["status"], "succeeded", "{result:#}");
    let address = result["inbox_address"].as_str().unwrap();
    assert!(address.ends_with(journeys::MAIL_DOMAIN), "{address}");
    // allauth's records: the account exists, its address verified, the secret its password,
    // a sign-in during the run.
    let facts = journeys::records(
        journey.def(),
        &app,
        "show",
        address,
        &[(
            "JOURNEY_PASSWORDS",
            json!({"PASSWORD": password}).to_string(),
        )],
    );
    let evidence = journeys::judge(journey.proofs, &facts, since);
    assert!(evidence.reached, "{}", evidence.seen);
    // The password was typed into the app, and is in no answer of the tool.
    let answered = serde_json::to_string(&outcomes).unwrap();
    assert!(!answered.contains(&password), "{answered}");
}

/// What must be the same whichever front end ran the request.
fn comparable(result: &Value) -> Value {
    let steps: Vec<Value> = result["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| json!([s["index"], s["type"], s["status"], s["detail"]["strategy"]]))
        .collect();
    json!({
        "status": result["status"], "summary": result["summary"],
        "failed_step": result["failed_step"], "error": result["error"],
        "extracted": result["extracted"], "allowed_hosts": result["allowed_hosts"],
        "steps": steps,
    })
}

#[test]
fn cli_act_http_act_and_mcp_act_make_the_same_lock_review_and_result() {
    let python = need_mcp!();
    let site = util::site().url("");
    let port = site.rsplit(':').next().unwrap().to_string();
    let host = format!("127.0.0.1:{port}");
    let model = FakeModel::openai_plan(json!({
        "reasoning": "Fill the signup form and submit it.",
        "steps": [
            {"type": "navigate", "url": format!("{site}/form.html")},
            {"type": "fill", "describe": "name", "label": "Full name", "value": "{{name}}"},
            {"type": "fill", "describe": "email", "label": "Email address", "value": "ada@example.com"},
            {"type": "click", "describe": "submit", "text": "Create account"},
            {"type": "wait_for_text", "text": "Welcome aboard"},
            {"type": "extract_text", "describe": "confirmation", "selector": "#who"},
            {"type": "navigate", "url": "https://evil.example/collect"},
            {"type": "done", "summary": "signed up"}
        ],
        "questions": [{"var": "name", "ask": "Your name?", "suggested": "Ada"}]
    }));
    let goal = format!("sign up at {site}/form.html");
    let cache = tempfile::tempdir().unwrap();
    let env = model_env(&model, cache.path());

    // The command line.
    let mut cli = util::planlock();
    cli.args([
        "act",
        &goal,
        "--yes",
        "--blind",
        "--json",
        "--allow-host",
        &host,
    ]);
    for (k, v) in &env {
        cli.env(k, v);
    }
    let out = cli.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let cli_result: Value = serde_json::from_slice(&out.stdout).unwrap();

    // The HTTP API and MCP, on one server.
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let server = ServeProcess::start(&[], &env);
    let body = json!({"goal": goal, "allowed_hosts": [host], "look": false});
    let http: Value = rt().block_on(async {
        reqwest::Client::new()
            .post(server.url("/v1/act"))
            .json(&body)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    });
    let outcomes = client(
        &python,
        &json!({
            "server": {"http": server.url("/mcp")},
            "calls": [{"tool": "act", "arguments": body}],
        }),
    );
    // `/v1/act` answers the result with its planning beside it.
    assert!(http["steps"].is_array(), "{http:#}");
    let mcp = &outcomes[0]["structured"];
    assert!(mcp["result"].is_object(), "{:#}", outcomes[0]);

    // The lock: the goal's site on its port, never the plan's evil.example.
    assert_eq!(cli_result["allowed_hosts"], json!([host]));
    // The review: the same, and the command line printed it.
    assert_eq!(http["planning"]["review"], mcp["planning"]["review"]);
    let review = mcp["planning"]["review"]["text"].as_str().unwrap();
    assert!(stderr.contains(review), "{stderr}\n---\n{review}");
    assert!(review.contains("evil.example is not among the hosts the request named"));
    assert_eq!(http["planning"]["answers"], mcp["planning"]["answers"]);
    // The result: refused at the same step with the same sentence, the same steps before.
    assert_eq!(comparable(&cli_result), comparable(&http));
    assert_eq!(comparable(&cli_result), comparable(&mcp["result"]));
    assert_eq!(cli_result["failed_step"], 6);
    assert_eq!(cli_result["error"]["kind"], "lock_refused");
}

#[test]
fn the_plan_tool_sends_no_echoed_value_to_the_model_nor_shows_one_in_a_dry_run() {
    use crate::look_masked::{CALLER, SECRET, assert_unsaid, goal};
    let python = need_mcp!();
    let model = FakeModel::openai_plan(json!({"reasoning": "r", "steps": [
        {"type": "navigate", "url": util::site().url("/welcome.html")},
        {"type": "done", "summary": "ok"}]}));
    let cache = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let mut env: serde_json::Map<String, Value> = model_env(&model, cache.path())
        .into_iter()
        .map(|(k, v)| (k, Value::String(v)))
        .collect();
    env.insert("PLANLOCK_SECRET_TOK".into(), json!(SECRET));
    let arguments = json!({
        "goal": goal(),
        "vars": {"who": CALLER},
        "allowed_hosts": ["127.0.0.1"],
        "no_cache": true,
    });
    let mut dry = arguments.clone();
    dry["dry_run"] = json!(true);
    let outcomes = client(
        &python,
        &json!({
            "server": {
                "stdio": [
                    env!("CARGO_BIN_EXE_planlock"), "mcp",
                    "--store", format!("sqlite:{}", store.path().join("runs.sqlite3").display()),
                    "--secret", "TOK@127.0.0.1",
                ],
                "env": env,
            },
            "calls": [
                {"tool": "plan", "arguments": arguments},
                {"tool": "plan", "arguments": dry},
            ],
        }),
    );
    for outcome in &outcomes {
        assert!(!outcome["is_error"].as_bool().unwrap(), "{outcome:#}");
    }
    let sent = model.raw_bodies();
    assert_eq!(sent.len(), 1, "a dry run calls no model");
    assert_unsaid("the MCP plan tool", &sent[0], &[CALLER, SECRET]);
    let shown = serde_json::to_vec(&outcomes[1]).unwrap();
    assert_unsaid("the MCP plan tool with dry_run", &shown, &[CALLER, SECRET]);
}
