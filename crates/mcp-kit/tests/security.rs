//! The trust policy through the public API: `is_global_ip`, the defaults, and every refusal of
//! `TrustMode::Untrusted` as `Manager::connect` reports it (exact messages). No test needs the
//! network: refusals happen before any connection, and the DNS tests only resolve `localhost`
//! and a name under `.invalid`.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::time::Duration;

use mcp_kit::security::is_global_ip;
use mcp_kit::{
    Config, Error, Manager, PolicyError, ServerConfig, StreamableHttpServer, TrustMode,
    UntrustedStreamableHttpPolicy,
};

const TRUST_HINT: &str = "rerun with --trust (CLI) or use TrustMode::Trusted (code)";

fn ip(text: &str) -> IpAddr {
    text.parse().unwrap()
}

fn http_server(url: &str) -> StreamableHttpServer {
    match ServerConfig::streamable_http(url) {
        ServerConfig::StreamableHttp(server) => server,
        _ => unreachable!(),
    }
}

/// Connects `server` (configured as `config`) with an Untrusted manager using `policy`, and
/// returns the refusal.
/// A manager over `config`, rooted in the working directory, in the default (untrusted) mode.
fn test_manager(config: Config) -> Manager {
    Manager::new(config, ".")
        .with_client_info("security-test", "0.0.0")
        .with_timeout(Duration::from_secs(5))
}

async fn refusal_with(
    policy: UntrustedStreamableHttpPolicy,
    server: &str,
    config: ServerConfig,
) -> PolicyError {
    let config = Config {
        servers: BTreeMap::from([(server.to_owned(), config)]),
        ..Config::default()
    };
    let manager = test_manager(config).with_untrusted_streamable_http_policy(policy);
    assert_eq!(manager.trust_mode(), TrustMode::Untrusted);
    let result = tokio::time::timeout(Duration::from_secs(30), manager.connect(server))
        .await
        .expect("a refusal is immediate");
    match result {
        Err(Error::Refused(refusal)) => {
            let error = Error::Refused(refusal.clone());
            assert!(error.is_refused());
            // `Error` shows the refusal unchanged.
            assert_eq!(error.to_string(), refusal.to_string());
            assert_eq!(refusal.server(), server);
            refusal
        }
        Err(other) => panic!("expected a refusal, got: {other}"),
        Ok(_) => panic!("expected a refusal, got a connection"),
    }
}

async fn refusal(config: ServerConfig) -> String {
    refusal_with(UntrustedStreamableHttpPolicy::default(), "remote", config)
        .await
        .to_string()
}

fn with_header(name: &str, value: &str) -> ServerConfig {
    let mut server = http_server("https://mcp.example.com/mcp");
    server
        .http_headers
        .insert(name.to_owned(), value.to_owned());
    ServerConfig::StreamableHttp(server)
}

#[test]
fn is_global_ip_classifies() {
    for text in [
        "0.0.0.0",
        "10.1.2.3",
        "100.64.0.1",
        "127.0.0.1",
        "169.254.169.254",
        "172.16.0.1",
        "172.31.255.255",
        "192.0.2.1",
        "192.168.0.1",
        "198.18.0.1",
        "198.51.100.1",
        "203.0.113.1",
        "224.0.0.1",
        "240.0.0.1",
        "255.255.255.255",
        "::",
        "::1",
        "::ffff:127.0.0.1",
        "::ffff:192.168.1.1",
        "fe80::1",
        "fc00::1",
        "fd00::1",
        "ff02::1",
        "2001:db8::1",
        "2001::1",
        "2002:c000:201::1",
    ] {
        assert!(!is_global_ip(ip(text)), "{text} must not be global");
    }
    for text in [
        "1.1.1.1",
        "8.8.8.8",
        "93.184.216.34",
        "172.32.0.1",
        "100.128.0.1",
        "2606:4700::1111",
        "2001:4860:4860::8888",
        "::ffff:8.8.8.8",
    ] {
        assert!(is_global_ip(ip(text)), "{text} must be global");
    }
}

#[test]
fn policy_defaults() {
    assert_eq!(TrustMode::default(), TrustMode::Untrusted);
    let policy = UntrustedStreamableHttpPolicy::default();
    assert!(policy.require_https);
    assert!(!policy.allow_localhost);
    assert!(!policy.allow_private_ips);
    assert!(!policy.dns_check);
    assert_eq!(policy.dns_timeout, Duration::from_secs(2));
    assert!(!policy.dns_fail_open);
    assert!(policy.allowed_hosts.is_empty());
}

