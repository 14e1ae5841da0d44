//! The checks behind [`TrustMode::Untrusted`](super::TrustMode), and their error.

use std::future::Future;
use std::io;
use std::net::SocketAddr;

use super::UntrustedStreamableHttpPolicy;
use super::dns::{DnsOutcome, resolve_and_classify, system_resolve};
use super::host::{Host, UrlTarget, host_in_allowlist, is_localhost_like, parse_url};
use super::ip::is_global_ip;
use crate::config::{HttpUrls, StreamableHttpServer, Transport};

mod error;

pub use error::PolicyError;

/// Refuses stdio and unix transports (called in Untrusted mode only).
pub(crate) fn check_local_transport(server: &str, transport: Transport) -> Result<(), PolicyError> {
    let server = server.to_owned();
    match transport {
        Transport::Stdio => Err(PolicyError::Spawn { server }),
        Transport::Unix => Err(PolicyError::Unix { server }),
        Transport::StreamableHttp => Ok(()),
    }
}

/// Checks a streamable HTTP server against the policy (called in Untrusted mode only).
///
/// Order: every URL (`url`, or `sse_url` then `http_url`: parse, scheme, https, credentials,
/// localhost-like host, non-global IP literal, allowlist), then `http_headers`, then the
/// environment secrets (`bearer_token_env_var`, `env_http_headers`), and only when all of that
/// passed, the DNS check of each distinct hostname (so a configuration refused anyway causes
/// no lookup and no wait).
pub(crate) async fn check_untrusted_http(
    policy: &UntrustedStreamableHttpPolicy,
    server: &str,
    config: &StreamableHttpServer,
) -> Result<(), PolicyError> {
    check_untrusted_http_with(policy, server, config, &system_resolve).await
}

