//! Graceful shutdown: a real server process (`ops_server`) gets SIGTERM or SIGINT while a
//! slow tool call is in flight and a GET stream is open; the call's response arrives, the
//! stream ends cleanly, and the process exits 0. In process: requests still running when the
//! grace period ends are abandoned (and cancelled), and serving returns `Ok`.

#![cfg(unix)]

mod http_support;
mod ops_support;

use std::time::Duration;

use http_support::{Sse, client, in_session, initialize, post, text_of};
use mcp_server::{Error, HttpOptions, NoArguments, Server};
use serde_json::json;
use tokio::sync::mpsc;

async fn slow_call_survives(signal: &str, name: &str) {
    let mut running = ops_support::start(&[("MCP_SERVER_PORT", "0")], &[]).await;
    let url = running.url.clone();
    let client = client();
    let sid = initialize(&client, &url).await;

    // The session's GET stream, which only shutdown ends.
    let stream = client
        .get(&url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", http_support::LEGACY)
        .send()
        .await
        .unwrap();
    let mut stream = Sse::new(stream);

    // A call that would run for ten minutes; its first progress says it started.
    let call = in_session(&client, &url, &sid)
        .json(&json!({
            "jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {
                "name": "work",
                "arguments": { "seconds": 600 },
                "_meta": { "progressToken": "w" },
            },
        }))
        .send()
        .await
        .unwrap();
    let mut call = Sse::new(call);
    let (_, first) = call.message().await.expect("a progress notification");
    assert_eq!(first["method"], "notifications/progress", "{first}");
    assert_eq!(first["params"]["message"], "started");

    running.signal(signal).await;
    running
        .printed(&format!("MCP server: {name} received, shutting down"))
        .await;

    let response = loop {
        let (_, message) = call
            .message()
            .await
            .expect("the call's response before its stream ends");
        if message.get("id").is_some() {
            break message;
        }
    };
    assert_eq!(response["id"], 7);
    assert_eq!(
        text_of(&response),
        "stopped after 0 s: the server is shutting down"
    );
    assert!(call.next().await.is_none(), "the call's stream ends");
    // The GET stream ends without an error (Sse::next panics on a broken body).
    while stream.next().await.is_some() {}

    let status = running.exit().await;
    assert!(
        status.success(),
        "exit status {status}: {}",
        running.stderr()
    );
    // Nothing listens any more.
    let after = client
        .get(format!("{}/health", running.base()))
        .send()
        .await;
    assert!(after.is_err(), "still serving after exit: {after:?}");
}

#[tokio::test]
async fn sigterm_lets_the_call_in_flight_finish_and_exits_0() {
    slow_call_survives("TERM", "SIGTERM").await;
}

#[tokio::test]
async fn sigint_does_the_same() {
    slow_call_survives("INT", "SIGINT").await;
}

/// A request whose body never finishes arriving holds graceful shutdown up (for the grace
/// period, 30 s by default); a second signal ends the process at once.
#[tokio::test]
async fn a_second_signal_exits_at_once() {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let mut running = ops_support::start(&[("MCP_SERVER_PORT", "0")], &[]).await;
    let authority = running.base().trim_start_matches("http://").to_owned();
    let mut upload = tokio::net::TcpStream::connect(&authority).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\
         Expect: 100-continue\r\n\r\n"
    );
    upload.write_all(head.as_bytes()).await.unwrap();
    // `100 Continue` comes when the handler starts reading the body: the request is in flight.
    let mut seen = Vec::new();
    while !seen.ends_with(b"\r\n\r\n") {
        let mut byte = [0u8];
        assert_eq!(
            upload.read(&mut byte).await.unwrap(),
            1,
            "the server closed"
        );
        seen.push(byte[0]);
    }
    assert!(
        seen.starts_with(b"HTTP/1.1 100"),
        "{}",
        String::from_utf8_lossy(&seen)
    );

    running.signal("TERM").await;
    running.printed("SIGTERM received, shutting down").await;
    running.signal("TERM").await;
    let status = running.exit().await;
    assert_eq!(status.code(), Some(143), "exit status {status}");
    assert!(
        running
            .stderr()
            .contains("SIGTERM received again, exiting now")
    );
    drop(upload);
}

#[tokio::test]
async fn past_the_grace_period_requests_are_abandoned() {
    let (started_tx, mut started) = mpsc::unbounded_channel::<()>();
    let (cancelled_tx, mut cancelled) = mpsc::unbounded_channel::<()>();
    let server = Server::builder("grace-test", "1.0.0")
        .tool(
            "stuck",
            "Runs until cancelled",
            move |_: NoArguments, cx| {
                let started = started_tx.clone();
                let cancelled = cancelled_tx.clone();
                async move {
                    let _ = started.send(());
                    cx.cancelled().await;
                    let _ = cancelled.send(());
                    Err::<String, _>(Error::cancelled())
                }
            },
        )
        .build();
    let mut options = HttpOptions::default();
    options.shutdown_grace = Duration::from_millis(200);
    let http = http_support::start(&server, options).await;
    let url = http.url();
    let client = client();
    let sid = initialize(&client, &url).await;
    let call = tokio::spawn({
        let request = in_session(&client, &url, &sid).json(&json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": { "name": "stuck", "arguments": {} },
        }));
        async move { request.send().await }
    });
    started.recv().await.expect("the call started");

    server.shutdown();
    tokio::time::timeout(Duration::from_secs(30), http.wait())
        .await
        .expect("serving ended soon after the grace period")
        .expect("serving ended with Ok");
    tokio::time::timeout(Duration::from_secs(30), cancelled.recv())
        .await
        .expect("the abandoned request was cancelled")
        .expect("the handler reported its cancellation");
    call.abort();
    // New connections are refused.
    let refused = post(&client, &url).body("{}").send().await;
    assert!(refused.is_err(), "still accepting: {refused:?}");
}
