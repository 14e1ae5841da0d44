//! The MCP server: the tools and the workspace resources on `mcp-server`, the directory that
//! holds every workspace, and the order of things at start and at shutdown.

use std::io;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use mcp_server::{Server, ServerConfig};

use crate::backend::local::{LocalBackend, LocalOptions};
use crate::backend::{Backend, BackendError};
use crate::config::{SandboxConfig, VolumeError, resolve_volumes};
use crate::session::Sessions;

/// What the server tells clients about itself.
const INSTRUCTIONS: &str = "Runs Python and Node.js code and shell commands in isolated \
     sandbox sessions. execute_code and execute_command start a session when no session_id is \
     given and return its id; pass it back to keep variables, imports and files. Each session \
     has a writable /workspace (its files are also readable as sandbox://{session_id}/{path} \
     resources), limited CPU and memory (flavor), and no network. get_sessions lists sessions, \
     stop_session ends one.";

/// Why the server cannot start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The backend is missing something.
    #[error(transparent)]
    Backend(#[from] BackendError),
    /// A shared volume cannot be mounted.
    #[error(transparent)]
    Volume(#[from] VolumeError),
    /// The address is reachable from other machines and nothing authenticates callers.
    #[error(
        "refusing to listen on {0} without authentication: anyone who can reach it could run \
         code on this machine. Listen on 127.0.0.1 (MCP_SERVER_HOST), or configure bearer \
         tokens (MCP_AUTH_TOKENS, [auth] tokens) or OAuth (MCP_OAUTH_ISSUER, [auth.oauth])"
    )]
    Exposed(String),
    /// The workspace directory cannot be created.
    #[error("cannot create the workspace directory {0}: {1}")]
    Workspace(PathBuf, io::Error),
}

/// True for addresses only this machine can reach.
fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Refuses a configuration that would expose code execution to the network without
/// authentication.
///
/// # Errors
/// The host is not a loopback address and `[auth]` is empty.
pub fn check_exposure(config: &ServerConfig) -> Result<(), StartError> {
    if is_loopback(&config.host) || !config.auth.tokens.is_empty() || config.auth.oauth.is_some() {
        return Ok(());
    }
    Err(StartError::Exposed(config.host.clone()))
}

/// A running sandbox server: the MCP server and its sessions.
#[derive(Debug)]
pub struct SandboxServer {
    server: Server,
    sessions: Arc<Sessions>,
    root: PathBuf,
}

/// Removes the directories left by servers that died without cleaning up.
fn remove_stale_roots(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        if crate::owner::is_stale(&entry.file_name()) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

impl SandboxServer {
    /// Starts the local backend as `config` says and builds the server (`server_config`
    /// gives its limits and metrics).
    ///
    /// # Errors
    /// See [`StartError`].
    pub async fn start(
        config: SandboxConfig,
        server_config: &ServerConfig,
    ) -> Result<Self, StartError> {
        let parent = config
            .workspace_root
            .clone()
            .unwrap_or_else(std::env::temp_dir);
        remove_stale_roots(&parent);
        let root = parent.join(crate::owner::own_name());
        let options = LocalOptions {
            bwrap: config.bwrap.clone(),
            python: config.python.clone(),
            node: config.node.clone(),
            runtime_dir: root.join("runtime"),
            total_memory_bytes: config.max_total_memory_mb.map(|mb| mb << 20),
            rlimits_only: config.rlimits_only,
        };
        std::fs::create_dir_all(&root).map_err(|e| StartError::Workspace(root.clone(), e))?;
        let backend = match LocalBackend::new(options).await {
            Ok(backend) => backend,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&root);
                return Err(e.into());
            }
        };
        Self::with_backend(config, server_config, Arc::new(backend), root)
    }

    /// Builds the server on any backend; workspaces go under `root` (created here, removed
    /// at [`SandboxServer::shutdown`]).
    ///
    /// # Errors
    /// A volume is invalid, or `root` cannot be created.
    pub fn with_backend(
        config: SandboxConfig,
        server_config: &ServerConfig,
        backend: Arc<dyn Backend>,
        root: PathBuf,
    ) -> Result<Self, StartError> {
        let cwd = std::env::current_dir().map_err(|e| StartError::Workspace(root.clone(), e))?;
        let volumes = resolve_volumes(&config.volumes, &cwd)?;
        let workspaces = root.join("sessions");
        std::fs::create_dir_all(&workspaces)
            .map_err(|e| StartError::Workspace(workspaces.clone(), e))?;
        let isolation = backend.isolation();
        tracing::info!(
            backend = %isolation.backend,
            limits = %isolation.limits,
            templates = ?backend.templates(),
            volumes = volumes.len(),
            "sandbox backend ready"
        );
        let sessions = Sessions::new(config, backend, volumes, &workspaces);
        let mut builder = Server::builder("mcp-sandbox", env!("CARGO_PKG_VERSION"))
            .title("MCP sandbox")
            .instructions(INSTRUCTIONS)
            .config(server_config);
        for tool in crate::tools::tools(&sessions) {
            builder = builder.tool_def(tool);
        }
        let server = builder
            .resource_template(crate::resources::workspace_files(&sessions))
            .build();
        if let Some(metrics) = server.metrics() {
            sessions.set_metrics(metrics.clone());
        }
        Ok(Self {
            server,
            sessions,
            root,
        })
    }

    /// The MCP server (serve it over stdio or HTTP).
    pub fn server(&self) -> &Server {
        &self.server
    }

    /// The sessions.
    pub fn sessions(&self) -> &Arc<Sessions> {
        &self.sessions
    }

    /// Stops every session (their processes, cgroups and workspaces) and removes the
    /// directory that held them.
    pub async fn shutdown(&self) {
        self.sessions.shutdown().await;
        if let Err(e) = tokio::fs::remove_dir_all(&self.root).await
            && e.kind() != io::ErrorKind::NotFound
        {
            tracing::warn!("cannot remove {}: {e}", self.root.display());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_or_authenticated_listeners() {
        let mut config = ServerConfig::default();
        assert!(check_exposure(&config).is_ok());
        config.host = "0.0.0.0".into();
        let error = check_exposure(&config).unwrap_err().to_string();
        assert!(error.starts_with("refusing to listen on 0.0.0.0 without authentication"));
        config.auth.tokens = vec!["secret".into()];
        assert!(check_exposure(&config).is_ok());
        for host in ["127.0.0.1", "::1", "localhost", "127.1.2.3"] {
            config = ServerConfig::default();
            config.host = host.into();
            assert!(check_exposure(&config).is_ok(), "{host}");
        }
    }
}
