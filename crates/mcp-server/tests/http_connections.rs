//! Connection limits of `bind_http`, probed with raw sockets: a client that trickles its
//! headers (slowloris) and an unused keep-alive connection are closed after the header-read
//! timeout, a stalled request body is refused `408`, and at the connection cap new clients
//! wait until a connection closes — while normal clients keep being served.

mod http_support;

use std::time::Duration;

use http_support::*;
use mcp_server::{HttpOptions, Server};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn server() -> Server {
    Server::builder("connections", "1.0.0").build()
}

/// Reads until the peer closes or `limit` passes; `None` when it did not close in time.
async fn closed_within(stream: &mut TcpStream, limit: Duration) -> Option<Vec<u8>> {
    let mut seen = Vec::new();
    let read_all = async {
        let mut buf = [0u8; 4096];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => seen.extend_from_slice(&buf[..n]),
            }
        }
    };
    tokio::time::timeout(limit, read_all).await.ok()?;
    Some(seen)
}

async fn health_works(addr: std::net::SocketAddr) {
    let response = client()
        .get(format!("http://{addr}/health"))
        .send()
        .await
        .expect("a normal client is served");
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn a_client_trickling_its_headers_is_closed_after_the_header_read_timeout() {
    let mut options = HttpOptions::default();
    options.header_read_timeout = Duration::from_millis(300);
    let http = start(&server(), options).await;
    let addr = http.local_addr();
    let mut slow = TcpStream::connect(addr).await.unwrap();
    slow.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a")
        .await
        .unwrap();
    health_works(addr).await;
    let seen = closed_within(&mut slow, Duration::from_secs(10))
        .await
        .expect("the slowloris connection is closed");
    assert!(
        seen.is_empty() || String::from_utf8_lossy(&seen).starts_with("HTTP/1.1 408"),
        "{}",
        String::from_utf8_lossy(&seen)
    );
}

#[tokio::test]
async fn an_unused_keep_alive_connection_is_closed() {
    let mut options = HttpOptions::default();
    options.header_read_timeout = Duration::from_millis(300);
    let http = start(&server(), options).await;
    let mut idle = TcpStream::connect(http.local_addr()).await.unwrap();
    idle.write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .unwrap();
    let mut first = [0u8; 12];
    idle.read_exact(&mut first).await.unwrap();
    assert_eq!(&first, b"HTTP/1.1 200");
    // Kept alive after the response, then closed for want of a next request.
    closed_within(&mut idle, Duration::from_secs(10))
        .await
        .expect("the idle keep-alive connection is closed");
}

#[tokio::test]
async fn a_request_body_that_stops_arriving_is_refused_408() {
    let mut options = HttpOptions::default();
    options.idle_timeout = Duration::from_millis(300);
    let http = start(&server(), options).await;
    let mut stalled = TcpStream::connect(http.local_addr()).await.unwrap();
    stalled
        .write_all(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
              Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"",
        )
        .await
        .unwrap();
    let seen = closed_within(&mut stalled, Duration::from_secs(10))
        .await
        .expect("the stalled request is answered and closed");
    let text = String::from_utf8_lossy(&seen);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(text.contains("idle_timeout"), "{text}");
}

#[tokio::test]
async fn at_the_connection_cap_new_clients_wait_until_one_closes() {
    let mut options = HttpOptions::default();
    options.max_connections = 2;
    options.header_read_timeout = Duration::from_secs(30);
    let http = start(&server(), options).await;
    let addr = http.local_addr();
    let held = [
        TcpStream::connect(addr).await.unwrap(),
        TcpStream::connect(addr).await.unwrap(),
    ];
    // The kernel completes the handshake (backlog), but the server does not serve it.
    let mut waiting = TcpStream::connect(addr).await.unwrap();
    waiting
        .write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut first = [0u8; 12];
    let early = tokio::time::timeout(Duration::from_millis(500), waiting.read_exact(&mut first));
    assert!(
        early.await.is_err(),
        "a third connection was served while the cap of 2 was held"
    );
    drop(held);
    tokio::time::timeout(Duration::from_secs(10), waiting.read_exact(&mut first))
        .await
        .expect("served once a held connection closed")
        .unwrap();
    assert_eq!(&first, b"HTTP/1.1 200");
}

/// Sends `request` on a fresh connection and returns the response head and body.
async fn exchange(addr: std::net::SocketAddr, request: &str) -> String {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let seen = closed_within(&mut stream, Duration::from_secs(10))
        .await
        .expect("answered and closed");
    String::from_utf8_lossy(&seen).into_owned()
}

#[tokio::test]
async fn a_request_with_two_host_headers_is_refused_400() {
    let http = start(&server(), HttpOptions::default()).await;
    let addr = http.local_addr();
    for path in ["/mcp", "/health", "/info"] {
        let answer = exchange(
            addr,
            &format!(
                "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n\
                 Accept: text/event-stream\r\nConnection: close\r\n\r\n"
            ),
        )
        .await;
        assert!(answer.starts_with("HTTP/1.1 400"), "{path}: {answer}");
        assert!(answer.contains("more than one Host"), "{path}: {answer}");
    }
}

/// The operations pages check `Host` before credentials, as `/mcp` does: a request for a
/// foreign host is refused for its host (403), not asked for a token (401).
#[tokio::test]
async fn ops_pages_check_the_host_before_authenticating() {
    use mcp_server::auth::{Principal, StaticTokens};
    let mut options = HttpOptions::default();
    options.auth = Some(std::sync::Arc::new(
        StaticTokens::new().token("t", Principal::new("p", Vec::<String>::new())),
    ));
    let http = start(&server(), options).await;
    for path in ["/info", "/tools", "/metrics"] {
        let answer = exchange(
            http.local_addr(),
            &format!("GET {path} HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n"),
        )
        .await;
        assert!(answer.starts_with("HTTP/1.1 403"), "{path}: {answer}");
        assert!(answer.contains("evil.example"), "{path}: {answer}");
    }
}
