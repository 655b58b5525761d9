//! Who may talk to the service from a browser: nobody but the service's own pages. A page on
//! another site can send simple requests to a loopback port, and a DNS-rebinding page can
//! even read the answers, so `Host` must name this server and `Origin` must be its own.

use axum::extract::{ConnectInfo, FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::{ApiError, ApiErrorKind};
use super::state::{AppState, Caller};

/// Refuses requests whose `Host` is a name this server was not given, and requests a
/// browser sent from a page of another origin. `/healthz` stays open to load balancers,
/// which probe with whatever `Host` they were configured with.
pub(super) async fn same_origin_only(
    State(state): State<AppState>,
    req: Request,
    next: Next,
) -> Response {
    if req.uri().path() == "/healthz" {
        return next.run(req).await;
    }
    let host = match request_host(&req).and_then(|host| {
        check_host(&host, state.host_names())?;
        Ok(host)
    }) {
        Ok(host) => host,
        Err(e) => return e.into_response(),
    };
    if let Err(e) = check_origin(req.headers(), Some(&host)) {
        return e.into_response();
    }
    next.run(req).await
}

/// Under `/v1/`: 401 unless the request carries the server's bearer token, when it has one.
pub(super) async fn require_token(
    State(state): State<AppState>,
    req: Request,
    next: Next,
) -> Response {
    if let Some(token) = state.token() {
        let given = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| {
                let (scheme, rest) = v.trim().split_once(' ')?;
                scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
            });
        let problem = match given {
            None => Some(
                "this server requires a bearer token: send `Authorization: Bearer TOKEN` \
                 (the token is the server's PLANLOCK_TOKEN)",
            ),
            Some(g) if !same_secret(g, token) => Some("the bearer token is not valid"),
            Some(_) => None,
        };
        if let Some(message) = problem {
            return ApiError::new(ApiErrorKind::Unauthorized, message).into_response();
        }
    }
    next.run(req).await
}

/// Who asks (for `--max-runs-per-caller`): under `/v1/`, a server with a token has let in only
/// its holders, who are one caller; else the client's address. Never keyed by what a request
/// says of itself, which a caller could vary at will.
impl FromRequestParts<AppState> for Caller {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Caller, Self::Rejection> {
        if state.token().is_some() {
            return Ok(Caller::Token);
        }
        Ok(parts
            .extensions
            .get::<ConnectInfo<std::net::SocketAddr>>()
            .map_or(Caller::Unknown, |ConnectInfo(peer)| {
                Caller::Address(peer.ip().to_canonical())
            }))
    }
}

/// Compares digests, so the time taken says nothing about the token.
fn same_secret(a: &str, b: &str) -> bool {
    use sha2::{Digest, Sha256};
    let (x, y) = (Sha256::digest(a.as_bytes()), Sha256::digest(b.as_bytes()));
    x.iter()
        .zip(y.iter())
        .fold(0u8, |acc, (p, q)| acc | (p ^ q))
        == 0
}

/// The one `Host` the request names (or the authority of an HTTP/2 request). A request that
/// names none, names it twice, or not in ASCII is refused: which name it meant would be a
/// guess, and a guess is what a rebinding page would exploit.
fn request_host(req: &Request) -> Result<String, ApiError> {
    let refuse = |why: &str| {
        ApiError::new(
            ApiErrorKind::BadHost,
            format!("{why}: send exactly one `Host` header naming this server"),
        )
    };
    let mut given = req.headers().get_all(header::HOST).iter();
    match (given.next(), given.next()) {
        (Some(_), Some(_)) => Err(refuse("the request names its host twice")),
        (Some(one), None) => one
            .to_str()
            .ok()
            .filter(|h| !h.trim().is_empty())
            .map(str::to_string)
            .ok_or_else(|| refuse("the request's `Host` is empty or not ASCII")),
        (None, _) => req
            .uri()
            .authority()
            .map(|a| a.as_str().to_string())
            .ok_or_else(|| refuse("the request names no host")),
    }
}

/// `name[:port]` split, brackets of IPv6 literals removed, the name in lower case.
fn split_host(host: &str) -> (String, Option<u16>) {
    let host = host.trim();
    if let Some(rest) = host.strip_prefix('[')
        && let Some((ip, after)) = rest.split_once(']')
    {
        let port = after.strip_prefix(':').and_then(|p| p.parse().ok());
        return (ip.to_ascii_lowercase(), port);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if !name.contains(':') && port.bytes().all(|b| b.is_ascii_digit()) => {
            (name.to_ascii_lowercase(), port.parse().ok())
        }
        _ => (host.to_ascii_lowercase(), None),
    }
}

/// An IP address (a page cannot rebind one), `localhost`, or a name given with
/// `--host-name`. The port is not compared: a load balancer may forward another one.
fn check_host(host: &str, names: &[String]) -> Result<(), ApiError> {
    let (name, _) = split_host(host);
    let name = name.trim_end_matches('.');
    let known = name.parse::<std::net::IpAddr>().is_ok()
        || name == "localhost"
        || names.iter().any(|n| n.eq_ignore_ascii_case(name));
    if known {
        return Ok(());
    }
    Err(ApiError::new(
        ApiErrorKind::ForbiddenHost,
        format!(
            "this server does not answer to the host name `{name}`: it answers to its IP \
             addresses, localhost and the host names its operator gave it. A page whose name \
             was made to point at this machine (DNS rebinding) looks like this; if `{name}` is \
             yours, its operator can add it"
        ),
    ))
}

