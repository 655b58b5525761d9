//! Checking CSS selectors the way the browser will read them.
//!
//! `scraper` parses selector syntax, but it knows none of the state pseudo-classes
//! (`:enabled`, `:checked`, `:focus`, `:required`, ...) that Chromium accepts, and its error
//! messages are debug dumps. So a selector is first scanned here: pseudo-classes Chromium
//! knows are swapped for a neutral attribute selector, pseudo-elements and Playwright/XPath
//! syntax get a sentence of their own, and only then does `scraper` judge the rest.

use super::wording::{show, suggest};

/// Tree-structural pseudo-classes `scraper` parses itself (no arguments).
const PARSED_PLAIN: &[&str] = &[
    "first-child",
    "last-child",
    "only-child",
    "first-of-type",
    "last-of-type",
    "only-of-type",
    "root",
    "empty",
    "scope",
];

/// Functional pseudo-classes `scraper` parses itself.
const PARSED_FUNCTIONS: &[&str] = &[
    "not",
    "is",
    "where",
    "has",
    "nth-child",
    "nth-last-child",
    "nth-of-type",
    "nth-last-of-type",
];

/// State pseudo-classes Chromium accepts in `querySelector` that `scraper` does not know.
const BROWSER_STATES: &[&str] = &[
    "active",
    "any-link",
    "autofill",
    "checked",
    "closed",
    "default",
    "defined",
    "disabled",
    "enabled",
    "focus",
    "focus-visible",
    "focus-within",
    "fullscreen",
    "host",
    "hover",
    "in-range",
    "indeterminate",
    "invalid",
    "link",
    "modal",
    "open",
    "optional",
    "out-of-range",
    "paused",
    "picture-in-picture",
    "placeholder-shown",
    "playing",
    "popover-open",
    "read-only",
    "read-write",
    "required",
    "target",
    "target-within",
    "user-invalid",
    "user-valid",
    "valid",
    "visited",
    "-webkit-autofill",
];

/// Functional pseudo-classes Chromium accepts that `scraper` does not know.
const BROWSER_FUNCTIONS: &[&str] = &["lang", "dir", "state", "host", "host-context"];

/// Pseudo-elements that may be written with one colon.
const LEGACY_PSEUDO_ELEMENTS: &[&str] = &["before", "after", "first-line", "first-letter"];

/// Playwright and jQuery extensions that are not CSS.
const NOT_CSS_PSEUDO: &[&str] = &[
    "has-text",
    "text",
    "text-is",
    "text-matches",
    "contains",
    "visible",
    "nth-match",
    "left-of",
    "right-of",
    "above",
    "below",
    "near",
    "eq",
    "first",
    "last",
    "button",
    "input",
];

/// Longest selector accepted, in characters.
const MAX_LEN: usize = 2000;
/// Deepest nesting of `(` and `[` accepted.
const MAX_DEPTH: i64 = 16;

/// Stands in for a pseudo-class Chromium knows: valid wherever a simple selector is.
const NEUTRAL: &str = "[planlock-state]";

/// Checks that `selector` is a CSS selector Chromium's `querySelectorAll` accepts.
/// The error is a full sentence naming the selector.
pub(crate) fn check_selector(selector: &str) -> Result<(), String> {
    let shown = show(selector);
    // The parser recurses on nesting; a bound keeps a hostile plan from overflowing the stack.
    let chars = selector.chars().count();
    if chars > MAX_LEN {
        return Err(format!(
            "`{shown}` is {chars} characters long; a selector may have at most {MAX_LEN}"
        ));
    }
    let depth = selector
        .chars()
        .scan(0i64, |d, c| {
            match c {
                '(' | '[' => *d += 1,
                ')' | ']' => *d -= 1,
                _ => {}
            }
            Some(*d)
        })
        .max()
        .unwrap_or(0);
    if depth > MAX_DEPTH {
        return Err(format!(
            "`{shown}` nests brackets {depth} deep; a selector may nest at most {MAX_DEPTH}"
        ));
    }
    if let Some(reason) = not_css(selector.trim()) {
        return Err(format!("`{shown}` is not a CSS selector: {reason}"));
    }
    let rewritten = rewrite(selector).map_err(|e| match e {
        Rewrite::NotCss(reason) => format!("`{shown}` is not a CSS selector: {reason}"),
        Rewrite::Invalid(reason) => format!("`{shown}` is not a valid CSS selector: {reason}"),
    })?;
    scraper::Selector::parse(&rewritten)
        .map(|_| ())
        .map_err(|e| format!("`{shown}` is not a valid CSS selector: {}", describe(&e)))
}

