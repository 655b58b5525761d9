//! Inbox latency: from the moment a sender hands a message over to the moment
//! `wait_for_message` returns it, for a real Dovecot (IMAP) and the embedded SMTP receiver.
//!
//! ```text
//! cargo run --release --example inbox_latency          # N=50 per row
//! INBOX_LATENCY_SAMPLES=200 cargo run --release --example inbox_latency
//! ```
//!
//! Each sample opens a fresh run, starts a waiting step, waits a random 30–60 ms (so
//! deliveries land at random points of the poll cycle), then delivers: IMAP `APPEND` on a
//! logged-in session, or the final `.` of SMTP `DATA`. The clock starts just before that
//! command is sent, so the sender's own round trip is included.

#[path = "../tests/it/util/dovecot.rs"]
mod dovecot;
#[path = "../tests/it/util/smtp.rs"]
mod smtp;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use planlock::inbox::smtp::SmtpInbox;
use planlock::inbox::{Inbox, MailFilter, connect, parse_binding, wait_for_message};
use tokio::time::Instant;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let samples: usize = std::env::var("INBOX_LATENCY_SAMPLES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(50);
    println!("| inbox | samples | median | p95 | min | max |");
    println!("|---|---|---|---|---|---|");

    let smtp = smtp_latencies(samples).await;
    report("embedded SMTP receiver", &smtp);

    let Some(dovecot) = dovecot::Dovecot::start() else {
        eprintln!("Dovecot is not installed; IMAP rows skipped");
        return;
    };
    let imap = imap_latencies(&dovecot, "poll_ms=25", samples).await;
    report("IMAP, Dovecot on loopback (default poll 25 ms)", &imap);
    let remote = imap_latencies(&dovecot, "poll_ms=1000", samples.min(20)).await;
    report(
        "IMAP, Dovecot, poll_ms=1000 (the remote default: IDLE between polls)",
        &remote,
    );
}

async fn smtp_latencies(samples: usize) -> Vec<Duration> {
    let inbox = SmtpInbox::start("127.0.0.1:0".parse().unwrap(), "bench.test")
        .await
        .expect("start the receiver");
    let mut out = Vec::with_capacity(samples);
    for i in 0..samples {
        let mut run = inbox.open(&format!("s{i}")).await.expect("open");
        let to = run.address().to_string();
        let waiter = tokio::spawn(async move {
            let found = wait_for_message(
                &mut *run,
                &MailFilter::default(),
                &mut HashSet::new(),
                Instant::now() + Duration::from_secs(10),
            )
            .await;
            (found.map(|t| t.message.subject), Instant::now())
        });
        jitter().await;
        let mut client = smtp::SmtpClient::connect(inbox.local_addr()).await;
        assert_eq!(client.command("EHLO bench").await.0, 250);
        assert_eq!(client.command("MAIL FROM:<a@shop.example>").await.0, 250);
        assert_eq!(client.command(&format!("RCPT TO:<{to}>")).await.0, 250);
        assert_eq!(client.command("DATA").await.0, 354);
        let body = smtp::message("a@shop.example", &to, &format!("sample {i}"), "x");
        let started = Instant::now();
        client.send(&body).await;
        client.send(b".\r\n").await;
        assert_eq!(client.reply().await.0, 250);
        let (found, returned) = waiter.await.unwrap();
        assert_eq!(found.expect("delivered"), format!("sample {i}"));
        out.push(returned.saturating_duration_since(started));
    }
    out
}

async fn imap_latencies(dovecot: &dovecot::Dovecot, query: &str, samples: usize) -> Vec<Duration> {
    let url = dovecot.url(&format!("address=bob@bench.test&plus=true&{query}"));
    let (_, url) = parse_binding(&url).expect("URL");
    let inbox: Arc<dyn Inbox> = connect(&url).await.expect("connect");
    inbox.check().await.expect("check");
    let mut appender = dovecot.appender().await;
    let mut out = Vec::with_capacity(samples);
    let mut append_took = Vec::with_capacity(samples);
    for i in 0..samples {
        let mut run = inbox.open(&format!("i{i}")).await.expect("open");
        let to = run.address().to_string();
        let waiter = tokio::spawn(async move {
            let found = wait_for_message(
                &mut *run,
                &MailFilter::default(),
                &mut HashSet::new(),
                Instant::now() + Duration::from_secs(10),
            )
            .await;
            (found.map(|t| t.message.subject), Instant::now())
        });
        jitter().await;
        let body = smtp::message("a@shop.example", &to, &format!("sample {i}"), "x");
        let started = Instant::now();
        appender.append(&body).await;
        append_took.push(started.elapsed());
        let (found, returned) = waiter.await.unwrap();
        assert_eq!(found.expect("delivered"), format!("sample {i}"));
        out.push(returned.saturating_duration_since(started));
    }
    append_took.sort();
    eprintln!(
        "({query}: the APPEND itself took {:.1} ms median)",
        append_took[append_took.len() / 2].as_secs_f64() * 1000.0
    );
    out
}

async fn jitter() {
    tokio::time::sleep(Duration::from_millis(rand::random_range(30..60))).await;
}

fn report(name: &str, samples: &[Duration]) {
    let mut ms: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1000.0).collect();
    ms.sort_by(f64::total_cmp);
    let n = ms.len();
    let median = if n.is_multiple_of(2) {
        (ms[n / 2 - 1] + ms[n / 2]) / 2.0
    } else {
        ms[n / 2]
    };
    let p95 = ms[((n as f64 * 0.95).ceil() as usize).clamp(1, n) - 1];
    println!(
        "| {name} | {n} | {median:.2} ms | {p95:.2} ms | {:.2} ms | {:.2} ms |",
        ms[0],
        ms[n - 1]
    );
}