/// A browser names the page a request comes from in `Origin` (and `Sec-Fetch-Site`): only
/// this server's own origin may call it. Programs send neither header.
fn check_origin(headers: &HeaderMap, host: Option<&str>) -> Result<(), ApiError> {
    let refuse = |from: &str| {
        ApiError::new(
            ApiErrorKind::CrossSiteRequest,
            format!(
                "requests from web pages of other origins are refused ({from}): a page could \
                 otherwise start runs with this server's inboxes and secrets. Call this API \
                 from a program, not from a browser page"
            ),
        )
    };
    if let Some(site) = headers
        .get("sec-fetch-site")
        .and_then(|v| v.to_str().ok())
        .map(str::to_ascii_lowercase)
        && (site == "cross-site" || site == "same-site")
    {
        return Err(refuse(&format!("Sec-Fetch-Site: {site}")));
    }
    let Some(origin) = headers.get(header::ORIGIN) else {
        return Ok(());
    };
    let origin = origin.to_str().unwrap_or("(unreadable)").trim();
    let from = format!("Origin: {origin}");
    let url = url::Url::parse(origin).map_err(|_| refuse(&from))?;
    let (Some(origin_host), Some(host)) = (url.host_str(), host) else {
        return Err(refuse(&from));
    };
    let (host_name, host_port) = split_host(host);
    let (origin_name, _) = split_host(origin_host);
    // A `Host` without a port names the scheme's default port, as the origin does.
    let origin_port = url.port_or_known_default();
    let same = matches!(url.scheme(), "http" | "https")
        && origin_name == host_name
        && origin_port == host_port.or(origin_port);
    if same { Ok(()) } else { Err(refuse(&from)) }
}

/// Only JSON bodies are read: a page may send `text/plain`, form and multipart bodies to any
/// address without asking, but never `application/json`.
pub(super) fn check_json_content_type(headers: &HeaderMap) -> Result<(), ApiError> {
    let given = headers
        .get(header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap_or("(unreadable)").trim().to_string());
    let is_json = given.as_deref().is_some_and(|ct| {
        ct.split(';')
            .next()
            .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
    });
    if is_json {
        return Ok(());
    }
    Err(ApiError::new(
        ApiErrorKind::UnsupportedMediaType,
        format!(
            "send the body as JSON with `Content-Type: application/json` (this request has {})",
            match given {
                Some(ct) => format!("`{ct}`"),
                None => "no Content-Type".to_string(),
            }
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn hosts_are_addresses_localhost_or_configured_names() {
        let names = vec!["planlock.internal".to_string()];
        for ok in [
            "127.0.0.1:8080",
            "[::1]:8080",
            "10.0.0.5",
            "localhost:8080",
            "LOCALHOST",
            "planlock.internal",
            "Planlock.Internal:443",
            "planlock.internal.",
        ] {
            assert!(check_host(ok, &names).is_ok(), "{ok}");
        }
        for bad in [
            "attacker.test:8080",
            "127.0.0.1.nip.io",
            "localhost.attacker.test",
        ] {
            let e = check_host(bad, &names).unwrap_err();
            assert_eq!(e.kind, ApiErrorKind::ForbiddenHost, "{bad}");
        }
    }

    #[test]
    fn only_the_servers_own_origin_passes() {
        let host = Some("127.0.0.1:8080");
        assert!(check_origin(&headers(&[]), host).is_ok());
        assert!(check_origin(&headers(&[("origin", "http://127.0.0.1:8080")]), host).is_ok());
        assert!(
            check_origin(
                &headers(&[("origin", "https://planlock.example")]),
                Some("planlock.example")
            )
            .is_ok()
        );
        for bad in [
            "http://127.0.0.1:3000",
            "http://attacker.test",
            "null",
            "http://127.0.0.1",
            "file://",
        ] {
            let e = check_origin(&headers(&[("origin", bad)]), host).unwrap_err();
            assert_eq!(e.kind, ApiErrorKind::CrossSiteRequest, "{bad}");
        }
        assert!(check_origin(&headers(&[("origin", "http://127.0.0.1:8080")]), None).is_err());
        assert!(check_origin(&headers(&[("sec-fetch-site", "cross-site")]), host).is_err());
        assert!(check_origin(&headers(&[("sec-fetch-site", "same-origin")]), host).is_ok());
    }

    #[test]
    fn only_json_content_types() {
        assert!(check_json_content_type(&headers(&[("content-type", "application/json")])).is_ok());
        assert!(
            check_json_content_type(&headers(&[(
                "content-type",
                "application/json; charset=utf-8"
            )]))
            .is_ok()
        );
        for bad in [
            "text/plain",
            "application/x-www-form-urlencoded",
            "application/jsonx",
        ] {
            let e = check_json_content_type(&headers(&[("content-type", bad)])).unwrap_err();
            assert_eq!(e.kind, ApiErrorKind::UnsupportedMediaType, "{bad}");
        }
        let e = check_json_content_type(&headers(&[])).unwrap_err();
        assert!(e.message.contains("no Content-Type"), "{}", e.message);
    }
}
