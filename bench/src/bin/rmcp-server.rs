//! The peer server on rmcp 3.9 (a benchmark peer only), written the way rmcp's own examples
//! write servers: `#[tool_router]` tools with `Parameters<T>` arguments and a `Json<T>`
//! structured result, the same `echo` and `blob` as `bench-server` (`bench/src/tools.rs`).
//!
//! ```text
//! rmcp-server --transport stdio
//! rmcp-server --transport http --port 8080                # stateful, SSE responses (rmcp's defaults)
//! rmcp-server --transport http --port 8080 --stateless    # no sessions, `json_response: true`
//! ```
//!
//! Over HTTP, every accepted socket gets `TCP_NODELAY` unless `--nagle` is given: with plain
//! `axum::serve`, a response written in several pieces (the SSE stream's events) waits for
//! the client's delayed ACK, about 40 ms per call.

use std::process::ExitCode;

use axum::serve::ListenerExt;
use mcp_jsonrpc_bench::peer_args::{self, Transport};
use mcp_jsonrpc_bench::tools::{self, Blob, EchoArgs};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{Json, ServerHandler, ServiceExt, tool, tool_handler, tool_router};

/// The rmcp server: the two tools.
#[derive(Debug, Clone)]
struct BenchServer {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl BenchServer {
    fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    #[tool(description = "Returns the message as text")]
    async fn echo(&self, Parameters(args): Parameters<EchoArgs>) -> String {
        args.message
    }

    #[tool(description = "Returns a structured result of about 10 KiB")]
    async fn blob(&self) -> Json<Blob> {
        Json(tools::blob())
    }
}

// With the router kept in the server (rmcp's bare `#[tool_handler]` would build it again
// on every call).
#[tool_handler(router = self.tool_router)]
impl ServerHandler for BenchServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// Serves stdio until end of input.
async fn serve_stdio() -> Result<(), String> {
    let service = BenchServer::new()
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| e.to_string())?;
    service.waiting().await.map_err(|e| e.to_string())?;
    Ok(())
}

/// Serves streamable HTTP at `http://127.0.0.1:{port}/mcp` until killed.
async fn serve_http(port: u16, stateless: bool, nagle: bool) -> Result<(), String> {
    let config = if stateless {
        StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true)
    } else {
        StreamableHttpServerConfig::default()
    };
    let service: StreamableHttpService<BenchServer, LocalSessionManager> =
        StreamableHttpService::new(|| Ok(BenchServer::new()), Default::default(), config);
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .map_err(|e| format!("binding 127.0.0.1:{port}: {e}"))?;
    eprintln!("rmcp server listening on http://127.0.0.1:{port}/mcp");
    let served = if nagle {
        axum::serve(listener, router).await
    } else {
        let listener = listener.tap_io(|tcp| {
            if let Err(e) = tcp.set_nodelay(true) {
                eprintln!("rmcp-server: TCP_NODELAY: {e}");
            }
        });
        axum::serve(listener, router).await
    };
    served.map_err(|e| e.to_string())
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = match peer_args::parse("rmcp-server", true) {
        Ok(args) => args,
        Err(code) => return code,
    };
    let served = match args.transport {
        Transport::Stdio => serve_stdio().await,
        Transport::Http => serve_http(args.port, args.stateless, args.nagle).await,
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rmcp-server: {e}");
            ExitCode::FAILURE
        }
    }
}
