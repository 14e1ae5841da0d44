//! The downstream side: an MCP server (`mcp-server`) with two tools, `inspect` and `exec`,
//! whose `inspect` description follows the registry.

use std::sync::Arc;

use mcp_kit::ServerRequestOutcome;
use mcp_schema::{
    CallToolResult, CreateMessageRequest, ElicitRequest, ElicitRequestParams, ListRootsRequest,
    McpRequest, StructuredContent,
};
use mcp_server::{BoxFuture, RequestContext, Server, TaskStart, TaskSupport, ToolDef};
use serde_json::{Map, Value, json};

use crate::exec::{Downstream, ExecError, exec, for_agent};
use crate::inspect::{InspectRequest, inspect};
use crate::listing::listing;
use crate::options::ProxyOptions;
use crate::registry::Registry;

/// The name of the tool that shows schemas.
pub const INSPECT: &str = "inspect";
/// The name of the tool that runs tools.
pub const EXEC: &str = "exec";

const EXEC_DESCRIPTION: &str = "Run a tool listed by inspect, with the arguments its schema \
asks for.";

const INSTRUCTIONS: &str = "mcpx gives access to the tools of several MCP servers through two \
tools: inspect (find tools and read their schemas) and exec (run one).";

/// The proxy: the registry behind an MCP server of two tools.
#[derive(Debug, Clone)]
pub struct Proxy {
    registry: Arc<Registry>,
    options: Arc<ProxyOptions>,
    server: Server,
}

impl Proxy {
    /// The proxy's server over `registry`. Its `inspect` description is regenerated whenever
    /// an upstream changes state or tools, and clients are told (`tools/list_changed`). Must
    /// be called within a Tokio runtime.
    pub fn new(registry: Arc<Registry>, options: ProxyOptions) -> Self {
        let options = Arc::new(options);
        let listing = listing_text(&registry, &options);
        let server = Server::builder("mcpx", env!("CARGO_PKG_VERSION"))
            .title("mcpx")
            .instructions(INSTRUCTIONS)
            .tool_def(inspect_tool(
                registry.clone(),
                options.clone(),
                listing.clone(),
            ))
            .tool_def(exec_tool(registry.clone()))
            .build();
        let proxy = Self {
            registry,
            options,
            server,
        };
        proxy.follow_changes(listing);
        proxy
    }

    /// The MCP server to serve (`serve_stdio`, `serve_http`).
    pub fn server(&self) -> &Server {
        &self.server
    }

    /// The registry.
    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// Replaces `inspect` whenever the listing differs from the one `shown`.
    fn follow_changes(&self, mut shown: String) {
        let mut changes = self.registry.changes();
        let registry = Arc::downgrade(&self.registry);
        let options = self.options.clone();
        let server = self.server.clone();
        tokio::spawn(async move {
            while changes.changed().await.is_ok() {
                let Some(registry) = registry.upgrade() else {
                    return;
                };
                let listing = listing_text(&registry, &options);
                if listing != shown {
                    server.add_tool(inspect_tool(registry, options.clone(), listing.clone()));
                    shown = listing;
                }
            }
        });
    }
}

fn listing_text(registry: &Registry, options: &ProxyOptions) -> String {
    listing(registry, options.listing_budget_tokens).text
}

/// The `inspect` tool, `description` being the listing.
fn inspect_tool(
    registry: Arc<Registry>,
    options: Arc<ProxyOptions>,
    description: String,
) -> ToolDef {
    let schema = json!({
        "type": "object",
        "properties": {
            "server_name": { "type": "string" },
            "tool_name": { "type": "string" },
            "query": { "type": "string" }
        }
    });
    ToolDef::raw(INSPECT, description, schema, move |args, _cx| {
        let registry = registry.clone();
        let options = options.clone();
        async move {
            let request: InspectRequest =
                serde_json::from_value(Value::Object(args)).map_err(|e| {
                    mcp_server::Error::invalid_params(format!("invalid arguments: {e}"))
                })?;
            answer(inspect(&registry, &options, &request).map(|found| {
                let mut result = CallToolResult::text(found.text);
                result.structured_content = Some(StructuredContent::from(found.structured));
                result
            }))
        }
    })
    .expect("the inspect schema is valid")
}

