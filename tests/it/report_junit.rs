//! JUnit XML from `planlock run` with several plans, read by an independent parser (Python's
//! xmlschema) against the JUnit XSD in fixtures/junit: a suite per plan, a case per step, the
//! failure where the run stopped, skipped after it, an invalid plan as an error; valid plans
//! run although another is invalid, and the closing line counts them.

use std::path::Path;

use serde_json::Value;

use crate::util;

fn write(dir: &Path, name: &str, json: &str) {
    std::fs::write(
        dir.join(name),
        json.replace("{SITE}", &util::site().url("")),
    )
    .unwrap();
}

/// `scripts/check-junit FILE`: the XSD verdict and what a CI server reads.
fn read_junit(path: &Path) -> Value {
    let out = std::process::Command::new("scripts/check-junit")
        .arg(path)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("CARGO_TARGET_DIR", target_dir())
        .output()
        .expect("scripts/check-junit runs");
    assert!(
        out.status.success(),
        "scripts/check-junit failed (python3 with venv and PyPI needed):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn target_dir() -> String {
    std::env::var("CARGO_TARGET_DIR")
        .unwrap_or_else(|_| format!("{}/target", env!("CARGO_MANIFEST_DIR")))
}

#[test]
fn a_suite_per_plan_a_case_per_step_valid_against_the_xsd() {
    if util::browser().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let plans = dir.path().join("plans");
    std::fs::create_dir(&plans).unwrap();
    write(
        &plans,
        "a-pass.json",
        r#"{"reasoning":"","steps":[
          {"type":"navigate","url":"{SITE}/welcome.html"},
          {"type":"wait_for_text","text":"Welcome aboard"},
          {"type":"done","summary":"ok"}]}"#,
    );
    write(
        &plans,
        "b-fail.json",
        r#"{"reasoning":"","steps":[
          {"type":"navigate","url":"{SITE}/form.html"},
          {"type":"wait_for_text","text":"never <shown> & \"quoted\"","timeout_seconds":1},
          {"type":"click","describe":"the Next button","text":"Next"},
          {"type":"done","summary":"x"}]}"#,
    );
    write(&plans, "c-broken.json", r#"{"reasoning":"","steps":["#);
    let junit = dir.path().join("out/junit.xml");
    let pattern = format!("{}/*.json", plans.display());
    let missing = format!("{}/none-*.json", dir.path().display());
    let out = util::planlock()
        .arg("run")
        .args([&pattern, &missing])
        .arg("--junit")
        .arg(&junit)
        .args(["--screenshots", "all", "--jobs", "2"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "an invalid plan exits 2:\n{stderr}"
    );
    assert!(
        stderr.lines().any(|l| l == "1 passed, 1 failed, 2 invalid"),
        "{stderr}"
    );
    assert!(stderr.contains("none-*.json: matches no file"), "{stderr}");
    let report = read_junit(&junit);
    assert_eq!(report["valid"], true, "{report:#}");
    let suites = report["suites"].as_array().unwrap();
    let names: Vec<&str> = suites.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 4, "{names:?}");
    assert!(names[0].ends_with("a-pass.json") && names[2].ends_with("c-broken.json"));
    assert!(names[3].ends_with("none-*.json"));

    let pass = &suites[0];
    assert_eq!(
        (pass["tests"].as_str(), pass["failures"].as_str()),
        (Some("3"), Some("0"))
    );
    let cases = pass["cases"].as_array().unwrap();
    assert_eq!(
        cases[0]["name"],
        format!("1 navigate: go to {}", util::site().url("/welcome.html"))
    );
    assert_eq!(
        cases[1]["name"],
        "2 wait_for_text: wait for text \"Welcome aboard\""
    );
    for c in cases {
        assert_eq!(c["outcome"], "passed");
        assert_eq!(c["classname"], names[0]);
        assert!(c["time"].as_str().unwrap().parse::<f64>().is_ok());
        assert!(c["timestamp"].as_str().is_some(), "{c}");
        let out = c["system_out"].as_str().unwrap();
        assert!(out.contains("\"event\":\"step_started\""), "{out}");
        assert!(
            out.contains("[[ATTACHMENT|"),
            "a screenshot per step: {out}"
        );
    }

    let fail = suites[1]["cases"].as_array().unwrap();
    assert_eq!(suites[1]["failures"], "1");
    assert_eq!(suites[1]["skipped"], "2");
    assert_eq!(fail[0]["outcome"], "passed");
    assert_eq!(fail[1]["outcome"], "failure");
    assert_eq!(fail[1]["type"], "timeout");
    let message = fail[1]["message"].as_str().unwrap();
    assert!(message.contains("never <shown> & \"quoted\""), "{message}");
    let text = fail[1]["text"].as_str().unwrap();
    assert!(
        text.contains(&format!("page: {}", util::site().url("/form.html"))),
        "{text}"
    );
    let attachment = fail[1]["system_out"].as_str().unwrap();
    let shot = attachment
        .split("[[ATTACHMENT|")
        .nth(1)
        .and_then(|s| s.split("]]").next())
        .unwrap();
    assert!(
        dir.path().join(shot).exists() || Path::new(shot).exists(),
        "{shot}"
    );
    for c in &fail[2..] {
        assert_eq!(c["outcome"], "skipped");
        assert_eq!(c["message"], "not run: step 2 failed");
    }

    let broken = &suites[2]["cases"][0];
    assert_eq!(broken["outcome"], "error");
    assert_eq!(broken["type"], "invalid_plan");
    assert!(
        broken["message"]
            .as_str()
            .unwrap()
            .contains("not valid JSON"),
        "{broken}"
    );
}
