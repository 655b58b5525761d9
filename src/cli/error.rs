//! The command line's one error: what failed, said where its value came from (a flag, a file),
//! the library error under it, and the exit code. `main` prints it once, with its chain.

use std::error::Error;
use std::fmt;

use planlock::browser::BrowserError;
use planlock::exit;
use planlock::inbox::{InboxError, UrlProblem};
use planlock::lock::LockError;
use planlock::plan::{Problem, VarsError};
use planlock::planner::PlannerError;

/// Why a command stopped before it could do what it was asked.
#[derive(Debug)]
pub struct CliError {
    code: u8,
    message: String,
    source: Option<Box<dyn Error + Send + Sync>>,
}

impl CliError {
    /// Exit 2: the command was given something it cannot use.
    pub fn input(message: impl Into<String>) -> CliError {
        CliError::new(exit::INVALID_INPUT, message)
    }

    /// Exit 3: something the command depends on (browser, inbox, model, a file) is not usable.
    pub fn environment(message: impl Into<String>) -> CliError {
        CliError::new(exit::ENVIRONMENT, message)
    }

    pub fn new(code: u8, message: impl Into<String>) -> CliError {
        CliError {
            code,
            message: message.into(),
            source: None,
        }
    }

    /// The library error this one is about; its sentence follows this one's.
    pub fn because(mut self, source: impl Error + Send + Sync + 'static) -> CliError {
        self.source = Some(Box::new(source));
        self
    }

    /// The process exit code (docs/exit-codes.md).
    pub fn code(&self) -> u8 {
        self.code
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl Error for CliError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn Error + 'static))
    }
}

/// An error and every cause under it, as one line: `--inbox URL: no password: …`.
pub fn chain(error: &dyn Error) -> String {
    let mut line = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        line.push_str(": ");
        line.push_str(&e.to_string());
        cause = e.source();
    }
    line
}

/// `--var NAME=VALUE`, or what a plan needs of a variable, in the command line's words.
impl From<VarsError> for CliError {
    fn from(e: VarsError) -> CliError {
        match e {
            VarsError::BadVar { name, problem } => {
                CliError::input(format!("--var {name}")).because(problem)
            }
            VarsError::MissingSecret(ref name) => CliError::input(format!(
                "{e}: set the environment variable {}{name}",
                planlock::plan::SECRET_ENV_PREFIX
            )),
            VarsError::Unknown(ref name) => {
                CliError::input(format!("{e}: pass it with --var {name}=VALUE"))
            }
            other => CliError::input(other.to_string()),
        }
    }
}

/// An `--inbox` binding that cannot be used: the URL wrong (exit 2), or the mailbox or the
/// embedded receiver unusable (exit 3).
pub fn inbox_error(e: InboxError) -> CliError {
    match e {
        InboxError::InvalidUrl { given, problem } => {
            // The shell fills it in.
            inbox_url_error(&format!("--inbox {given}"), problem, |user| {
                format!("\"imap://{user}:$IMAP_PASSWORD@...\"")
            })
        }
        other => CliError::environment(other.to_string()),
    }
}

/// A wrong inbox URL from `place` (`--inbox URL`, a line of a file): the problem, and, when
/// the password is missing, how the command takes it from the environment (`from_env` writes
/// the `--inbox` value for a user name).
pub fn inbox_url_error(
    place: &str,
    problem: UrlProblem,
    from_env: impl Fn(&str) -> String,
) -> CliError {
    match &problem {
        UrlProblem::NoPassword { user, .. } => CliError::input(format!(
            "{place}: {problem}; take it from the environment with --inbox {}",
            from_env(user)
        )),
        _ => CliError::input(place).because(problem),
    }
}

/// `--allow-host` that is not a host, or a lock that cannot be made.
pub fn lock_error(e: LockError) -> CliError {
    match e {
        LockError::NotAHost { .. } => CliError::input("--allow-host").because(e),
        other => CliError::input(other.to_string()),
    }
}

/// A browser that cannot be found or started (exit 3), and how `run`, `act` and `demo` choose
/// theirs.
pub fn browser_error(e: BrowserError) -> CliError {
    let hint = match &e {
        BrowserError::NotFound => ", or pass --browser PATH, or set $CHROME",
        BrowserError::HeadlessShellHasNoWindow { .. } => {
            ": for --headful pass the full browser with --browser PATH or $CHROME"
        }
        _ => "",
    };
    CliError::environment(format!("{e}{hint}"))
}

/// The planner's failure with its own exit code; a bad `--allow-host` said as one.
impl From<PlannerError> for CliError {
    fn from(e: PlannerError) -> CliError {
        let code = e.exit_code();
        match e {
            PlannerError::BadAllowHost(lock) => CliError::new(code, "--allow-host").because(lock),
            other => CliError::new(code, other.to_string()),
        }
    }
}

/// A plan problem as `validate` and `run` print it: an unknown variable says how to pass it.
pub fn problem_line(problem: &Problem) -> String {
    match &problem.unknown_variable {
        Some(name) => format!("{problem}; pass it with `--var {name}=VALUE`"),
        None => problem.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chain_reads_as_one_sentence() {
        let e =
            inbox_error(planlock::inbox::parse_binding("work=smtp://127.0.0.1:25").unwrap_err());
        assert_eq!(e.code(), exit::INVALID_INPUT);
        assert_eq!(
            chain(&e),
            "--inbox work=smtp://127.0.0.1:25: no domain: add ?domain=DOMAIN (each run receives \
             at run-RUNID@DOMAIN), e.g. smtp://127.0.0.1:25?domain=demo.test, or ?address=ADDR (every \
             run receives at that one address)"
        );
        let e = CliError::from(planlock::plan::Vars::from_pairs(["1st=x"]).unwrap_err());
        assert_eq!(
            chain(&e),
            "--var 1st: a name is letters, digits and `_`, not starting with a digit"
        );
    }

    #[test]
    fn a_missing_password_says_how_to_keep_it_off_the_command_line() {
        let e = inbox_error(
            planlock::inbox::parse_binding("imap://bob@127.0.0.1:1143/INBOX?address=b@x.test")
                .unwrap_err(),
        );
        let line = chain(&e);
        assert!(
            line.starts_with(
                "--inbox imap://bob@127.0.0.1:1143/INBOX?address=b@x.test: no password"
            ),
            "{line}"
        );
        assert!(
            line.ends_with("--inbox \"imap://bob:$IMAP_PASSWORD@...\""),
            "{line}"
        );
    }
}
