//! What callers send: the bodies of `POST /v1/runs`, `/v1/act` and `/v1/plans` and of the MCP
//! tools. Each body is its own fields (the plan, the goal) and the [`Options`] the bodies
//! share, of which it takes those its endpoint uses. [`ReadBody::read`] reads them into the
//! [`Ask`] the handlers work from, and [`Ask::request`] makes the pipeline's [`Request`].
//!
//! A new option is a field of [`Options`] (its wire name, its type, its description), a line
//! in [`Fields::read`], its name in the `fields` of the `body!` declarations that take it,
//! and where the pipeline reads it ([`Ask::request`]).

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Value, json};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, Schema};
use utoipa::{PartialSchema, ToSchema};

use super::error::{ApiError, ApiErrorKind};
use super::inboxes::RequestInbox;
use super::state::AppState;
use crate::lock::AddressPolicy;
use crate::pipeline::{Reach, Request};
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

/// The options a request body may carry besides its plan or goal, each once: its wire name,
/// its default and its description. A body takes those its endpoint uses (its `FIELDS`); the
/// others keep their defaults.
#[derive(Debug, Clone, Default, ToSchema)]
pub struct Options {
    /// Caller variables for `{{NAME}}` (a model learns only their names).
    pub vars: BTreeMap<String, String>,
    /// Values for `{{secret.NAME}}` (the key is NAME), masked in every answer.
    pub secrets: BTreeMap<String, String>,
    #[schema(schema_with = inbox_entries)]
    pub inbox: Inboxes,
    /// More hosts the run may visit; private addresses (localhost, 10.x) only if listed.
    pub allowed_hosts: Vec<String>,
    /// Where to POST the result, signed, when the run ends.
    #[schema(example = "https://hooks.example.com/planlock")]
    pub callback_url: Option<String>,
    /// A failed `should` step fails the run, as a `must` step does.
    pub strict: bool,
    /// Ask the model even if a cached plan exists.
    pub no_cache: bool,
    #[schema(schema_with = look_values)]
    pub look: LookChoice,
}

/// Every field a request body may have, as read so far: the bodies' own fields and the
/// [`Options`].
#[derive(Default)]
struct Fields {
    plan: Option<Value>,
    goal: Option<String>,
    url: Option<String>,
    dry_run: bool,
    options: Options,
}

impl Fields {
    /// Reads the value of the field `name` (one of a body's `FIELDS`).
    fn read<'de, D: Deserializer<'de>>(&mut self, name: &str, value: D) -> Result<(), D::Error> {
        let o = &mut self.options;
        match name {
            "plan" => self.plan = Some(Value::deserialize(value)?),
            // Never `null`: a body takes a goal, or (`look`) one of a goal and a URL.
            "goal" => self.goal = Some(String::deserialize(value)?),
            "url" => self.url = Some(String::deserialize(value)?),
            "dry_run" => self.dry_run = bool::deserialize(value)?,
            "vars" => o.vars = BTreeMap::deserialize(value)?,
            "secrets" => o.secrets = BTreeMap::deserialize(value)?,
            "inbox" => o.inbox = Inboxes::deserialize(value)?,
            "allowed_hosts" => o.allowed_hosts = Vec::deserialize(value)?,
            "callback_url" => o.callback_url = Option::deserialize(value)?,
            "strict" => o.strict = bool::deserialize(value)?,
            "no_cache" => o.no_cache = bool::deserialize(value)?,
            "look" => o.look = LookChoice::deserialize(value)?,
            other => return Err(de::Error::custom(format!("no field `{other}` is read"))),
        }
        Ok(())
    }
}

/// A field that must be there.
fn required<T, E: de::Error>(value: Option<T>, name: &'static str) -> Result<T, E> {
    value.ok_or_else(|| E::missing_field(name))
}

/// A request body: the fields it takes, its own and the [`Options`] its endpoint uses, in the
/// order its schema and its errors list them.
trait Body: Sized {
    /// Its name in errors (`expected struct RunBody`).
    const NAME: &'static str;
    /// Its fields, in order.
    const FIELDS: &'static [&'static str];
    /// Its own fields that must be given.
    const REQUIRED: &'static [&'static str];
    /// What it is, in the API's document.
    const ABOUT: &'static str;
    /// The body from its fields (a required one missing is named).
    fn of<E: de::Error>(fields: Fields) -> Result<Self, E>;
    /// The schema of one of its own fields.
    fn own(name: &str) -> RefOr<Schema>;
    /// An example, in the API's document.
    fn example() -> Option<Value> {
        None
    }
}

