//! The one error shape of the HTTP API: `{"error":{"kind","message"}}` with the status that
//! says whose problem it is (4xx the caller's, 503 the environment's, 500 ours).

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::browser::BROWSER_WS_VAR;
use super::store::StoreError;
use crate::browser::BrowserError;
use crate::lock::LockError;
use crate::pipeline::RequestError;
use crate::plan::{self, PlanError, Problem, VarsError};
use crate::planner::PlannerError;
use crate::runner::SpecError;

/// What went wrong, for programs: the `kind` of every error answer, of the HTTP API and of
/// the MCP tools alike. A kind always comes with the same HTTP status.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, strum::VariantArray,
)]
#[serde(rename_all = "snake_case")]
pub enum ApiErrorKind {
    /// The body is empty or not JSON.
    MalformedJson,
    /// The body (or a tool's arguments) is JSON but not the shape of the request.
    InvalidRequest,
    /// The body could not be read.
    UnreadableBody,
    /// The request is not valid HTTP/1.1.
    MalformedRequest,
    /// The request names no `Host`, names it twice, or not in ASCII.
    BadHost,
    /// `GET /v1/runs`: an unknown `status`, a `limit` out of range, a foreign `cursor`.
    InvalidQuery,
    /// The bearer token is missing or wrong.
    Unauthorized,
    /// `Host` is not a name this server answers to.
    ForbiddenHost,
    /// `Origin` or `Sec-Fetch-Site` says a page of another site sent the request.
    CrossSiteRequest,
    /// No such endpoint, or no such screenshot.
    NotFound,
    /// No run with this id.
    RunNotFound,
    /// The endpoint exists, but not with this method.
    MethodNotAllowed,
    /// The body did not arrive in time.
    BodyTimeout,
    /// The body is over the limit.
    BodyTooLarge,
    /// The URL is over the limit.
    UriTooLong,
    /// The body is not `application/json`.
    UnsupportedMediaType,
    /// The plan is not valid, or the model returned a plan that is not.
    InvalidPlan,
    /// A variable or secret cannot be used, or a secret has no value.
    InvalidVariables,
    /// An inbox the request names cannot be bound.
    InvalidInbox,
    /// An `allowed_hosts` entry is not a host.
    InvalidAllowedHosts,
    /// The lock refuses a place the request names.
    LockRefused,
    /// A secret is bound to hosts the run's lock goes beyond.
    SecretNotAllowed,
    /// `callback_url` cannot be used.
    InvalidCallback,
    /// The goal is empty or names no site.
    InvalidGoal,
    /// The planner could not use a variable or an allowed host.
    InvalidInput,
    /// The model declined to plan the goal.
    ModelRefused,
    /// `look` is `"required"` and the start page could not be read.
    LookFailed,
    /// A question of MCP `act` was dismissed, so nothing ran (MCP tools only).
    Cancelled,
    /// Too many runs executing and waiting.
    TooManyRuns,
    /// This caller has as many runs executing and waiting as one caller may.
    TooManyRunsForCaller,
    /// Too many plan requests waiting for the model.
    TooManyPlans,
    /// The request's headers are over the limit.
    HeadersTooLarge,
    /// A bug; the details are in the server's log.
    Internal,
    /// The server is shutting down and starts nothing new.
    ShuttingDown,
    /// The browser cannot be started or reached.
    BrowserUnavailable,
    /// A bound inbox cannot be reached.
    InboxUnavailable,
    /// The run store cannot be read or written.
    StoreUnavailable,
    /// No planner is configured.
    ModelNotConfigured,
    /// The model did not answer.
    ModelUnreachable,
    /// The model provider refused the server's API key.
    ModelUnauthorized,
    /// The provider could not serve the request, even after retries.
    ModelUnavailable,
    /// The provider rejected the request or answered in an unexpected format.
    ModelError,
}

