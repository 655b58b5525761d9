//! The command line: `run` and `validate` here, the other commands in their own files. Each
//! turns its arguments into the library's requests and words the library's errors for a
//! terminal (flag names, exit codes).

mod act;
mod demo;
mod plan;
mod serve;

use std::path::PathBuf;
use std::time::Duration;

use planlock::browser::{Chromium, LaunchOptions};
use planlock::exit;
use planlock::inbox::{connect, parse_binding};
use planlock::lock::LockError;
use planlock::plan::{self as plan_format, Limits, Plan, Vars};
use planlock::report::{EventLog, Progress, write_junit};
use planlock::runner::{
    self, Binding, Listener, LockedRun, RunResult, RunSpec, Secrets, Settings, SpecError,
    event::Fanout,
};
use tokio_util::sync::CancellationToken;

pub use act::{ActArgs, act_command};
pub use demo::{DemoArgs, demo_command};
pub use plan::{PlanArgs, plan_command};
pub use serve::{ServeArgs, serve_command};

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
    /// Write each result as JSON, and failure screenshots, into DIR.
    #[arg(long, value_name = "DIR")]
    pub report: Option<PathBuf>,
    /// Write a JUnit XML report.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Print the result(s) as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// Run up to N plans at once (each in its own browser context).
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub jobs: usize,
    /// Chromium to launch (else $CHROME, else the usual system paths).
    #[arg(long, value_name = "PATH", conflicts_with = "browser_ws")]
    pub browser: Option<PathBuf>,
    /// Connect to a running browser over CDP instead of launching one.
    #[arg(long = "browser-ws", value_name = "URL")]
    pub browser_ws: Option<String>,
    /// Show the browser window.
    #[arg(long)]
    pub headful: bool,
    /// Deadline of each run, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 600)]
    pub timeout: u64,
    /// Wrap extracted page text in a tag carrying a random nonce (untrusted text).
    #[arg(long = "wrap-untrusted")]
    pub wrap_untrusted: bool,
    /// Most steps a plan may have.
    #[arg(long = "max-steps", default_value_t = 15, value_name = "N")]
    pub max_steps: usize,
}

/// `planlock run PLAN.json...`
#[derive(Debug, Clone, clap::Args)]
pub struct RunArgs {
    /// Plan files to run.
    #[arg(required = true, value_name = "PLAN.json")]
    pub plans: Vec<PathBuf>,
    #[command(flatten)]
    pub options: RunOptions,
}

/// A failure before any run starts, with its exit code.
#[derive(Debug)]
pub struct Refused {
    pub code: u8,
    pub message: String,
}

impl Refused {
    fn input(message: impl Into<String>) -> Refused {
        Refused {
            code: exit::INVALID_INPUT,
            message: message.into(),
        }
    }
    fn environment(message: impl Into<String>) -> Refused {
        Refused {
            code: exit::ENVIRONMENT,
            message: message.into(),
        }
    }
}

/// Runs `planlock run`.
pub async fn run_command(args: RunArgs) -> u8 {
    let caller = match Vars::from_pairs(&args.options.vars) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("planlock: {e}");
            return exit::INVALID_INPUT;
        }
    };
    let limits = Limits {
        max_steps: args.options.max_steps,
    };
    let Some(plans) = load_plans(&args.plans, &limits, &caller, false) else {
        return exit::INVALID_INPUT;
    };
    match run_plans(plans, None, &args.options).await {
        Ok(results) => exit_code(&results),
        Err(r) => {
            eprintln!("planlock: {}", r.message);
            r.code
        }
    }
}

/// Runs `planlock validate`: every problem of every file, then exit 0 or 2.
pub fn validate_command(paths: &[PathBuf], vars: &[String], max_steps: usize) -> u8 {
    let vars = match Vars::from_pairs(vars) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("planlock: {e}");
            return exit::INVALID_INPUT;
        }
    };
    match load_plans(paths, &Limits { max_steps }, &vars, true) {
        Some(_) => exit::SUCCESS,
        None => exit::INVALID_INPUT,
    }
}

