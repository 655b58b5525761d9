//! The agent as the planner, through a real MCP client (the official Python SDK) over both
//! transports: the tool list an agent's host loads (its bytes), its input schemas held to
//! what the server reads, `look` → `validate_plan` → `run_plan` on a stock app judged by its
//! own records, runs that never block a call (`wait: false`, `get_run` with `wait_seconds`,
//! `cancel_run`), and the text a model reads of a result.

use std::path::Path;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use crate::journeys;
use crate::mcp::{client, free_port, model_env, result_of, waiting_plan};
use crate::util::model::FakeModel;
use crate::util::serve::ServeProcess;
use crate::util::{self, site};

/// What a host loads into every turn, at most.
const TOOL_LIST_BUDGET: usize = 16 * 1024;

/// `planlock mcp` over stdio on a fresh store, with `args` added.
fn stdio(store: &Path, args: &[String]) -> Value {
    let mut argv = vec![
        env!("CARGO_BIN_EXE_planlock").to_string(),
        "mcp".into(),
        "--store".into(),
        format!("sqlite:{}", store.join("runs.sqlite3").display()),
    ];
    argv.extend(args.iter().cloned());
    json!({"stdio": argv})
}

/// The two transports: stdio (`planlock mcp`) and streamable HTTP (`/mcp` on `planlock
/// serve`), each with `args`; the server process is kept alive by the caller.
fn both(args: &[String], store: &Path) -> Vec<(&'static str, Value, Option<ServeProcess>)> {
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let serve = ServeProcess::start(&refs, &[]);
    let http = json!({"http": serve.url("/mcp")});
    vec![
        ("stdio", stdio(store, args), None),
        ("http", http, Some(serve)),
    ]
}

fn text_of(outcome: &Value) -> &str {
    outcome["text"].as_str().unwrap_or_default()
}

#[test]
fn the_tool_list_fits_in_16_kb_and_serves_the_guide_and_the_plan_schema() {
    let python = crate::need_mcp!();
    let store = tempfile::tempdir().unwrap();
    for (transport, server, _keep) in both(&[], store.path()) {
        let outcomes = client(
            &python,
            &json!({
                "server": server,
                "calls": [
                    {"list_tools": true},
                    {"get_prompt": "write_plan", "arguments": {"goal": "sign up at https://shop.example"}},
                    {"read_resource": "planlock://schema/plan.json"},
                    {"tool": "server_info"},
                ],
            }),
        );
        let bytes = outcomes[0]["bytes"].as_u64().unwrap() as usize;
        eprintln!("{transport}: tools/list is {bytes} bytes");
        assert!(bytes <= TOOL_LIST_BUDGET, "{transport}: {bytes} bytes");
        let tools = outcomes[0]["tools"].as_array().unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
        for name in [
            "server_info",
            "look",
            "validate_plan",
            "run_plan",
            "act",
            "plan",
            "get_run",
            "cancel_run",
        ] {
            assert!(names.contains(&name), "{transport}: no {name} in {names:?}");
        }
        for tool in tools {
            assert!(tool["title"].is_string(), "{tool:#}");
            for hint in ["readOnlyHint", "destructiveHint", "openWorldHint"] {
                assert!(tool["annotations"][hint].is_boolean(), "{hint}: {tool:#}");
            }
            assert!(tool["outputSchema"]["type"] == "object", "{tool:#}");
        }
        // The guide: the planner's own reference, one complete plan, the loop.
        let guide = outcomes[1]["text"].as_str().unwrap();
        assert!(guide.contains(planlock::planner::prompt::writing_reference()));
        assert!(guide.contains(planlock::planner::prompt::EXAMPLE_PLAN));
        assert!(guide.contains("The goal: sign up at https://shop.example"));
        // The resource is the plan's JSON Schema as `planlock schema` prints it.
        assert_eq!(
            outcomes[2]["text"].as_str().unwrap(),
            planlock::plan::json_schema_text()
        );
        assert_eq!(outcomes[2]["mime"], "application/schema+json");
        // server_info: the guide again, for hosts that only call tools.
        let info = &outcomes[3];
        assert!(text_of(info).contains("## Steps"), "{info:#}");
        assert_eq!(info["structured"]["version"], env!("CARGO_PKG_VERSION"));
        assert!(info["structured"]["inboxes"].is_array(), "{info:#}");
        if std::env::var_os("PLANLOCK_MODEL").is_none() {
            assert_eq!(info["structured"]["planner"], false, "{info:#}");
            assert!(
                text_of(info).contains("Planner model: none (write the plan yourself"),
                "{info:#}"
            );
        }
    }
}

