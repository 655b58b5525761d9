//! Validation before anything runs: structure first (unknown types and fields, with
//! did-you-mean), then meaning (URLs, selectors, bounds, variables). Every problem has a path.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::LazyLock;

use serde_json::Value;

use super::selector::check_selector;
use super::template::{SECRET_ENV_PREFIX, Template, Vars};
use super::wording::{show, suggest};
use super::{Plan, STEP_TYPES, Step};

/// Configurable limits of validation.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Most steps a plan may have (default 15).
    pub max_steps: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_steps: 15 }
    }
}

/// Longest `wait_seconds` a plan may ask for.
pub const MAX_WAIT_SECONDS: f64 = 300.0;
/// Longest `timeout_seconds` a step may ask for.
pub const MAX_TIMEOUT_SECONDS: f64 = 900.0;

/// One thing wrong with a plan, at a JSON path such as `steps[3].selector`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    pub path: String,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Why a plan was rejected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlanError {
    /// Not JSON at all.
    #[error("line {line}, column {column}: {message}")]
    Syntax {
        line: usize,
        column: usize,
        message: String,
    },
    /// JSON, but not a valid plan. Never empty.
    #[error("{}", render_problems(.0))]
    Invalid(Vec<Problem>),
}

impl PlanError {
    /// Every problem, as `path: message` lines (a syntax error is one line).
    pub fn problems(&self) -> Vec<Problem> {
        match self {
            PlanError::Syntax { .. } => vec![Problem {
                path: "$".into(),
                message: self.to_string(),
            }],
            PlanError::Invalid(p) => p.clone(),
        }
    }
}

fn render_problems(problems: &[Problem]) -> String {
    let mut out = String::new();
    if problems.len() > 1 {
        out.push_str(&format!("{} problems:", problems.len()));
    }
    for p in problems {
        if problems.len() > 1 {
            out.push_str("\n  ");
        }
        out.push_str(&p.to_string());
    }
    out
}

/// Parses JSON text, reporting line and column on malformed input.
pub fn parse(text: &str) -> Result<Value, PlanError> {
    // Editors on Windows save UTF-8 with a byte-order mark; it is not part of the JSON.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    serde_json::from_str(text).map_err(|e| PlanError::Syntax {
        line: e.line(),
        // serde_json says column 0 for an error at the very start of a line (e.g. the end of
        // input after a newline); editors count columns from 1.
        column: e.column().max(1),
        message: strip_position(&e.to_string()),
    })
}

fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

/// Parses and validates a plan; `vars` says which caller variables exist.
pub fn parse_and_validate(text: &str, limits: &Limits, vars: &Vars) -> Result<Plan, PlanError> {
    validate(&parse(text)?, limits, vars)
}

/// Validates a JSON value as a plan, returning every problem found.
pub fn validate(value: &Value, limits: &Limits, vars: &Vars) -> Result<Plan, PlanError> {
    let mut v = Validator {
        problems: Vec::new(),
    };
    let plan = v.plan(value, limits, vars);
    match plan {
        Some(plan) if v.problems.is_empty() => Ok(plan),
        _ => {
            // Plan-level problems first, then step by step (stable: a step's own order stays).
            v.problems.sort_by_key(|p| step_index(&p.path));
            Err(PlanError::Invalid(v.problems))
        }
    }
}

/// The step a path is inside (`steps[3].url` → 3); `None` (first) for the plan itself.
fn step_index(path: &str) -> Option<usize> {
    let rest = path.strip_prefix("steps[")?;
    rest[..rest.find(']')?].parse().ok()
}

/// What the schema says about one step type: each field and whether it is required.
struct StepShape {
    fields: BTreeMap<String, FieldShape>,
}

struct FieldShape {
    required: bool,
    number: bool,
}

/// Step shapes read from the generated schema, so the Rust types stay the one source of truth.
static SHAPES: LazyLock<BTreeMap<String, StepShape>> = LazyLock::new(|| {
    let schema = super::json_schema();
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
                },
            );
        }
        shapes.insert(name.to_string(), StepShape { fields });
    }
    shapes
});

struct Validator {
    problems: Vec<Problem>,
}

