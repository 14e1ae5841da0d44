//! Scale-out (issue 16) with real processes: the shared `redis-server` behind three example
//! servers (and `haproxy`, round-robin, no stickiness) is stopped during a session, then
//! started again. Meanwhile every request that needs the store fails at once with `503`, a
//! `Retry-After` and `-32012` naming Redis, `/health` says `degraded`, and requests that need no
//! session are still served; afterwards service comes back by itself, with the same session
//! (the store keeps an append-only file), replicas relaying to each other again; and once the
//! session is deleted nothing of it is left in the store.

mod http_support;
mod scale_out_support;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use http_support::{
    LEGACY, Sse, call, client, in_session, initialize, initialize_with, outcome, post, stateless,
    text_of,
};
use mcp_test_support::scale_out::{Cluster, wait_for};
use reqwest::Client;
use scale_out_support::*;
use serde_json::{Value, json};

/// The longest a request that needs the unreachable store may take to be refused.
const FAST: Duration = Duration::from_secs(2);

/// A stateful request through the balancer: status, body and the replica that answered.
async fn send(c: &Client, cluster: &Cluster, sid: &str, message: &Value) -> (u16, Value, String) {
    let response = in_session(c, &cluster.url(), sid)
        .json(message)
        .send()
        .await
        .unwrap();
    let replica = served_by(&response);
    let (status, body, _) = outcome(response).await;
    (status, body, replica)
}

/// `greet` through the balancer, its elicitation answered in the next request (on the next
/// replica, which relays the answer to the one asking).
async fn greet_through_two_replicas(c: &Client, cluster: &Cluster, sid: &str, id: i64) {
    let response = in_session(c, &cluster.url(), sid)
        .json(&call(id, "greet", json!({})))
        .send()
        .await
        .unwrap();
    let asking = served_by(&response);
    let mut sse = Sse::new(response);
    let (_, ask) = sse.message().await.expect("the elicitation request");
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    let answer = json!({ "jsonrpc": "2.0", "id": ask["id"],
                         "result": { "action": "accept", "content": { "name": "Ada" } } });
    let posted = in_session(c, &cluster.url(), sid)
        .json(&answer)
        .send()
        .await
        .unwrap();
    assert_eq!(posted.status(), 202);
    assert_ne!(
        served_by(&posted),
        asking,
        "the answer went to another replica"
    );
    let (_, result) = sse.message().await.expect("the result");
    assert_eq!(text_of(&result), "Hello, Ada!");
}

