//! planlock: a goal becomes a JSON plan with one model call; a model-free executor runs it
//! against headless Chromium and a bound mailbox, inside a lock fixed from the request.

pub mod browser;
pub mod demo;
pub mod error;
pub mod inbox;
pub mod lock;
pub mod plan;
pub mod planner;
pub mod report;
pub mod runner;
pub mod server;

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
