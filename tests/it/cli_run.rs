//! `planlock run` as users run it: the real binary, real Chromium, the fixture site.
//! Exit codes, reports, the event log, cancellation, a killed browser, no orphans.

use crate::util;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

fn write_plan(dir: &Path, name: &str, json: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, json.replace("{SITE}", &util::site().url(""))).unwrap();
    path
}

/// Chromium processes whose parent is `pid`.
fn chromium_children(pid: u32) -> Vec<u32> {
    let out = Command::new("pgrep")
        .args(["-P", &pid.to_string()])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .filter(|p: &u32| {
            std::fs::read_to_string(format!("/proc/{p}/cmdline"))
                .is_ok_and(|c| c.contains("planlock-chromium-"))
        })
        .collect()
}

/// True when the process is gone (or a zombie nobody will run again).
fn gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .split(") ")
            .nth(1)
            .is_some_and(|rest| rest.starts_with('Z')),
    }
}

fn wait_gone(pid: u32) -> bool {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(5) {
        if gone(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[test]
fn run_succeeds_and_writes_every_report() {
    if util::browser().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(
        dir.path(),
        "signup.json",
        r#"{"reasoning":"","steps":[
          {"type":"navigate","url":"{SITE}/form.html"},
          {"type":"fill","describe":"name","label":"Full name","value":"{{who}}"},
          {"type":"click","describe":"submit","text":"Create account"},
          {"type":"wait_for_text","text":"Welcome aboard"},
          {"type":"done","summary":"made it"}]}"#,
    );
    let events = dir.path().join("events.jsonl");
    let junit = dir.path().join("junit.xml");
    let report = dir.path().join("report");
    let out = util::planlock()
        .arg("run")
        .arg(&plan)
        .args(["--var", "who=Ada", "--json", "--events"])
        .arg(&events)
        .arg("--junit")
        .arg(&junit)
        .arg("--report")
        .arg(&report)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr:\n{stderr}");
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["status"], "succeeded");
    assert_eq!(result["summary"], "made it");
    assert_eq!(result["steps"].as_array().unwrap().len(), 5);
    let lines: Vec<Value> = std::fs::read_to_string(&events)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.first().unwrap()["event"], "run_started");
    assert_eq!(lines.last().unwrap()["event"], "run_finished");
    assert_eq!(lines.len(), 2 + 2 * 5);
    for l in &lines {
        assert_eq!(l["run_id"], result["run_id"]);
        assert!(l["ts"].as_str().unwrap().ends_with('Z'));
    }
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains("tests=\"5\"") && xml.contains("failures=\"0\""),
        "{xml}"
    );
    let run_dir = report.join(result["run_id"].as_str().unwrap());
    for file in ["result.json", "events.jsonl", "index.html"] {
        assert!(
            run_dir.join(file).exists(),
            "{file} written in {}",
            run_dir.display()
        );
    }
    assert!(report.join("index.html").exists());
    assert!(stderr.contains("1 passed, 0 failed"), "{stderr}");
    assert!(
        stderr.contains("✓ succeeded"),
        "progress on stderr:\n{stderr}"
    );
}

#[test]
fn a_failing_step_exits_1_with_the_full_log() {
    if util::browser().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(
        dir.path(),
        "p.json",
        r##"{"reasoning":"","steps":[
          {"type":"navigate","url":"{SITE}/form.html"},
          {"type":"click","describe":"missing","selector":"#does-not-exist"},
          {"type":"done","summary":"x"}]}"##,
    );
    let junit = dir.path().join("junit.xml");
    let out = util::planlock()
        .arg("run")
        .arg(&plan)
        .args(["--events", "-", "--timeout", "20", "--junit"])
        .arg(&junit)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let events: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(events.last().unwrap()["event"], "run_finished");
    assert!(
        events
            .iter()
            .any(|e| e["event"] == "step_failed" && e["index"] == 1)
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains("failures=\"1\"") && xml.contains("not_found") && xml.contains("<skipped"),
        "{xml}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no visible element matching `#does-not-exist` on the page"),
        "{stderr}"
    );
}

