//! How what a page answered is worded: what was looked for, what was found instead, and the
//! elements, roles and effects a sentence names.

use super::*;

pub(super) fn page_sentence(
    f: &mut fmt::Formatter<'_>,
    error: &PageError,
    waited: Duration,
) -> fmt::Result {
    match error {
        PageError::NotFound { target, seen } => {
            write!(f, "no visible {} on the page", target_phrase(target))?;
            let close = closest(query_of(target), seen, 5);
            if !close.is_empty() {
                write!(f, "; {} on the page: {close}", offered(target))?;
            }
            Ok(())
        }
        PageError::NotActionable {
            target,
            element,
            blocker,
        } => write!(
            f,
            "found the {}, but it never became actionable: {element} {}",
            target_phrase(target),
            blocker_phrase(blocker)
        ),
        PageError::StillLoading { target, url } => write!(
            f,
            "{url} was still loading when the step's deadline passed, so the {} was not looked \
             for in it (a page that takes this long to arrive: give the step a longer \
             `timeout_seconds`)",
            target_phrase(target)
        ),
        PageError::Rejected { target, why } => rejection_sentence(f, target, why),
        PageError::FormNotSent { element, fields } => {
            let each: Vec<String> = fields
                .iter()
                .map(|i| match i.message.as_str() {
                    "" => format!("\"{}\"", i.field),
                    m => format!("\"{}\" ({m})", i.field),
                })
                .collect();
            write!(
                f,
                "clicked {element}, but the browser did not send its form: {} {} not valid",
                each.join(", "),
                if fields.len() == 1 { "is" } else { "are" }
            )
        }
        PageError::TextAbsent {
            text,
            url,
            seen,
            quiet: Some(after),
        } => {
            write!(
                f,
                "the text \"{text}\" did not appear on {url}: the page went quiet (no \
                 navigation, request or change for {} s) and still did not show it, {} s after \
                 the step began",
                fmt_secs(crate::browser::QUIET),
                fmt_secs(*after)
            )?;
            let close = closest(text, seen, 3);
            if !close.is_empty() {
                write!(f, "; the page shows: {close}")?;
            }
            Ok(())
        }
        PageError::TextAbsent {
            text,
            url,
            seen,
            quiet: None,
        } => {
            write!(
                f,
                "the text \"{text}\" did not appear on {url} within {} s",
                fmt_secs(waited)
            )?;
            let close = closest(text, seen, 3);
            if !close.is_empty() {
                write!(f, "; the page shows: {close}")?;
            }
            Ok(())
        }
        PageError::BadUrl { url, problem } => write!(f, "`{url}` is not a URL: {problem}"),
        PageError::LoadFailed { url, reason } => write!(f, "could not load {url}: {reason}"),
        PageError::LoadTimedOut {
            url,
            started: false,
        } => write!(f, "{url} did not start loading before the step deadline"),
        PageError::LoadTimedOut { url, started: true } => write!(
            f,
            "{url} started loading but did not finish before the step deadline"
        ),
        PageError::HttpStatus { url, status } => write!(
            f,
            "{url} answered HTTP {status}: the page is missing or broken"
        ),
        PageError::Refused(r) => write!(f, "{r}"),
        PageError::PageClosed => write!(f, "the page closed while the step waited for it"),
        PageError::BrowserGone { reason } => {
            write!(f, "the browser went away during the step: {reason}")
        }
        PageError::Command(e) => write!(f, "browser command failed: {e}"),
    }
}

/// What held an element back, after its name: "is covered by <div#banner>".
pub(super) fn blocker_phrase(blocker: &Blocker) -> String {
    match blocker {
        Blocker::Removed => "was removed from the page".into(),
        Blocker::Hidden => "is not visible".into(),
        Blocker::Disabled => "is disabled".into(),
        Blocker::NotEditable => "is not editable".into(),
        Blocker::Moving => "is still moving".into(),
        Blocker::Animating => "is still animating".into(),
        Blocker::Covered { by: Some(by) } => format!("is covered by {}", cover_phrase(by)),
        Blocker::Covered { by: None } => "is covered by another element".into(),
        Blocker::Inert => "is inert: the page has taken it out of reach".into(),
    }
}

