//! Reading plan text as JSON: a byte-order mark is skipped, and malformed input is reported
//! with the line and column an editor shows.

use serde_json::Value;

use super::PlanError;

/// Parses JSON text, reporting line and column on malformed input.
pub fn parse(text: &str) -> Result<Value, PlanError> {
    // Editors on Windows save UTF-8 with a byte-order mark; it is not part of the JSON.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    serde_json::from_str(text).map_err(|e| PlanError::Syntax {
        line: e.line(),
        // serde_json says column 0 for an error at the very start of a line (e.g. the end of
        // input after a newline); editors count columns from 1.
        column: e.column().max(1),
        message: strip_position(&e.to_string()),
    })
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
}
