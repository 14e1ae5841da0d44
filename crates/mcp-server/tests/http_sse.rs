//! SSE over streamable HTTP in the stateful era: a request whose handler reports progress is
//! answered with an event stream ending with the result; a stream whose connection dropped is
//! resumed with `Last-Event-ID`; the GET stream carries list changes; a request to the client
//! (elicitation) travels on the request's stream and the client's answer comes back as a POST.

mod http_support;
mod tools_support;

use std::sync::Arc;
use std::time::Duration;

use http_support::*;
use mcp_server::schemars::JsonSchema;
use mcp_server::{Bytes, EventStore, HttpOptions, MemoryEventStore, NoArguments, Server, ToolDef};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::{Notify, watch};

const WAIT: Duration = Duration::from_secs(10);

#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "mcp_server::schemars")]
struct Steps {
    count: u32,
}

/// An event store that says how many events were appended, so that a test can wait for
/// events to exist instead of sleeping.
struct CountingStore {
    inner: MemoryEventStore,
    appended: watch::Sender<usize>,
}

impl CountingStore {
    fn new() -> Arc<Self> {
        Arc::new(Self {
            inner: MemoryEventStore::default(),
            appended: watch::channel(0).0,
        })
    }

    async fn wait_for(&self, n: usize) {
        let mut rx = self.appended.subscribe();
        tokio::time::timeout(WAIT, rx.wait_for(|a| *a >= n))
            .await
            .expect("events appended in time")
            .expect("the store is alive");
    }
}

impl EventStore for CountingStore {
    fn append(&self, session: &str, stream: u64, seq: u64, message: Bytes) {
        self.inner.append(session, stream, seq, message);
        self.appended.send_modify(|n| *n += 1);
    }

    fn replay(&self, session: &str, stream: u64, after: u64) -> Option<Vec<(u64, Bytes)>> {
        self.inner.replay(session, stream, after)
    }

    fn remove_session(&self, session: &str) {
        self.inner.remove_session(session);
    }
}

fn server(gate: Arc<Notify>) -> Server {
    let builder = Server::builder("http-sse", "1.0.0")
        .tool(
            "steps",
            "Reports progress, then answers",
            |a: Steps, cx| async move {
                for i in 1..=a.count {
                    cx.progress(f64::from(i), Some(f64::from(a.count)), Some("step"))
                        .await;
                }
                Ok("done")
            },
        )
        .tool(
            "gate",
            "Reports progress, waits for the test, reports more",
            move |_: NoArguments, cx| {
                let gate = gate.clone();
                async move {
                    cx.progress(1.0, Some(3.0), None).await;
                    gate.notified().await;
                    cx.progress(2.0, Some(3.0), None).await;
                    cx.progress(3.0, Some(3.0), None).await;
                    Ok("gated")
                }
            },
        );
    tools_support::with_ask(builder).build()
}

fn call(id: i64, tool: &str, arguments: Value, token: Option<&str>) -> Value {
    let mut params = json!({ "name": tool, "arguments": arguments });
    if let Some(token) = token {
        params["_meta"] = json!({ "progressToken": token });
    }
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params })
}

#[tokio::test]
async fn progress_streams_as_events_then_the_result() {
    let server = server(Arc::new(Notify::new()));
    let http = start(&server, HttpOptions::default()).await;
    let url = http.url();
    let c = client();
    let sid = initialize(&c, &url).await;
    let response = in_session(&c, &url, &sid)
        .json(&call(1, "steps", json!({ "count": 3 }), Some("p")))
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["x-accel-buffering"], "no");
    let mut sse = Sse::new(response);
    // 2025-11-25: a priming event (an id, empty data) comes first.
    let priming = sse.next().await.expect("the priming event");
    assert!(
        priming.id.is_some() && priming.data.is_empty(),
        "{priming:?}"
    );
    let mut ids = vec![priming.id.unwrap()];
    for step in 1..=3 {
        let (id, message) = sse.message().await.expect("a progress event");
        assert_eq!(message["method"], "notifications/progress", "{message}");
        assert_eq!(message["params"]["progressToken"], "p");
        assert_eq!(
            message["params"]["progress"].as_f64(),
            Some(f64::from(step))
        );
        ids.push(id.expect("an event id"));
    }
    let (id, result) = sse.message().await.expect("the result");
    assert_eq!(result["id"], 1);
    assert_eq!(text_of(&result), "done");
    ids.push(id.expect("an event id"));
    assert!(
        sse.next().await.is_none(),
        "the stream ends after the result"
    );
    let distinct: std::collections::HashSet<&String> = ids.iter().collect();
    assert_eq!(distinct.len(), ids.len(), "event ids are unique: {ids:?}");

    // Without a progress token nothing precedes the result: one JSON body.
    let response = in_session(&c, &url, &sid)
        .json(&call(2, "steps", json!({ "count": 3 }), None))
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["content-type"], "application/json");
    let (_, body, _) = outcome(response).await;
    assert_eq!(text_of(&body), "done");
}

#[tokio::test]
async fn no_priming_event_before_2025_11_25() {
    let server = server(Arc::new(Notify::new()));
    let http = start(&server, HttpOptions::default()).await;
    let url = http.url();
    let c = client();
    let sid = initialize_with(&c, &url, "2025-06-18", json!({})).await;
    let response = post(&c, &url)
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", "2025-06-18")
        .json(&call(1, "steps", json!({ "count": 1 }), Some("p")))
        .send()
        .await
        .unwrap();
    let mut sse = Sse::new(response);
    let first = sse.next().await.expect("an event");
    assert!(
        !first.data.is_empty(),
        "no empty-data event for 2025-06-18 clients: {first:?}"
    );
    assert_eq!(first.json()["method"], "notifications/progress");
}

