//! The planner: a goal becomes a validated plan with exactly one model request —
//! zero when the plan cache has it. Anthropic Messages and OpenAI-compatible Chat Completions,
//! chosen by `PLANLOCK_MODEL=provider:model`.
//!
//! The model sees only the frozen system prompt (first; cache-marked on Anthropic) and the
//! volatile user message (last): the normalised goal, the hosts the run may visit, the
//! names (never values) of caller variables, and, when planlock looked, the start page's
//! outline as [`Shown`] masks it. Page prose and email bodies never reach it.
//! Its output is constrained to the plan schema and then validated by
//! [`crate::plan::parse_and_validate`]; an invalid plan is an error, never a second call.

mod anthropic;
pub mod cache;
pub mod config;
pub mod goal;
mod http;
mod look;
mod openai;
pub mod prompt;
mod review;
pub mod schema;

use std::path::PathBuf;

use serde::Serialize;

use crate::exit;
use crate::plan::{self, Limits, Plan, Problem, Vars};

pub use config::{ModelSpec, PlannerConfig, Provider, ProviderAccess, RetryPolicy};
pub use look::{LookChoice, LookFailure, Looked, Shown, look_within, start_page};
pub use prompt::{SYSTEM_PROMPT, prompt_version};
pub use review::{
    Review, ReviewStep, ask_with_suggestion, ask_with_suggestion_on, confirm, confirm_with, flags,
    looked_line, review_in,
};

/// Most characters of a model's answer shown in an invalid-plan error.
pub const RETURNED_LIMIT: usize = 4_000;

// `input_tokens` is Anthropic's meaning; for OpenAI it is `prompt_tokens - cached_tokens`.
/// Tokens the one model request used (all zero on a cache hit). `input_tokens` counts input
/// that was neither written to nor read from the provider's prompt cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub cache_read_input_tokens: u64,
}

impl Usage {
    /// Every input token, cached or not.
    pub fn total_input_tokens(&self) -> u64 {
        self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens
    }
}

/// A plan and how it was obtained.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GeneratedPlan {
    pub plan: Plan,
    /// True when the plan came from the cache (no model request was made).
    pub cached: bool,
    pub usage: Usage,
    /// `provider:model`.
    pub model: String,
    /// Short hash of the system prompt and schema (see [`prompt_version`]).
    pub prompt_version: String,
    /// Transport retries of the one request (429/5xx/529).
    pub retries: u32,
    /// The cache file read or written, if the cache is enabled.
    pub cache_file: Option<PathBuf>,
    /// The goal as planned (normalised; the inbox address replaced by `{{inbox_address}}`).
    pub goal: String,
    /// The registrable domain of the first site the goal names.
    pub site: String,
    /// Things worth telling the user that did not stop planning (e.g. a cache write failed).
    pub warnings: Vec<String>,
    /// The look the plan was made after, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub looked: Option<Looked>,
}

/// What a plan request needs besides the goal.
#[derive(Debug, Clone, Default)]
pub struct PlanRequest {
    /// The run's inbox address; where the goal mentions it, the model sees `{{inbox_address}}`.
    pub inbox_address: Option<String>,
    /// Named inboxes (`--inbox NAME=URL`), offered to the model for `inbox_id`.
    pub inbox_names: Vec<String>,
    /// Caller variables: their names are told to the model and checked by the validator;
    /// their values never reach it (masked where the start page echoes them).
    pub vars: Vars,
    /// The values of every secret the run may use. Never told to the model: masked where the
    /// start page echoes them, as caller variables' values are.
    pub secrets: Vec<String>,
    pub limits: Limits,
    /// Skip reading the cache (a fresh plan still replaces the cached one).
    pub no_cache: bool,
    pub config: PlannerConfig,
    /// The start page's outline, when planlock looked at it first (see [`look_within`]).
    pub look: Option<crate::browser::Look>,
}

impl PlanRequest {
    /// A request with this configuration and defaults otherwise.
    pub fn new(config: PlannerConfig) -> PlanRequest {
        PlanRequest {
            config,
            ..PlanRequest::default()
        }
    }

    /// Tells the model which inboxes the run binds (`None` = the default inbox). The default
    /// one's address is only known when the run starts, so the model writes the variable.
    pub fn with_inboxes<'a>(mut self, names: impl IntoIterator<Item = Option<&'a str>>) -> Self {
        for name in names {
            match name {
                None => self.inbox_address = Some("{{inbox_address}}".to_string()),
                Some(n) => self.inbox_names.push(n.to_string()),
            }
        }
        self
    }
}