impl ApiErrorKind {
    /// Every kind, grouped by status: the order of the OpenAPI document.
    pub const ALL: &[ApiErrorKind] = <ApiErrorKind as strum::VariantArray>::VARIANTS;

    /// The status that says whose problem it is: 4xx the caller's, 503 the environment's,
    /// 500 ours. A 422 means the request was well-formed and nothing ran.
    pub fn status(self) -> StatusCode {
        use ApiErrorKind::*;
        match self {
            MalformedJson | InvalidRequest | UnreadableBody | MalformedRequest | BadHost
            | InvalidQuery => StatusCode::BAD_REQUEST,
            Unauthorized => StatusCode::UNAUTHORIZED,
            ForbiddenHost | CrossSiteRequest => StatusCode::FORBIDDEN,
            NotFound | RunNotFound => StatusCode::NOT_FOUND,
            MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            BodyTimeout => StatusCode::REQUEST_TIMEOUT,
            BodyTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            UriTooLong => StatusCode::URI_TOO_LONG,
            UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            InvalidPlan | InvalidVariables | InvalidInbox | InvalidAllowedHosts | LockRefused
            | SecretNotAllowed | InvalidCallback | InvalidGoal | InvalidInput | ModelRefused
            | LookFailed | Cancelled => StatusCode::UNPROCESSABLE_ENTITY,
            TooManyRuns | TooManyRunsForCaller | TooManyPlans => StatusCode::TOO_MANY_REQUESTS,
            HeadersTooLarge => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            Internal => StatusCode::INTERNAL_SERVER_ERROR,
            ShuttingDown | BrowserUnavailable | InboxUnavailable | StoreUnavailable
            | ModelNotConfigured | ModelUnreachable | ModelUnauthorized | ModelUnavailable
            | ModelError => StatusCode::SERVICE_UNAVAILABLE,
        }
    }
}

/// The wire name, `snake_case` (serde writes a unit variant's name into a formatter).
impl std::fmt::Display for ApiErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.serialize(f)
    }
}

/// An error answer. `kind` is for programs (and decides the status), `message` is a sentence
/// for people.
#[derive(Debug, Clone)]
pub struct ApiError {
    pub kind: ApiErrorKind,
    pub message: String,
    /// Every problem of an invalid plan, each with its JSON path.
    pub problems: Vec<Problem>,
    /// Seconds, for 429.
    pub retry_after: Option<u64>,
}

impl ApiError {
    pub fn new(kind: ApiErrorKind, message: impl Into<String>) -> ApiError {
        ApiError {
            kind,
            message: message.into(),
            problems: Vec::new(),
            retry_after: None,
        }
    }

    pub fn status(&self) -> StatusCode {
        self.kind.status()
    }

    /// The same answer, telling the caller to come back in `secs` seconds.
    pub fn retry_after(self, secs: u64) -> ApiError {
        ApiError {
            retry_after: Some(secs),
            ..self
        }
    }

    /// 500: a bug. The caller gets a generic sentence; the details go to the log.
    pub fn internal(detail: impl std::fmt::Display) -> ApiError {
        tracing::error!(%detail, "internal error");
        ApiError::new(
            ApiErrorKind::Internal,
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
            ..ApiError::new(ApiErrorKind::InvalidPlan, message)
        }
    }

