//! The OpenAPI 3.1 document of the service, derived (utoipa) from the handlers and the types
//! they read and answer, with the plan schema filled in from the plan's Rust types and every
//! error the API answers listed from one table.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use utoipa::OpenApi;

use super::api::{
    Accepted, ActResult, Health, Planned, PlansAnswer, RunList, RunProgress, RunView, StreamLine,
};
use super::error::{ApiErrorKind, ErrorBody};
use super::request::{ActBody, PlansBody, RunBody};
use super::routes;
use crate::plan;
use crate::runner::{Event, RunResult};

/// The document served at `/openapi.json`.
pub fn document() -> &'static Value {
    static DOC: LazyLock<Value> = LazyLock::new(build);
    &DOC
}

/// This document.
#[utoipa::path(get, path = "/openapi.json", tag = "service",
    responses((status = 200, description = "The OpenAPI 3.1 description of this API.", body = Object)))]
pub(super) async fn openapi() -> Response {
    axum::Json(document().clone()).into_response()
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
        openapi,
        routes::healthz,
        routes::metrics,
    ),
    components(schemas(
        RunBody, ActBody, PlansBody, ErrorBody, RunResult, ActResult, RunView, RunProgress,
        Accepted, RunList, Planned, PlansAnswer, StreamLine, Event, Health
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
    /// `GET /v1/runs/{id}/screenshots/{file}`.
    Screenshot,
    /// No operation of this document: a method a path does not take, or the MCP tools.
    Outside,
}

/// Where each kind is answered, and an example of its sentence. A kind added to the enum
/// does not compile until it is said here.
fn documented(kind: ApiErrorKind) -> (Applies, &'static str) {
    use ApiErrorKind::*;
    match kind {
        MalformedJson => (
            Applies::Body,
            "the request body is not valid JSON: EOF while parsing an object at line 1 column 9",
        ),
        InvalidRequest => (
            Applies::Body,
            "the request body is JSON but not a valid request: unknown field `allowed_host`, expected one of `plan`, `vars`, `secrets`, `inbox`, `allowed_hosts`, `callback_url`, `strict` at line 1 column 28",
        ),
        UnreadableBody => (
            Applies::Body,
            "cannot read the request body: connection reset",
        ),
        MalformedRequest => (
            Applies::All,
            "the request is not valid HTTP/1.1 (its request line or a header could not be read)",
        ),
        BadHost => (
            Applies::All,
            "the request names its host twice: send exactly one `Host` header naming this server",
        ),
        InvalidQuery => (
            Applies::List,
            "status `done` is not a run status: give one of queued, running, succeeded, failed, cancelled",
        ),
        Unauthorized => (
            Applies::V1,
            "this server requires a bearer token: send `Authorization: Bearer TOKEN` (the token is the server's PLANLOCK_TOKEN)",
        ),
        ForbiddenHost => (
            Applies::All,
            "this server does not answer to the host name `rebind.attacker.test`: it answers to its IP addresses, localhost and the host names its operator gave it. A page whose name was made to point at this machine (DNS rebinding) looks like this; if `rebind.attacker.test` is yours, its operator can add it",
        ),
        CrossSiteRequest => (
            Applies::All,
            "requests from web pages of other origins are refused (Origin: https://attacker.test): a page could otherwise start runs with this server's inboxes and secrets. Call this API from a program, not from a browser page",
        ),
        NotFound => (Applies::Screenshot, "run `qsbqxhbb` has no step-3.png"),
        RunNotFound => (
            Applies::OneRun,
            "there is no run `qsbqxhbb` (this server keeps finished runs for 7 days, then forgets them)",
        ),
        MethodNotAllowed => (
            Applies::Outside,
            "/v1/runs does not take PUT: the endpoints are listed at /openapi.json",
        ),
        BodyTimeout => (
            Applies::Body,
            "the request body did not arrive within 30 s; send it whole, at once",
        ),
        BodyTooLarge => (
            Applies::Body,
            "the request body is larger than this server accepts (1 MiB); plans are small, so check what is being sent",
        ),
        UriTooLong => (
            Applies::All,
            "the request's URL is longer than this server reads (64 KiB); the API's URLs are short: check what is being sent",
        ),
        UnsupportedMediaType => (
            Applies::Body,
            "send the body as JSON with `Content-Type: application/json` (this request has `text/plain`)",
        ),
        InvalidPlan => (
            Applies::Runs,
            "the plan is not valid (1 problem): steps[0]: `click` needs `text` (preferred) or `selector`",
        ),
        InvalidVariables => (
            Applies::Runs,
            "`{{secret.SHOP_PASSWORD}}` has no value: give it in the request's `secrets`; or this server's operator can declare SHOP_PASSWORD on it, with the site it may be typed into",
        ),
        InvalidInbox => (
            Applies::Runs,
            "inbox[0]: this server has no inbox named `work` (its inboxes: support)",
        ),
        InvalidAllowedHosts => (
            Applies::Runs,
            "allowed_hosts: `*.shop.example` is not a host name: give a host like `shop.example` (wildcards are not needed: subdomains of a site are allowed with it)",
        ),
        LockRefused => (
            Applies::Runs,
            "[plan] 127.0.0.1 is a private, loopback or link-local address, which the service never visits unless it is allowed explicitly. To let this run visit it, add \"127.0.0.1\" to `allowed_hosts`.",
        ),
        SecretNotAllowed => (
            Applies::Runs,
            "`{{secret.DEMO}}` may only be sent to shop.example, but this run may also visit attacker.test: a run that uses this secret may only visit the sites it is bound to",
        ),
        InvalidCallback => (
            Applies::Runs,
            "callback_url: this server cannot sign webhooks: it was started without PLANLOCK_WEBHOOK_SECRET",
        ),
        InvalidGoal => (
            Applies::Model,
            "the goal names no site: say where, e.g. \"sign up at shop.example\"",
        ),
        InvalidInput => (
            Applies::Model,
            "the planner could not use the allowed host `*.x`",
        ),
        ModelRefused => (Applies::Model, "the model declined to plan the goal: ..."),
        LookFailed => (
            Applies::Model,
            "could not load https://shop.example/: net::ERR_CONNECTION_REFUSED (`look` is \"required\")",
        ),
        Cancelled => (
            Applies::Outside,
            "the question for {{email}} was dismissed, so nothing ran",
        ),
        TooManyRuns => (
            Applies::Runs,
            "4 runs are executing and 32 waiting, the most this server takes; try again in about 3 s",
        ),
        TooManyRunsForCaller => (
            Applies::Runs,
            "the caller at 203.0.113.7 already holds 18 runs executing or waiting, the most one caller may on this server, so that others get their turn; try again in about 3 s, when one of them has ended",
        ),
        TooManyPlans => (
            Applies::Model,
            "4 plan requests are already waiting for the model, the most this server allows at once; try again shortly",
        ),
        HeadersTooLarge => (
            Applies::All,
            "the request's headers are larger than this server reads (about 400 KiB)",
        ),
        Internal => (
            Applies::All,
            "the server failed to handle this request; the details are in its log",
        ),
        ShuttingDown => (
            Applies::Runs,
            "the server is shutting down and starts no new runs",
        ),
        BrowserUnavailable => (Applies::Runs, "cannot start Chromium: no such file"),
        InboxUnavailable => (
            Applies::Runs,
            "the inbox imap://imap.example.com:993/INBOX is unreachable: connection refused",
        ),
        StoreUnavailable => (
            Applies::V1,
            "the run store could not read a run: pool timed out while waiting for an open connection",
        ),
        ModelNotConfigured => (Applies::Model, "this server has no planner configured"),
        ModelUnreachable => (
            Applies::Model,
            "the model did not answer: connection refused",
        ),
        ModelUnauthorized => (
            Applies::Model,
            "the model provider refused the server's API key",
        ),
        ModelUnavailable => (
            Applies::Model,
            "the provider could not serve the request, even after retries",
        ),
        ModelError => (
            Applies::Model,
            "the provider answered in an unexpected format",
        ),
    }
}

fn error_description(status: u16) -> &'static str {
    match status {
        400 => "The request could not be read.",
        401 => "The bearer token is missing or wrong.",
        403 => "A `Host` this server does not answer to, or a page of another origin.",
        404 => "No such run, or no such screenshot.",
        408 => "The body did not arrive in time.",
        413 => "The body is over the limit.",
        414 => "The URL is over the limit.",
        415 => "The body is not `application/json`.",
        422 => "The request is well-formed but a value cannot be used; nothing ran.",
        429 => "Too much at once; `Retry-After` says when to come back.",
        431 => "The headers are over the limit.",
        500 => "A bug; the details are in the server's log.",
        _ => "Something the server depends on is not available.",
    }
}

