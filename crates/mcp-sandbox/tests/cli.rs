//! The `mcp-sandbox` binary as an operator meets it: settings from the environment and a TOML
//! file (errors name the variable or key), refusals at start, CORS, health and metrics, and
//! a graceful shutdown on SIGTERM that lets a running call finish and leaves nothing behind.

mod support;

use std::time::Duration;

use mcp_kit::{Config, Manager, ServerConfig, TrustMode};
use mcp_test_support::{free_port, start_http_server};
use serde_json::json;
use support::{processes_with, require_bwrap, sandbox_bin};
use tokio::process::Command;

/// Runs the binary with `env` (nothing else of this environment but `PATH`) to completion.
async fn run(env: &[(&str, &str)], args: &[&str]) -> (i32, String) {
    let root = tempfile::tempdir().unwrap();
    let output = Command::new(sandbox_bin())
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("MSB_WORKSPACE_ROOT", root.path())
        .env("RUST_LOG", "error")
        .envs(env.iter().copied())
        .output()
        .await
        .expect("runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn start_refusals_say_what_to_do() {
    require_bwrap();
    let cases: &[(&[(&str, &str)], &str)] = &[
        (
            &[("MCP_SERVER_HOST", "0.0.0.0")],
            "mcp-sandbox: refusing to listen on 0.0.0.0 without authentication",
        ),
        (
            &[("MSB_MAX_SESSIONS", "many")],
            "mcp-sandbox: MSB_MAX_SESSIONS: invalid value \"many\"",
        ),
        (
            &[("MSB_DEFAULT_FLAVOR", "huge")],
            "mcp-sandbox: MSB_DEFAULT_FLAVOR: unknown flavor `huge`",
        ),
        (
            &[("MSB_SHARED_VOLUME_PATH", "/no/such/dir:/mnt/x")],
            "mcp-sandbox: shared volume `/no/such/dir:/mnt/x`: the host path /no/such/dir cannot be used",
        ),
        (
            &[("MSB_BWRAP", "/no/such/bwrap")],
            "mcp-sandbox: bubblewrap not found at /no/such/bwrap (MSB_BWRAP): install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap",
        ),
        (
            &[("PATH", "/nonexistent")],
            "mcp-sandbox: bubblewrap (bwrap) is not installed",
        ),
    ];
    for (env, expected) in cases {
        let (code, stderr) = run(env, &[]).await;
        assert_eq!(code, 1, "{env:?}: {stderr}");
        assert!(stderr.starts_with(expected), "{env:?}: {stderr}");
    }
    // With authentication configured, another interface is fine (checked, then --check exits).
    let (code, stderr) = run(
        &[("MCP_SERVER_HOST", "0.0.0.0"), ("MCP_AUTH_TOKENS", "t0ken")],
        &["--check"],
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_file_sets_sandbox_and_server_and_its_errors_name_the_key() {
    require_bwrap();
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "[sandbox]\nmax_sesions = 3\n").unwrap();
    let (code, stderr) = run(&[], &["--config", bad.to_str().unwrap()]).await;
    assert_eq!(code, 1);
    assert_eq!(
        stderr.trim(),
        format!(
            "mcp-sandbox: {}: sandbox.max_sesions: unknown key (did you mean max_sessions?)",
            bad.display()
        )
    );

    let port = free_port();
    let good = dir.path().join("sandbox.toml");
    std::fs::write(
        &good,
        format!(
            "[server]\nport = {port}\n[sandbox]\nmax_sessions = 3\ndefault_flavor = \"medium\"\n"
        ),
    )
    .unwrap();
    let root = tempfile::tempdir().unwrap();
    let mut command = Command::new(sandbox_bin());
    command
        .args(["--config", good.to_str().unwrap()])
        .env("MSB_WORKSPACE_ROOT", root.path())
        .env("RUST_LOG", "info")
        .kill_on_drop(true);
    let server = start_http_server(command, port, "mcp-sandbox", "MCP server listening").await;
    let manager = Manager::new(
        Config::default().with_server("s", ServerConfig::streamable_http(server.url.clone())),
        dir.path(),
    )
    .with_trust_mode(TrustMode::Trusted);
    let session = manager.open("s").await.expect("connects");
    let result = session
        .call_tool("execute_code", json!({ "code": "1" }).as_object().cloned())
        .await
        .unwrap();
    let out = serde_json::to_value(result).unwrap();
    assert_eq!(out["structuredContent"]["flavor"], "medium");
    let list = session.call_tool("get_sessions", None).await.unwrap();
    assert_eq!(
        serde_json::to_value(list).unwrap()["structuredContent"]["max_sessions"],
        3
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn cors_health_and_metrics() {
    require_bwrap();
    let port = free_port();
    let root = tempfile::tempdir().unwrap();
    let mut command = Command::new(sandbox_bin());
    command
        .env("MSB_WORKSPACE_ROOT", root.path())
        .env("MCP_SERVER_PORT", port.to_string())
        .env("MCP_ENABLE_CORS", "true")
        .env("MCP_METRICS", "true")
        .env("RUST_LOG", "info")
        .kill_on_drop(true);
    let server = start_http_server(command, port, "mcp-sandbox", "MCP server listening").await;
    let http = reqwest::Client::new();
    let preflight = http
        .request(reqwest::Method::OPTIONS, &server.url)
        .header("Origin", "http://localhost:5173")
        .header("Access-Control-Request-Method", "POST")
        .header(
            "Access-Control-Request-Headers",
            "content-type, mcp-session-id, mcp-protocol-version",
        )
        .send()
        .await
        .unwrap();
    let headers = preflight.headers();
    assert_eq!(headers["access-control-allow-origin"], "*");
    let allowed = headers["access-control-allow-headers"].to_str().unwrap();
    assert!(
        allowed.contains("mcp-session-id") && allowed.contains("mcp-protocol-version"),
        "{allowed}"
    );

    let manager = Manager::new(
        Config::default().with_server("s", ServerConfig::streamable_http(server.url.clone())),
        root.path(),
    )
    .with_trust_mode(TrustMode::Trusted)
    .with_protocol_version(Some("2025-06-18".to_owned()));
    let session = manager.open("s").await.expect("connects");
    session
        .call_tool("execute_code", json!({ "code": "1" }).as_object().cloned())
        .await
        .unwrap();
    let post = http
        .post(&server.url)
        .header("Origin", "http://localhost:5173")
        .header("Accept", "application/json, text/event-stream")
        .json(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "browser", "version": "1"}}}),
        )
        .send()
        .await
        .unwrap();
    let exposed = post.headers()["access-control-expose-headers"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        exposed.contains("mcp-session-id") && exposed.contains("mcp-protocol-version"),
        "{exposed}"
    );

    let base = server.url.trim_end_matches("/mcp");
    let health = http.get(format!("{base}/health")).send().await.unwrap();
    assert_eq!(health.status(), 200);
    let metrics = http
        .get(format!("{base}/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(metrics.contains("sandbox_sessions_active 1"), "{metrics}");
    assert!(
        metrics.contains("sandbox_executions_total{outcome=\"ok\"} 1"),
        "{metrics}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_lets_a_running_call_finish_then_removes_every_sandbox() {
    require_bwrap();
    let port = free_port();
    let root = tempfile::tempdir().unwrap();
    let mut command = Command::new(sandbox_bin());
    command
        .env("MSB_WORKSPACE_ROOT", root.path())
        .env("MCP_SERVER_PORT", port.to_string())
        .env("RUST_LOG", "info")
        .kill_on_drop(true);
    let mut server = start_http_server(command, port, "mcp-sandbox", "MCP server listening").await;
    let pid = server.child.id().expect("running");
    let manager = Manager::new(
        Config::default().with_server("s", ServerConfig::streamable_http(server.url.clone())),
        root.path(),
    )
    .with_trust_mode(TrustMode::Trusted);
    let session = manager.open("s").await.expect("connects");
    // An idle session with a background process, and a call that is running at SIGTERM.
    session
        .call_tool(
            "execute_command",
            json!({ "command": "sleep 4321987 >/dev/null 2>&1 & while ! grep -qs 4321987 /proc/[0-9]*/cmdline; do :; done" })
                .as_object()
                .cloned(),
        )
        .await
        .unwrap();
    let code = "import time\nprint('started', flush=True)\ntime.sleep(1)\nprint('finished')";
    let (mut progress, call) = session
        .call_tool_with_progress("execute_code", json!({ "code": code }).as_object().cloned());
    let terminate = async {
        let first = tokio::time::timeout(Duration::from_secs(30), progress.recv()).await;
        assert!(matches!(first, Ok(Some(_))), "the call started");
        let killed = Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status()
            .await
            .unwrap();
        assert!(killed.success());
    };
    let (result, ()) = tokio::join!(call, terminate);
    let result = result.expect("the running call finished");
    assert_eq!(
        serde_json::to_value(result).unwrap()["structuredContent"]["stdout"],
        "started\nfinished\n"
    );
    let status = tokio::time::timeout(Duration::from_secs(30), server.child.wait())
        .await
        .expect("exited")
        .unwrap();
    assert!(status.success(), "{status}");
    assert!(
        processes_with("4321987").is_empty(),
        "a sandbox process outlived the server"
    );
    let left: Vec<_> = std::fs::read_dir(root.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").unwrap();
    for line in cgroups.lines() {
        let path = line.rsplit(':').next().unwrap();
        for controller in ["memory", "pids", "cpu"] {
            let dir = format!("/sys/fs/cgroup/{controller}{path}/mcp-sandbox-{pid}");
            assert!(!std::path::Path::new(&dir).exists(), "{dir} left behind");
        }
    }
}

/// Every setting is in `--help` and in the user guide's table.
#[tokio::test(flavor = "multi_thread")]
async fn every_setting_is_documented() {
    let guide = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/sandbox.md"),
    )
    .expect("docs/sandbox.md");
    let help = Command::new(sandbox_bin())
        .arg("--help")
        .output()
        .await
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    for field in mcp_sandbox::config::FIELDS {
        let row = format!("| `{}` | `{}` |", field.var, field.key);
        assert!(guide.contains(&row), "docs/sandbox.md lacks the row {row}");
        assert!(help.contains(field.var), "--help lacks {}", field.var);
    }
}
