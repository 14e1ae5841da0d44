//! The benchmarked server built on `mcp-server`'s public API: the tools `echo` and `blob`
//! (`bench/src/tools.rs`).
//!
//! ```text
//! bench-server --transport stdio
//! bench-server --transport http --port 8080     # http://127.0.0.1:8080/mcp, ws://127.0.0.1:8080/ws
//! ```

use std::process::ExitCode;

use mcp_jsonrpc_bench::peer_args::{self, Transport};
use mcp_jsonrpc_bench::tools::{self, EchoArgs};
use mcp_server::{Json, NoArguments, Server};

/// The server: two tools, nothing else.
fn server() -> Server {
    Server::builder("bench-server", "0.0.0")
        .tool(
            "echo",
            "Returns the message as text",
            |args: EchoArgs, _cx| async move { Ok(args.message) },
        )
        .tool(
            "blob",
            "Returns a structured result of about 10 KiB",
            |_: NoArguments, _cx| async move { Ok(Json(tools::blob())) },
        )
        .build()
}

/// Serves HTTP (and WebSocket, at `/ws`) on 127.0.0.1:`port`, saying so on stderr once it
/// listens. The defaults, but for the per-client session quota: every session of the
/// benchmark comes from one client (127.0.0.1), and the memory measurements open up to
/// 10,000 of them.
async fn serve_http(port: u16) -> std::io::Result<()> {
    let mut options = mcp_server::HttpOptions::default();
    options.max_sessions_per_client = options.max_sessions;
    let http = server().bind_http(("127.0.0.1", port), options).await?;
    eprintln!("MCP server listening on {}", http.url());
    http.wait().await
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = match peer_args::parse("bench-server", false) {
        Ok(args) => args,
        Err(code) => return code,
    };
    let served = match args.transport {
        Transport::Stdio => server().serve_stdio().await,
        Transport::Http => serve_http(args.port).await,
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench-server: {e}");
            ExitCode::FAILURE
        }
    }
}
