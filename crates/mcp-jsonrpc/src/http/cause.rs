//! What went wrong with an HTTP request, in words: reqwest's own message ("error sending
//! request") says nothing of the cause, which is in its chain of sources.

use std::error::Error as _;
use std::io;

/// `error` for a message: the kind of failure first when it is one a user acts on
/// (connection refused, DNS lookup failed, TLS failed, timed out, connection reset), then
/// reqwest's message and each distinct cause below it. The URL is left out (messages show
/// a redacted one).
pub(crate) fn described(error: reqwest::Error) -> String {
    let error = error.without_url();
    let mut chain = vec![error.to_string()];
    let mut io_kind = None;
    let mut source = error.source();
    while let Some(cause) = source {
        if let Some(io) = cause.downcast_ref::<io::Error>() {
            io_kind = io_kind.or(Some(io.kind()));
        }
        let text = cause.to_string();
        if !chain.iter().any(|seen| seen.contains(&text)) {
            chain.push(text);
        }
        source = cause.source();
    }
    let text = chain.join(": ");
    let lower = text.to_ascii_lowercase();
    let kind = if error.is_timeout() || io_kind == Some(io::ErrorKind::TimedOut) {
        Some("timed out")
    } else if io_kind == Some(io::ErrorKind::ConnectionRefused) {
        Some("connection refused")
    } else if lower.contains("dns error") || lower.contains("failed to lookup address") {
        Some("DNS lookup failed")
    } else if lower.contains("received corrupt message") {
        // rustls reading something that is not TLS.
        Some("TLS failed: the server does not speak TLS here (is it an http:// URL?)")
    } else if lower.contains("certificate") || lower.contains("tls") || lower.contains("handshake")
    {
        Some("TLS failed")
    } else if matches!(
        io_kind,
        Some(io::ErrorKind::ConnectionReset | io::ErrorKind::ConnectionAborted)
    ) {
        Some("connection reset")
    } else {
        None
    };
    match kind {
        Some(kind) => format!("{kind} ({text})"),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::described;

    async fn failure(url: &str) -> String {
        let client = reqwest::Client::builder()
            .timeout(std::time::Duration::from_secs(5))
            .build()
            .unwrap();
        described(client.get(url).send().await.unwrap_err())
    }

    #[tokio::test]
    async fn a_refused_connection_and_a_bad_name_say_so() {
        // A port nothing listens on: bound, then closed.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let refused = failure(&format!("http://127.0.0.1:{port}/mcp")).await;
        assert!(refused.starts_with("connection refused ("), "{refused}");
        assert!(!refused.contains("127.0.0.1"), "no URL: {refused}");
        let unknown = failure("http://no-such-host.invalid/mcp").await;
        assert!(unknown.starts_with("DNS lookup failed ("), "{unknown}");
    }
}
