//! Which model, where, with which key: `PLANLOCK_MODEL=provider:model` and the usual
//! provider variables. Read once into a [`PlannerConfig`] so tests can pass it explicitly.

use std::fmt;
use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use super::PlannerError;

/// `PLANLOCK_MODEL`: which provider and model plan (`anthropic:claude-...`, `openai:gpt-...`).
pub const MODEL_VAR: &str = "PLANLOCK_MODEL";
/// Where plans are cached (default `$XDG_CACHE_HOME/planlock`, else `~/.cache/planlock`).
pub const CACHE_DIR_VAR: &str = "PLANLOCK_CACHE_DIR";
/// The deadline of one planning request in seconds, retries included (default 120).
pub const TIMEOUT_VAR: &str = "PLANLOCK_MODEL_TIMEOUT";
/// The most output tokens a plan answer may take, on either provider (default 4096).
pub const MAX_TOKENS_VAR: &str = "PLANLOCK_MAX_TOKENS";

/// Default deadline of one plan request, retries included.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);
/// Default cap on a plan answer's output tokens (a 15-step plan needs far fewer), so a model
/// that loops stops there instead of at the deadline.
pub const DEFAULT_MAX_TOKENS: u32 = 4096;
/// The largest `PLANLOCK_MAX_TOKENS` accepted.
const MOST_MAX_TOKENS: u32 = 1_000_000;

/// A model provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// Anthropic Messages API.
    Anthropic,
    /// OpenAI Chat Completions, or any server speaking it (vLLM, llama.cpp, Ollama, ...).
    OpenAi,
}

impl Provider {
    /// As written in `PLANLOCK_MODEL`.
    pub fn name(self) -> &'static str {
        match self {
            Provider::Anthropic => "anthropic",
            Provider::OpenAi => "openai",
        }
    }

    /// The variable holding the API key.
    pub fn key_var(self) -> &'static str {
        match self {
            Provider::Anthropic => "ANTHROPIC_API_KEY",
            Provider::OpenAi => "OPENAI_API_KEY",
        }
    }

    /// The variable holding the base URL.
    pub fn base_url_var(self) -> &'static str {
        match self {
            Provider::Anthropic => "ANTHROPIC_BASE_URL",
            Provider::OpenAi => "OPENAI_BASE_URL",
        }
    }

    /// The base URL used when the variable is unset.
    pub fn default_base_url(self) -> &'static str {
        match self {
            Provider::Anthropic => "https://api.anthropic.com",
            Provider::OpenAi => "https://api.openai.com/v1",
        }
    }
}

/// A parsed `PLANLOCK_MODEL`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelSpec {
    pub provider: Provider,
    /// The provider's model name, sent as is.
    pub model: String,
}

impl ModelSpec {
    /// Parses `provider:model`. Everything after the first `:` is the model name, so
    /// local model names such as `openai:llama3.1:8b` work.
    pub fn parse(value: &str) -> Result<ModelSpec, PlannerError> {
        let value = value.trim();
        if value.is_empty() {
            return Err(PlannerError::ModelNotSet);
        }
        let Some((provider, model)) = value.split_once(':') else {
            return Err(PlannerError::BadModel {
                value: value.to_string(),
                reason: "it has no `provider:` prefix".to_string(),
            });
        };
        let model = model.trim();
        if model.is_empty() {
            return Err(PlannerError::BadModel {
                value: value.to_string(),
                reason: "the model name after `:` is empty".to_string(),
            });
        }
        let provider = match provider.trim().to_ascii_lowercase().as_str() {
            "anthropic" => Provider::Anthropic,
            "openai" => Provider::OpenAi,
            other => {
                return Err(PlannerError::UnknownProvider {
                    provider: other.to_string(),
                });
            }
        };
        Ok(ModelSpec {
            provider,
            model: model.to_string(),
        })
    }
}

impl fmt::Display for ModelSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.provider.name(), self.model)
    }
}

/// Transport retries of the same request on 429, 5xx and 529 (overloaded).
#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (default 2).
    pub max_retries: u32,
    /// First backoff when the server sends no `retry-after` (doubles each time).
    pub base_delay: Duration,
    /// Longest wait between attempts, `retry-after` included.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 2,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(4),
        }
    }
}

/// Everything the planner reads from the environment, resolved once.
#[derive(Clone, Default)]
pub struct PlannerConfig {
    /// `PLANLOCK_MODEL`, as given.
    pub model: Option<String>,
    /// `ANTHROPIC_API_KEY` and `ANTHROPIC_BASE_URL`.
    pub anthropic: ProviderAccess,
    /// `OPENAI_API_KEY` and `OPENAI_BASE_URL`.
    pub openai: ProviderAccess,
    /// Plan cache directory; `None` disables the cache.
    pub cache_dir: Option<PathBuf>,
    /// Deadline of the model request, retries included (`None` = 120 s).
    pub timeout: Option<Duration>,
    pub retry: RetryPolicy,
    /// Most output tokens of the answer, sent as `max_tokens` on both paths (`None` = 4096).
    pub max_tokens: Option<u32>,
}

