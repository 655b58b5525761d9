//! The lock's rules, one by one.

use super::*;

fn url(s: &str) -> Url {
    Url::parse(s).unwrap()
}

/// Whether a connection to `host` at `ip` (port 80) passes, as the sentence it fails with.
fn reach(lock: &Lock, host: &str, ip: &str) -> Result<(), String> {
    let addr = SocketAddr::new(ip.parse().unwrap(), 80);
    lock.judge(host, addr)
        .map_err(|d| Refusal::new(addr.to_string(), lock.why(d)).to_string())
}

/// A lock of `hosts` in server mode: a private address passes only where it is listed.
fn server_mode<const N: usize>(hosts: [&str; N]) -> Lock {
    Lock::of_hosts(hosts).unwrap().refusing_private_addresses()
}

/// Asserts that `lock` lets a run visit each URL of `passing` and refuses each of `refused`,
/// naming the URL where it does not.
#[track_caller]
fn assert_visits(lock: &Lock, passing: &[&str], refused: &[&str]) {
    for u in passing {
        if let Err(r) = lock.check(&url(u)) {
            panic!("{u} should pass: {r}");
        }
    }
    for u in refused {
        assert!(lock.check(&url(u)).is_err(), "{u} should be refused");
    }
}

fn block<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

/// The lock a request builds.
fn built(req: &LockRequest<'_>) -> Result<Lock, LockError> {
    block(Lock::build(req))
}

fn service(goal: Option<&str>, urls: &[&str], allow: &[&str]) -> Result<Lock, LockError> {
    let allow: Vec<String> = allow.iter().map(|s| s.to_string()).collect();
    let req = LockRequest {
        goal,
        urls: urls.iter().map(|u| url(u)).collect(),
        allow_hosts: &allow,
        policy: AddressPolicy::Service,
        ..LockRequest::default()
    };
    built(&req)
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
fn an_unspecified_address_is_never_an_allowed_host() {
    for allowed in [
        "0.0.0.0",
        "0.0.0.0:9222",
        "::",
        "[::]:8080",
        "http://0.0.0.0:3000/",
        // 0.0.0.0 spelt as IPv6: IPv4-mapped, written out or zero-compressed.
        "[::ffff:0.0.0.0]",
        "::ffff:0.0.0.0",
        "[::ffff:0:0]:8080",
        "[0:0:0:0:0:ffff:0.0.0.0]",
        "http://[::ffff:0000:0000]:3000/",
    ] {
        let e = Lock::of_hosts([allowed]).unwrap_err();
        assert!(matches!(e, LockError::Unspecified { .. }), "{allowed}: {e}");
        let e = service(None, &["https://shop.example/"], &[allowed]).unwrap_err();
        assert!(matches!(e, LockError::Unspecified { .. }), "{allowed}: {e}");
    }
    for spelt in ["http://[::ffff:0.0.0.0]:8000/", "http://[::ffff:0:0]:8000/"] {
        let e = service(None, &[spelt], &["127.0.0.1"]).unwrap_err();
        assert!(matches!(e, LockError::Unspecified { .. }), "{spelt}: {e}");
    }
    let e = service(None, &["http://0.0.0.0:8000/signup"], &["127.0.0.1"]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "[plan] `http://0.0.0.0:8000` is the unspecified address, which means every address of \
         this machine: a page sent there reaches whatever listens on it, so it is never an \
         allowed host. Name the address the site listens on, such as `127.0.0.1:8080`."
    );
    // A goal may say where a server listens; that allows nothing.
    let lock = service(
        Some("the app listens on 0.0.0.0:8000; sign up at shop.example"),
        &[],
        &[],
    )
    .unwrap();
    assert!(lock.check(&url("http://0.0.0.0:8000/")).is_err());
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
        r.to_string(),
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
    assert_visits(
        &lock,
        &["https://www.shop.co.uk/"],
        &["https://other.co.uk/"],
    );
}

#[test]
fn an_empty_lock_allows_nothing() {
    let lock = Lock::of_hosts(Vec::<String>::new()).unwrap();
    let r = lock.check(&url("https://shop.example/")).unwrap_err();
    assert!(r.to_string().contains("may visit: nothing"), "{r}");
}

#[test]
fn only_http_schemes() {
    let lock = Lock::of_hosts(["shop.example"]).unwrap();
    assert_visits(
        &lock,
        &[],
        &[
            "javascript:alert(1)",
            "data:text/html,hi",
            "file:///etc/passwd",
        ],
    );
}

#[test]
fn private_addresses_in_server_mode() {
    let lock = server_mode(["169.254.169.254", "shop.example"]);
    assert!(
        lock.check(&url("http://169.254.169.254/")).is_ok(),
        "explicitly allowed"
    );
    let lock = server_mode(["shop.example"]);
    // A name of an allowed site: judged on its address.
    let name = "metadata.shop.example";
    assert!(reach(&lock, name, "10.0.0.1").is_err());
    assert!(reach(&lock, name, "::ffff:127.0.0.1").is_err());
    assert!(reach(&lock, name, "93.184.216.34").is_ok());
    // Even the name the caller allowed: only a private address listed itself passes.
    assert!(reach(&lock, "shop.example", "10.0.0.1").is_err());
}

#[test]
fn cloud_metadata_and_mapped_addresses_are_private_in_server_mode() {
    let lock = server_mode(["shop.example", "169.254.169.254"]);
    let other = server_mode(["shop.example"]);
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
        let r = reach(&other, "www.shop.example", ip).unwrap_err();
        assert!(
            r.starts_with("[plan] www.shop.example resolves to ")
                && r.contains("private, loopback or link-local"),
            "{r}"
        );
    }
    // Allowed explicitly: that address, not its neighbours or other spellings.
    assert!(reach(&lock, "www.shop.example", "169.254.169.254").is_ok());
    assert!(reach(&lock, "www.shop.example", "169.254.169.253").is_err());
    for public in ["93.184.216.34", "2606:2800:220:1::", "64:ff9b::5db8:d822"] {
        let addr: IpAddr = public.parse().unwrap();
        assert!(!is_private(addr), "{public}");
        assert!(reach(&other, "www.shop.example", public).is_ok());
    }
}