impl Validator {
    fn problem(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.problems.push(Problem {
            path: path.into(),
            message: message.into(),
        });
    }

    fn plan(&mut self, value: &Value, limits: &Limits, vars: &Vars) -> Option<Plan> {
        let Some(obj) = value.as_object() else {
            self.problem(
                "$",
                format!(
                    "a plan is a JSON object {{\"reasoning\": ..., \"steps\": [...]}}, not {}",
                    kind_of(value)
                ),
            );
            return None;
        };
        for key in obj.keys() {
            if !["$schema", "reasoning", "steps"].contains(&key.as_str()) {
                let hint = suggest(key, ["reasoning", "steps", "$schema"]);
                self.problem(
                    field_path(None, key),
                    format!(
                        "unknown field `{}`{hint}; a plan has `reasoning` and `steps`",
                        show(key)
                    ),
                );
            }
        }
        match obj.get("$schema") {
            // null is what the schema (and serde) accept for an absent `$schema` too.
            None | Some(Value::String(_) | Value::Null) => {}
            Some(other) => self.problem(
                "$schema",
                format!("expected a string, found {}", kind_of(other)),
            ),
        }
        let reasoning = match obj.get("reasoning") {
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                self.problem(
                    "reasoning",
                    format!("expected a string, found {}", kind_of(other)),
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
                    format!("expected an array of steps, found {}", kind_of(other)),
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
        })
    }

