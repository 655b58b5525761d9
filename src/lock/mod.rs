//! The plan lock: the hosts a run may visit, fixed from the request before any page or email
//! is read. Immutable once built; every top-level navigation is checked against it.

mod address;
mod hosts;
pub mod injection;

use std::collections::BTreeSet;
use std::fmt;
use std::net::{IpAddr, SocketAddr};

use url::{Host, Url};

pub use address::is_private;
pub use hosts::{hosts_in_text, site_of};

use hosts::{
    bare_host, endpoints_in_text, is_port_bound, parse_allowed_host, site_of_host, site_with_port,
};

/// Whether a run may visit private, loopback and link-local addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AddressPolicy {
    /// Whatever address the lock's hosts name: the command line, on the operator's own machine.
    #[default]
    Open,
    /// A service reachable by others: private, loopback and link-local addresses are refused
    /// unless allowed explicitly, judged on the resolved address as well as on literals.
    Service,
}

/// The allowed destinations of one run. Built once, never widened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lock {
    /// Registrable domains (`shop.example`); IP addresses and names of this machine with the
    /// port the request named (`127.0.0.1:8080`), or without one when allowed explicitly
    /// (every port).
    sites: BTreeSet<String>,
    /// Host names the request allowed explicitly: under [`AddressPolicy::Service`] these may
    /// resolve to private addresses (the caller said so).
    explicit_names: BTreeSet<String>,
    policy: AddressPolicy,
}

/// Why a destination was refused. Displays as the sentence users see.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct Refusal {
    /// The refused URL (for the event log).
    pub url: String,
    /// Why, as a sentence.
    pub reason: String,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

/// A request for a lock that cannot be honoured. Front ends say where the value came from
/// (`--allow-host`, `allowed_hosts`); the sentence says what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LockError {
    /// An allowed host that is not a host name.
    #[error(
        "`{given}` is not a host name: give a host like `shop.example` (wildcards are not \
         needed: subdomains of a site are allowed with it)"
    )]
    NotAHost { given: String },
    /// Under [`AddressPolicy::Service`], the request names a private address (or a name
    /// resolving to one) that it did not allow explicitly.
    #[error("[plan] {}, which the service never visits unless it is allowed explicitly.", private_phrase(.host, .ip))]
    PrivateAddress { host: String, ip: IpAddr },
    /// A host was to be added to a lock in use.
    #[error(
        "[plan] cannot add {host} to a running plan's lock. The lock was fixed from the request \
         before any page or email was read; allow the host when the run starts."
    )]
    Fixed { host: String },
}

fn private_phrase(host: &str, ip: &IpAddr) -> String {
    if bare_host(host) == ip.to_string() {
        format!("{ip} is a private, loopback or link-local address")
    } else {
        format!("{host} resolves to {ip}, a private, loopback or link-local address")
    }
}

/// What a lock is built from: the request alone, never anything read during the run.
#[derive(Debug, Clone, Default)]
pub struct LockRequest<'a> {
    /// The goal the plan was made from: hosts it names are allowed.
    pub goal: Option<&'a str>,
    /// The plan's `navigate` URLs, caller variables filled in.
    pub urls: Vec<Url>,
    /// Hosts the caller allowed explicitly (`shop.example`, a URL, an IP address).
    pub allow_hosts: &'a [String],
    pub policy: AddressPolicy,
}

/// The sites a goal names, then the explicitly allowed hosts' sites, in order, without
/// repeats: what a planner is told the run may visit.
pub fn sites_named(goal: Option<&str>, allow_hosts: &[String]) -> Result<Vec<String>, LockError> {
    let mut sites: Vec<String> = Vec::new();
    let named = goal.map(hosts_in_text).unwrap_or_default();
    let allowed = allow_hosts
        .iter()
        .map(|h| parse_allowed_host(h))
        .collect::<Result<Vec<_>, _>>()?;
    for site in named.iter().chain(&allowed).map(|h| site_of(h)) {
        if !sites.contains(&site) {
            sites.push(site);
        }
    }
    Ok(sites)
}

/// What a request allowed explicitly: private addresses it names here pass.
struct Explicit {
    sites: BTreeSet<String>,
    names: BTreeSet<String>,
}

