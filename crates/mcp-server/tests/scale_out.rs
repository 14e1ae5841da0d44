//! Scale-out (issue 16) with real processes: three replicas of the example server
//! (`example_server --http PORT`, `MCP_REDIS_URL` set) share their stateful sessions through a
//! real `redis-server`, behind a real `haproxy` that sends each request to the next replica in
//! turn (no stickiness). Here, first the ground (the balancer takes turns per request and routes
//! around a dead replica; the store stops and comes back), then an mcp-kit client running a
//! whole stateful session through the balancer, and going on while replicas die under it.
//!
//! The GET stream resumed elsewhere: `scale_out_streams.rs`; the SDK clients:
//! `scale_out_sdks.rs`; Redis stopped and restarted: `scale_out_redis.rs`.

mod scale_out_support;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::routing::get;
use mcp_kit::{
    Config, Manager, ServerConfig, ServerNotificationContext, ServerNotificationHandler,
    ServerRequestContext, ServerRequestHandler, ServerRequestOutcome, Session, TrustMode,
};
use mcp_test_support::scale_out::{Haproxy, Redis};
use scale_out_support::*;
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

/// A replica stand-in: answers `GET /who` with its name.
async fn backend(name: &'static str) -> (u16, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let app = Router::new().route("/who", get(move || async move { name }));
    let task = tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    (port, task)
}

#[tokio::test]
async fn the_balancer_takes_turns_per_request_and_routes_around_a_dead_replica() {
    let dir = tempfile::tempdir().unwrap();
    let (first, first_task) = backend("r1").await;
    let (second, _second_task) = backend("r2").await;
    let balancer = Haproxy::start(&[first, second], dir.path()).await;
    // One client, one kept-alive connection to the balancer.
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let who = || async {
        client
            .get(format!("{}/who", balancer.origin()))
            .timeout(Duration::from_secs(10))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    };
    let mut seen = Vec::new();
    for _ in 0..4 {
        seen.push(who().await);
    }
    assert!(
        seen == ["r1", "r2", "r1", "r2"] || seen == ["r2", "r1", "r2", "r1"],
        "each request goes to the next replica: {seen:?}"
    );
    // r1 goes away: its connections are refused, and the balancer retries on r2.
    first_task.abort();
    let _ = first_task.await;
    for _ in 0..4 {
        assert_eq!(who().await, "r2");
    }
}

#[tokio::test]
async fn the_store_answers_stops_and_comes_back_on_its_port() {
    let dir = tempfile::tempdir().unwrap();
    let mut redis = Redis::start(dir.path()).await;
    assert!(redis.ping().await);
    redis.stop().await;
    assert!(!redis.ping().await, "a stopped store does not answer");
    redis.restart().await;
    assert!(redis.ping().await);
    assert!(redis.url.starts_with("redis://127.0.0.1:"), "{}", redis.url);
}

/// What the server sends the client on its own: `(method, params)`.
type Notifications = mpsc::UnboundedReceiver<(String, Value)>;

/// An mcp-kit client of `url` pinned to 2025-11-25 (a stateful session), answering the
/// server's elicitations with the name Ada, its notifications in the receiver.
async fn open_kit(url: &str) -> (Session, Notifications) {
    let (tx, notifications) = mpsc::unbounded_channel();
    let notify: ServerNotificationHandler = Arc::new(move |cx: ServerNotificationContext| {
        let tx = tx.clone();
        Box::pin(async move {
            let _ = tx.send((cx.method, cx.params.unwrap_or_default()));
        })
    });
    let answer: ServerRequestHandler = Arc::new(|cx: ServerRequestContext| {
        Box::pin(async move {
            match cx.method.as_str() {
                "elicitation/create" => ServerRequestOutcome::Ok(
                    json!({"action": "accept", "content": {"name": "Ada"}}),
                ),
                _ => ServerRequestOutcome::MethodNotFound,
            }
        })
    });
    let config = Config::default().with_server("example", ServerConfig::streamable_http(url));
    let session = Manager::new(config, std::env::current_dir().unwrap())
        .with_client_info("scale-out", "1.0.0")
        .with_timeout(Duration::from_secs(30))
        .with_trust_mode(TrustMode::Trusted)
        .with_protocol_version(Some("2025-11-25".into()))
        .with_capabilities(json!({"elicitation": {}}))
        .with_server_request_handler(answer)
        .with_server_notification_handler(notify)
        .open("example")
        .await
        .expect("the session opens through the balancer");
    assert_eq!(session.protocol_version(), "2025-11-25");
    (session, notifications)
}

/// The session id the server gave the client.
fn session_id(session: &Session) -> String {
    session
        .peer()
        .handle()
        .session_id()
        .expect("a stateful session has an id")
}

/// The next `notifications/resources/updated` (other notifications skipped), within 10 s.
async fn next_update(notifications: &mut Notifications) -> Value {
    let update = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let (method, params) = notifications.recv().await.expect("the client is open");
            if method == "notifications/resources/updated" {
                return params;
            }
        }
    })
    .await;
    update.expect("a resource update reached the client within 10 s")
}

/// Calls `touch` (on whichever replica the balancer picks) and awaits the update it
/// announces, which reaches the client on its GET stream.
async fn touch_and_hear(session: &Session, notifications: &mut Notifications) {
    let touched = session.call_tool("touch", None).await.expect("touch");
    assert_eq!(touched.text_content(), "demo://readme changed");
    let update = next_update(notifications).await;
    assert_eq!(update["uri"], "demo://readme", "{update}");
}