/// How to reach one provider: its key and base URL, each `None` when its variable is unset.
#[derive(Clone, Default)]
pub struct ProviderAccess {
    pub api_key: Option<String>,
    pub base_url: Option<String>,
}

impl ProviderAccess {
    /// Reads the provider's two variables through `get`.
    fn from_lookup(provider: Provider, get: impl Fn(&str) -> Option<String>) -> ProviderAccess {
        ProviderAccess {
            api_key: get(provider.key_var()),
            base_url: get(provider.base_url_var()),
        }
    }
}

impl fmt::Debug for ProviderAccess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProviderAccess")
            .field("api_key", &self.api_key.as_ref().map(|_| "(set)"))
            .field("base_url", &self.base_url)
            .finish()
    }
}

impl fmt::Debug for PlannerConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PlannerConfig")
            .field("model", &self.model)
            .field("anthropic", &self.anthropic)
            .field("openai", &self.openai)
            .field("cache_dir", &self.cache_dir)
            .field("timeout", &self.timeout)
            .field("retry", &self.retry)
            .field("max_tokens", &self.max_tokens)
            .finish()
    }
}

impl PlannerConfig {
    /// Reads the process environment.
    pub fn from_env() -> Result<PlannerConfig, PlannerError> {
        PlannerConfig::from_lookup(|k| std::env::var(k).ok())
    }

    /// Reads variables through `env` (tests pass a map instead of mutating the process).
    pub fn from_lookup(
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<PlannerConfig, PlannerError> {
        let get = |k: &str| {
            env(k)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let timeout = match get(TIMEOUT_VAR) {
            None => None,
            Some(v) => match v.parse::<f64>() {
                Ok(s) if s.is_finite() && s > 0.0 && s <= 3600.0 => {
                    Some(Duration::from_secs_f64(s))
                }
                _ => {
                    return Err(PlannerError::BadSetting {
                        var: TIMEOUT_VAR,
                        value: v,
                        reason: "expected a number of seconds between 0 and 3600".to_string(),
                    });
                }
            },
        };
        let max_tokens = match get(MAX_TOKENS_VAR) {
            None => None,
            Some(v) => match v.parse::<u32>() {
                Ok(n) if (1..=MOST_MAX_TOKENS).contains(&n) => Some(n),
                _ => {
                    return Err(PlannerError::BadSetting {
                        var: MAX_TOKENS_VAR,
                        value: v,
                        reason: format!(
                            "expected a whole number of tokens from 1 to {MOST_MAX_TOKENS}"
                        ),
                    });
                }
            },
        };
        let cache_dir = get(CACHE_DIR_VAR).map(PathBuf::from).or_else(|| {
            get("XDG_CACHE_HOME")
                .map(|d| PathBuf::from(d).join("planlock"))
                .or_else(|| get("HOME").map(|h| PathBuf::from(h).join(".cache").join("planlock")))
        });
        Ok(PlannerConfig {
            model: get(MODEL_VAR),
            anthropic: ProviderAccess::from_lookup(Provider::Anthropic, get),
            openai: ProviderAccess::from_lookup(Provider::OpenAi, get),
            cache_dir,
            timeout,
            retry: RetryPolicy::default(),
            max_tokens,
        })
    }

    /// The parsed `PLANLOCK_MODEL`.
    pub fn model_spec(&self) -> Result<ModelSpec, PlannerError> {
        ModelSpec::parse(self.model.as_deref().unwrap_or(""))
    }

    /// Where and how to call `provider`: the endpoint URL and the key (if any).
    pub fn endpoint(&self, provider: Provider) -> Result<Endpoint, PlannerError> {
        let ProviderAccess {
            api_key: key,
            base_url: base,
        } = self.access(provider);
        let base_given = base.is_some();
        let base = base
            .as_deref()
            .unwrap_or(provider.default_base_url())
            .trim_end_matches('/');
        let parsed = url::Url::parse(base).map_err(|e| PlannerError::BadBaseUrl {
            var: provider.base_url_var(),
            value: base.to_string(),
            reason: e.to_string(),
        })?;
        if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
            return Err(PlannerError::BadBaseUrl {
                var: provider.base_url_var(),
                value: base.to_string(),
                reason: "expected an http(s) URL".to_string(),
            });
        }
        let loopback = is_loopback(&parsed);
        if key.is_none() && !(base_given && loopback) {
            return Err(PlannerError::MissingKey {
                provider,
                base_url: base.to_string(),
            });
        }
        let url = match provider {
            Provider::Anthropic => format!("{base}/v1/messages"),
            Provider::OpenAi => format!("{base}/chat/completions"),
        };
        Ok(Endpoint {
            provider,
            url,
            api_key: key.clone(),
        })
    }

    /// The key and base URL given for `provider`.
    pub fn access(&self, provider: Provider) -> &ProviderAccess {
        match provider {
            Provider::Anthropic => &self.anthropic,
            Provider::OpenAi => &self.openai,
        }
    }

    /// The request deadline.
    pub fn timeout(&self) -> Duration {
        self.timeout.unwrap_or(DEFAULT_TIMEOUT)
    }

    /// The cap on the answer's output tokens (`max_tokens` in both providers' requests).
    pub fn max_tokens(&self) -> u32 {
        self.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS)
    }
}

