//! What the model reads of a start page that echoes the request's values, byte for byte: the
//! stand-in model records the bytes it receives, and a dry run's printed request is read as
//! printed. The page echoes a caller variable's value and two secrets in every kind of string
//! the look reads, in other letter cases, and where the outline's cap would cut them; neither
//! value, nor what a cut leaves of it, reaches the model through `planlock plan`, `plan
//! --dry-run`, `act`, `POST /v1/plans` (with and without `dry_run`) or `POST /v1/act` (the MCP
//! tool is in `mcp.rs`).

use serde_json::{Value, json};

use crate::util::model::FakeModel;
use crate::util::serve::ServeProcess;
use crate::util::{self, need_browser, site};

/// The caller variable `who`, which the start page echoes.
pub const CALLER: &str = "CallerValue-Token-5531";
/// `PLANLOCK_SECRET_TOK` (the command line's environment; the server's `--secret TOK@…`).
pub const SECRET: &str = "TR0UB4DOR-SECRET-3390";
/// `PLANLOCK_SECRET_GIVEN` on the command line; a request's own secret on `/v1/act`.
pub const GIVEN: &str = "Given-Passw0rd-8812";

/// The goal: the echoing page, told the caller's value in its query.
pub fn goal() -> String {
    format!(
        "Search at {}?to={{{{who}}}}",
        site().url("/tpl/look-echo-values.html")
    )
}

fn stand_in_plan() -> Value {
    json!({"reasoning": "r", "steps": [
        {"type": "navigate", "url": site().url("/welcome.html")},
        {"type": "done", "summary": "ok"}]})
}

/// Every string inside a JSON document, one a line (what its escapes stand for).
fn strings_of(value: &Value, out: &mut String) {
    match value {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Array(items) => items.iter().for_each(|v| strings_of(v, out)),
        Value::Object(map) => map.iter().for_each(|(k, v)| {
            out.push_str(k);
            out.push('\n');
            strings_of(v, out);
        }),
        _ => {}
    }
}

/// Fails when `bytes` (as sent, and, when they are JSON, as their strings read) hold any of
/// `values` in any letter case, or what a cut leaves of one: two or more of its first
/// characters before `…`, two or more of its last after `…`, or any eight of its characters
/// in a row. Also fails when the bytes show no look of the echoing page with its echoes
/// masked, so the test cannot pass by reading nothing.
pub fn assert_unsaid(what: &str, bytes: &[u8], values: &[&str]) {
    let raw = String::from_utf8_lossy(bytes).to_lowercase();
    let mut decoded = String::new();
    if let Ok(json) = serde_json::from_slice::<Value>(bytes) {
        strings_of(&json, &mut decoded);
    }
    let decoded = decoded.to_lowercase();
    let mut leaks: Vec<String> = Vec::new();
    for (how, text) in [("as sent", &raw), ("as read", &decoded)] {
        for value in values {
            let value = value.to_lowercase();
            let chars: Vec<char> = value.chars().collect();
            let n = chars.len();
            let piece = |r: std::ops::Range<usize>| chars[r].iter().collect::<String>();
            let mut shown: Vec<String> = vec![value.clone()];
            shown.extend((0..n.saturating_sub(7)).map(|i| piece(i..i + 8)));
            shown.extend((2..n).map(|k| format!("{}…", piece(0..k))));
            shown.extend((2..n).map(|k| format!("…{}", piece(n - k..n))));
            for line in text.lines() {
                if let Some(p) = shown.iter().find(|p| line.contains(p.as_str())) {
                    leaks.push(format!("{how}, {p:?} in: {line}"));
                }
            }
        }
    }
    leaks.dedup();
    assert!(
        leaks.is_empty(),
        "{what}: {} lines carry a value or what a cut left of one:\n{}",
        leaks.len(),
        leaks.join("\n")
    );
    // The outline's part of the request: a look, its echoes masked.
    let (_, outline) = decoded
        .rsplit_once("<page-outline-")
        .unwrap_or_else(|| panic!("{what}: no outline was sent:\n{decoded}"));
    assert!(
        outline.contains("welcome back ••••") && outline.contains("search ••••"),
        "{what}: the look did not read the echoing page:\n{outline}"
    );
}

