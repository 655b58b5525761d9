//! Embedded SMTP receiver: the app under test sends mail to planlock itself, each run at
//! `run-RUNID@DOMAIN`; messages live in memory and wake waiting steps at once.
//!
//! Why not a crate: `mailin-embedded` (the maintained embeddable server) is blocking and
//! thread-per-connection, and its `serve()` never returns — no shutdown, no port-0 address
//! reporting, no async hand-off to waiting steps. What is needed here is a small subset of
//! RFC 5321 (EHLO/HELO, MAIL, RCPT, DATA with dot-unstuffing, RSET, NOOP, QUIT, 8BITMIME,
//! SIZE, PIPELINING; no relay, no auth), which is ~300 lines on tokio and fully under test.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use chrono::Utc;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinHandle;
use tokio::time::{Instant, timeout};

use super::message::{is_addressed_to, parse_message};
use super::{Inbox, InboxError, Message, RunMailbox};

/// Messages kept in memory; older ones are dropped first.
pub const MAX_STORED_MESSAGES: usize = 1000;
/// Largest message accepted (advertised with `SIZE`).
pub const MAX_MESSAGE_BYTES: usize = 25 * 1024 * 1024;
/// Recipients per transaction (RFC 5321 §4.5.3.1.8 asks for at least 100).
const MAX_RECIPIENTS: usize = 100;
/// Simultaneous client connections.
const MAX_CONNECTIONS: usize = 128;
/// A command line longer than this is refused (RFC 5321 requires 512; be generous).
const MAX_COMMAND_LINE: u64 = 4096;
/// RFC 5321 §4.5.3.2: a server should wait at least 5 minutes for the next command.
const IDLE_TIMEOUT: Duration = Duration::from_secs(300);

/// The embedded receiver. Dropping it stops accepting connections.
pub struct SmtpInbox {
    local_addr: SocketAddr,
    domain: String,
    store: Arc<Store>,
    acceptor: JoinHandle<()>,
}

/// Delivered messages, oldest first, each with its sequence number.
struct Store {
    messages: Mutex<StoreState>,
    /// The sequence number of the latest delivery; waiters watch it.
    delivered: watch::Sender<u64>,
}

#[derive(Default)]
struct StoreState {
    next_seq: u64,
    messages: VecDeque<(u64, Message)>,
}

impl Store {
    fn deliver(&self, raw: Vec<u8>, recipients: &[String]) -> u64 {
        let seq = {
            let mut state = self.messages.lock().unwrap_or_else(|e| e.into_inner());
            state.next_seq += 1;
            let seq = state.next_seq;
            let message = parse_message(seq.to_string(), raw, Utc::now(), recipients);
            state.messages.push_back((seq, message));
            while state.messages.len() > MAX_STORED_MESSAGES {
                state.messages.pop_front();
            }
            seq
        };
        self.delivered.send_replace(seq);
        seq
    }

    fn last_seq(&self) -> u64 {
        self.messages
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .next_seq
    }
}

impl SmtpInbox {
    /// Binds `addr` (port 0 picks a free port) and starts accepting mail for `domain`.
    pub async fn start(addr: SocketAddr, domain: &str) -> Result<Arc<SmtpInbox>, InboxError> {
        let listener = TcpListener::bind(addr).await.map_err(|e| {
            InboxError::Unreachable(format!(
                "cannot start the embedded SMTP receiver on {addr}: {e}{}",
                if e.kind() == std::io::ErrorKind::AddrInUse {
                    " (another program uses that port; pick another, or port 0 for any free one)"
                } else {
                    ""
                }
            ))
        })?;
        let local_addr = listener.local_addr().map_err(|e| {
            InboxError::Unreachable(format!("the embedded SMTP receiver on {addr}: {e}"))
        })?;
        let domain = domain.trim().to_lowercase();
        let store = Arc::new(Store {
            messages: Mutex::new(StoreState::default()),
            delivered: watch::Sender::new(0),
        });
        let acceptor = tokio::spawn(accept_loop(listener, store.clone(), domain.clone()));
        tracing::debug!(%local_addr, %domain, "embedded SMTP receiver listening");
        Ok(Arc::new(SmtpInbox {
            local_addr,
            domain,
            store,
            acceptor,
        }))
    }

