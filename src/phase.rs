//! The phases of a run, each marked when it ends as a debug event of target `planlock::phase`
//! with a stable name, so a benchmark or an operator sees where a run's time goes
//! (`PLANLOCK_LOG=planlock=info,planlock::phase=debug`; with `PLANLOCK_LOG_FORMAT=json`, every
//! line carries its timestamp in microseconds).
//!
//! The names, in a served run's order: `accepted` (the request is read), `checked` (its
//! secrets, inboxes and lock are checked), `queued` (its row is stored), `claimed` (it has a
//! slot), `mailboxes open`, `context ready` (its browser context and page), `step` (each, with
//! `step` counting from 1 and `step_type`), `mail delivered` (an inbox step has its mail),
//! `settled` (the watch for a late refusal ended), `tab closed`, `result stored`, `answered`.
//! A `planlock run` marks `browser ready`, the runner's phases and `browser closed`.

/// The target every phase event is logged under.
pub const TARGET: &str = "planlock::phase";

/// Marks the end of phase `name` of run `run_id`.
pub fn mark(run_id: &str, name: &'static str) {
    tracing::debug!(target: TARGET, run_id, phase = name, "phase");
}

/// Marks the end of phase `name` of the process, not of one run (`browser ready`).
pub fn process(name: &'static str) {
    tracing::debug!(target: TARGET, phase = name, "phase");
}

/// Marks the end of step `index` (from 0) of run `run_id`.
pub fn step(run_id: &str, index: usize, step_type: impl std::fmt::Display) {
    tracing::debug!(
        target: TARGET,
        run_id,
        phase = "step",
        step = index + 1,
        step_type = %step_type,
        "phase"
    );
}
