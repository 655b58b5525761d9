//! Inbox bindings, `[NAME=]URL`: parsed into a typed [`InboxUrl`]. Pure: the backends depend
//! on this module, never the other way. Every error is a [`UrlProblem`] naming the part of the
//! URL that is wrong; the front end says where the URL came from.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use url::Url;

use super::InboxError;

/// Poll cadence while a step waits, for an IMAP server on this machine: cheap for a local
/// server, and well under Dovecot's ~0.5 s IDLE notification delay.
pub const DEFAULT_POLL_LOOPBACK: Duration = Duration::from_millis(25);
/// Poll cadence while a step waits, for a remote IMAP server: one NOOP+SEARCH per second per
/// planlock process (the connection is shared by all runs), with IDLE push in between.
pub const DEFAULT_POLL_REMOTE: Duration = Duration::from_secs(1);
/// The embedded SMTP receiver's port when the URL names none.
pub const DEFAULT_SMTP_PORT: u16 = 2525;

const POLL_MS_RANGE: std::ops::RangeInclusive<u64> = 5..=60_000;
/// Connections to one IMAP account at once when the URL does not say `max_connections=`.
/// One serves a mailbox and every run reading it; the rest let a few more mailboxes of the
/// same account (other folders) be watched at once, well under common server limits.
pub const DEFAULT_MAX_CONNECTIONS: usize = 4;
const MAX_CONNECTIONS_RANGE: std::ops::RangeInclusive<usize> = 1..=32;

/// A parsed inbox URL.
#[derive(Clone, PartialEq, Eq)]
pub enum InboxUrl {
    Imap(ImapUrl),
    Smtp(SmtpUrl),
}

/// `imap://USER:PASS@HOST:PORT/MAILBOX?address=ADDR&plus=true&poll_ms=N&max_connections=N`
/// (or `imaps://`).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ImapUrl {
    /// `imaps://`: TLS from the first byte, verified against the webpki roots.
    pub tls: bool,
    pub host: String,
    pub port: u16,
    /// Percent-decoded.
    pub user: String,
    /// Percent-decoded. Never printed: `Debug` and `Display` leave it out.
    pub password: String,
    /// Percent-decoded; `INBOX` when the URL has no path.
    pub mailbox: String,
    /// The address mail is sent to (`address=`, else the user name when it is an address).
    pub address: String,
    /// Each run gets `local+RUNID@domain`.
    pub plus: bool,
    /// How often the mailbox is polled while a step waits.
    pub poll: Duration,
    /// At most this many connections to the account (server and user) at once, over every
    /// mailbox of it that this process watches.
    pub max_connections: usize,
    /// Connect to exactly these addresses instead of resolving `host` again: the service sets
    /// them to the addresses it judged, so a name that resolves elsewhere a moment later
    /// (DNS rebinding) cannot move the connection. Empty: resolve `host` (TLS still verifies
    /// `host` either way).
    pub connect_to: Vec<std::net::IpAddr>,
}

/// `smtp://HOST:PORT?domain=DOMAIN&allow_remote=true` (or `?address=ADDR` instead of
/// `domain=`): the embedded receiver listens on HOST:PORT.
#[derive(Clone, PartialEq, Eq)]
pub struct SmtpUrl {
    /// Port 0 picks a free port; see `SmtpInbox::local_addr`. Loopback unless
    /// [`SmtpUrl::allow_remote`].
    pub listen: SocketAddr,
    /// Lower-cased; each run receives at `run-RUNID@DOMAIN`, or at [`SmtpUrl::address`]
    /// (whose domain this is) when the URL fixed one.
    pub domain: String,
    /// `address=`, lower-cased: every run receives at this one address, as with a mailbox
    /// without plus addressing, so an account made before the run can be used.
    pub address: Option<String>,
    /// The URL says `allow_remote=true`: `listen` may be an address other machines reach.
    pub allow_remote: bool,
}

