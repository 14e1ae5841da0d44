//! The policy checks, case by case.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::time::Duration;

use super::*;
use crate::config::ServerConfig;

/// Awaits a check that must refuse, with an error matching the pattern.
macro_rules! assert_refused {
    ($check:expr, $pattern:pat) => {{
        let error = $check.await.unwrap_err();
        assert!(matches!(error, $pattern), "{error}");
    }};
}

mod dns;

fn http(url: &str) -> StreamableHttpServer {
    match ServerConfig::streamable_http(url) {
        ServerConfig::StreamableHttp(config) => config,
        _ => unreachable!(),
    }
}

fn split(sse_url: &str, http_url: &str) -> StreamableHttpServer {
    match ServerConfig::streamable_http_split(sse_url, http_url) {
        ServerConfig::StreamableHttp(config) => config,
        _ => unreachable!(),
    }
}

fn policy() -> UntrustedStreamableHttpPolicy {
    UntrustedStreamableHttpPolicy::default()
}

/// A resolver that must not be called.
async fn no_lookup(host: String, _port: u16) -> io::Result<Vec<SocketAddr>> {
    panic!("unexpected dns lookup of {host}")
}

/// Checks with a resolver that must not be called.
async fn check(
    policy: &UntrustedStreamableHttpPolicy,
    config: &StreamableHttpServer,
) -> Result<(), PolicyError> {
    check_untrusted_http_with(policy, "remote", config, &no_lookup).await
}

async fn refusal(policy: &UntrustedStreamableHttpPolicy, config: &StreamableHttpServer) -> String {
    check(policy, config)
        .await
        .expect_err("must be refused")
        .to_string()
}

#[test]
fn local_transports() {
    assert_eq!(
        check_local_transport("local", Transport::Stdio)
            .unwrap_err()
            .to_string(),
        "refusing to spawn mcp server in untrusted mode: server `local` (transport=stdio); \
         rerun with --trust (CLI) or use TrustMode::Trusted (code)"
    );
    assert_eq!(
        check_local_transport("sock", Transport::Unix)
            .unwrap_err()
            .to_string(),
        "refusing to connect unix mcp server in untrusted mode: server `sock` (transport=unix); \
         rerun with --trust (CLI) or use TrustMode::Trusted (code)"
    );
    assert_eq!(
        check_local_transport("remote", Transport::StreamableHttp),
        Ok(())
    );
    let error = check_local_transport("local", Transport::Stdio).unwrap_err();
    assert_eq!(error.server(), "local");
    assert!(matches!(error, PolicyError::Spawn { .. }));
}

#[tokio::test]
async fn allows_a_plain_https_url() {
    check(&policy(), &http("https://mcp.example.com/mcp"))
        .await
        .unwrap();
    check(&policy(), &http("https://93.184.216.34:8443/mcp"))
        .await
        .unwrap();
    check(&policy(), &http("https://[2606:4700::1111]/mcp"))
        .await
        .unwrap();
    check(
        &policy(),
        &split("https://a.example.com/sse", "https://b.example.com/post"),
    )
    .await
    .unwrap();
}

#[tokio::test]
async fn invalid_url_message() {
    assert_eq!(
        refusal(&policy(), &http("https://exa mple.com/")).await,
        "refusing to connect unparsable streamable http url in untrusted mode: server `remote`, \
         field `url`: the host contains characters other than letters, digits, `-`, `_` and `.`; \
         write it as https://host[:port]/path with an ASCII (punycode) host, or rerun with \
         --trust (CLI) or use TrustMode::Trusted (code)"
    );
    assert_eq!(
        refusal(&policy(), &split("https://example.com/sse", "not a url")).await,
        "refusing to connect unparsable streamable http url in untrusted mode: server `remote`, \
         field `http_url`: the url has no scheme (expected https://…); write it as \
         https://host[:port]/path with an ASCII (punycode) host, or rerun with --trust (CLI) or \
         use TrustMode::Trusted (code)"
    );
    // The odd IPv4 forms that are not valid addresses are unparsable, not hostnames.
    for url in [
        "https://1.2.3.4.5/",
        "https://4294967296/",
        "https://foo.09/",
    ] {
        let error = check(&policy(), &http(url)).await.unwrap_err();
        assert!(
            matches!(error, PolicyError::InvalidUrl { field: "url", .. }),
            "{url}: {error}"
        );
    }
}

