//! The programs of the mcpx benchmark, the upstream servers it connects, and the clients that
//! reach them directly or through mcpx.
//!
//! Peers and the tool catalog are located by `mcp-test-support`, as the workspace's tests do:
//! the everything server and the Python SDK under `$MCP_PEERS_DIR` (`scripts/install-peers.sh`),
//! the catalog under `$MCP_CATALOG_DIR`, else `../shared/catalogs`, else
//! `~/.cache/mcp-toolkit/catalogs` (`scripts/fetch-spec.sh`). The catalog is read where it
//! lies, never copied.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use mcp_kit::{Config, Manager, ServerConfig, Session, StdioServer, TrustMode};
use mcp_test_support::{ServerProcess, free_port, repo_root, start_http_server};
use serde_json::{Map, Value, json};
use tokio::process::Command;

/// The catalog of GitHub's MCP server (117 tools), served by `replay_server`.
pub const GITHUB_CATALOG: &str = "github-mcp-server.tools.json";

/// The command that builds the programs of [`Programs`].
pub const BUILD: &str = "cargo build --release --locked -p mcpx -p mcp-server --bin mcpx \
                         --example example_server --example replay_server";

/// The root workspace's release programs the benchmark runs.
#[derive(Debug, Clone)]
pub struct Programs {
    /// The proxy.
    pub mcpx: PathBuf,
    /// `mcp-server`'s example server (`echo`, `add`, `count`, …; stdio or `--http PORT`).
    pub example_server: PathBuf,
    /// `mcpx`'s replay server: the tools of a catalog file.
    pub replay_server: PathBuf,
}

impl Programs {
    /// The programs in `bin_dir` (the root workspace's `target/release`); an error says how
    /// to build a missing one.
    pub fn locate(bin_dir: &Path) -> Result<Self, String> {
        let programs = Self {
            mcpx: bin_dir.join("mcpx"),
            example_server: bin_dir.join("examples/example_server"),
            replay_server: bin_dir.join("examples/replay_server"),
        };
        for program in [
            &programs.mcpx,
            &programs.example_server,
            &programs.replay_server,
        ] {
            if !program.exists() {
                return Err(format!(
                    "{} is missing: build it with `{BUILD}` (bench/run.sh does), or name the \
                     directory of those programs with --bin-dir",
                    program.display()
                ));
            }
        }
        Ok(programs)
    }
}

/// The root workspace's release directory (`<repo>/target/release`).
pub fn default_bin_dir() -> PathBuf {
    repo_root().join("target/release")
}

/// Where the benchmark writes the configurations it gives mcpx.
pub fn work_dir() -> Result<PathBuf, String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/mcpx-bench");
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    Ok(dir)
}

/// One upstream server, as both configuration forms need it.
#[derive(Debug, Clone)]
pub enum Upstream {
    /// A child process.
    Stdio {
        /// Program and arguments.
        argv: Vec<String>,
        /// Variables added to its (baseline) environment.
        env: BTreeMap<String, String>,
    },
    /// A streamable HTTP endpoint.
    Http(String),
}

impl Upstream {
    /// A child process without extra environment.
    pub fn stdio<S: AsRef<std::ffi::OsStr>>(argv: impl IntoIterator<Item = S>) -> Self {
        Upstream::Stdio {
            argv: argv
                .into_iter()
                .map(|a| a.as_ref().to_string_lossy().into_owned())
                .collect(),
            env: BTreeMap::new(),
        }
    }

    fn server_config(&self) -> ServerConfig {
        match self {
            Upstream::Stdio { argv, env } => ServerConfig::Stdio(StdioServer {
                argv: argv.clone(),
                env: env.clone(),
                inherit_env: false,
                stdout_log: None,
                env_file: None,
            }),
            Upstream::Http(url) => ServerConfig::streamable_http(url),
        }
    }

    fn mcp_servers_entry(&self) -> Value {
        match self {
            Upstream::Stdio { argv, env } => {
                json!({ "command": argv[0], "args": argv[1..], "env": env })
            }
            Upstream::Http(url) => json!({ "url": url }),
        }
    }
}

/// Named upstreams.
pub type Upstreams = Vec<(String, Upstream)>;

