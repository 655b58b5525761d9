//! Webhooks: when a run with a `callback_url` ends, its result is POSTed there, signed with
//! the server's `PLANLOCK_WEBHOOK_SECRET`, retried with backoff, never holding up a run.
//! The receiver is judged by the run's own lock, as its pages are, at the request and again
//! at every attempt, and the connection goes to exactly the address judged.

use std::net::SocketAddr;
use std::time::Duration;

use hmac::{Hmac, Mac};
use sha2::Sha256;
use url::Url;

use super::error::{ApiError, ApiErrorKind};
use super::state::AppState;
use crate::lock::{AddressPolicy, Lock, LockRequest};
use crate::runner::RunResult;

/// The header carrying the signature: `t=UNIX_SECONDS,v1=HEX`.
pub const SIGNATURE_HEADER: &str = "Planlock-Signature";
/// The environment variable holding the signing secret.
pub const SECRET_VAR: &str = "PLANLOCK_WEBHOOK_SECRET";
/// How long one attempt may take.
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);

/// Where a run's result goes, and the lock that judges its receiver: the run's own.
#[derive(Debug, Clone)]
pub struct Callback {
    pub url: Url,
    pub lock: Lock,
}

/// Checks a request's `callback_url`: http(s), a host the run's `lock` lets the service
/// reach (a private address only where the lock allows it, on that port; never the
/// service's own address), and a server that can sign.
pub async fn callback_of(state: &AppState, url: &str, lock: &Lock) -> Result<Callback, ApiError> {
    if state.webhook().secret.is_none() {
        return Err(ApiError::new(
            ApiErrorKind::InvalidCallback,
            format!(
                "callback_url: this server cannot sign webhooks: it was started without \
                 {SECRET_VAR}"
            ),
        ));
    }
    let parsed = Url::parse(url.trim())
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
        .ok_or_else(|| {
            ApiError::new(
                ApiErrorKind::InvalidCallback,
                format!("callback_url: `{url}` is not an absolute http(s) URL"),
            )
        })?;
    let host = parsed.host_str().unwrap_or_default();
    let port = parsed.port_or_known_default().unwrap_or(80);
    lock.check_side_host(host, port)
        .await
        .map_err(|e| ApiError::from(e).at("callback_url"))?;
    Ok(Callback {
        url: parsed,
        lock: lock.clone(),
    })
}

/// The callback of a stored run this replica did not start: its receiver judged by the
/// run's lock made again from the sites it was stored with, never reaching this service.
pub async fn stored_callback(
    url: &str,
    sites: &[String],
    service_addresses: &[SocketAddr],
) -> Result<Callback, String> {
    let url = Url::parse(url).map_err(|e| format!("callback_url: {e}"))?;
    let lock = Lock::build(&LockRequest {
        allow_hosts: sites,
        policy: AddressPolicy::Service,
        service_addresses,
        ..LockRequest::default()
    })
    .await
    .map_err(|e| e.to_string())?;
    Ok(Callback { url, lock })
}