/// [`check_untrusted_http`] with the resolver as a parameter (tests inject their own).
async fn check_untrusted_http_with<R, F>(
    policy: &UntrustedStreamableHttpPolicy,
    server: &str,
    config: &StreamableHttpServer,
    resolve: &R,
) -> Result<(), PolicyError>
where
    R: Fn(String, u16) -> F,
    F: Future<Output = io::Result<Vec<SocketAddr>>>,
{
    let urls: Vec<(&'static str, &str)> = match &config.urls {
        HttpUrls::Single(url) => vec![("url", url)],
        HttpUrls::Split { sse_url, http_url } => vec![("sse_url", sse_url), ("http_url", http_url)],
    };

    let mut lookups: Vec<(&'static str, UrlTarget)> = Vec::new();
    for (field, url) in urls {
        let target = check_url(policy, server, field, url)?;
        let needs_lookup = matches!(target.host, Host::Domain(_))
            && !lookups.iter().any(|(_, seen)| {
                seen.host == target.host && seen.port_or_default() == target.port_or_default()
            });
        if needs_lookup {
            lookups.push((field, target));
        }
    }

    check_headers(server, config)?;
    check_env_secrets(server, config)?;

    if policy.dns_check && !policy.allow_private_ips {
        for (field, target) in lookups {
            check_dns(policy, server, field, &target, resolve).await?;
        }
    }
    Ok(())
}

/// Checks a URL the OAuth flow is about to fetch or open, named by the field it came from
/// (`resource_metadata`, `authorization_servers`, `token_endpoint`, …), by the rules of a
/// server's URL: the same refusals, the same messages, the same DNS check.
#[cfg(feature = "oauth")]
pub(crate) async fn check_untrusted_url(
    policy: &UntrustedStreamableHttpPolicy,
    server: &str,
    field: &'static str,
    url: &str,
) -> Result<(), PolicyError> {
    let target = check_url(policy, server, field, url)?;
    if policy.dns_check && !policy.allow_private_ips && matches!(target.host, Host::Domain(_)) {
        check_dns(policy, server, field, &target, &system_resolve).await?;
    }
    Ok(())
}

/// The static checks of one URL, in order. Returns the parsed URL for the DNS check.
fn check_url(
    policy: &UntrustedStreamableHttpPolicy,
    server: &str,
    field: &'static str,
    url: &str,
) -> Result<UrlTarget, PolicyError> {
    let server = server.to_owned();
    let target = parse_url(url).map_err(|reason| PolicyError::InvalidUrl {
        server: server.clone(),
        field,
        reason,
    })?;

    if target.scheme != "https" && target.scheme != "http" {
        return Err(PolicyError::UnsupportedScheme {
            server,
            field,
            scheme: target.scheme,
        });
    }
    // The rules an --allow-* flag lifts, each checked once here: a refusal names every flag
    // the URL needs, so that one rerun is enough.
    let needs_http = target.scheme != "https" && policy.require_https;
    let localhost = match &target.host {
        Host::Domain(_) => target
            .host
            .domain_for_matching()
            .filter(|name| !policy.allow_localhost && is_localhost_like(name)),
        Host::Ip(_) => None,
    };
    let private_ip = match &target.host {
        Host::Ip(ip) if !policy.allow_private_ips && !is_global_ip(*ip) => Some(*ip),
        _ => None,
    };
    let flags = [
        (needs_http, "--allow-http"),
        (localhost.is_some(), "--allow-localhost"),
        (private_ip.is_some(), "--allow-private-ip"),
    ]
    .into_iter()
    .filter_map(|(needed, flag)| needed.then_some(flag))
    .collect::<Vec<_>>()
    .join(" ");

    if needs_http {
        return Err(PolicyError::NonHttps {
            server,
            field,
            url: target.redacted,
            flags,
        });
    }
    if target.has_credentials {
        return Err(PolicyError::UrlCredentials {
            server,
            field,
            url: target.redacted,
        });
    }
    if let Some(name) = localhost {
        return Err(PolicyError::Localhost {
            server,
            field,
            host: name.to_owned(),
            url: target.redacted,
            flags,
        });
    }
    if let Some(ip) = private_ip {
        return Err(PolicyError::NonGlobalIp {
            server,
            field,
            ip,
            url: target.redacted,
            flags,
        });
    }

    if !policy.allowed_hosts.is_empty() && !host_in_allowlist(&target.host, &policy.allowed_hosts) {
        let host = match &target.host {
            Host::Domain(_) => target
                .host
                .domain_for_matching()
                .unwrap_or_default()
                .to_owned(),
            Host::Ip(_) => target.host.to_string(),
        };
        return Err(PolicyError::HostNotAllowed {
            server,
            field,
            host,
            url: target.redacted,
        });
    }

    Ok(target)
}

fn check_headers(server: &str, config: &StreamableHttpServer) -> Result<(), PolicyError> {
    const SENSITIVE: [&str; 3] = ["authorization", "proxy-authorization", "cookie"];
    let sensitive = config.http_headers.keys().find(|name| {
        SENSITIVE
            .iter()
            .any(|s| name.trim().eq_ignore_ascii_case(s))
    });
    match sensitive {
        Some(name) => Err(PolicyError::SensitiveHeader {
            server: server.to_owned(),
            header: name.trim().to_owned(),
        }),
        None => Ok(()),
    }
}

fn check_env_secrets(server: &str, config: &StreamableHttpServer) -> Result<(), PolicyError> {
    if let Some(env_var) = &config.bearer_token_env_var {
        return Err(PolicyError::BearerTokenEnvVar {
            server: server.to_owned(),
            env_var: env_var.clone(),
        });
    }
    if let Some(env_var) = config
        .oauth
        .as_ref()
        .and_then(|o| o.client_secret_env_var.as_ref())
    {
        return Err(PolicyError::OAuthSecretEnvVar {
            server: server.to_owned(),
            env_var: env_var.clone(),
        });
    }
    if !config.env_http_headers.is_empty() {
        return Err(PolicyError::EnvHttpHeaders {
            server: server.to_owned(),
            headers: config.env_http_headers.keys().cloned().collect(),
        });
    }
    Ok(())
}

async fn check_dns<R, F>(
    policy: &UntrustedStreamableHttpPolicy,
    server: &str,
    field: &'static str,
    target: &UrlTarget,
    resolve: &R,
) -> Result<(), PolicyError>
where
    R: Fn(String, u16) -> F,
    F: Future<Output = io::Result<Vec<SocketAddr>>>,
{
    let Host::Domain(lookup_name) = &target.host else {
        return Ok(());
    };
    let host = target.host.domain_for_matching().unwrap_or_default();
    // Resolve the name as written (with its trailing dot, if any), like the HTTP client will.
    let outcome = resolve_and_classify(
        resolve,
        lookup_name,
        target.port_or_default(),
        policy.dns_timeout,
    )
    .await;
    match outcome {
        DnsOutcome::AllGlobal => Ok(()),
        DnsOutcome::NonGlobal(ip) => Err(PolicyError::ResolvesToNonGlobalIp {
            server: server.to_owned(),
            field,
            url: target.redacted.clone(),
            host: host.to_owned(),
            ip,
        }),
        DnsOutcome::Failed(reason) if policy.dns_fail_open => {
            tracing::warn!(
                server,
                field,
                host,
                %reason,
                "dns check could not resolve the host; allowing the connection (dns_fail_open)"
            );
            Ok(())
        }
        DnsOutcome::Failed(reason) => Err(PolicyError::DnsLookupFailed {
            server: server.to_owned(),
            field,
            url: target.redacted.clone(),
            host: host.to_owned(),
            reason,
        }),
    }
}

#[cfg(test)]
mod tests;
