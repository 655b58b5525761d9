//! Text from a page, a mail or a plan as planlock prints it: every control character (C0,
//! C1 and DEL; CR and LF included), every control that reorders a line (bidirectional
//! overrides, embeddings, isolates and marks) and the line and paragraph separators escaped,
//! so no such text can start a line, show itself in another order than it is written, move
//! the cursor, write a window title or the clipboard, or forge a CI annotation.

use std::borrow::Cow;
use std::fmt;

use crate::reading::rearranges_lines;

/// `s` with every control character, and every character that rearranges a line, escaped as
/// Rust writes it (`\n`, `\r`, `\u{1b}`, `\u{202e}`).
pub fn printable(s: &str) -> Cow<'_, str> {
    escaped(s, |_| true)
}

/// `s` with every control character but LF escaped: for a message planlock writes over
/// several lines, whose outside parts were made [`printable`] where they were put in.
pub fn printable_lines(s: &str) -> Cow<'_, str> {
    escaped(s, |c| c != '\n')
}

/// Whether a terminal could be driven by `c`: a control character, or one that reorders or
/// breaks the line it is on.
fn unprintable(c: char) -> bool {
    c.is_control() || rearranges_lines(c)
}

fn escaped(s: &str, escape: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !s.chars().any(|c| unprintable(c) && escape(c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if unprintable(c) && escape(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// JSON text with DEL, the C1 controls and the characters that rearrange a line written as
/// `\u007f`, `\u202e`: JSON escapes only C0 itself, and a terminal that shows JSON output
/// should meet none of them. (They can stand only inside JSON strings, where the escape means
/// the same.)
pub fn json_printable(json: String) -> String {
    let escape = |c: char| ('\u{7f}'..='\u{9f}').contains(&c) || rearranges_lines(c);
    if !json.chars().any(escape) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if escape(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// Shows its text [`printable`] in a `format!`.
pub struct Printable<'a>(pub &'a str);

impl fmt::Display for Printable<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&printable(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_control_character_is_escaped_and_nothing_else() {
        assert_eq!(
            printable("a\nb\r\t\u{1b}]52;c;x\u{7}\u{9b}2J\u{7f} é ✓"),
            r"a\nb\r\t\u{1b}]52;c;x\u{7}\u{9b}2J\u{7f} é ✓"
        );
        assert!(matches!(printable("plain text"), Cow::Borrowed(_)));
        assert_eq!(printable_lines("a\nb\r\u{1b}"), "a\nb\\r\\u{1b}");
        assert_eq!(
            printable("\u{202e}deliaf\u{202c} \u{2066}x\u{2069}\u{200f}\u{2028}\u{2029}"),
            r"\u{202e}deliaf\u{202c} \u{2066}x\u{2069}\u{200f}\u{2028}\u{2029}"
        );
    }

    #[test]
    fn json_keeps_its_meaning_without_del_or_c1() {
        let text = "x\u{7f}\u{9b}2J\u{1b}é\u{202e}\u{2028}";
        let json = json_printable(serde_json::to_string(text).unwrap());
        assert_eq!(json, r#""x\u007f\u009b2J\u001bé\u202e\u2028""#);
        assert_eq!(serde_json::from_str::<String>(&json).unwrap(), text);
    }
}