#[tokio::test]
async fn unsupported_scheme_message() {
    let relaxed = UntrustedStreamableHttpPolicy {
        require_https: false,
        ..policy()
    };
    for policy in [policy(), relaxed] {
        assert_eq!(
            refusal(&policy, &http("ftp://example.com/")).await,
            "refusing to connect streamable http url with unsupported scheme in untrusted mode: \
             server `remote`, field `url`, scheme `ftp`; use https:// (or http:// with --allow-http)"
        );
    }
    let error = check(&policy(), &http("WSS://example.com/"))
        .await
        .unwrap_err();
    assert!(matches!(error, PolicyError::UnsupportedScheme { ref scheme, .. } if scheme == "wss"));
}

#[tokio::test]
async fn non_https_message() {
    assert_eq!(
        refusal(&policy(), &http("http://example.com/mcp?token=s3cr3t")).await,
        "refusing to connect non-https streamable http url in untrusted mode: server `remote`, \
         field `url`, url `http://example.com/…`; use https://, or rerun with --allow-http (CLI) \
         / UntrustedStreamableHttpPolicy { require_https: false, .. } (code)"
    );
    assert_eq!(
        refusal(
            &policy(),
            &split("https://example.com/sse", "HTTP://example.com:8080")
        )
        .await,
        "refusing to connect non-https streamable http url in untrusted mode: server `remote`, \
         field `http_url`, url `http://example.com:8080`; use https://, or rerun with \
         --allow-http (CLI) / UntrustedStreamableHttpPolicy { require_https: false, .. } (code)"
    );
    let relaxed = UntrustedStreamableHttpPolicy {
        require_https: false,
        ..policy()
    };
    check(&relaxed, &http("http://example.com/mcp"))
        .await
        .unwrap();
}

#[tokio::test]
async fn url_credentials_message() {
    let message = refusal(&policy(), &http("https://user:hunter2@example.com/mcp")).await;
    assert_eq!(
        message,
        "refusing to connect streamable http url with credentials in untrusted mode: server \
         `remote`, field `url`, url `https://example.com/…` (credentials not shown); remove the \
         user:pass@ part, or rerun with --trust (CLI) or use TrustMode::Trusted (code)"
    );
    assert!(!message.contains("hunter2"));
    assert_refused!(
        check(
            &policy(),
            &split("https://token@example.com/", "https://example.com/"),
        ),
        PolicyError::UrlCredentials {
            field: "sse_url",
            ..
        }
    );
    // Credentials are refused whatever else is allowed.
    let lax = UntrustedStreamableHttpPolicy {
        require_https: false,
        allow_localhost: true,
        allow_private_ips: true,
        ..policy()
    };
    assert_refused!(
        check(&lax, &http("http://u:p@127.0.0.1/")),
        PolicyError::UrlCredentials { .. }
    );
}

#[tokio::test]
async fn localhost_message() {
    assert_eq!(
        refusal(&policy(), &http("https://LOCALHOST./mcp")).await,
        "refusing to connect localhost/local/single-label domain in untrusted mode: server \
         `remote`, field `url`, url `https://localhost./…`, host `localhost`; rerun with \
         --allow-localhost (CLI) / UntrustedStreamableHttpPolicy { allow_localhost: true, .. } \
         (code), or with --trust (--allow-host does not lift this rule)"
    );
    for url in [
        "https://localhost",
        "https://api.localhost/",
        "https://printer.local:8443/",
        "https://box.localdomain/",
        "https://intranet/",
        "https://example./",
    ] {
        let error = check(&policy(), &http(url)).await.unwrap_err();
        assert!(
            matches!(error, PolicyError::Localhost { .. }),
            "{url}: {error}"
        );
    }
    let allow = UntrustedStreamableHttpPolicy {
        allow_localhost: true,
        ..policy()
    };
    check(&allow, &http("https://localhost:8443/mcp"))
        .await
        .unwrap();
    check(&allow, &http("https://intranet/")).await.unwrap();
    // allow_localhost is about names: loopback IP literals still need allow_private_ips.
    assert_refused!(
        check(&allow, &http("https://127.0.0.1/")),
        PolicyError::NonGlobalIp { .. }
    );
}

