//! Three replicas of one server sharing their stateful sessions through a real
//! `redis-server` (`RedisSessionStore`), each request sent to the replica the test picks: a
//! session created on one is served by the others, what one replica's tool asks the client is
//! answered through another, a stream is resumed elsewhere, a change made on one reaches the
//! client's GET stream on another, and DELETE ends the session everywhere.

mod http_support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use http_support::*;
use mcp_server::schema::LoggingLevel;
use mcp_server::{
    HttpOptions, HttpServer, NoArguments, RedisOptions, RedisSessionStore, ResourceDef, Server,
    ServerOptions, TaskSupport, ToolDef,
};
use mcp_test_support::scale_out::Redis;
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Deserialize, schemars::JsonSchema)]
struct Echo {
    message: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Steps {
    steps: u32,
}

/// The server every replica runs (page size 1, so that a cursor is needed for page 2).
fn server() -> Server {
    let mut options = ServerOptions::default();
    options.page_size = 1;
    Server::builder("replica", "1.0.0")
        .options(options)
        .tool(
            "echo",
            "Echoes",
            |a: Echo, _cx| async move { Ok(a.message) },
        )
        .tool(
            "count",
            "Counts, with progress and a log line per step",
            |a: Steps, cx| async move {
                for i in 1..=a.steps {
                    cx.log(LoggingLevel::Debug, Some("count"), format!("step {i}"))
                        .await;
                    cx.progress(f64::from(i), Some(f64::from(a.steps)), None)
                        .await;
                    tokio::select! {
                        _ = tokio::time::sleep(Duration::from_millis(20)) => {}
                        _ = cx.cancelled() => return Err(mcp_server::Error::cancelled()),
                    }
                }
                Ok(format!("counted to {}", a.steps))
            },
        )
        .tool("greet", "Asks a name", |_: NoArguments, cx| async move {
            let schema = json!({
                "type": "object",
                "properties": { "name": { "type": "string" } },
                "required": ["name"]
            });
            let answer = cx.elicit_form("Your name?", schema).await?;
            let name = answer
                .content
                .and_then(|c| c.get("name").and_then(|v| serde_json::to_value(v).ok()))
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            Ok(format!("Hello, {name}!"))
        })
        .tool(
            "touch",
            "Updates res://x",
            |_: NoArguments, cx| async move {
                cx.server().notify_resource_updated("res://x");
                Ok("touched")
            },
        )
        .tool_def(
            ToolDef::new(
                "count_task",
                "Counts, as a task",
                |a: Steps, cx| async move {
                    for i in 1..=a.steps {
                        cx.progress(f64::from(i), Some(f64::from(a.steps)), None)
                            .await;
                        tokio::select! {
                            _ = tokio::time::sleep(Duration::from_millis(20)) => {}
                            _ = cx.cancelled() => return Err(mcp_server::Error::cancelled()),
                        }
                    }
                    Ok(format!("counted to {}", a.steps))
                },
            )
            .task_support(TaskSupport::Optional),
        )
        .resource(ResourceDef::text("res://x", "x", "text/plain", "x"))
        .build()
}

struct Replicas {
    redis: Redis,
    servers: Vec<Server>,
    http: Vec<HttpServer>,
    prefix: String,
    _dir: tempfile::TempDir,
}

impl Replicas {
    async fn start(n: usize) -> Self {
        Self::start_with(n, |_| {}).await
    }

    async fn start_with(n: usize, change: impl Fn(&mut HttpOptions)) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let redis = Redis::start(dir.path()).await;
        let prefix = format!("t{}", std::process::id());
        let mut servers = Vec::new();
        let mut http = Vec::new();
        for _ in 0..n {
            let server = server();
            let mut options = replica_options(&redis.url, &prefix);
            change(&mut options);
            http.push(start(&server, options).await);
            servers.push(server);
        }
        Self {
            redis,
            servers,
            http,
            prefix,
            _dir: dir,
        }
    }

    fn url(&self, i: usize) -> String {
        self.http[i].url()
    }

    /// Every key the store holds under this test's prefix.
    async fn keys(&self) -> Vec<String> {
        let client = redis::Client::open(self.redis.url.as_str()).unwrap();
        let mut conn = client.get_multiplexed_async_connection().await.unwrap();
        let mut keys: Vec<String> = redis::cmd("KEYS")
            .arg(format!("{}:*", self.prefix))
            .query_async(&mut conn)
            .await
            .unwrap();
        keys.sort();
        keys
    }
}

fn replica_options(url: &str, prefix: &str) -> HttpOptions {
    let mut redis = RedisOptions::default();
    redis.prefix = prefix.to_owned();
    redis.heartbeat = Duration::from_millis(200);
    let mut options = HttpOptions::default();
    options.session_store = Arc::new(RedisSessionStore::new(url, redis).unwrap());
    options.keep_alive = None;
    options
}

