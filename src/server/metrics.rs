//! What `/metrics` says, in the Prometheus text format: runs by how they ended, step
//! durations by type, inbox waits, queue depth, browser restarts, webhook deliveries and
//! HTTP answers. Counted by this replica since it started.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;

/// Upper bounds (seconds) of the duration buckets.
const BUCKETS: &[f64] = &[
    0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

#[derive(Default, Clone)]
struct Histogram {
    counts: Vec<u64>,
    sum: f64,
    count: u64,
}

impl Histogram {
    fn observe(&mut self, seconds: f64) {
        if self.counts.is_empty() {
            self.counts = vec![0; BUCKETS.len()];
        }
        for (i, bound) in BUCKETS.iter().enumerate() {
            if seconds <= *bound {
                self.counts[i] += 1;
            }
        }
        self.sum += seconds;
        self.count += 1;
    }

    fn write(&self, out: &mut String, name: &str, labels: &str) {
        let sep = if labels.is_empty() { "" } else { "," };
        for (i, bound) in BUCKETS.iter().enumerate() {
            let n = self.counts.get(i).copied().unwrap_or(0);
            let _ = writeln!(out, "{name}_bucket{{{labels}{sep}le=\"{bound}\"}} {n}");
        }
        let _ = writeln!(
            out,
            "{name}_bucket{{{labels}{sep}le=\"+Inf\"}} {}",
            self.count
        );
        let braces = if labels.is_empty() {
            String::new()
        } else {
            format!("{{{labels}}}")
        };
        let _ = writeln!(out, "{name}_sum{braces} {}", self.sum);
        let _ = writeln!(out, "{name}_count{braces} {}", self.count);
    }
}

#[derive(Default)]
struct Counts {
    runs: BTreeMap<String, u64>,
    steps: BTreeMap<String, Histogram>,
    inbox_waits: BTreeMap<String, Histogram>,
    run_durations: Histogram,
    browser_restarts: u64,
    webhooks: BTreeMap<String, u64>,
    http: BTreeMap<u16, u64>,
    interrupted: u64,
}

/// The service's counters. Updated from run events and handlers; read by `/metrics`.
#[derive(Default)]
pub struct Metrics {
    counts: Mutex<Counts>,
}

/// Gauges read at scrape time.
pub struct Gauges {
    pub runs_in_flight: usize,
    pub queue_depth: usize,
    pub max_runs: usize,
    pub queue_limit: usize,
}

const INBOX_STEPS: &[&str] = &[
    "wait_for_email",
    "use_otp_from_inbox",
    "open_link_from_inbox",
];

impl Metrics {
    fn counts(&self) -> std::sync::MutexGuard<'_, Counts> {
        self.counts.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A step ended after `ms` milliseconds.
    pub fn step(&self, step_type: &str, ms: u64) {
        let seconds = ms as f64 / 1000.0;
        let mut c = self.counts();
        c.steps
            .entry(step_type.to_string())
            .or_default()
            .observe(seconds);
        if INBOX_STEPS.contains(&step_type) {
            c.inbox_waits
                .entry(step_type.to_string())
                .or_default()
                .observe(seconds);
        }
    }

    /// A run ended with `status` (`succeeded`, `failed`, `cancelled`).
    pub fn run(&self, status: &str, ms: u64) {
        let mut c = self.counts();
        *c.runs.entry(status.to_string()).or_default() += 1;
        c.run_durations.observe(ms as f64 / 1000.0);
    }

    /// A run whose server died was marked `interrupted`.
    pub fn interrupted(&self) {
        self.counts().interrupted += 1;
    }

    pub fn browser_restart(&self) {
        self.counts().browser_restarts += 1;
    }

    /// A webhook delivery attempt ended (`delivered`, `retried`, `failed`).
    pub fn webhook(&self, outcome: &str) {
        *self
            .counts()
            .webhooks
            .entry(outcome.to_string())
            .or_default() += 1;
    }

    pub fn http(&self, status: u16) {
        *self.counts().http.entry(status).or_default() += 1;
    }

    /// The average run duration so far, for `Retry-After`.
    pub fn mean_run_seconds(&self) -> Option<f64> {
        let c = self.counts();
        (c.run_durations.count > 0).then(|| c.run_durations.sum / c.run_durations.count as f64)
    }

    /// The text of `/metrics`.
    pub fn render(&self, gauges: &Gauges) -> String {
        let c = self.counts();
        let mut out = String::new();
        let header = |out: &mut String, name: &str, kind: &str, help: &str| {
            let _ = writeln!(out, "# HELP {name} {help}");
            let _ = writeln!(out, "# TYPE {name} {kind}");
        };
        header(
            &mut out,
            "planlock_runs_total",
            "counter",
            "Runs this replica ended, by status.",
        );
        for status in ["succeeded", "failed", "cancelled"] {
            let n = c.runs.get(status).copied().unwrap_or(0);
            let _ = writeln!(out, "planlock_runs_total{{status=\"{status}\"}} {n}");
        }
        header(
            &mut out,
            "planlock_runs_interrupted_total",
            "counter",
            "Runs found in flight on a server that died, marked failed (interrupted).",
        );
        let _ = writeln!(out, "planlock_runs_interrupted_total {}", c.interrupted);
        header(
            &mut out,
            "planlock_runs_in_flight",
            "gauge",
            "Runs executing now.",
        );
        let _ = writeln!(out, "planlock_runs_in_flight {}", gauges.runs_in_flight);
        header(
            &mut out,
            "planlock_max_runs",
            "gauge",
            "Runs this replica executes at once (--max-runs).",
        );
        let _ = writeln!(out, "planlock_max_runs {}", gauges.max_runs);
        header(
            &mut out,
            "planlock_queue_depth",
            "gauge",
            "Runs waiting for a slot.",
        );
        let _ = writeln!(out, "planlock_queue_depth {}", gauges.queue_depth);
        header(
            &mut out,
            "planlock_queue_limit",
            "gauge",
            "Most runs that may wait (--queue).",
        );
        let _ = writeln!(out, "planlock_queue_limit {}", gauges.queue_limit);
        header(
            &mut out,
            "planlock_run_duration_seconds",
            "histogram",
            "How long runs took, start to result.",
        );
        c.run_durations
            .write(&mut out, "planlock_run_duration_seconds", "");
        header(
            &mut out,
            "planlock_step_duration_seconds",
            "histogram",
            "How long steps took, by step type.",
        );
        for (step, h) in &c.steps {
            h.write(
                &mut out,
                "planlock_step_duration_seconds",
                &format!("type=\"{step}\""),
            );
        }
        header(
            &mut out,
            "planlock_inbox_wait_seconds",
            "histogram",
            "How long inbox steps waited for mail, by step type.",
        );
        for (step, h) in &c.inbox_waits {
            h.write(
                &mut out,
                "planlock_inbox_wait_seconds",
                &format!("type=\"{step}\""),
            );
        }
        header(
            &mut out,
            "planlock_browser_restarts_total",
            "counter",
            "Times the shared browser was found dead and started again.",
        );
        let _ = writeln!(
            out,
            "planlock_browser_restarts_total {}",
            c.browser_restarts
        );
        header(
            &mut out,
            "planlock_webhook_attempts_total",
            "counter",
            "Webhook delivery attempts, by outcome.",
        );
        for outcome in ["delivered", "retried", "failed"] {
            let n = c.webhooks.get(outcome).copied().unwrap_or(0);
            let _ = writeln!(
                out,
                "planlock_webhook_attempts_total{{outcome=\"{outcome}\"}} {n}"
            );
        }
        header(
            &mut out,
            "planlock_http_responses_total",
            "counter",
            "HTTP answers, by status code.",
        );
        for (status, n) in &c.http {
            let _ = writeln!(
                out,
                "planlock_http_responses_total{{code=\"{status}\"}} {n}"
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histograms_are_cumulative_and_labelled() {
        let m = Metrics::default();
        m.step("wait_for_email", 1500);
        m.step("wait_for_email", 40);
        m.run("succeeded", 2000);
        let text = m.render(&Gauges {
            runs_in_flight: 1,
            queue_depth: 2,
            max_runs: 4,
            queue_limit: 8,
        });
        assert!(
            text.contains("planlock_runs_total{status=\"succeeded\"} 1"),
            "{text}"
        );
        assert!(text.contains("planlock_queue_depth 2"), "{text}");
        assert!(
            text.contains(
                "planlock_inbox_wait_seconds_bucket{type=\"wait_for_email\",le=\"0.05\"} 1"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "planlock_step_duration_seconds_bucket{type=\"wait_for_email\",le=\"2.5\"} 2"
            ),
            "{text}"
        );
        assert!(
            text.contains("planlock_step_duration_seconds_count{type=\"wait_for_email\"} 2"),
            "{text}"
        );
    }
}
