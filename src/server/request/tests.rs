//! The bodies as callers send them, read (or refused) as `bodies.golden` says: what each body
//! holds, or the error's words with their place in the text, from the text (HTTP) and from a
//! value (MCP). The table was written when serde derived each body field by field, and the
//! hand-written reader was checked to answer every line of it the same.
//!
//! `PLANLOCK_WRITE_GOLDEN=1 cargo test --lib server::request` rewrites it.

use serde_json::Value;

use super::{ActBody, CheckBody, LookBody, Options, PlansBody, RunBody};

/// What a body read holds, to compare: its own fields, then the options.
fn options(o: &Options) -> String {
    format!(
        "{:?} {:?} {:?} {:?} {:?} {} {} {:?}",
        o.vars,
        o.secrets,
        o.inbox.list(),
        o.allowed_hosts,
        o.callback_url,
        o.strict,
        o.no_cache,
        o.look
    )
}

/// Reads `text` both ways, from the text (HTTP) and from a value (MCP), each as it would
/// be answered: what it holds, or the error's words.
fn both<T: serde::de::DeserializeOwned>(text: &str, seen: impl Fn(T) -> String) -> Vec<String> {
    let from_text = serde_json::from_str::<T>(text)
        .map(&seen)
        .unwrap_or_else(|e| format!("error: {e}"));
    let from_value = match serde_json::from_str::<Value>(text) {
        Ok(v) => serde_json::from_value::<T>(v)
            .map(&seen)
            .unwrap_or_else(|e| format!("error: {e}")),
        Err(_) => String::new(),
    };
    vec![from_text, from_value]
}

const BODIES: &[&str] = &[
    r#"{}"#,
    r#"[]"#,
    r#""a string""#,
    r#"null"#,
    r#"7"#,
    r#"{"plan": {"reasoning": "", "steps": []}}"#,
    r#"{"plan": "{}", "vars": {"A": "1"}, "secrets": {"S": "x"}, "inbox": "support"}"#,
    r#"{"plan": 1, "inbox": ["a", "b=c"], "allowed_hosts": ["x.test"], "strict": true}"#,
    r#"{"plan": {}, "callback_url": "https://h.test/", "strict": false}"#,
    r#"{"plan": {}, "callback_url": null}"#,
    r#"{"plan": {}, "allowed_host": ["x"]}"#,
    r#"{"plan": {}, "vars": null}"#,
    r#"{"plan": {}, "vars": {"A": 1}}"#,
    r#"{"plan": {}, "inbox": 3}"#,
    r#"{"plan": {}, "plan": {}}"#,
    r#"{"goal": "at https://a.test"}"#,
    r#"{"goal": null}"#,
    r#"{"goal": 5, "vars": {}}"#,
    r#"{"goal": "g", "look": false, "no_cache": true, "dry_run": true}"#,
    r#"{"goal": "g", "look": "required", "secrets": {"A": "b"}}"#,
    r#"{"goal": "g", "look": "sometimes"}"#,
    r#"{"goal": "g", "look": null, "strict": "yes"}"#,
    r#"{"goal": "g", "callback_url": "https://h.test", "strict": true, "look": true}"#,
    r#"{"url": "https://a.test", "vars": {"A": "b"}}"#,
    r#"{"url": null}"#,
    r#"{"url": "u", "goal": "g", "allowed_hosts": "x"}"#,
    r#"{"vars": {}, "goal": "g", "unknown": 1}"#,
    r#"{"pl\u0061n": {}, "strict": true}"#,
    r#"{"plan": {},
        "vars": {"A": "1"},
        "dry_run": true}"#,
    r#"["g"]"#,
    r#"[{}, {"A": "1"}]"#,
    r#"["g", {}, {}, "support", [], true, null, false, "required", 1]"#,
    r#"[null]"#,
    r#"{"plan": {}"#,
    r#"{"goal": "g",}"#,
];

/// Every body of [`BODIES`] as each request body reads it, a line each.
fn table() -> String {
    let mut out = String::new();
    for text in BODIES {
        let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let rows = [
            (
                "RunBody",
                both::<RunBody>(text, |b| format!("{} {}", b.plan, options(&b.options))),
            ),
            (
                "ActBody",
                both::<ActBody>(text, |b| format!("{} {}", b.goal, options(&b.options))),
            ),
            (
                "PlansBody",
                both::<PlansBody>(text, |b| {
                    format!("{} {} {}", b.goal, b.dry_run, options(&b.options))
                }),
            ),
            (
                "LookBody",
                both::<LookBody>(text, |b| {
                    format!("{:?} {:?} {}", b.url, b.goal, options(&b.options))
                }),
            ),
            (
                "CheckBody",
                both::<CheckBody>(text, |b| format!("{} {}", b.plan, options(&b.options))),
            ),
        ];
        for (name, read) in rows {
            out.push_str(&format!(
                "{name} {one_line}\n  http: {}\n  mcp:  {}\n",
                read[0], read[1]
            ));
        }
    }
    out
}

#[test]
fn every_body_is_read_or_refused_as_the_table_says() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/server/request/bodies.golden"
    );
    let table = table();
    if std::env::var_os("PLANLOCK_WRITE_GOLDEN").is_some() {
        std::fs::write(path, &table).unwrap();
    }
    let golden = std::fs::read_to_string(path).unwrap();
    for (want, got) in golden.lines().zip(table.lines()) {
        assert_eq!(got, want);
    }
    assert_eq!(golden.lines().count(), table.lines().count());
}

#[test]
fn every_field_a_body_names_is_read() {
    use super::Body;
    let all = [
        RunBody::FIELDS,
        ActBody::FIELDS,
        PlansBody::FIELDS,
        LookBody::FIELDS,
        CheckBody::FIELDS,
    ];
    for name in all.concat() {
        let mut fields = super::Fields::default();
        let read = fields.read(name, serde_json::Value::Null);
        assert!(
            !read
                .as_ref()
                .is_err_and(|e| e.to_string().contains("is read")),
            "{name}: {read:?}"
        );
    }
}