fn arguments(value: Value) -> Option<Map<String, Value>> {
    value.as_object().cloned()
}

async fn greet(session: &Session) {
    let greeting = session.call_tool("greet", None).await.expect("greet");
    assert_eq!(greeting.text_content(), "Hello, Ada!");
}

#[tokio::test]
async fn a_kit_session_runs_whole_through_the_balancer() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = cluster(dir.path()).await;
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    let (session, mut notifications) = open_kit(&cluster.url()).await;
    let sid = session_id(&session);
    // The client opened its GET stream (on some replica): the store records who serves it.
    get_stream_owner(&cluster, &sid, &[]).await;

    let tools = session.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["echo", "add", "count", "greet", "touch"]);

    let (mut progress, call) =
        session.call_tool_with_progress("count", arguments(json!({"steps": 5})));
    let counted = call.await.unwrap();
    assert_eq!(counted.text_content(), "counted to 5");
    let mut seen = Vec::new();
    while let Ok(update) = progress.try_recv() {
        seen.push(update.progress.as_f64().unwrap());
    }
    assert_eq!(
        seen,
        [1.0, 2.0, 3.0, 4.0, 5.0],
        "every progress notification, in order"
    );

    // The elicitation is asked on the replica running `greet`; the client's answer is the next
    // request, which the balancer sends to the next replica: it is relayed to the asking one.
    greet(&session).await;

    // Subscribed on one replica; `touch` called three times in a row runs once on each replica
    // (round-robin), so at least two updates come from replicas other than the one holding
    // the client's GET stream: each reaches it.
    session.subscribe_resource("demo://readme").await.unwrap();
    for _ in 0..REPLICAS {
        touch_and_hear(&session, &mut notifications).await;
    }

    // Every replica served part of the session (each caches it now).
    let replicas: Vec<_> = cluster.replicas.iter().collect();
    sessions_everywhere(&http, &replicas, 1).await;

    // DELETE (on whichever replica): the session is gone from every replica and the store.
    session.close().await;
    gone_everywhere(&http, &replicas, &sid).await;
    sessions_everywhere(&http, &replicas, 0).await;
    nothing_left_behind(&cluster).await;
}

#[tokio::test]
async fn a_kit_session_goes_on_while_replicas_die_under_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut cluster = cluster(dir.path()).await;
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    let (session, mut notifications) = open_kit(&cluster.url()).await;
    let sid = session_id(&session);
    get_stream_owner(&cluster, &sid, &[]).await;
    session.subscribe_resource("demo://readme").await.unwrap();

    // A long call, in flight on one replica: the store says which (it writes the call's
    // stream). That replica dies.
    let mut dead = Vec::new();
    let failed = {
        let (mut progress, call) =
            session.call_tool_with_progress("count", arguments(json!({"steps": 100_000})));
        let mut call = std::pin::pin!(call);
        tokio::select! {
            first = progress.recv() => assert!(first.is_some(), "the call reports progress"),
            outcome = &mut call => panic!("a call of 100000 steps ended at once: {outcome:?}"),
        }
        let running: Vec<_> = cluster
            .streams(&sid)
            .await
            .into_iter()
            .filter(|s| s.request.is_some())
            .collect();
        assert_eq!(running.len(), 1, "one call in flight: {running:?}");
        let victim = cluster.with_id(&running[0].owner).name.clone();
        dead.push(running[0].owner.clone());
        cluster.kill(&victim).await;
        tokio::time::timeout(Duration::from_secs(30), call)
            .await
            .expect("the call in flight on the dead replica ends")
            .expect_err("a call whose replica died cannot succeed")
    };
    // The call fails, and says why: the client resumed its stream on another replica, which
    // found the writer gone.
    let error = failed.rpc_error().unwrap_or_else(|| panic!("{failed}"));
    assert_eq!(error.code, -32603, "{failed}");
    assert!(
        error.message.contains("stopped before it finished"),
        "{failed}"
    );

    // The session goes on through the two replicas left: calls (two on each), an elicitation
    // answered through the other one, updates on the GET stream (resumed elsewhere by the
    // client if it was on the dead replica).
    for i in 0..4 {
        let echoed = session
            .call_tool("echo", arguments(json!({"message": format!("after {i}")})))
            .await
            .expect("a call after the replica died");
        assert_eq!(echoed.text_content(), format!("after {i}"));
    }
    greet(&session).await;
    let owner = get_stream_owner(&cluster, &sid, &refs(&dead)).await;
    touch_and_hear(&session, &mut notifications).await;
    touch_and_hear(&session, &mut notifications).await;

    // Then the replica holding the GET stream dies too: the client resumes it on the last
    // one, where updates keep reaching it, and the session is served there alone.
    let (owner_id, owner_name) = (owner.id.clone(), owner.name.clone());
    dead.push(owner_id);
    cluster.kill(&owner_name).await;
    let last = get_stream_owner(&cluster, &sid, &refs(&dead))
        .await
        .name
        .clone();
    touch_and_hear(&session, &mut notifications).await;
    greet(&session).await;
    let added = session
        .call_tool("add", arguments(json!({"a": 2, "b": 40})))
        .await
        .unwrap();
    assert_eq!(added.structured_content.unwrap(), json!({"sum": 42.0}));

    session.close().await;
    gone_everywhere(&http, &[cluster.named(&last)], &sid).await;
    nothing_left_behind(&cluster).await;
}

fn refs(ids: &[String]) -> Vec<&str> {
    ids.iter().map(String::as_str).collect()
}
