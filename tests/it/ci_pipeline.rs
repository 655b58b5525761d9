//! The CI examples in examples/ci, run here the way their jobs run them: the app under test
//! (`planlock demo --serve`) started in the background and waited for, then
//! `examples/ci/replay.sh` with the planlock binary on PATH. Both replays pass, and the
//! JUnit and HTML reports the jobs upload are where the jobs look for them.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::util;

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn example(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/ci")
        .join(name)
}

#[test]
fn the_ci_jobs_commands_replay_the_plans_and_write_the_reports() {
    if util::browser().is_none() {
        return;
    }
    for config in ["github-actions.yml", "gitlab-ci.yml"] {
        let text = std::fs::read_to_string(example(config)).unwrap();
        for command in [
            "planlock demo --serve --listen 127.0.0.1:8025",
            "examples/ci/wait-for.sh 127.0.0.1:8025",
            "examples/ci/replay.sh",
            "reports/",
            "apt-get install -y --no-install-recommends chromium",
        ] {
            assert!(text.contains(command), "{config} lacks {command:?}");
        }
    }
    let work = tempfile::tempdir().unwrap();
    let app = format!("127.0.0.1:{}", free_port());
    let smtp = format!("127.0.0.1:{}", free_port());
    let mut shop = util::planlock()
        .args([
            "demo",
            "--serve",
            "--listen",
            &app,
            "--smtp",
            &smtp,
            "--plans-dir",
            "plans",
        ])
        .current_dir(work.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let waited = Command::new(example("wait-for.sh"))
        .arg(&app)
        .status()
        .unwrap();
    assert!(waited.success(), "the demo shop never listened on {app}");
    let bin = Path::new(env!("CARGO_BIN_EXE_planlock")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let started = Instant::now();
    let out = Command::new(example("replay.sh"))
        .current_dir(work.path())
        .env("PATH", path)
        .env("BASE_URL", format!("http://{app}"))
        .env("SMTP", &smtp)
        .env_remove("PLANLOCK_LOG")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    // SAFETY: a plain kill(2) on the shop this test started.
    unsafe {
        libc::kill(shop.id() as i32, libc::SIGTERM);
    }
    let stopped = shop.wait().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "replay.sh:\n{stderr}");
    assert!(started.elapsed() < Duration::from_secs(120));
    assert!(
        stderr.lines().any(|l| l == "2 passed, 0 failed"),
        "{stderr}"
    );
    assert_eq!(stopped.code(), Some(0), "the shop stops cleanly on SIGTERM");

    let reports = work.path().join("reports");
    let junit = std::fs::read_to_string(reports.join("junit.xml")).unwrap();
    assert_eq!(junit.matches("<testsuite ").count(), 2, "{junit}");
    assert!(
        !junit.contains("<failure") && !junit.contains("<error"),
        "{junit}"
    );
    assert!(junit.contains("plans/signup.json") && junit.contains("plans/magic-link.json"));
    assert_eq!(
        junit.matches("[[ATTACHMENT|reports/html/").count(),
        17,
        "a screenshot per step"
    );
    let index = std::fs::read_to_string(reports.join("html/index.html")).unwrap();
    assert_eq!(index.matches("<tr class=\"run\">").count(), 2, "{index}");
}
