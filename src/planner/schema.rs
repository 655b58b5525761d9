//! The plan schema as each provider wants it, derived from `plan::json_schema()` (the
//! single source of truth), plus cleaning of model output before validation.
//!
//! The model reads what each step and field means once, in the system prompt; the schema it
//! is given is the plan's shape only (types, tags, required fields), with a shared field
//! (`criticality`) defined once under `$defs`. Local `$ref`s into `$defs` are accepted by
//! Anthropic's tool input schemas, by OpenAI's strict JSON-schema response format and by
//! llama.cpp's schema-to-grammar converter.
//!
//! Key order is kept everywhere (`shift_remove`, never `remove`, which with serde_json's
//! `preserve_order` moves the last key into the hole): a server that enforces the schema
//! while generating makes the model write the properties in the schema's order, and the
//! plan's `reasoning` must come before its `steps`.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

/// Keywords that explain rather than constrain: the system prompt says it once.
const EXPLAINING: [&str; 3] = ["description", "title", "format"];

/// The tool `input_schema` for Anthropic: the generated plan schema's shape, without the
/// plan's optional `$schema` field (a model has no use for it). A definition used by
/// several steps stays in `$defs` behind a `$ref`; one used once is written in place. An
/// optional field is simply not required (never `null`: a plan leaves it out).
pub fn anthropic_input_schema() -> Value {
    let mut schema = crate::plan::json_schema();
    let Value::Object(root) = &mut schema else {
        unreachable!("the plan schema is an object")
    };
    root.shift_remove("$schema");
    if let Some(Value::Object(props)) = root.get_mut("properties") {
        props.shift_remove("$schema");
    }
    let mut defs = match root.shift_remove("$defs") {
        Some(Value::Object(defs)) => defs,
        _ => Map::new(),
    };
    let mut uses = BTreeMap::new();
    count_refs(&schema, &mut uses);
    for d in defs.values() {
        count_refs(d, &mut uses);
    }
    let shared: Vec<String> = defs
        .keys()
        .filter(|name| uses.get(name.as_str()).is_some_and(|&n| n > 1))
        .cloned()
        .collect();
    inline_refs(&mut schema, &defs, &shared, 0);
    defs.retain(|name, _| shared.contains(name));
    let Value::Object(root) = &mut schema else {
        unreachable!()
    };
    if !defs.is_empty() {
        root.insert("$defs".into(), Value::Object(defs));
    }
    shape_only(&mut schema);
    schema
}

/// The `response_format` schema for OpenAI strict mode: every property listed in
/// `required` (optional ones made nullable), `additionalProperties: false` on every object,
/// `enum` instead of `const`. A shared definition that only optional fields use is made
/// nullable once, in `$defs`, instead of at each use.
pub fn openai_strict_schema() -> Value {
    let mut schema = anthropic_input_schema();
    let mut required_refs = Vec::new();
    refs_in_required_fields(&schema, &mut required_refs);
    let mut nullable_defs = Vec::new();
    strictify(&mut schema, &required_refs, &mut nullable_defs);
    if let Some(Value::Object(defs)) = schema.get_mut("$defs") {
        for (name, def) in defs.iter_mut() {
            if nullable_defs.contains(name) {
                make_nullable(def);
            }
        }
    }
    schema
}

/// The definition a `{"$ref": "#/$defs/NAME"}` schema points to.
fn ref_name(v: &Value) -> Option<&str> {
    v.get("$ref")?.as_str()?.strip_prefix("#/$defs/")
}

/// How often each definition is referenced, by name.
fn count_refs(v: &Value, uses: &mut BTreeMap<String, usize>) {
    match v {
        Value::Object(o) => {
            if let Some(name) = ref_name(v) {
                *uses.entry(name.to_string()).or_default() += 1;
            }
            o.values().for_each(|x| count_refs(x, uses));
        }
        Value::Array(a) => a.iter().for_each(|x| count_refs(x, uses)),
        _ => {}
    }
}