#[tokio::test]
async fn a_session_created_on_one_replica_is_served_by_the_others() {
    let r = Replicas::start(3).await;
    let c = client();
    let sid = initialize(&c, &r.url(0)).await;
    // A request on each replica, the session's state in step: page 1 on one replica, page 2
    // (its cursor signed with the shared key) on another.
    let (status, page1, _) = outcome(
        in_session(&c, &r.url(1), &sid)
            .json(&json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list" }))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{page1}");
    let cursor = page1["result"]["nextCursor"].as_str().expect("a next page");
    let (status, page2, _) = outcome(
        in_session(&c, &r.url(2), &sid)
            .json(&json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list",
                           "params": { "cursor": cursor } }))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{page2}");
    assert_ne!(page1["result"]["tools"], page2["result"]["tools"]);
    // The log level set on one replica is the level of a tool running on another.
    let (status, _, _) = outcome(
        in_session(&c, &r.url(1), &sid)
            .json(
                &json!({ "jsonrpc": "2.0", "id": 3, "method": "logging/setLevel",
                           "params": { "level": "debug" } }),
            )
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200);
    let response = in_session(&c, &r.url(0), &sid)
        .json(&call(4, "count", json!({ "steps": 1 })))
        .send()
        .await
        .unwrap();
    let mut sse = Sse::new(response);
    let (_, first) = sse.message().await.expect("the log line");
    assert_eq!(first["method"], "notifications/message", "{first}");
    // DELETE on one replica ends the session on all.
    let deleted = c
        .delete(r.url(2))
        .header("mcp-session-id", &sid)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 200);
    for i in 0..3 {
        let (status, _, _) = outcome(
            in_session(&c, &r.url(i), &sid)
                .json(&json!({ "jsonrpc": "2.0", "id": 5, "method": "ping" }))
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, 404, "replica {i} still serves a deleted session");
    }
    // Only what is not a session's is left: the heartbeats and the signing key (the stream of
    // the call above may still be written: wait for its session keys to go).
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let keys = r.keys().await;
        let session_keys: Vec<_> = keys.iter().filter(|k| k.contains(&sid)).collect();
        if session_keys.is_empty() {
            assert!(
                keys.iter()
                    .all(|k| k.contains(":replica:") || k.ends_with(":signing-key")),
                "{keys:?}"
            );
            break;
        }
        assert!(Instant::now() < deadline, "left behind: {session_keys:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn what_a_tool_asks_is_answered_through_another_replica() {
    let r = Replicas::start(3).await;
    let c = client();
    let sid = initialize_with(&c, &r.url(0), LEGACY, json!({ "elicitation": {} })).await;
    let response = in_session(&c, &r.url(0), &sid)
        .json(&call(1, "greet", json!({})))
        .send()
        .await
        .unwrap();
    let mut sse = Sse::new(response);
    let (_, ask) = sse.message().await.expect("the elicitation request");
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    let answer = json!({ "jsonrpc": "2.0", "id": ask["id"],
                         "result": { "action": "accept", "content": { "name": "Ada" } } });
    let posted = in_session(&c, &r.url(1), &sid)
        .json(&answer)
        .send()
        .await
        .unwrap();
    assert_eq!(posted.status(), 202);
    let (_, result) = sse.message().await.expect("the result");
    assert_eq!(text_of(&result), "Hello, Ada!");
    // An answer for a replica that is gone is refused, saying so.
    let orphan = json!({ "jsonrpc": "2.0", "id": "srv-0badc0de0000-0",
                         "result": { "action": "decline" } });
    let (status, body, code) = outcome(
        in_session(&c, &r.url(2), &sid)
            .json(&orphan)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!((status, code), (410, Some(-32603)), "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("replica 0badc0de0000"),
        "{body}"
    );

    // A cancellation sent to another replica reaches the call.
    let response = in_session(&c, &r.url(0), &sid)
        .json(&call(2, "count", json!({ "steps": 10_000 })))
        .send()
        .await
        .unwrap();
    let mut sse = Sse::new(response);
    sse.message().await.expect("the first progress");
    let cancel = json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
                         "params": { "requestId": 2 } });
    let posted = in_session(&c, &r.url(2), &sid)
        .json(&cancel)
        .send()
        .await
        .unwrap();
    assert_eq!(posted.status(), 202);
    let ended = tokio::time::timeout(Duration::from_secs(20), async {
        while let Some((_, message)) = sse.message().await {
            assert!(message.get("result").is_none(), "a cancelled call answered");
        }
    })
    .await;
    assert!(ended.is_ok(), "the call went on after its cancellation");
}

