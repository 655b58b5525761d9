//! The OpenAPI 3.1 document of the service, derived from the handlers and the types they
//! read and answer (utoipa), with the plan schema filled in from the plan's Rust types and
//! every error the API answers listed from one table, so none of it can drift apart.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use serde::Serialize;
use serde_json::{Value, json};
use utoipa::openapi::{RefOr, Schema};
use utoipa::{OpenApi, ToSchema};

use super::request::{ActBody, PlansBody, RunBody};
use super::routes;
use crate::plan;

/// The document served at `/openapi.json`.
pub fn document() -> &'static Value {
    static DOC: LazyLock<Value> = LazyLock::new(build);
    &DOC
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "planlock",
        description = "A goal becomes a JSON plan with one model call; a model-free executor \
                       replays it in headless Chromium and a bound mailbox, inside a lock fixed \
                       from the request. Every error is `{\"error\":{\"kind\",\"message\"}}`.",
        license(name = "MIT OR Apache-2.0", identifier = "MIT OR Apache-2.0")
    ),
    paths(
        routes::create_run,
        routes::list_runs,
        routes::act,
        routes::create_plan,
        routes::get_run,
        routes::cancel_run,
        routes::screenshot,
        routes::plan_schema,
        routes::openapi,
        routes::healthz,
        routes::metrics,
    ),
    components(schemas(
        RunBody, ActBody, PlansBody, ErrorBody, ErrorDetail, Problem, RunResult, ActResult,
        StepOutcome, StepError, RunProgress, StepProgress, RunView, Accepted, RunList,
        RunSummary, Planned, Usage, Event, Health, Callback
    )),
    modifiers(&Bearer),
    tags(
        (name = "runs", description = "Replay plans, follow and cancel runs."),
        (name = "planning", description = "Goals to plans, with one model call."),
        (name = "service", description = "Health, metrics and descriptions.")
    )
)]
struct ApiDoc;

struct Bearer;

impl utoipa::Modify for Bearer {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "Required when the server has a token (`PLANLOCK_TOKEN`; always when it \
                         listens beyond loopback).",
                    ))
                    .build(),
            ),
        );
    }
}

/// `plan`: the plan object (see `Plan`), or a string holding its JSON.
pub(super) fn plan_or_text() -> impl Into<RefOr<Schema>> {
    use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Type};
    OneOfBuilder::new()
        .item(utoipa::openapi::Ref::from_schema_name("Plan"))
        .item(ObjectBuilder::new().schema_type(Type::String))
        .description(Some("The plan, or a string holding its JSON."))
}

/// The plan (see `Plan`).
fn plan_ref() -> impl Into<RefOr<Schema>> {
    utoipa::openapi::Ref::from_schema_name("Plan")
}

/// `inbox`: one entry or a list of them.
pub(super) fn inbox_entries() -> impl Into<RefOr<Schema>> {
    use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, OneOfBuilder, Type};
    let entry = || {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .description(Some(
                "`[BINDING=]NAME`: one of the server's inboxes (unnamed: the default inbox); or \
                 `[BINDING=]URL` when the server allows request inboxes.",
            ))
    };
    OneOfBuilder::new()
        .item(entry())
        .item(ArrayBuilder::new().items(entry()))
        .description(Some("The inboxes to bind, chosen by name."))
        .examples([json!("support"), json!(["support", "billing=sales"])])
}

/// A step's facts: which fields are set depends on the step type.
fn detail() -> impl Into<RefOr<Schema>> {
    use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, Type};
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .additional_properties(Some(AdditionalProperties::FreeForm(true)))
        .description(Some(
            "What the step did: `url`, `status`, `navigation`, the element located and how, \
             `email_subject`, `email_from`, `code` (masked), `link`, `text`, `summary`, and on \
             failure `screenshot_url`.",
        ))
        .examples([json!({"url": "https://shop.example/signup", "status": 200})])
}

/// A free-form JSON object.
fn any_object() -> impl Into<RefOr<Schema>> {
    use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, Type};
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .additional_properties(Some(AdditionalProperties::FreeForm(true)))
}

/// Every error answer.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"error": {"kind": "invalid_plan", "message": "the plan is not valid (1 problem): steps[0]: `click` needs `text` (preferred) or `selector`", "problems": [{"path": "steps[0]", "message": "`click` needs `text` (preferred) or `selector`"}]}}))]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(Serialize, ToSchema)]
pub struct ErrorDetail {
    /// For programs: see the table of kinds in the API documentation.
    pub kind: String,
    /// A sentence for people.
    pub message: String,
    /// Every problem of an invalid plan, each with its JSON path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problems: Option<Vec<Problem>>,
}

