//! Stateful sessions over streamable HTTP: ids, DELETE, idle expiry of many sessions (and
//! never of a busy one), and shutdown.

mod http_support;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_support::*;
use mcp_server::{HttpOptions, Server};
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(60);

fn server() -> Server {
    Server::builder("http-sessions", "1.0.0").build()
}

fn quick_expiry(idle: Duration) -> HttpOptions {
    let mut options = HttpOptions::default();
    options.session_idle_timeout = idle;
    options.session_sweep_interval = Duration::from_millis(20);
    options
}

#[tokio::test]
async fn delete_ends_a_session() {
    let server = server();
    let http = start(&server, HttpOptions::default()).await;
    let url = http.url();
    let c = client();
    let sid = initialize(&c, &url).await;
    assert_eq!(sid.len(), 32);
    assert!(
        sid.bytes().all(|b| (0x21..=0x7e).contains(&b)),
        "visible ASCII: {sid}"
    );
    assert_ne!(
        initialize(&c, &url).await,
        sid,
        "every initialize gets its own session"
    );
    assert_eq!(http.sessions().count(), 2);
    let deleted = c
        .delete(&url)
        .header("mcp-session-id", &sid)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 200);
    assert_eq!(http.sessions().count(), 1);
    let list = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list" });
    let (status, _, _) =
        outcome(in_session(&c, &url, &sid).json(&list).send().await.unwrap()).await;
    assert_eq!(status, 404, "a deleted session is gone");
    let again = c
        .delete(&url)
        .header("mcp-session-id", &sid)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 404);
}

#[tokio::test]
async fn ten_thousand_idle_sessions_expire() {
    const SESSIONS: usize = 10_000;
    const WORKERS: usize = 50;
    let server = server();
    let mut options = quick_expiry(Duration::from_millis(500));
    // One client opens them all.
    options.max_sessions_per_client = SESSIONS;
    let http = start(&server, options).await;
    let url = http.url();
    let ids = Arc::new(Mutex::new(HashSet::new()));
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..WORKERS {
        let (url, ids) = (url.clone(), ids.clone());
        workers.spawn(async move {
            let c = client();
            for _ in 0..SESSIONS / WORKERS {
                let response = post(&c, &url)
                    .json(
                        &json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                        "protocolVersion": LEGACY, "capabilities": {},
                        "clientInfo": { "name": "many", "version": "1" } } }),
                    )
                    .send()
                    .await
                    .expect("initialize");
                assert_eq!(response.status(), 200);
                let sid = response.headers()["mcp-session-id"]
                    .to_str()
                    .unwrap()
                    .to_owned();
                ids.lock().unwrap().insert(sid);
            }
        });
    }
    while let Some(done) = workers.join_next().await {
        done.expect("a worker");
    }
    let ids = std::mem::take(&mut *ids.lock().unwrap());
    assert_eq!(ids.len(), SESSIONS, "every session id is distinct");
    let left = tokio::time::timeout(WAIT, http.sessions().wait_for_count(|n| n == 0))
        .await
        .expect("every idle session expires");
    assert_eq!(left, 0);
    assert_eq!(http.sessions().count(), 0);
    let c = client();
    let some = ids.iter().next().unwrap();
    let list = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list" });
    let (status, _, _) =
        outcome(in_session(&c, &url, some).json(&list).send().await.unwrap()).await;
    assert_eq!(status, 404, "an expired session is gone");
}