impl Explicit {
    fn of(allow_hosts: &[String]) -> Result<Explicit, LockError> {
        let hosts: Vec<String> = allow_hosts
            .iter()
            .map(|h| parse_allowed_host(h))
            .collect::<Result<_, _>>()?;
        Ok(Explicit {
            sites: hosts.iter().map(|h| site_of(h)).collect(),
            names: hosts
                .iter()
                .map(|h| bare_host(h).to_ascii_lowercase())
                .collect(),
        })
    }

    /// A bare host (no brackets, lower case): its addresses, or the private one that
    /// refuses it. A name allowed explicitly is not resolved.
    async fn judge(&self, bare: &str, port: u16) -> Result<Vec<IpAddr>, LockError> {
        if let Ok(ip) = bare.parse::<IpAddr>() {
            if is_private(ip) && !self.sites.contains(&ip.to_string()) && !self.names.contains(bare)
            {
                return Err(LockError::PrivateAddress {
                    host: bare.to_string(),
                    ip,
                });
            }
            return Ok(vec![ip]);
        }
        let ips = address::resolve(bare, port).await;
        if self.names.contains(bare) {
            return Ok(ips);
        }
        if let Some(ip) = ips.iter().copied().find(|ip| is_private(*ip)) {
            return Err(LockError::PrivateAddress {
                host: bare.to_string(),
                ip,
            });
        }
        Ok(ips)
    }
}

/// Judges a destination the service connects to itself — a mailbox server, a webhook
/// receiver — by the rule its runs' pages follow: a private, loopback or link-local address,
/// literal or resolved, is refused unless `allow_hosts` names it. Returns the addresses
/// judged, so the caller can connect to exactly those (a name resolved again later could
/// point elsewhere).
pub async fn check_service_host(
    host: &str,
    port: u16,
    allow_hosts: &[String],
) -> Result<Vec<IpAddr>, LockError> {
    let explicit = Explicit::of(allow_hosts)?;
    let bare = bare_host(host).to_ascii_lowercase();
    explicit.judge(&bare, port).await
}

impl Lock {
    /// Builds the lock from the request: the sites of the goal's hosts, of the plan's
    /// `navigate` URLs and of the allowed hosts. Under [`AddressPolicy::Service`], a private,
    /// loopback or link-local address the request names — literally, or as a name that
    /// resolves to one — is refused here, before anything runs, unless it was allowed
    /// explicitly (by that address, or by that name).
    pub async fn build(req: &LockRequest<'_>) -> Result<Lock, LockError> {
        let explicit: Vec<String> = req
            .allow_hosts
            .iter()
            .map(|h| parse_allowed_host(h))
            .collect::<Result<_, _>>()?;
        let explicit_sites: BTreeSet<String> = explicit.iter().map(|h| site_of(h)).collect();
        let explicit_names: BTreeSet<String> = explicit
            .iter()
            .map(|h| bare_host(h).to_ascii_lowercase())
            .collect();
        let mut named: Vec<Url> = req.urls.clone();
        if let Some(goal) = req.goal {
            named.extend(endpoints_in_text(goal));
        }
        let mut sites = explicit_sites.clone();
        for url in &named {
            let Some(host) = url.host() else { continue };
            // A port-bound host allowed explicitly is allowed on every port already.
            if !(is_port_bound(&host) && explicit_sites.contains(&site_of_host(&host)))
                && let Some(key) = site_with_port(url)
            {
                sites.insert(key);
            }
        }
        let lock = Lock {
            sites,
            explicit_names: explicit_names.clone(),
            policy: req.policy,
        };
        if req.policy == AddressPolicy::Service {
            let explicit = Explicit {
                sites: explicit_sites,
                names: explicit_names,
            };
            // A name allowed explicitly is not resolved: it passes whatever it points at.
            let names: BTreeSet<String> = named
                .iter()
                .filter_map(|u| u.host_str())
                .map(|h| bare_host(h).to_ascii_lowercase())
                .filter(|h| !explicit.names.contains(h))
                .collect();
            futures::future::try_join_all(names.iter().map(|n| explicit.judge(n, 80))).await?;
        }
        Ok(lock)
    }

