//! `planlock act`: plan with one model call, show the plan for review, then run it.

use std::io::IsTerminal;

use planlock::exit;
use planlock::lock::sites_named;
use planlock::plan::{Limits, Vars};
use planlock::planner::{self, PlanRequest, PlannerConfig};

use super::error::{self, CliError};
use super::{RunOptions, run_plans};

/// `planlock act "GOAL" [--yes] [run options]`
#[derive(Debug, Clone, clap::Args)]
pub struct ActArgs {
    /// What to do, and where (the goal must name the site).
    #[arg(value_name = "GOAL")]
    pub goal: String,
    /// Run without asking (required when stdin is not a terminal).
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Ask the model even if a cached plan exists.
    #[arg(long = "no-cache")]
    pub no_cache: bool,
    #[command(flatten)]
    pub options: RunOptions,
}

/// Runs `planlock act`.
pub async fn act_command(args: ActArgs) -> Result<u8, CliError> {
    let config = PlannerConfig::from_env()?;
    act_with(args, config).await
}

/// `act` with the planner configured.
async fn act_with(args: ActArgs, config: PlannerConfig) -> Result<u8, CliError> {
    if !args.yes && !std::io::stdin().is_terminal() {
        return Err(CliError::input(
            "act shows the plan and asks before running it, but stdin is not a terminal: pass \
             --yes to run the plan without asking",
        ));
    }
    let vars = Vars::from_pairs(&args.options.vars)?;
    let mut inboxes = Vec::new();
    for binding in &args.options.inboxes {
        let (name, _) =
            planlock::inbox::binding::parse_binding(binding).map_err(error::inbox_error)?;
        inboxes.push(name);
    }
    let mut req = PlanRequest::new(config).with_inboxes(inboxes.iter().map(Option::as_deref));
    req.allowed_hosts = args.options.allow_hosts.clone();
    req.vars = vars;
    req.limits = Limits {
        max_steps: args.options.max_steps,
    };
    req.no_cache = args.no_cache;
    let outcome = super::plan::planned(&args.goal, &req).await?;
    eprintln!("{}", planner::outcome_summary(&outcome));
    let named =
        sites_named(Some(&args.goal), &args.options.allow_hosts).map_err(error::lock_error)?;
    eprintln!("{}", planner::render_review(&outcome.plan, &named));
    if !args.yes {
        let run = planner::confirm("Run this plan?")
            .map_err(|e| CliError::input(format!("cannot read the answer: {e}")))?;
        if !run {
            return Err(CliError::new(exit::RUN_FAILED, "not run (declined)"));
        }
    }
    let replay = run_plans(
        vec![("goal".to_string(), outcome.plan)],
        Some(&args.goal),
        &args.options,
    )
    .await?;
    Ok(replay.exit_code())
}
