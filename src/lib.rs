//! planlock: a goal becomes a JSON plan with one model call; a model-free executor runs it
//! against headless Chromium and a bound mailbox, inside a lock fixed from the request.

pub mod inbox;
