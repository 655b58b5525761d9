//! What callers send: the bodies of `POST /v1/runs`, `/v1/act` and `/v1/plans`, and the one
//! [`Ask`] each is read into, its variables, inboxes and secrets checked.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Value, json};
use utoipa::ToSchema;
use utoipa::openapi::{RefOr, Schema};

use super::error::{ApiError, ApiErrorKind};
use super::inboxes::RequestInbox;
use super::state::AppState;
use crate::plan::{self, Limits, Plan, Vars};
use crate::planner::LookChoice;
use crate::runner::Secrets;

/// `inbox`: one `[NAME=]NAME` or `[NAME=]URL`, or a list of them.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(untagged)]
pub enum Inboxes {
    #[default]
    None,
    One(String),
    Many(Vec<String>),
}

impl Inboxes {
    pub fn list(&self) -> Vec<String> {
        match self {
            Inboxes::None => Vec::new(),
            Inboxes::One(s) => vec![s.clone()],
            Inboxes::Many(v) => v.clone(),
        }
    }
}

/// `POST /v1/runs`: a plan to replay.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"plan": {"reasoning": "", "steps": [{"type": "navigate", "url": "https://shop.example/"}, {"type": "extract_text", "describe": "the price", "selector": "#price"}, {"type": "done", "summary": "read the price"}]}, "inbox": "support"}))]
pub struct RunBody {
    #[schema(schema_with = plan_or_text)]
    pub plan: Value,
    /// Caller variables for `{{NAME}}`.
    #[serde(default)]
    pub vars: BTreeMap<String, String>,
    /// The caller's own values for `{{secret.NAME}}` (the key is NAME), usable on any host
    /// of the run; masked in every answer.
    #[serde(default)]
    pub secrets: BTreeMap<String, String>,
    #[serde(default)]
    #[schema(schema_with = inbox_entries)]
    pub inbox: Inboxes,
    /// More hosts the run may visit, and private addresses it (and its inbox and webhook)
    /// may reach.
    #[serde(default)]
    pub allowed_hosts: Vec<String>,
    /// Where to POST the result, signed, when the run ends.
    #[serde(default)]
    #[schema(example = "https://hooks.example.com/planlock")]
    pub callback_url: Option<String>,
    /// A failed `should` step fails the run, as a `must` step does (by default it is a
    /// warning in the result's `warnings`).
    #[serde(default)]
    pub strict: bool,
}

/// `POST /v1/act`: a goal to plan, then run.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"goal": "sign up at https://shop.example with {{inbox_address}} and verify the email", "inbox": "support", "secrets": {"SHOP_PASSWORD": "correct horse"}}))]
pub struct ActBody {
    /// What to do, naming the site.
    pub goal: String,
    #[serde(default)]
    pub vars: BTreeMap<String, String>,
    #[serde(default)]
    pub secrets: BTreeMap<String, String>,
    #[serde(default)]
    #[schema(schema_with = inbox_entries)]
    pub inbox: Inboxes,
    #[serde(default)]
    pub allowed_hosts: Vec<String>,
    /// Ask the model even if a cached plan exists.
    #[serde(default)]
    pub no_cache: bool,
    /// Where to POST the result, signed, when the run ends.
    #[serde(default)]
    pub callback_url: Option<String>,
    /// A failed `should` step fails the run, as a `must` step does.
    #[serde(default)]
    pub strict: bool,
    /// Look at the goal's start page before planning (`true`, the default), or not
    /// (`false`: no page text reaches the model), or insist (`"required"`: an error when the
    /// page cannot be read).
    #[serde(default)]
    #[schema(schema_with = look_values)]
    pub look: LookField,
}

/// `look` in a request: `true` (the default), `false`, or `"required"`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LookField {
    #[default]
    Try,
    Blind,
    Required,
}