/// Declares a request body: the struct (its own fields, then the [`Options`]) and its [`Body`]
/// impl, whose name in errors is the struct's, whose `ABOUT` is the first line of its doc, and
/// which reads its own fields from [`Fields`], a `required` one missing named. The body's own
/// fields' schema and its example follow as the impl's items.
macro_rules! body {
    (
        #[about = $about:literal]
        $(#[doc = $doc:literal])*
        pub struct $name:ident {
            required: { $($(#[doc = $rdoc:literal])* $req:ident: $rty:ty),* $(,)? },
            optional: { $($(#[doc = $odoc:literal])* $opt:ident: $oty:ty),* $(,)? },
            fields: [$($field:literal),* $(,)?],
        }
        $($item:tt)*
    ) => {
        #[doc = $about]
        $(#[doc = $doc])*
        #[derive(Debug)]
        pub struct $name {
            $($(#[doc = $rdoc])* pub $req: $rty,)*
            $($(#[doc = $odoc])* pub $opt: $oty,)*
            pub options: Options,
        }

        impl Body for $name {
            const NAME: &'static str = stringify!($name);
            const FIELDS: &'static [&'static str] = &[$($field),*];
            const REQUIRED: &'static [&'static str] = &[$(stringify!($req)),*];
            const ABOUT: &'static str = $about;
            fn of<E: de::Error>(f: Fields) -> Result<$name, E> {
                Ok($name {
                    $($req: required(f.$req, stringify!($req))?,)*
                    $($opt: f.$opt,)*
                    options: f.options,
                })
            }
            $($item)*
        }
    };
}

body! {
    #[about = "`POST /v1/runs`: a plan to replay."]
    pub struct RunBody {
        required: { plan: Value },
        optional: {},
        fields: ["plan", "vars", "secrets", "inbox", "allowed_hosts", "callback_url", "strict"],
    }
    fn own(_: &str) -> RefOr<Schema> {
        plan_or_text().into()
    }
    fn example() -> Option<Value> {
        Some(
            json!({"plan": {"reasoning": "", "steps": [{"type": "navigate", "url": "https://shop.example/"}, {"type": "extract_text", "describe": "the price", "selector": "#price"}, {"type": "done", "summary": "read the price"}]}, "inbox": "support"}),
        )
    }
}

body! {
    #[about = "`POST /v1/act`: a goal to plan, then run."]
    pub struct ActBody {
        required: { goal: String },
        optional: {},
        fields: [
            "goal",
            "vars",
            "secrets",
            "inbox",
            "allowed_hosts",
            "no_cache",
            "callback_url",
            "strict",
            "look",
        ],
    }
    fn own(_: &str) -> RefOr<Schema> {
        string("What to do, naming the site.")
    }
    fn example() -> Option<Value> {
        Some(
            json!({"goal": "sign up at https://shop.example with {{inbox_address}} and verify the email", "inbox": "support", "secrets": {"SHOP_PASSWORD": "correct horse"}}),
        )
    }
}

body! {
    #[about = "`POST /v1/plans`: a goal to plan; nothing runs."]
    pub struct PlansBody {
        required: { goal: String },
        optional: {
            /// Answer with the exact request the model would get (no model call, no key needed).
            dry_run: bool,
        },
        fields: ["goal", "vars", "inbox", "allowed_hosts", "no_cache", "look", "dry_run"],
    }
    fn own(name: &str) -> RefOr<Schema> {
        match name {
            "dry_run" => ObjectBuilder::new()
                .schema_type(utoipa::openapi::Type::Boolean)
                .description(Some(
                    "Answer with the exact request the model would get (no model call, no key \
                     needed).",
                ))
                .into(),
            _ => string("What to do, naming the site."),
        }
    }
    fn example() -> Option<Value> {
        Some(json!({"goal": "log in at shop.example with {{inbox_address}}", "inbox": "support"}))
    }
}

body! {
    #[about = "The `look` tool: a page to outline as the planner would be shown it, for an \
               agent that writes the plan itself."]
    /// `url` or `goal`, one of them.
    pub struct LookBody {
        required: {},
        optional: { url: Option<String>, goal: Option<String> },
        fields: ["url", "goal", "vars", "inbox", "allowed_hosts"],
    }
    fn own(name: &str) -> RefOr<Schema> {
        match name {
            "url" => string("The page to look at: an absolute http(s) URL. Give this or `goal`."),
            _ => string("Or the goal as `act` takes it: its first URL is the page looked at."),
        }
    }
}

body! {
    #[about = "The `validate_plan` tool: a plan to check as a run would read it, with nothing \
               run."]
    pub struct CheckBody {
        required: { plan: Value },
        optional: {},
        fields: ["plan", "vars", "secrets", "inbox", "allowed_hosts"],
    }
    fn own(_: &str) -> RefOr<Schema> {
        any_plan().into()
    }
}

/// A string field.
fn string(description: &str) -> RefOr<Schema> {
    ObjectBuilder::new()
        .schema_type(utoipa::openapi::Type::String)
        .description(Some(description))
        .into()
}

/// Reads a body of `B`'s fields: an object (or, as serde reads a struct, an array of them in
/// order), an unknown field, a field given twice or a required one missing refused with
/// serde's own words.
struct BodyVisitor<B>(PhantomData<B>);

impl<'de, B: Body> Visitor<'de> for BodyVisitor<B> {
    type Value = B;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "struct {}", B::NAME)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<B, A::Error> {
        let mut fields = Fields::default();
        let mut seen: Vec<&'static str> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let Some(&name) = B::FIELDS.iter().find(|f| **f == key) else {
                return Err(de::Error::unknown_field(&key, B::FIELDS));
            };
            if seen.contains(&name) {
                return Err(de::Error::duplicate_field(name));
            }
            seen.push(name);
            map.next_value_seed(Field {
                name,
                fields: &mut fields,
            })?;
        }
        B::of(fields)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<B, A::Error> {
        let mut fields = Fields::default();
        for (i, &name) in B::FIELDS.iter().enumerate() {
            let read = seq.next_element_seed(Field {
                name,
                fields: &mut fields,
            })?;
            if read.is_none() {
                if let Some(missing) = B::FIELDS[i..].iter().position(|f| B::REQUIRED.contains(f)) {
                    let expected = format!("struct {} with {} elements", B::NAME, B::FIELDS.len());
                    return Err(de::Error::invalid_length(i + missing, &expected.as_str()));
                }
                break;
            }
        }
        B::of(fields)
    }
}

/// One field's value, read into [`Fields`].
struct Field<'a> {
    name: &'static str,
    fields: &'a mut Fields,
}

impl<'de> DeserializeSeed<'de> for Field<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, value: D) -> Result<(), D::Error> {
        self.fields.read(self.name, value)
    }
}

/// A body's schema: its fields in order, its own ones' and those of [`Options`], no others.
fn body_schema<B: Body>() -> RefOr<Schema> {
    let shared = match Options::schema() {
        RefOr::T(Schema::Object(o)) => o.properties,
        _ => Default::default(),
    };
    // `example`, not `examples`: as the derived schemas of the other types have it.
    #[allow(deprecated)]
    let mut object = ObjectBuilder::new()
        .description(Some(B::ABOUT))
        .additional_properties(Some(AdditionalProperties::<Schema>::FreeForm(false)))
        .example(B::example());
    for &name in B::FIELDS {
        let property = match shared.get(name) {
            Some(p) => p.clone(),
            None => B::own(name),
        };
        object = object.property(name, property);
    }
    for &name in B::REQUIRED {
        object = object.required(name);
    }
    Schema::Object(object.build()).into()
}

macro_rules! request_bodies {
    ($($body:ty),*) => {$(
        impl<'de> Deserialize<'de> for $body {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$body, D::Error> {
                d.deserialize_struct(
                    <$body as Body>::NAME,
                    <$body as Body>::FIELDS,
                    BodyVisitor::<$body>(PhantomData),
                )
            }
        }

        impl PartialSchema for $body {
            fn schema() -> RefOr<Schema> {
                body_schema::<$body>()
            }
        }

        impl ToSchema for $body {}
    )*};
}

request_bodies!(RunBody, ActBody, PlansBody, LookBody, CheckBody);

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

/// What a caller asks, whichever body it came in: the [`Options`] as given (as a queued run
/// is handed to another replica), its variables read and its inbox entries bound. The one
/// shape the handlers work from.
pub struct Ask {
    pub options: Options,
    pub vars: Vars,
    pub inboxes: Vec<RequestInbox>,
}

impl Options {
    /// The options read, their variables already (`vars`): the inbox entries bound to the
    /// server's inboxes.
    fn read(self, state: &AppState, vars: Vars) -> Result<Ask, ApiError> {
        Ok(Ask {
            inboxes: state.inboxes().parse(&self.inbox.list())?,
            vars,
            options: self,
        })
    }
}

/// A body read against the server: its variables, its inbox entries bound, and (a plan) the
/// plan parsed. The HTTP handlers and the MCP tools work from what it reads.
pub trait ReadBody: de::DeserializeOwned {
    /// What its handler works from.
    type Read;
    /// Reads the body; a caller's mistake is a 4xx [`ApiError`] naming it.
    fn read(self, state: &AppState) -> Result<Self::Read, ApiError>;
}

impl ReadBody for RunBody {
    type Read = (Plan, Ask);

    /// The plan, parsed and validated with the caller's variables, and what else is asked.
    fn read(self, state: &AppState) -> Result<Self::Read, ApiError> {
        let vars = caller_vars(&self.options.vars)?;
        let plan = plan_from(&self.plan, state.limits(), &vars)?;
        Ok((plan, self.options.read(state, vars)?))
    }
}

impl ReadBody for ActBody {
    type Read = (String, Ask);

    /// The goal, and what else is asked.
    fn read(self, state: &AppState) -> Result<Self::Read, ApiError> {
        let vars = caller_vars(&self.options.vars)?;
        Ok((self.goal, self.options.read(state, vars)?))
    }
}

impl ReadBody for PlansBody {
    type Read = (String, Ask, bool);

    /// The goal, what else is asked, and whether only the model's request is wanted.
    fn read(self, state: &AppState) -> Result<Self::Read, ApiError> {
        let vars = caller_vars(&self.options.vars)?;
        Ok((self.goal, self.options.read(state, vars)?, self.dry_run))
    }
}

impl ReadBody for LookBody {
    type Read = (String, Ask);

    /// The goal to look for (a bare URL is a goal naming it), and what else is asked: the
    /// look is required, as the caller asked for nothing else.
    fn read(self, state: &AppState) -> Result<Self::Read, ApiError> {
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
        let vars = caller_vars(&self.options.vars)?;
        let options = Options {
            look: LookChoice::Required,
            ..self.options
        };
        Ok((goal, options.read(state, vars)?))
    }
}

impl ReadBody for CheckBody {
    type Read = (Value, Ask);

    /// The plan as given, and what else is asked. The plan is not read here: checking it
    /// is the point.
    fn read(self, state: &AppState) -> Result<Self::Read, ApiError> {
        if !(self.plan.is_object() || self.plan.is_string()) {
            return Err(ApiError::new(
                ApiErrorKind::InvalidRequest,
                format!(
                    "`plan` is a plan object or a string holding one, not {}",
                    plan::json_kind(&self.plan)
                ),
            ));
        }
        let vars = caller_vars(&self.options.vars)?;
        Ok((self.plan, self.options.read(state, vars)?))
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
    /// The pipeline's request for `goal`: its lock under the service's address rule, never
    /// reaching the service itself; its secrets the request's own over the server's.
    pub fn request(&self, state: &AppState, goal: String) -> Result<Request, ApiError> {
        let o = &self.options;
        Ok(Request {
            goal,
            vars: self.vars.clone(),
            secrets: self.secrets(state)?,
            inboxes: self.inboxes.iter().map(|(name, _)| name.clone()).collect(),
            reach: Reach {
                allowed_hosts: o.allowed_hosts.clone(),
                policy: AddressPolicy::Service,
                service_addresses: state.listen_addresses(),
            },
            limits: state.limits().clone(),
            no_cache: o.no_cache,
            look: o.look,
            ..Request::default()
        })
    }

    /// The request's own secrets (names checked here: letters, digits and `_`) over the
    /// server's bound ones.
    pub fn secrets(&self, state: &AppState) -> Result<Secrets, ApiError> {
        for name in self.options.secrets.keys() {
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
        Ok(state
            .secrets()
            .clone()
            .with_given(self.options.secrets.clone()))
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

/// `look`: exactly the values [`LookChoice`] reads (`null` is the default too).
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

#[cfg(test)]
mod tests;
