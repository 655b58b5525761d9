//! Per-step rules on well-formed steps: known `{{variables}}`, the field a step cannot do
//! without (`text` or `selector`…), the URL to visit, CSS selectors, and bounded seconds.

use crate::plan::Step;
use crate::plan::selector::check_selector;
use crate::plan::template::{SECRET_ENV_PREFIX, Template, Vars};
use crate::plan::wording::suggest;

use super::navigate_url::check_url;
use super::{Problem, Validator};

/// Longest `wait_seconds` a plan may ask for.
pub const MAX_WAIT_SECONDS: f64 = 300.0;
/// Longest `timeout_seconds` a step may ask for.
pub const MAX_TIMEOUT_SECONDS: f64 = 900.0;

impl Validator {
    /// Meaning of one well-formed step.
    pub(super) fn step_meaning(&mut self, path: &str, step: &Step, vars: &Vars) {
        for (field, text) in step.strings() {
            match Template::parse(&text) {
                Ok(t) => {
                    for name in t.variables() {
                        if !vars.is_known(name) {
                            let known: Vec<&str> = ["inbox_address", "run_id"]
                                .into_iter()
                                .chain(vars.caller_names())
                                .collect();
                            let secret = name.split_once('_').filter(|(head, rest)| {
                                head.eq_ignore_ascii_case("secret") && !rest.is_empty()
                            });
                            let path = format!("{path}.{field}");
                            if let Some((_, rest)) = secret {
                                // `{{secret_PASSWORD}}` for `{{secret.PASSWORD}}`.
                                self.problem(
                                    path,
                                    format!(
                                        "unknown variable `{{{{{name}}}}}`; a secret is written \
                                         `{{{{secret.{rest}}}}}` and read from the environment \
                                         variable {SECRET_ENV_PREFIX}{rest}"
                                    ),
                                );
                            } else {
                                let hint = suggest(name, known.iter().copied())
                                    .replace("`?)", "}}`?)")
                                    .replace("(did you mean `", "(did you mean `{{");
                                // How to give it is the front end's to say (a flag, a field).
                                self.problems.push(Problem {
                                    unknown_variable: Some(name.to_string()),
                                    ..Problem::new(
                                        path,
                                        format!(
                                            "unknown variable `{{{{{name}}}}}`{hint}; known: {}, \
                                             secret.NAME",
                                            known.join(", ")
                                        ),
                                    )
                                });
                            }
                        }
                    }
                }
                Err(e) => self.problem(format!("{path}.{field}"), e),
            }
        }
        let nonempty = |s: &Option<String>| s.as_deref().is_some_and(|s| !s.trim().is_empty());
        // Every step type is named: a new one must say what it requires.
        let selector = match step {
            Step::Navigate { url, .. } => {
                if let Err(e) = check_url(url) {
                    self.problem(format!("{path}.url"), e);
                }
                None
            }
            Step::Click { text, selector, .. } => {
                if !nonempty(text) && !nonempty(selector) {
                    self.problem(path, "`click` needs `text` (preferred) or `selector`");
                }
                selector.as_deref()
            }
            Step::Fill {
                label, selector, ..
            } => {
                if !nonempty(label) && !nonempty(selector) {
                    self.problem(path, "`fill` needs `label` (preferred) or `selector`");
                }
                selector.as_deref()
            }
            Step::ExtractText { selector, .. } => {
                if selector.as_deref().is_some_and(|s| s.trim().is_empty()) {
                    self.problem(
                        format!("{path}.selector"),
                        "is empty: name the element, or leave `selector` out to extract the \
                         page's main text",
                    );
                }
                selector.as_deref()
            }
            Step::WaitSeconds { seconds, .. } => {
                self.bounded(&format!("{path}.seconds"), *seconds, MAX_WAIT_SECONDS);
                None
            }
            Step::WaitForText { text, .. } => {
                if text.trim().is_empty() {
                    self.problem(
                        format!("{path}.text"),
                        "is empty: say which text to wait for",
                    );
                }
                None
            }
            Step::UseOtpFromInbox { selector, .. } => {
                if selector.trim().is_empty() {
                    self.problem(format!("{path}.selector"), "is empty: name the code input");
                }
                Some(selector.as_str())
            }
            Step::WaitForEmail { from, .. } => {
                self.sender_filter(path, from.as_deref());
                None
            }
            Step::OpenLinkFromInbox { from, describe, .. } => {
                self.sender_filter(path, from.as_deref());
                if let Some(d) = describe {
                    if d.trim().is_empty() {
                        self.problem(
                            format!("{path}.describe"),
                            "is empty: say which link (\"the link to set a password\"), or leave \
                             `describe` out to open the mail's verification or sign-in link",
                        );
                    } else if let Some(word) =
                        // Read as a sentence: "not the link to cancel it" names what to avoid.
                        crate::vocabulary::negation::Reading::of(d).undoing()
                    {
                        self.problem(
                            format!("{path}.describe"),
                            format!(
                                "asks for a link that says \"{word}\": a link that cancels, \
                                 removes, closes or unsubscribes is never opened from an email"
                            ),
                        );
                    }
                }
                None
            }
            Step::Done { .. } => None,
        };
        if let Some(t) = step.timeout_seconds() {
            self.bounded(&format!("{path}.timeout_seconds"), t, MAX_TIMEOUT_SECONDS);
        }
        if let Some(sel) = selector.filter(|s| !s.trim().is_empty() && !s.contains("{{"))
            && let Err(e) = check_selector(sel)
        {
            self.problem(format!("{path}.selector"), e);
        }
    }

