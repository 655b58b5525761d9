//! The review shown by `planlock act` before anything runs: numbered steps, the host each
//! step touches, and steps that look destructive or costly.

use std::io::{self, BufRead, Write};

use serde::Serialize;

use crate::plan::{Plan, Step};
use crate::report::printable;
use crate::vocabulary;
use crate::vocabulary::links::DESTRUCTIVE_STEMS;
use crate::vocabulary::negation::Reading;
use crate::vocabulary::review::{PAIRS, STEMS, WORDS};

/// The words of a step that look destructive or costly (empty when none do). Looks at
/// click text/describe/selector, fill describe/label/selector, and navigate URLs. A describe
/// is read as a sentence: what it names to avoid ("the Save button, not Delete") is no flag.
pub fn flags(step: &Step) -> Vec<String> {
    let fields: Vec<String> = match step {
        // The words a click is found by (its text) and a fill (its label) alike.
        Step::Click {
            describe,
            text: words,
            selector,
            ..
        }
        | Step::Fill {
            describe,
            label: words,
            selector,
            ..
        } => std::iter::once(Reading::of(describe).wanted())
            .chain(
                [words.as_ref(), selector.as_ref()]
                    .into_iter()
                    .flatten()
                    .cloned(),
            )
            .collect(),
        Step::Navigate { url, .. } => vec![url.clone()],
        // These act on nothing a reviewer chose: mail the run receives, text, time.
        Step::WaitSeconds { .. }
        | Step::WaitForText { .. }
        | Step::WaitForEmail { .. }
        | Step::UseOtpFromInbox { .. }
        | Step::OpenLinkFromInbox { .. }
        | Step::ExtractText { .. }
        | Step::Done { .. } => vec![],
    };
    let mut found: Vec<String> = Vec::new();
    let mut add = |w: String| {
        if !found.contains(&w) {
            found.push(w);
        }
    };
    for field in &fields {
        let words: Vec<String> = field
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        for w in &words {
            if WORDS.contains(&w.as_str()) || STEMS.iter().any(|s| w.starts_with(s)) {
                add(w.clone());
            }
        }
        // The undoing words links are refused for, read as they are in links (camelCase split),
        // each mention flagged (a step that says "will be deleted" is worth a second look).
        let read = vocabulary::words::words(field);
        for stem in DESTRUCTIVE_STEMS {
            for (i, n) in vocabulary::words::stem_matches(&read, stem) {
                add(read[i..i + n].join(" "));
            }
        }
        for (a, b) in PAIRS {
            if let Some(i) = words.iter().position(|w| w == a)
                && words[i + 1..].iter().any(|w| w == b)
            {
                add(format!("{a} {b}"));
            }
        }
    }
    found
}

/// The review of a plan before it runs: what each step does, where, what looks destructive
/// or costly, and the lock the run will have. `text` is what `planlock act` prints; the
/// other fields are the same review for programs (the HTTP API, MCP tools).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct Review {
    /// The sites the run may visit: its lock, fixed from the request before any page was
    /// read (each with its port where only some are allowed).
    pub allowed_hosts: Vec<String>,
    pub steps: Vec<ReviewStep>,
    /// Indexes (from 0) of the steps that look destructive or costly.
    pub flagged_steps: Vec<usize>,
    /// Indexes (from 0) of the `navigate` steps outside the lock: the run refuses them.
    pub outside_lock: Vec<usize>,
    /// The review as a person reads it.
    pub text: String,
}

/// One step of a [`Review`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct ReviewStep {
    pub index: usize,
    #[serde(rename = "type")]
    pub step_type: String,
    /// What the step does, in a line.
    pub what: String,
    /// Where it acts: a host, `inbox`, or the page the previous steps left.
    pub host: String,
    /// Words that make it look destructive or costly.
    pub flags: Vec<String>,
    /// A `navigate` outside the lock: the run will refuse it.
    pub outside_lock: bool,
}

