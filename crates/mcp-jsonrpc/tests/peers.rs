//! The JSON-RPC layer against real third-party MCP servers: the everything server (TypeScript
//! SDK) over stdio and streamable HTTP, and a Python SDK server over stdio, in both protocol
//! eras. Needs `scripts/install-peers.sh`; fails (never skips) when a peer is missing.

use std::time::Duration;

use mcp_jsonrpc::{IncomingRequest, Notification, Peer, SpawnOptions, StreamableHttpOptions};
use mcp_test_support as support;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::time::timeout;

const STEP: Duration = Duration::from_secs(20);

async fn step<T>(what: &str, fut: impl std::future::Future<Output = T>) -> T {
    timeout(STEP, fut)
        .await
        .unwrap_or_else(|_| panic!("timed out: {what}"))
}

fn texts(result: &Value) -> Vec<String> {
    result["content"]
        .as_array()
        .expect("content array")
        .iter()
        .filter_map(|c| c["text"].as_str().map(str::to_owned))
        .collect()
}

async fn initialize(client: &Peer, capabilities: Value) -> Value {
    let init = step(
        "initialize",
        client.request(
            "initialize",
            Some(json!({
                "protocolVersion": "2025-11-25",
                "capabilities": capabilities,
                "clientInfo": { "name": "mcp-jsonrpc-tests", "version": "0.0.0" }
            })),
        ),
    )
    .await
    .expect("initialize succeeds");
    // Only after the reply: the everything server registers capability-dependent tools then.
    step(
        "initialized",
        client.notify("notifications/initialized", None),
    )
    .await
    .expect("initialized is sent");
    init
}

async fn next_request(requests: &mut mpsc::Receiver<IncomingRequest>) -> IncomingRequest {
    step("a server→client request", requests.recv())
        .await
        .expect("request queue open")
}

async fn notification_where(
    notifications: &mut mpsc::Receiver<Notification>,
    what: &str,
    pred: impl Fn(&Notification) -> bool,
) -> Notification {
    step(what, async {
        loop {
            let n = notifications.recv().await.expect("notification queue open");
            if pred(&n) {
                return n;
            }
        }
    })
    .await
}

fn roots_answer() -> Value {
    json!({ "roots": [{ "uri": "file:///work/project", "name": "project" }] })
}

/// The common scenario over any transport: handshake, list, two calls, and the server's own
/// `roots/list` request answered (the server confirms it with a log notification).
async fn everything_scenario(mut client: Peer) {
    let mut requests = client.take_requests().expect("requests");
    let mut notifications = client.take_notifications().expect("notifications");

    let init = initialize(&client, json!({ "roots": { "listChanged": true } })).await;
    assert_eq!(init["serverInfo"]["name"], "mcp-servers/everything");
    let version = init["protocolVersion"]
        .as_str()
        .expect("negotiated version");
    let _ = client
        .handle()
        .set_http_header("mcp-protocol-version", version);

    // The server asks for roots on its own shortly after `initialized`.
    let request = next_request(&mut requests).await;
    assert_eq!(request.method, "roots/list");
    request
        .respond_ok(roots_answer())
        .await
        .expect("answer sent");
    let log = notification_where(&mut notifications, "roots confirmation", |n| {
        n.method == "notifications/message"
    })
    .await;
    assert!(
        log.params_value()["data"]
            .as_str()
            .is_some_and(|d| d.contains("1 root(s)")),
        "{}",
        log.params_value()
    );

    let tools = step("tools/list", client.request("tools/list", Some(json!({}))))
        .await
        .expect("tools/list");
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(
        names.contains(&"echo") && names.contains(&"get-sum"),
        "{names:?}"
    );

    let echo = step(
        "echo",
        client.request(
            "tools/call",
            Some(json!({ "name": "echo", "arguments": { "message": "héllo ✓" } })),
        ),
    )
    .await
    .expect("echo");
    assert_eq!(texts(&echo), ["Echo: héllo ✓"]);

    let sum = step(
        "get-sum",
        client.request(
            "tools/call",
            Some(json!({ "name": "get-sum", "arguments": { "a": 19, "b": 23 } })),
        ),
    )
    .await
    .expect("get-sum");
    assert_eq!(texts(&sum), ["The sum of 19 and 23 is 42."]);

    // Telling the server that roots changed makes it ask again; it then serves the new set.
    step(
        "roots/list_changed",
        client.notify("notifications/roots/list_changed", None),
    )
    .await
    .expect("notify");
    let request = next_request(&mut requests).await;
    assert_eq!(request.method, "roots/list");
    request
        .respond_ok(json!({ "roots": [
            { "uri": "file:///work/project", "name": "project" },
            { "uri": "file:///work/other", "name": "other" }
        ] }))
        .await
        .expect("answer sent");
    notification_where(&mut notifications, "second roots confirmation", |n| {
        n.params_value()["data"]
            .as_str()
            .is_some_and(|d| d.contains("2 root(s)"))
    })
    .await;
    let listed = step(
        "get-roots-list",
        client.request(
            "tools/call",
            Some(json!({ "name": "get-roots-list", "arguments": {} })),
        ),
    )
    .await
    .expect("get-roots-list");
    assert!(texts(&listed)[0].contains("file:///work/other"), "{listed}");

    // Concurrent requests are matched to their responses by id.
    let calls = (0..20).map(|i| {
        let handle = client.handle();
        async move {
            let result = handle
                .request(
                    "tools/call",
                    Some(json!({ "name": "get-sum", "arguments": { "a": i, "b": 1000 } })),
                )
                .await
                .expect("concurrent call");
            (i, texts(&result))
        }
    });
    for (i, text) in step("concurrent calls", futures_join_all(calls)).await {
        assert_eq!(text, [format!("The sum of {i} and 1000 is {}.", i + 1000)]);
    }

    let unknown = step("unknown method", client.request("no/such/method", None)).await;
    assert_eq!(
        unknown
            .expect_err("unknown method")
            .as_rpc()
            .map(|e| e.code),
        Some(-32601)
    );

    assert_eq!(client.stats().invalid_json, 0);
    let status = client
        .wait_with_timeout(
            Duration::from_secs(10),
            mcp_jsonrpc::WaitOnTimeout::Kill {
                kill_timeout: Duration::from_secs(5),
            },
        )
        .await
        .expect("child exits");
    if let Some(status) = status {
        assert!(
            status.success(),
            "the server exits cleanly on end of input: {status}"
        );
    }
}