    /// Structure of one step: its type, its fields, their JSON types.
    fn step(&mut self, path: &str, value: &Value) -> Option<Step> {
        let Some(obj) = value.as_object() else {
            self.problem(
                path,
                format!("a step is an object with a `type`, not {}", kind_of(value)),
            );
            return None;
        };
        let ty = match obj.get("type") {
            Some(Value::String(t)) => t.as_str(),
            Some(other) => {
                self.problem(
                    format!("{path}.type"),
                    format!("expected a string, found {}", kind_of(other)),
                );
                return None;
            }
            None => {
                self.problem(
                    format!("{path}.type"),
                    format!(
                        "missing: a step's type is one of: {}",
                        STEP_TYPES.join(", ")
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
                    STEP_TYPES.join(", ")
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
                            format!("expected a number, found {}", kind_of(field_value)),
                        );
                    }
                }
                Some(f) => {
                    if !(field_value.is_string() || (!f.required && field_value.is_null())) {
                        self.problem(
                            field_path,
                            format!("expected a string, found {}", kind_of(field_value)),
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

    /// Meaning of one well-formed step.
    fn step_meaning(&mut self, path: &str, step: &Step, vars: &Vars) {
        for (field, text) in step.strings() {
            match Template::parse(text) {
                Ok(t) => {
                    for name in t.variables() {
                        if !vars.is_known(name) {
                            let known: Vec<&str> = ["inbox_address", "run_id"]
                                .into_iter()
                                .chain(vars.caller_names())
                                .collect();
                            let secret = name.split_once('_').filter(|(head, rest)| {
                                head.eq_ignore_ascii_case("secret") && !rest.is_empty()
                            });
                            let message = if let Some((_, rest)) = secret {
                                // `{{secret_PASSWORD}}` for `{{secret.PASSWORD}}`.
                                format!(
                                    "unknown variable `{{{{{name}}}}}`; a secret is written \
                                     `{{{{secret.{rest}}}}}` and read from the environment \
                                     variable {SECRET_ENV_PREFIX}{rest}"
                                )
                            } else {
                                let hint = suggest(name, known.iter().copied())
                                    .replace("`?)", "}}`?)")
                                    .replace("(did you mean `", "(did you mean `{{");
                                format!(
                                    "unknown variable `{{{{{name}}}}}`{hint}; pass it with \
                                     `--var {name}=VALUE` (known: {}, secret.NAME)",
                                    known.join(", ")
                                )
                            };
                            self.problem(format!("{path}.{field}"), message);
                        }
                    }
                }
                Err(e) => self.problem(format!("{path}.{field}"), e),
            }
        }
        let nonempty = |s: &Option<String>| s.as_deref().is_some_and(|s| !s.trim().is_empty());
        match step {
            Step::Navigate { url } => {
                if let Err(e) = check_url(url) {
                    self.problem(format!("{path}.url"), e);
                }
            }
            Step::Click { text, selector, .. } if !nonempty(text) && !nonempty(selector) => {
                self.problem(path, "`click` needs `text` (preferred) or `selector`");
            }
            Step::Fill {
                label, selector, ..
            } if !nonempty(label) && !nonempty(selector) => {
                self.problem(path, "`fill` needs `label` (preferred) or `selector`");
            }
            Step::ExtractText {
                selector: Some(sel),
                ..
            } if sel.trim().is_empty() => {
                self.problem(
                    format!("{path}.selector"),
                    "is empty: name the element, or leave `selector` out to extract the page's \
                     main text",
                );
            }
            Step::WaitSeconds { seconds } => {
                self.bounded(&format!("{path}.seconds"), *seconds, MAX_WAIT_SECONDS);
            }
            Step::WaitForText { text, .. } if text.trim().is_empty() => {
                self.problem(
                    format!("{path}.text"),
                    "is empty: say which text to wait for",
                );
            }
            Step::UseOtpFromInbox { selector, .. } if selector.trim().is_empty() => {
                self.problem(format!("{path}.selector"), "is empty: name the code input");
            }
            _ => {}
        }
        if let Some(t) = step.timeout_seconds() {
            self.bounded(&format!("{path}.timeout_seconds"), t, MAX_TIMEOUT_SECONDS);
        }
        let selector = match step {
            Step::Click { selector, .. }
            | Step::Fill { selector, .. }
            | Step::ExtractText { selector, .. } => selector.as_deref(),
            Step::UseOtpFromInbox { selector, .. } => Some(selector.as_str()),
            _ => None,
        };
        if let Some(sel) = selector.filter(|s| !s.trim().is_empty() && !s.contains("{{"))
            && let Err(e) = check_selector(sel)
        {
            self.problem(format!("{path}.selector"), e);
        }
    }

    fn bounded(&mut self, path: &str, value: f64, max: f64) {
        if !value.is_finite() || value <= 0.0 {
            self.problem(
                path,
                format!(
                    "must be a positive number of seconds, not {}",
                    show_number(value)
                ),
            );
        } else if value > max {
            self.problem(
                path,
                format!(
                    "{} s is longer than the limit of {max} s",
                    show_number(value)
                ),
            );
        }
    }
}

/// An absolute http(s) URL with a host. URLs starting with a variable are checked at run time.
pub(crate) fn check_url(url: &str) -> Result<(), String> {
    let Ok(t) = Template::parse(url) else {
        return Ok(()); // reported by the template check
    };
    if t.starts_with_variable() {
        return Ok(());
    }
    let shown = show(url);
    if url.trim().is_empty() {
        return Err("is empty: write the absolute http(s) URL to visit".to_string());
    }
    // Variables elsewhere (`https://shop.example/{{path}}`) stand for some text.
    let probe = t.render_with(|_| "x");
    match url::Url::parse(&probe) {
        Ok(u) if (u.scheme() == "http" || u.scheme() == "https") && u.host_str().is_some() => {
            Ok(())
        }
        // `shop.example:8080/signup` parses with the "scheme" `shop.example`.
        Ok(u) if u.cannot_be_a_base() && looks_like_host(u.scheme()) => Err(format!(
            "`{shown}` has no scheme; write the absolute URL, e.g. `https://{}`",
            show(url.trim())
        )),
        Ok(u) => Err(format!(
            "`{shown}` is not an absolute http(s) URL (scheme `{}`); only http and https pages \
             can be visited",
            show(u.scheme())
        )),
        Err(url::ParseError::RelativeUrlWithoutBase) => {
            let trimmed = url.trim();
            let first = trimmed.split(['/', '?', '#']).next().unwrap_or_default();
            if let Some(rest) = trimmed.strip_prefix("//") {
                Err(format!(
                    "`{shown}` has no scheme; write the absolute URL, e.g. `https://{}`",
                    show(rest)
                ))
            } else if looks_like_host(first) {
                Err(format!(
                    "`{shown}` has no scheme; write the absolute URL, e.g. `https://{}`",
                    show(trimmed)
                ))
            } else {
                Err(format!(
                    "`{shown}` is relative; write the absolute URL with its host, e.g. \
                     `https://shop.example/{}`",
                    show(trimmed.trim_start_matches(['.', '/']))
                ))
            }
        }
        Err(e) => Err(format!("`{shown}` is not a valid URL: {e}")),
    }
}

/// `shop.example` or `localhost`, maybe with a port: the start of a URL written without scheme.
fn looks_like_host(s: &str) -> bool {
    let host = s.rsplit_once(':').map_or(s, |(h, port)| {
        if port.chars().all(|c| c.is_ascii_digit()) {
            h
        } else {
            s
        }
    });
    host.eq_ignore_ascii_case("localhost")
        || (host.contains('.')
            && !host.starts_with('.')
            && !host.ends_with('.')
            && host
                .chars()
                .all(|c| c.is_alphanumeric() || c == '.' || c == '-'))
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A number as a person would write it: `1e300`, not three hundred zeros.
fn show_number(v: f64) -> String {
    if v == 0.0 {
        "0".to_string()
    } else if v.is_finite() && (v.abs() >= 1e9 || v.abs() < 1e-3) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// The JSON path of an object key: `steps[2].text`, or `steps[2]["odd key"]` when the key is
/// not a plain name (`$["odd key"]` at the top).
fn field_path(parent: Option<&str>, key: &str) -> String {
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

fn suggest_step_type(ty: &str) -> String {
    let alias = match ty.to_ascii_lowercase().replace('-', "_").as_str() {
        "goto" | "go_to" | "open" | "visit" | "open_url" | "load" => Some("navigate"),
        "type" | "input" | "enter" | "enter_text" | "type_text" | "fill_in" => Some("fill"),
        "sleep" | "wait" | "pause" => Some("wait_seconds"),
        "press" | "tap" | "click_button" | "click_link" => Some("click"),
        "finish" | "end" | "stop" | "complete" => Some("done"),
        "extract" | "get_text" | "read_text" | "scrape" => Some("extract_text"),
        "wait_for_mail" | "wait_email" | "check_email" | "read_email" => Some("wait_for_email"),
        "otp" | "enter_otp" | "fill_otp" | "use_otp" => Some("use_otp_from_inbox"),
        "open_link" | "click_email_link" | "magic_link" => Some("open_link_from_inbox"),
        _ => None,
    };
    match alias {
        Some(a) => format!(" (did you mean `{a}`?)"),
        None => suggest(ty, STEP_TYPES),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(json: &str) -> Vec<String> {
        match parse_and_validate(json, &Limits::default(), &Vars::default()) {
            Ok(_) => vec![],
            Err(e) => e.problems().iter().map(ToString::to_string).collect(),
        }
    }

    #[test]
    fn every_step_type_has_a_shape() {
        for t in STEP_TYPES {
            assert!(SHAPES.contains_key(t), "no schema shape for {t}");
        }
        assert_eq!(SHAPES.len(), STEP_TYPES.len());
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
    fn reports_all_problems_with_paths() {
        let p = problems(
            r#"{"reasoning":"r","steps":[
                {"type":"navigate","url":"ftp://x.test"},
                {"type":"click","describe":"go"},
                {"type":"fill","describe":"e","selector":"a[[bad","value":"{{nope}}"},
                {"type":"wait_seconds","seconds":-1},
                {"type":"click","describe":"x","text":"a","selctor":"b"}
            ]}"#,
        );
        let joined = p.join("\n");
        for needle in [
            "steps[0].url: `ftp://x.test` is not an absolute http(s) URL",
            "steps[1]: `click` needs `text` (preferred) or `selector`",
            "steps[2].selector: `a[[bad` is not a valid CSS selector",
            "steps[2].value: unknown variable `{{nope}}`",
            "steps[3].seconds: must be a positive number of seconds",
            "steps[4].selctor: unknown field `selctor` for `click` (did you mean `selector`?)",
            "steps[4]: the last step must be `done`",
        ] {
            assert!(joined.contains(needle), "missing {needle:?} in:\n{joined}");
        }
    }

    #[test]
    fn syntax_errors_have_line_and_column() {
        let e = parse_and_validate(
            "{\n  \"steps\": [,]\n}",
            &Limits::default(),
            &Vars::default(),
        )
        .unwrap_err();
        assert!(matches!(e, PlanError::Syntax { line: 2, .. }), "{e:?}");
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

    #[test]
    fn messages_stay_on_one_line_and_short() {
        let long = "x".repeat(5000);
        let json = format!(
            r#"{{"reasoning":"","a\nb":1,"steps":[{{"type":"navigate","url":"ftp://{long}"}},
            {{"type":"wait\u0000","odd key":1}},{{"type":"done","summary":""}}]}}"#
        );
        let p = problems(&json);
        assert_eq!(
            p,
            [
                r#"$["a\nb"]: unknown field `a\nb`; a plan has `reasoning` and `steps`"#
                    .to_string(),
                format!(
                    "steps[0].url: `ftp://{}…` is not an absolute http(s) URL (scheme `ftp`); \
                     only http and https pages can be visited",
                    "x".repeat(74)
                ),
                "steps[1].type: unknown step type `wait\\u{0}`; \
                 the types are: navigate, click, fill, wait_seconds, wait_for_text, \
                 wait_for_email, use_otp_from_inbox, open_link_from_inbox, extract_text, done"
                    .to_string(),
            ]
        );
    }

    #[test]
    fn numbers_read_as_written() {
        assert_eq!(show_number(1e300), "1e300");
        assert_eq!(show_number(-0.0), "0");
        assert_eq!(show_number(-2.0), "-2");
        assert_eq!(show_number(1.5), "1.5");
        assert_eq!(show_number(5e-324), "5e-324");
    }

    #[test]
    fn urls_get_a_hint_that_fits() {
        let e = |u: &str| check_url(u).unwrap_err();
        assert!(
            e("shop.example/a").contains("has no scheme"),
            "{}",
            e("shop.example/a")
        );
        assert!(e("localhost:3000/a").contains("e.g. `https://localhost:3000/a`"));
        assert!(e("//cdn.example/x").contains("e.g. `https://cdn.example/x`"));
        assert!(e("/signup").contains("e.g. `https://shop.example/signup`"));
        assert!(e("").contains("is empty"));
        assert!(e("data:text/html,hi").contains("scheme `data`"));
        assert!(check_url("https://shop.example/{{ run_id }}/x").is_ok());
        assert!(check_url("{{base_url}}/x").is_ok());
        assert!(check_url("HTTPS://Shop.Example").is_ok());
    }

    #[test]
    fn bom_and_positions() {
        assert!(parse("\u{feff}{}").is_ok());
        let PlanError::Syntax { line, column, .. } = parse("{\n").unwrap_err() else {
            panic!("not a syntax error")
        };
        assert_eq!((line, column), (2, 1));
    }

    #[test]
    fn null_schema_is_absent_and_problems_are_in_step_order() {
        assert_eq!(
            problems(r#"{"$schema":null,"reasoning":"","steps":[{"type":"done","summary":""}]}"#),
            Vec::<String>::new()
        );
        let p = problems(
            r#"{"reasoning":"","steps":[{"type":"done","summary":""},{"type":"click","describe":""}],"x":1}"#,
        );
        let paths: Vec<&str> = p.iter().map(|p| p.split(':').next().unwrap()).collect();
        assert_eq!(paths, ["x", "steps[0].type", "steps[1]", "steps[1]"]);
    }

    #[test]
    fn secret_typos_point_at_secrets() {
        let p = problems(
            r#"{"reasoning":"","steps":[{"type":"done","summary":"{{SECRET_pw}} {{inbox_adress}}"}]}"#,
        );
        assert!(
            p[0].contains("a secret is written `{{secret.pw}}`"),
            "{p:?}"
        );
        assert!(
            p[1].contains("(did you mean `{{inbox_address}}`?)"),
            "{p:?}"
        );
    }
}
