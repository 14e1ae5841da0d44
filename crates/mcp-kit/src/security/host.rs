//! A small, strict parser of the part of a URL the trust policy looks at (scheme, credentials,
//! host, port), and the host rules (localhost-like names, the allowlist).
//!
//! The HTTP client parses URLs with the WHATWG URL standard. This parser agrees with it on every
//! URL it accepts, and refuses (as unparsable) the forms where a lenient parser could see a
//! different host than a naive one: missing or extra slashes after the scheme, backslashes,
//! control characters or whitespace, percent-encoded or non-ASCII hosts (IDNA mapping would be
//! needed to know which host they name; write them in punycode), unusual host characters.

use std::fmt;
use std::net::{IpAddr, Ipv6Addr};

use super::ip::{ends_in_number, parse_ipv4_host};

/// What the policy needs to know about a URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UrlTarget {
    /// The scheme, lowercased.
    pub(crate) scheme: String,
    /// The authority has a `userinfo@` part (even an empty one).
    pub(crate) has_credentials: bool,
    /// The host.
    pub(crate) host: Host,
    /// The explicit port, if any.
    pub(crate) port: Option<u16>,
    /// `scheme://host[:port]`, followed by `/…` when the URL has a path, query or fragment
    /// beyond a bare `/`. Safe to print: no credentials, path, query or fragment (they may
    /// carry secrets, e.g. tokens embedded in the path).
    pub(crate) redacted: String,
}

impl UrlTarget {
    /// The port to connect to: the explicit one or the scheme's default.
    pub(crate) fn port_or_default(&self) -> u16 {
        self.port
            .unwrap_or(if self.scheme == "http" { 80 } else { 443 })
    }
}

/// A URL's host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Host {
    /// An IP literal (IPv4 in any WHATWG form, or a bracketed IPv6 address).
    Ip(IpAddr),
    /// A domain name: lowercase ASCII, as written (a trailing dot is kept).
    Domain(String),
}

impl Host {
    /// The name without its trailing dot, for comparisons (domains only).
    pub(crate) fn domain_for_matching(&self) -> Option<&str> {
        match self {
            Host::Domain(name) => Some(name.strip_suffix('.').unwrap_or(name)),
            Host::Ip(_) => None,
        }
    }
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Host::Ip(IpAddr::V6(ip)) => write!(f, "[{ip}]"),
            Host::Ip(IpAddr::V4(ip)) => write!(f, "{ip}"),
            Host::Domain(name) => f.write_str(name),
        }
    }
}

/// Parses the scheme and authority of `url`. The error says what is wrong (and never repeats
/// the URL).
pub(crate) fn parse_url(url: &str) -> Result<UrlTarget, &'static str> {
    // The WHATWG parser strips leading and trailing C0 controls and spaces; so do we. Inner
    // tabs and newlines it would silently remove (`https://local\nhost`): refuse them instead.
    let url = url.trim_matches(|c: char| c <= ' ');
    if url.is_empty() {
        return Err("the url is empty");
    }
    if url.chars().any(char::is_control) {
        return Err("the url contains control characters (tab, newline, …)");
    }

    let (scheme, rest) = url
        .split_once(':')
        .ok_or("the url has no scheme (expected https://…)")?;
    let mut chars = scheme.chars();
    let valid_scheme = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !valid_scheme {
        return Err("the url has no valid scheme (expected https://…)");
    }
    let scheme = scheme.to_ascii_lowercase();

    let rest = rest
        .strip_prefix("//")
        .ok_or("the scheme must be followed by exactly `//` and the host")?;
    if rest.starts_with(['/', '\\']) {
        return Err("the scheme must be followed by exactly `//` and the host");
    }
    let end = rest.find(['/', '\\', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);

    // Any `@` in the authority means userinfo; the host follows the last one.
    let (has_credentials, host_port) = match authority.rfind('@') {
        Some(at) => (true, &authority[at + 1..]),
        None => (false, authority),
    };

    let (host, host_text, port_text) = if let Some(bracketed) = host_port.strip_prefix('[') {
        let (inner, after) = bracketed
            .split_once(']')
            .ok_or("the IPv6 address has no closing `]`")?;
        let ip: Ipv6Addr = inner.parse().map_err(|_| "the IPv6 address is not valid")?;
        let port_text = match after {
            "" => None,
            _ => Some(
                after
                    .strip_prefix(':')
                    .ok_or("unexpected characters after the IPv6 address")?,
            ),
        };
        (
            Host::Ip(IpAddr::V6(ip)),
            format!("[{}]", inner.to_ascii_lowercase()),
            port_text,
        )
    } else {
        let (name, port_text) = match host_port.split_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (host_port, None),
        };
        (parse_host_name(name)?, name.to_ascii_lowercase(), port_text)
    };

    let port = match port_text {
        None | Some("") => None,
        Some(text) => Some(parse_port(text)?),
    };

    let mut redacted = format!("{scheme}://{host_text}");
    if let Some(text) = port_text.filter(|t| !t.is_empty()) {
        redacted.push(':');
        redacted.push_str(text);
    }
    if !tail.is_empty() && tail != "/" {
        redacted.push_str("/…");
    }

    Ok(UrlTarget {
        scheme,
        has_credentials,
        host,
        port,
        redacted,
    })
}

