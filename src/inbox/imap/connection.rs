//! One logged-in IMAP session with the mailbox selected: TCP or TLS, the greeting checked
//! before async-imap reads anything, every step under a deadline, and server output turned
//! into sentences.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::{Instant, timeout};
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;
use tokio_rustls::rustls;

use super::gate::Permit;
use super::{COMMAND_TIMEOUT, CONNECT_TIMEOUT};
use crate::inbox::{ImapUrl, InboxError, Stage};

pub(super) type Session = async_imap::Session<ImapStream>;

/// A logged-in session with the mailbox selected.
pub(super) struct Connection {
    pub(super) session: Session,
    /// The server advertises IDLE.
    pub(super) idle: bool,
    pub(super) selected: async_imap::types::Mailbox,
    pub(super) last_command: Instant,
    /// This connection's share of the account's allowance, given back when it closes.
    pub(super) permit: Permit,
}

/// Runs one IMAP command under `limit`, naming it in the error.
pub(super) async fn command<T>(
    what: &str,
    limit: Duration,
    fut: impl Future<Output = async_imap::error::Result<T>>,
) -> Result<T, String> {
    match timeout(limit, fut).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => Err(format!("{what} failed: {}", imap_error_text(&e))),
        Err(_) => Err(format!("{what} got no answer within {} s", limit.as_secs())),
    }
}

/// Marks the connection as just used, dropping what the server said on its own (EXISTS,
/// EXPUNGE, ...): the next sync asks for what it needs.
pub(super) fn drain_unsolicited(connection: &mut Connection) {
    connection.last_command = Instant::now();
    while connection.session.unsolicited_responses.try_recv().is_ok() {}
}

/// Opens the TCP connection: to the pinned addresses when the URL has them (tried in order),
/// else to whatever `host` resolves to now.
async fn connect_tcp(url: &ImapUrl) -> std::io::Result<TcpStream> {
    if url.connect_to.is_empty() {
        TcpStream::connect((url.host.as_str(), url.port)).await
    } else {
        let addresses: Vec<std::net::SocketAddr> = url
            .connect_to
            .iter()
            .map(|ip| std::net::SocketAddr::new(*ip, url.port))
            .collect();
        TcpStream::connect(&addresses[..]).await
    }
}

/// Connects, logs in and selects the mailbox, each step under a deadline, with a sentence
/// naming the step that failed. `permit` is held for as long as the connection lives.
pub(super) async fn connect(url: &ImapUrl, permit: Permit) -> Result<Connection, InboxError> {
    let server = url.server();
    let tcp = stage(
        (Stage::Connect, &server),
        CONNECT_TIMEOUT,
        connect_tcp(url),
        |e| {
            let hint = match e.kind() {
                std::io::ErrorKind::ConnectionRefused => {
                    " (is the IMAP server running, and is the port right?)"
                }
                _ => "",
            };
            format!("cannot connect to {server}: {e}{hint}")
        },
        || {
            format!(
                "cannot connect to {server}: no answer within {} s",
                CONNECT_TIMEOUT.as_secs()
            )
        },
    )
    .await?;
    let _ = tcp.set_nodelay(true);
    let stream = if url.tls {
        let name = rustls::pki_types::ServerName::try_from(url.host.clone()).map_err(|e| {
            refused(
                (Stage::Connect, &server),
                format!("cannot use TLS with {server}: {e}"),
            )
        })?;
        let connector = TlsConnector::from(tls_config()?);
        let tls = connect_step(
            &server,
            CONNECT_TIMEOUT,
            connector.connect(name, tcp),
            "TLS handshake",
            "",
        )
        .await?;
        ImapStream::Tls(Box::new(tls))
    } else {
        ImapStream::Plain(tcp)
    };

    let tls_hint = if url.tls {
        ""
    } else {
        " (if this is a TLS port such as 993, use imaps://)"
    };
    let mut stream = stream;
    let line = connect_step(
        &server,
        COMMAND_TIMEOUT,
        read_greeting(&mut stream),
        "reading the greeting",
        tls_hint,
    )
    .await?;
    check_greeting(&line).map_err(|why| {
        refused(
            (Stage::Connect, &server),
            format!("cannot connect to {server}: {why}"),
        )
    })?;
    // The greeting is consumed: the client starts at the first command.
    let client = async_imap::Client::new(stream);
    let user = &url.user;
    let mut session = stage(
        (Stage::LogIn, &server),
        COMMAND_TIMEOUT,
        client.login(user, &url.password),
        |(e, _client)| {
            format!(
                "cannot log in to {server} as {user}: {}",
                imap_error_text(&e)
            )
        },
        || {
            format!(
                "cannot log in to {server} as {user}: no answer within {} s",
                COMMAND_TIMEOUT.as_secs()
            )
        },
    )
    .await?;
    let capabilities = stage(
        (Stage::LogIn, &server),
        COMMAND_TIMEOUT,
        session.capabilities(),
        |e| {
            format!(
                "logged in to {server} as {user}, but CAPABILITY failed: {}",
                imap_error_text(&e)
            )
        },
        || format!("logged in to {server} as {user}, but CAPABILITY got no answer"),
    )
    .await?;
    let idle = capabilities.has_str("IDLE");
    let mailbox = &url.mailbox;
    let selected = stage(
        (Stage::Select, &server),
        COMMAND_TIMEOUT,
        session.select(mailbox),
        |e| {
            format!(
                "logged in to {server} as {user}, but cannot open mailbox {mailbox:?}: {}",
                imap_error_text(&e)
            )
        },
        || {
            format!(
                "logged in to {server} as {user}, but opening mailbox {mailbox:?} got no answer"
            )
        },
    )
    .await?;
    Ok(Connection {
        session,
        idle,
        selected,
        last_command: Instant::now(),
        permit,
    })
}

