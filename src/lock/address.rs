//! Which addresses the service never visits unless told to: private, loopback and
//! link-local ones, judged on the address itself (a name is judged on what it resolves to).

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

/// How long a host name may take to resolve when its addresses are judged.
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(2);

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
                let v4 = Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
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

/// The addresses a host name resolves to; none when it does not resolve in time (the
/// browser then fails to reach it as well).
pub(crate) async fn resolve(host: &str, port: u16) -> Vec<IpAddr> {
    match tokio::time::timeout(RESOLVE_TIMEOUT, tokio::net::lookup_host((host, port))).await {
        Ok(Ok(addrs)) => addrs.map(|a| a.ip()).collect(),
        _ => Vec::new(),
    }
}
