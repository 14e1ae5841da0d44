//! The `mcpx` command line: every configuration error with its exact message and exit code,
//! the trust rule, and the `check`, `tokens`, `inspect` and `exec` commands (JSON when piped).

mod support;

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};
use support::{mcpx_bin, upstream_bin};

fn mcpx(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = std::process::Command::new(mcpx_bin());
    command
        .current_dir(dir)
        .args(args)
        .env_remove("MCPX_CONFIG");
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().expect("mcpx runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr)
        .trim_end()
        .to_owned()
}

/// Runs mcpx and expects it to fail with exactly `message` (the last stderr line).
#[track_caller]
fn fails(dir: &Path, args: &[&str], env: &[(&str, &str)], message: &str) {
    let output = mcpx(dir, args, env);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let last = stderr(&output)
        .lines()
        .last()
        .unwrap_or_default()
        .to_owned();
    assert_eq!(last, message);
}

#[test]
fn configuration_errors_exit_1_with_a_clear_message() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let file = |name: &str, text: &str| {
        std::fs::write(d.join(name), text).expect("write");
        d.join(name).display().to_string()
    };
    let missing = d.join("nope.json").display().to_string();
    fails(
        d,
        &["--config", &missing, "check"],
        &[],
        &format!("mcpx: configuration not found: {missing} (named with --config or MCPX_CONFIG)"),
    );
    let bad_json = file(
        "bad.json",
        "{\n \"mcpServers\": {\n  \"a\": {\"command\": \"x\"},\n }\n}",
    );
    fails(
        d,
        &["--config", &bad_json, "check"],
        &[],
        &format!(
            "mcpx: invalid mcp.json {bad_json}: trailing comma at line 4 column 2 (the file must be a single JSON object)"
        ),
    );
    let bad_server = file("server.json", r#"{"mcpServers": {"a": {"command": 5}}}"#);
    fails(
        d,
        &["--config", &bad_server, "check"],
        &[],
        &format!(
            "mcpx: invalid mcp.json {bad_server}: mcpServers.a: `command` must be a non-empty string, got a number"
        ),
    );
    let bad_key = file(
        "key.json",
        r#"{"mcpServers": {"a": {"command": "x"}}, "mcpx": {"servers": {"a": {"includ": []}}}}"#,
    );
    fails(
        d,
        &["--config", &bad_key, "check"],
        &[],
        &format!(
            "mcpx: invalid mcpx options in {bad_key}: `mcpx.servers.a.includ`: unknown option (expected one of: connect_timeout, call_timeout, include, exclude, protocol_version)"
        ),
    );
    let bad_value = file(
        "value.json",
        r#"{"mcpServers": {"a": {"command": "x"}}, "mcpx": {"call_timeout": -1}}"#,
    );
    fails(
        d,
        &["--config", &bad_value, "check"],
        &[],
        &format!(
            "mcpx: invalid mcpx options in {bad_value}: `mcpx.call_timeout`: expected a number of seconds greater than 0 and at most 86400, got -1"
        ),
    );
    let unknown_server = file(
        "unknown.json",
        r#"{"mcpServers": {"a": {"command": "x"}}, "mcpx": {"servers": {"b": {}}}}"#,
    );
    fails(
        d,
        &["--config", &unknown_server, "check"],
        &[],
        &format!(
            "mcpx: invalid mcpx options in {unknown_server}: `mcpx.servers.b`: no server named `b` is configured (configured: a)"
        ),
    );
    let fine = file(
        "fine.json",
        r#"{"mcpServers": {"a": {"command": "/nonexistent"}}}"#,
    );
    fails(
        d,
        &["--config", &fine, "check"],
        &[("MCPX_CALL_TIMEOUT", "soon")],
        "mcpx: invalid environment variable `MCPX_CALL_TIMEOUT`: expected a number",
    );
    let empty = tempfile::tempdir().expect("tempdir");
    fails(
        empty.path(),
        &["check"],
        &[],
        &format!(
            "mcpx: no configuration found: looked for mcpx.json, .mcp.json, mcp.json, .cursor/mcp.json, .vscode/mcp.json in {} (name one with --config PATH or MCPX_CONFIG)",
            empty.path().display()
        ),
    );
    std::fs::write(empty.path().join("mcp.json"), r#"{"mcpServers": {}}"#).expect("write");
    fails(
        empty.path(),
        &["check"],
        &[],
        &format!(
            "mcpx: {} configures no servers: add some under \"mcpServers\" (or \"servers\")",
            empty.path().join("mcp.json").display()
        ),
    );
}

fn config_dir() -> tempfile::TempDir {
    support::write_config(&json!({
        "mcpServers": {
            "up": { "command": upstream_bin() },
            "broken": { "command": "/nonexistent/upstream" }
        },
        "mcpx": { "servers": { "up": { "exclude": ["exit"] } } }
    }))
}

fn json_out(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "JSON on stdout ({e}): {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            stderr(output)
        )
    })
}

