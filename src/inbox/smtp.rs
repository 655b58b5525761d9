//! Embedded SMTP receiver: the app under test sends mail to planlock itself, each run at
//! `run-RUNID@DOMAIN`; messages live in memory and wake waiting steps at once.
//!
//! Why not a crate: `mailin-embedded` (the maintained embeddable server) is blocking and
//! thread-per-connection, and its `serve()` never returns — no shutdown, no port-0 address
//! reporting, no async hand-off to waiting steps. What is needed here is a small subset of
//! RFC 5321 (EHLO/HELO, MAIL, RCPT, DATA with dot-unstuffing, RSET, NOOP, QUIT, 8BITMIME,
//! SIZE, PIPELINING; no relay, no auth), which is ~300 lines on tokio and fully under test.

use std::collections::{HashMap, HashSet, VecDeque};
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
/// Message bytes held at once by default, over every run and transfer in progress.
pub const MAX_HELD_BYTES: usize = 64 * 1024 * 1024;
/// Recipients per transaction (RFC 5321 §4.5.3.1.8 asks for at least 100).
const MAX_RECIPIENTS: usize = 100;
/// Simultaneous client connections.
const MAX_CONNECTIONS: usize = 128;
/// A command line longer than this is refused (RFC 5321 requires 512; be generous).
const MAX_COMMAND_LINE: u64 = 4096;
/// DATA is read in pieces of at most this much, so a line without an end costs no more.
const DATA_CHUNK: u64 = 64 * 1024;
/// RFC 5321 §4.5.3.2: a server should wait at least 5 minutes for the next command.
const IDLE_TIMEOUT: Duration = Duration::from_secs(300);

/// How a receiver is started; [`SmtpOptions::default`] is what `smtp://` URLs get.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmtpOptions {
    /// Listen on an address other than loopback (e.g. `0.0.0.0`, for an app under test in a
    /// container). Off unless asked for: the receiver takes mail from anyone who can reach it.
    pub allow_remote: bool,
    /// Message bytes held at once, over every run; beyond it, mail is refused with a 452
    /// until runs read theirs or close their mailbox.
    pub max_held_bytes: usize,
}

impl Default for SmtpOptions {
    fn default() -> Self {
        SmtpOptions {
            allow_remote: false,
            max_held_bytes: MAX_HELD_BYTES,
        }
    }
}

/// The embedded receiver. Dropping it stops accepting connections.
pub struct SmtpInbox {
    local_addr: SocketAddr,
    store: Arc<Store>,
    acceptor: JoinHandle<()>,
}

/// Mail for open runs, oldest first. Mail is taken only for a run whose mailbox is open, its
/// bytes are let go once every open recipient consumed it, and it is dropped when none of
/// its recipients is open any more.
struct Store {
    /// Lower-cased; recipients elsewhere are refused.
    domain: String,
    max_held_bytes: usize,
    state: Mutex<StoreState>,
    /// The sequence number of the latest delivery; waiters watch it.
    delivered: watch::Sender<u64>,
}

#[derive(Default)]
struct StoreState {
    next_seq: u64,
    /// Addresses of open run mailboxes (the same run id may be opened twice).
    open: HashMap<String, usize>,
    messages: VecDeque<Held>,
    /// Bytes of the messages held.
    held_bytes: usize,
    /// Bytes of messages still being received.
    reserved_bytes: usize,
}

struct Held {
    seq: u64,
    message: Message,
    /// Open recipients that have not consumed it; its bytes go when the last one has.
    unread_by: Vec<String>,
}

/// Whether a recipient is taken.
enum Recipient {
    Open,
    OutsideDomain,
    NoRun,
}

