//! `planlock act`: plan with one model call, show the plan for review, then run it.

use std::io::IsTerminal;

use planlock::Chromium;
use planlock::exit;
use planlock::pipeline::{Reach, Request};
use planlock::plan::{Limits, Vars};
use planlock::planner::{self, PlannerConfig};
use planlock::report::printable;
use planlock::runner::{AskShould, Secrets, ShouldChoice, StepRef};

use super::error::{self, CliError};
use super::plan::{look_first, planned, request_error};
use super::{ParsedInbox, RunOptions, check_outputs, launch_options, parse_inboxes, run_act};

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

impl ActArgs {
    /// The pipeline's request these arguments ask for, `inboxes` bound from `--inbox`.
    fn request(&self, inboxes: &[ParsedInbox]) -> Result<Request, CliError> {
        Ok(Request {
            goal: self.goal.clone(),
            vars: Vars::from_pairs(&self.options.vars)?,
            secrets: Secrets::from_environment(),
            inboxes: inboxes.iter().map(|i| i.name.clone()).collect(),
            reach: Reach {
                allowed_hosts: self.options.allow_hosts.clone(),
                ..Reach::default()
            },
            limits: Limits {
                max_steps: self.options.max_steps,
            },
            no_cache: self.no_cache,
            look: self.look.choice(),
            ..Request::default()
        })
    }
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

/// `act` with the planner configured: the request is locked once, one browser looks at the
/// start page and then runs the plan, inside that lock.
async fn act_with(args: ActArgs, config: PlannerConfig) -> Result<u8, CliError> {
    if !args.yes && !std::io::stdin().is_terminal() {
        return Err(CliError::input(
            "act shows the plan and asks before running it, but stdin is not a terminal: pass \
             --yes to run the plan without asking",
        ));
    }
    check_outputs(&args.options)?;
    let inboxes = parse_inboxes(&args.options.inboxes)?;
    let request = args.request(&inboxes)?;
    let mut request = request.lock().await.map_err(request_error)?;
    let browser = Chromium::start(&launch_options(&args.options)).await;
    look_first(&mut request, browser.as_ref().map_err(Clone::clone)).await?;
    let browser = browser.map_err(error::browser_error)?;
    let outcome = planned(&request, config).await?;
    eprintln!("{}", planner::outcome_summary(&outcome));
    if let Some(looked) = &outcome.looked {
        eprintln!("{}", planner::looked_line(looked));
    }
    // The values the plan asks for: `--var` wins; else the person answers, the suggestion
    // shown; with --yes the suggestion is taken.
    let mut asked = Vec::new();
    if !args.yes {
        for q in request.open_questions(&outcome.plan) {
            let answer = planner::ask_with_suggestion(&q.ask, &q.suggested)
                .map_err(|e| CliError::input(format!("cannot read the answer: {e}")))?;
            asked.push((q.var.clone(), answer));
        }
    }
    let answers = request.answers(&outcome.plan, &asked);
    eprintln!("{}", request.review(&outcome.plan, &answers).text);
    if !args.yes {
        let run = planner::confirm("Run this plan?")
            .map_err(|e| CliError::input(format!("cannot read the answer: {e}")))?;
        if !run {
            return Err(CliError::new(exit::RUN_FAILED, "not run (declined)"));
        }
    }
    let mut options = args.options.clone();
    if !args.yes && !options.strict {
        // At a terminal, a person decides about a failed `should` step.
        options.ask = Some(std::sync::Arc::new(AskAtTerminal));
    }
    let spec = request.run(outcome.plan, &answers)?;
    let replay = run_act(spec, inboxes, browser, &options).await?;
    Ok(replay.exit_code())
}
