//! Fuzzing the parser and validator: arbitrary JSON, mutated valid plans and raw bytes never
//! panic; every rejection names where; every plan that passes round-trips through serde and is
//! accepted by the JSON Schema too.
//!
//! Failing cases found by proptest are saved in `tests/it/plan_fuzz.proptest-regressions` and
//! replayed first. Inputs worth keeping as files (they once broke something, or nearly did)
//! live in `fixtures/plans/fuzz-regressions/` and are checked by `regression_corpus`.
//! `PROPTEST_CASES=20000 cargo test --release --test plan_fuzz` fuzzes longer.

use std::fs;
use std::path::Path;
use std::sync::LazyLock;

use planlock::plan::{Limits, Plan, PlanError, Vars, parse, parse_and_validate};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::FileFailurePersistence;
use serde_json::{Map, Value, json};

/// Caller variables the valid fixtures use.
fn vars() -> Vars {
    Vars::from_pairs(["plan_tier=pro", "teammate_email=a@team.example"]).expect("vars")
}

static SCHEMA: LazyLock<jsonschema::Validator> = LazyLock::new(|| {
    jsonschema::validator_for(&planlock::plan::json_schema()).expect("a valid JSON Schema")
});

/// The valid fixtures, parsed: the seeds that mutations start from.
static SEEDS: LazyLock<Vec<Value>> = LazyLock::new(|| {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/plans/valid");
    let mut paths: Vec<_> = fs::read_dir(&dir)
        .expect("valid fixtures")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| serde_json::from_str(&fs::read_to_string(p).expect("read")).expect("JSON"))
        .collect()
});

fn config() -> ProptestConfig {
    ProptestConfig {
        // Bounded so the suite stays fast in debug builds; raise with PROPTEST_CASES.
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(512),
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        ..ProptestConfig::default()
    }
}

/// Runs text through the parser and validator and checks what must hold for any input.
fn check(text: &str) -> Result<(), TestCaseError> {
    let root_keys: Vec<String> =
        match serde_json::from_str::<Value>(text.trim_start_matches('\u{feff}')) {
            Ok(Value::Object(o)) => o.keys().cloned().collect(),
            _ => Vec::new(),
        };
    match parse_and_validate(text, &Limits::default(), &vars()) {
        Ok(plan) => check_accepted(text, &plan)?,
        Err(PlanError::Syntax {
            line,
            column,
            message,
        }) => {
            prop_assert!(line >= 1 && column >= 1, "position {line}:{column}");
            prop_assert!(
                !message.is_empty() && !message.contains('\n'),
                "{message:?}"
            );
        }
        Err(e @ PlanError::Invalid(_)) => {
            let problems = e.problems();
            prop_assert!(!problems.is_empty(), "an invalid plan with no problem");
            for p in &problems {
                let named = p.path.starts_with('$')
                    || p.path.starts_with("steps")
                    || p.path == "reasoning"
                    || root_keys.contains(&p.path);
                prop_assert!(named, "problem without a JSON path: {p}");
                prop_assert!(!p.message.trim().is_empty(), "empty message at {}", p.path);
                prop_assert!(
                    !p.message.contains('\n') && !p.path.contains('\n'),
                    "a problem spans lines: {p:?}"
                );
            }
            // What serde accepts as a plan, the validator may still refuse (meaning); what
            // serde refuses, the validator must refuse -- it did.
        }
    }
    // Serde never accepts a plan that the validator calls malformed in structure.
    if let Ok(value) = parse(text)
        && serde_json::from_value::<Plan>(value.clone()).is_err()
    {
        prop_assert!(
            parse_and_validate(text, &Limits::default(), &vars()).is_err(),
            "serde refuses a plan the validator accepts"
        );
    }
    Ok(())
}

