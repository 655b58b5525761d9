//! PostgreSQL as the queue: three real `planlock serve` replicas on one real PostgreSQL, each
//! with its own port and Chromium. Runs posted to one replica spread over all; a replica
//! killed outright leaves its queued runs to the others and its running ones `interrupted`;
//! a rolling restart loses nothing; one caller's share and a cancel reach across replicas.

use crate::util;
use crate::util::serve::ServeProcess;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use serde_json::{Value, json};

const WEBHOOK_SECRET: &str = "whsec-queue-0123456789";

fn http() -> reqwest::Client {
    reqwest::Client::new()
}

/// A run that takes about `seconds` and succeeds.
fn timed_run(seconds: f64) -> Value {
    let site = util::site().url("");
    json!({"plan": {"reasoning": "r", "steps": [
        {"type": "navigate", "url": format!("{site}/form.html")},
        {"type": "wait_seconds", "seconds": seconds},
        {"type": "done", "summary": "waited"}]},
        "allowed_hosts": ["127.0.0.1"]})
}

/// Three replicas `r0`, `r1`, `r2` on `db`, each with `--max-runs max_runs` and `more` flags.
fn replicas(db: &str, max_runs: usize, more: &[&str]) -> Vec<ServeProcess> {
    (0..3).map(|i| replica(db, i, max_runs, more)).collect()
}

fn replica(db: &str, i: usize, max_runs: usize, more: &[&str]) -> ServeProcess {
    let id = format!("r{i}");
    let max = max_runs.to_string();
    let mut args = vec![
        "--store",
        db,
        "--replica-id",
        &id,
        "--max-runs",
        &max,
        "--lease-seconds",
        "2",
    ];
    args.extend_from_slice(more);
    ServeProcess::start(&args, &[("PLANLOCK_WEBHOOK_SECRET", WEBHOOK_SECRET)])
}

/// `POST /v1/runs` with `Prefer: respond-async`: the status and the answer.
async fn post_async(base: &str, body: &Value) -> Result<(u16, Value), reqwest::Error> {
    let response = http()
        .post(format!("{base}/v1/runs"))
        .header("prefer", "respond-async")
        .json(body)
        .send()
        .await?;
    let status = response.status().as_u16();
    Ok((status, response.json().await?))
}

async fn start_async(server: &ServeProcess, body: &Value) -> String {
    let (status, accepted) = post_async(&server.base, body).await.unwrap();
    assert_eq!(status, 202, "{accepted:#}");
    accepted["run_id"].as_str().unwrap().to_string()
}

