//! The embedded SMTP receiver over real TCP, driven by a raw SMTP client: delivery wakes
//! waiters, dot-stuffing, several recipients, protocol errors, freshness and malformed mail.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use crate::util::smtp::{SmtpClient, message, next_mail, send_mail};
use planlock::inbox::smtp::{SmtpInbox, SmtpOptions};
use planlock::inbox::{
    Caller, Inbox, InboxError, InboxUrl, MailFilter, connect, parse_binding, parse_binding_as,
    parse_url, wait_for_message,
};
use tokio::time::Instant;

static ANY: MailFilter = MailFilter {
    from: None,
    subject: None,
};

async fn receiver() -> Arc<SmtpInbox> {
    SmtpInbox::start("127.0.0.1:0".parse().unwrap(), "Demo.Test")
        .await
        .expect("start the receiver")
}

fn within(secs: f64) -> Instant {
    Instant::now() + Duration::from_secs_f64(secs)
}

#[tokio::test]
async fn a_delivered_message_wakes_the_waiting_step() {
    let inbox = receiver().await;
    let addr = inbox.local_addr();
    assert_ne!(addr.port(), 0);
    inbox.check().await.expect("check");
    let mut run = inbox.open("AB12").await.expect("open");
    assert_eq!(run.address(), "run-ab12@demo.test");

    let none = HashSet::new();
    let deliver = async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        send_mail(
            addr,
            "hello@shop.example",
            &["run-ab12@demo.test"],
            &message(
                "Shop <hello@shop.example>",
                "run-ab12@demo.test",
                "Your code",
                "482913",
            ),
        )
        .await;
    };
    let started = Instant::now();
    let (found, ()) = tokio::join!(next_mail(&mut *run, &ANY, &none, within(10.0)), deliver);
    let found = found.expect("delivered");
    assert_eq!(found.subject, "Your code");
    assert_eq!(found.from, "Shop <hello@shop.example>");
    assert_eq!(found.to, ["run-ab12@demo.test"]);
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn the_envelope_counts_even_when_headers_do_not_name_the_run() {
    // BCC-style delivery: the run is only in RCPT TO.
    let inbox = receiver().await;
    let mut run = inbox.open("r1").await.unwrap();
    send_mail(
        inbox.local_addr(),
        "a@shop.example",
        &["run-r1@demo.test"],
        &message("a@shop.example", "undisclosed-recipients:;", "bcc", "x"),
    )
    .await;
    let found = next_mail(&mut *run, &ANY, &HashSet::new(), within(5.0))
        .await
        .expect("envelope recipient matches");
    assert_eq!(found.subject, "bcc");
}

#[tokio::test]
async fn dot_stuffing_is_undone() {
    let inbox = receiver().await;
    let mut run = inbox.open("r1").await.unwrap();
    let raw = b"From: a@shop.example\r\nTo: run-r1@demo.test\r\nSubject: dots\r\n\r\n\
                .leading dot\r\n..two dots\r\n.\r\nnot the end\r\nlast line\r\n";
    send_mail(
        inbox.local_addr(),
        "a@shop.example",
        &["run-r1@demo.test"],
        raw,
    )
    .await;
    let found = next_mail(&mut *run, &ANY, &HashSet::new(), within(5.0))
        .await
        .unwrap();
    assert_eq!(found.raw, raw, "the message is stored exactly as sent");
}

#[tokio::test]
async fn one_message_to_two_runs_reaches_both() {
    let inbox = receiver().await;
    let mut r1 = inbox.open("r1").await.unwrap();
    let mut r2 = inbox.open("r2").await.unwrap();
    let mut r3 = inbox.open("r3").await.unwrap();
    send_mail(
        inbox.local_addr(),
        "a@shop.example",
        &["run-r1@demo.test", "RUN-R2@DEMO.TEST"],
        &message(
            "a@shop.example",
            "run-r1@demo.test, run-r2@demo.test",
            "for two",
            "x",
        ),
    )
    .await;
    let none = HashSet::new();
    for run in [&mut r1, &mut r2] {
        let found = next_mail(&mut **run, &ANY, &none, within(5.0))
            .await
            .unwrap();
        assert_eq!(found.subject, "for two");
    }
    assert!(
        r3.arrived().await.unwrap().is_empty(),
        "r3 was not a recipient"
    );
}

