//! The `planlock` command line. Errors print once, here, as one sentence with what caused
//! them; exit codes are documented in docs/exit-codes.md.

mod cli;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use cli::CliError;
use planlock::exit;
use planlock::plan;

#[derive(Parser)]
#[command(
    name = "planlock",
    version,
    about = "Plan once with a model, replay with none."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check plans without running them.
    Validate {
        /// Plan files.
        #[arg(required = true)]
        plans: Vec<PathBuf>,
        /// Caller variables the plans may use (`NAME=VALUE`; the value is not needed here).
        #[arg(long = "var", value_name = "NAME=VALUE")]
        vars: Vec<String>,
        /// Most steps a plan may have.
        #[arg(long, default_value_t = 15, value_parser = cli::steps_limit)]
        max_steps: usize,
    },
    /// Print the plan JSON Schema.
    Schema,
    /// Run plans in headless Chromium (no model involved).
    Run(cli::RunArgs),
    /// Turn a goal into a plan with one model call.
    Plan(cli::PlanArgs),
    /// Plan, show the plan for review, then run it.
    Act(cli::ActArgs),
    /// Serve the HTTP API.
    Serve(cli::ServeArgs),
    /// Serve the MCP tools (plan, act, run_plan, get_run, cancel_run) on stdio, for agents.
    Mcp(cli::McpArgs),
    /// Run the built-in demo: a local site, an embedded inbox, a signup verified by email.
    Demo {
        #[command(flatten)]
        options: cli::DemoArgs,
    },
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Usage errors exit 2; --help and --version are not errors.
            let code = if e.use_stderr() {
                exit::INVALID_INPUT
            } else {
                exit::SUCCESS
            };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    // The service logs what it does (requests, runs) by default; the other commands only
    // when asked with PLANLOCK_LOG.
    let default_filter = if matches!(cli.command, Command::Serve(_) | Command::Mcp(_)) {
        "planlock=info"
    } else {
        "off"
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("PLANLOCK_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_filter))
        // Raw CDP traffic carries typed values (secrets included): never log it.
        .add_directive("chromiumoxide::conn=info".parse().expect("directive"))
        .add_directive("tungstenite=info".parse().expect("directive"));
    let logs = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()));
    if std::env::var("PLANLOCK_LOG_FORMAT").is_ok_and(|f| f.eq_ignore_ascii_case("json")) {
        logs.json().init();
    } else {
        logs.init();
    }
    match execute(cli.command) {
        Ok(code) => ExitCode::from(code),
        // The one place an error is printed: once, with everything that caused it.
        Err(e) => {
            // Messages over several lines make their outside parts printable as they are
            // put in; every other control character goes here.
            eprintln!(
                "planlock: {}",
                planlock::report::printable_lines(&cli::chain(&e))
            );
            ExitCode::from(e.code())
        }
    }
}

/// Runs the command; its exit code, or why it stopped.
fn execute(command: Command) -> Result<u8, CliError> {
    let runtime = tokio::runtime::Runtime::new()
        .map_err(|e| CliError::environment("cannot start the async runtime").because(e))?;
    match command {
        Command::Validate {
            plans,
            vars,
            max_steps,
        } => cli::validate_command(&plans, &vars, max_steps),
        Command::Schema => print_stdout(&plan::json_schema_text()),
        Command::Run(args) => runtime.block_on(cli::run_command(args)),
        Command::Plan(args) => runtime.block_on(cli::plan_command(args)),
        Command::Act(args) => runtime.block_on(cli::act_command(args)),
        Command::Serve(args) => runtime.block_on(cli::serve_command(args)),
        Command::Mcp(args) => runtime.block_on(cli::mcp_command(args)),
        Command::Demo { options } => runtime.block_on(cli::demo_command(options)),
    }
}

/// Writes to stdout; a closed pipe (`planlock schema | head`) is not an error.
fn print_stdout(text: &str) -> Result<u8, CliError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(exit::SUCCESS),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(exit::SUCCESS),
        Err(e) => Err(CliError::environment("cannot write to stdout").because(e)),
    }
}
