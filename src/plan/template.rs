//! `{{variable}}` templates: parsing, substitution at run time, and masking of secrets.

mod mask;

use std::collections::BTreeMap;

pub use mask::{LONG_SECRET, Masker};

/// Secrets `{{secret.NAME}}` are read from the environment variable `PLANLOCK_SECRET_NAME`.
/// The prefix keeps a plan from reading arbitrary variables of the host (API keys, tokens).
pub const SECRET_ENV_PREFIX: &str = "PLANLOCK_SECRET_";

/// What every masked secret looks like in events, results and logs.
pub const MASK: &str = "••••";

/// A string field split into literal text and `{{variable}}` references.
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq)]
enum Part {
    Text(String),
    Var(String),
}

impl Template {
    /// Parses a string. Errors are sentences, e.g. an unclosed `{{` or a bad name.
    pub fn parse(s: &str) -> Result<Template, String> {
        let mut parts = Vec::new();
        let mut rest = s;
        while let Some(open) = rest.find("{{") {
            if open > 0 {
                parts.push(Part::Text(rest[..open].to_string()));
            }
            let after = &rest[open + 2..];
            let Some(close) = after.find("}}") else {
                // Counted in characters from 1, as an editor shows them.
                let at = s[..s.len() - rest.len() + open].chars().count() + 1;
                return Err(format!(
                    "the `{{{{` at character {at} is never closed with `}}}}`"
                ));
            };
            let name = after[..close].trim();
            if !valid_name(name) {
                return Err(format!(
                    "`{{{{{}}}}}` is not a variable name: use letters, digits and `_`, \
                     or `secret.NAME`",
                    super::wording::show(name)
                ));
            }
            parts.push(Part::Var(name.to_string()));
            rest = &after[close + 2..];
        }
        if !rest.is_empty() {
            parts.push(Part::Text(rest.to_string()));
        }
        Ok(Template { parts })
    }

    /// The variable names referenced, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Var(v) => Some(v.as_str()),
            Part::Text(_) => None,
        })
    }

    /// True when the string starts with a variable (so its shape is only known at run time).
    pub fn starts_with_variable(&self) -> bool {
        matches!(self.parts.first(), Some(Part::Var(_)))
    }

    /// Substitutes every variable with what `value` says for its name.
    pub fn render_with<'a>(&'a self, mut value: impl FnMut(&'a str) -> &'a str) -> String {
        let mut out = String::new();
        for p in &self.parts {
            match p {
                Part::Text(t) => out.push_str(t),
                Part::Var(v) => out.push_str(value(v)),
            }
        }
        out
    }

    /// Substitutes every variable; unknown ones are an error naming them.
    pub fn render(&self, vars: &Vars) -> Result<String, VarsError> {
        let mut out = String::new();
        for p in &self.parts {
            match p {
                Part::Text(t) => out.push_str(t),
                Part::Var(v) => out.push_str(vars.get(v)?),
            }
        }
        Ok(out)
    }
}

fn valid_name(name: &str) -> bool {
    let ident = |s: &str| {
        let mut chars = s.chars();
        matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    match name.strip_prefix("secret.") {
        Some(secret) => ident(secret),
        None => ident(name),
    }
}

/// Why a variable has no value, or cannot be given. The sentences name no flag or request
/// field: each front end says how a value is given (`--var`, the request's `vars`, where
/// secrets come from).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum VarsError {
    /// A caller variable the run was given no value for.
    #[error("unknown variable `{{{{{0}}}}}`: the run has no value for it")]
    Unknown(String),
    /// A secret with no value where this run's secrets come from.
    #[error("secret `{{{{secret.{0}}}}}` has no value")]
    MissingSecret(String),
    /// A built-in asked for before the run set it.
    #[error("`{{{{{0}}}}}` is only known once a run starts")]
    NotYetKnown(String),
    /// A caller variable that cannot be given as it is.
    #[error("variable `{name}`: {problem}")]
    BadVar {
        /// The name, or the whole pair when it is not `NAME=VALUE`.
        name: String,
        problem: VarProblem,
    },
    /// A string of the plan is not a template (an unclosed `{{`, a bad name).
    #[error("`{text}`: {problem}")]
    BadTemplate { text: String, problem: String },
}