/// A covering element, with its role and name when it has them:
/// `<div#cc-main> (dialog "Cookie preferences")`.
fn cover_phrase(cover: &Cover) -> String {
    let name = cover.name.as_ref().map(|n| format!("\"{n}\""));
    let said: Vec<&str> = [cover.role.as_deref(), name.as_deref()]
        .into_iter()
        .flatten()
        .filter(|s| !s.is_empty())
        .collect();
    match said.as_slice() {
        [] => cover.element.clone(),
        _ => format!("{} ({})", cover.element, said.join(" ")),
    }
}

pub(super) fn rejection_sentence(
    f: &mut fmt::Formatter<'_>,
    target: &Target,
    why: &Rejection,
) -> fmt::Result {
    match why {
        Rejection::Rewritten {
            element,
            holds: Some(holds),
            ..
        } => write!(
            f,
            "{element} holds \"{holds}\" after typing: the page rejected or rewrote the value"
        ),
        Rejection::Rewritten {
            element,
            holds: None,
            difference,
        } => {
            let how = match difference {
                Some(Difference::Empty) => "it is empty".to_string(),
                Some(Difference::CutShort { kept, typed }) => {
                    format!("only the first {kept} of {typed} characters: the page cut it short")
                }
                Some(Difference::Case) => "the same characters in another letter case".into(),
                Some(Difference::Trimmed) => {
                    "the same characters without the surrounding spaces".into()
                }
                Some(Difference::Other { holds, typed }) => {
                    format!("{holds} characters where {typed} were typed")
                }
                None => "a different value".into(),
            };
            write!(
                f,
                "{element} holds a different value after typing ({how}): the page rejected or \
                 rewrote the value"
            )
        }
        Rejection::NoOption {
            element,
            value,
            options,
        } => write!(
            f,
            "{element} has no option \"{value}\" (options: {})",
            options.join(", ")
        ),
        Rejection::TooFewBoxes { characters, boxes } => write!(
            f,
            "the code has {characters} characters but {} matches {boxes} boxes",
            query_of(target)
        ),
        Rejection::Script { message } => write!(f, "the locator failed in the page: {message}"),
        Rejection::UnknownOperation { op } => write!(
            f,
            "the locator failed in the page: unknown locator operation {op}"
        ),
        Rejection::Ambiguous { candidates } => {
            let names: Vec<String> = candidates
                .iter()
                .map(|c| {
                    let mut s = candidate_phrase(&c.candidate);
                    if let Some(d) = &c.destination {
                        s.push_str(&format!(" ({d})"));
                    }
                    s
                })
                .collect();
            write!(
                f,
                "\"{}\" is ambiguous: {} match equally and lead to different places; a \
                 `selector` or a more exact `text` says which",
                query_of(target),
                names.join(" and ")
            )
        }
        Rejection::UserContent { element } => write!(
            f,
            "{element} is in content others posted on the page (a comment, a user-generated \
             link): a secret or code is never typed there"
        ),
        Rejection::NotAControl { wanted, matched } => {
            let each: Vec<String> = matched
                .iter()
                .map(|c| {
                    format!(
                        "{} ({})",
                        c.element.as_deref().unwrap_or("an element"),
                        role_phrase(c.role.as_deref().unwrap_or("generic"))
                    )
                })
                .collect();
            write!(
                f,
                "only {} says \"{}\", and the step asks for {}: planlock never clicks a heading, \
                 a paragraph or plain text in place of a control, and nothing the page offers to \
                 operate says it",
                each.join(" and "),
                query_of(target),
                role_phrase(wanted)
            )
        }
    }
}

/// A role as a sentence names it: "a button", "a heading", "plain text".
pub(super) fn role_phrase(role: &str) -> String {
    match role {
        "generic" => "plain text".to_string(),
        "textbox" | "searchbox" | "spinbutton" => "a field".to_string(),
        "combobox" | "listbox" => "a dropdown".to_string(),
        "menuitem" => "a menu item".to_string(),
        "img" => "an image".to_string(),
        "option" => "an option".to_string(),
        other => format!("a {other}"),
    }
}

/// What a run's results say when the browser failed it. A run only meets a browser that has
/// started, so only a lost connection or a failed command can end it here; the others are
/// said as their own sentences (the front end that starts the browser words them there).
pub(super) fn browser_sentence(f: &mut fmt::Formatter<'_>, error: &BrowserError) -> fmt::Result {
    match error {
        BrowserError::Gone(reason) => write!(f, "the browser went away: {reason}"),
        BrowserError::Cdp(reason) => write!(f, "browser command failed: {reason}"),
        other => write!(f, "{other}"),
    }
}

