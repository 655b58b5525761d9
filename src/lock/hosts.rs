//! Host names as a request states them: found in a goal's text, given as allowed hosts, and
//! reduced to the site (registrable domain, or IP address) the lock compares.

use std::net::IpAddr;

use url::{Host, Url};

use super::LockError;
use super::address::canonical;

/// The registrable domain of a host (`a.shop.example` → `shop.example`), or the IP itself.
pub fn site_of(host: &str) -> String {
    match Url::parse(&format!("http://{host}/")) {
        Ok(u) => match u.host() {
            Some(h) => site_of_host(&h),
            None => host.to_ascii_lowercase(),
        },
        Err(_) => host.to_ascii_lowercase(),
    }
}

pub(crate) fn site_of_host(host: &Host<&str>) -> String {
    match host {
        Host::Domain(d) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            match psl::domain_str(&d) {
                Some(reg) => reg.to_string(),
                None => d,
            }
        }
        Host::Ipv4(ip) => ip.to_string(),
        Host::Ipv6(ip) => ip.to_string(),
    }
}

/// A host the caller allowed explicitly, as the URL parser writes it, with the port it
/// named, if any (`127.0.0.1:8080`, `http://shop.example:8443/`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AllowedHost {
    pub host: String,
    pub port: Option<u16>,
}

/// Reads a host the caller allowed by name (`shop.example`, `shop.example:8443`,
/// `https://shop.example/x`, `127.0.0.1:3000`, `::1`, `[::1]:3000`).
pub(crate) fn parse_allowed_host(host: &str) -> Result<AllowedHost, LockError> {
    let trimmed = host.trim();
    let not_a_host = || LockError::NotAHost {
        given: host.to_string(),
    };
    if trimmed.contains('*') {
        return Err(not_a_host());
    }
    if let Ok(IpAddr::V6(v6)) = trimmed.parse::<IpAddr>() {
        if canonical(IpAddr::V6(v6)).is_unspecified() {
            return Err(LockError::Unspecified {
                given: trimmed.to_string(),
            });
        }
        // A bare IPv6 address (`::1`) is a host too.
        return Ok(AllowedHost {
            host: format!("[{v6}]"),
            port: None,
        });
    }
    let (url, authority) = match trimmed.split_once("://") {
        Some((_, rest)) => (Url::parse(trimmed).ok(), rest),
        None => (Url::parse(&format!("http://{trimmed}/")).ok(), trimmed),
    };
    let authority = authority.split(['/', '?', '#']).next().unwrap_or("");
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    match url.as_ref().and_then(Url::host_str) {
        Some(h) if is_unspecified(h) => Err(LockError::Unspecified {
            given: host.trim().to_string(),
        }),
        Some(h) if !h.is_empty() => Ok(AllowedHost {
            host: h.to_string(),
            port: written_port(authority).map_err(|()| not_a_host())?,
        }),
        _ => Err(not_a_host()),
    }
}

/// `0.0.0.0` or `[::]` (as a URL writes a host), or 0.0.0.0 spelt as IPv6
/// (`[::ffff:0.0.0.0]`): the address that means "any of this machine's", to listen on. A
/// connection to it reaches this machine.
pub(crate) fn is_unspecified(host: &str) -> bool {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<IpAddr>()
        .is_ok_and(|ip| canonical(ip).is_unspecified())
}

/// The port an authority (`host:port`, `[v6]:port`) writes out, even the scheme's default
/// one, which the URL parser would drop.
fn written_port(authority: &str) -> Result<Option<u16>, ()> {
    let after_host = match authority.strip_prefix('[') {
        Some(rest) => rest.split_once(']').map_or("", |(_, after)| after),
        None => authority.find(':').map_or("", |i| &authority[i..]),
    };
    match after_host.strip_prefix(':') {
        None => Ok(None),
        Some(digits) => digits.parse().map(Some).map_err(|_| ()),
    }
}

/// Hosts named in free text: absolute URLs and bare domain-like words (`shop.example`).
pub fn hosts_in_text(text: &str) -> Vec<String> {
    endpoints_in_text(text)
        .iter()
        .filter_map(|u| u.host_str().map(str::to_string))
        .collect()
}

/// Places named in free text, as URLs: absolute URLs as written, bare domain-like words and
/// IP addresses (`shop.example`, `127.0.0.1:3000`) as `http://WORD/`, so a port named in
/// the text is kept.
pub(crate) fn endpoints_in_text(text: &str) -> Vec<Url> {
    let mut found = Vec::new();
    for word in text.split(|c: char| c.is_whitespace() || "\"'<>(),;".contains(c)) {
        let word = word.trim_matches(|c: char| ".:!?".contains(c));
        if word.is_empty() {
            continue;
        }
        // An `@` in a URL's path or query is data (`/tracker/user?@template=register`); an
        // absolute URL's host is what the URL parser says it is, as in the browser.
        if word.contains("://") {
            if let Ok(u) = Url::parse(word)
                && u.host_str().is_some()
            {
                found.push(u);
            }
            continue;
        }
        let host = word.split(['/', '?', '#']).next().unwrap_or("");
        // An e-mail address names a mailbox, not a site to visit.
        if host.contains('@') {
            continue;
        }
        let host_only = host.rsplit_once(':').map_or(host, |(h, port)| {
            if port.chars().all(|c| c.is_ascii_digit()) {
                h
            } else {
                host
            }
        });
        let labels: Vec<&str> = host_only.split('.').collect();
        let tld = labels.last().copied().unwrap_or("");
        let looks_like_domain = labels.len() >= 2
            && labels
                .iter()
                .all(|l| !l.is_empty() && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
            && tld.len() >= 2
            && tld.chars().all(|c| c.is_ascii_alphabetic());
        let is_ip = host_only.parse::<IpAddr>().is_ok();
        if ((looks_like_domain && psl::suffix_str(&host_only.to_ascii_lowercase()).is_some())
            || is_ip)
            && let Ok(u) = Url::parse(&format!("http://{}/", host.to_ascii_lowercase()))
        {
            found.push(u);
        }
    }
    found
}

/// Whether a host is reached by its port as much as by its name: an IP address, or a name
/// for this machine (`localhost`, `*.localhost`). Many services share such a host.
pub(crate) fn is_port_bound(host: &Host<&str>) -> bool {
    match host {
        Host::Domain(d) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            d == "localhost" || d.ends_with(".localhost")
        }
        Host::Ipv4(_) | Host::Ipv6(_) => true,
    }
}

/// Whether two URLs are on one site: the same registrable domain (`api.shop.example` and
/// `shop.example`), or, for an IP address or a name of this machine, the same host and port.
pub fn same_site(a: &Url, b: &Url) -> bool {
    let (Some(ha), Some(hb)) = (a.host(), b.host()) else {
        return false;
    };
    if is_port_bound(&ha) || is_port_bound(&hb) {
        return ha.to_string().eq_ignore_ascii_case(&hb.to_string())
            && a.port_or_known_default() == b.port_or_known_default();
    }
    site_of_host(&ha) == site_of_host(&hb)
}

/// `[::1]` → `::1`; other hosts unchanged. A `host:port` keeps only the host.
pub(crate) fn bare_host(host: &str) -> &str {
    if let Some(inner) = host.strip_prefix('[') {
        return inner.split(']').next().unwrap_or(inner);
    }
    if host.parse::<IpAddr>().is_ok() {
        return host;
    }
    host.split(['/', ':']).next().unwrap_or(host)
}