#[tokio::test]
async fn mail_from_before_open_is_never_returned() {
    let inbox = receiver().await;
    // Nobody reads run-r1 yet: the mail is refused, not kept for later.
    let mut c = SmtpClient::connect(inbox.local_addr()).await;
    assert_eq!(c.command("EHLO client.test").await.0, 250);
    assert_eq!(c.command("MAIL FROM:<a@shop.example>").await.0, 250);
    assert_eq!(c.command("RCPT TO:<run-r1@demo.test>").await.0, 550);
    // Opened twice (a retried run id): the second view starts after what the first got.
    let _first = inbox.open("r1").await.unwrap();
    send_mail(
        inbox.local_addr(),
        "a@shop.example",
        &["run-r1@demo.test"],
        &message("a@shop.example", "run-r1@demo.test", "stale", "x"),
    )
    .await;
    let mut run = inbox.open("r1").await.unwrap();
    assert!(run.arrived().await.unwrap().is_empty());
    let err = next_mail(&mut *run, &ANY, &HashSet::new(), within(0.3))
        .await
        .expect_err("nothing fresh");
    assert_eq!(
        planlock::runner::mail_wait_sentence(&err),
        "no email at all arrived for run-r1@demo.test within 0.3 s"
    );
}

#[tokio::test]
async fn filters_and_the_timeout_sentence() {
    let inbox = receiver().await;
    let mut run = inbox.open("ab12").await.unwrap();
    let to = "run-ab12@demo.test";
    send_mail(
        inbox.local_addr(),
        "news@shop.example",
        &[to],
        &message("news@shop.example", to, "Welcome!", "x"),
    )
    .await;
    let filter = MailFilter {
        from: Some("shop.example".into()),
        subject: Some("verify".into()),
    };
    let err = next_mail(&mut *run, &filter, &HashSet::new(), within(0.5))
        .await
        .expect_err("no match");
    assert_eq!(
        planlock::runner::mail_wait_sentence(&err),
        "no email to run-ab12@demo.test from \"shop.example\" with subject containing \"verify\" arrived \
         within 0.5 s; 1 other message arrived: \"Welcome!\" from news@shop.example (subject does \
         not match)"
    );
    send_mail(
        inbox.local_addr(),
        "hello@shop.example",
        &[to],
        &message("Shop <hello@shop.example>", to, "Verify your e-mail", "x"),
    )
    .await;
    let found = next_mail(&mut *run, &filter, &HashSet::new(), within(5.0))
        .await
        .unwrap();
    assert_eq!(found.subject, "Verify your e-mail");
}

#[tokio::test]
async fn protocol_order_and_errors_follow_rfc_5321() {
    let inbox = receiver().await;
    let _run = inbox.open("x").await.unwrap();
    let mut c = SmtpClient::connect(inbox.local_addr()).await;
    assert_eq!(c.command("MAIL FROM:<a@b.test>").await.0, 503, "EHLO first");
    let (code, text) = c.command("EHLO client.test").await;
    assert_eq!(code, 250);
    for ext in ["8BITMIME", "PIPELINING", "SIZE"] {
        assert!(text.contains(ext), "{ext} in {text}");
    }
    assert_eq!(
        c.command("RCPT TO:<run-x@demo.test>").await.0,
        503,
        "MAIL first"
    );
    assert_eq!(c.command("DATA").await.0, 503, "MAIL first");
    assert_eq!(c.command("MAIL FROM:<a@b.test> BODY=8BITMIME").await.0, 250);
    assert_eq!(
        c.command("MAIL FROM:<a@b.test>").await.0,
        503,
        "nested MAIL"
    );
    assert_eq!(c.command("DATA").await.0, 503, "RCPT first");
    assert_eq!(c.command("RCPT TO:<not-an-address>").await.0, 501);
    assert_eq!(c.command("RCPT TO:<run-x@demo.test>").await.0, 250);
    assert_eq!(c.command("RSET").await.0, 250);
    assert_eq!(
        c.command("DATA").await.0,
        503,
        "RSET forgot the transaction"
    );
    assert_eq!(c.command("NOOP").await.0, 250);
    assert_eq!(
        c.command("MAIL FROM:<a@b.test> SIZE=999999999999").await.0,
        552
    );
    assert_eq!(c.command("MAIL FROM:<a@b.test> AUTH=<>").await.0, 555);
    assert_eq!(c.command("STARTTLS").await.0, 502);
    assert_eq!(c.command("FROB").await.0, 500);
    assert_eq!(c.command("HELO old.client").await.0, 250);
    // A null reverse-path (bounces) is allowed.
    assert_eq!(c.command("MAIL FROM:<>").await.0, 250);
    assert_eq!(c.command("RCPT TO:<run-x@demo.test>").await.0, 250);
    let (code, text) = c.data(b"Subject: bounce\r\n\r\nx\r\n").await;
    assert_eq!(code, 250, "{text}");
    assert_eq!(c.command("QUIT").await.0, 221);
    assert_eq!(inbox.messages().len(), 1);
}

