//! The value syntaxes that the file and the environment share: ports, durations, sizes,
//! counts, booleans, paths, hosts, and the allowlist entries. Each parser returns the
//! problem as text; the caller adds which field it was. Applications on this crate that read
//! settings of their own use the same syntaxes (`mcp_server::config_value`).

use std::time::Duration;

/// `invalid value "abc" (expected …)`.
pub fn invalid(shown: &str, expected: &str) -> String {
    format!("invalid value {shown} (expected {expected})")
}

/// A string as it appears in an error message: quoted.
pub fn quoted(text: &str) -> String {
    format!("{text:?}")
}

pub(super) const PORT: &str = "a port number 1-65535, or 0 for any free port";
/// What a duration looks like, for error messages.
pub const DURATION: &str =
    "a duration such as \"30s\", \"500ms\", \"5m\" or \"1h\", or whole seconds";
/// What a size looks like, for error messages.
pub const SIZE: &str = "a size in bytes such as 16777216, \"64KiB\" or \"16MiB\" (at least 1 byte)";
/// What a count looks like, for error messages.
pub const COUNT: &str = "a whole number of at least 1";
pub(super) const BOOL: &str = "true or false";
pub(super) const PATH: &str = "a URL path starting with /, such as \"/mcp\"";
pub(super) const HOST: &str = "a host name or IP address such as \"127.0.0.1\"";
pub(super) const HOST_ENTRY: &str = "a host name, host:port or \"*\", such as \"mcp.example.com\"";
pub(super) const ORIGIN_ENTRY: &str =
    "scheme://host, scheme://host:port or \"*\", such as \"https://app.example.com\"";

pub(super) fn port(text: &str) -> Result<u16, String> {
    text.trim()
        .parse::<u16>()
        .map_err(|_| invalid(&quoted(text), PORT))
}

pub(super) fn port_number(n: i64) -> Result<u16, String> {
    u16::try_from(n).map_err(|_| invalid(&n.to_string(), PORT))
}

/// `500ms`, `30s`, `5m`, `1h`, `1d`, or whole seconds (`"30"`).
pub fn duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let bad = || invalid(&quoted(text), DURATION);
    let n: u64 = number.parse().map_err(|_| bad())?;
    let unit_secs = |secs: u64| n.checked_mul(secs).map(Duration::from_secs).ok_or_else(bad);
    match unit.trim() {
        "ms" => Ok(Duration::from_millis(n)),
        "" | "s" => unit_secs(1),
        "m" | "min" => unit_secs(60),
        "h" => unit_secs(3600),
        "d" => unit_secs(86_400),
        _ => Err(bad()),
    }
}

/// Whole seconds, from a TOML integer.
pub(super) fn seconds(n: i64) -> Result<Duration, String> {
    u64::try_from(n)
        .map(Duration::from_secs)
        .map_err(|_| invalid(&n.to_string(), DURATION))
}

/// `16777216`, `64KiB`, `16MiB`, `1GiB` (powers of 1024), `64KB`, `16MB`, `1GB` (of 1000).
pub fn size(text: &str) -> Result<usize, String> {
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let bad = || invalid(&quoted(text), SIZE);
    let n: u64 = number.parse().map_err(|_| bad())?;
    let factor: u64 = match unit.trim() {
        "" | "B" => 1,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        "KB" | "kB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        _ => return Err(bad()),
    };
    n.checked_mul(factor)
        .and_then(|b| usize::try_from(b).ok())
        .filter(|b| *b > 0)
        .ok_or_else(bad)
}

pub(super) fn size_number(n: i64) -> Result<usize, String> {
    usize::try_from(n)
        .ok()
        .filter(|b| *b > 0)
        .ok_or_else(|| invalid(&n.to_string(), SIZE))
}

/// A whole number of at least 1.
pub fn count(text: &str) -> Result<usize, String> {
    text.trim()
        .parse::<usize>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| invalid(&quoted(text), COUNT))
}

pub(super) fn count_number(n: i64) -> Result<usize, String> {
    usize::try_from(n)
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| invalid(&n.to_string(), COUNT))
}

/// The environment's booleans, as seed 004 reads `MCP_ENABLE_CORS`: `true` in any case is
/// true, anything else false (a value that is neither `true` nor `false` is logged).
pub fn env_bool(name: &str, text: &str) -> bool {
    let t = text.trim();
    if t.eq_ignore_ascii_case("true") {
        return true;
    }
    if !t.eq_ignore_ascii_case("false") {
        tracing::warn!(
            "{name}={text:?} is neither true nor false and is taken as false (only \"true\", in \
             any case, turns it on)"
        );
    }
    false
}

pub(super) const REDIS_URL: &str = "a Redis URL such as \"redis://127.0.0.1:6379/0\"";

/// A Redis URL (`redis://`, `redis+unix://`); the crate must have feature
/// `redis` to use it. The URL is never repeated in the error (it may hold a password).
pub(super) fn redis_url(text: &str) -> Result<String, String> {
    let t = text.trim();
    if t.starts_with("rediss://") {
        return Err(
            "TLS to Redis (rediss://) is not supported: use redis:// on a private \
                    network, or a TLS tunnel"
                .to_owned(),
        );
    }
    let scheme_ok = ["redis://", "redis+unix://", "unix://"]
        .iter()
        .any(|s| t.starts_with(s));
    if !scheme_ok {
        return Err(invalid("(not shown)", REDIS_URL));
    }
    #[cfg(feature = "redis")]
    {
        crate::RedisSessionStore::new(t, crate::RedisOptions::default())
            .map_err(|e| format!("{e}"))?;
        Ok(t.to_owned())
    }
    #[cfg(not(feature = "redis"))]
    Err("sessions shared through Redis need mcp-server's feature `redis`".to_owned())
}

