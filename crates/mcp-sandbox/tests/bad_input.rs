//! Every tool with missing, wrong-typed and oversized arguments: a tool error that says what
//! is wrong, and the server serving on.

mod support;

use serde_json::{Value, json};
use support::{Transport, start, start_with, text};

/// (tool, arguments, a phrase the error must contain)
fn cases() -> Vec<(&'static str, Value, &'static str)> {
    let big = "x".repeat(5 << 20);
    let long_id = "s".repeat(1000);
    vec![
        ("execute_code", json!({}), "code"),
        ("execute_code", json!({ "code": 5 }), "string"),
        (
            "execute_code",
            json!({ "code": "1", "template": "ruby" }),
            "ruby",
        ),
        (
            "execute_code",
            json!({ "code": "1", "flavor": "huge" }),
            "huge",
        ),
        ("execute_code", json!({ "code": "1", "timeout": -1 }), "-1"),
        (
            "execute_code",
            json!({ "code": "1", "timeout": "soon" }),
            "soon",
        ),
        (
            "execute_code",
            json!({ "code": "1", "timeout": 1e9 }),
            "at most 1800 seconds",
        ),
        (
            "execute_code",
            json!({ "code": "1", "session_id": 5 }),
            "string",
        ),
        (
            "execute_code",
            json!({ "code": "1", "session_id": long_id }),
            "1 to 128 characters",
        ),
        (
            "execute_code",
            json!({ "code": "1", "session_id": "sbx-nope" }),
            "unknown session `sbx-nope`",
        ),
        ("execute_code", json!({ "code": "   " }), "code is empty"),
        ("execute_code", json!({ "code": big }), "the limit is 4 MiB"),
        (
            "execute_code",
            json!({ "code": "1", "language": "python" }),
            "language",
        ),
        ("execute_command", json!({}), "command"),
        ("execute_command", json!({ "command": ["ls"] }), "string"),
        (
            "execute_command",
            json!({ "command": "ls", "args": "-l" }),
            "array",
        ),
        (
            "execute_command",
            json!({ "command": "ls", "args": [1] }),
            "string",
        ),
        (
            "execute_command",
            json!({ "command": "" }),
            "command is empty",
        ),
        (
            "execute_command",
            json!({ "command": "echo", "args": [big] }),
            "the limit is 4 MiB",
        ),
        (
            "execute_command",
            json!({ "command": "echo", "args": ["a\u{0}b"] }),
            "NUL",
        ),
        ("get_sessions", json!({ "session_id": 5 }), "string"),
        (
            "get_sessions",
            json!({ "session_id": "sbx-nope" }),
            "unknown session",
        ),
        ("stop_session", json!({}), "session_id"),
        ("stop_session", json!({ "session_id": null }), "null"),
        (
            "stop_session",
            json!({ "session_id": "sbx-nope" }),
            "unknown session",
        ),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn every_tool_refuses_bad_arguments_and_the_server_serves_on() {
    let sandbox = start(Transport::Stdio, &[]).await;
    for (tool, arguments, phrase) in cases() {
        let result = sandbox.call(tool, arguments.clone()).await;
        let shown = arguments.to_string();
        let shown = &shown[..shown.len().min(120)];
        assert_eq!(result["isError"], true, "{tool} {shown}: {result:#}");
        let message = text(&result);
        assert!(
            message.contains(phrase),
            "{tool} {shown}: `{phrase}` not in {}",
            &message[..message.len().min(600)]
        );
    }
    assert!(
        sandbox.session_ids().await.is_empty(),
        "no session was made"
    );
    assert_eq!(
        sandbox.python(None, "'still here'").await["stdout"],
        "'still here'\n"
    );
}

/// Before 2025-11-25 invalid arguments are a protocol error (-32602), not a tool result.
#[tokio::test(flavor = "multi_thread")]
async fn older_clients_get_invalid_params() {
    let sandbox = start_with(Transport::Http, &[], Some("2025-06-18")).await;
    let error = sandbox
        .session
        .call_tool("execute_code", json!({ "code": 5 }).as_object().cloned())
        .await
        .expect_err("refused");
    assert!(
        error.to_string().contains("-32602") || error.to_string().contains("Invalid arguments"),
        "{error}"
    );
    assert_eq!(sandbox.python(None, "1").await["stdout"], "1\n");
}
