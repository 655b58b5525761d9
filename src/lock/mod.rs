//! The plan lock: the hosts a run may visit, fixed from the request before any page or email
//! is read. Immutable once built; every top-level navigation is checked against it.

mod address;
mod hosts;
pub mod injection;
mod undoing;

use std::collections::{BTreeMap, BTreeSet};
use std::net::{IpAddr, SocketAddr};

use url::{Host, Url};

pub use address::is_private;
pub use hosts::{hosts_in_text, same_site, site_of};
pub use undoing::{Undoing, UndoingPlace};

use hosts::{
    AllowedHost, bare_host, endpoints_in_text, is_port_bound, parse_allowed_host, site_of_host,
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

/// The ports a site may be reached on.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Ports {
    Any,
    Only(BTreeSet<u16>),
}

impl Ports {
    fn only(port: u16) -> Ports {
        Ports::Only(BTreeSet::from([port]))
    }

    fn allows(&self, port: u16) -> bool {
        match self {
            Ports::Any => true,
            Ports::Only(ports) => ports.contains(&port),
        }
    }

    /// Both sets: every port absorbs a list of them.
    fn merge(&mut self, other: Ports) {
        match (&mut *self, other) {
            (Ports::Any, _) => {}
            (_, Ports::Any) => *self = Ports::Any,
            (Ports::Only(mine), Ports::Only(theirs)) => mine.extend(theirs),
        }
    }
}

/// The allowed destinations of one run. Built once, never widened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lock {
    /// Sites (registrable domains like `shop.example`, IP addresses like `127.0.0.1`) and
    /// the ports each may be reached on. An IP address or a name of this machine named in a
    /// URL is allowed on that URL's port; any host allowed with a port on that port only.
    sites: BTreeMap<String, Ports>,
    /// Under [`AddressPolicy::Service`], the addresses each host name the request named
    /// resolved to when the lock was made: the only ones connections to that name reach.
    pinned: BTreeMap<String, Vec<IpAddr>>,
    /// The addresses the service that runs this lock listens on: never reached by a run.
    service: Vec<SocketAddr>,
    policy: AddressPolicy,
}

/// A destination the lock refused: where, and why. Displays as the sentence users see (worded
/// with the runner's failures, where every sentence a run shows is made).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct Refusal {
    /// The refused URL (for the event log and the sentence).
    pub url: String,
    pub why: Why,
    /// Who asked, when it was not the run's own tab: a popup, a frame, a script.
    pub by: Option<Asker>,
}

/// What asked for a refused request, besides the run's own tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Asker {
    /// A page the run's page opened (`window.open`, a `target=_blank` link or form).
    Popup,
    /// A frame of one of the run's pages.
    Frame,
    /// A script of one of the run's pages or of its workers (`fetch`, XHR, a beacon).
    Script,
}

/// Why the lock refused a destination: the facts its sentence is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Why {
    /// Not an http(s) URL (`blob:`, `ftp:`): a run visits no other kind.
    Scheme { scheme: String, allowed: Sites },
    /// An http(s) URL without a host.
    NoHost,
    /// Not a URL at all.
    NotAUrl,
    /// A host (`shown`, with its port where ports decide) outside the lock.
    NotPart { shown: String, allowed: Sites },
    /// Under [`AddressPolicy::Service`], a private, loopback or link-local address `host` is
    /// (or resolves to) that the request did not allow.
    PrivateAddress { host: String, ip: IpAddr },
    /// The service's own address.
    ServiceAddress { addr: SocketAddr },
    /// The browser could not say which page asked for the document (`error`), so it was
    /// refused rather than judged by the wrong lock.
    UnknownPage { error: String },
    /// A request carrying a value the run typed (a secret, an emailed code) to an address that
    /// is not one of the forms it was typed into (`forms`, each up to its path; none when it
    /// was typed outside any form).
    SecretLeaving { forms: Vec<String> },
    /// A script's request carrying a value the run typed, outside the submission of a click
    /// of the run or to another site than the one it was typed on (`sites`).
    SecretByScript { sites: Vec<String> },
    /// A hop of an emailed link's navigation landing on a page whose address says it undoes or
    /// destroys something; `said` is what says so (its address, or one it carries).
    UndoingHop { said: Undoing },
}