#[tokio::test]
async fn pipelined_commands_are_answered_in_order() {
    let inbox = receiver().await;
    let mut run = inbox.open("p").await.unwrap();
    let mut c = SmtpClient::connect(inbox.local_addr()).await;
    assert_eq!(c.command("EHLO client.test").await.0, 250);
    c.send(b"MAIL FROM:<a@b.test>\r\nRCPT TO:<run-p@demo.test>\r\nRCPT TO:<other@demo.test>\r\nDATA\r\n")
        .await;
    for expected in [250, 250, 550, 354] {
        assert_eq!(c.reply().await.0, expected);
    }
    c.send(b"Subject: piped\r\n\r\nbody\r\n.\r\nQUIT\r\n").await;
    assert_eq!(c.reply().await.0, 250);
    assert_eq!(c.reply().await.0, 221);
    let found = next_mail(&mut *run, &ANY, &HashSet::new(), within(5.0))
        .await
        .unwrap();
    assert_eq!(found.subject, "piped");
    assert_eq!(found.to, ["run-p@demo.test"]);
}

/// Malformed MIME is kept and read: each message's readable header comes through. A reader
/// that panicked would leave it empty (the receiver skips what it cannot read rather than
/// stop), so the subjects tell a swallowed panic from a read.
#[tokio::test]
async fn malformed_mime_is_kept_and_read() {
    let inbox = receiver().await;
    let mut run = inbox.open("m").await.unwrap();
    let junk: [&[u8]; 4] = [
        b"Subject: junk 1\r\nFrom: =?utf-8?B?!!!?=\r\nContent-Type: multipart/mixed; boundary=\"\"\r\n\r\n--\r\n--\r\n",
        b"Subject: junk 2\r\nFrom: <<<@@@>>>, \"unterminated\r\nContent-Type: message/rfc822\r\n\r\nContent-Type: message/rfc822\r\n\r\n",
        b"Subject: junk 3\r\nTo: \xff\xfe\xc3\x28\r\nContent-Transfer-Encoding: base64\r\n\r\n@@@@=\r\n",
        // Other control bytes; a NUL is refused (a_message_holding_a_nul_is_refused).
        b"Subject: junk 4\r\n\x01\x02\x7f",
    ];
    for raw in junk {
        send_mail(inbox.local_addr(), "x@y.test", &["run-m@demo.test"], raw).await;
    }
    let deadline = within(5.0);
    loop {
        let seen = run.arrived().await.unwrap();
        if seen.len() == 4 || Instant::now() >= deadline {
            let subjects: Vec<&str> = seen.iter().map(|m| m.subject.as_str()).collect();
            assert_eq!(subjects, ["junk 1", "junk 2", "junk 3", "junk 4"]);
            for m in &seen {
                assert_eq!(m.to, ["run-m@demo.test"], "{}", m.subject);
            }
            break;
        }
        run.changed(deadline).await.unwrap();
    }
}

#[tokio::test]
async fn smtp_urls_start_the_receiver_and_busy_ports_are_refused() {
    let (name, url) = parse_binding("demo=smtp://127.0.0.1:0?domain=demo.test").unwrap();
    assert_eq!(name.as_deref(), Some("demo"));
    assert!(matches!(url, InboxUrl::Smtp(_)));
    let inbox = connect(&url).await.expect("start");
    let described = inbox.describe();
    assert!(described.starts_with("smtp://127.0.0.1:"), "{described}");
    assert!(
        !described.starts_with("smtp://127.0.0.1:0?"),
        "shows the bound port: {described}"
    );

    let taken = receiver().await;
    let Err(InboxError::Unreachable(text)) =
        SmtpInbox::start(taken.local_addr(), "demo.test").await
    else {
        panic!("the port is in use");
    };
    assert!(text.contains("another program uses that port"), "{text}");
}

