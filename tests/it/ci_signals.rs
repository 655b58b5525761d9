//! Stopping `planlock run` the way CI runners and closed terminals do: SIGTERM and SIGHUP
//! cancel like Ctrl-C, with the result, the event log and every report written, the browser
//! and its profile gone, and an exit code that names the signal. Outside a terminal a
//! waiting step says how long it has waited every 10 s, as plain text.

use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::util;

struct Running {
    child: Child,
    dir: tempfile::TempDir,
    stderr: PathBuf,
}

impl Running {
    fn start() -> Running {
        let dir = tempfile::tempdir().unwrap();
        let plan = dir.path().join("wait.json");
        std::fs::write(
            &plan,
            r#"{"reasoning":"","steps":[
              {"type":"navigate","url":"{SITE}/form.html"},
              {"type":"wait_for_text","text":"this never appears","timeout_seconds":60},
              {"type":"done","summary":"x"}]}"#
                .replace("{SITE}", &util::site().url("")),
        )
        .unwrap();
        let stderr = dir.path().join("stderr.txt");
        let child = util::planlock()
            .arg("run")
            .arg(&plan)
            .arg("--json")
            .arg("--events")
            .arg(dir.path().join("events.jsonl"))
            .arg("--report")
            .arg(dir.path().join("report"))
            .arg("--junit")
            .arg(dir.path().join("junit.xml"))
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .unwrap();
        Running { child, dir, stderr }
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    fn wait_for_stderr(&self, needle: &str, within: Duration) {
        let started = Instant::now();
        while !self.stderr().contains(needle) {
            assert!(
                started.elapsed() < within,
                "no {needle:?} within {within:?}:\n{}",
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn profile(&self) -> PathBuf {
        let out = std::process::Command::new("pgrep")
            .args(["-P", &self.child.id().to_string()])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|p| std::fs::read_to_string(format!("/proc/{}/cmdline", p.trim())).ok())
            .find_map(|c| {
                c.split('\0')
                    .find_map(|a| a.strip_prefix("--user-data-dir="))
                    .map(PathBuf::from)
            })
            .expect("a Chromium child with its own profile")
    }

    fn signal(&self, signal: i32) {
        // SAFETY: a plain kill(2) on the child this test started.
        unsafe {
            libc::kill(self.child.id() as i32, signal);
        }
    }

    fn finish(mut self) -> (Option<i32>, Value, tempfile::TempDir, String) {
        let started = Instant::now();
        while self.child.try_wait().unwrap().is_none() {
            assert!(started.elapsed() < Duration::from_secs(15), "still running");
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = self.child.wait_with_output().unwrap();
        let stderr = std::fs::read_to_string(&self.stderr).unwrap();
        let result = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("no result on stdout ({e}):\n{stderr}"));
        (out.status.code(), result, self.dir, stderr)
    }
}

#[test]
fn sigterm_mid_wait_cancels_with_result_log_and_reports() {
    if util::browser().is_none() {
        return;
    }
    let run = Running::start();
    run.wait_for_stderr(
        "step 2/3 wait_for_text: 10 s of 60 s",
        Duration::from_secs(30),
    );
    let profile = run.profile();
    run.signal(libc::SIGTERM);
    let (code, result, dir, stderr) = run.finish();
    assert_eq!(code, Some(143), "{stderr}");
    assert_eq!(result["status"], "cancelled");
    assert_eq!(result["failed_step"], 1);
    assert!(
        !stderr.chars().any(|c| c.is_control() && c != '\n'),
        "plain text outside a terminal:\n{stderr:?}"
    );
    let log = std::fs::read_to_string(dir.path().join("events.jsonl")).unwrap();
    let last: Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
    assert_eq!(last["event"], "run_finished");
    assert_eq!(last["detail"]["status"], "cancelled");
    let run_dir = dir
        .path()
        .join("report")
        .join(result["run_id"].as_str().unwrap());
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("result.json")).unwrap())
            .unwrap();
    assert_eq!(saved["status"], "cancelled");
    assert!(dir.path().join("report/index.html").exists());
    let junit = std::fs::read_to_string(dir.path().join("junit.xml")).unwrap();
    assert!(
        junit.contains("<error") && junit.contains("type=\"cancelled\""),
        "{junit}"
    );
    assert!(!profile.exists(), "{} was left behind", profile.display());
}

#[test]
fn sighup_cancels_too_and_exits_129() {
    if util::browser().is_none() {
        return;
    }
    let run = Running::start();
    run.wait_for_stderr("✓ 1/3 navigate", Duration::from_secs(30));
    std::thread::sleep(Duration::from_millis(300));
    let profile = run.profile();
    run.signal(libc::SIGHUP);
    let (code, result, _dir, stderr) = run.finish();
    assert_eq!(code, Some(129), "{stderr}");
    assert_eq!(result["status"], "cancelled");
    assert!(stderr.contains("planlock: cancelling (SIGHUP)"), "{stderr}");
    assert!(!profile.exists(), "{} was left behind", profile.display());
}
