//! The command line: `run` and `validate` here, the other commands in their own files. Each
//! turns its arguments into the library's requests and words the library's errors for a
//! terminal (flag names, exit codes).

mod act;
mod demo;
mod error;
mod plan;
mod serve;
mod signals;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use planlock::browser::{Chromium, LaunchOptions, Preference};
use planlock::exit;
use planlock::inbox::binding::BindInboxes;
use planlock::inbox::{InboxUrl, connect, parse_binding};
use planlock::lock::Lock;
use planlock::pipeline::{self, run::Unlocked};
use planlock::plan::{
    self as plan_format, LONG_SECRET, Limits, Plan, SECRET_ENV_PREFIX, Template, Vars, VarsError,
};
use planlock::report::html::write_html;
use planlock::report::junit::write_junit;
use planlock::report::{
    EventLog, PlanOutcome, PlanReport, ProgressLog, Tally, json_printable, printable,
};
use planlock::runner::{
    self, Binding, Listener, LockedRun, Recorder, RunSpec, Screenshots, Secrets, Settings,
    SpecError, event::Fanout,
};
use tokio_util::sync::CancellationToken;

pub use act::{ActArgs, act_command};
pub use demo::{DemoArgs, demo_command};
pub use error::{CliError, chain};
pub use plan::{PlanArgs, plan_command};
pub use serve::{McpArgs, ServeArgs, mcp_command, serve_command};
pub use signals::Interrupt;

/// The largest plan file read (as the HTTP service's largest request).
pub const MAX_PLAN_BYTES: u64 = 1 << 20;

/// The longest run deadline `--timeout` accepts: a day.
pub const MAX_TIMEOUT_SECS: u64 = 86_400;

/// Options shared by `run` and `act`.
#[derive(Debug, Clone, clap::Args)]
pub struct RunOptions {
    /// Bind a mailbox: `URL` (the default inbox) or `NAME=URL` (for `inbox_id`).
    /// `imap://USER:PASS@HOST:PORT/MAILBOX?address=ADDR&plus=true`, `imaps://…`,
    /// or `smtp://127.0.0.1:2525?domain=DOMAIN` (an embedded receiver).
    #[arg(long = "inbox", value_name = "[NAME=]URL")]
    pub inboxes: Vec<String>,
    /// A caller variable for `{{NAME}}`.
    #[arg(long = "var", value_name = "NAME=VALUE")]
    pub vars: Vec<String>,
    /// Also allow this host (and its subdomains) as a destination.
    #[arg(long = "allow-host", value_name = "HOST")]
    pub allow_hosts: Vec<String>,
    /// Write the event log as JSON Lines to FILE (`-` for stdout).
    #[arg(long, value_name = "FILE|-")]
    pub events: Option<String>,
    /// Write a static HTML report (an index, a page per run with its timeline, step details
    /// and screenshots), each result as JSON and each event log into DIR.
    #[arg(long, value_name = "DIR")]
    pub report: Option<PathBuf>,
    /// Write JUnit XML: a test suite per plan, a test case per step.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Print the result(s) as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// Run up to N plans at once (each in its own browser context).
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = jobs_limit)]
    pub jobs: usize,
    /// Chromium to launch (else $CHROME, else the full browser where it is usually installed),
    /// e.g. its headless shell /usr/lib/chromium/chromium-headless-shell for about half the CPU
    /// per run.
    #[arg(long, value_name = "PATH", conflicts_with = "browser_ws")]
    pub browser: Option<PathBuf>,
    /// Connect to a running browser over CDP instead of launching one.
    #[arg(long = "browser-ws", value_name = "URL")]
    pub browser_ws: Option<String>,
    /// Show the browser window.
    #[arg(long)]
    pub headful: bool,
    /// Deadline of each run, in seconds (at most a day).
    #[arg(long, value_name = "SECS", default_value_t = 600, value_parser = timeout_secs)]
    pub timeout: u64,
    /// Wrap extracted page text in a tag carrying a random nonce (untrusted text).
    #[arg(long = "wrap-untrusted")]
    pub wrap_untrusted: bool,
    /// Most steps a plan may have.
    #[arg(long = "max-steps", default_value_t = 15, value_name = "N", value_parser = steps_limit)]
    pub max_steps: usize,
    /// Which steps get a screenshot: every step, only a failed one, or none.
    #[arg(long, value_enum, default_value_t = ScreenshotChoice::Failure, value_name = "WHICH")]
    pub screenshots: ScreenshotChoice,
    /// A failed `should` step fails the run, as a `must` step does (by default it is a
    /// warning, or asked about by `act` at a terminal).
    #[arg(long)]
    pub strict: bool,
    /// Who decides about a failed `should` step (a person at a terminal, in `act`).
    #[arg(skip)]
    pub ask: Option<std::sync::Arc<dyn planlock::runner::AskShould>>,
}

