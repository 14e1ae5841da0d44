//! Scale-out (issue 16) with real processes, raw HTTP through `haproxy` (round-robin, no
//! stickiness) in front of three example servers sharing their sessions through a real
//! `redis-server`: SSE streams dropped by the client and resumed with `Last-Event-ID` on
//! another replica than the one that wrote them. The balancer names the replica of each
//! response (`SERVED_BY`), so each test proves where every step ran.

mod http_support;
mod scale_out_support;

use std::time::Duration;

use http_support::{LEGACY, Sse, call, client, in_session, initialize, outcome, post, text_of};
use mcp_test_support::scale_out::Cluster;
use reqwest::Client;
use scale_out_support::*;
use serde_json::{Value, json};

/// A stateful request through the balancer, answered with JSON: the body, and the replica
/// that answered.
async fn ask(c: &Client, cluster: &Cluster, sid: &str, message: &Value) -> (Value, String) {
    let response = in_session(c, &cluster.url(), sid)
        .json(message)
        .send()
        .await
        .unwrap();
    let replica = served_by(&response);
    let (status, body, _) = outcome(response).await;
    assert_eq!(status, 200, "{replica}: {body}");
    (body, replica)
}

/// The session's GET stream through the balancer (resuming after `last` when given), and the
/// replica serving it.
async fn get_stream(c: &Client, cluster: &Cluster, sid: &str, last: Option<&str>) -> (Sse, String) {
    let mut request = c
        .get(cluster.url())
        .header("accept", "text/event-stream")
        .header("mcp-session-id", sid)
        .header("mcp-protocol-version", LEGACY);
    if let Some(last) = last {
        request = request.header("last-event-id", last);
    }
    let response = request.send().await.unwrap();
    let replica = served_by(&response);
    (Sse::new(response), replica)
}

/// The number of the newest event of the session's GET stream in the store (0: none yet).
async fn stored_get_events(cluster: &Cluster, sid: &str) -> u64 {
    let key = format!("mcp:{{{sid}}}:ev:0");
    let newest = cluster
        .redis
        .command(&["XREVRANGE", &key, "+", "-", "COUNT", "1"])
        .await
        .strings();
    newest
        .first()
        .and_then(|id| id.strip_prefix("0-"))
        .and_then(|seq| seq.parse().ok())
        .unwrap_or(0)
}

#[tokio::test]
async fn the_get_stream_is_resumed_on_another_replica() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = cluster(dir.path()).await;
    let c = client();
    let sid = initialize(&c, &cluster.url()).await;
    let subscribe = json!({ "jsonrpc": "2.0", "id": 1, "method": "resources/subscribe",
                            "params": { "uri": "demo://readme" } });
    ask(&c, &cluster, &sid, &subscribe).await;

    let (mut stream, first) = get_stream(&c, &cluster, &sid, None).await;
    let primed = stream.next().await.expect("the priming event");
    assert_eq!(primed.data, "", "{primed:?}");
    // An update announced by each replica in turn reaches the stream on `first`.
    let mut ids = Vec::new();
    let mut touched_on = Vec::new();
    for i in 0..REPLICAS {
        let (_, replica) = ask(&c, &cluster, &sid, &call(10 + i as i64, "touch", json!({}))).await;
        touched_on.push(replica);
        let (id, update) = stream.message().await.expect("the update");
        assert_eq!(
            update["method"], "notifications/resources/updated",
            "{update}"
        );
        assert_eq!(update["params"]["uri"], "demo://readme", "{update}");
        ids.push(id.expect("a resumable event has an id"));
    }
    touched_on.sort();
    assert_eq!(
        touched_on,
        ["r1", "r2", "r3"],
        "round-robin: one touch per replica"
    );

    // The client drops the stream and two more updates come meanwhile: `first` still writes
    // them (to the store).
    drop(stream);
    for i in 0..2 {
        ask(&c, &cluster, &sid, &call(20 + i, "touch", json!({}))).await;
    }
    let written = wait_for_stored_events(&cluster, &sid, REPLICAS as u64 + 2).await;
    assert_eq!(written, REPLICAS as u64 + 2);

    // It comes back on another replica with the Last-Event-ID of the first update (as if the
    // next two had been lost in transit): every event after it, once, in order (ids
    // included), then what comes next, sent from there.
    turn_past(&c, &cluster, &first).await;
    let (mut resumed, second) = get_stream(&c, &cluster, &sid, Some(&ids[0])).await;
    assert_ne!(second, first, "the resumption landed on another replica");
    let mut replayed = Vec::new();
    for _ in 0..REPLICAS + 1 {
        let (id, update) = resumed.message().await.expect("a replayed update");
        assert_eq!(
            update["method"], "notifications/resources/updated",
            "{update}"
        );
        replayed.push(id.expect("an id"));
    }
    let expected: Vec<String> = (2..=REPLICAS as u64 + 2)
        .map(|n| format!("0-{n}"))
        .collect();
    assert_eq!(
        ids[1..],
        expected[..REPLICAS - 1],
        "the ids before the drop"
    );
    assert_eq!(
        replayed, expected,
        "after {}: each later event once, in order",
        ids[0]
    );
    ask(&c, &cluster, &sid, &call(30, "touch", json!({}))).await;
    let (id, update) = resumed.message().await.expect("an update after the move");
    assert_eq!(
        update["method"], "notifications/resources/updated",
        "{update}"
    );
    assert_eq!(id.as_deref(), Some(&*format!("0-{}", REPLICAS + 3)));

    // DELETE: the stream ends, the session is gone from every replica and from the store.
    let deleted = c
        .delete(cluster.url())
        .header("mcp-session-id", &sid)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 200);
    assert!(
        resumed.next().await.is_none(),
        "the GET stream ends with its session"
    );
    let replicas: Vec<_> = cluster.replicas.iter().collect();
    gone_everywhere(&c, &replicas, &sid).await;
    nothing_left_behind(&cluster).await;
}

