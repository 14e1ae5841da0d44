//! `call --task` and `task get|cancel`: tool calls a server runs as tasks (the tasks
//! extension, protocol 2026-07-28).

use mcp_kit::mcp::CallToolResult;
use mcp_kit::{ProgressUpdate, Session, TaskHandle, ToolCall, task_status_line};
use serde_json::{Map, Value, json};

use crate::args::{TaskAction, TaskArgs};
use crate::console::Console;
use crate::exit::server_failure;
use crate::output::Printer;
use crate::target::given;
use crate::views;

/// `call --task`: the result, or `None` when the task was detached (its id printed).
pub(crate) async fn call(
    session: &Session,
    console: &Console,
    name: &str,
    arguments: Map<String, Value>,
    detach: bool,
) -> anyhow::Result<Option<CallToolResult>> {
    let task = match session.call_tool_as_task(name, Some(arguments)).await? {
        ToolCall::Complete(result) => return Ok(Some(*result)),
        ToolCall::Task(task) => task,
    };
    if detach {
        println!("{}", task.id());
        return Ok(None);
    }
    let server = session.server_name();
    console.event(&json!({ "server": server, "task": task.id() }), || {
        format!("[{server}] task {}", task.id())
    });
    // Ctrl-C drops this future: the task is cancelled then.
    let guard = task.cancel_when_dropped();
    let result = follow(session, console, &task).await;
    guard.disarm();
    Ok(Some(result?))
}

/// Waits for the end of `task`, its status shown as progress.
async fn follow(
    session: &Session,
    console: &Console,
    task: &TaskHandle<'_>,
) -> Result<CallToolResult, mcp_kit::Error> {
    let server = session.server_name().to_owned();
    let mut changes = 0u32;
    let result = task
        .wait_with_status(|now| {
            changes += 1;
            let mut update = ProgressUpdate::new(task.id().to_owned(), f64::from(changes), None);
            update.message = Some(task_status_line(now));
            console.progress(&server, &update);
        })
        .await;
    console.clear_progress();
    result
}

/// `task get|cancel SERVER ID`.
pub(crate) async fn task(
    session: &Session,
    printer: Printer,
    console: &Console,
    args: &TaskArgs,
) -> anyhow::Result<()> {
    let task = session.task(given(&args.id));
    match args.action {
        TaskAction::Cancel => {
            task.cancel().await?;
            let id = task.id().to_owned();
            printer.print(&json!({}), |_| format!("asked to cancel task {id}"))
        }
        TaskAction::Get if args.wait => {
            let result = follow(session, console, &task).await?;
            let is_error = result.is_error == Some(true);
            printer.print(&serde_json::to_value(result)?, views::tool_result)?;
            if is_error {
                return Err(server_failure(format!(
                    "task {} of server `{}` ended with an error result (isError: true)",
                    task.id(),
                    session.server_name()
                )));
            }
            Ok(())
        }
        TaskAction::Get => {
            let now = task.get().await?;
            printer.print(&serde_json::to_value(&now)?, task_view)
        }
    }
}

/// A task for people: its id and status line, then what its status calls for.
fn task_view(task: &Value) -> String {
    let field = |key: &str| task.get(key).and_then(Value::as_str).unwrap_or_default();
    let mut out = format!("task {}: {}", field("taskId"), field("status"));
    if let Some(message) = task.get("statusMessage").and_then(Value::as_str) {
        out.push_str(&format!(" ({message})"));
    }
    out.push('\n');
    if let Some(requests) = task.get("inputRequests").and_then(Value::as_object) {
        for (key, request) in requests {
            let method = request.get("method").and_then(Value::as_str).unwrap_or("?");
            out.push_str(&format!("  waits for input `{key}` ({method})\n"));
        }
    }
    if let Some(result) = task.get("result") {
        out.push_str(&views::tool_result(result));
    }
    if let Some(error) = task.get("error") {
        out.push_str(&format!("error: {error}\n"));
    }
    out
}
