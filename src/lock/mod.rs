//! The plan lock (SPEC §4): the hosts a run may visit, fixed from the request before any page
//! or email is read. Immutable once built; every top-level navigation is checked against it.

pub mod injection;

use std::collections::BTreeSet;
use std::fmt;
use std::net::IpAddr;

use url::{Host, Url};

use crate::plan::{Plan, Step};

/// The allowed destinations of one run. Built once, never widened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lock {
    /// Registrable domains (`shop.example`) and literal IP addresses.
    sites: BTreeSet<String>,
    /// Server mode: refuse private, loopback and link-local addresses unless listed explicitly.
    refuse_private: bool,
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

/// A request to build a lock that cannot be honoured.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct LockError(pub String);

impl Lock {
    /// Builds the lock from the request alone: URLs and hosts in the goal, the plan's
    /// `navigate` steps (after caller variables are substituted), and `--allow-host`.
    pub fn from_request(
        goal: Option<&str>,
        plan: &Plan,
        allow_hosts: &[String],
    ) -> Result<Lock, LockError> {
        let mut sites = BTreeSet::new();
        if let Some(goal) = goal {
            for host in hosts_in_text(goal) {
                sites.insert(site_of(&host));
            }
        }
        for step in &plan.steps {
            if let Step::Navigate { url } = step
                && let Ok(u) = Url::parse(url)
                && let Some(host) = u.host()
            {
                sites.insert(site_of_host(&host));
            }
        }
        for host in allow_hosts {
            sites.insert(site_of(&parse_allowed_host(host)?));
        }
        Ok(Lock {
            sites,
            refuse_private: false,
        })
    }

    /// A lock over exactly these hosts (tests, the HTTP service).
    pub fn of_hosts<I, S>(hosts: I) -> Result<Lock, LockError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut sites = BTreeSet::new();
        for h in hosts {
            sites.insert(site_of(&parse_allowed_host(h.as_ref())?));
        }
        Ok(Lock {
            sites,
            refuse_private: false,
        })
    }

    /// Server mode: private, loopback and link-local addresses are refused unless the
    /// address itself was allowed explicitly.
    pub fn refusing_private_addresses(mut self) -> Lock {
        self.refuse_private = true;
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
        if !self.sites.contains(&site) {
            return Err(refuse(format!(
                "[plan] {} is not part of this run. This run may visit: {}. Links and text found \
                 in pages or emails cannot add to that set -- it was fixed from the request before \
                 any of it was read.",
                host_display(&host),
                self.describe()
            )));
        }
        if self.refuse_private
            && let Some(ip) = literal_ip(&host)
            && is_private(ip)
            && !self.sites.contains(&ip.to_string())
        {
            return Err(refuse(format!(
                "[plan] {ip} is a private, loopback or link-local address, which the service \
                 never visits unless it is allowed explicitly."
            )));
        }
        Ok(())
    }

    /// Checks a resolved address for server mode (DNS answers are judged, not names).
    pub fn check_resolved(&self, host: &str, ip: IpAddr) -> Result<(), Refusal> {
        if self.refuse_private && is_private(ip) && !self.sites.contains(&ip.to_string()) {
            return Err(Refusal {
                url: host.to_string(),
                reason: format!(
                    "[plan] {host} resolves to {ip}, a private, loopback or link-local address, \
                     which the service never visits unless it is allowed explicitly."
                ),
            });
        }
        Ok(())
    }

    /// [`Lock::check`], and in server mode also the addresses a domain resolves to, so an
    /// allowed site's name that points at a private address (`metadata.shop.example` →
    /// 169.254.169.254) is refused before the browser connects. Chromium resolves the name
    /// again itself, so DNS rebinding between the two answers is not covered.
    pub async fn check_navigation(&self, url: &Url) -> Result<(), Refusal> {
        self.check(url)?;
        if !self.refuse_private {
            return Ok(());
        }
        let Some(Host::Domain(name)) = url.host() else {
            return Ok(());
        };
        let port = url.port_or_known_default().unwrap_or(80);
        let lookup = tokio::net::lookup_host((name, port));
        // A name that does not resolve here will not load in the browser either.
        let Ok(Ok(addrs)) = tokio::time::timeout(std::time::Duration::from_secs(3), lookup).await
        else {
            return Ok(());
        };
        for addr in addrs {
            self.check_resolved(name, addr.ip())?;
        }
        Ok(())
    }

    /// The lock is immutable: any attempt to widen it during a run is refused with the rule.
    pub fn widen(&self, host: &str) -> Result<Lock, LockError> {
        Err(LockError(format!(
            "[plan] cannot add {host} to a running plan's lock. The lock was fixed from the request \
             before any page or email was read; allow the host when you start the run \
             (--allow-host {host})."
        )))
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

/// Private, loopback, link-local (cloud metadata such as 169.254.169.254), unspecified, CGNAT,
/// "this network" (0.0.0.0/8, which Linux treats as local), unique-local and site-local IPv6,
/// and IPv4 addresses carried inside IPv6 (IPv4-mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`).
pub fn is_private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            v4.is_private()
                || v4.is_loopback()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || a == 0
                || (a == 100 && (b & 0xc0) == 64)
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_private(IpAddr::V4(v4));
            }
            let seg = v6.segments();
            // NAT64 well-known prefix: the last 32 bits are the IPv4 address reached.
            if seg[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
                let [.., hi, lo] = seg;
                let v4 = std::net::Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
                return is_private(IpAddr::V4(v4));
            }
            v6.is_loopback()
                || v6.is_unspecified()
                || (seg[0] & 0xfe00) == 0xfc00
                || (seg[0] & 0xffc0) == 0xfe80
                || (seg[0] & 0xffc0) == 0xfec0
        }
    }
}

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

