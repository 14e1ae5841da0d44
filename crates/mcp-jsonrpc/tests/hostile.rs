//! Malformed and hostile peers, over real unix sockets and real child processes.

use std::time::{Duration, Instant};

use mcp_jsonrpc::{Error, Limits, Peer, SpawnOptions, WaitOnTimeout};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::net::UnixStream;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::time::timeout;

const LIMIT: Duration = Duration::from_secs(10);

/// The far end of a socket pair, played by the test.
struct FakePeer {
    lines: Lines<BufReader<OwnedReadHalf>>,
    write: OwnedWriteHalf,
}

impl FakePeer {
    async fn recv(&mut self) -> Value {
        let line = timeout(LIMIT, self.lines.next_line())
            .await
            .expect("peer waited too long for a message")
            .expect("read")
            .expect("client closed the connection");
        serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("client wrote invalid JSON ({e}): {line}"))
    }

    async fn send_raw(&mut self, bytes: &[u8]) {
        self.write.write_all(bytes).await.expect("write");
    }

    async fn send(&mut self, value: Value) {
        let mut line = serde_json::to_vec(&value).expect("json");
        line.push(b'\n');
        self.send_raw(&line).await;
    }
}

async fn pair(limits: Limits) -> (Peer, FakePeer) {
    let (ours, theirs) = UnixStream::pair().expect("socketpair");
    let (read, write) = ours.into_split();
    let client = Peer::connect_io_with_options(
        read,
        write,
        SpawnOptions {
            limits,
            ..Default::default()
        },
    )
    .await
    .expect("connect_io");
    let (read, write) = theirs.into_split();
    (
        client,
        FakePeer {
            lines: BufReader::new(read).lines(),
            write,
        },
    )
}

