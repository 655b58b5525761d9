//! The service's TCP listener. hyper answers a request it cannot parse (a request line over
//! 64 KiB, headers beyond its buffer, bytes that are not HTTP) by itself, before any handler
//! runs, with an empty body; each connection here rewrites those answers into the API's
//! error shape, so every error a caller sees is `{"error":{"kind","message"}}`.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

use super::error::{ApiErrorKind, ErrorBody, ErrorDetail};

/// Accepts connections like [`TcpListener`], each wrapped in [`ErrorShaped`].
pub struct ApiListener(pub TcpListener);

impl axum::serve::Listener for ApiListener {
    type Io = ErrorShaped<TcpStream>;
    type Addr = std::net::SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            match self.0.accept().await {
                Ok((tcp, addr)) => {
                    let _ = tcp.set_nodelay(true);
                    return (ErrorShaped::new(tcp), addr);
                }
                Err(e) => {
                    // Out of file descriptors and the like: wait instead of spinning.
                    tracing::warn!(target: "planlock::server", error = %e, "accept failed");
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                }
            }
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.0.local_addr()
    }
}

/// A connection whose automatic parse-error answers get a JSON body.
pub struct ErrorShaped<T> {
    inner: T,
    /// The rewritten answer, still to be written to `inner`.
    pending: Vec<u8>,
    written: usize,
}

impl<T> ErrorShaped<T> {
    pub fn new(inner: T) -> ErrorShaped<T> {
        ErrorShaped {
            inner,
            pending: Vec::new(),
            written: 0,
        }
    }
}

impl<T: AsyncWrite + Unpin> ErrorShaped<T> {
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.written < self.pending.len() {
            let n =
                ready!(Pin::new(&mut self.inner).poll_write(cx, &self.pending[self.written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.written += n;
        }
        self.pending.clear();
        self.written = 0;
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for ErrorShaped<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for ErrorShaped<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        ready!(self.poll_drain(cx))?;
        if let Some(answer) = shaped_answer(buf) {
            self.pending = answer;
            // What is left goes out with the next write, flush or shutdown.
            let _ = self.poll_drain(cx)?;
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_drain(cx))?;
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_drain(cx))?;
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    /// One buffer per write, so an answer's head arrives whole in one `poll_write`.
    fn is_write_vectored(&self) -> bool {
        false
    }
}

/// hyper's own answer to a request it could not parse: a bare head with one of these
/// statuses and `content-length: 0` (the service's handlers never answer these statuses
/// without a body). Returns the same answer with the API's error body.
fn shaped_answer(buf: &[u8]) -> Option<Vec<u8>> {
    let head = std::str::from_utf8(buf).ok()?;
    let rest = head.strip_prefix("HTTP/1.1 ")?;
    if !head.ends_with("\r\n\r\n") || head.matches("\r\n\r\n").count() != 1 {
        return None;
    }
    let (kind, message) = match rest.get(..4)? {
        "414 " => (
            ApiErrorKind::UriTooLong,
            "the request's URL is longer than this server reads (64 KiB); the API's URLs are \
             short: check what is being sent",
        ),
        "431 " => (
            ApiErrorKind::HeadersTooLarge,
            "the request's headers are larger than this server reads (about 400 KiB)",
        ),
        "400 " => (
            ApiErrorKind::MalformedRequest,
            "the request is not valid HTTP/1.1 (its request line or a header could not be read)",
        ),
        _ => return None,
    };
    let lines: Vec<&str> = head.trim_end_matches("\r\n").split("\r\n").collect();
    if !lines
        .iter()
        .any(|l| l.eq_ignore_ascii_case("content-length: 0"))
    {
        return None;
    }
    let body = ErrorBody {
        error: ErrorDetail {
            kind,
            message: message.to_string(),
            problems: None,
        },
    };
    let body = serde_json::to_string(&body).ok()?;
    let mut out = String::with_capacity(head.len() + body.len() + 64);
    for line in lines {
        if line.eq_ignore_ascii_case("content-length: 0") {
            out.push_str(&format!("content-length: {}\r\n", body.len()));
            out.push_str("content-type: application/json\r\n");
        } else {
            out.push_str(line);
            out.push_str("\r\n");
        }
    }
    out.push_str("\r\n");
    out.push_str(&body);
    Some(out.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_error_answers_get_the_error_shape() {
        let head = "HTTP/1.1 414 URI Too Long\r\ncontent-length: 0\r\ndate: x\r\n\r\n";
        let out = String::from_utf8(shaped_answer(head.as_bytes()).unwrap()).unwrap();
        let (head, body) = out.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 414 URI Too Long\r\n"), "{head}");
        assert!(head.contains("content-type: application/json"), "{head}");
        assert!(
            head.contains(&format!("content-length: {}", body.len())),
            "{head}"
        );
        let body: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(body["error"]["kind"], "uri_too_long");
        let head = "HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\n\r\n";
        assert!(shaped_answer(head.as_bytes()).is_some());
    }

    #[test]
    fn other_answers_pass_untouched() {
        for other in [
            "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n",
            "HTTP/1.1 400 Bad Request\r\ncontent-length: 71\r\n\r\n",
            "HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n{\"partial",
            "HTTP/1.1 414 URI Too Long\r\ncontent-length: 0\r\n",
            "{\"error\": 1}",
        ] {
            assert!(shaped_answer(other.as_bytes()).is_none(), "{other}");
        }
    }
}
