//! The JSON bodies of requests, read with the server's size bound: 415 for another content
//! type, 400 for malformed JSON or the wrong shape, 413 over the bound, 408 when too slow.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use serde::de::DeserializeOwned;

use super::error::{ApiError, ApiErrorKind};
use super::guard;
use super::state::AppState;
use crate::plan;

/// A JSON body read with the server's size bound. Only `Content-Type: application/json`
/// is read (415 otherwise); malformed JSON and bodies of the wrong shape are 400; a body over
/// the bound is 413.
pub struct JsonBody<T>(pub T);

impl<T: DeserializeOwned> FromRequest<AppState> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, ApiError> {
        guard::check_json_content_type(req.headers())?;
        let timeout = state.read_timeout();
        let read = tokio::time::timeout(timeout, Bytes::from_request(req, state)).await;
        let read = read.map_err(|_| {
            ApiError::new(
                ApiErrorKind::BodyTimeout,
                format!(
                    "the request body did not arrive within {} s; send it whole, at once",
                    timeout.as_secs_f64()
                ),
            )
        })?;
        let bytes = read.map_err(|r| {
            if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::new(
                    ApiErrorKind::BodyTooLarge,
                    format!(
                        "the request body is larger than this server accepts ({}); plans are \
                         small, so check what is being sent",
                        human_bytes(state.body_limit())
                    ),
                )
            } else {
                ApiError::new(
                    ApiErrorKind::UnreadableBody,
                    format!("cannot read the request body: {}", r.body_text()),
                )
            }
        })?;
        // Some clients (PowerShell, editors on Windows) start UTF-8 with a byte-order mark; it
        // is not part of the JSON.
        let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&bytes);
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(ApiError::new(
                ApiErrorKind::MalformedJson,
                "the request body is empty: send a JSON object, e.g. {\"plan\": {...}}",
            ));
        }
        if let Ok(text) = std::str::from_utf8(bytes) {
            refuse_duplicate_keys(text)?;
        }
        serde_json::from_slice(bytes).map(JsonBody).map_err(|e| {
            use serde_json::error::Category;
            match e.classify() {
                Category::Syntax | Category::Eof | Category::Io => ApiError::new(
                    ApiErrorKind::MalformedJson,
                    format!("the request body is not valid JSON: {e}"),
                ),
                Category::Data => ApiError::new(
                    ApiErrorKind::InvalidRequest,
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
                return Err(ApiError::new(
                    ApiErrorKind::InvalidRequest,
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
