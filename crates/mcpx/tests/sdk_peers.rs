//! mcpx between real third-party peers: upstreams are the reference everything server
//! (stdio), the Python SDK server (HTTP, 2026-07-28), mcp-server's example server (stdio and
//! HTTP, pinned to 2025-11-25) and one that fails to start; downstream clients are the
//! official TypeScript SDK client (stateful era) and the Python SDK client (both eras), over
//! stdio and streamable HTTP.

mod support;

use std::path::PathBuf;

use mcp_test_support::{
    ServerProcess, everything_js, free_port, peers_dir, repo_root, run_sdk_client,
    start_http_server, start_python_http,
};
use serde_json::{Value, json};
use support::mcpx_bin;
use tokio::process::Command;

fn example_server() -> PathBuf {
    mcp_test_support::build_examples("mcp-server", &[]).join("example_server")
}

struct Upstreams {
    _python: ServerProcess,
    _example: ServerProcess,
    config: tempfile::TempDir,
}

async fn upstreams() -> Upstreams {
    let python = start_python_http().await;
    let port = free_port();
    let mut command = Command::new(example_server());
    command
        .args(["--http", &port.to_string()])
        .kill_on_drop(true);
    let example = start_http_server(command, port, "example_server", "listening on http://").await;
    let scripts = repo_root().join("scripts/peers");
    let config = json!({
        "mcpServers": {
            "everything": {
                "command": "node",
                "args": [everything_js(), "stdio"],
                "env": {
                    "NODE_OPTIONS": format!("--import {}", scripts.join("node20-fs-glob.mjs").display()),
                    "NODE_PATH": peers_dir().join("node/node_modules"),
                }
            },
            "python": { "url": python.url },
            "example": { "command": example_server() },
            "example_http": { "url": example.url },
            "broken": { "command": "/nonexistent/upstream" }
        },
        "mcpx": {
            "servers": {
                "python": { "protocol_version": "2026-07-28" },
                "example": { "protocol_version": "2025-11-25" },
                "example_http": { "protocol_version": "2025-11-25" }
            }
        }
    });
    Upstreams {
        _python: python,
        _example: example,
        config: support::write_config(&config),
    }
}

/// What the SDK clients do through mcpx, and what they must see.
fn plan() -> String {
    let exec = |server: &str, tool: &str, arguments: Value| json!({ "server_name": server, "tool_name": tool, "arguments": arguments });
    json!({
        "expect_tools": ["inspect", "exec"],
        "calls": [
            {"name": "exec", "arguments": exec("everything", "echo", json!({"message": "hi"})), "expect_text": "Echo: hi"},
            {"name": "exec", "arguments": exec("python", "add", json!({"a": 2, "b": 3})), "expect_text": "5"},
            {"name": "exec", "arguments": exec("example", "add", json!({"a": 2, "b": 40})), "expect_text": "42"},
            {"name": "exec", "arguments": exec("example_http", "echo", json!({"message": "over http"})), "expect_text": "over http"},
            {"name": "exec", "arguments": exec("nowhere", "echo", json!({})), "expect_text": "unknown server `nowhere`", "allow_error": true},
            {"name": "inspect", "arguments": {"server_name": "python", "tool_name": "add"}, "expect_text": "add"},
            {"name": "inspect", "arguments": {"query": "sum two numbers"}, "expect_text": "add"}
        ],
        "progress": {"name": "exec", "arguments": exec("example", "count", json!({"steps": 4})), "min_count": 3},
        "elicitation": {
            "name": "exec", "arguments": exec("example", "greet", json!({})),
            "response": {"action": "accept", "content": {"name": "Grace"}},
            "expect_text": "Hello, Grace!"
        }
    })
    .to_string()
}

fn ts(transport: &[&str]) -> Command {
    mcp_test_support::ts_client(&plan(), transport)
}

fn py(mode: &str, era: &str, transport: &[&str]) -> Command {
    mcp_test_support::py_client(&plan(), mode, era, transport)
}

async fn mcpx_http(config: &std::path::Path) -> ServerProcess {
    let port = free_port();
    let mut command = Command::new(mcpx_bin());
    command
        .arg("--config")
        .arg(config.join("mcpx.json"))
        .arg("--http")
        .arg(format!("127.0.0.1:{port}"))
        .kill_on_drop(true);
    start_http_server(command, port, "mcpx", "mcpx listening on").await
}

fn stdio(config: &std::path::Path) -> Vec<String> {
    vec![
        "stdio".to_owned(),
        mcpx_bin().to_owned(),
        "--config".to_owned(),
        config.join("mcpx.json").display().to_string(),
    ]
}

fn args(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn typescript_client_over_stdio_and_http() {
    let up = upstreams().await;
    let summary = run_sdk_client(ts(&args(&stdio(up.config.path())))).await;
    assert_eq!(summary["protocolVersion"], "2025-11-25", "{summary:#}");
    let http = mcpx_http(up.config.path()).await;
    let summary = run_sdk_client(ts(&["http", &http.url])).await;
    assert_eq!(summary["protocolVersion"], "2025-11-25", "{summary:#}");
}

#[tokio::test(flavor = "multi_thread")]
async fn python_client_over_stdio_in_both_eras() {
    let up = upstreams().await;
    let transport = stdio(up.config.path());
    let summary = run_sdk_client(py("auto", "modern", &args(&transport))).await;
    assert_eq!(summary["protocolVersion"], "2026-07-28", "{summary:#}");
    let summary = run_sdk_client(py("legacy", "legacy", &args(&transport))).await;
    assert_eq!(summary["protocolVersion"], "2025-11-25", "{summary:#}");
}

#[tokio::test(flavor = "multi_thread")]
async fn python_client_over_http_in_both_eras() {
    let up = upstreams().await;
    let http = mcpx_http(up.config.path()).await;
    let summary = run_sdk_client(py("auto", "modern", &["http", &http.url])).await;
    assert_eq!(summary["protocolVersion"], "2026-07-28", "{summary:#}");
    let summary = run_sdk_client(py("legacy", "legacy", &["http", &http.url])).await;
    assert_eq!(summary["protocolVersion"], "2025-11-25", "{summary:#}");
}