/// `t=UNIX_SECONDS,v1=HEX(HMAC-SHA256(secret, "UNIX_SECONDS.BODY"))`.
pub fn signature(secret: &str, unix_seconds: i64, body: &[u8]) -> String {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes any key length");
    mac.update(unix_seconds.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    let hex: String = mac
        .finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("t={unix_seconds},v1={hex}")
}

/// Delivers `result` on its own task, attempt after attempt until one is answered 2xx, the
/// schedule is used up, or the receiver's address is refused.
pub fn spawn_delivery(state: &AppState, run_id: String, callback: Callback, result: &RunResult) {
    let body = serde_json::to_vec(result).unwrap_or_default();
    let state = state.clone();
    let span = tracing::info_span!("webhook", run_id = %run_id);
    tokio::spawn(tracing::Instrument::instrument(
        async move {
            let Some(secret) = state.webhook().secret.clone() else {
                return;
            };
            let schedule = state.webhook().retries.clone();
            let mut attempt = 0u32;
            loop {
                attempt += 1;
                let outcome = attempt_once(&callback, &run_id, &secret, &body).await;
                let last = attempt as usize > schedule.len();
                let (status, error) = match &outcome {
                    Ok(()) => ("delivered", None),
                    Err(Undelivered::Refused(e)) => ("failed", Some(e.clone())),
                    Err(Undelivered::Retry(e)) if last => ("failed", Some(e.clone())),
                    Err(Undelivered::Retry(e)) => ("pending", Some(e.clone())),
                };
                state.metrics().webhook(match status {
                    "pending" => "retried",
                    s => s,
                });
                if let Err(e) = state
                    .store()
                    .set_callback(&run_id, status, attempt, error.as_deref())
                    .await
                {
                    tracing::warn!(error = %e, "webhook state not stored");
                }
                match status {
                    "delivered" => {
                        tracing::info!(attempt, "webhook delivered");
                        return;
                    }
                    "failed" => {
                        tracing::warn!(
                            attempt,
                            error = error.as_deref().unwrap_or(""),
                            "webhook not delivered"
                        );
                        return;
                    }
                    _ => {
                        let wait = schedule[attempt as usize - 1];
                        tracing::info!(
                            attempt,
                            error = error.as_deref().unwrap_or(""),
                            retry_in_ms = wait.as_millis() as u64,
                            "webhook attempt failed"
                        );
                        tokio::select! {
                            _ = tokio::time::sleep(wait) => {}
                            // A server shutting down stops retrying; the state says pending.
                            _ = state.shutdown_token().cancelled() => return,
                        }
                    }
                }
            }
        },
        span,
    ));
}

enum Undelivered {
    /// The address rule refuses the receiver now: no retry.
    Refused(String),
    Retry(String),
}

async fn attempt_once(
    callback: &Callback,
    run_id: &str,
    secret: &str,
    body: &[u8],
) -> Result<(), Undelivered> {
    let url = &callback.url;
    let host = url.host_str().unwrap_or_default();
    let port = url.port_or_known_default().unwrap_or(80);
    let addresses = callback
        .lock
        .check_side_host(host, port)
        .await
        .map_err(|e| Undelivered::Refused(e.to_string()))?;
    let Some(ip) = addresses.first().copied() else {
        return Err(Undelivered::Retry(format!("{host} does not resolve")));
    };
    let mut client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(ATTEMPT_TIMEOUT)
        .user_agent(concat!("planlock/", env!("CARGO_PKG_VERSION")));
    if let Some(url::Host::Domain(name)) = url.host() {
        // Connect to the address judged, not to whatever the name resolves to next.
        client = client.resolve(name, SocketAddr::new(ip, port));
    }
    let client = client
        .build()
        .map_err(|e| Undelivered::Retry(format!("cannot build an HTTP client: {e}")))?;
    let now = chrono::Utc::now().timestamp();
    let response = client
        .post(url.clone())
        .header("content-type", "application/json")
        .header(SIGNATURE_HEADER, signature(secret, now, body))
        .header("Planlock-Run-Id", run_id)
        .body(body.to_vec())
        .send()
        .await
        .map_err(|e| Undelivered::Retry(format!("{url}: {}", without_url(e))))?;
    let status = response.status();
    if status.is_success() {
        Ok(())
    } else {
        Err(Undelivered::Retry(format!("{url} answered {status}")))
    }
}

/// reqwest's error sentence without the URL it repeats, with its causes.
fn without_url(e: reqwest::Error) -> String {
    let e = e.without_url();
    let mut text = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        text = format!("{text}: {s}");
        source = s.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_is_hmac_sha256_of_time_dot_body() {
        // Computed independently: Python's hmac.new(b"whsec", b'1700000000.{"a":1}', sha256).
        assert_eq!(
            signature("whsec", 1_700_000_000, b"{\"a\":1}"),
            "t=1700000000,v1=8ad37ba156048ae0e0a5533c75cdf26fee88b07f93cb57ee4c80adb053012032"
        );
        assert_ne!(
            signature("other", 1_700_000_000, b"{\"a\":1}"),
            signature("whsec", 1_700_000_000, b"{\"a\":1}")
        );
    }
}
