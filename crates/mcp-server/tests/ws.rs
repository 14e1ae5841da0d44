//! The WebSocket transport over real sockets, driven by a tokio-tungstenite client against
//! `Server::bind_http`: both eras on one connection, progress, elicitation, `list_changed`,
//! bad frames, the size limit, the `Origin` allowlist, authentication, the heartbeat,
//! cancellation when the client leaves, and graceful shutdown.

mod tools_support;

use tools_support::MessageClient as _;

use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt as _, StreamExt as _};
use mcp_server::auth::{Principal, StaticTokens};
use mcp_server::{Error, HttpOptions, HttpServer, NoArguments, Server, ToolDef};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;
use tokio::sync::{Notify, mpsc};
use tokio_tungstenite::tungstenite::client::IntoClientRequest as _;
use tokio_tungstenite::tungstenite::http::{HeaderValue, StatusCode};
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{CloseCode, Data, OpCode};
use tokio_tungstenite::tungstenite::{self, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// Bounds every wait on the server, so that a bug fails the test instead of hanging it.
const PATIENCE: Duration = Duration::from_secs(10);

#[derive(Deserialize, JsonSchema)]
struct Echo {
    message: String,
}

/// What the `gate` tool reports to the test.
#[derive(Debug, PartialEq)]
enum Gate {
    Cancelled,
}

struct Fixture {
    server: Server,
    http: HttpServer,
    /// Opens the `gate` tool.
    open: Arc<Notify>,
    /// What the `gate` tool saw.
    gate: mpsc::UnboundedReceiver<Gate>,
}

async fn start(options: HttpOptions) -> Fixture {
    let open = Arc::new(Notify::new());
    let (seen, gate) = mpsc::unbounded_channel();
    let builder = Server::builder("ws-test", "1.0.0")
        .tool("echo", "Echoes", |a: Echo, _| async move { Ok(a.message) })
        .tool(
            "count",
            "Reports progress 1..=3",
            |_: NoArguments, cx| async move {
                for i in 1..=3 {
                    cx.progress(f64::from(i), Some(3.0), None).await;
                }
                Ok("counted")
            },
        );
    let server = tools_support::with_ask(builder)
        .tool("gate", "Waits until the test opens it", {
            let open = open.clone();
            move |_: NoArguments, cx| {
                let open = open.clone();
                let seen = seen.clone();
                async move {
                    cx.progress(0.0, None, Some("waiting")).await;
                    tokio::select! {
                        _ = open.notified() => Ok("opened"),
                        _ = cx.cancelled() => {
                            let _ = seen.send(Gate::Cancelled);
                            Err(Error::cancelled())
                        }
                    }
                }
            }
        })
        .build();
    let http = server
        .bind_http(("127.0.0.1", 0), options)
        .await
        .expect("bind 127.0.0.1:0");
    Fixture {
        server,
        http,
        open,
        gate,
    }
}

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

struct Client {
    socket: Socket,
}

/// Connects to `/ws` offering the `mcp` subprotocol.
async fn connect(http: &HttpServer) -> Client {
    let (client, response) = try_connect(http, &[("Sec-WebSocket-Protocol", "mcp")])
        .await
        .expect("the upgrade is accepted");
    assert_eq!(
        response.headers().get("sec-websocket-protocol"),
        Some(&HeaderValue::from_static("mcp")),
        "the server selects the offered subprotocol"
    );
    client
}

async fn try_connect(
    http: &HttpServer,
    headers: &[(&'static str, &str)],
) -> Result<(Client, tungstenite::handshake::client::Response), tungstenite::Error> {
    let mut request = format!("ws://{}/ws", http.local_addr())
        .into_client_request()
        .unwrap();
    for (name, value) in headers {
        request
            .headers_mut()
            .insert(*name, HeaderValue::from_str(value).unwrap());
    }
    let (socket, response) = tokio_tungstenite::connect_async(request).await?;
    Ok((Client { socket }, response))
}

/// The HTTP status of a refused upgrade.
fn refused_status(
    result: Result<(Client, impl std::fmt::Debug), tungstenite::Error>,
) -> StatusCode {
    match result {
        Err(tungstenite::Error::Http(response)) => response.status(),
        Err(other) => panic!("expected an HTTP refusal, got {other}"),
        Ok((_, response)) => panic!("expected a refusal, the upgrade succeeded: {response:?}"),
    }
}

impl Client {
    async fn send_text(&mut self, text: &str) {
        self.socket.send(Message::text(text)).await.unwrap();
    }

    /// The next frame that is not a ping or pong.
    async fn frame(&mut self) -> Message {
        loop {
            let frame = tokio::time::timeout(PATIENCE, self.socket.next())
                .await
                .expect("a frame within the patience")
                .expect("the connection is open")
                .expect("a readable frame");
            if !matches!(frame, Message::Ping(_) | Message::Pong(_)) {
                return frame;
            }
        }
    }

    /// The close frame's code and reason.
    async fn closed(&mut self) -> (u16, String) {
        match self.frame().await {
            Message::Close(Some(frame)) => (u16::from(frame.code), frame.reason.to_string()),
            other => panic!("expected a close frame, got {other:?}"),
        }
    }
}

impl tools_support::MessageClient for Client {
    async fn send(&mut self, message: Value) {
        self.send_text(&message.to_string()).await;
    }

    /// The next JSON-RPC message.
    async fn recv(&mut self) -> Value {
        match self.frame().await {
            Message::Text(text) => serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("not JSON ({e}): {}", text.as_str())),
            other => panic!("expected a text frame, got {other:?}"),
        }
    }
}

const LEGACY: &str = "2025-11-25";

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "ws-test-client", "version": "1"}
    })
}

