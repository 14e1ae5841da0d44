//! Scale-out (issue 16) with real processes: the official TypeScript and Python SDK clients
//! run the plan of `sdk_clients.rs` (tools, a resource, a prompt, progress, an elicitation
//! answered by the client) through `haproxy` (round-robin, no stickiness) in front of three
//! example servers sharing their sessions through a real `redis-server`: every request of the
//! session may land on another replica. Afterwards (the clients end their sessions) nothing of
//! any session is left in the store.
//!
//! Peers come from `scripts/install-peers.sh`; a missing peer fails the test with that hint.

mod scale_out_support;

use mcp_test_support::{example_server_plan, py_client, run_sdk_client, ts_client};
use scale_out_support::*;

#[tokio::test]
async fn the_typescript_client_runs_a_stateful_session_through_the_balancer() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = cluster(dir.path()).await;
    let summary =
        run_sdk_client(ts_client(&example_server_plan(), &["http", &cluster.url()])).await;
    assert_eq!(summary["protocolVersion"], "2025-11-25", "{summary:#}");
    let sid = summary["era_evidence"]["http_session_id"]
        .as_str()
        .unwrap_or_else(|| panic!("a stateful session has an id: {summary:#}"));
    let c = reqwest::Client::builder().no_proxy().build().unwrap();
    let replicas: Vec<_> = cluster.replicas.iter().collect();
    gone_everywhere(&c, &replicas, sid).await;
    nothing_left_behind(&cluster).await;
}

#[tokio::test]
async fn the_python_client_runs_a_stateful_session_through_the_balancer() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = cluster(dir.path()).await;
    let url = cluster.url();
    let summary = run_sdk_client(py_client(
        &example_server_plan(),
        "legacy",
        "legacy",
        &["http", &url],
    ))
    .await;
    assert_eq!(summary["protocolVersion"], "2025-11-25", "{summary:#}");
    nothing_left_behind(&cluster).await;
    // 2026-07-28 needs no session; its elicitation's request state, signed by one replica,
    // is checked by another.
    let summary = run_sdk_client(py_client(
        &example_server_plan(),
        "auto",
        "modern",
        &["http", &url],
    ))
    .await;
    assert_eq!(summary["protocolVersion"], "2026-07-28", "{summary:#}");
    nothing_left_behind(&cluster).await;
}