/// `--screenshots all|failure|none`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ScreenshotChoice {
    All,
    Failure,
    None,
}

impl From<ScreenshotChoice> for Screenshots {
    fn from(c: ScreenshotChoice) -> Screenshots {
        match c {
            ScreenshotChoice::All => Screenshots::All,
            ScreenshotChoice::Failure => Screenshots::Failure,
            ScreenshotChoice::None => Screenshots::None,
        }
    }
}

/// `--timeout`: whole seconds from 1 to a day (a larger deadline would overflow the clock).
fn timeout_secs(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(n) if (1..=MAX_TIMEOUT_SECS).contains(&n) => Ok(n),
        _ => Err(format!(
            "the run deadline is whole seconds from 1 to {MAX_TIMEOUT_SECS} (a day)"
        )),
    }
}

/// `--max-steps` (also of `validate` and `plan`): from 1 to 1000.
pub fn steps_limit(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if (1..=1000).contains(&n) => Ok(n),
        _ => Err("a plan's step limit is a number from 1 to 1000".to_string()),
    }
}

/// `--jobs`: from 1 to 64 runs at once.
fn jobs_limit(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if (1..=64).contains(&n) => Ok(n),
        _ => Err("the number of runs at once is from 1 to 64".to_string()),
    }
}

/// `planlock run PLAN.json...`
#[derive(Debug, Clone, clap::Args)]
pub struct RunArgs {
    /// Plan files to run (a quoted glob such as 'plans/*.json' is expanded here).
    #[arg(required = true, value_name = "PLAN.json")]
    pub plans: Vec<PathBuf>,
    #[command(flatten)]
    pub options: RunOptions,
}

/// What a `run` (or `act`) did: every plan given and what became of it, in order.
pub struct Replay {
    pub reports: Vec<PlanReport>,
    /// The signal that cancelled the runs, as its exit code.
    pub interrupted: Option<u8>,
    /// A report (`--report`, `--junit`) could not be written.
    pub unwritten: bool,
}

impl Replay {
    /// A signal's code (130, 143, 129); else 2 when a plan was invalid; else 3 when a report
    /// could not be written; else 1 when a run did not succeed; else 0.
    pub fn exit_code(&self) -> u8 {
        let tally = Tally::of(&self.reports);
        if let Some(code) = self.interrupted {
            code
        } else if tally.invalid > 0 {
            exit::INVALID_INPUT
        } else if self.unwritten {
            exit::ENVIRONMENT
        } else if tally.failed + tally.cancelled > 0 {
            exit::RUN_FAILED
        } else {
            exit::SUCCESS
        }
    }
}