#[tokio::test]
async fn non_global_ip_message() {
    assert_eq!(
        refusal(&policy(), &http("https://127.0.0.1:8443/mcp")).await,
        "refusing to connect non-global ip in untrusted mode: server `remote`, field `url`, url \
         `https://127.0.0.1:8443/…`, ip `127.0.0.1`; rerun with --allow-private-ip (CLI) / \
         UntrustedStreamableHttpPolicy { allow_private_ips: true, .. } (code), or with --trust"
    );
    assert_eq!(
        refusal(&policy(), &http("https://[::ffff:127.0.0.1]/")).await,
        "refusing to connect non-global ip in untrusted mode: server `remote`, field `url`, url \
         `https://[::ffff:127.0.0.1]`, ip `::ffff:127.0.0.1`; rerun with --allow-private-ip \
         (CLI) / UntrustedStreamableHttpPolicy { allow_private_ips: true, .. } (code), or with \
         --trust"
    );
    let cases = [
        ("https://10.0.0.1/", "10.0.0.1"),
        ("https://169.254.169.254/latest", "169.254.169.254"),
        ("https://0.0.0.0/", "0.0.0.0"),
        ("https://2130706433/", "127.0.0.1"),
        ("https://0x7f.1/", "127.0.0.1"),
        ("https://017700000001/", "127.0.0.1"),
        ("https://0xA9.0xFE.0xA9.0xFE/", "169.254.169.254"),
        ("https://[::1]:8443/", "::1"),
        ("https://[fe80::1]/", "fe80::1"),
        ("https://[fd00::1]/", "fd00::1"),
        ("https://[::ffff:a9fe:a9fe]/", "::ffff:169.254.169.254"),
        ("https://[2001:db8::1]/", "2001:db8::1"),
    ];
    for (url, ip) in cases {
        match check(&policy(), &http(url)).await {
            Err(PolicyError::NonGlobalIp { ip: got, .. }) => {
                assert_eq!(got, ip.parse::<IpAddr>().unwrap(), "{url}")
            }
            other => panic!("{url}: {other:?}"),
        }
    }
    let allow = UntrustedStreamableHttpPolicy {
        allow_private_ips: true,
        ..policy()
    };
    for (url, _) in cases {
        check(&allow, &http(url)).await.unwrap();
    }
    assert_refused!(
        check(&policy(), &split("https://example.com/", "https://[::1]/")),
        PolicyError::NonGlobalIp {
            field: "http_url",
            ..
        }
    );
}

