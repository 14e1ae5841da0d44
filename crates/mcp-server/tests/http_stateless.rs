//! Protocol 2026-07-28 over streamable HTTP: every POST stands alone, its headers mirror its
//! body, client input comes back as an `InputRequiredResult`, `subscriptions/listen` is a
//! long-lived stream, and closing a stream cancels its request.

mod http_support;
mod tools_support;

use std::time::Duration;

use http_support::*;
use mcp_server::schemars::JsonSchema;
use mcp_server::{Error, HttpOptions, NoArguments, Server, ToolDef};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::mpsc;

const WAIT: Duration = Duration::from_secs(10);

#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "mcp_server::schemars")]
struct EchoArgs {
    message: String,
}

fn server(events: mpsc::UnboundedSender<&'static str>) -> Server {
    let (blocking, streaming) = (events.clone(), events);
    let builder = Server::builder("http-stateless", "1.0.0").tool(
        "echo",
        "Echoes its message",
        |a: EchoArgs, _cx| async move { Ok(a.message) },
    );
    tools_support::with_ask(builder)
        .tool(
            "block",
            "Waits until cancelled",
            move |_: NoArguments, cx| {
                let events = blocking.clone();
                async move {
                    let _ = events.send("block started");
                    cx.cancelled().await;
                    let _ = events.send("block cancelled");
                    Err::<String, _>(Error::cancelled())
                }
            },
        )
        .tool(
            "stream_then_block",
            "Reports progress, then waits until cancelled",
            move |_: NoArguments, cx| {
                let events = streaming.clone();
                async move {
                    cx.progress(1.0, None, Some("working")).await;
                    cx.cancelled().await;
                    let _ = events.send("stream cancelled");
                    Err::<String, _>(Error::cancelled())
                }
            },
        )
        .tool_def(
            ToolDef::raw(
                "route",
                "Routes by region",
                json!({ "type": "object", "properties": {
                    "region": { "type": "string", "x-mcp-header": "Region" },
                    "n": { "type": "integer", "x-mcp-header": "N" },
                } }),
                |args, _cx| async move {
                    Ok(mcp_server::schema::CallToolResult::text(format!(
                        "routed {}",
                        args["region"]
                    )))
                },
            )
            .expect("a valid schema"),
        )
        .build()
}

