//! The example server: a few tools, a resource, a resource template and a prompt.
//!
//! With `MCP_REDIS_URL` set (and feature `redis`), `--http` replicas of it share their stateful
//! sessions through that Redis, behind a load balancer without stickiness.
//!
//! It is the `demo` server of the repository's `.mcp.json` (driven by `scripts/demo.sh` with
//! `mcpctl`), and the server the TypeScript and Python SDK clients are tested against.
//!
//! ```text
//! cargo run -p mcp-server --example example_server              # stdio
//! cargo run -p mcp-server --example example_server -- --http 8080   # http://127.0.0.1:8080/mcp
//! MCP_SKILLS_DIR=conformance/fixtures/skills cargo run -p mcp-server --example example_server
//! ```
//!
//! With `MCP_SKILLS_DIR` set (or `[skills] dirs` in the `MCP_CONFIG` file), it also serves the
//! skills of those folders (SEP-2640).

use std::time::Duration;

use mcp_server::schema::LoggingLevel;
use mcp_server::{
    Choices, Error, Json, NoArguments, PromptDef, ResourceDef, ResourceTemplateDef, Server,
    ServerBuilder, ServerConfig, TaskStart, TaskSupport, ToolDef,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    /// The text to send back.
    message: String,
}

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    a: f64,
    b: f64,
}

#[derive(Serialize, JsonSchema)]
struct Sum {
    sum: f64,
}

#[derive(Deserialize, JsonSchema)]
struct CountArgs {
    /// How many steps to count (each reports progress).
    steps: u32,
}

#[derive(Deserialize, JsonSchema)]
struct GreetArgs {}

fn server() -> ServerBuilder {
    Server::builder("example-server", env!("CARGO_PKG_VERSION"))
        .instructions(
            "A demonstration server: echo, add, count (progress), greet (asks your name), touch \
             (tells subscribers that demo://readme changed).",
        )
        .tool(
            "echo",
            "Echoes a message back",
            |a: EchoArgs, _cx| async move { Ok(a.message) },
        )
        .tool("add", "Adds two numbers", |a: AddArgs, _cx| async move {
            Ok(Json(Sum { sum: a.a + a.b }))
        })
        .tool_def(
            // A long count becomes a task for clients that follow tasks (2026-07-28): answered
            // inline when done within a second, else a task handle the client polls.
            ToolDef::new(
                "count",
                "Counts to `steps`, reporting progress",
                |a: CountArgs, cx| async move {
                    for i in 1..=a.steps {
                        cx.progress(f64::from(i), Some(f64::from(a.steps)), Some("counting"))
                            .await;
                        cx.log(LoggingLevel::Debug, Some("count"), format!("step {i}"))
                            .await;
                        tokio::select! {
                            _ = tokio::time::sleep(Duration::from_millis(10)) => {}
                            _ = cx.cancelled() => return Err(Error::cancelled()),
                        }
                    }
                    Ok(format!("counted to {}", a.steps))
                },
            )
            .task_support(TaskSupport::Optional)
            .task_start(TaskStart::After(Duration::from_secs(1))),
        )
        .tool(
            "greet",
            "Asks for your name, then greets you",
            |_: GreetArgs, cx| async move {
                let schema = serde_json::json!({
                    "type": "object",
                    "properties": { "name": { "type": "string", "description": "Your name" } },
                    "required": ["name"]
                });
                let answer = cx.elicit_form("What is your name?", schema).await?;
                let name = answer
                    .content
                    .and_then(|c| c.get("name").and_then(|v| serde_json::to_value(v).ok()))
                    .and_then(|v| v.as_str().map(str::to_owned));
                Ok(match name {
                    Some(name) => format!("Hello, {name}!"),
                    None => "Hello, stranger!".to_owned(),
                })
            },
        )
        .tool(
            "touch",
            "Tells subscribers that demo://readme changed",
            |_: NoArguments, cx| async move {
                cx.server().notify_resource_updated("demo://readme");
                Ok("demo://readme changed")
            },
        )
        .resource(
            ResourceDef::text(
                "demo://readme",
                "readme",
                "text/plain",
                "This is the example server.",
            )
            .description("What this server is"),
        )
        .resource_template(
            ResourceTemplateDef::new(
                "demo://items/{id}",
                "item",
                Some("text/plain"),
                |_uri, vars, _cx| async move { Ok(format!("item {}", vars["id"])) },
            )
            .expect("a valid template")
            .complete("id", Choices::new(["1", "2", "3", "42"])),
        )
        .prompt(
            PromptDef::new("greeting", |args, _cx| async move {
                Ok(format!("Write a warm greeting for {}.", args["name"]))
            })
            .description("A greeting prompt")
            .argument("name", "Who to greet", true)
            .complete("name", Choices::new(["Ada", "Alan", "Grace"])),
        )
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    // MCP_SKILLS_DIR / `[skills] dirs`: the skills to serve besides the rest.
    let config = ServerConfig::from_env()?;
    let server = server()
        .config_skills(&config)
        .map_err(std::io::Error::other)?
        .build();
    // No arguments: stdio; `--http PORT`: streamable HTTP on 127.0.0.1 until SIGINT/SIGTERM.
    server.serve_args(std::env::args().skip(1)).await
}