/// Who supplies inbox URLs, which decides what they may ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caller {
    /// A person running planlock: an embedded SMTP receiver may listen beyond loopback when
    /// the URL says `allow_remote=true`.
    Operator,
    /// The HTTP service, for the URLs it is configured with and those requests bring: a
    /// receiver listens on loopback only, whatever the URL says.
    Service,
}

impl ImapUrl {
    /// The address a run with this id receives mail at.
    pub fn run_address(&self, run_id: &str) -> String {
        if !self.plus {
            return self.address.clone();
        }
        match self.address.rsplit_once('@') {
            Some((local, domain)) => format!("{local}+{run_id}@{domain}"),
            None => self.address.clone(),
        }
    }
}

impl ImapUrl {
    /// The server and user without password or mailbox, e.g. `imap://bob@127.0.0.1:1143`.
    pub fn server(&self) -> String {
        let scheme = if self.tls { "imaps" } else { "imap" };
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        // `@` in a user name (`me@gmail.com`) is escaped so the host stays unambiguous.
        let user = self.user.replace('%', "%25").replace('@', "%40");
        format!("{scheme}://{user}@{host}:{}", self.port)
    }
}

impl fmt::Display for ImapUrl {
    /// The URL without password or query, e.g. `imap://bob@127.0.0.1:1143/INBOX`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.server(), self.mailbox)
    }
}

impl fmt::Debug for ImapUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ImapUrl")
            .field("url", &self.to_string())
            .field("password", &"••••")
            .field("address", &self.address)
            .field("plus", &self.plus)
            .field("poll", &self.poll)
            .field("max_connections", &self.max_connections)
            .finish()
    }
}

impl fmt::Display for SmtpUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.address {
            Some(address) => write!(f, "smtp://{}?address={address}", self.listen)?,
            None => write!(f, "smtp://{}?domain={}", self.listen, self.domain)?,
        }
        if self.allow_remote {
            f.write_str("&allow_remote=true")?;
        }
        Ok(())
    }
}

impl fmt::Debug for SmtpUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SmtpUrl({self})")
    }
}

impl fmt::Display for InboxUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InboxUrl::Imap(u) => u.fmt(f),
            InboxUrl::Smtp(u) => u.fmt(f),
        }
    }
}

impl fmt::Debug for InboxUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InboxUrl::Imap(u) => u.fmt(f),
            InboxUrl::Smtp(u) => u.fmt(f),
        }
    }
}