#[test]
fn invalid_plans_exit_2_before_any_browser_starts() {
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(
        dir.path(),
        "bad.json",
        r#"{"reasoning":"","steps":[{"type":"wait_for_mail"}]}"#,
    );
    let out = util::planlock().arg("run").arg(&plan).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("did you mean `wait_for_email`?"),
        "{stderr}"
    );

    let plan = write_plan(
        dir.path(),
        "var.json",
        r#"{"reasoning":"","steps":[{"type":"fill","describe":"x","label":"x","value":"{{secret.NOT_SET_ANYWHERE}}"},{"type":"done","summary":"x"}]}"#,
    );
    let out = util::planlock().arg("run").arg(&plan).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("PLANLOCK_SECRET_NOT_SET_ANYWHERE"),
        "{stderr}"
    );

    let out = util::planlock()
        .args(["run", "--bogus-flag", "x.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "usage errors exit 2");
}

#[test]
fn an_email_step_without_an_inbox_is_invalid_input() {
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(
        dir.path(),
        "mail.json",
        r#"{"reasoning":"","steps":[{"type":"wait_for_email","timeout_seconds":1},{"type":"done","summary":"x"}]}"#,
    );
    let out = util::planlock().arg("run").arg(&plan).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no inbox is bound: pass --inbox URL"));
}

#[test]
fn a_missing_browser_exits_3_with_a_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(
        dir.path(),
        "p.json",
        r#"{"reasoning":"","steps":[{"type":"navigate","url":"http://127.0.0.1:9/"},{"type":"done","summary":"x"}]}"#,
    );
    let out = util::planlock()
        .arg("run")
        .arg(&plan)
        .args(["--browser", "/nonexistent/chromium"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cannot start /nonexistent/chromium"),
        "{stderr}"
    );
}

/// A `planlock run --json --events FILE` in the background, stopped at its long step.
struct Running {
    child: std::process::Child,
    events: std::path::PathBuf,
    chromium: u32,
    /// Chromium's temporary profile, which must be gone after planlock exits.
    profile: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl Running {
    /// Starts `plan` and returns once the step of type `long_step` has started.
    fn start(plan: &str, long_step: &str) -> Running {
        Running::start_with(plan, long_step, &[])
    }

    /// [`Running::start`] with more arguments to `planlock run`.
    fn start_with(plan: &str, long_step: &str, args: &[&str]) -> Running {
        let dir = tempfile::tempdir().unwrap();
        let plan = write_plan(dir.path(), "plan.json", plan);
        let events = dir.path().join("events.jsonl");
        let child = util::planlock()
            .arg("run")
            .arg(&plan)
            .args(args)
            .arg("--json")
            .arg("--events")
            .arg(&events)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let started = Instant::now();
        let marker = format!("\"type\":\"{long_step}\"");
        while !std::fs::read_to_string(&events)
            .unwrap_or_default()
            .contains(&marker)
        {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "the run never reached {long_step}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let browsers = chromium_children(child.id());
        assert_eq!(browsers.len(), 1, "one Chromium child while running");
        let cmdline = std::fs::read_to_string(format!("/proc/{}/cmdline", browsers[0])).unwrap();
        let profile = cmdline
            .split('\0')
            .find_map(|a| a.strip_prefix("--user-data-dir="))
            .expect("Chromium runs with its own profile")
            .into();
        Running {
            chromium: browsers[0],
            profile,
            child,
            events,
            _dir: dir,
        }
    }

    /// Waits for the exit; returns the exit code and the result printed by `--json`.
    fn finish(mut self) -> (Option<i32>, Value, String) {
        let status = self.child.wait().unwrap();
        let mut stdout = String::new();
        std::io::Read::read_to_string(self.child.stdout.as_mut().unwrap(), &mut stdout).unwrap();
        let log = std::fs::read_to_string(&self.events).unwrap();
        assert!(
            log.lines().last().unwrap().contains("\"run_finished\""),
            "incomplete log:\n{log}"
        );
        (status.code(), serde_json::from_str(&stdout).unwrap(), log)
    }
}

#[test]
fn ctrl_c_cancels_with_a_complete_log_and_no_orphan_browser() {
    if util::browser().is_none() {
        return;
    }
    let run = Running::start(
        r#"{"reasoning":"","steps":[
          {"type":"navigate","url":"{SITE}/form.html"},
          {"type":"wait_seconds","seconds":30},
          {"type":"done","summary":"x"}]}"#,
        "wait_seconds",
    );
    let chromium = run.chromium;
    unsafe {
        libc::kill(run.child.id() as i32, libc::SIGINT);
    }
    let profile = run.profile.clone();
    let (code, result, _) = run.finish();
    assert_eq!(code, Some(130), "a run cancelled by SIGINT exits 128 + 2");
    assert!(
        !profile.exists(),
        "the profile {} was left behind",
        profile.display()
    );
    assert_eq!(result["status"], "cancelled");
    assert_eq!(result["failed_step"], 1);
    assert!(wait_gone(chromium), "Chromium {chromium} outlived planlock");
}

#[test]
fn a_browser_killed_mid_run_fails_at_once_whatever_the_step() {
    if util::browser().is_none() {
        return;
    }
    // A browser step, a plain pause, and an inbox wait: each must notice the browser's death
    // at once (not when its own deadline passes) and say so.
    for (long_step, step, args) in [
        (
            "wait_for_text",
            r#"{"type":"wait_for_text","text":"this never appears","timeout_seconds":60}"#,
            &[][..],
        ),
        (
            "wait_seconds",
            r#"{"type":"wait_seconds","seconds":20}"#,
            &[][..],
        ),
        (
            "wait_for_email",
            r#"{"type":"wait_for_email","timeout_seconds":60}"#,
            &["--inbox", "smtp://127.0.0.1:0?domain=crash.test"][..],
        ),
    ] {
        let plan = format!(
            r#"{{"reasoning":"","steps":[
              {{"type":"navigate","url":"{{SITE}}/form.html"}},
              {step},
              {{"type":"done","summary":"x"}}]}}"#
        );
        let run = Running::start_with(&plan, long_step, args);
        // SAFETY: a plain syscall on the Chromium child this test found.
        unsafe {
            libc::kill(run.chromium as i32, libc::SIGKILL);
        }
        let killed_at = Instant::now();
        let (code, result, _) = run.finish();
        assert!(
            killed_at.elapsed() < Duration::from_secs(5),
            "{long_step}: took {:?}",
            killed_at.elapsed()
        );
        assert_eq!(code, Some(1), "{long_step}");
        assert_eq!(result["status"], "failed", "{long_step}");
        assert_eq!(result["failed_step"], 1, "{long_step}: {result}");
        assert_eq!(
            result["error"]["kind"], "browser_crashed",
            "{long_step}: {result}"
        );
        let message = result["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("browser went away"),
            "{long_step}: {result}"
        );
    }
}