#[derive(Serialize, ToSchema)]
pub struct Problem {
    #[schema(example = "steps[2].selector")]
    pub path: String,
    pub message: String,
}

/// How a run ended.
#[allow(dead_code)] // Described, never built: answers are built from the runner's types.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Succeeded,
    Failed,
    Cancelled,
}

/// A step that failed, or the run's error.
#[derive(Serialize, ToSchema)]
pub struct StepError {
    /// `not_found`, `not_actionable`, `timeout`, `navigation`, `lock_refused`,
    /// `email_timeout`, `no_code`, `no_link`, `inbox`, `browser`, `browser_crashed`,
    /// `cancelled`, `invalid_input`, `run_timeout`, or `interrupted` (the server running the
    /// run stopped).
    #[schema(example = "not_found")]
    pub kind: String,
    pub message: String,
}

/// One step's outcome.
#[derive(Serialize, ToSchema)]
pub struct StepOutcome {
    pub index: usize,
    #[serde(rename = "type")]
    #[schema(example = "navigate")]
    pub step_type: String,
    pub describe: String,
    /// `succeeded`, `failed`, `cancelled` or `skipped` (not reached).
    pub status: String,
    pub duration_ms: u64,
    #[schema(schema_with = detail)]
    pub detail: Value,
    pub error: Option<StepError>,
}

/// Where a run's webhook delivery stands.
#[derive(Serialize, ToSchema)]
pub struct Callback {
    pub url: String,
    /// `pending`, `delivered` or `failed` (every attempt used, or the address refused).
    pub status: String,
    pub attempts: u32,
    pub last_error: Option<String>,
}

/// The result of a run that has ended.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"run_id": "rczdrdic", "status": "succeeded", "summary": "signed up", "failed_step": null, "error": null, "steps": [{"index": 0, "type": "navigate", "describe": "go to https://shop.example/signup", "status": "succeeded", "duration_ms": 265, "detail": {"url": "https://shop.example/signup", "status": 200}}, {"index": 1, "type": "done", "describe": "signed up", "status": "succeeded", "duration_ms": 0, "detail": {"summary": "signed up"}}], "extracted": [], "inbox_address": null, "duration_ms": 2313, "allowed_hosts": ["shop.example"], "refused": 0}))]
pub struct RunResult {
    pub run_id: String,
    pub status: RunStatus,
    pub summary: String,
    /// The index of the step that failed, or null.
    pub failed_step: Option<usize>,
    pub error: Option<StepError>,
    pub steps: Vec<StepOutcome>,
    /// `extract_text` results, in order.
    pub extracted: Vec<String>,
    /// This run's address in its default inbox.
    pub inbox_address: Option<String>,
    pub duration_ms: u64,
    /// The sites the lock allowed.
    pub allowed_hosts: Vec<String>,
    /// Requests the lock refused during the run.
    pub refused: usize,
    /// The plan's name, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<String>,
    /// The webhook delivery, when the run has a `callback_url`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub callback: Option<Callback>,
}

/// The result of `POST /v1/act`: a run result with the planning.
#[derive(Serialize, ToSchema)]
pub struct ActResult {
    #[serde(flatten)]
    pub result: RunResult,
    pub planning: Planned,
}

/// A step of a run that has not ended.
#[derive(Serialize, ToSchema)]
pub struct StepProgress {
    pub index: usize,
    #[serde(rename = "type")]
    pub step_type: String,
    pub describe: String,
    /// `running` for the current step; then as in a result.
    pub status: String,
    pub duration_ms: Option<u64>,
    #[schema(schema_with = detail)]
    pub detail: Option<Value>,
    pub error: Option<StepError>,
}

/// A run that is queued or running.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"run_id": "qsbqxhbb", "status": "running", "created_at": "2026-12-01T07:17:25.170Z", "started_at": "2026-12-01T07:17:25.175Z", "steps_total": 3, "steps": [{"index": 0, "type": "navigate", "describe": "go to https://shop.example/", "status": "succeeded", "duration_ms": 249, "detail": {"url": "https://shop.example/", "status": 200}}, {"index": 1, "type": "wait_seconds", "describe": "wait 2 s", "status": "running"}], "extracted": [], "inbox_address": null, "allowed_hosts": ["shop.example"]}))]
pub struct RunProgress {
    pub run_id: String,
    /// `queued` (waiting for a slot) or `running`.
    pub status: String,
    pub created_at: String,
    pub started_at: Option<String>,
    pub steps_total: usize,
    /// The steps started so far.
    pub steps: Vec<StepProgress>,
    pub extracted: Vec<String>,
    pub inbox_address: Option<String>,
    pub allowed_hosts: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub callback: Option<Callback>,
}

