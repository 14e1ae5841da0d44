//! `mcpctl`, the real binary run as a subprocess: against the reference "everything" server
//! over stdio and over streamable HTTP, against a small probe server that reports what the
//! client sent, and on its own (help, usage errors, completions). Also checks that `--help`
//! and docs/cli.md document the same options.
//!
//! Built only with the `cli` feature, which builds the binary.
#![cfg(feature = "cli")]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use mcp_test_support as support;
use serde_json::{Value, json};
use tempfile::TempDir;

mod cli_support;
use cli_support::{PROBE_JS, RUN_LIMIT, mcpctl, mcpctl_with_stdin, workspace};

/// A workspace with the everything server over stdio, as `everything`.
fn everything_stdio() -> TempDir {
    let js = support::everything_js().display().to_string();
    workspace(json!({
        "version": 1,
        "servers": { "everything": { "transport": "stdio", "argv": ["node", js, "stdio"] } }
    }))
}

/// The text of the first content block of a tool result.
fn first_text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

/// The names of the items of the array member `key`.
fn names(result: &Value, key: &str, field: &str) -> Vec<String> {
    result[key]
        .as_array()
        .unwrap_or_else(|| panic!("no `{key}` array in {result}"))
        .iter()
        .filter_map(|item| item[field].as_str().map(str::to_owned))
        .collect()
}

// ----- against the everything server over stdio ------------------------------------------

#[tokio::test]
async fn stdio_lists_tools_resources_templates_and_prompts() {
    let ws = everything_stdio();
    let dir = ws.path();

    let tools = mcpctl(dir, &["--trust", "--json", "list-tools", "everything"]).await;
    assert_eq!(
        tools.stdout.lines().count(),
        1,
        "--json is compact: {}",
        tools.stdout
    );
    let tools = tools.json();
    let tool_names = names(&tools, "tools", "name");
    for expected in ["echo", "get-sum", "get-tiny-image"] {
        assert!(
            tool_names.iter().any(|n| n == expected),
            "{expected} missing: {tool_names:?}"
        );
    }
    assert_eq!(tools["tools"][0]["inputSchema"]["type"], "object");

    let resources = mcpctl(dir, &["--trust", "--json", "list-resources", "everything"])
        .await
        .json();
    let uris = names(&resources, "resources", "uri");
    assert!(
        uris.iter()
            .any(|u| u.starts_with("demo://resource/static/")),
        "{uris:?}"
    );

    let templates = mcpctl(
        dir,
        &["--trust", "--json", "list-resource-templates", "everything"],
    )
    .await
    .json();
    let templates = names(&templates, "resourceTemplates", "uriTemplate");
    assert!(
        templates.contains(&"demo://resource/dynamic/text/{resourceId}".to_owned()),
        "{templates:?}"
    );

    // Global options are accepted after the subcommand too.
    let prompts = mcpctl(dir, &["list-prompts", "everything", "--trust", "--json"])
        .await
        .json();
    let prompt_names = names(&prompts, "prompts", "name");
    assert!(
        prompt_names.contains(&"args-prompt".to_owned()),
        "{prompt_names:?}"
    );
}