/// Runs `planlock run`.
pub async fn run_command(args: RunArgs) -> Result<u8, CliError> {
    check_outputs(&args.options)?;
    let caller = Vars::from_pairs(&args.options.vars)?;
    let inboxes = parse_inboxes(&args.options.inboxes)?;
    let limits = Limits {
        max_steps: args.options.max_steps,
    };
    let mut specs = Vec::new();
    let mut invalid = Vec::new();
    for (position, (name, loaded)) in load_plans(&args.plans, &limits, &caller, false)
        .into_iter()
        .enumerate()
    {
        match loaded {
            Ok(plan) => {
                let spec = RunSpec::new(plan)
                    .vars(caller.clone())
                    .allow_hosts(args.options.allow_hosts.iter().cloned());
                specs.push((position, name, spec));
            }
            Err(problems) => invalid.push((
                position,
                PlanReport {
                    plan: name,
                    outcome: PlanOutcome::Invalid { problems },
                },
            )),
        }
    }
    let replay = replay(specs, invalid, inboxes, None, &args.options).await?;
    eprintln!("{}", Tally::of(&replay.reports));
    Ok(replay.exit_code())
}

/// Output choices that cannot go together: two formats on stdout.
pub fn check_outputs(options: &RunOptions) -> Result<(), CliError> {
    if options.json && options.events.as_deref() == Some("-") {
        return Err(CliError::input(
            "--events - and --json both write to stdout: pick one for stdout and send the \
             other to a file (e.g. --events events.jsonl --json)",
        ));
    }
    Ok(())
}

/// Runs `planlock validate`: every problem of every file, then exit 0 or 2.
pub fn validate_command(
    paths: &[PathBuf],
    vars: &[String],
    max_steps: usize,
) -> Result<u8, CliError> {
    let vars = Vars::from_pairs(vars)?;
    let loaded = load_plans(paths, &Limits { max_steps }, &vars, true);
    Ok(if loaded.iter().all(|(_, l)| l.is_ok()) {
        exit::SUCCESS
    } else {
        exit::INVALID_INPUT
    })
}

/// Reads and validates plan files, printing each problem as `FILE: PATH: sentence` (and
/// `FILE: ok (N steps)` when `report_ok`). An argument that names no file but is a glob
/// (`plans/*.json`, quoted or from a shell that passes it on) is expanded. One entry per
/// file, in order: the plan, or its problems as printed.
pub fn load_plans(
    paths: &[PathBuf],
    limits: &Limits,
    vars: &Vars,
    report_ok: bool,
) -> Vec<(String, Result<Plan, Vec<String>>)> {
    let mut out = Vec::new();
    for (name, path) in expand(paths) {
        let loaded = match path {
            Err(problem) => Err(vec![problem]),
            Ok(path) => load_plan(&path, limits, vars),
        };
        match &loaded {
            Ok(p) if report_ok => {
                let n = p.steps.len();
                eprintln!("{name}: ok ({n} step{})", if n == 1 { "" } else { "s" });
            }
            Ok(_) => {}
            Err(problems) => {
                for p in problems {
                    eprintln!("{name}{}", printable(p));
                }
            }
        }
        // Reports show the problems under the file's name: without the separator.
        let loaded = loaded.map_err(|problems| {
            problems
                .iter()
                .map(|p| p.trim_start_matches(':').trim_start().to_string())
                .collect()
        });
        out.push((name, loaded));
    }
    out
}

/// Each argument as a file, or the files its glob matches; a glob that matches nothing is
/// a problem of its own.
fn expand(paths: &[PathBuf]) -> Vec<(String, Result<PathBuf, String>)> {
    let mut out = Vec::new();
    for path in paths {
        let name = path.display().to_string();
        let is_glob = name.contains(['*', '?', '[']);
        if !is_glob || path.symlink_metadata().is_ok() {
            out.push((name, Ok(path.clone())));
            continue;
        }
        match glob::glob(&name) {
            Err(e) => out.push((
                name.clone(),
                Err(format!(": is not a usable pattern: {}", e.msg)),
            )),
            Ok(found) => {
                let mut files: Vec<PathBuf> = found.flatten().collect();
                files.sort();
                if files.is_empty() {
                    out.push((
                        name,
                        Err(
                            ": matches no file (a pattern is expanded here when no file \
                             has that name)"
                                .to_string(),
                        ),
                    ));
                }
                for f in files {
                    out.push((f.display().to_string(), Ok(f)));
                }
            }
        }
    }
    out
}