/// What is wrong with an inbox URL, as facts. Each displays as a sentence that names no flag
/// or request field: the front end says where the URL came from (`--inbox`, `inbox[0]`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UrlProblem {
    /// No `scheme://` at all.
    #[error(
        "not a URL: expected imap://USER:PASS@HOST:PORT/MAILBOX?address=ADDR, imaps://..., or \
         smtp://127.0.0.1:2525?domain=DOMAIN, optionally prefixed with NAME="
    )]
    NotAUrl,
    /// The `NAME=` before the URL is not a name.
    #[error(
        "the inbox name `{name}` may only use letters, digits, `_` and `-` (write NAME=URL, \
         e.g. work=imap://...)"
    )]
    BadName { name: String },
    /// The URL does not parse.
    #[error(
        "not a valid URL ({reason}); a password with `@`, `:` or `/` must be percent-encoded \
         (`@` is %40)"
    )]
    Malformed { reason: url::ParseError },
    /// A scheme other than `imap`, `imaps` and `smtp`.
    #[error(
        "the scheme `{scheme}` is not an inbox's: use imap://, imaps:// (a mailbox on a server) \
         or smtp:// (planlock's own receiver)"
    )]
    UnknownScheme { scheme: String },
    /// An IMAP URL without a host.
    #[error("no server: write imap://USER:PASS@HOST:PORT/MAILBOX")]
    NoServer,
    /// An IMAP URL without a user name.
    #[error("no user name: write imap://USER:PASS@{host}:{port}/MAILBOX")]
    NoUser { host: String, port: u16 },
    /// An IMAP URL without a password. `user` is as written in the URL (percent-encoded).
    #[error(
        "no password: write imap://{user}:PASSWORD@{host}:{port}/... (percent-encode `@`, `:` \
         and `/` in it)"
    )]
    NoPassword {
        user: String,
        host: String,
        port: u16,
    },
    /// `poll_ms=` out of range or not a number.
    #[error(
        "poll_ms=`{value}` must be a whole number of milliseconds from {} to {}",
        POLL_MS_RANGE.start(),
        POLL_MS_RANGE.end()
    )]
    BadPoll { value: String },
    /// `max_connections=` out of range or not a number.
    #[error(
        "max_connections=`{value}` must be a whole number from {} to {} (servers cap \
         connections per user: Dovecot at 10, Gmail at 15)",
        MAX_CONNECTIONS_RANGE.start(),
        MAX_CONNECTIONS_RANGE.end()
    )]
    BadMaxConnections { value: String },
    /// A query parameter the scheme does not take.
    #[error("unknown parameter `{key}`; {}", parameters_of(.scheme))]
    UnknownParameter {
        /// `imap` (for `imaps` too) or `smtp`.
        scheme: &'static str,
        key: String,
    },
    /// No `address=`, and the user name is not an address.
    #[error(
        "which address receives this mailbox's mail? The user name `{user}` is not an address, \
         so add ?address=you@example.com"
    )]
    NoAddress { user: String },
    /// `address=` is not `local@domain`.
    #[error("address=`{address}` is not an e-mail address (local@domain)")]
    BadAddress { address: String },
    /// A yes/no parameter with another value.
    #[error("{key}=`{value}` must be true or false")]
    NotABool { key: &'static str, value: String },
    /// A `%` that starts no `%XX` escape.
    #[error(
        "the {part} has a `%` that does not start an escape like %40; write a literal `%` as %25"
    )]
    BadEscape { part: UrlPart },
    /// Escapes that decode to bytes that are not UTF-8.
    #[error("the {part} decodes to bytes that are not UTF-8")]
    NotUtf8 { part: UrlPart },
    /// An SMTP URL with a user or password.
    #[error(
        "the embedded SMTP receiver takes no user or password (it accepts mail without \
         authentication); write smtp://127.0.0.1:2525?domain=DOMAIN"
    )]
    SmtpCredentials,
    /// An SMTP URL with a path.
    #[error("an smtp URL has no mailbox path; write smtp://HOST:PORT?domain=DOMAIN")]
    SmtpPath,
    /// An SMTP URL naming a host instead of an address of this machine.
    #[error(
        "the embedded SMTP receiver listens on an IP address of this machine, not on `{host}`; \
         write smtp://127.0.0.1:2525?domain=..."
    )]
    SmtpHostName { host: String },
    /// An SMTP URL without a host.
    #[error("no address to listen on; write smtp://127.0.0.1:2525?domain=DOMAIN")]
    NoListenAddress,
    /// [`Caller::Service`] asked for a receiver beyond loopback.
    #[error(
        "an embedded SMTP receiver started by the HTTP service listens on loopback only \
         (127.0.0.1 or ::1), whatever the URL says"
    )]
    ServiceListensOnLoopback,
    /// A receiver beyond loopback without `allow_remote=true`.
    #[error(
        "the embedded SMTP receiver listens on loopback only, and {ip} would take mail from \
         other machines; to allow that, add &allow_remote=true (never possible through the \
         HTTP service)"
    )]
    RemoteListen { ip: IpAddr },
    /// An SMTP URL with neither `domain=` nor `address=`.
    #[error(
        "no domain: add ?domain=DOMAIN (each run receives at run-RUNID@DOMAIN), e.g. \
         smtp://127.0.0.1:{port}?domain=demo.test, or ?address=ADDR (every run receives at \
         that one address)"
    )]
    NoDomain { port: u16 },
    /// An SMTP URL with both `domain=` and `address=`.
    #[error(
        "domain= and address= together: write ?domain=DOMAIN for an address per run \
         (run-RUNID@DOMAIN), or ?address=ADDR for one address every run shares, not both"
    )]
    DomainAndAddress,
    /// `domain=` is not a domain name.
    #[error(
        "domain=`{domain}` is not a domain name (letters, digits, `-` and dots, e.g. demo.test)"
    )]
    BadDomain { domain: String },
}

