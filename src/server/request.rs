//! What callers send: the JSON bodies, read with a size bound, and everything checked and
//! built from them before a run starts (plan, variables, inboxes, the lock).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::net::IpAddr;
use std::sync::{Arc, Weak};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::AppState;
use super::error::ApiError;
use crate::inbox::{Inbox, InboxError};
use crate::inbox::{InboxUrl, connect, parse_binding};
use crate::lock::{Lock, hosts_in_text, is_private};
use crate::plan::{self, Limits, Plan, SECRET_ENV_PREFIX, Step, Template, Vars};

/// How long a host name may take to resolve when the private-address rule is checked.
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(2);

/// A JSON body read with the server's size bound. Malformed JSON and bodies of the wrong
/// shape are 400; a body over the bound is 413. The `Content-Type` is not required.
pub struct JsonBody<T>(pub T);

impl<T: DeserializeOwned> FromRequest<AppState> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, ApiError> {
        let bytes = Bytes::from_request(req, state).await.map_err(|r| {
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
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(ApiError::bad_request(
                "malformed_json",
                "the request body is empty: send a JSON object, e.g. {\"plan\": {...}}",
            ));
        }
        serde_json::from_slice(&bytes).map(JsonBody).map_err(|e| {
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

fn human_bytes(n: usize) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else if n >= 1 << 10 && n.is_multiple_of(1 << 10) {
        format!("{} KiB", n >> 10)
    } else {
        format!("{n} bytes")
    }
}

/// `inbox`: one `[NAME=]URL` or a list of them, as `--inbox` takes.
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

/// `POST /v1/runs`
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunBody {
    /// The plan as a JSON object (or a string holding one).
    pub plan: Value,
    #[serde(default)]
    pub vars: BTreeMap<String, String>,
    #[serde(default)]
    pub secrets: BTreeMap<String, String>,
    #[serde(default)]
    pub inbox: Inboxes,
    #[serde(default)]
    pub allowed_hosts: Vec<String>,
}

/// `POST /v1/act`
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActBody {
    pub goal: String,
    #[serde(default)]
    pub vars: BTreeMap<String, String>,
    #[serde(default)]
    pub secrets: BTreeMap<String, String>,
    #[serde(default)]
    pub inbox: Inboxes,
    #[serde(default)]
    pub allowed_hosts: Vec<String>,
    #[serde(default)]
    pub no_cache: bool,
}

/// `POST /v1/plans`
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlansBody {
    pub goal: String,
    #[serde(default)]
    pub vars: BTreeMap<String, String>,
    /// Only which inboxes would be bound matters here (the default one, and names).
    #[serde(default)]
    pub inbox: Inboxes,
    #[serde(default)]
    pub allowed_hosts: Vec<String>,
    #[serde(default)]
    pub no_cache: bool,
}

/// Caller variables from the request's `vars` object.
pub fn caller_vars(vars: &BTreeMap<String, String>) -> Result<Vars, ApiError> {
    let mut out = Vars::default();
    for (name, value) in vars {
        out.insert(name, value).map_err(|e| {
            ApiError::unprocessable("invalid_variables", format!("vars.{name}: {e}"))
        })?;
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
                    json_type(other)
                ),
            ));
        }
    };
    plan::parse_and_validate(&text, limits, vars).map_err(|e| ApiError::invalid_plan(&e))
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Parsed inbox bindings: names are unique, at most one is unnamed.
pub fn parse_bindings(list: &[String]) -> Result<Vec<(Option<String>, InboxUrl)>, ApiError> {
    let mut out: Vec<(Option<String>, InboxUrl)> = Vec::new();
    for (i, s) in list.iter().enumerate() {
        let (name, url) = parse_binding(s).map_err(|e| {
            ApiError::unprocessable("invalid_inbox", format!("inbox[{i}]: {}", server_words(&e)))
        })?;
        if out.iter().any(|(n, _)| *n == name) {
            return Err(ApiError::unprocessable(
                "invalid_inbox",
                match &name {
                    Some(n) => format!("inbox[{i}]: the inbox name `{n}` is given twice"),
                    None => format!(
                        "inbox[{i}]: two unnamed inboxes: name all but one, e.g. \"work=imap://…\""
                    ),
                },
            ));
        }
        out.push((name, url));
    }
    Ok(out)
}