fn result_of(id: &Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

#[tokio::test]
async fn garbage_and_truncated_lines_are_skipped_and_the_stream_goes_on() {
    let (client, mut peer) = pair(Limits::default()).await;
    let handle = client.handle();
    let call = tokio::spawn(async move { handle.request("ping", None).await });
    let request = peer.recv().await;
    assert_eq!(request["method"], "ping");
    peer.send_raw(b"garbage\n{\"jsonrpc\":\"2.0\",\"id\":1,\"res\n\x00\x01\xff\n   \n\n")
        .await;
    peer.send(result_of(&request["id"], json!({ "ok": true })))
        .await;
    let result = timeout(LIMIT, call)
        .await
        .expect("answered")
        .expect("task")
        .expect("ok");
    assert_eq!(result, json!({ "ok": true }));
    assert_eq!(
        client.stats().invalid_json,
        3,
        "blank lines are not counted"
    );
    assert!(!client.is_closed());
}

#[tokio::test]
async fn wrong_jsonrpc_version_is_rejected_with_the_request_id() {
    let (mut client, mut peer) = pair(Limits::default()).await;
    let mut requests = client.take_requests().expect("requests");
    peer.send(json!({ "jsonrpc": "1.0", "id": 7, "method": "roots/list" }))
        .await;
    let reply = peer.recv().await;
    assert_eq!(reply["id"], 7);
    assert_eq!(reply["error"]["code"], -32600);
    assert!(
        reply["error"]["message"].as_str().unwrap().contains("2.0"),
        "{reply}"
    );
    // Missing version too; and a request with an unreadable id gets a null id.
    peer.send(json!({ "id": "x", "method": "m" })).await;
    assert_eq!(peer.recv().await["id"], "x");
    peer.send(json!({ "jsonrpc": "2.0", "id": 1.5, "method": "m" }))
        .await;
    assert_eq!(peer.recv().await["id"], Value::Null);
    // A response with the wrong version never resolves a request; the right one does.
    let handle = client.handle();
    let call = tokio::spawn(async move { handle.request("ping", None).await });
    let request = peer.recv().await;
    peer.send(json!({ "jsonrpc": "1.0", "id": request["id"], "result": "bogus" }))
        .await;
    peer.send(result_of(&request["id"], json!("good"))).await;
    assert_eq!(
        timeout(LIMIT, call).await.unwrap().unwrap().unwrap(),
        json!("good")
    );
    assert!(
        requests.try_recv().is_err(),
        "invalid requests are not delivered"
    );
    assert_eq!(client.stats().invalid_messages, 4);
}

#[tokio::test]
async fn duplicate_and_unknown_responses_are_ignored() {
    let (client, mut peer) = pair(Limits::default()).await;
    let handle = client.handle();
    let call = tokio::spawn(async move { handle.request("ping", None).await });
    let request = peer.recv().await;
    peer.send(json!({ "jsonrpc": "2.0", "id": 999_999, "result": {} }))
        .await;
    peer.send(json!({ "jsonrpc": "2.0", "id": "not-ours", "result": {} }))
        .await;
    peer.send(result_of(&request["id"], json!(1))).await;
    peer.send(result_of(&request["id"], json!(2))).await;
    assert_eq!(
        timeout(LIMIT, call).await.unwrap().unwrap().unwrap(),
        json!(1)
    );
    // The connection still works, and the stray responses were counted.
    let handle = client.handle();
    let call = tokio::spawn(async move { handle.request("ping", None).await });
    let request = peer.recv().await;
    peer.send(result_of(&request["id"], json!(3))).await;
    assert_eq!(
        timeout(LIMIT, call).await.unwrap().unwrap().unwrap(),
        json!(3)
    );
    assert_eq!(client.stats().unknown_responses, 3);
}

#[tokio::test]
async fn duplicate_request_ids_from_the_peer_are_each_answered() {
    let (mut client, mut peer) = pair(Limits::default()).await;
    let mut requests = client.take_requests().expect("requests");
    for _ in 0..2 {
        peer.send(json!({ "jsonrpc": "2.0", "id": 5, "method": "ping" }))
            .await;
    }
    for n in 0..2 {
        let request = timeout(LIMIT, requests.recv()).await.unwrap().unwrap();
        request.respond_ok(json!({ "n": n })).await.unwrap();
    }
    assert_eq!(peer.recv().await["result"]["n"], 0);
    assert_eq!(peer.recv().await["result"]["n"], 1);
}

#[tokio::test]
async fn a_huge_line_fails_only_its_request_and_the_connection_goes_on() {
    let limits = Limits {
        max_message_bytes: 1024 * 1024,
        ..Limits::default()
    };
    let (client, mut peer) = pair(limits).await;
    let handle = client.handle();
    let call = tokio::spawn(async move { handle.request("resources/read", None).await });
    let request = peer.recv().await;
    let id = request["id"].clone();
    // 64 MiB in one line, streamed in 1 MiB pieces: the client must not buffer it.
    let writer = tokio::spawn(async move {
        peer.send_raw(
            format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"blob\":\"").as_bytes(),
        )
        .await;
        let chunk = vec![b'A'; 1024 * 1024];
        for _ in 0..64 {
            peer.send_raw(&chunk).await;
        }
        peer.send_raw(b"\"}}\n").await;
        peer
    });
    let outcome = timeout(LIMIT, call).await.expect("prompt").expect("task");
    match outcome {
        Err(Error::MessageTooLarge { limit }) => assert_eq!(limit, 1024 * 1024),
        other => panic!("expected MessageTooLarge, got {other:?}"),
    }
    let mut peer = writer.await.expect("writer");
    let handle = client.handle();
    let call = tokio::spawn(async move { handle.request("ping", None).await });
    let request = peer.recv().await;
    peer.send(result_of(&request["id"], json!("still alive")))
        .await;
    assert_eq!(
        timeout(LIMIT, call).await.unwrap().unwrap().unwrap(),
        json!("still alive")
    );
    assert_eq!(client.stats().oversized_messages, 1);
}

#[tokio::test]
async fn an_oversized_request_from_the_peer_is_answered_not_left_hanging() {
    let limits = Limits {
        max_message_bytes: 1000,
        ..Limits::default()
    };
    let (_client, mut peer) = pair(limits).await;
    let padding = "x".repeat(5000);
    peer.send(json!({ "jsonrpc": "2.0", "id": 77, "method": "sampling/createMessage", "params": { "p": padding } }))
        .await;
    let reply = peer.recv().await;
    assert_eq!(reply["id"], 77);
    assert_eq!(reply["error"]["code"], -32600);
}