/// Reads and validates plan files, printing each problem as `FILE: PATH: sentence` (and
/// `FILE: ok (N steps)` when `report_ok`). `None` when any file is unreadable or invalid.
pub fn load_plans(
    paths: &[PathBuf],
    limits: &Limits,
    vars: &Vars,
    report_ok: bool,
) -> Option<Vec<(String, Plan)>> {
    let mut plans = Vec::new();
    let mut bad = false;
    for path in paths {
        let name = path.display().to_string();
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{name}: cannot read the plan: {}", io_sentence(&e));
                bad = true;
                continue;
            }
        };
        match plan_format::parse_and_validate(&text, limits, vars) {
            Ok(p) => {
                if report_ok {
                    let n = p.steps.len();
                    eprintln!("{name}: ok ({n} step{})", if n == 1 { "" } else { "s" });
                }
                plans.push((name, p));
            }
            Err(plan_format::PlanError::Syntax {
                line,
                column,
                message,
            }) => {
                eprintln!("{name}:{line}:{column}: not valid JSON: {message}");
                bad = true;
            }
            Err(e) => {
                for p in e.problems() {
                    eprintln!("{name}: {p}");
                }
                bad = true;
            }
        }
    }
    (!bad).then_some(plans)
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
pub fn exit_code(results: &[RunResult]) -> u8 {
    if results.iter().all(RunResult::succeeded) {
        exit::SUCCESS
    } else {
        exit::RUN_FAILED
    }
}

/// Checks the request, starts browser and inboxes, runs every plan, writes the reports.
/// `goal` (for `act`) contributes its hosts to each plan's lock.
pub async fn run_plans(
    plans: Vec<(String, Plan)>,
    goal: Option<&str>,
    options: &RunOptions,
) -> Result<Vec<RunResult>, Refused> {
    let inboxes = bind_inboxes(&options.inboxes).await?;
    let settings = Settings {
        run_timeout: Duration::from_secs(options.timeout.max(1)),
        artifacts_dir: options.report.clone(),
        wrap_untrusted: options.wrap_untrusted,
        ..Settings::default()
    };
    let runs = lock_runs(plans, goal, options, &inboxes, &settings).await?;
    for (_, inbox) in &inboxes {
        inbox
            .check()
            .await
            .map_err(|e| Refused::environment(format!("the inbox is unreachable: {e}")))?;
    }
    let mut events = match &options.events {
        Some(target) => Some(
            EventLog::open(target)
                .map_err(|e| Refused::input(format!("cannot write the event log {target}: {e}")))?,
        ),
        None => None,
    };
    if let Some(dir) = &options.report {
        std::fs::create_dir_all(dir).map_err(|e| {
            Refused::input(format!(
                "cannot create the report directory {}: {e}",
                dir.display()
            ))
        })?;
    }
    let launch = LaunchOptions {
        executable: options.browser.clone(),
        connect_to: options.browser_ws.clone(),
        headful: options.headful,
    };
    let browser = Chromium::start(&launch)
        .await
        .map_err(|e| Refused::environment(e.to_string()))?;
    let many = runs.len() > 1;
    if many {
        // Later runs find their context ready instead of waiting ~150 ms for one.
        browser.keep_warm(true);
    }
    let cancel = CancellationToken::new();
    {
        let cancel = cancel.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                eprintln!("planlock: cancelling (Ctrl-C)");
                cancel.cancel();
            }
        });
    }
    let semaphore = std::sync::Arc::new(tokio::sync::Semaphore::new(options.jobs.max(1)));
    let mut pending = Vec::new();
    for run in runs {
        let permit = semaphore.clone();
        let browser = &browser;
        let cancel = cancel.clone();
        let log = events.as_ref().map(EventLog::share);
        pending.push(async move {
            let _permit = permit.acquire().await;
            let mut progress =
                Progress::new(many.then(|| run.name().unwrap_or_default().to_string()));
            let mut log = log;
            let mut listeners: Vec<&mut dyn Listener> = vec![&mut progress];
            if let Some(l) = log.as_mut() {
                listeners.push(l);
            }
            runner::run(browser, run, &mut Fanout(listeners), cancel).await
        });
    }
    let results = futures::future::join_all(pending).await;
    browser.close().await;
    events.take();
    write_reports(&results, options)?;
    Ok(results)
}

