//! The agent bench (`fixtures/journeys/agent/`): every journey's app started, each an instance
//! of its own mailing to a receiver of its own in one `planlock serve`, for a model that
//! writes plans with planlock's MCP tools alone; then the judge of what that model did, by
//! each app's own records with the journeys' proofs ([`journeys::judge`]). Both are ignored
//! tests that the bench's scripts run (`start`, `judge`); `README.md` there tells the rest.
//!
//! A journey whose account exists before the run gets a receiver bound to that account's
//! fixed address (`smtp://…?address=APP-JOURNEY@journeys.example`), seeded before the agent
//! starts; a journey that makes its account gets a receiver with an address per run
//! (`run-RUNID@journeys.example`), so a retry signs up anew.

use crate::journeys::{self, Account, JOURNEYS, Journey, MAIL_DOMAIN, PlanKind};
use crate::util;
use crate::util::serve::ServeProcess;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value, json};

/// The bench's folder (`PLANLOCK_AGENT_DIR`): what the agent sees (`goals.agent.json`,
/// `plans/`, the `mcp` command) and, under `.harness/`, what it must not read.
fn bench_dir() -> PathBuf {
    let dir = std::env::var_os("PLANLOCK_AGENT_DIR").expect(
        "PLANLOCK_AGENT_DIR names the bench's folder (fixtures/journeys/agent/start sets it)",
    );
    PathBuf::from(dir)
}

fn harness_dir(dir: &Path) -> PathBuf {
    dir.join(".harness")
}

/// The journey's inbox name on the bench's server, and its file stem in `plans/`.
fn inbox_name(j: &Journey) -> String {
    format!("{}-{}", j.app, j.name)
}

/// The address of a journey's account when it exists before the run.
fn fixed_address(j: &Journey) -> Option<String> {
    match j.account {
        Account::Seeded(_) => Some(format!("{}@{MAIL_DOMAIN}", inbox_name(j))),
        Account::New => None,
    }
}

/// The journey's receiver: its fixed address, or an address per run.
fn binding(j: &Journey, port: u16) -> String {
    match fixed_address(j) {
        Some(address) => format!("smtp://127.0.0.1:{port}?address={address}"),
        None => format!("smtp://127.0.0.1:{port}?domain={MAIL_DOMAIN}"),
    }
}

/// The account's address for a run: the fixed one, or the run's own (as the receiver makes
/// it).
fn account_address(j: &Journey, run_id: &str) -> String {
    fixed_address(j).unwrap_or_else(|| format!("run-{}@{MAIL_DOMAIN}", run_id.to_lowercase()))
}

