//! `planlock plan`: a goal becomes a plan file with one model call (none on a cache hit).

use std::io::Write;
use std::path::PathBuf;

use planlock::exit;
use planlock::pipeline::{LockedRequest, Reach, Request, RequestError};
use planlock::plan::{Limits, Vars};
use planlock::planner::{GeneratedPlan, LookChoice, PlannerConfig, outcome_summary};
use planlock::report::{json_printable, printable};
use planlock::{BrowserError, Chromium, LaunchOptions, Secrets};

use super::error::CliError;

/// Arguments of `planlock plan`.
#[derive(Debug, Clone, clap::Args)]
pub struct PlanArgs {
    /// What to do, naming the site, e.g. "sign up at https://shop.example with me@inbox.test".
    #[arg(value_name = "GOAL")]
    pub goal: String,
    /// The run's inbox address; where the goal mentions it, the plan uses {{inbox_address}}.
    #[arg(long, value_name = "ADDR")]
    pub inbox_address: Option<String>,
    /// Ask the model even if a cached plan exists (the new plan replaces it in the cache).
    #[arg(long)]
    pub no_cache: bool,
    /// Write the plan to FILE instead of stdout.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// A caller variable the plan may use as {{NAME}}; only the name is sent to the model.
    #[arg(long = "var", value_name = "NAME=VALUE")]
    pub vars: Vec<String>,
    /// Another host the plan may visit (subdomains included).
    #[arg(long = "allow-host", value_name = "HOST")]
    pub allow_hosts: Vec<String>,
    /// Most steps a plan may have.
    #[arg(long, default_value_t = 15)]
    pub max_steps: usize,
    #[command(flatten)]
    pub look: LookArgs,
    /// Print the exact request the model would get (system prompt, user message with the
    /// start page's outline, schema, model) and stop: no model call, no key needed.
    #[arg(long = "dry-run")]
    pub dry_run: bool,
}

/// How planning looks at the start page first (`plan`, `act`).
#[derive(Debug, Clone, clap::Args)]
pub struct LookArgs {
    /// Plan from the goal alone: no page text reaches the model.
    #[arg(long, conflicts_with = "look")]
    pub blind: bool,
    /// `required`: fail (exit 3) when the start page cannot be looked at, instead of
    /// planning blind.
    #[arg(long, value_enum, value_name = "WHEN")]
    pub look: Option<LookChoice>,
}

impl LookArgs {
    pub fn choice(&self) -> LookChoice {
        match (self.blind, self.look) {
            (true, _) => LookChoice::Blind,
            (false, look) => look.unwrap_or_default(),
        }
    }
}

impl PlanArgs {
    /// The pipeline's request these arguments ask for.
    pub fn request(&self) -> Result<Request, CliError> {
        Ok(Request {
            goal: self.goal.clone(),
            vars: Vars::from_pairs(&self.vars)?,
            // Any of them a plan may use later (`planlock run`): the model reads none.
            secrets: Secrets::from_environment(),
            inbox_address: self.inbox_address.clone(),
            reach: Reach {
                allowed_hosts: self.allow_hosts.clone(),
                ..Reach::default()
            },
            limits: Limits {
                max_steps: self.max_steps,
            },
            no_cache: self.no_cache,
            look: self.look.choice(),
            ..Request::default()
        })
    }
}

/// Looks at the goal's start page for the planner in `browser`, under the request's lock:
/// one line when the look fails (then the plan is made blind), or exit 3 with
/// `--look=required`.
pub(super) async fn look_first(
    request: &mut LockedRequest,
    browser: Result<&Chromium, BrowserError>,
) -> Result<(), CliError> {
    if !request.wants_look() {
        return Ok(());
    }
    let required = |why: String| CliError::environment(format!("{why} (--look=required)"));
    let failed = match browser {
        Ok(browser) => match request.look(browser).await {
            Ok(None) => return Ok(()),
            Ok(Some(why)) => why.to_string(),
            Err(why) => return Err(required(why.to_string())),
        },
        Err(e) if request.look_required() => return Err(required(e.to_string())),
        Err(e) => e.to_string(),
    };
    eprintln!(
        "planlock: {}; planning from the goal alone",
        printable(&failed)
    );
    Ok(())
}

/// The request's lock could not be made: said with the flag the value came from.
pub(super) fn request_error(e: RequestError) -> CliError {
    match e {
        RequestError::Goal(e) => e.into(),
        RequestError::Lock(e) => super::error::lock_error(e),
    }
}

/// `planlock plan`, configured from the environment. Returns the exit code.
pub async fn plan_command(args: PlanArgs) -> Result<u8, CliError> {
    let config = PlannerConfig::from_env()?;
    plan_command_with(args, config).await
}

/// `planlock plan` with an explicit configuration: writes the plan (pretty JSON) to `-o FILE`
/// or stdout, and tells stderr whether it was cached, the model, usage and retries.
pub async fn plan_command_with(args: PlanArgs, config: PlannerConfig) -> Result<u8, CliError> {
    let request = args.request()?;
    let mut request = request.lock().await.map_err(request_error)?;
    if request.wants_look() {
        let browser = Chromium::start(&LaunchOptions::default()).await;
        look_first(&mut request, browser.as_ref().map_err(Clone::clone)).await?;
        if let Ok(browser) = browser {
            browser.close().await;
        }
    }
    if args.dry_run {
        let preview = request.preview(config);
        println!(
            "{}",
            json_printable(serde_json::to_string_pretty(&preview).unwrap_or_default())
        );
        return Ok(exit::SUCCESS);
    }
    let outcome = planned(&request, config).await?;
    let mut text = serde_json::to_string_pretty(&outcome.plan)
        .map(json_printable)
        .map_err(|e| CliError::environment(format!("cannot write the plan: {e}")))?;
    text.push('\n');
    match args.output.as_deref().filter(|p| p.as_os_str() != "-") {
        Some(path) => {
            std::fs::write(path, &text).map_err(|e| {
                CliError::environment(format!(
                    "cannot write the plan to {}: {}",
                    path.display(),
                    super::io_sentence(&e)
                ))
            })?;
            eprintln!("planlock: {}", outcome_summary(&outcome));
            eprintln!("planlock: wrote {}", path.display());
        }
        None => {
            eprintln!("planlock: {}", outcome_summary(&outcome));
            let mut out = std::io::stdout().lock();
            match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
                Err(e) => {
                    return Err(CliError::environment(format!(
                        "cannot write to stdout: {}",
                        super::io_sentence(&e)
                    )));
                }
            }
        }
    }
    Ok(exit::SUCCESS)
}

/// Plans the request and prints the planner's warnings.
pub(super) async fn planned(
    request: &LockedRequest,
    config: PlannerConfig,
) -> Result<GeneratedPlan, CliError> {
    let outcome = request.plan(config).await?;
    for w in &outcome.warnings {
        eprintln!("planlock: warning: {}", printable(w));
    }
    Ok(outcome)
}