/// Why no plan was produced. Every message is a sentence that says what to do.
#[derive(Debug, thiserror::Error)]
pub enum PlannerError {
    #[error(
        "the goal is empty: say what to do and where, e.g. \
         \"sign up at https://shop.example with {{{{inbox_address}}}}\""
    )]
    EmptyGoal,
    #[error(
        "the goal names no site: \"{goal}\" has no URL or domain such as \
         https://shop.example/signup or shop.example. A run may only visit the sites its \
         request names, so say where to start"
    )]
    NoSite { goal: String },
    #[error("{0}")]
    BadAllowHost(crate::lock::LockError),
    #[error("{0}")]
    Vars(#[from] plan::VarsError),
    #[error(
        "no model is chosen: set PLANLOCK_MODEL to provider:model, e.g. \
         PLANLOCK_MODEL=anthropic:claude-sonnet-4-5 or PLANLOCK_MODEL=openai:gpt-4o-mini \
         (with OPENAI_BASE_URL for any OpenAI-compatible server)"
    )]
    ModelNotSet,
    #[error(
        "PLANLOCK_MODEL=`{value}` is not provider:model ({reason}): set PLANLOCK_MODEL to \
         anthropic:MODEL or openai:MODEL, e.g. anthropic:claude-sonnet-4-5"
    )]
    BadModel { value: String, reason: String },
    #[error(
        "PLANLOCK_MODEL names the unknown provider `{provider}`: set PLANLOCK_MODEL to \
         anthropic:MODEL or openai:MODEL (openai: also covers OpenAI-compatible servers, \
         with OPENAI_BASE_URL)"
    )]
    UnknownProvider { provider: String },
    #[error("{var}=`{value}` cannot be used: {reason}; set {var} again")]
    BadSetting {
        var: &'static str,
        value: String,
        reason: String,
    },
    #[error("{var}=`{value}` is not a usable base URL ({reason}): set {var} to an http(s) URL")]
    BadBaseUrl {
        var: &'static str,
        value: String,
        reason: String,
    },
    #[error(
        "no API key for {} at {base_url}: set {} (a key may be left out only when {} points \
         at a server on this machine)",
        provider.name(), provider.key_var(), provider.base_url_var()
    )]
    MissingKey {
        provider: Provider,
        base_url: String,
    },
    #[error(
        "cannot reach the model at {url}: {detail}. Check the network, or set {} to a \
         reachable server",
        provider.base_url_var()
    )]
    Unreachable {
        provider: Provider,
        url: String,
        detail: String,
    },
    #[error(
        "the model at {url} did not answer within {seconds} s: try again, or raise \
         PLANLOCK_MODEL_TIMEOUT (seconds)"
    )]
    Timeout { url: String, seconds: f64 },
    #[error(
        "{} refused the API key (HTTP {status}: {message}): set {} to a valid key",
        provider.name(), provider.key_var()
    )]
    Unauthorized {
        provider: Provider,
        status: u16,
        message: String,
    },
    #[error(
        "{url} answered 404 ({message}): check the model name in PLANLOCK_MODEL and the \
         base URL in {}",
        provider.base_url_var()
    )]
    NotFound {
        provider: Provider,
        url: String,
        message: String,
    },
    #[error(
        "{} rejected the request (HTTP {status}: {message}): check the model in \
         PLANLOCK_MODEL and the server in {}",
        provider.name(), provider.base_url_var()
    )]
    Rejected {
        provider: Provider,
        status: u16,
        message: String,
    },
    #[error(
        "{} could not serve the request (HTTP {status}: {message}) after {retries} \
         {}: try again later, or set PLANLOCK_MODEL to another model",
        provider.name(), if *retries == 1 { "retry" } else { "retries" }
    )]
    Unavailable {
        provider: Provider,
        status: u16,
        retries: u32,
        message: String,
    },
    #[error(
        "{} answered in an unexpected format ({detail}): does {} point at a {}-compatible \
         server? The answer began: {body}",
        provider.name(), provider.base_url_var(), provider.name()
    )]
    BadResponse {
        provider: Provider,
        detail: String,
        body: String,
    },
    #[error("the model declined to plan this goal: {message}")]
    Refused { message: String },
    #[error("{}", invalid_plan_message(problems, returned, note.as_deref(), usage))]
    InvalidPlan {
        problems: Vec<Problem>,
        /// What the model returned (pretty JSON when it parses), truncated.
        returned: String,
        note: Option<String>,
        /// What the answer cost, as the provider reported it (paid for, plan or not).
        usage: Usage,
    },
}

