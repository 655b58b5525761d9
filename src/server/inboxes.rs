//! The server's inboxes, chosen by name in requests, and the mailboxes requests may bring
//! (with `--allow-request-inboxes`): how a request's `inbox` entries are read, bound and
//! checked, in the API's words.

use std::collections::HashMap;
use std::sync::{Arc, Weak};

use super::error::{ApiError, ApiErrorKind};
use crate::inbox::{Caller, Inbox, InboxError, InboxUrl, connect, parse_binding_as};
use crate::lock::Lock;
use crate::runner::Binding;

/// Where a request's inbox comes from.
#[derive(Clone)]
pub enum InboxSource {
    /// One of the server's inboxes, by name.
    Server(String),
    /// A mailbox URL the request brings (only with `--allow-request-inboxes`).
    Url(InboxUrl),
}

/// A request's inbox binding: the name steps use (`None`: the default inbox) and its source.
pub type RequestInbox = (Option<String>, InboxSource);

/// The inboxes a server offers its requests.
pub struct ServerInboxes {
    /// The server's inboxes, by name.
    named: Vec<(String, Arc<dyn Inbox>)>,
    /// Whether requests may bring mailbox URLs of their own.
    allow_request: bool,
    smtp: SmtpReceivers,
}

impl ServerInboxes {
    pub fn new(named: Vec<(String, Arc<dyn Inbox>)>, allow_request: bool) -> ServerInboxes {
        ServerInboxes {
            named,
            allow_request,
            smtp: SmtpReceivers::default(),
        }
    }

    /// The names of the server's inboxes, as requests choose them.
    pub fn names(&self) -> Vec<&str> {
        self.named.iter().map(|(n, _)| n.as_str()).collect()
    }

    /// Whether requests may bring mailbox URLs of their own.
    pub fn takes_request_urls(&self) -> bool {
        self.allow_request
    }

    fn get(&self, name: &str) -> Option<&Arc<dyn Inbox>> {
        self.named.iter().find(|(n, _)| n == name).map(|(_, i)| i)
    }

    /// ` (its inboxes: a, b)` (or who declares them), for messages.
    fn names_phrase(&self) -> String {
        if self.named.is_empty() {
            " (it has none; its operator declares the inboxes it has)".to_string()
        } else {
            let names: Vec<&str> = self.named.iter().map(|(n, _)| n.as_str()).collect();
            format!(" (its inboxes: {})", names.join(", "))
        }
    }