    /// A lock over exactly these hosts, any address allowed (tests, the demo).
    pub fn of_hosts<I, S>(hosts: I) -> Result<Lock, LockError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut sites = BTreeSet::new();
        let mut explicit_names = BTreeSet::new();
        for h in hosts {
            let host = parse_allowed_host(h.as_ref())?;
            explicit_names.insert(bare_host(&host).to_ascii_lowercase());
            sites.insert(site_of(&host));
        }
        Ok(Lock {
            sites,
            explicit_names,
            policy: AddressPolicy::Open,
        })
    }

    /// The same sites under [`AddressPolicy::Service`].
    pub fn refusing_private_addresses(mut self) -> Lock {
        self.policy = AddressPolicy::Service;
        self
    }

    /// The allowed sites, sorted, for messages and the review.
    pub fn sites(&self) -> impl Iterator<Item = &str> {
        self.sites.iter().map(String::as_str)
    }

    /// The set as a human list: `shop.example, mail.example` or `nothing`.
    pub fn describe(&self) -> String {
        if self.sites.is_empty() {
            "nothing (no host was named in the request)".to_string()
        } else {
            self.sites.iter().cloned().collect::<Vec<_>>().join(", ")
        }
    }

    /// Checks one top-level destination. Only http(s) URLs whose site is in the lock pass.
    pub fn check(&self, url: &Url) -> Result<(), Refusal> {
        let refuse = |reason: String| Refusal {
            url: url.to_string(),
            reason,
        };
        match url.scheme() {
            "http" | "https" => {}
            "about" if url.as_str() == "about:blank" => return Ok(()),
            other => {
                return Err(refuse(format!(
                    "[plan] `{other}:` URLs are never visited: a run only visits http(s) pages \
                     inside its lock ({}).",
                    self.describe()
                )));
            }
        }
        let Some(host) = url.host() else {
            return Err(refuse(format!("[plan] {url} has no host.")));
        };
        let site = site_of_host(&host);
        let allowed = self.sites.contains(&site)
            || (is_port_bound(&host)
                && site_with_port(url).is_some_and(|key| self.sites.contains(&key)));
        if !allowed {
            let shown = if is_port_bound(&host) {
                format!(
                    "{}:{}",
                    host_display(&host),
                    url.port_or_known_default().unwrap_or(80)
                )
            } else {
                host_display(&host)
            };
            return Err(refuse(format!(
                "[plan] {shown} is not part of this run. This run may visit: {}. Links and text \
                 found in pages or emails cannot add to that set -- it was fixed from the request \
                 before any of it was read.",
                self.describe()
            )));
        }
        if let Some(ip) = literal_ip(&host) {
            self.check_resolved(&ip.to_string(), ip)
                .map_err(|r| refuse(r.reason))?;
        }
        Ok(())
    }

    /// Checks an address a host resolved to, under [`AddressPolicy::Service`].
    pub fn check_resolved(&self, host: &str, ip: IpAddr) -> Result<(), Refusal> {
        if self.policy == AddressPolicy::Service
            && is_private(ip)
            && !self.sites.contains(&ip.to_string())
            && !self
                .explicit_names
                .contains(&bare_host(host).to_ascii_lowercase())
        {
            return Err(Refusal {
                url: host.to_string(),
                reason: LockError::PrivateAddress {
                    host: host.to_string(),
                    ip,
                }
                .to_string(),
            });
        }
        Ok(())
    }

    /// [`Lock::check`], and under [`AddressPolicy::Service`] also the addresses a domain
    /// resolves to, so an allowed site's name that points at a private address
    /// (`metadata.shop.example` → 169.254.169.254) is refused before the browser connects.
    /// Chromium resolves the name again itself; what it then connects to is judged by
    /// [`Lock::connection_addresses`] where the browser's connections go through planlock.
    pub async fn check_navigation(&self, url: &Url) -> Result<(), Refusal> {
        self.check(url)?;
        if self.policy != AddressPolicy::Service {
            return Ok(());
        }
        let Some(Host::Domain(name)) = url.host() else {
            return Ok(());
        };
        let port = url.port_or_known_default().unwrap_or(80);
        for ip in address::resolve(name, port).await {
            self.check_resolved(name, ip)?;
        }
        Ok(())
    }

    /// Where a connection the run's browser opens to `host:port` may go: the addresses `host`
    /// names or resolves to. Under [`AddressPolicy::Service`] a private, loopback or
    /// link-local address that was not allowed explicitly refuses the connection, whatever
    /// asked for it (a frame, an image, a fetch, a WebSocket). The caller connects to exactly
    /// these addresses, so the address judged is the address reached. None when the name does
    /// not resolve.
    pub async fn connection_addresses(
        &self,
        host: &str,
        port: u16,
    ) -> Result<Vec<SocketAddr>, Refusal> {
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        let ips = match bare.parse::<IpAddr>() {
            Ok(ip) => vec![ip],
            Err(_) => address::resolve(bare, port).await,
        };
        for ip in &ips {
            self.check_resolved(bare, *ip)?;
        }
        Ok(ips
            .into_iter()
            .map(|ip| SocketAddr::new(ip, port))
            .collect())
    }

    /// Whether private, loopback and link-local addresses are refused.
    pub fn policy(&self) -> AddressPolicy {
        self.policy
    }

    /// The lock is immutable: any attempt to widen it during a run is refused with the rule.
    pub fn widen(&self, host: &str) -> Result<Lock, LockError> {
        Err(LockError::Fixed {
            host: host.to_string(),
        })
    }
}

