//! Server mode's way out of a browser context: the context's proxy is a SOCKS5 listener in
//! planlock, so every connection the context opens — documents, frames, images, fetches,
//! WebSockets, workers — is judged by the run's lock on the address it would reach, and
//! made to exactly that address.
//!
//! Request interception (CDP `Fetch`) cannot do this: it never sees WebSockets, and it would
//! judge a name on a lookup of its own while Chromium connects on another (DNS rebinding).
//! A tunnel per connection costs a task and two socket copies, not a CDP round trip per
//! request, and only contexts of runs that refuse private addresses have one.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

use super::refusals::Refusals;
use crate::lock::Lock;

/// How long a client may take to say where it wants to go.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long connecting to an admitted address may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

const SOCKS5: u8 = 5;
const NO_AUTHENTICATION: u8 = 0;
const NO_ACCEPTABLE_METHOD: u8 = 0xff;
const CONNECT: u8 = 1;
const ATYP_IPV4: u8 = 1;
const ATYP_DOMAIN: u8 = 3;
const ATYP_IPV6: u8 = 4;
const REPLY_SUCCEEDED: u8 = 0;
const REPLY_NOT_ALLOWED: u8 = 2;
const REPLY_HOST_UNREACHABLE: u8 = 4;
const REPLY_REFUSED: u8 = 5;
const REPLY_COMMAND_NOT_SUPPORTED: u8 = 7;

/// One context's egress: a SOCKS5 listener on loopback, judging by the lock of the run the
/// context was given to. Until then (a context made ahead of its run) nothing gets out.
pub(super) struct Egress {
    addr: SocketAddr,
    lock: Arc<OnceLock<Admitted>>,
    task: JoinHandle<()>,
}

/// The run a context was given to: its lock, and where its refusals are counted.
struct Admitted {
    lock: Arc<Lock>,
    refusals: Weak<Refusals>,
}

impl Egress {
    pub async fn start() -> std::io::Result<Egress> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
        let addr = listener.local_addr()?;
        let lock: Arc<OnceLock<Admitted>> = Arc::default();
        let task = {
            let lock = lock.clone();
            tokio::spawn(async move {
                // Dropped with the task, so closing the context's egress ends its tunnels too.
                let mut tunnels = tokio::task::JoinSet::new();
                loop {
                    tokio::select! {
                        accepted = listener.accept() => match accepted {
                            Ok((client, _)) => {
                                tunnels.spawn(tunnel(client, lock.clone()));
                            }
                            Err(e) => {
                                tracing::debug!("egress: accept failed: {e}");
                                tokio::time::sleep(Duration::from_millis(10)).await;
                            }
                        },
                        Some(_) = tunnels.join_next(), if !tunnels.is_empty() => {}
                    }
                }
            })
        };
        Ok(Egress { addr, lock, task })
    }

    /// The context's `proxyServer`.
    pub fn proxy_server(&self) -> String {
        format!("socks5://{}", self.addr)
    }

    /// The context's `proxyBypassList`: nothing bypasses the egress, loopback included
    /// (Chromium would send it around a proxy by default).
    pub fn proxy_bypass_list() -> &'static str {
        "<-loopback>"
    }

    /// Judges this context's connections by `lock` from now on (set once), counting the
    /// refused ones in `refusals`.
    pub fn admit(&self, lock: Arc<Lock>, refusals: Weak<Refusals>) {
        let _ = self.lock.set(Admitted { lock, refusals });
    }
}

impl Drop for Egress {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// One SOCKS5 CONNECT: read where the client wants to go, judge it, connect, relay.
async fn tunnel(mut client: TcpStream, admitted: Arc<OnceLock<Admitted>>) {
    let asked = tokio::time::timeout(HANDSHAKE_TIMEOUT, destination(&mut client)).await;
    let (host, port) = match asked {
        Ok(Ok(Some(dest))) => dest,
        Ok(Ok(None)) => return,
        Ok(Err(e)) => {
            tracing::debug!("egress: bad SOCKS request: {e}");
            return;
        }
        Err(_) => return,
    };
    let Some(Admitted { lock, refusals }) = admitted.get() else {
        let _ = reply(&mut client, REPLY_NOT_ALLOWED).await;
        return;
    };
    let addresses = match lock.connection_addresses(&host, port).await {
        Ok(a) => a,
        Err(refusal) => {
            tracing::debug!(host = %host, port, "egress refused: {refusal}");
            if let Some(refusals) = refusals.upgrade() {
                refusals.count_connection();
            }
            let _ = reply(&mut client, REPLY_NOT_ALLOWED).await;
            return;
        }
    };
    if addresses.is_empty() {
        let _ = reply(&mut client, REPLY_HOST_UNREACHABLE).await;
        return;
    }
    let connected = tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(&addresses[..])).await;
    let mut upstream = match connected {
        Ok(Ok(s)) => s,
        _ => {
            let _ = reply(&mut client, REPLY_REFUSED).await;
            return;
        }
    };
    // Chromium disables Nagle on its own sockets; both legs of the tunnel do the same, or
    // small writes (a request head, a WebSocket frame) would wait for an acknowledgement.
    let _ = upstream.set_nodelay(true);
    let _ = client.set_nodelay(true);
    if reply(&mut client, REPLY_SUCCEEDED).await.is_err() {
        return;
    }
    let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
}

/// Reads the SOCKS5 greeting and CONNECT request: the host (a name or an address literal)
/// and port asked for. `None` when the client wants something else (answered already).
async fn destination(client: &mut TcpStream) -> std::io::Result<Option<(String, u16)>> {
    let mut greeting = [0u8; 2];
    client.read_exact(&mut greeting).await?;
    if greeting[0] != SOCKS5 {
        return Ok(None);
    }
    let mut methods = vec![0u8; usize::from(greeting[1])];
    client.read_exact(&mut methods).await?;
    if !methods.contains(&NO_AUTHENTICATION) {
        client.write_all(&[SOCKS5, NO_ACCEPTABLE_METHOD]).await?;
        return Ok(None);
    }
    client.write_all(&[SOCKS5, NO_AUTHENTICATION]).await?;
    let mut request = [0u8; 4];
    client.read_exact(&mut request).await?;
    if request[0] != SOCKS5 {
        return Ok(None);
    }
    let host = match request[3] {
        ATYP_IPV4 => {
            let mut octets = [0u8; 4];
            client.read_exact(&mut octets).await?;
            IpAddr::from(octets).to_string()
        }
        ATYP_IPV6 => {
            let mut octets = [0u8; 16];
            client.read_exact(&mut octets).await?;
            Ipv6Addr::from(octets).to_string()
        }
        ATYP_DOMAIN => {
            let mut len = [0u8; 1];
            client.read_exact(&mut len).await?;
            let mut name = vec![0u8; usize::from(len[0])];
            client.read_exact(&mut name).await?;
            String::from_utf8_lossy(&name).into_owned()
        }
        _ => {
            reply(client, REPLY_COMMAND_NOT_SUPPORTED).await?;
            return Ok(None);
        }
    };
    let mut port = [0u8; 2];
    client.read_exact(&mut port).await?;
    if request[1] != CONNECT {
        reply(client, REPLY_COMMAND_NOT_SUPPORTED).await?;
        return Ok(None);
    }
    Ok(Some((host, u16::from_be_bytes(port))))
}

async fn reply(client: &mut TcpStream, code: u8) -> std::io::Result<()> {
    // The bound address is not used by Chromium: 0.0.0.0:0.
    client
        .write_all(&[SOCKS5, code, 0, ATYP_IPV4, 0, 0, 0, 0, 0, 0])
        .await
}
