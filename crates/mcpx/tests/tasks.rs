//! Tasks through mcpx: an upstream tool that runs as a task (the tasks extension) is a task
//! for a 2026-07-28 client that follows tasks — its status, its input requests and its end
//! mirrored, its cancellation passed upstream — and an ordinary call for any other client,
//! whose questions reach that client the usual way.

mod support;

use mcp_kit::ToolCall;
use serde_json::{Map, Value, json};
use support::{Downstream, start_mcpx, text, upstream_bin, write_config};

fn config() -> Value {
    json!({ "mcpServers": { "up": { "command": upstream_bin() } } })
}

fn exec_args(tool: &str) -> Option<Map<String, Value>> {
    json!({ "server_name": "up", "tool_name": tool, "arguments": {} })
        .as_object()
        .cloned()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upstream_task_is_a_task_downstream() {
    let dir = write_config(&config());
    let proxy = start_mcpx(dir.path(), Downstream::Http, Some("2026-07-28")).await;
    let task = match proxy
        .session
        .call_tool_as_task("exec", exec_args("task_job"))
        .await
        .expect("exec")
    {
        ToolCall::Task(task) => task,
        ToolCall::Complete(result) => panic!("not a task downstream: {result:?}"),
    };
    // The upstream's question parks the downstream task; the client's handler answers it.
    let result = task.wait().await.expect("the task completes");
    let value = serde_json::to_value(&result).unwrap();
    assert_eq!(text(&value), "job for Ada done", "{value}");

    // A failed upstream task fails downstream with the upstream's error.
    let ToolCall::Task(task) = proxy
        .session
        .call_tool_as_task("exec", exec_args("task_fail"))
        .await
        .expect("exec")
    else {
        panic!("task_fail is a task downstream");
    };
    let failed = task.wait().await.expect_err("the task failed");
    let error = failed.rpc_error().expect("a JSON-RPC error");
    assert_eq!(
        (error.code, error.message.as_str()),
        (-32042, "the job broke")
    );
    let detailed = task.get().await.expect("tasks/get");
    assert_eq!(detailed.task.status.as_str(), "failed");

    // Cancelling the downstream task cancels the upstream one.
    let ToolCall::Task(task) = proxy
        .session
        .call_tool_as_task("exec", exec_args("task_sleep"))
        .await
        .expect("exec")
    else {
        panic!("task_sleep is a task downstream");
    };
    task.cancel().await.expect("tasks/cancel");
    let counted = proxy
        .exec("up", "cancelled", json!({ "at_least": 1 }))
        .await
        .expect("exec");
    assert_eq!(text(&counted), "cancelled 1");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stateful_client_gets_an_upstream_task_as_an_ordinary_call() {
    let dir = write_config(&config());
    let proxy = start_mcpx(dir.path(), Downstream::Stdio, Some("2025-11-25")).await;
    let result = proxy.exec("up", "task_job", json!({})).await.expect("exec");
    assert_eq!(text(&result), "job for Ada done");
}
