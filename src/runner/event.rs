//! Run events (docs/steps.md), written as they happen. The runner knows nothing of terminals or
//! files: it hands each event to a [`Listener`]. Events read back as they were written, so a
//! service rebuilds a run's progress from its stored log with these same types.

use serde::{Deserialize, Serialize};

use super::detail::{RunFinished, RunStarted, StepDetail};
use crate::error::StepError;
use crate::plan::StepType;

/// Which step a step event is about.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct StepRef {
    /// The step's index in the plan (0-based).
    pub index: usize,
    #[serde(rename = "type")]
    pub step_type: StepType,
    /// The step in words, secrets masked.
    pub describe: String,
}

/// One line of the event log, tagged by `event`. Every event carries the run's id and an
/// RFC 3339 time with milliseconds, UTC (`ts`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
#[serde(tag = "event", rename_all = "snake_case")]
#[derive(strum::EnumDiscriminants)]
#[strum_discriminants(
    name(EventKind),
    vis(pub),
    doc = "What happened, without its facts.",
    derive(Serialize, Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum Event {
    RunStarted {
        run_id: String,
        ts: String,
        detail: RunStarted,
    },
    StepStarted {
        run_id: String,
        ts: String,
        #[serde(flatten)]
        step: StepRef,
        /// The step's deadline (`timeout_ms`).
        detail: Box<StepDetail>,
    },
    StepSucceeded {
        run_id: String,
        ts: String,
        #[serde(flatten)]
        step: StepRef,
        duration_ms: u64,
        /// The step's facts: matched element, URL, email, masked code…
        detail: Box<StepDetail>,
    },
    StepFailed {
        run_id: String,
        ts: String,
        #[serde(flatten)]
        step: StepRef,
        duration_ms: u64,
        error: StepError,
        /// The step's criticality (`should`, `could`) lets the run go on: a warning.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        warning: bool,
        /// The page's URL and screenshot.
        detail: Box<StepDetail>,
    },
    RunFinished {
        run_id: String,
        ts: String,
        duration_ms: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<StepError>,
        detail: RunFinished,
    },
}

impl Event {
    /// What happened, without its facts.
    pub fn kind(&self) -> EventKind {
        self.into()
    }

    /// The run it belongs to.
    pub fn run_id(&self) -> &str {
        self.stamp().0
    }

    /// When it happened (RFC 3339, UTC).
    pub fn ts(&self) -> &str {
        self.stamp().1
    }

    /// The run's id and the time, which every event carries.
    fn stamp(&self) -> (&str, &str) {
        match self {
            Event::RunStarted { run_id, ts, .. }
            | Event::StepStarted { run_id, ts, .. }
            | Event::StepSucceeded { run_id, ts, .. }
            | Event::StepFailed { run_id, ts, .. }
            | Event::RunFinished { run_id, ts, .. } => (run_id, ts),
        }
    }

    /// The step a step event is about.
    pub fn step(&self) -> Option<&StepRef> {
        self.step_and_detail().map(|(step, _)| step)
    }

    /// The step's facts, for step events.
    pub fn step_detail(&self) -> Option<&StepDetail> {
        self.step_and_detail().map(|(_, detail)| detail)
    }

    /// The step a step event is about, with its facts.
    fn step_and_detail(&self) -> Option<(&StepRef, &StepDetail)> {
        match self {
            Event::StepStarted { step, detail, .. }
            | Event::StepSucceeded { step, detail, .. }
            | Event::StepFailed { step, detail, .. } => Some((step, detail)),
            Event::RunStarted { .. } | Event::RunFinished { .. } => None,
        }
    }

    /// The step's index, for step events.
    pub fn index(&self) -> Option<usize> {
        self.step().map(|s| s.index)
    }

    /// The step's facts, for step events, to be changed (a service links screenshots).
    pub fn step_detail_mut(&mut self) -> Option<&mut StepDetail> {
        match self {
            Event::StepStarted { detail, .. }
            | Event::StepSucceeded { detail, .. }
            | Event::StepFailed { detail, .. } => Some(detail),
            Event::RunStarted { .. } | Event::RunFinished { .. } => None,
        }
    }

    /// How long the step or the run took, once it ended.
    pub fn duration_ms(&self) -> Option<u64> {
        match self {
            Event::StepSucceeded { duration_ms, .. }
            | Event::StepFailed { duration_ms, .. }
            | Event::RunFinished { duration_ms, .. } => Some(*duration_ms),
            Event::RunStarted { .. } | Event::StepStarted { .. } => None,
        }
    }

    /// Why the step or the run failed.
    pub fn error(&self) -> Option<&StepError> {
        match self {
            Event::StepFailed { error, .. } => Some(error),
            Event::RunFinished { error, .. } => error.as_ref(),
            Event::RunStarted { .. } | Event::StepStarted { .. } | Event::StepSucceeded { .. } => {
                None
            }
        }
    }
}

/// Receives every event of a run, in order.
pub trait Listener: Send {
    fn on_event(&mut self, event: &Event);
}

/// Keeps events in memory (tests, the HTTP service).
#[derive(Debug, Default)]
pub struct Recorder {
    pub events: Vec<Event>,
}

impl Listener for Recorder {
    fn on_event(&mut self, event: &Event) {
        self.events.push(event.clone());
    }
}

/// Fans one event out to several listeners.
pub struct Fanout<'a>(pub Vec<&'a mut dyn Listener>);

impl Listener for Fanout<'_> {
    fn on_event(&mut self, event: &Event) {
        for l in self.0.iter_mut() {
            l.on_event(event);
        }
    }
}

impl<F: FnMut(&Event) + Send> Listener for F {
    fn on_event(&mut self, event: &Event) {
        self(event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Event logs written by planlock before events were an enum: read back and written
    /// again, every line is the same bytes.
    #[test]
    fn event_logs_read_back_and_write_the_same_bytes() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/events");
        let mut lines = 0;
        let mut kinds = std::collections::BTreeSet::new();
        for file in std::fs::read_dir(&dir).expect("fixtures/events") {
            let path = file.expect("an entry").path();
            let text = std::fs::read_to_string(&path).expect("readable");
            for line in text.lines() {
                let event: Event = serde_json::from_str(line)
                    .unwrap_or_else(|e| panic!("{}: {e}: {line}", path.display()));
                kinds.insert(format!("{:?}", event.kind()));
                assert_eq!(serde_json::to_string(&event).unwrap(), line);
                lines += 1;
            }
        }
        assert!(lines > 30, "{lines} lines");
        assert_eq!(
            kinds.len(),
            5,
            "every kind of event is in the logs: {kinds:?}"
        );
    }
}