/// A plan that passed: serde agrees, it round-trips, and the schema accepts it.
fn check_accepted(text: &str, plan: &Plan) -> Result<(), TestCaseError> {
    let value = parse(text).expect("it parsed once");
    let direct: Plan = serde_json::from_value(value.clone())
        .map_err(|e| TestCaseError::fail(format!("serde refuses a valid plan: {e}")))?;
    prop_assert_eq!(&direct, plan);
    let again = serde_json::to_string(plan).expect("serialise");
    let back = parse_and_validate(&again, &Limits::default(), &vars())
        .map_err(|e| TestCaseError::fail(format!("re-serialised plan invalid: {e}\n{again}")))?;
    prop_assert_eq!(&back, plan);
    let pretty = serde_json::to_string_pretty(plan).expect("serialise");
    prop_assert_eq!(&serde_json::from_str::<Plan>(&pretty).expect("parse"), plan);
    prop_assert!(
        SCHEMA.is_valid(&value),
        "the schema refuses a plan the validator accepts: {text}"
    );
    prop_assert!(plan.steps.len() <= Limits::default().max_steps);
    prop_assert_eq!(
        plan.steps.last().map(|s| s.kind()),
        Some(planlock::plan::StepType::Done)
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Strategies

/// Field names real and near-real, so mutations hit the interesting branches often: every
/// field a step of the schema has, the plan's own, then near misses.
fn keys() -> Vec<String> {
    let schema = planlock::plan::json_schema();
    let mut keys: Vec<String> = Vec::new();
    for step in schema["$defs"]["Step"]["oneOf"].as_array().expect("oneOf") {
        for key in step["properties"].as_object().expect("properties").keys() {
            if !keys.contains(key) {
                keys.push(key.clone());
            }
        }
    }
    let plan = ["reasoning", "steps", "$schema"];
    let near = ["selctor", "timeout", "Type", "", "a b", "x\ny"];
    keys.extend(plan.into_iter().chain(near).map(str::to_string));
    keys
}

/// Every step type, then near misses of them.
fn types() -> Vec<&'static str> {
    let near = ["wait_for_mail", "goto", "DONE", "", "click "];
    planlock::plan::step_types().chain(near).collect()
}

/// Strings that exercise templates, URLs and selectors.
fn tricky_string() -> impl Strategy<Value = String> {
    let atoms = prop_oneof![
        Just("{{".to_string()),
        Just("}}".to_string()),
        Just("{{inbox_address}}".to_string()),
        Just("{{ run_id }}".to_string()),
        Just("{{secret.PW}}".to_string()),
        Just("{{secret.}}".to_string()),
        Just("{{plan_tier}}".to_string()),
        Just("{{nope}}".to_string()),
        Just("{{1a}}".to_string()),
        Just("{{}}".to_string()),
        Just("https://shop.example/".to_string()),
        Just("http://".to_string()),
        Just("javascript:".to_string()),
        Just("//".to_string()),
        Just("ftp://x.test".to_string()),
        Just("button[type=submit]".to_string()),
        Just(":is(".to_string()),
        Just(":nth-child(2 of ".to_string()),
        Just("::before".to_string()),
        Just(":has-text(".to_string()),
        Just(":enabled".to_string()),
        Just("[".to_string()),
        Just(")".to_string()),
        Just("\"".to_string()),
        Just("\\".to_string()),
        Just(">>".to_string()),
        Just("é漢🙂".to_string()),
        Just("\u{0}\n\t".to_string()),
        Just(" ".to_string()),
        "[a-z#.>:()\\[\\]=\"' {}_-]{0,12}",
        any::<String>(),
    ];
    prop::collection::vec(atoms, 0..6).prop_map(|parts| parts.concat())
}

/// JSON numbers, including the ones bounds checks get wrong.
fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from), // NaN and infinities become null
        prop::sample::select(vec![
            0.0,
            -0.0,
            1e-320,
            5e-324,
            1e-3,
            0.5,
            300.0,
            300.000_000_1,
            900.0,
            900.5,
            1e9,
            1e300,
            -1e300,
            f64::MAX,
            f64::MIN_POSITIVE,
        ])
        .prop_map(Value::from),
    ]
}

/// Any JSON value, a few levels deep.
fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number(),
        tricky_string().prop_map(Value::String),
        prop::sample::select(types()).prop_map(|t| Value::String(t.to_string())),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![prop::sample::select(keys()), "[a-z_$]{0,8}"],
                    inner
                ),
                0..6
            )
            .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Something plan-shaped but arbitrary: an object with `reasoning` and `steps` of objects.
fn arb_plan_shaped() -> impl Strategy<Value = Value> {
    let step = prop::collection::vec((prop::sample::select(keys()), arb_json()), 0..5)
        .prop_flat_map(|fields| {
            prop::sample::select(types()).prop_map(move |t| {
                let mut m: Map<String, Value> = fields.iter().cloned().collect();
                m.insert("type".into(), Value::String(t.to_string()));
                Value::Object(m)
            })
        });
    (tricky_string(), prop::collection::vec(step, 0..18))
        .prop_map(|(reasoning, steps)| json!({ "reasoning": reasoning, "steps": steps }))
}

