//! The server over a byte stream (what `serve_stdio` runs on stdin/stdout), driven line by
//! line: the malformed-request matrix, both eras, progress, logging, cancellation, client
//! requests, multi round-trip requests, pagination, run-time registration, and a clean end
//! of input.

mod tools_support;

use tools_support::MessageClient as _;

use std::time::Duration;

use mcp_server::schema::LoggingLevel;
use mcp_server::{
    Error, Json, NoArguments, PromptDef, ResourceDef, Server, ServerOptions, ToolDef,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};
use tokio::task::JoinHandle;

const LIMIT: usize = 64 * 1024;

#[derive(Deserialize, JsonSchema)]
struct Echo {
    message: String,
}

#[derive(Deserialize, JsonSchema)]
struct Add {
    a: i64,
    b: i64,
}

#[derive(Serialize, JsonSchema)]
struct Sum {
    sum: i64,
}

#[derive(Deserialize, JsonSchema)]
struct Wait {
    ms: u64,
}

fn server() -> Server {
    let mut options = ServerOptions::default();
    options.page_size = 2;
    options.max_message_bytes = LIMIT;
    let builder = Server::builder("stdio-test", "1.0.0")
        .options(options)
        .tool("echo", "Echoes", |a: Echo, _| async move { Ok(a.message) })
        .tool("add", "Adds", |a: Add, _| async move {
            Ok(Json(Sum { sum: a.a + a.b }))
        })
        .tool("fail", "Fails", |_: NoArguments, _| async {
            Err::<String, _>(Error::msg("it broke"))
        })
        .tool("panic", "Panics", |_: NoArguments, _| async {
            if true {
                panic!("handler panic for the test");
            }
            Ok("unreachable")
        })
        .tool(
            "wait",
            "Waits, reporting progress and logging",
            |a: Wait, cx| async move {
                cx.progress(1.0, Some(2.0), Some("started")).await;
                cx.log(LoggingLevel::Info, None, "waiting").await;
                cx.log(LoggingLevel::Debug, None, "debug detail").await;
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(a.ms)) => {}
                    _ = cx.cancelled() => return Err(Error::cancelled()),
                }
                cx.progress(2.0, Some(2.0), Some("done")).await;
                Ok("waited")
            },
        );
    tools_support::with_ask(builder)
        .resource(ResourceDef::text("test://a", "a", "text/plain", "A"))
        .prompt(
            PromptDef::new("greet", |args, _| async move {
                Ok(format!("Hi {}", args["name"]))
            })
            .description("Greets")
            .argument("name", "Who", true),
        )
        .build()
}

struct Wire {
    write: tokio::io::WriteHalf<DuplexStream>,
    lines: Lines<BufReader<tokio::io::ReadHalf<DuplexStream>>>,
    serving: JoinHandle<std::io::Result<()>>,
}

impl Wire {
    fn start(server: &Server) -> Self {
        let (ours, theirs) = tokio::io::duplex(1 << 20);
        let (their_read, their_write) = tokio::io::split(theirs);
        let server = server.clone();
        let serving = tokio::spawn(async move { server.serve_io(their_read, their_write).await });
        let (read, write) = tokio::io::split(ours);
        Self {
            write,
            lines: BufReader::new(read).lines(),
            serving,
        }
    }

    async fn send_raw(&mut self, line: &str) {
        self.write.write_all(line.as_bytes()).await.unwrap();
        self.write.write_all(b"\n").await.unwrap();
    }
}

impl tools_support::MessageClient for Wire {
    async fn send(&mut self, message: Value) {
        self.send_raw(&message.to_string()).await;
    }

    async fn recv(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(10), self.lines.next_line())
            .await
            .expect("a message within 10 s")
            .unwrap()
            .expect("the server is still writing");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }
}

fn meta(caps: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": caps,
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}
    })
}

