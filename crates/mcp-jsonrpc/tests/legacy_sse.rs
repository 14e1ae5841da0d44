//! The legacy HTTP+SSE client transport (2024-11-05) against scripted HTTP servers on
//! 127.0.0.1: the `endpoint` event, messages on the stream (even in the endpoint's chunk),
//! one POST per message, and the refusals.

mod support_http;

use mcp_jsonrpc::{Error, Peer, SpawnOptions};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use support_http::{Req, Resp, Server, StreamTx, http_options, notification, result, within};

/// A legacy server: `GET /sse` opens a stream (handed to the test), and POSTs to `post_path`
/// are accepted with 202 (or answered with `post_status`).
async fn legacy_server(post_status: u16) -> (Server, mpsc::UnboundedReceiver<StreamTx>) {
    let (streams_tx, streams) = mpsc::unbounded_channel();
    let server = Server::start(move |req: Req| {
        let streams_tx = streams_tx.clone();
        async move {
            match (req.method.as_str(), req.path.as_str()) {
                ("GET", "/sse") => {
                    let (tx, resp) = Resp::sse_stream();
                    let _ = streams_tx.send(tx);
                    resp
                }
                ("POST", path) if path.starts_with("/messages") => Resp::status(post_status),
                _ => Resp::status(404),
            }
        }
    })
    .await;
    (server, streams)
}

async fn connect(url: &str) -> Result<Peer, Error> {
    within(
        "connect",
        Peer::connect_legacy_sse_with_options(url, http_options(), SpawnOptions::default()),
    )
    .await
}

#[tokio::test]
async fn messages_go_by_post_and_come_back_on_the_stream() {
    let (server, mut streams) = legacy_server(202).await;
    let url = server.url("/sse");
    let connecting = tokio::spawn(async move { connect(&url).await });
    let stream = within("the GET stream", streams.recv()).await.unwrap();
    // The endpoint, and a message in the same chunk: it must not be lost.
    stream.raw(format!(
        "event: endpoint\ndata: /messages/?session_id=abc\n\nevent: message\ndata: {}\n\n",
        notification(
            "notifications/message",
            json!({"level": "info", "data": "hi"})
        )
    ));
    let mut client = within("connect", connecting).await.unwrap().unwrap();
    let mut notifications = client.take_notifications().unwrap();
    let early = within("the early notification", notifications.recv())
        .await
        .unwrap();
    assert_eq!(early.method, "notifications/message");

    let call = client.start_request("ping", None::<&Value>).await.unwrap();
    let posted = server.wait_for("the POST", |r| r.method == "POST").await;
    assert_eq!(posted.path, "/messages/?session_id=abc");
    assert_eq!(posted.json()["method"], "ping");
    stream.message(&result(&posted.json()["id"], json!({})));
    let answer = within("the answer", call).await.unwrap();
    assert_eq!(answer.get(), "{}");

    // The stream ending closes the connection.
    stream.end();
    within("the close", client.handle().closed()).await;
}

#[tokio::test]
async fn a_failed_post_fails_its_request() {
    let (server, mut streams) = legacy_server(500).await;
    let url = server.url("/sse");
    let connecting = tokio::spawn(async move { connect(&url).await });
    let stream = within("the GET stream", streams.recv()).await.unwrap();
    stream.raw("event: endpoint\ndata: /messages/\n\n");
    let client = within("connect", connecting).await.unwrap().unwrap();
    let error = within("ping", client.request("ping", None))
        .await
        .unwrap_err();
    let Error::Rpc(error) = error else {
        panic!("{error:?}")
    };
    assert_eq!(error.http_status(), Some(500));
    assert!(error.message.contains("HTTP 500"), "{}", error.message);
}

#[tokio::test]
async fn an_endpoint_on_another_origin_or_no_stream_is_refused() {
    let (server, mut streams) = legacy_server(202).await;
    let url = server.url("/sse");
    let connecting = tokio::spawn(async move { connect(&url).await });
    let stream = within("the GET stream", streams.recv()).await.unwrap();
    stream.raw("event: endpoint\ndata: https://elsewhere.example/messages\n\n");
    let error = within("connect", connecting).await.unwrap().unwrap_err();
    assert!(error.to_string().contains("another origin"), "{error}");

    // A URL that is not an event stream.
    let error = connect(&server.url("/nothing")).await.unwrap_err();
    assert!(
        error.to_string().contains("not a legacy HTTP+SSE endpoint"),
        "{error}"
    );
}
