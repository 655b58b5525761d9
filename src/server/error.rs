//! The one error shape of the HTTP API: `{"error":{"kind","message"}}` with the status that
//! says whose problem it is (4xx the caller's, 503 the environment's, 500 ours).

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

use super::browser::BROWSER_WS_VAR;
use super::store::StoreError;
use crate::browser::BrowserError;
use crate::lock::LockError;
use crate::pipeline::RequestError;
use crate::plan::{self, PlanError, Problem, VarsError};
use crate::planner::PlannerError;
use crate::runner::SpecError;

/// An error answer. `kind` is for programs, `message` is a sentence for people.
#[derive(Debug, Clone)]
pub struct ApiError {
    pub status: StatusCode,
    pub kind: &'static str,
    pub message: String,
    /// Every problem of an invalid plan, each with its JSON path.
    pub problems: Vec<Problem>,
    /// Seconds, for 429 and 503.
    pub retry_after: Option<u64>,
}

impl ApiError {
    pub fn new(status: StatusCode, kind: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            kind,
            message: message.into(),
            problems: Vec::new(),
            retry_after: None,
        }
    }

    /// 400: the body is not JSON, or not the shape of the request.
    pub fn bad_request(kind: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, kind, message)
    }

    /// 422: the request has the right shape but a value cannot be used.
    pub fn unprocessable(kind: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, kind, message)
    }

    /// 503: something this server depends on (browser, inbox, model) is not available.
    pub fn unavailable(kind: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, kind, message)
    }

    pub fn not_found(kind: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, kind, message)
    }

    /// 500: a bug. The caller gets a generic sentence; the details go to the log.
    pub fn internal(detail: impl std::fmt::Display) -> ApiError {
        tracing::error!(%detail, "internal error");
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "the server failed to handle this request; the details are in its log",
        )
    }

    /// The same answer, its sentence said of `place` (a request field such as `inbox[1]` or
    /// `callback_url`).
    pub fn at(mut self, place: impl std::fmt::Display) -> ApiError {
        self.message = format!("{place}: {}", self.message);
        self
    }

    /// 422 with every problem of the plan, each naming its JSON path; a variable the plan
    /// uses and the request does not give is said to be given in `vars`.
    pub fn invalid_plan(e: &PlanError) -> ApiError {
        let problems: Vec<Problem> = e.problems().into_iter().map(in_api_words).collect();
        let message = match e {
            PlanError::Syntax { .. } => format!("`plan` is not valid JSON: {e}"),
            PlanError::Invalid(_) => {
                let p = &problems;
                let list: Vec<String> = p.iter().map(Problem::to_string).collect();
                format!(
                    "the plan is not valid ({} {}): {}",
                    p.len(),
                    if p.len() == 1 { "problem" } else { "problems" },
                    list.join("; ")
                )
            }
        };
        ApiError {
            problems,
            ..ApiError::unprocessable("invalid_plan", message)
        }
    }

    fn body(&self) -> ErrorBody {
        ErrorBody {
            error: ErrorDetail {
                kind: self.kind.to_string(),
                message: self.message.clone(),
                problems: (!self.problems.is_empty()).then(|| self.problems.clone()),
            },
        }
    }
}

/// Every error answer.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"error": {"kind": "invalid_plan", "message": "the plan is not valid (1 problem): steps[0]: `click` needs `text` (preferred) or `selector`", "problems": [{"path": "steps[0]", "message": "`click` needs `text` (preferred) or `selector`"}]}}))]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorDetail {
    /// For programs: see the table of kinds in the API documentation.
    pub kind: String,
    /// A sentence for people.
    pub message: String,
    /// Every problem of an invalid plan, each with its JSON path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problems: Option<Vec<Problem>>,
}

/// A plan problem as the API says it: the front end's part of the sentence added.
fn in_api_words(problem: Problem) -> Problem {
    match &problem.unknown_variable {
        Some(_) => Problem {
            message: format!("{}; give it in `vars`", problem.message),
            ..problem
        },
        None => problem,
    }
}