#[tokio::test]
async fn recipients_outside_the_domain_or_without_a_run_are_refused() {
    let inbox = receiver().await;
    let _run = inbox.open("ab12").await.unwrap();
    let mut c = SmtpClient::connect(inbox.local_addr()).await;
    assert_eq!(c.command("EHLO client.test").await.0, 250);
    assert_eq!(c.command("MAIL FROM:<a@shop.example>").await.0, 250);
    let (code, text) = c.command("RCPT TO:<victim@elsewhere.example>").await;
    assert_eq!(code, 550, "{text}");
    assert_eq!(
        text,
        "5.1.2 <victim@elsewhere.example> is not in demo.test: this receiver only takes mail \
         for the runs it serves (run-RUNID@demo.test) and relays nothing"
    );
    let (code, text) = c.command("RCPT TO:<run-gone@demo.test>").await;
    assert_eq!(code, 550, "{text}");
    assert_eq!(
        text,
        "5.1.1 <run-gone@demo.test>: no run is reading mail at this address (mail is \
         taken only while a run's mailbox is open)"
    );
    assert_eq!(c.command("RCPT TO:<Run-AB12@Demo.Test>").await.0, 250);
    let (code, text) = c.data(b"Subject: kept\r\n\r\nx\r\n").await;
    assert_eq!(code, 250, "{text}");
    let held: Vec<String> = inbox.messages().into_iter().map(|m| m.subject).collect();
    assert_eq!(held, ["kept"]);
}

/// A receiver bound to one address (`?address=`): every run reads at that address, as with a
/// mailbox without plus addressing, and sees the mail to it that arrived after it opened; mail
/// to any other address is refused; a run that uses a message leaves it whole for another run
/// open on the same address.
#[tokio::test]
async fn a_receiver_bound_to_one_address_gives_every_run_that_address() {
    let url = parse_url("smtp://127.0.0.1:0?address=Ada@Demo.Test").unwrap();
    let bound = connect(&url).await.expect("start");
    assert!(
        bound
            .describe()
            .ends_with("?address=ada@demo.test (embedded receiver)"),
        "{}",
        bound.describe()
    );
    assert_eq!(bound.open("k3x9").await.unwrap().address(), "ada@demo.test");
    drop(bound);

    let inbox = SmtpInbox::start_with(
        "127.0.0.1:0".parse().unwrap(),
        "demo.test",
        SmtpOptions {
            address: Some("Ada@Demo.Test".into()),
            ..SmtpOptions::default()
        },
    )
    .await
    .unwrap();
    let addr = inbox.local_addr();
    let mut c = SmtpClient::connect(addr).await;
    assert_eq!(c.command("EHLO client.test").await.0, 250);
    assert_eq!(c.command("MAIL FROM:<a@shop.example>").await.0, 250);
    let (code, text) = c.command("RCPT TO:<ada@demo.test>").await;
    assert_eq!(code, 550, "no run reads it yet: {text}");

    let mut first = inbox.open("r1").await.unwrap();
    assert_eq!(first.address(), "ada@demo.test");
    let (code, text) = c.command("RCPT TO:<run-r1@demo.test>").await;
    assert_eq!(code, 550, "{text}");
    assert_eq!(
        text,
        "5.1.1 <run-r1@demo.test> is not ada@demo.test: this receiver only takes mail for that \
         one address, the address its runs read, and relays nothing"
    );
    let (code, text) = c.command("RCPT TO:<ada@elsewhere.example>").await;
    assert_eq!(code, 550, "{text}");
    assert!(text.contains("only takes mail for ada@demo.test"), "{text}");
    drop(c);

    let none = HashSet::new();
    let mail = |subject: &str| message("a@shop.example", "Ada@Demo.Test", subject, "482913");
    send_mail(addr, "a@shop.example", &["Ada@Demo.Test"], &mail("before")).await;
    let found = next_mail(&mut *first, &ANY, &none, within(5.0))
        .await
        .unwrap();
    assert_eq!(found.subject, "before");

    let mut second = inbox.open("r2").await.unwrap();
    assert_eq!(second.address(), "ada@demo.test");
    assert!(
        second.arrived().await.unwrap().is_empty(),
        "mail from before the second run opened is not its"
    );
    let shared = mail("shared");
    send_mail(addr, "a@shop.example", &["ada@demo.test"], &shared).await;
    let seen_first = next_mail(
        &mut *first,
        &ANY,
        &HashSet::from([found.id.clone()]),
        within(5.0),
    )
    .await
    .unwrap();
    assert_eq!(seen_first.subject, "shared");
    first.consumed(&seen_first.id);
    let seen_second = next_mail(&mut *second, &ANY, &none, within(5.0))
        .await
        .unwrap();
    assert_eq!(
        seen_second.subject, "shared",
        "both runs see the mail to it"
    );
    assert_eq!(
        seen_second.raw, shared,
        "the first run using it left the message whole for the second"
    );
    second.consumed(&seen_second.id);
    drop((first, second));
    assert_eq!(inbox.held_bytes(), 0, "let go once both runs closed");
}

