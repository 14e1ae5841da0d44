//! IP address classification (what "global" means for the trust policy) and the IPv4 host
//! syntax of the WHATWG URL standard (the one `reqwest` follows), so that a host such as
//! `2130706433` or `0x7f.1` is recognised as the IP literal it is and not as a hostname.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// True when `ip` is a globally reachable unicast address, i.e. one that an untrusted
/// configuration may make the client connect to.
///
/// Not global (the list is conservative; a few globally reachable special-purpose addresses are
/// deliberately treated as non-global):
///
/// - IPv4: `0.0.0.0/8` (this network, unspecified), `10.0.0.0/8`, `172.16.0.0/12` and
///   `192.168.0.0/16` (private), `100.64.0.0/10` (shared address space), `127.0.0.0/8`
///   (loopback), `169.254.0.0/16` (link-local), `192.0.0.0/24` (IETF protocol assignments),
///   `192.0.2.0/24`, `198.51.100.0/24` and `203.0.113.0/24` (documentation), `192.88.99.0/24`
///   (deprecated 6to4 relay anycast), `198.18.0.0/15` (benchmarking), `224.0.0.0/4`
///   (multicast), `240.0.0.0/4` (reserved, including the broadcast address).
/// - IPv6: addresses embedding an IPv4 address are judged by that address: IPv4-mapped
///   (`::ffff:0:0/96`), IPv4-translated (`::ffff:0:0:0/96`), IPv4-compatible (`::/96`, which
///   also covers `::` and `::1`) and NAT64 (`64:ff9b::/96`). Everything else is global only
///   inside the global unicast block `2000::/3`, and not in `2001::/23` (IETF protocol
///   assignments: Teredo, benchmarking, ORCHID, …), `2001:db8::/32` and `3fff::/20`
///   (documentation) or `2002::/16` (6to4). So unique local (`fc00::/7`), link-local
///   (`fe80::/10`), site-local (`fec0::/10`), multicast (`ff00::/8`), discard-only (`100::/64`),
///   local-use NAT64 (`64:ff9b:1::/48`), SRv6 SIDs (`5f00::/16`) and all unassigned space are
///   not global.
///
/// ```
/// use mcp_kit::security::is_global_ip;
///
/// assert!(is_global_ip("93.184.216.34".parse().unwrap()));
/// assert!(!is_global_ip("127.0.0.1".parse().unwrap()));
/// assert!(!is_global_ip("::ffff:10.0.0.1".parse().unwrap()));
/// assert!(is_global_ip("2606:4700::1111".parse().unwrap()));
/// ```
pub fn is_global_ip(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_global_ipv4(v4),
        IpAddr::V6(v6) => is_global_ipv6(v6),
    }
}

fn is_global_ipv4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    let not_global = a == 0 // 0.0.0.0/8
        || a == 10 // 10.0.0.0/8
        || (a == 100 && (b & 0xc0) == 64) // 100.64.0.0/10
        || a == 127 // 127.0.0.0/8
        || (a == 169 && b == 254) // 169.254.0.0/16
        || (a == 172 && (b & 0xf0) == 16) // 172.16.0.0/12
        || (a == 192 && b == 0 && c == 0) // 192.0.0.0/24
        || (a == 192 && b == 0 && c == 2) // 192.0.2.0/24
        || (a == 192 && b == 88 && c == 99) // 192.88.99.0/24
        || (a == 192 && b == 168) // 192.168.0.0/16
        || (a == 198 && (b & 0xfe) == 18) // 198.18.0.0/15
        || (a == 198 && b == 51 && c == 100) // 198.51.100.0/24
        || (a == 203 && b == 0 && c == 113) // 203.0.113.0/24
        || a >= 224; // 224.0.0.0/4 multicast, 240.0.0.0/4 reserved, broadcast
    !not_global
}

