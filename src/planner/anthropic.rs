//! Anthropic Messages API: the frozen system prompt as a cache-marked content block, the
//! plan schema as the `input_schema` of the one tool the model must call.

use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::{Value, json};

use super::config::Endpoint;
use super::{ModelReply, PlannerError, Usage, http, schema};

/// `anthropic-version` sent with every request.
pub const API_VERSION: &str = "2023-06-01";
/// The tool the model is made to call.
pub const TOOL_NAME: &str = "submit_plan";

/// The request body.
pub(crate) fn request_body(model: &str, user_message: &str, max_tokens: u32) -> Value {
    json!({
        "model": model,
        "max_tokens": max_tokens,
        "system": [{
            "type": "text",
            "text": super::prompt::SYSTEM_PROMPT,
            "cache_control": {"type": "ephemeral"}
        }],
        "tools": [{
            "name": TOOL_NAME,
            "description": "Submit the plan for the goal. Call this exactly once.",
            "input_schema": schema::anthropic_input_schema()
        }],
        "tool_choice": {"type": "tool", "name": TOOL_NAME},
        "messages": [{"role": "user", "content": user_message}]
    })
}

/// The request's headers: the API key, when there is one, and the API version.
pub(crate) fn headers(endpoint: &Endpoint) -> Result<HeaderMap, PlannerError> {
    let mut headers = HeaderMap::new();
    if let Some(key) = &endpoint.api_key {
        headers.insert("x-api-key", http::key_header("ANTHROPIC_API_KEY", key)?);
    }
    headers.insert("anthropic-version", HeaderValue::from_static(API_VERSION));
    Ok(headers)
}

/// Reads the `tool_use` block's input, the usage and refusals out of a Messages response
/// (`max_tokens`: the cap the request sent, named when the answer stopped there).
pub(crate) fn parse_response(body: &str, max_tokens: u32) -> Result<ModelReply, PlannerError> {
    let v: Value = serde_json::from_str(body).map_err(|e| PlannerError::BadResponse {
        provider: super::Provider::Anthropic,
        detail: format!("the body is not JSON ({e})"),
        body: super::truncate(body, 500),
    })?;
    let bad = |detail: &str| PlannerError::BadResponse {
        provider: super::Provider::Anthropic,
        detail: detail.to_string(),
        body: super::truncate(body, 500),
    };
    let u = &v["usage"];
    let n = |k: &str| u[k].as_u64().unwrap_or(0);
    let usage = Usage {
        input_tokens: n("input_tokens"),
        output_tokens: n("output_tokens"),
        cache_creation_input_tokens: n("cache_creation_input_tokens"),
        cache_read_input_tokens: n("cache_read_input_tokens"),
    };
    let content = v["content"]
        .as_array()
        .ok_or_else(|| bad("it has no `content` array"))?;
    let text: Vec<&str> = content
        .iter()
        .filter(|b| b["type"] == "text")
        .filter_map(|b| b["text"].as_str())
        .collect();
    let stop = v["stop_reason"].as_str().unwrap_or("");
    if stop == "refusal" {
        return Err(PlannerError::Refused {
            message: non_empty(text.join(" "), "stop_reason \"refusal\""),
        });
    }
    let tool = content
        .iter()
        .find(|b| b["type"] == "tool_use" && b["name"] == TOOL_NAME);
    let Some(tool) = tool else {
        if stop == "max_tokens" {
            return Err(PlannerError::InvalidPlan {
                problems: vec![crate::plan::Problem::new(
                    "$",
                    super::cut_off(max_tokens, true),
                )],
                returned: super::truncate(&text.join(" "), super::RETURNED_LIMIT),
                note: None,
                usage,
            });
        }
        return Err(PlannerError::Refused {
            message: non_empty(
                text.join(" "),
                &format!("the model answered without calling `{TOOL_NAME}`"),
            ),
        });
    };
    // The documented wire format has `input` as an object; some compatible servers send a
    // string of JSON. Either way the text goes to the validator, malformed or not.
    let output = match &tool["input"] {
        Value::String(s) => s.clone(),
        Value::Null => return Err(bad("the tool_use block has no `input`")),
        other => other.to_string(),
    };
    let note = (stop == "max_tokens").then(|| super::cut_off(max_tokens, false));
    Ok(ModelReply {
        output,
        usage,
        retries: 0,
        note,
    })
}

fn non_empty(s: String, fallback: &str) -> String {
    if s.trim().is_empty() {
        fallback.to_string()
    } else {
        s.trim().to_string()
    }
}
