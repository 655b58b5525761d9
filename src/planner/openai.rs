//! OpenAI-compatible Chat Completions: the system message first, the user message last, the
//! plan schema as a strict JSON-schema response format, the output capped.

use reqwest::header::{AUTHORIZATION, HeaderMap};
use serde_json::{Value, json};

use super::config::Endpoint;
use super::{ModelReply, PlannerError, Provider, Usage, http, schema};

/// The `json_schema.name` of the response format.
pub const SCHEMA_NAME: &str = "plan";

/// The request body. The output cap is sent as `max_tokens`, the name every
/// OpenAI-compatible server reads (llama.cpp, vLLM, Ollama, LM Studio, and OpenAI itself for
/// its chat models). OpenAI's newer `max_completion_tokens` is unknown to many of those
/// servers, which would ignore it and let a looping model run to the deadline; the OpenAI
/// models that refuse `max_tokens` (its reasoning models) say so in a 400, a loud error
/// rather than a silently missing cap.
pub(crate) fn request_body(model: &str, user_message: &str, max_tokens: u32) -> Value {
    json!({
        "model": model,
        "max_tokens": max_tokens,
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

/// The request's headers: the API key as a bearer token, when there is one.
pub(crate) fn headers(endpoint: &Endpoint) -> Result<HeaderMap, PlannerError> {
    let mut headers = HeaderMap::new();
    if let Some(key) = &endpoint.api_key {
        let bearer = http::key_header("OPENAI_API_KEY", &format!("Bearer {key}"))?;
        headers.insert(AUTHORIZATION, bearer);
    }
    Ok(headers)
}

/// Reads the message content, usage and refusals out of a Chat Completions response
/// (`max_tokens`: the cap the request sent, named when the answer stopped there).
pub(crate) fn parse_response(body: &str, max_tokens: u32) -> Result<ModelReply, PlannerError> {
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
    let content = message["content"].as_str();
    if finish == "length" && content.is_none_or(|c| c.trim().is_empty()) {
        return Err(PlannerError::InvalidPlan {
            problems: vec![crate::plan::Problem::new(
                "$",
                super::cut_off(max_tokens, true),
            )],
            returned: String::new(),
            note: None,
            usage,
        });
    }
    let Some(content) = content else {
        if finish == "content_filter" {
            return Err(PlannerError::Refused {
                message: "the provider's content filter stopped the answer".into(),
            });
        }
        return Err(bad("`choices[0].message.content` is not a string".into()));
    };
    let note = (finish == "length").then(|| super::cut_off(max_tokens, false));
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