/// Joins futures without pulling in a futures crate.
async fn futures_join_all<F: std::future::Future + Send + 'static>(
    futures: impl Iterator<Item = F>,
) -> Vec<F::Output>
where
    F::Output: Send + 'static,
{
    let handles: Vec<_> = futures.map(tokio::spawn).collect();
    let mut out = Vec::new();
    for handle in handles {
        out.push(handle.await.expect("task"));
    }
    out
}

#[tokio::test]
async fn everything_server_over_stdio() {
    let mut command = support::node_command();
    command.arg(support::everything_js()).arg("stdio");
    let client = Peer::spawn_command(command, SpawnOptions::default())
        .await
        .expect("spawn the everything server");
    everything_scenario(client).await;
}

#[tokio::test]
async fn everything_server_over_streamable_http() {
    let server = support::start_everything_http().await;
    let client = Peer::connect_streamable_http_with_options(
        &server.url,
        StreamableHttpOptions {
            request_timeout: Some(STEP),
            ..Default::default()
        },
        SpawnOptions::default(),
    )
    .await
    .expect("connect");
    assert!(
        client.handle().session_id().is_none(),
        "no session before initialize"
    );
    let handle = client.handle();
    everything_scenario(client).await;
    assert!(handle.is_closed());
    drop(server);
}

fn python_server() -> tokio::process::Command {
    let mut command = tokio::process::Command::new(support::peers_python());
    command.arg(support::fixture("python_server.py"));
    command
}

#[tokio::test]
async fn python_sdk_server_over_stdio_initialize_era() {
    let mut client = Peer::spawn_command(python_server(), SpawnOptions::default())
        .await
        .expect("spawn the Python server");
    let init = initialize(&client, json!({})).await;
    assert_eq!(init["serverInfo"]["name"], "python-peer");
    assert_eq!(init["protocolVersion"], "2025-11-25");

    let tools = step("tools/list", client.request("tools/list", None))
        .await
        .expect("tools/list");
    let mut names: Vec<&str> = tools["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["add", "echo", "summarize", "work"]);

    let sum = step(
        "add",
        client.request(
            "tools/call",
            Some(json!({ "name": "add", "arguments": { "a": 2, "b": 40 } })),
        ),
    )
    .await
    .expect("add");
    assert_eq!(sum["structuredContent"]["result"], 42);
    assert_eq!(texts(&sum), ["42"]);

    let read = step(
        "resources/read",
        client.request("resources/read", Some(json!({ "uri": "test://greeting" }))),
    )
    .await
    .expect("read");
    assert_eq!(read["contents"][0]["text"], "hello from python");

    let status = client
        .wait_with_timeout(
            Duration::from_secs(10),
            mcp_jsonrpc::WaitOnTimeout::ReturnError,
        )
        .await
        .expect("the Python server exits on end of input");
    assert!(status.expect("a child").success());
}

#[tokio::test]
async fn python_sdk_server_over_stdio_stateless_era() {
    let client = Peer::spawn_command(python_server(), SpawnOptions::default())
        .await
        .expect("spawn the Python server");
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": "mcp-jsonrpc-tests", "version": "0.0.0" }
    });
    let discover = step(
        "server/discover",
        client.request("server/discover", Some(json!({ "_meta": meta }))),
    )
    .await
    .expect("server/discover");
    assert!(
        discover["supportedVersions"]
            .as_array()
            .expect("supportedVersions")
            .contains(&json!("2026-07-28")),
        "{discover}"
    );
    let sum = step(
        "add",
        client.request(
            "tools/call",
            Some(json!({ "name": "add", "arguments": { "a": 1, "b": 2 }, "_meta": meta })),
        ),
    )
    .await
    .expect("add");
    assert_eq!(sum["structuredContent"]["result"], 3);
    assert_eq!(sum["resultType"], "complete");
}