/// One plan file read (within bounds) and validated; problems are `: PATH: sentence` or
/// `:LINE:COLUMN: sentence`, to follow the file's name.
fn load_plan(path: &Path, limits: &Limits, vars: &Vars) -> Result<Plan, Vec<String>> {
    let text = read_plan_text(path).map_err(|e| vec![format!(": {e}")])?;
    match plan_format::parse_and_validate(&text, limits, vars) {
        Ok(plan) => Ok(plan),
        Err(plan_format::PlanError::Syntax {
            line,
            column,
            message,
        }) => Err(vec![format!(":{line}:{column}: not valid JSON: {message}")]),
        Err(e) => Err(e
            .problems()
            .iter()
            .map(|p| format!(": {}", error::problem_line(p)))
            .collect()),
    }
}

/// A plan file's text: a regular file of at most [`MAX_PLAN_BYTES`], in UTF-8. A FIFO, a
/// device or a directory is refused before anything is read from it, so `/dev/zero` or a
/// pipe nobody writes to cannot exhaust memory or hang the command.
pub fn read_plan_text(path: &Path) -> Result<String, String> {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    // Non-blocking, so opening a FIFO with no writer returns at once instead of waiting.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| format!("cannot read the plan: {}", io_sentence(&e)))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot read the plan: {}", io_sentence(&e)))?;
    let kind = meta.file_type();
    if !kind.is_file() {
        let what = if kind.is_dir() {
            "a directory"
        } else if kind.is_fifo() {
            "a FIFO (named pipe)"
        } else if kind.is_char_device() || kind.is_block_device() {
            "a device"
        } else if kind.is_socket() {
            "a socket"
        } else {
            "not a regular file"
        };
        return Err(format!(
            "cannot read the plan: this is {what}; a plan is a regular JSON file"
        ));
    }
    let too_big = |size: u64| {
        format!(
            "the plan is {size} bytes; a plan file may have at most {MAX_PLAN_BYTES} bytes (1 MiB)"
        )
    };
    if meta.len() > MAX_PLAN_BYTES {
        return Err(too_big(meta.len()));
    }
    let mut bytes = Vec::new();
    // A file that grows while read still stops at the cap.
    file.take(MAX_PLAN_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read the plan: {}", io_sentence(&e)))?;
    if bytes.len() as u64 > MAX_PLAN_BYTES {
        return Err(too_big(bytes.len() as u64));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "the plan is not UTF-8 text (byte {} is not valid UTF-8)",
            e.utf8_error().valid_up_to() + 1
        )
    })
}