fn code(response: &Value) -> i64 {
    response["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("an error response: {response}"))
}

#[tokio::test]
async fn malformed_requests_get_the_errors_the_spec_names_and_serving_goes_on() {
    let server = server();
    let mut w = Wire::start(&server);

    // Before initialize.
    let (r, _) = w.call(1, "tools/list", json!({})).await;
    assert_eq!(code(&r), -32600, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("initialize")
    );

    let init = w.initialize("2025-11-25", json!({})).await;
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(init["result"]["serverInfo"]["name"], "stdio-test");

    // Not JSON: -32700, id null.
    w.send_raw("{not json").await;
    let r = w.recv().await;
    assert_eq!(code(&r), -32700);
    assert_eq!(r["id"], Value::Null);
    // JSON, not a request: -32600.
    w.send_raw(r#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#)
        .await;
    let r = w.recv().await;
    assert_eq!(code(&r), -32600);
    assert_eq!(r["id"], 7);
    // Unknown method.
    let (r, _) = w.call(2, "tools/frobnicate", json!({})).await;
    assert_eq!(code(&r), -32601);
    // Bad params: not an object, wrong types (the path is named).
    let (r, _) = w.call_tool(3, json!([1, 2])).await;
    assert_eq!(code(&r), -32602);
    let (r, _) = w.call_tool(4, json!({"name": 5})).await;
    assert_eq!(code(&r), -32602);
    let (r, _) = w.call_tool(5, json!({"name": "nope"})).await;
    assert_eq!(code(&r), -32602);
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Unknown tool: nope")
    );
    // Invalid tool arguments: a tool error naming the path (2025-11-25, SEP-1303).
    let (r, _) = w
        .call_tool(6, json!({"name": "add", "arguments": {"a": "x", "b": 1}}))
        .await;
    assert_eq!(r["result"]["isError"], true, "{r}");
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("/a"), "{text}");
    // Oversized line: -32600 with the request's id.
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{{"name":"echo","arguments":{{"message":"{}"}}}}}}"#,
        "x".repeat(LIMIT + 10)
    );
    w.send_raw(&big).await;
    let r = w.recv().await;
    assert_eq!(code(&r), -32600);
    assert_eq!(r["id"], 99);
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("too large")
    );
    // Missing prompt argument, unknown resource (-32002 in the stateful era).
    let (r, _) = w.call(8, "prompts/get", json!({"name": "greet"})).await;
    assert_eq!(code(&r), -32602);
    let (r, _) = w
        .call(9, "resources/read", json!({"uri": "test://none"}))
        .await;
    assert_eq!(code(&r), -32002);
    assert_eq!(r["error"]["data"]["uri"], "test://none");
    // A tool error and a panicking handler.
    let (r, _) = w.call_tool(10, json!({"name": "fail"})).await;
    assert_eq!(r["result"]["isError"], true);
    assert_eq!(r["result"]["content"][0]["text"], "it broke");
    let (r, _) = w.call_tool(11, json!({"name": "panic"})).await;
    assert_eq!(code(&r), -32603);
    // A 2026 request with an unsupported version, or without capabilities.
    let mut m = meta(json!({}));
    m["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let (r, _) = w.call(12, "tools/list", json!({"_meta": m})).await;
    assert_eq!(code(&r), -32022);
    assert_eq!(r["error"]["data"]["requested"], "2099-01-01");
    assert!(
        r["error"]["data"]["supported"]
            .as_array()
            .unwrap()
            .contains(&json!("2026-07-28"))
    );
    let mut m = meta(json!({}));
    m.as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/clientCapabilities");
    let (r, _) = w.call(13, "tools/list", json!({"_meta": m})).await;
    assert_eq!(code(&r), -32602);
    // Still serving.
    let (r, _) = w
        .call_tool(14, json!({"name": "add", "arguments": {"a": 2, "b": 40}}))
        .await;
    assert_eq!(r["result"]["structuredContent"], json!({"sum": 42}));
    assert_eq!(r["result"]["content"][0]["text"], r#"{"sum":42}"#);
}

#[tokio::test]
async fn older_versions_get_invalid_arguments_as_protocol_errors() {
    let server = server();
    let mut w = Wire::start(&server);
    let init = w.initialize("2025-06-18", json!({})).await;
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    let (r, _) = w
        .call_tool(1, json!({"name": "add", "arguments": {"a": 1}}))
        .await;
    assert_eq!(code(&r), -32602);
    // An unknown version is answered with the latest stateful one.
    let mut w = Wire::start(&server);
    let init = w.initialize("1999-01-01", json!({})).await;
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
}

#[tokio::test]
async fn progress_logging_and_cancellation() {
    let server = server();
    let mut w = Wire::start(&server);
    w.initialize("2025-11-25", json!({})).await;
    let (r, _) = w
        .call(1, "logging/setLevel", json!({"level": "info"}))
        .await;
    assert_eq!(r["result"], json!({}));
    let (r, before) = w
        .call_tool(
            2,
            json!({"name": "wait", "arguments": {"ms": 1}, "_meta": {"progressToken": "p1"}}),
        )
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "waited");
    let methods: Vec<&str> = before
        .iter()
        .map(|m| m["method"].as_str().unwrap())
        .collect();
    assert_eq!(
        methods,
        [
            "notifications/progress",
            "notifications/message",
            "notifications/progress"
        ],
        "the debug message is below the level: {before:?}"
    );
    assert_eq!(before[0]["params"]["progressToken"], "p1");
    assert_eq!(before[2]["params"]["progress"], 2.0);

    // Cancel a long call: no response for it; the next request is answered.
    w.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                  "params": {"name": "wait", "arguments": {"ms": 60000}}}))
        .await;
    w.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                  "params": {"requestId": 3, "reason": "test"}}),
    )
    .await;
    let (r, before) = w.call(4, "ping", json!({})).await;
    assert_eq!(r["result"], json!({}));
    assert!(
        before.iter().all(|m| m.get("id") != Some(&json!(3))),
        "a cancelled request gets no response: {before:?}"
    );
}

