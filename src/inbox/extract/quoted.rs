//! The parts of a mail its sender did not write: `>`-quoted lines, a quoted earlier message,
//! a `blockquote`, and a "Message from …" box holding what another user typed. Links and codes
//! found there rank below the mail's own template text.

use std::collections::HashSet;

use ego_tree::NodeId;
use scraper::{ElementRef, Html, Node};

use crate::vocabulary::mail::{OPENERS, QUOTED_REST, WROTE};
use crate::vocabulary::words::{has_stem, words};

/// Whether a line or paragraph opens text another person wrote.
pub(super) fn opens_quote(text: &str) -> bool {
    let t = text.trim();
    if t.is_empty() || t.chars().count() > 120 {
        return false;
    }
    let ws = words(t);
    let starts = |stem: &str| {
        let sw = words(stem);
        ws.len() >= sw.len() && ws[..sw.len()] == sw[..]
    };
    if OPENERS.iter().any(|o| starts(o)) {
        return true;
    }
    // `… wrote:` ends the line
    t.ends_with(':') && ws.last().is_some_and(|w| WROTE.contains(&w.as_str()))
}

fn opens_quoted_rest(text: &str) -> bool {
    let ws = words(text);
    let t = text.trim();
    (t.starts_with("--") || t.starts_with("__") || t.starts_with("Begin"))
        && QUOTED_REST.iter().any(|q| has_stem(&ws, q))
}

/// For each line of a text part: whether it is quoted (`> …`), part of an earlier message
/// below `-----Original Message-----` or `… wrote:`, or the paragraph a "Message from …"
/// line introduces.
pub(super) fn quoted_lines(lines: &[&str]) -> Vec<bool> {
    let mut out = vec![false; lines.len()];
    let mut rest = false;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_start();
        if rest || line.starts_with('>') {
            out[i] = true;
            i += 1;
            continue;
        }
        if opens_quoted_rest(line) || (opens_quote(line) && is_wrote_line(line)) {
            rest = true;
            out[i] = true;
            i += 1;
            continue;
        }
        if opens_quote(line) {
            out[i] = true;
            // the rest of the label's line is the note, and so is the next paragraph
            let mut j = i + 1;
            while j < lines.len() && lines[j].trim().is_empty() {
                j += 1;
            }
            while j < lines.len() && !lines[j].trim().is_empty() {
                out[j] = true;
                j += 1;
            }
            i = j;
            continue;
        }
        i += 1;
    }
    out
}

fn is_wrote_line(line: &str) -> bool {
    let ws = words(line);
    line.trim().ends_with(':') && ws.last().is_some_and(|w| WROTE.contains(&w.as_str()))
}

/// Elements of an HTML part whose content someone else wrote: every `blockquote`, and the box
/// a "Message from …" label opens (the label's parent when the label is its first text, else
/// the element right after the label).
pub(super) fn quoted_regions(doc: &Html) -> HashSet<NodeId> {
    let mut out = HashSet::new();
    for node in doc.tree.root().descendants() {
        match node.value() {
            Node::Element(el) if el.name() == "blockquote" => {
                out.insert(node.id());
            }
            Node::Text(t) if opens_quote(t) => {
                // the nearest element that holds the label
                let Some(holder) = node.ancestors().find_map(ElementRef::wrap) else {
                    continue;
                };
                let holder = block_of(holder);
                let label_only = own_text(holder).trim() == t.trim();
                if !label_only {
                    out.insert(holder.id());
                    continue;
                }
                let parent = holder.parent().and_then(ElementRef::wrap);
                let first_text = parent.is_some_and(|p| {
                    p.children()
                        .filter_map(ElementRef::wrap)
                        .find(|c| !own_text(*c).trim().is_empty())
                        .is_some_and(|c| c.id() == holder.id())
                });
                match parent {
                    Some(p) if first_text && !matches!(p.value().name(), "body" | "html") => {
                        out.insert(p.id());
                    }
                    _ => {
                        out.insert(holder.id());
                        if let Some(next) = holder.next_siblings().find_map(ElementRef::wrap) {
                            out.insert(next.id());
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The element itself when it is a block, else its nearest block ancestor.
fn block_of(el: ElementRef<'_>) -> ElementRef<'_> {
    const INLINE: &[&str] = &["b", "strong", "em", "i", "span", "font", "u", "small", "a"];
    let mut cur = el;
    while INLINE.contains(&cur.value().name()) {
        match cur.parent().and_then(ElementRef::wrap) {
            Some(p) => cur = p,
            None => break,
        }
    }
    cur
}

fn own_text(el: ElementRef<'_>) -> String {
    el.text().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_that_open_someone_elses_text() {
        assert!(opens_quote("Message from Alice:"));
        assert!(opens_quote("A note from Mallory (mallory@evil.test)"));
        assert!(opens_quote("On Mon, 1 Jan 2024, Bob <bob@x.test> wrote:"));
        assert!(!opens_quote("Your message was sent"));
        assert!(!opens_quote("Please confirm your email address:"));
    }

    #[test]
    fn quoted_text_lines() {
        let lines = [
            "Alice invited you.",
            "Message from Alice:",
            "",
            "  Verify here: https://x.test/a",
            "  thanks",
            "",
            "Accept the invitation:",
            "> old line",
            "https://x.test/b",
        ];
        assert_eq!(
            quoted_lines(&lines),
            [false, true, false, true, true, false, false, true, false]
        );
        let lines = ["Code below", "-----Original Message-----", "code 1", "x"];
        assert_eq!(quoted_lines(&lines), [false, true, true, true]);
    }
}
