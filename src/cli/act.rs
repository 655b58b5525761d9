//! `planlock act`: plan with one model call, show the plan for review, then run it.

use std::io::IsTerminal;

use planlock::exit;
use planlock::lock::sites_named;
use planlock::plan::{Limits, Vars};
use planlock::planner::{self, PlanRequest, PlannerConfig};
use planlock::runner::{AskShould, ShouldChoice, StepRef};

use super::{RunOptions, lock_sentence, run_plans};

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
            "step {} ({}) failed, and the plan says it should work: {sentence}\n",
            step.index + 1,
            step.step_type
        );
        if let Some(shot) = screenshot {
            question.push_str(&format!("screenshot: {shot}\n"));
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
pub async fn act_command(args: ActArgs) -> u8 {
    let config = match PlannerConfig::from_env() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("planlock: {e}");
            return e.exit_code();
        }
    };
    act_with(args, config).await
}

/// `act` with the planner configured.
async fn act_with(args: ActArgs, config: PlannerConfig) -> u8 {
    if !args.yes && !std::io::stdin().is_terminal() {
        eprintln!(
            "planlock: act shows the plan and asks before running it, but stdin is not a \
             terminal: pass --yes to run the plan without asking"
        );
        return exit::INVALID_INPUT;
    }
    let vars = match Vars::from_pairs(&args.options.vars) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("planlock: {e}");
            return exit::INVALID_INPUT;
        }
    };
    let mut inboxes = Vec::new();
    for binding in &args.options.inboxes {
        match planlock::inbox::binding::parse_binding(binding) {
            Ok((name, _)) => inboxes.push(name),
            Err(e) => {
                eprintln!("planlock: {e}");
                return exit::INVALID_INPUT;
            }
        }
    }
    let mut req = PlanRequest::new(config).with_inboxes(inboxes.iter().map(Option::as_deref));
    req.allowed_hosts = args.options.allow_hosts.clone();
    req.vars = vars;
    req.limits = Limits {
        max_steps: args.options.max_steps,
    };
    req.no_cache = args.no_cache;
    if let Err(code) = super::plan::look_first(&args.goal, &mut req, args.look.choice()).await {
        return code;
    }
    let outcome = match super::plan::planned(&args.goal, &req).await {
        Ok(o) => o,
        Err(code) => return code,
    };
    eprintln!("{}", planner::outcome_summary(&outcome));
    if let Some(looked) = &outcome.looked {
        eprintln!("{}", planner::looked_line(looked));
    }
    let named = match sites_named(Some(&args.goal), &args.options.allow_hosts) {
        Ok(sites) => sites,
        Err(e) => {
            eprintln!("planlock: {}", lock_sentence(&e));
            return exit::INVALID_INPUT;
        }
    };
    // The values the plan asks for: `--var` wins; else the person answers, the suggestion
    // prefilled; with --yes the suggestion is taken.
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
            None => match planner::ask_with_suggestion(&q.ask, &q.suggested) {
                Ok(a) => a,
                Err(e) => {
                    eprintln!("planlock: cannot read the answer: {e}");
                    return exit::INVALID_INPUT;
                }
            },
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
        match planner::confirm("Run this plan?") {
            Ok(true) => {}
            Ok(false) => {
                eprintln!("planlock: not run (declined)");
                return exit::RUN_FAILED;
            }
            Err(e) => {
                eprintln!("planlock: cannot read the answer: {e}");
                return exit::INVALID_INPUT;
            }
        }
    }
    if !args.yes && !options.strict {
        // At a terminal, a person decides about a failed `should` step.
        options.ask = Some(std::sync::Arc::new(AskAtTerminal));
    }
    match run_plans(
        vec![("goal".to_string(), outcome.plan)],
        Some(&args.goal),
        &options,
    )
    .await
    {
        Ok(replay) => replay.exit_code(),
        Err(r) => {
            eprintln!("planlock: {}", r.message);
            r.code
        }
    }
}