/// The kinds an operation answers, by status.
fn errors_of(path: &str, method: &str) -> BTreeMap<u16, Vec<(ApiErrorKind, &'static str)>> {
    let v1 = path.starts_with("/v1/");
    let body = method == "post";
    let runs = method == "post" && (path == "/v1/runs" || path == "/v1/act");
    let model = method == "post" && (path == "/v1/act" || path == "/v1/plans");
    let one_run = path.starts_with("/v1/runs/{id}");
    let list = path == "/v1/runs" && method == "get";
    let screenshot = path == "/v1/runs/{id}/screenshots/{file}";
    let mut out: BTreeMap<u16, Vec<(ApiErrorKind, &str)>> = BTreeMap::new();
    for &kind in ApiErrorKind::ALL {
        let (applies, example) = documented(kind);
        let yes = match applies {
            Applies::All => true,
            Applies::V1 => v1,
            Applies::Body => body,
            Applies::Runs => runs,
            Applies::Model => model,
            Applies::OneRun => one_run,
            Applies::List => list,
            Applies::Screenshot => screenshot,
            Applies::Outside => false,
        };
        let plans_only_runs = path == "/v1/plans"
            && matches!(
                kind,
                ApiErrorKind::TooManyRuns
                    | ApiErrorKind::TooManyRunsForCaller
                    | ApiErrorKind::ShuttingDown
                    | ApiErrorKind::BrowserUnavailable
                    | ApiErrorKind::InboxUnavailable
                    | ApiErrorKind::InvalidCallback
                    | ApiErrorKind::SecretNotAllowed
                    | ApiErrorKind::LockRefused
            );
        if yes && !plans_only_runs {
            out.entry(kind.status().as_u16())
                .or_default()
                .push((kind, example));
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
                    let names: Vec<String> = kinds.iter().map(|(k, _)| k.to_string()).collect();
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
    // The kinds no operation answers, each with its status, said where every kind is listed.
    let outside: Vec<String> = ApiErrorKind::ALL
        .iter()
        .filter_map(|&kind| match documented(kind) {
            (Applies::Outside, example) => Some(format!(
                "`{kind}` ({}), e.g. \"{example}\"",
                kind.status().as_u16()
            )),
            _ => None,
        })
        .collect();
    let kinds = &mut doc["components"]["schemas"]["ApiErrorKind"];
    let said = kinds["description"].as_str().unwrap_or_default();
    kinds["description"] = json!(format!(
        "{said}\n\nEach operation lists the kinds it answers under their statuses. No operation \
         answers these: {}.",
        outside.join("; ")
    ));
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

    /// Every error kind is in the document with its status: the `kind` schema lists every
    /// variant (the list is derived from the enum), and each kind is an example of its own
    /// status in some operation's answers, or, when no operation answers it, is said with its
    /// status in the schema's description.
    #[test]
    fn every_error_kind_is_documented_with_its_status() {
        let doc = document();
        let schemas = &doc["components"]["schemas"];
        assert_eq!(
            schemas["ErrorDetail"]["properties"]["kind"]["$ref"],
            "#/components/schemas/ApiErrorKind"
        );
        let listed: Vec<ApiErrorKind> = schemas["ApiErrorKind"]["enum"]
            .as_array()
            .expect("the kinds are an enum")
            .iter()
            .map(|k| serde_json::from_value(k.clone()).expect("a kind"))
            .collect();
        assert_eq!(listed.len(), ApiErrorKind::ALL.len(), "{listed:?}");
        for kind in ApiErrorKind::ALL {
            assert!(listed.contains(kind), "{kind} is missing from the schema");
        }
        let description = schemas["ApiErrorKind"]["description"].as_str().unwrap();
        let mut answered = BTreeMap::new();
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, op) in item.as_object().unwrap() {
                for (status, response) in op["responses"].as_object().unwrap() {
                    let examples = &response["content"]["application/json"]["examples"];
                    for kind in examples.as_object().into_iter().flat_map(|e| e.keys()) {
                        let ops: &mut Vec<String> =
                            answered.entry((kind.clone(), status.clone())).or_default();
                        ops.push(format!("{method} {path}"));
                    }
                }
            }
        }
        for &kind in &listed {
            let status = kind.status().as_u16().to_string();
            let in_operations = answered
                .keys()
                .filter(|(k, _)| *k == kind.to_string())
                .collect::<Vec<_>>();
            let in_description = description.contains(&format!("`{kind}` ({status})"));
            match documented(kind).0 {
                Applies::Outside => {
                    assert!(in_operations.is_empty(), "{kind}: {in_operations:?}");
                    assert!(in_description, "{kind} ({status}) in: {description}");
                }
                _ => {
                    assert!(!in_description, "{kind} is answered by operations");
                    assert_eq!(
                        in_operations,
                        vec![&(kind.to_string(), status.clone())],
                        "{kind} is documented under its status {status} only"
                    );
                }
            }
        }
    }

    /// The table of kinds in the user documentation is the enum's: every kind with its
    /// status, and no other (`cancelled`, which only the MCP tools answer, is in docs/mcp.md).
    /// The documentation predates the enum, so this also holds the wire names to what clients
    /// have always read.
    #[test]
    fn the_documented_table_of_kinds_is_the_enums() {
        let http = include_str!("../../docs/http-api.md");
        let rows: Vec<(u16, String)> = http
            .lines()
            .filter_map(|line| {
                let mut cells = line.split('|').map(str::trim).skip(1);
                let status = cells.next()?.parse().ok()?;
                let kind = cells.next()?.strip_prefix('`')?.strip_suffix('`')?;
                Some((status, kind.to_string()))
            })
            .collect();
        for kind in ApiErrorKind::ALL {
            let wire = serde_json::to_value(kind).unwrap();
            assert_eq!(wire, json!(kind.to_string()));
            assert_eq!(serde_json::from_value::<ApiErrorKind>(wire).unwrap(), *kind);
            if *kind == ApiErrorKind::Cancelled {
                let mcp = include_str!("../../docs/mcp.md");
                assert!(mcp.contains(r#"{"error": {"kind": "cancelled"}}"#));
                continue;
            }
            let row = (kind.status().as_u16(), kind.to_string());
            assert!(rows.contains(&row), "docs/http-api.md has no row {row:?}");
        }
        assert_eq!(rows.len(), ApiErrorKind::ALL.len() - 1, "{rows:?}");
    }
}