fn is_global_ipv6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = embedded_ipv4(ip) {
        return is_global_ipv4(v4);
    }
    let s = ip.segments();
    let global_unicast = (s[0] & 0xe000) == 0x2000; // 2000::/3
    let special = match s[0] {
        // 2001::/23 (IETF protocol assignments), 2001:db8::/32 (documentation)
        0x2001 => s[1] < 0x0200 || s[1] == 0x0db8,
        // 6to4
        0x2002 => true,
        // 3fff::/20 (documentation)
        0x3fff => s[1] < 0x1000,
        _ => false,
    };
    global_unicast && !special
}

/// The IPv4 address an IPv6 address stands for, when it embeds one in its low 32 bits.
fn embedded_ipv4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let embeds = matches!(
        s,
        [0, 0, 0, 0, 0, 0xffff, _, _] // ::ffff:0:0/96, IPv4-mapped
            | [0, 0, 0, 0, 0xffff, 0, _, _] // ::ffff:0:0:0/96, IPv4-translated
            | [0, 0, 0, 0, 0, 0, _, _] // ::/96, IPv4-compatible (deprecated)
            | [0x64, 0xff9b, 0, 0, 0, 0, _, _] // 64:ff9b::/96, NAT64
    );
    embeds.then(|| {
        let [.., hi, lo] = s;
        Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo))
    })
}

/// True when the WHATWG URL parser would treat `host` (ASCII, already lowercased or not) as an
/// IPv4 address: its last label (ignoring one trailing dot) is a decimal number or `0x`
/// followed by hex digits.
pub(crate) fn ends_in_number(host: &str) -> bool {
    let host = host.strip_suffix('.').unwrap_or(host);
    let last = host.rsplit('.').next().unwrap_or(host);
    if !last.is_empty() && last.bytes().all(|b| b.is_ascii_digit()) {
        return true;
    }
    match last.strip_prefix("0x").or_else(|| last.strip_prefix("0X")) {
        Some(hex) => hex.bytes().all(|b| b.is_ascii_hexdigit()),
        None => false,
    }
}

/// Parses an IPv4 host the way the WHATWG URL standard does: one to four dot-separated parts
/// (one trailing dot allowed), each decimal, octal (leading `0`) or hex (`0x`); every part but
/// the last is one byte, the last fills the remaining bytes. `None` when it is not valid.
pub(crate) fn parse_ipv4_host(host: &str) -> Option<Ipv4Addr> {
    let mut parts: Vec<&str> = host.split('.').collect();
    if parts.len() > 1 && parts.last() == Some(&"") {
        parts.pop();
    }
    if parts.len() > 4 {
        return None;
    }
    let numbers = parts
        .iter()
        .map(|part| parse_ipv4_number(part))
        .collect::<Option<Vec<u64>>>()?;
    let (last, init) = numbers.split_last()?;
    if init.iter().any(|&n| n > 255) {
        return None;
    }
    let last_bits = 8 * (4 - init.len() as u32);
    if *last >= 1u64 << last_bits {
        return None;
    }
    let mut value = *last;
    for (i, &n) in init.iter().enumerate() {
        value += n << (8 * (3 - i as u32));
    }
    u32::try_from(value).ok().map(Ipv4Addr::from)
}

