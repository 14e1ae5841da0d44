//! The streamable HTTP client transport against scripted HTTP servers on 127.0.0.1.
//!
//! Every test starts its own server (see `support_http`), whose handler decides each answer
//! byte for byte and records each request; the tests await what the server saw or what the
//! client delivered, every await bounded so that a bug fails instead of hanging.

mod support_http;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcp_jsonrpc::{Error, ErrorObject, Limits, Peer, SpawnOptions, StreamableHttpOptions};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

use support_http::{
    Req, Resp, Server, StreamTx, connect, connect_with, echo, error, http_options, init_tracing,
    notification, request, result, within,
};

// ----- helpers --------------------------------------------------------------------------------

/// The JSON-RPC error of an `Error::Rpc`, failing the test on any other outcome.
fn rpc_error<T: std::fmt::Debug>(outcome: Result<T, Error>) -> ErrorObject {
    match outcome {
        Err(Error::Rpc(e)) => *e,
        other => panic!("expected Error::Rpc, got {other:?}"),
    }
}

/// The `-32000` error standing for a failed HTTP exchange, with its `data.httpStatus`.
fn bridged<T: std::fmt::Debug>(outcome: Result<T, Error>) -> (ErrorObject, Option<u64>) {
    let e = rpc_error(outcome);
    assert_eq!(e.code, -32000, "a bridged HTTP failure is -32000: {e:?}");
    let status = e
        .data
        .as_ref()
        .and_then(|d| d.get("httpStatus"))
        .and_then(Value::as_u64);
    (e, status)
}

