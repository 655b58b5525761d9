//! How plan messages quote what the user wrote: user text shown on one line and short, and
//! did-you-mean suggestions for near misses (field names, step types, variables, selectors).

use super::{StepType, step_types};

/// User text as it appears inside a message: control characters escaped (so one problem stays
/// one line) and long text shortened.
pub(crate) fn show(s: &str) -> String {
    const MAX: usize = 80;
    let mut out = String::new();
    for (n, c) in s.chars().enumerate() {
        if n == MAX {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// `, did you mean `x`?` for the closest candidate, or nothing. Close in spelling first
/// (`selctor` → `selector`); else sharing a word (`timeout` → `timeout_seconds`).
pub(super) fn suggest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    let lower = word.to_ascii_lowercase();
    let candidates: Vec<&str> = candidates.into_iter().collect();
    let words = |s: &str| -> Vec<String> {
        s.split(['_', '-', '.'])
            .filter(|w| w.len() >= 4)
            .map(str::to_string)
            .collect()
    };
    let mine = words(&lower.replace(char::is_whitespace, "_"));
    let spelled = candidates
        .iter()
        .map(|c| (strsim::damerau_levenshtein(&lower, c), *c))
        .filter(|(d, c)| *d <= (c.len() / 3).max(2))
        .min_by_key(|(d, _)| *d);
    let shared = || {
        candidates
            .iter()
            .filter(|c| words(c).iter().any(|w| mine.contains(w)))
            .map(|c| (strsim::damerau_levenshtein(&lower, c), *c))
            .min_by_key(|(d, _)| *d)
    };
    spelled
        .or_else(shared)
        .map(|(_, c)| format!(" (did you mean `{c}`?)"))
        .unwrap_or_default()
}

/// The step type meant by a name another tool uses (`goto`, `sleep`, `wait_for_mail`), else
/// the closest type by spelling or by a shared word.
pub(super) fn suggest_step_type(ty: &str) -> String {
    let name = ty.to_ascii_lowercase().replace('-', "_");
    let alias = StepType::ALL
        .iter()
        .find(|t| t.other_names().contains(&name.as_str()));
    match alias {
        Some(a) => format!(" (did you mean `{a}`?)"),
        None => suggest(ty, step_types()),
    }
}

/// A JSON value's kind as a phrase: `a string`, `an array`, `null`…
pub fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_by_spelling_then_by_shared_word() {
        let fields = ["text", "timeout_seconds"];
        assert_eq!(suggest("txet", fields), " (did you mean `text`?)");
        assert_eq!(
            suggest("timeout", fields),
            " (did you mean `timeout_seconds`?)"
        );
        assert_eq!(
            suggest("timeout_ms", fields),
            " (did you mean `timeout_seconds`?)"
        );
        assert_eq!(
            suggest("seconds", fields),
            " (did you mean `timeout_seconds`?)"
        );
        assert_eq!(suggest("banana", fields), "");
    }
}
