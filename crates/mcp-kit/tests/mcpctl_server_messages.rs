//! `mcpctl` and what servers send besides results, without a terminal (pipes): elicitation
//! answered by `--elicit`, sampling by `--sampling-reply`/`--sampling-command` (or refused),
//! roots from `--root-dir`, progress and log lines on stderr in both eras, `--wire`, and the
//! era cache that spares a legacy server the `server/discover` probe, and the legacy HTTP+SSE
//! transport.
//! Against real servers: the repository's example server, the everything server (stdio and
//! HTTP) and the Python SDK's.
#![cfg(feature = "cli")]

mod cli_support;

use std::path::PathBuf;

use cli_support::{Run, mcpctl};
use mcp_test_support as support;
use serde_json::{Value, json};

/// The repository's example server (echo, add, count, greet, touch).
fn example_server() -> String {
    let path: PathBuf = support::build_examples("mcp-server", &[]).join("example_server");
    path.display().to_string()
}

/// The Python SDK fixture server's command.
fn python_server() -> [String; 2] {
    [
        support::peers_python().display().to_string(),
        support::fixture("python_server.py").display().to_string(),
    ]
}

/// The everything server's stdio command.
fn everything() -> [String; 3] {
    [
        "node".to_owned(),
        support::everything_js().display().to_string(),
        "stdio".to_owned(),
    ]
}

/// `args`, then `--` and `server`.
fn with_server<'a>(args: &[&'a str], server: &'a [String]) -> Vec<&'a str> {
    let mut all = args.to_vec();
    all.push("--");
    all.extend(server.iter().map(String::as_str));
    all
}

/// The text of the first content block of a tool result.
fn first_text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

/// The JSON lines of stderr (what `--json` prints there), skipping the server's own lines.
fn stderr_events(run: &Run) -> Vec<Value> {
    run.stderr
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|event| event.get("server").is_some())
        .collect()
}

/// The params of the notifications `method` among the events.
fn notifications<'a>(events: &'a [Value], method: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|e| e["notification"] == method)
        .map(|e| &e["params"])
        .collect()
}

#[tokio::test]
async fn elicitation_is_answered_by_the_elicit_flag_without_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let example = [example_server()];
    let answer = dir.path().join("answer.json");
    std::fs::write(&answer, r#"{"name": "Ada"}"#).unwrap();
    let flag = format!("json={}", answer.display());

    let run = mcpctl(
        dir.path(),
        &with_server(&["--json", "call", "greet", "--elicit", &flag], &example),
    )
    .await;
    let events = stderr_events(&run);
    assert_eq!(first_text(&run.json()), "Hello, Ada!");
    assert!(
        events
            .iter()
            .any(|e| e["elicitation"] == "accept" && e["message"] == "What is your name?"),
        "{events:?}"
    );

    // No terminal and no --elicit: declined, and the note says how to answer.
    let run = mcpctl(
        dir.path(),
        &with_server(&["--output", "table", "call", "greet"], &example),
    )
    .await
    .expect(0);
    assert!(run.stdout.contains("Hello, stranger!"), "{run:?}");
    assert!(
        run.stderr.contains(
            "elicitation \"What is your name?\": decline (no terminal to ask on: answer with \
             --elicit json=FILE)"
        ),
        "{run:?}"
    );

    let run = mcpctl(
        dir.path(),
        &with_server(
            &["--output", "table", "call", "greet", "--elicit", "cancel"],
            &example,
        ),
    )
    .await
    .expect(0);
    assert!(run.stderr.contains(": cancel"), "{run:?}");

    // A missing answer file is a usage error, before any server is started.
    let run = mcpctl(
        dir.path(),
        &with_server(
            &["call", "greet", "--elicit", "json=missing.json"],
            &example,
        ),
    )
    .await
    .expect(2);
    assert!(run.stderr.contains("missing.json"), "{run:?}");
    let run = mcpctl(dir.path(), &["call", "x", "greet", "--elicit", "maybe"])
        .await
        .expect(2);
    assert!(
        run.stderr
            .contains("expected decline, cancel, accept or json=FILE"),
        "{run:?}"
    );
}

#[tokio::test]
async fn url_elicitation_prints_the_url_over_http() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::start_everything_http().await;
    let run = mcpctl(
        dir.path(),
        &[
            "--output",
            "table",
            "call",
            &server.url,
            "trigger-url-elicitation",
            "url=https://example.com/consent",
            "--elicit",
            "accept",
        ],
    )
    .await
    .expect(0);
    assert!(
        run.stderr
            .contains("asks you to open this URL: https://example.com/consent"),
        "{run:?}"
    );
    assert!(run.stdout.contains("\"action\": \"accept\""), "{run:?}");
}

