//! What `/metrics` says, through `prometheus-client`: runs by how they ended, step
//! durations by type, inbox waits, queue depth, browser restarts, webhook deliveries and
//! HTTP answers. Counted by this replica since it started.

use std::sync::Mutex;

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use crate::plan::StepType;

/// Upper bounds (seconds) of the duration buckets.
const BUCKETS: &[f64] = &[
    0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

type Labels = Vec<(String, String)>;
type Histograms = Family<Labels, Histogram, fn() -> Histogram>;

fn durations() -> Histogram {
    Histogram::new(BUCKETS.iter().copied())
}

fn label(name: &str, value: impl ToString) -> Labels {
    vec![(name.to_string(), value.to_string())]
}

/// The service's counters. Updated from run events and handlers; read by `/metrics`.
pub struct Metrics {
    registry: Registry,
    runs: Family<Labels, Counter>,
    interrupted: Counter,
    runs_in_flight: Gauge,
    max_runs: Gauge,
    queue_depth: Gauge,
    queue_limit: Gauge,
    run_durations: Histogram,
    steps: Histograms,
    inbox_waits: Histograms,
    browser_restarts: Counter,
    webhooks: Family<Labels, Counter>,
    http: Family<Labels, Counter>,
    /// Seconds and count of the runs ended, for `Retry-After`.
    run_seconds: Mutex<(f64, u64)>,
}

/// Gauges read at scrape time.
pub struct Gauges {
    pub runs_in_flight: usize,
    pub queue_depth: usize,
    pub max_runs: usize,
    pub queue_limit: usize,
}

impl Default for Metrics {
    fn default() -> Metrics {
        let m = Metrics {
            registry: Registry::default(),
            runs: Family::default(),
            interrupted: Counter::default(),
            runs_in_flight: Gauge::default(),
            max_runs: Gauge::default(),
            queue_depth: Gauge::default(),
            queue_limit: Gauge::default(),
            run_durations: durations(),
            steps: Family::new_with_constructor(durations),
            inbox_waits: Family::new_with_constructor(durations),
            browser_restarts: Counter::default(),
            webhooks: Family::default(),
            http: Family::default(),
            run_seconds: Mutex::new((0.0, 0)),
        };
        // Every status and outcome is shown from the start, at 0.
        for status in ["succeeded", "failed", "cancelled"] {
            let _ = m.runs.get_or_create(&label("status", status));
        }
        for outcome in ["delivered", "retried", "failed"] {
            let _ = m.webhooks.get_or_create(&label("outcome", outcome));
        }
        let mut m = m;
        let r = &mut m.registry;
        // Counters are named without `_total`, and help texts without their full stop: the
        // encoder adds both.
        r.register(
            "planlock_runs",
            "Runs this replica ended, by status",
            m.runs.clone(),
        );
        r.register(
            "planlock_runs_interrupted",
            "Runs found in flight on a server that died, marked failed (interrupted)",
            m.interrupted.clone(),
        );
        r.register(
            "planlock_runs_in_flight",
            "Runs executing now",
            m.runs_in_flight.clone(),
        );
        r.register(
            "planlock_max_runs",
            "Runs this replica executes at once (--max-runs)",
            m.max_runs.clone(),
        );
        r.register(
            "planlock_queue_depth",
            "Runs waiting for a slot",
            m.queue_depth.clone(),
        );
        r.register(
            "planlock_queue_limit",
            "Most runs that may wait (--queue)",
            m.queue_limit.clone(),
        );
        r.register(
            "planlock_run_duration_seconds",
            "How long runs took, start to result",
            m.run_durations.clone(),
        );
        r.register(
            "planlock_step_duration_seconds",
            "How long steps took, by step type",
            m.steps.clone(),
        );
        r.register(
            "planlock_inbox_wait_seconds",
            "How long inbox steps waited for mail, by step type",
            m.inbox_waits.clone(),
        );
        r.register(
            "planlock_browser_restarts",
            "Times the shared browser was found dead and started again",
            m.browser_restarts.clone(),
        );
        r.register(
            "planlock_webhook_attempts",
            "Webhook delivery attempts, by outcome",
            m.webhooks.clone(),
        );
        r.register(
            "planlock_http_responses",
            "HTTP answers, by status code",
            m.http.clone(),
        );
        m
    }
}

impl Metrics {
    /// A step ended after `ms` milliseconds.
    pub fn step(&self, step_type: StepType, ms: u64) {
        let seconds = ms as f64 / 1000.0;
        let labels = label("type", step_type.as_str());
        self.steps.get_or_create(&labels).observe(seconds);
        if step_type.reads_mail() {
            self.inbox_waits.get_or_create(&labels).observe(seconds);
        }
    }

    /// A run ended with `status` (`succeeded`, `failed`, `cancelled`).
    pub fn run(&self, status: &str, ms: u64) {
        self.runs.get_or_create(&label("status", status)).inc();
        let seconds = ms as f64 / 1000.0;
        self.run_durations.observe(seconds);
        let mut total = self.run_seconds.lock().unwrap_or_else(|e| e.into_inner());
        total.0 += seconds;
        total.1 += 1;
    }

    /// A run whose server died was marked `interrupted`.
    pub fn interrupted(&self) {
        self.interrupted.inc();
    }

    pub fn browser_restart(&self) {
        self.browser_restarts.inc();
    }

    /// A webhook delivery attempt ended (`delivered`, `retried`, `failed`).
    pub fn webhook(&self, outcome: &str) {
        self.webhooks
            .get_or_create(&label("outcome", outcome))
            .inc();
    }

    pub fn http(&self, status: u16) {
        self.http.get_or_create(&label("code", status)).inc();
    }

    /// The average run duration so far, for `Retry-After`.
    pub fn mean_run_seconds(&self) -> Option<f64> {
        let (sum, count) = *self.run_seconds.lock().unwrap_or_else(|e| e.into_inner());
        (count > 0).then(|| sum / count as f64)
    }

    /// The text of `/metrics` (OpenMetrics text, which Prometheus reads as its own format).
    pub fn render(&self, gauges: &Gauges) -> String {
        let gauge = |g: &Gauge, n: usize| {
            g.set(i64::try_from(n).unwrap_or(i64::MAX));
        };
        gauge(&self.runs_in_flight, gauges.runs_in_flight);
        gauge(&self.max_runs, gauges.max_runs);
        gauge(&self.queue_depth, gauges.queue_depth);
        gauge(&self.queue_limit, gauges.queue_limit);
        let mut out = String::new();
        if let Err(e) = encode(&mut out, &self.registry) {
            tracing::error!(error = %e, "the metrics could not be written");
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
        m.step(StepType::WaitForEmail, 1500);
        m.step(StepType::WaitForEmail, 40);
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
            text.contains("# HELP planlock_queue_depth Runs waiting for a slot.\n"),
            "{text}"
        );
        assert!(text.ends_with("# EOF\n"), "{text}");
        assert!(
            text.contains(
                "planlock_inbox_wait_seconds_bucket{le=\"0.05\",type=\"wait_for_email\"} 1"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "planlock_step_duration_seconds_bucket{le=\"2.5\",type=\"wait_for_email\"} 2"
            ),
            "{text}"
        );
        assert!(
            text.contains("planlock_step_duration_seconds_count{type=\"wait_for_email\"} 2"),
            "{text}"
        );
    }
}