/// A percent-encoded part of an IMAP URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UrlPart {
    UserName,
    Password,
    Mailbox,
}

impl fmt::Display for UrlPart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            UrlPart::UserName => "user name",
            UrlPart::Password => "password",
            UrlPart::Mailbox => "mailbox",
        })
    }
}

fn parameters_of(scheme: &str) -> &'static str {
    match scheme {
        "smtp" => "an smtp URL takes domain= or address=, and allow_remote=",
        _ => "an imap URL takes address=, plus=, poll_ms= and max_connections=",
    }
}

/// Parses one inbox binding: `[NAME=]URL`. The name (letters, digits, `_`, `-`) is what a
/// plan's `inbox_id` refers to; no name binds the default inbox. Parses as the
/// [`Caller::Operator`] would; the HTTP service uses [`parse_binding_as`].
pub fn parse_binding(s: &str) -> Result<(Option<String>, InboxUrl), InboxError> {
    parse_binding_as(s, Caller::Operator)
}

/// [`parse_binding`], with what `caller` may ask for. An error shows the whole binding, its
/// password hidden.
pub fn parse_binding_as(s: &str, caller: Caller) -> Result<(Option<String>, InboxUrl), InboxError> {
    let s = s.trim();
    split_binding(s, caller).map_err(|problem| InboxError::InvalidUrl {
        given: redact(s),
        problem,
    })
}

fn split_binding(s: &str, caller: Caller) -> Result<(Option<String>, InboxUrl), UrlProblem> {
    let Some(scheme_end) = s.find("://") else {
        return Err(UrlProblem::NotAUrl);
    };
    let (name, url) = match s[..scheme_end].split_once('=') {
        Some((name, _)) => {
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            {
                return Err(UrlProblem::BadName {
                    name: name.to_string(),
                });
            }
            (Some(name.to_string()), &s[name.len() + 1..])
        }
        None => (None, s),
    };
    Ok((name, url_of(url, caller)?))
}

/// Parses an inbox URL without a `NAME=` prefix, as the [`Caller::Operator`] would.
pub fn parse_url(s: &str) -> Result<InboxUrl, InboxError> {
    parse_url_as(s, Caller::Operator)
}

/// [`parse_url`], with what `caller` may ask for.
pub fn parse_url_as(s: &str, caller: Caller) -> Result<InboxUrl, InboxError> {
    url_of(s, caller).map_err(|problem| InboxError::InvalidUrl {
        given: redact(s),
        problem,
    })
}

fn url_of(s: &str, caller: Caller) -> Result<InboxUrl, UrlProblem> {
    let url = Url::parse(s).map_err(|reason| UrlProblem::Malformed { reason })?;
    match url.scheme() {
        "imap" | "imaps" => parse_imap(&url).map(InboxUrl::Imap),
        "smtp" => parse_smtp(&url, caller).map(InboxUrl::Smtp),
        other => Err(UrlProblem::UnknownScheme {
            scheme: other.to_string(),
        }),
    }
}

