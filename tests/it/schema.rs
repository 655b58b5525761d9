//! The checked-in JSON Schema: printed by `planlock schema`, generated from the Rust types,
//! and in agreement with the fixtures when judged by an independent validator (`jsonschema`).

use crate::util;

use std::fs;
use std::path::Path;

use serde_json::Value;

const SCHEMA_FILE: &str = "schema/plan.schema.json";
const REGENERATE: &str = "cargo run -- schema > schema/plan.schema.json";

fn root(rel: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn checked_in() -> String {
    fs::read_to_string(root(SCHEMA_FILE)).unwrap_or_else(|e| {
        panic!("cannot read {SCHEMA_FILE} ({e}); generate it with `{REGENERATE}`")
    })
}

fn validator() -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(&checked_in()).expect("the schema file is JSON");
    jsonschema::validator_for(&schema).expect("the schema is a valid JSON Schema")
}

/// The `.json` plans of one fixture folder, sorted, with their parsed contents.
fn fixtures(folder: &str) -> Vec<(String, String)> {
    let dir = root(&format!("fixtures/plans/{folder}"));
    let mut out: Vec<(String, String)> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let name = p.file_name().expect("name").to_string_lossy().into_owned();
            (name, fs::read_to_string(&p).expect("read fixture"))
        })
        .collect();
    out.sort();
    out
}

#[test]
fn schema_command_prints_the_checked_in_file() {
    let out = util::planlock()
        .arg("schema")
        .output()
        .expect("run planlock schema");
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stdout == checked_in().as_bytes(),
        "`planlock schema` differs from {SCHEMA_FILE}; regenerate it with `{REGENERATE}`"
    );
}

#[test]
fn checked_in_schema_is_not_stale() {
    let generated = planlock::plan::json_schema_text();
    let file = checked_in();
    if generated != file {
        let first = generated
            .lines()
            .zip(file.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| generated.lines().count().min(file.lines().count()));
        panic!(
            "{SCHEMA_FILE} is stale: the plan types changed since it was generated (first \
             difference at line {}).\nRegenerate it with `{REGENERATE}` and commit the result.",
            first + 1
        );
    }
}

#[test]
fn schema_text_is_pretty_json_with_a_final_newline() {
    let text = planlock::plan::json_schema_text();
    assert!(text.ends_with("}\n") && !text.ends_with("\n\n"));
    let value: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(value, planlock::plan::json_schema());
    assert_eq!(
        value["$schema"], "https://json-schema.org/draft/2020-12/schema",
        "editors and validators need the draft"
    );
}