impl Store {
    fn lock(&self) -> std::sync::MutexGuard<'_, StoreState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn recipient(&self, address: &str) -> Recipient {
        let in_domain = address
            .rsplit_once('@')
            .is_some_and(|(_, domain)| domain.eq_ignore_ascii_case(&self.domain));
        if !in_domain {
            Recipient::OutsideDomain
        } else if self.lock().open.contains_key(&address.to_lowercase()) {
            Recipient::Open
        } else {
            Recipient::NoRun
        }
    }

    /// Bytes that may still be taken before the cap.
    fn room(&self) -> usize {
        let state = self.lock();
        self.max_held_bytes
            .saturating_sub(state.held_bytes + state.reserved_bytes)
    }

    /// The 452 reply when the cap is reached.
    fn full_reply(&self) -> String {
        let state = self.lock();
        format!(
            "452 4.3.1 this receiver already holds {} of mail for runs that have not read it, \
             and holds at most {}: try again once they have (mail is let go when a run reads \
             it or closes its mailbox)",
            mib(state.held_bytes + state.reserved_bytes),
            mib(self.max_held_bytes)
        )
    }

    /// Registers an open run mailbox; returns the sequence number mail must exceed to be new.
    fn open(&self, address: &str) -> u64 {
        let mut state = self.lock();
        *state.open.entry(address.to_string()).or_default() += 1;
        state.next_seq
    }

    fn close(&self, address: &str) {
        let mut state = self.lock();
        let state = &mut *state;
        match state.open.get_mut(address) {
            Some(n) if *n > 1 => {
                *n -= 1;
                return;
            }
            Some(_) => {
                state.open.remove(address);
            }
            None => return,
        }
        for held in &mut state.messages {
            held.unread_by.retain(|a| a != address);
            if held.unread_by.is_empty() {
                state.held_bytes -= std::mem::take(&mut held.message.raw).len();
            }
        }
        let open = &state.open;
        state
            .messages
            .retain(|held| held.message.to.iter().any(|a| open.contains_key(a)));
    }

    /// A run consumed message `seq`: when no open recipient still needs it, its bytes go. A
    /// stub (sender, subject, recipients) stays while a recipient is open, so a later wait can
    /// still say that the message was already used.
    fn consumed(&self, address: &str, seq: u64) {
        let mut state = self.lock();
        let state = &mut *state;
        if let Some(held) = state.messages.iter_mut().find(|h| h.seq == seq) {
            held.unread_by.retain(|a| a != address);
            if held.unread_by.is_empty() {
                state.held_bytes -= std::mem::take(&mut held.message.raw).len();
            }
        }
    }

    /// Stores a received message for its open recipients. Returns its sequence number, or
    /// `None` when none of them is open any more (their runs closed during the transfer).
    fn deliver(
        &self,
        raw: Vec<u8>,
        recipients: &[String],
        reserved: &mut Reservation,
    ) -> Option<u64> {
        let seq = {
            let mut state = self.lock();
            let state = &mut *state;
            let message = parse_message(
                (state.next_seq + 1).to_string(),
                raw,
                Utc::now(),
                recipients,
            );
            let unread_by: Vec<String> = message
                .to
                .iter()
                .filter(|a| state.open.contains_key(*a))
                .cloned()
                .collect();
            if unread_by.is_empty() {
                return None;
            }
            state.next_seq += 1;
            let seq = state.next_seq;
            // The reservation becomes held bytes.
            state.reserved_bytes -= reserved.bytes;
            reserved.bytes = 0;
            state.held_bytes += message.raw.len();
            state.messages.push_back(Held {
                seq,
                message,
                unread_by,
            });
            while state.messages.len() > MAX_STORED_MESSAGES {
                if let Some(old) = state.messages.pop_front() {
                    state.held_bytes -= old.message.raw.len();
                }
            }
            seq
        };
        self.delivered.send_replace(seq);
        Some(seq)
    }
}

/// Bytes of a message being received, counted against the cap until it is stored or
/// refused.
struct Reservation<'a> {
    store: &'a Store,
    bytes: usize,
}

impl<'a> Reservation<'a> {
    fn new(store: &'a Store) -> Self {
        Reservation { store, bytes: 0 }
    }

    /// Counts `n` more bytes, unless that would pass the cap.
    fn grow(&mut self, n: usize) -> bool {
        let mut state = self.store.lock();
        if state.held_bytes + state.reserved_bytes + n > self.store.max_held_bytes {
            return false;
        }
        state.reserved_bytes += n;
        self.bytes += n;
        true
    }

