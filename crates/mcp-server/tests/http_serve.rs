//! `serve_http` as an application uses it: the example server started with `--http PORT`
//! prints its URL and serves there.

mod http_support;

use std::process::Stdio;
use std::time::Duration;

use http_support::*;
use serde_json::json;
use tokio::io::{AsyncBufReadExt, BufReader};

#[tokio::test]
async fn serve_http_prints_its_url_and_serves() {
    let examples = mcp_test_support::build_examples("mcp-server", &[]);
    let port = mcp_test_support::free_port();
    let mut child = tokio::process::Command::new(examples.join("example_server"))
        .args(["--http", &port.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the example server starts");
    let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
    let line = tokio::time::timeout(Duration::from_secs(30), stderr.next_line())
        .await
        .expect("the server says where it listens")
        .unwrap()
        .expect("a line on stderr");
    let url = format!("http://127.0.0.1:{port}/mcp");
    assert_eq!(line, format!("MCP server listening on {url}"));
    let c = client();
    let sid = initialize(&c, &url).await;
    let list = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list" });
    let (status, body, _) =
        outcome(in_session(&c, &url, &sid).json(&list).send().await.unwrap()).await;
    assert_eq!(status, 200, "{body}");
    assert!(!body["result"]["tools"].as_array().unwrap().is_empty());
    child.kill().await.expect("the example server stops");
}