/// The review of `plan` run inside `lock`, each step that uses an answered question showing
/// the answer beside it.
pub fn review_in(plan: &Plan, lock: &crate::lock::Lock, answers: &[(String, String)]) -> Review {
    let sites: Vec<String> = lock.sites().collect();
    let allowed_text = if sites.is_empty() {
        "none".to_string()
    } else {
        sites.join(", ")
    };
    let mut out = String::new();
    let n = plan.steps.len();
    out.push_str(&format!("Plan: {}\n", counted(n, "step", "steps")));
    if !plan.reasoning.trim().is_empty() {
        out.push_str(&format!("Why: {}\n", printable(plan.reasoning.trim())));
    }
    out.push('\n');
    let width = n.to_string().len();
    let mut page = String::from("no page yet");
    let mut flagged = Vec::new();
    let mut outside = Vec::new();
    let mut steps = Vec::new();
    for (i, step) in plan.steps.iter().enumerate() {
        let num = i + 1;
        let (host, warning) = match step {
            Step::Navigate { url, .. } => match url_host(url) {
                Some(host) => {
                    page = host.clone();
                    let inside = url::Url::parse(url).is_ok_and(|u| lock.check(&u).is_ok());
                    if inside {
                        (host, None)
                    } else {
                        outside.push(i);
                        (
                            host.clone(),
                            Some(format!(
                                "{host} is not among the hosts the request named \
                                 ({allowed_text}): the run will refuse to go there"
                            )),
                        )
                    }
                }
                None => {
                    page = "set at run time".into();
                    ("set at run time (from a variable)".into(), None)
                }
            },
            Step::WaitForEmail { .. } => ("inbox".into(), None),
            Step::UseOtpFromInbox { .. } => (format!("inbox, then same page ({page})"), None),
            Step::OpenLinkFromInbox { .. } => {
                page = "the emailed link's page".into();
                (
                    format!("inbox, then the emailed link (only inside {allowed_text})"),
                    None,
                )
            }
            Step::Done { .. } => ("-".into(), None),
            Step::Click { .. }
            | Step::Fill { .. }
            | Step::WaitSeconds { .. }
            | Step::WaitForText { .. }
            | Step::ExtractText { .. } => (format!("same page ({page})"), None),
        };
        let what = step_detail(step);
        out.push_str(&format!("{num:>width$}. {:<21} {what}\n", step.kind()));
        let pad = " ".repeat(width + 2);
        out.push_str(&format!("{pad}host: {host}\n"));
        for (var, answer) in answers {
            let written = format!("{{{{{var}}}}}");
            if step
                .strings()
                .iter()
                .any(|(_, text)| text.contains(&written))
            {
                out.push_str(&format!("{pad}{written} = \"{}\"\n", printable(answer)));
            }
        }
        if let Some(w) = &warning {
            out.push_str(&format!("{pad}!! {w}\n"));
        }
        let f = flags(step);
        if !f.is_empty() {
            flagged.push(i);
            out.push_str(&format!(
                "{pad}!! looks destructive or costly: {}\n",
                f.join(", ")
            ));
        }
        steps.push(ReviewStep {
            index: i,
            step_type: step.kind().to_string(),
            what,
            host,
            flags: f,
            outside_lock: warning.is_some(),
        });
    }
    out.push_str(&format!("\nAllowed hosts: {allowed_text}\n"));
    let numbers = |indexes: &[usize]| indexes.iter().map(|i| i + 1).collect::<Vec<_>>();
    if !flagged.is_empty() {
        out.push_str(&format!(
            "!! {} destructive or costly: step {}\n",
            counted(flagged.len(), "step looks", "steps look"),
            join_nums(&numbers(&flagged))
        ));
    }
    if !outside.is_empty() {
        out.push_str(&format!(
            "!! {} outside the hosts the request named: step {}\n",
            if outside.len() == 1 {
                "1 step goes"
            } else {
                "some steps go"
            },
            join_nums(&numbers(&outside))
        ));
    }
    Review {
        allowed_hosts: sites,
        steps,
        flagged_steps: flagged,
        outside_lock: outside,
        text: out,
    }
}