/// A run: its result once it has ended, its progress before.
#[allow(dead_code)] // Described, never built.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub enum RunView {
    Ended(RunResult),
    InFlight(RunProgress),
}

/// `202 Accepted` for `Prefer: respond-async`.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"run_id": "qsbqxhbb", "status": "queued", "href": "/v1/runs/qsbqxhbb"}))]
pub struct Accepted {
    pub run_id: String,
    /// `queued` or `running`.
    pub status: String,
    /// Where to poll.
    pub href: String,
    /// `POST /v1/act` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub planning: Option<Planned>,
}

/// One run in a list.
#[derive(Serialize, ToSchema)]
pub struct RunSummary {
    pub run_id: String,
    /// `queued`, `running`, `succeeded`, `failed` or `cancelled`.
    pub status: String,
    pub created_at: String,
    pub started_at: Option<String>,
    pub finished_at: Option<String>,
    pub summary: Option<String>,
    pub plan: Option<String>,
    pub steps_total: usize,
    pub allowed_hosts: Vec<String>,
    pub href: String,
}

/// A page of runs, newest first.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"runs": [{"run_id": "qsbqxhbb", "status": "succeeded", "created_at": "2026-12-01T07:17:25.170Z", "started_at": "2026-12-01T07:17:25.175Z", "finished_at": "2026-12-01T07:17:27.301Z", "summary": "signed up", "plan": null, "steps_total": 7, "allowed_hosts": ["shop.example"], "href": "/v1/runs/qsbqxhbb"}], "next_cursor": "MTc2NDU3MzQ0NTE3MDpxc2JxeGhiYg"}))]
pub struct RunList {
    pub runs: Vec<RunSummary>,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
}

/// Token counts of the one model call.
#[derive(Serialize, ToSchema)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub cache_read_input_tokens: u64,
}

/// A plan made from a goal.
#[derive(Serialize, ToSchema)]
pub struct Planned {
    #[schema(schema_with = plan_ref)]
    pub plan: Value,
    /// The plan came from the cache (no model call; usage all zeros).
    pub cached: bool,
    pub usage: Usage,
    #[schema(example = "anthropic:claude-sonnet-4-5")]
    pub model: String,
    pub prompt_version: String,
    /// The goal as planned (runs of whitespace collapsed).
    pub goal: String,
    /// The registrable domain of the first site the goal names.
    pub site: String,
    /// Transport retries of the one request.
    pub retries: u32,
    pub warnings: Vec<String>,
}

/// One NDJSON line of a streamed run.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"event": "step_succeeded", "run_id": "rczdrdic", "ts": "2026-12-01T07:17:23.098Z", "index": 0, "type": "navigate", "describe": "go to https://shop.example/", "duration_ms": 265, "detail": {"url": "https://shop.example/", "status": 200}}))]
pub struct Event {
    /// `planned` (act, first), `run_started`, `step_started`, `step_succeeded`,
    /// `step_failed`, `run_finished`, then `result` (the last line: the run's result).
    pub event: String,
    pub run_id: String,
    /// RFC 3339 with milliseconds, UTC.
    pub ts: Option<String>,
    pub index: Option<usize>,
    #[serde(rename = "type")]
    pub step_type: Option<String>,
    pub describe: Option<String>,
    pub duration_ms: Option<u64>,
    pub error: Option<StepError>,
    #[schema(schema_with = any_object)]
    pub detail: Option<Value>,
}

/// `GET /healthz`
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"status": "ok", "version": "0.1.0", "replica": "web-1:8080", "browser": "ok", "runs_in_flight": 1, "max_runs": 4, "queue_depth": 0, "queue_limit": 32}))]
pub struct Health {
    /// `ok`, or `shutting_down`.
    pub status: String,
    pub version: String,
    /// This replica's name in the run store.
    pub replica: String,
    /// `ok`, or why the browser is not usable.
    pub browser: String,
    pub runs_in_flight: usize,
    pub max_runs: usize,
    /// Runs waiting for a slot.
    pub queue_depth: usize,
    pub queue_limit: usize,
}