/// What the user calls the account where the app asks for a username: the fixed address's
/// local part, or for a new account the run address's (`run-{{run_id}}`), as the journeys do.
fn username(j: &Journey) -> String {
    match fixed_address(j) {
        Some(address) => address.split('@').next().unwrap_or_default().to_string(),
        None => "run-{{run_id}}".to_string(),
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock")
        .as_secs_f64()
}

fn write_json(path: &Path, value: &Value) {
    let text = serde_json::to_string_pretty(value).expect("JSON") + "\n";
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The `{{secret.NAME}}`s a goal names.
fn secrets_named(goal: &str) -> Vec<String> {
    let mut names: Vec<String> = goal
        .split("{{secret.")
        .skip(1)
        .filter_map(|rest| rest.split_once("}}").map(|(name, _)| name.to_string()))
        .collect();
    names.dedup();
    names
}

/// The goal as the user types it to the agent: the app's origin written out, the account's
/// address and username where it exists before the run; `{{inbox_address}}` (the run's own
/// address) for a new account, and the secrets by name.
fn goal_for_agent(j: &Journey, url: &str) -> String {
    let mut goal = j
        .goal()
        .replace(&format!("{{{{{}}}}}", j.def().var), url)
        .replace("{{username}}", &username(j));
    if let Some(address) = fixed_address(j) {
        goal = goal.replace("{{inbox_address}}", &address);
    }
    goal
}

// ---- The harness ----

/// One journey's seat on the bench, as `.harness/state.json` keeps it.
fn seat(j: &Journey, app: &journeys::Running, secrets: &BTreeMap<String, String>) -> Value {
    let instance: Map<String, Value> = app
        .records_env()
        .into_iter()
        .map(|(k, v)| (k.to_string(), Value::String(v)))
        .collect();
    let settings = j.def().env.iter().map(|(k, v)| (k.to_string(), json!(v)));
    json!({
        "app": j.app,
        "name": j.name,
        "folder": j.def().dir,
        "var": j.def().var,
        "url": app.url,
        "data": app.data,
        "group": app.group,
        "inbox": inbox_name(j),
        "binding": binding(j, app.smtp_port),
        "address": fixed_address(j),
        "domain": MAIL_DOMAIN,
        "sent_by_another": j.sent_by_another,
        "secrets": secrets,
        // What `DIR/records` needs of this instance (the judge's), and with the app's own
        // settings (the inviter's, which the `mcp` command plays).
        "instance": instance.clone(),
        "records": {
            "command": journeys::journeys_dir().join(j.def().dir).join("records"),
            "env": Value::Object(settings.chain(instance).collect()),
        },
    })
}

/// Starts every journey's app (an instance of its own, a fresh database, mail to a receiver
/// of its own), seeds the accounts that exist before the run, starts `planlock serve` with
/// every receiver, writes `goals.agent.json` and `.harness/state.json`, and keeps it all up
/// until `DIR/.harness/stop` appears. The apps are stopped when this test binary exits.
#[test]
#[ignore = "the agent bench's apps and server, up until told to stop: fixtures/journeys/agent/start"]
fn harness() {
    assert!(
        journeys::installed(),
        "the journeys' apps are not installed: fixtures/journeys/install"
    );
    let dir = bench_dir();
    let private = harness_dir(&dir);
    for sub in ["apps", "transcripts"] {
        std::fs::create_dir_all(private.join(sub)).expect("the bench's folders");
    }
    std::fs::create_dir_all(dir.join("plans")).expect("the plans folder");

    // Two apps start at a time: each is a few Python processes, and there are 2 cores.
    let ports: Vec<u16> = JOURNEYS.iter().map(|_| free_port()).collect();
    let started: Vec<journeys::Running> = std::thread::scope(|scope| {
        let mut out = Vec::new();
        for (batch, ports) in JOURNEYS.chunks(2).zip(ports.chunks(2)) {
            let handles: Vec<_> = batch
                .iter()
                .zip(ports)
                .map(|(j, &port)| {
                    let data = private.join("apps").join(inbox_name(j));
                    scope.spawn(move || journeys::start_in(j.app, port, &data))
                })
                .collect();
            for (j, h) in batch.iter().zip(handles) {
                let app = h.join().expect("the starting thread").unwrap_or_else(|e| {
                    panic!("{}: {e}", j.id());
                });
                eprintln!(
                    "{}: {} ({:.1} s)",
                    j.id(),
                    app.url,
                    app.started_in.as_secs_f64()
                );
                out.push(app);
            }
        }
        out
    });

    let mut seats = Map::new();
    let mut goals = Map::new();
    let mut inboxes = Vec::new();
    for (j, app) in JOURNEYS.iter().zip(&started) {
        let secrets = BTreeMap::from([
            ("PASSWORD".to_string(), journeys::fresh_password()),
            ("NEW_PASSWORD".to_string(), journeys::fresh_password()),
        ]);
        if let (Account::Seeded(command), Some(address)) = (j.account, fixed_address(j)) {
            journeys::records(
                j.def(),
                app,
                command,
                &address,
                &[("JOURNEY_PASSWORD", secrets["PASSWORD"].clone())],
            );
        }
        let inbox = inbox_name(j);
        inboxes.push(format!("{inbox}={}", binding(j, app.smtp_port)));
        let goal = goal_for_agent(j, &app.url);
        let given: Map<String, Value> = secrets_named(&goal)
            .into_iter()
            .map(|name| {
                let value = secrets.get(&name).cloned().unwrap_or_else(|| {
                    panic!(
                        "{}: the goal names {{{{secret.{name}}}}}, which the bench has not",
                        j.id()
                    )
                });
                (name, Value::String(value))
            })
            .collect();
        goals.insert(
            j.id(),
            json!({
                "goal": goal,
                "inbox": inbox,
                "inbox_address": match fixed_address(j) {
                    Some(address) => address,
                    None => format!("each run's own, run-RUNID@{MAIL_DOMAIN} ({{{{inbox_address}}}} in a plan)"),
                },
                "secrets": given,
                "plan_file": dir.join("plans").join(format!("{inbox}.json")),
                "note_file": dir.join("plans").join(format!("{inbox}.note.md")),
            }),
        );
        seats.insert(j.id(), seat(j, app, &secrets));
    }

    let token = format!(
        "bench-{}{}",
        planlock::runner::new_run_id(),
        planlock::runner::new_run_id()
    );
    let store = format!("sqlite:{}", private.join("runs.sqlite3").display());
    let mut args: Vec<&str> = vec!["--store", &store];
    for inbox in &inboxes {
        args.extend(["--inbox", inbox]);
    }
    // No model of planlock's own: the agent writes the plans (`act` and `plan` say so).
    let mut server =
        ServeProcess::start(&args, &[("PLANLOCK_TOKEN", &token), ("PLANLOCK_MODEL", "")]);
    write_json(
        &private.join("state.json"),
        &json!({
            "started_at": now(),
            "server": {"url": server.base, "mcp": server.url("/mcp"), "token": token, "pid": server.pid()},
            "groups": started.iter().map(|a| a.group).collect::<Vec<_>>(),
            "journeys": seats,
        }),
    );
    write_json(
        &dir.join("goals.agent.json"),
        &json!({
            "about": "One goal per journey, as a user would type it. Each is for an app of its own on this machine. \
                      Use the goal's inbox (its name on the planlock server) for every call about that goal; \
                      pass the goal's secrets, by name, in run_plan's `secrets`. Where the goal gives an email \
                      address, the account already exists there; `{{inbox_address}}` is the run's own address.",
            "goals": goals,
        }),
    );
    std::fs::write(private.join("ready"), "").expect("the ready mark");
    eprintln!(
        "the bench is up: {} journeys, planlock serve at {}",
        JOURNEYS.len(),
        server.base
    );

    let stop = private.join("stop");
    while !stop.exists() {
        std::thread::sleep(Duration::from_millis(300));
    }
    server.terminate();
    let _ = std::fs::remove_file(private.join("ready"));
    eprintln!("the bench stopped");
}

// ---- The judge ----

/// One run the agent started, as the transcript and the server know it.
struct AgentRun {
    id: String,
    /// The plan as `run_plan` sent it.
    plan: Option<Value>,
    status: String,
    result: Value,
    evidence: Option<journeys::Evidence>,
}

impl AgentRun {
    fn false_success(&self) -> bool {
        self.status == "succeeded" && !self.evidence.as_ref().is_some_and(|e| e.reached)
    }

    fn reached(&self) -> bool {
        self.status == "succeeded" && self.evidence.as_ref().is_some_and(|e| e.reached)
    }
}

/// What the agent did for one goal.
struct Judged {
    journey: String,
    inbox: String,
    calls: BTreeMap<String, usize>,
    /// The `look` answers: bytes of their text, and the outline's tokens as planlock counts
    /// them (characters / 4).
    look_text_bytes: usize,
    outline_tokens: u64,
    runs: Vec<AgentRun>,
    note: Option<String>,
}

impl Judged {
    fn total_calls(&self) -> usize {
        self.calls.values().sum()
    }

    fn verdict(&self) -> String {
        if self.runs.iter().any(AgentRun::false_success) {
            "FALSE SUCCESS".into()
        } else if self.runs.iter().any(AgentRun::reached) {
            "reached".into()
        } else if self.runs.is_empty() {
            "not reached (no run)".into()
        } else if self
            .runs
            .iter()
            .any(|r| r.evidence.as_ref().is_some_and(|e| e.reached))
        {
            "not reached (the app recorded the goal, but no run succeeded)".into()
        } else {
            "not reached".into()
        }
    }

    /// The last run's failure sentence, or what the app lacked.
    fn why(&self) -> String {
        let Some(last) = self.runs.last() else {
            return String::new();
        };
        let error = &last.result["error"];
        if last.status == "succeeded" {
            return last
                .evidence
                .as_ref()
                .map(|e| e.seen.clone())
                .unwrap_or_default();
        }
        let step = last.result["failed_step"]
            .as_u64()
            .map(|i| format!("step {} ", i + 1))
            .unwrap_or_default();
        format!(
            "{step}{}: {}",
            error["kind"].as_str().unwrap_or(&last.status),
            error["message"].as_str().unwrap_or("")
        )
    }
}

/// The transcript's lines (JSON each).
fn transcript(path: &Path) -> Vec<Value> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}: {l}", path.display())))
        .collect()
}