#[tokio::test]
async fn a_dropped_stream_is_resumed_with_last_event_id() {
    let gate = Arc::new(Notify::new());
    let server = server(gate.clone());
    let store = CountingStore::new();
    let mut options = HttpOptions::default();
    options.event_store = store.clone();
    let http = start(&server, options).await;
    let url = http.url();
    let c = client();
    let sid = initialize(&c, &url).await;
    let response = in_session(&c, &url, &sid)
        .json(&call(7, "gate", json!({}), Some("g")))
        .send()
        .await
        .unwrap();
    let mut sse = Sse::new(response);
    let (first_id, first) = sse.message().await.expect("the first progress");
    assert_eq!(first["params"]["progress"].as_f64(), Some(1.0));
    let first_id = first_id.expect("an event id");
    // The connection drops mid-stream; the request goes on (the stateful era does not cancel
    // on disconnect) and its events are kept.
    drop(sse);
    gate.notify_one();
    store.wait_for(4).await; // progress 1, 2, 3 and the result
    let response = c
        .get(&url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", LEGACY)
        .header("last-event-id", &first_id)
        .send()
        .await
        .unwrap();
    let mut replay = Sse::new(response);
    let mut seen = Vec::new();
    while let Some((id, message)) = replay.message().await {
        assert!(id.is_some(), "replayed events keep their ids");
        seen.push(message);
    }
    assert_eq!(seen.len(), 3, "{seen:?}");
    assert_eq!(seen[0]["params"]["progress"].as_f64(), Some(2.0));
    assert_eq!(seen[1]["params"]["progress"].as_f64(), Some(3.0));
    assert_eq!(seen[2]["id"], 7);
    assert_eq!(text_of(&seen[2]), "gated");

    // Resuming from the priming event replays everything; another session cannot.
    let priming = format!("{}-0", first_id.split('-').next().unwrap());
    let other = initialize(&c, &url).await;
    let response = c
        .get(&url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &other)
        .header("last-event-id", &priming)
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.status(),
        400,
        "another session's stream is not replayed"
    );
    let response = c
        .get(&url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .header("last-event-id", &priming)
        .send()
        .await
        .unwrap();
    let mut all = Sse::new(response);
    let mut count = 0;
    while all.message().await.is_some() {
        count += 1;
    }
    assert_eq!(count, 4);
}

#[tokio::test]
async fn the_get_stream_carries_list_changes_and_resumes() {
    let server = server(Arc::new(Notify::new()));
    let store = CountingStore::new();
    let mut options = HttpOptions::default();
    options.event_store = store.clone();
    let http = start(&server, options).await;
    let url = http.url();
    let c = client();
    let sid = initialize(&c, &url).await;
    let get = || {
        c.get(&url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &sid)
            .header("mcp-protocol-version", LEGACY)
    };
    let mut stream = Sse::new(get().send().await.unwrap());
    let priming = stream.next().await.expect("the priming event");
    assert!(
        priming.data.is_empty() && priming.id.is_some(),
        "{priming:?}"
    );
    let added = |name: &str| {
        ToolDef::new(name, "Added at run time", |_: NoArguments, _| async {
            Ok("new")
        })
    };
    server.add_tool(added("first"));
    let (id, message) = stream.message().await.expect("a list change");
    assert_eq!(
        message["method"], "notifications/tools/list_changed",
        "{message}"
    );
    let id = id.expect("an event id");

    // Disconnected: the next change is kept, and replayed on reconnection.
    drop(stream);
    server.add_tool(added("second"));
    store.wait_for(2).await;
    let mut resumed = Sse::new(get().header("last-event-id", &id).send().await.unwrap());
    let (replayed_id, message) = resumed.message().await.expect("the missed change");
    assert_eq!(message["method"], "notifications/tools/list_changed");
    assert_ne!(replayed_id.as_deref(), Some(id.as_str()));
    // … and the stream goes on live.
    server.add_tool(added("third"));
    let (_, message) = resumed.message().await.expect("a live change");
    assert_eq!(message["method"], "notifications/tools/list_changed");
    // Each message goes to one stream only: a new GET takes over and the old one ends.
    let mut newer = Sse::new(get().send().await.unwrap());
    newer.next().await.expect("priming");
    assert!(
        resumed.next().await.is_none(),
        "the replaced GET stream ends"
    );
    server.remove_tool("third");
    let (_, message) = newer.message().await.expect("a change on the new stream");
    assert_eq!(message["method"], "notifications/tools/list_changed");
}

#[tokio::test]
async fn elicitation_travels_on_the_request_stream() {
    let server = server(Arc::new(Notify::new()));
    let http = start(&server, HttpOptions::default()).await;
    let url = http.url();
    let c = client();
    let sid = initialize_with(&c, &url, LEGACY, json!({ "elicitation": {} })).await;
    let response = in_session(&c, &url, &sid)
        .json(&call(3, "ask", json!({}), None))
        .send()
        .await
        .unwrap();
    let mut sse = Sse::new(response);
    let (_, request) = sse.message().await.expect("the elicitation request");
    assert_eq!(request["method"], "elicitation/create", "{request}");
    let answer = json!({
        "jsonrpc": "2.0", "id": request["id"],
        "result": { "action": "accept", "content": { "name": "Ada" } },
    });
    let accepted = in_session(&c, &url, &sid)
        .json(&answer)
        .send()
        .await
        .unwrap();
    assert_eq!(accepted.status(), 202);
    let (_, result) = sse.message().await.expect("the tool result");
    assert_eq!(result["id"], 3);
    assert_eq!(text_of(&result), "hello \"Ada\"");
}
