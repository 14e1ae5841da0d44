//! The tiny MCP server the examples talk to, and a few printing helpers.
//!
//! Each example includes this file with `mod common;` (Cargo only builds `examples/*.rs` and
//! `examples/*/main.rs` as examples, so `examples/common/mod.rs` is a shared module, not an
//! example of its own).
//!
//! The server speaks the stateful protocol era (`initialize`, up to 2025-11-25) and offers two
//! tools: `echo` (returns its `message`) and `add` (returns `a + b`). It answers `initialize`,
//! `ping`, `tools/list` and `tools/call`; everything else, `server/discover` included, gets
//! `-32601 Method not found` — which is how `mcp-kit`'s automatic negotiation learns that it
//! must fall back from the 2026-07-28 era to `initialize`.
//!
//! It is written on `mcp_jsonrpc::Peer`, which is a bidirectional JSON-RPC peer: what the
//! other side sends arrives on `take_requests()`, so the same type can play the server's part.

// Every example uses a different part of this module.
#![allow(dead_code)]

use std::future::Future;
use std::sync::Arc;

use mcp_jsonrpc::{ErrorObject, Peer, PeerHandle};
use mcp_kit::mcp::{CallToolResult, ContentBlock, Tool};
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite};

/// The name the server gives in `serverInfo`.
pub(crate) const SERVER_NAME: &str = "mcp-kit-example-server";

/// A request from the client, as the server's handler sees it.
pub(crate) struct ServerRequest {
    /// The method.
    pub(crate) method: String,
    /// The params (`null` when absent).
    pub(crate) params: Value,
    /// The connection it came from: lets a handler send its own requests to the client.
    pub(crate) peer: PeerHandle,
}

/// The definitions `tools/list` returns.
pub(crate) fn tool_definitions() -> Vec<Value> {
    vec![
        json!({
            "name": "echo",
            "description": "Returns its message",
            "inputSchema": {
                "type": "object",
                "properties": { "message": { "type": "string" } },
                "required": ["message"]
            }
        }),
        json!({
            "name": "add",
            "description": "Adds two numbers",
            "inputSchema": {
                "type": "object",
                "properties": { "a": { "type": "number" }, "b": { "type": "number" } },
                "required": ["a", "b"]
            }
        }),
    ]
}

/// The answer to one request. (The error is returned by value, as a JSON-RPC peer answers
/// with it; its size does not matter at one request per call.)
#[allow(clippy::result_large_err)]
pub(crate) fn answer(method: &str, params: &Value) -> Result<Value, ErrorObject> {
    match method {
        "initialize" => {
            // The client's version when it is one of the stateful ones, else the latest of them.
            let requested = params["protocolVersion"].as_str().unwrap_or_default();
            let version = mcp_kit::mcp::version::server_select_initialize_version(
                requested,
                mcp_kit::mcp::SUPPORTED,
            )
            .unwrap_or(mcp_kit::mcp::V2025_11_25);
            Ok(json!({
                "protocolVersion": version,
                "capabilities": { "tools": {} },
                "serverInfo": { "name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION") }
            }))
        }
        "ping" => Ok(json!({})),
        "tools/list" => Ok(json!({ "tools": tool_definitions() })),
        "tools/call" => call_tool(params),
        // `server/discover` (2026-07-28) and anything else.
        other => Err(ErrorObject::method_not_found(other)),
    }
}

/// `tools/call`: an unknown tool is a JSON-RPC error; bad arguments are a tool result with
/// `isError: true`, as MCP asks, so that a model could read the message and retry.
#[allow(clippy::result_large_err)]
fn call_tool(params: &Value) -> Result<Value, ErrorObject> {
    let arguments = &params["arguments"];
    let outcome = match params["name"].as_str() {
        Some("echo") => match arguments["message"].as_str() {
            Some(message) => Ok(message.to_owned()),
            None => Err("`message` must be a string".to_owned()),
        },
        Some("add") => add(&arguments["a"], &arguments["b"]),
        Some(other) => {
            return Err(ErrorObject::invalid_params(format!(
                "unknown tool `{other}`"
            )));
        }
        None => return Err(ErrorObject::invalid_params("`name` is missing")),
    };
    Ok(match outcome {
        Ok(text) => json!({ "content": [{ "type": "text", "text": text }] }),
        Err(text) => json!({ "content": [{ "type": "text", "text": text }], "isError": true }),
    })
}

/// `a + b`, as integers when both are integers.
fn add(a: &Value, b: &Value) -> Result<String, String> {
    if let (Some(a), Some(b)) = (a.as_i64(), b.as_i64()) {
        return a
            .checked_add(b)
            .map(|sum| sum.to_string())
            .ok_or_else(|| "the sum overflows".to_owned());
    }
    match (a.as_f64(), b.as_f64()) {
        (Some(a), Some(b)) => Ok((a + b).to_string()),
        _ => Err("`a` and `b` must be numbers".to_owned()),
    }
}

/// Serves the example server on a reader/writer pair until the client disconnects.
pub(crate) async fn serve<R, W>(read: R, write: W) -> Result<(), mcp_jsonrpc::Error>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    serve_with(read, write, |request: ServerRequest| async move {
        answer(&request.method, &request.params)
    })
    .await
}

/// Serves a server whose requests are answered by `handler` (each on its own task, so a
/// handler may wait for the client, e.g. for the answer to a request it sent), until the client
/// disconnects.
pub(crate) async fn serve_with<R, W, F, Fut>(
    read: R,
    write: W,
    handler: F,
) -> Result<(), mcp_jsonrpc::Error>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
    F: Fn(ServerRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Value, ErrorObject>> + Send + 'static,
{
    let mut connection = Peer::connect_io(read, write).await?;
    let mut requests = connection
        .take_requests()
        .expect("a new connection still has its request queue");
    // The client's notifications (`notifications/initialized`, `notifications/cancelled`)
    // need no action here: dropping the queue discards them.
    drop(connection.take_notifications());
    let peer = connection.handle();
    let handler = Arc::new(handler);
    loop {
        tokio::select! {
            Some(request) = requests.recv() => {
                let handler = handler.clone();
                let peer = peer.clone();
                tokio::spawn(async move {
                    let outcome = handler(ServerRequest {
                        method: request.method.clone(),
                        params: request.params_value(),
                        peer,
                    })
                    .await;
                    // Fails only when the client is gone already.
                    let _ = request.respond(outcome).await;
                });
            }
            () = peer.closed() => return Ok(()),
        }
    }
}

/// The text of a tool result's text blocks (other blocks are shown by their JSON).
pub(crate) fn result_text(result: &CallToolResult) -> String {
    let parts: Vec<String> = result
        .content
        .iter()
        .map(|block| match block {
            ContentBlock::Text(text) => text.text.clone(),
            other => serde_json::to_string(other).unwrap_or_default(),
        })
        .collect();
    let text = parts.join("\n");
    if result.is_error == Some(true) {
        format!("tool error: {text}")
    } else {
        text
    }
}

/// Prints one line per tool: its name and description.
pub(crate) fn print_tools(tools: &[Tool]) {
    println!("{} tool(s):", tools.len());
    for tool in tools {
        println!(
            "  {:<12} {}",
            tool.name,
            tool.description.as_deref().unwrap_or("")
        );
    }
}

/// Tool arguments from a JSON object literal.
pub(crate) fn arguments(value: Value) -> Option<serde_json::Map<String, Value>> {
    match value {
        Value::Object(map) => Some(map),
        _ => None,
    }
}