#[test]
fn private_literals_in_urls_in_server_mode() {
    let none = server_mode(["shop.example"]);
    assert_visits(
        &none,
        &[],
        &[
            "http://169.254.169.254/latest/meta-data/",
            "http://[::ffff:169.254.169.254]/",
            "http://[64:ff9b::a9fe:a9fe]/",
            "http://2852039166/",
            "http://0xa9.0xfe.0xa9.0xfe/",
            "http://127.1/",
            "http://[::1]:8080/",
        ],
    );
    // An IPv4 address allowed explicitly does not allow its IPv4-mapped IPv6 spelling.
    let v4 = server_mode(["169.254.169.254"]);
    assert_visits(
        &v4,
        &["http://169.254.169.254/"],
        &["http://[::ffff:169.254.169.254]/"],
    );
    // A bare IPv6 address can be allowed, and then it is allowed in server mode too.
    let v6 = server_mode(["::ffff:a9fe:a9fe", "::1"]);
    assert_visits(
        &v6,
        &["http://[::ffff:169.254.169.254]/", "http://[::1]:8080/"],
        &["http://169.254.169.254/"],
    );
}

#[test]
fn ip_literals_and_look_alikes_are_compared_exactly() {
    let lock = Lock::of_hosts(["127.0.0.1"]).unwrap();
    assert!(lock.check(&url("http://127.0.0.1:8080/x")).is_ok());
    // Other spellings of the same address parse to it.
    assert_visits(&lock, &["http://2130706433/", "http://127.1/"], &[]);
    for u in [
        "http://127.0.0.2/",
        "http://2130706434/",
        "http://127.0.0.1.evil.test/",
        "http://127.0.0.1@127.0.0.2/",
        "http://[::1]/",
    ] {
        let r = lock.check(&url(u)).unwrap_err();
        assert!(
            r.to_string()
                .contains(" is not part of this run. This run may visit: 127.0.0.1."),
            "{u}: {r}"
        );
    }
    let r = lock
        .check(&url("http://127.0.0.1@127.0.0.2:9/"))
        .unwrap_err();
    assert!(
        r.to_string().starts_with("[plan] 127.0.0.2:9 is not part"),
        "{r}"
    );
    // Homographs are other sites (punycode).
    let lock = Lock::of_hosts(["shop.example"]).unwrap();
    let r = lock
        .check(&url("https://sh\u{043e}p.example/"))
        .unwrap_err();
    assert!(r.to_string().starts_with("[plan] xn--"), "{r}");
    // Shared-hosting suffixes (the private section of the list) separate their tenants.
    let lock = Lock::of_hosts(["alice.github.io"]).unwrap();
    assert_visits(
        &lock,
        &["https://alice.github.io/x"],
        &["https://bob.github.io/"],
    );
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

#[test]
fn an_at_sign_in_a_urls_path_or_query_does_not_hide_its_host() {
    assert_eq!(
        hosts_in_text("Register at http://127.0.0.1:8004/tracker/user?@template=register now"),
        ["127.0.0.1"]
    );
    assert_eq!(
        hosts_in_text("open tracker.example/user?@template=register"),
        ["tracker.example"]
    );
    // The host of a URL with user information is the one after the `@`, as browsers read it.
    assert_eq!(
        hosts_in_text("go to https://shop.example@evil.example/login"),
        ["evil.example"]
    );
    assert!(hosts_in_text("write to ada@shop.example").is_empty());
}

#[test]
fn server_mode_passes_a_private_address_only_when_it_is_listed_itself() {
    // `localhost` is allowed by name, but it resolves to loopback, which is not listed:
    // a name never carries a private address in with it.
    let lock = server_mode(["localhost"]);
    let r = block(lock.check_navigation(&url("http://localhost:9/"))).unwrap_err();
    assert!(
        r.to_string().starts_with("[plan] localhost resolves to "),
        "{r}"
    );
    let r = reach(&lock, "app.localhost", "127.0.0.1");
    assert!(r.unwrap_err().contains("resolves to"));
    // Built from a request, the name is refused before anything runs, with the address
    // to list.
    let e = service(None, &[], &["localhost"]).unwrap_err();
    assert!(
        matches!(e, LockError::PrivateAddress { ref host, .. } if host == "localhost"),
        "{e}"
    );
    // Listed with every address it resolves to, it passes.
    let lock = service(
        None,
        &["http://localhost:9/"],
        &["localhost", "127.0.0.1", "::1"],
    )
    .unwrap();
    assert!(block(lock.check_navigation(&url("http://localhost:9/"))).is_ok());
    // Outside server mode the name alone decides.
    let open = Lock::of_hosts(["localhost"]).unwrap();
    assert!(block(open.check_navigation(&url("http://localhost:9/"))).is_ok());
}

#[test]
fn a_name_reaches_the_addresses_it_resolved_to_when_the_lock_was_made() {
    let lock = service(None, &["http://localhost:9/"], &["127.0.0.1:9", "[::1]:9"]).unwrap();
    let pinned = lock.pinned.get("localhost").cloned().unwrap_or_default();
    assert!(
        !pinned.is_empty(),
        "localhost was resolved when the lock was made"
    );
    let reached = block(lock.connection_addresses("localhost", 9)).unwrap();
    let ips: Vec<IpAddr> = reached.iter().map(SocketAddr::ip).collect();
    assert_eq!(ips, pinned);
    // The same addresses on another port: the lock names port 9 only.
    let r = block(lock.connection_addresses("localhost", 10)).unwrap_err();
    assert!(
        r.to_string()
            .starts_with("[plan] 127.0.0.1:10 is not part of this run")
            || r.to_string().starts_with("[plan] [::1]:10 is not part"),
        "{r}"
    );
}

#[test]
fn a_host_allowed_with_a_port_is_allowed_on_that_port_only() {
    for allowed in [
        "127.0.0.1:19110",
        "http://127.0.0.1:19110/",
        "http://127.0.0.1:19110",
    ] {
        let lock = Lock::of_hosts([allowed]).unwrap();
        assert_eq!(
            lock.sites().collect::<Vec<_>>(),
            ["127.0.0.1:19110"],
            "{allowed}"
        );
        assert!(lock.check(&url("http://127.0.0.1:19110/x")).is_ok());
        let r = lock.check(&url("http://127.0.0.1:19111/")).unwrap_err();
        assert!(
            r.to_string().starts_with("[plan] 127.0.0.1:19111 is not part of this run. This run may visit: 127.0.0.1:19110."),
            "{allowed}: {r}"
        );
    }
    // A port the URL parser would drop as the scheme's default is kept.
    let lock = Lock::of_hosts(["http://127.0.0.1:80/"]).unwrap();
    assert_visits(&lock, &["http://127.0.0.1/"], &["http://127.0.0.1:8080/"]);
    // Names and IPv6 too; a domain with a port is its whole site on that port.
    let lock = Lock::of_hosts(["shop.example:8443", "[::1]:3000"]).unwrap();
    assert_eq!(
        lock.sites().collect::<Vec<_>>(),
        ["::1:3000", "shop.example:8443"].map(|s| if s.starts_with("::") {
            "[::1]:3000"
        } else {
            s
        })
    );
    assert!(lock.check(&url("https://www.shop.example:8443/")).is_ok());
    let r = lock.check(&url("https://shop.example/")).unwrap_err();
    assert!(
        r.to_string()
            .starts_with("[plan] shop.example:443 is not part"),
        "{r}"
    );
    assert_visits(&lock, &["http://[::1]:3000/"], &["http://[::1]:3001/"]);
    // Without a port, every port; a bad port is not a host.
    let lock = Lock::of_hosts(["127.0.0.1"]).unwrap();
    assert!(lock.check(&url("http://127.0.0.1:1/")).is_ok());
    assert!(matches!(
        Lock::of_hosts(["127.0.0.1:http"]),
        Err(LockError::NotAHost { .. })
    ));
    assert!(matches!(
        Lock::of_hosts(["127.0.0.1:99999"]),
        Err(LockError::NotAHost { .. })
    ));
}

#[test]
fn a_service_narrows_an_address_allowed_on_every_port_to_the_ports_its_urls_name() {
    let lock = service(None, &["http://127.0.0.1:19110/"], &["127.0.0.1"]).unwrap();
    assert_eq!(lock.sites().collect::<Vec<_>>(), ["127.0.0.1:19110"]);
    assert!(lock.check(&url("http://127.0.0.1:19111/")).is_err());
    assert!(
        reach(&lock, "127.0.0.1", "127.0.0.1").is_err(),
        "port 80 is another service"
    );
    // An address no URL names stays allowed on every port.
    let lock = service(
        None,
        &["http://127.0.0.1:19110/"],
        &["127.0.0.1", "10.0.0.7"],
    )
    .unwrap();
    assert!(reach(&lock, "intranet", "10.0.0.7").is_ok());
}

#[test]
fn a_run_never_reaches_the_service_that_runs_it() {
    let own: SocketAddr = "127.0.0.1:8080".parse().unwrap();
    let build = |service_addresses: &[SocketAddr]| {
        let allow = vec!["127.0.0.1".to_string()];
        built(&LockRequest {
            allow_hosts: &allow,
            policy: AddressPolicy::Service,
            service_addresses,
            ..LockRequest::default()
        })
        .unwrap()
    };
    let lock = build(&[own]);
    let r = lock
        .check(&url("http://127.0.0.1:8080/v1/runs"))
        .unwrap_err();
    assert_eq!(
        r.to_string(),
        "[plan] 127.0.0.1:8080 is this service's own address, which a run never reaches."
    );
    assert!(lock.check(&url("http://127.0.0.1:8081/")).is_ok());
    assert!(reach(&lock, "x", "127.0.0.1").is_ok());
    let at = |ip: &str, port| lock.is_service(SocketAddr::new(ip.parse().unwrap(), port));
    assert!(at("::ffff:127.0.0.1", 8080) && at("0.0.0.0", 8080) && !at("127.0.0.2", 8080));
    // Its address spelt as IPv6, IPv4-compatible or mapped, is its address, and so is the
    // unspecified address however it is spelt.
    assert!(at("::127.0.0.1", 8080) && at("::7f00:1", 8080) && at("::ffff:0.0.0.0", 8080));
    assert!(!at("::127.0.0.2", 8080));
    // Even where the request allows that spelling as a host.
    let allow = vec!["127.0.0.1".to_string(), "[::127.0.0.1]".to_string()];
    let spelt = built(&LockRequest {
        allow_hosts: &allow,
        policy: AddressPolicy::Service,
        service_addresses: &[own],
        ..LockRequest::default()
    })
    .unwrap();
    let r = spelt
        .check(&url("http://[::127.0.0.1]:8080/v1/runs"))
        .unwrap_err();
    assert!(matches!(r.why, Why::ServiceAddress { .. }), "{r}");
    // Listening on every interface: every address of this machine on that port.
    let lock = build(&["0.0.0.0:8080".parse().unwrap()]);
    let at = |ip: &str, port| lock.is_service(SocketAddr::new(ip.parse().unwrap(), port));
    assert!(at("127.0.0.1", 8080) && at("127.9.9.9", 8080) && at("::1", 8080));
    assert!(at("::127.0.0.8", 8080) && at("::ffff:127.0.0.8", 8080));
    assert!(!at("127.0.0.1", 8081) && !at("93.184.216.34", 8080));
}

#[test]
fn every_ipv6_form_that_carries_a_private_ipv4_address_is_private() {
    for ip in [
        "::127.0.0.1",
        "::a9fe:a9fe",
        "::ffff:0:127.0.0.1",
        "::ffff:0:a00:1",
        "2002:7f00:1::1",
        "2002:a9fe:a9fe::",
        "2002:c0a8:101:1::1",
        "64:ff9b::10.0.0.1",
        "64:ff9b:1::1",
        "2001:0:4136:e378:8000:63bf:80ff:fffe",
        "2001:db8:1:2:0:5efe:10.0.0.1",
        "fe80::200:5efe:192.168.1.1",
        "ff02::1",
        "100::1",
    ] {
        assert!(is_private(ip.parse().unwrap()), "{ip}");
    }
    for ip in ["224.0.0.1", "240.0.0.1", "198.18.0.1", "192.0.0.8"] {
        assert!(is_private(ip.parse().unwrap()), "{ip}");
    }
    for public in [
        "2002:5db8:d822::1",
        "::5db8:d822",
        "2001:0:4136:e378:8000:63bf:a247:2bdd",
        "2606:4700::1111",
        "8.8.8.8",
    ] {
        assert!(!is_private(public.parse().unwrap()), "{public}");
    }
}

#[tokio::test]
async fn connections_are_judged_on_the_address_they_reach() {
    let lock = server_mode(["127.0.0.1", "shop.example"]);
    let ok = lock.connection_addresses("127.0.0.1", 8080).await.unwrap();
    assert_eq!(ok, ["127.0.0.1:8080".parse::<SocketAddr>().unwrap()]);
    for (host, shown) in [
        ("127.0.0.3", "[plan] 127.0.0.3 is a private"),
        ("169.254.169.254", "[plan] 169.254.169.254 is a private"),
        ("[::1]", "[plan] ::1 is a private"),
    ] {
        let r = lock.connection_addresses(host, 80).await.unwrap_err();
        assert!(r.to_string().starts_with(shown), "{host}: {r}");
    }
    // A name is judged on what it resolves to: allowed as 127.0.0.1, refused otherwise.
    assert!(lock.connection_addresses("localhost", 80).await.is_ok());
    let shop = server_mode(["shop.example"]);
    let r = shop
        .connection_addresses("localhost", 80)
        .await
        .unwrap_err();
    assert!(
        r.to_string().starts_with("[plan] localhost resolves to "),
        "{r}"
    );
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
            ..LockRequest::default()
        };
        built(&req).unwrap()
    };
    let lock = req(&["http://127.0.0.1:8080/", "http://localhost:5173/x"], &[]);
    assert_eq!(
        lock.sites().collect::<Vec<_>>(),
        ["127.0.0.1:4000", "127.0.0.1:8080", "localhost:5173"]
    );
    assert_visits(
        &lock,
        &[
            "http://127.0.0.1:8080/a",
            "http://127.0.0.1:4000/admin",
            "http://localhost:5173/b",
        ],
        &[],
    );
    let r = lock.check(&url("http://127.0.0.1:9222/json")).unwrap_err();
    assert!(
        r.to_string()
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