fn invalid_plan_message(
    problems: &[Problem],
    returned: &str,
    note: Option<&str>,
    usage: &Usage,
) -> String {
    let mut m = String::from(
        "the model returned a plan that is not valid, so there is no plan (planlock never \
         asks a model to fix its plan: run the command again, or fix the plan below by hand \
         and check it with `planlock validate`)",
    );
    if let Some(note) = note {
        m.push_str(&format!(";\n{note}"));
    }
    m.push_str(&format!(
        ".\n{}:",
        review::counted(problems.len(), "problem", "problems")
    ));
    // The problems quote the plan, and the answer is the model's: each line printable.
    for p in problems {
        m.push_str(&format!("\n  {}", crate::report::printable(&p.to_string())));
    }
    m.push_str(&format!(
        "\nThe answer used {} input and {} output tokens.",
        usage.total_input_tokens(),
        usage.output_tokens
    ));
    if returned.trim().is_empty() {
        m.push_str("\nThe model returned nothing.");
        return m;
    }
    m.push_str("\nThe model returned:\n");
    for line in returned.lines() {
        m.push_str("  ");
        m.push_str(&crate::report::printable(line));
        m.push('\n');
    }
    m.trim_end().to_string()
}

impl PlannerError {
    /// The process exit code (docs/exit-codes.md): 2 for the goal, variables, a refusal or an invalid
    /// plan (plan validation); 3 for the model's environment (configuration, network,
    /// keys, provider errors).
    pub fn exit_code(&self) -> u8 {
        match self {
            PlannerError::EmptyGoal
            | PlannerError::NoSite { .. }
            | PlannerError::BadAllowHost(_)
            | PlannerError::Vars(_)
            | PlannerError::Refused { .. }
            | PlannerError::InvalidPlan { .. } => exit::INVALID_INPUT,
            _ => exit::ENVIRONMENT,
        }
    }
}

/// The one sentence that says an answer stopped at the output cap (Anthropic's
/// `stop_reason: "max_tokens"`, OpenAI's `finish_reason: "length"`).
pub(crate) fn cut_off(max_tokens: u32, before_the_plan: bool) -> String {
    let cap = format!(
        "the answer was cut off at the output cap of {max_tokens} tokens ({})",
        config::MAX_TOKENS_VAR
    );
    if before_the_plan {
        format!("{cap} before the plan began")
    } else {
        format!("{cap}, so the plan may be incomplete")
    }
}

/// The model's raw answer.
pub(crate) struct ModelReply {
    /// The plan as JSON text (possibly malformed).
    pub output: String,
    pub usage: Usage,
    pub retries: u32,
    /// Something the validator should be told (e.g. the answer was cut off).
    pub note: Option<String>,
}

