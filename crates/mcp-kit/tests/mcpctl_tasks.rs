//! `mcpctl` and tool calls a server runs as tasks (the tasks extension, protocol 2026-07-28),
//! against the repository's example server over streamable HTTP, whose `count` becomes a task
//! when it takes more than a second: `call --task` follows it and prints the result,
//! `--detach` prints the id and leaves it running, `task get` reads it, `task get --wait`
//! waits for its result, `task cancel` stops it.
#![cfg(feature = "cli")]

mod cli_support;

use std::time::Duration;

use cli_support::mcpctl;
use mcp_test_support as support;
use serde_json::Value;

const MODERN: [&str; 2] = ["--protocol-version", "2026-07-28"];

async fn example_http() -> support::ServerProcess {
    let path = support::build_examples("mcp-server", &[]).join("example_server");
    let port = support::free_port();
    let mut command = tokio::process::Command::new(path);
    command
        .args(["--http", &port.to_string()])
        .kill_on_drop(true);
    support::start_http_server(command, port, "example_server", "MCP server listening on").await
}

fn args<'a>(rest: &[&'a str]) -> Vec<&'a str> {
    let mut all = vec!["--json", MODERN[0], MODERN[1]];
    all.extend_from_slice(rest);
    all
}

#[tokio::test]
async fn call_task_get_and_cancel_through_mcpctl() {
    let server = example_http().await;
    let url = server.url.as_str();
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();

    // Followed to its end: the id on stderr, the result on stdout.
    let run = mcpctl(dir, &args(&["call", url, "count", "steps=150", "--task"])).await;
    let result: Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run:#?}"));
    assert_eq!(result["content"][0]["text"], "counted to 150", "{run:#?}");
    assert!(
        run.stderr.contains("\"task\""),
        "the task id is shown: {run:#?}"
    );

    // A quick call is answered inline, --task or not.
    let quick = mcpctl(dir, &args(&["call", url, "count", "steps=2", "--task"]))
        .await
        .json();
    assert_eq!(quick["content"][0]["text"], "counted to 2");

    // Detached: the id alone on stdout; the task runs on.
    let detached = mcpctl(
        dir,
        &args(&["call", url, "count", "steps=150", "--task", "--detach"]),
    )
    .await
    .expect(0);
    let id = detached.stdout.trim().to_owned();
    assert!(!id.is_empty() && !id.contains(' '), "{detached:#?}");
    let now = mcpctl(dir, &args(&["task", "get", url, &id])).await.json();
    assert_eq!(now["taskId"], id.as_str());
    let waited = mcpctl(dir, &args(&["task", "get", url, &id, "--wait"]))
        .await
        .json();
    assert_eq!(waited["content"][0]["text"], "counted to 150");

    // Cancelled: a long count stops.
    let long = mcpctl(
        dir,
        &args(&["call", url, "count", "steps=100000", "--task", "--detach"]),
    )
    .await
    .expect(0);
    let id = long.stdout.trim().to_owned();
    mcpctl(dir, &args(&["task", "cancel", url, &id]))
        .await
        .expect(0);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let now = mcpctl(dir, &args(&["task", "get", url, &id])).await.json();
        if now["status"] == "cancelled" {
            break;
        }
        assert_eq!(now["status"], "working", "{now}");
        assert!(
            tokio::time::Instant::now() < deadline,
            "never cancelled: {now}"
        );
    }
    let table = mcpctl(
        dir,
        &[
            "--output", "table", MODERN[0], MODERN[1], "task", "get", url, &id,
        ],
    )
    .await
    .expect(0);
    assert!(
        table.stdout.starts_with(&format!("task {id}: cancelled")),
        "{table:#?}"
    );
    let unknown = mcpctl(dir, &args(&["task", "get", url, "no-such-task"])).await;
    assert_ne!(unknown.code, 0);
    assert!(unknown.stderr.contains("Task not found"), "{unknown:#?}");
}
