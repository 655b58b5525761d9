//! The planner over real HTTP: a local server speaks each provider's wire format, asserts the
//! shape of every request, counts them, and answers with recorded responses from
//! `fixtures/planner/`. Configuration is passed explicitly; no test touches the process env.

use crate::util;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use axum::http::Method;
use planlock::exit;
use planlock::pipeline::{Reach, Request, RequestError};
use planlock::plan::{self, Limits, Vars};
use planlock::planner::{
    self, GeneratedPlan, LookChoice, PlanRequest, PlannerConfig, PlannerError, ProviderAccess,
    RetryPolicy,
};
use serde_json::Value;

// ---------------------------------------------------------------------------------------------
// The fake provider

use crate::util::model::{Canned, FakeModel as Fake, Recorded, fixture};

fn ok(name: &str) -> Canned {
    Canned::fixture(200, name)
}

fn status(status: u16, name: &str) -> Canned {
    Canned::fixture(status, name)
}

// ---------------------------------------------------------------------------------------------
// Helpers

const GOAL: &str =
    "Sign up at https://shop.example/signup with  me@inbox.test and confirm the email";

fn config(model: &str, fake: &Fake, cache: &Path) -> PlannerConfig {
    PlannerConfig {
        model: Some(model.to_string()),
        anthropic: ProviderAccess {
            api_key: Some("sk-ant-test".into()),
            base_url: Some(fake.base()),
        },
        openai: ProviderAccess {
            api_key: Some("sk-test".into()),
            base_url: Some(format!("{}/v1", fake.base())),
        },
        cache_dir: Some(cache.to_path_buf()),
        timeout: Some(Duration::from_secs(10)),
        retry: RetryPolicy {
            max_retries: 2,
            base_delay: Duration::from_millis(10),
            max_delay: Duration::from_millis(200),
        },
        max_tokens: None,
    }
}

fn request(config: PlannerConfig) -> PlanRequest {
    PlanRequest {
        inbox_address: Some("me@inbox.test".into()),
        ..PlanRequest::new(config)
    }
}

/// Plans `goal` as every front end does: the request locked first (blind: no browser here),
/// then one model call inside that lock. `req` says what the request gives.
async fn plan_goal(goal: &str, req: &PlanRequest) -> Result<GeneratedPlan, PlannerError> {
    let request = Request {
        goal: goal.to_string(),
        vars: req.vars.clone(),
        inbox_address: req.inbox_address.clone(),
        limits: req.limits.clone(),
        no_cache: req.no_cache,
        look: LookChoice::Blind,
        ..Request::default()
    };
    plan_request(request, &req.config).await
}

/// Plans `request`: locked first, then one model call inside that lock.
async fn plan_request(
    request: Request,
    config: &PlannerConfig,
) -> Result<GeneratedPlan, PlannerError> {
    match request.lock().await {
        Ok(locked) => locked.plan(config.clone()).await,
        Err(RequestError::Goal(e)) => Err(e),
        Err(RequestError::Lock(e)) => Err(PlannerError::BadAllowHost(e)),
    }
}

async fn plan_err(goal: &str, req: &PlanRequest) -> PlannerError {
    match plan_goal(goal, req).await {
        Ok(o) => panic!("expected an error, got a plan: {:?}", o.plan),
        Err(e) => e,
    }
}

fn cached_plan_files(cache: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "json")
                && !p.to_string_lossy().ends_with(".meta.json")
            {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(cache, &mut out);
    out
}

fn header<'a>(r: &'a Recorded, name: &str) -> Option<&'a str> {
    r.headers.get(name).and_then(|v| v.to_str().ok())
}

/// Every object schema in strict mode lists all its properties as required and forbids others.
fn assert_strict(schema: &Value) {
    match schema {
        Value::Object(o) => {
            assert!(!o.contains_key("oneOf"), "oneOf in a strict schema");
            if let Some(Value::Object(props)) = o.get("properties") {
                let req: Vec<&str> = o["required"]
                    .as_array()
                    .expect("required")
                    .iter()
                    .map(|v| v.as_str().unwrap())
                    .collect();
                let keys: Vec<&str> = props.keys().map(String::as_str).collect();
                assert_eq!(req, keys, "every property is required in strict mode");
                assert_eq!(o["additionalProperties"], false);
            }
            o.values().for_each(assert_strict);
        }
        Value::Array(a) => a.iter().for_each(assert_strict),
        _ => {}
    }
}

/// The schema as sent asks for `reasoning` before `steps` (a server that enforces it while
/// generating makes the model write them in this order) and for at least one step.
fn assert_reasoning_first(schema: &Value) {
    let keys: Vec<&str> = schema["properties"]
        .as_object()
        .expect("properties")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["reasoning", "steps", "questions"], "{schema}");
    assert_eq!(schema["properties"]["steps"]["minItems"], 1);
}