/// The error of `stage` at `server`, in `said`'s words.
fn refused((stage, server): (Stage, &str), said: String) -> InboxError {
    InboxError::Refused {
        stage,
        server: server.to_string(),
        said,
    }
}

/// One step of connecting, under `limit`: what it gave, or the step's sentence for its error
/// (`failed`) or for the server's silence (`silent`).
async fn stage<T, E>(
    at: (Stage, &str),
    limit: Duration,
    work: impl Future<Output = Result<T, E>>,
    failed: impl FnOnce(E) -> String,
    silent: impl FnOnce() -> String,
) -> Result<T, InboxError> {
    match timeout(limit, work).await {
        Ok(Ok(done)) => Ok(done),
        Ok(Err(e)) => Err(refused(at, failed(e))),
        Err(_) => Err(refused(at, silent())),
    }
}

/// A step of connecting to `server` named by one `phrase` ("TLS handshake"), its two
/// sentences worded from it: "cannot connect to SERVER: PHRASE failed: ERROR" and "cannot
/// connect to SERVER: PHRASE got no answer within N s", each followed by `hint`.
async fn connect_step<T, E: fmt::Display>(
    server: &str,
    limit: Duration,
    work: impl Future<Output = Result<T, E>>,
    phrase: &str,
    hint: &str,
) -> Result<T, InboxError> {
    stage(
        (Stage::Connect, server),
        limit,
        work,
        |e| format!("cannot connect to {server}: {phrase} failed: {e}{hint}"),
        || {
            format!(
                "cannot connect to {server}: {phrase} got no answer within {} s{hint}",
                limit.as_secs()
            )
        },
    )
    .await
}

/// The longest greeting line read; real ones (with a capability list) are a few hundred bytes.
const MAX_GREETING: usize = 4096;
/// How much of unexpected server output an error message quotes.
const QUOTED_CHARS: usize = 80;

/// Reads the server's first line, up to and including `\n`, at most [`MAX_GREETING`] bytes.
/// Byte by byte, so nothing after the line is taken from the stream.
async fn read_greeting(stream: &mut ImapStream) -> std::io::Result<Vec<u8>> {
    use tokio::io::AsyncReadExt;
    let mut line = Vec::with_capacity(256);
    let mut byte = [0u8; 1];
    while line.len() < MAX_GREETING && !line.ends_with(b"\n") {
        if stream.read(&mut byte).await? == 0 {
            break;
        }
        line.push(byte[0]);
    }
    Ok(line)
}

/// Accepts `* OK` and `* PREAUTH`; anything else is a sentence saying what arrived instead.
fn check_greeting(line: &[u8]) -> Result<(), String> {
    let text = String::from_utf8_lossy(line);
    let upper = text.to_ascii_uppercase();
    if upper.starts_with("* OK") || upper.starts_with("* PREAUTH") {
        return Ok(());
    }
    if line.is_empty() {
        return Err("the server closed the connection before greeting".into());
    }
    if let Some(reason) = text.get(5..).filter(|_| upper.starts_with("* BYE")) {
        return Err(format!(
            "the server refused the connection: {}",
            quoted(reason.trim().as_bytes())
        ));
    }
    let kind = if upper.starts_with("HTTP/") {
        " (that is a web server, not IMAP)"
    } else if upper.starts_with("220") {
        " (that is an SMTP server, not IMAP)"
    } else if upper.starts_with("+OK") {
        " (that is a POP3 server, not IMAP)"
    } else if line.first().is_some_and(|b| *b == 0x15 || *b == 0x16) {
        " (that looks like TLS: use imaps://)"
    } else {
        ""
    };
    Err(format!(
        "expected an IMAP greeting (\"* OK ...\") but the server sent \"{}\"{kind}",
        quoted(line)
    ))
}

/// The start of what a server sent, as one printable line: control characters become `?`,
/// at most [`QUOTED_CHARS`] characters, `…` when cut.
fn quoted(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end_matches(['\r', '\n']);
    let mut out: String = text
        .chars()
        .take(QUOTED_CHARS)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if text.chars().count() > QUOTED_CHARS {
        out.push('…');
    }
    out
}