#[tokio::test]
async fn stateful_elicitation_is_a_request_to_the_client() {
    let server = server();
    let mut w = Wire::start(&server);
    w.initialize("2025-11-25", json!({"elicitation": {}})).await;
    w.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ask"}}))
        .await;
    let request = w.recv().await;
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["message"], "Name?");
    w.send(json!({"jsonrpc": "2.0", "id": request["id"],
                  "result": {"action": "accept", "content": {"name": "Ada"}}}))
        .await;
    let r = w.recv().await;
    assert_eq!(r["id"], 1);
    assert_eq!(r["result"]["content"][0]["text"], r#"hello "Ada""#);

    // Without the capability: -32021.
    let mut w = Wire::start(&server);
    w.initialize("2025-11-25", json!({})).await;
    let (r, _) = w.call_tool(1, json!({"name": "ask"})).await;
    assert_eq!(code(&r), -32021);
    assert_eq!(
        r["error"]["data"]["requiredCapabilities"],
        json!({"elicitation": {}})
    );
}

#[tokio::test]
async fn the_2026_era_is_stateless_with_signed_request_state() {
    let server = server();
    let mut w = Wire::start(&server);
    let (r, _) = w
        .call(1, "server/discover", json!({"_meta": meta(json!({}))}))
        .await;
    let result = &r["result"];
    assert_eq!(result["resultType"], "complete");
    assert!(
        result["supportedVersions"]
            .as_array()
            .unwrap()
            .contains(&json!("2026-07-28"))
    );
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "stdio-test"
    );
    assert!(result["ttlMs"].is_u64() && result["cacheScope"] == "public");

    let (r, _) = w
        .call(2, "tools/list", json!({"_meta": meta(json!({}))}))
        .await;
    assert_eq!(r["result"]["resultType"], "complete");
    assert!(r["result"]["ttlMs"].is_u64());
    // Methods of the stateful era do not exist here.
    for method in [
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "initialize",
    ] {
        let (r, _) = w.call(3, method, json!({"_meta": meta(json!({}))})).await;
        assert_eq!(code(&r), -32601, "{method}");
    }
    // Resource not found is -32602 in 2026-07-28.
    let (r, _) = w
        .call(
            4,
            "resources/read",
            json!({"uri": "test://none", "_meta": meta(json!({}))}),
        )
        .await;
    assert_eq!(code(&r), -32602);

    // Multi round-trip elicitation.
    let caps = json!({"elicitation": {}});
    let (r, before) = w
        .call_tool(5, json!({"name": "ask", "_meta": meta(caps.clone())}))
        .await;
    assert!(
        before.is_empty(),
        "no request is sent to the client: {before:?}"
    );
    let result = &r["result"];
    assert_eq!(result["resultType"], "input_required", "{r}");
    let (key, request) = result["inputRequests"]
        .as_object()
        .unwrap()
        .iter()
        .next()
        .unwrap();
    assert_eq!(request["method"], "elicitation/create");
    let state = result["requestState"].as_str().unwrap().to_owned();
    let answer = json!({ key.clone(): {"action": "accept", "content": {"name": "Ada"}} });
    let (r, _) = w
        .call_tool(
            6,
            json!({"name": "ask", "inputResponses": answer, "requestState": state,
                   "_meta": meta(caps.clone())}),
        )
        .await;
    assert_eq!(r["result"]["resultType"], "complete");
    assert_eq!(r["result"]["content"][0]["text"], r#"hello "Ada""#);
    // Tampered, or issued for another tool: refused.
    let mut tampered = state.clone();
    tampered.insert(
        3,
        if tampered.as_bytes()[3] == b'A' {
            'B'
        } else {
            'A'
        },
    );
    for bad in [tampered, state.clone() + "x"] {
        let (r, _) = w
            .call_tool(
                7,
                json!({"name": "ask", "inputResponses": answer, "requestState": bad,
                       "_meta": meta(caps.clone())}),
            )
            .await;
        assert_eq!(code(&r), -32602, "{r}");
    }
    let (r, _) = w
        .call_tool(
            8,
            json!({"name": "echo", "arguments": {"message": "x"}, "requestState": state,
                   "_meta": meta(caps.clone())}),
        )
        .await;
    assert_eq!(code(&r), -32602);
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("another request")
    );
    // Logging only with a logLevel, and then at or above it.
    let mut m = meta(json!({}));
    let (_, before) = w
        .call_tool(
            9,
            json!({"name": "wait", "arguments": {"ms": 1}, "_meta": m.clone()}),
        )
        .await;
    assert!(before.is_empty(), "{before:?}");
    m["io.modelcontextprotocol/logLevel"] = json!("debug");
    let (_, before) = w
        .call_tool(
            10,
            json!({"name": "wait", "arguments": {"ms": 1}, "_meta": m}),
        )
        .await;
    assert_eq!(before.len(), 2, "{before:?}");
}