/// Each step type has its section in docs/steps.md and its row in the tables of
/// docs/plan-format.md and the README: a new type is not done until people can read of it.
#[test]
fn every_step_type_is_documented() {
    let read = |rel: &str| fs::read_to_string(root(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let (steps, format, readme) = (
        read("docs/steps.md"),
        read("docs/plan-format.md"),
        read("README.md"),
    );
    for t in planlock::plan::step_types() {
        assert!(
            steps.lines().any(|l| l == format!("### {t}")),
            "docs/steps.md has no section `### {t}`"
        );
        let row = format!("| `{t}` |");
        assert!(
            format.lines().any(|l| l.starts_with(&row)),
            "docs/plan-format.md's table of steps has no row for `{t}`"
        );
        assert!(
            readme.lines().any(|l| l.starts_with(&row)),
            "the README's table of steps has no row for `{t}`"
        );
    }
}

#[test]
fn schema_names_exactly_the_step_types() {
    let schema = planlock::plan::json_schema();
    let mut types: Vec<&str> = schema["$defs"]["Step"]["oneOf"]
        .as_array()
        .expect("Step is a oneOf")
        .iter()
        .map(|v| {
            v["properties"]["type"]["const"]
                .as_str()
                .expect("const tag")
        })
        .collect();
    types.sort();
    let mut expected: Vec<&str> = planlock::plan::step_types().collect();
    expected.sort();
    assert_eq!(types, expected);
    for variant in schema["$defs"]["Step"]["oneOf"].as_array().expect("oneOf") {
        assert_eq!(
            variant["additionalProperties"],
            Value::Bool(false),
            "unknown fields must be refused by the schema too: {variant}"
        );
    }
    assert_eq!(schema["additionalProperties"], Value::Bool(false));
}

#[test]
fn every_valid_fixture_matches_the_schema() {
    let validator = validator();
    let mut failures = Vec::new();
    for (name, text) in fixtures("valid") {
        let plan: Value = serde_json::from_str(&text).expect("valid fixtures are JSON");
        let errors: Vec<String> = validator
            .iter_errors(&plan)
            .map(|e| format!("  {} at {}", e, e.instance_path))
            .collect();
        if !errors.is_empty() {
            failures.push(format!("{name}:\n{}", errors.join("\n")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Plans wrong in shape, not in meaning: the schema alone must refuse them.
const STRUCTURALLY_INVALID: &[&str] = &[
    "missing-reasoning.json",
    "missing-required-field.json",
    "missing-steps.json",
    "not-an-object.json",
    "step-not-an-object.json",
    "step-without-type.json",
    "unknown-field.json",
    "unknown-root-field.json",
    "unknown-step-type.json",
    "wrong-field-type.json",
];

#[test]
fn structurally_invalid_fixtures_are_rejected_by_the_schema() {
    let validator = validator();
    let all = fixtures("invalid");
    for name in STRUCTURALLY_INVALID {
        let (_, text) = all
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("fixture {name} is missing"));
        let plan: Value = serde_json::from_str(text).expect("JSON");
        assert!(
            !validator.is_valid(&plan),
            "the schema accepts fixtures/plans/invalid/{name}"
        );
    }
}

#[test]
fn what_the_validator_accepts_the_schema_accepts() {
    // With the caller variables the fixtures need, so every valid fixture counts.
    let validator = validator();
    let limits = planlock::plan::Limits::default();
    let vars = planlock::plan::Vars::from_pairs([
        "plan_tier=pro",
        "teammate_email=a@team.example",
        "promo_code=X",
    ])
    .expect("vars");
    let mut accepted = 0;
    for (name, text) in fixtures("invalid").into_iter().chain(fixtures("valid")) {
        if planlock::plan::parse_and_validate(&text, &limits, &vars).is_ok() {
            accepted += 1;
            let value: Value = serde_json::from_str(&text).expect("JSON");
            assert!(
                validator.is_valid(&value),
                "{name}: valid plan refused by the schema"
            );
        }
    }
    assert!(accepted >= fixtures("valid").len());
}

/// The `.json` files ending in `suffix` in `inner` of each folder below `base` (`inner` of
/// `base` itself when `each` is false).
fn plans_below(base: &str, each: bool, inner: &str, suffix: &str) -> Vec<(String, String)> {
    let dirs: Vec<std::path::PathBuf> = if each {
        fs::read_dir(root(base))
            .unwrap_or_else(|e| panic!("cannot list {base}: {e}"))
            .map(|e| e.expect("entry").path().join(inner))
            .collect()
    } else {
        vec![root(base).join(inner)]
    };
    let mut out = Vec::new();
    for dir in dirs {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for path in entries.map(|e| e.expect("entry").path()) {
            let name = path.to_string_lossy().into_owned();
            if name.ends_with(suffix) {
                out.push((name, fs::read_to_string(&path).expect("read plan")));
            }
        }
    }
    out.sort();
    out
}

/// A plan as OpenAI's strict mode makes a model write it: every field of the plan and of each
/// step present, `null` where the plan leaves it out.
fn with_nulls(plan: &Value, strict: &Value) -> Value {
    let mut plan = plan.clone();
    let Some(root) = plan.as_object_mut() else {
        return plan;
    };
    root.remove("$schema");
    for key in strict["properties"].as_object().expect("properties").keys() {
        root.entry(key.clone()).or_insert(Value::Null);
    }
    let variants = strict["properties"]["steps"]["items"]["anyOf"]
        .as_array()
        .expect("step variants");
    if let Some(Value::Array(steps)) = root.get_mut("steps") {
        for step in steps.iter_mut().filter_map(Value::as_object_mut) {
            let variant = variants
                .iter()
                .find(|v| Some(&v["properties"]["type"]["enum"][0]) == step.get("type"));
            for key in variant
                .into_iter()
                .flat_map(|v| v["properties"].as_object())
                .flat_map(|p| p.keys())
            {
                step.entry(key.clone()).or_insert(Value::Null);
            }
        }
    }
    plan
}

/// The schemas the model is constrained to (shape only, shared fields under `$defs`) accept
/// exactly the plans the plan schema describes: every valid fixture, in the form each
/// provider has the model write it, and none of the structurally invalid ones.
#[test]
fn the_models_schemas_ask_for_the_same_plans() {
    let anthropic = planlock::planner::schema::anthropic_input_schema();
    let strict = planlock::planner::schema::openai_strict_schema();
    let validators = [
        (
            "anthropic",
            jsonschema::validator_for(&anthropic).expect("a valid JSON Schema"),
        ),
        (
            "openai",
            jsonschema::validator_for(&strict).expect("a valid JSON Schema"),
        ),
    ];
    let mut failures = Vec::new();
    let written_elsewhere: Vec<(String, String)> = [
        plans_below("fixtures/blind", true, "plans", ".json"),
        plans_below("fixtures/corpus", false, "plans", ".json"),
        plans_below("fixtures/journeys", true, "", ".hand.json"),
        plans_below("fixtures/journeys", true, "", ".blind.json"),
    ]
    .concat();
    assert!(written_elsewhere.len() > 50, "{}", written_elsewhere.len());
    for (name, text) in fixtures("valid").into_iter().chain(written_elsewhere) {
        let mut plan: Value = serde_json::from_str(&text).expect("valid fixtures are JSON");
        if let Some(o) = plan.as_object_mut() {
            o.remove("$schema");
        }
        for (provider, validator) in &validators {
            let written = match *provider {
                "openai" => with_nulls(&plan, &strict),
                _ => plan.clone(),
            };
            let errors: Vec<String> = validator
                .iter_errors(&written)
                .map(|e| format!("  {} at {}", e, e.instance_path))
                .collect();
            if !errors.is_empty() {
                failures.push(format!("{provider} refuses {name}:\n{}", errors.join("\n")));
            }
        }
    }
    let all = fixtures("invalid");
    for name in STRUCTURALLY_INVALID {
        let (_, text) = all.iter().find(|(n, _)| n == name).expect("fixture");
        let plan: Value = serde_json::from_str(text).expect("JSON");
        for (provider, validator) in &validators {
            let written = match *provider {
                "openai" => with_nulls(&plan, &strict),
                _ => plan.clone(),
            };
            if validator.is_valid(&written) {
                failures.push(format!("{provider} accepts invalid/{name}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