    /// An inbox step's `from` names an address or a domain (blank means any sender; a
    /// `{{var}}` is checked once filled in, at run time).
    fn sender_filter(&mut self, path: &str, from: Option<&str>) {
        if let Some(from) = from.filter(|f| !f.trim().is_empty() && !f.contains("{{"))
            && let Err(e) = crate::plan::SenderFilter::parse(from)
        {
            self.problem(format!("{path}.from"), e);
        }
    }

    fn bounded(&mut self, path: &str, value: f64, max: f64) {
        if !value.is_finite() || value <= 0.0 {
            self.problem(
                path,
                format!(
                    "must be a positive number of seconds, not {}",
                    show_number(value)
                ),
            );
        } else if value > max {
            self.problem(
                path,
                format!(
                    "{} s is longer than the limit of {max} s",
                    show_number(value)
                ),
            );
        }
    }
}

/// A number as a person would write it: `1e300`, not three hundred zeros.
fn show_number(v: f64) -> String {
    if v == 0.0 {
        "0".to_string()
    } else if v.is_finite() && (v.abs() >= 1e9 || v.abs() < 1e-3) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::validate::problems;

    /// A describe is read as a sentence: what a negation names is what to avoid, not a link
    /// the step asks for; an undoing phrase with a negation in it is still that phrase.
    #[test]
    fn a_describe_that_names_the_link_to_avoid_is_valid() {
        let plan = |d: &str| {
            format!(
                r#"{{"reasoning":"","steps":[{{"type":"open_link_from_inbox","describe":"{d}"}},
                {{"type":"done","summary":"x"}}]}}"#
            )
        };
        for d in [
            "the link to confirm the email address (Special:ConfirmEmail), not the link to \
             cancel or invalidate it",
            "the confirm link rather than unsubscribe",
            "instead of the delete link, the confirm link",
            "the confirm link, never the remove link",
        ] {
            assert!(
                problems(&plan(d)).is_empty(),
                "{d}: {:?}",
                problems(&plan(d))
            );
        }
        let p = problems(&plan("the link to cancel or invalidate it"));
        assert!(
            p[0].contains("steps[0].describe: asks for a link that says \"cancel\""),
            "{p:?}"
        );
        let p = problems(&plan("the link for if you did not request it"));
        assert!(p[0].contains("says \"did not request\""), "{p:?}");
    }

    #[test]
    fn numbers_read_as_written() {
        assert_eq!(show_number(1e300), "1e300");
        assert_eq!(show_number(-0.0), "0");
        assert_eq!(show_number(-2.0), "-2");
        assert_eq!(show_number(1.5), "1.5");
        assert_eq!(show_number(5e-324), "5e-324");
    }

    #[test]
    fn secret_typos_point_at_secrets() {
        let p = problems(
            r#"{"reasoning":"","steps":[{"type":"done","summary":"{{SECRET_pw}} {{inbox_adress}}"}]}"#,
        );
        assert!(
            p[0].contains("a secret is written `{{secret.pw}}`"),
            "{p:?}"
        );
        assert!(
            p[1].contains("(did you mean `{{inbox_address}}`?)"),
            "{p:?}"
        );
    }

    #[test]
    fn an_unknown_variable_is_named_for_the_front_end_to_say_how_to_give_it() {
        let e = crate::plan::parse_and_validate(
            r#"{"reasoning":"","steps":[{"type":"done","summary":"{{promo}} {{secret_PW}}"}]}"#,
            &crate::plan::Limits::default(),
            &Vars::from_pairs(["promo_code=x"]).unwrap(),
        )
        .unwrap_err();
        let p = e.problems();
        assert_eq!(p[0].unknown_variable.as_deref(), Some("promo"));
        assert_eq!(
            p[0].message,
            "unknown variable `{{promo}}` (did you mean `{{promo_code}}`?); known: \
             inbox_address, run_id, promo_code, secret.NAME"
        );
        // A secret is not a caller variable: the sentence says how to give it already.
        assert_eq!(p[1].unknown_variable, None);
        // Not in the JSON a front end answers with.
        assert_eq!(
            serde_json::to_value(&p[0]).unwrap(),
            serde_json::json!({"path": "steps[0].summary", "message": p[0].message})
        );
    }
}