fn parse_imap(url: &Url) -> Result<ImapUrl, UrlProblem> {
    let tls = url.scheme() == "imaps";
    let host = match url.host() {
        Some(url::Host::Domain(d)) if !d.is_empty() => d.to_string(),
        Some(url::Host::Ipv4(ip)) => ip.to_string(),
        Some(url::Host::Ipv6(ip)) => ip.to_string(),
        _ => return Err(UrlProblem::NoServer),
    };
    let port = url.port().unwrap_or(if tls { 993 } else { 143 });
    let user = percent_decode(url.username(), UrlPart::UserName)?;
    if user.is_empty() {
        return Err(UrlProblem::NoUser { host, port });
    }
    let password = match url.password() {
        Some(p) => percent_decode(p, UrlPart::Password)?,
        None => {
            return Err(UrlProblem::NoPassword {
                user: url.username().to_string(),
                host,
                port,
            });
        }
    };
    let path = url.path().trim_start_matches('/');
    let mailbox = if path.is_empty() {
        "INBOX".to_string()
    } else {
        percent_decode(path, UrlPart::Mailbox)?
    };

    let mut address = None;
    let mut plus = false;
    let mut poll = None;
    let mut max_connections = DEFAULT_MAX_CONNECTIONS;
    for (key, value) in url.query_pairs() {
        match key.as_ref() {
            "address" => address = Some(value.trim().to_string()),
            "plus" => plus = parse_bool(&value, "plus")?,
            "poll_ms" => {
                let ms = number_in(&value, &POLL_MS_RANGE).ok_or_else(|| UrlProblem::BadPoll {
                    value: value.to_string(),
                })?;
                poll = Some(Duration::from_millis(ms));
            }
            "max_connections" => {
                max_connections = number_in(&value, &MAX_CONNECTIONS_RANGE).ok_or_else(|| {
                    UrlProblem::BadMaxConnections {
                        value: value.to_string(),
                    }
                })?;
            }
            other => return Err(unknown_parameter("imap", other)),
        }
    }
    let address = match address {
        Some(a) => a,
        None if user.contains('@') => user.clone(),
        None => return Err(UrlProblem::NoAddress { user }),
    };
    check_address(&address)?;
    let poll = poll.unwrap_or(if is_loopback_host(&host) {
        DEFAULT_POLL_LOOPBACK
    } else {
        DEFAULT_POLL_REMOTE
    });
    Ok(ImapUrl {
        tls,
        host,
        port,
        user,
        password,
        mailbox,
        address: address.to_lowercase(),
        plus,
        poll,
        max_connections,
        connect_to: Vec::new(),
    })
}

/// A number within `range`, if `value` is one.
fn number_in<T: std::str::FromStr + PartialOrd>(
    value: &str,
    range: &std::ops::RangeInclusive<T>,
) -> Option<T> {
    value.parse().ok().filter(|n| range.contains(n))
}

/// A query parameter the `scheme`'s URLs do not take.
fn unknown_parameter(scheme: &'static str, key: &str) -> UrlProblem {
    UrlProblem::UnknownParameter {
        scheme,
        key: key.to_string(),
    }
}