#[tokio::test]
async fn stdio_call_converts_key_value_arguments_by_the_input_schema() {
    let ws = everything_stdio();
    let dir = ws.path();

    let echo = mcpctl(
        dir,
        &[
            "--trust",
            "--json",
            "call",
            "everything",
            "echo",
            "message=hi",
        ],
    )
    .await
    .json();
    assert_eq!(first_text(&echo), "Echo: hi");
    // Strings stay verbatim, even when they look like JSON.
    let echo = mcpctl(
        dir,
        &[
            "--trust",
            "--json",
            "call",
            "everything",
            "echo",
            "message=42",
        ],
    )
    .await
    .json();
    assert_eq!(first_text(&echo), "Echo: 42");
    // Numbers are converted (get-sum refuses strings).
    let sum = mcpctl(
        dir,
        &[
            "--trust",
            "--json",
            "call",
            "everything",
            "get-sum",
            "a=1",
            "b=2",
        ],
    )
    .await
    .json();
    assert_eq!(first_text(&sum), "The sum of 1 and 2 is 3.");
    assert_ne!(sum["isError"], true);

    let sum = mcpctl(
        dir,
        &[
            "--trust",
            "--json",
            "call",
            "everything",
            "get-sum",
            "--arguments-json",
            r#"{"a": 40, "b": 2}"#,
        ],
    )
    .await
    .json();
    assert_eq!(first_text(&sum), "The sum of 40 and 2 is 42.");

    // Pairs override the JSON arguments.
    let sum = mcpctl(
        dir,
        &[
            "--trust",
            "--json",
            "call",
            "everything",
            "get-sum",
            "--arguments-json",
            r#"{"a": 40, "b": 2}"#,
            "b=3",
        ],
    )
    .await
    .json();
    assert_eq!(first_text(&sum), "The sum of 40 and 3 is 43.");

    std::fs::write(dir.join("args.json"), r#"{"message": "from a file"}"#).unwrap();
    let echo = mcpctl(
        dir,
        &[
            "--trust",
            "--json",
            "call",
            "everything",
            "echo",
            "--arguments-file",
            "args.json",
        ],
    )
    .await
    .json();
    assert_eq!(first_text(&echo), "Echo: from a file");
    let echo = mcpctl_with_stdin(
        dir,
        &[
            "--trust",
            "--json",
            "call",
            "everything",
            "echo",
            "--arguments-file",
            "-",
        ],
        Some(r#"{"message": "from stdin"}"#),
    )
    .await
    .json();
    assert_eq!(first_text(&echo), "Echo: from stdin");

    // What the schema refuses is a usage error.
    let wrong = mcpctl(
        dir,
        &["--trust", "call", "everything", "get-sum", "a=one", "b=2"],
    )
    .await
    .expect(2);
    assert!(
        wrong
            .stderr
            .contains("mcpctl: argument `a` of tool `get-sum`: expected number"),
        "{wrong:#?}"
    );
    assert!(wrong.stdout.is_empty());
    let unknown = mcpctl(dir, &["--trust", "call", "everything", "echo", "mesage=hi"])
        .await
        .expect(2);
    assert!(
        unknown.stderr.contains("has no argument `mesage`")
            && unknown.stderr.contains("known: message"),
        "{unknown:#?}"
    );
    // A tool the server does not list cannot have its pairs converted: a server-side failure.
    let missing = mcpctl(
        dir,
        &["--trust", "call", "everything", "no-such-tool", "x=1"],
    )
    .await
    .expect(1);
    assert!(
        missing.stderr.contains("has no tool `no-such-tool`"),
        "{missing:#?}"
    );
}

#[tokio::test]
async fn stdio_read_resource_get_prompt_complete_ping_and_server_info() {
    let ws = everything_stdio();
    let dir = ws.path();
    let trusted = |args: &[&str]| {
        let mut all = vec!["--trust", "--json"];
        all.extend_from_slice(args);
        all.into_iter().map(str::to_owned).collect::<Vec<_>>()
    };
    let run = |args: Vec<String>| async move {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        mcpctl(dir, &args).await
    };

    let uri = "demo://resource/dynamic/text/3";
    let read = run(trusted(&["read-resource", "everything", uri]))
        .await
        .json();
    assert_eq!(read["contents"][0]["uri"], uri);
    assert!(
        read["contents"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("Resource 3")),
        "{read}"
    );

    let prompt = run(trusted(&[
        "get-prompt",
        "everything",
        "args-prompt",
        "city=Paris",
        "state=IDF",
    ]))
    .await
    .json();
    assert!(prompt["messages"].to_string().contains("Paris"), "{prompt}");

    let completion = run(trusted(&[
        "complete",
        "everything",
        "--prompt",
        "completable-prompt",
        "--argument",
        "department=E",
    ]))
    .await
    .json();
    assert_eq!(completion["completion"]["values"], json!(["Engineering"]));
    let completion = run(trusted(&[
        "complete",
        "everything",
        "--prompt",
        "completable-prompt",
        "--argument",
        "name=",
        "--context",
        "department=Engineering",
    ]))
    .await
    .json();
    assert!(
        !completion["completion"]["values"]
            .as_array()
            .unwrap()
            .is_empty(),
        "{completion}"
    );
    let completion = run(trusted(&[
        "complete",
        "everything",
        "--resource-template",
        "demo://resource/dynamic/text/{resourceId}",
        "--argument",
        "resourceId=1",
    ]))
    .await
    .json();
    assert!(
        completion["completion"]["values"].is_array(),
        "{completion}"
    );

    let pong = run(trusted(&["ping", "everything"])).await.json();
    assert_eq!(pong, json!({}));

    let info = run(trusted(&["server-info", "everything"])).await.json();
    assert_eq!(info["server"], "everything");
    assert_eq!(info["handshake"], "initialize");
    assert_eq!(
        info["result"]["serverInfo"]["name"],
        "mcp-servers/everything"
    );
    assert!(
        info["protocol_version"]
            .as_str()
            .is_some_and(|v| !v.is_empty()),
        "{info}"
    );
}

#[tokio::test]
async fn stdio_raw_request_and_notify() {
    let ws = everything_stdio();
    let dir = ws.path();

    let tools = mcpctl(
        dir,
        &["--trust", "--json", "request", "everything", "tools/list"],
    )
    .await
    .json();
    assert!(names(&tools, "tools", "name").contains(&"echo".to_owned()));
    let read = mcpctl(
        dir,
        &[
            "--trust",
            "--json",
            "request",
            "everything",
            "resources/read",
            "--params-json",
            r#"{"uri":"demo://resource/dynamic/text/1"}"#,
        ],
    )
    .await
    .json();
    assert_eq!(read["contents"][0]["uri"], "demo://resource/dynamic/text/1");

    // A JSON-RPC error: exit code 1, the error on stderr, nothing on stdout.
    let error = mcpctl(dir, &["--trust", "request", "everything", "no/such/method"])
        .await
        .expect(1);
    assert!(error.stdout.is_empty(), "{error:#?}");
    assert!(
        error
            .stderr
            .contains("mcpctl: mcp server `everything` returned an error for no/such/method")
            && error.stderr.contains("-32601"),
        "{error:#?}"
    );

    let notified = mcpctl(
        dir,
        &[
            "--trust",
            "notify",
            "everything",
            "notifications/initialized",
        ],
    )
    .await
    .expect(0);
    assert!(notified.stdout.is_empty(), "{notified:#?}");
    let notified = mcpctl(
        dir,
        &[
            "--trust",
            "notify",
            "everything",
            "notifications/roots/list_changed",
            "--params-json",
            "{}",
        ],
    )
    .await
    .expect(0);
    assert!(notified.stdout.is_empty(), "{notified:#?}");

    // Params must be an object or an array, checked before connecting.
    let bad = mcpctl(
        dir,
        &["request", "everything", "tools/list", "--params-json", "3"],
    )
    .await
    .expect(2);
    assert!(
        bad.stderr
            .contains("--params-json must be a JSON object or array"),
        "{bad:#?}"
    );
}

#[tokio::test]
async fn tool_errors_exit_with_1_and_still_print_the_result() {
    let ws = everything_stdio();
    let run = mcpctl(
        ws.path(),
        &["--trust", "--json", "call", "everything", "no-such-tool"],
    )
    .await
    .expect(1);
    // The everything server answers an unknown tool with an error result; a JSON-RPC error
    // would be exit code 1 too, with nothing on stdout.
    if run.stdout.is_empty() {
        assert!(
            run.stderr.contains("returned an error for tools/call"),
            "{run:#?}"
        );
    } else {
        let result: Value = serde_json::from_str(&run.stdout).expect("JSON result");
        assert_eq!(result["isError"], true, "{run:#?}");
        assert!(
            run.stderr.contains(
                "mcpctl: tool `no-such-tool` of server `everything` returned an error result"
            ),
            "{run:#?}"
        );
    }
}

#[tokio::test]
async fn untrusted_stdio_is_refused_with_exit_code_3() {
    let ws = everything_stdio();
    let run = mcpctl(ws.path(), &["list-tools", "everything"])
        .await
        .expect(3);
    assert!(
        run.stderr
            .starts_with("mcpctl: refusing to spawn mcp server in untrusted mode"),
        "{run:#?}"
    );
    assert!(run.stderr.contains("--trust"), "{run:#?}");
    assert!(run.stdout.is_empty());
    // The --allow-* options never open stdio.
    let run = mcpctl(
        ws.path(),
        &[
            "--allow-http",
            "--allow-localhost",
            "--allow-private-ip",
            "ping",
            "everything",
        ],
    )
    .await
    .expect(3);
    assert!(
        run.stderr
            .contains("refusing to spawn mcp server in untrusted mode"),
        "{run:#?}"
    );
}

#[tokio::test]
async fn table_output_when_asked_and_pretty_json_when_piped() {
    let ws = everything_stdio();
    let dir = ws.path();

    let table = mcpctl(
        dir,
        &["--trust", "--output", "table", "list-tools", "everything"],
    )
    .await
    .expect(0);
    let header = table.stdout.lines().next().unwrap_or_default();
    assert!(
        header.starts_with("NAME") && header.contains("DESCRIPTION"),
        "{table:#?}"
    );
    assert!(
        table
            .stdout
            .lines()
            .any(|l| l.starts_with("get-sum ") && l.contains("a*: number")),
        "{table:#?}"
    );

    let call = mcpctl(
        dir,
        &[
            "--trust",
            "--output",
            "table",
            "call",
            "everything",
            "echo",
            "message=hi",
        ],
    )
    .await
    .expect(0);
    assert_eq!(call.stdout, "Echo: hi\n");
    let image = mcpctl(
        dir,
        &[
            "--trust",
            "--output",
            "table",
            "call",
            "everything",
            "get-tiny-image",
        ],
    )
    .await
    .expect(0);
    assert!(image.stdout.contains("[image: image/png, "), "{image:#?}");

    let prompts = mcpctl(
        dir,
        &["--trust", "--output", "table", "list-prompts", "everything"],
    )
    .await
    .expect(0);
    assert!(
        prompts
            .stdout
            .lines()
            .any(|l| l.starts_with("args-prompt") && l.contains("city*, state")),
        "{prompts:#?}"
    );

    let ping = mcpctl(dir, &["--trust", "--output", "table", "ping", "everything"])
        .await
        .expect(0);
    assert!(
        ping.stdout.starts_with("pong from `everything` in "),
        "{ping:#?}"
    );

    // Not a terminal and no flag: pretty JSON.
    let pretty = mcpctl(dir, &["--trust", "list-prompts", "everything"]).await;
    assert!(pretty.stdout.starts_with("{\n  \""), "{pretty:#?}");
    let pretty = pretty.json();
    assert!(pretty["prompts"].is_array());
    let explicit = mcpctl(
        dir,
        &["--trust", "--output", "json", "list-prompts", "everything"],
    )
    .await;
    assert_eq!(explicit.stdout.trim_end().lines().count(), 1);
    assert_eq!(explicit.json(), pretty);
}

// ----- list-servers ----------------------------------------------------------------------

#[tokio::test]
async fn list_servers_never_prints_secrets_and_shows_argv_only_when_asked() {
    let ws = workspace(json!({
        "version": 1,
        "client": {
            "protocol_version": "2025-06-18",
            "roots": [{ "uri": "file:///work/project", "name": "project" }]
        },
        "servers": {
            "local": {
                "transport": "stdio",
                "argv": ["server-bin", "--token=SECRET_ARGV"],
                "env": { "API_KEY": "SECRET_ENV" }
            },
            "remote": {
                "transport": "streamable_http",
                "url": "https://example.com/mcp?key=SECRET_QUERY",
                "http_headers": { "X-Api-Key": "SECRET_HEADER" },
                "bearer_token_env_var": "MY_TOKEN",
                "env_http_headers": { "X-Env": "MY_HEADER_VAR" }
            },
            "sock": { "transport": "unix", "unix_path": "run/mcp.sock" }
        }
    }));
    let dir = ws.path();

    for format in ["json", "pretty", "table"] {
        let run = mcpctl(dir, &["list-servers", "--output", format])
            .await
            .expect(0);
        assert!(!run.stdout.contains("SECRET"), "{format}: {run:#?}");
    }
    let view = mcpctl(dir, &["--json", "list-servers"]).await.json();
    assert_eq!(view["format"], "v1");
    assert!(view["config_path"].as_str().unwrap().ends_with(".mcp.json"));
    assert_eq!(view["client"]["protocol_version"], "2025-06-18");
    assert_eq!(view["client"]["roots"][0]["uri"], "file:///work/project");
    let local = &view["servers"]["local"];
    assert_eq!(local["transport"], "stdio");
    assert!(local.get("argv").is_none(), "{local}");
    assert_eq!(local["argv_len"], 2);
    assert_eq!(local["env_keys"], json!(["API_KEY"]));
    let remote = &view["servers"]["remote"];
    assert_eq!(remote["transport"], "streamable_http");
    assert_eq!(remote["url"], "https://example.com/mcp?key=***");
    assert_eq!(remote["http_header_keys"], json!(["X-Api-Key"]));
    assert_eq!(remote["env_http_header_keys"], json!(["X-Env"]));
    assert_eq!(remote["bearer_token_env_var"], "MY_TOKEN");
    assert_eq!(view["servers"]["sock"]["unix_path"], "run/mcp.sock");

    let table = mcpctl(dir, &["--output", "table", "list-servers"])
        .await
        .expect(0);
    assert!(
        table.stdout.contains("argv hidden (2 items; --show-argv)"),
        "{table:#?}"
    );

    let shown = mcpctl(dir, &["--json", "--show-argv", "list-servers"])
        .await
        .json();
    assert_eq!(
        shown["servers"]["local"]["argv"],
        json!(["server-bin", "--token=SECRET_ARGV"])
    );
    // --show-argv is about argv only.
    assert!(
        !shown.to_string().contains("SECRET_ENV") && !shown.to_string().contains("SECRET_HEADER")
    );

    // No configuration at all: no servers, not an error.
    let empty = tempfile::tempdir().unwrap();
    let view = mcpctl(empty.path(), &["--json", "list-servers"])
        .await
        .json();
    assert_eq!(view["format"], "empty");
    assert_eq!(view["servers"], json!({}));
    // --root and --config (relative to --root) pick another file.
    std::fs::write(
        dir.join("other.json"),
        r#"{"version":1,"servers":{"x":{"transport":"unix","unix_path":"s"}}}"#,
    )
    .unwrap();
    let root = dir.display().to_string();
    let view = mcpctl(
        empty.path(),
        &[
            "--json",
            "--root",
            &root,
            "--config",
            "other.json",
            "list-servers",
        ],
    )
    .await
    .json();
    assert_eq!(view["servers"]["x"]["transport"], "unix");
}

// ----- usage errors ----------------------------------------------------------------------

#[tokio::test]
async fn usage_and_configuration_errors_exit_with_2() {
    let ws = everything_stdio();
    let dir = ws.path();
    for args in [
        vec!["--no-such-flag", "list-servers"],
        vec!["list-tools"],
        vec!["call", "everything"],
        vec!["--json", "--output", "table", "list-servers"],
        vec!["--timeout-ms", "0", "list-servers"],
        vec!["complete", "everything", "--argument", "a=b"],
        vec!["no-such-command"],
    ] {
        let run = mcpctl(dir, &args).await;
        assert_eq!(run.code, 2, "{args:?}: {run:#?}");
        assert!(run.stdout.is_empty(), "{args:?}: {run:#?}");
    }
    // Argument errors are found before connecting (so even without --trust).
    for (args, message) in [
        (
            vec!["call", "everything", "echo", "--arguments-json", "[1]"],
            "--arguments-json must be a JSON object",
        ),
        (
            vec!["call", "everything", "echo", "--arguments-json", "{"],
            "--arguments-json is not valid JSON",
        ),
        (
            vec![
                "call",
                "everything",
                "echo",
                "--arguments-file",
                "missing.json",
            ],
            "cannot read --arguments-file missing.json",
        ),
        (
            vec!["call", "everything", "echo", "=x"],
            "expected KEY=VALUE",
        ),
        (
            vec!["get-prompt", "everything", "p", "novalue"],
            "expected KEY=VALUE",
        ),
        (
            vec![
                "complete",
                "everything",
                "--prompt",
                "p",
                "--argument",
                "noequals",
            ],
            "expected KEY=VALUE",
        ),
        (
            vec!["ping", "no-such-server"],
            "no server `no-such-server` in ",
        ),
        (
            vec!["--root", "does/not/exist", "list-servers"],
            "is not a directory",
        ),
        (
            vec!["--config", "missing.json", "list-servers"],
            "mcp config not found",
        ),
    ] {
        let run = mcpctl(dir, &args).await;
        assert_eq!(run.code, 2, "{args:?}: {run:#?}");
        assert!(
            run.stderr.contains("mcpctl: ") && run.stderr.contains(message),
            "{args:?}: {run:#?}"
        );
    }
    let bad = workspace(json!({ "version": 2, "servers": {} }));
    let run = mcpctl(bad.path(), &["list-servers"]).await.expect(2);
    assert!(
        run.stderr.contains("unsupported mcp.json version"),
        "{run:#?}"
    );
}

#[tokio::test]
async fn help_version_and_completions() {
    let dir = tempfile::tempdir().unwrap();
    let help = mcpctl(dir.path(), &["--help"]).await.expect(0);
    assert!(help.stdout.contains("Usage: mcpctl"), "{help:#?}");
    assert!(help.stdout.contains("Exit codes:"), "{help:#?}");
    let version = mcpctl(dir.path(), &["--version"]).await.expect(0);
    assert_eq!(
        version.stdout.trim(),
        format!("mcpctl {}", env!("CARGO_PKG_VERSION"))
    );

    // The scripts hand completion back to mcpctl, which reads the configuration as you type.
    let bash = mcpctl(dir.path(), &["completions", "bash"]).await.expect(0);
    assert!(
        bash.stdout.contains("complete -o nospace")
            && bash.stdout.contains("COMPLETE=\"bash\"")
            && bash.stdout.contains("\"mcpctl\" -- "),
        "{}",
        bash.stdout
    );
    for shell in ["zsh", "fish", "powershell", "elvish"] {
        let script = mcpctl(dir.path(), &["completions", shell]).await.expect(0);
        assert!(script.stdout.contains("COMPLETE"), "{shell}: {script:#?}");
    }
    mcpctl(dir.path(), &["completions", "tcsh"]).await.expect(2);

    // What the shell gets: server names from the configuration, subcommands, flags.
    let complete = |words: &'static [&'static str], dir: PathBuf| async move {
        let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpctl"))
            .env("COMPLETE", "fish")
            .arg("--")
            .args(words)
            .current_dir(dir)
            .output()
            .await
            .expect("mcpctl completes");
        String::from_utf8(output.stdout).expect("UTF-8")
    };
    let configured = workspace(json!({
        "version": 1,
        "servers": {
            "local": { "transport": "stdio", "argv": ["server"] },
            "remote": { "transport": "streamable_http", "url": "https://example.com/mcp" }
        }
    }));
    let root = configured.path().to_path_buf();
    let servers = complete(&["mcpctl", "call", "r"], root.clone()).await;
    assert_eq!(
        servers.lines().collect::<Vec<_>>(),
        ["remote\tstreamable_http"]
    );
    let servers = complete(&["mcpctl", "list-tools", ""], root.clone()).await;
    assert!(servers.lines().any(|l| l == "local\tstdio"), "{servers}");
    let commands = complete(&["mcpctl", "list-"], root.clone()).await;
    assert!(
        commands.contains("list-tools") && commands.contains("list-servers"),
        "{commands}"
    );
    let flags = complete(&["mcpctl", "--allow-h"], root).await;
    assert!(
        flags.contains("--allow-host") && flags.contains("--allow-http"),
        "{flags}"
    );
}

// ----- against the everything server over streamable HTTP --------------------------------

#[tokio::test]
async fn streamable_http_untrusted_needs_the_allow_flags() {
    let server = support::start_everything_http().await;
    let ws = workspace(json!({
        "version": 1,
        "servers": { "everything": { "transport": "streamable_http", "url": server.url } }
    }));
    let dir = ws.path();

    let refused = mcpctl(dir, &["list-tools", "everything"]).await.expect(3);
    assert!(
        refused
            .stderr
            .contains("refusing to connect non-https streamable http url in untrusted mode"),
        "{refused:#?}"
    );
    // Every flag the local URL needs, in one message.
    assert!(
        refused
            .stderr
            .contains("rerun with --allow-http --allow-private-ip (CLI)"),
        "{refused:#?}"
    );
    let refused = mcpctl(dir, &["--allow-http", "list-tools", "everything"])
        .await
        .expect(3);
    assert!(
        refused
            .stderr
            .contains("refusing to connect non-global ip in untrusted mode"),
        "{refused:#?}"
    );
    // An allowlist does not open a private IP.
    let refused = mcpctl(
        dir,
        &[
            "--allow-http",
            "--allow-host",
            "127.0.0.1",
            "list-tools",
            "everything",
        ],
    )
    .await
    .expect(3);
    assert!(
        refused.stderr.contains("refusing to connect"),
        "{refused:#?}"
    );

    let allow = [
        "--allow-http",
        "--allow-localhost",
        "--allow-private-ip",
        "--json",
    ];
    fn with<'a>(allow: &[&'a str], rest: &[&'a str]) -> Vec<&'a str> {
        allow.iter().chain(rest).copied().collect()
    }
    let tools = mcpctl(dir, &with(&allow, &["list-tools", "everything"]))
        .await
        .json();
    assert!(names(&tools, "tools", "name").contains(&"get-sum".to_owned()));
    let sum = mcpctl(
        dir,
        &with(&allow, &["call", "everything", "get-sum", "a=1", "b=2"]),
    )
    .await
    .json();
    assert_eq!(first_text(&sum), "The sum of 1 and 2 is 3.");
    let resources = mcpctl(dir, &with(&allow, &["list-resources", "everything"]))
        .await
        .json();
    let first = names(&resources, "resources", "uri").remove(0);
    let read = mcpctl(dir, &with(&allow, &["read-resource", "everything", &first]))
        .await
        .json();
    assert_eq!(read["contents"][0]["uri"], first.as_str());
    let prompt = mcpctl(
        dir,
        &with(
            &allow,
            &["get-prompt", "everything", "args-prompt", "city=Oslo"],
        ),
    )
    .await
    .json();
    assert!(prompt["messages"].to_string().contains("Oslo"), "{prompt}");
    assert_eq!(
        mcpctl(dir, &with(&allow, &["ping", "everything"]))
            .await
            .json(),
        json!({})
    );
    let prompts = mcpctl(
        dir,
        &with(&allow, &["request", "everything", "prompts/list"]),
    )
    .await
    .json();
    assert!(names(&prompts, "prompts", "name").contains(&"simple-prompt".to_owned()));
    mcpctl(
        dir,
        &with(
            &allow,
            &["notify", "everything", "notifications/initialized"],
        ),
    )
    .await
    .expect(0);

    // Untrusted, a placeholder is sent as written, with a warning naming its field.
    let literal = workspace(json!({
        "mcpServers": { "everything": { "url": server.url, "headers": { "X-Token": "${TOKEN}" } } }
    }));
    let run = mcpctl(literal.path(), &with(&allow, &["ping", "everything"]))
        .await
        .expect(0);
    assert!(
        run.stderr
            .contains("the placeholders in http_headers.X-Token are sent as written"),
        "{run:#?}"
    );

    // --trust lifts every check.
    let echo = mcpctl(
        dir,
        &[
            "--trust",
            "--json",
            "call",
            "everything",
            "echo",
            "message=over http",
        ],
    )
    .await
    .json();
    assert_eq!(first_text(&echo), "Echo: over http");
    // A pinned protocol version.
    let info = mcpctl(
        dir,
        &[
            "--trust",
            "--json",
            "--protocol-version",
            "2025-03-26",
            "server-info",
            "everything",
        ],
    )
    .await
    .json();
    assert_eq!(info["protocol_version"], "2025-03-26");
}

#[tokio::test]
async fn connection_failures_and_timeouts_exit_with_4() {
    let port = support::free_port();
    let ws = workspace(json!({
        "version": 1,
        "servers": {
            "dead": { "transport": "streamable_http", "url": format!("http://127.0.0.1:{port}/mcp") },
            "missing": { "transport": "stdio", "argv": ["/no/such/mcp-server-binary"] },
            "everything": { "transport": "stdio", "argv": ["node", support::everything_js().display().to_string(), "stdio"] }
        }
    }));
    let dir = ws.path();
    let run = mcpctl(dir, &["--trust", "ping", "dead"]).await.expect(4);
    assert!(
        run.stderr.starts_with("mcpctl: mcp server `dead`"),
        "{run:#?}"
    );
    let run = mcpctl(dir, &["--trust", "ping", "missing"]).await.expect(4);
    assert!(
        run.stderr.contains("mcpctl: mcp server `missing`"),
        "{run:#?}"
    );
    // A server that never answers costs one timeout for the whole handshake, not one per
    // probe (server/discover, then initialize): with 2 s, well under 4 s.
    let started = std::time::Instant::now();
    let run = mcpctl(
        dir,
        &[
            "--timeout-ms",
            "2000",
            "ping",
            "--",
            "sh",
            "-c",
            "cat >/dev/null",
        ],
    )
    .await
    .expect(4);
    assert!(run.stderr.contains("timed out: the handshake"), "{run:#?}");
    assert!(
        started.elapsed() < Duration::from_millis(3500),
        "one deadline: {:?}",
        started.elapsed()
    );

    // A refused connection says so, not only "error sending request".
    let port = support::free_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let run = mcpctl(dir, &["ping", &url]).await.expect(4);
    assert!(
        run.stderr.contains("failed: connection refused"),
        "{run:#?}"
    );
    let run = mcpctl(
        dir,
        &[
            "--trust",
            "--timeout-ms",
            "1500",
            "call",
            "everything",
            "trigger-long-running-operation",
            "duration=10",
            "steps=1",
        ],
    )
    .await
    .expect(4);
    assert!(
        run.stderr
            .contains("mcpctl: mcp request timed out: tools/call"),
        "{run:#?}"
    );
}

// ----- what the client sends --------------------------------------------------------------

#[tokio::test]
async fn the_client_announces_mcpctl_and_applies_the_client_section() {
    let tools = tempfile::tempdir().unwrap();
    let probe = tools.path().join("probe.js");
    std::fs::write(&probe, PROBE_JS).unwrap();
    let ws = workspace(json!({
        "version": 1,
        "client": { "roots": [{ "uri": "file:///work/project", "name": "project" }] },
        "servers": { "probe": { "transport": "stdio", "argv": ["node", probe.display().to_string()] } }
    }));
    let root: PathBuf = ws.path().canonicalize().unwrap();

    // Run from elsewhere with --root: the server's working directory is the root.
    let elsewhere = tempfile::tempdir().unwrap();
    let root_arg = root.display().to_string();
    let result = mcpctl(
        elsewhere.path(),
        &[
            "--root", &root_arg, "--trust", "--json", "call", "probe", "whoami",
        ],
    )
    .await
    .json();
    let seen: Value = serde_json::from_str(first_text(&result)).expect("probe report");
    assert_eq!(seen["init"]["clientInfo"]["name"], "mcpctl");
    assert_eq!(
        seen["init"]["clientInfo"]["version"],
        env!("CARGO_PKG_VERSION")
    );
    assert!(
        seen["init"]["capabilities"]["roots"].is_object(),
        "roots from client.roots: {seen}"
    );
    assert_eq!(seen["arguments"], json!({}));
    let cwd = PathBuf::from(seen["cwd"].as_str().unwrap())
        .canonicalize()
        .unwrap();
    assert_eq!(cwd, root);

    let result = mcpctl(
        elsewhere.path(),
        &[
            "--root",
            &root_arg,
            "--trust",
            "--json",
            "--protocol-version",
            "2025-03-26",
            "call",
            "probe",
            "whoami",
        ],
    )
    .await
    .json();
    let seen: Value = serde_json::from_str(first_text(&result)).expect("probe report");
    assert_eq!(seen["init"]["protocolVersion"], "2025-03-26");
}

#[tokio::test]
async fn bad_and_disabled_entries_of_a_compatible_file_are_skipped_and_shown() {
    let ws = workspace(json!({
        "mcpServers": {
            "good": { "url": "https://example.com/mcp" },
            "off": { "command": "bin", "disabled": true },
            "bad": { "command": 3 }
        }
    }));
    let dir = ws.path();
    let view = mcpctl(dir, &["--json", "list-servers"]).await.json();
    assert_eq!(view["servers"].as_object().unwrap().len(), 1, "{view}");
    let reason = |name: &str| {
        view["skipped"]
            .as_array()
            .unwrap()
            .iter()
            .find(|entry| entry["name"] == name)
            .and_then(|entry| entry["reason"].as_str())
            .unwrap_or_default()
            .to_owned()
    };
    assert!(reason("bad").starts_with("invalid: "), "{view}");
    assert_eq!(reason("off"), "disabled (\"disabled\": true)");
    let listed = mcpctl(dir, &["--output", "table", "list-servers"])
        .await
        .expect(0);
    assert!(
        listed.stdout.contains("skipped `off`: disabled"),
        "{listed:#?}"
    );
    assert!(
        listed
            .stderr
            .contains("skipping this server, the others load"),
        "{listed:#?}"
    );
    let run = mcpctl(dir, &["ping", "off"]).await.expect(2);
    assert!(run.stderr.contains("server `off` in "), "{run:#?}");
    assert!(run.stderr.contains("is not loaded: disabled"), "{run:#?}");
}

// ----- a server named on the command line -------------------------------------------------------

#[tokio::test]
async fn a_command_after_the_double_dash_is_a_trusted_stdio_server() {
    let tools = tempfile::tempdir().unwrap();
    let probe = tools.path().join("probe.js");
    std::fs::write(&probe, PROBE_JS).unwrap();
    let probe = probe.display().to_string();
    // An empty directory: no configuration file, no --trust.
    let empty = tempfile::tempdir().unwrap();
    let dir = empty.path();

    let listed = mcpctl(dir, &["--json", "list-tools", "--", "node", &probe])
        .await
        .json();
    assert_eq!(names(&listed, "tools", "name"), ["whoami"]);

    // The tool and its arguments come before `--`; -e reaches the server, the parent's own
    // variables do not; --cwd is its working directory.
    let cwd = tempfile::tempdir().unwrap();
    let cwd_path = cwd.path().canonicalize().unwrap();
    let cwd_arg = cwd_path.display().to_string();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpctl"));
    command
        .args(["--json", "-e", "PROBE_VALUE=a=b", "--cwd", &cwd_arg])
        .args(["call", "whoami", "--", "node", &probe])
        .current_dir(dir)
        .env("MCPCTL_TEST_SECRET", "do-not-pass")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .kill_on_drop(true);
    let output = tokio::time::timeout(RUN_LIMIT, command.output())
        .await
        .expect("mcpctl finishes")
        .expect("mcpctl runs");
    assert!(output.status.success(), "{output:?}");
    let result: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let seen: Value = serde_json::from_str(first_text(&result)).expect("probe report");
    assert_eq!(seen["probe_value"], "a=b");
    assert_eq!(seen["parent_secret"], Value::Null);
    assert_eq!(
        PathBuf::from(seen["cwd"].as_str().unwrap())
            .canonicalize()
            .unwrap(),
        cwd_path
    );

    // Against the repository's example server: KEY=VALUE typed by its schema.
    let example = support::build_examples("mcp-server", &[]).join("example_server");
    let example = example.display().to_string();
    let sum = mcpctl(
        dir,
        &["--json", "call", "add", "a=2", "b=40", "--", &example],
    )
    .await
    .json();
    assert_eq!(
        sum["structuredContent"]["sum"].as_f64(),
        Some(42.0),
        "{sum}"
    );

    // ping in both eras: `ping` where the version has it, `server/discover` in 2026-07-28.
    for version in ["2026-07-28", "2025-11-25"] {
        let info = mcpctl(
            dir,
            &[
                "--json",
                "--protocol-version",
                version,
                "server-info",
                "--",
                &example,
            ],
        )
        .await
        .json();
        assert_eq!(info["protocol_version"], version);
        let pong = mcpctl(
            dir,
            &[
                "--output",
                "table",
                "--protocol-version",
                version,
                "ping",
                "--",
                &example,
            ],
        )
        .await
        .expect(0);
        assert!(
            pong.stdout.starts_with("pong from `example_server` in "),
            "{pong:#?}"
        );
    }

    // A server that dies: its exit status and last stderr lines are part of the error; its
    // stderr is shown as it comes, unless -q.
    let script = "echo 'Error: missing API_KEY' >&2; exit 3";
    let run = mcpctl(dir, &["list-tools", "--", "sh", "-c", script])
        .await
        .expect(4);
    assert!(
        run.stderr.contains("the server exited (exit status: 3)")
            && run.stderr.contains("\n  | Error: missing API_KEY"),
        "{run:#?}"
    );
    assert_eq!(
        run.stderr.matches("Error: missing API_KEY").count(),
        2,
        "{run:#?}"
    );
    let run = mcpctl(dir, &["-q", "list-tools", "--", "sh", "-c", script])
        .await
        .expect(4);
    assert_eq!(
        run.stderr.matches("Error: missing API_KEY").count(),
        1,
        "{run:#?}"
    );
    let run = mcpctl(dir, &["call", "die", "--", "node", &probe])
        .await
        .expect(4);
    assert!(
        run.stderr.contains("the server exited (exit status: 7)")
            && run.stderr.contains("  | dying on purpose"),
        "{run:#?}"
    );

    // A required argument left out is named, with its type, before the call.
    let run = mcpctl(dir, &["call", "add", "a=2", "--", &example])
        .await
        .expect(2);
    assert!(
        run.stderr.contains("needs the argument b (number)"),
        "{run:#?}"
    );

    // What is missing or misplaced is a usage error, before anything starts.
    let run = mcpctl(dir, &["call", "--", "node", &probe]).await.expect(2);
    assert!(run.stderr.contains("missing TOOL"), "{run:#?}");
    let run = mcpctl(dir, &["--header", "X: y", "ping", "--", "node", &probe])
        .await
        .expect(2);
    assert!(run.stderr.contains("--header does not apply"), "{run:#?}");
    let run = mcpctl(dir, &["list-tools"]).await.expect(2);
    assert!(run.stderr.contains("missing SERVER"), "{run:#?}");
    // A name in a directory without a configuration file says so, and what to do instead.
    let run = mcpctl(dir, &["list-tools", "docs"]).await.expect(2);
    assert!(
        run.stderr.contains("no configuration file found in")
            && run.stderr.contains("looked for .mcp.json, mcp.json")
            && run.stderr.contains("after `--`"),
        "{run:#?}"
    );
}

#[tokio::test]
async fn a_typed_url_needs_no_allow_flags_and_sends_the_headers() {
    let server = support::start_everything_http().await;
    let empty = tempfile::tempdir().unwrap();
    let dir = empty.path();
    let url = server.url.as_str();
    let tools = mcpctl(dir, &["--json", "list-tools", url]).await.json();
    assert!(names(&tools, "tools", "name").contains(&"get-sum".to_owned()));
    let sum = mcpctl(dir, &["--json", "call", url, "get-sum", "a=1", "b=2"])
        .await
        .json();
    assert_eq!(first_text(&sum), "The sum of 1 and 2 is 3.");
    // The everything server echoes nothing of the headers, so a header that breaks the
    // request shows that it was sent.
    let run = mcpctl(
        dir,
        &["--header", "Content-Type: text/plain", "list-tools", url],
    )
    .await;
    assert_ne!(run.code, 0, "{run:#?}");
    let run = mcpctl(dir, &["-e", "A=1", "list-tools", url])
        .await
        .expect(2);
    assert!(run.stderr.contains("-e/--env does not apply"), "{run:#?}");

    // A configured server stays untrusted; MCPCTL_TRUST=1 trusts it, MCPCTL_TRUST=0 does not.
    let ws = everything_stdio();
    let trust_run = |value: &'static str| {
        let ws = ws.path().to_owned();
        async move {
            tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpctl"))
                .args(["--json", "ping", "everything"])
                .current_dir(ws)
                .env("MCPCTL_TRUST", value)
                .env_remove("RUST_LOG")
                .stdin(Stdio::null())
                .kill_on_drop(true)
                .output()
                .await
                .expect("mcpctl runs")
        }
    };
    assert_eq!(trust_run("1").await.status.code(), Some(0));
    assert_eq!(trust_run("0").await.status.code(), Some(3));
}