/// An I/O error as a plain phrase: `No such file or directory`, without `(os error 2)`.
pub fn io_sentence(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.rfind(" (os error ") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// 0 when every run succeeded, else 1.
pub fn exit_code(results: &[runner::RunResult]) -> u8 {
    if results.iter().all(runner::RunResult::succeeded) {
        exit::SUCCESS
    } else {
        exit::RUN_FAILED
    }
}

/// The browser `run` and `act` launch (or connect to), as the run options choose it.
pub fn launch_options(options: &RunOptions) -> LaunchOptions {
    LaunchOptions {
        executable: options.browser.clone(),
        connect_to: options.browser_ws.clone(),
        headful: options.headful,
        prefer: Preference::FullBrowser,
    }
}

/// Runs the one run `act` made from its goal (its lock fixed by the request), in the browser
/// that looked at the start page.
pub async fn run_act(
    spec: RunSpec,
    inboxes: Vec<ParsedInbox>,
    browser: Chromium,
    options: &RunOptions,
) -> Result<Replay, CliError> {
    replay(
        vec![(0, "goal".to_string(), spec)],
        Vec::new(),
        inboxes,
        Some(browser),
        options,
    )
    .await
}

/// Checks the request, starts browser and inboxes, runs every valid plan, writes the
/// reports. `invalid` are the plans that could not be read or validated, with their
/// position among the plans given; a plan whose lock cannot be made joins them. `browser`:
/// one already started (`act`'s, which looked at the start page), else one is started.
async fn replay(
    specs: Vec<(usize, String, RunSpec)>,
    mut invalid: Vec<(usize, PlanReport)>,
    inboxes: Vec<ParsedInbox>,
    browser: Option<Chromium>,
    options: &RunOptions,
) -> Result<Replay, CliError> {
    check_outputs(options)?;
    let cancel = CancellationToken::new();
    let interrupt = Interrupt::listen(cancel.clone());
    let inboxes = bind_inboxes(inboxes).await?;
    let mut unwritten = false;
    let report_dir = match &options.report {
        Some(dir) => match std::fs::create_dir_all(dir) {
            Ok(()) => Some(dir.clone()),
            Err(e) => {
                eprintln!(
                    "planlock: cannot create the report directory {}: {}; the plans run \
                     without an HTML report",
                    dir.display(),
                    io_sentence(&e)
                );
                unwritten = true;
                None
            }
        },
        None => None,
    };
    let settings = Settings {
        run_timeout: Duration::from_secs(options.timeout),
        wrap_untrusted: options.wrap_untrusted,
        screenshots: options.screenshots.into(),
        strict: options.strict,
        ask: options.ask.clone(),
        ..Settings::default()
    };
    let mut runs = Vec::new();
    for (position, name, spec) in specs {
        match lock_run(spec, &name, &inboxes, &settings).await {
            Ok(mut run) => {
                if let Some(dir) = &report_dir {
                    let run_dir = dir.join(run.run_id());
                    run.set_artifacts_dir(run_dir);
                }
                runs.push((position, run));
            }
            Err(problem) => {
                eprintln!("planlock: {}", printable(&problem));
                invalid.push((
                    position,
                    PlanReport {
                        plan: name,
                        outcome: PlanOutcome::Invalid {
                            problems: vec![problem],
                        },
                    },
                ));
            }
        }
    }
    warn_short_secrets(runs.iter().map(|(_, r)| r.plan()));
    let mut ran = Vec::new();
    if !runs.is_empty() {
        // The browser starts while the inboxes log in: neither needs the other.
        let unreachable = |inbox: &dyn planlock::Inbox, e: planlock::InboxError| {
            CliError::environment(format!("the inbox {} is unreachable", inbox.describe()))
                .because(e)
        };
        let started = async {
            let browser = match browser {
                Some(browser) => browser,
                None => Chromium::start(&launch_options(options))
                    .await
                    .map_err(error::browser_error)?,
            };
            planlock::phase::process("browser ready");
            Ok::<Chromium, CliError>(browser)
        };
        let browser = match pipeline::run::ready(&inboxes.0, unreachable, started).await {
            Ok(browser) => browser,
            Err((e, browser)) => {
                if let Some(browser) = browser {
                    browser.close().await;
                }
                return Err(e);
            }
        };
        ran = run_locked(runs, browser, options, &cancel).await?;
    } else if let Some(browser) = browser {
        browser.close().await;
    }
    let mut reports: Vec<(usize, PlanReport)> = ran.into_iter().chain(invalid).collect();
    reports.sort_by_key(|(position, _)| *position);
    let reports: Vec<PlanReport> = reports.into_iter().map(|(_, r)| r).collect();
    if !write_reports(&reports, report_dir.as_deref(), options) {
        unwritten = true;
    }
    Ok(Replay {
        reports,
        interrupted: interrupt.exit_code(),
        unwritten,
    })
}

/// Runs every locked plan in `browser`, `--jobs` at a time, then closes it.
async fn run_locked(
    runs: Vec<(usize, LockedRun)>,
    browser: Chromium,
    options: &RunOptions,
    cancel: &CancellationToken,
) -> Result<Vec<(usize, PlanReport)>, CliError> {
    let mut events = match &options.events {
        Some(target) => match EventLog::open(target) {
            Ok(log) => Some(log),
            Err(e) => {
                browser.close().await;
                return Err(CliError::input(format!(
                    "cannot write the event log {target}: {}",
                    io_sentence(&e)
                )));
            }
        },
        None => None,
    };
    let many = runs.len() > 1;
    if many {
        // Later runs find their context ready instead of waiting ~150 ms for one.
        browser.keep_warm(true);
    }
    let semaphore = std::sync::Arc::new(tokio::sync::Semaphore::new(options.jobs.max(1)));
    let mut pending = Vec::new();
    for (position, run) in runs {
        let permit = semaphore.clone();
        let browser = &browser;
        let cancel = cancel.clone();
        let log = events.as_ref().map(EventLog::share);
        pending.push(async move {
            let _permit = permit.acquire().await;
            let plan = run.name().unwrap_or_default().to_string();
            let mut progress = ProgressLog::new(many.then(|| plan.clone()));
            let mut log = log;
            let mut recorder = Recorder::default();
            let mut listeners: Vec<&mut dyn Listener> = vec![&mut progress, &mut recorder];
            if let Some(l) = log.as_mut() {
                listeners.push(l);
            }
            let result = runner::run(browser, run, &mut Fanout(listeners), cancel).await;
            let report = PlanReport {
                plan,
                outcome: PlanOutcome::Ran {
                    result: Box::new(result),
                    events: recorder.events,
                },
            };
            (position, report)
        });
    }
    let done = futures::future::join_all(pending).await;
    browser.close().await;
    planlock::phase::process("browser closed");
    events.take();
    Ok(done)
}

/// One run checked and locked before anything is read, by the pipeline's run half: secrets
/// from the environment, navigate URLs, the lock (unless the request fixed it), the inboxes
/// the steps name. The sentence when not.
async fn lock_run(
    spec: RunSpec,
    name: &str,
    inboxes: &BoundInboxes,
    settings: &Settings,
) -> Result<LockedRun, String> {
    let spec = spec.named(name).settings(settings.clone());
    pipeline::run::lock_run(spec, Secrets::from_environment(), inboxes)
        .await
        .map_err(|e| match e {
            Unlocked::Spec(e) => spec_sentence(name, e),
            Unlocked::Binding(never) => match never {},
        })
}

/// Warns once per secret shorter than [`LONG_SECRET`] characters: it is masked only where
/// it stands alone or where the plan puts it, so unrelated words that contain it stay
/// readable (and show it).
fn warn_short_secrets<'a>(plans: impl Iterator<Item = &'a Plan>) {
    let mut warned = std::collections::BTreeSet::new();
    for plan in plans {
        for step in &plan.steps {
            for (_, text) in step.strings() {
                let Ok(t) = Template::parse(&text) else {
                    continue;
                };
                for name in t.variables().filter_map(|v| v.strip_prefix("secret.")) {
                    let Ok(value) = std::env::var(format!("{SECRET_ENV_PREFIX}{name}")) else {
                        continue;
                    };
                    let n = value.chars().count();
                    if n < LONG_SECRET && warned.insert(name.to_string()) {
                        eprintln!(
                            "planlock: warning: the secret `{{{{secret.{name}}}}}` has only {n} \
                             character{}: it is masked where it stands alone or where the plan \
                             puts it, not inside other words (so `tiny.test` stays readable); \
                             a secret of {LONG_SECRET} or more characters is masked everywhere",
                            if n == 1 { "" } else { "s" }
                        );
                    }
                }
            }
        }
    }
}

