//! How `exec` behaves around a call: concurrency on one upstream, progress downstream,
//! cancellation upstream, per-upstream timeouts, and a restarted HTTP upstream.

mod support;

use std::time::Duration;

use futures_util::future::join_all;
use mcp_test_support::free_port;
use serde_json::json;
use support::{Downstream, start_mcpx, start_upstream_http, text, upstream_bin, write_config};

fn config() -> serde_json::Value {
    json!({
        "mcpServers": {
            "up": { "command": upstream_bin() },
            "slow": { "command": upstream_bin() }
        },
        "mcpx": { "servers": { "slow": { "call_timeout": 0.3 } } }
    })
}

/// Many execs run at once on one upstream: each `gather` call answers only once all of them
/// are in flight together, so this passes only if none waits for another.
#[tokio::test(flavor = "multi_thread")]
async fn many_calls_run_concurrently_on_one_upstream() {
    let dir = write_config(&config());
    let proxy = start_mcpx(dir.path(), Downstream::Stdio, None).await;
    const CALLS: u64 = 16;
    let calls = (0..CALLS).map(|_| proxy.exec("up", "gather", json!({ "calls": CALLS })));
    for result in join_all(calls).await {
        assert_eq!(text(&result.expect("exec")), "gathered");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn progress_reaches_the_client() {
    let dir = write_config(&config());
    let proxy = start_mcpx(dir.path(), Downstream::Http, Some("2025-11-25")).await;
    let arguments =
        json!({ "server_name": "up", "tool_name": "count", "arguments": { "steps": 3 } });
    let (mut progress, call) = proxy
        .session
        .call_tool_with_progress("exec", arguments.as_object().cloned());
    let result = call.await.expect("exec");
    assert_eq!(
        serde_json::to_value(&result).unwrap()["content"][0]["text"],
        "counted to 3"
    );
    let mut seen = Vec::new();
    while let Ok(update) = progress.try_recv() {
        seen.push(update.progress.as_f64().unwrap_or_default());
    }
    assert_eq!(seen, [1.0, 2.0, 3.0]);
}

/// A client that gives up on an exec cancels the upstream call.
#[tokio::test(flavor = "multi_thread")]
async fn cancelling_an_exec_cancels_the_upstream_call() {
    let dir = write_config(&config());
    for downstream in [Downstream::Stdio, Downstream::Http] {
        let proxy = start_mcpx(dir.path(), downstream, Some("2025-11-25")).await;
        let long = proxy.exec("up", "sleep", json!({ "ms": 60_000 }));
        // Dropping the call sends notifications/cancelled (or closes its HTTP stream).
        let gave_up = tokio::time::timeout(Duration::from_millis(300), long).await;
        assert!(gave_up.is_err(), "the sleep did not end early");
        let result = proxy
            .exec("up", "cancelled", json!({ "at_least": 1 }))
            .await
            .expect("exec");
        assert_eq!(text(&result), "cancelled 1", "{downstream:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn each_upstream_has_its_own_call_timeout() {
    let dir = write_config(&config());
    let proxy = start_mcpx(dir.path(), Downstream::Stdio, None).await;
    let result = proxy
        .exec("slow", "sleep", json!({ "ms": 10_000 }))
        .await
        .expect("exec");
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(
        text(&result),
        "server `slow` did not answer `sleep` within 300ms (call_timeout)"
    );
    // The same tool on another upstream has the default timeout.
    let result = proxy
        .exec("up", "sleep", json!({ "ms": 50 }))
        .await
        .expect("exec");
    assert_eq!(text(&result), "slept");
}

/// An HTTP upstream restarted between two calls (its session gone): the next call is made on
/// a new session, transparently.
#[tokio::test(flavor = "multi_thread")]
async fn a_restarted_http_upstream_is_reinitialized_transparently() {
    let port = free_port();
    let mut upstream = start_upstream_http(port).await;
    let dir = write_config(&json!({
        "mcpServers": { "web": { "url": format!("http://127.0.0.1:{port}/mcp") } },
        "mcpx": { "servers": { "web": { "protocol_version": "2025-11-25" } } }
    }));
    let proxy = start_mcpx(dir.path(), Downstream::Stdio, None).await;
    assert_eq!(
        text(
            &proxy
                .exec("web", "echo", json!({ "message": "a" }))
                .await
                .expect("exec")
        ),
        "a"
    );
    upstream.child.kill().await.expect("kill");
    let _upstream = start_upstream_http(port).await;
    let result = proxy
        .exec("web", "echo", json!({ "message": "b" }))
        .await
        .expect("exec");
    assert_eq!(text(&result), "b", "{result}");
}