fn tls_config() -> Result<Arc<rustls::ClientConfig>, InboxError> {
    static CONFIG: OnceLock<Result<Arc<rustls::ClientConfig>, String>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let roots = rustls::RootCertStore {
                roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
            };
            rustls::ClientConfig::builder_with_provider(Arc::new(
                rustls::crypto::ring::default_provider(),
            ))
            .with_safe_default_protocol_versions()
            .map(|builder| Arc::new(builder.with_root_certificates(roots).with_no_client_auth()))
            .map_err(|e| format!("cannot set up TLS: {e}"))
        })
        .clone()
        .map_err(InboxError::Unreachable)
}

/// A server's NO/BAD text (`[AUTHENTICATIONFAILED] Authentication failed.`) rather than
/// async-imap's debug rendering of it.
pub(super) fn imap_error_text(e: &async_imap::error::Error) -> String {
    use async_imap::error::Error;
    match e {
        Error::No(detail) | Error::Bad(detail) => {
            let info = detail
                .split_once("info: Some(\"")
                .and_then(|(_, rest)| rest.rsplit_once("\")"))
                .map(|(text, _)| text.replace("\\\"", "\"").replace("\\\\", "\\"));
            let code = detail
                .strip_prefix("code: Some(")
                .and_then(|rest| rest.split_once("), info:"))
                .map(|(code, _)| code.to_string());
            match (code, info) {
                (Some(code), Some(info)) => format!("[{code}] {info}"),
                (None, Some(info)) => info,
                _ => e.to_string(),
            }
        }
        Error::ConnectionLost => "the server closed the connection".into(),
        Error::Io(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            "the server closed the connection".into()
        }
        // async-imap renders unparsable input as `{nom error:?} during parsing of {input:?}`,
        // which can be tens of kilobytes; quote the start of the input instead.
        Error::Io(io) if io.to_string().contains(" during parsing of ") => {
            let rendered = io.to_string();
            let input = rendered
                .split_once(" during parsing of ")
                .map(|(_, input)| input.trim_matches('"').replace("\\r\\n", " "))
                .unwrap_or_default();
            format!(
                "the server sent something that is not IMAP: \"{}\"",
                quoted(input.as_bytes())
            )
        }
        other => other.to_string(),
    }
}

/// Plain TCP or TLS, so one session type serves `imap://` and `imaps://`.
pub(super) enum ImapStream {
    Plain(TcpStream),
    Tls(Box<TlsStream<TcpStream>>),
}

impl fmt::Debug for ImapStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ImapStream::Plain(_) => "ImapStream::Plain",
            ImapStream::Tls(_) => "ImapStream::Tls",
        })
    }
}

impl AsyncRead for ImapStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            ImapStream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            ImapStream::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for ImapStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        match self.get_mut() {
            ImapStream::Plain(s) => Pin::new(s).poll_write(cx, buf),
            ImapStream::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            ImapStream::Plain(s) => Pin::new(s).poll_flush(cx),
            ImapStream::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            ImapStream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            ImapStream::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_refusals_read_as_the_server_wrote_them() {
        let e = async_imap::error::Error::No(
            "code: None, info: Some(\"[AUTHENTICATIONFAILED] Authentication failed.\")".into(),
        );
        assert_eq!(
            imap_error_text(&e),
            "[AUTHENTICATIONFAILED] Authentication failed."
        );
        let e = async_imap::error::Error::No(
            "code: Some(TryCreate), info: Some(\"Mailbox doesn't exist: Nope\")".into(),
        );
        assert_eq!(
            imap_error_text(&e),
            "[TryCreate] Mailbox doesn't exist: Nope"
        );
    }

    #[test]
    fn greetings_name_what_answered_instead() {
        assert_eq!(
            check_greeting(b"* OK [CAPABILITY IMAP4rev1] ready\r\n"),
            Ok(())
        );
        assert_eq!(check_greeting(b"* preauth welcome back\r\n"), Ok(()));
        assert_eq!(
            check_greeting(b"* BYE Too many connections\r\n").unwrap_err(),
            "the server refused the connection: Too many connections"
        );
        assert_eq!(
            check_greeting(b"+OK POP3 ready\r\n").unwrap_err(),
            "expected an IMAP greeting (\"* OK ...\") but the server sent \"+OK POP3 ready\" \
             (that is a POP3 server, not IMAP)"
        );
        assert_eq!(
            check_greeting(b"").unwrap_err(),
            "the server closed the connection before greeting"
        );
        let long = quoted(&[b'a'; 500]);
        assert_eq!(long.chars().count(), QUOTED_CHARS + 1);
        assert_eq!(quoted(b"a\x00b\x1b[31m\r\n"), "a?b?[31m");
    }

    #[test]
    fn unparsable_responses_are_quoted_not_dumped() {
        let input = format!("* OK hi\r\n{}", "garbage ".repeat(5000));
        let e = async_imap::error::Error::Io(std::io::Error::other(format!(
            "{:?} during parsing of {:?}",
            input.as_bytes(),
            input
        )));
        let text = imap_error_text(&e);
        assert!(
            text.starts_with("the server sent something that is not IMAP: \"* OK hi garbage "),
            "{text}"
        );
        assert!(text.len() < 200, "{text}");
    }
}