impl Refusal {
    pub fn new(url: impl Into<String>, why: Why) -> Refusal {
        Refusal {
            url: url.into(),
            why,
            by: None,
        }
    }

    /// The same refusal, asked for by `by`.
    pub fn by(mut self, by: Asker) -> Refusal {
        self.by = Some(by);
        self
    }
}

/// The sites a lock allows, in order, each with its port where it is allowed on some ports
/// only (`127.0.0.1:8080`). Displays as a list for messages (none: a sentence saying so).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Sites(pub Vec<String>);

/// A request for a lock that cannot be honoured. Front ends say where the value came from
/// (`--allow-host`, `allowed_hosts`); the sentence (worded with the refusals) says what is
/// wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LockError {
    /// An allowed host that is not a host name.
    NotAHost { given: String },
    /// Under [`AddressPolicy::Service`], the request names a private address (or a name
    /// resolving to one) that it did not allow explicitly.
    PrivateAddress { host: String, ip: IpAddr },
    /// Under [`AddressPolicy::Service`], a destination the service itself connects to (a
    /// mailbox, a webhook) on a private address allowed on other ports only.
    PortNotAllowed { shown: String, allowed: Sites },
    /// An unspecified address (`0.0.0.0`, `::`) was named as a host: a connection to it
    /// reaches this machine on any of its addresses.
    Unspecified { given: String },
    /// A destination is the service's own address.
    ServiceAddress { addr: SocketAddr },
    /// A host was to be added to a lock in use.
    Fixed { host: String },
}

/// Whether `host` (as a request or a refusal names it) is the address `ip` itself rather than
/// a name resolving to it: the sentence then names the address alone.
pub(crate) fn is_literally(host: &str, ip: &IpAddr) -> bool {
    bare_host(host) == ip.to_string()
}

/// What a lock is built from: the request alone, never anything read during the run.
#[derive(Debug, Clone, Default)]
pub struct LockRequest<'a> {
    /// The goal the plan was made from: hosts it names are allowed.
    pub goal: Option<&'a str>,
    /// The plan's `navigate` URLs, caller variables filled in.
    pub urls: Vec<Url>,
    /// Hosts the caller allowed explicitly (`shop.example`, `127.0.0.1:8080`, a URL).
    pub allow_hosts: &'a [String],
    pub policy: AddressPolicy,
    /// The addresses the service building this lock listens on: a run never reaches them.
    pub service_addresses: &'a [SocketAddr],
}

/// The sites a goal names, then the explicitly allowed hosts' sites, in order, without
/// repeats: what a planner is told the run may visit.
pub fn sites_named(goal: Option<&str>, allow_hosts: &[String]) -> Result<Vec<String>, LockError> {
    let mut sites: Vec<String> = Vec::new();
    let named = goal.map(hosts_in_text).unwrap_or_default();
    let allowed = parse_allowed_hosts(allow_hosts)?;
    for site in named
        .iter()
        .chain(allowed.iter().map(|a| &a.host))
        .map(|h| site_of(h))
    {
        if !sites.contains(&site) {
            sites.push(site);
        }
    }
    Ok(sites)
}

/// Why one address may not be reached, before it is worded for a page or a request.
enum Denied {
    /// The address is allowed, but not on this port.
    Port { shown: String },
    /// A private address the request did not allow.
    Private { host: String, ip: IpAddr },
    /// The service's own address.
    Service { addr: SocketAddr },
}