#[tokio::test]
async fn pages_are_signed_and_the_registry_changes_at_run_time() {
    let server = server();
    let mut w = Wire::start(&server);
    w.initialize("2025-11-25", json!({})).await;
    let mut names = Vec::new();
    let mut cursor = Value::Null;
    for id in 1.. {
        let (r, _) = w.call(id, "tools/list", json!({"cursor": cursor})).await;
        let page = r["result"]["tools"].as_array().unwrap();
        assert!(page.len() <= 2);
        names.extend(page.iter().map(|t| t["name"].as_str().unwrap().to_owned()));
        cursor = r["result"]["nextCursor"].clone();
        if cursor.is_null() {
            break;
        }
    }
    assert_eq!(names, ["echo", "add", "fail", "panic", "wait", "ask"]);
    for bad in [json!("garbage"), json!(7)] {
        let (r, _) = w.call(50, "tools/list", json!({"cursor": bad})).await;
        assert_eq!(code(&r), -32602);
    }
    // A cursor of one list is not accepted by another.
    let (r, _) = w.call(51, "tools/list", json!({})).await;
    let cursor = r["result"]["nextCursor"].clone();
    let (r, _) = w.call(52, "prompts/list", json!({"cursor": cursor})).await;
    assert_eq!(code(&r), -32602);

    // Adding a tool is announced; the new tool answers.
    server.add_tool(ToolDef::new(
        "late",
        "Added later",
        |_: NoArguments, _| async { Ok("late") },
    ));
    let note = w.recv().await;
    assert_eq!(note["method"], "notifications/tools/list_changed");
    let (r, _) = w.call_tool(53, json!({"name": "late"})).await;
    assert_eq!(r["result"]["content"][0]["text"], "late");
    assert!(server.remove_tool("late"));
    assert_eq!(w.recv().await["method"], "notifications/tools/list_changed");
    let (r, _) = w.call_tool(54, json!({"name": "late"})).await;
    assert_eq!(code(&r), -32602);

    // Resource subscriptions.
    let (r, _) = w
        .call(55, "resources/subscribe", json!({"uri": "test://a"}))
        .await;
    assert_eq!(r["result"], json!({}));
    server.notify_resource_updated("test://other");
    server.notify_resource_updated("test://a");
    let note = w.recv().await;
    assert_eq!(note["method"], "notifications/resources/updated");
    assert_eq!(note["params"]["uri"], "test://a");
}

