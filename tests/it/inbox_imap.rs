//! The IMAP backend against a real Dovecot over real sockets: freshness, filters,
//! plus-addressing, refusals, restarts, timeouts and malformed mail.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use crate::util::dovecot::{Appender, Dovecot};
use crate::util::smtp::{message, next_mail};
use planlock::inbox::binding::DEFAULT_MAX_CONNECTIONS;
use planlock::inbox::{
    Inbox, InboxError, InboxUrl, MailFilter, Stage, WaitError, connect, parse_binding,
};
use tokio::time::Instant;

const ADDRESS: &str = "bob@demo.test";
/// No filter.
static ANY: MailFilter = MailFilter {
    from: None,
    subject: None,
};
static NONE: std::sync::LazyLock<HashSet<String>> = std::sync::LazyLock::new(HashSet::new);

async fn inbox(url: &str) -> Arc<dyn Inbox> {
    let (_, url) = parse_binding(url).expect("valid URL");
    assert!(matches!(url, InboxUrl::Imap(_)));
    connect(&url).await.expect("connect")
}

fn filter(from: Option<&str>, subject: Option<&str>) -> MailFilter {
    MailFilter {
        from: from.map(Into::into),
        subject: subject.map(Into::into),
    }
}

fn within(secs: f64) -> Instant {
    Instant::now() + Duration::from_secs_f64(secs)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mail_delivered_after_open_is_found() {
    let Some(dovecot) = Dovecot::start() else {
        return;
    };
    let inbox = inbox(&dovecot.url("address=bob@demo.test")).await;
    inbox.check().await.expect("check");
    let mut run = inbox.open("r1").await.expect("open");
    assert_eq!(run.address(), ADDRESS);

    let deliver = async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        dovecot
            .append(&message(
                "Shop <hello@shop.example>",
                ADDRESS,
                "Your code is 482913",
                "Use 482913 to sign in.",
            ))
            .await;
    };
    let (found, ()) = tokio::join!(next_mail(&mut *run, &ANY, &NONE, within(10.0)), deliver);
    let found = found.expect("the mail arrives");
    assert_eq!(found.subject, "Your code is 482913");
    assert_eq!(found.from, "Shop <hello@shop.example>");
    assert!(found.to.contains(&ADDRESS.to_string()));
    assert!(String::from_utf8_lossy(&found.raw).contains("Use 482913 to sign in."));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mail_from_before_open_is_never_returned() {
    let Some(dovecot) = Dovecot::start() else {
        return;
    };
    let inbox = inbox(&dovecot.url("address=bob@demo.test")).await;
    dovecot
        .append(&message(
            "hello@shop.example",
            ADDRESS,
            "Stale code 111111",
            "old",
        ))
        .await;
    let mut run = inbox.open("r1").await.expect("open");
    assert!(
        run.arrived().await.unwrap().is_empty(),
        "stale mail is not returned"
    );

    dovecot
        .append(&message(
            "hello@shop.example",
            ADDRESS,
            "Fresh code 222222",
            "new",
        ))
        .await;
    let found = next_mail(
        &mut *run,
        &MailFilter::default(),
        &HashSet::new(),
        within(10.0),
    )
    .await
    .expect("fresh mail");
    assert_eq!(found.subject, "Fresh code 222222");
    let all = run.arrived().await.unwrap();
    assert_eq!(all.len(), 1, "only the fresh message: {all:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn from_and_subject_filters_skip_a_decoy() {
    let Some(dovecot) = Dovecot::start() else {
        return;
    };
    let inbox = inbox(&dovecot.url("address=bob@demo.test")).await;
    let mut run = inbox.open("r1").await.expect("open");
    dovecot
        .append(&message(
            "news@other.example",
            ADDRESS,
            "Verify your account",
            "decoy",
        ))
        .await;
    dovecot
        .append(&message(
            "Shop <hello@shop.example>",
            ADDRESS,
            "Welcome!",
            "not it",
        ))
        .await;
    dovecot
        .append(&message(
            "Shop <hello@shop.example>",
            ADDRESS,
            "Please VERIFY your e-mail",
            "it",
        ))
        .await;

    let found = next_mail(
        &mut *run,
        &filter(Some("SHOP.example"), Some("verify")),
        &HashSet::new(),
        within(10.0),
    )
    .await
    .expect("the real one");
    assert_eq!(found.subject, "Please VERIFY your e-mail");

    // Consumed messages are skipped: the next wait for the same filter times out and says so.
    let consumed = HashSet::from([found.id.clone()]);
    let err = next_mail(
        &mut *run,
        &filter(Some("shop.example"), Some("verify")),
        &consumed,
        within(0.5),
    )
    .await
    .expect_err("nothing new");
    let text = planlock::runner::mail_wait_sentence(&err);
    assert!(
        text.contains("\"Please VERIFY your e-mail\" from Shop <hello@shop.example> (already used by an earlier step)"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plus_addressing_keeps_concurrent_runs_apart() {
    let Some(dovecot) = Dovecot::start() else {
        return;
    };
    let inbox = inbox(&dovecot.url("address=bob@demo.test&plus=true")).await;
    let mut r1 = inbox.open("r1").await.expect("open r1");
    let mut r10 = inbox.open("r10").await.expect("open r10");
    assert_eq!(r1.address(), "bob+r1@demo.test");
    assert_eq!(r10.address(), "bob+r10@demo.test");

    let deliver = async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        // r10's mail first: a prefix match would hand it to r1.
        dovecot
            .append(&message(
                "hello@shop.example",
                "bob+r10@demo.test",
                "code for r10",
                "10",
            ))
            .await;
        dovecot
            .append(&message(
                "hello@shop.example",
                "Bob+R1@Demo.test",
                "code for r1",
                "1",
            ))
            .await;
    };
    let (a, b, ()) = tokio::join!(
        next_mail(&mut *r1, &ANY, &NONE, within(10.0)),
        next_mail(&mut *r10, &ANY, &NONE, within(10.0)),
        deliver
    );
    assert_eq!(a.expect("r1").subject, "code for r1");
    assert_eq!(b.expect("r10").subject, "code for r10");
    let r1_all: Vec<String> = r1
        .arrived()
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.subject)
        .collect();
    let r10_all: Vec<String> = r10
        .arrived()
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.subject)
        .collect();
    assert_eq!(r1_all, ["code for r1"]);
    assert_eq!(r10_all, ["code for r10"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_runs_share_one_connection() {
    // Dovecot allows 10 connections per user and IP; twelve runs must still work.
    let Some(dovecot) = Dovecot::start() else {
        return;
    };
    let inbox = inbox(&dovecot.url("address=bob@demo.test&plus=true")).await;
    let mut runs = Vec::new();
    for i in 0..12 {
        runs.push(inbox.open(&format!("run{i}")).await.expect("open"));
    }
    for i in (0..12).rev() {
        dovecot
            .append(&message(
                "a@shop.example",
                &format!("bob+run{i}@demo.test"),
                &format!("for {i}"),
                "x",
            ))
            .await;
    }
    let waits = runs
        .iter_mut()
        .map(|run| next_mail(&mut **run, &ANY, &NONE, within(10.0)));
    let found = futures::future::join_all(waits).await;
    for (i, m) in found.into_iter().enumerate() {
        assert_eq!(
            m.expect("each run gets its mail").subject,
            format!("for {i}")
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_password_is_unreachable_before_any_wait() {
    let Some(dovecot) = Dovecot::start() else {
        return;
    };
    let inbox = inbox(&dovecot.url_with("bob", "wrong", "address=bob@demo.test")).await;
    let started = Instant::now();
    let Err(InboxError::Refused {
        stage: Stage::LogIn,
        server,
        said: text,
    }) = inbox.check().await
    else {
        panic!("a wrong password must fail the check");
    };
    let expected = format!(
        "cannot log in to imap://bob@127.0.0.1:{} as bob: [AUTHENTICATIONFAILED] Authentication failed.",
        dovecot.port()
    );
    assert_eq!(text, expected);
    assert_eq!(server, format!("imap://bob@127.0.0.1:{}", dovecot.port()));
    assert!(!text.contains("wrong"), "the password is never shown");
    let Err(InboxError::Refused {
        stage: Stage::LogIn,
        said: text,
        ..
    }) = inbox.open("r1").await
    else {
        panic!("open must fail too");
    };
    assert_eq!(text, expected);
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_mailbox_is_unreachable() {
    let Some(dovecot) = Dovecot::start() else {
        return;
    };
    let url = dovecot
        .url("address=bob@demo.test")
        .replace("/INBOX", "/Nope");
    let inbox = inbox(&url).await;
    let Err(InboxError::Refused {
        stage: Stage::Select,
        said: text,
        ..
    }) = inbox.check().await
    else {
        panic!("a missing mailbox must fail the check");
    };
    assert!(
        text.starts_with(&format!(
            "logged in to imap://bob@127.0.0.1:{} as bob, but cannot open mailbox \"Nope\": ",
            dovecot.port()
        )),
        "{text}"
    );
}

#[tokio::test]
async fn closed_port_is_unreachable_with_a_sentence() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let inbox = inbox(&format!(
        "imap://bob:pw@127.0.0.1:{port}/INBOX?address=bob@demo.test"
    ))
    .await;
    let Err(InboxError::Refused {
        stage: Stage::Connect,
        said: text,
        ..
    }) = inbox.check().await
    else {
        panic!("nothing listens there");
    };
    assert!(
        text.starts_with(&format!("cannot connect to imap://bob@127.0.0.1:{port}: ")),
        "{text}"
    );
    assert!(text.contains("is the IMAP server running"), "{text}");
    assert!(inbox.open("r1").await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wait_survives_a_server_restart() {
    let Some(dovecot) = Dovecot::start() else {
        return;
    };
    let dovecot = Arc::new(dovecot);
    let inbox = inbox(&dovecot.url("address=bob@demo.test")).await;
    let mut run = inbox.open("r1").await.expect("open");
    dovecot
        .append(&message(
            "x@shop.example",
            "someone-else@demo.test",
            "not for us",
            "x",
        ))
        .await;

    let server = dovecot.clone();
    let restart_then_deliver = async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let s = server.clone();
        tokio::task::spawn_blocking(move || s.stop()).await.unwrap();
        // Long enough for the watcher to notice and fail a few reconnects.
        tokio::time::sleep(Duration::from_millis(700)).await;
        let s = server.clone();
        tokio::task::spawn_blocking(move || s.start_again())
            .await
            .unwrap();
        server
            .append(&message(
                "hello@shop.example",
                ADDRESS,
                "after the restart",
                "x",
            ))
            .await;
    };
    let (found, ()) = tokio::join!(
        next_mail(&mut *run, &ANY, &NONE, within(20.0)),
        restart_then_deliver
    );
    assert_eq!(
        found.expect("caught after restart").subject,
        "after the restart"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_stays_down_fails_the_wait_naming_the_error() {
    let Some(dovecot) = Dovecot::start() else {
        return;
    };
    let inbox = inbox(&dovecot.url("address=bob@demo.test")).await;
    let mut run = inbox.open("r1").await.expect("open");
    dovecot.stop();
    let err = next_mail(
        &mut *run,
        &MailFilter::default(),
        &HashSet::new(),
        within(1.5),
    )
    .await
    .expect_err("server is down");
    assert!(matches!(err, WaitError::Unreachable { .. }), "{err:?}");
    let text = planlock::runner::mail_wait_sentence(&err);
    assert!(
        text.starts_with("could not read the inbox for bob@demo.test within 1.5 s: "),
        "{text}"
    );
    assert!(
        text.contains(&format!("127.0.0.1:{}", dovecot.port())),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mail_that_never_comes_times_out_listing_what_arrived() {
    let Some(dovecot) = Dovecot::start() else {
        return;
    };
    let inbox = inbox(&dovecot.url("address=bob@demo.test")).await;
    let mut run = inbox.open("ab12").await.expect("open");

    let err = next_mail(
        &mut *run,
        &filter(Some("shop.example"), None),
        &HashSet::new(),
        within(1.0),
    )
    .await
    .expect_err("nothing arrives");
    assert_eq!(
        planlock::runner::mail_wait_sentence(&err),
        "no email at all arrived for bob@demo.test within 1 s"
    );

    dovecot
        .append(&message("news@shop.example", ADDRESS, "Welcome!", "x"))
        .await;
    dovecot
        .append(&message(
            "Bank <alerts@bank.example>",
            ADDRESS,
            "Statement",
            "x",
        ))
        .await;
    let err = next_mail(
        &mut *run,
        &filter(Some("shop.example"), Some("verify")),
        &HashSet::new(),
        within(1.0),
    )
    .await
    .expect_err("no match");
    assert!(err.is_timeout());
    assert_eq!(
        planlock::runner::mail_wait_sentence(&err),
        "no email to bob@demo.test from \"shop.example\" with subject containing \"verify\" arrived \
         within 1 s; 2 other messages arrived: \"Welcome!\" from news@shop.example (subject does \
         not match), \"Statement\" from Bank <alerts@bank.example> (neither sender nor subject match)"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_push_works_when_polling_is_slow() {
    // poll_ms=60000: only IDLE can deliver this within the deadline.
    let Some(dovecot) = Dovecot::start() else {
        return;
    };
    let inbox = inbox(&dovecot.url("address=bob@demo.test&poll_ms=60000")).await;
    let mut run = inbox.open("r1").await.expect("open");
    let deliver = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        dovecot
            .append(&message("hello@shop.example", ADDRESS, "pushed", "x"))
            .await;
    };
    let started = Instant::now();
    let (found, ()) = tokio::join!(next_mail(&mut *run, &ANY, &NONE, within(10.0)), deliver);
    assert_eq!(found.expect("IDLE push").subject, "pushed");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_mime_never_panics() {
    let Some(dovecot) = Dovecot::start() else {
        return;
    };
    let inbox = inbox(&dovecot.url("address=bob@demo.test")).await;
    let mut run = inbox.open("r1").await.expect("open");
    let junk: [&[u8]; 4] = [
        b"To: bob@demo.test\r\nSubject: =?utf-8?B?!!!notbase64?=\r\nContent-Type: multipart/mixed; boundary=\"\"\r\n\r\n--\r\n--\r\n--\r\n",
        b"To: bob@demo.test\r\nFrom: <<<@@@>>>, \"unterminated\r\nContent-Type: multipart/alternative; boundary=x\r\n\r\n--x\r\nContent-Type: message/rfc822\r\n\r\n--x\r\nContent-Transfer-Encoding: base64\r\n\r\n@@@@\r\n",
        b"To: bob@demo.test\r\nSubject: \xff\xfe\xc3\x28 latin1 \xe9\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n=ZZ=\r\n=",
        b"\x00\x01\x02 not a header at all\r\n\r\nTo: bob@demo.test\r\n",
    ];
    for raw in junk {
        dovecot.append(raw).await;
    }
    dovecot
        .append(&message("hello@shop.example", ADDRESS, "the good one", "x"))
        .await;
    let found = next_mail(
        &mut *run,
        &filter(None, Some("good one")),
        &HashSet::new(),
        within(10.0),
    )
    .await
    .expect("the good one");
    assert_eq!(found.subject, "the good one");
    // The three junk messages addressed to us are returned (not dropped, not panicking).
    let all = run.arrived().await.unwrap();
    assert_eq!(
        all.len(),
        4,
        "{:?}",
        all.iter().map(|m| &m.subject).collect::<Vec<_>>()
    );
}

#[tokio::test]
async fn imaps_to_a_server_without_tls_fails_with_a_sentence() {
    // A plain-text IMAP greeting where a TLS handshake is expected.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            use tokio::io::AsyncWriteExt;
            let _ = socket
                .write_all(b"* OK [CAPABILITY IMAP4rev1] plain\r\n")
                .await;
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    });
    let url = format!("imaps://bob:pw@localhost:{port}/INBOX?address=bob@demo.test");
    let Err(InboxError::Refused {
        stage: Stage::Connect,
        said: text,
        ..
    }) = inbox(&url).await.check().await
    else {
        panic!("no TLS there");
    };
    assert!(
        text.starts_with(&format!(
            "cannot connect to imaps://bob@localhost:{port}: TLS handshake failed: "
        )),
        "{text}"
    );
}

/// A loopback server that sends `greeting` to every client, then keeps the socket open.
async fn fake_server(greeting: Vec<u8>) -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let greeting = greeting.clone();
            tokio::spawn(async move {
                use tokio::io::AsyncWriteExt;
                let _ = socket.write_all(&greeting).await;
                tokio::time::sleep(Duration::from_secs(5)).await;
            });
        }
    });
    port
}

#[tokio::test]
async fn a_garbage_greeting_is_a_short_sentence() {
    let mut http = b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/html\r\n\r\n".to_vec();
    http.extend(std::iter::repeat_n(b'x', 20_000));
    let mut noise: Vec<u8> = (0..20_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    noise.retain(|b| *b != b'\n');
    let cases: [(Vec<u8>, &str); 3] = [
        (http, "\"HTTP/1.1 400 Bad Request\""),
        (noise, "\""),
        (
            b"220 mail.example ESMTP ready\r\n".to_vec(),
            "\"220 mail.example ESMTP ready\"",
        ),
    ];
    for (greeting, shown) in cases {
        let port = fake_server(greeting).await;
        let url = format!("imap://bob:pw@127.0.0.1:{port}/INBOX?address=bob@demo.test");
        let Err(InboxError::Refused {
            stage: Stage::Connect,
            said: text,
            ..
        }) = inbox(&url).await.check().await
        else {
            panic!("not an IMAP server");
        };
        let prefix = format!(
            "cannot connect to imap://bob@127.0.0.1:{port}: expected an IMAP greeting (\"* OK ...\") \
             but the server sent "
        );
        assert!(text.starts_with(&prefix), "{text}");
        assert!(text[prefix.len()..].starts_with(shown), "{text}");
        assert!(text.len() < 300, "{} chars: {text}", text.len());
        assert!(
            text.chars().all(|c| !c.is_control()),
            "printable only: {text:?}"
        );
    }
}

/// One request's use of an inbox, as the service does it: bind the URL, check it, open the
/// run's view, receive one message, drop everything.
async fn one_run(url: &str, run_id: &str, appender: &tokio::sync::Mutex<Appender>) {
    let inbox = inbox(url).await;
    inbox
        .check()
        .await
        .unwrap_or_else(|e| panic!("check for {run_id}: {e}"));
    let mut run = inbox
        .open(run_id)
        .await
        .unwrap_or_else(|e| panic!("open for {run_id}: {e}"));
    let subject = format!("code for {run_id}");
    let raw = message("hello@shop.example", run.address(), &subject, "x");
    appender.lock().await.append(&raw).await;
    let found = next_mail(&mut *run, &ANY, &NONE, within(20.0))
        .await
        .unwrap_or_else(|e| panic!("wait for {run_id}: {e:?}"));
    assert_eq!(found.subject, subject);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_one_after_another_and_at_once_stay_within_the_connection_bound() {
    // Dovecot's default limit is 10 connections per user and IP. Requests that each bind the
    // inbox anew must reuse one connection, not leave one behind per run.
    let Some(dovecot) = Dovecot::start() else {
        return;
    };
    let url = dovecot.url("address=bob@demo.test&plus=true");
    let appender = dovecot.appender().await;
    let watch = dovecot.watch_connections(&[appender.local_port()]);
    let appender = Arc::new(tokio::sync::Mutex::new(appender));
    for i in 0..50 {
        one_run(&url, &format!("seq{i}"), &appender).await;
    }
    let at_once = (0..16).map(|i| {
        let url = url.clone();
        let appender = appender.clone();
        tokio::spawn(async move { one_run(&url, &format!("par{i}"), &appender).await })
    });
    for run in futures::future::join_all(at_once).await {
        run.expect("a concurrent run");
    }
    let peak = watch.stop();
    eprintln!("66 runs: {peak:?}");
    assert!(peak.samples > 10, "the sampler ran: {peak:?}");
    assert!(
        !peak.connections.is_empty() && peak.connections.len() <= DEFAULT_MAX_CONNECTIONS,
        "at most {DEFAULT_MAX_CONNECTIONS} connections at once: {peak:?}\n{}",
        dovecot.log()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_connection_outlives_the_run_and_check_reuses_it() {
    let Some(dovecot) = Dovecot::start() else {
        return;
    };
    let url = dovecot.url("address=bob@demo.test&plus=true");
    let first = inbox(&url).await;
    first.check().await.expect("check");
    let mut run = first.open("a").await.expect("open");
    let live = dovecot.established();
    assert_eq!(live.len(), 1, "one connection: {live:?}");
    for _ in 0..5 {
        first.check().await.expect("check again");
    }
    dovecot
        .append(&message(
            "hello@shop.example",
            "bob+a@demo.test",
            "for a",
            "x",
        ))
        .await;
    next_mail(&mut *run, &ANY, &NONE, within(10.0))
        .await
        .expect("mail for a");
    drop(run);
    drop(first);

    // The next request binds the URL anew: same connection (same client port), no new one.
    let second = inbox(&url).await;
    second.check().await.expect("check");
    let _run = second.open("b").await.expect("open");
    assert_eq!(
        dovecot.established(),
        live,
        "the next run reuses the connection\n{}",
        dovecot.log()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mailbox_waits_in_line_when_the_account_has_no_connection_left() {
    // max_connections=1: a second folder of the same account gets the one connection only
    // when the first folder's run ends, and the first gives it up at once.
    let Some(dovecot) = Dovecot::start() else {
        return;
    };
    dovecot.create_mailbox("Codes").await;
    let inbox_url = dovecot.url("address=bob@demo.test&max_connections=1");
    let codes_url = inbox_url.replace("/INBOX?", "/Codes?");
    let watch = dovecot.watch_connections(&[]);
    let first = inbox(&inbox_url).await;
    let run = first.open("a").await.expect("open INBOX");
    let codes = inbox(&codes_url).await;
    let started = Instant::now();
    let waiting = tokio::spawn(async move {
        let run = codes.open("b").await;
        (run.map(|_| ()), Instant::now())
    });
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert!(
        !waiting.is_finished(),
        "Codes waits while INBOX's run is open"
    );
    let released = Instant::now();
    drop(run);
    let (opened, at) = waiting.await.unwrap();
    opened.expect("Codes opens once the connection is free");
    assert!(at >= released && at - started < Duration::from_secs(10));
    let peak = watch.stop();
    assert_eq!(peak.connections.len(), 1, "never two at once: {peak:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kept_connection_the_server_dropped_is_replaced_without_an_error() {
    // Between two requests the server restarts: the connection kept for the next run is
    // dead, and the next request must not fail because of it.
    let Some(dovecot) = Dovecot::start() else {
        return;
    };
    let dovecot = Arc::new(dovecot);
    let url = dovecot.url("address=bob@demo.test");
    let first = inbox(&url).await;
    first.check().await.expect("check");
    drop(first);
    let server = dovecot.clone();
    tokio::task::spawn_blocking(move || server.restart())
        .await
        .unwrap();
    let second = inbox(&url).await;
    second
        .check()
        .await
        .expect("a fresh connection replaces the dead one");
    let mut run = second.open("r").await.expect("open");
    dovecot
        .append(&message(
            "hello@shop.example",
            ADDRESS,
            "after restart",
            "x",
        ))
        .await;
    let found = next_mail(&mut *run, &ANY, &NONE, within(10.0))
        .await
        .expect("mail");
    assert_eq!(found.subject, "after restart");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pinned_addresses_are_connected_to_instead_of_resolving_the_name_again() {
    let Some(dovecot) = Dovecot::start() else {
        return;
    };
    // `.invalid` never resolves: only the pinned address can reach the server.
    let url = dovecot
        .url("address=bob@demo.test")
        .replace("127.0.0.1", "mail.invalid");
    let (_, InboxUrl::Imap(mut imap)) = parse_binding(&url).expect("valid URL") else {
        panic!("not an IMAP URL")
    };
    let unpinned = connect(&InboxUrl::Imap(imap.clone())).await.unwrap();
    let err = unpinned
        .check()
        .await
        .expect_err("the name does not resolve");
    assert!(err.to_string().contains("mail.invalid"), "{err}");
    imap.connect_to = vec![std::net::Ipv4Addr::LOCALHOST.into()];
    let pinned = connect(&InboxUrl::Imap(imap)).await.unwrap();
    pinned
        .check()
        .await
        .expect("connected to the pinned address");
}
