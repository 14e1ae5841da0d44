//! The refusals of the trust policy, with the messages the troubleshooting guide lists.

use std::net::IpAddr;

/// The fix shared by the refusals that only Trusted mode lifts.
const TRUST_HINT: &str = "rerun with --trust (CLI) or use TrustMode::Trusted (code)";

/// A refusal of the trust policy ([`TrustMode::Untrusted`](crate::security::TrustMode)).
///
/// Each message starts with a fixed sentence (`refusing to … in untrusted mode`, the one the
/// troubleshooting guide lists), then names the server and what was refused, then how to
/// relax the rule. Messages never contain header values, environment variable values, URL
/// credentials, paths, queries or fragments (they may carry secrets): URLs are shown as
/// `scheme://host[:port]`, followed by `/…` when something was left out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// A `transport=stdio` server: spawning a program is refused.
    #[error(
        "refusing to spawn mcp server in untrusted mode: server `{}` (transport=stdio); {TRUST_HINT}",
        shown(.server)
    )]
    Spawn {
        /// The server's name.
        server: String,
    },

    /// A `transport=unix` server: connecting a local socket is refused.
    #[error(
        "refusing to connect unix mcp server in untrusted mode: server `{}` (transport=unix); \
         {TRUST_HINT}",
        shown(.server)
    )]
    Unix {
        /// The server's name.
        server: String,
    },

    /// A URL that cannot be parsed, or that uses a form the policy does not accept (see
    /// `reason`).
    #[error(
        "refusing to connect unparsable streamable http url in untrusted mode: server `{}`, \
         field `{field}`: {reason}; write it as https://host[:port]/path with an ASCII (punycode) \
         host, or {TRUST_HINT}",
        shown(.server)
    )]
    InvalidUrl {
        /// The server's name.
        server: String,
        /// The configuration field (`url`, `sse_url` or `http_url`), or the OAuth document field
        /// the URL came from (`resource_metadata`, `token_endpoint`, …).
        field: &'static str,
        /// What is wrong with it.
        reason: &'static str,
    },

    /// A scheme other than `http` and `https`.
    #[error(
        "refusing to connect streamable http url with unsupported scheme in untrusted mode: \
         server `{}`, field `{field}`, scheme `{scheme}`; use https:// (or http:// with \
         --allow-http)",
        shown(.server)
    )]
    UnsupportedScheme {
        /// The server's name.
        server: String,
        /// The configuration field (`url`, `sse_url` or `http_url`), or the OAuth document field
        /// the URL came from (`resource_metadata`, `token_endpoint`, …).
        field: &'static str,
        /// The scheme, lowercased.
        scheme: String,
    },

    /// An `http://` URL while the policy requires https.
    #[error(
        "refusing to connect non-https streamable http url in untrusted mode: server `{}`, \
         field `{field}`, url `{url}`; use https://, or rerun with {flags} (CLI) / \
         UntrustedStreamableHttpPolicy {{ require_https: false, .. }} (code)",
        shown(.server)
    )]
    NonHttps {
        /// The server's name.
        server: String,
        /// The configuration field (`url`, `sse_url` or `http_url`), or the OAuth document field
        /// the URL came from (`resource_metadata`, `token_endpoint`, …).
        field: &'static str,
        /// The URL, redacted (`scheme://host[:port]`).
        url: String,
        /// Every CLI flag this URL needs to pass, at once (`--allow-http --allow-private-ip`
        /// for `http://127.0.0.1`), so that one rerun is enough.
        flags: String,
    },

    /// A URL with `user:pass@` or `user@` credentials.
    #[error(
        "refusing to connect streamable http url with credentials in untrusted mode: server \
         `{}`, field `{field}`, url `{url}` (credentials not shown); remove the user:pass@ part, \
         or {TRUST_HINT}",
        shown(.server)
    )]
    UrlCredentials {
        /// The server's name.
        server: String,
        /// The configuration field (`url`, `sse_url` or `http_url`), or the OAuth document field
        /// the URL came from (`resource_metadata`, `token_endpoint`, …).
        field: &'static str,
        /// The URL, redacted (without the credentials).
        url: String,
    },

    /// A `localhost`, `*.localhost`, `*.local`, `*.localdomain` or single-label host.
    #[error(
        "refusing to connect localhost/local/single-label domain in untrusted mode: server \
         `{}`, field `{field}`, url `{url}`, host `{host}`; rerun with {flags} (CLI) / \
         UntrustedStreamableHttpPolicy {{ allow_localhost: true, .. }} (code), or with --trust \
         (--allow-host does not lift this rule)",
        shown(.server)
    )]
    Localhost {
        /// The server's name.
        server: String,
        /// The configuration field (`url`, `sse_url` or `http_url`), or the OAuth document field
        /// the URL came from (`resource_metadata`, `token_endpoint`, …).
        field: &'static str,
        /// The URL, redacted.
        url: String,
        /// The host, lowercased.
        host: String,
        /// Every CLI flag this URL needs to pass, at once.
        flags: String,
    },

    /// An IP literal that is not global (see [`is_global_ip`](super::is_global_ip)).
    #[error(
        "refusing to connect non-global ip in untrusted mode: server `{}`, field `{field}`, url \
         `{url}`, ip `{ip}`; rerun with {flags} (CLI) / UntrustedStreamableHttpPolicy \
         {{ allow_private_ips: true, .. }} (code), or with --trust",
        shown(.server)
    )]
    NonGlobalIp {
        /// The server's name.
        server: String,
        /// The configuration field (`url`, `sse_url` or `http_url`), or the OAuth document field
        /// the URL came from (`resource_metadata`, `token_endpoint`, …).
        field: &'static str,
        /// The URL, redacted.
        url: String,
        /// The address (decoded from whatever form the URL used).
        ip: IpAddr,
        /// Every CLI flag this URL needs to pass, at once.
        flags: String,
    },

    /// A host outside a non-empty allowlist.
    #[error(
        "refusing to connect host not in allowlist in untrusted mode: server `{}`, field \
         `{field}`, url `{url}`, host `{host}`; add it with --allow-host {host} (CLI) / \
         UntrustedStreamableHttpPolicy::allowed_hosts (code), or rerun with --trust",
        shown(.server)
    )]
    HostNotAllowed {
        /// The server's name.
        server: String,
        /// The configuration field (`url`, `sse_url` or `http_url`), or the OAuth document field
        /// the URL came from (`resource_metadata`, `token_endpoint`, …).
        field: &'static str,
        /// The URL, redacted.
        url: String,
        /// The host, lowercased (IPv6 in brackets).
        host: String,
    },

    /// With the DNS check on: a hostname resolving to a non-global address.
    #[error(
        "refusing to connect hostname that resolves to non-global ip in untrusted mode: server \
         `{}`, field `{field}`, url `{url}`, host `{host}` resolves to `{ip}`; rerun with \
         --allow-private-ip or without --dns-check (CLI) / UntrustedStreamableHttpPolicy {{ \
         allow_private_ips: true, .. }} (code), or with --trust",
        shown(.server)
    )]
    ResolvesToNonGlobalIp {
        /// The server's name.
        server: String,
        /// The configuration field (`url`, `sse_url` or `http_url`), or the OAuth document field
        /// the URL came from (`resource_metadata`, `token_endpoint`, …).
        field: &'static str,
        /// The URL, redacted.
        url: String,
        /// The hostname.
        host: String,
        /// The first non-global address it resolved to.
        ip: IpAddr,
    },

    /// With the DNS check on and fail-closed: a lookup that failed, timed out or returned no
    /// address.
    #[error(
        "refusing to connect hostname with failed/timed out dns lookup in untrusted mode: server \
         `{}`, field `{field}`, url `{url}`, host `{host}`: {reason}; fix the DNS setup, raise \
         --dns-timeout-ms, or rerun with --dns-fail-open, without --dns-check (CLI) / \
         UntrustedStreamableHttpPolicy {{ dns_timeout, dns_fail_open: true, .. }} (code), or \
         with --trust",
        shown(.server)
    )]
    DnsLookupFailed {
        /// The server's name.
        server: String,
        /// The configuration field (`url`, `sse_url` or `http_url`), or the OAuth document field
        /// the URL came from (`resource_metadata`, `token_endpoint`, …).
        field: &'static str,
        /// The URL, redacted.
        url: String,
        /// The hostname.
        host: String,
        /// What happened (`dns lookup timed out after …`, `dns lookup failed: …`).
        reason: String,
    },

    /// An `Authorization`, `Proxy-Authorization` or `Cookie` entry in `http_headers`.
    #[error(
        "refusing to send sensitive http header in untrusted mode: server `{}`, header `{}` \
         (value not shown); {TRUST_HINT}",
        shown(.server),
        shown(.header)
    )]
    SensitiveHeader {
        /// The server's name.
        server: String,
        /// The header's name, as configured (never its value).
        header: String,
    },

    /// A `bearer_token_env_var`: reading secrets from the environment is refused.
    #[error(
        "refusing to read bearer token env var in untrusted mode: server `{}`, \
         bearer_token_env_var `{}`; {TRUST_HINT}",
        shown(.server),
        shown(.env_var)
    )]
    BearerTokenEnvVar {
        /// The server's name.
        server: String,
        /// The variable's name (never its value).
        env_var: String,
    },

    /// An `oauth.client_secret_env_var`: reading secrets from the environment is refused.
    #[error(
        "refusing to read oauth client secret env var in untrusted mode: server `{}`, \
         oauth.client_secret_env_var `{}`; {TRUST_HINT}",
        shown(.server),
        shown(.env_var)
    )]
    OAuthSecretEnvVar {
        /// The server's name.
        server: String,
        /// The variable's name (never its value).
        env_var: String,
    },

    /// A non-empty `env_http_headers`: reading secrets from the environment is refused.
    #[error(
        "refusing to read http header env vars in untrusted mode: server `{}`, env_http_headers \
         for {}; {TRUST_HINT}",
        shown(.server),
        shown_list(.headers)
    )]
    EnvHttpHeaders {
        /// The server's name.
        server: String,
        /// The header names configured (never the variables' values).
        headers: Vec<String>,
    },
}