/// A configuration found in the working directory is untrusted: it may not spawn.
#[test]
fn a_config_found_by_lookup_is_untrusted_unless_trust() {
    let dir = config_dir();
    let output = mcpx(dir.path(), &["check"], &[]);
    assert_eq!(output.status.code(), Some(1));
    let lines = json_out(&output);
    let up = &lines[1];
    assert_eq!(up["server"], "up");
    assert_eq!(up["state"], "failed");
    assert!(
        up["error"]
            .as_str()
            .unwrap_or_default()
            .starts_with("refusing to spawn mcp server in untrusted mode"),
        "{up}"
    );
    let output = mcpx(dir.path(), &["--trust", "check"], &[]);
    let lines = json_out(&output);
    assert_eq!(lines[1]["state"], "ready", "{lines}");
    assert!(lines[1]["tools"].as_u64().is_some_and(|n| n > 5), "{lines}");
    assert_eq!(lines[1]["hidden"], 1, "{lines}");
    // A named configuration is trusted.
    let named = dir.path().join("mcpx.json").display().to_string();
    let output = mcpx(dir.path(), &["--config", &named, "check"], &[]);
    assert_eq!(json_out(&output)[1]["state"], "ready");
}

#[test]
fn check_tokens_inspect_and_exec_print_json_when_piped() {
    let dir = config_dir();
    let named = dir.path().join("mcpx.json").display().to_string();
    let run = |args: &[&str]| {
        let mut all = vec!["--config", named.as_str()];
        all.extend_from_slice(args);
        mcpx(dir.path(), &all, &[])
    };

    let output = run(&["check"]);
    assert_eq!(output.status.code(), Some(1), "broken is not ready");
    let lines = json_out(&output);
    assert_eq!(lines[0]["server"], "broken");
    assert_eq!(lines[0]["state"], "failed");
    assert_eq!(lines[1]["protocol_version"], "2026-07-28");
    assert_eq!(lines[1]["era"], "stateless");

    let tokens = json_out(&run(&["tokens"]));
    let up = &tokens["upstreams"][0];
    assert_eq!(up["server"], "up");
    assert!(up["direct"].as_u64().unwrap() > 0, "{tokens}");
    assert!(tokens["mcpx_exposure"].as_u64().unwrap() > 0, "{tokens}");

    let raw = json_out(&run(&["inspect", "up", "echo", "--raw"]));
    assert_eq!(raw["inputSchema"]["required"], json!(["message"]));

    let output = run(&["exec", "up", "echo", "message=hello"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(json_out(&output)["content"][0]["text"], "hello");

    let output = run(&["exec", "up", "tool_error"]);
    assert_eq!(output.status.code(), Some(1), "a tool error exits 1");
    let output = run(&["exec", "up", "rpc_error"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output).lines().last().unwrap_or_default(),
        "mcpx: server `up` returned error -32042: upstream refused on purpose"
    );
    // The command line is a client that cannot answer the user's questions: a clear error.
    let output = run(&["exec", "up", "ask_name"]);
    assert_eq!(output.status.code(), Some(1));
    let last = stderr(&output)
        .lines()
        .last()
        .unwrap_or_default()
        .to_owned();
    assert!(
        last.starts_with("mcpx: calling `ask_name` on server `up` failed: mcp server `up`: tools/call needs input `elicitation-1` (elicitation/create) that this client cannot give: mcpx exec on the command line cannot answer elicitation/create"),
        "{last}"
    );
    let output = run(&["exec", "up", "echo", "nope=1"]);
    assert_eq!(
        stderr(&output).lines().last().unwrap_or_default(),
        "mcpx: tool `echo` has no argument `nope` in its input schema (known: message); use --arguments-json to send it anyway"
    );
}