/// Writes each referenced definition in place, except the `shared` ones.
fn inline_refs(v: &mut Value, defs: &Map<String, Value>, shared: &[String], depth: usize) {
    assert!(depth < 32, "the plan schema is not recursive");
    match v {
        Value::Object(o) => {
            if let Some(Value::String(r)) = o.get("$ref")
                && let Some(name) = r.strip_prefix("#/$defs/")
                && !shared.iter().any(|s| s == name)
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
                inline_refs(val, defs, shared, depth + 1);
            }
        }
        Value::Array(a) => a
            .iter_mut()
            .for_each(|x| inline_refs(x, defs, shared, depth + 1)),
        _ => {}
    }
}

/// The schema's shape and nothing else: explaining keywords dropped, optional fields
/// without their `null`, a choice of string constants as one `enum`, `oneOf` as `anyOf`
/// (the steps' tags exclude each other anyway, and strict modes accept only `anyOf`).
fn shape_only(v: &mut Value) {
    match v {
        Value::Object(o) => {
            for key in EXPLAINING {
                if o.get(key).is_some_and(Value::is_string) {
                    o.shift_remove(key);
                }
            }
            if let Some(Value::Array(types)) = o.get("type")
                && types.len() == 2
                && types.iter().any(|t| t == "null")
            {
                let t = types.iter().find(|t| *t != "null").cloned();
                o.insert("type".into(), t.unwrap_or(Value::Null));
            }
            if let Some(Value::Array(alts)) = o.get("anyOf")
                && alts.len() == 2
                && alts[1] == json!({"type": "null"})
                && let Value::Object(inner) = alts[0].clone()
            {
                o.shift_remove("anyOf");
                for (k, val) in inner {
                    o.insert(k, val);
                }
            }
            if let Some(one_of) = o.shift_remove("oneOf") {
                o.insert("anyOf".into(), one_of);
            }
            for (k, val) in o.iter_mut() {
                if k == "properties" || k == "$defs" {
                    if let Value::Object(named) = val {
                        named.values_mut().for_each(shape_only);
                    }
                } else {
                    shape_only(val);
                }
            }
            if let Some(constants) = string_constants(o.get("anyOf")) {
                o.shift_remove("anyOf");
                o.insert("type".into(), json!("string"));
                o.insert("enum".into(), Value::Array(constants));
            }
        }
        Value::Array(a) => a.iter_mut().for_each(shape_only),
        _ => {}
    }
}

/// The constants of an `anyOf` whose every member is one string constant, else `None`.
fn string_constants(alts: Option<&Value>) -> Option<Vec<Value>> {
    let alts = alts?.as_array()?;
    alts.iter()
        .map(|alt| {
            let o = alt.as_object()?;
            let only_const = o.len() == 2 && o.get("type")? == "string";
            only_const.then(|| o.get("const").cloned()).flatten()
        })
        .collect()
}

/// The definitions some required field refers to (they cannot be made nullable in `$defs`).
fn refs_in_required_fields(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(o) => {
            if let (Some(Value::Object(props)), Some(Value::Array(required))) =
                (o.get("properties"), o.get("required"))
            {
                for (name, prop) in props {
                    if required.iter().any(|r| r == name)
                        && let Some(def) = ref_name(prop)
                    {
                        out.push(def.to_string());
                    }
                }
            }
            o.values().for_each(|x| refs_in_required_fields(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| refs_in_required_fields(x, out)),
        _ => {}
    }
}

fn strictify(v: &mut Value, required_refs: &[String], nullable_defs: &mut Vec<String>) {
    match v {
        Value::Object(o) => {
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
                        strictify(prop, required_refs, nullable_defs);
                        if !required.contains(name) {
                            match ref_name(prop) {
                                Some(def) if !required_refs.iter().any(|r| r == def) => {
                                    if !nullable_defs.iter().any(|d| d == def) {
                                        nullable_defs.push(def.to_string());
                                    }
                                }
                                _ => make_nullable(prop),
                            }
                        }
                        all.push(Value::String(name.clone()));
                    }
                }
                o.insert("required".into(), Value::Array(all));
                o.insert("additionalProperties".into(), Value::Bool(false));
            }
            for (k, val) in o.iter_mut() {
                if k == "$defs" {
                    if let Value::Object(defs) = val {
                        defs.values_mut()
                            .for_each(|d| strictify(d, required_refs, nullable_defs));
                    }
                } else if k != "properties" {
                    strictify(val, required_refs, nullable_defs);
                }
            }
        }
        Value::Array(a) => a
            .iter_mut()
            .for_each(|x| strictify(x, required_refs, nullable_defs)),
        _ => {}
    }
}

