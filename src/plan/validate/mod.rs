//! Validation before anything runs: structure first (unknown types and fields, with
//! did-you-mean), then meaning (URLs, selectors, bounds, variables). Every problem has a path.

mod navigate_url;
mod parse;
mod rules;
mod structure;

use std::fmt;

use serde_json::Value;

use super::Plan;
use super::template::Vars;

pub(crate) use navigate_url::check_url;
pub use parse::{duplicate_keys, parse};

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

/// One thing wrong with a plan, at a JSON path such as `steps[3].selector`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct Problem {
    #[cfg_attr(feature = "server", schema(example = "steps[2].selector"))]
    pub path: String,
    pub message: String,
    /// The caller variable the plan uses and the request gives no value for, when that is the
    /// problem. The message names no flag or field: each front end says how to give one.
    #[serde(skip)]
    pub unknown_variable: Option<String>,
}

impl Problem {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem {
            path: path.into(),
            message: message.into(),
            unknown_variable: None,
        }
    }
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
            PlanError::Syntax { .. } => vec![Problem::new("$", self.to_string())],
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

/// Collects every problem of one plan; the structure checks and the per-step rules add to it.
struct Validator {
    problems: Vec<Problem>,
}

impl Validator {
    fn problem(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.problems.push(Problem::new(path, message));
    }
}

/// Every problem of a plan text as `path: message` lines, none when it is valid.
#[cfg(test)]
fn problems(json: &str) -> Vec<String> {
    match parse_and_validate(json, &Limits::default(), &Vars::default()) {
        Ok(_) => vec![],
        Err(e) => e.problems().iter().map(ToString::to_string).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
                r#"$["a\nb"]: unknown field `a\nb`; a plan has `reasoning`, `steps` and optionally `questions`"#
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
}
