//! An upstream server for mcpx's tests: one tool of each kind of outcome a proxy must pass on
//! (text, structured, image, a tool error, a JSON-RPC error, progress, a question to the
//! user), and a tool that adds tools, so that a list change can be seen.
//!
//! ```text
//! upstream_server                 # stdio
//! upstream_server --http PORT     # streamable HTTP at http://127.0.0.1:PORT/mcp
//! ```

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use mcp_server::schema::{CallToolResult, ContentBlock, ImageContent};
use mcp_server::{Json, NoArguments, RequestContext, Server, TaskSupport, ToolDef};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::sync::Notify;

#[derive(Deserialize, JsonSchema)]
struct Echo {
    /// The text to send back.
    message: String,
}

#[derive(Deserialize, JsonSchema)]
struct AddTool {
    /// The new tool's name.
    name: String,
}

#[derive(Deserialize, JsonSchema)]
struct Count {
    /// How many progress steps to report.
    steps: u32,
}

#[derive(Deserialize, JsonSchema)]
struct Sleep {
    /// How long to take, in milliseconds.
    ms: u64,
}

#[derive(Deserialize, JsonSchema)]
struct Gather {
    /// How many calls must be in flight together before any returns.
    calls: u64,
}

#[derive(Deserialize, JsonSchema)]
struct Cancelled {
    /// Answer once this many `sleep` calls were cancelled.
    at_least: u64,
}

/// Calls of `gather` in flight, and cancelled `sleep` calls; each change wakes the waiters.
static GATHERED: AtomicU64 = AtomicU64::new(0);
static CANCELLED: AtomicU64 = AtomicU64::new(0);
static CHANGED: Notify = Notify::const_new();

/// Waits (at most 20 s) until `counter` reaches `n`.
async fn reach(counter: &AtomicU64, n: u64) -> bool {
    let wait = async {
        loop {
            let changed = CHANGED.notified();
            if counter.load(Ordering::SeqCst) >= n {
                return;
            }
            changed.await;
        }
    };
    tokio::time::timeout(Duration::from_secs(20), wait)
        .await
        .is_ok()
}

#[derive(Serialize, JsonSchema)]
struct Weather {
    city: String,
    temperature: f64,
    conditions: Vec<String>,
}

/// A 1×1 transparent PNG.
const PIXEL: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

