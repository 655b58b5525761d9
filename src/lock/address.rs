//! Which addresses the service never visits unless told to: private, loopback and
//! link-local ones, judged on the address itself (a name is judged on what it resolves to).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::Duration;

/// How long a host name may take to resolve when its addresses are judged.
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(2);

/// Private, loopback, link-local (cloud metadata such as 169.254.169.254), unspecified, CGNAT,
/// "this network" (0.0.0.0/8, which Linux treats as local), multicast and reserved IPv4;
/// loopback, unspecified, unique-local, site-local, link-local, multicast and discard IPv6;
/// and every IPv6 form that carries an IPv4 address (IPv4-compatible `::a.b.c.d`, IPv4-mapped
/// `::ffff:a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d`, 6to4 `2002:aabb:ccdd::/48`, NAT64
/// `64:ff9b::/96`, Teredo and ISATAP), judged by the IPv4 address it carries. Local-use NAT64
/// (`64:ff9b:1::/48`) is private whatever it carries.
pub fn is_private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_private_v4(v4),
        IpAddr::V6(v6) => {
            if v6.is_loopback() || v6.is_unspecified() {
                return true;
            }
            let seg = v6.segments();
            let local = (seg[0] & 0xfe00) == 0xfc00 // unique local fc00::/7
                || (seg[0] & 0xffc0) == 0xfe80 // link-local fe80::/10
                || (seg[0] & 0xffc0) == 0xfec0 // site-local fec0::/10
                || (seg[0] & 0xff00) == 0xff00 // multicast ff00::/8
                || seg[..4] == [0x100, 0, 0, 0] // discard 100::/64
                || seg[..3] == [0x64, 0xff9b, 1]; // local-use NAT64 64:ff9b:1::/48
            local || embedded_v4(v6).iter().any(|v4| is_private_v4(*v4))
        }
    }
}

fn is_private_v4(v4: Ipv4Addr) -> bool {
    let [a, b, ..] = v4.octets();
    v4.is_private()
        || v4.is_loopback()
        || v4.is_link_local()
        || v4.is_unspecified()
        || v4.is_broadcast()
        || v4.is_multicast()
        || a == 0
        || a >= 240 // reserved 240/4
        || (a == 100 && (b & 0xc0) == 64) // carrier-grade NAT 100.64/10
        || (a == 192 && b == 0 && v4.octets()[2] == 0) // IETF protocol assignments 192.0.0/24
        || (a == 198 && (b & 0xfe) == 18) // benchmarking 198.18/15
}

/// The IPv4 addresses an IPv6 address carries, by the transition mechanisms that put one in.
fn embedded_v4(v6: Ipv6Addr) -> Vec<Ipv4Addr> {
    let seg = v6.segments();
    let v4 = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
    let mut found = Vec::new();
    match seg {
        // IPv4-compatible ::a.b.c.d, IPv4-mapped ::ffff:a.b.c.d, IPv4-translated
        // ::ffff:0:a.b.c.d, and NAT64's well-known prefix 64:ff9b::/96.
        [0, 0, 0, 0, 0, 0, hi, lo]
        | [0, 0, 0, 0, 0, 0xffff, hi, lo]
        | [0, 0, 0, 0, 0xffff, 0, hi, lo]
        | [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => found.push(v4(hi, lo)),
        // 6to4: 2002:AABB:CCDD::/48 reaches the IPv4 address AA.BB.CC.DD.
        [0x2002, hi, lo, ..] => found.push(v4(hi, lo)),
        // Teredo 2001:0::/32: the server's address, then the client's, inverted.
        [0x2001, 0, shi, slo, _, _, chi, clo] => {
            found.push(v4(shi, slo));
            found.push(v4(!chi, !clo));
        }
        _ => {}
    }
    // ISATAP: an interface identifier of ::0:5efe:a.b.c.d or ::200:5efe:a.b.c.d.
    if (seg[4] & 0xfdff) == 0 && seg[5] == 0x5efe {
        found.push(v4(seg[6], seg[7]));
    }
    found
}

/// The address `ip` reaches: an IPv6 spelling of an IPv4 address, IPv4-mapped
/// (`::ffff:a.b.c.d`) or IPv4-compatible (`::a.b.c.d`), as that IPv4 address, however it is
/// written out; any other address as it is. `::` and `::1` stay the IPv6 unspecified and
/// loopback addresses they are (as IPv4-compatible ones they would read 0.0.0.0 and 0.0.0.1).
pub(crate) fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) if !v6.is_loopback() && !v6.is_unspecified() => {
            v6.to_ipv4().map_or(ip, IpAddr::V4)
        }
        _ => ip,
    }
}

/// Whether `ip` is an address of this machine: loopback, unspecified, or one of its
/// interfaces' addresses. A service listening on `0.0.0.0` or `[::]` answers on all of them.
pub(crate) fn is_this_machine(ip: IpAddr) -> bool {
    let ip = canonical(ip);
    ip.is_loopback() || ip.is_unspecified() || interface_addresses().contains(&ip)
}

/// The addresses of this machine's network interfaces.
fn interface_addresses() -> Vec<IpAddr> {
    let mut found = Vec::new();
    let mut list: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs fills `list` with a linked list that freeifaddrs releases; each node
    // is only read while the list is alive, and `ifa_addr` is checked for null and for its
    // family before it is read as that family's address.
    unsafe {
        if libc::getifaddrs(&mut list) != 0 {
            return found;
        }
        let mut node = list;
        while !node.is_null() {
            let addr = (*node).ifa_addr;
            if !addr.is_null() {
                match i32::from((*addr).sa_family) {
                    libc::AF_INET => {
                        let sin = &*(addr as *const libc::sockaddr_in);
                        found.push(IpAddr::V4(Ipv4Addr::from(u32::from_be(
                            sin.sin_addr.s_addr,
                        ))));
                    }
                    libc::AF_INET6 => {
                        let sin6 = &*(addr as *const libc::sockaddr_in6);
                        found.push(IpAddr::V6(Ipv6Addr::from(sin6.sin6_addr.s6_addr)));
                    }
                    _ => {}
                }
            }
            node = (*node).ifa_next;
        }
        libc::freeifaddrs(list);
    }
    found
}

/// The addresses a host name resolves to; none when it does not resolve in time (the
/// browser then fails to reach it as well).
pub(crate) async fn resolve(host: &str, port: u16) -> Vec<IpAddr> {
    match tokio::time::timeout(RESOLVE_TIMEOUT, tokio::net::lookup_host((host, port))).await {
        Ok(Ok(addrs)) => addrs.map(|a| a.ip()).collect(),
        _ => Vec::new(),
    }
}