#[tokio::test]
async fn sampling_is_answered_by_a_reply_or_a_command_and_refused_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let python = python_server();
    // The Python SDK server samples in the stateful era only.
    let call = ["--json", "--protocol-version", "2025-11-25", "call"];

    let mut args = call.to_vec();
    args.extend(["summarize", "text=abc", "--sampling-reply", "short"]);
    let result = mcpctl(dir.path(), &with_server(&args, &python))
        .await
        .json();
    assert_eq!(first_text(&result), "summary: short");

    // The command gets the request's params on stdin; its output is the reply.
    let upper = "python3 -c 'import json,sys; \
                 print(json.load(sys.stdin)[\"messages\"][0][\"content\"][\"text\"].upper())'";
    let mut args = call.to_vec();
    args.extend(["summarize", "text=abc", "--sampling-command", upper]);
    let result = mcpctl(dir.path(), &with_server(&args, &python))
        .await
        .json();
    assert_eq!(first_text(&result), "summary: SUMMARIZE: ABC");

    // Without either, the server gets an error it can report.
    let mut args = call.to_vec();
    args.extend(["summarize", "text=abc"]);
    let run = mcpctl(dir.path(), &with_server(&args, &python)).await;
    let events = stderr_events(&run);
    let result = run.json();
    assert!(
        first_text(&result).starts_with("sampling failed: mcpctl has no model to sample with"),
        "{result}"
    );
    assert!(
        events.iter().any(|e| e["sampling"] == "refused"),
        "{events:?}"
    );

    // The everything server offers its sampling tool once the capability is declared.
    let everything = everything();
    let result = mcpctl(
        dir.path(),
        &with_server(
            &[
                "--json",
                "-q",
                "call",
                "trigger-sampling-request",
                "prompt=hi",
                "--sampling-reply",
                "The answer is 42",
            ],
            &everything,
        ),
    )
    .await
    .json();
    assert!(first_text(&result).contains("The answer is 42"), "{result}");
}

#[tokio::test]
async fn root_dirs_answer_roots_list() {
    let dir = tempfile::tempdir().unwrap();
    let spaced = dir.path().join("with space");
    std::fs::create_dir(&spaced).unwrap();
    let spaced = spaced.display().to_string();
    let everything = everything();
    let result = mcpctl(
        dir.path(),
        &with_server(
            &[
                "--json",
                "-q",
                "call",
                "get-roots-list",
                "--root-dir",
                ".",
                "--root-dir",
                &spaced,
            ],
            &everything,
        ),
    )
    .await
    .json();
    let text = first_text(&result);
    assert!(text.contains("2 total"), "{text}");
    assert!(text.contains("/with%20space/"), "{text}");

    let run = mcpctl(
        dir.path(),
        &[
            "call",
            "get-roots-list",
            "--root-dir",
            "no-such-dir",
            "--",
            "true",
        ],
    )
    .await
    .expect(2);
    assert!(run.stderr.contains("--root-dir no-such-dir"), "{run:?}");
}

#[tokio::test]
async fn progress_and_log_lines_go_to_stderr_in_both_eras() {
    let dir = tempfile::tempdir().unwrap();
    let example = [example_server()];
    for version in [None, Some("2025-11-25")] {
        let mut args = vec!["--json", "--log-level", "debug"];
        if let Some(version) = version {
            args.extend(["--protocol-version", version]);
        }
        args.extend(["call", "count", "steps=3"]);
        let run = mcpctl(dir.path(), &with_server(&args, &example)).await;
        let events = stderr_events(&run);
        assert_eq!(first_text(&run.json()), "counted to 3");
        let progress = notifications(&events, "notifications/progress");
        assert_eq!(progress.len(), 3, "{version:?}: {events:?}");
        assert_eq!(progress[2]["progress"], 3);
        assert_eq!(progress[2]["total"], 3);
        assert_eq!(progress[2]["message"], "counting");
        let logs = notifications(&events, "notifications/message");
        assert_eq!(logs.len(), 3, "{version:?}: {events:?}");
        assert_eq!(logs[0]["level"], "debug");
        assert_eq!(logs[0]["data"], "step 1");
    }

    // Without --log-level the server keeps its own level: no debug lines.
    let run = mcpctl(
        dir.path(),
        &with_server(&["--json", "call", "count", "steps=2"], &example),
    )
    .await;
    let events = stderr_events(&run);
    run.expect(0);
    assert!(
        notifications(&events, "notifications/message").is_empty(),
        "{events:?}"
    );

    // Text mode: one line per message, with the server and the level.
    let python = python_server();
    for version in ["2026-07-28", "2025-11-25"] {
        let run = mcpctl(
            dir.path(),
            &with_server(
                &[
                    "--output",
                    "table",
                    "-q",
                    "--log-level",
                    "info",
                    "--protocol-version",
                    version,
                    "call",
                    "work",
                    "steps=2",
                ],
                &python,
            ),
        )
        .await
        .expect(0);
        assert!(run.stdout.contains("did 2 steps"), "{run:?}");
        assert!(
            run.stderr.contains("[python] info: did step 2"),
            "{version}: {run:?}"
        );
        assert!(
            run.stderr.contains("[python] progress 2/2 step 2"),
            "{version}: {run:?}"
        );
    }

    // Over HTTP, from the everything server.
    let server = support::start_everything_http().await;
    let run = mcpctl(
        dir.path(),
        &[
            "--json",
            "call",
            &server.url,
            "trigger-long-running-operation",
            "duration=1",
            "steps=2",
        ],
    )
    .await;
    let events = stderr_events(&run);
    run.expect(0);
    assert_eq!(
        notifications(&events, "notifications/progress").len(),
        2,
        "{events:?}"
    );
}

