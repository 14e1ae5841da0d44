//! `mcpctl` on a terminal (a real pseudo-terminal, 120 columns): the elicitation form, the
//! progress bar, Ctrl-C cancelling a call (stdio and streamable HTTP), tables fitted to the
//! width; against the repository's example server and the everything server.
#![cfg(feature = "cli")]

mod cli_support;

use std::path::PathBuf;

use cli_support::{Step, on_terminal};
use mcp_test_support as support;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The repository's example server (echo, add, count, greet, touch).
fn example_server() -> String {
    let path: PathBuf = support::build_examples("mcp-server", &[]).join("example_server");
    path.display().to_string()
}

/// Ctrl-C, as the terminal sends it.
fn ctrl_c() -> Step {
    Step::Send("\u{3}".to_owned())
}

#[tokio::test]
async fn the_greet_tool_asks_for_a_name_in_a_form() {
    let dir = tempfile::tempdir().unwrap();
    let example = example_server();
    let run = on_terminal(
        dir.path(),
        &["call", "greet", "--", &example],
        &[
            Step::Expect("asks: What is your name?"),
            Step::Expect("required"),
            Step::Expect("> "),
            // An empty answer to a required field is refused, and the field asked again.
            Step::Send("\n".to_owned()),
            Step::Expect("this field is required"),
            Step::Expect("> "),
            Step::Send("Ada\n".to_owned()),
            Step::Expect("Hello, Ada!"),
        ],
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.transcript);
    assert!(
        run.transcript
            .contains("elicitation \"What is your name?\": accept")
    );

    // :decline at the prompt declines: the tool greets a stranger.
    let run = on_terminal(
        dir.path(),
        &["call", "greet", "--", &example],
        &[
            Step::Expect("> "),
            Step::Send(":decline\n".to_owned()),
            Step::Expect("Hello, stranger!"),
        ],
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.transcript);
    assert!(run.transcript.contains(": decline"), "{}", run.transcript);
}

#[tokio::test]
async fn the_everything_servers_form_takes_typed_values_and_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let js = support::everything_js().display().to_string();
    let run = on_terminal(
        dir.path(),
        &[
            "call",
            "-q",
            "trigger-elicitation-request",
            "--",
            "node",
            &js,
            "stdio",
        ],
        &[
            Step::Expect("name \"String\" (text, required)"),
            Step::Send("Ada Lovelace\n".to_owned()),
            Step::Expect("check \"Boolean\" (y/n, optional)"),
            Step::Send("y\n".to_owned()),
            // firstLine, email, homepage, birthdate: defaults or nothing.
            Step::Send("\n\n\n\n".to_owned()),
            Step::Expect("integer \"Integer\" (integer, ≥ 1, ≤ 100, optional)"),
            Step::Send("500\n".to_owned()),
            Step::Expect("at most 100"),
            Step::Send("7\n".to_owned()),
            // number, then the single select by its number.
            Step::Send("\n".to_owned()),
            Step::Expect("2) Rachel"),
            Step::Send("2\n".to_owned()),
            // Two instruments, then the remaining fields' defaults.
            Step::Expect("1 to 3"),
            Step::Send("Piano, 3\n\n\n\n".to_owned()),
            Step::Expect("action"),
        ],
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.transcript);
    let result = run.transcript.replace("\r\n", "\n");
    for expected in [
        "\"name\": \"Ada Lovelace\"",
        "\"check\": true",
        "\"integer\": 7",
        "\"untitledSingleSelectEnum\": \"Rachel\"",
        "\"firstLine\": \"It was a dark and stormy night.\"",
    ] {
        assert!(result.contains(expected), "{expected} in {result}");
    }
    assert!(
        result.contains("Piano") && result.contains("Violin"),
        "{result}"
    );
}

#[tokio::test]
async fn progress_is_a_bar_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let example = example_server();
    let run = on_terminal(
        dir.path(),
        &["call", "count", "steps=40", "--", &example],
        &[Step::Expect("counted to 40")],
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.transcript);
    // The bar shows the server's message and the count; no progress lines are printed.
    assert!(
        run.transcript.contains("/40 counting"),
        "{}",
        run.transcript
    );
    assert!(
        !run.transcript.contains("] progress "),
        "{}",
        run.transcript
    );
}

#[tokio::test]
async fn ctrl_c_cancels_a_stdio_call_and_exits_130() {
    let dir = tempfile::tempdir().unwrap();
    let example = example_server();
    let run = on_terminal(
        dir.path(),
        &["call", "count", "steps=100000", "--wire", "--", &example],
        &[Step::Expect("counting"), ctrl_c()],
    )
    .await;
    assert_eq!(run.code, 130, "{}", run.transcript);
    assert!(
        run.transcript
            .contains("interrupted: cancelled the call of tool `count` on server"),
        "{}",
        run.transcript
    );
    // The cancellation went to the server, naming the call's request.
    let cancelled = run
        .transcript
        .lines()
        .find(|line| line.contains("→") && line.contains("notifications/cancelled"))
        .unwrap_or_else(|| panic!("no notifications/cancelled sent:\n{}", run.transcript));
    assert!(cancelled.contains("\"requestId\":3"), "{cancelled}");
}

