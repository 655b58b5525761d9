//! Text that reads like instructions aimed at an agent, counted by `lock/injection.rs` (a
//! number reported to callers, and what keeps such text from the planner; never a decision).

/// Phrases typical of prompt injection, lower-case. Each occurrence counts once.
pub(crate) const PHRASES: [&str; 22] = [
    "ignore previous instructions",
    "ignore all previous instructions",
    "ignore the previous instructions",
    "ignore prior instructions",
    "ignore all prior instructions",
    "ignore your instructions",
    "ignore the above",
    "disregard previous instructions",
    "disregard all previous",
    "disregard the above",
    "forget your instructions",
    "forget all previous",
    "new instructions:",
    "your new task",
    "this overrides your plan",
    "you are now",
    "instructions for ai",
    "instructions for the ai",
    "ai agent:",
    "[system]",
    "developer mode",
    "jailbreak",
];
/// Role prefixes, instruction-like at the start of a text, a line or a sentence only
/// (`Operating system: Linux` is a label).
pub(crate) const ROLE_PREFIXES: [&str; 3] = ["system:", "assistant:", "developer:"];