/// The in-code configuration of `upstreams` (for the in-process registry and direct clients).
pub fn config(upstreams: &Upstreams) -> Config {
    upstreams
        .iter()
        .fold(Config::default(), |config, (name, upstream)| {
            config.with_server(name.clone(), upstream.server_config())
        })
}

/// Writes `upstreams` as an `mcpServers` file for `mcpx --config` and returns its path.
pub fn write_mcpx_config(name: &str, upstreams: &Upstreams) -> Result<PathBuf, String> {
    let servers: Map<String, Value> = upstreams
        .iter()
        .map(|(name, upstream)| (name.clone(), upstream.mcp_servers_entry()))
        .collect();
    let path = work_dir()?.join(format!("{name}.json"));
    let text = json!({ "mcpServers": servers }).to_string();
    std::fs::write(&path, text).map_err(|e| format!("writing {}: {e}", path.display()))?;
    Ok(path)
}

/// A client (mcp-kit) for `upstreams`, trusted like a configuration the operator wrote. It
/// announces what mcpx announces upstream (elicitation and sampling): a server may list tools
/// by the client's capabilities (the everything server does), and a direct client must be
/// shown the same tools as mcpx.
pub fn client(upstreams: &Upstreams) -> Manager {
    Manager::new(config(upstreams), repo_root())
        .with_client_info("mcpx-bench", env!("CARGO_PKG_VERSION"))
        .with_trust_mode(TrustMode::Trusted)
        .with_capabilities(json!({ "elicitation": {}, "sampling": {} }))
}

/// The session of `name` of `client`, with the server named in the error.
pub async fn session(client: &Manager, name: &str) -> Result<Arc<Session>, String> {
    client
        .session(name)
        .await
        .map_err(|e| format!("connecting to {name}: {e}"))
}

/// `replay_server` serving the GitHub catalog over stdio.
pub fn github(programs: &Programs) -> Upstream {
    let catalog = mcp_test_support::catalog_path(GITHUB_CATALOG);
    Upstream::stdio([
        programs.replay_server.as_os_str(),
        "--catalog".as_ref(),
        catalog.as_os_str(),
    ])
}

/// The reference everything server (Node.js) over stdio, with the project's preload for
/// Node 20 and the installed packages on `NODE_PATH`.
pub fn everything() -> Upstream {
    let glob = repo_root().join("scripts/peers/node20-fs-glob.mjs");
    let env = BTreeMap::from([
        (
            "NODE_OPTIONS".to_owned(),
            format!("--import {}", glob.display()),
        ),
        (
            "NODE_PATH".to_owned(),
            mcp_test_support::peers_dir()
                .join("node/node_modules")
                .display()
                .to_string(),
        ),
    ]);
    let js = mcp_test_support::everything_js();
    Upstream::Stdio {
        argv: vec!["node".into(), js.display().to_string(), "stdio".into()],
        env,
    }
}

/// Starts `example_server --http` and waits until it listens.
pub async fn example_http(programs: &Programs) -> ServerProcess {
    let port = free_port();
    let mut command = Command::new(&programs.example_server);
    command
        .args(["--http", &port.to_string()])
        .kill_on_drop(true);
    start_http_server(command, port, "example_server", "listening on http://").await
}

/// Starts `mcpx --config CONFIG --http 127.0.0.1:PORT` and waits until it listens (it does
/// once every upstream settled).
pub async fn mcpx_http(programs: &Programs, config: &Path) -> ServerProcess {
    let port = free_port();
    let mut command = Command::new(&programs.mcpx);
    command
        .arg("--config")
        .arg(config)
        .args(["--http", &format!("127.0.0.1:{port}")])
        .env("MCPX_LOG", "warn")
        .kill_on_drop(true);
    start_http_server(command, port, "mcpx", "mcpx listening on").await
}

/// `mcpx --config CONFIG` as a stdio server of a client.
pub fn mcpx_stdio(programs: &Programs, config: &Path) -> Upstream {
    Upstream::Stdio {
        argv: vec![
            programs.mcpx.display().to_string(),
            "--config".into(),
            config.display().to_string(),
        ],
        env: BTreeMap::from([("MCPX_LOG".to_owned(), "warn".to_owned())]),
    }
}