#[test]
fn browser_ws_connects_to_a_running_browser() {
    if util::browser().is_none() {
        return;
    }
    let profile = tempfile::tempdir().unwrap();
    let chromium =
        planlock::browser::find_executable(None, false, planlock::browser::Preference::FullBrowser)
            .unwrap();
    let mut remote = Command::new(chromium)
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--no-first-run",
            "--remote-debugging-port=0",
            "--remote-debugging-address=127.0.0.1",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut ws = None;
    for line in BufReader::new(remote.stderr.take().unwrap()).lines() {
        let line = line.unwrap();
        if let Some(url) = line.strip_prefix("DevTools listening on ") {
            ws = Some(url.trim().to_string());
            break;
        }
    }
    let ws = ws.expect("Chromium printed its DevTools address");
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(
        dir.path(),
        "p.json",
        r#"{"reasoning":"","steps":[
          {"type":"navigate","url":"{SITE}/welcome.html"},
          {"type":"wait_for_text","text":"Welcome aboard"},
          {"type":"done","summary":"remote ok"}]}"#,
    );
    let out = util::planlock()
        .arg("run")
        .arg(&plan)
        .args(["--browser-ws", &ws])
        .output()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let still_running = remote.try_wait().unwrap().is_none();
    let _ = remote.kill();
    let _ = remote.wait();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        still_running,
        "a remote browser belongs to its pool: planlock must not close it"
    );
}

