//! `planlock validate` and `planlock schema` as a user runs them: the real binary, real files.
//!
//! Every plan in `fixtures/plans/valid/` must pass (extra arguments, one per line, may sit in
//! a sibling `NAME.args`). Every plan in `fixtures/plans/invalid/` must fail with exit code 2
//! and print exactly its sibling `NAME.expected` on stderr.
//!
//! After a deliberate change of wording, `PLANLOCK_BLESS=1 cargo test --test validate_cli`
//! rewrites the `.expected` files; read the diff before committing it.

use crate::util;

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

/// Runs the binary from the package root, so fixture paths in messages are relative.
fn planlock(args: &[&str]) -> Output {
    util::planlock()
        .args(args)
        .output()
        .expect("the planlock binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The `.json` plans of one fixture folder, as paths relative to the package root, sorted.
fn plans(folder: &str) -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/plans")
        .join(folder);
    let mut out: Vec<String> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| {
            e.expect("directory entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name.ends_with(".json"))
        .map(|name| format!("fixtures/plans/{folder}/{name}"))
        .collect();
    out.sort();
    assert!(!out.is_empty(), "no plans in {}", dir.display());
    out
}

fn root(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn sibling(plan: &str, ext: &str) -> String {
    format!(
        "{}.{ext}",
        plan.strip_suffix(".json").expect("a .json path")
    )
}

/// Extra command-line arguments for a plan, one per line in `NAME.args`.
fn extra_args(plan: &str) -> Vec<String> {
    match fs::read_to_string(root(&sibling(plan, "args"))) {
        Ok(s) => s
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// A line diff (longest common subsequence), `-` expected, `+` actual, ` ` both.
fn diff(expected: &str, actual: &str) -> String {
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = actual.lines().collect();
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            out.push_str(&format!("   {}\n", a[i]));
            i += 1;
            j += 1;
        } else if j < b.len() && (i == a.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
            out.push_str(&format!(" + {}\n", b[j]));
            j += 1;
        } else {
            out.push_str(&format!(" - {}\n", a[i]));
            i += 1;
        }
    }
    if expected.ends_with('\n') != actual.ends_with('\n') {
        out.push_str(" (the final newline differs)\n");
    }
    out
}

#[test]
fn valid_plans_pass() {
    let mut failures = Vec::new();
    for plan in plans("valid") {
        let args = extra_args(&plan);
        let mut argv = vec!["validate", plan.as_str()];
        argv.extend(args.iter().map(String::as_str));
        let out = planlock(&argv);
        let stderr = text(&out.stderr);
        if out.status.code() != Some(0) || !stderr.starts_with(&format!("{plan}: ok (")) {
            failures.push(format!(
                "{plan}: exit {:?}, stderr:\n{stderr}",
                out.status.code()
            ));
        }
        assert!(out.stdout.is_empty(), "{plan}: validate printed to stdout");
    }
    assert!(
        failures.is_empty(),
        "valid plans rejected:\n{}",
        failures.join("\n")
    );
}

#[test]
fn invalid_plans_fail_with_the_expected_messages() {
    let bless = std::env::var_os("PLANLOCK_BLESS").is_some_and(|v| v == "1");
    let mut failures = Vec::new();
    for plan in plans("invalid") {
        let out = planlock(&["validate", &plan]);
        let actual = text(&out.stderr);
        let expected_path = sibling(&plan, "expected");
        if out.status.code() != Some(2) {
            failures.push(format!(
                "{plan}: exit code {:?}, not 2; stderr:\n{actual}",
                out.status.code()
            ));
        }
        assert!(out.stdout.is_empty(), "{plan}: validate printed to stdout");
        assert!(
            !actual.contains("panicked"),
            "{plan}: the validator panicked:\n{actual}"
        );
        if bless {
            fs::write(root(&expected_path), &actual).expect("write .expected");
            continue;
        }
        match fs::read_to_string(root(&expected_path)) {
            Ok(expected) if expected == actual => {}
            Ok(expected) => failures.push(format!(
                "{plan}: stderr differs from {expected_path} (- expected, + actual):\n{}",
                diff(&expected, &actual)
            )),
            Err(_) => failures.push(format!("{plan}: no {expected_path}; it printed:\n{actual}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n\n{} invalid fixture(s) differ. If the new wording is intended, run \
         `PLANLOCK_BLESS=1 cargo test --test validate_cli` and review the diff.",
        failures.join("\n"),
        failures.len()
    );
}

#[test]
fn every_expected_file_has_its_plan() {
    let dir = root("fixtures/plans/invalid");
    for entry in fs::read_dir(&dir).expect("list invalid fixtures") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        if let Some(stem) = name.strip_suffix(".expected") {
            assert!(
                dir.join(format!("{stem}.json")).exists(),
                "{name} has no {stem}.json beside it"
            );
        }
    }
}

#[test]
fn every_invalid_problem_line_names_the_file_and_a_path() {
    for plan in plans("invalid") {
        let out = planlock(&["validate", &plan]);
        for line in text(&out.stderr).lines() {
            let rest = line
                .strip_prefix(&plan)
                .unwrap_or_else(|| panic!("{plan}: line does not start with the file: {line}"));
            // `FILE:LINE:COLUMN: not valid JSON: ...` or `FILE: PATH: sentence`.
            if let Some(pos) = rest.strip_prefix(':').filter(|r| !r.starts_with(' ')) {
                let (line_col, message) = pos.split_once(": ").expect("position then message");
                assert!(
                    line_col
                        .split(':')
                        .all(|n| n.parse::<usize>().is_ok_and(|n| n > 0)),
                    "{plan}: {line}"
                );
                assert!(message.starts_with("not valid JSON: "), "{plan}: {line}");
                continue;
            }
            let rest = rest.strip_prefix(": ").expect("`: ` after the file name");
            let (path, message) = rest.split_once(": ").expect("a path, then a sentence");
            assert!(
                path.starts_with('$')
                    || path.starts_with("steps")
                    || path
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$'),
                "{plan}: not a JSON path: {path}"
            );
            assert!(!message.trim().is_empty(), "{plan}: {line}");
        }
    }
}

#[test]
fn all_plans_at_once_report_each_file() {
    let valid = plans("valid");
    let plain: Vec<&str> = valid
        .iter()
        .filter(|p| extra_args(p).is_empty())
        .map(String::as_str)
        .collect();
    let mut argv = vec!["validate"];
    argv.extend(&plain);
    let out = planlock(&argv);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr).lines().count(), plain.len());

    // One bad plan among good ones fails the whole call, and every file is still reported.
    let bad = "fixtures/plans/invalid/unknown-step-type.json";
    let out = planlock(&["validate", plain[0], bad, plain[1]]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains(&format!("{}: ok", plain[0])), "{stderr}");
    assert!(
        stderr.contains(&format!("{bad}: steps[2].type")),
        "{stderr}"
    );
    assert!(stderr.contains(&format!("{}: ok", plain[1])), "{stderr}");
}

#[test]
fn var_makes_an_unknown_variable_known() {
    let plan = "fixtures/plans/invalid/unknown-variable.json";
    let out = planlock(&["validate", plan]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("unknown variable `{{promo_code}}`"));

    let out = planlock(&["validate", plan, "--var", "promo_code=SPRING25"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "--var did not make the variable known: {}",
        text(&out.stderr)
    );

    // A caller variable may not take a built-in's name, and must be NAME=VALUE.
    for bad in ["run_id=x", "promo_code", "1st=x"] {
        let out = planlock(&["validate", plan, "--var", bad]);
        assert_eq!(out.status.code(), Some(2), "--var {bad}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains("--var"), "--var {bad}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "--var {bad}: {stderr}");
    }
}

#[test]
fn valid_plan_with_caller_vars_needs_them() {
    let plan = "fixtures/plans/valid/named-inbox-and-var.json";
    let out = planlock(&["validate", plan]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("unknown variable `{{plan_tier}}`"),
        "{stderr}"
    );
    assert!(stderr.contains("--var plan_tier=VALUE"), "{stderr}");
}

#[test]
fn max_steps_is_configurable() {
    let plan = "fixtures/plans/invalid/too-many-steps.json";
    let out = planlock(&["validate", plan, "--max-steps", "16"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = planlock(&[
        "validate",
        "fixtures/plans/valid/email-code-signup.json",
        "--max-steps",
        "3",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("more than the limit of 3"));
}

#[test]
fn a_missing_file_is_a_sentence_and_exit_2() {
    let missing = "fixtures/plans/no-such-plan.json";
    let out = planlock(&["validate", missing]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with(&format!("{missing}: cannot read the plan: ")),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");

    // A folder is not a plan either.
    let out = planlock(&["validate", "fixtures/plans"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).starts_with("fixtures/plans: cannot read the plan: "));
}

#[test]
fn validate_without_plans_is_a_usage_error() {
    let out = planlock(&["validate"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("Usage"), "{}", text(&out.stderr));
}

#[test]
fn a_byte_order_mark_is_accepted() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bom.json");
    let plan = fs::read(root("fixtures/plans/valid/magic-link-login.json")).expect("read");
    let mut with_bom = b"\xEF\xBB\xBF".to_vec();
    with_bom.extend(plan);
    fs::write(&path, with_bom).expect("write");
    let out = planlock(&["validate", path.to_str().expect("utf-8 temp path")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn schema_into_a_closed_pipe_is_not_an_error() {
    // `planlock schema | head -c 10`: read ten bytes, then hang up.
    let mut child = util::planlock()
        .arg("schema")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn planlock schema");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut first = [0u8; 10];
    stdout.read_exact(&mut first).expect("ten bytes");
    assert_eq!(&first, b"{\n  \"$sche");
    drop(stdout);
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));

    // The reader gone before the first write: the write itself fails with EPIPE.
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let out = util::planlock()
        .arg("schema")
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("run planlock schema");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        !stderr.contains("Broken pipe") && !stderr.contains("panicked"),
        "{stderr}"
    );
}

/// docs/plan-format.md shows `planlock validate signup.json` on a plan with one problem a
/// step; that plan is `fixtures/plans/invalid/docs-signup-example.json`, so the page shows
/// what planlock prints today (the test above holds the fixture to its `.expected`).
#[test]
fn the_validate_example_in_the_docs_is_what_planlock_prints() {
    let plan = "fixtures/plans/invalid/docs-signup-example.json";
    let printed = text(&planlock(&["validate", plan]).stderr).replace(plan, "signup.json");
    let doc = fs::read_to_string(root("docs/plan-format.md")).expect("docs/plan-format.md");
    let shown: String = doc
        .lines()
        .skip_while(|l| *l != "$ planlock validate signup.json")
        .skip(1)
        .take_while(|l| !l.starts_with("```") && !l.starts_with("$ "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(
        shown, printed,
        "docs/plan-format.md's example of `planlock validate` is not what planlock prints"
    );
}