fn exec_tool(registry: Arc<Registry>) -> ToolDef {
    let schema = json!({
        "type": "object",
        "properties": {
            "server_name": { "type": "string" },
            "tool_name": { "type": "string" },
            "arguments": { "type": "object" }
        },
        "required": ["server_name", "tool_name"]
    });
    ToolDef::raw(EXEC, EXEC_DESCRIPTION, schema, move |mut args, cx| {
        let registry = registry.clone();
        async move {
            let text = |key: &str, args: &mut Map<String, Value>| match args.remove(key) {
                Some(Value::String(s)) => s,
                _ => String::new(),
            };
            let server = text("server_name", &mut args);
            let tool = text("tool_name", &mut args);
            let arguments = match args.remove("arguments") {
                Some(Value::Object(map)) => Some(map),
                _ => None,
            };
            answer(
                exec(&registry, &server, &tool, arguments, &cx)
                    .await
                    .map(for_agent),
            )
        }
    })
    .expect("the exec schema is valid")
    // An upstream task is a task for the client too, when the client can follow one: the
    // call becomes one when the upstream's does.
    .task_support(TaskSupport::Optional)
    .task_start(TaskStart::Explicit)
}

/// A proxy failure is a tool error the model can read and act on; an upstream's JSON-RPC
/// error and the downstream's own endings pass through as they are.
fn answer(outcome: Result<CallToolResult, ExecError>) -> mcp_server::Result<CallToolResult> {
    match outcome {
        Ok(result) => Ok(result),
        Err(ExecError::Upstream(error)) => Err(mcp_server::Error::rpc(*error)),
        Err(ExecError::Downstream(error)) => Err(error),
        Err(other) => Ok(CallToolResult::error(other.to_string())),
    }
}

impl Downstream for RequestContext {
    fn wants_progress(&self) -> bool {
        RequestContext::wants_progress(self)
    }

    fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> BoxFuture<()> {
        let cx = self.clone();
        Box::pin(async move { cx.progress(progress, total, message.as_deref()).await })
    }

    fn ask(
        &self,
        method: String,
        params: Option<Value>,
    ) -> BoxFuture<Result<ServerRequestOutcome, mcp_server::Error>> {
        let cx = self.clone();
        Box::pin(async move {
            let params = params.unwrap_or_else(|| json!({}));
            let answer = match method.as_str() {
                ElicitRequest::METHOD => {
                    match serde_json::from_value::<ElicitRequestParams>(params) {
                        Ok(params) => cx.elicit(params).await.map(to_value),
                        Err(e) => return Ok(bad_params(&method, &e)),
                    }
                }
                CreateMessageRequest::METHOD => match serde_json::from_value(params) {
                    Ok(params) => cx.create_message(params).await.map(to_value),
                    Err(e) => return Ok(bad_params(&method, &e)),
                },
                ListRootsRequest::METHOD => cx.list_roots().await.map(to_value),
                _ => return Ok(ServerRequestOutcome::MethodNotFound),
            };
            match answer {
                Ok(value) => Ok(ServerRequestOutcome::Ok(value)),
                Err(end) if end.is_input_required() || end.is_cancelled() => Err(end),
                Err(error) => Ok(ServerRequestOutcome::Error {
                    code: error.code(),
                    message: error.to_string(),
                    data: None,
                }),
            }
        })
    }

    fn cancelled(&self) -> BoxFuture<()> {
        let cx = self.clone();
        Box::pin(async move { cx.cancelled().await })
    }

    fn run_as_task(&self) -> BoxFuture<bool> {
        let cx = self.clone();
        Box::pin(async move { cx.run_as_task().await.unwrap_or(false) })
    }

    fn set_status(&self, message: String) -> BoxFuture<()> {
        let cx = self.clone();
        Box::pin(async move { cx.set_status_message(message).await })
    }
}

fn to_value<T: serde::Serialize>(value: T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

fn bad_params(method: &str, error: &serde_json::Error) -> ServerRequestOutcome {
    ServerRequestOutcome::Error {
        code: mcp_jsonrpc::error_codes::INVALID_PARAMS,
        message: format!("invalid {method} params from the upstream: {error}"),
        data: None,
    }
}