#[test]
fn an_unreachable_or_refusing_imap_server_exits_3_before_any_step() {
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(
        dir.path(),
        "mail.json",
        r#"{"reasoning":"","steps":[{"type":"wait_for_email","timeout_seconds":5},{"type":"done","summary":"x"}]}"#,
    );
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let events = dir.path().join("events.jsonl");
    let started = Instant::now();
    let out = util::planlock()
        .arg("run")
        .arg(&plan)
        .args([
            "--inbox",
            &format!("imap://bob:pw@127.0.0.1:{closed}/INBOX?address=bob@demo.test"),
        ])
        .arg("--events")
        .arg(&events)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(started.elapsed() < Duration::from_secs(15));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&format!("127.0.0.1:{closed}")), "{stderr}");
    assert!(
        !stderr.contains(":pw@"),
        "the password is not printed: {stderr}"
    );
    assert!(
        !events.exists() || std::fs::read_to_string(&events).unwrap().is_empty(),
        "no step ran"
    );
}

#[test]
fn inbox_address_without_an_inbox_is_invalid_input_before_launch() {
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(
        dir.path(),
        "signup.json",
        r#"{"reasoning":"","steps":[
          {"type":"navigate","url":"{SITE}/form.html"},
          {"type":"fill","describe":"the Email field","label":"Email","value":"{{inbox_address}}"},
          {"type":"done","summary":"x"}]}"#,
    );
    // Chromium that cannot start: proves nothing was launched.
    let out = util::planlock()
        .arg("run")
        .arg(&plan)
        .args(["--browser", "/nonexistent/chromium"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("steps[1]")
            && stderr.contains("{{inbox_address}}")
            && stderr.contains("--inbox"),
        "{stderr}"
    );
}

/// `planlock validate` (or `run`) on these paths: exit code and stderr, killed after 10 s.
fn validate_within(args: &[&std::ffi::OsStr], limit: Duration) -> (Option<i32>, String, Duration) {
    let started = Instant::now();
    let mut child = util::planlock()
        .arg("validate")
        .args(args)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("validate {args:?} still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        started.elapsed(),
    )
}

#[test]
fn plan_files_are_read_within_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("plan.fifo");
    let made = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo on a path in our own temporary directory.
    assert_eq!(unsafe { libc::mkfifo(made.as_ptr(), 0o600) }, 0);
    let big = dir.path().join("big.json");
    std::fs::write(&big, " ".repeat(2 << 20)).unwrap();
    let good = write_plan(
        dir.path(),
        "good.json",
        r#"{"reasoning":"","steps":[{"type":"done","summary":"x"}]}"#,
    );
    let (code, stderr, took) = validate_within(
        &[
            "/dev/zero".as_ref(),
            fifo.as_os_str(),
            big.as_os_str(),
            dir.path().as_os_str(),
            good.as_os_str(),
        ],
        Duration::from_secs(10),
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(took < Duration::from_secs(5), "took {took:?}");
    for needle in [
        "/dev/zero: cannot read the plan: this is a device; a plan is a regular JSON file",
        "plan.fifo: cannot read the plan: this is a FIFO (named pipe); a plan is a regular JSON file",
        "big.json: the plan is 2097152 bytes; a plan file may have at most 1048576 bytes (1 MiB)",
        ": cannot read the plan: this is a directory; a plan is a regular JSON file",
        "good.json: ok (1 step)",
    ] {
        assert!(stderr.contains(needle), "missing {needle:?} in:\n{stderr}");
    }
}

