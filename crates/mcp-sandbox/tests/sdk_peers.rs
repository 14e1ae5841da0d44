//! The official SDK clients against the sandbox: the Python SDK client in both protocol eras
//! and the TypeScript SDK client, over streamable HTTP and stdio. Each runs code in a session
//! made beforehand (state persists across calls and across clients), streams output as
//! progress, and reads a workspace file as a resource.

mod support;

use mcp_test_support::run_sdk_client;
use serde_json::json;
use support::{Transport, sandbox_bin, start};

fn plan(session: &str) -> String {
    json!({
        "expect_tools": ["execute_code", "execute_command", "get_sessions", "stop_session", "get_volume_path"],
        "calls": [
            { "name": "execute_code", "arguments": { "code": "y = x * 2", "session_id": session } },
            { "name": "execute_code", "arguments": { "code": "y + 1", "session_id": session }, "expect_text": "83" },
            { "name": "execute_command", "arguments": { "command": "cat", "args": ["note.txt"], "session_id": session }, "expect_text": "from mcp-kit" },
            { "name": "get_sessions", "arguments": { "session_id": session }, "expect_text": session }
        ],
        "resource": { "uri": format!("sandbox://{session}/note.txt"), "expect_text": "from mcp-kit" },
        "progress": {
            "name": "execute_code",
            "arguments": {
                "code": "import time\nfor i in range(4):\n    print(i, flush=True)\n    time.sleep(0.1)",
                "session_id": session
            },
            "min_count": 3
        }
    })
    .to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn python_and_typescript_sdk_clients_over_http() {
    let sandbox = start(Transport::Http, &[]).await;
    let url = sandbox.http.as_ref().expect("http").url.clone();
    let first = sandbox
        .python(None, "x = 41\nopen('note.txt', 'w').write('from mcp-kit')")
        .await;
    let session = first["session_id"].as_str().unwrap();
    for (mode, era) in [("auto", "modern"), ("legacy", "legacy")] {
        let summary = run_sdk_client(mcp_test_support::py_client(
            &plan(session),
            mode,
            era,
            &["http", &url],
        ))
        .await;
        assert_eq!(summary["calls"][1]["text"], "83\n", "{summary:#}");
    }
    let summary =
        run_sdk_client(mcp_test_support::ts_client(&plan(session), &["http", &url])).await;
    assert_eq!(summary["calls"][1]["text"], "83\n", "{summary:#}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_python_sdk_client_over_stdio() {
    support::require_bwrap();
    // A stdio server is the client's own: make the session through the same client first.
    let root = tempfile::tempdir().unwrap();
    let plan = json!({
        "expect_tools": ["execute_code"],
        "calls": [
            { "name": "execute_code", "arguments": { "code": "import sys\nsys.version_info[0]" }, "expect_text": "3" },
            { "name": "execute_command", "arguments": { "command": "echo $((6 * 7))" }, "expect_text": "42" }
        ]
    })
    .to_string();
    let mut command = mcp_test_support::py_client(
        &plan,
        "legacy",
        "legacy",
        &["stdio", sandbox_bin(), "--stdio"],
    );
    command
        .env("MSB_WORKSPACE_ROOT", root.path())
        .env("RUST_LOG", "warn");
    run_sdk_client(command).await;
}