#[test]
fn policy_error_is_a_std_error() {
    fn assert_error<E: std::error::Error + Send + Sync + 'static>() {}
    assert_error::<PolicyError>();
}

#[tokio::test]
async fn local_transports_are_refused() {
    assert_eq!(
        refusal_with(
            Default::default(),
            "local",
            ServerConfig::stdio(["definitely-not-run", "--stdio"])
        )
        .await
        .to_string(),
        format!(
            "refusing to spawn mcp server in untrusted mode: server `local` (transport=stdio); {TRUST_HINT}"
        )
    );
    // Even the most permissive http policy does not lift it.
    let lax = UntrustedStreamableHttpPolicy {
        require_https: false,
        allow_localhost: true,
        allow_private_ips: true,
        ..Default::default()
    };
    assert!(matches!(
        refusal_with(lax.clone(), "local", ServerConfig::stdio(["x"])).await,
        PolicyError::Spawn { .. }
    ));
    assert_eq!(
        refusal_with(lax, "sock", ServerConfig::unix("/nonexistent/mcp.sock"))
            .await
            .to_string(),
        format!(
            "refusing to connect unix mcp server in untrusted mode: server `sock` (transport=unix); {TRUST_HINT}"
        )
    );
}

#[tokio::test]
async fn unparsable_url() {
    assert_eq!(
        refusal(ServerConfig::streamable_http("https://exa mple.com/")).await,
        format!(
            "refusing to connect unparsable streamable http url in untrusted mode: server `remote`, \
             field `url`: the host contains characters other than letters, digits, `-`, `_` and `.`; \
             write it as https://host[:port]/path with an ASCII (punycode) host, or {TRUST_HINT}"
        )
    );
    // Forms a lenient parser reads differently are refused rather than guessed at.
    for url in [
        "https:example.com",
        "https:///example.com",
        "https:\\\\example.com",
        "https://local\nhost/",
        "https://%6c%6fcalhost/",
        "https://1.2.3.4.5/",
        "https://4294967296/",
    ] {
        let refusal = refusal_with(
            Default::default(),
            "remote",
            ServerConfig::streamable_http(url),
        )
        .await;
        assert!(
            matches!(refusal, PolicyError::InvalidUrl { field: "url", .. }),
            "{url:?}: {refusal}"
        );
    }
}

#[tokio::test]
async fn unsupported_scheme() {
    assert_eq!(
        refusal(ServerConfig::streamable_http("ws://example.com/mcp")).await,
        "refusing to connect streamable http url with unsupported scheme in untrusted mode: server \
         `remote`, field `url`, scheme `ws`; use https:// (or http:// with --allow-http)"
    );
}

#[tokio::test]
async fn non_https() {
    assert_eq!(
        refusal(ServerConfig::streamable_http("http://mcp.example.com/mcp")).await,
        "refusing to connect non-https streamable http url in untrusted mode: server `remote`, \
         field `url`, url `http://mcp.example.com/…`; use https://, or rerun with --allow-http \
         (CLI) / UntrustedStreamableHttpPolicy { require_https: false, .. } (code)"
    );
    assert_eq!(
        refusal(ServerConfig::streamable_http_split(
            "http://mcp.example.com:8080/sse",
            "https://mcp.example.com/"
        ))
        .await,
        "refusing to connect non-https streamable http url in untrusted mode: server `remote`, \
         field `sse_url`, url `http://mcp.example.com:8080/…`; use https://, or rerun with \
         --allow-http (CLI) / UntrustedStreamableHttpPolicy { require_https: false, .. } (code)"
    );
}

#[tokio::test]
async fn url_credentials() {
    let message = refusal(ServerConfig::streamable_http(
        "https://alice:s3cr3t@mcp.example.com/mcp",
    ))
    .await;
    assert_eq!(
        message,
        format!(
            "refusing to connect streamable http url with credentials in untrusted mode: server \
             `remote`, field `url`, url `https://mcp.example.com/…` (credentials not shown); remove \
             the user:pass@ part, or {TRUST_HINT}"
        )
    );
    assert!(!message.contains("s3cr3t") && !message.contains("alice"));
    assert!(matches!(
        refusal_with(
            Default::default(),
            "remote",
            ServerConfig::streamable_http_split(
                "https://mcp.example.com/",
                "https://token@mcp.example.com/"
            )
        )
        .await,
        PolicyError::UrlCredentials {
            field: "http_url",
            ..
        }
    ));
}