fn site_of_host(host: &Host<&str>) -> String {
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

fn parse_allowed_host(host: &str) -> Result<String, LockError> {
    let trimmed = host.trim();
    let candidate = if let Ok(IpAddr::V6(v6)) = trimmed.parse::<IpAddr>() {
        // A bare IPv6 address (`::1`) is a host too.
        Some(format!("[{v6}]"))
    } else if trimmed.contains("://") {
        Url::parse(trimmed)
            .ok()
            .and_then(|u| u.host_str().map(str::to_string))
    } else {
        Url::parse(&format!("http://{trimmed}/"))
            .ok()
            .and_then(|u| u.host_str().map(str::to_string))
    };
    match candidate {
        Some(h) if !h.is_empty() && !trimmed.contains('*') => Ok(h),
        _ => Err(LockError(format!(
            "--allow-host `{host}` is not a host name: give a host like `shop.example` \
             (wildcards are not needed: subdomains of a site are allowed with it)"
        ))),
    }
}

/// Hosts named in free text: absolute URLs and bare domain-like words (`shop.example`).
pub fn hosts_in_text(text: &str) -> Vec<String> {
    let mut hosts = Vec::new();
    for word in text.split(|c: char| c.is_whitespace() || "\"'<>(),;".contains(c)) {
        let word = word.trim_matches(|c: char| ".:!?".contains(c));
        if word.is_empty() || word.contains('@') {
            continue;
        }
        if word.contains("://") {
            if let Ok(u) = Url::parse(word)
                && let Some(h) = u.host_str()
            {
                hosts.push(h.to_string());
            }
            continue;
        }
        let host = word.split(['/', '?', '#']).next().unwrap_or("");
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
        if (looks_like_domain && psl::suffix_str(&host_only.to_ascii_lowercase()).is_some())
            || is_ip
        {
            hosts.push(host_only.to_ascii_lowercase());
        }
    }
    hosts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
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
        assert!(
            lock.check_resolved("shop.example", "10.0.0.1".parse().unwrap())
                .is_err()
        );
        assert!(
            lock.check_resolved("shop.example", "::ffff:127.0.0.1".parse().unwrap())
                .is_err()
        );
        assert!(
            lock.check_resolved("shop.example", "93.184.216.34".parse().unwrap())
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
            let r = other.check_resolved("shop.example", addr).unwrap_err();
            assert!(
                r.reason.starts_with("[plan] shop.example resolves to ")
                    && r.reason.contains("private, loopback or link-local"),
                "{r}"
            );
        }
        // Allowed explicitly: that address, not its neighbours or other spellings.
        let meta: IpAddr = "169.254.169.254".parse().unwrap();
        assert!(lock.check_resolved("shop.example", meta).is_ok());
        assert!(
            lock.check_resolved("shop.example", "169.254.169.253".parse().unwrap())
                .is_err()
        );
        for public in ["93.184.216.34", "2606:2800:220:1::", "64:ff9b::5db8:d822"] {
            let addr: IpAddr = public.parse().unwrap();
            assert!(!is_private(addr), "{public}");
            assert!(other.check_resolved("shop.example", addr).is_ok());
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
                    .contains("is not part of this run. This run may visit: 127.0.0.1."),
                "{u}: {r}"
            );
        }
        let r = lock
            .check(&url("http://127.0.0.1@127.0.0.2:9/"))
            .unwrap_err();
        assert!(r.reason.starts_with("[plan] 127.0.0.2 is not part"), "{r}");
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
    async fn server_mode_judges_the_resolved_address() {
        let lock = Lock::of_hosts(["localhost", "shop.example"])
            .unwrap()
            .refusing_private_addresses();
        // `localhost` is allowed by name, but resolves to loopback: refused in server mode.
        let r = lock
            .check_navigation(&url("http://localhost:9/"))
            .await
            .unwrap_err();
        assert!(r.reason.contains("resolves to"), "{r}");
        // Outside server mode the name alone decides.
        let open = Lock::of_hosts(["localhost"]).unwrap();
        assert!(
            open.check_navigation(&url("http://localhost:9/"))
                .await
                .is_ok()
        );
    }

    #[test]
    fn widening_is_refused_with_the_rule() {
        let lock = Lock::of_hosts(["shop.example"]).unwrap();
        let e = lock.widen("evil.test").unwrap_err();
        assert!(e.0.contains("--allow-host evil.test"), "{e}");
    }
}