#[tokio::test]
async fn subscriptions_listen_acknowledges_then_streams_tagged_changes() {
    let server = server();
    let mut w = Wire::start(&server);
    w.send(json!({"jsonrpc": "2.0", "id": "sub-1", "method": "subscriptions/listen",
                  "params": {"_meta": meta(json!({})), "notifications": {"promptsListChanged": true}}}))
        .await;
    let ack = w.recv().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub-1"
    );
    assert_eq!(
        ack["params"]["notifications"],
        json!({"promptsListChanged": true})
    );
    // A tools change is not asked for; a prompts change is.
    server.add_tool(ToolDef::new("t2", "x", |_: NoArguments, _| async {
        Ok("x")
    }));
    server.add_prompt(PromptDef::new("p2", |_, _| async { Ok("x".to_owned()) }));
    let note = w.recv().await;
    assert_eq!(
        note["method"], "notifications/prompts/list_changed",
        "{note}"
    );
    assert_eq!(
        note["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub-1"
    );
    // Cancelling ends it without a response.
    w.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "sub-1"}}))
        .await;
    let (r, before) = w
        .call(2, "server/discover", json!({"_meta": meta(json!({}))}))
        .await;
    assert!(r.get("result").is_some());
    assert!(before.is_empty(), "{before:?}");
}

#[tokio::test]
async fn end_of_input_lets_in_flight_requests_finish() {
    let server = server();
    let mut w = Wire::start(&server);
    w.initialize("2025-11-25", json!({})).await;
    w.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                  "params": {"name": "wait", "arguments": {"ms": 200}}}))
        .await;
    w.write.shutdown().await.unwrap();
    let mut r = w.recv().await;
    while r.get("method").is_some() {
        r = w.recv().await; // its log messages
    }
    assert_eq!(r["id"], 1, "{r}");
    assert_eq!(r["result"]["content"][0]["text"], "waited");
    assert!(
        w.lines.next_line().await.unwrap().is_none(),
        "stdout closes after the last answer"
    );
    w.serving.await.unwrap().unwrap();
}

#[tokio::test]
async fn batches_are_answered_in_one_array() {
    let server = server();
    let mut w = Wire::start(&server);
    w.initialize("2025-03-26", json!({})).await;
    w.send(json!([
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "b"}}}
    ]))
    .await;
    let r = w.recv().await;
    let answers = r.as_array().expect("an array");
    assert_eq!(answers.len(), 2);
    assert_eq!(answers[0]["id"], 1);
    assert_eq!(answers[1]["result"]["content"][0]["text"], "b");
}

#[tokio::test]
async fn requests_beyond_the_in_flight_limit_are_refused_and_the_connection_goes_on() {
    let server = server();
    let mut options = server.options().clone();
    options.max_in_flight = 2;
    let server = Server::builder("stdio-test", "1.0.0")
        .options(options)
        .tool("wait", "Waits", |a: Wait, _| async move {
            tokio::time::sleep(Duration::from_millis(a.ms)).await;
            Ok("waited")
        })
        .tool("echo", "Echoes", |a: Echo, _| async move { Ok(a.message) })
        .build();
    let mut w = Wire::start(&server);
    w.initialize("2025-11-25", json!({})).await;
    for id in [1, 2] {
        w.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                      "params": {"name": "wait", "arguments": {"ms": 2000}}}))
            .await;
    }
    w.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                  "params": {"name": "echo", "arguments": {"message": "x"}}}))
        .await;
    let refused = w.recv().await;
    assert_eq!(refused["id"], 3, "{refused}");
    assert_eq!(refused["error"]["code"], -32012, "{refused}");
    assert_eq!(refused["error"]["data"]["limit"], 2, "{refused}");
    let mut done = Vec::new();
    while done.len() < 2 {
        let r = w.recv().await;
        assert_eq!(r["result"]["content"][0]["text"], "waited", "{r}");
        done.push(r["id"].clone());
    }
    let (r, _) = w
        .call_tool(4, json!({"name": "echo", "arguments": {"message": "y"}}))
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "y", "{r}");
}

/// A server whose batches are limited: 3 messages, 2 requests running at once, 300 bytes of
/// answers; `gauge` records how many calls ran at once.
/// Calls running now, and the most that ran at once.
type Gauge = std::sync::Arc<(
    std::sync::atomic::AtomicUsize,
    std::sync::atomic::AtomicUsize,
)>;

