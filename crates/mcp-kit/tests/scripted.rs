//! Protocol behaviour against a peer the test scripts line by line over a real socket pair:
//! era negotiation and its fallbacks, 2026-07-28 per-request metadata, multi round-trip
//! requests, subscriptions, and cancellation on timeout or when a call is dropped.

use std::sync::Arc;
use std::time::Duration;

use mcp_kit::{Error, Manager, ServerRequestContext, ServerRequestOutcome, Session};
use mcp_schema::Era;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::net::UnixStream;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::time::timeout;

const WAIT: Duration = Duration::from_secs(10);

struct Peer {
    lines: Lines<BufReader<OwnedReadHalf>>,
    write: OwnedWriteHalf,
}

impl Peer {
    async fn recv(&mut self) -> Value {
        let line = timeout(WAIT, self.lines.next_line())
            .await
            .expect("the client sent nothing")
            .expect("read")
            .expect("the client closed the connection");
        serde_json::from_str(&line).expect("the client sends JSON")
    }

    async fn send(&mut self, value: Value) {
        self.write
            .write_all(format!("{value}\n").as_bytes())
            .await
            .expect("write");
    }

    async fn reply(&mut self, request: &Value, result: Value) {
        self.send(json!({ "jsonrpc": "2.0", "id": request["id"], "result": result }))
            .await;
    }

    async fn reply_error(
        &mut self,
        request: &Value,
        code: i64,
        message: &str,
        data: Option<Value>,
    ) {
        let mut error = json!({ "code": code, "message": message });
        if let Some(data) = data {
            error["data"] = data;
        }
        self.send(json!({ "jsonrpc": "2.0", "id": request["id"], "error": error }))
            .await;
    }

    /// Plays a 2026-07-28 server's side of the handshake.
    async fn accept_discover(&mut self) {
        let discover = self.recv().await;
        assert_eq!(discover["method"], "server/discover");
        self.reply(
            &discover,
            json!({ "supportedVersions": ["2026-07-28"], "capabilities": { "tools": {} }, "resultType": "complete",
                    "_meta": { "io.modelcontextprotocol/serverInfo": { "name": "scripted", "version": "1" } } }),
        )
        .await;
    }

    /// Plays a legacy server's side: refuses discover, then initialize.
    async fn accept_initialize(&mut self, answer_version: &str) -> Value {
        let discover = self.recv().await;
        assert_eq!(discover["method"], "server/discover");
        self.reply_error(&discover, -32601, "Method not found", None)
            .await;
        let init = self.recv().await;
        assert_eq!(init["method"], "initialize");
        self.reply(
            &init,
            json!({ "protocolVersion": answer_version, "capabilities": {}, "serverInfo": { "name": "legacy", "version": "1" } }),
        )
        .await;
        let initialized = self.recv().await;
        assert_eq!(initialized["method"], "notifications/initialized");
        init
    }
}

/// Starts the handshake over a socket pair; the test plays the server's side.
async fn connect(manager: Manager) -> (tokio::task::JoinHandle<Result<Session, Error>>, Peer) {
    let (ours, theirs) = UnixStream::pair().unwrap();
    let (read, write) = ours.into_split();
    let session = tokio::spawn(async move { manager.open_io("scripted", read, write).await });
    let (read, write) = theirs.into_split();
    (
        session,
        Peer {
            lines: BufReader::new(read).lines(),
            write,
        },
    )
}

fn recipe() -> Manager {
    Manager::default()
        .with_client_info("scripted-tests", "1.0.0")
        .with_timeout(Duration::from_millis(500))
        .with_capabilities(json!({ "elicitation": { "form": {} } }))
        .with_server_request_handler(Arc::new(|ctx: ServerRequestContext| {
            Box::pin(async move {
                match ctx.method.as_str() {
                    "elicitation/create" => ServerRequestOutcome::Ok(
                        json!({ "action": "accept", "content": { "name": "octocat" } }),
                    ),
                    _ => ServerRequestOutcome::MethodNotFound,
                }
            }) as _
        }))
}

async fn established(session: tokio::task::JoinHandle<Result<Session, Error>>) -> Session {
    timeout(WAIT, session)
        .await
        .expect("handshake in time")
        .expect("task")
        .expect("handshake")
}

