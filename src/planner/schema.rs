//! The plan schema as each provider wants it, derived from `plan::json_schema()` (the
//! single source of truth), plus cleaning of model output before validation.
//!
//! Key order is kept everywhere (`shift_remove`, never `remove`, which with serde_json's
//! `preserve_order` moves the last key into the hole): a server that enforces the schema
//! while generating makes the model write the properties in the schema's order, and the
//! plan's `reasoning` must come before its `steps`.

use serde_json::{Map, Value, json};

/// The tool `input_schema` for Anthropic: the generated plan schema with `$ref`s inlined,
/// without the plan's optional `$schema` field (a model has no use for it) and without
/// JSON-Schema meta keywords.
pub fn anthropic_input_schema() -> Value {
    let mut schema = crate::plan::json_schema();
    let defs = schema
        .as_object_mut()
        .and_then(|o| o.shift_remove("$defs"))
        .unwrap_or(Value::Null);
    if let Some(o) = schema.as_object_mut() {
        o.shift_remove("$schema");
        if let Some(Value::Object(props)) = o.get_mut("properties") {
            props.shift_remove("$schema");
        }
    }
    inline_refs(&mut schema, &defs, 0);
    strip_keyword(&mut schema, "format");
    schema
}

/// The `response_format` schema for OpenAI strict mode: every property listed in
/// `required` (optional ones made nullable), `additionalProperties: false` on every object,
/// `anyOf` instead of `oneOf`, `enum` instead of `const`, no `format`.
pub fn openai_strict_schema() -> Value {
    let mut schema = anthropic_input_schema();
    if let Some(o) = schema.as_object_mut() {
        o.shift_remove("title");
    }
    strictify(&mut schema);
    schema
}

