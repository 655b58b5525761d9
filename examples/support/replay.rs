//! Replaying a corpus plan with the calls the runner makes, timed, for `corpus_bench`; and
//! for `scripts/bench --explain CASE`, before each click and fill, the candidates the locator
//! found (in document order), the candidates each ranking rule kept, and the rule that decided.
//! Shared with `#[path]` by `corpus_bench` and the corpus tests, which explain a case and check
//! what it prints.

use std::fmt::Write as _;
use std::time::Duration;

use planlock::browser::{Explained, PageError, Tab};
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

/// What one replay of a plan measured, and with `explain` what the locator said.
#[derive(Debug, Default)]
pub struct Replay {
    /// The step that stopped the replay and why, if one did.
    pub error: Option<String>,
    /// (step type, locate ms, step ms) of every click and fill that succeeded.
    pub steps: Vec<(&'static str, f64, f64)>,
    /// Milliseconds from each click to its first effect (`effect.after_ms`).
    pub effects: Vec<f64>,
    /// With `explain`: each step, and before each click and fill the locator's account of
    /// its choice (empty without).
    pub explained: String,
}

/// Replays the rendered `plan` on `tab` step by step with the calls the runner makes, timing
/// clicks and fills; with `explain`, each click and fill is explained before it is done (the
/// explaining is not timed).
pub async fn replay(tab: &Tab, plan: &Plan, explain: bool) -> Replay {
    let mut r = Replay::default();
    for (i, step) in plan.steps.iter().enumerate() {
        let n = i + 1;
        let budget = step.timeout_seconds().map(Duration::from_secs_f64);
        let deadline =
            |default: u64| Instant::now() + budget.unwrap_or(Duration::from_secs(default));
        if explain {
            explain_step(tab, n, step, deadline(10), &mut r.explained).await;
        }
        let began = Instant::now();
        // The locator's own time for clicks and fills; `None` for other steps.
        let outcome: Result<Option<f64>, PageError> = match step {
            Step::Navigate { url, .. } => tab.navigate(url, deadline(30)).await.map(|_| None),
            Step::Click {
                describe,
                text,
                selector,
                ..
            } => tab
                .click(
                    describe,
                    text.as_deref(),
                    selector.as_deref(),
                    &[],
                    deadline(10),
                )
                .await
                .map(|c| {
                    r.effects.extend(c.effect.after_ms);
                    c.located.locate_ms
                }),
            Step::Fill {
                describe,
                label,
                selector,
                value,
                ..
            } => tab
                .fill(
                    describe,
                    label.as_deref(),
                    selector.as_deref(),
                    value,
                    false,
                    deadline(10),
                )
                .await
                .map(|l| l.located.locate_ms),
            Step::WaitForText { text, .. } => {
                tab.wait_for_text(text, deadline(30)).await.map(|()| None)
            }
            Step::WaitSeconds { seconds, .. } => {
                tokio::time::sleep(Duration::from_secs_f64(*seconds)).await;
                Ok(None)
            }
            Step::Done { .. } => break,
            other => {
                r.error = Some(format!(
                    "step {n}: {} steps are not part of the corpus",
                    other.kind()
                ));
                return r;
            }
        };
        let ms = began.elapsed().as_secs_f64() * 1000.0;
        match outcome {
            Ok(locate) if matches!(step, Step::Click { .. } | Step::Fill { .. }) => {
                r.steps
                    .push((step.kind().as_str(), locate.unwrap_or(f64::NAN), ms))
            }
            Ok(_) => {}
            Err(e) => {
                r.error = Some(format!("step {n} failed: {e:?}"));
                return r;
            }
        }
    }
    r
}

/// Writes what step `n` asks for and, for a click or a fill, the locator's account of the
/// choice it would make now (nothing is clicked or typed).
async fn explain_step(tab: &Tab, n: usize, step: &Step, deadline: Instant, out: &mut String) {
    let _ = match step {
        Step::Navigate { url, .. } => writeln!(out, "step {n} navigate {url}"),
        Step::Click {
            describe,
            text,
            selector,
            ..
        } => {
            let asked = asked(text.as_deref().map(|t| ("text", t)), selector.as_deref());
            writeln!(out, "step {n} click {asked} ({describe})")
        }
        Step::Fill {
            describe,
            label,
            selector,
            ..
        } => {
            let asked = asked(label.as_deref().map(|l| ("label", l)), selector.as_deref());
            writeln!(out, "step {n} fill {asked} ({describe})")
        }
        Step::WaitForText { text, .. } => writeln!(out, "step {n} wait_for_text {text:?}"),
        Step::WaitSeconds { seconds, .. } => writeln!(out, "step {n} wait_seconds {seconds}"),
        _ => Ok(()),
    };
    match tab.explain(step, deadline).await {
        Some(Ok(e)) => write_explained(out, &e),
        Some(Err(e)) => {
            let _ = writeln!(out, "  the locator could not choose: {e:?}");
        }
        None => {}
    }
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
            (false, _) => "hidden".to_string(),
            (true, true) => "ranked".to_string(),
            // Out of a person's reach: inert, or covered (a modal dialog, a backdrop, a bar).
            (true, false) if k.inert == Some(true) => "inert".to_string(),
            (true, false) => match &k.covered_by {
                Some(by) => format!("covered by {by}"),
                None => "out of reach".to_string(),
            },
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
