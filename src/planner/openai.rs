//! OpenAI-compatible Chat Completions: the system message first, the user message last, the
//! plan schema as a strict JSON-schema response format.

use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue};
use serde_json::{Value, json};

use super::config::{Endpoint, PlannerConfig};
use super::{ModelReply, PlannerError, Provider, Usage, schema};

/// The `json_schema.name` of the response format.
pub const SCHEMA_NAME: &str = "plan";

/// The request body.
pub(crate) fn request_body(model: &str, user_message: &str) -> Value {
    json!({
        "model": model,
        "messages": [
            {"role": "system", "content": super::prompt::SYSTEM_PROMPT},
            {"role": "user", "content": user_message}
        ],
        "response_format": {
            "type": "json_schema",
            "json_schema": {
                "name": SCHEMA_NAME,
                "strict": true,
                "schema": schema::openai_strict_schema()
            }
        }
    })
}

pub(crate) async fn call(
    client: &reqwest::Client,
    endpoint: &Endpoint,
    config: &PlannerConfig,
    model: &str,
    user_message: &str,
) -> Result<ModelReply, PlannerError> {
    let mut headers = HeaderMap::new();
    if let Some(key) = &endpoint.api_key {
        let mut v = HeaderValue::from_str(&format!("Bearer {key}")).map_err(|_| {
            PlannerError::BadSetting {
                var: "OPENAI_API_KEY",
                value: "(hidden)".into(),
                reason: "it contains characters that cannot be sent in a header".into(),
            }
        })?;
        v.set_sensitive(true);
        headers.insert(AUTHORIZATION, v);
    }
    let body = request_body(model, user_message);
    let sent = super::http::post_json(
        client,
        endpoint,
        headers,
        &body,
        &config.retry,
        config.timeout(),
    )
    .await?;
    let mut reply = parse_response(&sent.body)?;
    reply.retries = sent.retries;
    Ok(reply)
}

/// Reads the message content, usage and refusals out of a Chat Completions response.
pub(crate) fn parse_response(body: &str) -> Result<ModelReply, PlannerError> {
    let bad = |detail: String| PlannerError::BadResponse {
        provider: Provider::OpenAi,
        detail,
        body: super::truncate(body, 500),
    };
    let v: Value =
        serde_json::from_str(body).map_err(|e| bad(format!("the body is not JSON ({e})")))?;
    let u = &v["usage"];
    let prompt = u["prompt_tokens"].as_u64().unwrap_or(0);
    let cached = u["prompt_tokens_details"]["cached_tokens"]
        .as_u64()
        .unwrap_or(0);
    // Same meaning as Anthropic's: `input_tokens` excludes the tokens read from the cache.
    let usage = Usage {
        input_tokens: prompt.saturating_sub(cached),
        output_tokens: u["completion_tokens"].as_u64().unwrap_or(0),
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: cached,
    };
    let choice = &v["choices"][0];
    if choice.is_null() {
        return Err(bad("it has no `choices[0]`".into()));
    }
    let message = &choice["message"];
    if let Some(refusal) = message["refusal"].as_str().filter(|r| !r.trim().is_empty()) {
        return Err(PlannerError::Refused {
            message: refusal.trim().to_string(),
        });
    }
    let finish = choice["finish_reason"].as_str().unwrap_or("");
    let Some(content) = message["content"].as_str() else {
        if finish == "content_filter" {
            return Err(PlannerError::Refused {
                message: "the provider's content filter stopped the answer".into(),
            });
        }
        return Err(bad("`choices[0].message.content` is not a string".into()));
    };
    let note = (finish == "length").then(|| {
        "the answer was cut off at the token limit, so the plan may be incomplete".to_string()
    });
    Ok(ModelReply {
        output: strip_code_fence(content).to_string(),
        usage,
        retries: 0,
        note,
    })
}

/// Some local servers wrap JSON in a Markdown fence even in JSON mode.
fn strip_code_fence(s: &str) -> &str {
    let t = s.trim();
    if let Some(rest) = t.strip_prefix("```")
        && let Some(inner) = rest.strip_suffix("```")
    {
        let inner = inner.strip_prefix("json").unwrap_or(inner);
        return inner.trim();
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_are_stripped() {
        assert_eq!(strip_code_fence("```json\n{\"a\":1}\n```"), "{\"a\":1}");
        assert_eq!(strip_code_fence(" {\"a\":1} "), "{\"a\":1}");
    }
}