/// Selector languages that look like CSS but are not.
fn not_css(s: &str) -> Option<String> {
    let lower = s.to_ascii_lowercase();
    for engine in [
        "text=",
        "css=",
        "xpath=",
        "id=",
        "role=",
        "data-testid=",
        "internal:",
    ] {
        if lower.starts_with(engine) {
            return Some(format!(
                "`{}` is a Playwright selector engine; write plain CSS (and put visible text \
                 in the step's `text` or `label`)",
                &engine[..engine.len() - 1]
            ));
        }
    }
    if s.starts_with('/') || s.starts_with("(/") || s.starts_with("./") {
        return Some(
            "it looks like XPath; write a CSS selector such as `form button[type=submit]`".into(),
        );
    }
    if s.contains(">>") {
        return Some(
            "`>>` chains Playwright selectors; write one CSS selector (`a > b` for a child, `a b` for a descendant)"
                .into(),
        );
    }
    None
}

enum Rewrite {
    NotCss(String),
    Invalid(String),
}

/// Replaces the pseudo-classes Chromium knows with [`NEUTRAL`], rejecting pseudo-elements and
/// non-CSS extensions. Strings, escapes and attribute selectors are copied untouched.
fn rewrite(s: &str) -> Result<String, Rewrite> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                out.push(c);
                if let Some(&next) = chars.get(i + 1) {
                    out.push(next);
                }
                i += 2;
            }
            '"' | '\'' => {
                let end = skip_string(&chars, i);
                out.extend(&chars[i..end]);
                i = end;
            }
            '[' => {
                let mut j = i + 1;
                while j < chars.len() && chars[j] != ']' {
                    j = match chars[j] {
                        '"' | '\'' => skip_string(&chars, j),
                        '\\' => j + 2,
                        _ => j + 1,
                    };
                }
                let end = (j + 1).min(chars.len());
                out.extend(&chars[i..end]);
                i = end;
            }
            ':' => {
                let double = chars.get(i + 1) == Some(&':');
                let start = if double { i + 2 } else { i + 1 };
                let mut j = start;
                while j < chars.len()
                    && (chars[j].is_alphanumeric() || chars[j] == '-' || chars[j] == '_')
                {
                    j += 1;
                }
                let name: String = chars[start..j].iter().collect::<String>().to_lowercase();
                let colons = if double { "::" } else { ":" };
                if name.is_empty() {
                    // Let the parser say what is wrong.
                    out.push_str(colons);
                    i = start;
                    continue;
                }
                let function = chars.get(j) == Some(&'(');
                if double || LEGACY_PSEUDO_ELEMENTS.contains(&name.as_str()) {
                    return Err(Rewrite::Invalid(format!(
                        "`{colons}{}` is a pseudo-element, not an element a step can act on; \
                         select the element itself",
                        show(&name)
                    )));
                }
                if NOT_CSS_PSEUDO.contains(&name.as_str()) {
                    let hint = if name.contains("text") || name == "contains" {
                        "; put the visible text in the step's `text` (click) or `label` (fill)"
                    } else {
                        ""
                    };
                    return Err(Rewrite::NotCss(format!(
                        "`:{name}{}` is a Playwright/jQuery extension, not CSS{hint}",
                        if function { "()" } else { "" }
                    )));
                }
                if function {
                    let close = matching_paren(&chars, j);
                    if BROWSER_FUNCTIONS.contains(&name.as_str()) {
                        out.push_str(NEUTRAL);
                        i = close.map_or(chars.len(), |k| k + 1);
                        continue;
                    }
                    if !PARSED_FUNCTIONS.contains(&name.as_str()) {
                        return Err(unknown_pseudo(&name, true));
                    }
                    if let (true, Some(k)) =
                        (name == "nth-child" || name == "nth-last-child", close)
                    {
                        // `:nth-child(An+B of S)` = `:nth-child(An+B):is(S)` as far as syntax goes.
                        let inner: String = chars[j + 1..k].iter().collect();
                        if let Some((nth, of)) = split_of(&inner) {
                            out.push_str(&format!(":{name}({nth}):is({})", rewrite(of)?));
                            i = k + 1;
                            continue;
                        }
                    }
                    out.push(':');
                    out.push_str(&name);
                    i = j; // the `(` and the arguments are scanned as usual
                    continue;
                }
                if PARSED_PLAIN.contains(&name.as_str()) {
                    out.push(':');
                    out.push_str(&name);
                } else if BROWSER_STATES.contains(&name.as_str()) {
                    out.push_str(NEUTRAL);
                } else {
                    return Err(unknown_pseudo(&name, false));
                }
                i = j;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

fn unknown_pseudo(name: &str, function: bool) -> Rewrite {
    let candidates = if function {
        PARSED_FUNCTIONS
            .iter()
            .chain(BROWSER_FUNCTIONS)
            .copied()
            .collect::<Vec<_>>()
    } else {
        PARSED_PLAIN
            .iter()
            .chain(BROWSER_STATES)
            .copied()
            .collect::<Vec<_>>()
    };
    Rewrite::Invalid(format!(
        "`:{}{}` is not a CSS pseudo-class{}",
        show(name),
        if function { "()" } else { "" },
        suggest(name, candidates.iter().copied())
    ))
}

/// Index just past the string starting at `start` (a quote), or the end.
fn skip_string(chars: &[char], start: usize) -> usize {
    let quote = chars[start];
    let mut j = start + 1;
    while j < chars.len() {
        match chars[j] {
            '\\' => j += 2,
            c if c == quote => return j + 1,
            _ => j += 1,
        }
    }
    chars.len()
}

/// Index of the `)` closing the `(` at `open`, skipping strings and nested parentheses.
fn matching_paren(chars: &[char], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut j = open;
    while j < chars.len() {
        match chars[j] {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(j);
                }
            }
            '"' | '\'' => {
                j = skip_string(chars, j);
                continue;
            }
            '\\' => j += 1,
            _ => {}
        }
        j += 1;
    }
    None
}