    fn release(&mut self) {
        if self.bytes > 0 {
            self.store.lock().reserved_bytes -= self.bytes;
            self.bytes = 0;
        }
    }
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        self.release();
    }
}

/// `47 MiB`, `1.5 MiB`, `300 KiB`.
fn mib(bytes: usize) -> String {
    if bytes >= 10 << 20 || (bytes > 0 && bytes.is_multiple_of(1 << 20)) {
        format!("{} MiB", (bytes + (1 << 19)) >> 20)
    } else if bytes >= 1 << 20 {
        format!("{:.1} MiB", bytes as f64 / f64::from(1 << 20))
    } else {
        format!("{} KiB", bytes.div_ceil(1 << 10))
    }
}

impl SmtpInbox {
    /// Binds `addr` on loopback (port 0 picks a free port) and starts accepting mail for
    /// `domain`. Any other address is refused; see [`SmtpInbox::start_with`].
    pub async fn start(addr: SocketAddr, domain: &str) -> Result<Arc<SmtpInbox>, InboxError> {
        SmtpInbox::start_with(addr, domain, SmtpOptions::default()).await
    }

    /// Binds `addr` and starts accepting mail for `domain`, as `options` allow.
    pub async fn start_with(
        addr: SocketAddr,
        domain: &str,
        options: SmtpOptions,
    ) -> Result<Arc<SmtpInbox>, InboxError> {
        if !addr.ip().is_loopback() && !options.allow_remote {
            return Err(InboxError::Unreachable(format!(
                "the embedded SMTP receiver listens on loopback only (127.0.0.1 or ::1): {addr} \
                 would take mail from other machines; allow it explicitly (allow_remote=true in \
                 the inbox URL)"
            )));
        }
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
        let store = Arc::new(Store {
            domain: domain.trim().to_lowercase(),
            max_held_bytes: options.max_held_bytes,
            state: Mutex::new(StoreState::default()),
            delivered: watch::Sender::new(0),
        });
        let acceptor = tokio::spawn(accept_loop(listener, store.clone()));
        tracing::debug!(%local_addr, domain = %store.domain, "embedded SMTP receiver listening");
        Ok(Arc::new(SmtpInbox {
            local_addr,
            store,
            acceptor,
        }))
    }

    /// Where the receiver listens; point the app under test's SMTP settings here.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    pub fn domain(&self) -> &str {
        &self.store.domain
    }

    /// The address a run with this id receives mail at.
    pub fn run_address(&self, run_id: &str) -> String {
        format!("run-{}@{}", run_id.to_lowercase(), self.store.domain)
    }

    /// Every message held for open runs, oldest first (at most [`MAX_STORED_MESSAGES`]). A
    /// message every recipient has consumed keeps its headers but not its bytes (`raw` is
    /// empty).
    pub fn messages(&self) -> Vec<Message> {
        let state = self.store.lock();
        state.messages.iter().map(|h| h.message.clone()).collect()
    }

    /// Message bytes held now, counting messages still being received.
    pub fn held_bytes(&self) -> usize {
        let state = self.store.lock();
        state.held_bytes + state.reserved_bytes
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
        let address = self.run_address(run_id);
        let after = self.store.open(&address);
        Ok(Box::new(SmtpRunMailbox {
            store: self.store.clone(),
            address,
            after,
            delivered,
            consumed: HashSet::new(),
        }))
    }

    fn describe(&self) -> String {
        format!(
            "smtp://{}?domain={} (embedded receiver)",
            self.local_addr, self.store.domain
        )
    }
}

struct SmtpRunMailbox {
    store: Arc<Store>,
    address: String,
    /// Messages with a sequence number above this arrived after `open`.
    after: u64,
    delivered: watch::Receiver<u64>,
    /// Sequence numbers of messages this run consumed: returned without their bytes.
    consumed: HashSet<u64>,
}

impl Drop for SmtpRunMailbox {
    fn drop(&mut self) {
        self.store.close(&self.address);
    }
}