    /// The answer's body, as the HTTP API and the MCP tools say it.
    pub(super) fn body(&self) -> ErrorBody {
        ErrorBody {
            error: ErrorDetail {
                kind: self.kind,
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
    pub kind: ApiErrorKind,
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

/// A planner failure: the goal, the variables, a refusal or the plan are the caller's (422);
/// the model's configuration, network, key and provider are the server's environment (503:
/// the key is the server's, not the caller's, so a refused key is no 401 to the caller).
impl From<PlannerError> for ApiError {
    fn from(e: PlannerError) -> ApiError {
        use ApiErrorKind::*;
        let kind = match &e {
            PlannerError::EmptyGoal | PlannerError::NoSite { .. } => InvalidGoal,
            PlannerError::BadAllowHost(_) | PlannerError::Vars(_) => InvalidInput,
            PlannerError::ModelNotSet
            | PlannerError::BadModel { .. }
            | PlannerError::UnknownProvider { .. }
            | PlannerError::BadSetting { .. }
            | PlannerError::BadBaseUrl { .. }
            | PlannerError::MissingKey { .. } => ModelNotConfigured,
            PlannerError::Unreachable { .. } | PlannerError::Timeout { .. } => ModelUnreachable,
            PlannerError::Unauthorized { .. } => ModelUnauthorized,
            PlannerError::NotFound { .. }
            | PlannerError::Rejected { .. }
            | PlannerError::BadResponse { .. } => ModelError,
            PlannerError::Unavailable { .. } => ModelUnavailable,
            PlannerError::Refused { .. } => ModelRefused,
            PlannerError::InvalidPlan { .. } => InvalidPlan,
        };
        let message = match &e {
            PlannerError::BadAllowHost(lock) => format!("allowed_hosts: {lock}"),
            other => other.to_string(),
        };
        let mut err = ApiError::new(kind, message);
        if let PlannerError::InvalidPlan { problems, .. } = e {
            err.problems = problems;
        }
        err
    }
}

/// 503: the run store cannot be read or written.
impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        ApiError::new(ApiErrorKind::StoreUnavailable, e.to_string())
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
                 by {}: its operator chooses which",
                BROWSER_WS_VAR
            ),
            other => other.to_string(),
        };
        ApiError::new(ApiErrorKind::BrowserUnavailable, message)
    }
}

/// A caller variable as the request gives it: `vars.NAME`, and how to give one.
impl From<VarsError> for ApiError {
    fn from(e: VarsError) -> ApiError {
        let message = match &e {
            VarsError::BadVar { name, problem } => format!("vars.{name}: {problem}"),
            VarsError::Unknown(_) => format!("{e}: give it in `vars`"),
            VarsError::MissingSecret(name) => format!(
                "{e}: give it in the request's `secrets`; or this server's operator can \
                 declare {name} on it, with the site it may be typed into"
            ),
            other => other.to_string(),
        };
        ApiError::new(ApiErrorKind::InvalidVariables, message)
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
                ApiError::new(ApiErrorKind::SecretNotAllowed, e.to_string())
            }
            e @ SpecError::NoInboxAddress { .. } => ApiError::new(
                ApiErrorKind::InvalidInbox,
                format!("{e}: pass `inbox`, the name of one of this server's inboxes"),
            ),
            SpecError::UnboundInbox {
                step,
                step_type,
                inbox,
            } => ApiError::new(
                ApiErrorKind::InvalidInbox,
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
            LockError::NotAHost { .. } => ApiError::new(
                ApiErrorKind::InvalidAllowedHosts,
                format!("allowed_hosts: {e}"),
            ),
            LockError::PrivateAddress { ip, .. } => ApiError::new(
                ApiErrorKind::LockRefused,
                format!("{e} To let this run visit it, add \"{ip}\" to `allowed_hosts`."),
            ),
            _ => ApiError::new(ApiErrorKind::LockRefused, e.to_string()),
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {}: {}",
            self.status().as_u16(),
            self.kind,
            self.message
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status(), Json(self.body())).into_response();
        let headers = response.headers_mut();
        if self.kind == ApiErrorKind::Unauthorized {
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
        assert_eq!(e.status(), StatusCode::UNPROCESSABLE_ENTITY);
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
            serde_json::to_value(ApiError::new(ApiErrorKind::MalformedJson, "x").body()).unwrap();
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
        assert_eq!(e.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(e.kind, ApiErrorKind::BrowserUnavailable);
        assert!(e.message.starts_with("no Chromium found"), "{}", e.message);
        assert!(e.message.contains("PLANLOCK_BROWSER_WS"), "{}", e.message);
        assert!(!e.message.contains("--browser PATH"), "{}", e.message);
    }
}