pub(super) fn target_phrase(target: &Target) -> String {
    match target {
        Target::Click { text, selector } => match (text, selector) {
            (Some(t), Some(s)) => format!("element with text \"{t}\" or matching `{s}`"),
            (Some(t), None) => format!("element with text \"{t}\""),
            (None, Some(s)) => format!("element matching `{s}`"),
            (None, None) => "element".to_string(),
        },
        Target::Field { label, selector } => match (label, selector) {
            (Some(l), Some(s)) => format!("field labelled \"{l}\" or matching `{s}`"),
            (Some(l), None) => format!("field labelled \"{l}\""),
            (None, Some(s)) => format!("field matching `{s}`"),
            (None, None) => "field".to_string(),
        },
        Target::CodeInput { selector } => format!("code input matching `{selector}`"),
        Target::Element { selector } => {
            format!(
                "element matching `{}`",
                selector.as_deref().unwrap_or("main")
            )
        }
    }
}

pub(super) fn query_of(target: &Target) -> &str {
    match target {
        Target::Click { text, selector } => text.as_deref().or(selector.as_deref()),
        Target::Field { label, selector } => label.as_deref().or(selector.as_deref()),
        Target::CodeInput { selector } => Some(selector.as_str()),
        Target::Element { selector } => selector.as_deref(),
    }
    .unwrap_or_default()
}

/// What the page offers instead, by the kind of target.
pub(super) fn offered(target: &Target) -> &'static str {
    match target {
        Target::Click { .. } => "clickable texts",
        Target::Field { .. } | Target::CodeInput { .. } => "fields",
        Target::Element { .. } => "texts",
    }
}

/// "; step 5 clicked the link "Sign Up" in the page's navigation; the form filled in steps
/// 2–4 was not submitted": the sentence that points at the likely cause of a wait that ran
/// out.
pub(super) fn cause(f: &mut fmt::Formatter<'_>, previous: Option<&Previous>) -> fmt::Result {
    let Some(p) = previous else {
        return Ok(());
    };
    let n = p.step + 1;
    match &p.action {
        PreviousAction::Clicked {
            element,
            described,
            navigated,
            effect,
            came_back,
        } => {
            write!(
                f,
                "; step {n} clicked {}",
                element_phrase(element.as_ref(), described)
            )?;
            if *navigated && let Some(url) = &p.url {
                write!(f, " and the page went to {url}")?;
            } else if effect.as_deref().is_some_and(Effect::is_none) {
                write!(f, " and nothing happened")?;
            } else if let Some(e) = effect.as_ref().filter(|_| !*navigated) {
                write!(
                    f,
                    " and the page did not go anywhere ({})",
                    effect_phrase(e)
                )?;
            } else if !*navigated {
                write!(f, " and the page did not go anywhere")?;
            }
            if !came_back.is_empty() {
                write!(
                    f,
                    "; the page came back with the form and says: {}",
                    quoted(came_back)
                )?;
            }
            let submitted = match effect.as_ref().and_then(|e| e.sent) {
                Some(sent) => sent,
                None => element
                    .as_ref()
                    .is_some_and(|e| e.submits == Some(true) && e.in_filled_form != Some(false)),
            };
            if !p.filled.is_empty() && !submitted {
                write!(
                    f,
                    "; the form filled in {} was not submitted",
                    steps_phrase(&p.filled)
                )?;
            }
            Ok(())
        }
        PreviousAction::Opened => match &p.url {
            Some(url) => write!(f, "; step {n} opened {url}"),
            None => Ok(()),
        },
        PreviousAction::Filled => write!(
            f,
            "; the last browser step ({n}) filled a field, and nothing was submitted after it"
        ),
    }
}

/// What a click did, in a few words: `it sent POST http://…/api; it changed the page (added
/// <div.alert>)`.
pub(super) fn effect_phrase(e: &Effect) -> String {
    use crate::browser::EffectKind::*;
    let mut said = Vec::new();
    for kind in &e.did {
        said.push(match kind {
            Navigation => "it started a navigation".to_string(),
            SameDocument => format!(
                "it changed the address to {}",
                e.url.as_deref().unwrap_or("another")
            ),
            NewTab => "it opened another page".to_string(),
            Dialog => format!("it opened a dialog ({})", e.dialog.as_deref().unwrap_or("")),
            Request => format!("it sent {}", e.requests.join(", ")),
            Submission => "it submitted a form".to_string(),
            State => {
                let states: Vec<String> = e.states.iter().map(ToString::to_string).collect();
                format!("it changed {}", states.join(", "))
            }
            Document => match e.changes.first() {
                Some(first) => format!("it changed the page ({first})"),
                None => "it changed the page".to_string(),
            },
            Focus => format!("it moved focus to {}", e.focus.as_deref().unwrap_or("")),
        });
    }
    said.join("; ")
}

