//! The `mcp-sandbox` server the benchmark drives, and its client.
//!
//! The server runs as the release binary, over streamable HTTP (the benchmark spawns it and
//! waits for `MCP server listening`) or over stdio (mcp-kit spawns it). Each server gets a
//! workspace root of its own under the temporary directory, removed after it stopped; it is
//! stopped gracefully (SIGTERM, or end of file on stdin), so that it removes its sandboxes,
//! cgroups and workspaces itself.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcp_jsonrpc::WaitOnTimeout;
use mcp_kit::{Manager, Session, TrustMode};
use mcp_test_support::{ServerProcess, free_port, repo_root, start_http_server};
use serde_json::{Map, Value, json};
use tokio::process::Command;

use crate::mcpx::latency::Transport;
use crate::mcpx::setup::{self, Upstream};

/// The command that builds the server.
pub const BUILD: &str = "cargo build --release --locked -p mcp-sandbox";

/// The server's name in the client's configuration.
const NAME: &str = "sandbox";

/// How long a request may take (ten sandboxes started at once on 2 cores take seconds).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(120);

/// How long the server may take to stop its sandboxes and exit.
const STOP_TIMEOUT: Duration = Duration::from_secs(20);

pub use mcp_sandbox::template::Template;

/// What the benchmark needs of a template beyond what `mcp-sandbox` says of it.
pub trait TemplateExt {
    /// The language, for the report.
    fn label(self) -> &'static str;
    /// The interpreter, the same for the bare start and for the sandbox (`MSB_PYTHON`,
    /// `MSB_NODE`).
    fn interpreter(self) -> &'static str;
    /// The arguments of the bare start: the interpreter doing nothing.
    fn bare_args(self) -> [&'static str; 2];
}

impl TemplateExt for Template {
    fn label(self) -> &'static str {
        match self {
            Template::Python => "Python",
            Template::Node => "Node.js",
        }
    }

    fn interpreter(self) -> &'static str {
        match self {
            Template::Python => "/usr/bin/python3",
            Template::Node => "/usr/bin/node",
        }
    }

    fn bare_args(self) -> [&'static str; 2] {
        match self {
            Template::Python => ["-c", "pass"],
            Template::Node => ["-e", "0"],
        }
    }
}

/// How a server is configured.
#[derive(Debug, Clone, Copy)]
pub struct Setup {
    /// Over which transport the client reaches it.
    pub transport: Transport,
    /// `MSB_POOL_SIZE`: warm sandboxes per template (0: every sandbox starts on demand).
    pub pool_size: usize,
    /// `MSB_MAX_SESSIONS`.
    pub max_sessions: usize,
}

/// What an `execute_code` call answered.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The session it ran in.
    pub session_id: String,
    /// Whether the call started that session.
    pub created: bool,
}

/// A client of one server: cheap to clone, for concurrent callers.
#[derive(Clone)]
pub struct Client {
    session: Arc<Session>,
}

impl Client {
    async fn call(&self, tool: &str, arguments: Value) -> Result<Value, String> {
        let Value::Object(arguments) = arguments else {
            unreachable!("json! of an object")
        };
        let result = self
            .session
            .call_tool(tool, Some(arguments))
            .await
            .map_err(|e| format!("{tool}: {e}"))?;
        let text = || serde_json::to_string(&result).unwrap_or_default();
        if result.is_error() {
            return Err(format!("{tool} failed: {}", text()));
        }
        let structured = result.structured_content.as_ref().map(|s| s.to_value());
        match structured.as_deref() {
            Some(value @ Value::Object(_)) => Ok(value.clone()),
            _ => Err(format!("{tool}: no structured result in {}", text())),
        }
    }

    /// `execute_code` of `code` in session `session_id` (a new one when `None`); the answer
    /// must be `status: "ok"` with standard output `stdout`.
    pub async fn execute(
        &self,
        template: Template,
        code: &str,
        session_id: Option<&str>,
        stdout: &str,
    ) -> Result<Outcome, String> {
        let mut arguments = Map::new();
        arguments.insert("code".into(), code.into());
        arguments.insert("template".into(), template.name().into());
        if let Some(id) = session_id {
            arguments.insert("session_id".into(), id.into());
        }
        let result = self.call("execute_code", Value::Object(arguments)).await?;
        if result["status"] != "ok" || result["stdout"] != stdout {
            return Err(format!(
                "execute_code of {code:?}: expected status ok and stdout {stdout:?}, got {result}"
            ));
        }
        let session_id = result["session_id"]
            .as_str()
            .ok_or_else(|| format!("execute_code: no session_id in {result}"))?;
        Ok(Outcome {
            session_id: session_id.to_owned(),
            created: result["session_created"] == true,
        })
    }

    /// The structured result of `get_sessions`.
    pub async fn sessions(&self) -> Result<Value, String> {
        self.call("get_sessions", json!({})).await
    }

    /// `stop_session`.
    pub async fn stop(&self, session_id: &str) -> Result<(), String> {
        self.call("stop_session", json!({ "session_id": session_id }))
            .await
            .map(drop)
    }

