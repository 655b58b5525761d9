//! Structure: the plan object and each step's type, fields and JSON types, checked against the
//! shapes read from the generated schema, plus where `done` may stand and how many steps fit.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use crate::plan::json_kind;
use serde_json::Value;

use crate::plan::template::Vars;
use crate::plan::wording::{show, suggest, suggest_step_type};
use crate::plan::{Plan, Step, step_types};

use super::{Limits, Validator};

/// What the schema says about one step type: each field and whether it is required.
struct StepShape {
    fields: BTreeMap<String, FieldShape>,
}

struct FieldShape {
    required: bool,
    number: bool,
    /// The words a field of an enumerated type may hold (`criticality`).
    choices: Option<Vec<String>>,
}

/// The `const` words of an enumerated type the field refers to, if it refers to one.
fn choices_of(def: &Value, defs: &Value) -> Option<Vec<String>> {
    let refs = def["anyOf"].as_array().into_iter().flatten().chain([def]);
    let target = refs
        .filter_map(|d| d["$ref"].as_str())
        .find_map(|r| r.strip_prefix("#/$defs/"))?;
    let words: Vec<String> = defs[target]["oneOf"]
        .as_array()?
        .iter()
        .filter_map(|v| v["const"].as_str().map(str::to_string))
        .collect();
    (!words.is_empty()).then_some(words)
}