/// What a page that came back with the form says about it: `Email: is already taken`,
/// `Email is marked invalid`, or its own line.
pub(crate) fn form_error_phrase(error: &FormError) -> String {
    match error {
        FormError::Said { field, said } => format!("{field}: {said}"),
        FormError::Invalid { field } => format!("{field} is marked invalid"),
        FormError::Line { said } => said.clone(),
    }
}

/// The element a click located, by its role and text: `the heading "sign in" (<h1>)`.
pub(super) fn located_phrase(located: &Located) -> String {
    match &located.chosen {
        Some(c) => {
            let mut s = candidate_phrase(c);
            if let Some(el) = c.element.as_deref().or(located.element.as_deref())
                && c.text.as_deref().is_some_and(|t| !t.is_empty())
            {
                let tag = el.split('>').next().unwrap_or(el);
                s.push_str(&format!(" ({tag}>)"));
            }
            s
        }
        None => located
            .element
            .clone()
            .unwrap_or_else(|| "the element".to_string()),
    }
}

/// A role as people say it. An element without one of its own is named by its tag: a heading,
/// a paragraph, text.
pub(super) fn role_word(c: &Candidate) -> &str {
    match c.role.as_deref() {
        Some(role) if role != "generic" => role,
        _ => match c.tag.as_deref() {
            Some("h1" | "h2" | "h3" | "h4" | "h5" | "h6") => "heading",
            Some("p") => "paragraph",
            Some("img") => "image",
            Some("label") => "label",
            Some(_) => "text",
            None => "element",
        },
    }
}

/// `the button "Sign up" (form#signup)`.
pub(super) fn candidate_phrase(c: &Candidate) -> String {
    let role = role_word(c);
    let mut s = match c.text.as_deref().filter(|t| !t.is_empty()) {
        Some(t) => format!("the {role} \"{t}\""),
        None => format!("the {role} {}", c.element.as_deref().unwrap_or("")),
    };
    if let Some(place) = c.landmark.as_deref().filter(|l| *l != "main") {
        s.push_str(&format!(" in {place}"));
    }
    s
}

/// `"a", "b"`.
pub(super) fn quoted(texts: &[String]) -> String {
    texts
        .iter()
        .map(|t| format!("\"{t}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

pub(super) fn element_phrase(element: Option<&Candidate>, described: &Option<String>) -> String {
    let Some(e) = element else {
        return described
            .clone()
            .unwrap_or_else(|| "an element".to_string());
    };
    let role = role_word(e);
    let mut s = match e.text.as_deref().filter(|t| !t.is_empty()) {
        Some(t) => format!("the {role} \"{t}\""),
        None => format!("the {role} {}", e.element.as_deref().unwrap_or("")),
    };
    match e.landmark.as_deref() {
        Some("nav") => s.push_str(" in the page's navigation"),
        Some("header") => s.push_str(" in the page's header"),
        Some("footer") => s.push_str(" in the page's footer"),
        Some("aside") => s.push_str(" in a sidebar"),
        _ => {}
    }
    s
}

/// `step 3`, `steps 2 and 4`, `steps 2–4`.
pub(super) fn steps_phrase(indexes: &[usize]) -> String {
    let nums: Vec<usize> = indexes.iter().map(|i| i + 1).collect();
    match nums.as_slice() {
        [one] => format!("step {one}"),
        [a, b] => format!("steps {a} and {b}"),
        [first, .., last] if last - first + 1 == nums.len() => format!("steps {first}–{last}"),
        _ => format!(
            "steps {}",
            nums.iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The `n` texts most like `query`, quoted and comma-separated.
pub(super) fn closest(query: &str, seen: &[String], n: usize) -> String {
    let q = query.to_lowercase();
    let mut scored: Vec<(f64, &String)> = seen
        .iter()
        .map(|s| (strsim::jaro_winkler(&q, &s.to_lowercase()), s))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored
        .iter()
        .take(n)
        .map(|(_, s)| format!("\"{s}\""))
        .collect::<Vec<_>>()
        .join(", ")
}