/// What is wrong with a caller variable as given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum VarProblem {
    #[error("expected NAME=VALUE")]
    NotNameValue,
    #[error("a name is letters, digits and `_`, not starting with a digit")]
    BadName,
    #[error("the name is built in and set by the run")]
    BuiltIn,
}

/// The values of a run's variables: built-ins, the caller's, and secrets.
#[derive(Debug, Clone, Default)]
pub struct Vars {
    run_id: Option<String>,
    inbox_address: Option<String>,
    caller: BTreeMap<String, String>,
    secrets: BTreeMap<String, String>,
    /// (secret name, text before it, text after it) for every place the plan uses a secret.
    neighbours: Vec<(String, String, String)>,
}

impl Vars {
    /// Caller variables from `NAME=VALUE` pairs; names may not shadow built-ins.
    pub fn from_pairs<I, S>(pairs: I) -> Result<Vars, VarsError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut vars = Vars::default();
        for pair in pairs {
            let pair = pair.as_ref();
            let Some((name, value)) = pair.split_once('=') else {
                return Err(VarsError::BadVar {
                    name: pair.to_string(),
                    problem: VarProblem::NotNameValue,
                });
            };
            vars.insert(name, value)?;
        }
        Ok(vars)
    }

    /// Adds one caller variable.
    pub fn insert(&mut self, name: &str, value: &str) -> Result<(), VarsError> {
        let problem = if !valid_name(name) || name.starts_with("secret.") {
            Some(VarProblem::BadName)
        } else if name == "run_id" || name == "inbox_address" {
            Some(VarProblem::BuiltIn)
        } else {
            None
        };
        if let Some(problem) = problem {
            return Err(VarsError::BadVar {
                name: name.to_string(),
                problem,
            });
        }
        self.caller.insert(name.to_string(), value.to_string());
        Ok(())
    }

    /// Sets the built-ins once the run knows them.
    pub fn with_run(mut self, run_id: &str, inbox_address: Option<&str>) -> Vars {
        self.run_id = Some(run_id.to_string());
        self.inbox_address = inbox_address.map(str::to_string);
        self
    }

    /// Loads every `{{secret.NAME}}` used by `names` from the environment.
    pub fn load_secrets<'a>(
        &mut self,
        names: impl IntoIterator<Item = &'a str>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<(), VarsError> {
        for name in names {
            if let Some(secret) = name.strip_prefix("secret.") {
                let value = env(&format!("{SECRET_ENV_PREFIX}{secret}"))
                    .filter(|v| !v.is_empty())
                    .ok_or_else(|| VarsError::MissingSecret(secret.to_string()))?;
                self.secrets.insert(secret.to_string(), value);
            }
        }
        Ok(())
    }

    /// Names a plan may use before values exist: built-ins, caller vars and any secret.
    pub fn is_known(&self, name: &str) -> bool {
        name == "run_id"
            || name == "inbox_address"
            || name.starts_with("secret.")
            || self.caller.contains_key(name)
    }

    /// Caller variable names, for messages.
    pub fn caller_names(&self) -> impl Iterator<Item = &str> {
        self.caller.keys().map(String::as_str)
    }

    /// A caller variable's value.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.caller.get(name).map(String::as_str)
    }

    fn get(&self, name: &str) -> Result<&str, VarsError> {
        match name {
            "run_id" => self
                .run_id
                .as_deref()
                .ok_or(VarsError::NotYetKnown(name.into())),
            "inbox_address" => self
                .inbox_address
                .as_deref()
                .ok_or(VarsError::NotYetKnown(name.into())),
            _ => match name.strip_prefix("secret.") {
                Some(secret) => self
                    .secrets
                    .get(secret)
                    .map(String::as_str)
                    .ok_or_else(|| VarsError::MissingSecret(secret.into())),
                None => self
                    .caller
                    .get(name)
                    .map(String::as_str)
                    .ok_or_else(|| VarsError::Unknown(name.into())),
            },
        }
    }

    /// A masker that hides every secret value of this run, wherever the plan put it.
    pub fn masker(&self) -> Masker {
        let mut masker = Masker::new(self.secrets.values());
        for (name, before, after) in &self.neighbours {
            if let Some(value) = self.secrets.get(name) {
                masker.learn_neighbours(value, before, after);
            }
        }
        masker
    }

    /// Notes the text the plan writes next to each `{{secret.NAME}}` (with caller variables
    /// filled in), so the masker hides a secret the plan glues to a word.
    pub fn learn_secret_neighbours(&mut self, plan: &super::Plan) {
        let templates: Vec<Template> = plan
            .steps
            .iter()
            .flat_map(|s| s.strings().into_iter().map(|(_, v)| v.clone()))
            .filter_map(|s| Template::parse(&s).ok())
            .collect();
        for t in templates {
            let text = |p: Option<&Part>| match p {
                Some(Part::Text(t)) => t.clone(),
                Some(Part::Var(v)) => self.caller.get(v).cloned().unwrap_or_default(),
                None => String::new(),
            };
            for (i, part) in t.parts.iter().enumerate() {
                if let Part::Var(v) = part
                    && let Some(name) = v.strip_prefix("secret.")
                {
                    let before = text(i.checked_sub(1).and_then(|j| t.parts.get(j)));
                    let after = text(t.parts.get(i + 1));
                    self.neighbours.push((name.to_string(), before, after));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_text_and_variables() {
        let t = Template::parse("hi {{ name }} at {{inbox_address}}!").unwrap();
        assert_eq!(t.variables().collect::<Vec<_>>(), ["name", "inbox_address"]);
        let vars = Vars::from_pairs(["name=Ada"])
            .unwrap()
            .with_run("r1", Some("a@b.test"));
        assert_eq!(t.render(&vars).unwrap(), "hi Ada at a@b.test!");
    }

    #[test]
    fn rejects_unclosed_and_bad_names() {
        assert!(
            Template::parse("x {{name")
                .unwrap_err()
                .contains("never closed")
        );
        assert!(
            Template::parse("{{1abc}}")
                .unwrap_err()
                .contains("not a variable name")
        );
        assert!(Template::parse("{{secret.}}").is_err());
    }

    #[test]
    fn secrets_come_from_prefixed_env_and_are_masked() {
        let t = Template::parse("{{secret.PW}}").unwrap();
        let mut vars = Vars::default();
        vars.load_secrets(t.variables(), |k| {
            (k == "PLANLOCK_SECRET_PW").then(|| "hunter2".into())
        })
        .unwrap();
        assert_eq!(t.render(&vars).unwrap(), "hunter2");
        assert_eq!(vars.masker().mask("pw is hunter2."), "pw is ••••.");
        let err = Vars::default()
            .load_secrets(["secret.NOPE"], |_| None)
            .unwrap_err();
        // Where a secret comes from is the front end's to say.
        assert_eq!(err, VarsError::MissingSecret("NOPE".into()));
        assert_eq!(err.to_string(), "secret `{{secret.NOPE}}` has no value");
    }

    #[test]
    fn caller_vars_cannot_shadow_builtins() {
        let problem = |pair: &str| match Vars::from_pairs([pair]) {
            Err(VarsError::BadVar { problem, .. }) => problem,
            other => panic!("{pair}: {other:?}"),
        };
        assert_eq!(problem("run_id=x"), VarProblem::BuiltIn);
        assert_eq!(problem("novalue"), VarProblem::NotNameValue);
        assert_eq!(problem("1st=x"), VarProblem::BadName);
        assert_eq!(problem("secret.PW=x"), VarProblem::BadName);
    }
}