/// `planlock ARGS` against the stand-in, the two secrets in its environment, with a fresh
/// plan cache.
fn planlock(fake: &FakeModel, args: &[&str]) -> std::process::Output {
    let cache = tempfile::tempdir().unwrap();
    util::planlock()
        .args(args)
        .args(["--var", &format!("who={CALLER}")])
        .env("PLANLOCK_MODEL", "openai:stand-in")
        .env("OPENAI_BASE_URL", fake.openai_url())
        .env_remove("OPENAI_API_KEY")
        .env("PLANLOCK_CACHE_DIR", cache.path())
        .env("PLANLOCK_SECRET_TOK", SECRET)
        .env("PLANLOCK_SECRET_GIVEN", GIVEN)
        .output()
        .unwrap()
}

fn succeeded(out: &std::process::Output) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn cli_plan_sends_no_echoed_value_to_the_model() {
    need_browser!();
    let fake = FakeModel::openai_plan(stand_in_plan());
    let out = planlock(&fake, &["plan", &goal()]);
    succeeded(&out);
    let sent = fake.raw_bodies();
    assert_eq!(sent.len(), 1);
    assert_unsaid("planlock plan", &sent[0], &[CALLER, SECRET, GIVEN]);
}

#[test]
fn cli_plan_dry_run_prints_no_echoed_value() {
    need_browser!();
    let fake = FakeModel::openai_plan(stand_in_plan());
    let out = planlock(&fake, &["plan", &goal(), "--dry-run"]);
    succeeded(&out);
    assert_eq!(fake.count(), 0);
    assert_unsaid(
        "planlock plan --dry-run",
        &out.stdout,
        &[CALLER, SECRET, GIVEN],
    );
}

#[test]
fn cli_act_sends_no_echoed_value_to_the_model() {
    need_browser!();
    let fake = FakeModel::openai_plan(stand_in_plan());
    let out = planlock(&fake, &["act", &goal(), "--yes"]);
    succeeded(&out);
    let sent = fake.raw_bodies();
    assert_eq!(sent.len(), 1);
    assert_unsaid("planlock act", &sent[0], &[CALLER, SECRET, GIVEN]);
}

#[test]
fn the_service_sends_no_echoed_value_to_the_model_nor_shows_one_in_a_dry_run() {
    need_browser!();
    let fake = FakeModel::openai_plan(stand_in_plan());
    let cache = tempfile::tempdir().unwrap();
    let base = fake.openai_url();
    let cache_dir = cache.path().display().to_string();
    let server = ServeProcess::start(
        &["--secret", "TOK@127.0.0.1"],
        &[
            ("PLANLOCK_MODEL", "openai:stand-in"),
            ("OPENAI_BASE_URL", &base),
            ("PLANLOCK_CACHE_DIR", &cache_dir),
            ("PLANLOCK_SECRET_TOK", SECRET),
        ],
    );
    let ask = json!({
        "goal": goal(),
        "vars": {"who": CALLER},
        "allowed_hosts": ["127.0.0.1"],
        "no_cache": true,
    });
    let post = |path: &str, body: Value| -> (u16, Vec<u8>) {
        util::rt().block_on(async {
            let response = reqwest::Client::new()
                .post(server.url(path))
                .json(&body)
                .send()
                .await
                .unwrap();
            let status = response.status().as_u16();
            (status, response.bytes().await.unwrap().to_vec())
        })
    };
    let (status, answer) = post("/v1/plans", ask.clone());
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&answer));
    assert_eq!(fake.count(), 1);
    assert_unsaid("POST /v1/plans", &fake.raw_bodies()[0], &[CALLER, SECRET]);

    let mut dry = ask.clone();
    dry["dry_run"] = json!(true);
    let (status, answer) = post("/v1/plans", dry);
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&answer));
    assert_eq!(fake.count(), 1, "a dry run calls no model");
    assert_unsaid("POST /v1/plans with dry_run", &answer, &[CALLER, SECRET]);

    let mut act = ask;
    act["secrets"] = json!({"GIVEN": GIVEN});
    let (status, answer) = post("/v1/act", act);
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&answer));
    assert_eq!(fake.count(), 2);
    assert_unsaid(
        "POST /v1/act",
        &fake.raw_bodies()[1],
        &[CALLER, SECRET, GIVEN],
    );
}