/// `2026-12-01T07:17:25.175Z` in Unix seconds.
fn unix_seconds(at: &Value) -> Option<f64> {
    let at = chrono::DateTime::parse_from_rfc3339(at.as_str()?).ok()?;
    Some(at.timestamp_millis() as f64 / 1000.0)
}

/// The server's view of every run: its listing (status, start) by id.
fn listed_runs(base: &str, token: &str) -> BTreeMap<String, Value> {
    util::rt().block_on(async {
        let http = reqwest::Client::new();
        let mut out = BTreeMap::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut url = format!("{base}/v1/runs?limit=100");
            if let Some(c) = &cursor {
                url.push_str(&format!("&cursor={c}"));
            }
            let page: Value = http
                .get(&url)
                .bearer_auth(token)
                .send()
                .await
                .unwrap_or_else(|e| {
                    panic!("the bench's server at {base} does not answer ({e}): judge before fixtures/journeys/agent/stop")
                })
                .json()
                .await
                .expect("a page of runs");
            for run in page["runs"].as_array().into_iter().flatten() {
                out.insert(run["run_id"].as_str().unwrap_or_default().to_string(), run.clone());
            }
            match page["next_cursor"].as_str() {
                Some(c) => cursor = Some(c.to_string()),
                None => return out,
            }
        }
    })
}