#[derive(Debug, Clone)]
enum Mutation {
    Drop {
        step: Option<Index>,
        field: Index,
    },
    Rename {
        step: Option<Index>,
        field: Index,
        to: String,
    },
    Retype {
        step: Option<Index>,
        field: Index,
        to: Value,
    },
    Template {
        step: Index,
        field: Index,
        to: String,
    },
    Number {
        step: Index,
        to: Value,
    },
    SetType {
        step: Index,
        to: String,
    },
    Add {
        step: Option<Index>,
        key: String,
        value: Value,
    },
    Duplicate {
        from: Index,
        to: Index,
    },
    Remove {
        step: Index,
    },
    Swap {
        a: Index,
        b: Index,
    },
    Nest {
        step: Index,
        field: Index,
        depth: usize,
    },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let at = || prop::option::weighted(0.8, any::<Index>());
    let key = || prop_oneof![prop::sample::select(keys()), "[a-z_]{1,10}"];
    prop_oneof![
        (at(), any::<Index>()).prop_map(|(step, field)| Mutation::Drop { step, field }),
        (at(), any::<Index>(), key()).prop_map(|(step, field, to)| Mutation::Rename {
            step,
            field,
            to
        }),
        (at(), any::<Index>(), arb_json()).prop_map(|(step, field, to)| Mutation::Retype {
            step,
            field,
            to
        }),
        (any::<Index>(), any::<Index>(), tricky_string())
            .prop_map(|(step, field, to)| Mutation::Template { step, field, to }),
        (any::<Index>(), number()).prop_map(|(step, to)| Mutation::Number { step, to }),
        (any::<Index>(), prop::sample::select(types())).prop_map(|(step, to)| Mutation::SetType {
            step,
            to: to.to_string()
        }),
        (at(), key(), arb_json()).prop_map(|(step, key, value)| Mutation::Add { step, key, value }),
        (any::<Index>(), any::<Index>()).prop_map(|(from, to)| Mutation::Duplicate { from, to }),
        any::<Index>().prop_map(|step| Mutation::Remove { step }),
        (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Mutation::Swap { a, b }),
        (any::<Index>(), any::<Index>(), 1usize..300)
            .prop_map(|(step, field, depth)| Mutation::Nest { step, field, depth }),
    ]
}

/// The object a mutation works on: the plan itself, or one of its steps.
fn target<'a>(plan: &'a mut Value, step: Option<&Index>) -> Option<&'a mut Map<String, Value>> {
    match step {
        None => plan.as_object_mut(),
        Some(i) => {
            let steps = plan.get_mut("steps")?.as_array_mut()?;
            if steps.is_empty() {
                return None;
            }
            let n = i.index(steps.len());
            steps[n].as_object_mut()
        }
    }
}

fn key_at(obj: &Map<String, Value>, i: &Index) -> Option<String> {
    (!obj.is_empty()).then(|| obj.keys().nth(i.index(obj.len())).cloned())?
}

fn apply(plan: &mut Value, m: &Mutation) {
    match m {
        Mutation::Drop { step, field } => {
            if let Some(obj) = target(plan, step.as_ref())
                && let Some(k) = key_at(obj, field)
            {
                obj.remove(&k);
            }
        }
        Mutation::Rename { step, field, to } => {
            if let Some(obj) = target(plan, step.as_ref())
                && let Some(k) = key_at(obj, field)
                && let Some(v) = obj.remove(&k)
            {
                obj.insert(to.clone(), v);
            }
        }
        Mutation::Retype { step, field, to } => {
            if let Some(obj) = target(plan, step.as_ref())
                && let Some(k) = key_at(obj, field)
            {
                obj.insert(k, to.clone());
            }
        }
        Mutation::Template { step, field, to } => {
            if let Some(obj) = target(plan, Some(step)) {
                let strings: Vec<String> = obj
                    .iter()
                    .filter(|(k, v)| v.is_string() && *k != "type")
                    .map(|(k, _)| k.clone())
                    .collect();
                if !strings.is_empty() {
                    let k = &strings[field.index(strings.len())];
                    obj.insert(k.clone(), Value::String(to.clone()));
                }
            }
        }
        Mutation::Number { step, to } => {
            if let Some(obj) = target(plan, Some(step)) {
                let key = if obj.get("type") == Some(&json!("wait_seconds")) {
                    "seconds"
                } else {
                    "timeout_seconds"
                };
                obj.insert(key.to_string(), to.clone());
            }
        }
        Mutation::SetType { step, to } => {
            if let Some(obj) = target(plan, Some(step)) {
                obj.insert("type".into(), Value::String(to.clone()));
            }
        }
        Mutation::Add { step, key, value } => {
            if let Some(obj) = target(plan, step.as_ref()) {
                obj.insert(key.clone(), value.clone());
            }
        }
        Mutation::Duplicate { from, to } => {
            if let Some(steps) = plan.get_mut("steps").and_then(Value::as_array_mut)
                && !steps.is_empty()
            {
                let s = steps[from.index(steps.len())].clone();
                let at = to.index(steps.len() + 1);
                steps.insert(at, s);
            }
        }
        Mutation::Remove { step } => {
            if let Some(steps) = plan.get_mut("steps").and_then(Value::as_array_mut)
                && !steps.is_empty()
            {
                let n = step.index(steps.len());
                steps.remove(n);
            }
        }
        Mutation::Swap { a, b } => {
            if let Some(steps) = plan.get_mut("steps").and_then(Value::as_array_mut)
                && !steps.is_empty()
            {
                let (a, b) = (a.index(steps.len()), b.index(steps.len()));
                steps.swap(a, b);
            }
        }
        Mutation::Nest { step, field, depth } => {
            if let Some(obj) = target(plan, Some(step))
                && let Some(k) = key_at(obj, field)
            {
                let mut v = obj.remove(&k).unwrap_or(Value::Null);
                for _ in 0..*depth {
                    v = Value::Array(vec![v]);
                }
                obj.insert(k, v);
            }
        }
    }
}