#[tokio::test]
async fn a_peer_that_dies_mid_request_fails_every_pending_request_promptly() {
    // A real child: reads one line, then exits without answering.
    let mut client = Peer::spawn("sh", &["-c", "read line; exit 3"])
        .await
        .expect("spawn sh");
    let calls: Vec<_> = (0..5)
        .map(|_| {
            let handle = client.handle();
            tokio::spawn(async move {
                handle
                    .request("tools/call", Some(json!({ "name": "x" })))
                    .await
            })
        })
        .collect();
    let started = Instant::now();
    for call in calls {
        let outcome = timeout(LIMIT, call).await.expect("no hang").expect("task");
        let error = outcome.expect_err("the peer died");
        assert!(error.is_closed(), "{error}");
        assert!(error.to_string().contains("end of file"), "{error}");
    }
    assert!(started.elapsed() < Duration::from_secs(5));
    let status = client.wait().await.expect("wait").expect("child");
    assert_eq!(status.code(), Some(3));
    let late = client.request("ping", None).await.expect_err("closed");
    assert!(late.is_closed());
}

#[tokio::test]
async fn a_peer_that_never_answers_is_bounded_by_the_callers_timeout() {
    let client = Peer::spawn("sh", &["-c", "cat > /dev/null"])
        .await
        .expect("spawn");
    let outcome = timeout(Duration::from_millis(300), client.request("ping", None)).await;
    assert!(outcome.is_err(), "the caller's timeout fires");
    assert_eq!(
        client.stats().pending_requests,
        0,
        "dropping the request freed its slot"
    );
    // A request abandoned while it waits does not disturb the next one.
    let pending = client
        .start_request::<Value>("ping", None)
        .await
        .expect("sent");
    assert_eq!(client.stats().pending_requests, 1);
    drop(pending);
    assert_eq!(client.stats().pending_requests, 0);
}

#[tokio::test]
async fn a_full_request_queue_answers_client_overloaded() {
    let limits = Limits {
        requests_capacity: 4,
        ..Limits::default()
    };
    let (mut client, mut peer) = pair(limits).await;
    let mut requests = client.take_requests().expect("requests");
    for id in 0..50 {
        peer.send(json!({ "jsonrpc": "2.0", "id": id, "method": "sampling/createMessage" }))
            .await;
    }
    let mut overloaded = Vec::new();
    for _ in 0..46 {
        let reply = peer.recv().await;
        assert_eq!(reply["error"]["code"], -32000, "{reply}");
        assert_eq!(reply["error"]["message"], "client overloaded");
        overloaded.push(reply["id"].as_i64().unwrap());
    }
    assert_eq!(overloaded, (4..50).collect::<Vec<_>>());
    assert_eq!(client.stats().requests_overloaded, 46);
    // The four that fit are delivered and can be answered.
    for id in 0..4 {
        let request = requests.recv().await.unwrap();
        assert_eq!(request.id, mcp_jsonrpc::Id::Number(id));
        request.respond_ok(json!({})).await.unwrap();
        assert_eq!(peer.recv().await["id"], id);
    }
}

#[tokio::test]
async fn a_full_notification_queue_drops_and_counts() {
    let limits = Limits {
        notifications_capacity: 2,
        ..Limits::default()
    };
    let (mut client, mut peer) = pair(limits).await;
    let mut notifications = client.take_notifications().expect("notifications");
    for n in 0..10 {
        peer.send(
            json!({ "jsonrpc": "2.0", "method": "notifications/progress", "params": { "n": n } }),
        )
        .await;
    }
    // A request after them proves they were all processed.
    let handle = client.handle();
    let call = tokio::spawn(async move { handle.request("ping", None).await });
    let request = peer.recv().await;
    peer.send(result_of(&request["id"], json!({}))).await;
    timeout(LIMIT, call).await.unwrap().unwrap().unwrap();
    assert_eq!(client.stats().notifications_dropped, 8);
    assert_eq!(notifications.recv().await.unwrap().params_value()["n"], 0);
    assert_eq!(notifications.recv().await.unwrap().params_value()["n"], 1);
}

#[tokio::test]
async fn unanswered_and_unconsumed_requests_get_errors() {
    let (mut client, mut peer) = pair(Limits::default()).await;
    let mut requests = client.take_requests().expect("requests");
    peer.send(json!({ "jsonrpc": "2.0", "id": 1, "method": "elicitation/create" }))
        .await;
    drop(timeout(LIMIT, requests.recv()).await.unwrap().unwrap());
    let reply = peer.recv().await;
    assert_eq!(
        (reply["id"].clone(), reply["error"]["code"].clone()),
        (json!(1), json!(-32603))
    );
    drop(requests);
    peer.send(json!({ "jsonrpc": "2.0", "id": 2, "method": "roots/list" }))
        .await;
    let reply = peer.recv().await;
    assert_eq!(
        (reply["id"].clone(), reply["error"]["code"].clone()),
        (json!(2), json!(-32601))
    );
}