fn run_result(base: &str, token: &str, id: &str) -> Value {
    util::rt().block_on(async {
        reqwest::Client::new()
            .get(format!("{base}/v1/runs/{id}"))
            .bearer_auth(token)
            .send()
            .await
            .expect("the bench's server")
            .json()
            .await
            .expect("a run")
    })
}

/// The run ids a transcript line names, in order, with the plan when it started the run.
fn runs_named(line: &Value) -> Vec<(String, Option<Value>)> {
    let structured = &line["answer"]["structured"];
    let started = ["run_plan", "act"].contains(&line["tool"].as_str().unwrap_or_default());
    let id = structured["result"]["run_id"]
        .as_str()
        .or(structured["run_id"].as_str())
        .or(structured["run"]["run_id"].as_str())
        .or(line["arguments"]["id"].as_str());
    id.map(|id| {
        let plan = started.then(|| line["arguments"]["plan"].clone());
        vec![(id.to_string(), plan)]
    })
    .unwrap_or_default()
}

fn judge_journey(
    j: &Journey,
    seat: &Value,
    lines: &[Value],
    listed: &BTreeMap<String, Value>,
    server: (&str, &str),
    notes: &Path,
) -> Judged {
    let mut calls = BTreeMap::new();
    let mut look_text_bytes = 0;
    let mut outline_tokens = 0;
    let mut order: Vec<(String, Option<Value>)> = Vec::new();
    for line in lines.iter().filter(|l| l["kind"] == "call") {
        let tool = line["tool"].as_str().unwrap_or_default().to_string();
        *calls.entry(tool.clone()).or_insert(0) += 1;
        if tool == "look" {
            look_text_bytes += line["answer"]["text"].as_str().map_or(0, str::len);
            outline_tokens += line["answer"]["structured"]["outline_tokens"]
                .as_u64()
                .unwrap_or(0);
        }
        for (id, plan) in runs_named(line) {
            match order.iter_mut().find(|(known, _)| *known == id) {
                Some((_, known_plan)) => {
                    if known_plan.is_none() {
                        *known_plan = plan;
                    }
                }
                None => order.push((id, plan)),
            }
        }
    }
    let secrets: BTreeMap<String, String> =
        serde_json::from_value(seat["secrets"].clone()).expect("the seat's secrets");
    let passwords = serde_json::to_string(&secrets).expect("JSON");
    let instance: Vec<(&str, String)> = seat["instance"]
        .as_object()
        .expect("the instance's settings")
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str().unwrap_or_default().to_string()))
        .collect();
    let runs = order
        .into_iter()
        .map(|(id, plan)| {
            let listing = listed.get(&id).cloned().unwrap_or(Value::Null);
            let result = run_result(server.0, server.1, &id);
            let status = result["status"].as_str().unwrap_or("unknown").to_string();
            let started_at = unix_seconds(&listing["started_at"]);
            let evidence = started_at.map(|since| {
                let facts = journeys::records_of(
                    j.def(),
                    &instance,
                    "show",
                    &account_address(j, &id),
                    &[("JOURNEY_PASSWORDS", passwords.clone())],
                );
                journeys::judge(j.proofs, &facts, since)
            });
            AgentRun {
                id,
                plan,
                status,
                result,
                evidence,
            }
        })
        .collect();
    Judged {
        journey: j.id(),
        inbox: inbox_name(j),
        calls,
        look_text_bytes,
        outline_tokens,
        runs,
        note: std::fs::read_to_string(notes.join(format!("{}.note.md", inbox_name(j)))).ok(),
    }
}