/// Splits `2n+1 of .item` into (`2n+1`, `.item`).
fn split_of(inner: &str) -> Option<(&str, &str)> {
    let lower = inner.to_ascii_lowercase();
    let at = lower.find(" of ")?;
    Some((inner[..at].trim(), inner[at + 4..].trim()))
}

/// A sentence for a `scraper` parse error (its own `Display` is a debug dump for most kinds).
fn describe(e: &scraper::error::SelectorErrorKind<'_>) -> String {
    use scraper::error::SelectorErrorKind as K;
    match e {
        K::UnexpectedToken(_) => {
            let s = e.to_string();
            let token = s
                .strip_prefix("Token ")
                .and_then(|s| s.strip_suffix(" was not expected"))
                .unwrap_or(&s);
            let token = token
                .strip_prefix('"')
                .and_then(|t| t.strip_suffix('"'))
                .unwrap_or(token);
            format!("unexpected `{token}`")
        }
        K::EndOfLine => {
            "it ends too early (an unclosed `[`, `(` or quote, or a trailing combinator?)".into()
        }
        K::ExpectedColonOnPseudoElement(_) | K::ExpectedIdentityOnPseudoElement(_) => {
            "a pseudo-element needs a name after `::`".into()
        }
        K::InvalidAtRule(_) | K::InvalidAtRuleBody | K::QualRuleInvalid => {
            "this is not selector syntax".into()
        }
        K::UnexpectedSelectorParseError(kind) => {
            let debug = format!("{kind:?}");
            let variant = debug.split(['(', ' ']).next().unwrap_or_default();
            match variant {
                "EmptySelector" => "a selector is missing where one should start (a stray \
                                    comma, or `#` or `.` followed by nothing or a digit?)"
                    .into(),
                "DanglingCombinator" => {
                    "a combinator (`>`, `+`, `~`) has nothing after it".into()
                }
                "NoQualifiedNameInAttributeSelector" | "InvalidQualNameInAttr" => {
                    "an attribute selector must start with the attribute's name, e.g. `[name=email]`"
                        .into()
                }
                "UnexpectedTokenInAttributeSelector" | "BadValueInAttr" | "ExpectedBarInAttr" => {
                    "an attribute selector is malformed; write `[name]`, `[name=value]` or \
                     `[name=\"a value\"]`"
                        .into()
                }
                "ClassNeedsIdent" => "`.` must be followed by a class name".into(),
                "NoIdentForPseudo" => "`:` must be followed by a pseudo-class name".into(),
                "ExpectedNamespace" | "ExplicitNamespaceUnexpectedToken" => {
                    "it uses a namespace prefix (`ns|name`) that a page does not declare".into()
                }
                "UnsupportedPseudoClassOrElement" => "it uses an unsupported pseudo-class".into(),
                _ => "it is not valid CSS selector syntax".into(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::check_selector;

    #[test]
    fn accepts_what_chromium_accepts() {
        for ok in [
            "#email",
            "form .signup > button[type=submit]",
            "input[name='otp' i]",
            "button:enabled",
            "input:not(:disabled):required",
            "input[type=checkbox]:checked",
            "a:hover, a:focus-visible",
            "li:nth-child(2 of .item)",
            "p:lang(en)",
            "form:has(input:invalid) button",
            "input[autocomplete=\"one-time-code\"]",
            "input[data-x=\"a:b\"]",
            "#a\\:b",
            "input[maxlength=\"1\"]",
            "div:first-of-type :is(h1, h2):where(.title)",
        ] {
            assert_eq!(check_selector(ok), Ok(()), "{ok}");
        }
    }

    #[test]
    fn rejects_with_sentences() {
        for (bad, needle) in [
            (
                "a[[bad",
                "attribute selector must start with the attribute's name",
            ),
            ("input::placeholder", "`::placeholder` is a pseudo-element"),
            ("p:before", "`:before` is a pseudo-element"),
            ("button:has-text(\"Go\")", "Playwright/jQuery extension"),
            ("text=Sign in", "Playwright selector engine"),
            ("//button[@id='x']", "XPath"),
            ("div >> button", "`>>`"),
            ("input:requird", "did you mean `required`?"),
            ("button >", "nothing after it"),
            ("a,,b", "stray comma"),
            ("div[", "ends too early"),
            ("#", "followed by nothing"),
        ] {
            let e = check_selector(bad).unwrap_err();
            assert!(e.contains(needle), "{bad}: {e}");
            assert!(!e.contains('\n'), "{bad}: {e}");
            assert!(!e.contains("report this"), "{bad}: {e}");
        }
    }
}