/// Where an error applies.
#[derive(Clone, Copy, PartialEq)]
enum Applies {
    /// Every operation.
    All,
    /// Operations under `/v1/` (the token).
    V1,
    /// Operations that read a JSON body.
    Body,
    /// Operations that start runs.
    Runs,
    /// Operations that call the model.
    Model,
    /// Operations on one run.
    OneRun,
    /// `GET /v1/runs`.
    List,
}

/// Every error the API answers: status, kind, an example sentence, and where it applies.
const ERRORS: &[(u16, &str, &str, Applies)] = &[
    (
        400,
        "malformed_json",
        "the request body is not valid JSON: EOF while parsing an object at line 1 column 9",
        Applies::Body,
    ),
    (
        400,
        "invalid_request",
        "the request body is JSON but not a valid request: unknown field `allowed_host`, expected one of `plan`, `vars`, `secrets`, `inbox`, `allowed_hosts`, `callback_url` at line 1 column 28",
        Applies::Body,
    ),
    (
        400,
        "unreadable_body",
        "cannot read the request body: connection reset",
        Applies::Body,
    ),
    (
        400,
        "malformed_request",
        "the request is not valid HTTP/1.1 (its request line or a header could not be read)",
        Applies::All,
    ),
    (
        400,
        "invalid_query",
        "status `done` is not a run status: give one of queued, running, succeeded, failed, cancelled",
        Applies::List,
    ),
    (
        401,
        "unauthorized",
        "this server requires a bearer token: send `Authorization: Bearer TOKEN` (the token is the server's PLANLOCK_TOKEN)",
        Applies::V1,
    ),
    (
        403,
        "forbidden_host",
        "this server does not answer to the host name `rebind.attacker.test`: it answers to its IP addresses, localhost and the names it was started with (--host-name NAME)",
        Applies::All,
    ),
    (
        403,
        "cross_site_request",
        "requests from web pages of other origins are refused (Origin: https://attacker.test): a page could otherwise start runs with this server's inboxes and secrets. Call this API from a program, not from a browser page",
        Applies::All,
    ),
    (
        404,
        "run_not_found",
        "there is no run `qsbqxhbb` (finished runs are kept for --keep-days days, then forgotten)",
        Applies::OneRun,
    ),
    (
        413,
        "body_too_large",
        "the request body is larger than this server accepts (1 MiB); plans are small, so check what is being sent",
        Applies::Body,
    ),
    (
        414,
        "uri_too_long",
        "the request's URL is longer than this server reads (64 KiB); the API's URLs are short: check what is being sent",
        Applies::All,
    ),
    (
        415,
        "unsupported_media_type",
        "send the body as JSON with `Content-Type: application/json` (this request has `text/plain`)",
        Applies::Body,
    ),
    (
        422,
        "invalid_plan",
        "the plan is not valid (1 problem): steps[0]: `click` needs `text` (preferred) or `selector`",
        Applies::Runs,
    ),
    (
        422,
        "invalid_variables",
        "`{{secret.SHOP_PASSWORD}}` has no value: give it in the request's `secrets`, or declare it on the server (planlock serve --secret SHOP_PASSWORD@HOST with PLANLOCK_SECRET_SHOP_PASSWORD set)",
        Applies::Runs,
    ),
    (
        422,
        "invalid_inbox",
        "inbox[0]: this server has no inbox named `work` (its inboxes: support)",
        Applies::Runs,
    ),
    (
        422,
        "invalid_allowed_hosts",
        "allowed_hosts: `*.shop.example` is not a host name: give a host like `shop.example` (wildcards are not needed: subdomains of a site are allowed with it)",
        Applies::Runs,
    ),
    (
        422,
        "lock_refused",
        "[plan] 127.0.0.1 is a private, loopback or link-local address, which the service never visits unless it is allowed explicitly. To let this run visit it, add \"127.0.0.1\" to `allowed_hosts`.",
        Applies::Runs,
    ),
    (
        422,
        "secret_not_allowed",
        "`{{secret.DEMO}}` may only be sent to shop.example, but this run may also visit attacker.test: a run that uses this secret may only visit the sites it is bound to",
        Applies::Runs,
    ),
    (
        422,
        "invalid_callback",
        "callback_url: this server cannot sign webhooks: it was started without PLANLOCK_WEBHOOK_SECRET",
        Applies::Runs,
    ),
    (
        422,
        "invalid_goal",
        "the goal names no site: say where, e.g. \"sign up at shop.example\"",
        Applies::Model,
    ),
    (
        422,
        "invalid_input",
        "the planner could not use the allowed host `*.x`",
        Applies::Model,
    ),
    (
        422,
        "model_refused",
        "the model declined to plan the goal: ...",
        Applies::Model,
    ),
    (
        429,
        "too_many_runs",
        "4 runs are executing and 32 waiting, the most this server takes (--max-runs 4, --queue 32); try again in about 3 s",
        Applies::Runs,
    ),
    (
        429,
        "too_many_plans",
        "4 plan requests are already waiting for the model, the most this server allows at once; try again shortly",
        Applies::Model,
    ),
    (
        500,
        "internal",
        "the server failed to handle this request; the details are in its log",
        Applies::All,
    ),
    (
        503,
        "shutting_down",
        "the server is shutting down and starts no new runs",
        Applies::Runs,
    ),
    (
        503,
        "browser_unavailable",
        "cannot start Chromium: no such file",
        Applies::Runs,
    ),
    (
        503,
        "inbox_unavailable",
        "the inbox imap://imap.example.com:993/INBOX is unreachable: connection refused",
        Applies::Runs,
    ),
    (
        503,
        "store_unavailable",
        "the run store could not read a run: pool timed out while waiting for an open connection",
        Applies::V1,
    ),
    (
        503,
        "model_not_configured",
        "this server has no planner configured",
        Applies::Model,
    ),
    (
        503,
        "model_unreachable",
        "the model did not answer: connection refused",
        Applies::Model,
    ),
    (
        503,
        "model_unauthorized",
        "the model provider refused the server's API key",
        Applies::Model,
    ),
    (
        503,
        "model_unavailable",
        "the provider could not serve the request, even after retries",
        Applies::Model,
    ),
    (
        503,
        "model_error",
        "the provider answered in an unexpected format",
        Applies::Model,
    ),
];