fn code(response: &Value) -> i64 {
    response["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("an error response: {response}"))
}

fn message(response: &Value) -> &str {
    response["error"]["message"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn initialize_list_call_progress_and_the_2026_era_on_one_socket() {
    let f = start(HttpOptions::default()).await;
    let mut c = connect(&f.http).await;

    let init = c.initialize(LEGACY, json!({})).await;
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(init["result"]["serverInfo"]["name"], "ws-test");

    let (r, _) = c.call(1, "tools/list", json!({})).await;
    let names: Vec<&str> = r["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["echo", "count", "ask", "gate"]);

    let (r, _) = c
        .call_tool(
            2,
            json!({"name": "echo", "arguments": {"message": "over a socket"}}),
        )
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "over a socket");

    let (r, before) = c
        .call_tool(3, json!({"name": "count", "_meta": {"progressToken": "p"}}))
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "counted");
    let progress: Vec<(&str, f64)> = before
        .iter()
        .map(|m| {
            assert_eq!(m["method"], "notifications/progress", "{m}");
            (
                m["params"]["progressToken"].as_str().unwrap(),
                m["params"]["progress"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(progress, [("p", 1.0), ("p", 2.0), ("p", 3.0)]);

    // A 2026-07-28 request on the same socket is served from its own `_meta`.
    let (r, _) = c.call(4, "tools/list", json!({"_meta": meta()})).await;
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    assert_eq!(r["result"]["tools"].as_array().unwrap().len(), 4);
    let (r, _) = c
        .call_tool(
            5,
            json!({"name": "echo", "arguments": {"message": "stateless"}, "_meta": meta()}),
        )
        .await;
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    assert_eq!(r["result"]["content"][0]["text"], "stateless");
    // And the stateful session is still there.
    let (r, _) = c.call(6, "ping", json!({})).await;
    assert_eq!(r["result"], json!({}));
}

#[tokio::test]
async fn bad_frames_get_error_replies_and_the_connection_goes_on() {
    let f = start(HttpOptions::default()).await;
    let mut c = connect(&f.http).await;

    // Before initialize: -32600 naming initialize.
    let (r, _) = c.call(1, "tools/list", json!({})).await;
    assert_eq!(code(&r), -32600, "{r}");
    assert!(message(&r).contains("initialize"), "{r}");
    c.initialize(LEGACY, json!({})).await;

    // Not JSON: -32700 with a null id.
    c.send_text("{not json").await;
    let r = c.recv().await;
    assert_eq!(code(&r), -32700, "{r}");
    assert_eq!(r["id"], Value::Null);
    c.send_text("").await;
    assert_eq!(code(&c.recv().await), -32700);
    // JSON, not a JSON-RPC request: -32600 with the id.
    c.send_text(r#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#)
        .await;
    let r = c.recv().await;
    assert_eq!(code(&r), -32600, "{r}");
    assert_eq!(r["id"], 7);
    // A binary frame: -32600 saying to use text frames.
    c.socket
        .send(Message::binary(
            br#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#.to_vec(),
        ))
        .await
        .unwrap();
    let r = c.recv().await;
    assert_eq!(code(&r), -32600, "{r}");
    assert!(message(&r).contains("text frame"), "{r}");
    // Unknown method.
    let (r, _) = c.call(9, "tools/frobnicate", json!({})).await;
    assert_eq!(code(&r), -32601, "{r}");

    // Still serving.
    let (r, _) = c
        .call_tool(
            10,
            json!({"name": "echo", "arguments": {"message": "still here"}}),
        )
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "still here");
}

#[tokio::test]
async fn an_oversized_message_is_refused_naming_the_limit_and_closed_with_1009() {
    let mut options = HttpOptions::default();
    options.websocket_max_message_bytes = Some(64 * 1024);
    let f = start(options).await;
    let mut c = connect(&f.http).await;
    c.initialize(LEGACY, json!({})).await;

    // Just under the limit is served.
    let fits = "x".repeat(60 * 1024);
    let (r, _) = c
        .call_tool(1, json!({"name": "echo", "arguments": {"message": fits}}))
        .await;
    assert_eq!(r["result"]["content"][0]["text"], fits.as_str());

    let big = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                     "params": {"name": "echo", "arguments": {"message": "y".repeat(70 * 1024)}}});
    c.send(big).await;
    let r = c.recv().await;
    assert_eq!(code(&r), -32600, "{r}");
    assert!(message(&r).contains("65536 bytes"), "{r}");
    let (close, reason) = c.closed().await;
    assert_eq!(close, 1009);
    assert!(reason.contains("65536"), "{reason}");
}

#[tokio::test]
async fn frames_the_library_cannot_read_past_close_the_connection_with_their_code() {
    let mut options = HttpOptions::default();
    options.websocket_max_message_bytes = Some(64 * 1024);
    let f = start(options).await;

    // A text frame that is not UTF-8: 1007.
    let mut c = connect(&f.http).await;
    c.initialize(LEGACY, json!({})).await;
    let frame = Frame::message(vec![b'"', 0xff, 0xfe, b'"'], OpCode::Data(Data::Text), true);
    c.socket.send(Message::Frame(frame)).await.unwrap();
    let (close, _) = c.closed().await;
    assert_eq!(close, 1007);

    // A message over the limit in fragments that are each under it: 1009, as for one frame.
    let mut c = connect(&f.http).await;
    c.initialize(LEGACY, json!({})).await;
    let half = vec![b' '; 40 * 1024];
    let first = Frame::message(half.clone(), OpCode::Data(Data::Text), false);
    c.socket.send(Message::Frame(first)).await.unwrap();
    let rest = Frame::message(half, OpCode::Data(Data::Continue), true);
    c.socket.send(Message::Frame(rest)).await.unwrap();
    let r = c.recv().await;
    assert_eq!(code(&r), -32600, "{r}");
    let (close, _) = c.closed().await;
    assert_eq!(close, 1009);
}

#[tokio::test]
async fn host_origin_and_subprotocol_are_checked_at_the_upgrade() {
    let f = start(HttpOptions::default()).await;
    let status = refused_status(try_connect(&f.http, &[("Origin", "http://evil.example")]).await);
    assert_eq!(status, StatusCode::FORBIDDEN);
    let status = refused_status(try_connect(&f.http, &[("Host", "evil.example")]).await);
    assert_eq!(status, StatusCode::FORBIDDEN);
    // A loopback origin is fine.
    let (mut c, _) = try_connect(&f.http, &[("Origin", "http://localhost:3000")])
        .await
        .expect("an allowed origin");
    c.initialize(LEGACY, json!({})).await;

    // No subprotocol offered: accepted, none selected.
    let (mut c, response) = try_connect(&f.http, &[]).await.expect("no subprotocol");
    assert!(response.headers().get("sec-websocket-protocol").is_none());
    c.initialize(LEGACY, json!({})).await;
    // `mcp` among others: `mcp` is selected.
    let (_, response) = try_connect(&f.http, &[("Sec-WebSocket-Protocol", "graphql-ws, mcp")])
        .await
        .expect("mcp among others");
    assert_eq!(response.headers()["sec-websocket-protocol"], "mcp");
    // Only foreign subprotocols: 400.
    let status =
        refused_status(try_connect(&f.http, &[("Sec-WebSocket-Protocol", "graphql-ws")]).await);
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // A plain GET (no upgrade) gets an error saying what the endpoint is.
    let url = format!("http://{}/ws", f.http.local_addr());
    let response = reqwest::get(&url).await.unwrap();
    assert!(response.status().is_client_error(), "{}", response.status());
    let body = response.text().await.unwrap();
    assert!(body.contains("WebSocket endpoint"), "{body}");
}

#[tokio::test]
async fn the_upgrade_is_authenticated_and_the_session_belongs_to_the_principal() {
    let mut options = HttpOptions::default();
    options.auth = Some(Arc::new(
        StaticTokens::new().token("s3cret", Principal::new("alice", ["tools"])),
    ));
    let f = start(options).await;
    let status = refused_status(try_connect(&f.http, &[]).await);
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let status = refused_status(try_connect(&f.http, &[("Authorization", "Bearer wrong")]).await);
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (mut c, _) = try_connect(&f.http, &[("Authorization", "Bearer s3cret")])
        .await
        .expect("a valid token");
    c.initialize(LEGACY, json!({})).await;
    let (r, _) = c.call(1, "tools/list", json!({})).await;
    assert!(r["result"]["tools"].is_array(), "{r}");
}

#[tokio::test]
async fn elicitation_is_a_request_over_the_socket() {
    let f = start(HttpOptions::default()).await;
    let mut c = connect(&f.http).await;
    c.initialize(LEGACY, json!({"elicitation": {}})).await;
    c.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ask"}}))
        .await;
    let request = c.recv().await;
    assert_eq!(request["method"], "elicitation/create", "{request}");
    assert_eq!(request["params"]["message"], "Name?");
    c.send(json!({"jsonrpc": "2.0", "id": request["id"],
                  "result": {"action": "accept", "content": {"name": "Ada"}}}))
        .await;
    let r = c.recv().await;
    assert_eq!(r["id"], 1);
    assert_eq!(r["result"]["content"][0]["text"], r#"hello "Ada""#);
}

#[tokio::test]
async fn list_changed_reaches_the_socket_after_add_tool() {
    let f = start(HttpOptions::default()).await;
    let mut c = connect(&f.http).await;
    c.initialize(LEGACY, json!({})).await;
    f.server.add_tool(ToolDef::new(
        "late",
        "Added at run time",
        |_: NoArguments, _| async { Ok("late") },
    ));
    let n = c.recv().await;
    assert_eq!(n["method"], "notifications/tools/list_changed", "{n}");
    let (r, _) = c.call_tool(1, json!({"name": "late"})).await;
    assert_eq!(r["result"]["content"][0]["text"], "late");
}

#[tokio::test]
async fn closing_the_socket_cancels_requests_in_flight() {
    let mut f = start(HttpOptions::default()).await;
    let mut c = connect(&f.http).await;
    c.initialize(LEGACY, json!({})).await;
    c.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                  "params": {"name": "gate", "_meta": {"progressToken": 1}}}))
        .await;
    let started = c.recv().await;
    assert_eq!(started["method"], "notifications/progress", "{started}");
    c.socket.close(None).await.unwrap();
    let seen = tokio::time::timeout(PATIENCE, f.gate.recv())
        .await
        .expect("the handler is cancelled");
    assert_eq!(seen, Some(Gate::Cancelled));
}

#[tokio::test]
async fn shutdown_answers_requests_in_flight_then_closes_with_1001() {
    let f = start(HttpOptions::default()).await;
    let mut c = connect(&f.http).await;
    c.initialize(LEGACY, json!({})).await;
    c.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                  "params": {"name": "gate", "_meta": {"progressToken": 1}}}))
        .await;
    let started = c.recv().await;
    assert_eq!(started["method"], "notifications/progress", "{started}");
    f.server.shutdown();
    f.server.shutting_down().await;
    // Serving does not end while the upgraded connection still has a request in flight.
    let mut waiting = tokio::spawn(f.http.wait());
    assert!(
        tokio::time::timeout(Duration::from_millis(100), &mut waiting)
            .await
            .is_err(),
        "wait() returned while a WebSocket request was in flight"
    );
    f.open.notify_one();
    let r = c.recv().await;
    assert_eq!(r["id"], 1, "{r}");
    assert_eq!(r["result"]["content"][0]["text"], "opened");
    let (close, reason) = c.closed().await;
    assert_eq!(close, u16::from(CloseCode::Away));
    assert!(reason.contains("shutting down"), "{reason}");
    tokio::time::timeout(PATIENCE, waiting)
        .await
        .expect("serving ends once the connection closed")
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn a_client_that_answers_pings_stays_connected() {
    let mut options = HttpOptions::default();
    options.websocket_ping_interval = Some(Duration::from_millis(100));
    let f = start(options).await;
    let mut c = connect(&f.http).await;
    c.initialize(LEGACY, json!({})).await;
    // Reading answers pings (the client library sends the pongs); five pings are more than a
    // client that never answers survives.
    let mut pings = 0;
    while pings < 5 {
        let frame = tokio::time::timeout(PATIENCE, c.socket.next())
            .await
            .expect("a ping within the patience")
            .expect("open")
            .expect("readable");
        match frame {
            Message::Ping(_) => pings += 1,
            other => panic!("only pings are expected: {other:?}"),
        }
    }
    let (r, _) = c.call(1, "ping", json!({})).await;
    assert_eq!(r["result"], json!({}));
}