#[tokio::test]
async fn ctrl_c_cancels_an_http_call_and_ends_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let port = support::free_port();
    let mut command = tokio::process::Command::new(example_server());
    command
        .args(["--http", &port.to_string()])
        .kill_on_drop(true);
    let server = support::start_http_server(command, port, "example", "listening on").await;
    let run = on_terminal(
        dir.path(),
        &[
            "call",
            &server.url,
            "count",
            "steps=100000",
            "--protocol-version",
            "2025-11-25",
            "--wire",
        ],
        &[Step::Expect("counting"), ctrl_c()],
    )
    .await;
    assert_eq!(run.code, 130, "{}", run.transcript);
    assert!(
        run.transcript.contains("notifications/cancelled"),
        "{}",
        run.transcript
    );
    // The session was ended with DELETE: the server holds none.
    let health = get_json(port, "/health").await;
    assert_eq!(health["sessions"], 0, "{health}");
}

/// `GET path` on 127.0.0.1:`port`, its JSON body.
async fn get_json(port: u16, path: &str) -> Value {
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    let request = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut response = String::new();
    stream.read_to_string(&mut response).await.expect("read");
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, body)| body)
        .unwrap_or_default();
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {response}"))
}

/// The terminal's width in the driver.
const COLUMNS: usize = 120;

/// The table in a transcript: the lines from its `NAME` header on, escape sequences removed.
fn table_lines(transcript: &str) -> Vec<String> {
    let plain = strip_escapes(transcript);
    plain
        .split(['\n', '\r'])
        .skip_while(|line| !line.starts_with("NAME"))
        .filter(|line| !line.is_empty())
        .map(str::to_owned)
        .collect()
}

/// `text` without CSI escape sequences (`ESC [ … letter`).
fn strip_escapes(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[tokio::test]
async fn tables_fit_the_terminal_and_a_shown_command_is_never_cut() {
    let dir = tempfile::tempdir().unwrap();
    let js = support::everything_js().display().to_string();
    let run = on_terminal(
        dir.path(),
        &["list-tools", "-q", "--", "node", &js, "stdio"],
        &[Step::Expect("get-tiny-image")],
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.transcript);
    let lines = table_lines(&run.transcript);
    assert!(lines.len() > 10, "{}", run.transcript);
    for line in &lines {
        assert!(
            line.chars().count() <= COLUMNS,
            "{} columns: {line}",
            line.chars().count()
        );
    }
    // Descriptions longer than the room left are cut, not wrapped.
    assert!(lines.iter().any(|line| line.ends_with('…')), "{lines:#?}");

    // list-servers --show-argv: the command wraps within the width, whole.
    let long_argv: Vec<String> = (0..12).map(|i| format!("--option-{i}=value-{i}")).collect();
    let mut argv = vec!["server-binary".to_owned()];
    argv.extend(long_argv.iter().cloned());
    let config = serde_json::json!({
        "version": 1,
        "servers": { "long": { "transport": "stdio", "argv": argv } }
    });
    std::fs::write(dir.path().join(".mcp.json"), config.to_string()).unwrap();
    let run = on_terminal(
        dir.path(),
        &["list-servers", "--show-argv"],
        &[Step::Expect("server-binary")],
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.transcript);
    let lines = table_lines(&run.transcript);
    for line in &lines {
        assert!(line.chars().count() <= COLUMNS, "{line}");
    }
    let shown: String = lines.join(" ");
    for option in &long_argv {
        assert!(
            shown.contains(option.as_str()),
            "{option} cut from:\n{}",
            lines.join("\n")
        );
    }
}

#[tokio::test]
async fn a_password_input_is_asked_without_echo() {
    let dir = tempfile::tempdir().unwrap();
    let probe = dir.path().join("probe.js");
    std::fs::write(&probe, cli_support::PROBE_JS).unwrap();
    std::fs::create_dir(dir.path().join(".vscode")).unwrap();
    let config = serde_json::json!({
        "inputs": [
            { "type": "promptString", "id": "token", "description": "API token", "password": true },
            { "type": "pickString", "id": "region", "description": "Region",
              "options": ["eu", "us"], "default": "eu" }
        ],
        "servers": { "probe": {
            "command": "node",
            "args": [probe.display().to_string()],
            "env": { "TOKEN": "${input:token}", "PROBE_VALUE": "${input:region}" }
        } }
    });
    std::fs::write(dir.path().join(".vscode/mcp.json"), config.to_string()).unwrap();
    let run = on_terminal(
        dir.path(),
        &["--trust", "--json", "call", "probe", "whoami"],
        &[
            // In the order the configuration uses them: PROBE_VALUE, then TOKEN.
            Step::Expect("2) us"),
            Step::Expect("> "),
            Step::Send("2\n".to_owned()),
            Step::Expect("API token (token)"),
            Step::Expect("> "),
            Step::NoEcho,
            Step::Send("s3cret\n".to_owned()),
            Step::Expect("\"content\""),
        ],
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.transcript);
    // The token was not echoed at its prompt, and reached the server.
    assert!(!run.transcript.contains("> s3cret"), "{}", run.transcript);
    assert!(
        run.transcript.contains("\\\"token\\\":\\\"s3cret\\\""),
        "{}",
        run.transcript
    );
    assert!(
        run.transcript.contains("\\\"probe_value\\\":\\\"us\\\""),
        "{}",
        run.transcript
    );
}
