//! The optional DNS check: resolve a hostname (bounded by a timeout) and classify what it
//! resolves to.

use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use super::ip::is_global_ip;

/// What a lookup found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DnsOutcome {
    /// Every resolved address is global.
    AllGlobal,
    /// At least one resolved address is not global (the first one found).
    NonGlobal(IpAddr),
    /// The lookup failed, timed out or returned nothing (why, safe to print).
    Failed(String),
}

/// Resolves `host` with `resolve`, giving up after `timeout`, and classifies the result. Every
/// address must be global: the client may connect to any of them.
pub(crate) async fn resolve_and_classify<R, F>(
    resolve: &R,
    host: &str,
    port: u16,
    timeout: Duration,
) -> DnsOutcome
where
    R: Fn(String, u16) -> F,
    F: Future<Output = io::Result<Vec<SocketAddr>>>,
{
    match tokio::time::timeout(timeout, resolve(host.to_owned(), port)).await {
        Err(_) => DnsOutcome::Failed(format!("dns lookup timed out after {timeout:?}")),
        Ok(Err(error)) => DnsOutcome::Failed(format!("dns lookup failed: {error}")),
        Ok(Ok(addrs)) if addrs.is_empty() => {
            DnsOutcome::Failed("dns lookup returned no addresses".to_owned())
        }
        Ok(Ok(addrs)) => addrs
            .iter()
            .map(SocketAddr::ip)
            .find(|ip| !is_global_ip(*ip))
            .map_or(DnsOutcome::AllGlobal, DnsOutcome::NonGlobal),
    }
}

/// The system resolver (`getaddrinfo` on a blocking thread, through tokio).
pub(crate) async fn system_resolve(host: String, port: u16) -> io::Result<Vec<SocketAddr>> {
    Ok(tokio::net::lookup_host((host.as_str(), port))
        .await?
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addrs(list: &[&str]) -> Vec<SocketAddr> {
        list.iter()
            .map(|ip| SocketAddr::new(ip.parse().unwrap(), 443))
            .collect()
    }

    #[tokio::test]
    async fn classifies_results() {
        let timeout = Duration::from_secs(5);
        let public =
            |_: String, _: u16| async { Ok(addrs(&["93.184.216.34", "2606:2800:220:1::1"])) };
        assert_eq!(
            resolve_and_classify(&public, "example.com", 443, timeout).await,
            DnsOutcome::AllGlobal
        );

        let mixed = |_: String, _: u16| async {
            Ok(addrs(&["93.184.216.34", "::ffff:10.1.2.3", "127.0.0.1"]))
        };
        assert_eq!(
            resolve_and_classify(&mixed, "example.com", 443, timeout).await,
            DnsOutcome::NonGlobal("::ffff:10.1.2.3".parse().unwrap())
        );

        let empty = |_: String, _: u16| async { Ok(Vec::new()) };
        assert_eq!(
            resolve_and_classify(&empty, "example.com", 443, timeout).await,
            DnsOutcome::Failed("dns lookup returned no addresses".to_owned())
        );

        let failing = |_: String, _: u16| async { Err(io::Error::other("no such host")) };
        assert_eq!(
            resolve_and_classify(&failing, "example.com", 443, timeout).await,
            DnsOutcome::Failed("dns lookup failed: no such host".to_owned())
        );
    }

    #[tokio::test]
    async fn passes_host_and_port() {
        let echo = |host: String, port: u16| async move {
            assert_eq!((host.as_str(), port), ("api.example.com.", 8443));
            Ok(addrs(&["1.1.1.1"]))
        };
        let outcome =
            resolve_and_classify(&echo, "api.example.com.", 8443, Duration::from_secs(5)).await;
        assert_eq!(outcome, DnsOutcome::AllGlobal);
    }

    #[tokio::test]
    async fn times_out() {
        let hang = |_: String, _: u16| std::future::pending::<io::Result<Vec<SocketAddr>>>();
        let outcome =
            resolve_and_classify(&hang, "example.com", 443, Duration::from_millis(1)).await;
        assert_eq!(
            outcome,
            DnsOutcome::Failed("dns lookup timed out after 1ms".to_owned())
        );
    }

    #[tokio::test]
    async fn system_resolver_finds_localhost() {
        // `localhost` resolves locally (hosts file / resolver synthesis), without any network.
        let outcome =
            resolve_and_classify(&system_resolve, "localhost", 443, Duration::from_secs(10)).await;
        assert!(
            matches!(outcome, DnsOutcome::NonGlobal(ip) if ip.is_loopback()),
            "{outcome:?}"
        );
    }
}