#[tokio::test]
async fn legacy_servers_get_initialize_after_a_refused_discover() {
    let (session, mut peer) = connect(recipe()).await;
    let init = peer.accept_initialize("2025-06-18").await;
    assert_eq!(init["params"]["protocolVersion"], "2025-11-25");
    assert_eq!(init["params"]["clientInfo"]["name"], "scripted-tests");
    assert!(init["params"]["capabilities"]["elicitation"].is_object());
    let session = established(session).await;
    assert_eq!(
        (session.negotiated().era(), session.protocol_version()),
        (Era::Stateful, "2025-06-18")
    );
    // No per-request metadata in the stateful era.
    let call = tokio::spawn(async move { session.request("tools/list", None).await });
    let list = peer.recv().await;
    assert!(list.get("params").is_none(), "{list}");
    peer.reply(&list, json!({ "tools": [] })).await;
    timeout(WAIT, call).await.unwrap().unwrap().unwrap();
}

#[tokio::test]
async fn a_version_the_client_does_not_speak_is_an_error() {
    let (session, mut peer) = connect(recipe()).await;
    let discover = peer.recv().await;
    peer.reply_error(&discover, -32601, "Method not found", None)
        .await;
    let init = peer.recv().await;
    peer.reply(&init, json!({ "protocolVersion": "1999-01-01", "capabilities": {}, "serverInfo": { "name": "s", "version": "1" } }))
        .await;
    let error = timeout(WAIT, session)
        .await
        .unwrap()
        .unwrap()
        .expect_err("refused");
    assert!(error.to_string().contains("`1999-01-01`"), "{error}");
}

#[tokio::test]
async fn an_unsupported_version_error_steers_the_choice() {
    let (session, mut peer) = connect(recipe()).await;
    let discover = peer.recv().await;
    peer.reply_error(
        &discover,
        -32022,
        "Unsupported protocol version",
        Some(json!({ "supported": ["2025-06-18"], "requested": "2026-07-28" })),
    )
    .await;
    let init = peer.recv().await;
    assert_eq!(
        (
            init["method"].as_str(),
            init["params"]["protocolVersion"].as_str()
        ),
        (Some("initialize"), Some("2025-06-18"))
    );
    peer.reply(&init, json!({ "protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": { "name": "s", "version": "1" } })).await;
    assert_eq!(peer.recv().await["method"], "notifications/initialized");
    assert_eq!(established(session).await.protocol_version(), "2025-06-18");
}

