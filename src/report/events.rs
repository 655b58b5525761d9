//! The event log: one JSON line per event, flushed as it happens, so a crash loses nothing.

use std::io::Write;
use std::sync::{Arc, Mutex};

use crate::runner::{Event, Listener};

/// Writes each event as one JSON line and flushes it at once.
pub struct EventLog {
    out: Arc<Mutex<Box<dyn Write + Send>>>,
}

impl EventLog {
    /// `-` is stdout; anything else a file, created or truncated.
    pub fn open(target: &str) -> std::io::Result<EventLog> {
        let out: Box<dyn Write + Send> = if target == "-" {
            Box::new(std::io::stdout())
        } else {
            Box::new(std::fs::File::create(target)?)
        };
        Ok(EventLog::to(out))
    }

    /// A log written to `out`.
    pub fn to(out: Box<dyn Write + Send>) -> EventLog {
        EventLog {
            out: Arc::new(Mutex::new(out)),
        }
    }

    /// Another handle on the same log (concurrent runs share one file).
    pub fn share(&self) -> EventLog {
        EventLog {
            out: self.out.clone(),
        }
    }
}

/// One event as its log line (without the newline), with no control character in it.
pub fn event_line(event: &Event) -> String {
    super::json_printable(serde_json::to_string(event).unwrap_or_default())
}

impl Listener for EventLog {
    fn on_event(&mut self, event: &Event) {
        let mut line = event_line(event);
        line.push('\n');
        if let Ok(mut out) = self.out.lock() {
            // A closed pipe must not stop the run; the result still says what happened.
            let _ = out.write_all(line.as_bytes()).and_then(|()| out.flush());
        }
    }
}