#[tokio::test]
async fn allowlist_message_and_rules() {
    let allow = UntrustedStreamableHttpPolicy {
        allowed_hosts: vec!["Example.com.".into()],
        ..policy()
    };
    assert_eq!(
        refusal(&allow, &http("https://badexample.com/mcp")).await,
        "refusing to connect host not in allowlist in untrusted mode: server `remote`, field \
         `url`, url `https://badexample.com/…`, host `badexample.com`; add it with --allow-host \
         badexample.com (CLI) / UntrustedStreamableHttpPolicy::allowed_hosts (code), or rerun \
         with --trust"
    );
    check(&allow, &http("https://example.com/")).await.unwrap();
    check(&allow, &http("https://API.example.com./mcp"))
        .await
        .unwrap();
    check(
        &allow,
        &split("https://a.example.com/", "https://b.example.com/"),
    )
    .await
    .unwrap();
    assert_refused!(
        check(
            &allow,
            &split("https://a.example.com/", "https://example.org/"),
        ),
        PolicyError::HostNotAllowed {
            field: "http_url",
            ..
        }
    );

    // IP literals: exact match only.
    assert_eq!(
        refusal(&allow, &http("https://[2606:4700::1111]/")).await,
        "refusing to connect host not in allowlist in untrusted mode: server `remote`, field \
         `url`, url `https://[2606:4700::1111]`, host `[2606:4700::1111]`; add it with \
         --allow-host [2606:4700::1111] (CLI) / UntrustedStreamableHttpPolicy::allowed_hosts \
         (code), or rerun with --trust"
    );
    let allow_ip = UntrustedStreamableHttpPolicy {
        allowed_hosts: vec!["93.184.216.34".into()],
        ..policy()
    };
    check(&allow_ip, &http("https://93.184.216.34/"))
        .await
        .unwrap();
    assert_refused!(
        check(&allow_ip, &http("https://1.93.184.216.34/")),
        PolicyError::InvalidUrl { .. }
    );

    // The allowlist never lifts the localhost rule, nor the non-global IP rule.
    let allow_local = UntrustedStreamableHttpPolicy {
        allowed_hosts: vec!["localhost".into(), "intranet".into(), "127.0.0.1".into()],
        ..policy()
    };
    for url in ["https://localhost/", "https://intranet/"] {
        let error = check(&allow_local, &http(url)).await.unwrap_err();
        assert!(
            matches!(error, PolicyError::Localhost { .. }),
            "{url}: {error}"
        );
    }
    assert_refused!(
        check(&allow_local, &http("https://127.0.0.1/")),
        PolicyError::NonGlobalIp { .. }
    );
    // With allow_localhost, the allowlist still applies.
    let both = UntrustedStreamableHttpPolicy {
        allow_localhost: true,
        ..allow_local
    };
    check(&both, &http("https://localhost/")).await.unwrap();
    check(&both, &http("https://api.localhost/")).await.unwrap();
    assert_refused!(
        check(&both, &http("https://printer.local/")),
        PolicyError::HostNotAllowed { .. }
    );
}

#[tokio::test]
async fn sensitive_header_message() {
    for name in ["Authorization", "proxy-authorization", "COOKIE", " Cookie "] {
        let mut config = http("https://example.com/mcp");
        config.http_headers.insert("X-Other".into(), "1".into());
        config
            .http_headers
            .insert(name.into(), "Bearer s3cr3t".into());
        let message = refusal(&policy(), &config).await;
        assert_eq!(
            message,
            format!(
                "refusing to send sensitive http header in untrusted mode: server `remote`, \
                 header `{}` (value not shown); rerun with --trust (CLI) or use \
                 TrustMode::Trusted (code)",
                name.trim()
            )
        );
        assert!(!message.contains("s3cr3t"));
    }
    let mut config = http("https://example.com/mcp");
    config
        .http_headers
        .insert("X-Api-Version".into(), "2".into());
    config
        .http_headers
        .insert("Authorization-Hint".into(), "x".into());
    check(&policy(), &config).await.unwrap();
}

#[tokio::test]
async fn env_secret_messages() {
    let mut config = http("https://example.com/mcp");
    config.bearer_token_env_var = Some("GITHUB_TOKEN".into());
    assert_eq!(
        refusal(&policy(), &config).await,
        "refusing to read bearer token env var in untrusted mode: server `remote`, \
         bearer_token_env_var `GITHUB_TOKEN`; rerun with --trust (CLI) or use \
         TrustMode::Trusted (code)"
    );

    let mut config = http("https://example.com/mcp");
    config.env_http_headers = BTreeMap::from([("X-Api-Key".to_owned(), "API_KEY".to_owned())]);
    assert_eq!(
        refusal(&policy(), &config).await,
        "refusing to read http header env vars in untrusted mode: server `remote`, \
         env_http_headers for header `X-Api-Key`; rerun with --trust (CLI) or use \
         TrustMode::Trusted (code)"
    );
    config.env_http_headers.insert("X-Org".into(), "ORG".into());
    assert_eq!(
        refusal(&policy(), &config).await,
        "refusing to read http header env vars in untrusted mode: server `remote`, \
         env_http_headers for headers `X-Api-Key`, `X-Org`; rerun with --trust (CLI) or use \
         TrustMode::Trusted (code)"
    );
}