fn inline_refs(v: &mut Value, defs: &Value, depth: usize) {
    assert!(depth < 32, "the plan schema is not recursive");
    match v {
        Value::Object(o) => {
            if let Some(Value::String(r)) = o.get("$ref")
                && let Some(name) = r.strip_prefix("#/$defs/")
                && let Some(Value::Object(def)) = defs.get(name)
            {
                let mut merged = def.clone();
                o.shift_remove("$ref");
                for (k, val) in std::mem::take(o) {
                    merged.insert(k, val);
                }
                *o = merged;
            }
            for val in o.values_mut() {
                inline_refs(val, defs, depth + 1);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| inline_refs(x, defs, depth + 1)),
        _ => {}
    }
}

fn strip_keyword(v: &mut Value, key: &str) {
    match v {
        Value::Object(o) => {
            // Only a keyword when it sits beside a schema's `type`, not a property name.
            if o.get(key).is_some_and(Value::is_string) && o.contains_key("type") {
                o.shift_remove(key);
            }
            for (k, val) in o.iter_mut() {
                if k == "properties" {
                    if let Value::Object(props) = val {
                        props.values_mut().for_each(|p| strip_keyword(p, key));
                    }
                } else {
                    strip_keyword(val, key);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| strip_keyword(x, key)),
        _ => {}
    }
}

fn strictify(v: &mut Value) {
    match v {
        Value::Object(o) => {
            if let Some(one_of) = o.shift_remove("oneOf") {
                o.insert("anyOf".into(), one_of);
            }
            if let Some(c) = o.shift_remove("const") {
                o.insert("enum".into(), json!([c]));
            }
            if o.get("properties").is_some_and(Value::is_object) {
                let required: Vec<String> = o
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| {
                        r.iter()
                            .filter_map(|s| s.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default();
                let mut all = Vec::new();
                if let Some(Value::Object(props)) = o.get_mut("properties") {
                    for (name, prop) in props.iter_mut() {
                        strictify(prop);
                        if !required.contains(name) {
                            make_nullable(prop);
                        }
                        all.push(Value::String(name.clone()));
                    }
                }
                o.insert("required".into(), Value::Array(all));
                o.insert("additionalProperties".into(), Value::Bool(false));
            }
            for (k, val) in o.iter_mut() {
                if k != "properties" {
                    strictify(val);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(strictify),
        _ => {}
    }
}

fn make_nullable(prop: &mut Value) {
    let Value::Object(o) = prop else { return };
    match o.get_mut("type") {
        Some(Value::String(t)) => {
            let t = t.clone();
            if t != "null" {
                o.insert("type".into(), json!([t, "null"]));
            }
        }
        Some(Value::Array(types)) => {
            if !types.iter().any(|t| t == "null") {
                types.push(json!("null"));
            }
        }
        _ => {
            let inner = Value::Object(std::mem::take(o));
            let mut wrapped = Map::new();
            wrapped.insert("anyOf".into(), json!([inner, {"type": "null"}]));
            *o = wrapped;
        }
    }
}

/// Removes `null` members of objects, recursively: strict mode makes models write
/// `"selector": null` for absent optional fields; plans leave them out.
pub fn drop_nulls(v: &mut Value) {
    match v {
        Value::Object(o) => {
            o.retain(|_, val| !val.is_null());
            o.values_mut().for_each(drop_nulls);
        }
        Value::Array(a) => a.iter_mut().for_each(drop_nulls),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk<'a>(v: &'a Value, out: &mut Vec<&'a Map<String, Value>>) {
        match v {
            Value::Object(o) => {
                out.push(o);
                o.values().for_each(|x| walk(x, out));
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }

    #[test]
    fn anthropic_schema_is_self_contained_and_lists_every_step() {
        let s = anthropic_input_schema();
        assert_eq!(s["type"], "object");
        assert!(s.get("$defs").is_none());
        assert!(!s.to_string().contains("$ref"));
        assert!(s["properties"].get("$schema").is_none());
        let variants = s["properties"]["steps"]["items"]["oneOf"]
            .as_array()
            .unwrap();
        let tags: Vec<&str> = variants
            .iter()
            .map(|v| v["properties"]["type"]["const"].as_str().unwrap())
            .collect();
        assert_eq!(tags, crate::plan::step_types().collect::<Vec<_>>());
    }

    #[test]
    fn openai_schema_obeys_strict_mode() {
        let s = openai_strict_schema();
        let text = s.to_string();
        for banned in ["oneOf", "$ref", "\"format\"", "\"const\""] {
            assert!(!text.contains(banned), "{banned} in strict schema");
        }
        let mut objects = Vec::new();
        walk(&s, &mut objects);
        let mut checked = 0;
        for o in objects {
            if let Some(Value::Object(props)) = o.get("properties") {
                checked += 1;
                let req: Vec<&str> = o["required"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_str().unwrap())
                    .collect();
                let keys: Vec<&str> = props.keys().map(String::as_str).collect();
                assert_eq!(req, keys);
                assert_eq!(o["additionalProperties"], false);
            }
        }
        assert_eq!(checked, 12, "the plan, ten step objects and a question");
        let click = &s["properties"]["steps"]["items"]["anyOf"][1];
        assert_eq!(click["properties"]["type"]["enum"], json!(["click"]));
        assert_eq!(
            click["properties"]["text"]["type"],
            json!(["string", "null"])
        );
        assert_eq!(click["properties"]["describe"]["type"], "string");
    }

    #[test]
    fn reasoning_comes_before_steps_and_a_plan_has_a_step() {
        for s in [anthropic_input_schema(), openai_strict_schema()] {
            let keys: Vec<&str> = s["properties"]
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            assert_eq!(keys, ["reasoning", "steps", "questions"]);
            assert_eq!(s["properties"]["steps"]["minItems"], 1);
        }
        assert_eq!(
            openai_strict_schema()["required"],
            json!(["reasoning", "steps", "questions"])
        );
    }

    #[test]
    fn nulls_are_dropped_deeply() {
        let mut v = json!({"a": null, "b": [{"c": null, "d": 1}]});
        drop_nulls(&mut v);
        assert_eq!(v, json!({"b": [{"d": 1}]}));
    }
}