fn error_description(status: u16) -> &'static str {
    match status {
        400 => "The request could not be read.",
        401 => "The bearer token is missing or wrong.",
        403 => "A `Host` this server does not answer to, or a page of another origin.",
        404 => "No such run.",
        413 => "The body is over the limit.",
        414 => "The URL is over the limit.",
        415 => "The body is not `application/json`.",
        422 => "The request is well-formed but a value cannot be used; nothing ran.",
        429 => "Too much at once; `Retry-After` says when to come back.",
        500 => "A bug; the details are in the server's log.",
        _ => "Something the server depends on is not available.",
    }
}

/// The kinds an operation answers, by status.
fn errors_of(path: &str, method: &str) -> BTreeMap<u16, Vec<(&'static str, &'static str)>> {
    let v1 = path.starts_with("/v1/");
    let body = method == "post";
    let runs = method == "post" && (path == "/v1/runs" || path == "/v1/act");
    let model = method == "post" && (path == "/v1/act" || path == "/v1/plans");
    let one_run = path.starts_with("/v1/runs/{id}");
    let list = path == "/v1/runs" && method == "get";
    let mut out: BTreeMap<u16, Vec<(&str, &str)>> = BTreeMap::new();
    for (status, kind, example, applies) in ERRORS {
        let yes = match applies {
            Applies::All => true,
            Applies::V1 => v1,
            Applies::Body => body,
            Applies::Runs => runs,
            Applies::Model => model,
            Applies::OneRun => one_run,
            Applies::List => list,
        };
        let plans_only_runs = path == "/v1/plans"
            && matches!(
                *kind,
                "too_many_runs"
                    | "shutting_down"
                    | "browser_unavailable"
                    | "inbox_unavailable"
                    | "invalid_callback"
                    | "secret_not_allowed"
                    | "lock_refused"
            );
        if yes && !plans_only_runs {
            out.entry(*status).or_default().push((kind, example));
        }
    }
    out
}