/// The peak resident memory of this process so far, and what is resident now, in bytes.
fn memory() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map(|kb| kb * 1024)
            .unwrap_or_else(|| panic!("{name} in /proc/self/status"))
    };
    (field("VmHWM:"), field("VmRSS:"))
}

/// Sends `raw` (no line of it starts with a dot) in one transaction and returns the final
/// reply, without copying the message.
async fn send_large(addr: std::net::SocketAddr, to: &str, raw: &[u8]) -> (u16, String) {
    let mut c = SmtpClient::connect(addr).await;
    assert_eq!(c.command("EHLO big.client").await.0, 250);
    assert_eq!(c.command("MAIL FROM:<big@shop.example>").await.0, 250);
    assert_eq!(c.command(&format!("RCPT TO:<{to}>")).await.0, 250);
    assert_eq!(c.command("DATA").await.0, 354);
    c.send(raw).await;
    c.send(b".\r\n").await;
    c.reply().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_messages_at_once_stay_within_the_memory_cap() {
    const MESSAGE: usize = 23_500_000;
    const CAP: u64 = 64 << 20;
    let inbox = receiver().await;
    let mut run = inbox.open("big").await.unwrap();
    let mut raw =
        b"From: big@shop.example\r\nTo: run-big@demo.test\r\nSubject: big\r\n\r\n".to_vec();
    let line = [b"Y".repeat(998), b"\r\n".to_vec()].concat();
    while raw.len() + line.len() <= MESSAGE {
        raw.extend_from_slice(&line);
    }
    let raw = Arc::new(raw);
    let (_, resident_before) = memory();

    let sends = (0..16).map(|_| {
        let raw = raw.clone();
        let addr = inbox.local_addr();
        tokio::spawn(async move { send_large(addr, "run-big@demo.test", &raw).await })
    });
    let replies: Vec<(u16, String)> = futures::future::join_all(sends)
        .await
        .into_iter()
        .map(|r| r.expect("a sender"))
        .collect();
    let (peak, _) = memory();
    let growth = peak.saturating_sub(resident_before);
    eprintln!(
        "16 x 23.5 MB at once: peak memory grew by {} MiB",
        growth >> 20
    );
    let accepted = replies.iter().filter(|(code, _)| *code == 250).count();
    let refused: Vec<&String> = replies
        .iter()
        .filter(|(code, _)| *code == 452)
        .map(|(_, text)| text)
        .collect();
    assert_eq!(accepted + refused.len(), 16, "{replies:?}");
    assert!(
        (1..=(CAP as usize / MESSAGE)).contains(&accepted),
        "{accepted} accepted"
    );
    assert!(
        refused[0].starts_with("4.3.1 this receiver already holds ")
            && refused[0].contains("64 MiB"),
        "{}",
        refused[0]
    );
    assert!(
        growth < CAP + 2 * MESSAGE as u64 + (32 << 20),
        "peak memory grew by {} MiB",
        growth >> 20
    );

    // Used mail lets go of its bytes; a closed run's mail is dropped. The accepted messages
    // are copies of one mail: the newest is taken and every copy is used with it.
    assert_eq!(inbox.held_bytes(), accepted * raw.len());
    let taken = wait_for_message(&mut *run, &ANY, &mut HashSet::new(), within(5.0))
        .await
        .unwrap();
    assert_eq!(taken.message.raw.len(), raw.len());
    assert_eq!(taken.older_copies, accepted - 1);
    let held = inbox.messages();
    assert_eq!(held.len(), accepted);
    assert!(
        held.iter().all(|m| m.raw.is_empty()),
        "the used messages' bytes are let go"
    );
    assert_eq!(inbox.held_bytes(), 0);
    // With room again, the next message is taken, and held until used.
    let (code, text) = send_large(inbox.local_addr(), "run-big@demo.test", &raw).await;
    assert_eq!(code, 250, "{text}");
    assert_eq!(inbox.held_bytes(), raw.len());
    drop(run);
    assert!(
        inbox.messages().is_empty(),
        "nothing is kept for a closed run"
    );
    assert_eq!(inbox.held_bytes(), 0);
    let mut c = SmtpClient::connect(inbox.local_addr()).await;
    assert_eq!(c.command("EHLO client.test").await.0, 250);
    assert_eq!(c.command("MAIL FROM:<big@shop.example>").await.0, 250);
    assert_eq!(
        c.command("RCPT TO:<run-big@demo.test>").await.0,
        550,
        "no run any more"
    );
}

#[tokio::test]
async fn a_declared_size_over_the_room_left_is_refused_before_the_transfer() {
    let inbox = SmtpInbox::start_with(
        "127.0.0.1:0".parse().unwrap(),
        "demo.test",
        SmtpOptions {
            max_held_bytes: 10_000,
            ..SmtpOptions::default()
        },
    )
    .await
    .unwrap();
    let _run = inbox.open("r").await.unwrap();
    let mut c = SmtpClient::connect(inbox.local_addr()).await;
    assert_eq!(c.command("EHLO client.test").await.0, 250);
    let (code, text) = c.command("MAIL FROM:<a@shop.example> SIZE=20000").await;
    assert_eq!(code, 452, "{text}");
    assert_eq!(
        text,
        "4.3.1 this receiver already holds 0 KiB of mail for runs that have not read it, and \
         holds at most 10 KiB: try again once they have (mail is let go when a run reads it or \
         closes its mailbox)"
    );
    assert_eq!(
        c.command("MAIL FROM:<a@shop.example> SIZE=2000").await.0,
        250
    );
}

#[tokio::test]
async fn the_receiver_listens_on_loopback_unless_allowed() {
    let Err(InboxError::Unreachable(text)) =
        SmtpInbox::start("0.0.0.0:0".parse().unwrap(), "demo.test").await
    else {
        panic!("0.0.0.0 would take mail from other machines");
    };
    assert_eq!(
        text,
        "the embedded SMTP receiver listens on loopback only (127.0.0.1 or ::1): 0.0.0.0:0 \
         would take mail from other machines; allow it explicitly (allow_remote=true in the \
         inbox URL)"
    );
    let Err(InboxError::InvalidUrl { given, problem }) =
        parse_binding("smtp://0.0.0.0:2525?domain=demo.test")
    else {
        panic!("refused by the parser");
    };
    assert_eq!(given, "smtp://0.0.0.0:2525?domain=demo.test");
    assert_eq!(
        problem.to_string(),
        "the embedded SMTP receiver listens on loopback only, and 0.0.0.0 would take mail from \
         other machines; to allow that, add &allow_remote=true (never possible through the HTTP \
         service)"
    );

    // Asked for explicitly, it listens on every address.
    let (_, url) = parse_binding("smtp://0.0.0.0:0?domain=demo.test&allow_remote=true").unwrap();
    let anywhere = connect(&url).await.expect("allowed");
    assert!(
        anywhere.describe().starts_with("smtp://0.0.0.0:"),
        "{}",
        anywhere.describe()
    );
    // The HTTP service never may.
    let Err(InboxError::InvalidUrl { problem, .. }) = parse_binding_as(
        "smtp://0.0.0.0:0?domain=demo.test&allow_remote=true",
        Caller::Service,
    ) else {
        panic!("refused for the service");
    };
    assert!(problem.to_string().contains("loopback only"), "{problem}");
}

/// SMTP smuggling: a message whose body holds `<LF>.<LF>` (or `<CR>.<CR>`) followed by a
/// second transaction. Only `<CRLF>.<CRLF>` ends DATA, so what follows the bare line end is
/// still the first message, and a message with a bare line end is refused whole: the second
/// "message from the shop" never reaches the run.
#[tokio::test]
async fn a_bare_line_end_never_ends_data_so_no_second_message_is_smuggled() {
    for bare in ["\n", "\r"] {
        let inbox = receiver().await;
        let _run = inbox.open("s1").await.unwrap();
        let mut c = SmtpClient::connect(inbox.local_addr()).await;
        assert_eq!(c.command("EHLO attacker.test").await.0, 250);
        assert_eq!(c.command("MAIL FROM:<news@attacker.test>").await.0, 250);
        assert_eq!(c.command("RCPT TO:<run-s1@demo.test>").await.0, 250);
        assert_eq!(c.command("DATA").await.0, 354);
        let smuggled = format!(
            "From: news@attacker.test\r\nTo: run-s1@demo.test\r\nSubject: Newsletter\r\n\r\n\
             hello{bare}.{bare}MAIL FROM:<noreply@shop.example>{bare}RCPT TO:<run-s1@demo.test>{bare}\
             DATA{bare}From: Shop <noreply@shop.example>{bare}To: run-s1@demo.test{bare}\
             Subject: Your code{bare}{bare}Your code is 999999{bare}.{bare}\r\n.\r\n"
        );
        c.send(smuggled.as_bytes()).await;
        let (code, text) = c.reply().await;
        assert_eq!(
            code, 550,
            "{bare:?}: the message with a bare line end is refused: {text}"
        );
        let held: Vec<String> = inbox.messages().iter().map(|m| m.subject.clone()).collect();
        assert!(
            held.is_empty(),
            "{bare:?}: nothing was queued, got {held:?}"
        );
        // The session goes on, and a well-formed message is taken.
        assert_eq!(c.command("MAIL FROM:<news@attacker.test>").await.0, 250);
        assert_eq!(c.command("RCPT TO:<run-s1@demo.test>").await.0, 250);
        let (code, text) = c
            .data(&message(
                "news@attacker.test",
                "run-s1@demo.test",
                "Well formed",
                "x",
            ))
            .await;
        assert_eq!(code, 250, "{text}");
        let held: Vec<String> = inbox.messages().iter().map(|m| m.subject.clone()).collect();
        assert_eq!(held, ["Well formed"]);
    }
}

/// A command line ends only with CRLF (RFC 5321 2.3.8, 4.1.1.4). A command ended by a bare LF,
/// or holding a bare CR, is refused and never carried out, and the connection is closed:
/// where the client meant its lines to end is no longer known.
#[tokio::test]
async fn a_command_ended_by_a_bare_lf_or_holding_a_bare_cr_is_refused() {
    for (line, bare) in [
        (&b"EHLO client.test\n"[..], "bare LF"),
        (
            b"MAIL FROM:<noreply@shop.example>\nRCPT TO:<run-c1@demo.test>\r\n",
            "bare LF",
        ),
        (b"NOOP\rMAIL FROM:<noreply@shop.example>\r\n", "bare CR"),
    ] {
        let inbox = receiver().await;
        let _run = inbox.open("c1").await.unwrap();
        let mut c = SmtpClient::connect(inbox.local_addr()).await;
        if !line.starts_with(b"EHLO") {
            assert_eq!(c.command("EHLO client.test").await.0, 250);
        }
        c.send(line).await;
        let (code, text) = c.reply().await;
        let shown = String::from_utf8_lossy(line);
        assert_eq!(code, 500, "{shown:?} is refused: {text}");
        assert!(text.contains(bare), "{shown:?}: {text}");
        assert!(c.closed().await, "{shown:?}: the connection is closed");
    }
}

/// Mail carries no NUL (MIME's 7bit and 8bit data allow none, RFC 2045 2.7 and 2.8): a
/// message holding one is refused whole, and the session goes on.
#[tokio::test]
async fn a_message_holding_a_nul_is_refused() {
    let inbox = receiver().await;
    let _run = inbox.open("n1").await.unwrap();
    let mut c = SmtpClient::connect(inbox.local_addr()).await;
    assert_eq!(c.command("EHLO client.test").await.0, 250);
    assert_eq!(c.command("MAIL FROM:<noreply@shop.example>").await.0, 250);
    assert_eq!(c.command("RCPT TO:<run-n1@demo.test>").await.0, 250);
    let raw = message(
        "noreply@shop.example",
        "run-n1@demo.test",
        "Your code",
        "Your code is 48\u{0}2913",
    );
    let (code, text) = c.data(&raw).await;
    assert_eq!(code, 550, "{text}");
    assert!(text.contains("NUL"), "{text}");
    assert!(inbox.messages().is_empty(), "nothing was queued");
    assert_eq!(c.command("NOOP").await.0, 250, "the session goes on");
}

/// 135 connections from one peer that say nothing must not keep a run's real mail out: they
/// are bounded per peer, and once idle a moment, one gives its slot to a new connection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_from_one_peer_do_not_keep_a_runs_mail_out() {
    let inbox = receiver().await;
    let addr = inbox.local_addr();
    let mut run = inbox.open("flood").await.unwrap();
    let mut idle = Vec::new();
    for _ in 0..135 {
        idle.push(tokio::net::TcpStream::connect(addr).await.expect("connect"));
    }
    // Two seconds without a word: idle, as a flood's connections are.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let mut greeting = String::new();
    let mut reader = tokio::io::BufReader::new(stream);
    tokio::time::timeout(
        Duration::from_secs(5),
        tokio::io::AsyncBufReadExt::read_line(&mut reader, &mut greeting),
    )
    .await
    .expect("a greeting within 5 s")
    .expect("read the greeting");
    assert!(
        greeting.starts_with("220 "),
        "the run's mailer is greeted, not turned away: {greeting:?}"
    );
    drop(reader);
    send_mail(
        addr,
        "noreply@shop.example",
        &["run-flood@demo.test"],
        &message(
            "noreply@shop.example",
            "run-flood@demo.test",
            "Your code",
            "482913",
        ),
    )
    .await;
    let found = next_mail(&mut *run, &ANY, &HashSet::new(), within(5.0))
        .await
        .expect("the real mail arrives");
    assert_eq!(found.subject, "Your code");
    drop(idle);
}