    /// Where the receiver listens; point the app under test's SMTP settings here.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    pub fn domain(&self) -> &str {
        &self.domain
    }

    /// The address a run with this id receives mail at.
    pub fn run_address(&self, run_id: &str) -> String {
        format!("run-{}@{}", run_id.to_lowercase(), self.domain)
    }

    /// Every message received so far (at most [`MAX_STORED_MESSAGES`]), oldest first.
    pub fn messages(&self) -> Vec<Message> {
        let state = self
            .store
            .messages
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        state.messages.iter().map(|(_, m)| m.clone()).collect()
    }
}

impl Drop for SmtpInbox {
    fn drop(&mut self) {
        self.acceptor.abort();
    }
}

#[async_trait]
impl Inbox for SmtpInbox {
    async fn check(&self) -> Result<(), InboxError> {
        if self.acceptor.is_finished() {
            return Err(InboxError::Unreachable(format!(
                "the embedded SMTP receiver on {} has stopped",
                self.local_addr
            )));
        }
        Ok(())
    }

    async fn open(&self, run_id: &str) -> Result<Box<dyn RunMailbox>, InboxError> {
        // Subscribe before reading the watermark, so a delivery in between still wakes us.
        let delivered = self.store.delivered.subscribe();
        let after = self.store.last_seq();
        Ok(Box::new(SmtpRunMailbox {
            store: self.store.clone(),
            address: self.run_address(run_id),
            after,
            delivered,
        }))
    }

    fn describe(&self) -> String {
        format!(
            "smtp://{}?domain={} (embedded receiver)",
            self.local_addr, self.domain
        )
    }
}

struct SmtpRunMailbox {
    store: Arc<Store>,
    address: String,
    /// Messages with a sequence number above this arrived after `open`.
    after: u64,
    delivered: watch::Receiver<u64>,
}

#[async_trait]
impl RunMailbox for SmtpRunMailbox {
    fn address(&self) -> &str {
        &self.address
    }

    async fn arrived(&mut self) -> Result<Vec<Message>, InboxError> {
        // Mark as seen first: a delivery after this line makes `changed` return at once.
        self.delivered.borrow_and_update();
        let state = self
            .store
            .messages
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        Ok(state
            .messages
            .iter()
            .filter(|(seq, m)| *seq > self.after && is_addressed_to(m, &self.address))
            .map(|(_, m)| m.clone())
            .collect())
    }

    async fn changed(&mut self, until: Instant) -> Result<(), InboxError> {
        tokio::select! {
            // The sender lives in the store we hold, so this never reports a closed channel.
            _ = self.delivered.changed() => {}
            _ = tokio::time::sleep_until(until) => {}
        }
        Ok(())
    }
}

