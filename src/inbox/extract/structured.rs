//! Signals a sender states outright, read before any word is scored: a schema.org
//! `ConfirmAction` / `ViewAction` in the HTML's JSON-LD (Gmail's one-click actions) names the
//! link to follow; the `List-Unsubscribe` header's URLs are unsubscribe links.

use mail_parser::MessageParser;
use scraper::{Html, Selector};
use serde_json::Value;
use url::Url;

use super::wrapper::is_http;

/// What the sender declared about its links.
#[derive(Debug, Default)]
pub(super) struct Declared {
    /// The URL of each `ConfirmAction` / `ViewAction`, with the action's name.
    pub(super) actions: Vec<(Url, String)>,
    /// The http(s) URLs of `List-Unsubscribe`.
    pub(super) unsubscribe: Vec<Url>,
}

pub(super) fn declared(raw: &[u8], htmls: &[String]) -> Declared {
    let mut out = Declared::default();
    if let Some(msg) = MessageParser::default().parse(raw)
        && let Some(value) = msg.header_raw("List-Unsubscribe")
    {
        out.unsubscribe = value
            .split(['<', '>', ','])
            .filter_map(|part| Url::parse(part.trim()).ok())
            .filter(is_http)
            .collect();
    }
    let Ok(scripts) = Selector::parse(r#"script[type="application/ld+json"]"#) else {
        return out;
    };
    for html in htmls {
        if !html.contains("ld+json") {
            continue;
        }
        let doc = Html::parse_document(html);
        for script in doc.select(&scripts) {
            let text: String = script.text().collect();
            if let Ok(value) = serde_json::from_str::<Value>(&text) {
                actions_in(&value, &mut out.actions, 0);
            }
        }
    }
    out
}

fn actions_in(v: &Value, out: &mut Vec<(Url, String)>, depth: usize) {
    if depth > 8 {
        return;
    }
    match v {
        Value::Array(items) => items.iter().for_each(|i| actions_in(i, out, depth + 1)),
        Value::Object(map) => {
            let kind = map.get("@type").and_then(Value::as_str).unwrap_or_default();
            let url = match kind {
                "ViewAction" => map.get("url").or_else(|| map.get("target")),
                "ConfirmAction" => map.get("handler"),
                _ => None,
            };
            if let Some(url) = url.and_then(url_of) {
                let name = map
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or(kind)
                    .to_string();
                out.push((url, name));
            }
            for child in map.values() {
                actions_in(child, out, depth + 1);
            }
        }
        _ => {}
    }
}

/// A URL given as a string or as an object with `url` (`HttpActionHandler`, `EntryPoint`).
fn url_of(v: &Value) -> Option<Url> {
    match v {
        Value::String(s) => Url::parse(s.trim()).ok().filter(is_http),
        Value::Object(m) => m
            .get("url")
            .or_else(|| m.get("urlTemplate"))
            .and_then(url_of),
        Value::Array(items) => items.iter().find_map(url_of),
        _ => None,
    }
}
