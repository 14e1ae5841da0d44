//! A tiny MCP server over stdio, with two tools: `echo` and `add`.
//!
//! The other examples and the tests of `mcp-kit` talk to it (`mcp-kit` cannot use the
//! `mcp-server` framework: it sits beside it, not above it). The repository's `.mcp.json` runs
//! the `example_server` of `mcp-server` instead.
//!
//! It reads one JSON-RPC message per line on stdin and writes its answers on stdout (logs
//! would go to stderr: stdout belongs to the protocol). It exits when stdin closes.

mod common;

#[tokio::main]
async fn main() -> Result<(), mcp_jsonrpc::Error> {
    common::serve(tokio::io::stdin(), tokio::io::stdout()).await
}
