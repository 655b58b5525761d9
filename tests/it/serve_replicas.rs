//! The run store across processes: two `serve` replicas on one real PostgreSQL (a run
//! started on one is read, listed and cancelled on the other), and servers that die with
//! runs in flight (their runs become `failed`, kind `interrupted`: at the replica's next
//! start, or when its lease runs out). Real binaries, real Chromium.

use crate::util;
use crate::util::serve::ServeProcess;

use std::time::{Duration, Instant};

use serde_json::{Value, json};

fn http() -> reqwest::Client {
    reqwest::Client::new()
}

async fn start_async(server: &ServeProcess, body: &Value) -> String {
    let response = http()
        .post(server.url("/v1/runs"))
        .header("prefer", "respond-async")
        .json(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 202);
    let accepted: Value = response.json().await.unwrap();
    accepted["run_id"].as_str().unwrap().to_string()
}

async fn get(server: &ServeProcess, path: &str) -> (u16, Value) {
    let response = http().get(server.url(path)).send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

/// Polls `GET /v1/runs/{id}` on `server` until `pred` holds (`secs` at most).
async fn poll(server: &ServeProcess, id: &str, secs: u64, pred: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let (_, view) = get(server, &format!("/v1/runs/{id}")).await;
        if pred(&view) {
            return view;
        }
        assert!(
            Instant::now() < deadline,
            "the run never got there: {view:#}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn in_wait_step(v: &Value) -> bool {
    v["steps"]
        .as_array()
        .is_some_and(|s| s.len() == 2 && s[1]["status"] == "running")
}

#[test]
fn two_replicas_share_runs_a_run_started_on_one_is_read_and_cancelled_on_the_other() {
    if util::browser().is_none() {
        return;
    }
    // The fixture site starts on first use, which must not happen inside `block_on`.
    util::site();
    let Some(db) = util::postgres::database() else {
        return;
    };
    let a = ServeProcess::start(&["--store", &db, "--replica-id", "a"], &[]);
    let b = ServeProcess::start(&["--store", &db, "--replica-id", "b"], &[]);
    util::rt().block_on(async {
        let id = start_async(&a, &util::serve::holding_run(30)).await;
        // B reads A's run as it happens: its steps so far, from the shared store.
        let view = poll(&b, &id, 20, in_wait_step).await;
        assert_eq!(view["status"], "running");
        assert_eq!(view["steps"][0]["type"], "navigate");
        assert_eq!(view["steps"][0]["status"], "succeeded");
        // B lists it.
        let (status, list) = get(&b, "/v1/runs?status=running").await;
        assert_eq!(status, 200);
        assert!(
            list["runs"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["run_id"] == json!(id)),
            "{list:#}"
        );
        // B cancels it; A, which runs it, stops it.
        let began = Instant::now();
        let response = http()
            .delete(b.url(&format!("/v1/runs/{id}")))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let result: Value = response.json().await.unwrap();
        assert_eq!(result["status"], "cancelled", "{result:#}");
        assert_eq!(result["steps"][1]["status"], "cancelled");
        assert!(
            began.elapsed() < Duration::from_secs(8),
            "{:?}",
            began.elapsed()
        );
        // Both answer the same result.
        let (_, on_a) = get(&a, &format!("/v1/runs/{id}")).await;
        assert_eq!(on_a, result);
        // A run on B, read on A.
        let site = util::site().url("");
        let quick = json!({"plan": {"reasoning": "r", "steps": [
            {"type": "navigate", "url": format!("{site}/form.html")},
            {"type": "extract_text", "describe": "title", "selector": "h1"},
            {"type": "done", "summary": "read"}]}, "allowed_hosts": ["127.0.0.1"]});
        let result: Value = http()
            .post(b.url("/v1/runs"))
            .json(&quick)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(result["status"], "succeeded", "{result:#}");
        let (_, on_a) = get(
            &a,
            &format!("/v1/runs/{}", result["run_id"].as_str().unwrap()),
        )
        .await;
        assert_eq!(on_a, result);
    });
}

/// Kills (SIGKILL) a server with a run in flight, starts it again with the same replica id
/// and store, and expects the run `failed` with kind `interrupted`.
fn restart_marks_interrupted(store: &str) {
    let args = ["--store", store, "--replica-id", "restarted"];
    let mut first = ServeProcess::start(&args, &[]);
    let id = util::rt().block_on(async {
        let id = start_async(&first, &util::serve::holding_run(30)).await;
        poll(&first, &id, 20, in_wait_step).await;
        id
    });
    first.kill();
    let second = ServeProcess::start(&args, &[]);
    util::rt().block_on(async {
        // Marked when the replica starts again, before it answers anything.
        let (status, result) = get(&second, &format!("/v1/runs/{id}")).await;
        assert_eq!(status, 200);
        assert_eq!(result["status"], "failed", "{result:#}");
        assert_eq!(result["error"]["kind"], "interrupted", "{result:#}");
        assert_eq!(result["failed_step"], 1, "{result:#}");
        assert_eq!(result["steps"][0]["status"], "succeeded");
        assert_eq!(result["steps"][1]["status"], "failed");
        assert_eq!(result["steps"][2]["status"], "skipped");
        let message = result["error"]["message"].as_str().unwrap();
        assert!(message.contains("restarted"), "{message}");
    });
}

#[test]
fn a_restarted_server_marks_its_runs_in_flight_interrupted_sqlite() {
    if util::browser().is_none() {
        return;
    }
    // The fixture site starts on first use, which must not happen inside `block_on`.
    util::site();
    let dir = tempfile::tempdir().unwrap();
    restart_marks_interrupted(&format!(
        "sqlite:{}",
        dir.path().join("runs.sqlite3").display()
    ));
}

#[test]
fn a_restarted_server_marks_its_runs_in_flight_interrupted_postgres() {
    if util::browser().is_none() {
        return;
    }
    // The fixture site starts on first use, which must not happen inside `block_on`.
    util::site();
    let Some(db) = util::postgres::database() else {
        return;
    };
    restart_marks_interrupted(&db);
}

#[test]
fn another_replica_marks_a_dead_replicas_runs_interrupted_when_its_lease_runs_out() {
    if util::browser().is_none() {
        return;
    }
    // The fixture site starts on first use, which must not happen inside `block_on`.
    util::site();
    let Some(db) = util::postgres::database() else {
        return;
    };
    let lease = ["--lease-seconds", "2"];
    // The runs share one queue: the survivor, alone at first with one slot, takes the
    // first run; the next one can only go to `dead`.
    let alive = ServeProcess::start(
        &[
            "--store",
            &db,
            "--replica-id",
            "alive",
            lease[0],
            lease[1],
            "--max-runs",
            "1",
        ],
        &[],
    );
    util::rt().block_on(async {
        // A run on the survivor stays alive all along: its lease is renewed.
        let kept = start_async(&alive, &util::serve::holding_run(30)).await;
        poll(&alive, &kept, 20, in_wait_step).await;
        let mut dead = ServeProcess::start(
            &["--store", &db, "--replica-id", "dead", lease[0], lease[1]],
            &[],
        );
        let id = start_async(&dead, &util::serve::holding_run(30)).await;
        poll(&dead, &id, 20, in_wait_step).await;
        dead.kill();
        let result = poll(&alive, &id, 20, |v| v["status"] != "running").await;
        assert_eq!(result["status"], "failed", "{result:#}");
        assert_eq!(result["error"]["kind"], "interrupted", "{result:#}");
        assert!(
            result["error"]["message"]
                .as_str()
                .unwrap()
                .contains("dead"),
            "{result:#}"
        );
        let (_, view) = get(&alive, &format!("/v1/runs/{kept}")).await;
        assert_eq!(view["status"], "running", "{view:#}");
        let metrics = http()
            .get(alive.url("/metrics"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(
            metrics.contains("planlock_runs_interrupted_total 1"),
            "{metrics}"
        );
    });
}