#[test]
fn out_of_range_numbers_are_refused_with_a_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(
        dir.path(),
        "p.json",
        r#"{"reasoning":"","steps":[{"type":"done","summary":"x"}]}"#,
    );
    for (flag, value, sentence) in [
        (
            "--timeout",
            "9223372036854775807",
            "the run deadline is whole seconds from 1 to 86400 (a day)",
        ),
        ("--timeout", "0", "the run deadline is whole seconds"),
        (
            "--max-steps",
            "0",
            "a plan's step limit is a number from 1 to 1000",
        ),
        ("--jobs", "0", "the number of runs at once is from 1 to 64"),
    ] {
        let out = util::planlock()
            .arg("run")
            .arg(&plan)
            .args([flag, value])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}: {stderr}");
        assert!(stderr.contains(sentence), "{flag} {value}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    let out = util::planlock()
        .args(["validate", "--max-steps", "0"])
        .arg(&plan)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_key_given_twice_is_refused_with_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(
        dir.path(),
        "twice.json",
        r#"{"reasoning":"","steps":[
          {"type":"navigate","url":"https://shop.example/","url":"https://evil.example/"},
          {"type":"done","summary":"x"}]}"#,
    );
    let out = util::planlock()
        .arg("validate")
        .arg(&plan)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("twice.json: steps[0].url: the key `url` is given twice in this object"),
        "{stderr}"
    );
}

#[test]
fn events_on_stdout_and_json_together_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(
        dir.path(),
        "p.json",
        r#"{"reasoning":"","steps":[{"type":"done","summary":"x"}]}"#,
    );
    let out = util::planlock()
        .arg("run")
        .arg(&plan)
        .args(["--events", "-", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--events - and --json both write to stdout"),
        "{stderr}"
    );
}

/// A secret with a space, `&`, `@` and a non-ASCII letter in a URL is masked in every form
/// the run writes it (the URL percent-encodes part of it); a four-letter secret is masked
/// where it stands alone but leaves `tiny.test` readable.
#[test]
fn secrets_never_leak_in_any_encoding_and_short_ones_do_not_garble() {
    if util::browser().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(
        dir.path(),
        "secret.json",
        r#"{"reasoning":"","steps":[
          {"type":"navigate","url":"{SITE}/form.html?pw={{secret.PW}}&who={{secret.SHORT}}"},
          {"type":"fill","describe":"name for tiny.test","label":"Full name","value":"{{secret.SHORT}}"},
          {"type":"wait_for_text","text":"never shown","timeout_seconds":1},
          {"type":"done","summary":"x"}]}"#,
    );
    let events = dir.path().join("events.jsonl");
    let junit = dir.path().join("junit.xml");
    let report = dir.path().join("report");
    let out = util::planlock()
        .arg("run")
        .arg(&plan)
        .env("PLANLOCK_SECRET_PW", "p@ss w0rd&é")
        .env("PLANLOCK_SECRET_SHORT", "test")
        .args(["--json", "--screenshots", "all", "--events"])
        .arg(&events)
        .arg("--junit")
        .arg(&junit)
        .arg("--report")
        .arg(&report)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let mut written = vec![
        ("stdout", stdout.clone()),
        ("stderr", stderr.clone()),
        ("events", std::fs::read_to_string(&events).unwrap()),
        ("junit", std::fs::read_to_string(&junit).unwrap()),
    ];
    for entry in walk(&report) {
        if let Ok(text) = std::fs::read_to_string(&entry) {
            written.push(("report", text));
        }
    }
    assert!(written.len() > 6, "the report has pages and results");
    for (what, text) in &written {
        for leak in ["w0rd", "p@ss", "p%40ss", "%C3%A9", "who=test"] {
            assert!(!text.contains(leak), "{what} shows {leak:?}:\n{text}");
        }
    }
    assert!(stderr.contains("page: "), "{stderr}");
    assert!(stderr.contains("?pw=••••&who=••••"), "{stderr}");
    let result: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(result["steps"][1]["describe"], "name for tiny.test");
    assert!(
        stderr.contains("the secret `{{secret.SHORT}}` has only 4 characters"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("`{{secret.PW}}` has only"),
        "only short secrets are warned about: {stderr}"
    );
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn an_unwritable_report_dir_and_a_missing_plan_do_not_stop_the_valid_plans() {
    if util::browser().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(
        dir.path(),
        "ok.json",
        r#"{"reasoning":"","steps":[
          {"type":"navigate","url":"{SITE}/welcome.html"},
          {"type":"done","summary":"ran anyway"}]}"#,
    );
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let out = util::planlock()
        .arg("run")
        .arg(dir.path().join("missing.json"))
        .arg(&plan)
        .arg("--json")
        .arg("--report")
        .arg(file.join("report"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "the missing plan is invalid input:\n{stderr}"
    );
    assert!(
        stderr.contains("missing.json: cannot read the plan: No such file or directory"),
        "{stderr}"
    );
    assert!(
        stderr.contains("cannot create the report directory")
            && stderr.contains("the plans run without an HTML report"),
        "{stderr}"
    );
    let results: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(results[0]["status"], "succeeded", "{results}");
    assert_eq!(results[0]["summary"], "ran anyway");
    assert!(
        stderr.lines().any(|l| l == "1 passed, 0 failed, 1 invalid"),
        "{stderr}"
    );
}

