//! The DNS check: with an injected resolver (deterministic), and with the system resolver
//! (no network needed).

use super::*;

fn dns_policy() -> UntrustedStreamableHttpPolicy {
    UntrustedStreamableHttpPolicy {
        dns_check: true,
        ..policy()
    }
}

fn resolves_to(
    ips: &'static [&'static str],
) -> impl Fn(String, u16) -> std::future::Ready<io::Result<Vec<SocketAddr>>> {
    move |_, port| {
        std::future::ready(Ok(ips
            .iter()
            .map(|ip| SocketAddr::new(ip.parse().unwrap(), port))
            .collect()))
    }
}

#[tokio::test]
async fn dns_non_global_message() {
    let config = http("https://rebind.example.com:8443/mcp");
    let resolver = resolves_to(&["93.184.216.34", "10.0.0.7"]);
    let error = check_untrusted_http_with(&dns_policy(), "remote", &config, &resolver)
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "refusing to connect hostname that resolves to non-global ip in untrusted mode: server \
         `remote`, field `url`, url `https://rebind.example.com:8443/…`, host \
         `rebind.example.com` resolves to `10.0.0.7`; rerun with --allow-private-ip or without \
         --dns-check (CLI) / UntrustedStreamableHttpPolicy { allow_private_ips: true, .. } \
         (code), or with --trust"
    );
    // dns_check off, or allow_private_ips on: no lookup at all.
    check(&policy(), &config).await.unwrap();
    let lax = UntrustedStreamableHttpPolicy {
        allow_private_ips: true,
        ..dns_policy()
    };
    check(&lax, &config).await.unwrap();
    // Only global addresses: allowed.
    check_untrusted_http_with(
        &dns_policy(),
        "remote",
        &config,
        &resolves_to(&["93.184.216.34", "2606:2800:220:1::1"]),
    )
    .await
    .unwrap();
    // IPv4-mapped answers are judged by the embedded address.
    assert_refused!(
        check_untrusted_http_with(
            &dns_policy(),
            "remote",
            &config,
            &resolves_to(&["::ffff:192.168.1.1"]),
        ),
        PolicyError::ResolvesToNonGlobalIp { .. }
    );
}

#[tokio::test]
async fn dns_is_not_used_for_ip_literals_and_deduplicates() {
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let counting = |host: String, port: u16| {
        calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        assert_eq!((host.as_str(), port), ("example.com", 443));
        std::future::ready(Ok(vec![SocketAddr::new(
            "93.184.216.34".parse().unwrap(),
            port,
        )]))
    };
    let config = split("https://example.com/sse", "https://EXAMPLE.com:443/post");
    check_untrusted_http_with(&dns_policy(), "remote", &config, &counting)
        .await
        .unwrap();
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);
    check_untrusted_http_with(
        &dns_policy(),
        "remote",
        &http("https://93.184.216.34/"),
        &no_lookup,
    )
    .await
    .unwrap();
}

#[tokio::test]
async fn dns_failure_message_and_fail_open() {
    let config = split("https://a.example.com/sse", "https://b.example.com/post");
    let failing = |host: String, _| {
        std::future::ready(if host == "b.example.com" {
            Err(io::Error::other("no such host"))
        } else {
            Ok(vec![SocketAddr::new("1.1.1.1".parse().unwrap(), 443)])
        })
    };
    let error = check_untrusted_http_with(&dns_policy(), "remote", &config, &failing)
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "refusing to connect hostname with failed/timed out dns lookup in untrusted mode: server \
         `remote`, field `http_url`, url `https://b.example.com/…`, host `b.example.com`: dns \
         lookup failed: no such host; fix the DNS setup, raise --dns-timeout-ms, or rerun with \
         --dns-fail-open, without --dns-check (CLI) / UntrustedStreamableHttpPolicy { \
         dns_timeout, dns_fail_open: true, .. } (code), or with --trust"
    );
    let open = UntrustedStreamableHttpPolicy {
        dns_fail_open: true,
        ..dns_policy()
    };
    check_untrusted_http_with(&open, "remote", &config, &failing)
        .await
        .unwrap();
    // fail-open does not let non-global answers through.
    assert_refused!(
        check_untrusted_http_with(&open, "remote", &config, &resolves_to(&["127.0.0.1"])),
        PolicyError::ResolvesToNonGlobalIp {
            field: "sse_url",
            ..
        }
    );
}