fn host_display(host: &Host<&str>) -> String {
    match host {
        Host::Domain(d) => d.to_string(),
        Host::Ipv4(ip) => ip.to_string(),
        Host::Ipv6(ip) => format!("[{ip}]"),
    }
}

fn literal_ip(host: &Host<&str>) -> Option<IpAddr> {
    match host {
        Host::Ipv4(ip) => Some(IpAddr::V4(*ip)),
        Host::Ipv6(ip) => Some(IpAddr::V6(*ip)),
        Host::Domain(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    fn service(goal: Option<&str>, urls: &[&str], allow: &[&str]) -> Result<Lock, LockError> {
        let allow: Vec<String> = allow.iter().map(|s| s.to_string()).collect();
        let req = LockRequest {
            goal,
            urls: urls.iter().map(|u| url(u)).collect(),
            allow_hosts: &allow,
            policy: AddressPolicy::Service,
        };
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(Lock::build(&req))
    }

    #[test]
    fn service_locks_refuse_private_literals_unless_allowed_by_name() {
        let e = service(None, &["http://127.0.0.1:9/x"], &[]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "[plan] 127.0.0.1 is a private, loopback or link-local address, which the service \
             never visits unless it is allowed explicitly."
        );
        let lock = service(None, &["http://127.0.0.1:9/x"], &["127.0.0.1"]).unwrap();
        assert!(lock.check(&url("http://127.0.0.1:9/y")).is_ok());
        // Other private addresses stay refused inside the run.
        assert!(lock.check(&url("http://10.0.0.1/")).is_err());
    }

    #[test]
    fn service_locks_refuse_metadata_mapped_and_loopback_names() {
        for u in [
            "http://169.254.169.254/latest/meta-data/",
            "http://[::ffff:127.0.0.1]/",
            "http://[::1]:8080/",
            "http://localhost:8080/",
        ] {
            let e = service(None, &[u], &[]).unwrap_err();
            assert!(matches!(e, LockError::PrivateAddress { .. }), "{u}: {e}");
        }
    }

    #[test]
    fn service_locks_judge_the_goals_hosts_too() {
        let e = service(
            Some("sign up at http://10.1.2.3/ then shop.example"),
            &["https://shop.example/"],
            &[],
        )
        .unwrap_err();
        assert!(matches!(e, LockError::PrivateAddress { .. }), "{e}");
    }

    #[test]
    fn locks_hold_the_sites_of_goal_urls_and_allowed_hosts() {
        let lock = service(
            Some("buy at https://www.shop.example/x"),
            &["https://accounts.shop.example/"],
            &["https://pay.example/checkout"],
        )
        .unwrap();
        assert_eq!(
            lock.sites().collect::<Vec<_>>(),
            ["pay.example", "shop.example"]
        );
        assert_eq!(
            sites_named(
                Some("go to mail.test then shop.example"),
                &["pay.example".into()]
            )
            .unwrap(),
            ["mail.test", "shop.example", "pay.example"]
        );
        let e = sites_named(None, &["*.shop.example".into()]).unwrap_err();
        assert_eq!(
            e,
            LockError::NotAHost {
                given: "*.shop.example".into()
            }
        );
    }

    #[test]
    fn subdomains_of_an_allowed_site_pass_and_others_are_refused() {
        let lock = Lock::of_hosts(["shop.example"]).unwrap();
        assert!(lock.check(&url("https://accounts.shop.example/x")).is_ok());
        let r = lock.check(&url("https://evil.test/")).unwrap_err();
        assert_eq!(
            r.reason,
            "[plan] evil.test is not part of this run. This run may visit: shop.example. Links and \
             text found in pages or emails cannot add to that set -- it was fixed from the request \
             before any of it was read."
        );
        // A look-alike suffix is a different site.
        assert!(lock.check(&url("https://shop.example.evil.test/")).is_err());
    }

    #[test]
    fn public_suffixes_are_respected() {
        let lock = Lock::of_hosts(["shop.co.uk"]).unwrap();
        assert!(lock.check(&url("https://www.shop.co.uk/")).is_ok());
        assert!(lock.check(&url("https://other.co.uk/")).is_err());
    }

    #[test]
    fn an_empty_lock_allows_nothing() {
        let lock = Lock::of_hosts(Vec::<String>::new()).unwrap();
        let r = lock.check(&url("https://shop.example/")).unwrap_err();
        assert!(r.reason.contains("may visit: nothing"), "{r}");
    }

    #[test]
    fn only_http_schemes() {
        let lock = Lock::of_hosts(["shop.example"]).unwrap();
        for bad in [
            "javascript:alert(1)",
            "data:text/html,hi",
            "file:///etc/passwd",
        ] {
            assert!(lock.check(&url(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn private_addresses_in_server_mode() {
        let lock = Lock::of_hosts(["169.254.169.254", "shop.example"])
            .unwrap()
            .refusing_private_addresses();
        assert!(
            lock.check(&url("http://169.254.169.254/")).is_ok(),
            "explicitly allowed"
        );
        let lock = Lock::of_hosts(["shop.example"])
            .unwrap()
            .refusing_private_addresses();
        // A name of an allowed site, not allowed by that name: judged on its address.
        let name = "metadata.shop.example";
        assert!(
            lock.check_resolved(name, "10.0.0.1".parse().unwrap())
                .is_err()
        );
        assert!(
            lock.check_resolved(name, "::ffff:127.0.0.1".parse().unwrap())
                .is_err()
        );
        assert!(
            lock.check_resolved(name, "93.184.216.34".parse().unwrap())
                .is_ok()
        );
        // The name the caller allowed explicitly may be private: the caller said so.
        assert!(
            lock.check_resolved("shop.example", "10.0.0.1".parse().unwrap())
                .is_ok()
        );
    }

    #[test]
    fn cloud_metadata_and_mapped_addresses_are_private_in_server_mode() {
        let lock = Lock::of_hosts(["shop.example", "169.254.169.254"])
            .unwrap()
            .refusing_private_addresses();
        let other = Lock::of_hosts(["shop.example"])
            .unwrap()
            .refusing_private_addresses();
        for ip in [
            "169.254.169.254",
            "::ffff:169.254.169.254",
            "::ffff:a9fe:a9fe",
            "64:ff9b::a9fe:a9fe",
            "127.0.0.1",
            "::ffff:127.0.0.1",
            "::1",
            "0.0.0.0",
            "0.1.2.3",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "100.100.100.200",
            "fd00:ec2::254",
            "fe80::1",
            "fec0::1",
            "::",
        ] {
            let addr: IpAddr = ip.parse().unwrap();
            assert!(is_private(addr), "{ip}");
            let r = other.check_resolved("www.shop.example", addr).unwrap_err();
            assert!(
                r.reason.starts_with("[plan] www.shop.example resolves to ")
                    && r.reason.contains("private, loopback or link-local"),
                "{r}"
            );
        }
        // Allowed explicitly: that address, not its neighbours or other spellings.
        let meta: IpAddr = "169.254.169.254".parse().unwrap();
        assert!(lock.check_resolved("www.shop.example", meta).is_ok());
        assert!(
            lock.check_resolved("www.shop.example", "169.254.169.253".parse().unwrap())
                .is_err()
        );
        for public in ["93.184.216.34", "2606:2800:220:1::", "64:ff9b::5db8:d822"] {
            let addr: IpAddr = public.parse().unwrap();
            assert!(!is_private(addr), "{public}");
            assert!(other.check_resolved("www.shop.example", addr).is_ok());
        }
    }

    #[test]
    fn private_literals_in_urls_in_server_mode() {
        let none = Lock::of_hosts(["shop.example"])
            .unwrap()
            .refusing_private_addresses();
        for u in [
            "http://169.254.169.254/latest/meta-data/",
            "http://[::ffff:169.254.169.254]/",
            "http://[64:ff9b::a9fe:a9fe]/",
            "http://2852039166/",
            "http://0xa9.0xfe.0xa9.0xfe/",
            "http://127.1/",
            "http://[::1]:8080/",
        ] {
            assert!(none.check(&url(u)).is_err(), "{u}");
        }
        // An IPv4 address allowed explicitly does not allow its IPv4-mapped IPv6 spelling.
        let v4 = Lock::of_hosts(["169.254.169.254"])
            .unwrap()
            .refusing_private_addresses();
        assert!(v4.check(&url("http://169.254.169.254/")).is_ok());
        assert!(v4.check(&url("http://[::ffff:169.254.169.254]/")).is_err());
        // A bare IPv6 address can be allowed, and then it is allowed in server mode too.
        let v6 = Lock::of_hosts(["::ffff:a9fe:a9fe", "::1"])
            .unwrap()
            .refusing_private_addresses();
        assert!(v6.check(&url("http://[::ffff:169.254.169.254]/")).is_ok());
        assert!(v6.check(&url("http://[::1]:8080/")).is_ok());
        assert!(v6.check(&url("http://169.254.169.254/")).is_err());
    }

    #[test]
    fn ip_literals_and_look_alikes_are_compared_exactly() {
        let lock = Lock::of_hosts(["127.0.0.1"]).unwrap();
        assert!(lock.check(&url("http://127.0.0.1:8080/x")).is_ok());
        // Other spellings of the same address parse to it.
        assert!(lock.check(&url("http://2130706433/")).is_ok());
        assert!(lock.check(&url("http://127.1/")).is_ok());
        for u in [
            "http://127.0.0.2/",
            "http://2130706434/",
            "http://127.0.0.1.evil.test/",
            "http://127.0.0.1@127.0.0.2/",
            "http://[::1]/",
        ] {
            let r = lock.check(&url(u)).unwrap_err();
            assert!(
                r.reason
                    .contains(" is not part of this run. This run may visit: 127.0.0.1."),
                "{u}: {r}"
            );
        }
        let r = lock
            .check(&url("http://127.0.0.1@127.0.0.2:9/"))
            .unwrap_err();
        assert!(
            r.reason.starts_with("[plan] 127.0.0.2:9 is not part"),
            "{r}"
        );
        // Homographs are other sites (punycode).
        let lock = Lock::of_hosts(["shop.example"]).unwrap();
        let r = lock
            .check(&url("https://sh\u{043e}p.example/"))
            .unwrap_err();
        assert!(r.reason.starts_with("[plan] xn--"), "{r}");
        // Shared-hosting suffixes (the private section of the list) separate their tenants.
        let lock = Lock::of_hosts(["alice.github.io"]).unwrap();
        assert!(lock.check(&url("https://alice.github.io/x")).is_ok());
        assert!(lock.check(&url("https://bob.github.io/")).is_err());
        // Case, trailing dots and ports do not matter.
        let lock = Lock::of_hosts(["Shop.Example."]).unwrap();
        assert!(lock.check(&url("https://WWW.SHOP.EXAMPLE.:8443/")).is_ok());
    }

    #[test]
    fn allowed_hosts_are_validated() {
        assert!(Lock::of_hosts(["*.shop.example"]).is_err());
        assert!(Lock::of_hosts(["https://shop.example/path"]).is_ok());
        let lock = Lock::of_hosts(["https://www.shop.example/path"]).unwrap();
        assert_eq!(lock.sites().collect::<Vec<_>>(), ["shop.example"]);
    }

    #[test]
    fn hosts_are_found_in_goals() {
        let hosts = hosts_in_text(
            "Sign up at shop.example and verify via https://mail.test/x, email me@ex.com",
        );
        assert_eq!(hosts, ["shop.example", "mail.test"]);
        assert!(hosts_in_text("click the button. then wait").is_empty());
    }

    #[tokio::test]
    async fn server_mode_judges_the_resolved_address_of_names_not_allowed_by_name() {
        // The site is allowed (`localhost` is its own site), but `app.localhost` was not
        // allowed by name and resolves to loopback (where it resolves at all).
        let lock = Lock::of_hosts(["localhost"])
            .unwrap()
            .refusing_private_addresses();
        assert!(
            lock.check_navigation(&url("http://localhost:9/"))
                .await
                .is_ok(),
            "allowed by that very name"
        );
        let r = lock.check_resolved("app.localhost", "127.0.0.1".parse().unwrap());
        assert!(r.unwrap_err().reason.contains("resolves to"));
        // Outside server mode the name alone decides.
        let open = Lock::of_hosts(["localhost"]).unwrap();
        assert!(
            open.check_navigation(&url("http://localhost:9/"))
                .await
                .is_ok()
        );
    }

    #[tokio::test]
    async fn connections_are_judged_on_the_address_they_reach() {
        let lock = Lock::of_hosts(["127.0.0.1", "shop.example"])
            .unwrap()
            .refusing_private_addresses();
        let ok = lock.connection_addresses("127.0.0.1", 8080).await.unwrap();
        assert_eq!(ok, ["127.0.0.1:8080".parse::<SocketAddr>().unwrap()]);
        for (host, shown) in [
            ("127.0.0.3", "[plan] 127.0.0.3 is a private"),
            ("169.254.169.254", "[plan] 169.254.169.254 is a private"),
            ("[::1]", "[plan] ::1 is a private"),
        ] {
            let r = lock.connection_addresses(host, 80).await.unwrap_err();
            assert!(r.reason.starts_with(shown), "{host}: {r}");
        }
        // A name is judged on what it resolves to: allowed as 127.0.0.1, refused otherwise.
        assert!(lock.connection_addresses("localhost", 80).await.is_ok());
        let shop = Lock::of_hosts(["shop.example"])
            .unwrap()
            .refusing_private_addresses();
        let r = shop
            .connection_addresses("localhost", 80)
            .await
            .unwrap_err();
        assert!(r.reason.starts_with("[plan] localhost resolves to "), "{r}");
        // Outside server mode the addresses are only looked up.
        let open = Lock::of_hosts(["shop.example"]).unwrap();
        assert!(open.connection_addresses("127.0.0.3", 80).await.is_ok());
        assert!(open.connection_addresses("localhost", 80).await.is_ok());
    }

    #[test]
    fn ip_addresses_and_local_names_are_locked_with_their_port() {
        let req = |urls: &[&str], allow: &[String]| {
            let urls = urls.iter().map(|u| url(u)).collect();
            let req = LockRequest {
                goal: Some("then check http://127.0.0.1:4000/admin"),
                urls,
                allow_hosts: allow,
                policy: AddressPolicy::Open,
            };
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap()
                .block_on(Lock::build(&req))
                .unwrap()
        };
        let lock = req(&["http://127.0.0.1:8080/", "http://localhost:5173/x"], &[]);
        assert_eq!(
            lock.sites().collect::<Vec<_>>(),
            ["127.0.0.1:4000", "127.0.0.1:8080", "localhost:5173"]
        );
        assert!(lock.check(&url("http://127.0.0.1:8080/a")).is_ok());
        assert!(lock.check(&url("http://127.0.0.1:4000/admin")).is_ok());
        assert!(lock.check(&url("http://localhost:5173/b")).is_ok());
        let r = lock.check(&url("http://127.0.0.1:9222/json")).unwrap_err();
        assert!(
            r.reason
                .starts_with("[plan] 127.0.0.1:9222 is not part of this run."),
            "{r}"
        );
        assert!(lock.check(&url("http://localhost:8080/")).is_err());
        // Allowed explicitly, an address is allowed on every port.
        let lock = req(&["http://127.0.0.1:8080/"], &["127.0.0.1".to_string()]);
        assert_eq!(lock.sites().collect::<Vec<_>>(), ["127.0.0.1"]);
        assert!(lock.check(&url("http://127.0.0.1:9222/")).is_ok());
    }

    #[test]
    fn widening_is_refused_with_the_rule() {
        let lock = Lock::of_hosts(["shop.example"]).unwrap();
        let e = lock.widen("evil.test").unwrap_err();
        assert_eq!(
            e,
            LockError::Fixed {
                host: "evil.test".into()
            }
        );
        assert!(
            e.to_string().contains("allow the host when the run starts"),
            "{e}"
        );
    }
}