#[tokio::test]
async fn localhost_like_hosts() {
    assert_eq!(
        refusal(ServerConfig::streamable_http("https://localhost:8443/mcp")).await,
        "refusing to connect localhost/local/single-label domain in untrusted mode: server \
         `remote`, field `url`, url `https://localhost:8443/…`, host `localhost`; rerun with \
         --allow-localhost (CLI) / UntrustedStreamableHttpPolicy { allow_localhost: true, .. } \
         (code), or with --trust (--allow-host does not lift this rule)"
    );
    for url in [
        "https://Api.LocalHost/",
        "https://printer.local/",
        "https://box.localdomain./",
        "https://intranet/",
    ] {
        let refusal = refusal_with(
            Default::default(),
            "remote",
            ServerConfig::streamable_http(url),
        )
        .await;
        assert!(
            matches!(refusal, PolicyError::Localhost { .. }),
            "{url}: {refusal}"
        );
    }
    // The allowlist does not override it.
    let allowlisted = UntrustedStreamableHttpPolicy {
        allowed_hosts: vec!["localhost".into(), "intranet".into()],
        ..Default::default()
    };
    for url in [
        "https://localhost/",
        "https://api.localhost/",
        "https://intranet/",
    ] {
        let refusal = refusal_with(
            allowlisted.clone(),
            "remote",
            ServerConfig::streamable_http(url),
        )
        .await;
        assert!(
            matches!(refusal, PolicyError::Localhost { .. }),
            "{url}: {refusal}"
        );
    }
}

#[tokio::test]
async fn non_global_ip_literals() {
    assert_eq!(
        refusal(ServerConfig::streamable_http(
            "https://169.254.169.254/latest/meta-data"
        ))
        .await,
        "refusing to connect non-global ip in untrusted mode: server `remote`, field `url`, url \
         `https://169.254.169.254/…`, ip `169.254.169.254`; rerun with --allow-private-ip (CLI) / \
         UntrustedStreamableHttpPolicy { allow_private_ips: true, .. } (code), or with --trust"
    );
    assert_eq!(
        refusal(ServerConfig::streamable_http("https://[::1]:8443/")).await,
        "refusing to connect non-global ip in untrusted mode: server `remote`, field `url`, url \
         `https://[::1]:8443`, ip `::1`; rerun with --allow-private-ip (CLI) / \
         UntrustedStreamableHttpPolicy { allow_private_ips: true, .. } (code), or with --trust"
    );
    let cases = [
        ("https://10.0.0.1/", "10.0.0.1"),
        ("https://[::ffff:127.0.0.1]/", "::ffff:127.0.0.1"),
        ("https://[::ffff:a00:1]/", "::ffff:10.0.0.1"),
        ("https://[fe80::1]/", "fe80::1"),
        ("https://[fd12::1]/", "fd12::1"),
        ("https://2130706433/", "127.0.0.1"),
        ("https://0x7f000001/", "127.0.0.1"),
        ("https://0177.0.0.1/", "127.0.0.1"),
        ("https://127.1/", "127.0.0.1"),
    ];
    for (url, expected) in cases {
        match refusal_with(
            Default::default(),
            "remote",
            ServerConfig::streamable_http(url),
        )
        .await
        {
            PolicyError::NonGlobalIp {
                ip: got,
                field: "url",
                ..
            } => assert_eq!(got, ip(expected), "{url}"),
            other => panic!("{url}: {other}"),
        }
    }
    // The allowlist does not override it either.
    let allowlisted = UntrustedStreamableHttpPolicy {
        allowed_hosts: vec!["10.0.0.1".into()],
        ..Default::default()
    };
    assert!(matches!(
        refusal_with(
            allowlisted,
            "remote",
            ServerConfig::streamable_http("https://10.0.0.1/")
        )
        .await,
        PolicyError::NonGlobalIp { .. }
    ));
}

