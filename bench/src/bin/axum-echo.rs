//! The HTTP ceiling: a plain axum JSON endpoint at `http://127.0.0.1:{port}/mcp`, no MCP.
//!
//! It parses the same `tools/call` bodies the MCP servers get and answers them the same way
//! (`echo`: the message as a text block; `blob`: the structured result and its JSON text),
//! but with no session, no validation and no protocol: the least any server over HTTP/1.1 on
//! axum has to do for the same bytes.
//!
//! ```text
//! axum-echo --transport http --port 8080
//! ```

use std::process::ExitCode;

use axum::Json;
use axum::routing::post;
use axum::serve::ListenerExt;
use mcp_jsonrpc_bench::peer_args::{self, Transport};
use mcp_jsonrpc_bench::tools::{self, Blob};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The parts of a `tools/call` request the endpoint reads.
#[derive(Deserialize)]
struct Request {
    id: Value,
    params: Params,
}

/// `tools/call` params.
#[derive(Deserialize)]
struct Params {
    name: String,
    #[serde(default)]
    arguments: Option<Arguments>,
}

/// `echo`'s arguments (ignored for `blob`).
#[derive(Deserialize)]
struct Arguments {
    #[serde(default)]
    message: String,
}

/// The JSON-RPC response.
#[derive(Serialize)]
struct Response {
    jsonrpc: &'static str,
    id: Value,
    result: CallResult,
}

/// A `CallToolResult`-shaped answer.
#[derive(Serialize)]
struct CallResult {
    content: Vec<Text>,
    #[serde(rename = "structuredContent", skip_serializing_if = "Option::is_none")]
    structured_content: Option<Blob>,
}

/// A text content block.
#[derive(Serialize)]
struct Text {
    #[serde(rename = "type")]
    kind: &'static str,
    text: String,
}

/// Answers one request.
async fn answer(Json(request): Json<Request>) -> Json<Response> {
    let result = if request.params.name == "blob" {
        let blob = tools::blob();
        let text = serde_json::to_string(&blob).unwrap_or_default();
        CallResult {
            content: vec![Text { kind: "text", text }],
            structured_content: Some(blob),
        }
    } else {
        let text = request
            .params
            .arguments
            .map(|a| a.message)
            .unwrap_or_default();
        CallResult {
            content: vec![Text { kind: "text", text }],
            structured_content: None,
        }
    };
    Json(Response {
        jsonrpc: "2.0",
        id: request.id,
        result,
    })
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = match peer_args::parse("axum-echo", false) {
        Ok(args) => args,
        Err(code) => return code,
    };
    if args.transport != Transport::Http {
        eprintln!("axum-echo: only --transport http");
        return ExitCode::from(2);
    }
    let listener = match tokio::net::TcpListener::bind(("127.0.0.1", args.port)).await {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("axum-echo: binding 127.0.0.1:{}: {e}", args.port);
            return ExitCode::FAILURE;
        }
    };
    let listener = listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            eprintln!("axum-echo: TCP_NODELAY: {e}");
        }
    });
    eprintln!("axum-echo listening on http://127.0.0.1:{}/mcp", args.port);
    let router = axum::Router::new().route("/mcp", post(answer));
    match axum::serve(listener, router).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("axum-echo: {e}");
            ExitCode::FAILURE
        }
    }
}