fn limited_batches(running: Gauge) -> Server {
    use std::sync::atomic::Ordering;
    let mut options = ServerOptions::default();
    options.max_batch_len = 3;
    options.batch_concurrency = 2;
    options.max_batch_response_bytes = 300;
    Server::builder("stdio-test", "1.0.0")
        .options(options)
        .tool("echo", "Echoes", |a: Echo, _| async move { Ok(a.message) })
        .tool(
            "gauge",
            "Counts concurrent calls",
            move |_: NoArguments, _| {
                let running = running.clone();
                async move {
                    let now = running.0.fetch_add(1, Ordering::SeqCst) + 1;
                    running.1.fetch_max(now, Ordering::SeqCst);
                    // Work that takes a while, so calls overlap when they may.
                    tokio::time::sleep(Duration::from_millis(30)).await;
                    running.0.fetch_sub(1, Ordering::SeqCst);
                    Ok("measured")
                }
            },
        )
        .build()
}

#[tokio::test]
async fn batches_are_held_to_their_limits_and_the_connection_goes_on() {
    use std::sync::atomic::Ordering;
    let running = Gauge::default();
    let server = limited_batches(running.clone());
    let mut w = Wire::start(&server);
    w.initialize("2025-03-26", json!({})).await;
    let call = |id: i64, name: &str, message: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": name, "arguments": {"message": message}}})
    };

    // Longer than 3: one error object, not an array.
    w.send(json!([
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
        {"jsonrpc": "2.0", "id": 3, "method": "ping"},
        {"jsonrpc": "2.0", "id": 4, "method": "ping"},
    ]))
    .await;
    let r = w.recv().await;
    assert_eq!(r["error"]["code"], -32600, "{r}");
    assert_eq!(r["error"]["data"]["limit"], 3, "{r}");

    // Three slow calls: never more than two at once, all answered.
    w.send(json!([
        call(5, "gauge", ""),
        call(6, "gauge", ""),
        call(7, "gauge", "")
    ]))
    .await;
    let r = w.recv().await;
    let answers = r.as_array().expect("an array");
    assert_eq!(answers.len(), 3, "{r}");
    assert!(
        answers
            .iter()
            .all(|a| a["result"]["content"][0]["text"] == "measured"),
        "{r}"
    );
    assert_eq!(
        running.1.load(Ordering::SeqCst),
        2,
        "at most 2 at once, and 2 did overlap"
    );

    // Answers past 300 bytes become errors naming the limit; every request is answered.
    let long = "x".repeat(200);
    w.send(json!([
        call(8, "echo", &long),
        call(9, "echo", &long),
        call(10, "echo", &long)
    ]))
    .await;
    let r = w.recv().await;
    let answers = r.as_array().expect("an array");
    assert_eq!(answers.len(), 3, "{r}");
    assert_eq!(answers[0]["result"]["content"][0]["text"], long.as_str());
    for refused in &answers[1..] {
        assert_eq!(refused["error"]["code"], -32603, "{refused}");
        let message = refused["error"]["message"].as_str().unwrap();
        assert!(message.contains("max_batch_response_bytes"), "{message}");
    }
    assert_eq!(answers[2]["id"], 10);

    // The connection goes on.
    let (r, _) = w
        .call_tool(
            11,
            json!({"name": "echo", "arguments": {"message": "after"}}),
        )
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "after", "{r}");
}

/// A member repeated inside `params` (at any depth) is refused as a top-level one is: which
/// of the two values counts is not something two parsers agree on.
#[tokio::test]
async fn a_member_repeated_inside_params_is_refused() {
    let server = server();
    let mut w = Wire::start(&server);
    w.initialize("2025-11-25", json!({})).await;
    w.send_raw(
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"message":"shown","message":"run"}}}"#,
    )
    .await;
    let r = w.recv().await;
    assert_eq!(r["id"], 5, "{r}");
    assert_eq!(r["error"]["code"], -32600, "{r}");
    let message = r["error"]["message"].as_str().unwrap();
    assert!(message.contains("params.arguments.message"), "{message}");
    w.send_raw(
        r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","name":"x"}}"#,
    )
    .await;
    assert_eq!(w.recv().await["error"]["code"], -32600);
    let (r, _) = w
        .call_tool(7, json!({"name": "echo", "arguments": {"message": "ok"}}))
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "ok", "{r}");
}