    /// Parses `inbox` entries, `[BINDING=]NAME` (a server inbox) or `[BINDING=]URL`: binding
    /// names are unique and at most one is unnamed. Nothing is connected yet.
    pub fn parse(&self, list: &[String]) -> Result<Vec<RequestInbox>, ApiError> {
        let mut out: Vec<RequestInbox> = Vec::new();
        for (i, s) in list.iter().enumerate() {
            let (name, source) = if s.contains("://") {
                if !self.allow_request {
                    return Err(ApiError::new(
                        ApiErrorKind::InvalidInbox,
                        format!(
                            "inbox[{i}]: this server does not take mailbox URLs from requests (it \
                             would connect wherever a caller says): choose one of its inboxes by \
                             name{}; its operator can let requests bring mailbox URLs",
                            self.names_phrase()
                        ),
                    ));
                }
                let (name, url) = parse_binding_as(s, Caller::Service)
                    .map_err(|e| inbox_error(e).at(inbox_at(i)))?;
                (name, InboxSource::Url(url))
            } else {
                let (name, inbox) = match s.split_once('=') {
                    Some((binding, inbox)) => (Some(binding.trim().to_string()), inbox.trim()),
                    None => (None, s.trim()),
                };
                if self.get(inbox).is_none() {
                    return Err(ApiError::new(
                        ApiErrorKind::InvalidInbox,
                        format!(
                            "inbox[{i}]: this server has no inbox named `{inbox}`{}",
                            self.names_phrase()
                        ),
                    ));
                }
                if let Some(b) = &name
                    && (b.is_empty()
                        || !b
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                {
                    return Err(ApiError::new(
                        ApiErrorKind::InvalidInbox,
                        format!(
                            "inbox[{i}]: `{b}` is not an inbox name (letters, digits, `_` and `-`)"
                        ),
                    ));
                }
                (name, InboxSource::Server(inbox.to_string()))
            };
            if out.iter().any(|(n, _)| *n == name) {
                return Err(ApiError::new(
                    ApiErrorKind::InvalidInbox,
                    match &name {
                        Some(n) => format!("inbox[{i}]: the inbox name `{n}` is given twice"),
                        None => format!(
                            "inbox[{i}]: two unnamed inboxes: name all but one, e.g. \"work=NAME\""
                        ),
                    },
                ));
            }
            out.push((name, source));
        }
        Ok(out)
    }

    /// Binds every inbox of the request: a server inbox is shared as it is; a request's IMAP
    /// server is judged by the run's `lock` as its pages are (a private address only where
    /// the lock allows it, on that port), then bound (it connects lazily); an embedded
    /// receiver starts listening on loopback. Whether each can be reached is asked once the
    /// request is known to be valid (see [`unreachable`]).
    pub async fn connect(
        &self,
        bindings: &[RequestInbox],
        lock: &Lock,
    ) -> Result<Vec<Binding>, ApiError> {
        let mut out = Vec::new();
        for (i, (name, source)) in bindings.iter().enumerate() {
            let inbox = match source {
                InboxSource::Server(server_name) => self
                    .get(server_name)
                    .cloned()
                    .ok_or_else(|| ApiError::internal(format!("inbox {server_name} vanished")))?,
                InboxSource::Url(url) => {
                    let mut url = url.clone();
                    if let InboxUrl::Imap(imap) = &mut url {
                        // Connect to the addresses judged here, not to a fresh lookup of the name.
                        imap.connect_to = lock
                            .check_side_host(&imap.host, imap.port)
                            .await
                            .map_err(|e| ApiError::from(e).at(inbox_at(i)))?;
                    }
                    self.smtp
                        .connect(&url)
                        .await
                        .map_err(|e| inbox_error(e).at(inbox_at(i)))?
                }
            };
            out.push((name.clone(), inbox));
        }
        Ok(out)
    }
}

/// 503: a bound inbox cannot be reached or logged into.
pub fn unreachable(inbox: &dyn Inbox, e: InboxError) -> ApiError {
    ApiError::new(
        ApiErrorKind::InboxUnavailable,
        format!("the inbox {} is unreachable: {e}", inbox.describe()),
    )
}

/// `inbox[i]`: where in the request an inbox came from.
fn inbox_at(i: usize) -> String {
    format!("inbox[{i}]")
}

/// An inbox error in the API's words, to be said of the entry it came from: a URL that is
/// wrong is the caller's (422, the problem without the URL, which the caller sent); a
/// mailbox that cannot be reached is the environment's (503).
fn inbox_error(e: InboxError) -> ApiError {
    match e {
        InboxError::InvalidUrl { problem, .. } => {
            ApiError::new(ApiErrorKind::InvalidInbox, problem.to_string())
        }
        other => ApiError::new(ApiErrorKind::InboxUnavailable, other.to_string()),
    }
}

/// The embedded SMTP receivers of the server, one per fixed address, shared by the runs that
/// name it (two requests naming `smtp://127.0.0.1:2525` cannot both listen on it). A receiver
/// stops when the last run using it ends.
#[derive(Default)]
struct SmtpReceivers {
    live: tokio::sync::Mutex<HashMap<String, Weak<dyn Inbox>>>,
}

impl SmtpReceivers {
    async fn connect(&self, url: &InboxUrl) -> Result<Arc<dyn Inbox>, InboxError> {
        let key = match url {
            InboxUrl::Smtp(u) if u.listen.port() != 0 => u.to_string(),
            _ => return connect(url).await,
        };
        // Held across the bind, so two requests cannot race for the same port.
        let mut live = self.live.lock().await;
        if let Some(inbox) = live.get(&key).and_then(Weak::upgrade) {
            return Ok(inbox);
        }
        let inbox = connect(url).await?;
        live.retain(|_, w| w.strong_count() > 0);
        live.insert(key, Arc::downgrade(&inbox));
        Ok(inbox)
    }
}