/// A request error in the command line's words (its flags), said of the plan file.
fn spec_sentence(plan: &str, e: SpecError) -> String {
    let sentence = match e {
        SpecError::Lock(e) => error::chain(&error::lock_error(e)),
        SpecError::Variable(VarsError::MissingSecret(name)) => {
            error::chain(&CliError::from(VarsError::MissingSecret(name)))
        }
        ref e @ SpecError::UnboundInbox {
            inbox: Some(ref name),
            ..
        } => format!("{e}: pass --inbox {name}=URL"),
        e @ (SpecError::UnboundInbox { inbox: None, .. } | SpecError::NoInboxAddress { .. }) => {
            format!(
                "{e}: pass --inbox URL (imap://USER:PASS@HOST:PORT/INBOX?address=ADDR, \
                 or smtp://127.0.0.1:2525?domain=DOMAIN)"
            )
        }
        other => other.to_string(),
    };
    format!("{plan}: {sentence}")
}

/// An `--inbox` read: its name (`None`: the default inbox), its URL, and the argument as
/// given (for messages, its password hidden).
pub struct ParsedInbox {
    pub name: Option<String>,
    url: InboxUrl,
    given: String,
}

/// Reads every `--inbox` once: its syntax, and that no name is given twice.
pub fn parse_inboxes(given: &[String]) -> Result<Vec<ParsedInbox>, CliError> {
    let mut out: Vec<ParsedInbox> = Vec::new();
    for s in given {
        let (name, url) = parse_binding(s).map_err(error::inbox_error)?;
        if out.iter().any(|p| p.name == name) {
            return Err(CliError::input(match &name {
                Some(n) => format!("--inbox {n}=… is given twice"),
                None => "two unnamed --inbox URLs: name all but one, e.g. --inbox work=imap://…"
                    .to_string(),
            }));
        }
        out.push(ParsedInbox {
            name,
            url,
            given: s.clone(),
        });
    }
    Ok(out)
}

