//! What the scale-out tests share: the example server built with feature `redis`, three
//! replicas of it behind `haproxy` sharing a `redis-server` (`mcp_test_support::scale_out`),
//! and the checks that say where a session lives.

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use mcp_test_support::scale_out::{Cluster, PREFIX, Replica, SERVED_BY, wait_for};
use reqwest::{Client, Response};
use serde_json::{Value, json};

/// Replicas per cluster: enough that, round-robin, a request and the next land on different
/// replicas, and that one may die with two left.
pub(crate) const REPLICAS: usize = 3;

/// How long a condition the tests wait for (a key in the store, a replica's view) may take.
pub(crate) const WITHIN: Duration = Duration::from_secs(20);

/// `target/<profile>/examples/example_server`, built with feature `redis` (it shares its
/// sessions through the Redis `MCP_REDIS_URL` names).
pub(crate) fn example_server() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        mcp_test_support::build_examples("mcp-server", &["redis"]).join("example_server")
    })
}

/// A `redis-server`, three example servers sharing their sessions through it, and `haproxy`
/// in front of them, their files in `dir`.
pub(crate) async fn cluster(dir: &std::path::Path) -> Cluster {
    Cluster::start(example_server(), REPLICAS, dir).await
}

/// The replica that answered `response` through the balancer (`r1`, `r2`, …).
pub(crate) fn served_by(response: &Response) -> String {
    response
        .headers()
        .get(SERVED_BY)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_else(|| panic!("the balancer names no replica: {:?}", response.headers()))
        .to_owned()
}

/// Sends `GET /health` through the balancer until `name` answers it: the next request then
/// goes to another replica (round-robin).
pub(crate) async fn turn_past(client: &Client, cluster: &Cluster, name: &str) {
    let url = format!("{}/health", cluster.balancer.origin());
    for _ in 0..=REPLICAS {
        let response = client.get(&url).send().await.expect("GET /health");
        if served_by(&response) == name {
            return;
        }
    }
    panic!(
        "{name} did not answer any of {} requests in a row",
        REPLICAS + 1
    );
}

/// A replica's own `GET /health`: status and body.
pub(crate) async fn health(client: &Client, replica: &Replica) -> (u16, Value) {
    let response = client
        .get(format!("{}/health", replica.origin()))
        .timeout(Duration::from_secs(5))
        .send()
        .await
        .unwrap_or_else(|e| panic!("GET /health of {}: {e}", replica.name));
    let status = response.status().as_u16();
    (status, response.json().await.expect("a JSON health report"))
}

/// Waits until every replica in `replicas` caches `count` sessions (their `/health` says).
pub(crate) async fn sessions_everywhere(client: &Client, replicas: &[&Replica], count: u64) {
    for replica in replicas {
        wait_for(
            &format!("{} caching {count} session(s)", replica.name),
            WITHIN,
            || async {
                let (_, body) = health(client, replica).await;
                (body["sessions"] == count).then_some(())
            },
        )
        .await;
    }
}

/// Every replica in `replicas`, asked directly, answers `404` for the session: it is gone.
pub(crate) async fn gone_everywhere(client: &Client, replicas: &[&Replica], sid: &str) {
    for replica in replicas {
        let response = client
            .post(replica.url())
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-session-id", sid)
            .header("mcp-protocol-version", "2025-11-25")
            .json(&json!({ "jsonrpc": "2.0", "id": 99, "method": "ping" }))
            .send()
            .await
            .expect("a ping");
        assert_eq!(
            response.status(),
            404,
            "{} still serves session {sid}: {}",
            replica.name,
            response.text().await.unwrap_or_default()
        );
    }
}

/// Nothing of any session is left in the store: only the replicas' heartbeats and the shared
/// signing key (waiting for writes still under way when the session ended).
pub(crate) async fn nothing_left_behind(cluster: &Cluster) {
    let heartbeat = format!("{PREFIX}:replica:");
    let signing_key = format!("{PREFIX}:signing-key");
    let mut left = Vec::new();
    let settled = tokio::time::timeout(WITHIN, async {
        loop {
            left = cluster.redis.keys("*").await;
            if left
                .iter()
                .all(|k| k.starts_with(&heartbeat) || *k == signing_key)
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    assert!(settled.is_ok(), "left behind in the store: {left:?}");
    assert!(
        left.contains(&signing_key),
        "the signing key went: {left:?}"
    );
}

/// The replica writing the session's GET stream, as the store records it, once one is, and it
/// is not one of `not` (waits for a client to open or move its stream).
pub(crate) async fn get_stream_owner<'a>(
    cluster: &'a Cluster,
    sid: &str,
    not: &[&str],
) -> &'a Replica {
    let id = wait_for(
        &format!("the GET stream of session {sid} on a replica other than {not:?}"),
        WITHIN,
        || async {
            let streams = cluster.streams(sid).await;
            let get = streams.into_iter().find(|s| s.number == 0)?;
            (!not.contains(&get.owner.as_str())).then_some(get.owner)
        },
    )
    .await;
    cluster.with_id(&id)
}
