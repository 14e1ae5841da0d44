//! A tiny MCP server over stdio, with two tools: `echo` and `add`.
//!
//! It is the server of the repository's `.mcp.json` (`demo`) and of `scripts/demo.sh`:
//!
//! ```text
//! cargo build -p mcp-kit --examples
//! cargo run -p mcp-kit --features cli --bin mcpctl -- --trust call demo add a=2 b=40
//! ```
//!
//! It reads one JSON-RPC message per line on stdin and writes its answers on stdout (logs
//! would go to stderr: stdout belongs to the protocol). It exits when stdin closes.

mod common;

#[tokio::main]
async fn main() -> Result<(), mcp_jsonrpc::Error> {
    common::serve(tokio::io::stdin(), tokio::io::stdout()).await
}