/// The `--inbox` mailboxes, connected once for every run of the command: the operator's own,
/// so no lock judges them.
struct BoundInboxes(Vec<Binding>);

#[async_trait::async_trait]
impl BindInboxes for BoundInboxes {
    type Error = std::convert::Infallible;

    async fn bind(&self, _lock: &Lock) -> Result<Vec<Binding>, Self::Error> {
        Ok(self.0.clone())
    }
}

async fn bind_inboxes(parsed: Vec<ParsedInbox>) -> Result<BoundInboxes, CliError> {
    let mut out: Vec<Binding> = Vec::new();
    for p in parsed {
        let inbox = connect(&p.url).await.map_err(|e| {
            CliError::environment(format!(
                "--inbox {}",
                planlock::inbox::binding::redact(p.given.trim())
            ))
            .because(e)
        })?;
        out.push((p.name, inbox));
    }
    Ok(BoundInboxes(out))
}

/// Writes the HTML report, JUnit XML and `--json`; false when a file could not be written
/// (each said in a sentence; the others are still written).
fn write_reports(reports: &[PlanReport], report_dir: Option<&Path>, options: &RunOptions) -> bool {
    let mut ok = true;
    if let Some(dir) = report_dir {
        match write_html(dir, reports) {
            Ok(index) => eprintln!("report: {}", index.display()),
            Err(e) => {
                eprintln!(
                    "planlock: cannot write the HTML report in {}: {}",
                    dir.display(),
                    io_sentence(&e)
                );
                ok = false;
            }
        }
    }
    if let Some(path) = &options.junit {
        let written = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| write_junit(path, reports));
        if let Err(e) = written {
            eprintln!(
                "planlock: cannot write the JUnit report {}: {}",
                path.display(),
                io_sentence(&e)
            );
            ok = false;
        }
    }
    if options.json {
        let results: Vec<&runner::RunResult> = reports.iter().filter_map(|r| r.result()).collect();
        let value = if results.len() == 1 && reports.len() == 1 {
            serde_json::to_value(results[0])
        } else {
            serde_json::to_value(&results)
        }
        .unwrap_or_default();
        let text = json_printable(serde_json::to_string_pretty(&value).unwrap_or_default());
        let mut out = std::io::stdout().lock();
        use std::io::Write;
        let _ = writeln!(out, "{text}").and_then(|()| out.flush());
    }
    ok
}