#[tokio::test]
async fn batches_are_answered_with_one_array() {
    let (mut client, mut peer) = pair(Limits::default()).await;
    let mut requests = client.take_requests().expect("requests");
    let mut notifications = client.take_notifications().expect("notifications");
    peer.send(json!([
        { "jsonrpc": "2.0", "id": 1, "method": "roots/list" },
        { "jsonrpc": "2.0", "method": "notifications/message", "params": { "level": "info" } },
        { "jsonrpc": "2.0", "id": "b", "method": "ping" },
        42
    ]))
    .await;
    let first = timeout(LIMIT, requests.recv()).await.unwrap().unwrap();
    let second = timeout(LIMIT, requests.recv()).await.unwrap().unwrap();
    // Answered out of order; the array still comes once, in request order.
    second.respond_ok(json!({})).await.unwrap();
    first.respond_ok(json!({ "roots": [] })).await.unwrap();
    let reply = peer.recv().await;
    let items = reply.as_array().expect("an array reply");
    assert_eq!(items.len(), 3);
    assert_eq!(items[0]["id"], 1);
    assert_eq!(items[1]["id"], "b");
    assert_eq!(items[2]["error"]["code"], -32600);
    assert_eq!(items[2]["id"], Value::Null);
    assert_eq!(
        notifications.recv().await.unwrap().method,
        "notifications/message"
    );

    // An empty batch is one invalid request; a batch of notifications gets no reply.
    peer.send(json!([])).await;
    let reply = peer.recv().await;
    assert_eq!(
        (reply["id"].clone(), reply["error"]["code"].clone()),
        (Value::Null, json!(-32600))
    );
    peer.send(json!([{ "jsonrpc": "2.0", "method": "a" }, { "jsonrpc": "2.0", "method": "b" }]))
        .await;
    // Batched responses to our requests resolve them.
    let handle = client.handle();
    let calls = tokio::spawn(async move {
        tokio::join!(handle.request("ping", None), handle.request("ping", None))
    });
    let (a, b) = (peer.recv().await, peer.recv().await);
    peer.send(json!([
        result_of(&b["id"], json!("B")),
        result_of(&a["id"], json!("A"))
    ]))
    .await;
    let (ra, rb) = timeout(LIMIT, calls).await.unwrap().unwrap();
    assert_eq!((ra.unwrap(), rb.unwrap()), (json!("A"), json!("B")));
}

#[tokio::test]
async fn concurrent_writes_never_interleave() {
    let (client, mut peer) = pair(Limits::default()).await;
    let big = "z".repeat(100 * 1024);
    let mut tasks = Vec::new();
    for i in 0..50 {
        let handle = client.handle();
        let big = big.clone();
        tasks.push(tokio::spawn(async move {
            handle
                .notify(
                    "notifications/message",
                    Some(json!({ "i": i, "data": big })),
                )
                .await
        }));
    }
    let mut seen = Vec::new();
    for _ in 0..50 {
        let message = peer.recv().await; // panics on any interleaved (invalid) line
        assert_eq!(
            message["params"]["data"].as_str().map(str::len),
            Some(100 * 1024)
        );
        seen.push(message["params"]["i"].as_i64().unwrap());
    }
    seen.sort_unstable();
    assert_eq!(seen, (0..50).collect::<Vec<_>>());
    for task in tasks {
        task.await.unwrap().unwrap();
    }
}

#[tokio::test]
async fn wait_with_timeout_returns_an_error_or_kills() {
    // `sleep` never reads stdin, so closing it does not end the child.
    let mut client = Peer::spawn("sleep", &["30"]).await.expect("spawn");
    let error = client
        .wait_with_timeout(Duration::from_millis(200), WaitOnTimeout::ReturnError)
        .await
        .expect_err("still running");
    assert!(error.is_wait_timeout(), "{error}");
    let mut child = client.take_child().expect("the child is still ours");
    assert!(
        child.try_wait().unwrap().is_none(),
        "ReturnError leaves it running"
    );
    child.kill().await.unwrap();

    let mut client = Peer::spawn("sleep", &["30"]).await.expect("spawn");
    let started = Instant::now();
    let status = client
        .wait_with_timeout(
            Duration::from_millis(200),
            WaitOnTimeout::Kill {
                kill_timeout: Duration::from_secs(5),
            },
        )
        .await
        .expect("killed")
        .expect("a child");
    assert!(!status.success());
    assert!(started.elapsed() < Duration::from_secs(5));

    // Connections without a child have nothing to wait for.
    let (mut client, _peer) = pair(Limits::default()).await;
    assert!(client.wait().await.unwrap().is_none());
}

