//! planlock: a goal becomes a JSON plan with one model call; a model-free executor runs it
//! against headless Chromium and a bound mailbox, inside a lock fixed from the request.
//!
//! The way through the library: a [`Plan`] (written by hand or by the [`planner`]) goes into
//! a [`RunSpec`] with what the run may use (variables, secrets, inboxes, extra hosts);
//! [`RunSpec::lock`] checks all of it and fixes where the run may go; [`run`] executes the
//! [`LockedRun`] in a fresh context of a [`Chromium`] and always returns a complete
//! [`RunResult`], telling a [`Listener`] each event as it happens.
//!
//! ```
//! use planlock::{AddressPolicy, Plan, RunSpec};
//!
//! # fn main() -> planlock::Result<()> {
//! let plan = Plan::from_json(
//!     r#"{"reasoning": "Open the pricing page.",
//!         "steps": [{"type": "navigate", "url": "https://www.shop.example/pricing"},
//!                   {"type": "click", "describe": "the Yearly tab", "text": "Yearly"},
//!                   {"type": "done", "summary": "Shown the yearly prices."}]}"#,
//! )?;
//! let runtime = tokio::runtime::Runtime::new().expect("a runtime");
//! let run = runtime.block_on(
//!     RunSpec::new(plan)
//!         .allow_host("checkout.example")
//!         .address_policy(AddressPolicy::Open)
//!         .lock(),
//! )?;
//! // Fixed before any page is read: the plan's site and the allowed host, nothing else.
//! assert_eq!(run.lock().sites().collect::<Vec<_>>(), ["checkout.example", "shop.example"]);
//! # Ok(())
//! # }
//! ```
//!
//! Running it needs a browser: see `examples/library.rs`.
//!
//! The command line, the HTTP service and the MCP tools are front ends over one
//! [`pipeline`], from a request to a started run:
//!
//! ```text
//! Request ─lock─▶ LockedRequest ─look─▶ ─plan─▶ GeneratedPlan ─answers, review─▶
//!   ─run─▶ RunSpec ─pipeline::run::lock_run─▶ LockedRun ─pipeline::run::ready─▶ run
//!                   (a replayed plan joins here)
//! ```
//!
//! The lock is made once, at [`pipeline::Request::lock`] (for a replayed plan, at
//! [`pipeline::run::lock_run`] from its `navigate` URLs); the look, the review, the run
//! and its side destinations (the inboxes a request brings, its webhook) are judged by it.

pub mod browser;
#[cfg(feature = "demo")]
pub mod demo;
pub mod error;
pub mod inbox;
pub mod lock;
pub mod phase;
pub mod pipeline;
pub mod plan;
pub mod planner;
mod reading;
pub mod report;
pub mod runner;
#[cfg(feature = "server")]
pub mod server;
mod vocabulary;
mod wait;

#[cfg(test)]
mod rooms;

pub use browser::{BrowserError, Chromium, LaunchOptions};
pub use error::{ErrorKind, StepError};
pub use inbox::{Inbox, InboxError};
pub use lock::{AddressPolicy, Lock};
pub use plan::{Plan, PlanError, Step, Vars};
pub use runner::{
    Event, Listener, LockedRun, Recorder, RunResult, RunSpec, RunStatus, Secrets, Settings,
    SpecError, run,
};

/// Why a run could not be prepared or started (a run that starts always ends in a
/// [`RunResult`], never in an error).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The plan is not valid JSON or breaks a rule.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// The request cannot become a run (variables, secrets, the lock, inboxes).
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// The browser cannot be started or reached.
    #[error(transparent)]
    Browser(#[from] BrowserError),
    /// A mailbox cannot be bound or reached.
    #[error(transparent)]
    Inbox(#[from] InboxError),
}

/// `Result` with planlock's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Process exit codes (docs/exit-codes.md).
pub mod exit {
    /// Every run succeeded.
    pub const SUCCESS: u8 = 0;
    /// A run failed at a step, was refused by the plan lock, or was cancelled.
    pub const RUN_FAILED: u8 = 1;
    /// Invalid input: usage, plan validation, unknown variable.
    pub const INVALID_INPUT: u8 = 2;
    /// Environment: browser, inbox or model unreachable.
    pub const ENVIRONMENT: u8 = 3;
}