async fn accept_loop(listener: TcpListener, store: Arc<Store>, domain: String) {
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    loop {
        let (mut stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                // Usually EMFILE: back off instead of spinning.
                tracing::warn!("embedded SMTP receiver: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            let _ = stream
                .write_all(b"421 4.3.2 too many connections, try again later\r\n")
                .await;
            continue;
        };
        let store = store.clone();
        let domain = domain.clone();
        tokio::spawn(async move {
            if let Err(e) = serve_session(stream, &store, &domain).await {
                tracing::debug!(%peer, "SMTP session ended: {e}");
            }
            drop(slot);
        });
    }
}

/// The state of one SMTP transaction (RFC 5321 §3.3).
#[derive(Default)]
struct Transaction {
    greeted: bool,
    mail_from: Option<String>,
    recipients: Vec<String>,
}

impl Transaction {
    fn reset(&mut self) {
        self.mail_from = None;
        self.recipients.clear();
    }
}

async fn serve_session(stream: TcpStream, store: &Store, domain: &str) -> std::io::Result<()> {
    let _ = stream.set_nodelay(true);
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    write
        .write_all(format!("220 {domain} ESMTP planlock receiver ready\r\n").as_bytes())
        .await?;
    let mut tx = Transaction::default();
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = timeout(
            IDLE_TIMEOUT,
            (&mut reader)
                .take(MAX_COMMAND_LINE)
                .read_until(b'\n', &mut line),
        )
        .await
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::TimedOut, "idle timeout"))??;
        if n == 0 {
            return Ok(());
        }
        if !line.ends_with(b"\n") {
            write
                .write_all(b"500 5.5.2 line too long, closing\r\n")
                .await?;
            return Ok(());
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        let (verb, arg) = match text.split_once(' ') {
            Some((v, a)) => (v.to_ascii_uppercase(), a.trim()),
            None => (text.to_ascii_uppercase(), ""),
        };
        let reply: String = match verb.as_str() {
            "EHLO" | "HELO" if arg.is_empty() => {
                "501 5.5.4 say who you are: EHLO your.host.name".into()
            }
            "EHLO" => {
                tx.reset();
                tx.greeted = true;
                format!(
                    "250-{domain} hello {arg}\r\n250-8BITMIME\r\n250-SMTPUTF8\r\n250-PIPELINING\r\n\
                     250-ENHANCEDSTATUSCODES\r\n250 SIZE {MAX_MESSAGE_BYTES}"
                )
            }
            "HELO" => {
                tx.reset();
                tx.greeted = true;
                format!("250 {domain} hello {arg}")
            }
            "MAIL" => mail_from(&mut tx, arg),
            "RCPT" => rcpt_to(&mut tx, arg),
            "DATA" if !arg.is_empty() => "501 5.5.4 DATA takes no argument".into(),
            "DATA" if tx.mail_from.is_none() => "503 5.5.1 send MAIL FROM first".into(),
            "DATA" if tx.recipients.is_empty() => "503 5.5.1 send RCPT TO first".into(),
            "DATA" => {
                write
                    .write_all(b"354 end data with <CR><LF>.<CR><LF>\r\n")
                    .await?;
                let reply = match read_data(&mut reader).await? {
                    Some(raw) => {
                        let seq = store.deliver(raw, &tx.recipients);
                        format!("250 2.0.0 OK queued as {seq}")
                    }
                    None => format!("552 5.3.4 message exceeds {MAX_MESSAGE_BYTES} bytes"),
                };
                tx.reset();
                reply
            }
            "RSET" => {
                tx.reset();
                "250 2.0.0 OK".into()
            }
            "NOOP" => "250 2.0.0 OK".into(),
            "QUIT" => {
                write.write_all(b"221 2.0.0 bye\r\n").await?;
                return Ok(());
            }
            "VRFY" => "252 2.5.0 cannot VRFY, but will accept the message".into(),
            "HELP" => "214 2.0.0 EHLO HELO MAIL RCPT DATA RSET NOOP QUIT".into(),
            "STARTTLS" | "AUTH" | "EXPN" | "TURN" | "ETRN" | "BDAT" => {
                format!("502 5.5.1 {verb} is not supported by this receiver")
            }
            _ => "500 5.5.2 command not recognised".into(),
        };
        // One write per reply: two small writes meet Nagle and delayed ACK (40 ms each).
        write.write_all(format!("{reply}\r\n").as_bytes()).await?;
    }
}

fn mail_from(tx: &mut Transaction, arg: &str) -> String {
    if !tx.greeted {
        return "503 5.5.1 send EHLO or HELO first".into();
    }
    if tx.mail_from.is_some() {
        return "503 5.5.1 nested MAIL command".into();
    }
    let Some((path, params)) = path_argument(arg, "FROM:") else {
        return "501 5.5.4 syntax: MAIL FROM:<address>".into();
    };
    for param in params.split_whitespace() {
        let (key, value) = param.split_once('=').unwrap_or((param, ""));
        match key.to_ascii_uppercase().as_str() {
            "SIZE" => match value.parse::<usize>() {
                Ok(size) if size > MAX_MESSAGE_BYTES => {
                    return format!("552 5.3.4 message size exceeds {MAX_MESSAGE_BYTES} bytes");
                }
                Ok(_) => {}
                Err(_) => return "501 5.5.4 SIZE needs a number".into(),
            },
            "BODY" | "SMTPUTF8" => {}
            _ => return format!("555 5.5.4 parameter {key} is not supported"),
        }
    }
    tx.mail_from = Some(path);
    "250 2.1.0 OK".into()
}