#[tokio::test]
async fn host_allowlist() {
    let policy = UntrustedStreamableHttpPolicy {
        allowed_hosts: vec!["example.com".into()],
        ..Default::default()
    };
    assert_eq!(
        refusal_with(
            policy.clone(),
            "remote",
            ServerConfig::streamable_http("https://badexample.com/mcp")
        )
        .await
        .to_string(),
        "refusing to connect host not in allowlist in untrusted mode: server `remote`, field \
         `url`, url `https://badexample.com/…`, host `badexample.com`; add it with --allow-host \
         badexample.com (CLI) / UntrustedStreamableHttpPolicy::allowed_hosts (code), or rerun \
         with --trust"
    );
    for url in [
        "https://example.com.evil.net/",
        "https://93.184.216.34/",
        "https://com/",
    ] {
        let refusal =
            refusal_with(policy.clone(), "remote", ServerConfig::streamable_http(url)).await;
        assert!(
            matches!(
                refusal,
                PolicyError::HostNotAllowed { .. } | PolicyError::Localhost { .. }
            ),
            "{url}: {refusal}"
        );
    }
    // `api.example.com` matches `example.com`: it gets past the policy, and the first refusal is
    // the later header check (so no connection is attempted).
    let mut server = http_server("https://API.Example.com./mcp");
    server
        .http_headers
        .insert("Cookie".into(), "session=1".into());
    assert!(matches!(
        refusal_with(policy, "remote", ServerConfig::StreamableHttp(server)).await,
        PolicyError::SensitiveHeader { .. }
    ));
}

#[tokio::test]
async fn sensitive_headers() {
    for name in ["Authorization", "proxy-authorization", "COOKIE"] {
        let message = refusal(with_header(name, "Bearer very-secret")).await;
        assert_eq!(
            message,
            format!(
                "refusing to send sensitive http header in untrusted mode: server `remote`, header \
                 `{name}` (value not shown); {TRUST_HINT}"
            )
        );
        assert!(!message.contains("very-secret"));
    }
}

#[tokio::test]
async fn env_secrets() {
    let mut server = http_server("https://mcp.example.com/mcp");
    server.bearer_token_env_var = Some("MCP_TOKEN".into());
    assert_eq!(
        refusal(ServerConfig::StreamableHttp(server)).await,
        format!(
            "refusing to read bearer token env var in untrusted mode: server `remote`, \
             bearer_token_env_var `MCP_TOKEN`; {TRUST_HINT}"
        )
    );

    let mut server = http_server("https://mcp.example.com/mcp");
    server
        .env_http_headers
        .insert("X-Api-Key".into(), "MCP_API_KEY".into());
    assert_eq!(
        refusal(ServerConfig::StreamableHttp(server)).await,
        format!(
            "refusing to read http header env vars in untrusted mode: server `remote`, \
             env_http_headers for header `X-Api-Key`; {TRUST_HINT}"
        )
    );

    let mut server = http_server("https://mcp.example.com/mcp");
    server.oauth = Some(mcp_kit::OAuthSettings {
        client_id: Some("registered".into()),
        client_secret_env_var: Some("OAUTH_SECRET".into()),
        ..Default::default()
    });
    assert_eq!(
        refusal(ServerConfig::StreamableHttp(server)).await,
        format!(
            "refusing to read oauth client secret env var in untrusted mode: server `remote`, \
             oauth.client_secret_env_var `OAUTH_SECRET`; {TRUST_HINT}"
        )
    );
}

fn dns_check(
    extra: impl FnOnce(&mut UntrustedStreamableHttpPolicy),
) -> UntrustedStreamableHttpPolicy {
    let mut policy = UntrustedStreamableHttpPolicy {
        dns_check: true,
        dns_timeout: Duration::from_secs(10),
        ..Default::default()
    };
    extra(&mut policy);
    policy
}

#[tokio::test]
async fn dns_check_refuses_a_name_resolving_to_loopback() {
    // `localhost` passes the name rule with allow_localhost, and then resolves to loopback.
    let policy = dns_check(|p| p.allow_localhost = true);
    let refusal = refusal_with(
        policy,
        "remote",
        ServerConfig::streamable_http("https://localhost:8443/mcp"),
    )
    .await;
    let PolicyError::ResolvesToNonGlobalIp { ip, .. } = &refusal else {
        panic!("{refusal}");
    };
    assert!(ip.is_loopback(), "{ip}");
    assert_eq!(
        refusal.to_string(),
        format!(
            "refusing to connect hostname that resolves to non-global ip in untrusted mode: server \
             `remote`, field `url`, url `https://localhost:8443/…`, host `localhost` resolves to \
             `{ip}`; rerun with --allow-private-ip or without --dns-check (CLI) / \
             UntrustedStreamableHttpPolicy {{ allow_private_ips: true, .. }} (code), or with --trust"
        )
    );
}