impl From<PlanError> for ApiError {
    fn from(e: PlanError) -> ApiError {
        ApiError::invalid_plan(&e)
    }
}

/// A planner failure. The planner suggests 400 for a bad goal or variables; here every
/// well-formed request whose values cannot be used is a 422, so those become 422 too.
impl From<PlannerError> for ApiError {
    fn from(e: PlannerError) -> ApiError {
        let status = match e.http_status() {
            400 | 422 => StatusCode::UNPROCESSABLE_ENTITY,
            _ => StatusCode::SERVICE_UNAVAILABLE,
        };
        let message = match &e {
            PlannerError::BadAllowHost(lock) => format!("allowed_hosts: {lock}"),
            other => other.to_string(),
        };
        let mut err = ApiError::new(status, e.kind(), message);
        if let PlannerError::InvalidPlan { problems, .. } = e {
            err.problems = problems;
        }
        err
    }
}

/// 503: the run store cannot be read or written.
impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        ApiError::unavailable("store_unavailable", e.to_string())
    }
}

/// 503: the service's browser cannot be started or reached. Said for whoever runs the service:
/// how it chooses its browser.
impl From<BrowserError> for ApiError {
    fn from(e: BrowserError) -> ApiError {
        let message = match &e {
            BrowserError::NotFound => format!(
                "{e}; this server launches $CHROME, else Chromium's headless shell or the full \
                 browser where they are usually installed, or connects to a running one named \
                 by {} (planlock serve --browser-ws URL)",
                BROWSER_WS_VAR
            ),
            other => other.to_string(),
        };
        ApiError::unavailable("browser_unavailable", message)
    }
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
impl From<RequestError> for ApiError {
    fn from(e: RequestError) -> ApiError {
        match e {
            RequestError::Goal(e) => e.into(),
            // As the planner words a bad allowed host (`invalid_input`).
            RequestError::Lock(e @ LockError::NotAHost { .. }) => {
                PlannerError::BadAllowHost(e).into()
            }
            RequestError::Lock(e) => e.into(),
        }
    }
}

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

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {}: {}",
            self.status.as_u16(),
            self.kind,
            self.message
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status, Json(self.body())).into_response();
        let headers = response.headers_mut();
        if self.status == StatusCode::UNAUTHORIZED {
            headers.insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"planlock\""),
            );
        }
        if let Some(secs) = self.retry_after {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_has_kind_message_and_problems() {
        let e = ApiError::invalid_plan(&PlanError::Invalid(vec![Problem::new(
            "steps[0].url",
            "not absolute",
        )]));
        assert_eq!(e.status, StatusCode::UNPROCESSABLE_ENTITY);
        let body = serde_json::to_value(e.body()).unwrap();
        assert_eq!(body["error"]["kind"], "invalid_plan");
        assert_eq!(body["error"]["problems"][0]["path"], "steps[0].url");
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("steps[0].url: not absolute")
        );
        let plain =
            serde_json::to_value(ApiError::bad_request("malformed_json", "x").body()).unwrap();
        assert!(plain["error"].get("problems").is_none());
    }

    #[test]
    fn an_unknown_variable_is_given_in_vars() {
        let e = ApiError::invalid_plan(&PlanError::Invalid(vec![Problem {
            unknown_variable: Some("coupon".into()),
            ..Problem::new("steps[0].url", "unknown variable `{{coupon}}`")
        }]));
        assert_eq!(
            e.problems[0].message,
            "unknown variable `{{coupon}}`; give it in `vars`"
        );
        assert!(e.message.ends_with("; give it in `vars`"), "{}", e.message);
    }

    #[test]
    fn a_missing_browser_is_said_as_the_service_finds_one() {
        let e = ApiError::from(BrowserError::NotFound);
        assert_eq!(e.status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(e.kind, "browser_unavailable");
        assert!(e.message.starts_with("no Chromium found"), "{}", e.message);
        assert!(e.message.contains("PLANLOCK_BROWSER_WS"), "{}", e.message);
        assert!(!e.message.contains("--browser PATH"), "{}", e.message);
    }
}