impl Lock {
    /// Builds the lock from the request: the sites of the goal's hosts, of the plan's
    /// `navigate` URLs and of the allowed hosts, with their ports. Under
    /// [`AddressPolicy::Service`], every host name the request names is resolved here, once,
    /// and a private, loopback or link-local address the request names — literally, or as a
    /// name that resolves to one — is refused before anything runs unless `allow_hosts`
    /// lists that address itself.
    pub async fn build(req: &LockRequest<'_>) -> Result<Lock, LockError> {
        let explicit = parse_allowed_hosts(req.allow_hosts)?;
        let mut sites = sites_allowed(&explicit);
        let explicit_sites: BTreeSet<String> = sites.keys().cloned().collect();
        if let Some(url) = req
            .urls
            .iter()
            .find(|u| u.host_str().is_some_and(hosts::is_unspecified))
        {
            return Err(LockError::Unspecified {
                given: url[..url::Position::BeforePath].to_string(),
            });
        }
        let mut named: Vec<Url> = req.urls.clone();
        if let Some(goal) = req.goal {
            // A goal may mention where a server listens; it allows no such address.
            named.extend(
                endpoints_in_text(goal)
                    .into_iter()
                    .filter(|u| !u.host_str().is_some_and(hosts::is_unspecified)),
            );
        }
        // IP addresses and names of this machine are many services, one per port: a URL
        // allows its own port of them.
        let mut named_ports: BTreeMap<String, BTreeSet<u16>> = BTreeMap::new();
        for url in &named {
            let Some(host) = url.host() else { continue };
            let site = site_of_host(&host);
            if is_port_bound(&host) {
                let port = url.port_or_known_default().unwrap_or(80);
                named_ports.entry(site).or_default().insert(port);
            } else {
                merge(&mut sites, site, Ports::Any);
            }
        }
        for (site, ports) in named_ports {
            match sites.get_mut(&site) {
                // A service narrows an address allowed on every port to the ports the
                // request's URLs name: its other ports are other services.
                Some(all @ Ports::Any) if req.policy == AddressPolicy::Service => {
                    *all = Ports::Only(ports)
                }
                Some(existing) => existing.merge(Ports::Only(ports)),
                None => {
                    sites.insert(site, Ports::Only(ports));
                }
            }
        }
        let mut lock = Lock {
            sites,
            pinned: BTreeMap::new(),
            service: req.service_addresses.to_vec(),
            policy: req.policy,
        };
        if req.policy == AddressPolicy::Service {
            let hosts: BTreeSet<String> = named
                .iter()
                .filter_map(|u| u.host_str().map(str::to_string))
                .chain(explicit.iter().map(|a| a.host.clone()))
                .map(|h| bare_host(&h).trim_end_matches('.').to_ascii_lowercase())
                .collect();
            let resolved = futures::future::join_all(hosts.iter().map(|host| async move {
                match host.parse::<IpAddr>() {
                    Ok(ip) => (host, vec![ip], true),
                    Err(_) => (host, address::resolve(host, 80).await, false),
                }
            }))
            .await;
            for (host, ips, literal) in resolved {
                if let Some(ip) = ips
                    .iter()
                    .copied()
                    .find(|ip| is_private(*ip) && !explicit_sites.contains(&ip.to_string()))
                {
                    return Err(LockError::PrivateAddress {
                        host: host.clone(),
                        ip,
                    });
                }
                if !literal && !ips.is_empty() {
                    lock.pinned.insert(host.clone(), ips);
                }
            }
        }
        Ok(lock)
    }