// ----- docs/cli.md and --help ----------------------------------------------------------------

/// The long options listed in one section of `-h` output (`Options:`, `Global options:`, …).
fn help_sections(help: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut sections: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut current = String::new();
    for line in help.lines() {
        if !line.starts_with(' ') && line.ends_with(':') {
            current = line.trim_end_matches(':').to_owned();
            sections.entry(current.clone()).or_default();
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let trimmed = line.trim_start();
        // Option lines are indented by 2 (`-h, --help`) or 6 (`--root`); wrapped
        // descriptions by more, and the text after the sections by none.
        if (2..=6).contains(&indent)
            && trimmed.starts_with('-')
            && let Some(flag) = trimmed
                .split([' ', ','])
                .find(|token| token.starts_with("--"))
        {
            sections
                .entry(current.clone())
                .or_default()
                .insert(flag.to_owned());
        }
    }
    sections
}

/// The subcommands listed under `Commands:` in `-h` output.
fn help_commands(help: &str) -> BTreeSet<String> {
    let mut commands = BTreeSet::new();
    let mut inside = false;
    for line in help.lines() {
        if !line.starts_with(' ') {
            inside = line == "Commands:";
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        if inside && indent == 2 {
            let name = line.split_whitespace().next().unwrap_or_default();
            if name != "help" {
                commands.insert(name.to_owned());
            }
        }
    }
    commands
}

/// What docs/cli.md documents: the global options (sections `## Global options` and
/// `## Security options`) and, per `### \`subcommand\`` section under `## Subcommands`, its
/// own options (bullets starting with a backquoted `--flag`).
fn documented() -> (BTreeSet<String>, BTreeMap<String, BTreeSet<String>>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/cli.md");
    let doc = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut globals = BTreeSet::new();
    let mut subcommands: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut h2 = "";
    let mut h3: Option<String> = None;
    for line in doc.lines() {
        if let Some(title) = line.strip_prefix("## ") {
            h2 = title;
            h3 = None;
            continue;
        }
        if let Some(title) = line.strip_prefix("### ") {
            if h2 == "Subcommands" {
                let name = title.trim_matches('`').to_owned();
                subcommands.entry(name.clone()).or_default();
                h3 = Some(name);
            }
            continue;
        }
        let Some(rest) = line.strip_prefix("- `--") else {
            continue;
        };
        let flag = format!("--{}", rest.split(['`', ' ']).next().unwrap_or_default());
        match (h2, &h3) {
            (
                "Global options"
                | "Security options"
                | "Server on the command line"
                | "What the server sends",
                _,
            ) => {
                globals.insert(flag);
            }
            ("Subcommands", Some(name)) => {
                subcommands.get_mut(name).expect("section").insert(flag);
            }
            _ => {}
        }
    }
    (globals, subcommands)
}

/// The sections of `-h` that hold the global options.
const GLOBAL_SECTIONS: [&str; 4] = [
    "Global options",
    "Security options (global)",
    "Server on the command line (global)",
    "What the server sends (global)",
];

#[tokio::test]
async fn help_matches_the_docs() {
    let dir = tempfile::tempdir().unwrap();
    let (doc_globals, doc_subcommands) = documented();
    let not_options: BTreeSet<String> = ["--help", "--version"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();

    let top = mcpctl(dir.path(), &["-h"]).await.expect(0).stdout;
    let sections = help_sections(&top);
    let help_globals: BTreeSet<String> = GLOBAL_SECTIONS
        .iter()
        .flat_map(|s| sections.get(*s).cloned().unwrap_or_default())
        .collect();
    assert_eq!(
        help_globals, doc_globals,
        "global options: mcpctl -h (left) vs docs/cli.md (right)"
    );
    let top_only: BTreeSet<String> = sections.get("Options").cloned().unwrap_or_default();
    assert_eq!(top_only, not_options, "options outside the global sections");

    let commands = help_commands(&top);
    let doc_names: BTreeSet<String> = doc_subcommands.keys().cloned().collect();
    assert_eq!(
        commands, doc_names,
        "subcommands: mcpctl -h (left) vs docs/cli.md (right)"
    );

    for (name, doc_flags) in &doc_subcommands {
        let help = mcpctl(dir.path(), &[name, "-h"]).await.expect(0).stdout;
        let sections = help_sections(&help);
        let own: BTreeSet<String> = sections
            .get("Options")
            .cloned()
            .unwrap_or_default()
            .difference(&not_options)
            .cloned()
            .collect();
        assert_eq!(
            &own, doc_flags,
            "options of `{name}`: mcpctl {name} -h (left) vs docs/cli.md (right)"
        );
        // A subcommand's help keeps to its own options and points to the global ones.
        let globals: BTreeSet<String> = GLOBAL_SECTIONS
            .iter()
            .flat_map(|s| sections.get(*s).cloned().unwrap_or_default())
            .collect();
        assert!(
            globals.is_empty(),
            "global options in `mcpctl {name} -h`: {globals:?}"
        );
        assert!(
            help.contains("are accepted too: see `mcpctl --help`"),
            "mcpctl {name} -h: {help}"
        );
    }
    // They are still accepted after the subcommand.
    let run = mcpctl(dir.path(), &["list-servers", "--json"]).await;
    assert_ne!(run.code, 2, "{run:?}");
}

#[tokio::test]
async fn trust_is_remembered_until_the_configuration_changes() {
    let example = support::build_examples("mcp-server", &[]).join("example_server");
    let config = |extra: Value| {
        json!({
            "version": 1,
            "servers": { "demo": { "transport": "stdio", "argv": [example], "env": extra } }
        })
    };
    let dir = workspace(config(json!({})));
    let dir = dir.path();
    mcpctl(dir, &["list-tools", "demo"]).await.expect(3);
    mcpctl(dir, &["untrust"]).await.expect(0);

    let trusted = mcpctl(dir, &["trust"]).await.expect(0);
    assert!(trusted.stdout.contains("trusted "), "{trusted:?}");
    let tools = mcpctl(dir, &["--json", "list-tools", "demo"]).await.json();
    assert!(tools["tools"].as_array().is_some_and(|t| !t.is_empty()));

    // An edit (here, a variable for the server) takes the trust away, and says so.
    std::fs::write(
        dir.join(".mcp.json"),
        config(json!({ "X": "1" })).to_string(),
    )
    .unwrap();
    let refused = mcpctl(dir, &["list-tools", "demo"]).await.expect(3);
    assert!(
        refused.stderr.contains("changed since you trusted it"),
        "{refused:?}"
    );
    mcpctl(dir, &["trust"]).await.expect(0);
    mcpctl(dir, &["list-tools", "demo"]).await.expect(0);

    let untrusted = mcpctl(dir, &["untrust"]).await.expect(0);
    assert!(
        untrusted.stdout.contains("no longer trusted"),
        "{untrusted:?}"
    );
    mcpctl(dir, &["list-tools", "demo"]).await.expect(3);

    // Nothing to trust without a file.
    let empty = tempfile::tempdir().unwrap();
    let run = mcpctl(empty.path(), &["trust"]).await.expect(2);
    assert!(
        run.stderr.contains("no configuration file found"),
        "{run:?}"
    );
}

/// A workspace whose `.vscode/mcp.json` starts the probe with an `envFile` and a
/// `${input:token}` (a password input), and its `.env`.
fn vscode_inputs_workspace() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    let probe = dir.path().join("probe.js");
    std::fs::write(&probe, PROBE_JS).unwrap();
    std::fs::create_dir(dir.path().join(".vscode")).unwrap();
    let config = json!({
        "inputs": [
            { "type": "promptString", "id": "token", "description": "API token", "password": true }
        ],
        "servers": { "probe": {
            "type": "stdio",
            "command": "node",
            "args": [probe.display().to_string()],
            "envFile": "${workspaceFolder}/.env",
            "env": { "TOKEN": "${input:token}", "PROBE_VALUE": "from-env" }
        } }
    });
    std::fs::write(dir.path().join(".vscode/mcp.json"), config.to_string()).unwrap();
    std::fs::write(
        dir.path().join(".env"),
        "# a comment\nFROM_FILE=\"hello world\"\nPROBE_VALUE=from-file\n",
    )
    .unwrap();
    dir
}

#[tokio::test]
async fn vs_code_inputs_and_env_files() {
    let dir = vscode_inputs_workspace();
    let dir = dir.path();
    let result = mcpctl(
        dir,
        &[
            "--trust",
            "--json",
            "call",
            "probe",
            "whoami",
            "--input",
            "token=s3cret",
        ],
    )
    .await
    .json();
    let seen: Value = serde_json::from_str(first_text(&result)).expect("probe report");
    assert_eq!(seen["token"], "s3cret");
    assert_eq!(seen["from_file"], "hello world");
    // `env` wins over the envFile.
    assert_eq!(seen["probe_value"], "from-env");

    // --wire hides an input's value wherever it appears (here, in the probe's report).
    let run = mcpctl(
        dir,
        &[
            "--trust",
            "--output",
            "table",
            "--wire",
            "call",
            "probe",
            "whoami",
            "--input",
            "token=s3cret-token",
        ],
    )
    .await
    .expect(0);
    assert!(run.stdout.contains("s3cret-token"), "{run:?}");
    assert!(run.stderr.contains("] ← "), "{run:?}");
    assert!(!run.stderr.contains("s3cret-token"), "{run:?}");

    // Not on a terminal, a missing input is a usage error naming the flag.
    let run = mcpctl(dir, &["--trust", "call", "probe", "whoami"])
        .await
        .expect(2);
    assert!(run.stderr.contains("--input token=VALUE"), "{run:?}");

    // A missing envFile says which.
    std::fs::remove_file(dir.join(".env")).unwrap();
    let run = mcpctl(
        dir,
        &["--trust", "call", "probe", "whoami", "--input", "token=x"],
    )
    .await
    .expect(2);
    assert!(run.stderr.contains("cannot read the envFile"), "{run:?}");
    assert!(run.stderr.contains(".env"), "{run:?}");
}