#[tokio::test]
async fn dns_check_fails_closed_on_an_unresolvable_name() {
    let url = "https://nonexistent.invalid/mcp";
    let refusal = refusal_with(
        dns_check(|_| ()),
        "remote",
        ServerConfig::streamable_http(url),
    )
    .await;
    let PolicyError::DnsLookupFailed { reason, .. } = &refusal else {
        panic!("{refusal}");
    };
    assert_eq!(
        refusal.to_string(),
        format!(
            "refusing to connect hostname with failed/timed out dns lookup in untrusted mode: server \
             `remote`, field `url`, url `https://nonexistent.invalid/…`, host `nonexistent.invalid`: \
             {reason}; fix the DNS setup, raise --dns-timeout-ms, or rerun with --dns-fail-open, \
             without --dns-check (CLI) / UntrustedStreamableHttpPolicy {{ dns_timeout, \
             dns_fail_open: true, .. }} (code), or with --trust"
        )
    );
    assert!(reason.starts_with("dns lookup "), "{reason}");

    // With a 1 ms timeout the lookup either fails or times out: refused either way.
    let refusal = refusal_with(
        dns_check(|p| p.dns_timeout = Duration::from_millis(1)),
        "remote",
        ServerConfig::streamable_http(url),
    )
    .await;
    assert!(
        matches!(refusal, PolicyError::DnsLookupFailed { .. }),
        "{refusal}"
    );
}

#[tokio::test]
async fn dns_fail_open_lets_an_unresolvable_name_through() {
    // The policy allows it; the connection itself then fails (the name does not resolve), and
    // that failure is not a refusal.
    let config = Config {
        servers: BTreeMap::from([(
            "remote".to_owned(),
            ServerConfig::streamable_http("https://nonexistent.invalid/mcp"),
        )]),
        ..Config::default()
    };
    for timeout in [Duration::from_millis(1), Duration::from_secs(10)] {
        let policy = dns_check(|p| {
            p.dns_fail_open = true;
            p.dns_timeout = timeout;
        });
        let manager = test_manager(config.clone()).with_untrusted_streamable_http_policy(policy);
        let result = tokio::time::timeout(Duration::from_secs(60), manager.connect("remote"))
            .await
            .expect("the connection attempt ends");
        match result {
            Err(error) => assert!(!error.is_refused(), "{error}"),
            Ok(_) => panic!("nonexistent.invalid cannot be connected"),
        }
    }
}

/// The environment a trusted stdio server started from `config` sees (it writes it to a
/// file and exits; the handshake failing after that does not matter here).
async fn child_environment(inherit_env: Option<bool>) -> String {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("env.txt");
    let mut server = serde_json::json!({
        "transport": "stdio",
        "argv": ["sh", "-c", format!("env > '{}'", out.display())],
    });
    if let Some(inherit) = inherit_env {
        server["inherit_env"] = inherit.into();
    }
    let doc = serde_json::json!({"version": 1, "servers": {"probe": server}});
    let file = dir.path().join("mcp.json");
    std::fs::write(&file, doc.to_string()).unwrap();
    let config = Config::load(dir.path(), Some(file)).await.unwrap();
    let manager = Manager::new(config, dir.path())
        .with_client_info("env-probe", "1.0.0")
        .with_timeout(Duration::from_secs(5))
        .with_trust_mode(TrustMode::Trusted);
    let _ = manager.connect("probe").await;
    std::fs::read_to_string(&out).unwrap_or_else(|e| panic!("the child wrote no environment: {e}"))
}

/// A trusted stdio server gets the baseline environment, not the parent's secrets (Cargo's
/// CARGO_PKG_NAME stands in for a cloud credential of the parent), unless the configuration
/// says `"inherit_env": true`.
#[tokio::test]
async fn stdio_servers_do_not_inherit_the_parent_s_secrets_by_default() {
    let baseline = child_environment(None).await;
    assert!(!baseline.contains("CARGO_PKG_NAME"), "{baseline}");
    assert!(
        baseline.lines().any(|l| l.starts_with("PATH=")),
        "{baseline}"
    );
    let inherited = child_environment(Some(true)).await;
    assert!(inherited.contains("CARGO_PKG_NAME=mcp-kit"), "{inherited}");
}
