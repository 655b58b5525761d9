//! `planlock plan`: a goal becomes a plan file with one model call (none on a cache hit).

use std::io::Write;
use std::path::PathBuf;

use planlock::exit;
use planlock::plan::{Limits, Vars};
use planlock::planner::{PlanOutcome, PlanRequest, PlannerConfig, outcome_summary, plan_goal};

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
}

/// `planlock plan`, configured from the environment. Returns the exit code.
pub async fn plan_command(args: PlanArgs) -> Result<u8, CliError> {
    let config = PlannerConfig::from_env()?;
    plan_command_with(args, config).await
}

/// `planlock plan` with an explicit configuration: writes the plan (pretty JSON) to `-o FILE`
/// or stdout, and tells stderr whether it was cached, the model, usage and retries.
pub async fn plan_command_with(args: PlanArgs, config: PlannerConfig) -> Result<u8, CliError> {
    let request = PlanRequest {
        inbox_address: args.inbox_address.clone(),
        allowed_hosts: args.allow_hosts.clone(),
        inbox_names: Vec::new(),
        vars: Vars::from_pairs(&args.vars)?,
        limits: Limits {
            max_steps: args.max_steps,
        },
        no_cache: args.no_cache,
        config,
    };
    let outcome = planned(&args.goal, &request).await?;
    let mut text = serde_json::to_string_pretty(&outcome.plan)
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

/// Plans `goal` and prints the planner's warnings.
pub(super) async fn planned(goal: &str, request: &PlanRequest) -> Result<PlanOutcome, CliError> {
    let outcome = plan_goal(goal, request).await?;
    for w in &outcome.warnings {
        eprintln!("planlock: warning: {w}");
    }
    Ok(outcome)
}