fn build() -> Value {
    let mut doc = serde_json::to_value(ApiDoc::openapi()).expect("the document serializes");
    doc["openapi"] = json!("3.1.0");
    // Every error answer of every operation, from the one table.
    if let Some(paths) = doc["paths"].as_object_mut() {
        for (path, item) in paths.iter_mut() {
            let Some(ops) = item.as_object_mut() else {
                continue;
            };
            for (method, op) in ops.iter_mut() {
                if !matches!(method.as_str(), "get" | "post" | "delete") {
                    continue;
                }
                let responses = op["responses"].as_object_mut().expect("responses");
                for (status, kinds) in errors_of(path, method) {
                    let examples: serde_json::Map<String, Value> = kinds
                        .iter()
                        .map(|(kind, message)| {
                            (
                                kind.to_string(),
                                json!({"value": {"error": {"kind": kind, "message": message}}}),
                            )
                        })
                        .collect();
                    let names: Vec<&str> = kinds.iter().map(|(k, _)| *k).collect();
                    let mut response = json!({
                        "description": format!("{} `kind`: {}.", error_description(status), names.join(", ")),
                        "content": {"application/json": {
                            "schema": {"$ref": "#/components/schemas/ErrorBody"},
                            "examples": examples,
                        }},
                    });
                    if status == 429 {
                        response["headers"] = json!({"Retry-After": {
                            "description": "Seconds to wait before trying again.",
                            "schema": {"type": "integer", "minimum": 1}}});
                    }
                    if status == 401 {
                        response["headers"] = json!({"WWW-Authenticate": {
                            "description": "`Bearer realm=\"planlock\"`",
                            "schema": {"type": "string"}}});
                    }
                    responses.insert(status.to_string(), response);
                }
                if path.starts_with("/v1/") {
                    op["security"] = json!([{"bearer": []}, {}]);
                }
            }
        }
    }
    // The plan schema's own definitions become components, so every `$ref` resolves
    // against this document.
    let mut schema = plan::json_schema();
    let defs = schema
        .as_object_mut()
        .and_then(|o| {
            o.remove("$schema");
            o.remove("$defs")
        })
        .and_then(|d| match d {
            Value::Object(m) => Some(m),
            _ => None,
        })
        .unwrap_or_default();
    rewrite_refs(&mut schema);
    let schemas = doc["components"]["schemas"]
        .as_object_mut()
        .expect("the document has components.schemas");
    schemas.insert("Plan".to_string(), schema);
    for (name, mut def) in defs {
        rewrite_refs(&mut def);
        debug_assert!(!schemas.contains_key(&name), "{name} is defined twice");
        schemas.insert(name, def);
    }
    doc
}

fn rewrite_refs(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get_mut("$ref")
                && let Some(name) = r.strip_prefix("#/$defs/")
            {
                *r = format!("#/components/schemas/{name}");
            }
            map.values_mut().for_each(rewrite_refs);
        }
        Value::Array(items) => items.iter_mut().for_each(rewrite_refs),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every local `$ref` of the document points at something that exists.
    #[test]
    fn every_reference_resolves() {
        fn walk(v: &Value, doc: &Value, seen: &mut usize) {
            match v {
                Value::Object(m) => {
                    if let Some(Value::String(r)) = m.get("$ref") {
                        let pointer = r.strip_prefix('#').expect("local reference");
                        assert!(doc.pointer(pointer).is_some(), "{r} does not resolve");
                        *seen += 1;
                    }
                    m.values().for_each(|x| walk(x, doc, seen));
                }
                Value::Array(a) => a.iter().for_each(|x| walk(x, doc, seen)),
                _ => {}
            }
        }
        let doc = document();
        let mut seen = 0;
        walk(doc, doc, &mut seen);
        assert!(seen > 20, "{seen}");
        assert_eq!(doc["openapi"], "3.1.0");
        assert!(doc["components"]["schemas"]["Plan"]["properties"]["steps"].is_object());
    }

    /// Every operation documents its answers, each error with an example per kind.
    #[test]
    fn every_operation_documents_its_errors_with_examples() {
        let doc = document();
        let mut operations = 0;
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, op) in item.as_object().unwrap() {
                operations += 1;
                let responses = op["responses"].as_object().unwrap();
                assert!(
                    responses.keys().any(|s| s.starts_with('2')),
                    "{method} {path} has no success answer"
                );
                for status in ["403", "414", "500"] {
                    let examples = &responses[status]["content"]["application/json"]["examples"];
                    assert!(
                        examples.as_object().is_some_and(|e| !e.is_empty()),
                        "{method} {path} {status}"
                    );
                }
            }
        }
        assert!(operations >= 11, "{operations}");
        let runs = &doc["paths"]["/v1/runs"]["post"]["responses"];
        for status in [
            "200", "202", "400", "401", "413", "415", "422", "429", "503",
        ] {
            assert!(runs[status].is_object(), "POST /v1/runs documents {status}");
        }
        assert!(
            runs["422"]["content"]["application/json"]["examples"]["secret_not_allowed"]
                .is_object()
        );
        assert!(runs["429"]["headers"]["Retry-After"].is_object());
    }
}