/// Whether `Accept` lists every one of `types`.
fn accepts(req: &Req, types: &[&str]) -> bool {
    let Some(accept) = req.header("accept") else {
        return false;
    };
    let listed: Vec<String> = accept
        .split(',')
        .map(|t| {
            t.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .collect();
    types.iter().all(|t| listed.iter().any(|l| l == t))
}

fn is_get(req: &Req) -> bool {
    req.method == "GET"
}

fn is_resume(req: &Req) -> bool {
    req.method == "GET" && req.header("last-event-id").is_some()
}

/// The everything server's answer to a GET before a session exists.
fn no_session_yet() -> Resp {
    Resp::json(
        400,
        &json!({"jsonrpc": "2.0", "error": {"code": -32000, "message": "Bad Request: No valid session ID provided"}}),
    )
}

async fn recv<T>(what: &str, rx: &mut mpsc::UnboundedReceiver<T>) -> T {
    within(what, rx.recv())
        .await
        .unwrap_or_else(|| panic!("{what}: channel closed"))
}

async fn request_ok(client: &Peer, method: &str) -> Value {
    within(method, client.request(method, Some(json!({}))))
        .await
        .unwrap_or_else(|e| panic!("{method}: {e}"))
}

// ----- 1. headers -----------------------------------------------------------------------------

/// POSTs carry `Content-Type: application/json` and an `Accept` listing both types; the GET
/// accepts `text/event-stream`; the configured headers and those set later through
/// `set_http_header` are on every POST and GET after they were set.
#[tokio::test]
async fn post_and_get_carry_required_and_extra_headers() {
    init_tracing();
    let (streams_tx, mut streams) = mpsc::unbounded_channel::<StreamTx>();
    let server = Server::start(move |req: Req| {
        let streams_tx = streams_tx.clone();
        async move {
            match req.method.as_str() {
                "GET" if req.header("mcp-session-id").is_none() => no_session_yet(),
                "GET" => {
                    let (tx, resp) = Resp::sse_stream();
                    let _ = streams_tx.send(tx);
                    resp
                }
                _ if req.is_post_of("initialize") => echo(&req).header("mcp-session-id", "s-1"),
                _ => echo(&req),
            }
        }
    })
    .await;
    let mut headers = BTreeMap::new();
    headers.insert("Authorization".to_owned(), "Bearer secret".to_owned());
    headers.insert("x-extra".to_owned(), "one".to_owned());
    let client = connect_with(
        &server.url("/mcp"),
        StreamableHttpOptions {
            headers,
            ..http_options()
        },
    )
    .await;

    let get = server.wait_for("the initial GET", is_get).await;
    assert!(accepts(&get, &["text/event-stream"]), "{get:?}");
    assert_eq!(get.header("authorization"), Some("Bearer secret"));
    assert_eq!(get.header("x-extra"), Some("one"));
    assert_eq!(get.header("mcp-protocol-version"), None);

    client
        .handle()
        .set_http_header("MCP-Protocol-Version", "2025-11-25")
        .unwrap();
    assert_eq!(
        request_ok(&client, "initialize").await,
        json!({"echo": "initialize"})
    );
    let post = server
        .wait_for("the initialize POST", |r| r.is_post_of("initialize"))
        .await;
    assert_eq!(post.header("content-type"), Some("application/json"));
    assert!(
        accepts(&post, &["application/json", "text/event-stream"]),
        "{post:?}"
    );
    assert_eq!(post.header("authorization"), Some("Bearer secret"));
    assert_eq!(post.header("x-extra"), Some("one"));
    assert_eq!(post.header("mcp-protocol-version"), Some("2025-11-25"));

    // The session id makes the client retry the GET, with every header.
    let get = server
        .wait_for("the GET with the session", |r| {
            is_get(r) && r.header("mcp-session-id").is_some()
        })
        .await;
    let _get_stream = recv("the GET stream", &mut streams).await;
    assert!(accepts(&get, &["text/event-stream"]), "{get:?}");
    assert_eq!(get.header("authorization"), Some("Bearer secret"));
    assert_eq!(get.header("x-extra"), Some("one"));
    assert_eq!(get.header("mcp-protocol-version"), Some("2025-11-25"));

    within(
        "notify",
        client.notify("notifications/initialized", Some(json!({}))),
    )
    .await
    .unwrap();
    let note = server
        .wait_for("the notification POST", |r| {
            r.is_post_of("notifications/initialized")
        })
        .await;
    assert_eq!(note.header("content-type"), Some("application/json"));
    assert!(accepts(&note, &["application/json", "text/event-stream"]));
    assert_eq!(note.header("x-extra"), Some("one"));
    assert_eq!(note.header("mcp-protocol-version"), Some("2025-11-25"));

    // Setting a header again replaces its value.
    client.handle().set_http_header("x-extra", "two").unwrap();
    request_ok(&client, "tools/list").await;
    let post = server
        .wait_for("tools/list", |r| r.is_post_of("tools/list"))
        .await;
    assert_eq!(post.header("x-extra"), Some("two"));
    assert_eq!(
        server.requests().last().unwrap().header("x-extra"),
        Some("two")
    );

    let bad = client.handle().set_http_header("bad name", "x");
    assert!(matches!(bad, Err(Error::InvalidArgument(_))), "{bad:?}");
    let bad = client.handle().set_http_header("x-ok", "line\nbreak");
    assert!(matches!(bad, Err(Error::InvalidArgument(_))), "{bad:?}");
}

// ----- 2. response bodies ---------------------------------------------------------------------

/// A JSON body and SSE bodies (priming event, comments, `event:` lines, multi-line `data:`,
/// CRLF and CR line ends, chunks cut inside a line end) all resolve their request.
#[tokio::test]
async fn json_and_sse_bodies_resolve_requests() {
    init_tracing();
    let server = Server::start(|req: Req| async move {
        let id = req.rpc_id();
        match req.rpc_method().as_deref() {
            _ if is_get(&req) => Resp::status(405),
            Some("json") => Resp::json(200, &result(&id, json!({"via": "json"}))),
            Some("sse-static") => Resp::sse(format!(
                "id: prime-1\ndata: \n\n: keepalive\n\nevent: message\nid: ev-2\ndata: {}\n\n",
                result(&id, json!({"via": "sse-static"}))
            )),
            Some("sse-crlf") => {
                let (tx, resp) = Resp::sse_stream();
                let pieces = [
                    ": keepalive\r\n\r\n".to_owned(),
                    "id: prime-1\r\ndata: \r\n\r".to_owned(),
                    "\nevent: message\r\nid: ".to_owned(),
                    "ev-2\r\ndata: {\"jsonrpc\":\"2.0\",\r\n".to_owned(),
                    format!("data: \"id\":{id},\r"),
                    "\ndata: \"result\":{\"via\":\"sse-crlf\"}}\r\n".to_owned(),
                    "\r\n".to_owned(),
                ];
                for piece in pieces {
                    tx.raw(piece);
                }
                tx.end();
                resp
            }
            Some("sse-cr") => Resp::sse(format!(
                "id: p\rdata:\r\revent: message\rdata: {}\r\r",
                result(&id, json!({"via": "sse-cr"}))
            )),
            _ => echo(&req),
        }
    })
    .await;
    let client = connect(&server.url("/mcp")).await;
    assert_eq!(request_ok(&client, "json").await, json!({"via": "json"}));
    assert_eq!(
        request_ok(&client, "sse-static").await,
        json!({"via": "sse-static"})
    );
    assert_eq!(
        request_ok(&client, "sse-crlf").await,
        json!({"via": "sse-crlf"})
    );
    assert_eq!(
        request_ok(&client, "sse-cr").await,
        json!({"via": "sse-cr"})
    );
    let stats = client.stats();
    assert_eq!(stats.invalid_json, 0, "{stats:?}");
    assert_eq!(stats.pending_requests, 0, "{stats:?}");
}

/// Notifications and a server→client request that the server interleaves on a POST's SSE
/// stream before the response reach `take_notifications` / `take_requests`; the client's
/// answer is POSTed back while that stream is still open, and the response then arrives.
#[tokio::test]
async fn messages_interleaved_on_a_post_stream_are_delivered() {
    init_tracing();
    let (streams_tx, mut streams) = mpsc::unbounded_channel::<(Value, StreamTx)>();
    let server = Server::start(move |req: Req| {
        let streams_tx = streams_tx.clone();
        async move {
            if req.is_post_of("tools/call") {
                let (tx, resp) = Resp::sse_stream();
                let _ = streams_tx.send((req.rpc_id(), tx));
                resp
            } else if is_get(&req) {
                Resp::status(405)
            } else {
                echo(&req)
            }
        }
    })
    .await;
    let mut client = connect(&server.url("/mcp")).await;
    let mut notifications = client.take_notifications().unwrap();
    let mut requests = client.take_requests().unwrap();
    let call = client
        .start_request("tools/call", Some(&json!({"name": "slow"})))
        .await
        .unwrap();
    let (id, stream) = recv("the tools/call stream", &mut streams).await;
    stream.raw("id: 1\ndata: \n\n");
    stream.raw(format!(
        "event: message\nid: 2\ndata: {}\n\n",
        notification(
            "notifications/progress",
            json!({"progressToken": 1, "progress": 1})
        )
    ));
    let note = within("the progress notification", notifications.recv())
        .await
        .unwrap();
    assert_eq!(note.method, "notifications/progress");
    assert_eq!(note.params_value()["progress"], 1);

    stream.message_with_id(
        "3",
        &request(&json!("srv-1"), "sampling/createMessage", json!({"x": 1})),
    );
    let incoming = within("the server's request", requests.recv())
        .await
        .unwrap();
    assert_eq!(incoming.method, "sampling/createMessage");
    assert_eq!(incoming.params_value(), json!({"x": 1}));
    within("answering", incoming.respond_ok(json!({"answer": 42})))
        .await
        .unwrap();
    let answer = server
        .wait_for("the client's answer", |r| r.is_answer_to(&json!("srv-1")))
        .await;
    assert_eq!(answer.json()["result"], json!({"answer": 42}));

    stream.message_with_id("4", &result(&id, json!({"done": true})));
    let outcome = within("tools/call", call).await.unwrap();
    assert_eq!(outcome.get(), r#"{"done":true}"#);
}

// ----- 3. session id --------------------------------------------------------------------------

/// The session id of the initialize response is kept, sent on every later POST, GET and
/// DELETE, replaced when the server sends a new one, and reported by `session_id()`.
#[tokio::test]
async fn session_id_is_recorded_sent_and_updated() {
    init_tracing();
    let server = Server::start(|req: Req| async move {
        match (req.method.as_str(), req.rpc_method().as_deref()) {
            ("GET", _) if req.header("mcp-session-id").is_none() => no_session_yet(),
            ("GET", _) => Resp::status(405),
            ("POST", Some("initialize")) => echo(&req).header("mcp-session-id", "s-1"),
            ("POST", Some("rotate")) => echo(&req).header("Mcp-Session-Id", "s-2"),
            ("POST", Some("expired")) => Resp::status(404),
            ("DELETE", _) => Resp::status(200),
            _ => echo(&req),
        }
    })
    .await;
    let mut client = connect(&server.url("/mcp")).await;
    assert_eq!(client.handle().session_id(), None);
    request_ok(&client, "initialize").await;
    assert_eq!(client.handle().session_id().as_deref(), Some("s-1"));
    let init = server
        .wait_for("initialize", |r| r.is_post_of("initialize"))
        .await;
    assert_eq!(init.header("mcp-session-id"), None);

    request_ok(&client, "tools/list").await;
    let get = server
        .wait_for("the GET retried with the session", |r| {
            is_get(r) && r.header("mcp-session-id").is_some()
        })
        .await;
    assert_eq!(get.header("mcp-session-id"), Some("s-1"));
    let list = server
        .wait_for("tools/list", |r| r.is_post_of("tools/list"))
        .await;
    assert_eq!(list.header("mcp-session-id"), Some("s-1"));

    request_ok(&client, "rotate").await;
    assert_eq!(client.handle().session_id().as_deref(), Some("s-2"));
    within("notify", client.notify("notifications/x", None))
        .await
        .unwrap();
    request_ok(&client, "after").await;
    let note = server
        .wait_for("the notification", |r| r.is_post_of("notifications/x"))
        .await;
    assert_eq!(note.header("mcp-session-id"), Some("s-2"));
    let after = server.wait_for("after", |r| r.is_post_of("after")).await;
    assert_eq!(after.header("mcp-session-id"), Some("s-2"));
    // The new session id is a new chance for the GET stream.
    server
        .wait_for("the GET retried with the new session", |r| {
            is_get(r) && r.header("mcp-session-id") == Some("s-2")
        })
        .await;

    // A 404 once a session exists says what it means.
    let (e, status) = bridged(within("expired", client.request("expired", None)).await);
    assert_eq!(status, Some(404));
    assert!(e.message.contains("session"), "{e:?}");

    within("close", client.close()).await;
    let delete = server.wait_for("DELETE", |r| r.method == "DELETE").await;
    assert_eq!(delete.header("mcp-session-id"), Some("s-2"));
    assert_eq!(delete.path, "/mcp");
}

// ----- 4. the GET stream: tolerated refusals and retries --------------------------------------

/// A `405` on the initial GET is tolerated; after a `202` the GET is tried again, and once
/// open, a server→client request on it reaches `take_requests` and the answer is POSTed.
#[tokio::test]
async fn get_405_is_tolerated_and_retried_after_a_202() {
    init_tracing();
    let gets = Arc::new(AtomicUsize::new(0));
    let (streams_tx, mut streams) = mpsc::unbounded_channel::<StreamTx>();
    let server = Server::start({
        let gets = gets.clone();
        move |req: Req| {
            let gets = gets.clone();
            let streams_tx = streams_tx.clone();
            async move {
                if !is_get(&req) {
                    return echo(&req);
                }
                if gets.fetch_add(1, Ordering::SeqCst) == 0 {
                    return Resp::status(405);
                }
                let (tx, resp) = Resp::sse_stream();
                let _ = streams_tx.send(tx);
                resp
            }
        }
    })
    .await;
    let mut client = connect(&server.url("/mcp")).await;
    let mut requests = client.take_requests().unwrap();
    assert_eq!(server.count(is_get), 1);
    request_ok(&client, "initialize").await;
    within(
        "notify",
        client.notify("notifications/initialized", Some(json!({}))),
    )
    .await
    .unwrap();
    let stream = recv("the GET stream opened after the 202", &mut streams).await;
    assert_eq!(server.count(is_get), 2);

    stream.message(&request(&json!(7), "roots/list", json!({})));
    let incoming = within("roots/list", requests.recv()).await.unwrap();
    assert_eq!(incoming.method, "roots/list");
    assert_eq!(incoming.id, 7.into());
    within("answer", incoming.respond_ok(json!({"roots": []})))
        .await
        .unwrap();
    let answer = server
        .wait_for("the answer to roots/list", |r| r.is_answer_to(&json!(7)))
        .await;
    assert_eq!(answer.json()["result"], json!({"roots": []}));
    assert!(!client.is_closed());
}

/// A `400` on the initial GET before any session (what the TypeScript SDK answers) is
/// tolerated; the GET is tried again as soon as the first session id arrives, and the stream
/// then carries server→client requests.
#[tokio::test]
async fn get_400_before_a_session_is_tolerated_and_retried_with_the_session() {
    init_tracing();
    let (streams_tx, mut streams) = mpsc::unbounded_channel::<StreamTx>();
    let server = Server::start(move |req: Req| {
        let streams_tx = streams_tx.clone();
        async move {
            match req.method.as_str() {
                "GET" if req.header("mcp-session-id") != Some("abc") => no_session_yet(),
                "GET" => {
                    let (tx, resp) = Resp::sse_stream();
                    tx.raw(": keepalive\n\n");
                    let _ = streams_tx.send(tx);
                    resp
                }
                _ if req.is_post_of("initialize") => echo(&req).header("mcp-session-id", "abc"),
                _ => echo(&req),
            }
        }
    })
    .await;
    let mut client = connect(&server.url("/mcp")).await;
    let mut requests = client.take_requests().unwrap();
    request_ok(&client, "initialize").await;
    let stream = recv("the GET stream opened with the session", &mut streams).await;
    stream.raw(format!(
        "event: message\ndata: {}\n\n",
        request(&json!("r-1"), "elicitation/create", json!({"message": "?"}))
    ));
    let incoming = within("elicitation/create", requests.recv()).await.unwrap();
    assert_eq!(incoming.method, "elicitation/create");
    within(
        "answer",
        incoming.respond_error(ErrorObject::new(-1, "declined")),
    )
    .await
    .unwrap();
    let answer = server
        .wait_for("the answer", |r| r.is_answer_to(&json!("r-1")))
        .await;
    assert_eq!(answer.json()["error"]["code"], -1);
    assert_eq!(answer.header("mcp-session-id"), Some("abc"));
}

/// A refusal of the initial GET that is not tolerated (`500`, or `200` without an event
/// stream) fails the connect with a clear `Error::Http`.
#[tokio::test]
async fn get_refusals_that_are_not_tolerated_fail_the_connect() {
    init_tracing();
    let server = Server::start(|req: Req| async move {
        match req.path.as_str() {
            "/500" => Resp::body(500, "text/plain", "boom"),
            _ => Resp::json(200, &json!({})),
        }
    })
    .await;
    for path in ["/500", "/json"] {
        let outcome = within(
            "connect",
            Peer::connect_streamable_http_with_options(
                &server.url(path),
                http_options(),
                SpawnOptions::default(),
            ),
        )
        .await;
        match outcome {
            Err(Error::Http(message)) => assert!(message.contains("GET"), "{message}"),
            other => panic!("{path}: expected Error::Http, got {other:?}"),
        }
    }
}

// ----- 5. losing the GET stream ---------------------------------------------------------------

async fn get_stream_lost_without_ids_closes(break_it: fn(&StreamTx)) {
    let (streams_tx, mut streams) = mpsc::unbounded_channel::<StreamTx>();
    let server = Server::start(move |req: Req| {
        let streams_tx = streams_tx.clone();
        async move {
            if is_get(&req) {
                let (tx, resp) = Resp::sse_stream();
                tx.raw(": open\n\n");
                let _ = streams_tx.send(tx);
                resp
            } else if req.is_post_of("slow") {
                Resp::hang()
            } else {
                echo(&req)
            }
        }
    })
    .await;
    let client = connect(&server.url("/mcp")).await;
    let stream = recv("the GET stream", &mut streams).await;
    let handle = client.handle();
    let slow = tokio::spawn(async move { handle.request("slow", None).await });
    server
        .wait_for("the slow POST", |r| r.is_post_of("slow"))
        .await;
    let started = Instant::now();
    break_it(&stream);
    let outcome = within("the pending request", slow).await.unwrap();
    assert!(
        matches!(&outcome, Err(Error::Closed(reason)) if reason.contains("GET")),
        "{outcome:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    within("closed()", client.handle().closed()).await;
    assert!(client.is_closed());
    let later = within("a later request", client.request("later", None)).await;
    assert!(matches!(later, Err(Error::Closed(_))), "{later:?}");
    assert_eq!(server.count(|r| r.is_post_of("later")), 0);
    assert_eq!(server.count(is_resume), 0);
}

/// An established GET stream without event ids that the server ends closes the client at
/// once (fail-fast): a pending request fails with `Error::Closed`, `is_closed()` is true.
#[tokio::test]
async fn get_stream_ended_without_event_ids_closes_the_client() {
    init_tracing();
    get_stream_lost_without_ids_closes(StreamTx::end).await;
}

/// The same when the GET stream breaks off (no terminating chunk).
#[tokio::test]
async fn get_stream_broken_without_event_ids_closes_the_client() {
    init_tracing();
    get_stream_lost_without_ids_closes(StreamTx::abort).await;
}

/// A GET server whose streams (after the first) are handed to the test with the
/// `Last-Event-ID` they were opened with; `refuse_resumes` resumptions are refused with 503.
async fn resumable_get_server(
    refuse_resumes: usize,
) -> (Server, mpsc::UnboundedReceiver<(Option<String>, StreamTx)>) {
    let (streams_tx, streams) = mpsc::unbounded_channel();
    let refused = Arc::new(AtomicUsize::new(0));
    let server = Server::start(move |req: Req| {
        let streams_tx = streams_tx.clone();
        let refused = refused.clone();
        async move {
            if !is_get(&req) {
                return echo(&req);
            }
            if is_resume(&req) && refused.fetch_add(1, Ordering::SeqCst) < refuse_resumes {
                return Resp::body(503, "text/plain", "try again");
            }
            let (tx, resp) = Resp::sse_stream();
            let _ = streams_tx.send((req.header("last-event-id").map(str::to_owned), tx));
            resp
        }
    })
    .await;
    (server, streams)
}

/// A GET stream with event ids that ends (or breaks) is resumed with `Last-Event-ID`
/// carrying the last id; what the resumed stream carries is delivered, and the client keeps
/// working.
#[tokio::test]
async fn get_stream_with_event_ids_is_resumed_with_last_event_id() {
    init_tracing();
    let (server, mut streams) = resumable_get_server(0).await;
    let mut client = connect(&server.url("/mcp")).await;
    let mut notifications = client.take_notifications().unwrap();
    let mut requests = client.take_requests().unwrap();
    let (last, first) = recv("the GET stream", &mut streams).await;
    assert_eq!(last, None);
    first.raw("retry: 10\n\n");
    first.message_with_id(
        "g-1",
        &notification("notifications/message", json!({"n": 1})),
    );
    let note = within("n=1", notifications.recv()).await.unwrap();
    assert_eq!(note.params_value()["n"], 1);
    first.end();

    let (last, second) = recv("the resumed GET stream", &mut streams).await;
    assert_eq!(last.as_deref(), Some("g-1"));
    second.message_with_id("g-2", &request(&json!(11), "roots/list", json!({})));
    let incoming = within("roots/list", requests.recv()).await.unwrap();
    within("answer", incoming.respond_ok(json!({"roots": []})))
        .await
        .unwrap();
    server
        .wait_for("the answer", |r| r.is_answer_to(&json!(11)))
        .await;
    assert_eq!(request_ok(&client, "ping").await, json!({"echo": "ping"}));

    // Ids learned on the resumed stream count, and a break resumes like an end.
    second.abort();
    let (last, third) = recv("the second resumption", &mut streams).await;
    assert_eq!(last.as_deref(), Some("g-2"));
    third.message(&notification("notifications/message", json!({"n": 3})));
    let note = within("n=3", notifications.recv()).await.unwrap();
    assert_eq!(note.params_value()["n"], 3);
    assert!(!client.is_closed());
}

/// A server may close the GET connection after every event ("polling", spec 2025-11-25):
/// the client keeps resuming, however many times, as long as each resumption succeeds.
#[tokio::test]
async fn get_stream_polling_is_resumed_indefinitely() {
    init_tracing();
    let (server, mut streams) = resumable_get_server(0).await;
    let mut client = connect(&server.url("/mcp")).await;
    let mut notifications = client.take_notifications().unwrap();
    let mut expected_last = None;
    for round in 0..8 {
        let (last, stream) = recv("the next poll", &mut streams).await;
        assert_eq!(last, expected_last, "round {round}");
        stream.raw("retry: 5\n\n");
        stream.message_with_id(
            &format!("p-{round}"),
            &notification("notifications/message", json!({"round": round})),
        );
        let note = within("the poll's event", notifications.recv())
            .await
            .unwrap_or_else(|| panic!("the client closed at round {round}"));
        assert_eq!(note.params_value()["round"], round);
        stream.end();
        expected_last = Some(format!("p-{round}"));
    }
    let (_, _last_stream) = recv("the last poll", &mut streams).await;
    assert!(!client.is_closed(), "{:?}", client.handle().close_reason());
    assert!(server.count(is_resume) >= 8);
}

/// A resumption that fails is tried again (bounded) instead of closing the client at once.
#[tokio::test]
async fn get_stream_resumption_that_fails_once_is_retried() {
    init_tracing();
    let (server, mut streams) = resumable_get_server(1).await;
    let mut client = connect(&server.url("/mcp")).await;
    let mut notifications = client.take_notifications().unwrap();
    let (_, first) = recv("the GET stream", &mut streams).await;
    first.raw("retry: 10\nid: g-1\ndata: \n\n");
    first.end();
    let (last, second) = recv("the resumed GET stream", &mut streams).await;
    assert_eq!(last.as_deref(), Some("g-1"));
    assert_eq!(server.count(is_resume), 2, "one refused, one accepted");
    second.message(&notification("notifications/message", json!({"ok": true})));
    let note = within("the notification", notifications.recv())
        .await
        .unwrap();
    assert_eq!(note.params_value()["ok"], true);
    assert!(!client.is_closed(), "{:?}", client.handle().close_reason());
}

/// When every resumption fails, the client closes (fail-fast) after a bounded number of tries.
#[tokio::test]
async fn get_stream_whose_resumptions_all_fail_closes_the_client() {
    init_tracing();
    let (server, mut streams) = resumable_get_server(usize::MAX).await;
    let client = connect(&server.url("/mcp")).await;
    let (_, first) = recv("the GET stream", &mut streams).await;
    first.raw("retry: 1\nid: g-1\ndata: \n\n");
    first.end();
    within("closed()", client.handle().closed()).await;
    let tries = server.count(is_resume);
    assert!((2..=10).contains(&tries), "{tries} resumptions");
    let reason = client.handle().close_reason().unwrap();
    assert!(reason.contains("Last-Event-ID"), "{reason}");
}

// ----- 6. [DONE] ------------------------------------------------------------------------------

/// `[DONE]` ends a POST's SSE stream: before the response it fails the request with `-32000`
/// at once (no resumption, even though the stream had event ids, and though the server keeps
/// the connection open); after the response the request has succeeded.
#[tokio::test]
async fn done_ends_a_post_stream() {
    init_tracing();
    let (held_tx, held) = mpsc::unbounded_channel::<StreamTx>();
    let server = Server::start(move |req: Req| {
        let held_tx = held_tx.clone();
        async move {
            let id = req.rpc_id();
            match req.rpc_method().as_deref() {
                _ if is_get(&req) && !is_resume(&req) => Resp::status(405),
                _ if is_get(&req) => Resp::sse(format!(
                    "id: r\ndata: {}\n\n",
                    result(&id, json!("resumed"))
                )),
                Some("early") => {
                    let (tx, resp) = Resp::sse_stream();
                    tx.raw("id: e-1\ndata: \n\n");
                    tx.message_with_id("e-2", &notification("notifications/message", json!({})));
                    tx.raw("data: [DONE]\n\n");
                    let _ = held_tx.send(tx); // kept open
                    resp
                }
                Some("late") => {
                    let (tx, resp) = Resp::sse_stream();
                    tx.message_with_id("l-1", &result(&id, json!("late")));
                    tx.raw("data: [DONE]\n\n");
                    let _ = held_tx.send(tx);
                    resp
                }
                _ => echo(&req),
            }
        }
    })
    .await;
    let client = connect(&server.url("/mcp")).await;
    let early = within("early", client.request("early", None)).await;
    let (e, status) = bridged(early);
    assert_eq!(status, Some(200));
    assert!(e.message.contains("[DONE]"), "{e:?}");
    assert_eq!(server.count(is_resume), 0, "no resumption after [DONE]");
    assert_eq!(request_ok(&client, "late").await, json!("late"));
    assert!(!client.is_closed());
    drop(held);
}

/// On the GET stream `[DONE]` means nothing: the stream goes on.
#[tokio::test]
async fn done_on_the_get_stream_is_ignored() {
    init_tracing();
    let (streams_tx, mut streams) = mpsc::unbounded_channel::<StreamTx>();
    let server = Server::start(move |req: Req| {
        let streams_tx = streams_tx.clone();
        async move {
            if is_get(&req) {
                let (tx, resp) = Resp::sse_stream();
                let _ = streams_tx.send(tx);
                resp
            } else {
                echo(&req)
            }
        }
    })
    .await;
    let mut client = connect(&server.url("/mcp")).await;
    let mut notifications = client.take_notifications().unwrap();
    let stream = recv("the GET stream", &mut streams).await;
    stream.raw("data: [DONE]\n\n");
    stream.message(&notification(
        "notifications/message",
        json!({"after": "done"}),
    ));
    let note = within("the notification after [DONE]", notifications.recv())
        .await
        .unwrap();
    assert_eq!(note.params_value()["after"], "done");
    assert!(!client.is_closed());
    assert_eq!(client.stats().invalid_json, 0);
}

/// A POST's SSE stream that the server keeps open after the response is let go once the
/// request is answered: the client closes that connection instead of holding one per request.
#[tokio::test]
async fn post_stream_kept_open_after_the_response_is_let_go() {
    init_tracing();
    let (held_tx, mut held) = mpsc::unbounded_channel::<(StreamTx, oneshot::Receiver<()>)>();
    let server = Server::start(move |req: Req| {
        let held_tx = held_tx.clone();
        async move {
            if is_get(&req) {
                return Resp::status(405);
            }
            let (tx, resp) = Resp::sse_stream();
            tx.message_with_id("k-1", &result(&req.rpc_id(), json!("answered")));
            let (gone_tx, gone) = oneshot::channel();
            let _ = held_tx.send((tx, gone));
            resp.on_client_gone(gone_tx)
        }
    })
    .await;
    let client = connect(&server.url("/mcp")).await;
    assert_eq!(request_ok(&client, "kept-open").await, json!("answered"));
    let (_stream, gone) = recv("the kept-open stream", &mut held).await;
    within("the client letting the answered stream go", gone)
        .await
        .unwrap();
    assert!(!client.is_closed());
}

// ----- 7. resuming a POST stream --------------------------------------------------------------

/// A POST's SSE stream that breaks before the response, after events with ids, is resumed with
/// a GET carrying `Last-Event-ID` = the id of the last *complete* event, no sooner than
/// `retry:` asked; the response comes from the resumed stream.
#[tokio::test]
async fn broken_post_stream_is_resumed_after_retry_with_the_last_complete_event_id() {
    init_tracing();
    const RETRY_MS: u64 = 300;
    let (streams_tx, mut streams) = mpsc::unbounded_channel::<(Value, StreamTx)>();
    let (resumed_tx, mut resumed) = mpsc::unbounded_channel::<(Req, StreamTx)>();
    let server = Server::start(move |req: Req| {
        let streams_tx = streams_tx.clone();
        let resumed_tx = resumed_tx.clone();
        async move {
            if is_resume(&req) {
                let (tx, resp) = Resp::sse_stream();
                let _ = resumed_tx.send((req, tx));
                resp
            } else if is_get(&req) {
                Resp::status(405)
            } else if req.is_post_of("tools/call") {
                let (tx, resp) = Resp::sse_stream();
                let _ = streams_tx.send((req.rpc_id(), tx));
                resp
            } else {
                echo(&req)
            }
        }
    })
    .await;
    let mut client = connect(&server.url("/mcp")).await;
    let mut notifications = client.take_notifications().unwrap();
    let handle = client.handle();
    let call = tokio::spawn(async move { handle.request("tools/call", None).await });
    let (id, stream) = recv("the POST stream", &mut streams).await;
    stream.raw(format!("retry: {RETRY_MS}\nid: e-0\ndata: \n\n"));
    stream.message_with_id(
        "e-1",
        &notification("notifications/progress", json!({"p": 1})),
    );
    within("the progress", notifications.recv()).await.unwrap();
    // The response's event is cut off before its blank line: it was never received.
    stream.raw(format!(
        "id: e-2\ndata: {}",
        result(&id, json!("lost in transit"))
    ));
    let broke = Instant::now();
    stream.abort();

    let (get, resumed_stream) = recv("the resuming GET", &mut resumed).await;
    assert_eq!(get.header("last-event-id"), Some("e-1"));
    assert!(accepts(&get, &["text/event-stream"]));
    assert!(
        get.at.duration_since(broke) >= Duration::from_millis(RETRY_MS - 20),
        "resumed after {:?}, before retry: {RETRY_MS}",
        get.at.duration_since(broke)
    );
    resumed_stream.message_with_id("e-2", &result(&id, json!("replayed")));
    resumed_stream.end();
    let outcome = within("tools/call", call).await.unwrap().unwrap();
    assert_eq!(outcome, json!("replayed"));
    assert!(!client.is_closed());
}

/// A POST stream that ends cleanly (not broken) without the response, after an event id, is
/// resumed the same way; a POST stream without event ids that ends fails its request with
/// `-32000` and is not resumed.
#[tokio::test]
async fn post_stream_ended_without_response_is_resumed_or_fails() {
    init_tracing();
    let server = Server::start(|req: Req| async move {
        let id = req.rpc_id();
        if is_resume(&req) {
            assert_eq!(req.header("last-event-id"), Some("x-1"));
            return Resp::sse(format!(
                "id: x-2\ndata: {}\n\n",
                result(&json!(1), json!("resumed"))
            ));
        }
        match req.rpc_method().as_deref() {
            _ if is_get(&req) => Resp::status(405),
            Some("with-ids") => Resp::sse("retry: 10\nid: x-1\ndata: \n\n"),
            Some("without-ids") => Resp::sse(format!(
                "data: {}\n\n",
                notification("notifications/message", json!({}))
            )),
            _ => Resp::json(200, &result(&id, json!(null))),
        }
    })
    .await;
    let client = connect(&server.url("/mcp")).await;
    // The first request has id 1: the resumed stream answers id 1.
    assert_eq!(request_ok(&client, "with-ids").await, json!("resumed"));
    let resumes = server.count(is_resume);
    assert_eq!(resumes, 1);
    let (e, status) = bridged(within("without-ids", client.request("without-ids", None)).await);
    assert_eq!(status, Some(200));
    assert!(e.message.contains("closed before the response"), "{e:?}");
    assert_eq!(server.count(is_resume), resumes);
}

// ----- 8. timeouts ----------------------------------------------------------------------------

/// `request_timeout` fails a request that the server never answers with `-32000` in bounded
/// time (and drops its HTTP exchange), while the GET stream, idle for longer than
/// `request_timeout`, stays open and keeps delivering.
#[tokio::test]
async fn request_timeout_fails_the_request_but_never_the_get_stream() {
    init_tracing();
    const LIMIT: Duration = Duration::from_millis(300);
    let (streams_tx, mut streams) = mpsc::unbounded_channel::<StreamTx>();
    let (gone_tx, mut gone) = mpsc::unbounded_channel::<oneshot::Receiver<()>>();
    let server = Server::start(move |req: Req| {
        let streams_tx = streams_tx.clone();
        let gone_tx = gone_tx.clone();
        async move {
            if is_get(&req) {
                // No event ids: losing this stream would close the client.
                let (tx, resp) = Resp::sse_stream();
                let _ = streams_tx.send(tx);
                resp
            } else if req.is_post_of("never") {
                let (tx, rx) = oneshot::channel();
                let _ = gone_tx.send(rx);
                Resp::hang().on_client_gone(tx)
            } else {
                echo(&req)
            }
        }
    })
    .await;
    let mut client = connect_with(
        &server.url("/mcp"),
        StreamableHttpOptions {
            request_timeout: Some(LIMIT),
            ..http_options()
        },
    )
    .await;
    let get_opened = Instant::now();
    let mut notifications = client.take_notifications().unwrap();
    let stream = recv("the GET stream", &mut streams).await;

    let started = Instant::now();
    let (e, status) = bridged(within("never", client.request("never", None)).await);
    let took = started.elapsed();
    assert_eq!(status, None);
    assert!(e.message.contains("timed out"), "{e:?}");
    assert!(took >= LIMIT - Duration::from_millis(20), "{took:?}");
    let client_gone = recv("the hung POST", &mut gone).await;
    within("the client dropping the timed-out POST", client_gone)
        .await
        .unwrap();

    // Let the GET stream sit idle for well over request_timeout (this wait is the condition
    // under test, not a synchronisation).
    tokio::time::sleep_until((get_opened + 3 * LIMIT).into()).await;
    assert!(!client.is_closed(), "{:?}", client.handle().close_reason());
    stream.message(&notification(
        "notifications/message",
        json!({"still": "open"}),
    ));
    let note = within(
        "a notification on the idle GET stream",
        notifications.recv(),
    )
    .await
    .unwrap();
    assert_eq!(note.params_value()["still"], "open");
    assert_eq!(request_ok(&client, "ping").await, json!({"echo": "ping"}));
    assert_eq!(server.count(is_get), 1);
}

/// `request_timeout` also bounds a request that the server accepted with `202` (its answer
/// would come on the GET stream) and never answered, while a `202`'d request whose answer
/// does come on the GET stream in time succeeds; and it bounds a notification's POST.
#[tokio::test]
async fn request_timeout_bounds_202_requests_and_notifications() {
    init_tracing();
    const LIMIT: Duration = Duration::from_secs(1);
    let (streams_tx, mut streams) = mpsc::unbounded_channel::<StreamTx>();
    let server = Server::start(move |req: Req| {
        let streams_tx = streams_tx.clone();
        async move {
            if is_get(&req) {
                let (tx, resp) = Resp::sse_stream();
                let _ = streams_tx.send(tx);
                resp
            } else if req.is_post_of("notifications/never") {
                Resp::hang()
            } else {
                Resp::accepted()
            }
        }
    })
    .await;
    let client = connect_with(
        &server.url("/mcp"),
        StreamableHttpOptions {
            request_timeout: Some(LIMIT),
            ..http_options()
        },
    )
    .await;
    let stream = recv("the GET stream", &mut streams).await;

    let (e, _) = bridged(within("accepted", client.request("accepted", None)).await);
    assert!(e.message.contains("timed out"), "{e:?}");
    assert!(e.message.contains("202"), "{e:?}");

    let answered = client
        .start_request("answered", Some(&json!({})))
        .await
        .unwrap();
    let post = server
        .wait_for("the answered POST", |r| r.is_post_of("answered"))
        .await;
    stream.message(&result(&post.rpc_id(), json!("via GET")));
    let outcome = within("answered", answered).await.unwrap();
    assert_eq!(outcome.get(), r#""via GET""#);

    let started = Instant::now();
    let note = within("notify", client.notify("notifications/never", None)).await;
    match note {
        Err(Error::Http(message)) => assert!(message.contains("timed out"), "{message}"),
        other => panic!("expected Error::Http, got {other:?}"),
    }
    assert!(started.elapsed() >= LIMIT - Duration::from_millis(20));

    assert!(!client.is_closed());
    assert_eq!(client.stats().pending_requests, 0);
}

/// `connect_timeout` bounds the initial GET: a server that accepts the TCP connection and
/// never answers makes the connect fail in bounded time.
#[tokio::test]
async fn connect_timeout_fails_a_connect_to_a_silent_server() {
    init_tracing();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let held = tokio::spawn(async move {
        let mut sockets = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            sockets.push(socket);
        }
    });
    let started = Instant::now();
    let outcome = within(
        "connect",
        Peer::connect_streamable_http_with_options(
            &format!("http://{addr}/mcp"),
            StreamableHttpOptions {
                connect_timeout: Some(Duration::from_millis(300)),
                ..StreamableHttpOptions::default()
            },
            SpawnOptions::default(),
        ),
    )
    .await;
    match outcome {
        Err(Error::Http(message)) => assert!(message.contains("connect_timeout"), "{message}"),
        other => panic!("expected Error::Http, got {other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(5));
    held.abort();
}

// ----- 9. redirects and proxies ---------------------------------------------------------------

fn redirecting_server() -> impl Fn(Req) -> std::future::Ready<Resp> + Send + Sync + 'static {
    |req: Req| {
        std::future::ready(match (req.method.as_str(), req.path.as_str()) {
            ("GET", _) => Resp::status(405),
            ("POST", "/mcp") => Resp::status(307).header("location", "/moved"),
            _ => echo(&req),
        })
    }
}

/// By default a redirect is not followed: the request fails with `-32000` saying so.
#[tokio::test]
async fn redirects_are_not_followed_by_default() {
    init_tracing();
    let server = Server::start(redirecting_server()).await;
    let client = connect(&server.url("/mcp")).await;
    let (e, status) = bridged(within("tools/list", client.request("tools/list", None)).await);
    assert_eq!(status, Some(307));
    assert!(e.message.contains("redirect"), "{e:?}");
    assert_eq!(server.count(|r| r.path == "/moved"), 0);
    assert!(!client.is_closed());
}

/// With `follow_redirects`, a `307` is followed with the same method and body.
#[tokio::test]
async fn redirects_are_followed_when_asked() {
    init_tracing();
    let server = Server::start(redirecting_server()).await;
    let client = connect_with(
        &server.url("/mcp"),
        StreamableHttpOptions {
            follow_redirects: true,
            ..http_options()
        },
    )
    .await;
    assert_eq!(
        request_ok(&client, "tools/list").await,
        json!({"echo": "tools/list"})
    );
    let moved = server
        .wait_for("the redirected POST", |r| r.path == "/moved")
        .await;
    assert!(moved.is_post_of("tools/list"), "{moved:?}");
}

const PROXY_CHILD: &str = "MCP_JSONRPC_TEST_PROXY_CHILD";

/// The system proxy (`HTTP_PROXY`, `http_proxy`, `ALL_PROXY`…) is not used: a child process
/// of this test binary runs [`proxy_child_reaches_the_server_directly`] with every proxy
/// variable pointing at a listener that records connections; the child's requests reach its
/// server, and the "proxy" sees nothing. (A child process, because the environment is
/// process-wide and other tests run in parallel.)
#[tokio::test]
async fn the_system_proxy_is_not_used() {
    init_tracing();
    let proxy = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let proxy_url = format!("http://{}", proxy.local_addr().unwrap());
    let proxied = Arc::new(AtomicUsize::new(0));
    let counting = tokio::spawn({
        let proxied = proxied.clone();
        async move {
            let mut sockets = Vec::new();
            while let Ok((socket, _)) = proxy.accept().await {
                proxied.fetch_add(1, Ordering::SeqCst);
                sockets.push(socket);
            }
        }
    });
    let mut child = tokio::process::Command::new(std::env::current_exe().unwrap());
    child
        .args([
            "proxy_child_reaches_the_server_directly",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(PROXY_CHILD, "1")
        .env_remove("NO_PROXY")
        .env_remove("no_proxy")
        .kill_on_drop(true);
    for name in [
        "HTTP_PROXY",
        "http_proxy",
        "HTTPS_PROXY",
        "https_proxy",
        "ALL_PROXY",
        "all_proxy",
    ] {
        child.env(name, &proxy_url);
    }
    let output = tokio::time::timeout(Duration::from_secs(60), child.output())
        .await
        .expect("the child test finishes")
        .expect("the child test runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "the child test failed or did not run:\n{stdout}\n{stderr}"
    );
    assert_eq!(
        proxied.load(Ordering::SeqCst),
        0,
        "the client went through the proxy"
    );
    counting.abort();
}

/// Run by [`the_system_proxy_is_not_used`] with the proxy variables set.
#[tokio::test]
#[ignore = "run in a child process by the_system_proxy_is_not_used"]
async fn proxy_child_reaches_the_server_directly() {
    if std::env::var_os(PROXY_CHILD).is_none() {
        return;
    }
    assert!(std::env::var_os("HTTP_PROXY").is_some());
    let server = Server::start(|req: Req| async move {
        if is_get(&req) {
            Resp::status(405)
        } else {
            echo(&req)
        }
    })
    .await;
    let client = connect(&server.url("/mcp")).await;
    assert_eq!(request_ok(&client, "ping").await, json!({"echo": "ping"}));
    server
        .wait_for("the POST, directly", |r| r.is_post_of("ping"))
        .await;
}

// ----- 10. HTTP failures ----------------------------------------------------------------------

/// Failed exchanges become `-32000` errors (with `data.httpStatus` when there was a status);
/// a non-2xx whose body is a JSON-RPC error for the request answers it with that error; none
/// of this closes the connection.
#[tokio::test]
async fn http_failures_are_bridged_to_rpc_errors() {
    init_tracing();
    let server = Server::start(|req: Req| async move {
        let id = req.rpc_id();
        match req.rpc_method().as_deref() {
            _ if is_get(&req) => Resp::status(405),
            Some("html500") => Resp::body(
                500,
                "text/html",
                "<html><body>Internal Server Error</body></html>",
            ),
            Some("plain404") => Resp::status(404),
            Some("rpc404") => Resp::json(404, &error(&id, -32601, "Method not found")),
            Some("rpc400") => Resp::json(
                400,
                &json!({"jsonrpc": "2.0", "id": id, "error": {
                    "code": -32602,
                    "message": "Unsupported protocol version",
                    "data": {"supported": ["2026-07-28"], "requested": "1999-01-01"}
                }}),
            ),
            Some("rpc400-null-id") => Resp::json(
                400,
                &json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Bad Request"}}),
            ),
            Some("other-id") => Resp::json(200, &result(&json!(987_654), json!(1))),
            Some("empty200") => Resp::body(200, "application/json", ""),
            Some("notifications/bad") => Resp::body(500, "text/plain", "nope"),
            _ => echo(&req),
        }
    })
    .await;
    let client = connect(&server.url("/mcp")).await;

    let (e, status) = bridged(within("html500", client.request("html500", None)).await);
    assert_eq!(status, Some(500));
    let body = e.data.as_ref().unwrap()["body"].as_str().unwrap();
    assert!(body.contains("Internal Server Error"), "{e:?}");

    let (_, status) = bridged(within("plain404", client.request("plain404", None)).await);
    assert_eq!(status, Some(404));

    let e = rpc_error(within("rpc404", client.request("rpc404", None)).await);
    assert_eq!(e.code, -32601);
    assert_eq!(e.message, "Method not found");

    let e = rpc_error(within("rpc400", client.request("rpc400", None)).await);
    assert_eq!(e.code, -32602);
    assert_eq!(e.data.unwrap()["supported"], json!(["2026-07-28"]));

    // An error with a null id still answers the request its POST carried, with the
    // server's own code and message, and the HTTP status added.
    let e = rpc_error(within("rpc400-null-id", client.request("rpc400-null-id", None)).await);
    assert_eq!((e.code, e.message.as_str()), (-32600, "Bad Request"));
    assert_eq!(e.data.unwrap()["httpStatus"], 400);

    let (_, status) = bridged(within("other-id", client.request("other-id", None)).await);
    assert_eq!(status, Some(200));
    let (_, status) = bridged(within("empty200", client.request("empty200", None)).await);
    assert_eq!(status, Some(200));

    let note = within("notify", client.notify("notifications/bad", None)).await;
    match note {
        Err(Error::Http(message)) => assert!(message.contains("500"), "{message}"),
        other => panic!("expected Error::Http, got {other:?}"),
    }

    assert!(!client.is_closed());
    assert_eq!(request_ok(&client, "ping").await, json!({"echo": "ping"}));
    assert_eq!(client.stats().pending_requests, 0);
}

/// A POST to a port where nothing listens fails its request with `-32000` (no HTTP status);
/// a connect whose GET cannot reach the server fails with `Error::Http`.
#[tokio::test]
async fn connection_refused_is_bridged() {
    init_tracing();
    let dead = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap()
    };
    let server = Server::start(|req: Req| async move {
        if is_get(&req) {
            Resp::status(405)
        } else {
            echo(&req)
        }
    })
    .await;
    let client = within(
        "connect",
        Peer::connect_streamable_http_split_with_options(
            &server.url("/mcp"),
            &format!("http://{dead}/mcp"),
            http_options(),
            SpawnOptions::default(),
        ),
    )
    .await
    .unwrap();
    let (e, status) = bridged(within("refused", client.request("tools/list", None)).await);
    assert_eq!(status, None);
    assert!(e.message.contains("POST"), "{e:?}");
    assert!(!client.is_closed());

    let outcome = within(
        "connect",
        Peer::connect_streamable_http_with_options(
            &format!("http://{dead}/mcp"),
            http_options(),
            SpawnOptions::default(),
        ),
    )
    .await;
    assert!(matches!(outcome, Err(Error::Http(_))), "{outcome:?}");
}

// ----- 11. ending the session -----------------------------------------------------------------

fn session_server() -> impl Fn(Req) -> std::future::Ready<Resp> + Send + Sync + 'static {
    |req: Req| {
        std::future::ready(match req.method.as_str() {
            "GET" => Resp::status(405),
            "DELETE" => Resp::status(200),
            _ if req.is_post_of("initialize") => echo(&req).header("mcp-session-id", "bye-1"),
            _ => echo(&req),
        })
    }
}

/// `Peer::close()` ends the session with a `DELETE` carrying the session id (and the extra
/// headers); pending requests fail with `Error::Closed`.
#[tokio::test]
async fn close_sends_delete_with_the_session_id() {
    init_tracing();
    let server = Server::start(session_server()).await;
    let mut headers = BTreeMap::new();
    headers.insert("x-tenant".to_owned(), "t1".to_owned());
    let mut client = connect_with(
        &server.url("/mcp"),
        StreamableHttpOptions {
            headers,
            ..http_options()
        },
    )
    .await;
    request_ok(&client, "initialize").await;
    within("close", client.close()).await;
    let delete = server.wait_for("DELETE", |r| r.method == "DELETE").await;
    assert_eq!(delete.header("mcp-session-id"), Some("bye-1"));
    assert_eq!(delete.header("x-tenant"), Some("t1"));
    assert!(client.is_closed());
    let later = within("after close", client.request("x", None)).await;
    assert!(matches!(later, Err(Error::Closed(_))), "{later:?}");
    // A second close sends nothing more.
    within("close again", client.close()).await;
    drop(client);
    request_ok(&connect(&server.url("/mcp")).await, "sync").await;
    assert_eq!(server.count(|r| r.method == "DELETE"), 1);
}

/// Dropping the `Peer` ends the session too (best effort, in the background).
#[tokio::test]
async fn dropping_the_client_sends_delete() {
    init_tracing();
    let server = Server::start(session_server()).await;
    let client = connect(&server.url("/mcp")).await;
    request_ok(&client, "initialize").await;
    drop(client);
    let delete = server
        .wait_for("DELETE after drop", |r| r.method == "DELETE")
        .await;
    assert_eq!(delete.header("mcp-session-id"), Some("bye-1"));
}

// ----- 12. split URLs -------------------------------------------------------------------------

/// With split URLs, GETs (the stream and its resumptions) go to the first URL, POSTs and the
/// DELETE to the second.
#[tokio::test]
async fn split_urls_get_the_first_and_post_the_second() {
    init_tracing();
    let (streams_tx, mut streams) = mpsc::unbounded_channel::<StreamTx>();
    let server = Server::start(move |req: Req| {
        let streams_tx = streams_tx.clone();
        async move {
            match (req.method.as_str(), req.path.as_str()) {
                ("GET", "/events") if req.header("mcp-session-id").is_none() => no_session_yet(),
                ("GET", "/events") => {
                    let (tx, resp) = Resp::sse_stream();
                    let _ = streams_tx.send(tx);
                    resp
                }
                ("POST", "/rpc") if req.is_post_of("initialize") => {
                    echo(&req).header("mcp-session-id", "split-1")
                }
                ("POST", "/rpc") | ("DELETE", "/rpc") => echo(&req),
                _ => Resp::status(418),
            }
        }
    })
    .await;
    let mut client = within(
        "connect",
        Peer::connect_streamable_http_split_with_options(
            &server.url("/events"),
            &server.url("/rpc"),
            http_options(),
            SpawnOptions::default(),
        ),
    )
    .await
    .unwrap();
    let mut requests = client.take_requests().unwrap();
    request_ok(&client, "initialize").await;
    let first = recv("the GET stream", &mut streams).await;
    first.raw("retry: 5\n");
    first.message_with_id("s-1", &request(&json!("q"), "ping", json!({})));
    let incoming = within("ping", requests.recv()).await.unwrap();
    within("answer", incoming.respond_ok(json!({})))
        .await
        .unwrap();
    server
        .wait_for("the answer", |r| r.is_answer_to(&json!("q")))
        .await;
    first.end();
    let _second = recv("the resumed GET stream", &mut streams).await;
    within("close", client.close()).await;
    server.wait_for("DELETE", |r| r.method == "DELETE").await;

    for req in server.requests() {
        let expected = if req.method == "GET" {
            "/events"
        } else {
            "/rpc"
        };
        assert_eq!(req.path, expected, "{req:?}");
    }
    assert!(server.count(is_resume) >= 1);
}

// ----- 13. max_message_bytes ------------------------------------------------------------------

/// A message larger than `max_message_bytes` fails its request with `MessageTooLarge`, as an
/// SSE event (id before or after the big part), a JSON body with `content-length`, or a
/// chunked JSON body; the connection goes on. On the GET stream an oversized event is
/// discarded and counted, and the next event is delivered.
#[tokio::test]
async fn messages_over_max_message_bytes_fail_their_request_only() {
    init_tracing();
    const LIMIT: usize = 1024;
    let big = "x".repeat(4 * LIMIT);
    let (streams_tx, mut streams) = mpsc::unbounded_channel::<StreamTx>();
    let server = Server::start(move |req: Req| {
        let big = big.clone();
        let streams_tx = streams_tx.clone();
        async move {
            let id = req.rpc_id();
            match req.rpc_method().as_deref() {
                _ if is_get(&req) => {
                    let (tx, resp) = Resp::sse_stream();
                    let _ = streams_tx.send(tx);
                    resp
                }
                Some("sse-big") => Resp::sse(format!(
                    "id: 1\ndata: \n\ndata: {}\n\n",
                    result(&id, json!({"blob": big}))
                )),
                Some("sse-big-id-last") => Resp::sse(format!(
                    "data: {{\"jsonrpc\":\"2.0\",\"result\":{{\"blob\":\"{big}\"}},\"id\":{id}}}\n\n"
                )),
                Some("json-big") => Resp::json(200, &result(&id, json!({"blob": big}))),
                Some("chunked-big") => {
                    let (tx, resp) = Resp::stream(200, "application/json");
                    let body = result(&id, json!({"blob": big})).to_string().into_bytes();
                    for piece in body.chunks(500) {
                        tx.raw(piece.to_vec());
                    }
                    tx.end();
                    resp
                }
                _ => echo(&req),
            }
        }
    })
    .await;
    let mut client = within(
        "connect",
        Peer::connect_streamable_http_with_options(
            &server.url("/mcp"),
            http_options(),
            SpawnOptions {
                limits: Limits {
                    max_message_bytes: LIMIT,
                    ..Limits::default()
                },
                ..SpawnOptions::default()
            },
        ),
    )
    .await
    .unwrap();
    let mut notifications = client.take_notifications().unwrap();
    let get_stream = recv("the GET stream", &mut streams).await;
    for method in ["sse-big", "sse-big-id-last", "json-big", "chunked-big"] {
        let outcome = within(method, client.request(method, None)).await;
        assert!(
            matches!(outcome, Err(Error::MessageTooLarge { limit: LIMIT })),
            "{method}: {outcome:?}"
        );
        assert_eq!(request_ok(&client, "small").await, json!({"echo": "small"}));
    }
    assert_eq!(client.stats().oversized_messages, 4);

    get_stream.message(&notification(
        "notifications/message",
        json!({"blob": "y".repeat(2 * LIMIT)}),
    ));
    get_stream.message(&notification(
        "notifications/message",
        json!({"small": true}),
    ));
    let note = within("the small notification", notifications.recv())
        .await
        .unwrap();
    assert_eq!(note.params_value(), json!({"small": true}));
    assert_eq!(client.stats().oversized_messages, 5);
    assert!(!client.is_closed());
    assert_eq!(client.stats().pending_requests, 0);
}

// ----- 14. bad URLs ---------------------------------------------------------------------------

/// An unparsable URL, a non-http scheme or a bad header fails the connect with a clear
/// `Error::Http`, without any network traffic.
#[tokio::test]
async fn invalid_urls_and_headers_fail_at_connect() {
    init_tracing();
    let cases: [(&str, &str, StreamableHttpOptions); 5] = [
        ("not a url", "invalid", StreamableHttpOptions::default()),
        ("", "invalid", StreamableHttpOptions::default()),
        (
            "ftp://127.0.0.1/mcp",
            "scheme `ftp`",
            StreamableHttpOptions::default(),
        ),
        (
            "file:///tmp/mcp",
            "scheme `file`",
            StreamableHttpOptions::default(),
        ),
        (
            "http://127.0.0.1:1/mcp",
            "header",
            StreamableHttpOptions {
                headers: BTreeMap::from([("bad header".to_owned(), "v".to_owned())]),
                ..StreamableHttpOptions::default()
            },
        ),
    ];
    for (url, expected, options) in cases {
        let outcome = within(
            "connect",
            Peer::connect_streamable_http_with_options(url, options, SpawnOptions::default()),
        )
        .await;
        match outcome {
            Err(Error::Http(message)) => {
                assert!(message.contains(expected), "{url:?}: {message}")
            }
            other => panic!("{url:?}: expected Error::Http, got {other:?}"),
        }
    }
    let outcome = within(
        "connect",
        Peer::connect_streamable_http_split_with_options(
            "http://127.0.0.1:1/sse",
            "ws://127.0.0.1:1/mcp",
            StreamableHttpOptions::default(),
            SpawnOptions::default(),
        ),
    )
    .await;
    match outcome {
        Err(Error::Http(message)) => assert!(message.contains("http_url"), "{message}"),
        other => panic!("expected Error::Http, got {other:?}"),
    }
}

/// Per-request headers go on that request's POST only; invalid ones are refused up front.
#[tokio::test]
async fn per_request_headers_go_on_that_post_only() {
    init_tracing();
    let server = Server::start(|req: Req| async move {
        if is_get(&req) {
            Resp::status(405)
        } else {
            echo(&req)
        }
    })
    .await;
    let client = connect(&server.url("/mcp")).await;
    let pending = client
        .handle()
        .start_request_with_headers(
            "tools/call",
            Some(&json!({"name": "x"})),
            vec![
                ("Mcp-Method".into(), "tools/call".into()),
                ("Mcp-Name".into(), "x".into()),
            ],
        )
        .await
        .unwrap();
    within("the answer", pending).await.unwrap();
    let post = server
        .wait_for("the tools/call POST", |r| r.is_post_of("tools/call"))
        .await;
    assert_eq!(post.header("mcp-method"), Some("tools/call"));
    assert_eq!(post.header("mcp-name"), Some("x"));
    assert_eq!(request_ok(&client, "ping").await, json!({"echo": "ping"}));
    let ping = server
        .wait_for("the ping POST", |r| r.is_post_of("ping"))
        .await;
    assert_eq!(ping.header("mcp-method"), None);
    for bad in [("bad name", "v"), ("x-ok", "line\nbreak")] {
        let error = client
            .handle()
            .start_request_with_headers::<Value>("ping", None, vec![(bad.0.into(), bad.1.into())])
            .await
            .expect_err("refused");
        assert!(matches!(error, Error::InvalidArgument(_)), "{error}");
    }
}

/// A session id on a refused exchange is not a session: the Python SDK sends one on the 400
/// that refuses a pre-session GET and then answers 404 to requests carrying it.
#[tokio::test]
async fn a_session_id_on_an_error_response_is_not_adopted() {
    init_tracing();
    let server = Server::start(|req: Req| async move {
        if is_get(&req) {
            no_session_yet().header("mcp-session-id", "minted-and-forgotten")
        } else {
            echo(&req)
        }
    })
    .await;
    let client = connect(&server.url("/mcp")).await;
    assert_eq!(
        request_ok(&client, "initialize").await,
        json!({"echo": "initialize"})
    );
    let post = server
        .wait_for("the initialize POST", |r| r.is_post_of("initialize"))
        .await;
    assert_eq!(post.header("mcp-session-id"), None);
    assert_eq!(client.handle().session_id(), None);
}

/// `stop_get_stream` lets the GET stream go (the server sees the client leave), does not close
/// the connection, and no later `202` reopens it.
#[tokio::test]
async fn a_stopped_get_stream_is_released_and_never_reopened() {
    init_tracing();
    let (gone_tx, gone) = oneshot::channel::<()>();
    let gone_tx = std::sync::Mutex::new(Some(gone_tx));
    let gone_tx = Arc::new(gone_tx);
    let server = Server::start(move |req: Req| {
        let gone_tx = gone_tx.clone();
        async move {
            if is_get(&req) {
                let (tx, resp) = Resp::sse_stream();
                std::mem::forget(tx);
                match gone_tx.lock().unwrap().take() {
                    Some(g) => resp.on_client_gone(g),
                    None => resp,
                }
            } else if req.is_post_of("notifications/initialized") {
                Resp::status(202)
            } else {
                echo(&req)
            }
        }
    })
    .await;
    let client = connect(&server.url("/mcp")).await;
    server.wait_for("the GET stream", is_get).await;
    client.handle().stop_get_stream();
    within("the client leaving the GET stream", gone)
        .await
        .unwrap();
    client
        .notify("notifications/initialized", None)
        .await
        .unwrap();
    assert_eq!(request_ok(&client, "ping").await, json!({"echo": "ping"}));
    assert!(!client.is_closed());
    let gets = server.requests().into_iter().filter(is_get).count();
    assert_eq!(gets, 1, "the GET stream was not reopened");
}

/// An SSE response stream that breaks while an event over `max_message_bytes` is being
/// discarded fails its request with `MessageTooLarge`, naming the limit — not with the
/// transport's bare "error decoding response body".
#[tokio::test]
async fn a_stream_broken_inside_an_oversized_event_names_the_limit() {
    init_tracing();
    const LIMIT: usize = 1024;
    let server = Server::start(move |req: Req| async move {
        let id = req.rpc_id();
        match req.rpc_method().as_deref() {
            _ if is_get(&req) => Resp::status(405),
            Some("big-then-broken") => {
                let (tx, resp) = Resp::sse_stream();
                tx.raw(format!(
                    "data: {{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"blob\":\"{}",
                    "x".repeat(4 * LIMIT)
                ));
                tx.abort();
                resp
            }
            _ => echo(&req),
        }
    })
    .await;
    let client = within(
        "connect",
        Peer::connect_streamable_http_with_options(
            &server.url("/mcp"),
            http_options(),
            SpawnOptions {
                limits: Limits {
                    max_message_bytes: LIMIT,
                    ..Limits::default()
                },
                ..SpawnOptions::default()
            },
        ),
    )
    .await
    .unwrap();
    let outcome = within(
        "the broken request",
        client.request("big-then-broken", None),
    )
    .await;
    let error = outcome.unwrap_err();
    assert!(
        matches!(error, Error::MessageTooLarge { limit: LIMIT }),
        "{error:?}"
    );
    assert!(
        error.to_string().contains("max_message_bytes (1024 bytes)"),
        "{error}"
    );
    assert_eq!(request_ok(&client, "small").await, json!({"echo": "small"}));
}

/// Connection errors name the URL without its secrets: a token in the query (or userinfo)
/// does not reach the error text a CLI prints.
#[tokio::test]
async fn connection_errors_do_not_show_the_url_s_secrets() {
    init_tracing();
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let url = format!("http://user:hunter2@127.0.0.1:{port}/mcp?token=s3cret&x=1");
    let shown = match Peer::connect_streamable_http_with_options(
        &url,
        http_options(),
        SpawnOptions::default(),
    )
    .await
    {
        Err(e) => e.to_string(),
        Ok(client) => client
            .request("ping", None)
            .await
            .expect_err("nothing listens there")
            .to_string(),
    };
    assert!(!shown.contains("s3cret"), "{shown}");
    assert!(!shown.contains("hunter2"), "{shown}");
    assert!(shown.contains(&format!("127.0.0.1:{port}/mcp")), "{shown}");
}