impl<'de> Deserialize<'de> for LookField {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<LookField, D::Error> {
        match Value::deserialize(d)? {
            Value::Bool(true) | Value::Null => Ok(LookField::Try),
            Value::Bool(false) => Ok(LookField::Blind),
            Value::String(s) if s == "required" => Ok(LookField::Required),
            other => Err(serde::de::Error::custom(format!(
                "`look` is true, false or \"required\", not {other}"
            ))),
        }
    }
}

impl LookField {
    pub fn choice(self) -> LookChoice {
        match self {
            LookField::Try => LookChoice::Try,
            LookField::Blind => LookChoice::Blind,
            LookField::Required => LookChoice::Required,
        }
    }
}

/// `POST /v1/plans`: a goal to plan; nothing runs.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"goal": "log in at shop.example with {{inbox_address}}", "inbox": "support"}))]
pub struct PlansBody {
    pub goal: String,
    /// Only the names are used: the plan may refer to them.
    #[serde(default)]
    pub vars: BTreeMap<String, String>,
    /// Only which inboxes would be bound matters here (the default one, and names).
    #[serde(default)]
    #[schema(schema_with = inbox_entries)]
    pub inbox: Inboxes,
    #[serde(default)]
    pub allowed_hosts: Vec<String>,
    #[serde(default)]
    pub no_cache: bool,
    /// Look at the goal's start page before planning (`true`, the default), or not
    /// (`false`), or insist (`"required"`: an error when the page cannot be read).
    #[serde(default)]
    #[schema(schema_with = look_values)]
    pub look: LookField,
    /// Answer with the exact request the model would get (no model call, no key needed).
    #[serde(default)]
    pub dry_run: bool,
}

/// The `look` tool: a page to outline as the planner would be shown it, for an agent that
/// writes the plan itself.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LookBody {
    /// The page to look at: an absolute http(s) URL. Give this or `goal`.
    #[serde(default, deserialize_with = "given")]
    pub url: Option<String>,
    /// Or the goal as `act` takes it: its first URL is the page looked at.
    #[serde(default, deserialize_with = "given")]
    pub goal: Option<String>,
    /// Caller variables: their values are masked where the page shows them.
    #[serde(default)]
    pub vars: BTreeMap<String, String>,
    /// The inboxes the run will bind (the outline's context names them).
    #[serde(default)]
    #[schema(schema_with = inbox_entries)]
    pub inbox: Inboxes,
    /// More hosts the run may visit; loopback and private addresses (127.0.0.1, localhost,
    /// 10.x) only when listed here.
    #[serde(default)]
    pub allowed_hosts: Vec<String>,
}

/// A string that is there when its field is (never `null`: one of two fields is given).
fn given<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    String::deserialize(d).map(Some)
}

/// The `validate_plan` tool: a plan to check as a run would read it, with nothing run.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckBody {
    /// The plan object `{reasoning, steps, questions?}`, or a string holding its JSON. Any
    /// value is read: what is wrong with it is the answer.
    #[schema(schema_with = any_plan)]
    pub plan: Value,
    #[serde(default)]
    pub vars: BTreeMap<String, String>,
    /// The values for `{{secret.NAME}}` the run will be given (the key is NAME).
    #[serde(default)]
    pub secrets: BTreeMap<String, String>,
    #[serde(default)]
    #[schema(schema_with = inbox_entries)]
    pub inbox: Inboxes,
    #[serde(default)]
    pub allowed_hosts: Vec<String>,
}

/// Caller variables from the request's `vars` object.
fn caller_vars(vars: &BTreeMap<String, String>) -> Result<Vars, ApiError> {
    let mut out = Vars::default();
    for (name, value) in vars {
        out.insert(name, value)?;
    }
    Ok(out)
}

/// Parses and validates `plan` (an object, or a string holding one): 422 with every problem.
fn plan_from(value: &Value, limits: &Limits, vars: &Vars) -> Result<Plan, ApiError> {
    let text = match value {
        Value::String(s) => s.clone(),
        Value::Object(_) => value.to_string(),
        other => {
            return Err(ApiError::new(
                ApiErrorKind::InvalidPlan,
                format!(
                    "`plan` must be a plan object {{\"reasoning\": ..., \"steps\": [...]}}, not {}",
                    plan::json_kind(other)
                ),
            ));
        }
    };
    Ok(plan::parse_and_validate(&text, limits, vars)?)
}