/// The client moves its GET stream at once, as a client does after a dropped connection:
/// it does not wait for anything to reach the store first. An update announced before it
/// resumes (the `touch` that announced it was answered) must reach it, replayed or sent live
/// by the replica it moved to.
#[tokio::test]
async fn an_update_announced_while_the_client_moves_its_get_stream_reaches_it() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = cluster(dir.path()).await;
    let c = client();
    let sid = initialize(&c, &cluster.url()).await;
    let subscribe = json!({ "jsonrpc": "2.0", "id": 1, "method": "resources/subscribe",
                            "params": { "uri": "demo://readme" } });
    ask(&c, &cluster, &sid, &subscribe).await;
    let (mut stream, mut holder) = get_stream(&c, &cluster, &sid, None).await;
    assert_eq!(stream.next().await.expect("primed").data, "");
    ask(&c, &cluster, &sid, &call(2, "touch", json!({}))).await;
    let (id, _) = stream.message().await.expect("the first update");
    let mut last = id.expect("an event id");
    for round in 0..20 {
        // Dropped; the next request (`touch`) goes to the replica after `holder`, and the
        // resumption to the one after that.
        drop(stream);
        turn_past(&c, &cluster, &holder).await;
        let (_, touched_on) = ask(&c, &cluster, &sid, &call(10 + round, "touch", json!({}))).await;
        let (resumed, moved_to) = get_stream(&c, &cluster, &sid, Some(&last)).await;
        assert_ne!(moved_to, holder, "the resumption landed on another replica");
        stream = resumed;
        let heard = tokio::time::timeout(Duration::from_secs(5), stream.message()).await;
        let Ok(Some((id, update))) = heard else {
            let key = format!("mcp:{{{sid}}}:ev:0");
            let stored = cluster.redis.command(&["XRANGE", &key, "-", "+"]).await;
            panic!(
                "round {round}: the update `touch` announced on {touched_on} while the client \
                 moved its GET stream from {holder} to {moved_to} (Last-Event-ID {last}) never \
                 reached the client (5 s). The store holds: {stored:?}"
            );
        };
        assert_eq!(
            update["method"], "notifications/resources/updated",
            "{update}"
        );
        last = id.expect("an event id");
        holder = moved_to;
    }
    let deleted = c
        .delete(cluster.url())
        .header("mcp-session-id", &sid)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 200);
    nothing_left_behind(&cluster).await;
}

/// Waits until the store holds `count` events of the session's GET stream.
async fn wait_for_stored_events(cluster: &Cluster, sid: &str, count: u64) -> u64 {
    mcp_test_support::scale_out::wait_for(
        &format!("{count} events of the GET stream in the store"),
        WITHIN,
        || async {
            let stored = stored_get_events(cluster, sid).await;
            (stored >= count).then_some(stored)
        },
    )
    .await
}

#[tokio::test]
async fn a_call_s_stream_is_resumed_on_another_replica_while_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = cluster(dir.path()).await;
    let c = client();
    let sid = initialize(&c, &cluster.url()).await;
    let response = in_session(&c, &cluster.url(), &sid)
        .json(&json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": { "name": "count", "arguments": { "steps": 50 },
                                   "_meta": { "progressToken": "p" } } }))
        .send()
        .await
        .unwrap();
    let running_on = served_by(&response);
    let mut sse = Sse::new(response);
    // The tool sends a log line after each progress notification (no level was set).
    let (id, first) = sse.message().await.expect("the first progress");
    assert_eq!(first["method"], "notifications/progress", "{first}");
    assert_eq!(first["params"]["progress"], 1.0, "{first}");
    drop(sse);

    // Resumed on another replica while `running_on` still runs the call: the rest of its
    // progress, once and in order, then its result.
    turn_past(&c, &cluster, &running_on).await;
    let resumed = c
        .get(cluster.url())
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", LEGACY)
        .header("last-event-id", id.clone().unwrap())
        .send()
        .await
        .unwrap();
    assert_ne!(
        served_by(&resumed),
        running_on,
        "resumed on another replica"
    );
    let mut sse = Sse::new(resumed);
    let mut progress = Vec::new();
    let mut logged = Vec::new();
    let result = loop {
        let (_, message) = sse.message().await.expect("the rest of the stream");
        if message.get("result").is_some() {
            break message;
        }
        match message["method"].as_str() {
            Some("notifications/progress") => {
                progress.push(message["params"]["progress"].as_f64().unwrap());
            }
            Some("notifications/message") => logged.push(message["params"]["data"].clone()),
            _ => panic!("an unexpected message: {message}"),
        }
    };
    assert_eq!(text_of(&result), "counted to 50");
    let expected: Vec<f64> = (2..=50).map(f64::from).collect();
    assert_eq!(progress, expected, "every event after {id:?}, once");
    let steps: Vec<Value> = (1..=50).map(|i| json!(format!("step {i}"))).collect();
    assert_eq!(
        logged, steps,
        "the log line of each step, once (step 1 after the drop)"
    );

    let pinged = post(&c, &cluster.url())
        .header("mcp-session-id", &sid)
        .json(&json!({ "jsonrpc": "2.0", "id": 2, "method": "ping" }))
        .send()
        .await
        .unwrap();
    assert_eq!(pinged.status(), 200, "the session is still there");
    let deleted = c
        .delete(cluster.url())
        .header("mcp-session-id", &sid)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 200);
    nothing_left_behind(&cluster).await;
}