/// One part of an IPv4 host: decimal, octal with a leading `0`, or hex with `0x`/`0X` (an empty
/// number after the prefix is 0). `None` when invalid or too large to matter.
fn parse_ipv4_number(part: &str) -> Option<u64> {
    if part.is_empty() {
        return None;
    }
    let (digits, radix) =
        if let Some(hex) = part.strip_prefix("0x").or_else(|| part.strip_prefix("0X")) {
            (hex, 16)
        } else if part.len() > 1 && part.starts_with('0') {
            (&part[1..], 8)
        } else {
            (part, 10)
        };
    if digits.is_empty() {
        return Some(0);
    }
    if !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    // Leading zeros do not change the value; anything else beyond 2^32 is invalid anyway.
    let significant = digits.trim_start_matches('0');
    if significant.len() > 16 {
        return None;
    }
    if significant.is_empty() {
        return Some(0);
    }
    u64::from_str_radix(significant, radix).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn global(s: &str) -> bool {
        is_global_ip(s.parse().unwrap())
    }

    #[test]
    fn ipv4_classification() {
        for ip in [
            "0.0.0.0",
            "0.1.2.3",
            "10.0.0.1",
            "10.255.255.255",
            "100.64.0.1",
            "100.127.255.255",
            "127.0.0.1",
            "127.255.255.254",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.0.0.1",
            "192.0.2.1",
            "192.88.99.1",
            "192.168.1.1",
            "198.18.0.1",
            "198.19.255.255",
            "198.51.100.7",
            "203.0.113.9",
            "224.0.0.1",
            "239.255.255.250",
            "240.0.0.1",
            "255.255.255.255",
        ] {
            assert!(!global(ip), "{ip} must not be global");
        }
        for ip in [
            "1.1.1.1",
            "8.8.8.8",
            "93.184.216.34",
            "100.63.255.255",
            "100.128.0.0",
            "172.15.255.255",
            "172.32.0.0",
            "192.0.1.1",
            "192.0.3.1",
            "192.169.0.1",
            "198.17.255.255",
            "198.20.0.0",
            "198.51.101.1",
            "203.0.114.1",
            "223.255.255.255",
            "169.253.1.1",
        ] {
            assert!(global(ip), "{ip} must be global");
        }
    }

    #[test]
    fn ipv6_classification() {
        for ip in [
            "::",
            "::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::ffff:0.0.0.0",
            "::ffff:0:192.168.0.1",
            "::127.0.0.1",
            "64:ff9b::a00:1",
            "64:ff9b:1::1",
            "100::1",
            "2001::1",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "2001:2::1",
            "2001:1ff::1",
            "2001:db8::1",
            "2002:7f00:1::1",
            "2002:808:808::1",
            "3fff::1",
            "3fff:fff::1",
            "5f00::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "febf::1",
            "fec0::1",
            "ff02::1",
            "ff0e::1",
            "1::1",
        ] {
            assert!(!global(ip), "{ip} must not be global");
        }
        for ip in [
            "2606:4700::1111",
            "2001:4860:4860::8888",
            "2001:200::1",
            "2001:db9::1",
            "2003::1",
            "3ffe::1",
            "3fff:1000::1",
            "::ffff:8.8.8.8",
            "::8.8.8.8",
            "64:ff9b::808:808",
        ] {
            assert!(global(ip), "{ip} must be global");
        }
    }

    #[test]
    fn ends_in_number_follows_whatwg() {
        for host in [
            "1",
            "127.0.0.1",
            "127.0.0.1.",
            "2130706433",
            "0x7f.1",
            "a.0x",
            "foo.09",
            "x.0XfF",
        ] {
            assert!(ends_in_number(host), "{host}");
        }
        for host in ["example.com", "localhost", "1.2.3.a", "0x7g", "a.0xg", "."] {
            assert!(!ends_in_number(host), "{host}");
        }
    }

    #[test]
    fn whatwg_ipv4_forms() {
        let cases = [
            ("127.0.0.1", "127.0.0.1"),
            ("127.0.0.1.", "127.0.0.1"),
            ("2130706433", "127.0.0.1"),
            ("017700000001", "127.0.0.1"),
            ("0x7f000001", "127.0.0.1"),
            ("0x7f.1", "127.0.0.1"),
            ("0177.0.0.01", "127.0.0.1"),
            ("127.1", "127.0.0.1"),
            ("10.1.257", "10.1.1.1"),
            ("0", "0.0.0.0"),
            ("0x", "0.0.0.0"),
            ("0xA9.0xFE.0xa9.0xFE", "169.254.169.254"),
            ("4294967295", "255.255.255.255"),
            ("000000000000000000000000000001.2.3.4", "1.2.3.4"),
        ];
        for (host, ip) in cases {
            assert_eq!(parse_ipv4_host(host), Some(ip.parse().unwrap()), "{host}");
        }
        for host in [
            "4294967296",
            "256.0.0.1",
            "1.2.3.256",
            "1.2.65536",
            "1.2.3.4.5",
            "1..2",
            "09",
            "0x7g",
            "a.1",
            "",
            ".",
            "+1",
            "1.-2",
            "99999999999999999999999",
        ] {
            assert_eq!(parse_ipv4_host(host), None, "{host}");
        }
    }
}