/// Plans a goal already prepared, the model told that the run may visit `allowed` (the
/// sites of the request's lock): from the cache when it has the plan (zero requests), else
/// with exactly one model request (plus bounded transport retries of that same request).
pub async fn plan_prepared(
    goal: goal::Goal,
    allowed: &[String],
    req: &PlanRequest,
) -> Result<GeneratedPlan, PlannerError> {
    let spec = req.config.model_spec()?;
    let model = spec.to_string();
    let version = prompt_version();
    let mut warnings = Vec::new();

    // Everything the look produced reaches the request through this, masked.
    let shown = look::shown(req);
    let cache = req.config.cache_dir.as_ref().map(cache::PlanCache::new);
    let cache_file = cache.as_ref().map(|c| {
        let key = match &shown {
            // A changed page is planned again; a blind plan keeps its key.
            Some(look) => cache::key_with_outline(
                &goal.normalised,
                &goal.site,
                &model,
                version,
                &look.look().digest(),
            ),
            None => cache::key(&goal.normalised, &goal.site, &model, version),
        };
        c.path(&goal.site, &key)
    });
    let looked = shown.as_ref().map(Looked::of);
    if !req.no_cache
        && let (Some(c), Some(path)) = (&cache, &cache_file)
        && let Some(text) = c.load(path)
    {
        match plan::parse_and_validate(&text, &req.limits, &req.vars) {
            Ok(plan) => {
                return Ok(GeneratedPlan {
                    plan,
                    cached: true,
                    usage: Usage::default(),
                    model,
                    prompt_version: version.to_string(),
                    retries: 0,
                    cache_file: cache_file.clone(),
                    goal: goal.normalised,
                    site: goal.site,
                    warnings,
                    looked,
                });
            }
            Err(e) => warnings.push(format!(
                "ignored the cached plan {} because it is no longer valid ({}); planned again",
                path.display(),
                one_line(&e.to_string())
            )),
        }
    }

    let endpoint = req.config.endpoint(spec.provider)?;
    let user = user_message_for(&goal, allowed, req, shown.as_ref());
    let client = reqwest::Client::builder()
        .user_agent(concat!("planlock/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| PlannerError::Unreachable {
            provider: spec.provider,
            url: endpoint.url.clone(),
            detail: format!("cannot start an HTTP client: {e}"),
        })?;
    let max_tokens = req.config.max_tokens();
    // Each provider's wire format: its headers, its body, and how its answer is read.
    let (headers, body, parse): (_, _, http::ReadReply) = match spec.provider {
        Provider::Anthropic => (
            anthropic::headers(&endpoint)?,
            anthropic::request_body(&spec.model, &user, max_tokens),
            anthropic::parse_response,
        ),
        Provider::OpenAi => (
            openai::headers(&endpoint)?,
            openai::request_body(&spec.model, &user, max_tokens),
            openai::parse_response,
        ),
    };
    let reply = http::ask(&client, &endpoint, &req.config, headers, &body, parse).await?;
    let plan = validate_output(&reply, &req.limits, &req.vars)?;

    if let (Some(c), Some(path)) = (&cache, &cache_file) {
        let meta = serde_json::json!({
            "goal": goal.normalised,
            "site": goal.site,
            "model": model,
            "prompt_version": version,
            "created": chrono::Utc::now().to_rfc3339(),
            "usage": reply.usage,
        });
        if let Err(e) = c.store(path, &plan, &meta) {
            warnings.push(format!(
                "could not save the plan in the cache at {}: {e} (set PLANLOCK_CACHE_DIR to a \
                 writable directory)",
                path.display()
            ));
        }
    }
    Ok(GeneratedPlan {
        plan,
        cached: false,
        usage: reply.usage,
        model,
        prompt_version: version.to_string(),
        retries: reply.retries,
        cache_file,
        goal: goal.normalised,
        site: goal.site,
        warnings,
        looked,
    })
}

/// The user message the model gets for a goal already prepared, told that the run may visit
/// `allowed`, with the look as the model is shown it (and what it was shown, counted): what a
/// writer of the plan other than the model (an agent) is shown too, made the same way.
pub fn user_message_prepared(
    goal: &goal::Goal,
    allowed: &[String],
    req: &PlanRequest,
) -> (String, Option<Looked>) {
    let shown = look::shown(req);
    let message = user_message_for(goal, allowed, req, shown.as_ref());
    (message, shown.as_ref().map(Looked::of))
}

/// The user message of a plan request, with the look as the model is shown it.
fn user_message_for(
    goal: &goal::Goal,
    allowed: &[String],
    req: &PlanRequest,
    shown: Option<&Shown>,
) -> String {
    let var_names: Vec<String> = req.vars.caller_names().map(str::to_string).collect();
    prompt::user_message(
        &goal.normalised,
        &prompt::UserContext {
            allowed_hosts: allowed,
            var_names: &var_names,
            inbox_names: &req.inbox_names,
            max_steps: req.limits.max_steps,
            look: shown,
        },
    )
}

/// The exact request planning would send for a goal already prepared, without sending it
/// (no model call, no key): the provider's body with the system prompt, the user message
/// (the outline in it when planlock looked), the schema, the model told that the run may
/// visit `allowed`. Without `PLANLOCK_MODEL`, the Anthropic body is shown.
pub fn preview_prepared(
    goal: &goal::Goal,
    allowed: &[String],
    req: &PlanRequest,
) -> serde_json::Value {
    let shown = look::shown(req);
    let user = user_message_for(goal, allowed, req, shown.as_ref());
    let spec = req.config.model_spec().ok();
    let (provider, model) = match &spec {
        Some(spec) => (spec.provider, spec.model.as_str()),
        None => (Provider::Anthropic, "MODEL"),
    };
    let body = match provider {
        Provider::Anthropic => anthropic::request_body(model, &user, req.config.max_tokens()),
        Provider::OpenAi => openai::request_body(model, &user, req.config.max_tokens()),
    };
    serde_json::json!({
        "provider": provider.name(),
        "model": spec.map(|s| s.to_string()),
        "prompt_version": prompt_version(),
        "looked": shown.as_ref().map(Looked::of),
        "body": body,
    })
}

