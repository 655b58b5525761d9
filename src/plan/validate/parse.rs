//! Reading plan text as JSON: a byte-order mark is skipped, malformed input is reported
//! with the line and column an editor shows, and a key given twice in one object is refused
//! (a reviewer reads one value, the executor would use the other).

use std::cell::RefCell;
use std::collections::HashSet;
use std::fmt;

use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::structure::field_path;
use super::{PlanError, Problem};

/// Parses JSON text, reporting line and column on malformed input, and the path of every
/// duplicate key.
pub fn parse(text: &str) -> Result<Value, PlanError> {
    // Editors on Windows save UTF-8 with a byte-order mark; it is not part of the JSON.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let value: Value = serde_json::from_str(text).map_err(|e| PlanError::Syntax {
        line: e.line(),
        // serde_json says column 0 for an error at the very start of a line (e.g. the end of
        // input after a newline); editors count columns from 1.
        column: e.column().max(1),
        message: strip_position(&e.to_string()),
    })?;
    let duplicates = duplicate_keys(text);
    if duplicates.is_empty() {
        Ok(value)
    } else {
        Err(PlanError::Invalid(duplicates))
    }
}

/// Every key an object in this JSON text repeats, as a problem at its path (`steps[0].url`),
/// in the order the plan's other problems are listed: the plan's own first, then step by
/// step. Text that is not JSON yields what was found before the error.
pub fn duplicate_keys(text: &str) -> Vec<Problem> {
    let duplicates = RefCell::new(Vec::new());
    let mut de = serde_json::Deserializer::from_str(text);
    let _ = Walk {
        path: None,
        found: &duplicates,
    }
    .deserialize(&mut de);
    let mut duplicates = duplicates.into_inner();
    duplicates.sort_by_key(|(path, _)| super::step_index(path));
    duplicates
        .into_iter()
        .map(|(path, key)| {
            Problem::new(
                path,
                format!(
                    "the key `{}` is given twice in this object; a reader sees the first, \
                     a JSON parser keeps the last: keep one",
                    crate::plan::wording::show(&key)
                ),
            )
        })
        .collect()
}

/// Walks a JSON document noting `(path, key)` for every key an object repeats.
struct Walk<'a> {
    /// `None` at the top; `steps[2]` inside.
    path: Option<String>,
    found: &'a RefCell<Vec<(String, String)>>,
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("JSON")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = HashSet::new();
        let mut reported = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            let path = field_path(self.path.as_deref(), &key);
            if !seen.insert(key.clone()) && reported.insert(key.clone()) {
                self.found.borrow_mut().push((path.clone(), key));
            }
            map.next_value_seed(Walk {
                path: Some(path),
                found: self.found,
            })?;
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0;
        let parent = self.path.clone().unwrap_or_else(|| "$".to_string());
        while seq
            .next_element_seed(Walk {
                path: Some(format!("{parent}[{i}]")),
                found: self.found,
            })?
            .is_some()
        {
            i += 1;
        }
        Ok(())
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_none<E>(self) -> Result<(), E> {
        Ok(())
    }
}

fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Vars;
    use crate::plan::validate::{Limits, parse_and_validate};

    #[test]
    fn syntax_errors_have_line_and_column() {
        let e = parse_and_validate(
            "{\n  \"steps\": [,]\n}",
            &Limits::default(),
            &Vars::default(),
        )
        .unwrap_err();
        assert!(matches!(e, PlanError::Syntax { line: 2, .. }), "{e:?}");
    }

    #[test]
    fn bom_and_positions() {
        assert!(parse("\u{feff}{}").is_ok());
        let PlanError::Syntax { line, column, .. } = parse("{\n").unwrap_err() else {
            panic!("not a syntax error")
        };
        assert_eq!((line, column), (2, 1));
    }

    #[test]
    fn duplicate_keys_are_refused_with_their_path() {
        let e = parse_and_validate(
            r#"{"reasoning":"","steps":[
                {"type":"navigate","url":"https://shop.example/","url":"https://evil.example/"},
                {"type":"done","summary":"","summary":"x"}],
              "reasoning":"again"}"#,
            &Limits::default(),
            &Vars::default(),
        )
        .unwrap_err();
        let shown: Vec<String> = e.problems().iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "reasoning: the key `reasoning` is given twice in this object; \
                 a reader sees the first, a JSON parser keeps the last: keep one",
                "steps[0].url: the key `url` is given twice in this object; \
                 a reader sees the first, a JSON parser keeps the last: keep one",
                "steps[1].summary: the key `summary` is given twice in this object; \
                 a reader sees the first, a JSON parser keeps the last: keep one",
            ]
        );
    }
}
