//! Tasks on replicas sharing Redis: a task runs on one replica and any replica answers for it;
//! when the replica running it dies, another replica reports it `failed`, with the reason,
//! within the poll interval the task advised — never `working` forever.
//!
//! Needs `redis-server` and `haproxy` (`scripts/install-system-deps.sh`); fails, never skips,
//! when they are missing.

mod http_support;
mod scale_out_support;

use std::time::Duration;

use http_support::*;
use serde_json::{Value, json};
use tokio::time::Instant;

const TASKS: &str = "io.modelcontextprotocol/tasks";

async fn request(client: &reqwest::Client, origin: &str, method: &str, mut params: Value) -> Value {
    params["_meta"] = meta_with(json!({ "extensions": { TASKS: {} } }));
    let url = format!("{origin}/mcp");
    let response = stateless(client, &url, 1, method, params)
        .timeout(Duration::from_secs(10))
        .send()
        .await
        .unwrap_or_else(|e| panic!("{method} at {origin}: {e}"));
    outcome(response).await.1
}

#[tokio::test]
async fn a_task_whose_replica_dies_is_reported_failed_within_its_poll_interval() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut cluster = scale_out_support::cluster(dir.path()).await;
    let client = client();
    let (owner, other) = (cluster.replicas[0].origin(), cluster.replicas[1].origin());
    // A count that takes minutes becomes a task after a second.
    let handle = request(
        &client,
        &owner,
        "tools/call",
        json!({ "name": "count", "arguments": { "steps": 100_000 } }),
    )
    .await;
    assert_eq!(handle["result"]["resultType"], "task", "{handle}");
    let id = handle["result"]["taskId"].as_str().unwrap().to_owned();
    let poll = Duration::from_millis(handle["result"]["pollIntervalMs"].as_u64().unwrap());
    assert!(
        poll >= Duration::from_secs(3),
        "polls no faster than a stopped replica is noticed"
    );

    // Another replica reads it, its progress included.
    let seen = request(&client, &other, "tasks/get", json!({ "taskId": id })).await;
    assert_eq!(seen["result"]["status"], "working", "{seen}");

    let owner_name = cluster.replicas[0].name.clone();
    cluster.kill(&owner_name).await;
    let killed = Instant::now();
    // Polled often meanwhile: working until it is failed, nothing else.
    while killed.elapsed() + Duration::from_millis(300) < poll {
        let got = request(&client, &other, "tasks/get", json!({ "taskId": id })).await;
        let status = got["result"]["status"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(status == "working" || status == "failed", "{got}");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    tokio::time::sleep_until(killed + poll).await;
    let got = request(&client, &other, "tasks/get", json!({ "taskId": id })).await;
    assert_eq!(
        got["result"]["status"], "failed",
        "one poll interval after the kill: {got}"
    );
    let reason = got["result"]["statusMessage"].as_str().unwrap_or_default();
    assert!(
        reason.contains("replica running this task stopped"),
        "{got}"
    );
    assert_eq!(got["result"]["error"]["code"], -32603);
    // And it stays failed, on every replica left.
    let third = cluster.replicas[2].origin();
    let again = request(&client, &third, "tasks/get", json!({ "taskId": id })).await;
    assert_eq!(again["result"]["status"], "failed", "{again}");
}

#[tokio::test]
async fn any_replica_answers_updates_and_cancels_a_task_another_replica_runs() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let cluster = scale_out_support::cluster(dir.path()).await;
    let client = client();
    let origins: Vec<String> = cluster.replicas.iter().map(|r| r.origin()).collect();
    let handle = request(
        &client,
        &origins[0],
        "tools/call",
        json!({ "name": "count", "arguments": { "steps": 100_000 } }),
    )
    .await;
    let id = handle["result"]["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    let ack = request(
        &client,
        &origins[1],
        "tasks/cancel",
        json!({ "taskId": id }),
    )
    .await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let got = request(&client, &origins[2], "tasks/get", json!({ "taskId": id })).await;
        if got["result"]["status"] == "cancelled" {
            break;
        }
        assert_eq!(got["result"]["status"], "working", "{got}");
        assert!(
            Instant::now() < deadline,
            "the cancellation never reached the replica running it"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