#[test]
fn each_input_schema_accepts_what_the_server_reads_and_rejects_what_it_refuses() {
    let python = crate::need_mcp!();
    let server = ServeProcess::start(&[], &[]);
    let plan = json!({"reasoning": "", "steps": [
        {"type": "navigate", "url": "http://127.0.0.1:9/"},
        {"type": "done", "summary": "opened"}
    ]});
    // Accepted cases end past the reading of the arguments (a lock that refuses a private
    // address, no model, no such run), never running a browser.
    let cases = json!([
        {"tool": "server_info", "arguments": {}},
        {"tool": "server_info", "arguments": {"verbose": true}},
        {"tool": "look", "arguments": {"url": "http://127.0.0.1:9/"}},
        {"tool": "look", "arguments": {"goal": "sign up at http://127.0.0.1:9/"}},
        {"tool": "look", "arguments": {}},
        {"tool": "look", "arguments": {"url": "http://127.0.0.1:9/", "goal": "sign up"}},
        {"tool": "look", "arguments": {"url": 9}},
        {"tool": "look", "arguments": {"url": "http://127.0.0.1:9/", "depth": 2}},
        {"tool": "validate_plan", "arguments": {"plan": plan}},
        {"tool": "validate_plan", "arguments": {"plan": "{\"steps\": []}"}},
        {"tool": "validate_plan", "arguments": {"plan": 5}},
        {"tool": "validate_plan", "arguments": {"plan": plan, "vars": {"a": 1}}},
        {"tool": "run_plan", "arguments": {"plan": plan, "wait": false}},
        {"tool": "run_plan", "arguments": {"plan": plan, "wait": "no"}},
        {"tool": "run_plan", "arguments": {"plan": plan, "strict": "yes"}},
        {"tool": "run_plan", "arguments": {"plan": plan, "inbox": [1]}},
        {"tool": "run_plan", "arguments": {"plan": [plan]}},
        {"tool": "run_plan", "arguments": {"plan": {"reasoning": "", "steps": [{"type": "scroll"}]}}},
        {"tool": "run_plan", "arguments": {"plan": {"reasoning": "", "steps": [
            {"type": "click", "describe": "go", "text": "Go", "selctor": "#go"},
            {"type": "done", "summary": "x"}]}}},
        {"tool": "run_plan", "arguments": {"vars": {}}},
        {"tool": "act", "arguments": {"goal": "open http://127.0.0.1:9/", "look": true}},
        {"tool": "act", "arguments": {"goal": "open http://127.0.0.1:9/", "look": false}},
        {"tool": "act", "arguments": {"goal": "open http://127.0.0.1:9/", "look": "required"}},
        {"tool": "act", "arguments": {"goal": "open http://127.0.0.1:9/", "look": null}},
        {"tool": "act", "arguments": {"goal": "open http://127.0.0.1:9/", "look": "sometimes"}},
        {"tool": "act", "arguments": {"goal": "open http://127.0.0.1:9/", "look": {}}},
        {"tool": "act", "arguments": {"goal": "open http://127.0.0.1:9/", "wait": 0}},
        {"tool": "plan", "arguments": {"goal": "open http://127.0.0.1:9/", "dry_run": "yes"}},
        {"tool": "plan", "arguments": {"goal": "open http://127.0.0.1:9/", "look": "required"}},
        {"tool": "get_run", "arguments": {"id": "no-such-run"}},
        {"tool": "get_run", "arguments": {"id": "no-such-run", "wait_seconds": 0.5}},
        {"tool": "get_run", "arguments": {"id": "no-such-run", "wait_seconds": 61}},
        {"tool": "get_run", "arguments": {"id": "no-such-run", "wait_seconds": -1}},
        {"tool": "get_run", "arguments": {}},
        {"tool": "cancel_run", "arguments": {"id": "no-such-run"}},
        {"tool": "cancel_run", "arguments": {"id": 7}},
    ]);
    let outcomes = client(
        &python,
        &json!({
            "server": {"http": server.url("/mcp")},
            "calls": [{"schema_cases": cases}],
        }),
    );
    let judged = outcomes[0].as_array().unwrap();
    let disagree: Vec<&Value> = judged
        .iter()
        .filter(|c| c["schema"] != c["server"])
        .collect();
    assert!(
        disagree.is_empty(),
        "schema and server disagree: {disagree:#?}"
    );
    let accepted = judged.iter().filter(|c| c["server"] == true).count();
    let refused = judged.len() - accepted;
    assert!(accepted >= 10 && refused >= 15, "{judged:#?}");
    // The refusals are the server's own words on the argument.
    let look = judged
        .iter()
        .find(|c| c["arguments"]["look"] == "sometimes")
        .unwrap();
    assert_eq!(look["kind"], "invalid_request", "{look:#}");
}