async fn child_output(options: SpawnOptions, script: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("out.log");
    let mut client = Peer::spawn_with_options(
        "sh",
        &["-c", script],
        SpawnOptions {
            stdout_log: Some(mcp_jsonrpc::StdoutLog::new(&log)),
            ..options
        },
    )
    .await
    .expect("spawn");
    client.handle().closed().await;
    client.wait().await.unwrap();
    std::fs::read_to_string(&log).unwrap()
}

#[tokio::test]
async fn environment_and_working_directory() {
    // Cargo sets CARGO_PKG_NAME in the test's environment, standing in for a secret of the
    // parent (a cloud credential): it reaches the child only when inheriting is asked for.
    let inherited = child_output(
        SpawnOptions {
            inherit_env: true,
            ..Default::default()
        },
        "env",
    )
    .await;
    assert!(inherited.contains("CARGO_PKG_NAME=mcp-jsonrpc"));

    let clean = child_output(
        SpawnOptions {
            env: vec![("MCP_TEST_VAR".into(), "yes".into())],
            ..Default::default()
        },
        "env",
    )
    .await;
    assert!(!clean.contains("CARGO_PKG_NAME"), "{clean}");
    assert!(clean.contains("MCP_TEST_VAR=yes"));
    assert!(
        clean.lines().any(|l| l.starts_with("PATH=")),
        "baseline PATH kept: {clean}"
    );
    for line in clean.lines() {
        let name = line.split('=').next().unwrap();
        assert!(
            name == "MCP_TEST_VAR"
                || name == "PWD"
                || name == "SHLVL"
                || name == "_"
                || mcp_jsonrpc::BASELINE_ENV_VARS.contains(&name),
            "unexpected variable {name} in a clean environment"
        );
    }

    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().canonicalize().unwrap();
    let pwd = child_output(
        SpawnOptions {
            cwd: Some(cwd.clone()),
            ..Default::default()
        },
        "pwd -P",
    )
    .await;
    assert_eq!(pwd.trim(), cwd.to_str().unwrap());
}

#[tokio::test]
async fn spawn_failures_are_clear() {
    let error = Peer::spawn("/definitely/not/a/program", &[] as &[&str])
        .await
        .expect_err("missing program");
    assert!(
        error.to_string().contains("/definitely/not/a/program"),
        "{error}"
    );
    let error = Peer::spawn("", &[] as &[&str])
        .await
        .expect_err("empty program");
    assert!(matches!(error, Error::InvalidArgument(_)), "{error}");
}

#[tokio::test]
async fn unix_socket_transport() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp.sock");
    let listener = tokio::net::UnixListener::bind(&path).unwrap();
    let server = tokio::spawn(async move {
        let (socket, _) = listener.accept().await.unwrap();
        let (read, mut write) = socket.into_split();
        let mut lines = BufReader::new(read).lines();
        while let Some(line) = lines.next_line().await.unwrap() {
            let request: Value = serde_json::from_str(&line).unwrap();
            let mut reply =
                serde_json::to_vec(&result_of(&request["id"], request["params"].clone())).unwrap();
            reply.push(b'\n');
            write.write_all(&reply).await.unwrap();
        }
    });
    let client = Peer::connect_unix(&path).await.expect("connect");
    let echoed = client
        .request("echo", Some(json!({ "x": [1, 2, 3] })))
        .await
        .unwrap();
    assert_eq!(echoed, json!({ "x": [1, 2, 3] }));
    drop(client);
    timeout(LIMIT, server)
        .await
        .expect("the server sees end of file")
        .unwrap();
    let error = Peer::connect_unix(dir.path().join("missing.sock"))
        .await
        .expect_err("no socket");
    assert!(error.to_string().contains("missing.sock"), "{error}");
}