#[tokio::test]
async fn of_copies_of_one_mail_the_newest_is_taken_and_the_older_marked_used() {
    let inbox = receiver().await;
    let mut run = inbox.open("c1").await.unwrap();
    let to = "run-c1@demo.test";
    let send = |raw: Vec<u8>, from: &'static str| {
        let addr = inbox.local_addr();
        async move { send_mail(addr, from, &[to], &raw).await }
    };
    let shop = |subject: &str, body: &str| message("Shop <hello@shop.example>", to, subject, body);
    // The same mail three times (a site that sent it again), with another of the shop's
    // between them.
    send(shop("Your code", "111111"), "hello@shop.example").await;
    send(shop("Welcome", "hi"), "hello@shop.example").await;
    send(shop("Your code", "222222"), "hello@shop.example").await;
    send(shop("Your code", "333333"), "hello@shop.example").await;
    // Then an attacker's, newer still: the shop's name and subject from another address, and
    // the shop's address and subject with the receiving server's verdict that DMARC failed.
    let name_only = message("Shop <codes@evil.test>", to, "Your code", "999999");
    send(name_only, "codes@evil.test").await;
    let forged = format!(
        "Authentication-Results: mx.demo.test; dkim=none; dmarc=fail (p=reject) \
         header.from=shop.example\r\n{}",
        String::from_utf8(shop("Your code", "666666")).unwrap()
    );
    send(forged.into_bytes(), "hello@shop.example").await;

    let mut consumed = HashSet::new();
    let mut next = async || {
        wait_for_message(&mut *run, &ANY, &mut consumed, within(5.0))
            .await
            .expect("a message")
    };
    let body = |t: &planlock::inbox::Taken| String::from_utf8_lossy(&t.message.raw).into_owned();
    let taken = next().await;
    assert!(
        body(&taken).contains("333333"),
        "the newest of the shop's copies is taken, never an attacker's newer look-alike: {}",
        body(&taken)
    );
    assert_eq!(taken.older_copies, 2, "two older copies set aside");
    // What is left, oldest first: the other subject, then the two look-alikes, no copies.
    let welcome = next().await;
    assert_eq!(
        (welcome.message.subject.as_str(), welcome.older_copies),
        ("Welcome", 0)
    );
    let name_only = next().await;
    assert!(body(&name_only).contains("999999"), "{}", body(&name_only));
    let forged = next().await;
    assert!(body(&forged).contains("666666"), "{}", body(&forged));
    assert_eq!(
        name_only.older_copies + forged.older_copies,
        0,
        "neither is a copy"
    );
    assert_eq!(consumed.len(), 6, "every message used once: {consumed:?}");
    let none = wait_for_message(&mut *run, &ANY, &mut consumed, within(0.5)).await;
    assert!(none.is_err(), "no older copy is left to take: {none:?}");
}
