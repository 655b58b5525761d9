//! One POST to a provider, with bounded transport retries of the same request on 429, 5xx
//! and 529 (overloaded), a deadline over all attempts, and errors that name what to fix.

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use reqwest::header::{HeaderMap, HeaderValue};

use super::config::{Endpoint, PlannerConfig, RetryPolicy};
use super::{ModelReply, PlannerError};

/// How a provider's answer is read into the model's reply: the body, and the output cap the
/// request sent (named when the answer stopped there).
pub(crate) type ReadReply = fn(&str, u32) -> Result<ModelReply, PlannerError>;

/// Asks the provider: posts `body` (see [`post_json`]) and reads the model's reply out of the
/// answer with the provider's `parse`.
pub(crate) async fn ask(
    client: &reqwest::Client,
    endpoint: &Endpoint,
    config: &PlannerConfig,
    headers: HeaderMap,
    body: &serde_json::Value,
    parse: ReadReply,
) -> Result<ModelReply, PlannerError> {
    let sent = post_json(
        client,
        endpoint,
        headers,
        body,
        &config.retry,
        config.timeout(),
    )
    .await?;
    let mut reply = parse(&sent.body, config.max_tokens())?;
    reply.retries = sent.retries;
    Ok(reply)
}

/// The provider's API key (`key`, read from the setting `var`) as a header value marked
/// sensitive, so that no log shows it.
pub(crate) fn key_header(var: &'static str, key: &str) -> Result<HeaderValue, PlannerError> {
    let mut v = HeaderValue::from_str(key).map_err(|_| PlannerError::BadSetting {
        var,
        value: "(hidden)".into(),
        reason: "it contains characters that cannot be sent in a header".into(),
    })?;
    v.set_sensitive(true);
    Ok(v)
}

/// A successful response body and how many retries it took.
pub(crate) struct Sent {
    pub body: String,
    pub retries: u32,
}

/// Posts `body` to the endpoint. Only the same request is ever repeated, and only for
/// statuses that say "try again later".
async fn post_json(
    client: &reqwest::Client,
    endpoint: &Endpoint,
    headers: HeaderMap,
    body: &serde_json::Value,
    retry: &RetryPolicy,
    timeout: Duration,
) -> Result<Sent, PlannerError> {
    let deadline = Instant::now() + timeout;
    let provider = endpoint.provider;
    let mut retries = 0;
    // What a request or its answer that did not come through says: the deadline passed, or
    // the provider could not be reached.
    let unsent = |e: reqwest::Error| {
        if e.is_timeout() {
            PlannerError::Timeout {
                url: endpoint.url.clone(),
                seconds: timeout.as_secs_f64(),
            }
        } else {
            PlannerError::Unreachable {
                provider,
                url: endpoint.url.clone(),
                detail: error_chain(&e),
            }
        }
    };
    loop {
        let remaining = deadline.saturating_duration_since(Instant::now());
        if remaining.is_zero() {
            return Err(PlannerError::Timeout {
                url: endpoint.url.clone(),
                seconds: timeout.as_secs_f64(),
            });
        }
        let result = client
            .post(&endpoint.url)
            .headers(headers.clone())
            .json(body)
            .timeout(remaining)
            .send()
            .await;
        let response = result.map_err(unsent)?;
        let status = response.status();
        let wait = retry_after(response.headers());
        let text = response.text().await.map_err(unsent)?;
        if status.is_success() {
            return Ok(Sent {
                body: text,
                retries,
            });
        }
        let message = error_message(&text);
        let retryable = status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error();
        if retryable {
            if retries < retry.max_retries {
                let backoff = retry.base_delay.saturating_mul(1 << retries.min(16));
                let delay = wait.unwrap_or(backoff).min(retry.max_delay);
                if Instant::now() + delay < deadline {
                    tracing::warn!(
                        status = status.as_u16(),
                        delay_ms = delay.as_millis() as u64,
                        "model request not served; retrying the same request"
                    );
                    tokio::time::sleep(delay).await;
                    retries += 1;
                    continue;
                }
            }
            return Err(PlannerError::Unavailable {
                provider,
                status: status.as_u16(),
                retries,
                message,
            });
        }
        return Err(match status {
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => PlannerError::Unauthorized {
                provider,
                status: status.as_u16(),
                message,
            },
            StatusCode::NOT_FOUND => PlannerError::NotFound {
                provider,
                url: endpoint.url.clone(),
                message,
            },
            _ => PlannerError::Rejected {
                provider,
                status: status.as_u16(),
                message,
            },
        });
    }
}

/// `retry-after-ms` (OpenAI) or `retry-after` in seconds or as an HTTP date.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    if let Some(ms) = headers
        .get("retry-after-ms")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|v| v.is_finite() && *v >= 0.0)
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let v = headers.get("retry-after")?.to_str().ok()?.trim();
    if let Ok(secs) = v.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let when = chrono::DateTime::parse_from_rfc2822(v).ok()?;
    let now = chrono::Utc::now();
    Some(
        (when.with_timezone(&chrono::Utc) - now)
            .to_std()
            .unwrap_or(Duration::ZERO),
    )
}

/// The provider's error message (`{"error":{"message":...}}` on both), else the body.
pub(crate) fn error_message(body: &str) -> String {
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(body) {
        let err = &v["error"];
        let msg = err["message"].as_str().or_else(|| err.as_str());
        if let Some(msg) = msg {
            return match err["type"].as_str() {
                Some(t) => format!("{t}: {msg}"),
                None => msg.to_string(),
            };
        }
    }
    super::truncate(body.trim(), 300)
}

/// The root cause of a transport error ("Connection refused (os error 111)"), which says more
/// than reqwest's outer layers.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut root: &dyn std::error::Error = e;
    while let Some(s) = root.source() {
        root = s;
    }
    let text = root.to_string();
    if text.is_empty() { e.to_string() } else { text }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_forms() {
        let mut h = HeaderMap::new();
        assert_eq!(retry_after(&h), None);
        h.insert("retry-after", "2".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", "150".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_millis(150)));
        let mut h = HeaderMap::new();
        h.insert(
            "retry-after",
            "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap(),
        );
        assert_eq!(retry_after(&h), Some(Duration::ZERO));
    }

    #[test]
    fn error_messages_from_both_providers() {
        assert_eq!(
            error_message(
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#
            ),
            "overloaded_error: Overloaded"
        );
        assert_eq!(
            error_message(
                r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}"#
            ),
            "invalid_request_error: Incorrect API key provided"
        );
        assert_eq!(
            error_message("<html>bad gateway</html>"),
            "<html>bad gateway</html>"
        );
    }
}