    /// Stops every session the server lists.
    pub async fn stop_all(&self) -> Result<(), String> {
        let sessions = self.sessions().await?;
        for session in sessions["sessions"].as_array().into_iter().flatten() {
            if let Some(id) = session["session_id"].as_str() {
                self.stop(id).await?;
            }
        }
        Ok(())
    }

    /// Waits until `get_sessions` shows a warm sandbox of `template`.
    pub async fn wait_warm(&self, template: Template) -> Result<(), String> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let sessions = self.sessions().await?;
            if sessions["warm_sandboxes"][template.name()].as_u64() >= Some(1) {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "no warm {} sandbox after 30 s: {sessions}",
                    template.name()
                ));
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

/// A running server, its client and its workspace root.
pub struct Sandbox {
    client: Client,
    pid: u32,
    http: Option<ServerProcess>,
    workspace: PathBuf,
}

/// A new, empty workspace root under the temporary directory.
fn workspace_root() -> Result<PathBuf, String> {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "sandbox-bench-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    Ok(dir)
}

/// The server's environment: the setup, the interpreters, and little logging.
fn environment(setup: &Setup, workspace: &Path, log: &str) -> BTreeMap<String, String> {
    BTreeMap::from([
        ("MSB_POOL_SIZE".into(), setup.pool_size.to_string()),
        ("MSB_MAX_SESSIONS".into(), setup.max_sessions.to_string()),
        ("MSB_WORKSPACE_ROOT".into(), workspace.display().to_string()),
        ("MSB_PYTHON".into(), Template::Python.interpreter().into()),
        ("MSB_NODE".into(), Template::Node.interpreter().into()),
        ("RUST_LOG".into(), log.into()),
    ])
}

impl Sandbox {
    /// Starts `program` as `setup` says and connects a client (mcp-kit).
    pub async fn start(program: &Path, setup: Setup) -> Result<Self, String> {
        let workspace = workspace_root()?;
        let (upstream, http) = match setup.transport {
            Transport::Stdio => {
                let env = environment(&setup, &workspace, "warn");
                let argv = vec![program.display().to_string(), "--stdio".into()];
                (Upstream::Stdio { argv, env }, None)
            }
            Transport::Http => {
                let port = free_port();
                // Only the line saying it listens, at info level.
                let log = "warn,mcp_server::config::serve=info";
                let mut command = Command::new(program);
                command
                    .envs(environment(&setup, &workspace, log))
                    .env("MCP_SERVER_PORT", port.to_string())
                    .kill_on_drop(true);
                let server =
                    start_http_server(command, port, "mcp-sandbox", "MCP server listening").await;
                (Upstream::Http(server.url.clone()), Some(server))
            }
        };
        let manager = Manager::new(setup::config(&vec![(NAME.into(), upstream)]), repo_root())
            .with_client_info("sandbox-bench", env!("CARGO_PKG_VERSION"))
            .with_trust_mode(TrustMode::Trusted)
            .with_timeout(REQUEST_TIMEOUT);
        let session = manager
            .open(NAME)
            .await
            .map_err(|e| format!("connecting to mcp-sandbox: {e}"))?;
        let pid = match &http {
            Some(server) => server.child.id(),
            None => session.peer().child().and_then(|c| c.id()),
        }
        .ok_or("mcp-sandbox exited at once")?;
        Ok(Self {
            client: Client {
                session: Arc::new(session),
            },
            pid,
            http,
            workspace,
        })
    }

    /// The client.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Stops the server gracefully (it stops every sandbox) and removes its workspace root.
    pub async fn stop(self) -> Result<(), String> {
        let Self {
            client,
            pid,
            http,
            workspace,
        } = self;
        let mut session = Arc::into_inner(client.session)
            .ok_or("a clone of the client outlived the benchmark")?;
        let stopped = match http {
            None => session
                .peer_mut()
                .wait_with_timeout(
                    STOP_TIMEOUT,
                    WaitOnTimeout::Kill {
                        kill_timeout: Duration::from_secs(5),
                    },
                )
                .await
                .map(drop)
                .map_err(|e| format!("stopping mcp-sandbox: {e}")),
            Some(mut server) => {
                session.close().await;
                // SIGTERM: it lets running calls finish, then stops every sandbox.
                let _ = std::process::Command::new("kill")
                    .args(["-TERM", &pid.to_string()])
                    .status();
                match tokio::time::timeout(STOP_TIMEOUT, server.child.wait()).await {
                    Ok(status) => status
                        .map(drop)
                        .map_err(|e| format!("waiting for mcp-sandbox: {e}")),
                    Err(_) => Err(format!(
                        "mcp-sandbox did not stop within {STOP_TIMEOUT:?} of SIGTERM"
                    )),
                }
            }
        };
        let removed = std::fs::remove_dir_all(&workspace)
            .map_err(|e| format!("removing {}: {e}", workspace.display()));
        stopped.and(removed)
    }
}