/// The plan the agent ran, kept to replay with the journeys: the bench's literals (the app's
/// origin, the account's fixed address and username, the secrets' values, the journey's own
/// inbox name) put back as the journeys' variables.
fn kept_plan(j: &Journey, seat: &Value, plan: &Value) -> String {
    let mut plan = plan.clone();
    let inbox = inbox_name(j);
    for step in plan["steps"].as_array_mut().into_iter().flatten() {
        if step["inbox_id"] == inbox.as_str()
            && let Some(step) = step.as_object_mut()
        {
            step.remove("inbox_id");
        }
    }
    let mut text = serde_json::to_string_pretty(&plan).expect("JSON");
    let url = seat["url"].as_str().unwrap_or_default();
    text = text.replace(url, &format!("{{{{{}}}}}", j.def().var));
    if let Some(address) = fixed_address(j) {
        text = text.replace(&address, "{{inbox_address}}");
        text = text.replace(&username(j), "{{username}}");
    }
    for (name, value) in seat["secrets"].as_object().into_iter().flatten() {
        if let Some(value) = value.as_str() {
            text = text.replace(value, &format!("{{{{secret.{name}}}}}"));
        }
    }
    text + "\n"
}

/// A transcript to keep: every secret's value masked.
fn masked(text: &str, seat: &Value) -> String {
    let mut text = text.to_string();
    for (name, value) in seat["secrets"].as_object().into_iter().flatten() {
        if let Some(value) = value.as_str() {
            text = text.replace(value, &format!("••••{name}••••"));
        }
    }
    text
}

