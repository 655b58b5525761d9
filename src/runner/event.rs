//! Run events (docs/steps.md), written as they happen. The runner knows nothing of terminals or
//! files: it hands each event to a [`Listener`].

use super::EventDetail;
use crate::error::StepError;
use serde::Serialize;

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    RunStarted,
    StepStarted,
    StepSucceeded,
    StepFailed,
    RunFinished,
}

/// One line of the event log.
#[derive(Debug, Clone, Serialize)]
pub struct Event {
    pub event: EventKind,
    pub run_id: String,
    /// RFC 3339 with milliseconds, UTC.
    pub ts: String,
    /// The step's index in the plan (0-based); absent for run events.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    /// The step's type; absent for run events.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub step_type: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub describe: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<StepError>,
    /// The run's facts (start, end) or the step's: matched element, URL, email, masked code…
    pub detail: EventDetail,
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