#[tokio::test]
async fn order_of_checks() {
    // URLs before headers before env secrets.
    let mut config = http("http://example.com/");
    config.http_headers.insert("Cookie".into(), "a=b".into());
    config.bearer_token_env_var = Some("TOKEN".into());
    assert!(matches!(
        check(&policy(), &config).await,
        Err(PolicyError::NonHttps { .. })
    ));
    config.urls = HttpUrls::Single("https://example.com/".into());
    assert!(matches!(
        check(&policy(), &config).await,
        Err(PolicyError::SensitiveHeader { .. })
    ));
    config.http_headers.clear();
    assert!(matches!(
        check(&policy(), &config).await,
        Err(PolicyError::BearerTokenEnvVar { .. })
    ));
    config.env_http_headers.insert("X-Key".into(), "KEY".into());
    assert!(matches!(
        check(&policy(), &config).await,
        Err(PolicyError::BearerTokenEnvVar { .. })
    ));

    // Within one URL: scheme/https, then credentials, then host.
    assert_refused!(
        check(&policy(), &http("http://u@localhost/")),
        PolicyError::NonHttps { .. }
    );
    assert_refused!(
        check(&policy(), &http("https://u@localhost/")),
        PolicyError::UrlCredentials { .. }
    );
    // sse_url before http_url.
    assert_refused!(
        check(
            &policy(),
            &split("https://localhost/", "http://example.com/"),
        ),
        PolicyError::Localhost {
            field: "sse_url",
            ..
        }
    );

    // A configuration refused statically does no DNS lookup (`no_lookup` would panic).
    let dns = UntrustedStreamableHttpPolicy {
        dns_check: true,
        ..policy()
    };
    let mut config = http("https://example.com/");
    config
        .http_headers
        .insert("authorization".into(), "x".into());
    assert!(matches!(
        check(&dns, &config).await,
        Err(PolicyError::SensitiveHeader { .. })
    ));
}

#[tokio::test]
async fn untrusted_strings_are_escaped_in_messages() {
    let mut config = http("https://example.com/");
    config.bearer_token_env_var = Some("TOKEN\u{1b}[2J\n`x`".into());
    let error = check_untrusted_http_with(&policy(), "re\u{202e}mote", &config, &no_lookup)
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "refusing to read bearer token env var in untrusted mode: server `re\\u{202e}mote`, \
         bearer_token_env_var `TOKEN\\u{1b}[2J\\u{a}\\u{60}x\\u{60}`; rerun with --trust (CLI) \
         or use TrustMode::Trusted (code)"
    );
    assert_eq!(error.server(), "re\u{202e}mote");
}

#[tokio::test]
async fn a_refusal_names_every_flag_the_url_needs_at_once() {
    let message = |policy: UntrustedStreamableHttpPolicy, url: &'static str| async move {
        check(&policy, &http(url)).await.unwrap_err().to_string()
    };
    let cases = [
        (
            "http://127.0.0.1:8000/mcp",
            "--allow-http --allow-private-ip",
        ),
        (
            "http://localhost:8000/mcp",
            "--allow-http --allow-localhost",
        ),
        ("http://[::1]/", "--allow-http --allow-private-ip"),
        ("http://example.com/", "--allow-http"),
        ("https://10.0.0.1/", "--allow-private-ip"),
        ("https://localhost/", "--allow-localhost"),
    ];
    for (url, flags) in cases {
        let text = message(policy(), url).await;
        assert!(
            text.contains(&format!("rerun with {flags} (CLI)")),
            "{url}: {text}"
        );
    }
    // What the policy already allows is not asked for again.
    let relaxed = UntrustedStreamableHttpPolicy {
        require_https: false,
        ..policy()
    };
    let text = message(relaxed, "http://127.0.0.1:8000/mcp").await;
    assert!(
        text.contains("rerun with --allow-private-ip (CLI)"),
        "{text}"
    );
}