async fn next_event(rx: &mut mpsc::UnboundedReceiver<&'static str>) -> &'static str {
    tokio::time::timeout(WAIT, rx.recv())
        .await
        .expect("the tool reported in time")
        .expect("the tool is alive")
}

#[tokio::test]
async fn discover_and_call_without_a_session() {
    let (tx, _rx) = mpsc::unbounded_channel();
    let server = server(tx);
    let http = start(&server, HttpOptions::default()).await;
    let url = http.url();
    let c = client();
    let response = stateless(&c, &url, 1, "server/discover", json!({}))
        .send()
        .await
        .unwrap();
    assert!(
        response.headers().get("mcp-session-id").is_none(),
        "no session in 2026-07-28"
    );
    let (status, body, _) = outcome(response).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["resultType"], "complete");
    assert!(
        body["result"]["supportedVersions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v == MODERN)
    );
    let response = stateless(
        &c,
        &url,
        2,
        "tools/call",
        json!({ "name": "echo", "arguments": { "message": "hi" } }),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(response.headers()["content-type"], "application/json");
    let (status, body, _) = outcome(response).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["id"], 2);
    assert_eq!(text_of(&body), "hi");
    assert_eq!(body["result"]["resultType"], "complete");
    assert_eq!(http.sessions().count(), 0);
}

#[tokio::test]
async fn elicitation_returns_input_required_then_completes() {
    let (tx, _rx) = mpsc::unbounded_channel();
    let server = server(tx);
    let http = start(&server, HttpOptions::default()).await;
    let url = http.url();
    let c = client();
    let meta = meta_with(json!({ "elicitation": {} }));
    let response = stateless(
        &c,
        &url,
        1,
        "tools/call",
        json!({ "name": "ask", "arguments": {}, "_meta": meta }),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(response.headers()["content-type"], "application/json");
    let (status, body, _) = outcome(response).await;
    assert_eq!(status, 200, "{body}");
    let result = &body["result"];
    assert_eq!(result["resultType"], "input_required", "{body}");
    let requests = result["inputRequests"].as_object().expect("inputRequests");
    let (key, request) = requests.iter().next().expect("one input request");
    assert_eq!(request["method"], "elicitation/create");
    let state = result["requestState"].as_str().expect("a requestState");
    let retry = json!({
        "name": "ask", "arguments": {}, "_meta": meta,
        "inputResponses": { key.as_str(): { "action": "accept", "content": { "name": "Ada" } } },
        "requestState": state,
    });
    let (status, body, _) = outcome(
        stateless(&c, &url, 2, "tools/call", retry)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["resultType"], "complete");
    assert_eq!(text_of(&body), "hello \"Ada\"");
    // Without the capability: -32021, HTTP 400.
    let (status, _, code) = outcome(
        stateless(
            &c,
            &url,
            3,
            "tools/call",
            json!({ "name": "ask", "arguments": {} }),
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!((status, code), (400, Some(-32021)));
}

#[tokio::test]
async fn mcp_param_headers_must_match_the_arguments() {
    let (tx, _rx) = mpsc::unbounded_channel();
    let server = server(tx);
    let http = start(&server, HttpOptions::default()).await;
    let url = http.url();
    let c = client();
    let call = |args: Value| {
        stateless(
            &c,
            &url,
            1,
            "tools/call",
            json!({ "name": "route", "arguments": args }),
        )
    };
    let cases: Vec<(&str, reqwest::RequestBuilder, u16)> = vec![
        (
            "plain",
            call(json!({ "region": "eu" })).header("mcp-param-region", "eu"),
            200,
        ),
        (
            "base64",
            call(json!({ "region": "Hello" })).header("Mcp-Param-Region", "=?base64?SGVsbG8=?="),
            200,
        ),
        (
            "integer compared as a number",
            call(json!({ "region": "eu", "n": 42 }))
                .header("mcp-param-region", "eu")
                .header("mcp-param-n", "42.0"),
            200,
        ),
        ("absent argument, no header", call(json!({})), 200),
        ("missing header", call(json!({ "region": "eu" })), 400),
        (
            "different value",
            call(json!({ "region": "eu" })).header("mcp-param-region", "us"),
            400,
        ),
        (
            "bad padding",
            call(json!({ "region": "Hello" })).header("mcp-param-region", "=?base64?SGVsbG8?="),
            400,
        ),
        (
            "half-wrapped is literal",
            call(json!({ "region": "Hello" })).header("mcp-param-region", "=?base64?SGVsbG8="),
            400,
        ),
    ];
    for (name, request, expected) in cases {
        let (status, body, code) = outcome(request.send().await.unwrap()).await;
        assert_eq!(status, expected, "{name}: {body}");
        if expected == 400 {
            assert_eq!(code, Some(-32020), "{name}: {body}");
        }
    }
}

#[tokio::test]
async fn listen_streams_changes_until_the_client_leaves() {
    let (tx, _rx) = mpsc::unbounded_channel();
    let server = server(tx);
    let http = start(&server, HttpOptions::default()).await;
    let url = http.url();
    let c = client();
    let response = stateless(
        &c,
        &url,
        40,
        "subscriptions/listen",
        json!({ "notifications": { "toolsListChanged": true } }),
    )
    .send()
    .await
    .unwrap();
    let mut sse = Sse::new(response);
    let ack = sse.next().await.expect("the acknowledgement");
    assert!(ack.id.is_none(), "2026-07-28 events carry no ids");
    let ack = ack.json();
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        40
    );
    server.add_tool(ToolDef::new(
        "late",
        "Added later",
        |_: NoArguments, _| async { Ok("late") },
    ));
    let (_, change) = sse.message().await.expect("a change");
    assert_eq!(change["method"], "notifications/tools/list_changed");
    assert_eq!(
        change["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        40
    );
    drop(sse);
    // Server shutdown ends a listen stream with its final result.
    let response = stateless(
        &c,
        &url,
        41,
        "subscriptions/listen",
        json!({ "notifications": { "toolsListChanged": true } }),
    )
    .send()
    .await
    .unwrap();
    let mut sse = Sse::new(response);
    sse.next().await.expect("the acknowledgement");
    server.shutdown();
    let (_, last) = sse.message().await.expect("the final result");
    assert_eq!(last["id"], 41);
    assert_eq!(last["result"]["resultType"], "complete");
    assert!(sse.next().await.is_none());
    tokio::time::timeout(WAIT, http.wait())
        .await
        .expect("serving stops")
        .unwrap();
}

#[tokio::test]
async fn closing_the_connection_cancels_the_request() {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let server = server(tx);
    let http = start(&server, HttpOptions::default()).await;
    let url = http.url();
    let c = client();
    // Streaming: the client drops the SSE response.
    let response = stateless(
        &c,
        &url,
        1,
        "tools/call",
        json!({ "name": "stream_then_block", "arguments": {}, "_meta": {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "progressToken": "s",
    } }),
    )
    .send()
    .await
    .unwrap();
    let mut sse = Sse::new(response);
    let (_, progress) = sse.message().await.expect("progress");
    assert_eq!(progress["method"], "notifications/progress");
    drop(sse);
    assert_eq!(next_event(&mut rx).await, "stream cancelled");
    // Before anything was sent: the client gives up waiting for the JSON body.
    let pending = tokio::spawn(
        stateless(
            &c,
            &url,
            2,
            "tools/call",
            json!({ "name": "block", "arguments": {} }),
        )
        .send(),
    );
    assert_eq!(next_event(&mut rx).await, "block started");
    pending.abort();
    assert_eq!(next_event(&mut rx).await, "block cancelled");
}

#[tokio::test]
async fn a_server_of_2026_07_28_only_has_no_sessions() {
    let mut options = mcp_server::ServerOptions::default();
    options.protocol_versions = vec![MODERN];
    let server = Server::builder("modern-only", "1.0.0")
        .options(options)
        .build();
    let http = start(&server, HttpOptions::default()).await;
    let url = http.url();
    let c = client();
    for request in [
        c.get(&url).header("accept", "text/event-stream"),
        c.delete(&url),
    ] {
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 405);
        assert_eq!(response.headers()["allow"], "POST");
    }
    let response = post(&c, &url)
        .json(&json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": { "name": "old", "version": "1" } } }))
        .send()
        .await
        .unwrap();
    assert!(response.headers().get("mcp-session-id").is_none());
    let (status, body, code) = outcome(response).await;
    assert_eq!((status, code), (400, Some(-32020)), "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(MODERN),
        "the error names the supported versions: {message}"
    );
    let (status, _, _) = outcome(
        stateless(&c, &url, 2, "server/discover", json!({}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200);
}