/// Inbox messages are written for the command line; here the field is `inbox`.
fn server_words(e: &InboxError) -> String {
    e.to_string().replace("--inbox ", "inbox ")
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

/// Connects every binding and checks it can be reached (503 when not), then checks that
/// every inbox step of the plan names a bound inbox (422).
pub async fn bind_inboxes(
    state: &AppState,
    bindings: &[(Option<String>, InboxUrl)],
    plan: &Plan,
) -> Result<Vec<(Option<String>, Arc<dyn Inbox>)>, ApiError> {
    for (i, step) in plan.steps.iter().enumerate() {
        if let Some(id) = step.inbox() {
            let id = id.map(str::to_string);
            if !bindings.iter().any(|(n, _)| *n == id) {
                return Err(ApiError::unprocessable(
                    "invalid_inbox",
                    match &id {
                        Some(n) => format!(
                            "steps[{i}].inbox_id: no inbox named \"{n}\" is bound: add \
                             \"{n}=URL\" to `inbox`"
                        ),
                        None => format!(
                            "steps[{i}] ({}) reads email, but no inbox is bound: pass `inbox` \
                             (imap://USER:PASS@HOST:PORT/INBOX?address=ADDR, or \
                             smtp://127.0.0.1:2525?domain=DOMAIN)",
                            step.kind()
                        ),
                    },
                ));
            }
        }
    }
    let mut out = Vec::new();
    for (name, url) in bindings {
        let inbox = state.smtp().connect(url).await.map_err(|e| match e {
            InboxError::InvalidUrl(m) => ApiError::unprocessable("invalid_inbox", m),
            InboxError::Unreachable(m) => ApiError::unavailable("inbox_unavailable", m),
        })?;
        inbox.check().await.map_err(|e| {
            ApiError::unavailable(
                "inbox_unavailable",
                format!("the inbox {} is unreachable: {e}", inbox.describe()),
            )
        })?;
        out.push((name.clone(), inbox));
    }
    Ok(out)
}

/// Loads the plan's `{{secret.NAME}}` values: from the request's `secrets`, else from the
/// server's environment (`PLANLOCK_SECRET_NAME`).
pub fn load_secrets(
    vars: &mut Vars,
    plan: &Plan,
    secrets: &BTreeMap<String, String>,
) -> Result<(), ApiError> {
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
    let names = variable_names(plan);
    vars.load_secrets(names.iter().map(String::as_str), |key| {
        key.strip_prefix(SECRET_ENV_PREFIX)
            .and_then(|name| secrets.get(name).cloned())
            .or_else(|| std::env::var(key).ok())
    })
    .map_err(|e| {
        ApiError::unprocessable(
            "invalid_variables",
            format!("{e} on the server, or pass it in the request's `secrets`"),
        )
    })
}

fn variable_names(plan: &Plan) -> Vec<String> {
    plan.steps
        .iter()
        .flat_map(|s| {
            s.strings()
                .into_iter()
                .map(|(_, v)| v.clone())
                .collect::<Vec<_>>()
        })
        .filter_map(|s| Template::parse(&s).ok())
        .flat_map(|t| t.variables().map(str::to_string).collect::<Vec<_>>())
        .collect()
}

/// Builds the run's lock from the request alone, in server mode: the goal's and plan's hosts
/// plus `allowed_hosts`, refusing private, loopback and link-local addresses unless they are
/// listed in `allowed_hosts` themselves. A plan or goal naming such an address (or a host
/// name that resolves to one) is refused before anything runs.
pub async fn server_lock(
    goal: Option<&str>,
    plan: &Plan,
    vars: &Vars,
    allowed_hosts: &[String],
) -> Result<Lock, ApiError> {
    let bad_host = |e: crate::lock::LockError| {
        ApiError::unprocessable(
            "invalid_allowed_hosts",
            e.to_string().replace("--allow-host", "allowed_hosts:"),
        )
    };
    // Hosts come from navigate URLs with caller variables filled in (never run-time text).
    let mut navigate_hosts = Vec::new();
    let steps = plan
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| match s {
            Step::Navigate { url } => {
                let url = Template::parse(url)
                    .ok()
                    .and_then(|t| t.render(vars).ok())
                    .unwrap_or_else(|| url.clone());
                if let Err(e) = plan::check_navigate_url(&url) {
                    return Err(ApiError::invalid_plan(&plan::PlanError::Invalid(vec![
                        plan::Problem {
                            path: format!("steps[{i}].url"),
                            message: e,
                        },
                    ])));
                }
                if let Ok(u) = url::Url::parse(&url)
                    && let Some(h) = u.host_str()
                {
                    navigate_hosts.push(h.to_string());
                }
                Ok(Step::Navigate { url })
            }
            other => Ok(other.clone()),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let resolved = Plan {
        steps,
        ..plan.clone()
    };
    let full = Lock::from_request(goal, &resolved, allowed_hosts).map_err(bad_host)?;
    let explicit = Lock::of_hosts(allowed_hosts).map_err(bad_host)?;
    let explicit: BTreeSet<String> = explicit.sites().map(str::to_string).collect();
    let allowed_by_name: BTreeSet<String> = allowed_hosts
        .iter()
        .map(|h| bare_host(h.trim()).to_ascii_lowercase())
        .collect();

    let mut hosts: Vec<String> = navigate_hosts;
    if let Some(goal) = goal {
        hosts.extend(hosts_in_text(goal));
    }
    let mut names = BTreeSet::new();
    for host in &hosts {
        let bare = bare_host(host).to_ascii_lowercase();
        if allowed_by_name.contains(&bare) {
            continue;
        }
        match bare.parse::<IpAddr>() {
            Ok(ip) if is_private(ip) && !explicit.contains(&ip.to_string()) => {
                let reason = format!(
                    "[plan] {ip} is a private, loopback or link-local address, which the \
                     service never visits unless it is allowed explicitly."
                );
                return Err(private_refusal(&reason, &ip.to_string()));
            }
            Ok(_) => {}
            Err(_) => {
                names.insert(bare);
            }
        }
    }
    let judge = Lock::of_hosts(Vec::<String>::new())
        .map_err(bad_host)?
        .refusing_private_addresses();
    let resolved = futures::future::join_all(names.iter().map(|n| resolve(n))).await;
    for (name, ips) in names.iter().zip(resolved) {
        for ip in ips {
            if let Err(r) = judge.check_resolved(name, ip) {
                return Err(private_refusal(&r.reason, name));
            }
        }
    }

    // Private literals reach the run's lock only when listed in `allowed_hosts`.
    let kept: Vec<String> = full
        .sites()
        .filter(|s| match s.parse::<IpAddr>() {
            Ok(ip) => !is_private(ip) || explicit.contains(*s),
            Err(_) => true,
        })
        .map(|s| match s.parse::<IpAddr>() {
            Ok(IpAddr::V6(_)) => format!("[{s}]"),
            _ => s.to_string(),
        })
        .collect();
    Ok(Lock::of_hosts(kept)
        .map_err(bad_host)?
        .refusing_private_addresses())
}

fn private_refusal(reason: &str, host: &str) -> ApiError {
    ApiError::unprocessable(
        "lock_refused",
        format!("{reason} To let this run visit it, add \"{host}\" to `allowed_hosts`."),
    )
}

/// `[::1]` → `::1`; other hosts unchanged. A `host:port` keeps only the host.
fn bare_host(host: &str) -> &str {
    if let Some(inner) = host.strip_prefix('[') {
        return inner.split(']').next().unwrap_or(inner);
    }
    if host.parse::<IpAddr>().is_ok() {
        return host;
    }
    host.split(['/', ':']).next().unwrap_or(host)
}

/// The addresses a host name resolves to; none when it does not resolve in time (the
/// browser then fails to reach it as well).
async fn resolve(host: &str) -> Vec<IpAddr> {
    match tokio::time::timeout(RESOLVE_TIMEOUT, tokio::net::lookup_host((host, 80))).await {
        Ok(Ok(addrs)) => addrs.map(|a| a.ip()).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(url: &str) -> Plan {
        let text = format!(
            r#"{{"reasoning":"r","steps":[{{"type":"navigate","url":"{url}"}},{{"type":"done","summary":"s"}}]}}"#
        );
        plan::parse_and_validate(&text, &Limits::default(), &Vars::default()).unwrap()
    }

    fn block<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(f)
    }

    #[test]
    fn private_literals_need_to_be_allowed_by_name() {
        let p = plan("http://127.0.0.1:9/x");
        let e = block(server_lock(None, &p, &Vars::default(), &[])).unwrap_err();
        assert_eq!(e.kind, "lock_refused");
        assert!(
            e.message.starts_with(
                "[plan] 127.0.0.1 is a private, loopback or link-local address, which the \
                 service never visits unless it is allowed explicitly."
            ),
            "{e}"
        );
        let lock = block(server_lock(
            None,
            &p,
            &Vars::default(),
            &["127.0.0.1".into()],
        ))
        .unwrap();
        assert!(lock.check(&"http://127.0.0.1:9/y".parse().unwrap()).is_ok());
        // Other private addresses stay refused inside the run.
        assert!(lock.check(&"http://10.0.0.1/".parse().unwrap()).is_err());
    }

    #[test]
    fn metadata_and_mapped_addresses_are_refused() {
        for url in [
            "http://169.254.169.254/latest/meta-data/",
            "http://[::ffff:127.0.0.1]/",
            "http://[::1]:8080/",
            "http://localhost:8080/",
        ] {
            let e = block(server_lock(None, &plan(url), &Vars::default(), &[])).unwrap_err();
            assert_eq!(e.kind, "lock_refused", "{url}: {e}");
        }
    }

    #[test]
    fn goal_hosts_count_too() {
        let p = plan("https://shop.example/");
        let e = block(server_lock(
            Some("sign up at http://10.1.2.3/ then shop.example"),
            &p,
            &Vars::default(),
            &[],
        ))
        .unwrap_err();
        assert_eq!(e.kind, "lock_refused", "{e}");
    }

    #[test]
    fn public_hosts_pass() {
        let lock = block(server_lock(
            None,
            &plan("https://shop.example/"),
            &Vars::default(),
            &[],
        ))
        .unwrap();
        assert_eq!(lock.sites().collect::<Vec<_>>(), ["shop.example"]);
    }
}
