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
    /// Look at the goal's start page before planning (default), or not (`false`: no page
    /// text reaches the model), or insist (`"required"`: 422 when the page cannot be read).
    #[serde(default)]
    #[schema(value_type = Object)]
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
    /// As in `POST /v1/act`.
    #[serde(default)]
    #[schema(value_type = Object)]
    pub look: LookField,
    /// Answer with the exact request the model would get (no model call, no key needed).
    #[serde(default)]
    pub dry_run: bool,
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
            ..Ask::bound(state, vars, &self.inbox, self.allowed_hosts)?
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
            ..Ask::bound(state, vars, &self.inbox, self.allowed_hosts)?
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
            ..Ask::bound(state, vars, &self.inbox, self.allowed_hosts)?
        };
        Ok((self.goal, ask, self.dry_run))
    }
}

impl Ask {
    /// What every body asks: its variables, its inbox entries bound and its hosts; nothing
    /// else (no secrets, no callback, not strict, the cache used, no look) until the body
    /// says so.
    fn bound(
        state: &AppState,
        vars: Vars,
        inbox: &Inboxes,
        allowed_hosts: Vec<String>,
    ) -> Result<Ask, ApiError> {
        Ok(Ask {
            vars,
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

/// `inbox`: one entry or a list of them.
fn inbox_entries() -> impl Into<RefOr<Schema>> {
    use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, OneOfBuilder, Type};
    let entry = || {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .description(Some(
                "`[BINDING=]NAME`: one of the server's inboxes (unnamed: the default inbox); or \
                 `[BINDING=]URL` when the server allows request inboxes.",
            ))
    };
    OneOfBuilder::new()
        .item(entry())
        .item(ArrayBuilder::new().items(entry()))
        .description(Some("The inboxes to bind, chosen by name."))
        .examples([json!("support"), json!(["support", "billing=sales"])])
}
