//! `planlock act`: plan with one model call, show the plan for review, then run it.

use std::io::IsTerminal;

use planlock::exit;
use planlock::lock::sites_named;
use planlock::plan::{Limits, Vars};
use planlock::planner::{self, PlanRequest, PlannerConfig};
use planlock::report::printable;
use planlock::runner::{AskShould, ShouldChoice, StepRef};

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
    pub look: super::plan::LookArgs,
    #[command(flatten)]
    pub options: RunOptions,
}

/// Asks on the terminal what to do about a failed `should` step, showing its sentence and
/// where its screenshot is.
struct AskAtTerminal;

#[async_trait::async_trait]
impl AskShould for AskAtTerminal {
    async fn choose(
        &self,
        step: &StepRef,
        sentence: &str,
        screenshot: Option<&str>,
    ) -> ShouldChoice {
        let mut question = format!(
            "step {} ({}) failed, and the plan says it should work: {}\n",
            step.index + 1,
            step.step_type,
            printable(sentence)
        );
        if let Some(shot) = screenshot {
            question.push_str(&format!("screenshot: {}\n", printable(shot)));
        }
        question.push_str("Retry it, skip it, or stop the run? [r/s/T] ");
        let answer = tokio::task::spawn_blocking(move || {
            eprint!("{question}");
            let mut line = String::new();
            std::io::stdin().read_line(&mut line).map(|_| line)
        })
        .await;
        match answer {
            Ok(Ok(line)) => match line.trim().to_ascii_lowercase().as_str() {
                "r" | "retry" => ShouldChoice::Retry,
                "s" | "skip" => ShouldChoice::Skip,
                _ => ShouldChoice::Stop,
            },
            _ => ShouldChoice::Stop,
        }
    }
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
    super::plan::look_first(&args.goal, &mut req, args.look.choice()).await?;
    let outcome = super::plan::planned(&args.goal, &req).await?;
    eprintln!("{}", planner::outcome_summary(&outcome));
    if let Some(looked) = &outcome.looked {
        eprintln!("{}", planner::looked_line(looked));
    }
    let named =
        sites_named(Some(&args.goal), &args.options.allow_hosts).map_err(error::lock_error)?;
    // The values the plan asks for: `--var` wins; else the person answers, the suggestion
    // shown; with --yes the suggestion is taken.
    let mut options = args.options.clone();
    let mut answers = Vec::new();
    for q in &outcome.plan.questions {
        let given = options.vars.iter().find_map(|pair| {
            pair.split_once('=')
                .filter(|(name, _)| *name == q.var)
                .map(|(_, v)| v.to_string())
        });
        let answer = match given {
            Some(v) => v,
            None if args.yes => q.suggested.clone(),
            None => planner::ask_with_suggestion(&q.ask, &q.suggested)
                .map_err(|e| CliError::input(format!("cannot read the answer: {e}")))?,
        };
        if !options
            .vars
            .iter()
            .any(|p| p.split_once('=').is_some_and(|(n, _)| n == q.var))
        {
            options.vars.push(format!("{}={answer}", q.var));
        }
        answers.push((q.var.clone(), answer));
    }
    eprintln!(
        "{}",
        planner::render_review_with_answers(&outcome.plan, &named, &answers)
    );
    if !args.yes {
        let run = planner::confirm("Run this plan?")
            .map_err(|e| CliError::input(format!("cannot read the answer: {e}")))?;
        if !run {
            return Err(CliError::new(exit::RUN_FAILED, "not run (declined)"));
        }
    }
    if !args.yes && !options.strict {
        // At a terminal, a person decides about a failed `should` step.
        options.ask = Some(std::sync::Arc::new(AskAtTerminal));
    }
    let replay = run_plans(
        vec![("goal".to_string(), outcome.plan)],
        Some(&args.goal),
        &options,
    )
    .await?;
    Ok(replay.exit_code())
}