/// Every plan checked and locked before anything is read: variables, secrets from the
/// environment, navigate URLs, the lock, the inboxes the steps name.
async fn lock_runs(
    plans: Vec<(String, Plan)>,
    goal: Option<&str>,
    options: &RunOptions,
    inboxes: &[Binding],
    settings: &Settings,
) -> Result<Vec<LockedRun>, Refused> {
    let caller = Vars::from_pairs(&options.vars).map_err(|e| Refused::input(e.to_string()))?;
    let mut runs = Vec::new();
    for (name, plan) in plans {
        let mut spec = RunSpec::new(plan)
            .named(name.clone())
            .vars(caller.clone())
            .secrets(Secrets::from_environment())
            .allow_hosts(options.allow_hosts.iter().cloned())
            .inboxes(inboxes.iter().cloned())
            .settings(settings.clone());
        if let Some(goal) = goal {
            spec = spec.goal(goal);
        }
        let run = spec
            .lock()
            .await
            .map_err(|e| Refused::input(spec_sentence(&name, &e)))?;
        runs.push(run);
    }
    Ok(runs)
}

/// A request error in the command line's words (its flags).
fn spec_sentence(plan: &str, e: &SpecError) -> String {
    match e {
        SpecError::Lock(e) => lock_sentence(e),
        SpecError::UnboundInbox {
            inbox: Some(name), ..
        } => format!("{plan}: {e}: pass --inbox {name}=URL"),
        SpecError::UnboundInbox { inbox: None, .. } | SpecError::NoInboxAddress { .. } => format!(
            "{plan}: {e}: pass --inbox URL (imap://USER:PASS@HOST:PORT/INBOX?address=ADDR, \
             or smtp://127.0.0.1:2525?domain=DOMAIN)"
        ),
        other => format!("{plan}: {other}"),
    }
}

fn lock_sentence(e: &LockError) -> String {
    match e {
        LockError::NotAHost { .. } => format!("--allow-host {e}"),
        other => other.to_string(),
    }
}

async fn bind_inboxes(urls: &[String]) -> Result<Vec<Binding>, Refused> {
    let mut out: Vec<Binding> = Vec::new();
    for s in urls {
        let (name, url) = parse_binding(s).map_err(|e| Refused::input(e.to_string()))?;
        if out.iter().any(|(n, _)| *n == name) {
            return Err(Refused::input(match &name {
                Some(n) => format!("--inbox {n}=… is given twice"),
                None => "two unnamed --inbox URLs: name all but one, e.g. --inbox work=imap://…"
                    .to_string(),
            }));
        }
        let inbox = connect(&url)
            .await
            .map_err(|e| Refused::environment(e.to_string()))?;
        out.push((name, inbox));
    }
    Ok(out)
}

fn write_reports(results: &[RunResult], options: &RunOptions) -> Result<(), Refused> {
    if let Some(dir) = &options.report {
        for r in results {
            let path = dir.join(format!("{}.json", r.run_id));
            let text = serde_json::to_string_pretty(r).unwrap_or_default();
            std::fs::write(&path, text).map_err(|e| {
                Refused::environment(format!("cannot write {}: {e}", path.display()))
            })?;
        }
    }
    if let Some(path) = &options.junit {
        write_junit(path, results)
            .map_err(|e| Refused::environment(format!("cannot write {}: {e}", path.display())))?;
    }
    if options.json {
        let value = if results.len() == 1 {
            serde_json::to_value(&results[0])
        } else {
            serde_json::to_value(results)
        }
        .unwrap_or_default();
        let text = serde_json::to_string_pretty(&value).unwrap_or_default();
        let mut out = std::io::stdout().lock();
        use std::io::Write;
        let _ = writeln!(out, "{text}").and_then(|()| out.flush());
    }
    Ok(())
}