#[tokio::test]
async fn wire_prints_every_message_with_secrets_redacted() {
    let dir = tempfile::tempdir().unwrap();
    let example = [example_server()];
    let run = mcpctl(
        dir.path(),
        &with_server(
            &[
                "--output",
                "table",
                "--wire",
                "-e",
                "API_TOKEN=hunter2-secret",
                "call",
                "echo",
                "message=hunter2-secret",
            ],
            &example,
        ),
    )
    .await
    .expect(0);
    // The result itself is printed as it is.
    assert_eq!(run.stdout.trim(), "hunter2-secret");
    let sent: Vec<&str> = run.stderr.lines().filter(|l| l.contains("] → ")).collect();
    let received: Vec<&str> = run.stderr.lines().filter(|l| l.contains("] ← ")).collect();
    assert!(
        sent.iter().any(|l| l.contains("\"method\":\"tools/call\"")),
        "{run:?}"
    );
    assert!(received.iter().any(|l| l.contains("\"result\"")), "{run:?}");
    assert!(!run.stderr.contains("hunter2-secret"), "{run:?}");
    assert!(run.stderr.contains("[redacted]"), "{run:?}");

    // JSON mode: one object per message, with its direction.
    let run = mcpctl(
        dir.path(),
        &with_server(&["--json", "--wire", "ping"], &example),
    )
    .await;
    let events = stderr_events(&run);
    run.expect(0);
    let directions: Vec<&str> = events.iter().filter_map(|e| e["wire"].as_str()).collect();
    assert!(directions.contains(&"sent") && directions.contains(&"received"));
    assert!(
        events
            .iter()
            .all(|e| e["server"] == json!("example_server"))
    );
}

#[tokio::test]
async fn a_legacy_server_is_probed_once_then_greeted_with_initialize() {
    let dir = tempfile::tempdir().unwrap();
    let fastmcp = [
        support::peers_python_mcp1().display().to_string(),
        support::fixture("fastmcp1_server.py").display().to_string(),
    ];
    // First run: the probe, which FastMCP 1.x reports as pages of validation errors.
    let first = mcpctl(dir.path(), &with_server(&["server-info"], &fastmcp)).await;
    let first_lines = first.stderr.lines().count();
    let info = first.json();
    assert_eq!(info["handshake"], "initialize");
    assert!(
        first_lines > 20,
        "the probe went unnoticed: {first_lines} lines"
    );
    // The era is remembered: the next runs start with initialize, and the server stays quiet.
    for _ in 0..2 {
        let run = mcpctl(
            dir.path(),
            &with_server(&["--json", "call", "add", "a=2", "b=3"], &fastmcp),
        )
        .await;
        assert!(
            !run.stderr.contains("validation error"),
            "probed again: {}",
            run.stderr
        );
        assert!(run.stderr.lines().count() < 5, "{}", run.stderr);
        assert_eq!(run.json()["structuredContent"]["result"], 5);
    }
    let cache = std::fs::read_to_string(cli_support::cache_dir(dir.path()).join("eras.json"))
        .expect("the era cache");
    assert!(cache.contains("\"stateful\""), "{cache}");
    assert!(
        !cache.contains("fastmcp1_server"),
        "the cache names no command: {cache}"
    );

    // A server of the current era is remembered as such, and still discovered.
    let example = [example_server()];
    for _ in 0..2 {
        let info = mcpctl(dir.path(), &with_server(&["server-info"], &example))
            .await
            .json();
        assert_eq!(info["handshake"], "server/discover");
    }
}

#[tokio::test]
async fn a_legacy_http_sse_server_is_reached_through_its_sse_url() {
    let dir = tempfile::tempdir().unwrap();
    let port = support::free_port();
    let mut command = tokio::process::Command::new(support::peers_python_mcp1());
    command
        .arg(support::fixture("fastmcp1_server.py"))
        .args(["--sse", &port.to_string()])
        .kill_on_drop(true);
    let _server = support::start_http_server(command, port, "fastmcp1", "Uvicorn running").await;
    let url = format!("http://127.0.0.1:{port}/sse");
    // POST to the SSE URL is refused (405): the legacy transport is tried, and works.
    let info = mcpctl(dir.path(), &["server-info", &url]).await.json();
    assert_eq!(info["handshake"], "initialize");
    assert_eq!(info["result"]["serverInfo"]["name"], "fastmcp-one");
    let result = mcpctl(dir.path(), &["--json", "call", &url, "add", "a=20", "b=22"])
        .await
        .json();
    assert_eq!(result["structuredContent"]["result"], 42);

    // A URL that is neither kind of server keeps the streamable HTTP error.
    let run = mcpctl(
        dir.path(),
        &["list-tools", &format!("http://127.0.0.1:{port}/nothing")],
    )
    .await
    .expect(1);
    assert!(run.stderr.contains("HTTP 404"), "{run:?}");
}