fn parse_smtp(url: &Url, caller: Caller) -> Result<SmtpUrl, UrlProblem> {
    if !url.username().is_empty() || url.password().is_some() {
        return Err(UrlProblem::SmtpCredentials);
    }
    if !matches!(url.path(), "" | "/") {
        return Err(UrlProblem::SmtpPath);
    }
    let ip: IpAddr = match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.into(),
        Some(url::Host::Ipv6(ip)) => ip.into(),
        Some(url::Host::Domain("localhost")) => Ipv4Addr::LOCALHOST.into(),
        // `smtp:` is not a special scheme to the `url` crate, so IPv4 hosts arrive as text.
        Some(url::Host::Domain(d)) if !d.is_empty() => {
            d.parse().map_err(|_| UrlProblem::SmtpHostName {
                host: d.to_string(),
            })?
        }
        _ => return Err(UrlProblem::NoListenAddress),
    };
    let port = url.port().unwrap_or(DEFAULT_SMTP_PORT);
    let mut domain = None;
    let mut address = None;
    let mut allow_remote = false;
    for (key, value) in url.query_pairs() {
        match key.as_ref() {
            "domain" => domain = Some(value.trim().to_lowercase()),
            "address" => address = Some(value.trim().to_lowercase()),
            "allow_remote" => allow_remote = parse_bool(&value, "allow_remote")?,
            other => return Err(unknown_parameter("smtp", other)),
        }
    }
    if caller == Caller::Service && (allow_remote || !ip.is_loopback()) {
        return Err(UrlProblem::ServiceListensOnLoopback);
    }
    if !ip.is_loopback() && !allow_remote {
        return Err(UrlProblem::RemoteListen { ip });
    }
    let (domain, address) = match (domain, address) {
        (Some(_), Some(_)) => return Err(UrlProblem::DomainAndAddress),
        (Some(domain), None) if !domain.is_empty() => (domain, None),
        (None, Some(address)) => {
            check_address(&address)?;
            let (_, domain) = address.rsplit_once('@').unwrap_or_default();
            if !is_domain(domain) {
                return Err(UrlProblem::BadAddress { address });
            }
            (domain.to_string(), Some(address))
        }
        _ => return Err(UrlProblem::NoDomain { port }),
    };
    if !is_domain(&domain) {
        return Err(UrlProblem::BadDomain { domain });
    }
    Ok(SmtpUrl {
        listen: SocketAddr::new(ip, port),
        domain,
        address,
        allow_remote,
    })
}

/// Letters, digits, `-` and dots, neither first nor last a dot.
fn is_domain(domain: &str) -> bool {
    !domain.is_empty()
        && domain
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
}

fn check_address(address: &str) -> Result<(), UrlProblem> {
    let ok = match address.rsplit_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && !domain.is_empty()
                && !address
                    .chars()
                    .any(|c| c.is_whitespace() || "<>,;\"".contains(c))
        }
        None => false,
    };
    if ok {
        Ok(())
    } else {
        Err(UrlProblem::BadAddress {
            address: address.to_string(),
        })
    }
}

fn parse_bool(value: &str, key: &'static str) -> Result<bool, UrlProblem> {
    match value.to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" => Ok(true),
        "false" | "0" | "no" => Ok(false),
        _ => Err(UrlProblem::NotABool {
            key,
            value: value.to_string(),
        }),
    }
}

fn is_loopback_host(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<IpAddr>()
            .map(|ip| ip.is_loopback())
            .unwrap_or(false)
}

/// Decodes `%XX` escapes (the `url` crate leaves user info and paths encoded).
fn percent_decode(s: &str, part: UrlPart) -> Result<String, UrlProblem> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            let Some(byte) = hex else {
                return Err(UrlProblem::BadEscape { part });
            };
            out.push(byte);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| UrlProblem::NotUtf8 { part })
}

/// How a front end binds the inboxes a run reads, once the run's lock is fixed: the command
/// line connects its `--inbox` URLs (the operator's own); a service binds its named inboxes
/// and connects the mailboxes a request brings only where `lock` — the request's own, the
/// one the run gets — lets the service reach their servers.
#[async_trait::async_trait]
pub trait BindInboxes: Sync {
    /// Why an inbox cannot be bound, in the front end's words.
    type Error: Send;

    /// Each inbox of the run by the name its steps use (`None`: the default inbox).
    async fn bind(
        &self,
        lock: &crate::lock::Lock,
    ) -> Result<Vec<(Option<String>, std::sync::Arc<dyn super::Inbox>)>, Self::Error>;
}

/// The binding or URL as the user wrote it, with the password replaced, for error messages.
pub fn redact(s: &str) -> String {
    let Some(scheme_end) = s.find("://") else {
        return s.to_string();
    };
    let rest = &s[scheme_end + 3..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    let Some(at) = authority.rfind('@') else {
        return s.to_string();
    };
    let userinfo = &authority[..at];
    match userinfo.split_once(':') {
        Some((user, _)) => format!(
            "{}{user}:••••{}",
            &s[..scheme_end + 3],
            &s[scheme_end + 3 + at..]
        ),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests;
