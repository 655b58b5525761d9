//! The plan: its steps ([`step`], what each step type is), template variables, and
//! validation that names the JSON path of every problem.

mod selector;
mod sender_filter;
mod step;
mod template;
mod validate;
mod wording;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use sender_filter::SenderFilter;
pub use step::{Criticality, Step, StepType, step_types};
pub use template::{
    LONG_SECRET, MASK, Masker, SECRET_ENV_PREFIX, Template, VarProblem, Vars, VarsError,
};
pub use validate::{Limits, PlanError, Problem, duplicate_keys, parse, parse_and_validate};
pub use wording::json_kind;

/// A plan: why, then what, in order. Produced by the planner or written by hand.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "planlock plan")]
pub struct Plan {
    /// Optional link to this schema, so editors can autocomplete plans.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Why these steps reach the goal. Informational only.
    pub reasoning: String,
    /// The steps, run in order. Must end with `done`.
    #[schemars(length(min = 1))]
    pub steps: Vec<Step>,
    /// Values the goal did not give that the page asks for, each a `{{var}}` of the plan
    /// with a question and a suggested answer (taken when nobody answers).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub questions: Vec<Question>,
}

/// A value a plan needs that the goal did not give: the plan writes it as `{{var}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Question {
    /// The variable's name, as the plan writes it (`full_name` for `{{full_name}}`).
    pub var: String,
    /// The question for a person: "Full name for the account?".
    pub ask: String,
    /// The answer taken when nobody gives one.
    pub suggested: String,
}

impl Plan {
    /// Parses and validates a plan with the default limits, allowing every variable name
    /// that is built in or a secret (caller variables: use [`parse_and_validate`]).
    pub fn from_json(text: &str) -> Result<Plan, PlanError> {
        parse_and_validate(text, &Limits::default(), &template::Vars::default())
    }
}

/// The plan's JSON Schema, generated from the types above and [`Step`]'s.
pub fn json_schema() -> serde_json::Value {
    let schema = schemars::schema_for!(Plan);
    serde_json::to_value(schema).expect("a generated schema is valid JSON")
}

/// The schema as checked in at `schema/plan.schema.json` (pretty, trailing newline).
pub fn json_schema_text() -> String {
    let mut s = serde_json::to_string_pretty(&json_schema()).expect("schema serialises");
    s.push('\n');
    s
}

/// Checks a `navigate` URL once its variables are filled in: absolute http(s) with a host.
pub fn check_navigate_url(url: &str) -> Result<(), String> {
    validate::check_url(url)
}
