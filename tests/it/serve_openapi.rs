//! The OpenAPI document `planlock serve` publishes: valid OpenAPI 3.1 by an independent
//! validator (PyPI `openapi-spec-validator`, installed by scripts/test into a venv under the
//! target dir), and true of the server: real answers validate against its schemas.

use crate::serve::{Server, with_browser};
use crate::util;

use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};

/// `<target>/openapi-venv/bin/openapi-spec-validator`, or `$OPENAPI_SPEC_VALIDATOR`.
fn validator() -> Option<PathBuf> {
    let path = std::env::var_os("OPENAPI_SPEC_VALIDATOR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
                .parent()
                .expect("the target dir")
                .join("openapi-venv/bin/openapi-spec-validator")
        });
    if path.is_file() {
        return Some(path);
    }
    let why = format!(
        "no OpenAPI validator at {} (scripts/test installs openapi-spec-validator there: \
         python3 -m venv target/openapi-venv && target/openapi-venv/bin/pip install \
         openapi-spec-validator==0.7.2)",
        path.display()
    );
    if util::in_ci() {
        panic!("CI=true, so this is a failure, not a skip: {why}");
    }
    eprintln!("skipping: {why}");
    None
}

/// A schema of the document, as a JSON Schema whose `$ref`s resolve inside it.
fn schema_of(doc: &Value, name: &str) -> jsonschema::Validator {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": format!("#/components/schemas/{name}"),
        "components": doc["components"],
    });
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn assert_valid(doc: &Value, name: &str, instance: &Value) {
    let validator = schema_of(doc, name);
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(errors.is_empty(), "{name}: {errors:#?}\n{instance:#}");
}

#[test]
fn the_document_is_valid_openapi_3_1_and_true_of_the_server() {
    let Some(config) = with_browser() else { return };
    let server = Server::start(config);
    let http = reqwest::Client::new();
    let site = util::site().url("");
    util::rt().block_on(async {
        let doc: Value = http
            .get(server.url("/openapi.json"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(doc["openapi"], "3.1.0");
        for p in [
            "/v1/act",
            "/v1/plans",
            "/v1/runs",
            "/v1/runs/{id}",
            "/v1/runs/{id}/screenshots/{file}",
            "/v1/schema/plan",
            "/openapi.json",
            "/healthz",
            "/metrics",
        ] {
            assert!(doc["paths"][p].is_object(), "{p} is not documented");
        }
        if let Some(validator) = validator() {
            let dir = tempfile::tempdir().unwrap();
            let file = dir.path().join("openapi.json");
            std::fs::write(&file, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
            let out = Command::new(&validator)
                .args(["--schema", "3.1"])
                .arg(&file)
                .output()
                .unwrap();
            let said = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(out.status.success(), "openapi-spec-validator: {said}");
            assert!(said.contains("OK"), "{said}");
        }

        // Real answers fit the document.
        let plan = json!({"reasoning": "r", "steps": [
            {"type": "navigate", "url": format!("{site}/form.html")},
            {"type": "click", "describe": "missing", "text": "No such button", "timeout_seconds": 1},
            {"type": "done", "summary": "s"}]});
        let body = json!({"plan": plan, "allowed_hosts": ["127.0.0.1"]});
        let result: Value = http
            .post(server.url("/v1/runs"))
            .json(&body)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(result["status"], "failed", "{result:#}");
        assert_valid(&doc, "RunResult", &result);
        assert_valid(&doc, "RunView", &result);
        let accepted: Value = http
            .post(server.url("/v1/runs"))
            .header("prefer", "respond-async")
            .json(&body)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_valid(&doc, "Accepted", &accepted);
        let progress: Value = http
            .get(server.url(accepted["href"].as_str().unwrap()))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_valid(&doc, "RunView", &progress);
        let streamed = http
            .post(server.url("/v1/runs"))
            .header("accept", "application/x-ndjson")
            .json(&body)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        for line in streamed.lines() {
            assert_valid(&doc, "StreamLine", &serde_json::from_str(line).unwrap());
        }
        let list: Value = http
            .get(server.url("/v1/runs?limit=2"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_valid(&doc, "RunList", &list);
        let health: Value = http
            .get(server.url("/healthz"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_valid(&doc, "Health", &health);
        let error: Value = http
            .post(server.url("/v1/runs"))
            .json(&json!({"plan": {"reasoning": "", "steps": [{"type": "click", "describe": "x"}]}}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(error["error"]["kind"], "invalid_plan");
        assert_valid(&doc, "ErrorBody", &error);
        // Every example in the document fits its own schema.
        for (name, schema) in doc["components"]["schemas"].as_object().unwrap() {
            if let Some(example) = schema.get("example") {
                assert_valid(&doc, name, example);
            }
        }
    });
}

/// The clients under `clients/` are generated from this document (scripts/regenerate-clients;
/// scripts/test also checks the generated code): the committed copy must be the served one.
#[test]
fn the_clients_are_generated_from_the_document_the_server_serves() {
    let committed = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("clients/openapi.json"),
    )
    .expect("clients/openapi.json");
    let committed: serde_json::Value = serde_json::from_str(&committed).unwrap();
    assert!(
        &committed == planlock::server::openapi_document(),
        "clients/openapi.json is stale: run scripts/regenerate-clients and commit the result"
    );
}
