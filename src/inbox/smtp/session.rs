//! The SMTP conversation (a small subset of RFC 5321): one task per client, replies in one
//! write each, DATA read in bounded pieces and counted against the store's cap.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::timeout;

use super::MAX_MESSAGE_BYTES;
use super::slots::{Slot, Slots};
use super::store::{HeldMail, Recipient, Reservation};

/// Recipients per transaction (RFC 5321 §4.5.3.1.8 asks for at least 100).
const MAX_RECIPIENTS: usize = 100;
/// A command line longer than this is refused (RFC 5321 requires 512; be generous).
const MAX_COMMAND_LINE: u64 = 4096;
/// DATA is read in pieces of at most this much, so a line without an end costs no more.
const DATA_CHUNK: u64 = 64 * 1024;
/// How long a client may wait before its next command. RFC 5321 §4.5.3.2 asks a server on
/// the internet for 5 minutes; this receiver serves an app on the same machine or network,
/// whose mailer speaks without pause, and a connection that sits idle holds a slot.
const IDLE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a client may pause inside DATA.
const DATA_IDLE_TIMEOUT: Duration = Duration::from_secs(60);

pub(super) async fn accept_loop(listener: TcpListener, store: Arc<HeldMail>) {
    let slots = Arc::new(Slots::default());
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
        let Some(slot) = slots.admit(peer.ip()) else {
            let _ = stream
                .write_all(b"421 4.3.2 too many connections, try again later\r\n")
                .await;
            continue;
        };
        let store = store.clone();
        tokio::spawn(async move {
            if let Err(e) = serve_session(stream, &store, &slot).await {
                tracing::debug!(%peer, "SMTP session ended: {e}");
            }
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

async fn serve_session(stream: TcpStream, store: &HeldMail, slot: &Slot) -> std::io::Result<()> {
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
        slot.idle();
        let mut command = (&mut reader).take(MAX_COMMAND_LINE);
        let n = tokio::select! {
            n = timeout(IDLE_TIMEOUT, command.read_until(b'\n', &mut line)) => n.map_err(|_| {
                std::io::Error::new(std::io::ErrorKind::TimedOut, "idle timeout")
            })??,
            () = slot.evicted.notified() => {
                write
                    .write_all(b"421 4.4.2 idle too long while others wait, closing\r\n")
                    .await?;
                return Ok(());
            }
        };
        slot.busy();
        if n == 0 {
            return Ok(());
        }
        if !line.ends_with(b"\n") {
            write
                .write_all(b"500 5.5.2 line too long, closing\r\n")
                .await?;
            return Ok(());
        }
        // Only CRLF ends a line (RFC 5321 2.3.8, 4.1.1.4): a bare LF or CR is no line end,
        // so where the client meant this line to end, and the next to start, is unknown.
        // Nothing of it is carried out, and the conversation ends.
        if let Some(bare) = bare_line_end(&line, false) {
            write
                .write_all(
                    format!(
                        "500 5.5.2 command refused: it holds a bare {bare}, and SMTP ends a \
                         line only with CRLF (RFC 5321 2.3.8); closing\r\n"
                    )
                    .as_bytes(),
                )
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
                    Data::BareLineEnd(bare) => format!(
                        "550 5.6.0 message refused: it has a bare {bare} line end; SMTP ends a \
                         line only with CRLF and a message only with <CRLF>.<CRLF> (RFC 5321 \
                         2.3.8)"
                    ),
                    Data::Nul => "550 5.6.0 message refused: it holds a NUL byte, which \
                                  neither 7bit nor 8bit mail may carry (RFC 2045 2.7, 2.8)"
                        .into(),
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

fn mail_from(tx: &mut Transaction, arg: &str, store: &HeldMail) -> String {
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

fn rcpt_to(tx: &mut Transaction, arg: &str, store: &HeldMail) -> String {
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
        Recipient::OutsideDomain => match &store.address {
            Some(address) => format!(
                "550 5.1.2 <{path}> is not {address}: this receiver only takes mail for \
                 {address}, the address its runs read, and relays nothing"
            ),
            None => format!(
                "550 5.1.2 <{path}> is not in {domain}: this receiver only takes mail for the \
                 runs it serves (run-RUNID@{domain}) and relays nothing"
            ),
        },
        Recipient::NotTheAddress => format!(
            "550 5.1.1 <{path}> is not {}: this receiver only takes mail for that one \
             address, the address its runs read, and relays nothing",
            store.address.as_deref().unwrap_or_default()
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
    /// A line ended with a bare LF or a bare CR.
    BareLineEnd(&'static str),
    /// The message holds a NUL byte.
    Nul,
}

/// Reads a DATA body up to `<CRLF>.<CRLF>`, undoing dot-stuffing (RFC 5321 §4.5.2). Only
/// CRLF ends a line (§2.3.8): a bare LF or CR is neither a line end nor the end of the
/// message, and a message holding one, or a NUL, is refused whole. Reading `<LF>.<LF>` as the end is
/// what lets a sender smuggle a second transaction inside a message's body. The bytes are
/// counted in `reservation` as they arrive; past a limit the rest is read and dropped, so
/// the client gets its reply, and memory stays bounded even for a line that never ends.
async fn read_data<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
    reservation: &mut Reservation<'_>,
) -> std::io::Result<Data> {
    let mut raw = Vec::new();
    let mut refused: Option<Data> = None;
    let mut piece = Vec::new();
    // After a CRLF (or at the start): where the end mark and dot-stuffing are looked for.
    let mut at_line_start = true;
    // The last byte read was a CR, maybe cut from its LF by the size of a piece.
    let mut after_cr = false;
    loop {
        piece.clear();
        let n = timeout(
            DATA_IDLE_TIMEOUT,
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
        if at_line_start && piece == b".\r\n" {
            return Ok(match refused {
                Some(why) => why,
                None => {
                    raw.shrink_to_fit();
                    Data::Complete(raw)
                }
            });
        }
        if let Some(bare) = bare_line_end(&piece, after_cr) {
            refused.get_or_insert(Data::BareLineEnd(bare));
        }
        if piece.contains(&0) {
            refused.get_or_insert(Data::Nul);
        }
        let content = if at_line_start && piece.starts_with(b".") {
            &piece[1..]
        } else {
            &piece[..]
        };
        at_line_start = piece.ends_with(b"\r\n") || (after_cr && piece == b"\n");
        after_cr = piece.ends_with(b"\r");
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

/// Whether `piece` holds an LF without its CR or a CR without its LF (`after_cr`: the piece
/// before ended with a CR). A CR at the very end may still meet its LF in the next piece.
fn bare_line_end(piece: &[u8], after_cr: bool) -> Option<&'static str> {
    for (i, &b) in piece.iter().enumerate() {
        let before = if i == 0 {
            after_cr
        } else {
            piece[i - 1] == b'\r'
        };
        if b == b'\n' && !before {
            return Some("LF");
        }
        if b == b'\r' && piece.get(i + 1).is_some_and(|&next| next != b'\n') {
            return Some("CR");
        }
    }
    if after_cr && piece.first() != Some(&b'\n') {
        return Some("CR");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inbox::smtp::MAX_HELD_BYTES;

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

    fn store(max_held_bytes: usize) -> HeldMail {
        HeldMail::new("demo.test", None, max_held_bytes)
    }

    async fn read(input: &[u8], store: &HeldMail) -> Data {
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

    /// DATA whose first line is one byte short of a piece, then `rest`: the message read.
    async fn after_a_piece_less_one(rest: &[u8]) -> Vec<u8> {
        let store = store(MAX_HELD_BYTES);
        let mut input = vec![b'a'; DATA_CHUNK as usize - 1];
        input.extend_from_slice(rest);
        let Data::Complete(raw) = read(&input, &store).await else {
            panic!("complete, with no bare line end");
        };
        raw
    }

    #[tokio::test]
    async fn a_long_line_is_read_in_pieces_and_a_dot_inside_it_is_content() {
        let raw = after_a_piece_less_one(b".\r\n.\r\n").await;
        assert_eq!(
            raw.len(),
            DATA_CHUNK as usize + 2,
            "the dot after the piece is kept"
        );
    }

    #[tokio::test]
    async fn a_crlf_cut_by_the_piece_size_is_still_a_line_end() {
        let raw = after_a_piece_less_one(b"\r\n.\r\n").await;
        assert_eq!(raw.len(), DATA_CHUNK as usize + 1);
    }

    #[tokio::test]
    async fn a_bare_line_end_is_content_and_refuses_the_message() {
        let store = store(MAX_HELD_BYTES);
        for (input, bare) in [
            (&b"x\n.\nMAIL FROM:<a@b>\r\n.\r\n"[..], "LF"),
            (b"x\r.\rMAIL FROM:<a@b>\r\n.\r\n", "CR"),
            (b"x\r\n.\n\r\n.\r\n", "LF"),
        ] {
            let mut reader = BufReader::new(input);
            let mut reservation = Reservation::new(&store);
            let data = read_data(&mut reader, &mut reservation).await.unwrap();
            assert!(
                matches!(data, Data::BareLineEnd(b) if b == bare),
                "{input:?} is refused for its bare {bare}"
            );
            let mut rest = Vec::new();
            reader.read_to_end(&mut rest).await.unwrap();
            assert!(
                rest.is_empty(),
                "{input:?}: read to <CRLF>.<CRLF>, nothing left"
            );
        }
        assert_eq!(store.lock().reserved_bytes, 0);
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
}
