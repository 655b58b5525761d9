//! What callers send: the JSON bodies, read with a size bound, and the API's wording of
//! everything the library refuses in them (plan, variables, inboxes, the lock).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Weak};

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use utoipa::ToSchema;

use super::AppState;
use super::error::ApiError;
use crate::inbox::{Caller, Inbox, InboxError, InboxUrl, connect, parse_binding_as};
use crate::lock::{LockError, check_service_host};
use crate::plan::{self, Limits, Plan, Vars, VarsError};
use crate::runner::{Binding, Secrets, SpecError};

/// A JSON body read with the server's size bound. Only `Content-Type: application/json`
/// is read (415 otherwise); malformed JSON and bodies of the wrong shape are 400; a body over
/// the bound is 413.
pub struct JsonBody<T>(pub T);

impl<T: DeserializeOwned> FromRequest<AppState> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, ApiError> {
        super::guard::check_json_content_type(req.headers())?;
        let timeout = state.read_timeout();
        let read = tokio::time::timeout(timeout, Bytes::from_request(req, state)).await;
        let read = read.map_err(|_| {
            ApiError::new(
                StatusCode::REQUEST_TIMEOUT,
                "body_timeout",
                format!(
                    "the request body did not arrive within {} s; send it whole, at once",
                    timeout.as_secs_f64()
                ),
            )
        })?;
        let bytes = read.map_err(|r| {
            if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "body_too_large",
                    format!(
                        "the request body is larger than this server accepts ({}); plans are \
                         small, so check what is being sent",
                        human_bytes(state.body_limit())
                    ),
                )
            } else {
                ApiError::bad_request(
                    "unreadable_body",
                    format!("cannot read the request body: {}", r.body_text()),
                )
            }
        })?;
        // Some clients (PowerShell, editors on Windows) start UTF-8 with a byte-order mark; it
        // is not part of the JSON.
        let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&bytes);
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(ApiError::bad_request(
                "malformed_json",
                "the request body is empty: send a JSON object, e.g. {\"plan\": {...}}",
            ));
        }
        if let Ok(text) = std::str::from_utf8(bytes) {
            refuse_duplicate_keys(text)?;
        }
        serde_json::from_slice(bytes).map(JsonBody).map_err(|e| {
            use serde_json::error::Category;
            match e.classify() {
                Category::Syntax | Category::Eof | Category::Io => ApiError::bad_request(
                    "malformed_json",
                    format!("the request body is not valid JSON: {e}"),
                ),
                Category::Data => ApiError::bad_request(
                    "invalid_request",
                    format!("the request body is JSON but not a valid request: {e}"),
                ),
            }
        })
    }
}

/// A key given twice in one object is refused, as in a plan file: whoever reviewed the
/// request read one value, and the server would use the other. Inside `plan` it is the plan's
/// problem (422, with paths as in the plan); anywhere else the request's (400).
fn refuse_duplicate_keys(text: &str) -> Result<(), ApiError> {
    let mut in_plan = Vec::new();
    for problem in plan::duplicate_keys(text) {
        match problem.path.strip_prefix("plan.").map(str::to_string) {
            Some(path) => in_plan.push(plan::Problem { path, ..problem }),
            None => {
                return Err(ApiError::bad_request(
                    "invalid_request",
                    format!("the request body is not a valid request: {problem}"),
                ));
            }
        }
    }
    if in_plan.is_empty() {
        Ok(())
    } else {
        Err(plan::PlanError::Invalid(in_plan).into())
    }
}

