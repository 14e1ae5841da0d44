//! Starting the real `mcp-sandbox` binary for a test (stdio or streamable HTTP) and reaching
//! it with mcp-kit. Every test runs real sandboxes: bubblewrap must be installed.

#![allow(dead_code, unreachable_pub)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use mcp_kit::{Config, Manager, ServerConfig, Session, TrustMode};
use mcp_test_support::{ServerProcess, free_port, start_http_server};
use serde_json::{Value, json};
use tokio::process::Command;

pub fn sandbox_bin() -> &'static str {
    env!("CARGO_BIN_EXE_mcp-sandbox")
}

/// Fails the test, saying how to install it, when bubblewrap is missing.
pub fn require_bwrap() {
    let found = std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).any(|dir| dir.join("bwrap").is_file()))
        .unwrap_or(false);
    assert!(
        found,
        "bubblewrap (bwrap) is not installed, and the sandbox tests run real sandboxes: run \
         scripts/install-system-deps.sh (or apt-get install bubblewrap), then the tests again"
    );
}

/// How the test reaches the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Stdio,
    Http,
}

/// A running server, a client session to it, and the directory its workspaces are in.
pub struct Sandbox {
    pub session: Session,
    pub manager: Manager,
    pub root: tempfile::TempDir,
    pub http: Option<ServerProcess>,
}

/// The server's environment for a test: workspaces in `root`, quiet logs, and `extra`.
fn environment(root: &Path, extra: &[(&str, &str)]) -> BTreeMap<String, String> {
    let mut env = BTreeMap::from([
        ("MSB_WORKSPACE_ROOT".to_owned(), root.display().to_string()),
        ("RUST_LOG".to_owned(), "info".to_owned()),
        ("PATH".to_owned(), std::env::var("PATH").unwrap_or_default()),
    ]);
    for (k, v) in extra {
        env.insert((*k).to_owned(), (*v).to_owned());
    }
    env
}

/// Starts the server with the `MSB_*` settings in `extra` and connects to it.
pub async fn start(transport: Transport, extra: &[(&str, &str)]) -> Sandbox {
    start_with(transport, extra, None).await
}

/// As [`start`], pinning the client's protocol version.
pub async fn start_with(
    transport: Transport,
    extra: &[(&str, &str)],
    protocol: Option<&str>,
) -> Sandbox {
    require_bwrap();
    let root = tempfile::tempdir().expect("tempdir");
    let env = environment(root.path(), extra);
    let (server, http) = match transport {
        Transport::Stdio => {
            let mut server = mcp_kit::StdioServer {
                argv: vec![sandbox_bin().to_owned(), "--stdio".to_owned()],
                env,
                inherit_env: false,
                stdout_log: None,
                env_file: None,
            };
            server.env.insert("RUST_LOG".into(), "warn".into());
            (ServerConfig::Stdio(server), None)
        }
        Transport::Http => {
            let port = free_port();
            let mut command = Command::new(sandbox_bin());
            command
                .env_clear()
                .envs(&env)
                .env("MCP_SERVER_PORT", port.to_string())
                .kill_on_drop(true);
            let process =
                start_http_server(command, port, "mcp-sandbox", "MCP server listening").await;
            (
                ServerConfig::streamable_http(process.url.clone()),
                Some(process),
            )
        }
    };
    let manager = Manager::new(
        Config::default().with_server("sandbox", server),
        root.path(),
    )
    .with_trust_mode(TrustMode::Trusted)
    .with_timeout(Duration::from_secs(60))
    .with_protocol_version(protocol.map(str::to_owned));
    let session = manager
        .open("sandbox")
        .await
        .expect("connect to mcp-sandbox");
    Sandbox {
        session,
        manager,
        root,
        http,
    }
}

impl Sandbox {
    /// Calls `tool`; the whole result as JSON.
    pub async fn call(&self, tool: &str, arguments: Value) -> Value {
        let result = self
            .session
            .call_tool(tool, arguments.as_object().cloned())
            .await
            .unwrap_or_else(|e| panic!("{tool} {arguments}: {e}"));
        serde_json::to_value(result).expect("serializes")
    }

    /// Calls `tool` and returns its `structuredContent`, failing on a tool error.
    pub async fn ok(&self, tool: &str, arguments: Value) -> Value {
        let result = self.call(tool, arguments.clone()).await;
        assert_ne!(result["isError"], true, "{tool} {arguments}: {result:#}");
        result["structuredContent"].clone()
    }

    /// Runs Python `code` in `session` (a new one when `None`); the `structuredContent`.
    pub async fn python(&self, session: Option<&str>, code: &str) -> Value {
        self.code("python", session, code).await
    }

    /// Runs `code` of `template`; the `structuredContent` (tool errors included).
    pub async fn code(&self, template: &str, session: Option<&str>, code: &str) -> Value {
        let mut arguments = json!({ "code": code, "template": template });
        if let Some(id) = session {
            arguments["session_id"] = id.into();
        }
        let result = self.call("execute_code", arguments).await;
        assert!(
            result["structuredContent"].is_object(),
            "no structuredContent: {result:#}"
        );
        result["structuredContent"].clone()
    }

    /// Runs a shell command line in `session`; the `structuredContent`.
    pub async fn shell(&self, session: Option<&str>, command: &str) -> Value {
        let mut arguments = json!({ "command": command });
        if let Some(id) = session {
            arguments["session_id"] = id.into();
        }
        let result = self.call("execute_command", arguments).await;
        assert!(
            result["structuredContent"].is_object(),
            "no structuredContent: {result:#}"
        );
        result["structuredContent"].clone()
    }

    /// A new session's id (a Python one).
    pub async fn new_session(&self) -> String {
        let out = self.python(None, "pass").await;
        out["session_id"].as_str().expect("a session id").to_owned()
    }

    /// The session's workspace on the host.
    pub fn workspace(&self, session: &str) -> PathBuf {
        self.root
            .path()
            .join(format!("mcp-sandbox-{}", self.server_pid()))
            .join("sessions")
            .join(session)
    }

    /// The server's process id (from its directory under the root).
    pub fn server_pid(&self) -> u32 {
        std::fs::read_dir(self.root.path())
            .expect("the root")
            .flatten()
            .find_map(|e| {
                e.file_name()
                    .to_str()?
                    .strip_prefix("mcp-sandbox-")?
                    .parse()
                    .ok()
            })
            .expect("the server's directory")
    }

    /// The session ids `get_sessions` lists.
    pub async fn session_ids(&self) -> Vec<String> {
        let list = self.ok("get_sessions", json!({})).await;
        list["sessions"]
            .as_array()
            .expect("sessions")
            .iter()
            .map(|s| s["session_id"].as_str().expect("id").to_owned())
            .collect()
    }
}

/// Processes on this host whose command line contains `marker`.
pub fn processes_with(marker: &str) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .expect("/proc")
        .flatten()
        .filter_map(|e| {
            let pid: u32 = e.file_name().to_str()?.parse().ok()?;
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            cmdline.contains(marker).then_some(pid)
        })
        .collect()
}

/// The text of a tool result's first content block.
pub fn text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}
