//! Inboxes of `planlock serve`: configured on the server (`--inbox`, `--inbox-file` with
//! `${VAR}` credentials) and chosen by name; mailbox URLs from requests only when allowed,
//! and then judged by the address rule pages follow. Real Dovecot, real binary.

use crate::util;
use crate::util::dovecot::{self, Dovecot};
use crate::util::serve::ServeProcess;

use std::time::{Duration, Instant};

use serde_json::{Value, json};

fn http() -> reqwest::Client {
    reqwest::Client::new()
}

fn mail_plan() -> Value {
    json!({"reasoning": "r", "steps": [
        {"type": "wait_for_email", "subject": "welcome", "timeout_seconds": 20},
        {"type": "done", "summary": "got it"}]})
}

/// Starts `plan` async, appends a message to the run's plus address, waits for the end.
async fn run_reading_mail(server: &ServeProcess, dovecot: &Dovecot, body: Value) -> Value {
    run_reading_mail_with(server, body, async |raw: Vec<u8>| {
        dovecot.append(&raw).await
    })
    .await
}

/// [`run_reading_mail`], delivering through `deliver`.
async fn run_reading_mail_with(
    server: &ServeProcess,
    body: Value,
    deliver: impl AsyncFn(Vec<u8>),
) -> Value {
    let response = http()
        .post(server.url("/v1/runs"))
        .header("prefer", "respond-async")
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    let accepted: Value = response.json().await.unwrap();
    assert_eq!(status, 202, "{accepted}");
    let id = accepted["run_id"].as_str().unwrap().to_string();
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut appended = false;
    loop {
        let view: Value = http()
            .get(server.url(&format!("/v1/runs/{id}")))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if !appended && let Some(address) = view["inbox_address"].as_str() {
            assert_eq!(address, format!("bob+{id}@demo.test"));
            let raw = util::smtp::message("shop@example.com", address, "welcome aboard", "hi");
            deliver(raw).await;
            appended = true;
        }
        if view["status"] != "running" && view["status"] != "queued" {
            return view;
        }
        assert!(Instant::now() < deadline, "the run did not end: {view:#}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[test]
fn a_server_inbox_from_a_file_with_credentials_from_the_environment() {
    if util::browser().is_none() {
        return;
    }
    let Some(dovecot) = Dovecot::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("inboxes");
    let url = dovecot.url_with(
        dovecot::USER,
        "${TEST_IMAP_PASSWORD}",
        "address=bob@demo.test&plus=true",
    );
    std::fs::write(
        &file,
        format!("# the shared test mailbox\n\nsupport={url}\n"),
    )
    .unwrap();
    let server = ServeProcess::start(
        &["--inbox-file", file.to_str().unwrap()],
        &[("TEST_IMAP_PASSWORD", dovecot::PASSWORD)],
    );
    util::rt().block_on(async {
        let result = run_reading_mail(
            &server,
            &dovecot,
            json!({"plan": mail_plan(), "inbox": "support"}),
        )
        .await;
        assert_eq!(result["status"], "succeeded", "{result:#}");
        assert_eq!(
            result["steps"][0]["detail"]["email_subject"],
            "welcome aboard"
        );
    });
    // The password is nowhere in the process's arguments.
    let cmdline = std::fs::read(format!("/proc/{}/cmdline", server.pid())).unwrap();
    assert!(
        !String::from_utf8_lossy(&cmdline).contains(dovecot::PASSWORD),
        "{:?}",
        String::from_utf8_lossy(&cmdline)
    );
}

#[test]
fn a_missing_variable_or_an_unnamed_server_inbox_is_refused_at_start() {
    let out = util::planlock()
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args([
            "--inbox",
            "mail=imap://bob:${NO_SUCH_VARIABLE_X}@127.0.0.1:1/INBOX?address=a@b.test",
        ])
        .env_remove("NO_SUCH_VARIABLE_X")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("NO_SUCH_VARIABLE_X"), "{stderr}");
    let out = util::planlock()
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(["--inbox", "smtp://127.0.0.1:0?domain=x.test"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("NAME=URL"), "{stderr}");
}

#[test]
fn request_mailbox_urls_follow_the_address_rule_of_pages() {
    if util::browser().is_none() {
        return;
    }
    let Some(dovecot) = Dovecot::start() else {
        return;
    };
    let server = ServeProcess::start(&["--allow-request-inboxes"], &[]);
    let url = dovecot.url("address=bob@demo.test&plus=true");
    util::rt().block_on(async {
        // Dovecot listens on loopback: a private address the request did not allow.
        let message = inbox_refused(&server, json!({"plan": mail_plan(), "inbox": url})).await;
        assert!(message.contains("127.0.0.1"), "{message}");
        // Allowed explicitly, it is used.
        let result = run_reading_mail(
            &server,
            &dovecot,
            json!({"plan": mail_plan(), "inbox": url, "allowed_hosts": ["127.0.0.1"]}),
        )
        .await;
        assert_eq!(result["status"], "succeeded", "{result:#}");
    });
}

/// A request's mailbox server is judged by the run's own lock: where the plan navigates to
/// one port of an allowed `127.0.0.1`, the lock allows that port only, and Dovecot on
/// another loopback port is another service, refused before anything runs.
#[test]
fn a_request_mailbox_is_judged_by_the_runs_own_lock() {
    if util::browser().is_none() {
        return;
    }
    let Some(dovecot) = Dovecot::start() else {
        return;
    };
    let server = ServeProcess::start(&["--allow-request-inboxes"], &[]);
    let url = dovecot.url("address=bob@demo.test&plus=true");
    let site = util::site().url("");
    let mut plan = mail_plan();
    plan["steps"].as_array_mut().unwrap().insert(
        0,
        json!({"type": "navigate", "url": format!("{site}/form.html")}),
    );
    util::rt().block_on(async {
        let body = json!({"plan": plan, "inbox": url, "allowed_hosts": ["127.0.0.1"]});
        let message = inbox_refused(&server, body).await;
        let site_port = site.rsplit(':').next().unwrap().trim_end_matches('/');
        assert!(
            message.contains(&format!("127.0.0.1:{site_port}")),
            "{message}"
        );
    });
}

/// Posts `body` as a run and returns the sentence of its refusal: 422 `lock_refused`, naming
/// the request's inbox and never its password.
async fn inbox_refused(server: &ServeProcess, body: Value) -> String {
    let response = http()
        .post(server.url("/v1/runs"))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 422);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["kind"], "lock_refused", "{body}");
    let message = body["error"]["message"].as_str().unwrap().to_string();
    assert!(message.starts_with("inbox[0]: "), "{message}");
    assert!(!message.contains(dovecot::PASSWORD), "{message}");
    message
}

#[test]
fn runs_through_the_service_share_a_bounded_number_of_imap_connections() {
    if util::browser().is_none() {
        return;
    }
    let Some(dovecot) = Dovecot::start() else {
        return;
    };
    // Dovecot's own default: 10 connections per user and address. Each run used to leave
    // one more behind for ~30 s, so steady traffic hit the limit within seconds.
    let url = dovecot.url("address=bob@demo.test&plus=true");
    let server = ServeProcess::start(
        &["--inbox", &format!("support={url}"), "--max-runs", "8"],
        &[],
    );
    util::rt().block_on(async {
        // One connection delivers all the mail, and is left out of the count.
        let appender = tokio::sync::Mutex::new(dovecot.appender().await);
        let watch = dovecot.watch_connections(&[appender.lock().await.local_port()]);
        let deliver = async |raw: Vec<u8>| appender.lock().await.append(&raw).await;
        let body = || json!({"plan": mail_plan(), "inbox": "support"});
        for i in 0..50 {
            let result = run_reading_mail_with(&server, body(), deliver).await;
            assert_eq!(result["status"], "succeeded", "run {i}: {result:#}");
        }
        let together: Vec<Value> = futures::future::join_all(
            (0..16).map(|_| run_reading_mail_with(&server, body(), deliver)),
        )
        .await;
        for (i, result) in together.iter().enumerate() {
            assert_eq!(
                result["status"], "succeeded",
                "concurrent run {i}: {result:#}"
            );
        }
        let peak = watch.stop();
        // The default bound of connections per mailbox account.
        assert!(
            (1..=4).contains(&peak.connections.len()),
            "planlock held {} IMAP connections at once: {:?}",
            peak.connections.len(),
            peak.connections
        );
    });
}
