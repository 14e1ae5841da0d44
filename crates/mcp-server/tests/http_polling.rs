//! SSE polling (2025-11-25): a handler that calls `close_sse_stream` ends the connection of its
//! request's stream while it keeps running; the client reconnects with `Last-Event-ID` and
//! gets what was sent meanwhile, the result included. Older sessions keep the stream open.

mod http_support;

use std::sync::Arc;
use std::time::Duration;

use http_support::*;
use mcp_server::{HttpOptions, NoArguments, Server, ToolDef};
use serde_json::json;
use tokio::sync::Notify;

const WAIT: Duration = Duration::from_secs(10);

fn server(gate: Arc<Notify>) -> Server {
    Server::builder("polling", "1.0.0")
        .tool_def(ToolDef::new(
            "poll",
            "Reports progress, lets the client poll, waits for the gate, finishes",
            move |_: NoArguments, cx| {
                let gate = gate.clone();
                async move {
                    cx.progress(1.0, None, None).await;
                    cx.close_sse_stream(Duration::from_millis(20)).await;
                    gate.notified().await;
                    cx.progress(2.0, None, None).await;
                    Ok("polled")
                }
            },
        ))
        .build()
}

fn call() -> serde_json::Value {
    json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
           "params": {"name": "poll", "_meta": {"progressToken": "t"}}})
}

#[tokio::test]
async fn the_client_polls_with_last_event_id() {
    let gate = Arc::new(Notify::new());
    let server = server(gate.clone());
    let http = start(&server, HttpOptions::default()).await;
    let url = http.url();
    let c = client();
    let sid = initialize(&c, &url).await;
    let response = in_session(&c, &url, &sid)
        .json(&call())
        .send()
        .await
        .unwrap();
    let mut sse = Sse::new(response);
    let priming = sse.next().await.expect("the priming event");
    assert!(
        priming.id.is_some() && priming.data.is_empty(),
        "{priming:?}"
    );
    let (id, progress) = sse.message().await.expect("the first progress");
    assert_eq!(progress["params"]["progress"].as_f64(), Some(1.0));
    // The connection ends although the request still waits for its gate.
    let ended = tokio::time::timeout(WAIT, sse.next())
        .await
        .expect("the stream ends");
    assert!(ended.is_none(), "{ended:?}");
    gate.notify_one();
    let response = c
        .get(&url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", LEGACY)
        .header("last-event-id", id.expect("an event id"))
        .send()
        .await
        .unwrap();
    let mut resumed = Sse::new(response);
    let (_, progress) = resumed.message().await.expect("the second progress");
    assert_eq!(progress["params"]["progress"].as_f64(), Some(2.0));
    let (_, result) = resumed.message().await.expect("the result");
    assert_eq!(result["id"], 5);
    assert_eq!(text_of(&result), "polled");
}

#[tokio::test]
async fn sessions_before_2025_11_25_keep_their_stream() {
    let gate = Arc::new(Notify::new());
    let server = server(gate.clone());
    let http = start(&server, HttpOptions::default()).await;
    let url = http.url();
    let c = client();
    let sid = initialize_with(&c, &url, "2025-06-18", json!({})).await;
    let response = post(&c, &url)
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", "2025-06-18")
        .json(&call())
        .send()
        .await
        .unwrap();
    let mut sse = Sse::new(response);
    let (_, progress) = sse.message().await.expect("the first progress");
    assert_eq!(progress["params"]["progress"].as_f64(), Some(1.0));
    gate.notify_one();
    let (_, progress) = tokio::time::timeout(WAIT, sse.message())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(progress["params"]["progress"].as_f64(), Some(2.0));
    let (_, result) = sse.message().await.expect("the result on the same stream");
    assert_eq!(text_of(&result), "polled");
}
