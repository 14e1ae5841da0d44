//! 100 clients, each with its own session, each making 100 `tools/call`s at once over
//! streamable HTTP: every response answers its own request.

mod http_support;

use std::sync::Arc;

use http_support::*;
use mcp_server::schemars::JsonSchema;
use mcp_server::{HttpOptions, Server};
use serde::Deserialize;
use serde_json::json;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

const CLIENTS: usize = 100;
const CALLS: usize = 100;
/// Calls in flight per client (each on its own connection): 1,000 sockets at once, within the
/// usual file-descriptor limits.
const IN_FLIGHT: usize = 10;

#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "mcp_server::schemars")]
struct EchoArgs {
    message: String,
}

#[tokio::test(flavor = "multi_thread")]
async fn hundred_clients_times_hundred_calls() {
    let server = Server::builder("http-concurrency", "1.0.0")
        .tool("echo", "Echoes its message", |a: EchoArgs, cx| async move {
            // Yield once so that calls interleave inside the server too.
            tokio::task::yield_now().await;
            Ok(format!(
                "{} (session {})",
                a.message,
                cx.session_id().unwrap_or("none")
            ))
        })
        .build();
    let http = start(&server, HttpOptions::default()).await;
    let url = http.url();
    let mut clients = JoinSet::new();
    for client_no in 0..CLIENTS {
        let url = url.clone();
        clients.spawn(async move {
            let c = client();
            let sid = initialize(&c, &url).await;
            let slots = Arc::new(Semaphore::new(IN_FLIGHT));
            let mut calls = JoinSet::new();
            for call_no in 0..CALLS {
                let (c, url, sid, slots) = (c.clone(), url.clone(), sid.clone(), slots.clone());
                calls.spawn(async move {
                    let _slot = slots.acquire_owned().await.unwrap();
                    let id = (client_no * CALLS + call_no) as i64;
                    let message = format!("client {client_no} call {call_no}");
                    let response = in_session(&c, &url, &sid)
                        .json(&json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
                            "params": { "name": "echo", "arguments": { "message": message } } }))
                        .send()
                        .await
                        .expect("a response");
                    assert_eq!(response.headers()["content-type"], "application/json");
                    let (status, body, _) = outcome(response).await;
                    assert_eq!(status, 200, "{body}");
                    assert_eq!(body["id"], id, "the response answers its own request");
                    assert_eq!(text_of(&body), format!("{message} (session {sid})"));
                });
            }
            while let Some(done) = calls.join_next().await {
                done.expect("a call");
            }
        });
    }
    while let Some(done) = clients.join_next().await {
        done.expect("a client");
    }
    assert_eq!(http.sessions().count(), CLIENTS);
}