#[test]
fn look_shows_the_outline_exactly_as_the_planner_gets_it_masked_and_withheld() {
    let python = crate::need_mcp!();
    let model = FakeModel::openai_plan(json!({"reasoning": "", "steps": [
        {"type": "done", "summary": "unused"}
    ]}));
    let cache = tempfile::tempdir().unwrap();
    let env = model_env(&model, cache.path());
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let server = ServeProcess::start(&[], &env);
    let injection = site().url("/look-injection.html");
    let echo = format!("{}?to={{{{who}}}}", site().url("/tpl/look-echo.html"));
    let outcomes = client(
        &python,
        &json!({
            "server": {"http": server.url("/mcp")},
            "calls": [
                {"tool": "look", "arguments": {"url": injection, "allowed_hosts": ["127.0.0.1"]}},
                {"tool": "plan", "arguments": {
                    "goal": injection, "allowed_hosts": ["127.0.0.1"], "dry_run": true
                }},
                {"tool": "look", "arguments": {
                    "goal": format!("Sign up at {echo}"), "vars": {"who": "Ada-Lovelace-7"},
                    "allowed_hosts": ["127.0.0.1"]
                }},
                {"tool": "look", "arguments": {"url": injection}},
            ],
        }),
    );
    let look = &outcomes[0];
    assert!(!look["is_error"].as_bool().unwrap(), "{look:#}");
    let outline = text_of(look);
    assert_eq!(look["structured"]["outline"], outline);
    // The form as the executor matches it; the instruction-like button withheld.
    assert!(outline.contains("Create account"), "{outline}");
    assert!(outline.contains("Password"), "{outline}");
    assert!(!outline.contains("Ignore all previous"), "{outline}");
    assert!(!outline.contains("prefilled@secret.test"), "{outline}");
    assert!(!outline.contains("hidden-token-123"), "{outline}");
    assert!(
        look["structured"]["withheld"].as_u64().unwrap() >= 1,
        "{look:#}"
    );
    // The same user message the planner's model would get, but for the block's nonce.
    let preview = outcomes[1]["structured"]["preview"].to_string();
    let nonce = |s: &str| {
        let mut out = String::new();
        let mut rest = s;
        while let Some(i) = rest.find("page-outline-") {
            out.push_str(&rest[..i + "page-outline-".len()]);
            rest = &rest[i + "page-outline-".len()..];
            rest = &rest[rest.len().min(16)..];
            out.push_str("NONCE");
        }
        out.push_str(rest);
        out
    };
    let sent = serde_json::to_string(outline).unwrap();
    let sent = &sent[1..sent.len() - 1];
    assert!(
        nonce(&preview).contains(&nonce(sent)),
        "the planner's request:\n{preview}\n\nthe look:\n{sent}"
    );
    // A caller's variable the page echoes is masked, in any letter case.
    let echoed = text_of(&outcomes[2]);
    assert!(echoed.contains("Continue as ••••"), "{echoed}");
    assert!(!echoed.to_lowercase().contains("lovelace"), "{echoed}");
    // Loopback without allowed_hosts: refused before any page is read, in words that say so.
    let refused = &outcomes[3];
    assert!(refused["is_error"].as_bool().unwrap(), "{refused:#}");
    assert!(text_of(refused).contains("allowed_hosts"), "{refused:#}");
}

