//! The bodies read as they were when each was derived by serde field by field: every body
//! below is read, or refused with the same words (and the same place in the text), by the
//! derived shapes kept here and by the bodies.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{ActBody, CheckBody, Inboxes, LookBody, Options, PlansBody, RunBody};
use crate::planner::LookChoice;

/// The bodies as serde derived them, field by field.
mod derived {
    use std::collections::BTreeMap;

    use serde::Deserialize;
    use serde_json::Value;

    use crate::planner::LookChoice;
    use crate::server::request::Inboxes;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct RunBody {
        pub plan: Value,
        #[serde(default)]
        pub vars: BTreeMap<String, String>,
        #[serde(default)]
        pub secrets: BTreeMap<String, String>,
        #[serde(default)]
        pub inbox: Inboxes,
        #[serde(default)]
        pub allowed_hosts: Vec<String>,
        #[serde(default)]
        pub callback_url: Option<String>,
        #[serde(default)]
        pub strict: bool,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ActBody {
        pub goal: String,
        #[serde(default)]
        pub vars: BTreeMap<String, String>,
        #[serde(default)]
        pub secrets: BTreeMap<String, String>,
        #[serde(default)]
        pub inbox: Inboxes,
        #[serde(default)]
        pub allowed_hosts: Vec<String>,
        #[serde(default)]
        pub no_cache: bool,
        #[serde(default)]
        pub callback_url: Option<String>,
        #[serde(default)]
        pub strict: bool,
        #[serde(default)]
        pub look: LookChoice,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct PlansBody {
        pub goal: String,
        #[serde(default)]
        pub vars: BTreeMap<String, String>,
        #[serde(default)]
        pub inbox: Inboxes,
        #[serde(default)]
        pub allowed_hosts: Vec<String>,
        #[serde(default)]
        pub no_cache: bool,
        #[serde(default)]
        pub look: LookChoice,
        #[serde(default)]
        pub dry_run: bool,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct LookBody {
        #[serde(default, deserialize_with = "given")]
        pub url: Option<String>,
        #[serde(default, deserialize_with = "given")]
        pub goal: Option<String>,
        #[serde(default)]
        pub vars: BTreeMap<String, String>,
        #[serde(default)]
        pub inbox: Inboxes,
        #[serde(default)]
        pub allowed_hosts: Vec<String>,
    }

    fn given<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
        String::deserialize(d).map(Some)
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct CheckBody {
        pub plan: Value,
        #[serde(default)]
        pub vars: BTreeMap<String, String>,
        #[serde(default)]
        pub secrets: BTreeMap<String, String>,
        #[serde(default)]
        pub inbox: Inboxes,
        #[serde(default)]
        pub allowed_hosts: Vec<String>,
    }
}

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

/// The options of a derived body (its fields, and the defaults of those it lacks).
#[allow(clippy::too_many_arguments)]
fn old_options(
    vars: &BTreeMap<String, String>,
    secrets: &BTreeMap<String, String>,
    inbox: &Inboxes,
    allowed_hosts: &[String],
    callback_url: &Option<String>,
    strict: bool,
    no_cache: bool,
    look: LookChoice,
) -> String {
    options(&Options {
        vars: vars.clone(),
        secrets: secrets.clone(),
        inbox: inbox.clone(),
        allowed_hosts: allowed_hosts.to_vec(),
        callback_url: callback_url.clone(),
        strict,
        no_cache,
        look,
    })
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

#[test]
fn every_body_is_read_or_refused_as_its_derived_shape_did() {
    for text in BODIES {
        assert_eq!(
            both::<RunBody>(text, |b| format!("{} {}", b.plan, options(&b.options))),
            both::<derived::RunBody>(text, |b| format!(
                "{} {}",
                b.plan,
                old_options(
                    &b.vars,
                    &b.secrets,
                    &b.inbox,
                    &b.allowed_hosts,
                    &b.callback_url,
                    b.strict,
                    false,
                    LookChoice::default()
                )
            )),
            "RunBody from {text}"
        );
        assert_eq!(
            both::<ActBody>(text, |b| format!("{} {}", b.goal, options(&b.options))),
            both::<derived::ActBody>(text, |b| format!(
                "{} {}",
                b.goal,
                old_options(
                    &b.vars,
                    &b.secrets,
                    &b.inbox,
                    &b.allowed_hosts,
                    &b.callback_url,
                    b.strict,
                    b.no_cache,
                    b.look
                )
            )),
            "ActBody from {text}"
        );
        assert_eq!(
            both::<PlansBody>(text, |b| format!(
                "{} {} {}",
                b.goal,
                b.dry_run,
                options(&b.options)
            )),
            both::<derived::PlansBody>(text, |b| format!(
                "{} {} {}",
                b.goal,
                b.dry_run,
                old_options(
                    &b.vars,
                    &BTreeMap::new(),
                    &b.inbox,
                    &b.allowed_hosts,
                    &None,
                    false,
                    b.no_cache,
                    b.look
                )
            )),
            "PlansBody from {text}"
        );
        assert_eq!(
            both::<LookBody>(text, |b| format!(
                "{:?} {:?} {}",
                b.url,
                b.goal,
                options(&b.options)
            )),
            both::<derived::LookBody>(text, |b| format!(
                "{:?} {:?} {}",
                b.url,
                b.goal,
                old_options(
                    &b.vars,
                    &BTreeMap::new(),
                    &b.inbox,
                    &b.allowed_hosts,
                    &None,
                    false,
                    false,
                    LookChoice::default()
                )
            )),
            "LookBody from {text}"
        );
        assert_eq!(
            both::<CheckBody>(text, |b| format!("{} {}", b.plan, options(&b.options))),
            both::<derived::CheckBody>(text, |b| format!(
                "{} {}",
                b.plan,
                old_options(
                    &b.vars,
                    &b.secrets,
                    &b.inbox,
                    &b.allowed_hosts,
                    &None,
                    false,
                    false,
                    LookChoice::default()
                )
            )),
            "CheckBody from {text}"
        );
    }
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