async fn get(base: &str, path: &str) -> Value {
    http()
        .get(format!("{base}{path}"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

fn ended(view: &Value) -> bool {
    !matches!(view["status"].as_str(), Some("queued" | "running"))
}

/// Polls the run on `base` until `pred` holds (`secs` at most).
async fn poll(base: &str, id: &str, secs: u64, pred: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let view = get(base, &format!("/v1/runs/{id}")).await;
        if pred(&view) {
            return view;
        }
        assert!(
            Instant::now() < deadline,
            "the run never got there: {view:#}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Which replica owns each run, read from the store itself.
fn owners(db: &str) -> HashMap<String, String> {
    let pg = util::postgres::server().expect("PostgreSQL");
    pg.query(db, "SELECT id, owner FROM runs")
        .lines()
        .filter_map(|l| l.split_once('|'))
        .map(|(id, owner)| (id.to_string(), owner.to_string()))
        .collect()
}

/// Runs ended with `status` on this replica, from its `/metrics`.
async fn ended_here(server: &ServeProcess, status: &str) -> u64 {
    let text = http()
        .get(server.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let needle = format!("planlock_runs_total{{status=\"{status}\"}} ");
    text.lines()
        .find_map(|l| l.strip_prefix(&needle))
        .map(|n| n.trim().parse().unwrap())
        .unwrap_or(0)
}

/// Counts webhook deliveries by run id.
struct Hooks {
    url: String,
    got: Arc<Mutex<HashMap<String, usize>>>,
}

impl Hooks {
    fn start() -> Hooks {
        let got: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
        let recorded = got.clone();
        let app = Router::new().route(
            "/hook",
            post(move |headers: HeaderMap| {
                let recorded = recorded.clone();
                async move {
                    let id = headers["planlock-run-id"].to_str().unwrap().to_string();
                    *recorded.lock().unwrap().entry(id).or_default() += 1;
                    StatusCode::OK
                }
            }),
        );
        let listener = util::rt()
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        util::rt().spawn(async move { axum::serve(listener, app).await });
        Hooks { url, got }
    }

    fn counts(&self) -> HashMap<String, usize> {
        self.got.lock().unwrap().clone()
    }
}

/// The store, the site and a browser, or why the test cannot run here.
fn setup() -> Option<String> {
    util::browser()?;
    // The fixture site starts on first use, which must not happen inside `block_on`.
    util::site();
    util::postgres::database()
}

#[test]
fn thirty_runs_posted_to_one_replica_spread_over_all_three_and_all_succeed() {
    let Some(db) = setup() else { return };
    let servers = replicas(&db, 2, &["--max-runs-per-caller", "30"]);
    util::rt().block_on(async {
        let mut ids = Vec::new();
        for _ in 0..30 {
            ids.push(start_async(&servers[0], &timed_run(0.5)).await);
        }
        for id in &ids {
            let view = poll(&servers[1].base, id, 120, ended).await;
            assert_eq!(view["status"], "succeeded", "{view:#}");
        }
        let mut per_replica = Vec::new();
        for server in &servers {
            per_replica.push(ended_here(server, "succeeded").await);
        }
        assert_eq!(per_replica.iter().sum::<u64>(), 30, "{per_replica:?}");
        assert!(
            per_replica.iter().all(|n| *n > 0),
            "every replica ran some: {per_replica:?}"
        );
        let owners = owners(&db);
        for (i, n) in per_replica.iter().enumerate() {
            let owned = ids
                .iter()
                .filter(|id| owners[*id] == format!("r{i}"))
                .count();
            assert_eq!(owned as u64, *n, "r{i}: {owners:?}");
        }
    });
}

#[test]
fn a_killed_replicas_queued_runs_succeed_elsewhere_and_its_running_one_ends_interrupted() {
    let Some(db) = setup() else { return };
    let hooks = Hooks::start();
    let mut servers = replicas(&db, 1, &[]);
    util::rt().block_on(async {
        let hooked = |body: Value| util::serve::hooked(body, &hooks.url);
        // One holding run on each replica: every slot is busy.
        let mut holding = Vec::new();
        for _ in 0..3 {
            holding.push(start_async(&servers[0], &hooked(util::serve::holding_run(60))).await);
        }
        for id in &holding {
            poll(&servers[0].base, id, 30, |v| v["status"] == "running").await;
        }
        // Four more wait in the shared queue, accepted by the replica about to die.
        let mut queued = Vec::new();
        for _ in 0..4 {
            queued.push(start_async(&servers[0], &hooked(timed_run(0.2))).await);
        }
        let health = get(&servers[1].base, "/healthz").await;
        assert_eq!(health["queue_depth"], 4, "the shared queue: {health:#}");
        assert_eq!(health["runs_in_flight"], 1, "{health:#}");
        let owners_then = owners(&db);
        let doomed = holding
            .iter()
            .find(|id| owners_then[*id] == "r0")
            .expect("r0 runs one of the holding runs")
            .clone();
        servers[0].kill();
        let killed = Instant::now();
        // The survivors' slots free up: their holding runs are cancelled.
        for id in holding.iter().filter(|id| **id != doomed) {
            let r = http()
                .delete(servers[1].url(&format!("/v1/runs/{id}")))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 200);
        }
        let view = poll(&servers[1].base, &doomed, 30, ended).await;
        let took = killed.elapsed();
        assert_eq!(view["status"], "failed", "{view:#}");
        assert_eq!(view["error"]["kind"], "interrupted", "{view:#}");
        assert!(
            took < Duration::from_secs(2 + 5),
            "interrupted after {took:?}"
        );
        for id in &queued {
            let view = poll(&servers[2].base, id, 60, ended).await;
            assert_eq!(view["status"], "succeeded", "{view:#}");
        }
        let owners_now = owners(&db);
        for id in &queued {
            assert_ne!(owners_now[id], "r0", "ran on a survivor");
        }
        // Every run has an end, and each webhook arrives once.
        let all: Vec<&String> = holding.iter().chain(&queued).collect();
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let counts = hooks.counts();
            if all.iter().all(|id| counts.contains_key(*id)) || Instant::now() > deadline {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        // A moment more for any second delivery to show itself.
        tokio::time::sleep(Duration::from_secs(2)).await;
        let counts = hooks.counts();
        for id in &all {
            assert_eq!(
                counts.get(*id),
                Some(&1),
                "{id} (of the holding {holding:?}, {doomed} on the killed replica): {counts:?}"
            );
            let view = get(&servers[1].base, &format!("/v1/runs/{id}")).await;
            assert!(ended(&view), "{view:#}");
        }
        assert_eq!(counts.len(), all.len(), "{counts:?}");
    });
}

#[test]
fn a_rolling_restart_under_a_steady_stream_interrupts_and_loses_nothing() {
    let Some(db) = setup() else { return };
    let mut servers = replicas(&db, 2, &["--drain-seconds", "20"]);
    let bases: Arc<Mutex<Vec<Option<String>>>> = Arc::new(Mutex::new(
        servers.iter().map(|s| Some(s.base.clone())).collect(),
    ));
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let posted: Arc<Mutex<Vec<String>>> = Arc::default();
    let stream = {
        let (bases, stop, posted) = (bases.clone(), stop.clone(), posted.clone());
        let body = timed_run(0.3);
        util::rt().spawn(async move {
            let mut turn = 0usize;
            while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                turn += 1;
                let live: Vec<String> = bases.lock().unwrap().iter().flatten().cloned().collect();
                let base = &live[turn % live.len()];
                // A replica that is stopping refuses (503) or is gone: the next one is asked.
                if let Ok((202, accepted)) = post_async(base, &body).await {
                    posted
                        .lock()
                        .unwrap()
                        .push(accepted["run_id"].as_str().unwrap().to_string());
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        })
    };
    for (i, server) in servers.iter_mut().enumerate() {
        std::thread::sleep(Duration::from_secs(2));
        bases.lock().unwrap()[i] = None;
        let status = server.terminate();
        assert!(status.success(), "{status:?}: {}", server.stderr());
        *server = replica(&db, i, 2, &["--drain-seconds", "20"]);
        bases.lock().unwrap()[i] = Some(server.base.clone());
    }
    std::thread::sleep(Duration::from_secs(2));
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    util::rt().block_on(stream).unwrap();
    let posted = posted.lock().unwrap().clone();
    assert!(posted.len() >= 40, "a steady stream: {}", posted.len());
    util::rt().block_on(async {
        for id in &posted {
            let view = poll(&servers[0].base, id, 60, ended).await;
            assert_eq!(view["status"], "succeeded", "{view:#}");
        }
    });
}

#[test]
fn one_callers_limit_holds_across_replicas() {
    let Some(db) = setup() else { return };
    let servers = replicas(&db, 2, &["--max-runs-per-caller", "2"]);
    util::rt().block_on(async {
        let first = start_async(&servers[0], &util::serve::holding_run(60)).await;
        let _second = start_async(&servers[1], &util::serve::holding_run(60)).await;
        let (status, refused) = post_async(&servers[2].base, &util::serve::holding_run(60))
            .await
            .unwrap();
        assert_eq!(status, 429, "{refused:#}");
        assert_eq!(
            refused["error"]["kind"], "too_many_runs_for_caller",
            "{refused:#}"
        );
        let r = http()
            .delete(servers[2].url(&format!("/v1/runs/{first}")))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let (status, accepted) = post_async(&servers[2].base, &util::serve::holding_run(60))
            .await
            .unwrap();
        assert_eq!(status, 202, "{accepted:#}");
    });
}

#[test]
fn a_cancel_posted_to_one_replica_stops_the_run_on_another_within_a_second() {
    let Some(db) = setup() else { return };
    let servers = replicas(&db, 1, &[]);
    util::rt().block_on(async {
        let id = start_async(&servers[0], &util::serve::holding_run(60)).await;
        poll(&servers[0].base, &id, 30, |v| {
            v["steps"]
                .as_array()
                .is_some_and(|s| s.len() == 2 && s[1]["status"] == "running")
        })
        .await;
        let owner = owners(&db)[&id].clone();
        let other = servers
            .iter()
            .enumerate()
            .find(|(i, _)| format!("r{i}") != owner)
            .map(|(_, s)| s)
            .unwrap();
        let began = Instant::now();
        let response = http()
            .delete(other.url(&format!("/v1/runs/{id}")))
            .send()
            .await
            .unwrap();
        let took = began.elapsed();
        assert_eq!(response.status(), 200);
        let result: Value = response.json().await.unwrap();
        assert_eq!(result["status"], "cancelled", "{result:#}");
        assert_eq!(result["steps"][1]["status"], "cancelled", "{result:#}");
        assert!(took < Duration::from_secs(1), "cancelled after {took:?}");
    });
}

/// The flags of a command line given as a YAML list: `--name` of each `--name[=value]`.
fn flags(args: &serde_yaml_ng::Value) -> Vec<String> {
    args.as_sequence()
        .expect("a list of arguments")
        .iter()
        .filter_map(|a| a.as_str())
        .filter(|a| a.starts_with("--"))
        .map(|a| a.split('=').next().unwrap().to_string())
        .collect()
}

fn seconds_flag(args: &serde_yaml_ng::Value, name: &str) -> u64 {
    args.as_sequence()
        .unwrap()
        .iter()
        .filter_map(|a| a.as_str()?.strip_prefix(&format!("{name}=")))
        .map(|v| v.parse().unwrap())
        .next()
        .unwrap_or_else(|| panic!("{name} is given"))
}

#[test]
fn the_compose_and_kubernetes_examples_drain_and_probe_with_what_serve_has() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let help = util::planlock()
        .args(["serve", "--help"])
        .output()
        .expect("planlock serve --help");
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    let known = |flag: &str| {
        assert!(
            help.contains(&format!("{flag} ")) || help.contains(&format!("{flag}\n")),
            "{flag} is not an option of planlock serve"
        )
    };

    let text = std::fs::read_to_string(root.join("examples/compose/docker-compose.yml")).unwrap();
    let mut compose: serde_yaml_ng::Value = serde_yaml_ng::from_str(&text).unwrap();
    compose.apply_merge().unwrap();
    let services = compose["services"].as_mapping().unwrap();
    let replicas: Vec<_> = services
        .iter()
        .filter(|(name, _)| name.as_str().unwrap().starts_with("planlock-"))
        .map(|(_, s)| s)
        .collect();
    assert_eq!(replicas.len(), 3, "three replicas");
    for service in &replicas {
        let command = &service["command"];
        assert_eq!(command[0], "serve");
        flags(command).iter().for_each(|f| known(f));
        let store = command
            .as_sequence()
            .unwrap()
            .iter()
            .find_map(|a| a.as_str()?.strip_prefix("--store="))
            .unwrap();
        assert!(store.starts_with("postgres://"), "{store}");
        let probe = format!("{:?}", service["healthcheck"]["test"]);
        assert!(probe.contains("/healthz"), "{probe}");
        let grace: u64 = service["stop_grace_period"]
            .as_str()
            .unwrap()
            .trim_end_matches('s')
            .parse()
            .unwrap();
        assert!(grace > seconds_flag(command, "--drain-seconds"));
        assert!(service["environment"]["PLANLOCK_REPLICA_ID"].is_string());
    }
    let nginx = std::fs::read_to_string(root.join("examples/compose/nginx.conf")).unwrap();
    for i in 1..=3 {
        assert!(
            nginx.contains(&format!("server planlock-{i}:8080")),
            "{nginx}"
        );
    }

    let text = std::fs::read_to_string(root.join("deploy/kubernetes/planlock.yaml")).unwrap();
    let docs: Vec<serde_yaml_ng::Value> = serde_yaml_ng::Deserializer::from_str(&text)
        .map(|d| serde::Deserialize::deserialize(d).unwrap())
        .collect();
    let kind = |k: &str| {
        docs.iter()
            .find(|d| d["kind"] == k)
            .unwrap_or_else(|| panic!("a {k}"))
    };
    let deployment = kind("Deployment");
    kind("Service");
    let pod = &deployment["spec"]["template"]["spec"];
    let container = &pod["containers"][0];
    let args = &container["args"];
    assert_eq!(args[0], "serve");
    flags(args).iter().for_each(|f| known(f));
    assert_eq!(container["readinessProbe"]["httpGet"]["path"], "/healthz");
    let pre_stop = format!("{:?}", container["lifecycle"]["preStop"]["exec"]["command"]);
    assert!(
        pre_stop.contains("kill -TERM 1"),
        "the preStop drains: {pre_stop}"
    );
    let drain = seconds_flag(args, "--drain-seconds");
    let grace = pod["terminationGracePeriodSeconds"].as_u64().unwrap();
    assert!(
        grace >= drain + 5 + 20,
        "{grace} s covers the drain of {drain} s"
    );
    let env = format!("{:?}", container["env"]);
    assert!(env.contains("secretKeyRef"), "{env}");
    assert!(env.contains("PLANLOCK_STORE"), "{env}");
}