/// `look` → `validate_plan` → `run_plan` over `server`, as an agent writing allauth's signup
/// plan would: the outline names the fields the plan fills; the plan checks; the run signs up,
/// confirms by the emailed link and signs in, judged by allauth's own records.
fn look_validate_run_on_allauth(python: &Path, server: Value, app: &journeys::Running) {
    let journey = journeys::journey("allauth", "signup-confirm-login");
    let plan: Value = serde_json::from_str(
        &std::fs::read_to_string(journey.file(journeys::PlanKind::Hand)).unwrap(),
    )
    .unwrap();
    let password = journeys::fresh_password();
    let vars = json!({journey.def().var: app.url});
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let run_args = json!({
        "plan": plan, "vars": vars, "secrets": {"PASSWORD": password},
        "inbox": "journeys", "allowed_hosts": ["127.0.0.1"],
    });
    let outcomes = client(
        python,
        &json!({
            "server": server,
            "calls": [
                {"tool": "look", "arguments": {
                    "url": format!("{}/accounts/signup/", app.url), "allowed_hosts": ["127.0.0.1"]
                }},
                {"tool": "validate_plan", "arguments": run_args},
                {"tool": "run_plan", "arguments": run_args},
            ],
        }),
    );
    // The outline has what the plan's fills and click name.
    let outline = text_of(&outcomes[0]);
    for label in ["Email", "Password", "Password (again)", "Sign Up"] {
        assert!(
            outline.contains(label),
            "{label} is not in the outline:\n{outline}"
        );
    }
    let checked = &outcomes[1]["structured"];
    assert_eq!(checked["valid"], true, "{:#}", outcomes[1]);
    assert_eq!(
        checked["allowed_hosts"],
        json!([app.url.trim_start_matches("http://")])
    );
    let result = result_of(&outcomes[2]);
    assert_eq!(result["status"], "succeeded", "{result:#}");
    assert!(text_of(&outcomes[2]).starts_with(&format!(
        "Run {} succeeded: Signed up",
        result["run_id"].as_str().unwrap()
    )));
    let address = result["inbox_address"].as_str().unwrap();
    let facts = journeys::records(
        journey.def(),
        app,
        "show",
        address,
        &[(
            "JOURNEY_PASSWORDS",
            json!({"PASSWORD": password}).to_string(),
        )],
    );
    let evidence = journeys::judge(journey.proofs, &facts, since);
    assert!(evidence.reached, "{}", evidence.seen);
}

#[test]
fn look_validate_and_run_a_stock_apps_signup_over_stdio_judged_by_its_records() {
    let python = crate::need_mcp!();
    if !journeys::ready() {
        return;
    }
    let port = free_port();
    let app = journeys::start_mailing_to("allauth", port);
    let store = tempfile::tempdir().unwrap();
    let inbox = format!(
        "journeys=smtp://127.0.0.1:{port}?domain={}",
        journeys::MAIL_DOMAIN
    );
    look_validate_run_on_allauth(
        &python,
        stdio(store.path(), &["--inbox".into(), inbox]),
        &app,
    );
}

#[test]
fn look_validate_and_run_a_stock_apps_signup_over_http_judged_by_its_records() {
    let python = crate::need_mcp!();
    if !journeys::ready() {
        return;
    }
    let port = free_port();
    let app = journeys::start_mailing_to("allauth", port);
    let inbox = format!(
        "journeys=smtp://127.0.0.1:{port}?domain={}",
        journeys::MAIL_DOMAIN
    );
    let server = ServeProcess::start(&["--inbox", &inbox], &[]);
    look_validate_run_on_allauth(&python, json!({"http": server.url("/mcp")}), &app);
}