fn server() -> Server {
    Server::builder("upstream-server", "1.0.0")
        .instructions("A test upstream for mcpx: echo, structured and image results, errors, progress, questions.")
        .tool("echo", "Echoes a message back", |a: Echo, _cx| async move { Ok(a.message) })
        .tool("weather", "Structured weather of a city", |_: NoArguments, _cx| async move {
            Ok(Json(Weather {
                city: "Paris".into(),
                temperature: 21.5,
                conditions: vec!["sunny".into(), "windy".into()],
            }))
        })
        .tool("pixel", "An image result", |_: NoArguments, _cx| async move {
            Ok(CallToolResult::new(vec![
                ContentBlock::text("one pixel"),
                ContentBlock::Image(ImageContent::new(PIXEL, "image/png")),
            ]))
        })
        .tool("tool_error", "Always fails as a tool (isError)", |_: NoArguments, _cx| async move {
            Ok(CallToolResult::error("the tool failed on purpose"))
        })
        .tool("rpc_error", "Always fails with JSON-RPC error -32042", |_: NoArguments, _cx| async move {
            Err::<String, _>(mcp_server::Error::rpc(mcp_jsonrpc::ErrorObject::new(-32042, "upstream refused on purpose")))
        })
        .tool("count", "Reports progress, one step at a time", |a: Count, cx: RequestContext| async move {
            for step in 1..=a.steps {
                cx.progress(f64::from(step), Some(f64::from(a.steps)), Some("counting")).await;
            }
            Ok(format!("counted to {}", a.steps))
        })
        .tool("sleep", "Answers after `ms` milliseconds unless cancelled", |a: Sleep, cx: RequestContext| async move {
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(a.ms)) => Ok("slept".to_owned()),
                () = cx.cancelled() => {
                    CANCELLED.fetch_add(1, Ordering::SeqCst);
                    CHANGED.notify_waiters();
                    Err(mcp_server::Error::cancelled())
                }
            }
        })
        .tool("cancelled", "Answers once `at_least` sleep calls were cancelled", |a: Cancelled, _cx| async move {
            if reach(&CANCELLED, a.at_least).await {
                Ok(format!("cancelled {}", CANCELLED.load(Ordering::SeqCst)))
            } else {
                Err(mcp_server::Error::msg("not cancelled within 20 s"))
            }
        })
        .tool("gather", "Answers once `calls` gather calls are in flight together", |a: Gather, _cx| async move {
            GATHERED.fetch_add(1, Ordering::SeqCst);
            CHANGED.notify_waiters();
            if reach(&GATHERED, a.calls).await {
                Ok("gathered".to_owned())
            } else {
                Err(mcp_server::Error::msg("the calls did not arrive together within 20 s"))
            }
        })
        .tool("ask_name", "Asks the user for their name", |_: NoArguments, cx: RequestContext| async move {
            let schema = serde_json::json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
            let answer = cx.elicit_form("What is your name?", schema).await?;
            let name = answer
                .content
                .as_ref()
                .and_then(|c| c.get("name"))
                .and_then(|n| match n {
                    mcp_server::schema::ElicitValue::String(s) => Some(s.clone()),
                    _ => None,
                })
                .unwrap_or_else(|| "nobody".to_owned());
            Ok(format!("hello {name}"))
        })
        .tool_def(
            ToolDef::new("task_job", "Runs as a task: asks a name inside it, then answers", |_: NoArguments, cx: RequestContext| async move {
                cx.set_status_message("waiting for a name").await;
                let schema = serde_json::json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
                let answer = cx.elicit_form("Whose job is it?", schema).await?;
                let name = serde_json::to_value(&answer.content).unwrap_or_default()["name"].clone();
                Ok(format!("job for {} done", name.as_str().unwrap_or("nobody")))
            })
            .task_support(TaskSupport::Required),
        )
        .tool_def(
            ToolDef::new("task_sleep", "Runs as a task until cancelled (counted like sleep)", |_: NoArguments, cx: RequestContext| async move {
                cx.cancelled().await;
                CANCELLED.fetch_add(1, Ordering::SeqCst);
                CHANGED.notify_waiters();
                Err::<String, _>(mcp_server::Error::cancelled())
            })
            .task_support(TaskSupport::Required),
        )
        .tool_def(
            ToolDef::new("task_fail", "Runs as a task that fails with JSON-RPC error -32042", |_: NoArguments, _cx| async move {
                Err::<String, _>(mcp_server::Error::rpc(mcp_server::schema::ErrorObject::new(-32042, "the job broke")))
            })
            .task_support(TaskSupport::Required),
        )
        .tool("exit", "Ends the server process at once, as a crash would", |_: NoArguments, _cx| async move {
            std::process::exit(3);
            #[allow(unreachable_code)]
            Ok(String::new())
        })
        .tool("sample", "Asks the client's model for a word", |_: NoArguments, cx: RequestContext| async move {
            let params: mcp_server::schema::CreateMessageRequestParams = serde_json::from_value(serde_json::json!({
                "messages": [{ "role": "user", "content": { "type": "text", "text": "Say a word." } }],
                "maxTokens": 10
            }))
            .map_err(mcp_server::Error::msg)?;
            let answer = cx.create_message(params).await?;
            let answer = serde_json::to_value(answer).map_err(mcp_server::Error::msg)?;
            Ok(format!("the model said: {}", answer["content"]["text"].as_str().unwrap_or("?")))
        })
        .tool("add_tool", "Adds an echo tool of the given name", |a: AddTool, cx: RequestContext| async move {
            let name = a.name.clone();
            cx.server().add_tool(ToolDef::new(a.name, "An added tool", |e: Echo, _cx| async move { Ok(e.message) }));
            Ok(format!("added {name}"))
        })
        .build()
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    // No arguments: stdio; `--http PORT`: streamable HTTP on 127.0.0.1 until SIGINT/SIGTERM.
    server().serve_args(std::env::args().skip(1)).await
}