fn join_nums(nums: &[usize]) -> String {
    nums.iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The host of a plan URL, or `None` when a variable decides it.
fn url_host(url: &str) -> Option<String> {
    let u = url::Url::parse(url).ok()?;
    let host = u.host_str()?;
    (!host.contains('{') && !host.contains("%7B")).then(|| host.to_ascii_lowercase())
}

/// A step in the review's words. Every text of the plan in it is [`printable`]: a plan a
/// model wrote after reading a page may hold anything.
fn step_detail(step: &Step) -> String {
    printable(&step_words(step)).into_owned()
}

fn step_words(step: &Step) -> String {
    let q = |s: &str| format!("\"{s}\"");
    match step {
        Step::Navigate { url, .. } => url.clone(),
        Step::Click {
            describe,
            text,
            selector,
            ..
        } => looked_for_by(
            describe.clone(),
            [
                text.as_ref().map(|t| format!("text {}", q(t))),
                selector.as_ref().map(|s| format!("selector {s}")),
            ],
        ),
        Step::Fill {
            describe,
            selector,
            label,
            value,
            ..
        } => looked_for_by(
            format!("{describe} = {}", q(value)),
            [
                label.as_ref().map(|l| format!("label {}", q(l))),
                selector.as_ref().map(|s| format!("selector {s}")),
            ],
        ),
        Step::ExtractText {
            describe, selector, ..
        } => looked_for_by(
            describe.clone(),
            [selector.as_ref().map(|s| format!("selector {s}"))],
        ),
        Step::OpenLinkFromInbox { from, describe, .. } => {
            let which = describe
                .as_deref()
                .filter(|d| !d.trim().is_empty())
                .map(|d| format!(": {}", q(d)))
                .unwrap_or_default();
            match from {
                Some(f) => format!("open the link from the email from {}{which}", q(f)),
                None => format!("open the link from the email{which}"),
            }
        }
        Step::Done { summary, .. } => summary.clone(),
        Step::WaitSeconds { .. }
        | Step::WaitForText { .. }
        | Step::WaitForEmail { .. }
        | Step::UseOtpFromInbox { .. } => step.describe(),
    }
}

/// Asks a yes/no question on stderr and reads the answer from stdin; only `y`/`yes` is yes.
/// (The caller decides whether stdin is a terminal and whether `--yes` skips this.)
pub fn confirm(prompt: &str) -> io::Result<bool> {
    let stdin = io::stdin();
    confirm_with(&mut stdin.lock(), &mut io::stderr(), prompt)
}

/// One line saying what the planner was shown of the start page.
pub fn looked_line(looked: &super::Looked) -> String {
    let mut s = format!(
        "planned after looking at {} ({}, {}; the outline is about {} tokens)",
        looked.url,
        counted(looked.fields, "field", "fields"),
        counted(looked.buttons, "button", "buttons"),
        looked.outline_tokens
    );
    if looked.flagged > 0 {
        s.push_str(&format!(
            "; {} on it read like instructions to a model",
            counted(looked.flagged, "text", "texts")
        ));
        if looked.withheld > 0 {
            s.push_str(&format!(", {} withheld from the outline", looked.withheld));
        }
    }
    s
}

/// A step's target, then the ways the runner looks for it, in order ("Sign up [text \"Sign
/// up\", else selector #go]"); the ways the step does not give are left out.
fn looked_for_by<const N: usize>(mut target: String, ways: [Option<String>; N]) -> String {
    let ways: Vec<String> = ways.into_iter().flatten().collect();
    if !ways.is_empty() {
        target.push_str(&format!(" [{}]", ways.join(", else ")));
    }
    target
}

/// `n` and its noun, in the singular when `n` is one: "1 step", "3 steps".
pub(crate) fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Asks a question the plan needs answered, the suggestion shown: Enter takes it.
pub fn ask_with_suggestion(ask: &str, suggested: &str) -> io::Result<String> {
    let stdin = io::stdin();
    ask_with_suggestion_on(&mut stdin.lock(), &mut io::stderr(), ask, suggested)
}

/// [`ask_with_suggestion`] over any reader and writer. End of input takes the suggestion.
pub fn ask_with_suggestion_on(
    input: &mut impl BufRead,
    output: &mut impl Write,
    ask: &str,
    suggested: &str,
) -> io::Result<String> {
    write!(output, "{} [{}] ", printable(ask), printable(suggested))?;
    output.flush()?;
    let mut line = String::new();
    input.read_line(&mut line)?;
    let answer = line.trim_end_matches(['\r', '\n']);
    Ok(if answer.trim().is_empty() {
        suggested.to_string()
    } else {
        answer.to_string()
    })
}

/// [`confirm`] over any reader and writer. End of input is "no".
pub fn confirm_with(
    input: &mut impl BufRead,
    output: &mut impl Write,
    prompt: &str,
) -> io::Result<bool> {
    write!(output, "{prompt} [y/N] ")?;
    output.flush()?;
    let mut line = String::new();
    if input.read_line(&mut line)? == 0 {
        writeln!(output)?;
        return Ok(false);
    }
    Ok(matches!(
        line.trim().to_ascii_lowercase().as_str(),
        "y" | "yes"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The review text of `plan` inside a lock of `allowed_hosts` alone.
    fn render_review(plan: &Plan, allowed_hosts: &[String]) -> String {
        let lock = crate::lock::Lock::of_hosts(allowed_hosts).expect("hosts");
        review_in(plan, &lock, &[]).text
    }

    fn plan(json: &str) -> Plan {
        crate::plan::parse_and_validate(json, &Default::default(), &Default::default()).unwrap()
    }

    /// What a describe names to avoid is no flag; what it asks for is.
    #[test]
    fn a_describe_is_read_as_a_sentence() {
        let click = |d: &str| Step::Click {
            describe: d.into(),
            text: Some("Save".into()),
            selector: None,
            timeout_seconds: None,
            criticality: None,
        };
        assert!(flags(&click("the Save button, not the Delete link")).is_empty());
        assert!(flags(&click("the Save button rather than Unsubscribe")).is_empty());
        assert_eq!(flags(&click("the Save and Delete button")), ["delete"]);
    }

    #[test]
    fn flags_destructive_and_costly_words_but_not_lookalikes() {
        let click = |t: &str| Step::Click {
            describe: "the button".into(),
            text: Some(t.into()),
            selector: None,
            timeout_seconds: None,
            criticality: None,
        };
        for (text, word) in [
            ("Delete account", "delete"),
            ("Remove item", "remove"),
            ("Pay now", "pay"),
            ("Complete purchase", "purchase"),
            ("Buy", "buy"),
            ("Place order", "order"),
            ("Unsubscribe", "unsubscribe"),
            ("Subscribe", "subscribe"),
            ("Cancel my plan", "cancel"),
            ("Transfer funds", "transfer"),
            ("Proceed to checkout", "checkout"),
            ("Check out", "check out"),
            ("Close my account", "close account"),
            // The undoing words links are refused for, in their languages.
            ("Konto löschen", "löschen"),
            ("Abonnement kündigen", "kündigen"),
            ("Supprimer le compte", "supprimer"),
            ("Revoke access", "revoke"),
        ] {
            let f = flags(&click(text));
            assert!(f.iter().any(|x| x == word), "{text}: {f:?}");
        }
        for harmless in [
            "Display settings",
            "Border colour",
            "Sign up",
            "Continue",
            "Log in",
        ] {
            assert!(flags(&click(harmless)).is_empty(), "{harmless}");
        }
        let sel = Step::Click {
            describe: "x".into(),
            text: None,
            selector: Some("#delete-btn".into()),
            timeout_seconds: None,
            criticality: None,
        };
        assert_eq!(flags(&sel), ["delete"]);
    }

    #[test]
    fn the_review_prints_a_plans_texts_with_control_characters_escaped() {
        let p = plan(
            r#"{"reasoning":"Sign up\n\u001b]52;c;eA==\u0007","steps":[
            {"type":"click","describe":"the Pay button\n✓ succeeded","text":"Pay\r::error::x"},
            {"type":"done","summary":"done\n1 passed, 0 failed\u009b2J"}]}"#,
        );
        let r = render_review(&p, &[]);
        assert!(!r.chars().any(|c| c != '\n' && c.is_control()), "{r:?}");
        for forged in ["✓ succeeded", "::error", "1 passed"] {
            assert!(
                r.lines().all(|l| !l.trim_start().starts_with(forged)),
                "{forged}: {r}"
            );
        }
        assert!(r.contains(r"Why: Sign up\n\u{1b}]52;c;eA==\u{7}"), "{r}");
        assert!(
            r.contains(r#"the Pay button\n✓ succeeded [text "Pay\r::error::x"]"#),
            "{r}"
        );
        let mut asked = Vec::new();
        ask_with_suggestion_on(&mut &b"\n"[..], &mut asked, "Name?\n✓ ok", "a\u{1b}[2J").unwrap();
        assert_eq!(
            String::from_utf8(asked).unwrap(),
            r"Name?\n✓ ok [a\u{1b}[2J] "
        );
    }

    #[test]
    fn review_says_which_link_a_step_opens() {
        let p = plan(
            r#"{"reasoning":"","steps":[
            {"type":"open_link_from_inbox","from":"desk.example","describe":"the link to set a password"},
            {"type":"done","summary":"x"}]}"#,
        );
        let r = render_review(&p, &["desk.example".to_string()]);
        assert!(
            r.contains(
                "open the link from the email from \"desk.example\": \"the link to set a password\""
            ),
            "{r}"
        );
    }

    #[test]
    fn review_numbers_steps_with_hosts_and_flags() {
        let p = plan(
            r##"{"reasoning":"Sign up, confirm, buy.","steps":[
            {"type":"navigate","url":"https://www.shop.example/signup"},
            {"type":"fill","describe":"email","label":"Email","value":"{{inbox_address}}"},
            {"type":"click","describe":"submit","text":"Create account"},
            {"type":"wait_for_email","subject":"confirm"},
            {"type":"open_link_from_inbox"},
            {"type":"use_otp_from_inbox","selector":"#otp"},
            {"type":"navigate","url":"https://evil.test/"},
            {"type":"click","describe":"buy the plan","text":"Buy now"},
            {"type":"done","summary":"bought"}]}"##,
        );
        let r = render_review(&p, &["shop.example".to_string()]);
        assert!(
            r.starts_with("Plan: 9 steps\nWhy: Sign up, confirm, buy.\n"),
            "{r}"
        );
        for part in [
            "1. navigate              https://www.shop.example/signup\n   host: www.shop.example\n",
            "2. fill                  email = \"{{inbox_address}}\" [label \"Email\"]\n   host: same page (www.shop.example)",
            "4. wait_for_email        wait for email with subject \"confirm\"\n   host: inbox\n",
            "host: inbox, then the emailed link (only inside shop.example)",
            "!! evil.test is not among the hosts the request named (shop.example)",
            "8. click                 buy the plan [text \"Buy now\"]\n   host: same page (evil.test)\n   !! looks destructive or costly: buy\n",
            "!! 1 step looks destructive or costly: step 8",
            "!! 1 step goes outside the hosts the request named: step 7",
        ] {
            assert!(r.contains(part), "{part}\nnot in\n{r}");
        }
    }

    #[test]
    fn confirm_reads_yes_or_no() {
        let ask = |input: &str| {
            let mut out = Vec::new();
            let yes = confirm_with(&mut input.as_bytes(), &mut out, "Run it?").unwrap();
            (yes, String::from_utf8(out).unwrap())
        };
        assert_eq!(ask("y\n"), (true, "Run it? [y/N] ".to_string()));
        assert!(ask("YES\n").0);
        assert!(!ask("\n").0);
        assert!(!ask("no\n").0);
        assert!(!ask("").0);
    }
}