#[tokio::test]
async fn a_session_with_an_open_stream_never_expires() {
    let server = server();
    // Long enough for the GET to open under a loaded test machine, short enough to wait for.
    let http = start(&server, quick_expiry(Duration::from_secs(1))).await;
    let url = http.url();
    let c = client();
    let busy = initialize(&c, &url).await;
    let stream = c
        .get(&url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &busy)
        .send()
        .await
        .unwrap();
    let mut stream = Sse::new(stream);
    stream.next().await.expect("the priming event");
    let idle = initialize(&c, &url).await;
    // The idle session expiring proves the sweep ran well after the busy one's timeout.
    tokio::time::timeout(WAIT, http.sessions().wait_for_count(|n| n == 1))
        .await
        .expect("the idle session expires");
    let list = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list" });
    let (status, _, _) = outcome(
        in_session(&c, &url, &idle)
            .json(&list)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 404);
    let (status, body, _) = outcome(
        in_session(&c, &url, &busy)
            .json(&list)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    // Once its stream closes, it expires too.
    drop(stream);
    tokio::time::timeout(WAIT, http.sessions().wait_for_count(|n| n == 0))
        .await
        .expect("the session expires once its stream closed");
}

#[tokio::test]
async fn shutdown_ends_streams_and_serving() {
    let server = server();
    let http = start(&server, HttpOptions::default()).await;
    let url = http.url();
    let c = client();
    let sid = initialize(&c, &url).await;
    let stream = c
        .get(&url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .send()
        .await
        .unwrap();
    let mut stream = Sse::new(stream);
    stream.next().await.expect("the priming event");
    let sessions = http.sessions().clone();
    server.shutdown();
    assert!(
        tokio::time::timeout(WAIT, stream.next())
            .await
            .expect("the GET stream ends")
            .is_none(),
        "no event after shutdown"
    );
    tokio::time::timeout(WAIT, http.wait())
        .await
        .expect("serving stops")
        .unwrap();
    assert_eq!(sessions.count(), 0, "every session ended");
    assert!(
        post(&c, &url).json(&json!({})).send().await.is_err(),
        "the listener is closed"
    );
}

/// `initialize` with its headers, from `client`, optionally with a bearer token; the status.
async fn try_initialize(client: &reqwest::Client, url: &str, token: Option<&str>) -> (u16, Value) {
    let mut request = post(client, url).json(&json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": { "protocolVersion": LEGACY, "capabilities": {},
                    "clientInfo": { "name": "quota", "version": "1" } },
    }));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// One client cannot take every session: past its quota it gets 429 saying so, while another
/// client (another source address; without authentication a client is its address) still
/// gets sessions.
#[tokio::test]
async fn one_client_cannot_take_every_session() {
    let server = Server::builder("quota", "1.0.0").build();
    let mut options = HttpOptions::default();
    options.max_sessions_per_client = 3;
    let http = start(&server, options).await;
    let url = http.url();
    let from = |ip: [u8; 4]| {
        reqwest::Client::builder()
            .no_proxy()
            .local_address(std::net::IpAddr::from(ip))
            .build()
            .unwrap()
    };
    let greedy = from([127, 0, 0, 1]);
    for _ in 0..3 {
        assert_eq!(try_initialize(&greedy, &url, None).await.0, 200);
    }
    let (status, body) = try_initialize(&greedy, &url, None).await;
    assert_eq!(status, 429, "{body}");
    assert_eq!(body["error"]["data"]["scope"], "client", "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("max_sessions_per_client")
    );
    let other = from([127, 0, 0, 2]);
    assert_eq!(try_initialize(&other, &url, None).await.0, 200);
    assert_eq!(http.sessions().count(), 4);
}

/// With authentication, a client is its principal: two tokens from one address have a quota
/// each.
#[tokio::test]
async fn with_authentication_the_quota_is_per_principal() {
    use mcp_server::auth::{Principal, StaticTokens};
    let server = Server::builder("quota", "1.0.0").build();
    let mut options = HttpOptions::default();
    options.max_sessions_per_client = 2;
    options.auth = Some(std::sync::Arc::new(
        StaticTokens::new()
            .token("t1", Principal::new("one", Vec::<String>::new()))
            .token("t2", Principal::new("two", Vec::<String>::new())),
    ));
    let http = start(&server, options).await;
    let url = http.url();
    let c = client();
    for _ in 0..2 {
        assert_eq!(try_initialize(&c, &url, Some("t1")).await.0, 200);
    }
    assert_eq!(try_initialize(&c, &url, Some("t1")).await.0, 429);
    assert_eq!(try_initialize(&c, &url, Some("t2")).await.0, 200);
}
