//! The official TypeScript (1.32.2) and Python (2.3.0) SDK clients against the example
//! server, over stdio and streamable HTTP: list and call tools, read a resource, get a prompt,
//! receive progress, answer an elicitation. The Python client runs in both eras, and each run
//! states which era ran.
//!
//! The clients are `crates/test-support/fixtures/{ts_client.cjs,py_client.py}`; each prints
//! one JSON line summarising what it saw and exits non-zero when a step failed its check.
//! Peers come from `scripts/install-peers.sh`; a missing peer fails the test with that hint.

use std::path::PathBuf;

use std::sync::OnceLock;

use mcp_test_support::{ServerProcess, free_port, run_sdk_client};
use serde_json::Value;
use tokio::process::Command;

fn example_server() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| mcp_test_support::build_examples("mcp-server", &[]).join("example_server"))
}

/// What the clients do against the example server, and what they must see.
fn plan() -> String {
    mcp_test_support::example_server_plan()
}

async fn start_http() -> ServerProcess {
    let port = free_port();
    let mut command = Command::new(example_server());
    command
        .args(["--http", &port.to_string()])
        .kill_on_drop(true);
    mcp_test_support::start_http_server(command, port, "example_server", "listening on http://")
        .await
}

fn ts(transport: &[&str]) -> Command {
    mcp_test_support::ts_client(&plan(), transport)
}

fn py(mode: &str, era: &str, transport: &[&str]) -> Command {
    mcp_test_support::py_client(&plan(), mode, era, transport)
}

fn check(summary: &Value, version: &str) {
    eprintln!("{summary}");
    assert_eq!(summary["protocolVersion"], version, "{summary:#}");
}

#[tokio::test]
async fn typescript_client_over_stdio() {
    let server = example_server().to_str().unwrap().to_owned();
    check(&run_sdk_client(ts(&["stdio", &server])).await, "2025-11-25");
}

#[tokio::test]
async fn typescript_client_over_http() {
    let http = start_http().await;
    check(
        &run_sdk_client(ts(&["http", &http.url])).await,
        "2025-11-25",
    );
}

#[tokio::test]
async fn python_client_over_stdio_in_both_eras() {
    let server = example_server().to_str().unwrap().to_owned();
    // The SDK's default: server/discover first; our server answers it, so 2026-07-28 runs.
    check(
        &run_sdk_client(py("auto", "modern", &["stdio", &server])).await,
        "2026-07-28",
    );
    check(
        &run_sdk_client(py("legacy", "legacy", &["stdio", &server])).await,
        "2025-11-25",
    );
}

#[tokio::test]
async fn python_client_over_http_in_both_eras() {
    let http = start_http().await;
    check(
        &run_sdk_client(py("auto", "modern", &["http", &http.url])).await,
        "2026-07-28",
    );
    check(
        &run_sdk_client(py("legacy", "legacy", &["http", &http.url])).await,
        "2025-11-25",
    );
}
