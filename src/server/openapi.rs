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
use super::error::ErrorBody;
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
        "too_many_runs_for_caller",
        "the caller at 203.0.113.7 already holds 18 runs executing or waiting, the most one caller may (--max-runs-per-caller 18), so that others get their turn; try again in about 3 s, when one of them has ended",
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
                    | "too_many_runs_for_caller"
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
