//! A raw SMTP client (RFC 5321, no TLS/auth) for sending mail to the embedded receiver, so
//! tests see exactly what goes over the wire.
#![allow(dead_code)]

use std::net::SocketAddr;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};

pub struct SmtpClient {
    reader: BufReader<OwnedReadHalf>,
    writer: OwnedWriteHalf,
}

/// One reply: the code and the text lines, joined with `\n`.
pub type Reply = (u16, String);

impl SmtpClient {
    /// Connects and reads the `220` greeting.
    pub async fn connect(addr: SocketAddr) -> SmtpClient {
        let stream = TcpStream::connect(addr).await.expect("connect to SMTP");
        stream.set_nodelay(true).unwrap();
        let (read, writer) = stream.into_split();
        let mut client = SmtpClient {
            reader: BufReader::new(read),
            writer,
        };
        let (code, text) = client.reply().await;
        assert_eq!(code, 220, "greeting: {text}");
        client
    }

    /// Sends one command line and reads its reply.
    pub async fn command(&mut self, line: &str) -> Reply {
        self.send(format!("{line}\r\n").as_bytes()).await;
        self.reply().await
    }

    pub async fn send(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).await.expect("write to SMTP");
    }

    /// Reads one (possibly multi-line) reply.
    pub async fn reply(&mut self) -> Reply {
        let mut lines = Vec::new();
        loop {
            let mut line = String::new();
            let n = self
                .reader
                .read_line(&mut line)
                .await
                .expect("read SMTP reply");
            assert!(
                n > 0,
                "SMTP server closed the connection; got so far: {lines:?}"
            );
            let line = line.trim_end();
            let code: u16 = line.get(..3).and_then(|c| c.parse().ok()).unwrap_or(0);
            lines.push(line.get(4..).unwrap_or("").to_string());
            if line.as_bytes().get(3) != Some(&b'-') {
                return (code, lines.join("\n"));
            }
        }
    }

    /// Whether the server closed the connection: the next read finds its end, not a reply.
    pub async fn closed(&mut self) -> bool {
        let mut rest = String::new();
        matches!(self.reader.read_line(&mut rest).await, Ok(0) | Err(_))
    }

    /// `DATA`, the dot-stuffed message, and the final `.`; returns the final reply.
    pub async fn data(&mut self, raw: &[u8]) -> Reply {
        let (code, text) = self.command("DATA").await;
        assert_eq!(code, 354, "DATA: {text}");
        let mut body = dot_stuff(raw);
        if !body.ends_with(b"\r\n") {
            body.extend_from_slice(b"\r\n");
        }
        body.extend_from_slice(b".\r\n");
        self.send(&body).await;
        self.reply().await
    }
}

/// One whole transaction: EHLO, MAIL, every RCPT, DATA, QUIT. Panics on any refusal.
pub async fn send_mail(addr: SocketAddr, from: &str, recipients: &[&str], raw: &[u8]) {
    let mut client = SmtpClient::connect(addr).await;
    let (code, text) = client.command("EHLO test.client").await;
    assert_eq!(code, 250, "EHLO: {text}");
    let (code, text) = client.command(&format!("MAIL FROM:<{from}>")).await;
    assert_eq!(code, 250, "MAIL: {text}");
    for rcpt in recipients {
        let (code, text) = client.command(&format!("RCPT TO:<{rcpt}>")).await;
        assert_eq!(code, 250, "RCPT {rcpt}: {text}");
    }
    let (code, text) = client.data(raw).await;
    assert_eq!(code, 250, "end of DATA: {text}");
    let (code, text) = client.command("QUIT").await;
    assert_eq!(code, 221, "QUIT: {text}");
}

/// RFC 5321 §4.5.2: a line that starts with `.` gets another `.`.
pub fn dot_stuff(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len() + 16);
    let mut at_line_start = true;
    for &b in raw {
        if at_line_start && b == b'.' {
            out.push(b'.');
        }
        out.push(b);
        at_line_start = b == b'\n';
    }
    out
}

/// A small well-formed message.
pub fn message(from: &str, to: &str, subject: &str, body: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nDate: Mon, 1 Jan 2024 00:00:00 +0000\r\n\
         Message-ID: <{}@test>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n",
        rand_id()
    )
    .into_bytes()
}

fn rand_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{nanos}.{}", N.fetch_add(1, Ordering::Relaxed))
}

/// planlock's SMTP receiver on a free loopback port for `inbox.test`, and the demo site's
/// mailer sending to it: what a test's mail-sending app and its run's inbox share.
pub async fn loopback_inbox() -> (
    std::sync::Arc<planlock::inbox::smtp::SmtpInbox>,
    std::sync::Arc<planlock::demo::SmtpMailer>,
) {
    let inbox = planlock::inbox::smtp::SmtpInbox::start(
        SocketAddr::from(([127, 0, 0, 1], 0)),
        "inbox.test",
    )
    .await
    .unwrap();
    let mailer = std::sync::Arc::new(planlock::demo::SmtpMailer::new(inbox.local_addr()));
    (inbox, mailer)
}

/// The message a wait for mail takes (the oldest match, or its newest copy), as the inbox tests
/// read it; `consumed` as the run left it before the wait.
pub async fn next_mail(
    run: &mut dyn planlock::inbox::RunMailbox,
    filter: &planlock::inbox::MailFilter,
    consumed: &std::collections::HashSet<String>,
    deadline: tokio::time::Instant,
) -> Result<planlock::inbox::Message, planlock::inbox::WaitError> {
    planlock::inbox::wait_for_message(run, filter, &mut consumed.clone(), deadline)
        .await
        .map(|taken| taken.message)
}