fn human_bytes(n: usize) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else if n >= 1 << 10 && n.is_multiple_of(1 << 10) {
        format!("{} KiB", n >> 10)
    } else {
        format!("{n} bytes")
    }
}

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
    #[schema(schema_with = super::openapi::plan_or_text)]
    pub plan: Value,
    /// Caller variables for `{{NAME}}`.
    #[serde(default)]
    pub vars: BTreeMap<String, String>,
    /// The caller's own values for `{{secret.NAME}}` (the key is NAME), usable on any host
    /// of the run; masked in every answer.
    #[serde(default)]
    pub secrets: BTreeMap<String, String>,
    #[serde(default)]
    #[schema(schema_with = super::openapi::inbox_entries)]
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
    #[schema(schema_with = super::openapi::inbox_entries)]
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
    pub fn choice(self) -> crate::planner::LookChoice {
        match self {
            LookField::Try => crate::planner::LookChoice::Try,
            LookField::Blind => crate::planner::LookChoice::Blind,
            LookField::Required => crate::planner::LookChoice::Required,
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
    #[schema(schema_with = super::openapi::inbox_entries)]
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
pub fn caller_vars(vars: &BTreeMap<String, String>) -> Result<Vars, ApiError> {
    let mut out = Vars::default();
    for (name, value) in vars {
        out.insert(name, value)?;
    }
    Ok(out)
}

/// Parses and validates `plan` (an object, or a string holding one): 422 with every problem.
pub fn plan_from(value: &Value, limits: &Limits, vars: &Vars) -> Result<Plan, ApiError> {
    let text = match value {
        Value::String(s) => s.clone(),
        Value::Object(_) => value.to_string(),
        other => {
            return Err(ApiError::unprocessable(
                "invalid_plan",
                format!(
                    "`plan` must be a plan object {{\"reasoning\": ..., \"steps\": [...]}}, not {}",
                    plan::json_kind(other)
                ),
            ));
        }
    };
    Ok(plan::parse_and_validate(&text, limits, vars)?)
}

/// Where a request's inbox comes from.
#[derive(Clone)]
pub enum InboxSource {
    /// One of the server's inboxes, by name.
    Server(String),
    /// A mailbox URL the request brings (only with `--allow-request-inboxes`).
    Url(InboxUrl),
}

/// A request's inbox binding: the name steps use (`None`: the default inbox) and its source.
pub type RequestInbox = (Option<String>, InboxSource);

/// Parses `inbox` entries, `[BINDING=]NAME` (a server inbox) or `[BINDING=]URL`: binding
/// names are unique and at most one is unnamed. Nothing is connected yet.
pub fn parse_bindings(state: &AppState, list: &[String]) -> Result<Vec<RequestInbox>, ApiError> {
    let mut out: Vec<RequestInbox> = Vec::new();
    for (i, s) in list.iter().enumerate() {
        let (name, source) = if s.contains("://") {
            if !state.allows_request_inboxes() {
                return Err(ApiError::unprocessable(
                    "invalid_inbox",
                    format!(
                        "inbox[{i}]: this server does not take mailbox URLs from requests (it \
                         would connect wherever a caller says): choose one of its inboxes by \
                         name{}, or start it with planlock serve --allow-request-inboxes",
                        state.inbox_names_phrase()
                    ),
                ));
            }
            let (name, url) =
                parse_binding_as(s, Caller::Service).map_err(|e| inbox_error(e).at(inbox_at(i)))?;
            (name, InboxSource::Url(url))
        } else {
            let (name, inbox) = match s.split_once('=') {
                Some((binding, inbox)) => (Some(binding.trim().to_string()), inbox.trim()),
                None => (None, s.trim()),
            };
            if !state.has_inbox(inbox) {
                return Err(ApiError::unprocessable(
                    "invalid_inbox",
                    format!(
                        "inbox[{i}]: this server has no inbox named `{inbox}`{}",
                        state.inbox_names_phrase()
                    ),
                ));
            }
            if let Some(b) = &name
                && (b.is_empty()
                    || !b
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            {
                return Err(ApiError::unprocessable(
                    "invalid_inbox",
                    format!(
                        "inbox[{i}]: `{b}` is not an inbox name (letters, digits, `_` and `-`)"
                    ),
                ));
            }
            (name, InboxSource::Server(inbox.to_string()))
        };
        if out.iter().any(|(n, _)| *n == name) {
            return Err(ApiError::unprocessable(
                "invalid_inbox",
                match &name {
                    Some(n) => format!("inbox[{i}]: the inbox name `{n}` is given twice"),
                    None => format!(
                        "inbox[{i}]: two unnamed inboxes: name all but one, e.g. \"work=NAME\""
                    ),
                },
            ));
        }
        out.push((name, source));
    }
    Ok(out)
}

/// `inbox[i]`: where in the request an inbox came from.
fn inbox_at(i: usize) -> String {
    format!("inbox[{i}]")
}

/// An inbox error in the API's words, to be said of the entry it came from: a URL that is
/// wrong is the caller's (422, the problem without the URL, which the caller sent); a
/// mailbox that cannot be reached is the environment's (503).
fn inbox_error(e: InboxError) -> ApiError {
    match e {
        InboxError::InvalidUrl { problem, .. } => {
            ApiError::unprocessable("invalid_inbox", problem.to_string())
        }
        other => ApiError::unavailable("inbox_unavailable", other.to_string()),
    }
}

/// The embedded SMTP receivers of the server, one per fixed address, shared by the runs that
/// name it (two requests naming `smtp://127.0.0.1:2525` cannot both listen on it). A receiver
/// stops when the last run using it ends.
#[derive(Default)]
pub struct SmtpReceivers {
    live: tokio::sync::Mutex<HashMap<String, Weak<dyn Inbox>>>,
}

impl SmtpReceivers {
    async fn connect(&self, url: &InboxUrl) -> Result<Arc<dyn Inbox>, InboxError> {
        let key = match url {
            InboxUrl::Smtp(u) if u.listen.port() != 0 => u.to_string(),
            _ => return connect(url).await,
        };
        // Held across the bind, so two requests cannot race for the same port.
        let mut live = self.live.lock().await;
        if let Some(inbox) = live.get(&key).and_then(Weak::upgrade) {
            return Ok(inbox);
        }
        let inbox = connect(url).await?;
        live.retain(|_, w| w.strong_count() > 0);
        live.insert(key, Arc::downgrade(&inbox));
        Ok(inbox)
    }
}

/// Binds every inbox of the request: a server inbox is shared as it is; a request's IMAP
/// server is judged by the address rule pages follow (a private address only when
/// `allowed_hosts` names it), then bound (it connects lazily); an embedded receiver starts
/// listening on loopback. Whether each can be reached is [`check_inboxes`]' question, asked
/// once the request is known to be valid.
pub async fn connect_inboxes(
    state: &AppState,
    bindings: &[RequestInbox],
    allowed_hosts: &[String],
) -> Result<Vec<Binding>, ApiError> {
    let mut out = Vec::new();
    for (i, (name, source)) in bindings.iter().enumerate() {
        let inbox = match source {
            InboxSource::Server(server_name) => state
                .server_inbox(server_name)
                .ok_or_else(|| ApiError::internal(format!("inbox {server_name} vanished")))?,
            InboxSource::Url(url) => {
                let mut url = url.clone();
                if let InboxUrl::Imap(imap) = &mut url {
                    // Connect to the addresses judged here, not to a fresh lookup of the name.
                    imap.connect_to = check_service_host(&imap.host, imap.port, allowed_hosts)
                        .await
                        .map_err(|e| ApiError::from(e).at(inbox_at(i)))?;
                }
                state
                    .smtp()
                    .connect(&url)
                    .await
                    .map_err(|e| inbox_error(e).at(inbox_at(i)))?
            }
        };
        out.push((name.clone(), inbox));
    }
    Ok(out)
}

/// 503 when a bound inbox cannot be reached or logged into.
pub async fn check_inboxes(inboxes: &[Binding]) -> Result<(), ApiError> {
    for (_, inbox) in inboxes {
        inbox.check().await.map_err(|e| {
            ApiError::unavailable(
                "inbox_unavailable",
                format!("the inbox {} is unreachable: {e}", inbox.describe()),
            )
        })?;
    }
    Ok(())
}

/// The request's own secrets (names checked here: letters, digits and `_`) over the
/// server's bound ones.
pub fn request_secrets(
    state: &AppState,
    secrets: &BTreeMap<String, String>,
) -> Result<Secrets, ApiError> {
    for name in secrets.keys() {
        let ok = !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit());
        if !ok {
            return Err(ApiError::unprocessable(
                "invalid_variables",
                format!(
                    "secrets.{name}: a secret name is letters, digits and `_`, not starting \
                     with a digit"
                ),
            ));
        }
    }
    Ok(state.secrets().clone().with_given(secrets.clone()))
}

/// A caller variable as the request gives it: `vars.NAME`, and how to give one.
impl From<VarsError> for ApiError {
    fn from(e: VarsError) -> ApiError {
        let message = match &e {
            VarsError::BadVar { name, problem } => format!("vars.{name}: {problem}"),
            VarsError::Unknown(_) => format!("{e}: give it in `vars`"),
            VarsError::MissingSecret(name) => format!(
                "{e}: give it in the request's `secrets`, or declare it on the server \
                 (planlock serve --secret {name}@HOST with PLANLOCK_SECRET_{name} set)"
            ),
            other => other.to_string(),
        };
        ApiError::unprocessable("invalid_variables", message)
    }
}

/// A request that cannot become a run, in the API's words (its fields).
impl From<SpecError> for ApiError {
    fn from(e: SpecError) -> ApiError {
        match e {
            SpecError::Variable(v) => v.into(),
            SpecError::NavigateUrl { step, problem, .. } => {
                plan::PlanError::Invalid(vec![plan::Problem::new(
                    format!("steps[{step}].url"),
                    problem,
                )])
                .into()
            }
            SpecError::Lock(e) => e.into(),
            e @ SpecError::SecretOutsideLock { .. } => {
                ApiError::unprocessable("secret_not_allowed", e.to_string())
            }
            e @ SpecError::NoInboxAddress { .. } => ApiError::unprocessable(
                "invalid_inbox",
                format!("{e}: pass `inbox`, the name of one of this server's inboxes"),
            ),
            SpecError::UnboundInbox {
                step,
                step_type,
                inbox,
            } => ApiError::unprocessable(
                "invalid_inbox",
                match &inbox {
                    Some(n) => format!(
                        "steps[{step}].inbox_id: no inbox named \"{n}\" is bound: add \"{n}=URL\" \
                         to `inbox`"
                    ),
                    None => format!(
                        "steps[{step}] ({step_type}) reads email, but no inbox is bound: pass \
                         `inbox` (imap://USER:PASS@HOST:PORT/INBOX?address=ADDR, or \
                         smtp://127.0.0.1:2525?domain=DOMAIN)"
                    ),
                },
            ),
        }
    }
}

/// A lock error in the API's words.
impl From<LockError> for ApiError {
    fn from(e: LockError) -> ApiError {
        match &e {
            LockError::NotAHost { .. } => {
                ApiError::unprocessable("invalid_allowed_hosts", format!("allowed_hosts: {e}"))
            }
            LockError::PrivateAddress { ip, .. } => ApiError::unprocessable(
                "lock_refused",
                format!("{e} To let this run visit it, add \"{ip}\" to `allowed_hosts`."),
            ),
            _ => ApiError::unprocessable("lock_refused", e.to_string()),
        }
    }
}