/// Judges what the agent did on the bench: per goal, every run it started (from its
/// transcript), checked by the app's own records with the journey's proofs; the calls; the
/// tokens of the tool list and of the outlines. Keeps each goal's last plan and transcript
/// beside the journeys (`APP/JOURNEY.agent.json`, `.agent.transcript.jsonl`) and writes the
/// table to `fixtures/journeys/agent/results.md`. Fails after the table on a false success.
#[test]
#[ignore = "judges the agent's runs on a running bench: fixtures/journeys/agent/judge"]
fn judge() {
    let dir = bench_dir();
    let private = harness_dir(&dir);
    let state = read_json(&private.join("state.json"));
    let base = state["server"]["url"].as_str().expect("the server's URL");
    let token = state["server"]["token"]
        .as_str()
        .expect("the server's token");
    let listed = listed_runs(base, token);
    let tools = read_json(&private.join("tools_list.json"));
    let tools_bytes = tools["bytes"].as_u64().unwrap_or(0);
    // Counted by the providers' tokenizers (bench/tokens/agent.js, which ./judge runs first).
    let tokens = std::fs::read_to_string(private.join("tokens.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .unwrap_or(Value::Null);
    let tokenized = |v: &Value| match (v["openai"].as_u64(), v["anthropic"].as_u64()) {
        (Some(o), Some(a)) => format!("{o} / {a}"),
        _ => "not counted".to_string(),
    };

    let mut judged = Vec::new();
    let mut named = std::collections::BTreeSet::new();
    for j in JOURNEYS {
        let seat = &state["journeys"][j.id()];
        let path = private
            .join("transcripts")
            .join(format!("{}.jsonl", inbox_name(j)));
        let lines = transcript(&path);
        let one = judge_journey(j, seat, &lines, &listed, (base, token), &dir.join("plans"));
        named.extend(one.runs.iter().map(|r| r.id.clone()));
        if let Some(plan) = one.runs.iter().rev().find_map(|r| r.plan.clone()) {
            std::fs::write(j.file(PlanKind::Agent), kept_plan(j, seat, &plan))
                .expect("keep the agent's plan");
        }
        if let Ok(text) = std::fs::read_to_string(&path) {
            let kept = j.file(PlanKind::Agent).with_extension("transcript.jsonl");
            std::fs::write(kept, masked(&text, seat)).expect("keep the transcript");
        }
        if let Some(note) = &one.note {
            let kept = j.file(PlanKind::Agent).with_extension("note.md");
            std::fs::write(kept, masked(note, seat)).expect("keep the note");
        }
        judged.push(one);
    }
    let session = transcript(&private.join("transcripts").join("_session.jsonl"));
    let unnamed: Vec<&String> = listed.keys().filter(|id| !named.contains(*id)).collect();

    let mut table = String::new();
    let _ = writeln!(
        table,
        "| goal | verdict | runs (succeeded) | tool calls | look, validate_plan, run_plan, get_run | outline tokens (planlock's count) | look answers' tokens (o200k / Claude) | why / what the app holds |\n|---|---|---|---|---|---|---|---|"
    );
    let cell = |s: &str| {
        let s = s.replace('|', "\\|").replace('\n', " ");
        if s.chars().count() > 220 {
            format!("{}…", s.chars().take(220).collect::<String>())
        } else {
            s
        }
    };
    for g in &judged {
        let count = |t: &str| g.calls.get(t).copied().unwrap_or(0);
        let _ = writeln!(
            table,
            "| `{}` | {} | {} ({}) | {} | {}, {}, {}, {} | {} | {} ({} B) | {} |",
            g.journey,
            g.verdict(),
            g.runs.len(),
            g.runs.iter().filter(|r| r.status == "succeeded").count(),
            g.total_calls(),
            count("look"),
            count("validate_plan"),
            count("run_plan"),
            count("get_run"),
            g.outline_tokens,
            tokenized(&tokens["looks"][g.inbox.as_str()]),
            g.look_text_bytes,
            cell(&g.why()),
        );
    }
    let reached = judged.iter().filter(|g| g.verdict() == "reached").count();
    let false_successes: Vec<&Judged> = judged
        .iter()
        .filter(|g| g.verdict() == "FALSE SUCCESS")
        .collect();
    let attempted = judged.iter().filter(|g| g.total_calls() > 0).count();
    let calls: usize = judged.iter().map(Judged::total_calls).sum();
    let outline: u64 = judged.iter().map(|g| g.outline_tokens).sum();
    let _ = writeln!(
        table,
        "\nGoals reached (a run succeeded and the app's records prove it): **{reached} of {}** \
         ({attempted} attempted). FALSE SUCCESSES: **{}**.\n\
         Tool calls: {calls} over the goals ({:.1} per goal attempted), {} more outside any goal \
         (tools/list, prompts, resources, server_info).\n\
         Tokens: the tool list (the tools/list answer as the official Python SDK holds it, JSON) \
         is {tools_bytes} bytes, about {} tokens at bytes / 4, {} tokens in o200k_base / \
         Anthropic's published Claude tokenizer; the outlines `look` returned, {outline} tokens \
         in all ({:.0} per goal attempted; planlock's count, characters / 4).",
        judged.len(),
        false_successes.len(),
        calls as f64 / attempted.max(1) as f64,
        session.len(),
        tools_bytes.div_ceil(4),
        tokenized(&tokens["tools"]),
        outline as f64 / attempted.max(1) as f64,
    );
    if !unnamed.is_empty() {
        let _ = writeln!(
            table,
            "\nRuns on the server that no goal's transcript names (not judged): {unnamed:?}"
        );
    }
    for g in &judged {
        if let Some(note) = &g.note {
            let _ = writeln!(
                table,
                "\n**{}**, the agent's note: {}",
                g.journey,
                cell(note)
            );
        }
    }
    println!("\n{table}");
    let results = journeys::journeys_dir().join("agent").join("results.md");
    std::fs::write(
        &results,
        format!("# The agent bench's last judgement\n\n{table}"),
    )
    .expect("write results.md");
    assert!(
        false_successes.is_empty(),
        "{} false successes: {:?}",
        false_successes.len(),
        false_successes
            .iter()
            .map(|g| &g.journey)
            .collect::<Vec<_>>()
    );
}

#[test]
fn the_bench_names_each_journey_apart_and_fills_its_goal() {
    let mut names = std::collections::BTreeSet::new();
    for j in JOURNEYS {
        let inbox = inbox_name(j);
        assert!(names.insert(inbox.clone()), "{inbox} twice");
        planlock::inbox::parse_binding(&format!("{inbox}={}", binding(j, 2525)))
            .unwrap_or_else(|e| panic!("{}: {e}", j.id()));
        let goal = goal_for_agent(j, "http://127.0.0.1:1");
        assert!(
            !goal.contains(&format!("{{{{{}}}}}", j.def().var)),
            "{goal}"
        );
        assert!(!goal.contains("{{username}}"), "{goal}");
        match fixed_address(j) {
            Some(address) => assert!(
                !goal.contains("{{inbox_address}}") && goal.contains(&address),
                "{}: a seeded account's goal names its address: {goal}",
                j.id()
            ),
            None => assert!(goal.contains("{{inbox_address}}"), "{goal}"),
        }
    }
}

/// The agent's one command (`client.py`, the official Python SDK over `/mcp` of a real
/// `planlock serve`): a call for a goal reaches the server with `--plan`'s file as its plan,
/// prints the answer's text, and is appended, request and answer with their bytes, to that
/// goal's transcript; the tool list is measured; a call that names no goal, or a goal the
/// bench has not, is refused before it leaves.
#[test]
fn the_agents_command_calls_the_server_and_keeps_each_call_in_its_goals_transcript() {
    let python = crate::need_mcp!();
    let j = journeys::journey("allauth", "reset-password");
    let inbox = inbox_name(j);
    let token = "bench-test-token";
    let bound = format!("{inbox}={}", binding(j, 0));
    let server = ServeProcess::start(&["--inbox", &bound], &[("PLANLOCK_TOKEN", token)]);
    let dir = tempfile::tempdir().unwrap();
    let private = harness_dir(dir.path());
    std::fs::create_dir_all(&private).unwrap();
    write_json(
        &private.join("state.json"),
        &json!({
            "server": {"url": server.base, "mcp": server.url("/mcp"), "token": token},
            "journeys": {j.id(): {"inbox": inbox, "sent_by_another": false, "domain": MAIL_DOMAIN}},
        }),
    );
    let plan = json!({"reasoning": "r", "steps": [
        {"type": "navigate", "url": "http://127.0.0.1:9/"},
        {"type": "wait_for_email"},
        {"type": "done", "summary": "s"},
    ]});
    let plan_file = dir.path().join("plan.json");
    write_json(&plan_file, &plan);
    let command = |args: &[&str]| {
        let out = std::process::Command::new(&python)
            .arg(journeys::journeys_dir().join("agent/client.py"))
            .args(args)
            .env("PLANLOCK_AGENT_DIR", dir.path())
            .output()
            .expect("run the bench's command");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };

    let arguments = json!({"inbox": inbox, "allowed_hosts": ["127.0.0.1"]}).to_string();
    let (code, said, err) = command(&[
        &j.id(),
        "validate_plan",
        &arguments,
        "--plan",
        plan_file.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(said.starts_with("The plan is valid: 3 steps"), "{said}");
    let lines = transcript(&private.join("transcripts").join(format!("{inbox}.jsonl")));
    assert_eq!(lines.len(), 1, "{lines:?}");
    let line = &lines[0];
    assert_eq!(line["goal"], j.id().as_str());
    assert_eq!(line["tool"], "validate_plan");
    assert_eq!(line["arguments"]["plan"], plan, "the file went as the plan");
    assert_eq!(line["answer"]["structured"]["valid"], true, "{line:#}");
    assert_eq!(line["answer"]["text"].as_str(), Some(said.trim_end()));
    assert!(line["answer_bytes"].as_u64().unwrap() > said.len() as u64);
    assert!(line["request_bytes"].as_u64().unwrap() > 0);

    let (code, said, err) = command(&["list"]);
    assert_eq!(code, Some(0), "{err}");
    let listed: Value = serde_json::from_str(&said).expect("the tool list is JSON");
    let measured = read_json(&private.join("tools_list.json"));
    assert_eq!(
        measured["bytes"].as_u64(),
        Some(said.trim_end().len() as u64)
    );
    assert_eq!(
        measured["tools"].as_u64(),
        listed["tools"].as_array().map(|t| t.len() as u64)
    );

    let (code, _, err) = command(&["validate_plan", &arguments]);
    assert_ne!(code, Some(0));
    assert!(
        err.contains("name the goal this validate_plan call is for"),
        "{err}"
    );
    let (code, _, err) = command(&["nowhere/goal", "look", "{}"]);
    assert_ne!(code, Some(0));
    assert!(err.contains("no goal 'nowhere/goal'"), "{err}");
    assert_eq!(
        transcript(&private.join("transcripts").join(format!("{inbox}.jsonl"))).len(),
        1,
        "refused calls are not sent"
    );
}