#[tokio::test]
async fn a_stream_is_resumed_on_another_replica() {
    let r = Replicas::start(2).await;
    let c = client();
    let sid = initialize(&c, &r.url(0)).await;
    let response = in_session(&c, &r.url(0), &sid)
        .json(&json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": { "name": "count", "arguments": { "steps": 5 },
                                   "_meta": { "progressToken": "p" } } }))
        .send()
        .await
        .unwrap();
    let mut sse = Sse::new(response);
    let id = loop {
        let (id, message) = sse.message().await.expect("the first progress");
        if message["method"] == "notifications/progress" {
            break id;
        }
    };
    drop(sse);
    let resumed = c
        .get(r.url(1))
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", LEGACY)
        .header("last-event-id", id.clone().unwrap())
        .send()
        .await
        .unwrap();
    let mut sse = Sse::new(resumed);
    let mut progress = Vec::new();
    let result = loop {
        let (_, message) = sse.message().await.expect("the rest of the stream");
        if message.get("result").is_some() {
            break message;
        }
        if message["method"] == "notifications/progress" {
            progress.push(message["params"]["progress"].as_f64().unwrap());
        }
    };
    assert_eq!(text_of(&result), "counted to 5");
    assert_eq!(
        progress,
        [2.0, 3.0, 4.0, 5.0],
        "every event after {id:?}, once"
    );
}

#[tokio::test]
async fn changes_made_on_one_replica_reach_the_get_stream_on_another() {
    let r = Replicas::start(3).await;
    let c = client();
    let sid = initialize(&c, &r.url(0)).await;
    let get = |i: usize, last: Option<String>| {
        let mut request = c
            .get(r.url(i))
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &sid)
            .header("mcp-protocol-version", LEGACY);
        if let Some(last) = last {
            request = request.header("last-event-id", last);
        }
        request.send()
    };
    let mut stream = Sse::new(get(0, None).await.unwrap());
    // Primed: the stream is attached before anything is announced.
    assert_eq!(stream.next().await.unwrap().data, "");
    let subscribe = json!({ "jsonrpc": "2.0", "id": 1, "method": "resources/subscribe",
                            "params": { "uri": "res://x" } });
    let (status, _, _) = outcome(
        in_session(&c, &r.url(1), &sid)
            .json(&subscribe)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200);
    let (status, _, _) = outcome(
        in_session(&c, &r.url(2), &sid)
            .json(&call(2, "touch", json!({})))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200);
    let (first_id, updated) = stream.message().await.expect("the update");
    assert_eq!(updated["method"], "notifications/resources/updated");
    assert_eq!(updated["params"]["uri"], "res://x");
    // A tool added on replica 2 is announced on replica 0's stream.
    r.servers[2].add_tool(ToolDef::new(
        "late",
        "Added while running",
        |_: NoArguments, _cx| async move { Ok("late") },
    ));
    let (_, changed) = stream.message().await.expect("the list change");
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    // The client moves its GET stream to replica 1, resuming after the first event: it gets
    // the second again, then what comes next, now sent by replica 1.
    drop(stream);
    let mut moved = Sse::new(get(1, first_id).await.unwrap());
    let (_, again) = moved.message().await.expect("the replayed event");
    assert_eq!(again["method"], "notifications/tools/list_changed");
    let (status, _, _) = outcome(
        in_session(&c, &r.url(2), &sid)
            .json(&call(3, "touch", json!({})))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200);
    let (_, next) = moved.message().await.expect("the next update");
    assert_eq!(next["method"], "notifications/resources/updated", "{next}");
}