/// A Chat Completions answer that stopped at the output cap after `content`.
fn openai_cut_off(content: Value) -> Canned {
    Canned::json(
        200,
        serde_json::json!({
            "id": "chatcmpl-cut",
            "object": "chat.completion",
            "model": "test-model",
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "length"
            }],
            "usage": {"prompt_tokens": 900, "completion_tokens": 64, "total_tokens": 964}
        })
        .to_string(),
    )
}

// ---------------------------------------------------------------------------------------------
// Anthropic

#[tokio::test]
async fn anthropic_request_shape_one_request_per_plan_and_zero_on_a_cache_hit() {
    let fake = Fake::start(vec![ok("anthropic_plan.json")]);
    let cache = tempfile::tempdir().unwrap();
    let req = request(config("anthropic:claude-test-1", &fake, cache.path()));

    let out = plan_goal(GOAL, &req).await.unwrap();
    assert_eq!(fake.count(), 1, "exactly one request per plan");
    assert!(!out.cached);
    assert_eq!(out.retries, 0);
    assert_eq!(out.model, "anthropic:claude-test-1");
    assert_eq!(out.prompt_version, planner::prompt_version());
    assert_eq!(out.site, "shop.example");
    assert_eq!(
        (
            out.usage.input_tokens,
            out.usage.output_tokens,
            out.usage.cache_creation_input_tokens,
            out.usage.cache_read_input_tokens
        ),
        (96, 412, 2210, 0)
    );
    assert_eq!(out.plan.steps.len(), 8);
    assert_eq!(out.plan.steps.last().unwrap().kind(), "done");

    // The request, as the Messages API documents it.
    let r = &fake.requests()[0];
    assert_eq!(r.method, Method::POST);
    assert_eq!(r.path, "/v1/messages");
    assert_eq!(header(r, "x-api-key"), Some("sk-ant-test"));
    assert_eq!(header(r, "anthropic-version"), Some("2023-06-01"));
    assert!(
        header(r, "content-type")
            .unwrap()
            .starts_with("application/json")
    );
    assert!(header(r, "authorization").is_none());
    let b = &r.body;
    assert_eq!(b["model"], "claude-test-1");
    assert!(b["max_tokens"].as_u64().unwrap() > 0);
    // The frozen system prompt comes first, as one cache-marked block.
    let system = b["system"].as_array().unwrap();
    assert_eq!(system.len(), 1);
    assert_eq!(system[0]["type"], "text");
    assert_eq!(system[0]["text"], planner::SYSTEM_PROMPT);
    assert_eq!(system[0]["cache_control"]["type"], "ephemeral");
    // The plan schema is the input schema of the single tool the model must call.
    let tools = b["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0]["name"], "submit_plan");
    assert_eq!(
        tools[0]["input_schema"],
        planner::schema::anthropic_input_schema()
    );
    let variants = tools[0]["input_schema"]["properties"]["steps"]["items"]["anyOf"]
        .as_array()
        .unwrap();
    assert_eq!(variants.len(), plan::step_types().count());
    assert_reasoning_first(&tools[0]["input_schema"]);
    assert_eq!(
        b["tool_choice"],
        serde_json::json!({"type": "tool", "name": "submit_plan"})
    );
    // The volatile part is the last (and only) message: goal, hosts, no literal address.
    let messages = b["messages"].as_array().unwrap();
    let last = messages.last().unwrap();
    assert_eq!(last["role"], "user");
    let text = last["content"].as_str().unwrap();
    assert!(
        text.contains(
            "Goal: Sign up at https://shop.example/signup with {{inbox_address}} and confirm the email"
        ),
        "{text}"
    );
    assert!(text.contains("shop.example"), "{text}");
    assert!(
        !r.body.to_string().contains("me@inbox.test"),
        "the inbox address is replaced by its variable"
    );

    // The plan is cached as a plain, replayable plan file.
    let file = out.cache_file.clone().unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    let replayed = plan::parse_and_validate(&text, &Limits::default(), &Vars::default()).unwrap();
    assert_eq!(replayed, out.plan);

    // Same goal, written differently (spacing, the literal address): a hit, zero requests.
    let again = plan_goal(
        "  Sign up at https://shop.example/signup   with {{inbox_address}} and confirm the email ",
        &req,
    )
    .await
    .unwrap();
    assert_eq!(fake.count(), 1, "a cache hit makes no request");
    assert!(again.cached);
    assert_eq!(again.usage, planner::Usage::default());
    assert_eq!(again.plan, out.plan);
    assert_eq!(again.cache_file, Some(file));
}

#[tokio::test]
async fn the_cache_key_covers_model_and_goal_and_no_cache_asks_again() {
    let fake = Fake::start(vec![
        ok("anthropic_plan.json"),
        ok("anthropic_plan.json"),
        ok("anthropic_plan.json"),
        ok("anthropic_plan.json"),
    ]);
    let cache = tempfile::tempdir().unwrap();
    let req = request(config("anthropic:claude-a", &fake, cache.path()));
    plan_goal(GOAL, &req).await.unwrap();
    assert_eq!(fake.count(), 1);

    let other_model = request(config("anthropic:claude-b", &fake, cache.path()));
    assert!(!plan_goal(GOAL, &other_model).await.unwrap().cached);
    assert_eq!(fake.count(), 2, "another model is another key");

    let other_goal = format!("{GOAL} and log out");
    assert!(!plan_goal(&other_goal, &req).await.unwrap().cached);
    assert_eq!(fake.count(), 3, "another goal is another key");

    let mut no_cache = req.clone();
    no_cache.no_cache = true;
    let fresh = plan_goal(GOAL, &no_cache).await.unwrap();
    assert!(!fresh.cached);
    assert_eq!(fake.count(), 4, "--no-cache asks the model");

    assert!(plan_goal(GOAL, &req).await.unwrap().cached);
    assert!(plan_goal(GOAL, &other_model).await.unwrap().cached);
    assert_eq!(fake.count(), 4);
    assert_eq!(cached_plan_files(cache.path()).len(), 3);
}

#[tokio::test]
async fn a_cache_hit_needs_no_api_key_and_a_broken_cache_file_is_replanned() {
    let fake = Fake::start(vec![ok("anthropic_plan.json"), ok("anthropic_plan.json")]);
    let cache = tempfile::tempdir().unwrap();
    let cfg = config("anthropic:claude-test", &fake, cache.path());
    let first = plan_goal(GOAL, &request(cfg.clone())).await.unwrap();

    let mut keyless = cfg.clone();
    keyless.anthropic = ProviderAccess::default();
    let hit = plan_goal(GOAL, &request(keyless)).await.unwrap();
    assert!(hit.cached);
    assert_eq!(fake.count(), 1);

    std::fs::write(first.cache_file.as_ref().unwrap(), "{ not a plan").unwrap();
    let again = plan_goal(GOAL, &request(cfg)).await.unwrap();
    assert!(!again.cached);
    assert_eq!(fake.count(), 2);
    assert!(
        again.warnings[0].contains("ignored the cached plan"),
        "{:?}",
        again.warnings
    );
    let text = std::fs::read_to_string(again.cache_file.unwrap()).unwrap();
    assert!(plan::parse_and_validate(&text, &Limits::default(), &Vars::default()).is_ok());
}

#[tokio::test]
async fn anthropic_malformed_tool_input_is_an_invalid_plan_with_no_second_call() {
    let fake = Fake::start(vec![ok("anthropic_malformed_input.json")]);
    let cache = tempfile::tempdir().unwrap();
    let req = request(config("anthropic:claude-test", &fake, cache.path()));
    let e = plan_err(GOAL, &req).await;
    assert_eq!(fake.count(), 1, "never a second \"fix it\" call");
    assert_eq!(e.exit_code(), exit::INVALID_INPUT);
    let msg = e.to_string();
    assert!(msg.contains("not valid"), "{msg}");
    assert!(
        msg.contains("$: line 1, column"),
        "the JSON error is shown: {msg}"
    );
    assert!(
        msg.contains(r#""text": "Sign up"}"#),
        "what the model returned is shown: {msg}"
    );
    assert!(cached_plan_files(cache.path()).is_empty(), "nothing cached");
}

#[tokio::test]
async fn anthropic_schema_violations_are_all_reported() {
    let fake = Fake::start(vec![ok("anthropic_schema_violation.json")]);
    let cache = tempfile::tempdir().unwrap();
    let req = request(config("anthropic:claude-test", &fake, cache.path()));
    let e = plan_err(GOAL, &req).await;
    assert_eq!(fake.count(), 1);
    assert_eq!(e.exit_code(), exit::INVALID_INPUT);
    assert!(matches!(e, PlannerError::InvalidPlan { .. }), "{e:?}");
    let msg = e.to_string();
    for expected in [
        "steps[0].url: `/signup` is relative",
        "steps[1]: `click` needs `text`",
        "steps[2].type: unknown step type `scroll`",
        "steps[3].value: unknown variable `{{email}}`",
        "steps[3]: the last step must be `done`",
        "\"type\": \"scroll\"",
    ] {
        assert!(msg.contains(expected), "missing {expected:?} in:\n{msg}");
    }
    assert!(cached_plan_files(cache.path()).is_empty());
}

#[tokio::test]
async fn anthropic_refusal_is_a_clear_error() {
    let fake = Fake::start(vec![ok("anthropic_refusal.json")]);
    let cache = tempfile::tempdir().unwrap();
    let req = request(config("anthropic:claude-test", &fake, cache.path()));
    let e = plan_err(GOAL, &req).await;
    assert_eq!(fake.count(), 1);
    assert_eq!(e.exit_code(), exit::INVALID_INPUT);
    assert!(matches!(e, PlannerError::Refused { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(msg.contains("declined to plan"), "{msg}");
    assert!(msg.contains("creating accounts in bulk"), "{msg}");
}

#[tokio::test]
async fn a_401_names_the_key_variable_and_is_not_retried() {
    let fake = Fake::start(vec![status(401, "anthropic_401.json")]);
    let cache = tempfile::tempdir().unwrap();
    let req = request(config("anthropic:claude-test", &fake, cache.path()));
    let e = plan_err(GOAL, &req).await;
    assert_eq!(fake.count(), 1);
    assert_eq!(e.exit_code(), exit::ENVIRONMENT);
    let msg = e.to_string();
    assert!(msg.contains("set ANTHROPIC_API_KEY"), "{msg}");
    assert!(msg.contains("invalid x-api-key"), "{msg}");
}

#[tokio::test]
async fn a_429_is_retried_once_with_the_same_request_honouring_a_capped_retry_after() {
    let mut limited = status(429, "anthropic_429.json");
    limited.headers.push(("retry-after", "30".into()));
    let fake = Fake::start(vec![limited, ok("anthropic_plan.json")]);
    let cache = tempfile::tempdir().unwrap();
    let req = request(config("anthropic:claude-test", &fake, cache.path()));
    let started = Instant::now();
    let out = plan_goal(GOAL, &req).await.unwrap();
    let elapsed = started.elapsed();
    assert_eq!(out.retries, 1);
    assert_eq!(fake.count(), 2);
    let r = fake.requests();
    assert_eq!(r[0].body, r[1].body, "a retry repeats the same request");
    // retry-after: 30 was honoured but capped at the policy's 200 ms.
    assert!(elapsed >= Duration::from_millis(200), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
    assert!(planner::outcome_summary(&out).contains("1 retry"));
}

#[tokio::test]
async fn overloaded_529_exhausts_the_bounded_retries() {
    let fake = Fake::start(vec![
        status(529, "anthropic_529.json"),
        status(529, "anthropic_529.json"),
        status(529, "anthropic_529.json"),
        ok("anthropic_plan.json"),
    ]);
    let cache = tempfile::tempdir().unwrap();
    let req = request(config("anthropic:claude-test", &fake, cache.path()));
    let e = plan_err(GOAL, &req).await;
    assert_eq!(
        fake.count(),
        3,
        "the first attempt and two retries, no more"
    );
    assert_eq!(e.exit_code(), exit::ENVIRONMENT);
    assert!(matches!(
        e,
        PlannerError::Unavailable {
            status: 529,
            retries: 2,
            ..
        }
    ));
    let msg = e.to_string();
    assert!(msg.contains("overloaded_error: Overloaded"), "{msg}");
    assert!(msg.contains("after 2 retries"), "{msg}");
    assert!(msg.contains("PLANLOCK_MODEL"), "{msg}");
}

#[tokio::test]
async fn an_unknown_model_answered_404_names_planlock_model() {
    let fake = Fake::start(vec![status(404, "anthropic_404_model.json")]);
    let cache = tempfile::tempdir().unwrap();
    let req = request(config(
        "anthropic:claude-nonexistent-9",
        &fake,
        cache.path(),
    ));
    let e = plan_err(GOAL, &req).await;
    assert_eq!(fake.count(), 1);
    assert_eq!(e.exit_code(), exit::ENVIRONMENT);
    let msg = e.to_string();
    assert!(msg.contains("PLANLOCK_MODEL"), "{msg}");
    assert!(msg.contains("claude-nonexistent-9"), "{msg}");
}

#[tokio::test]
async fn a_body_that_is_not_the_wire_format_names_the_base_url_variable() {
    let fake = Fake::start(vec![Canned {
        status: 200,
        headers: vec![("content-type", "text/html".into())],
        body: "<html>captive portal</html>".into(),
        delay: Duration::ZERO,
    }]);
    let cache = tempfile::tempdir().unwrap();
    let req = request(config("anthropic:claude-test", &fake, cache.path()));
    let e = plan_err(GOAL, &req).await;
    assert_eq!(e.exit_code(), exit::ENVIRONMENT);
    let msg = e.to_string();
    assert!(msg.contains("ANTHROPIC_BASE_URL"), "{msg}");
    assert!(msg.contains("captive portal"), "{msg}");
}

#[tokio::test]
async fn a_slow_model_hits_the_deadline() {
    let mut slow = ok("anthropic_plan.json");
    slow.delay = Duration::from_secs(5);
    let fake = Fake::start(vec![slow]);
    let cache = tempfile::tempdir().unwrap();
    let mut cfg = config("anthropic:claude-test", &fake, cache.path());
    cfg.timeout = Some(Duration::from_millis(300));
    let started = Instant::now();
    let e = plan_err(GOAL, &request(cfg)).await;
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(e.exit_code(), exit::ENVIRONMENT);
    assert!(e.to_string().contains("PLANLOCK_MODEL_TIMEOUT"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// OpenAI-compatible

#[tokio::test]
async fn openai_request_shape_strict_schema_nulls_dropped_and_usage() {
    let fake = Fake::start(vec![ok("openai_plan.json")]);
    let cache = tempfile::tempdir().unwrap();
    let req = request(config("openai:gpt-test", &fake, cache.path()));
    let out = plan_goal(GOAL, &req).await.unwrap();
    assert_eq!(fake.count(), 1);
    assert_eq!(out.model, "openai:gpt-test");
    // prompt_tokens 2300 of which 2048 cached; completion 380.
    assert_eq!(out.usage.input_tokens, 252);
    assert_eq!(out.usage.cache_read_input_tokens, 2048);
    assert_eq!(out.usage.output_tokens, 380);
    assert_eq!(out.usage.total_input_tokens(), 2300);
    // The model's strict-mode nulls are gone from the plan.
    let json = serde_json::to_string(&out.plan).unwrap();
    assert!(!json.contains("null"), "{json}");
    assert_eq!(out.plan.steps.len(), 6);

    let r = &fake.requests()[0];
    assert_eq!(r.method, Method::POST);
    assert_eq!(r.path, "/v1/chat/completions");
    assert_eq!(header(r, "authorization"), Some("Bearer sk-test"));
    assert!(header(r, "x-api-key").is_none());
    let b = &r.body;
    assert_eq!(b["model"], "gpt-test");
    assert_eq!(
        b["max_tokens"],
        planner::config::DEFAULT_MAX_TOKENS,
        "the output is capped"
    );
    let messages = b["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[0]["role"], "system");
    assert_eq!(messages[0]["content"], planner::SYSTEM_PROMPT);
    let last = messages.last().unwrap();
    assert_eq!(last["role"], "user");
    assert!(
        last["content"]
            .as_str()
            .unwrap()
            .contains("Goal: Sign up at https://shop.example/signup with {{inbox_address}}")
    );
    let rf = &b["response_format"];
    assert_eq!(rf["type"], "json_schema");
    assert_eq!(rf["json_schema"]["name"], "plan");
    assert_eq!(rf["json_schema"]["strict"], true);
    let schema = &rf["json_schema"]["schema"];
    assert_eq!(schema, &planner::schema::openai_strict_schema());
    assert_eq!(schema["type"], "object");
    assert_strict(schema);
    assert_reasoning_first(schema);
    assert_eq!(
        schema["required"],
        serde_json::json!(["reasoning", "steps", "questions"])
    );

    // The recorded answer conforms to the schema that was sent.
    let answer: Value = serde_json::from_str(
        serde_json::from_str::<Value>(&fixture("openai_plan.json")).unwrap()["choices"][0]
            ["message"]["content"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(schema).unwrap();
    assert!(validator.is_valid(&answer));
    // A plan with no step does not.
    let mut empty = answer.clone();
    empty["steps"] = serde_json::json!([]);
    assert!(!validator.is_valid(&empty));

    // And the second call is a cache hit.
    assert!(plan_goal(GOAL, &req).await.unwrap().cached);
    assert_eq!(fake.count(), 1);
}

#[tokio::test]
async fn openai_compatible_loopback_servers_need_no_key() {
    let fake = Fake::start(vec![ok("openai_plan.json")]);
    let cache = tempfile::tempdir().unwrap();
    let mut cfg = config("openai:llama3.1:8b", &fake, cache.path());
    cfg.openai.api_key = None;
    let out = plan_goal(GOAL, &request(cfg)).await.unwrap();
    assert_eq!(out.model, "openai:llama3.1:8b");
    let r = &fake.requests()[0];
    assert!(header(r, "authorization").is_none());
    assert_eq!(r.body["model"], "llama3.1:8b");
}

#[tokio::test]
async fn openai_malformed_content_is_an_invalid_plan_that_says_it_was_cut_off() {
    let fake = Fake::start(vec![ok("openai_malformed.json")]);
    let cache = tempfile::tempdir().unwrap();
    let req = request(config("openai:gpt-test", &fake, cache.path()));
    let e = plan_err(GOAL, &req).await;
    assert_eq!(fake.count(), 1);
    assert_eq!(e.exit_code(), exit::INVALID_INPUT);
    let msg = e.to_string();
    assert!(msg.contains("cut off"), "{msg}");
    assert!(msg.contains("$: line 1"), "{msg}");
    assert!(msg.contains(r#""describe":"submit","te"#), "{msg}");
}

#[tokio::test]
async fn openai_answer_cut_off_at_the_configured_cap_says_so_in_one_sentence() {
    let fake = Fake::start(vec![
        openai_cut_off(Value::String(
            r#"{"reasoning":"Sign up, then confirm the email, then confirm the email, then"#.into(),
        )),
        openai_cut_off(Value::Null),
        openai_cut_off(Value::String(String::new())),
    ]);
    let cache = tempfile::tempdir().unwrap();
    let mut cfg = config("openai:gpt-test", &fake, cache.path());
    cfg.max_tokens = Some(64);
    let req = request(cfg);

    let e = plan_err(GOAL, &req).await;
    assert_eq!(fake.count(), 1, "no second call");
    assert_eq!(fake.bodies()[0]["max_tokens"], 64);
    assert_eq!(e.exit_code(), exit::INVALID_INPUT);
    let msg = e.to_string();
    assert!(
        msg.contains(
            "the answer was cut off at the output cap of 64 tokens (PLANLOCK_MAX_TOKENS), so \
             the plan may be incomplete."
        ),
        "{msg}"
    );
    assert!(msg.contains("then confirm the email, then"), "{msg}");

    // Nothing at all before the cap (no content, or empty content): the same sentence.
    let mut fresh = req.clone();
    fresh.no_cache = true;
    for _ in 0..2 {
        let msg = plan_err(GOAL, &fresh).await.to_string();
        assert!(
            msg.contains(
                "$: the answer was cut off at the output cap of 64 tokens (PLANLOCK_MAX_TOKENS) \
                 before the plan began"
            ),
            "{msg}"
        );
        assert!(msg.ends_with("The model returned nothing."), "{msg}");
    }
    assert_eq!(fake.count(), 3);
}

#[tokio::test]
async fn openai_schema_violations_are_all_reported() {
    let fake = Fake::start(vec![ok("openai_schema_violation.json")]);
    let cache = tempfile::tempdir().unwrap();
    let req = request(config("openai:gpt-test", &fake, cache.path()));
    let e = plan_err(GOAL, &req).await;
    assert_eq!(fake.count(), 1);
    assert_eq!(e.exit_code(), exit::INVALID_INPUT);
    let msg = e.to_string();
    for expected in [
        "steps[0].type: `done` ends the run",
        "steps[1].url: `ftp://shop.example/signup` is not an absolute http(s) URL",
        "steps[2].seconds: must be a positive number",
        "steps[2]: the last step must be `done`",
    ] {
        assert!(msg.contains(expected), "missing {expected:?} in:\n{msg}");
    }
}

#[tokio::test]
async fn openai_refusal_is_a_clear_error() {
    let fake = Fake::start(vec![ok("openai_refusal.json")]);
    let cache = tempfile::tempdir().unwrap();
    let req = request(config("openai:gpt-test", &fake, cache.path()));
    let e = plan_err(GOAL, &req).await;
    assert_eq!(fake.count(), 1);
    assert_eq!(e.exit_code(), exit::INVALID_INPUT);
    assert!(
        e.to_string()
            .contains("declined to plan this goal: I'm sorry, I cannot assist"),
        "{e}"
    );
}

#[tokio::test]
async fn openai_401_names_the_key_variable() {
    let fake = Fake::start(vec![status(401, "openai_401.json")]);
    let cache = tempfile::tempdir().unwrap();
    let req = request(config("openai:gpt-test", &fake, cache.path()));
    let e = plan_err(GOAL, &req).await;
    assert_eq!(fake.count(), 1);
    assert_eq!(e.exit_code(), exit::ENVIRONMENT);
    let msg = e.to_string();
    assert!(msg.contains("set OPENAI_API_KEY"), "{msg}");
    assert!(msg.contains("Incorrect API key provided"), "{msg}");
}

// ---------------------------------------------------------------------------------------------
// Configuration and input errors

#[tokio::test]
async fn an_unreachable_endpoint_names_the_base_url_variable() {
    // A port that was just free: nothing listens on it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let cache = tempfile::tempdir().unwrap();
    for (model, var) in [
        ("anthropic:claude-test", "ANTHROPIC_BASE_URL"),
        ("openai:gpt-test", "OPENAI_BASE_URL"),
    ] {
        let cfg = PlannerConfig {
            model: Some(model.into()),
            anthropic: ProviderAccess {
                api_key: Some("k".into()),
                base_url: Some(format!("http://127.0.0.1:{port}")),
            },
            openai: ProviderAccess {
                api_key: Some("k".into()),
                base_url: Some(format!("http://127.0.0.1:{port}/v1")),
            },
            cache_dir: Some(cache.path().to_path_buf()),
            ..PlannerConfig::default()
        };
        let e = plan_err(GOAL, &request(cfg)).await;
        assert_eq!(e.exit_code(), exit::ENVIRONMENT, "{e}");
        assert!(matches!(e, PlannerError::Unreachable { .. }), "{e:?}");
        let msg = e.to_string();
        assert!(msg.contains("cannot reach the model"), "{msg}");
        assert!(msg.contains(&format!("set {var}")), "{msg}");
    }
}

#[tokio::test]
async fn missing_keys_and_bad_model_strings_exit_3_naming_the_variable_without_a_request() {
    let fake = Fake::start(vec![]);
    let cache = tempfile::tempdir().unwrap();
    let cases: Vec<(PlannerConfig, &str)> = vec![
        {
            let mut c = config("anthropic:claude-test", &fake, cache.path());
            c.anthropic = ProviderAccess::default();
            (c, "set ANTHROPIC_API_KEY")
        },
        {
            let mut c = config("openai:gpt-test", &fake, cache.path());
            c.openai.api_key = None;
            c.openai.base_url = Some("https://llm.corp.example/v1".into());
            (c, "set OPENAI_API_KEY")
        },
        {
            let mut c = config("", &fake, cache.path());
            c.model = None;
            (c, "set PLANLOCK_MODEL")
        },
        (
            config("claude-sonnet", &fake, cache.path()),
            "set PLANLOCK_MODEL",
        ),
        (
            config("gemini:pro", &fake, cache.path()),
            "set PLANLOCK_MODEL",
        ),
        (config("openai:", &fake, cache.path()), "set PLANLOCK_MODEL"),
        {
            let mut c = config("openai:gpt-test", &fake, cache.path());
            c.openai.base_url = Some("ftp://files.example".into());
            (c, "set OPENAI_BASE_URL")
        },
    ];
    for (cfg, needle) in cases {
        let e = plan_err(GOAL, &request(cfg)).await;
        assert_eq!(e.exit_code(), exit::ENVIRONMENT, "{e}");
        assert!(e.to_string().contains(needle), "{needle:?} not in: {e}");
    }
    assert_eq!(fake.count(), 0);
}

#[tokio::test]
async fn empty_goals_and_goals_without_a_site_exit_2_without_a_request() {
    let fake = Fake::start(vec![]);
    let cache = tempfile::tempdir().unwrap();
    let req = request(config("anthropic:claude-test", &fake, cache.path()));
    for goal in ["", "   \n\t "] {
        let e = plan_err(goal, &req).await;
        assert!(matches!(e, PlannerError::EmptyGoal));
        assert_eq!(e.exit_code(), exit::INVALID_INPUT);
    }
    for goal in [
        "sign up for the newsletter",
        "send a message from me@inbox.test",
    ] {
        let e = plan_err(goal, &req).await;
        assert!(matches!(e, PlannerError::NoSite { .. }), "{e}");
        assert_eq!(e.exit_code(), exit::INVALID_INPUT);
        assert!(e.to_string().contains("names no site"), "{e}");
    }
    // Even with no model configured, the goal is checked first.
    let e = plan_err("", &PlanRequest::default()).await;
    assert_eq!(e.exit_code(), exit::INVALID_INPUT);
    assert_eq!(fake.count(), 0);
}

#[tokio::test]
async fn allowed_hosts_and_variable_names_reach_the_model_but_values_do_not() {
    let fake = Fake::start(vec![ok("anthropic_plan.json")]);
    let cache = tempfile::tempdir().unwrap();
    let req = request(config("anthropic:claude-test", &fake, cache.path()));
    // The pipeline's request: the hosts it allows make its lock, which the model is told.
    let allowing = |host: &str| Request {
        goal: GOAL.to_string(),
        vars: Vars::from_pairs(["tier=gold-secret-tier"]).unwrap(),
        inbox_address: req.inbox_address.clone(),
        reach: Reach {
            allowed_hosts: vec![host.into()],
            ..Reach::default()
        },
        look: LookChoice::Blind,
        ..Request::default()
    };
    plan_request(allowing("auth.example-idp.test"), &req.config)
        .await
        .unwrap();
    let body = fake.requests()[0].body.to_string();
    assert!(body.contains("shop.example, example-idp.test"), "{body}");
    assert!(body.contains("{{tier}}"), "{body}");
    assert!(!body.contains("gold-secret-tier"), "{body}");

    let e = match plan_request(allowing("*.evil"), &req.config).await {
        Ok(o) => panic!("expected an error, got a plan: {:?}", o.plan),
        Err(e) => e,
    };
    assert_eq!(e.exit_code(), exit::INVALID_INPUT);
    assert_eq!(fake.count(), 1);
}

// ---------------------------------------------------------------------------------------------
// The command

/// `planlock plan GOAL` against the fake provider, with the cache in `cache`.
async fn plan_cmd(fake: &Fake, cache: &Path, args: &[&str]) -> std::process::Output {
    tokio::process::Command::from(util::planlock())
        .arg("plan")
        .args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("PLANLOCK_MODEL", "anthropic:claude-test")
        .env("ANTHROPIC_API_KEY", "sk-ant-test")
        .env("ANTHROPIC_BASE_URL", fake.base())
        .env("PLANLOCK_CACHE_DIR", cache)
        .output()
        .await
        .unwrap()
}

#[tokio::test]
async fn plan_command_writes_the_plan_file_and_returns_exit_codes() {
    let fake = Fake::start(vec![
        ok("anthropic_plan.json"),
        status(401, "anthropic_401.json"),
    ]);
    let cache = tempfile::tempdir().unwrap();
    let out_dir = tempfile::tempdir().unwrap();
    let file = out_dir.path().join("plan.json");
    let file_arg = file.to_str().unwrap();
    let addr = ["--inbox-address", "me@inbox.test"];

    let out = plan_cmd(
        &fake,
        cache.path(),
        &[&[GOAL, "-o", file_arg][..], &addr].concat(),
    )
    .await;
    assert_eq!(out.status.code(), Some(i32::from(exit::SUCCESS)), "{out:?}");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.ends_with("}\n"));
    let p = plan::parse_and_validate(&text, &Limits::default(), &Vars::default()).unwrap();
    assert_eq!(p.steps.len(), 8);

    let bad_var = plan_cmd(&fake, cache.path(), &[GOAL, "--var", "novalue"]).await;
    assert_eq!(bad_var.status.code(), Some(i32::from(exit::INVALID_INPUT)));
    let no_site = plan_cmd(&fake, cache.path(), &["do something nice"]).await;
    assert_eq!(no_site.status.code(), Some(i32::from(exit::INVALID_INPUT)));
    let fresh = out_dir.path().join("b.json");
    let fresh = plan_cmd(
        &fake,
        cache.path(),
        &[
            &[GOAL, "--no-cache", "-o", fresh.to_str().unwrap()][..],
            &addr,
        ]
        .concat(),
    )
    .await;
    assert_eq!(
        fresh.status.code(),
        Some(i32::from(exit::ENVIRONMENT)),
        "the 401 is an environment error: {fresh:?}"
    );
    assert_eq!(fake.count(), 2);
}

#[tokio::test]
async fn plan_command_caps_the_openai_answer_from_planlock_max_tokens() {
    let fake = Fake::start(vec![openai_cut_off(Value::String(
        r#"{"reasoning":"Sign up and"#.into(),
    ))]);
    let cache = tempfile::tempdir().unwrap();
    let out = tokio::process::Command::from(util::planlock())
        .args(["plan", GOAL, "--blind"])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("PLANLOCK_MODEL", "openai:local-model")
        .env("OPENAI_BASE_URL", fake.openai_url())
        .env("PLANLOCK_MAX_TOKENS", "32")
        .env("PLANLOCK_CACHE_DIR", cache.path())
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(i32::from(exit::INVALID_INPUT)),
        "{stderr}"
    );
    assert!(
        stderr.contains("cut off at the output cap of 32 tokens (PLANLOCK_MAX_TOKENS)"),
        "{stderr}"
    );
    assert_eq!(fake.count(), 1);
    assert_eq!(fake.bodies()[0]["max_tokens"], 32);
}

#[test]
fn outcome_summary_says_cached_model_usage_and_retries() {
    let plan = plan::parse_and_validate(
        r#"{"reasoning":"r","steps":[{"type":"done","summary":"s"}]}"#,
        &Limits::default(),
        &Vars::default(),
    )
    .unwrap();
    let mut o = GeneratedPlan {
        plan,
        cached: false,
        usage: planner::Usage {
            input_tokens: 10,
            output_tokens: 20,
            cache_creation_input_tokens: 30,
            cache_read_input_tokens: 40,
        },
        model: "anthropic:claude-x".into(),
        prompt_version: "abc".into(),
        retries: 2,
        cache_file: None,
        looked: None,
        goal: "g".into(),
        site: "shop.example".into(),
        warnings: vec![],
    };
    let s = planner::outcome_summary(&o);
    assert!(s.contains("anthropic:claude-x"), "{s}");
    assert!(
        s.contains("10 input, 20 output, 30 cache-write, 40 cache-read tokens"),
        "{s}"
    );
    assert!(s.contains("2 retries"), "{s}");
    o.cached = true;
    o.usage = planner::Usage::default();
    let s = planner::outcome_summary(&o);
    assert!(s.starts_with("cached plan"), "{s}");
    assert!(s.contains("no model call"), "{s}");
    let json = serde_json::to_value(&o).unwrap();
    assert_eq!(json["cached"], true);
    assert_eq!(json["usage"]["cache_read_input_tokens"], 0);
}