/// Lets `null` through a schema: in its `type` (and its `enum`, which would refuse it), or
/// as a second choice beside it.
fn make_nullable(prop: &mut Value) {
    let Value::Object(o) = prop else { return };
    if let Some(Value::Array(values)) = o.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
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
    fn anthropic_schema_is_the_shape_with_criticality_defined_once() {
        let s = anthropic_input_schema();
        assert_eq!(s["type"], "object");
        assert!(s["properties"].get("$schema").is_none());
        let variants = s["properties"]["steps"]["items"]["anyOf"]
            .as_array()
            .unwrap();
        let tags: Vec<&str> = variants
            .iter()
            .map(|v| v["properties"]["type"]["const"].as_str().unwrap())
            .collect();
        assert_eq!(tags, crate::plan::step_types().collect::<Vec<_>>());
        // Shared by every step: one definition, referred to ten times.
        let defs: Vec<&String> = s["$defs"].as_object().unwrap().keys().collect();
        assert_eq!(defs, ["Criticality"]);
        assert_eq!(
            s["$defs"]["Criticality"],
            json!({"type": "string", "enum": ["must", "should", "could"]})
        );
        for v in variants {
            assert_eq!(
                v["properties"]["criticality"],
                json!({"$ref": "#/$defs/Criticality"})
            );
        }
        // The prompt explains; the schema only constrains. Optional fields are left out,
        // never written as null.
        let text = s.to_string();
        for explaining in [
            "\"description\"",
            "\"title\"",
            "\"format\"",
            "\"null\"",
            "oneOf",
        ] {
            assert!(!text.contains(explaining), "{explaining} in {s:#}");
        }
        assert_eq!(variants[1]["properties"]["text"], json!({"type": "string"}));
    }

    #[test]
    fn openai_schema_obeys_strict_mode() {
        let s = openai_strict_schema();
        let text = s.to_string();
        for banned in ["oneOf", "\"format\"", "\"const\"", "\"description\""] {
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
        // Only ever optional, so nullable once where it is defined.
        assert_eq!(
            click["properties"]["criticality"],
            json!({"$ref": "#/$defs/Criticality"})
        );
        assert_eq!(
            s["$defs"]["Criticality"],
            json!({"type": ["string", "null"], "enum": ["must", "should", "could", null]})
        );
    }

    #[test]
    fn a_definition_also_required_somewhere_is_made_nullable_where_it_is_optional() {
        let mut required_refs = Vec::new();
        let mut schema = json!({
            "type": "object",
            "properties": {
                "a": {"$ref": "#/$defs/Tier"},
                "b": {"$ref": "#/$defs/Tier"}
            },
            "required": ["a"],
            "$defs": {"Tier": {"type": "string", "enum": ["x", "y"]}}
        });
        refs_in_required_fields(&schema, &mut required_refs);
        let mut nullable_defs = Vec::new();
        strictify(&mut schema, &required_refs, &mut nullable_defs);
        assert!(nullable_defs.is_empty());
        assert_eq!(schema["properties"]["a"], json!({"$ref": "#/$defs/Tier"}));
        assert_eq!(
            schema["properties"]["b"],
            json!({"anyOf": [{"$ref": "#/$defs/Tier"}, {"type": "null"}]})
        );
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