fn parse_host_name(name: &str) -> Result<Host, &'static str> {
    if name.is_empty() {
        return Err("the url has no host");
    }
    if name.contains('%') {
        return Err("percent-encoded hosts are not supported in untrusted mode");
    }
    if !name.is_ascii() {
        return Err(
            "non-ASCII hosts are not supported in untrusted mode (write them in punycode, xn--…)",
        );
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    {
        return Err("the host contains characters other than letters, digits, `-`, `_` and `.`");
    }
    let name = name.to_ascii_lowercase();
    if ends_in_number(&name) {
        return parse_ipv4_host(&name)
            .map(|ip| Host::Ip(IpAddr::V4(ip)))
            .ok_or("the host ends in a number but is not a valid IPv4 address");
    }
    let labels = name.strip_suffix('.').unwrap_or(&name);
    if labels.split('.').any(str::is_empty) {
        return Err("the host has an empty label");
    }
    Ok(Host::Domain(name))
}

fn parse_port(text: &str) -> Result<u16, &'static str> {
    if !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err("the port is not a number");
    }
    let significant = text.trim_start_matches('0');
    if significant.is_empty() {
        return Ok(0);
    }
    if significant.len() > 5 {
        return Err("the port is out of range");
    }
    significant.parse().map_err(|_| "the port is out of range")
}

/// `localhost`, `*.localhost`, `*.local`, `*.localdomain`, or a single label (no dot). `name`
/// is lowercase without a trailing dot.
pub(crate) fn is_localhost_like(name: &str) -> bool {
    name == "localhost"
        || name.ends_with(".localhost")
        || name.ends_with(".local")
        || name.ends_with(".localdomain")
        || !name.contains('.')
}

/// True when `host` is allowed by `allowed`: a domain equal to an entry or a subdomain of one
/// (case-insensitive, trailing dots ignored); an IP literal equal to an entry written as an IP
/// (`[…]` optional for IPv6). Subdomain matching never applies to IPs.
pub(crate) fn host_in_allowlist(host: &Host, allowed: &[String]) -> bool {
    allowed.iter().any(|entry| {
        let entry = entry.trim().to_ascii_lowercase();
        let entry = entry.strip_suffix('.').unwrap_or(&entry);
        if entry.is_empty() {
            return false;
        }
        let entry_ip = entry_as_ip(entry);
        match host {
            Host::Ip(ip) => entry_ip == Some(*ip),
            Host::Domain(name) => {
                let name = name.strip_suffix('.').unwrap_or(name);
                entry_ip.is_none()
                    && (name == entry
                        || name
                            .strip_suffix(entry)
                            .is_some_and(|prefix| prefix.ends_with('.')))
            }
        }
    })
}