pub(super) const REDIS_PREFIX: &str = "letters, digits, '_', '-' or '.', such as \"mcp\"";

/// The prefix of a Redis store's keys.
pub(super) fn redis_prefix(text: &str) -> Result<String, String> {
    let t = text.trim();
    let ok = !t.is_empty()
        && t.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if ok {
        Ok(t.to_owned())
    } else {
        Err(invalid(&quoted(text), REDIS_PREFIX))
    }
}

pub(super) fn path(text: &str) -> Result<String, String> {
    let t = text.trim();
    if t.starts_with('/') && !t.contains(char::is_whitespace) && !t.contains(['?', '#']) {
        Ok(t.to_owned())
    } else {
        Err(invalid(&quoted(text), PATH))
    }
}

/// A host to bind; brackets around an IPv6 address are dropped (`[::1]` → `::1`).
pub(super) fn host(text: &str) -> Result<String, String> {
    let t = text.trim();
    let t = t
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(t);
    if t.is_empty() || t.contains(char::is_whitespace) || t.contains(['/', '@']) {
        Err(invalid(&quoted(text), HOST))
    } else {
        Ok(t.to_owned())
    }
}

/// An `allowed_hosts` entry: not empty, no scheme, no path, no spaces.
pub(super) fn host_entry(text: &str) -> Result<String, String> {
    let t = text.trim();
    if t.is_empty() || t.contains(char::is_whitespace) || t.contains(['/', '@']) {
        Err(invalid(&quoted(text), HOST_ENTRY))
    } else {
        Ok(t.to_owned())
    }
}

/// An `allowed_origins` entry: `*` or `scheme://authority` without a path.
pub(super) fn origin_entry(text: &str) -> Result<String, String> {
    let t = text.trim();
    if t == "*" {
        return Ok(t.to_owned());
    }
    match t.split_once("://") {
        Some((scheme, rest))
            if !scheme.is_empty()
                && !rest.is_empty()
                && !rest.contains(['/', '@'])
                && !rest.contains(char::is_whitespace) =>
        {
            Ok(t.to_owned())
        }
        _ => Err(invalid(&quoted(text), ORIGIN_ENTRY)),
    }
}

/// Some text, not empty.
pub(super) fn text(value: &str, expected: &str) -> Result<String, String> {
    if value.trim().is_empty() {
        Err(invalid(&quoted(value), expected))
    } else {
        Ok(value.trim().to_owned())
    }
}

/// A comma-separated list (the environment's form of arrays); empty items are skipped.
pub fn comma_list(text: &str) -> Vec<&str> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect()
}

/// The closest of `known` to `unknown`, when it is close enough to be a typo.
pub fn suggestion<'a>(unknown: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .map(|k| (edit_distance(unknown, k), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 4))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(duration("30"), Ok(Duration::from_secs(30)));
        assert_eq!(duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(duration(" 5m "), Ok(Duration::from_secs(300)));
        assert_eq!(duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(duration("2d"), Ok(Duration::from_secs(172_800)));
        for bad in [
            "",
            "s",
            "-1s",
            "1.5s",
            "10 parsecs",
            "99999999999999999999d",
        ] {
            let e = duration(bad).unwrap_err();
            assert!(e.starts_with("invalid value \""), "{e}");
        }
        assert_eq!(seconds(-1).unwrap_err(), invalid("-1", DURATION));
    }

    #[test]
    fn sizes_ports_counts() {
        assert_eq!(size("16MiB"), Ok(16 << 20));
        assert_eq!(size("64KB"), Ok(64_000));
        assert_eq!(size("1024"), Ok(1024));
        assert!(size("0").is_err());
        assert!(size("1TiB").is_err());
        assert_eq!(size_number(0).unwrap_err(), invalid("0", SIZE));
        assert_eq!(port("8080"), Ok(8080));
        assert_eq!(
            port("abc").unwrap_err(),
            "invalid value \"abc\" (expected a port number 1-65535, or 0 for any free port)"
        );
        assert!(port("65536").is_err());
        assert!(port_number(-1).is_err());
        assert_eq!(count("3"), Ok(3));
        assert!(count("0").is_err());
        assert!(count_number(0).is_err());
    }

    #[test]
    fn seed_booleans() {
        assert!(env_bool("X", "true"));
        assert!(env_bool("X", "TRUE"));
        assert!(env_bool("X", "True"));
        assert!(!env_bool("X", "false"));
        assert!(!env_bool("X", "1"));
        assert!(!env_bool("X", "yes"));
    }

    #[test]
    fn hosts_paths_origins() {
        assert_eq!(host("[::1]"), Ok("::1".to_owned()));
        assert_eq!(host("localhost"), Ok("localhost".to_owned()));
        assert!(host("").is_err());
        assert!(host("http://x").is_err());
        assert_eq!(path("/v1/mcp"), Ok("/v1/mcp".to_owned()));
        assert!(path("mcp").is_err());
        assert!(path("/a b").is_err());
        assert!(host_entry("example.com:8080").is_ok());
        assert!(host_entry("https://example.com").is_err());
        assert!(origin_entry("https://app.example.com").is_ok());
        assert!(origin_entry("*").is_ok());
        assert!(origin_entry("app.example.com").is_err());
        assert!(origin_entry("https://app.example.com/path").is_err());
        assert_eq!(comma_list(" a, ,b "), vec!["a", "b"]);
    }

    #[test]
    fn typo_suggestions() {
        assert_eq!(suggestion("prot", &["host", "port", "path"]), Some("port"));
        assert_eq!(
            suggestion("alowed_hosts", &["allowed_hosts"]),
            Some("allowed_hosts")
        );
        assert_eq!(suggestion("zzzzzz", &["host", "port"]), None);
    }
}
