//! Server mode refuses private, loopback and link-local addresses for every request of a run,
//! not only for top-level documents: an allowed page that frames, fetches, loads an image
//! from or opens a WebSocket to a private address must not reach it. On real Chromium; the
//! fixture site (127.0.0.1) is allowed explicitly, and a recorder on another loopback address
//! (127.0.0.3) stands in for a cloud metadata endpoint or an intranet page.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use planlock::lock::AddressPolicy;
use planlock::runner::{RunResult, RunSpec, Settings};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::util::{self, need_browser, rt, site};

/// How long a late connection to the recorder would take to show up.
const GRACE: Duration = Duration::from_millis(300);

/// A private endpoint: records every connection made to it (with the first line sent) and
/// answers with a page that must never be shown.
struct PrivateEndpoint {
    addr: SocketAddr,
    connections: Arc<Mutex<Vec<String>>>,
}

impl PrivateEndpoint {
    fn start() -> PrivateEndpoint {
        let listener = rt()
            .block_on(tokio::net::TcpListener::bind("127.0.0.3:0"))
            .expect("bind 127.0.0.3 (any 127.0.0.0/8 address is loopback on Linux)");
        let addr = listener.local_addr().expect("addr");
        let connections = Arc::new(Mutex::new(Vec::new()));
        let recorded = connections.clone();
        rt().spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let recorded = recorded.clone();
                tokio::spawn(async move {
                    let mut buf = vec![0u8; 4096];
                    let n = tokio::time::timeout(Duration::from_secs(2), stream.read(&mut buf))
                        .await
                        .ok()
                        .and_then(Result::ok)
                        .unwrap_or(0);
                    let head = String::from_utf8_lossy(&buf[..n]);
                    let first = head.lines().next().unwrap_or("(nothing sent)").to_string();
                    recorded.lock().unwrap().push(first);
                    let body = "<h1>instance credentials: AKIA-SECRET</h1>";
                    let reply = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\
                         Access-Control-Allow-Origin: *\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = stream.write_all(reply.as_bytes()).await;
                });
            }
        });
        PrivateEndpoint { addr, connections }
    }

    fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn connections(&self) -> Vec<String> {
        std::thread::sleep(GRACE);
        self.connections.lock().unwrap().clone()
    }
}

/// Opens the probe page (on the allowed fixture site) that points a frame, an image, a fetch
/// and a WebSocket at `target`, and waits until all four have settled.
fn probe(target: &str, policy: AddressPolicy, also_allow: Option<&str>) -> RunResult {
    let to: String = url::form_urlencoded::byte_serialize(target.as_bytes()).collect();
    let plan = util::plan(&format!(
        r#"{{"reasoning":"","steps":[
        {{"type":"navigate","url":"{{SITE}}/tpl/probe-private.html?to={to}"}},
        {{"type":"wait_for_text","text":"widgets settled","timeout_seconds":5}},
        {{"type":"done","summary":"ok"}}]}}"#
    ));
    let mut spec = RunSpec::new(plan)
        .allow_host("127.0.0.1")
        .address_policy(policy)
        .settings(Settings {
            step_timeout: Duration::from_secs(5),
            ..Settings::default()
        });
    if let Some(host) = also_allow {
        spec = spec.allow_host(host);
    }
    util::run_spec(spec).0
}

#[test]
fn server_mode_refuses_private_addresses_for_frames_images_fetches_and_websockets() {
    need_browser!();
    let private = PrivateEndpoint::start();
    assert_ne!(private.addr.ip(), site().addr.ip());
    let result = probe(&private.origin(), AddressPolicy::Service, None);
    util::assert_succeeded(&result);
    let reached = private.connections();
    assert!(
        reached.is_empty(),
        "in server mode an allowed page reached the private address {}: {reached:?}",
        private.addr
    );
    // Refused, not failed: the run reports how many connections the lock refused.
    assert!(
        result.refused >= 4,
        "the frame, image, fetch and WebSocket were refused: refused = {}",
        result.refused
    );
}

#[test]
fn the_private_address_probe_reaches_its_target_when_allowed() {
    need_browser!();
    // The same page outside server mode, and in server mode with the address allowed
    // explicitly: the image, fetch and WebSocket arrive, so the refusal above is the policy at
    // work. The frame is a document: it loads where the lock allows its site, so outside
    // server mode, with the address not allowed, the lock refuses it (counted, failing nothing).
    for (policy, allow, frame) in [
        (AddressPolicy::Open, None, false),
        (AddressPolicy::Service, Some("127.0.0.3"), true),
    ] {
        let private = PrivateEndpoint::start();
        let result = probe(&private.origin(), policy, allow);
        util::assert_succeeded(&result);
        assert_eq!(
            result.refused,
            usize::from(!frame),
            "{policy:?} {allow:?}: only a frame outside the lock is refused"
        );
        let mut reached = private.connections();
        reached.sort();
        let paths: Vec<&str> = reached.iter().filter_map(|l| l.split(' ').nth(1)).collect();
        for path in ["/fetch", "/pixel.png", "/socket"] {
            assert!(
                paths.contains(&path),
                "{policy:?} {allow:?}: {path} never arrived; connections: {reached:?}"
            );
        }
        assert_eq!(
            paths.contains(&"/frame"),
            frame,
            "{policy:?} {allow:?}: the frame; connections: {reached:?}"
        );
    }
}

#[test]
fn server_mode_makes_no_prefetch_of_another_site() {
    need_browser!();
    // Speculation rules ask the browser to fetch a URL outside any page, where the lock's
    // interception does not see it. In server mode every connection goes through planlock's
    // proxy, and Chromium makes no prefetch of another site through a proxy: not of a private
    // address, and not of one `allowed_hosts` lists either. On the full browser and on the
    // headless shell alike (which, without a proxy, prefetches).
    for allow in [None, Some("127.0.0.3")] {
        let private = PrivateEndpoint::start();
        let to: String = url::form_urlencoded::byte_serialize(
            format!("{}/prefetch", private.origin()).as_bytes(),
        )
        .collect();
        let plan = util::plan(&format!(
            r#"{{"reasoning":"","steps":[
            {{"type":"navigate","url":"{{SITE}}/tpl/probe-preload.html?to={to}"}},
            {{"type":"wait_seconds","seconds":1}},
            {{"type":"done","summary":"ok"}}]}}"#
        ));
        let mut spec = RunSpec::new(plan)
            .allow_host("127.0.0.1")
            .address_policy(AddressPolicy::Service);
        if let Some(host) = allow {
            spec = spec.allow_host(host);
        }
        let result = util::run_spec(spec).0;
        util::assert_succeeded(&result);
        let reached = private.connections();
        assert!(
            reached.is_empty(),
            "allowing {allow:?}: the page's speculation rules reached {}: {reached:?}",
            private.addr
        );
    }
}