#[tokio::test]
async fn a_client_that_never_answers_pings_is_closed_with_1011() {
    let mut options = HttpOptions::default();
    options.websocket_ping_interval = Some(Duration::from_millis(20));
    let f = start(options).await;
    // A raw socket: the handshake by hand, then frames read without ever answering.
    let mut tcp = TcpStream::connect(f.http.local_addr()).await.unwrap();
    let request = format!(
        "GET /ws HTTP/1.1\r\nHost: {}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\
         Sec-WebSocket-Protocol: mcp\r\n\r\n",
        f.http.local_addr()
    );
    tcp.write_all(request.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        head.push(tcp.read_u8().await.unwrap());
    }
    let head = String::from_utf8(head).unwrap();
    assert!(head.starts_with("HTTP/1.1 101"), "{head}");

    let mut pings = 0;
    let (code, reason) = loop {
        let (opcode, payload) = tokio::time::timeout(PATIENCE, read_frame(&mut tcp))
            .await
            .expect("a frame within the patience");
        match opcode {
            0x9 => pings += 1,
            0x8 => {
                let code = u16::from_be_bytes([payload[0], payload[1]]);
                break (code, String::from_utf8_lossy(&payload[2..]).into_owned());
            }
            other => panic!("unexpected opcode {other:#x}"),
        }
    };
    assert_eq!(pings, 2, "closed after two unanswered pings");
    assert_eq!(code, 1011);
    assert!(reason.contains("ping"), "{reason}");
}

/// One unmasked frame from the server (control frames and short messages only).
async fn read_frame(tcp: &mut TcpStream) -> (u8, Vec<u8>) {
    let first = tcp.read_u8().await.unwrap();
    let len = tcp.read_u8().await.unwrap();
    assert!(len < 126, "a short frame");
    let mut payload = vec![0; usize::from(len)];
    tcp.read_exact(&mut payload).await.unwrap();
    (first & 0x0f, payload)
}