#[tokio::test]
async fn while_redis_is_down_requests_fail_fast_and_service_comes_back_by_itself() {
    let dir = tempfile::tempdir().unwrap();
    let mut cluster = cluster(dir.path()).await;
    let c = client();
    let sid = initialize_with(&c, &cluster.url(), LEGACY, json!({ "elicitation": {} })).await;
    let subscribe = json!({ "jsonrpc": "2.0", "id": 1, "method": "resources/subscribe",
                            "params": { "uri": "demo://readme" } });
    let (status, body, _) = send(&c, &cluster, &sid, &subscribe).await;
    assert_eq!(status, 200, "{body}");
    let get = c
        .get(cluster.url())
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", LEGACY)
        .send()
        .await
        .unwrap();
    let mut stream = Sse::new(get);
    assert_eq!(stream.next().await.expect("primed").data, "");

    cluster.redis.stop().await;
    // Each replica refuses a request of the session at once (two rounds of round-robin).
    let mut refused_by = BTreeSet::new();
    for id in 0..2 * REPLICAS as i64 {
        let started = Instant::now();
        let response = in_session(&c, &cluster.url(), &sid)
            .json(&json!({ "jsonrpc": "2.0", "id": 100 + id, "method": "ping" }))
            .send()
            .await
            .unwrap();
        let replica = served_by(&response);
        let retry_after = response.headers().get("retry-after").cloned();
        let (status, body, code) = outcome(response).await;
        let took = started.elapsed();
        assert!(took < FAST, "{replica} took {took:?} to refuse: {body}");
        assert_eq!(status, 503, "{replica}: {body}");
        assert_eq!(code, Some(-32012), "{replica}: {body}");
        assert_eq!(body["id"], 100 + id, "{body}");
        let message = body["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("Redis at redis://127.0.0.1:"), "{message}");
        assert!(retry_after.is_some(), "{replica}: 503 without Retry-After");
        refused_by.insert(replica);
    }
    assert_eq!(refused_by.len(), REPLICAS, "{refused_by:?}");
    // Nor does a session start, or a GET stream open, without the store: refused at once too.
    let started = Instant::now();
    let response = post(&c, &cluster.url())
        .json(&json!({ "jsonrpc": "2.0", "id": 7, "method": "initialize",
                       "params": { "protocolVersion": LEGACY, "capabilities": {},
                                   "clientInfo": { "name": "scale-out", "version": "1.0.0" } } }))
        .send()
        .await
        .unwrap();
    let replica = served_by(&response);
    let (status, body, code) = outcome(response).await;
    assert!(
        started.elapsed() < FAST,
        "initialize on {replica}: {:?}",
        started.elapsed()
    );
    assert_eq!(
        (status, code),
        (503, Some(-32012)),
        "initialize on {replica}: {body}"
    );
    let started = Instant::now();
    let response = c
        .get(cluster.url())
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", LEGACY)
        .send()
        .await
        .unwrap();
    let replica = served_by(&response);
    let (status, body, code) = outcome(response).await;
    assert!(
        started.elapsed() < FAST,
        "GET on {replica}: {:?}",
        started.elapsed()
    );
    assert_eq!(
        (status, code),
        (503, Some(-32012)),
        "GET on {replica}: {body}"
    );
    for replica in &cluster.replicas {
        let (status, health) = health(&c, replica).await;
        assert_eq!(status, 503, "{}: {health}", replica.name);
        assert_eq!(health["status"], "degraded", "{}: {health}", replica.name);
        assert_eq!(health["store"]["reachable"], false, "{health}");
        let error = health["store"]["error"].as_str().unwrap_or_default();
        assert!(error.contains("Redis"), "{}: {health}", replica.name);
    }
    // A 2026-07-28 request needs no session: served all along, on every replica.
    let mut served_by_all = BTreeSet::new();
    for id in 0..REPLICAS as i64 {
        let response = stateless(&c, &cluster.url(), 200 + id, "tools/call", call_params())
            .send()
            .await
            .unwrap();
        served_by_all.insert(served_by(&response));
        let (status, body, _) = outcome(response).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(text_of(&body), "hello", "{body}");
    }
    assert_eq!(served_by_all.len(), REPLICAS);

    // Redis comes back on its port with its data: each replica sees it by itself.
    cluster.redis.restart().await;
    for replica in &cluster.replicas {
        wait_for(
            &format!("{} healthy again", replica.name),
            WITHIN,
            || async {
                let (status, health) = health(&c, replica).await;
                (status == 200 && health["status"] == "ok").then_some(())
            },
        )
        .await;
    }
    // The same session goes on, on every replica…
    let mut served = BTreeSet::new();
    for id in 0..REPLICAS as i64 {
        let ping = json!({ "jsonrpc": "2.0", "id": 300 + id, "method": "ping" });
        let (status, body, replica) = send(&c, &cluster, &sid, &ping).await;
        assert_eq!(status, 200, "{replica} after the restart: {body}");
        served.insert(replica);
    }
    assert_eq!(served.len(), REPLICAS);
    // (and sessions start again)
    let other = initialize(&c, &cluster.url()).await;
    let deleted = c
        .delete(cluster.url())
        .header("mcp-session-id", &other)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 200);
    // …with the replicas relaying to each other again: an elicitation answered through
    // another replica, and updates from each replica on the GET stream that stayed open.
    greet_through_two_replicas(&c, &cluster, &sid, 400).await;
    for id in 0..REPLICAS as i64 {
        let (status, body, replica) =
            send(&c, &cluster, &sid, &call(500 + id, "touch", json!({}))).await;
        assert_eq!(status, 200, "{replica}: {body}");
        let update = tokio::time::timeout(Duration::from_secs(10), stream.message())
            .await
            .unwrap_or_else(|_| panic!("no update on the GET stream after a touch on {replica}"))
            .expect("the GET stream is open");
        assert_eq!(
            update.1["method"], "notifications/resources/updated",
            "{}",
            update.1
        );
    }

    // DELETE: nothing of the session is left in the store.
    let deleted = c
        .delete(cluster.url())
        .header("mcp-session-id", &sid)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 200);
    let replicas: Vec<_> = cluster.replicas.iter().collect();
    gone_everywhere(&c, &replicas, &sid).await;
    nothing_left_behind(&cluster).await;
}

fn call_params() -> Value {
    json!({ "name": "echo", "arguments": { "message": "hello" } })
}