/// Nulls dropped (strict mode writes them for absent optional fields), then the foundation's
/// validator. Anything wrong is an [`PlannerError::InvalidPlan`] showing the answer.
fn validate_output(reply: &ModelReply, limits: &Limits, vars: &Vars) -> Result<Plan, PlannerError> {
    let (text, shown) = match serde_json::from_str::<serde_json::Value>(&reply.output) {
        Ok(mut v) => {
            schema::drop_nulls(&mut v);
            let pretty = serde_json::to_string_pretty(&v).unwrap_or_else(|_| v.to_string());
            (v.to_string(), pretty)
        }
        Err(_) => (reply.output.clone(), reply.output.clone()),
    };
    plan::parse_and_validate(&text, limits, vars).map_err(|e| PlannerError::InvalidPlan {
        problems: e.problems(),
        returned: truncate(&shown, RETURNED_LIMIT),
        note: reply.note.clone(),
        usage: reply.usage,
    })
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// At most `max` characters of `s`, saying how many were left out.
pub(crate) fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((i, _)) => {
            let rest = s[i..].chars().count();
            format!("{}… ({rest} more characters)", &s[..i])
        }
    }
}

/// One line for stderr: cached or not, the model, usage and retries.
pub fn outcome_summary(o: &GeneratedPlan) -> String {
    let steps = review::counted(o.plan.steps.len(), "step", "steps");
    if o.cached {
        let file = o
            .cache_file
            .as_ref()
            .map(|p| format!(" {}", p.display()))
            .unwrap_or_default();
        return format!(
            "cached plan ({steps}, {}, prompt {}): no model call, 0 tokens; from{file} \
             (--no-cache to plan again)",
            o.model, o.prompt_version
        );
    }
    let u = &o.usage;
    let mut s = format!(
        "planned {steps} with {} (prompt {}): {} input, {} output, {} cache-write, {} \
         cache-read tokens",
        o.model,
        o.prompt_version,
        u.input_tokens,
        u.output_tokens,
        u.cache_creation_input_tokens,
        u.cache_read_input_tokens
    );
    if o.retries > 0 {
        s.push_str(&format!(
            "; {}",
            review::counted(o.retries as usize, "retry", "retries")
        ));
    }
    if let Some(looked) = &o.looked {
        s.push_str("; ");
        s.push_str(&review::looked_line(looked));
    }
    match &o.cache_file {
        Some(p) => s.push_str(&format!("; cached as {}", p.display())),
        None => s.push_str("; plan cache off"),
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bound_inboxes_reach_the_model_as_the_variable_and_names() {
        let req = PlanRequest::default().with_inboxes([Some("work"), None]);
        assert_eq!(req.inbox_address.as_deref(), Some("{{inbox_address}}"));
        assert_eq!(req.inbox_names, ["work"]);
        let named_only = PlanRequest::default().with_inboxes([Some("work")]);
        assert_eq!(named_only.inbox_address, None);
    }

    #[test]
    fn truncation_is_char_safe() {
        assert_eq!(truncate("héllo", 10), "héllo");
        assert_eq!(truncate("héllo", 2), "hé… (3 more characters)");
    }

    #[test]
    fn invalid_output_shows_every_problem_and_the_answer() {
        let reply = ModelReply {
            output: r#"{"reasoning":"r","steps":[{"type":"click","describe":"x","text":null},{"type":"scroll"}]}"#.into(),
            usage: Usage::default(),
            retries: 0,
            note: None,
        };
        let e = validate_output(&reply, &Limits::default(), &Vars::default()).unwrap_err();
        assert_eq!(e.exit_code(), exit::INVALID_INPUT);
        let msg = e.to_string();
        assert!(msg.contains("steps[0]: `click` needs `text`"), "{msg}");
        assert!(
            msg.contains("steps[1].type: unknown step type `scroll`"),
            "{msg}"
        );
        assert!(msg.contains("\"type\": \"scroll\""), "{msg}");
        // The null was dropped before validation and before showing.
        assert!(!msg.contains("null"), "{msg}");
    }

    #[test]
    fn nulls_from_strict_mode_are_accepted() {
        let reply = ModelReply {
            output: r#"{"reasoning":"r","steps":[{"type":"navigate","url":"https://a.example/"},{"type":"click","describe":"go","text":"Go","selector":null},{"type":"done","summary":"ok"}]}"#.into(),
            usage: Usage::default(),
            retries: 0,
            note: None,
        };
        let plan = validate_output(&reply, &Limits::default(), &Vars::default()).unwrap();
        assert_eq!(plan.steps.len(), 3);
    }
}
