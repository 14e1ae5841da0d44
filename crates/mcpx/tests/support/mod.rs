//! Starting mcpx for a test, in front of real upstream processes, and reaching it with
//! mcp-kit as the downstream client (stdio or streamable HTTP).

#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use mcp_kit::mcp::Era;
use mcp_kit::{Config, Manager, ServerConfig, ServerRequestOutcome, Session, TrustMode};
use mcp_test_support::{ServerProcess, build_examples, free_port, start_http_server};
use serde_json::{Value, json};
use tokio::process::Command;
use tokio::sync::mpsc;

/// The examples of this crate (the upstream test server).
pub fn examples() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| build_examples("mcpx", &[]))
}

pub fn upstream_bin() -> PathBuf {
    examples().join("upstream_server")
}

pub fn mcpx_bin() -> &'static str {
    env!("CARGO_BIN_EXE_mcpx")
}

/// The upstream test server over HTTP on `port`.
pub async fn start_upstream_http(port: u16) -> ServerProcess {
    let mut command = Command::new(upstream_bin());
    command
        .arg("--http")
        .arg(port.to_string())
        .kill_on_drop(true);
    start_http_server(command, port, "upstream", "listening on").await
}

/// Writes `config` as `mcpx.json` in a fresh directory.
pub fn write_config(config: &Value) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("mcpx.json"), config.to_string()).expect("write config");
    dir
}

/// How the test reaches mcpx.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Downstream {
    Stdio,
    Http,
}

/// A running mcpx and a client session to it; list changes arrive on `changes`.
pub struct Proxy {
    pub session: Session,
    pub changes: mpsc::UnboundedReceiver<String>,
    pub manager: Manager,
    _http: Option<ServerProcess>,
}

/// Starts mcpx with the configuration in `dir` and connects to it.
pub async fn start_mcpx(dir: &Path, downstream: Downstream, protocol: Option<&str>) -> Proxy {
    let config_path = dir.join("mcpx.json");
    let (server, http) = match downstream {
        Downstream::Stdio => (
            ServerConfig::stdio([mcpx_bin(), "--config", config_path.to_str().expect("utf-8")]),
            None,
        ),
        Downstream::Http => {
            let port = free_port();
            let mut command = Command::new(mcpx_bin());
            command
                .arg("--config")
                .arg(&config_path)
                .arg("--http")
                .arg(format!("127.0.0.1:{port}"))
                .kill_on_drop(true);
            let process = start_http_server(command, port, "mcpx", "mcpx listening on").await;
            (
                ServerConfig::streamable_http(process.url.clone()),
                Some(process),
            )
        }
    };
    let (tx, changes) = mpsc::unbounded_channel();
    let tx_listen = tx.clone();
    let manager = Manager::new(Config::default().with_server("mcpx", server), dir)
        .with_trust_mode(TrustMode::Trusted)
        .with_timeout(Duration::from_secs(30))
        .with_protocol_version(protocol.map(str::to_owned))
        .with_capabilities(json!({ "elicitation": {}, "sampling": {} }))
        .with_server_request_handler(Arc::new(|request| {
            Box::pin(async move {
                match request.method.as_str() {
                    "elicitation/create" => ServerRequestOutcome::Ok(
                        json!({ "action": "accept", "content": { "name": "Ada" } }),
                    ),
                    "sampling/createMessage" => ServerRequestOutcome::Ok(json!({
                        "role": "assistant",
                        "content": { "type": "text", "text": "banana" },
                        "model": "test-model"
                    })),
                    _ => ServerRequestOutcome::MethodNotFound,
                }
            })
        }))
        .with_server_notification_handler(Arc::new(move |note| {
            let _ = tx.send(note.method);
            Box::pin(async {})
        }));
    let session = manager.open("mcpx").await.expect("connect to mcpx");
    if session.negotiated().era() == Era::Stateless {
        // 2026-07-28: list changes come on a subscriptions/listen stream.
        let mut subscription = session
            .subscribe(json!({ "toolsListChanged": true }))
            .await
            .expect("subscriptions/listen");
        let tx = tx_listen;
        tokio::spawn(async move {
            while let Some((method, _)) = subscription.next().await {
                if tx.send(method).is_err() {
                    return;
                }
            }
        });
    }
    Proxy {
        session,
        changes,
        manager,
        _http: http,
    }
}

impl Proxy {
    /// Calls `exec`.
    pub async fn exec(
        &self,
        server: &str,
        tool: &str,
        arguments: Value,
    ) -> Result<Value, mcp_kit::Error> {
        let result = self
            .session
            .call_tool(
                "exec",
                Some(
                    json!({ "server_name": server, "tool_name": tool, "arguments": arguments })
                        .as_object()
                        .cloned()
                        .expect("object"),
                ),
            )
            .await?;
        Ok(serde_json::to_value(result).expect("serializes"))
    }

    /// Calls `inspect`.
    pub async fn inspect(&self, arguments: Value) -> Value {
        let result = self
            .session
            .call_tool("inspect", arguments.as_object().cloned())
            .await
            .expect("inspect answers");
        serde_json::to_value(result).expect("serializes")
    }

    /// The `inspect` tool's description.
    pub async fn listing(&self) -> String {
        let tools = self.session.list_all_tools().await.expect("tools/list");
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["inspect", "exec"], "mcpx shows exactly two tools");
        tools[0].description.clone().unwrap_or_default()
    }

    /// Waits for the next `notifications/tools/list_changed`, then for the listing to satisfy
    /// `done` (several changes may come before it does).
    pub async fn wait_listing(&mut self, done: impl Fn(&str) -> bool) -> String {
        let wait = async {
            loop {
                let listing = self.listing().await;
                if done(&listing) {
                    return listing;
                }
                let method = self
                    .changes
                    .recv()
                    .await
                    .expect("notifications keep coming");
                assert!(
                    method.contains("list_changed")
                        || method.contains("progress")
                        || method.contains("message"),
                    "{method}"
                );
            }
        };
        tokio::time::timeout(Duration::from_secs(30), wait)
            .await
            .expect("the listing changed in time")
    }
}

/// The text of the first content block of a tool result.
pub fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}