/// Step shapes read from the generated schema, so the Rust types stay the one source of truth.
static SHAPES: LazyLock<BTreeMap<String, StepShape>> = LazyLock::new(|| {
    let schema = crate::plan::json_schema();
    let variants = schema["$defs"]["Step"]["oneOf"]
        .as_array()
        .expect("Step is a oneOf in the generated schema");
    let mut shapes = BTreeMap::new();
    for variant in variants {
        let props = variant["properties"]
            .as_object()
            .expect("variant properties");
        let name = props["type"]["const"].as_str().expect("variant tag const");
        let required: Vec<&str> = variant["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut fields = BTreeMap::new();
        for (field, def) in props {
            if field == "type" {
                continue;
            }
            let ty = &def["type"];
            let number =
                ty == "number" || ty.as_array().is_some_and(|a| a.contains(&"number".into()));
            fields.insert(
                field.clone(),
                FieldShape {
                    required: required.contains(&field.as_str()),
                    number,
                    choices: choices_of(def, &schema["$defs"]),
                },
            );
        }
        shapes.insert(name.to_string(), StepShape { fields });
    }
    shapes
});

impl Validator {
    pub(super) fn plan(&mut self, value: &Value, limits: &Limits, vars: &Vars) -> Option<Plan> {
        let Some(obj) = value.as_object() else {
            self.problem(
                "$",
                format!(
                    "a plan is a JSON object {{\"reasoning\": ..., \"steps\": [...]}}, not {}",
                    json_kind(value)
                ),
            );
            return None;
        };
        for key in obj.keys() {
            if !["$schema", "reasoning", "steps", "questions"].contains(&key.as_str()) {
                let hint = suggest(key, ["reasoning", "steps", "questions", "$schema"]);
                self.problem(
                    field_path(None, key),
                    format!(
                        "unknown field `{}`{hint}; a plan has `reasoning`, `steps` and \
                         optionally `questions`",
                        show(key)
                    ),
                );
            }
        }
        let questions = self.questions(obj.get("questions"));
        // The plan may write the variables its questions ask for.
        let mut vars = vars.clone();
        for q in &questions {
            // Checked by `questions` already: a name the plan can write.
            let _ = vars.insert(&q.var, &q.suggested);
        }
        let vars = &vars;
        match obj.get("$schema") {
            // null is what the schema (and serde) accept for an absent `$schema` too.
            None | Some(Value::String(_) | Value::Null) => {}
            Some(other) => self.problem(
                "$schema",
                format!("expected a string, found {}", json_kind(other)),
            ),
        }
        let reasoning = match obj.get("reasoning") {
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                self.problem(
                    "reasoning",
                    format!("expected a string, found {}", json_kind(other)),
                );
                None
            }
            None => {
                self.problem(
                    "reasoning",
                    "missing: say in a sentence why these steps reach the goal",
                );
                None
            }
        };
        let steps = match obj.get("steps") {
            Some(Value::Array(a)) => a,
            Some(other) => {
                self.problem(
                    "steps",
                    format!("expected an array of steps, found {}", json_kind(other)),
                );
                return None;
            }
            None => {
                self.problem(
                    "steps",
                    "missing: a plan needs at least one step, ending with `done`",
                );
                return None;
            }
        };
        if steps.is_empty() {
            self.problem(
                "steps",
                "a plan needs at least one step, ending with `done`",
            );
        }
        if steps.len() > limits.max_steps {
            self.problem(
                "steps",
                format!(
                    "{} steps is more than the limit of {}: plan the first sub-goal only and say in \
                     `done.summary` what is left",
                    steps.len(),
                    limits.max_steps
                ),
            );
        }
        let mut typed = Vec::with_capacity(steps.len());
        for (i, step) in steps.iter().enumerate() {
            let path = format!("steps[{i}]");
            if let Some(step) = self.step(&path, step) {
                self.step_meaning(&path, &step, vars);
                typed.push(step);
            }
        }
        let last = steps.len().saturating_sub(1);
        for (i, step) in steps.iter().enumerate() {
            let is_done = step.get("type").and_then(Value::as_str) == Some("done");
            if is_done && i != last {
                self.problem(
                    format!("steps[{i}].type"),
                    format!(
                        "`done` ends the run, so it must be the last step; {} step(s) follow it",
                        last - i
                    ),
                );
            }
            if !is_done && i == last {
                self.problem(
                    format!("steps[{i}]"),
                    "the last step must be `done` with a `summary` of what was achieved",
                );
            }
        }
        if typed.len() != steps.len() {
            return None;
        }
        Some(Plan {
            schema: obj
                .get("$schema")
                .and_then(Value::as_str)
                .map(str::to_string),
            reasoning: reasoning?,
            steps: typed,
            questions,
        })
    }

    /// `questions`: each `{var, ask, suggested}`, the variable a name a plan can write and
    /// not one of planlock's own.
    fn questions(&mut self, value: Option<&Value>) -> Vec<crate::plan::Question> {
        let items = match value {
            None | Some(Value::Null) => return Vec::new(),
            Some(Value::Array(items)) => items,
            Some(other) => {
                self.problem(
                    "questions",
                    format!("expected an array of questions, found {}", json_kind(other)),
                );
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let path = format!("questions[{i}]");
            match serde_json::from_value::<crate::plan::Question>(item.clone()) {
                Ok(q) => {
                    let reserved = ["inbox_address", "run_id"].contains(&q.var.as_str())
                        || q.var.starts_with("secret");
                    let mut probe = Vars::default();
                    if reserved || probe.insert(&q.var, "x").is_err() {
                        self.problem(
                            format!("{path}.var"),
                            format!(
                                "`{}` cannot be asked for: a question's variable is letters, \
                                 digits and `_`, and not one of planlock's own (inbox_address, \
                                 run_id, secret.NAME)",
                                show(&q.var)
                            ),
                        );
                    } else if out.iter().any(|o: &crate::plan::Question| o.var == q.var) {
                        self.problem(format!("{path}.var"), format!("`{}` is asked twice", q.var));
                    } else {
                        out.push(q);
                    }
                }
                Err(e) => self.problem(
                    path,
                    format!("a question is {{\"var\", \"ask\", \"suggested\"}} (strings): {e}"),
                ),
            }
        }
        out
    }

    /// Structure of one step: its type, its fields, their JSON types.
    fn step(&mut self, path: &str, value: &Value) -> Option<Step> {
        let Some(obj) = value.as_object() else {
            self.problem(
                path,
                format!(
                    "a step is an object with a `type`, not {}",
                    json_kind(value)
                ),
            );
            return None;
        };
        let ty = match obj.get("type") {
            Some(Value::String(t)) => t.as_str(),
            Some(other) => {
                self.problem(
                    format!("{path}.type"),
                    format!("expected a string, found {}", json_kind(other)),
                );
                return None;
            }
            None => {
                self.problem(
                    format!("{path}.type"),
                    format!(
                        "missing: a step's type is one of: {}",
                        step_types().collect::<Vec<_>>().join(", ")
                    ),
                );
                return None;
            }
        };
        let Some(shape) = SHAPES.get(ty) else {
            let hint = suggest_step_type(ty);
            self.problem(
                format!("{path}.type"),
                format!(
                    "unknown step type `{}`{hint}; the types are: {}",
                    show(ty),
                    step_types().collect::<Vec<_>>().join(", ")
                ),
            );
            return None;
        };
        let before = self.problems.len();
        for (key, field_value) in obj {
            if key == "type" {
                continue;
            }
            let field_path = field_path(Some(path), key);
            match shape.fields.get(key) {
                None => {
                    let hint = suggest(key, shape.fields.keys().map(String::as_str));
                    let names: Vec<&str> = shape.fields.keys().map(String::as_str).collect();
                    self.problem(
                        field_path,
                        format!(
                            "unknown field `{}` for `{ty}`{hint}; its fields are: {}",
                            show(key),
                            names.join(", ")
                        ),
                    );
                }
                Some(f) if f.number => {
                    if !(field_value.is_number() || (!f.required && field_value.is_null())) {
                        self.problem(
                            field_path,
                            format!("expected a number, found {}", json_kind(field_value)),
                        );
                    }
                }
                Some(FieldShape {
                    choices: Some(words),
                    required,
                    ..
                }) => {
                    let fits = match field_value {
                        Value::String(w) => words.contains(w),
                        Value::Null => !required,
                        _ => false,
                    };
                    if !fits {
                        let given = match field_value {
                            Value::String(w) => format!(
                                "`{}`{}",
                                show(w),
                                suggest(w, words.iter().map(String::as_str))
                            ),
                            other => json_kind(other).to_string(),
                        };
                        self.problem(
                            field_path,
                            format!(
                                "expected one of {}, found {given}",
                                words
                                    .iter()
                                    .map(|w| format!("`{w}`"))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        );
                    }
                }
                Some(f) => {
                    if !(field_value.is_string() || (!f.required && field_value.is_null())) {
                        self.problem(
                            field_path,
                            format!("expected a string, found {}", json_kind(field_value)),
                        );
                    }
                }
            }
        }
        for (name, f) in &shape.fields {
            if f.required && !obj.contains_key(name) {
                self.problem(
                    format!("{path}.{name}"),
                    format!("missing: `{ty}` needs `{name}`"),
                );
            }
        }
        if self.problems.len() > before {
            return None;
        }
        match serde_json::from_value::<Step>(value.clone()) {
            Ok(step) => Some(step),
            Err(e) => {
                self.problem(path, e.to_string());
                None
            }
        }
    }
}

/// The JSON path of an object key: `steps[2].text`, or `steps[2]["odd key"]` when the key is
/// not a plain name (`$["odd key"]` at the top).
pub(super) fn field_path(parent: Option<&str>, key: &str) -> String {
    let plain = key
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    let quoted = || {
        let short: String = if key.chars().count() > 80 {
            key.chars().take(80).chain(['…']).collect()
        } else {
            key.to_string()
        };
        serde_json::to_string(&short).unwrap_or_default()
    };
    match (parent, plain) {
        (None, true) => key.to_string(),
        (None, false) => format!("$[{}]", quoted()),
        (Some(p), true) => format!("{p}.{key}"),
        (Some(p), false) => format!("{p}[{}]", quoted()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::validate::problems;

    #[test]
    fn every_step_type_has_a_shape() {
        for t in step_types() {
            assert!(SHAPES.contains_key(t), "no schema shape for {t}");
        }
        assert_eq!(SHAPES.len(), step_types().count());
    }

    #[test]
    fn criticality_is_one_of_its_words() {
        let p = problems(
            r#"{"reasoning":"","steps":[{"type":"wait_for_text","text":"x","criticality":"shoud"},{"type":"done","summary":"x","criticality":3}]}"#,
        );
        assert_eq!(
            p,
            [
                "steps[0].criticality: expected one of `must`, `should`, `could`, found `shoud` (did you mean `should`?)",
                "steps[1].criticality: expected one of `must`, `should`, `could`, found a number"
            ]
        );
        let ok = problems(
            r#"{"reasoning":"","steps":[{"type":"wait_for_text","text":"x","criticality":"could"},{"type":"done","summary":"x"}]}"#,
        );
        assert!(ok.is_empty(), "{ok:?}");
    }

    #[test]
    fn suggests_close_step_types() {
        let p = problems(
            r#"{"reasoning":"","steps":[{"type":"wait_for_mail"},{"type":"done","summary":"x"}]}"#,
        );
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(
            p[0].starts_with(
                "steps[0].type: unknown step type `wait_for_mail` (did you mean `wait_for_email`?)"
            ),
            "{p:?}"
        );
    }

    #[test]
    fn done_only_last_and_step_limit() {
        let p = problems(
            r#"{"reasoning":"","steps":[{"type":"done","summary":"a"},{"type":"done","summary":"b"}]}"#,
        );
        assert!(p[0].contains("must be the last step"), "{p:?}");
        let many = format!(
            r#"{{"reasoning":"","steps":[{}{{"type":"done","summary":"x"}}]}}"#,
            r#"{"type":"wait_seconds","seconds":1},"#.repeat(15)
        );
        assert!(
            problems(&many)
                .iter()
                .any(|p| p.contains("more than the limit of 15"))
        );
    }
}