fn entry_as_ip(entry: &str) -> Option<IpAddr> {
    let unbracketed = entry
        .strip_prefix('[')
        .and_then(|e| e.strip_suffix(']'))
        .unwrap_or(entry);
    if let Ok(ip) = unbracketed.parse::<Ipv6Addr>() {
        return Some(IpAddr::V6(ip));
    }
    if ends_in_number(entry) {
        return parse_ipv4_host(entry).map(IpAddr::V4);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn domain(name: &str) -> Host {
        Host::Domain(name.to_owned())
    }

    fn ip(text: &str) -> Host {
        Host::Ip(text.parse().unwrap())
    }

    #[test]
    fn parses_plain_urls() {
        let t = parse_url("https://Example.COM/mcp?x=1#f").unwrap();
        assert_eq!(t.scheme, "https");
        assert_eq!(t.host, domain("example.com"));
        assert_eq!(t.port, None);
        assert_eq!(t.port_or_default(), 443);
        assert!(!t.has_credentials);
        assert_eq!(t.redacted, "https://example.com/…");

        let t = parse_url("  HTTP://example.com:8080/\n").unwrap();
        assert_eq!(t.scheme, "http");
        assert_eq!(t.port, Some(8080));
        assert_eq!(t.redacted, "http://example.com:8080");

        let t = parse_url("http://example.com").unwrap();
        assert_eq!(t.port_or_default(), 80);
        assert_eq!(t.redacted, "http://example.com");

        let t = parse_url("https://example.com:/").unwrap();
        assert_eq!(t.port, None);
        assert_eq!(t.redacted, "https://example.com");

        let t = parse_url("https://example.com:00443?q").unwrap();
        assert_eq!(t.port, Some(443));
        assert_eq!(t.redacted, "https://example.com:00443/…");

        let t = parse_url("https://example.com./").unwrap();
        assert_eq!(t.host, domain("example.com."));
        assert_eq!(t.host.domain_for_matching(), Some("example.com"));

        let t = parse_url("ftp://example.com/").unwrap();
        assert_eq!(t.scheme, "ftp");
    }

    #[test]
    fn parses_ip_hosts() {
        let cases = [
            ("https://127.0.0.1/", "127.0.0.1"),
            ("https://2130706433/", "127.0.0.1"),
            ("https://0x7f.1:8443/", "127.0.0.1"),
            ("https://017700000001/", "127.0.0.1"),
            ("https://127.1./", "127.0.0.1"),
            ("https://[::1]/", "::1"),
            ("https://[::FFFF:127.0.0.1]:443/", "::ffff:127.0.0.1"),
            ("https://[2606:4700::1111]", "2606:4700::1111"),
        ];
        for (url, expected) in cases {
            assert_eq!(parse_url(url).unwrap().host, ip(expected), "{url}");
        }
        let t = parse_url("https://[::FFFF:7f00:1]:8443/x").unwrap();
        assert_eq!(t.redacted, "https://[::ffff:7f00:1]:8443/…");
        assert_eq!(t.port, Some(8443));
    }

    #[test]
    fn detects_credentials() {
        for url in [
            "https://user:pass@example.com/",
            "https://user@example.com",
            "https://@example.com",
            "https://:@example.com",
            "https://a@b@example.com",
            "https://example.com:443@evil.com/",
        ] {
            let t = parse_url(url).unwrap();
            assert!(t.has_credentials, "{url}");
            assert!(!t.redacted.contains('@'), "{url}");
        }
        let t = parse_url("https://user:secret@example.com:8443/p").unwrap();
        assert_eq!(t.host, domain("example.com"));
        assert_eq!(t.redacted, "https://example.com:8443/…");
        // `@` after the authority is not userinfo.
        for url in [
            "https://example.com/a@b",
            "https://example.com?x=@y",
            "https://example.com#@evil.com",
        ] {
            let t = parse_url(url).unwrap();
            assert!(!t.has_credentials, "{url}");
            assert_eq!(t.host, domain("example.com"), "{url}");
        }
    }

    #[test]
    fn rejects_ambiguous_or_invalid_urls() {
        for url in [
            "",
            "   ",
            "example.com",
            "//example.com",
            "1https://example.com",
            "https:example.com",
            "https:/example.com",
            "https:///example.com",
            "https:\\\\example.com",
            "https:/\\example.com",
            "https://\\example.com",
            "https://",
            "https:///",
            "https://:443/",
            "https://user@/",
            "https://exa\tmple.com/",
            "https://local\nhost/",
            "https://exa mple.com/",
            "https://%6c%6fcalhost/",
            "https://ex\u{00e4}mple.com/",
            "https://\u{ff11}\u{ff12}\u{ff17}.0.0.1/",
            "https://example..com/",
            "https://.example.com/",
            "https://example.com../",
            "https://exa*mple.com/",
            "https://1.2.3.4.5/",
            "https://256.1.1.1/",
            "https://4294967296/",
            "https://foo.09/",
            "https://example.123/",
            "https://[::1/",
            "https://[::1]x/",
            "https://[fe80::1%25eth0]/",
            "https://[127.0.0.1]/",
            "https://example.com:65536/",
            "https://example.com:99999999999999999999/",
            "https://example.com:8o/",
            "https://example.com:-1/",
            "https://example.com:443:443/",
        ] {
            assert!(
                parse_url(url).is_err(),
                "{url:?} must be refused as unparsable"
            );
        }
        assert_eq!(
            parse_url("https://example.com:65535").unwrap().port,
            Some(65535)
        );
        assert_eq!(parse_url("https://example.com:0").unwrap().port, Some(0));
    }

    #[test]
    fn localhost_like_names() {
        for name in [
            "localhost",
            "a.localhost",
            "printer.local",
            "box.localdomain",
            "localdomain",
            "intranet",
            "example",
        ] {
            assert!(is_localhost_like(name), "{name}");
        }
        for name in [
            "example.com",
            "localhost.example.com",
            "local.example",
            "notlocalhost.com",
            "my-local.net",
        ] {
            assert!(!is_localhost_like(name), "{name}");
        }
    }

    #[test]
    fn allowlist_matching() {
        let allowed = vec![
            "Example.COM.".to_owned(),
            " mcp.test ".to_owned(),
            "93.184.216.34".to_owned(),
            "[2606:4700::1111]".to_owned(),
        ];
        for host in [
            "example.com",
            "example.com.",
            "api.example.com",
            "a.b.example.com",
            "mcp.test",
        ] {
            assert!(host_in_allowlist(&domain(host), &allowed), "{host}");
        }
        for host in [
            "badexample.com",
            "example.com.evil.net",
            "example.org",
            "com",
            "test",
        ] {
            assert!(!host_in_allowlist(&domain(host), &allowed), "{host}");
        }
        assert!(host_in_allowlist(&ip("93.184.216.34"), &allowed));
        assert!(host_in_allowlist(&ip("2606:4700::1111"), &allowed));
        assert!(!host_in_allowlist(&ip("93.184.216.35"), &allowed));
        assert!(!host_in_allowlist(&ip("::ffff:93.184.216.34"), &allowed));

        // Subdomain matching never applies to IPs, in either direction.
        let allowed = vec!["216.34".to_owned(), "0.0.1".to_owned()];
        assert!(!host_in_allowlist(&ip("93.184.216.34"), &allowed));
        let allowed = vec!["34".to_owned()];
        assert!(!host_in_allowlist(&ip("93.184.216.34"), &allowed));
        assert!(!host_in_allowlist(&domain("x.34"), &allowed));

        // An IPv4 entry in another form names the same address.
        let allowed = vec!["0x5db8d822".to_owned()];
        assert!(host_in_allowlist(&ip("93.184.216.34"), &allowed));

        // Empty entries match nothing.
        let allowed = vec![String::new(), ".".to_owned(), "  ".to_owned()];
        assert!(!host_in_allowlist(&domain("example.com"), &allowed));
        assert!(!host_in_allowlist(&domain("example.com."), &allowed));
    }
}