impl PolicyError {
    /// The name of the refused server.
    pub fn server(&self) -> &str {
        match self {
            PolicyError::Spawn { server }
            | PolicyError::Unix { server }
            | PolicyError::InvalidUrl { server, .. }
            | PolicyError::UnsupportedScheme { server, .. }
            | PolicyError::NonHttps { server, .. }
            | PolicyError::UrlCredentials { server, .. }
            | PolicyError::Localhost { server, .. }
            | PolicyError::NonGlobalIp { server, .. }
            | PolicyError::HostNotAllowed { server, .. }
            | PolicyError::ResolvesToNonGlobalIp { server, .. }
            | PolicyError::DnsLookupFailed { server, .. }
            | PolicyError::SensitiveHeader { server, .. }
            | PolicyError::BearerTokenEnvVar { server, .. }
            | PolicyError::OAuthSecretEnvVar { server, .. }
            | PolicyError::EnvHttpHeaders { server, .. } => server,
        }
    }
}

/// A configuration string made safe to print in a terminal: control and bidi-override
/// characters escaped, long strings cut.
fn shown(text: &str) -> String {
    const MAX_CHARS: usize = 128;
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == MAX_CHARS {
            out.push('…');
            break;
        }
        let invisible = matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}');
        if c.is_control() || invisible || c == '`' {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

fn shown_list(items: &[String]) -> String {
    let names: Vec<String> = items
        .iter()
        .map(|item| format!("`{}`", shown(item)))
        .collect();
    let noun = if names.len() == 1 {
        "header"
    } else {
        "headers"
    };
    format!("{noun} {}", names.join(", "))
}