#[async_trait]
impl RunMailbox for SmtpRunMailbox {
    fn address(&self) -> &str {
        &self.address
    }

    async fn arrived(&mut self) -> Result<Vec<Message>, InboxError> {
        // Mark as seen first: a delivery after this line makes `changed` return at once.
        self.delivered.borrow_and_update();
        let state = self.store.lock();
        Ok(state
            .messages
            .iter()
            .filter(|h| h.seq > self.after && is_addressed_to(&h.message, &self.address))
            .map(|h| {
                if self.consumed.contains(&h.seq) {
                    without_bytes(&h.message)
                } else {
                    h.message.clone()
                }
            })
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

    fn consumed(&mut self, message_id: &str) {
        if let Ok(seq) = message_id.parse::<u64>() {
            self.consumed.insert(seq);
            self.store.consumed(&self.address, seq);
        }
    }
}

/// A message's headers without its bytes.
fn without_bytes(message: &Message) -> Message {
    Message {
        id: message.id.clone(),
        from: message.from.clone(),
        to: message.to.clone(),
        subject: message.subject.clone(),
        received_at: message.received_at,
        raw: Vec::new(),
    }
}

async fn accept_loop(listener: TcpListener, store: Arc<Store>) {
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
        tokio::spawn(async move {
            if let Err(e) = serve_session(stream, &store).await {
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

async fn serve_session(stream: TcpStream, store: &Store) -> std::io::Result<()> {
    let domain = store.domain.as_str();
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
            "MAIL" => mail_from(&mut tx, arg, store),
            "RCPT" => rcpt_to(&mut tx, arg, store),
            "DATA" if !arg.is_empty() => "501 5.5.4 DATA takes no argument".into(),
            "DATA" if tx.mail_from.is_none() => "503 5.5.1 send MAIL FROM first".into(),
            "DATA" if tx.recipients.is_empty() => "503 5.5.1 send RCPT TO first".into(),
            "DATA" => {
                write
                    .write_all(b"354 end data with <CR><LF>.<CR><LF>\r\n")
                    .await?;
                let mut reservation = Reservation::new(store);
                let reply = match read_data(&mut reader, &mut reservation).await? {
                    Data::Complete(raw) => {
                        match store.deliver(raw, &tx.recipients, &mut reservation) {
                            Some(seq) => format!("250 2.0.0 OK queued as {seq}"),
                            None => "554 5.1.1 the runs this message was for closed their \
                                     mailboxes while it was being sent"
                                .into(),
                        }
                    }
                    Data::TooLarge => {
                        format!("552 5.3.4 message exceeds {MAX_MESSAGE_BYTES} bytes")
                    }
                    Data::OverCapacity => store.full_reply(),
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

fn mail_from(tx: &mut Transaction, arg: &str, store: &Store) -> String {
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
                Ok(size) if size > store.room() => return store.full_reply(),
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

fn rcpt_to(tx: &mut Transaction, arg: &str, store: &Store) -> String {
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
    let domain = &store.domain;
    match store.recipient(&path) {
        Recipient::Open => {
            tx.recipients.push(path.to_lowercase());
            "250 2.1.5 OK".into()
        }
        Recipient::OutsideDomain => format!(
            "550 5.1.2 <{path}> is not in {domain}: this receiver only takes mail for the runs \
             it serves (run-RUNID@{domain}) and relays nothing"
        ),
        Recipient::NoRun => format!(
            "550 5.1.1 <{path}>: no run is reading mail at this address (mail is taken only \
             while a run's mailbox is open)"
        ),
    }
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

/// How a DATA transfer ended.
enum Data {
    Complete(Vec<u8>),
    /// Over [`MAX_MESSAGE_BYTES`].
    TooLarge,
    /// Over the receiver's cap on bytes held.
    OverCapacity,
}

/// Reads a DATA body up to the lone `.` line, undoing dot-stuffing (RFC 5321 §4.5.2). The
/// bytes are counted in `reservation` as they arrive; past a limit the rest is read and
/// dropped, so the client gets its reply, and memory stays bounded even for a line that
/// never ends.
async fn read_data<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
    reservation: &mut Reservation<'_>,
) -> std::io::Result<Data> {
    let mut raw = Vec::new();
    let mut refused: Option<Data> = None;
    let mut piece = Vec::new();
    let mut at_line_start = true;
    loop {
        piece.clear();
        let n = timeout(
            IDLE_TIMEOUT * 2,
            (&mut *reader)
                .take(DATA_CHUNK)
                .read_until(b'\n', &mut piece),
        )
        .await
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::TimedOut, "DATA timeout"))??;
        if n == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "connection closed during DATA",
            ));
        }
        if at_line_start && (piece == b".\r\n" || piece == b".\n") {
            return Ok(match refused {
                Some(why) => why,
                None => {
                    raw.shrink_to_fit();
                    Data::Complete(raw)
                }
            });
        }
        let content = if at_line_start && piece.starts_with(b".") {
            &piece[1..]
        } else {
            &piece[..]
        };
        at_line_start = piece.ends_with(b"\n");
        if refused.is_some() {
            continue;
        }
        if raw.len() + content.len() > MAX_MESSAGE_BYTES {
            refused = Some(Data::TooLarge);
        } else if !reservation.grow(content.len()) {
            refused = Some(Data::OverCapacity);
        } else {
            raw.extend_from_slice(content);
            continue;
        }
        raw = Vec::new();
        reservation.release();
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

    fn store(max_held_bytes: usize) -> Store {
        Store {
            domain: "demo.test".into(),
            max_held_bytes,
            state: Mutex::new(StoreState::default()),
            delivered: watch::Sender::new(0),
        }
    }

    async fn read(input: &[u8], store: &Store) -> Data {
        let mut reader = BufReader::new(input);
        let mut reservation = Reservation::new(store);
        read_data(&mut reader, &mut reservation).await.unwrap()
    }

    #[tokio::test]
    async fn data_is_dot_unstuffed_and_ends_at_the_lone_dot() {
        let store = store(MAX_HELD_BYTES);
        let input: &[u8] = b"Subject: x\r\n\r\n..leading dot\r\n.\r\nafter\r\n";
        let Data::Complete(raw) = read(input, &store).await else {
            panic!("complete");
        };
        assert_eq!(raw, b"Subject: x\r\n\r\n.leading dot\r\n");
        assert_eq!(
            store.lock().reserved_bytes,
            0,
            "the reservation ends with the read"
        );
    }

    #[tokio::test]
    async fn a_long_line_is_read_in_pieces_and_a_dot_inside_it_is_content() {
        let store = store(MAX_HELD_BYTES);
        let mut input = vec![b'a'; DATA_CHUNK as usize - 1];
        input.extend_from_slice(b".\r\n.\r\n");
        let Data::Complete(raw) = read(&input, &store).await else {
            panic!("complete");
        };
        assert_eq!(
            raw.len(),
            DATA_CHUNK as usize + 2,
            "the dot after the piece is kept"
        );
    }

    #[tokio::test]
    async fn over_the_cap_the_rest_is_read_and_dropped() {
        let store = store(1000);
        let mut input = b"x\r\n".repeat(400);
        input.extend_from_slice(b".\r\nQUIT\r\n");
        let mut reader = BufReader::new(&input[..]);
        let mut reservation = Reservation::new(&store);
        let data = read_data(&mut reader, &mut reservation).await.unwrap();
        assert!(matches!(data, Data::OverCapacity));
        let mut next = String::new();
        reader.read_line(&mut next).await.unwrap();
        assert_eq!(next, "QUIT\r\n", "the transfer was read to its end");
        assert_eq!(store.lock().reserved_bytes, 0);
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(mib(64 << 20), "64 MiB");
        assert_eq!(mib(47_000_000), "45 MiB");
        assert_eq!(mib(1_572_864), "1.5 MiB");
        assert_eq!(mib(300_000), "293 KiB");
        assert_eq!(mib(0), "0 KiB");
    }
}