    /// A lock over exactly these hosts (each on every port, or on the port given with it),
    /// any address allowed (tests, the demo).
    pub fn of_hosts<I, S>(hosts: I) -> Result<Lock, LockError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        Ok(Lock {
            sites: sites_allowed(&parse_allowed_hosts(hosts)?),
            pinned: BTreeMap::new(),
            service: Vec::new(),
            policy: AddressPolicy::Open,
        })
    }

    /// The same sites under [`AddressPolicy::Service`].
    pub fn refusing_private_addresses(mut self) -> Lock {
        self.policy = AddressPolicy::Service;
        self
    }

    /// The allowed sites, sorted, each with its port where it is allowed on some ports only
    /// (`127.0.0.1:8080`), for messages and the review.
    pub fn sites(&self) -> impl Iterator<Item = String> + '_ {
        self.sites.iter().flat_map(|(site, ports)| match ports {
            Ports::Any => vec![site.clone()],
            Ports::Only(ports) => ports.iter().map(|p| with_port(site, *p)).collect(),
        })
    }

    /// The allowed sites, for messages: displays as `shop.example, mail.example`, or says
    /// that there are none.
    pub fn describe(&self) -> Sites {
        Sites(self.sites().collect())
    }

    /// Checks one top-level destination. Only http(s) URLs whose site is in the lock, on a
    /// port the lock allows it, pass.
    pub fn check(&self, url: &Url) -> Result<(), Refusal> {
        let refuse = |why: Why| Refusal::new(url.as_str(), why);
        match url.scheme() {
            "http" | "https" => {}
            "about" if url.as_str() == "about:blank" => return Ok(()),
            other => {
                return Err(refuse(Why::Scheme {
                    scheme: other.to_string(),
                    allowed: self.describe(),
                }));
            }
        }
        let Some(host) = url.host() else {
            return Err(refuse(Why::NoHost));
        };
        let site = site_of_host(&host);
        let port = url.port_or_known_default().unwrap_or(80);
        let ports = self.sites.get(&site);
        if !ports.is_some_and(|p| p.allows(port)) {
            let by_port = is_port_bound(&host) || matches!(ports, Some(Ports::Only(_)));
            let shown = if by_port {
                format!("{}:{port}", host_display(&host))
            } else {
                host_display(&host)
            };
            return Err(refuse(Why::NotPart {
                shown,
                allowed: self.describe(),
            }));
        }
        if let Some(ip) = literal_ip(&host) {
            self.judge(&ip.to_string(), SocketAddr::new(ip, port))
                .map_err(|d| refuse(self.why(d)))?;
        }
        Ok(())
    }

    /// Whether `host` may be reached at `addr`: never the service's own address; under
    /// [`AddressPolicy::Service`] a private one only when the lock allows that very address,
    /// on that port.
    fn judge(&self, host: &str, addr: SocketAddr) -> Result<(), Denied> {
        if self.is_service(addr) {
            return Err(Denied::Service { addr });
        }
        let ip = addr.ip();
        if self.policy != AddressPolicy::Service || !is_private(ip) {
            return Ok(());
        }
        match self.sites.get(&ip.to_string()) {
            Some(ports) if ports.allows(addr.port()) => Ok(()),
            Some(_) => Err(Denied::Port {
                shown: with_port(&ip.to_string(), addr.port()),
            }),
            None => Err(Denied::Private {
                host: host.to_string(),
                ip,
            }),
        }
    }

    /// A denied address as a page's refusal says it.
    fn why(&self, denied: Denied) -> Why {
        match denied {
            Denied::Port { shown } => Why::NotPart {
                shown,
                allowed: self.describe(),
            },
            Denied::Private { host, ip } => Why::PrivateAddress { host, ip },
            Denied::Service { addr } => Why::ServiceAddress { addr },
        }
    }

    /// The service's own listen address, or — when it listens on every interface — any
    /// address of this machine on that port.
    fn is_service(&self, addr: SocketAddr) -> bool {
        // Judged on the address reached: `[::127.0.0.1]` and `[::ffff:127.0.0.1]` are
        // 127.0.0.1, `[::ffff:0.0.0.0]` is 0.0.0.0.
        let ip = address::canonical(addr.ip());
        self.service.iter().any(|own| {
            own.port() == addr.port()
                && (address::canonical(own.ip()) == ip
                    || ip.is_unspecified()
                    || (own.ip().is_unspecified() && address::is_this_machine(ip)))
        })
    }

    /// The addresses a connection to `host` (bare, lower case) may use: a literal's own, the
    /// ones a name resolved to when the lock was made, or else what it resolves to now.
    async fn addresses_of(&self, host: &str, port: u16) -> Vec<IpAddr> {
        if let Ok(ip) = host.parse::<IpAddr>() {
            return vec![ip];
        }
        let name = host.trim_end_matches('.');
        match self.pinned.get(name) {
            Some(ips) => ips.clone(),
            None => address::resolve(name, port).await,
        }
    }

    /// [`Lock::check`], and under [`AddressPolicy::Service`] also the addresses a domain
    /// reaches, so an allowed site's name that points at a private address
    /// (`metadata.shop.example` → 169.254.169.254) is refused before the browser connects.
    /// What the browser then connects to is judged by [`Lock::connection_addresses`] where
    /// its connections go through planlock.
    pub async fn check_navigation(&self, url: &Url) -> Result<(), Refusal> {
        self.check(url)?;
        if self.policy != AddressPolicy::Service {
            return Ok(());
        }
        let Some(Host::Domain(name)) = url.host() else {
            return Ok(());
        };
        let port = url.port_or_known_default().unwrap_or(80);
        let name = name.to_ascii_lowercase();
        for ip in self.addresses_of(&name, port).await {
            self.judge(&name, SocketAddr::new(ip, port))
                .map_err(|d| Refusal::new(url.as_str(), self.why(d)))?;
        }
        Ok(())
    }

    /// Where a connection the run's browser opens to `host:port` may go. A name the request
    /// named reaches the addresses it resolved to when the lock was made, any other name what
    /// it resolves to now. The service's own address is never reached; under
    /// [`AddressPolicy::Service`] a private, loopback or link-local address is reached only
    /// when the lock allows that address on that port, whatever asked for it (a frame, an
    /// image, a fetch, a WebSocket). The caller connects to exactly these addresses, so the
    /// address judged is the address reached. Empty when the name does not resolve.
    pub async fn connection_addresses(
        &self,
        host: &str,
        port: u16,
    ) -> Result<Vec<SocketAddr>, Refusal> {
        let bare = bare_host(host).to_ascii_lowercase();
        let ips = self.addresses_of(&bare, port).await;
        ips.into_iter()
            .map(|ip| {
                let addr = SocketAddr::new(ip, port);
                self.judge(&bare, addr)
                    .map(|()| addr)
                    .map_err(|d| Refusal::new(with_port(&bare, port), self.why(d)))
            })
            .collect()
    }

    /// Judges a destination the service connects to itself for this lock's run — a mailbox
    /// server, a webhook receiver — by the rule the run's pages follow: the service's own
    /// address is never reached, and under [`AddressPolicy::Service`] a private, loopback or
    /// link-local address, literal or resolved, only when the lock allows that address on
    /// that port. Returns the addresses judged, so the caller connects to exactly those (a
    /// name resolved again later could point elsewhere).
    pub async fn check_side_host(&self, host: &str, port: u16) -> Result<Vec<IpAddr>, LockError> {
        let bare = bare_host(host).to_ascii_lowercase();
        let ips = self.addresses_of(&bare, port).await;
        for ip in &ips {
            self.judge(&bare, SocketAddr::new(*ip, port))
                .map_err(|denied| match denied {
                    Denied::Port { shown } => LockError::PortNotAllowed {
                        shown,
                        allowed: self.describe(),
                    },
                    Denied::Private { host, ip } => LockError::PrivateAddress { host, ip },
                    Denied::Service { addr } => LockError::ServiceAddress { addr },
                })?;
        }
        Ok(ips)
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

fn parse_allowed_hosts<S: AsRef<str>>(
    hosts: impl IntoIterator<Item = S>,
) -> Result<Vec<AllowedHost>, LockError> {
    hosts
        .into_iter()
        .map(|h| parse_allowed_host(h.as_ref()))
        .collect()
}

/// The sites of hosts allowed explicitly, each on every port or on the port given with it.
fn sites_allowed(explicit: &[AllowedHost]) -> BTreeMap<String, Ports> {
    let mut sites = BTreeMap::new();
    for allowed in explicit {
        let ports = allowed.port.map_or(Ports::Any, Ports::only);
        merge(&mut sites, site_of(&allowed.host), ports);
    }
    sites
}

fn merge(sites: &mut BTreeMap<String, Ports>, site: String, ports: Ports) {
    match sites.get_mut(&site) {
        Some(existing) => existing.merge(ports),
        None => {
            sites.insert(site, ports);
        }
    }
}

/// `127.0.0.1:8080`, `[::1]:3000`, `shop.example:8443`.
fn with_port(site: &str, port: u16) -> String {
    if site.contains(':') {
        format!("[{site}]:{port}")
    } else {
        format!("{site}:{port}")
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
mod tests;