/// What a caller asks, whichever body it came in, its variables and inbox entries read: the
/// one shape the handlers work from. A body leaves out what its endpoint does not take (a plan
/// request brings no secrets, no callback).
pub struct Ask {
    pub vars: Vars,
    /// The variables as the caller gave them, to queue the run for another replica.
    pub given_vars: BTreeMap<String, String>,
    /// The `inbox` entries as the caller gave them, likewise.
    pub inbox_entries: Vec<String>,
    /// The caller's own secrets, names not yet checked (see [`Ask::secrets`]).
    pub secrets: BTreeMap<String, String>,
    pub inboxes: Vec<RequestInbox>,
    pub allowed_hosts: Vec<String>,
    pub callback_url: Option<String>,
    pub strict: bool,
    pub no_cache: bool,
    pub look: LookChoice,
}

impl RunBody {
    /// The plan, parsed and validated with the caller's variables, and what else is asked.
    pub fn read(self, state: &AppState) -> Result<(Plan, Ask), ApiError> {
        let vars = caller_vars(&self.vars)?;
        let plan = plan_from(&self.plan, state.limits(), &vars)?;
        let ask = Ask {
            secrets: self.secrets,
            callback_url: self.callback_url,
            strict: self.strict,
            ..Ask::bound(state, vars, &self.vars, &self.inbox, self.allowed_hosts)?
        };
        Ok((plan, ask))
    }
}

impl ActBody {
    /// The goal, and what else is asked.
    pub fn read(self, state: &AppState) -> Result<(String, Ask), ApiError> {
        let vars = caller_vars(&self.vars)?;
        let ask = Ask {
            secrets: self.secrets,
            callback_url: self.callback_url,
            strict: self.strict,
            no_cache: self.no_cache,
            look: self.look.choice(),
            ..Ask::bound(state, vars, &self.vars, &self.inbox, self.allowed_hosts)?
        };
        Ok((self.goal, ask))
    }
}

impl PlansBody {
    /// The goal, what else is asked, and whether only the model's request is wanted.
    pub fn read(self, state: &AppState) -> Result<(String, Ask, bool), ApiError> {
        let vars = caller_vars(&self.vars)?;
        let ask = Ask {
            no_cache: self.no_cache,
            look: self.look.choice(),
            ..Ask::bound(state, vars, &self.vars, &self.inbox, self.allowed_hosts)?
        };
        Ok((self.goal, ask, self.dry_run))
    }
}

impl LookBody {
    /// The goal to look for (a bare URL is a goal naming it), and what else is asked: the
    /// look is required, as the caller asked for nothing else.
    pub fn read(self, state: &AppState) -> Result<(String, Ask), ApiError> {
        let goal = match (self.url, self.goal) {
            (Some(url), None) => url,
            (None, Some(goal)) => goal,
            (Some(_), Some(_)) => {
                return Err(ApiError::new(
                    ApiErrorKind::InvalidRequest,
                    "give `url` or `goal`, not both",
                ));
            }
            (None, None) => {
                return Err(ApiError::new(
                    ApiErrorKind::InvalidRequest,
                    "give `url` (the page to look at) or `goal` (naming it)",
                ));
            }
        };
        let vars = caller_vars(&self.vars)?;
        let ask = Ask {
            look: LookChoice::Required,
            ..Ask::bound(state, vars, &self.vars, &self.inbox, self.allowed_hosts)?
        };
        Ok((goal, ask))
    }
}