/// A secret the page echoes, and one in a `navigate` URL's query, in any letter case and in
/// the forms planlock itself makes of page text (lower-cased, cut, quoted), never reaches an
/// output: stderr, stdout, the event log, JUnit, the HTML report.
#[test]
fn a_secret_is_masked_in_every_letter_case_and_cut() {
    if util::browser().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(
        dir.path(),
        "echo.json",
        r#"{"reasoning":"","steps":[
          {"type":"navigate","url":"{SITE}/tpl/echo-secret.html?to={{secret.PW}}"},
          {"type":"click","describe":"the Continue button","text":"Continue with the account"},
          {"type":"extract_text","describe":"the results"},
          {"type":"click","describe":"the Buy button","text":"Buy now","criticality":"could","timeout_seconds":1},
          {"type":"wait_for_text","text":"Results for nothing","timeout_seconds":1},
          {"type":"done","summary":"x"}]}"#,
    );
    let events = dir.path().join("events.jsonl");
    let junit = dir.path().join("junit.xml");
    let report = dir.path().join("report");
    let out = util::planlock()
        .arg("run")
        .arg(&plan)
        .env("PLANLOCK_SECRET_PW", "Correct-Horse-4711")
        .args(["--json", "--screenshots", "failure", "--events"])
        .arg(&events)
        .arg("--junit")
        .arg(&junit)
        .arg("--report")
        .arg(&report)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let mut written = vec![
        ("stdout", stdout.clone()),
        ("stderr", stderr.clone()),
        ("events", std::fs::read_to_string(&events).unwrap()),
        ("junit", std::fs::read_to_string(&junit).unwrap()),
    ];
    for entry in walk(&report) {
        if let Ok(text) = std::fs::read_to_string(&entry) {
            written.push(("report", text));
        }
    }
    // The page was really read: its texts are in the outputs, the secret masked.
    assert!(stderr.contains("\"results for ••••\""), "{stderr}");
    assert!(stderr.contains("\"search •••• again\""), "{stderr}");
    assert!(stdout.contains("NOTHING FOUND FOR ••••"), "{stdout}");
    for (what, text) in &written {
        let lower = text.to_lowercase();
        // The whole secret, and what a cut leaves of it.
        for leak in [
            "correct-horse",
            "orse-4711",
            "correct-ho",
            "correct%2dhorse",
        ] {
            assert!(!lower.contains(leak), "{what} shows {leak:?}:\n{text}");
        }
    }
}
