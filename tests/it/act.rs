//! `planlock act`: one model call (a local server speaking the OpenAI wire format), the plan
//! shown for review, then run on real Chromium. And `plan` + `run` replaying it with no model.

use crate::util;

use crate::util::model::FakeModel;

use std::process::Command;

use serde_json::{Value, json};

fn signup_plan() -> Value {
    let site = util::site().url("");
    json!({
        "reasoning": "Fill the signup form and submit it.",
        "steps": [
            {"type": "navigate", "url": format!("{site}/form.html")},
            {"type": "fill", "describe": "name", "label": "Full name", "value": "Ada"},
            {"type": "fill", "describe": "email", "label": "Email address", "value": "ada@example.com"},
            {"type": "click", "describe": "submit", "text": "Create account"},
            {"type": "wait_for_text", "text": "Welcome aboard"},
            {"type": "extract_text", "describe": "confirmation", "selector": "#who"},
            {"type": "done", "summary": "signed up"}
        ]
    })
}

fn planlock(model: &FakeModel, cache: &std::path::Path) -> Command {
    let mut cmd = util::planlock();
    cmd.env("PLANLOCK_MODEL", "openai:test-model")
        .env("OPENAI_BASE_URL", model.openai_url())
        .env_remove("OPENAI_API_KEY")
        .env("PLANLOCK_CACHE_DIR", cache);
    cmd
}

#[test]
fn act_yes_plans_once_reviews_and_runs_on_chromium() {
    if util::browser().is_none() {
        return;
    }
    let model = FakeModel::openai_plan(signup_plan());
    let cache = tempfile::tempdir().unwrap();
    let goal = format!("sign up at {}/form.html as Ada", util::site().url(""));
    let out = planlock(&model, cache.path())
        .args(["act", &goal, "--yes", "--json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr:\n{stderr}");
    assert_eq!(model.count(), 1, "exactly one model call");
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["status"], "succeeded");
    assert_eq!(result["extracted"][0], "Signed up as ada@example.com for");
    // The review names each step and the host it touches before anything runs.
    assert!(stderr.contains("127.0.0.1"), "{stderr}");
    assert!(stderr.contains("Create account"), "{stderr}");
    // The goal reached the model last; page text never did.
    let body = &model.bodies()[0];
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages[0]["role"], "system");
    assert!(
        messages.last().unwrap()["content"]
            .as_str()
            .unwrap()
            .contains(&goal)
    );
    assert!(!body.to_string().contains("Welcome aboard"));

    // Same goal again: the plan cache answers, no model call.
    let out = planlock(&model, cache.path())
        .args(["act", &goal, "--yes"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(model.count(), 1, "a cache hit makes zero calls");
}

#[test]
fn act_without_yes_refuses_when_stdin_is_not_a_terminal() {
    let model = FakeModel::openai_plan(signup_plan());
    let cache = tempfile::tempdir().unwrap();
    let out = planlock(&model, cache.path())
        .args(["act", "sign up at shop.example"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("pass --yes"));
    assert_eq!(model.count(), 0, "no model call before the check");
}

#[test]
fn a_planned_file_replays_with_no_model() {
    if util::browser().is_none() {
        return;
    }
    let model = FakeModel::openai_plan(signup_plan());
    let cache = tempfile::tempdir().unwrap();
    let file = cache.path().join("plan.json");
    let goal = format!("sign up at {}/form.html", util::site().url(""));
    let out = planlock(&model, cache.path())
        .args(["plan", &goal, "-o"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Replay: no model configured at all.
    let out = util::planlock()
        .env_remove("PLANLOCK_MODEL")
        .arg("run")
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(model.count(), 1);
}

/// The lock of `act` is fixed from the request before the start page is read: a `navigate`
/// the model wrote to a site the goal does not name (here `localhost`, where the goal names
/// `127.0.0.1`) is refused at run time, with the lock's sentence, instead of joining the lock.
#[test]
fn act_refuses_a_planned_navigation_the_goal_did_not_name() {
    if util::browser().is_none() {
        return;
    }
    let site = util::site().url("");
    let elsewhere = site.replace("127.0.0.1", "localhost");
    let plan = json!({
        "reasoning": "Open the form, then a page the goal did not name.",
        "steps": [
            {"type": "navigate", "url": format!("{site}/form.html")},
            {"type": "navigate", "url": format!("{elsewhere}/form.html")},
            {"type": "done", "summary": "went elsewhere"}
        ]
    });
    let model = FakeModel::openai_plan(plan);
    let cache = tempfile::tempdir().unwrap();
    let goal = format!("open {site}/form.html");
    let out = planlock(&model, cache.path())
        .args(["act", &goal, "--yes", "--blind", "--json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr:\n{stderr}");
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["status"], "failed", "{result:#}");
    assert_eq!(result["failed_step"], 1, "{result:#}");
    let port = site.rsplit(':').next().unwrap();
    let message = result["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("localhost:{port} is not part of this run")),
        "{message}"
    );
    assert!(
        !result["allowed_hosts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h.as_str().unwrap().contains("localhost")),
        "{result:#}"
    );
}