impl CheckBody {
    /// The plan as given, and what else is asked. The plan is not read here: checking it
    /// is the point.
    pub fn read(self, state: &AppState) -> Result<(Value, Ask), ApiError> {
        if !(self.plan.is_object() || self.plan.is_string()) {
            return Err(ApiError::new(
                ApiErrorKind::InvalidRequest,
                format!(
                    "`plan` is a plan object or a string holding one, not {}",
                    plan::json_kind(&self.plan)
                ),
            ));
        }
        let vars = caller_vars(&self.vars)?;
        let ask = Ask {
            secrets: self.secrets,
            ..Ask::bound(state, vars, &self.vars, &self.inbox, self.allowed_hosts)?
        };
        Ok((self.plan, ask))
    }
}

/// Every problem of `plan` (an object, or a string holding one), as a run reads it.
pub fn plan_problems(
    value: &Value,
    limits: &Limits,
    vars: &Vars,
) -> Result<Plan, Vec<plan::Problem>> {
    plan_from(value, limits, vars).map_err(|e| {
        if e.problems.is_empty() {
            vec![plan::Problem::new("plan", e.message)]
        } else {
            e.problems
        }
    })
}

impl Ask {
    /// What every body asks: its variables, its inbox entries bound and its hosts; nothing
    /// else (no secrets, no callback, not strict, the cache used, no look) until the body
    /// says so.
    fn bound(
        state: &AppState,
        vars: Vars,
        given_vars: &BTreeMap<String, String>,
        inbox: &Inboxes,
        allowed_hosts: Vec<String>,
    ) -> Result<Ask, ApiError> {
        Ok(Ask {
            vars,
            given_vars: given_vars.clone(),
            inbox_entries: inbox.list(),
            secrets: BTreeMap::new(),
            inboxes: state.inboxes().parse(&inbox.list())?,
            allowed_hosts,
            callback_url: None,
            strict: false,
            no_cache: false,
            look: LookChoice::Blind,
        })
    }

    /// The request's own secrets (names checked here: letters, digits and `_`) over the
    /// server's bound ones.
    pub fn secrets(&self, state: &AppState) -> Result<Secrets, ApiError> {
        for name in self.secrets.keys() {
            let ok = !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit());
            if !ok {
                return Err(ApiError::new(
                    ApiErrorKind::InvalidVariables,
                    format!(
                        "secrets.{name}: a secret name is letters, digits and `_`, not starting \
                         with a digit"
                    ),
                ));
            }
        }
        Ok(state.secrets().clone().with_given(self.secrets.clone()))
    }
}

/// `plan`: the plan object (see `Plan`), or a string holding its JSON.
fn plan_or_text() -> impl Into<RefOr<Schema>> {
    use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Type};
    OneOfBuilder::new()
        .item(utoipa::openapi::Ref::from_schema_name("Plan"))
        .item(ObjectBuilder::new().schema_type(Type::String))
        .description(Some("The plan, or a string holding its JSON."))
}

/// `look`: exactly the values [`LookField`] reads (`null` is the default too).
fn look_values() -> impl Into<RefOr<Schema>> {
    use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Type};
    OneOfBuilder::new()
        .item(ObjectBuilder::new().schema_type(Type::Boolean))
        .item(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some(["required"])),
        )
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .description(Some(
            "`true` (the default): look at the start page first; `false`: no page text reaches \
             the model; `\"required\"`: an error when the page cannot be read.",
        ))
}

/// `plan` of `validate_plan`: any object or string.
fn any_plan() -> impl Into<RefOr<Schema>> {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Object, Type::String]))
        .description(Some(
            "The plan object {reasoning, steps, questions?}, or a string holding its JSON.",
        ))
}

/// `inbox`: one entry or a list of them.
fn inbox_entries() -> impl Into<RefOr<Schema>> {
    use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, OneOfBuilder, Type};
    let entry = || ObjectBuilder::new().schema_type(Type::String);
    OneOfBuilder::new()
        .item(entry())
        .item(ArrayBuilder::new().items(entry()))
        .description(Some(
            "The inboxes to bind: `NAME` of a server inbox (the default one), `BINDING=NAME` \
             for `inbox_id`, a mailbox URL if the server takes them, or a list.",
        ))
        .examples([json!("support"), json!(["support", "billing=sales"])])
}