#[tokio::test]
async fn without_redis_requests_fail_fast_and_service_comes_back() {
    let mut r = Replicas::start(2).await;
    let c = client();
    let sid = initialize(&c, &r.url(0)).await;
    r.redis.stop().await;
    let ping = json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" });
    for i in 0..2 {
        let started = Instant::now();
        let response = in_session(&c, &r.url(i), &sid)
            .json(&ping)
            .send()
            .await
            .unwrap();
        let retry_after = response.headers().get("retry-after").cloned();
        let (status, body, code) = outcome(response).await;
        assert_eq!(status, 503, "{body}");
        assert_eq!(code, Some(-32012), "{body}");
        assert!(
            body.to_string().contains("Redis at redis://127.0.0.1:"),
            "{body}"
        );
        assert!(retry_after.is_some());
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "took {:?}",
            started.elapsed()
        );
    }
    let health = c
        .get(format!(
            "{}/health",
            r.http[0].url().trim_end_matches("/mcp")
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 503);
    let health: Value = health.json().await.unwrap();
    assert_eq!(health["status"], "degraded", "{health}");
    assert_eq!(health["store"]["reachable"], false, "{health}");
    // A 2026-07-28 request needs no session: still served.
    let (status, body, _) = outcome(
        stateless(&c, &r.url(1), 7, "tools/list", json!({}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    r.redis.restart().await;
    // Service comes back by itself, with the same session (the store keeps an append-only
    // file).
    let deadline = Instant::now() + Duration::from_secs(20);
    for i in 0..2 {
        loop {
            let response = in_session(&c, &r.url(i), &sid)
                .json(&ping)
                .send()
                .await
                .unwrap();
            if response.status() == 200 {
                break;
            }
            assert!(Instant::now() < deadline, "replica {i} did not recover");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

#[tokio::test]
async fn an_idle_session_expires_on_every_replica() {
    let r = Replicas::start_with(2, |o| {
        o.session_idle_timeout = Duration::from_millis(400);
        o.session_sweep_interval = Duration::from_millis(50);
    })
    .await;
    let c = client();
    let sid = initialize(&c, &r.url(0)).await;
    let ping = json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" });
    let (status, _, _) = outcome(
        in_session(&c, &r.url(1), &sid)
            .json(&ping)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200);
    // Unused, it leaves both replicas' memory, then the store.
    for http in &r.http {
        http.sessions().wait_for_count(|n| n == 0).await;
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while r.keys().await.iter().any(|k| k.contains(&sid)) {
        assert!(
            Instant::now() < deadline,
            "the record outlived its idle timeout"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for i in 0..2 {
        let (status, _, _) = outcome(
            in_session(&c, &r.url(i), &sid)
                .json(&ping)
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, 404, "replica {i}");
    }
}

#[tokio::test]
async fn a_stream_whose_replica_is_gone_ends_with_an_error_for_its_request() {
    let r = Replicas::start(1).await;
    let c = client();
    let sid = initialize(&c, &r.url(0)).await;
    // Stream 77 as a replica that died mid-call left it: one event, no end, and no heartbeat
    // of its writer.
    let client = redis::Client::open(r.redis.url.as_str()).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let key = |what: &str| format!("{}:{{{sid}}}:{what}", r.prefix);
    let progress = json!({ "jsonrpc": "2.0", "method": "notifications/progress",
                           "params": { "progressToken": "p", "progress": 1 } });
    let () = redis::pipe()
        .hset(
            key("streams"),
            77,
            r#"{"owner":"deadbeef0000","request":"5"}"#,
        )
        .ignore()
        .cmd("XADD")
        .arg(key("ev:77"))
        .arg("0-1")
        .arg("m")
        .arg(progress.to_string())
        .ignore()
        .query_async(&mut conn)
        .await
        .unwrap();
    let resumed = c
        .get(r.url(0))
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", LEGACY)
        .header("last-event-id", "77-0")
        .send()
        .await
        .unwrap();
    let mut sse = Sse::new(resumed);
    let (id, first) = sse.message().await.expect("the stored event");
    assert_eq!((id.as_deref(), &first), (Some("77-1"), &progress));
    let (id, error) = sse.message().await.expect("the error for the request");
    assert_eq!(id.as_deref(), Some("77-2"));
    assert_eq!(error["id"], 5, "{error}");
    assert_eq!(error["error"]["code"], -32603, "{error}");
    assert!(sse.next().await.is_none(), "the stream ends after it");
}

/// A replica that stops records how its tasks ended, and the other replicas report it: a task
/// never stays `working` because its replica shut down.
#[tokio::test]
async fn a_replica_that_stops_ends_its_tasks_failed_for_the_others() {
    let mut replicas = Replicas::start(2).await;
    let c = client();
    let caps = json!({ "extensions": { "io.modelcontextprotocol/tasks": {} } });
    let mut params = json!({ "name": "count_task", "arguments": { "steps": 100_000 } });
    params["_meta"] = meta_with(caps.clone());
    let (_, handle, _) = outcome(
        stateless(&c, &replicas.url(0), 1, "tools/call", params)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(handle["result"]["resultType"], "task", "{handle}");
    let id = handle["result"]["taskId"].as_str().unwrap().to_owned();
    let get = |url: String| {
        let c = c.clone();
        let mut params = json!({ "taskId": id });
        params["_meta"] = meta_with(caps.clone());
        async move {
            let response = stateless(&c, &url, 2, "tasks/get", params)
                .send()
                .await
                .unwrap();
            outcome(response).await.1
        }
    };
    assert_eq!(get(replicas.url(1)).await["result"]["status"], "working");

    replicas.servers[0].shutdown();
    let stopped = replicas.http.remove(0);
    tokio::time::timeout(Duration::from_secs(20), stopped.wait())
        .await
        .expect("the replica stops within its grace")
        .expect("a clean stop");
    // The survivor is now replicas.url(0).
    let got = get(replicas.url(0)).await;
    assert_eq!(got["result"]["status"], "failed", "{got}");
    assert_eq!(
        got["result"]["statusMessage"],
        "the server stopped before the task finished"
    );
}
