//! `scripts/bench --explain CASE`: replays one corpus plan step by step and, before each click
//! and fill, prints the candidates the locator found (in document order), the candidates each
//! ranking rule kept, and the rule that decided. Shared with `#[path]` by `corpus_bench` and
//! the corpus tests, which run it on a case and check what it prints.

use std::fmt::Write as _;
use std::time::Duration;

use planlock::browser::{Explained, Tab};
use planlock::plan::{Plan, Step, Template, Vars};
use tokio::time::Instant;

/// `plan` with its `{{vars}}` filled in, as the runner renders them.
pub fn render(plan: &Plan, vars: &Vars) -> Plan {
    let steps = plan
        .steps
        .iter()
        .map(|s| {
            let mut s = s.clone();
            for (_, text) in s.strings_mut() {
                if let Some(v) = Template::parse(text).ok().and_then(|t| t.render(vars).ok()) {
                    *text = v;
                }
            }
            s
        })
        .collect();
    Plan {
        steps,
        ..plan.clone()
    }
}

/// Runs the rendered `plan` on `tab`, explaining each click and fill before doing it; the
/// account so far, and the error that stopped it if one did.
pub async fn explain_plan(tab: &Tab, plan: &Plan) -> (String, Option<String>) {
    let mut out = String::new();
    for (i, step) in plan.steps.iter().enumerate() {
        let budget = step.timeout_seconds().map(Duration::from_secs_f64);
        let deadline =
            |default: u64| Instant::now() + budget.unwrap_or(Duration::from_secs(default));
        let n = i + 1;
        let failed = match step {
            Step::Navigate { url, .. } => {
                let _ = writeln!(out, "step {n} navigate {url}");
                tab.navigate(url, deadline(30)).await.err()
            }
            Step::Click {
                describe,
                text,
                selector,
                ..
            } => {
                let (text, selector) = (text.as_deref(), selector.as_deref());
                let asked = asked(text.map(|t| ("text", t)), selector);
                let _ = writeln!(out, "step {n} click {asked} ({describe})");
                match tab
                    .explain_click(describe, text, selector, deadline(10))
                    .await
                {
                    Ok(e) => write_explained(&mut out, &e),
                    Err(e) => {
                        let _ = writeln!(out, "  the locator could not choose: {e:?}");
                    }
                }
                tab.click(describe, text, selector, &[], deadline(10))
                    .await
                    .err()
            }
            Step::Fill {
                describe,
                label,
                selector,
                value,
                ..
            } => {
                let (label, selector) = (label.as_deref(), selector.as_deref());
                let asked = asked(label.map(|l| ("label", l)), selector);
                let _ = writeln!(out, "step {n} fill {asked} ({describe})");
                match tab
                    .explain_fill(describe, label, selector, deadline(10))
                    .await
                {
                    Ok(e) => write_explained(&mut out, &e),
                    Err(e) => {
                        let _ = writeln!(out, "  the locator could not choose: {e:?}");
                    }
                }
                tab.fill(describe, label, selector, value, false, deadline(10))
                    .await
                    .err()
            }
            Step::WaitForText { text, .. } => {
                let _ = writeln!(out, "step {n} wait_for_text {text:?}");
                tab.wait_for_text(text, deadline(30)).await.err()
            }
            Step::WaitSeconds { seconds, .. } => {
                let _ = writeln!(out, "step {n} wait_seconds {seconds}");
                tokio::time::sleep(Duration::from_secs_f64(*seconds)).await;
                None
            }
            Step::Done { .. } => break,
            other => {
                let why = format!(
                    "step {n}: {} steps are not part of the corpus",
                    other.kind()
                );
                return (out, Some(why));
            }
        };
        if let Some(e) = failed {
            return (out, Some(format!("step {n} failed: {e:?}")));
        }
    }
    (out, None)
}

/// What a step asked for: `text "Sign Up"`, `selector "#terms"` or both.
fn asked(by: Option<(&str, &str)>, selector: Option<&str>) -> String {
    let by = by.map(|(what, q)| format!("{what} {q:?}"));
    let selector = selector.map(|s| format!("selector {s:?}"));
    [by, selector]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(", ")
}

/// The candidates (one line each, `*` marking the chosen one), then each rule with the indexes
/// it kept until one candidate is left, the deciding rule marked.
fn write_explained(out: &mut String, e: &Explained) {
    let strategy = e.strategy.as_deref().unwrap_or("-");
    let key = e
        .key
        .as_deref()
        .map(|k| format!(", key {k}"))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "  found by {strategy}{key}; candidates: {}",
        e.candidates.len()
    );
    for (i, c) in e.candidates.iter().enumerate() {
        let mark = if e.chosen == Some(i) { '*' } else { ' ' };
        let k = &c.candidate;
        let field = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
        let shown = match (c.visible, c.ranked) {
            (false, _) => "hidden",
            (true, false) => "behind a modal dialog",
            (true, true) => "ranked",
        };
        let _ = writeln!(
            out,
            "  {mark}[{i}] {}  role {}  landmark {}  form {}  match {}  {shown}",
            field(&k.element),
            field(&k.role),
            field(&k.landmark),
            field(&k.form),
            field(&c.r#match),
        );
    }
    let decided = e.decided_by.as_deref().unwrap_or("-");
    // Once one candidate is left the rules after it decide nothing.
    let mut left = e.candidates.iter().filter(|c| c.ranked).count();
    for r in &e.rules {
        if left <= 1 {
            break;
        }
        let mut kept = r.kept.clone();
        kept.sort_unstable();
        let kept: Vec<String> = kept.iter().map(|i| i.to_string()).collect();
        let mark = if r.rule == decided {
            "  <- decided"
        } else {
            ""
        };
        let _ = writeln!(out, "    {:<12} kept [{}]{mark}", r.rule, kept.join(", "));
        left = r.kept.len();
    }
    let _ = writeln!(out, "  decided_by {decided}");
}