fn rcpt_to(tx: &mut Transaction, arg: &str) -> String {
    if tx.mail_from.is_none() {
        return "503 5.5.1 send MAIL FROM first".into();
    }
    let Some((path, _params)) = path_argument(arg, "TO:") else {
        return "501 5.5.4 syntax: RCPT TO:<address>".into();
    };
    if !path.contains('@') && !path.eq_ignore_ascii_case("postmaster") {
        return "501 5.1.3 a recipient needs the form local@domain".into();
    }
    if tx.recipients.len() >= MAX_RECIPIENTS {
        return "452 4.5.3 too many recipients".into();
    }
    tx.recipients.push(path.to_lowercase());
    "250 2.1.5 OK".into()
}

/// Splits `FROM:<a@b> BODY=8BITMIME` into the path (without brackets and source route)
/// and the parameters. Tolerates a space after the colon and a missing bracket pair.
fn path_argument<'a>(arg: &'a str, keyword: &str) -> Option<(String, &'a str)> {
    if arg.len() < keyword.len() || !arg[..keyword.len()].eq_ignore_ascii_case(keyword) {
        return None;
    }
    let rest = arg[keyword.len()..].trim_start();
    let (path, params) = if let Some(inner) = rest.strip_prefix('<') {
        let close = inner.find('>')?;
        (&inner[..close], &inner[close + 1..])
    } else {
        rest.split_once(' ').unwrap_or((rest, ""))
    };
    // A source route `@a,@b:user@host` names relays, which mean nothing here.
    let path = path.rsplit_once(':').map_or(path, |(_, p)| p);
    if path
        .chars()
        .any(|c| c.is_whitespace() || c == '<' || c == '>')
    {
        return None;
    }
    Some((path.to_string(), params.trim()))
}

/// Reads a DATA body up to the lone `.` line, undoing dot-stuffing (RFC 5321 §4.5.2).
/// Returns `None` when the message was too large (it is still read to the end).
async fn read_data<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
) -> std::io::Result<Option<Vec<u8>>> {
    let mut raw = Vec::new();
    let mut too_large = false;
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = timeout(IDLE_TIMEOUT * 2, reader.read_until(b'\n', &mut line))
            .await
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::TimedOut, "DATA timeout"))??;
        if n == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "connection closed during DATA",
            ));
        }
        if line == b".\r\n" || line == b".\n" {
            return Ok((!too_large).then_some(raw));
        }
        let content = if line.starts_with(b".") {
            &line[1..]
        } else {
            &line[..]
        };
        if raw.len() + content.len() > MAX_MESSAGE_BYTES {
            too_large = true;
            raw = Vec::new();
        }
        if !too_large {
            raw.extend_from_slice(content);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_arguments() {
        assert_eq!(
            path_argument("FROM:<a@b.test> BODY=8BITMIME", "FROM:"),
            Some(("a@b.test".into(), "BODY=8BITMIME"))
        );
        assert_eq!(
            path_argument("from: <>", "FROM:"),
            Some((String::new(), ""))
        );
        assert_eq!(
            path_argument("TO:<@relay.test:Run-1@D.test>", "TO:"),
            Some(("Run-1@D.test".into(), ""))
        );
        assert_eq!(
            path_argument("TO:x@y.test", "TO:"),
            Some(("x@y.test".into(), ""))
        );
        assert_eq!(path_argument("TO:<x@y", "TO:"), None);
        assert_eq!(path_argument("FROM <a@b>", "FROM:"), None);
    }

    #[tokio::test]
    async fn data_is_dot_unstuffed_and_ends_at_the_lone_dot() {
        let input: &[u8] = b"Subject: x\r\n\r\n..leading dot\r\n.\r\nafter\r\n";
        let mut reader = BufReader::new(input);
        let raw = read_data(&mut reader).await.unwrap().unwrap();
        assert_eq!(raw, b"Subject: x\r\n\r\n.leading dot\r\n");
    }
}