#[tokio::test]
async fn dns_timeout_message() {
    let hang = |_: String, _: u16| std::future::pending::<io::Result<Vec<SocketAddr>>>();
    let policy = UntrustedStreamableHttpPolicy {
        dns_timeout: Duration::from_millis(1),
        ..dns_policy()
    };
    let config = http("https://slow.example.com/");
    let error = check_untrusted_http_with(&policy, "remote", &config, &hang)
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "refusing to connect hostname with failed/timed out dns lookup in untrusted mode: server \
         `remote`, field `url`, url `https://slow.example.com`, host `slow.example.com`: dns \
         lookup timed out after 1ms; fix the DNS setup, raise --dns-timeout-ms, or rerun with \
         --dns-fail-open, without --dns-check (CLI) / UntrustedStreamableHttpPolicy { \
         dns_timeout, dns_fail_open: true, .. } (code), or with --trust"
    );
    let open = UntrustedStreamableHttpPolicy {
        dns_fail_open: true,
        ..policy
    };
    check_untrusted_http_with(&open, "remote", &config, &hang)
        .await
        .unwrap();
}

// --- DNS check, with the system resolver (no network needed) ---

/// With `dns_fail_open`, the system resolver's failure lets `config` through.
async fn lets_through_failing_open(
    policy: UntrustedStreamableHttpPolicy,
    config: &StreamableHttpServer,
) {
    let open = UntrustedStreamableHttpPolicy {
        dns_fail_open: true,
        ..policy
    };
    check_untrusted_http(&open, "remote", config).await.unwrap();
}

#[tokio::test]
async fn system_dns_refuses_localhost() {
    // Past the localhost rule, `localhost` still resolves to loopback.
    let policy = UntrustedStreamableHttpPolicy {
        allow_localhost: true,
        dns_timeout: Duration::from_secs(10),
        ..dns_policy()
    };
    let error = check_untrusted_http(&policy, "remote", &http("https://localhost:8443/mcp"))
        .await
        .unwrap_err();
    match &error {
        PolicyError::ResolvesToNonGlobalIp {
            host, ip, field, ..
        } => {
            assert_eq!((host.as_str(), *field), ("localhost", "url"));
            assert!(ip.is_loopback(), "{ip}");
        }
        other => panic!("{other}"),
    }
    assert!(error.to_string().starts_with(
        "refusing to connect hostname that resolves to non-global ip in untrusted mode: server \
         `remote`, field `url`, url `https://localhost:8443/…`, host `localhost` resolves to `"
    ));
    // allow_private_ips disables the check.
    let lax = UntrustedStreamableHttpPolicy {
        allow_private_ips: true,
        ..policy
    };
    check_untrusted_http(&lax, "remote", &http("https://localhost:8443/mcp"))
        .await
        .unwrap();
}

#[tokio::test]
async fn system_dns_unresolvable_name() {
    // `.invalid` never resolves (RFC 6761); a failure and a timeout are both fail-closed.
    let policy = UntrustedStreamableHttpPolicy {
        dns_timeout: Duration::from_secs(10),
        ..dns_policy()
    };
    let config = http("https://nonexistent.invalid/mcp");
    let error = check_untrusted_http(&policy, "remote", &config)
        .await
        .unwrap_err();
    assert!(
        matches!(&error, PolicyError::DnsLookupFailed { host, .. } if host == "nonexistent.invalid"),
        "{error}"
    );
    assert!(error.to_string().starts_with(
        "refusing to connect hostname with failed/timed out dns lookup in untrusted mode: server \
         `remote`, field `url`, url `https://nonexistent.invalid/…`, host `nonexistent.invalid`: \
         dns lookup "
    ));
    lets_through_failing_open(policy, &config).await;
}

#[tokio::test]
async fn system_dns_with_a_1ms_timeout() {
    // The lookup may finish within 1 ms or not: either way the outcome is a refusal for
    // `localhost` (loopback or timeout) and for `.invalid` (failure or timeout), and
    // fail-open lets the latter through.
    let policy = UntrustedStreamableHttpPolicy {
        allow_localhost: true,
        dns_timeout: Duration::from_millis(1),
        ..dns_policy()
    };
    assert_refused!(
        check_untrusted_http(&policy, "remote", &http("https://localhost/")),
        PolicyError::ResolvesToNonGlobalIp { .. } | PolicyError::DnsLookupFailed { .. }
    );
    let config = http("https://nonexistent.invalid/");
    assert_refused!(
        check_untrusted_http(&policy, "remote", &config),
        PolicyError::DnsLookupFailed { .. }
    );
    lets_through_failing_open(policy, &config).await;
}