/// A resolved provider endpoint.
#[derive(Clone)]
pub struct Endpoint {
    pub provider: Provider,
    /// The full request URL.
    pub url: String,
    /// `None` only for a loopback base URL (a local server that needs no key).
    pub api_key: Option<String>,
}

fn is_loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => {
            let d = d.to_ascii_lowercase();
            d == "localhost" || d.ends_with(".localhost")
        }
        Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_strings() {
        let m = ModelSpec::parse("anthropic:claude-sonnet-4-5").unwrap();
        assert_eq!(m.provider, Provider::Anthropic);
        assert_eq!(m.model, "claude-sonnet-4-5");
        let m = ModelSpec::parse("OpenAI:llama3.1:8b").unwrap();
        assert_eq!(
            (m.provider, m.model.as_str()),
            (Provider::OpenAi, "llama3.1:8b")
        );
        assert_eq!(m.to_string(), "openai:llama3.1:8b");
        assert!(matches!(
            ModelSpec::parse(""),
            Err(PlannerError::ModelNotSet)
        ));
        assert!(matches!(
            ModelSpec::parse("gpt-4o"),
            Err(PlannerError::BadModel { .. })
        ));
        assert!(matches!(
            ModelSpec::parse("openai:"),
            Err(PlannerError::BadModel { .. })
        ));
        assert!(matches!(
            ModelSpec::parse("gemini:pro"),
            Err(PlannerError::UnknownProvider { .. })
        ));
    }

    #[test]
    fn keys_are_optional_only_for_an_explicit_loopback_base_url() {
        let mut c = PlannerConfig::default();
        let e = c.endpoint(Provider::OpenAi).err().unwrap();
        assert!(e.to_string().contains("OPENAI_API_KEY"), "{e}");
        c.openai.base_url = Some("http://127.0.0.1:8080/v1/".into());
        let ep = c.endpoint(Provider::OpenAi).unwrap();
        assert_eq!(ep.url, "http://127.0.0.1:8080/v1/chat/completions");
        assert!(ep.api_key.is_none());
        c.openai.base_url = Some("https://llm.corp.example/v1".into());
        assert!(c.endpoint(Provider::OpenAi).is_err());
        c.anthropic.api_key = Some("k".into());
        let ep = c.endpoint(Provider::Anthropic).unwrap();
        assert_eq!(ep.url, "https://api.anthropic.com/v1/messages");
    }

    #[test]
    fn env_lookup_and_debug_hides_keys() {
        let c = PlannerConfig::from_lookup(|k| match k {
            "PLANLOCK_MODEL" => Some("anthropic:claude-x".into()),
            "ANTHROPIC_API_KEY" => Some("sk-secret".into()),
            "HOME" => Some("/home/u".into()),
            _ => None,
        })
        .unwrap();
        assert_eq!(
            c.cache_dir.as_deref(),
            Some(std::path::Path::new("/home/u/.cache/planlock"))
        );
        assert!(!format!("{c:?}").contains("sk-secret"));
        let e = PlannerConfig::from_lookup(|k| (k == TIMEOUT_VAR).then(|| "soon".into()))
            .err()
            .unwrap();
        assert!(e.to_string().contains(TIMEOUT_VAR));
    }

    #[test]
    fn the_output_cap_is_read_and_checked() {
        let with = |v: &str| {
            let v = v.to_string();
            PlannerConfig::from_lookup(move |k| (k == MAX_TOKENS_VAR).then(|| v.clone()))
        };
        assert_eq!(with("64").unwrap().max_tokens(), 64);
        assert_eq!(
            PlannerConfig::from_lookup(|_| None).unwrap().max_tokens(),
            DEFAULT_MAX_TOKENS
        );
        for bad in ["0", "-3", "many", "1.5"] {
            let e = with(bad).err().unwrap().to_string();
            assert!(e.contains(MAX_TOKENS_VAR), "{e}");
        }
    }
}