/// A valid fixture with a few mutations applied.
fn mutated_plan() -> impl Strategy<Value = Value> {
    (any::<Index>(), prop::collection::vec(mutation(), 0..4)).prop_map(|(seed, mutations)| {
        let mut plan = SEEDS[seed.index(SEEDS.len())].clone();
        for m in &mutations {
            apply(&mut plan, m);
        }
        plan
    })
}

/// Text that is JSON-ish: the parser's punctuation, keywords, numbers and plan words.
fn jsonish_text() -> impl Strategy<Value = String> {
    let atoms = prop_oneof![
        prop::sample::select(vec![
            "{",
            "}",
            "[",
            "]",
            ",",
            ":",
            "\"",
            "\\",
            "\\u",
            "\\ud800",
            "null",
            "true",
            "NaN",
            "Infinity",
            "-",
            "1e999",
            "0",
            "1.5",
            "\n",
            " ",
            "\u{feff}",
            "\"type\"",
            "\"steps\"",
            "\"done\"",
            "{{",
            "//",
            "/*",
        ])
        .prop_map(str::to_string),
        "[a-z0-9]{1,4}",
    ];
    prop::collection::vec(atoms, 0..40).prop_map(|p| p.concat())
}

// ---------------------------------------------------------------------------------------------
// Properties

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arbitrary_json_never_panics(value in arb_json()) {
        check(&serde_json::to_string(&value).expect("serialise"))?;
    }

    #[test]
    fn plan_shaped_json_never_panics(value in arb_plan_shaped()) {
        check(&serde_json::to_string(&value).expect("serialise"))?;
    }

    #[test]
    fn mutated_valid_plans(plan in mutated_plan()) {
        let text = serde_json::to_string_pretty(&plan).expect("serialise");
        check(&text)?;
    }

    #[test]
    fn raw_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let text = String::from_utf8_lossy(&bytes);
        if let Err(PlanError::Syntax { line, column, .. }) = parse(&text) {
            prop_assert!(line >= 1 && column >= 1);
        }
        check(&text)?;
    }

    #[test]
    fn jsonish_text_never_panics(text in jsonish_text()) {
        check(&text)?;
    }

    #[test]
    fn selectors_never_panic(selector in tricky_string(), depth in 0usize..40) {
        let deep = format!("{}{selector}{}", ":is(".repeat(depth), ")".repeat(depth));
        for sel in [selector.as_str(), deep.as_str()] {
            let plan = json!({
                "reasoning": "r",
                "steps": [
                    {"type": "click", "describe": "d", "selector": sel},
                    {"type": "done", "summary": "s"}
                ]
            });
            check(&plan.to_string())?;
        }
    }
}

#[test]
fn seeds_are_valid() {
    assert!(SEEDS.len() >= 5);
    for seed in SEEDS.iter() {
        let text = serde_json::to_string(seed).expect("serialise");
        if let Err(e) = parse_and_validate(&text, &Limits::default(), &vars()) {
            panic!("seed plan invalid: {e}\n{text}");
        }
    }
}

/// The round-trip property only means something if mutated plans still pass now and then.
#[test]
fn mutations_leave_some_plans_valid() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = mutated_plan();
    let (mut accepted, total) = (0, 400);
    for _ in 0..total {
        let plan = strategy.new_tree(&mut runner).expect("a case").current();
        let text = serde_json::to_string(&plan).expect("serialise");
        if parse_and_validate(&text, &Limits::default(), &vars()).is_ok() {
            accepted += 1;
        }
    }
    assert!(
        accepted * 10 >= total,
        "only {accepted} of {total} mutated plans are valid: the round-trip property is barely tested"
    );
}

/// Inputs kept as files: each must satisfy the same properties as fuzzed input.
#[test]
fn regression_corpus() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/plans/fuzz-regressions");
    let mut n = 0;
    for entry in fs::read_dir(&dir).expect("fuzz regression corpus") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let bytes = fs::read(&path).expect("read");
        let text = String::from_utf8_lossy(&bytes);
        if let Err(e) = check(&text) {
            panic!("{}: {e}", path.display());
        }
        n += 1;
    }
    assert!(n > 0, "no corpus files in {}", dir.display());
}
