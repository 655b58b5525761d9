//! The OpenAPI 3.1 document of the service: written by hand in `openapi.json`, with the plan
//! schema filled in from the Rust types when served, so the two cannot drift apart.

use std::sync::LazyLock;

use serde_json::Value;

use crate::plan;

const TEMPLATE: &str = include_str!("openapi.json");

/// The document served at `/openapi.json`.
pub fn document() -> &'static Value {
    static DOC: LazyLock<Value> = LazyLock::new(build);
    &DOC
}

fn build() -> Value {
    let mut doc: Value = serde_json::from_str(TEMPLATE).expect("openapi.json is valid JSON");
    let mut schema = plan::json_schema();
    // The plan schema's own definitions become components, so every `$ref` resolves
    // against this document.
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
        .expect("openapi.json has components.schemas");
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
}