#[test]
fn validate_plan_names_every_problem_with_its_path_and_a_did_you_mean() {
    let python = crate::need_mcp!();
    let store = tempfile::tempdir().unwrap();
    let outcomes = client(
        &python,
        &json!({
            "server": stdio(store.path(), &[]),
            "calls": [
                {"tool": "validate_plan", "arguments": {"plan": {"reasoning": "", "steps": [
                    {"type": "navigate", "url": "shop.example/signup"},
                    {"type": "fill", "describe": "the Email field", "label": "Email", "value": "{{inbox_adress}}"},
                    {"type": "click", "describe": "the Join button", "text": "Join", "selctor": "#join"},
                    {"type": "wait_for_mail"},
                ]}}},
                {"tool": "validate_plan", "arguments": {"plan": {"reasoning": "", "steps": [
                    {"type": "navigate", "url": "http://127.0.0.1:9/"},
                    {"type": "done", "summary": "x"},
                ]}}},
                {"tool": "validate_plan", "arguments": {"plan": {"reasoning": "", "steps": [
                    {"type": "navigate", "url": "https://shop.example/"},
                    {"type": "wait_for_email"},
                    {"type": "done", "summary": "x"},
                ]}, "inbox": "nowhere"}},
            ],
        }),
    );
    let first = &outcomes[0];
    assert!(!first["is_error"].as_bool().unwrap(), "{first:#}");
    assert_eq!(first["structured"]["valid"], false);
    let text = text_of(first);
    for needle in [
        "steps[0].url",
        "steps[1].value: unknown variable `{{inbox_adress}}` (did you mean `{{inbox_address}}`?)",
        "steps[2].selctor: unknown field `selctor` for `click` (did you mean `selector`?)",
        "steps[3].type: unknown step type `wait_for_mail` (did you mean `wait_for_email`?)",
        "the last step must be `done`",
    ] {
        assert!(text.contains(needle), "{needle:?} is not in:\n{text}");
    }
    let paths: Vec<&str> = first["structured"]["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["path"].as_str().unwrap())
        .collect();
    assert!(paths.contains(&"steps[2].selctor"), "{paths:?}");
    // A loopback page without allowed_hosts: a problem of the lock, said where to fix it.
    let second = &outcomes[1]["structured"];
    assert_eq!(second["valid"], false, "{second:#}");
    assert_eq!(second["problems"][0]["path"], "allowed_hosts", "{second:#}");
    // An inbox the server does not have: said as the server's configuration, which its
    // operator changes, naming no command or flag.
    let third = &outcomes[2];
    assert!(third["is_error"].as_bool().unwrap(), "{third:#}");
    let said = text_of(third);
    assert!(
        said.contains("its operator declares the inboxes it has"),
        "{said}"
    );
    assert!(
        !said.contains("planlock serve") && !said.contains("--inbox"),
        "{said}"
    );
}

#[test]
fn a_run_started_without_waiting_is_followed_with_get_run_and_cancelled() {
    let python = crate::need_mcp!();
    let store = tempfile::tempdir().unwrap();
    let quick = json!({"reasoning": "", "steps": [
        {"type": "navigate", "url": site().url("/form.html")},
        {"type": "done", "summary": "opened the form"}
    ]});
    for (transport, server, _keep) in both(&[], store.path()) {
        let began = Instant::now();
        // One session: over stdio, the server's runs end with its client.
        let outcomes = client(
            &python,
            &json!({
                "server": server,
                "calls": [
                    {"tool": "run_plan", "arguments": {
                        "plan": waiting_plan(), "allowed_hosts": ["127.0.0.1"], "wait": false
                    }},
                    {"tool": "run_plan", "arguments": {
                        "plan": quick, "allowed_hosts": ["127.0.0.1"], "wait": false
                    }},
                    // Ends as soon as the short run does, well before the minute.
                    {"tool": "get_run", "arguments": {"id": "$run_id[1]", "wait_seconds": 60}},
                    // The long one is still waiting: answered when the time is up, with its
                    // progress.
                    {"tool": "get_run", "arguments": {"id": "$run_id[0]", "wait_seconds": 2}},
                    {"tool": "cancel_run", "arguments": {"id": "$run_id[0]"}},
                    {"tool": "get_run", "arguments": {"id": "$run_id[0]", "wait_seconds": 10}},
                ],
            }),
        );
        // Both runs were answered at once, with their ids.
        let long = outcomes[0]["structured"]["run_id"]
            .as_str()
            .unwrap()
            .to_string();
        for o in &outcomes[..2] {
            let status = o["structured"]["status"].as_str().unwrap();
            assert!(["queued", "running"].contains(&status), "{o:#}");
            assert!(text_of(o).contains("get_run"), "{o:#}");
        }
        let short_run = &outcomes[2]["structured"]["run"];
        assert_eq!(
            short_run["status"], "succeeded",
            "{transport}: {short_run:#}"
        );
        assert!(text_of(&outcomes[2]).contains("succeeded: opened the form"));
        assert!(
            outcomes[2]["seconds"].as_f64().unwrap() < 30.0,
            "{:#}",
            outcomes[2]
        );
        let waited = &outcomes[3];
        let status = waited["structured"]["run"]["status"].as_str().unwrap();
        assert!(["queued", "running"].contains(&status), "{waited:#}");
        assert!(text_of(waited).contains("has not ended"), "{waited:#}");
        let seconds = waited["seconds"].as_f64().unwrap();
        assert!(
            (1.9..20.0).contains(&seconds),
            "waited {seconds} s: {waited:#}"
        );
        let cancelled = &outcomes[4]["structured"]["run"];
        assert_eq!(
            cancelled["status"], "cancelled",
            "{transport}: {cancelled:#}"
        );
        assert_eq!(outcomes[5]["structured"]["run"]["status"], "cancelled");
        assert!(text_of(&outcomes[5]).contains(&format!("Run {long} cancelled")));
        // Nothing waited out the long run's minute.
        assert!(
            began.elapsed().as_secs() < 45,
            "{transport}: {:?}",
            began.elapsed()
        );
    }
}

#[test]
fn the_text_holds_extracted_values_and_a_failures_step_element_runners_up_and_fix() {
    let python = crate::need_mcp!();
    let store = tempfile::tempdir().unwrap();
    let extracting = json!({"reasoning": "", "steps": [
        {"type": "navigate", "url": site().url("/form.html")},
        {"type": "extract_text", "describe": "the heading", "selector": "h1"},
        {"type": "done", "summary": "read the heading"}
    ]});
    let failing = json!({"reasoning": "", "steps": [
        {"type": "navigate", "url": site().url("/ambiguous-continue.html")},
        {"type": "click", "describe": "the Next step link", "text": "Next step"},
        {"type": "wait_for_text", "text": "Welcome aboard", "timeout_seconds": 1},
        {"type": "done", "summary": "went on"}
    ]});
    for (transport, server, _keep) in both(&[], store.path()) {
        let outcomes = client(
            &python,
            &json!({
                "server": server,
                "calls": [
                    {"tool": "run_plan", "arguments": {"plan": extracting, "allowed_hosts": ["127.0.0.1"]}},
                    {"tool": "run_plan", "arguments": {"plan": failing, "allowed_hosts": ["127.0.0.1"]}},
                ],
            }),
        );
        let extracted = &outcomes[0];
        assert_eq!(
            result_of(extracted)["extracted"],
            json!(["Create your account"])
        );
        assert!(
            text_of(extracted).contains("Extracted:\n  [0] Create your account"),
            "{transport}: {}",
            text_of(extracted)
        );
        let failed = &outcomes[1];
        let result = result_of(failed);
        assert_eq!(result["status"], "failed", "{result:#}");
        assert_eq!(result["failed_step"], 2);
        let text = text_of(failed);
        let run_id = result["run_id"].as_str().unwrap();
        assert!(
            text.starts_with(&format!(
                "Run {run_id} failed at steps[2], step 3 of 4 (wait_for_text: "
            )),
            "{text}"
        );
        assert!(
            text.contains(result["error"]["message"].as_str().unwrap()),
            "{text}"
        );
        // The click before it: the element it chose and the one it passed over, as the
        // structured detail has them.
        let located = &result["steps"][1]["detail"];
        let chosen = located["element"].as_str().unwrap();
        let runner_up = located["runners_up"][0]["element"].as_str().unwrap();
        assert!(
            text.contains(&format!(
                "steps[1] (click: the Next step link) before it chose {chosen}"
            )),
            "{text}"
        );
        assert!(text.contains(&format!("Runners-up: {runner_up}")), "{text}");
        assert!(
            text.contains("What to change: the text of steps[2] never appeared"),
            "{text}"
        );
    }
}

/// The skill file's commands, exactly as written, in a shell: its plan saved where it says,
/// the CI job's variables pointing at the demo shop and an embedded inbox. The shop's own
/// record judges the run.
#[test]
fn every_command_of_the_skill_runs_as_written() {
    if util::browser().is_none() {
        return;
    }
    let skill = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("skills/planlock/SKILL.md"),
    )
    .unwrap();
    let blocks = |lang: &str| -> Vec<String> {
        let fence = format!("```{lang}\n");
        skill
            .split(&fence)
            .skip(1)
            .map(|rest| rest.split("```").next().unwrap().to_string())
            .collect()
    };
    let saved = skill
        .find("Save it as `plans/signup.json`")
        .expect("where the plan goes");
    let plan = blocks("json")
        .into_iter()
        .find(|b| skill.find(b.as_str()).unwrap() > saved)
        .expect("the complete plan");
    let commands = blocks("sh");
    assert!(!commands.is_empty(), "the skill has commands");
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("plans")).unwrap();
    std::fs::write(dir.path().join("plans/signup.json"), &plan).unwrap();

    let port = free_port();
    let shop = crate::mcp::shop(port);
    let bin = Path::new(env!("CARGO_BIN_EXE_planlock")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for block in &commands {
        let out = std::process::Command::new("bash")
            .args(["-euo", "pipefail", "-c", block])
            .current_dir(dir.path())
            .env("PATH", &path)
            .env(
                "PLANLOCK_INBOX",
                format!("smtp://127.0.0.1:{port}?domain=ci.test"),
            )
            .env("APP_URL", shop.url(""))
            .env("PLANLOCK_SECRET_PASSWORD", "correct horse battery staple")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{block}\nexit {:?}\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // What the commands made: the schema the plan names, the reports, a verified account.
    let schema = std::fs::read_to_string(dir.path().join("plan.schema.json")).unwrap();
    assert_eq!(schema.trim(), planlock::plan::json_schema_text().trim());
    assert!(dir.path().join("report.xml").exists());
    assert!(dir.path().join("out/index.html").exists());
    let verified = shop.verified_accounts();
    assert_eq!(verified.len(), 1, "{verified:?}");
    assert!(verified[0].ends_with("@ci.test"), "{verified:?}");
    assert!(shop.has_password(&verified[0], "correct horse battery staple"));
}

/// What `look` answers an agent passes the masker the planner's request passes: a caller's
/// value and a server secret the page echoes (in its title, text, attributes, placeholders,
/// any letter case) reach the agent as masks, in both the text and the structured answer.
#[test]
fn look_answers_no_echoed_caller_value_or_secret() {
    use crate::look_masked::{CALLER, SECRET, assert_unsaid, goal};
    let python = crate::need_mcp!();
    let store = tempfile::tempdir().unwrap();
    let outcomes = client(
        &python,
        &json!({
            "server": {
                "stdio": [
                    env!("CARGO_BIN_EXE_planlock"), "mcp",
                    "--store", format!("sqlite:{}", store.path().join("runs.sqlite3").display()),
                    "--secret", "TOK@127.0.0.1",
                ],
                "env": {"PLANLOCK_SECRET_TOK": SECRET},
            },
            "calls": [{"tool": "look", "arguments": {
                "goal": goal(), "vars": {"who": CALLER}, "allowed_hosts": ["127.0.0.1"],
            }}],
        }),
    );
    let look = &outcomes[0];
    assert!(!look["is_error"].as_bool().unwrap(), "{look:#}");
    assert!(text_of(look).contains("••••"), "{}", text_of(look));
    let answered = serde_json::to_vec(look).unwrap();
    assert_unsaid("the MCP look tool", &answered, &[CALLER, SECRET]);
}
