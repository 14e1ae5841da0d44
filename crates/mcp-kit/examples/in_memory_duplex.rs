//! [`Manager::open_io`] over an in-memory pipe (`tokio::io::duplex`), with a server that asks
//! the client questions of its own: server→client requests and notifications.
//!
//! ```text
//! cargo run -p mcp-kit --example in_memory_duplex
//! ```
//!
//! The scripted server has the `echo` and `add` tools of `common/mod.rs` plus `ask_client`.
//! While it handles a call of `ask_client`, it sends the client:
//!
//! - `notifications/message` — a log message, received by the notification handler;
//! - `roots/list` — answered by `mcp-kit` itself from the roots given with
//!   [`Manager::with_roots`] (a custom request handler does not replace this built-in);
//! - `example/confirm` — a custom method, answered by the handler installed with
//!   [`Manager::with_server_request_handler`];
//! - `sampling/createMessage` — which the handler does not know: the server gets
//!   `-32601 Method not found`.
//!
//! and returns what it got as the tool's result. [`Manager::open_io`] needs no trust mode: the
//! caller made the connection, so no policy applies. The session is cached with
//! [`Manager::insert`], so the manager's own methods reach it by its name.

mod common;

use std::sync::Arc;
use std::time::Duration;

use mcp_kit::{
    Manager, Root, ServerNotificationContext, ServerRequestContext, ServerRequestOutcome,
};
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// The scripted server's answer to one request.
async fn scripted(request: common::ServerRequest) -> Result<Value, mcp_jsonrpc::ErrorObject> {
    match request.method.as_str() {
        "tools/list" => {
            let mut tools = common::tool_definitions();
            tools.push(json!({
                "name": "ask_client",
                "description": "Asks the client for its roots and a confirmation",
                "inputSchema": { "type": "object" }
            }));
            Ok(json!({ "tools": tools }))
        }
        "tools/call" if request.params["name"] == "ask_client" => {
            let peer = request.peer;
            peer.notify(
                "notifications/message",
                Some(json!({ "level": "info", "data": "ask_client: asking the client" })),
            )
            .await
            .map_err(mcp_jsonrpc::ErrorObject::internal_error)?;
            let describe = |outcome: Result<Value, mcp_jsonrpc::Error>| match outcome {
                Ok(result) => result.to_string(),
                Err(error) => error.to_string(),
            };
            let roots = describe(peer.request("roots/list", None).await);
            let confirm = describe(
                peer.request("example/confirm", Some(json!({ "question": "proceed?" })))
                    .await,
            );
            let sampling = describe(peer.request("sampling/createMessage", None).await);
            let text = format!(
                "roots/list -> {roots}\nexample/confirm -> {confirm}\nsampling/createMessage -> {sampling}"
            );
            Ok(json!({ "content": [{ "type": "text", "text": text }] }))
        }
        method => common::answer(method, &request.params),
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    // The pipe: one end for the client, the other for the scripted server.
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(server_end);
    tokio::spawn(common::serve_with(server_read, server_write, scripted));

    // What the server sends on its own is collected here and printed at the end.
    let (notes_tx, mut notes) = mpsc::unbounded_channel();

    // No configuration: the connection is made here, not from an `mcp.json`.
    let manager = Manager::default()
        .with_client_info("in-memory-duplex", "0.1.0")
        .with_timeout(Duration::from_secs(10))
        // Roots declare `capabilities.roots` and enable the built-in `roots/list` answer.
        .with_roots(vec![Root {
            uri: "file:///workspace/demo".into(),
            name: Some("demo".into()),
        }])
        // Requests the built-ins (`roots/list`, `ping`) do not answer come here.
        .with_server_request_handler(Arc::new(|ctx: ServerRequestContext| {
            Box::pin(async move {
                match ctx.method.as_str() {
                    "example/confirm" => ServerRequestOutcome::Ok(json!({
                        "confirmed": true,
                        "asked": ctx.params.unwrap_or(Value::Null)["question"],
                    })),
                    _ => ServerRequestOutcome::MethodNotFound,
                }
            }) as _
        }))
        .with_server_notification_handler(Arc::new(move |ctx: ServerNotificationContext| {
            let notes_tx = notes_tx.clone();
            Box::pin(async move {
                let _ = notes_tx.send(format!(
                    "{} from {}: {}",
                    ctx.method,
                    ctx.server_name,
                    ctx.params.unwrap_or(Value::Null)
                ));
            }) as _
        }));

    let (read, write) = tokio::io::split(client_end);
    // Cached under its name, the session serves `manager.<method>("scripted", …)`.
    let session = manager.insert(manager.open_io("scripted", read, write).await?);
    println!("connected: {}", session.initialize_result()["serverInfo"]);

    // A typed request: `ListToolsRequest` binds the method, its params and its result.
    let tools = manager
        .request_typed::<mcp_kit::mcp::ListToolsRequest>("scripted", None)
        .await?;
    common::print_tools(&tools.tools);

    // The same request, raw: a method name and JSON params in, a JSON result out.
    let raw = manager
        .request(
            "scripted",
            "tools/call",
            Some(json!({ "name": "ask_client" })),
        )
        .await?;
    let result: mcp_kit::mcp::CallToolResult = serde_json::from_value(raw)?;
    println!("ask_client ->\n{}", common::result_text(&result));

    // The notification was sent before the result; its handler runs on another task.
    if let Ok(Some(note)) = tokio::time::timeout(Duration::from_secs(2), notes.recv()).await {
        println!("notification: {note}");
    }
    Ok(())
}
