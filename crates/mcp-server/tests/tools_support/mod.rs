//! What more than one test shares: a tool the test servers register, and the request loop of
//! the clients that speak whole messages (stdio lines, WebSocket frames).

#![allow(dead_code)]

use mcp_server::{NoArguments, ServerBuilder};
use serde_json::{Value, json};

/// Adds `ask`: asks the client for a name with an elicitation form and answers
/// `hello "{name}"` (the name as JSON).
pub(crate) fn with_ask(builder: ServerBuilder) -> ServerBuilder {
    builder.tool(
        "ask",
        "Asks the user's name",
        |_: NoArguments, cx| async move {
            let answer = cx
                .elicit_form(
                    "Name?",
                    json!({ "type": "object", "properties": { "name": { "type": "string" } } }),
                )
                .await?;
            let content = serde_json::to_value(answer.content).unwrap_or_default();
            Ok(format!("hello {}", content["name"]))
        },
    )
}

/// A test client that sends and receives whole JSON-RPC messages.
pub(crate) trait MessageClient {
    /// Sends one message.
    async fn send(&mut self, message: Value);
    /// The next message from the server.
    async fn recv(&mut self) -> Value;

    /// Sends a request and returns its response and what came before it.
    async fn call(&mut self, id: i64, method: &str, params: Value) -> (Value, Vec<Value>) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        let mut before = Vec::new();
        loop {
            let m = self.recv().await;
            if m.get("id") == Some(&json!(id)) && m.get("method").is_none() {
                return (m, before);
            }
            before.push(m);
        }
    }

    /// `tools/call` with these params.
    async fn call_tool(&mut self, id: i64, params: Value) -> (Value, Vec<Value>) {
        self.call(id, "tools/call", params).await
    }

    /// `initialize` at `version` with these capabilities, then `notifications/initialized`;
    /// returns the `initialize` response.
    async fn initialize(&mut self, version: &str, capabilities: Value) -> Value {
        let params = json!({"protocolVersion": version, "capabilities": capabilities,
                            "clientInfo": {"name": "test-client", "version": "1"}});
        let (response, _) = self.call(0, "initialize", params).await;
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        response
    }
}