#[tokio::test]
async fn a_silent_server_is_taken_for_a_legacy_one() {
    let (session, mut peer) = connect(recipe()).await;
    let discover = peer.recv().await;
    assert_eq!(discover["method"], "server/discover");
    // No answer: after the probe times out (here the 500 ms session timeout), initialize.
    let init = peer.recv().await;
    assert_eq!(init["method"], "initialize");
    peer.reply(&init, json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": { "name": "s", "version": "1" } })).await;
    assert_eq!(established(session).await.negotiated().era(), Era::Stateful);
}

#[tokio::test]
async fn a_pinned_modern_version_never_falls_back() {
    let (session, mut peer) =
        connect(recipe().with_protocol_version(Some("2026-07-28".into()))).await;
    let discover = peer.recv().await;
    peer.reply_error(&discover, -32601, "Method not found", None)
        .await;
    let error = timeout(WAIT, session)
        .await
        .unwrap()
        .unwrap()
        .expect_err("no fallback");
    assert_eq!(error.rpc_error().map(|e| e.code), Some(-32601), "{error}");
}

#[tokio::test]
async fn modern_requests_carry_their_metadata_and_input_requests_are_answered() {
    let (session, mut peer) = connect(recipe()).await;
    peer.accept_discover().await;
    let session = established(session).await;
    assert_eq!(session.negotiated().era(), Era::Stateless);
    let call = tokio::spawn(async move {
        session
            .call_tool("login", json!({ "service": "github" }).as_object().cloned())
            .await
    });

    // First attempt: the server needs input.
    let first = peer.recv().await;
    let meta = &first["params"]["_meta"];
    assert_eq!(
        meta["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    assert_eq!(
        meta["io.modelcontextprotocol/clientInfo"]["name"],
        "scripted-tests"
    );
    assert!(meta["io.modelcontextprotocol/clientCapabilities"]["elicitation"].is_object());
    peer.reply(
        &first,
        json!({ "resultType": "input_required", "requestState": "opaque-1",
                "inputRequests": { "who": { "method": "elicitation/create",
                    "params": { "mode": "form", "message": "GitHub user?", "requestedSchema": { "type": "object", "properties": { "name": { "type": "string" } } } } } } }),
    )
    .await;

    // The retry: a new id, the original params, the answers, the state echoed exactly.
    let retry = peer.recv().await;
    assert_ne!(retry["id"], first["id"]);
    assert_eq!(retry["params"]["name"], "login");
    assert_eq!(retry["params"]["arguments"], json!({ "service": "github" }));
    assert_eq!(retry["params"]["requestState"], "opaque-1");
    assert_eq!(
        retry["params"]["inputResponses"]["who"],
        json!({ "action": "accept", "content": { "name": "octocat" } })
    );

    // Second round: only state, no requests; the next retry must not repeat old answers.
    peer.reply(
        &retry,
        json!({ "resultType": "input_required", "requestState": "opaque-2" }),
    )
    .await;
    let again = peer.recv().await;
    assert_eq!(again["params"]["requestState"], "opaque-2");
    assert!(again["params"].get("inputResponses").is_none(), "{again}");
    peer.reply(&again, json!({ "resultType": "complete", "content": [{ "type": "text", "text": "welcome octocat" }] })).await;
    let result = timeout(WAIT, call)
        .await
        .unwrap()
        .unwrap()
        .expect("tools/call");
    assert_eq!(
        serde_json::to_value(&result.content).unwrap()[0]["text"],
        "welcome octocat"
    );
}

#[tokio::test]
async fn an_input_request_nobody_can_answer_is_a_clear_error() {
    let (session, mut peer) = connect(recipe()).await;
    peer.accept_discover().await;
    let session = established(session).await;
    let call = tokio::spawn(async move {
        session
            .request("prompts/get", Some(json!({ "name": "p" })))
            .await
    });
    let first = peer.recv().await;
    peer.reply(&first, json!({ "resultType": "input_required", "inputRequests": { "llm": { "method": "sampling/createMessage", "params": { "messages": [], "maxTokens": 5 } } } }))
        .await;
    let error = timeout(WAIT, call)
        .await
        .unwrap()
        .unwrap()
        .expect_err("no sampling handler");
    let message = error.to_string();
    assert!(
        message.contains("`llm`") && message.contains("sampling/createMessage"),
        "{message}"
    );
}

#[tokio::test]
async fn a_timeout_sends_cancelled_and_so_does_a_dropped_call() {
    let (session, mut peer) = connect(recipe()).await;
    peer.accept_initialize("2025-11-25").await;
    let session = Arc::new(established(session).await);

    let s = session.clone();
    let call = tokio::spawn(async move {
        s.request("tools/call", Some(json!({ "name": "slow" })))
            .await
    });
    let request = peer.recv().await;
    let cancelled = peer.recv().await; // arrives once the 500 ms timeout fires
    assert_eq!(cancelled["method"], "notifications/cancelled");
    assert_eq!(cancelled["params"]["requestId"], request["id"]);
    assert_eq!(cancelled["params"]["reason"], "timeout");
    let error = call.await.unwrap().expect_err("timed out");
    assert!(
        error
            .to_string()
            .starts_with("mcp request timed out: tools/call"),
        "{error}"
    );

    let s = session.clone();
    let call = tokio::spawn(async move {
        s.request("tools/call", Some(json!({ "name": "slow" })))
            .await
    });
    let request = peer.recv().await;
    call.abort();
    let cancelled = peer.recv().await;
    assert_eq!(cancelled["method"], "notifications/cancelled");
    assert_eq!(cancelled["params"]["requestId"], request["id"]);
}

#[tokio::test]
async fn progress_arrives_as_a_stream_for_its_own_call_only() {
    let (session, mut peer) = connect(recipe()).await;
    peer.accept_initialize("2025-11-25").await;
    let session = Arc::new(established(session).await);
    let s = session.clone();
    let (mut progress, call) = {
        let (progress, call) = s.call_tool_with_progress("work", None);
        // The call borrows the session; keep both in this task.
        (progress, Box::pin(call))
    };
    let script = async {
        let request = peer.recv().await;
        let token = request["params"]["_meta"]["progressToken"].clone();
        assert!(token.is_string(), "{request}");
        for n in 1..=3 {
            peer.send(json!({ "jsonrpc": "2.0", "method": "notifications/progress", "params": { "progressToken": token, "progress": n, "total": 3 } })).await;
        }
        // Progress for some other token is not this call's.
        peer.send(json!({ "jsonrpc": "2.0", "method": "notifications/progress", "params": { "progressToken": "other", "progress": 9 } })).await;
        peer.reply(&request, json!({ "content": [] })).await;
    };
    let (result, ()) = tokio::join!(call, script);
    result.expect("call");
    let mut seen = Vec::new();
    while let Ok(update) = progress.try_recv() {
        seen.push(update.progress.as_f64().unwrap());
    }
    assert_eq!(seen, [1.0, 2.0, 3.0]);
}

#[tokio::test]
async fn subscriptions_are_acknowledged_routed_and_cancelled_on_drop() {
    let (session, mut peer) = connect(recipe()).await;
    peer.accept_discover().await;
    let session = established(session).await;
    let subscribe = tokio::spawn(async move {
        let subscription = session.subscribe(json!({ "toolsListChanged": true })).await;
        (session, subscription)
    });
    let listen = peer.recv().await;
    assert_eq!(listen["method"], "subscriptions/listen");
    assert_eq!(
        listen["params"]["notifications"],
        json!({ "toolsListChanged": true })
    );
    let id = listen["id"].clone();
    let sub = |method: &str| json!({ "jsonrpc": "2.0", "method": method, "params": { "_meta": { "io.modelcontextprotocol/subscriptionId": id }, "notifications": { "toolsListChanged": true } } });
    peer.send(sub("notifications/subscriptions/acknowledged"))
        .await;
    peer.send(sub("notifications/tools/list_changed")).await;
    let (session, subscription) = timeout(WAIT, subscribe).await.unwrap().unwrap();
    let mut subscription = subscription.expect("acknowledged");
    assert_eq!(
        subscription.acknowledged(),
        &json!({ "toolsListChanged": true })
    );
    let (method, _) = timeout(WAIT, subscription.next()).await.unwrap().unwrap();
    assert_eq!(method, "notifications/tools/list_changed");
    drop(subscription);
    let cancelled = peer.recv().await;
    assert_eq!(
        (
            cancelled["method"].as_str(),
            &cancelled["params"]["requestId"]
        ),
        (Some("notifications/cancelled"), &id)
    );
    drop(session);
}

/// The acknowledgment of a subscription can arrive before the client has routed the
/// subscription (the request is sent, the answer read, before the caller registers it): it
/// is kept for the subscription, not lost.
#[tokio::test]
async fn an_acknowledgment_that_overtakes_its_subscription_is_kept() {
    // Notifications the session does not route reach this handler, in order.
    let (handled, mut handler_saw) = tokio::sync::mpsc::unbounded_channel();
    let manager = recipe().with_server_notification_handler(Arc::new(move |note| {
        let _ = handled.send(note.method);
        Box::pin(async {})
    }));
    let (session, mut peer) = connect(manager).await;
    let discover = peer.recv().await;
    peer.reply(
        &discover,
        json!({ "supportedVersions": ["2026-07-28"], "capabilities": { "tools": {} }, "resultType": "complete",
                "_meta": { "io.modelcontextprotocol/serverInfo": { "name": "scripted", "version": "1" } } }),
    )
    .await;
    let session = established(session).await;
    // Ids are sequential: the listen request will be the next one.
    let id = discover["id"].as_i64().expect("numeric id") + 1;
    peer.send(json!({ "jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
        "params": { "_meta": { "io.modelcontextprotocol/subscriptionId": id }, "notifications": { "toolsListChanged": true } } }))
        .await;
    // Once a later notification reached the handler, the acknowledgment was dispatched too.
    peer.send(json!({ "jsonrpc": "2.0", "method": "notifications/marker" }))
        .await;
    let first = timeout(WAIT, handler_saw.recv()).await.unwrap().unwrap();
    assert_eq!(
        first, "notifications/marker",
        "the acknowledgment went to the handler"
    );
    let subscribe = tokio::spawn(async move {
        let subscription = session.subscribe(json!({ "toolsListChanged": true })).await;
        (session, subscription)
    });
    let listen = peer.recv().await;
    assert_eq!(listen["id"], id, "{listen}");
    let (_session, subscription) = timeout(WAIT, subscribe).await.unwrap().unwrap();
    let subscription = subscription.expect("acknowledged");
    assert_eq!(
        subscription.acknowledged(),
        &json!({ "toolsListChanged": true })
    );
}

#[tokio::test]
async fn an_empty_answer_to_discover_is_not_a_modern_server() {
    let (session, mut peer) = connect(recipe()).await;
    let discover = peer.recv().await;
    // Some legacy servers answer every unknown request with `{}`.
    peer.reply(&discover, json!({})).await;
    let init = peer.recv().await;
    assert_eq!(init["method"], "initialize");
    peer.reply(&init, json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": { "name": "s", "version": "1" } })).await;
    assert_eq!(peer.recv().await["method"], "notifications/initialized");
    assert_eq!(established(session).await.negotiated().era(), Era::Stateful);
}
