//! The trust model: what an untrusted `mcp.json` may make the client do.
//!
//! `mcp.json` usually comes from the working directory, i.e. from whatever repository the user
//! happens to be in. In [`TrustMode::Untrusted`] (the default) the client therefore refuses to
//! spawn processes or connect to unix sockets, and checks every streamable HTTP destination
//! against an [`UntrustedStreamableHttpPolicy`]: https only, no localhost-like or single-label
//! hosts, no non-global IP literals, an optional host allowlist, an optional DNS check, no URL
//! credentials, no sensitive headers, and no secrets read from the environment.

use std::time::Duration;

mod check;
mod dns;
mod host;
mod ip;

pub use check::PolicyError;
#[cfg(feature = "oauth")]
pub(crate) use check::check_untrusted_url;
pub(crate) use check::{check_local_transport, check_untrusted_http};
pub use ip::is_global_ip;

/// The host of `url` as the trust policy reads it (`api.example.com`, `127.0.0.1`, `[::1]`), or
/// `None` when the policy could not parse it.
pub fn url_host(url: &str) -> Option<String> {
    host::parse_url(url)
        .ok()
        .map(|target| target.host.to_string())
}

/// How far the configuration is trusted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TrustMode {
    /// Refuse local transports; check remote destinations (the default).
    #[default]
    Untrusted,
    /// Trust the configuration fully: spawn, connect unix sockets, send auth headers, read
    /// secrets from the environment, expand `${VAR}` placeholders.
    Trusted,
}

/// The outbound rules for streamable HTTP servers in [`TrustMode::Untrusted`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UntrustedStreamableHttpPolicy {
    /// Only `https://` URLs (default `true`; CLI `--allow-http` clears it).
    pub require_https: bool,
    /// Allow `localhost`, `*.localhost`, `*.local`, `*.localdomain` and single-label hosts
    /// (default `false`; CLI `--allow-localhost`).
    pub allow_localhost: bool,
    /// Allow non-global IP literals: loopback, private, link-local, … (default `false`; CLI
    /// `--allow-private-ip`).
    pub allow_private_ips: bool,
    /// Resolve hostnames and refuse those resolving to non-global addresses (default `false`;
    /// CLI `--dns-check`). Does not apply when `allow_private_ips` is set.
    pub dns_check: bool,
    /// Timeout of that lookup (default 2 s; CLI `--dns-timeout-ms`).
    pub dns_timeout: Duration,
    /// Let a failed or timed-out lookup through (default `false`: refuse; CLI
    /// `--dns-fail-open`).
    pub dns_fail_open: bool,
    /// When non-empty, only these hosts and their subdomains are allowed (CLI `--allow-host`,
    /// repeatable). Never overrides the localhost rule.
    pub allowed_hosts: Vec<String>,
}

impl Default for UntrustedStreamableHttpPolicy {
    fn default() -> Self {
        Self {
            require_https: true,
            allow_localhost: false,
            allow_private_ips: false,
            dns_check: false,
            dns_timeout: Duration::from_secs(2),
            dns_fail_open: false,
            allowed_hosts: Vec::new(),
        }
    }
}
