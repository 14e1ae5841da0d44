//! Test helpers shared by the workspace: where the third-party peers and the spec live, and
//! how to start them.
//!
//! Peers are installed by `scripts/install-peers.sh` into `$MCP_PEERS_DIR` (default
//! `~/.cache/mcp-toolkit/peers`). A test that needs a missing peer fails with a message
//! saying how to install it; it never skips.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root exists")
}

/// Where `scripts/install-peers.sh` put the peers.
pub fn peers_dir() -> PathBuf {
    match std::env::var_os("MCP_PEERS_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => {
            let home = std::env::var_os("HOME").expect("HOME is set");
            PathBuf::from(home).join(".cache/mcp-toolkit/peers")
        }
    }
}

fn require(path: PathBuf, what: &str) -> PathBuf {
    assert!(
        path.exists(),
        "{what} is not installed (looked for {}). Run `scripts/install-peers.sh` \
         (or set MCP_PEERS_DIR to where the peers are), then run the tests again.",
        path.display()
    );
    path
}

/// The everything server's entry point (`node <this> stdio|streamableHttp`).
pub fn everything_js() -> PathBuf {
    require(
        peers_dir().join("node/node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
        "the everything server (@modelcontextprotocol/server-everything)",
    )
}

/// The conformance suite's command.
pub fn conformance_bin() -> PathBuf {
    require(
        peers_dir().join("node/node_modules/.bin/conformance"),
        "the conformance suite (@modelcontextprotocol/conformance)",
    )
}

/// A Python interpreter that has the official `mcp` package.
pub fn peers_python() -> PathBuf {
    require(peers_dir().join("venv/bin/python"), "the Python SDK (mcp)")
}

/// A fixture file of this crate (`crates/test-support/fixtures/<name>`).
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

/// `node` with the project's preloads (host-less `listen()` binds 127.0.0.1; `fs.globSync`
/// on Node < 22) and `NODE_PATH` pointing at the installed packages.
pub fn node_command() -> Command {
    let scripts = repo_root().join("scripts/peers");
    let mut command = Command::new("node");
    command
        .env(
            "NODE_OPTIONS",
            format!(
                "-r {} --import {}",
                scripts.join("listen-loopback.cjs").display(),
                scripts.join("node20-fs-glob.mjs").display()
            ),
        )
        .env("NODE_PATH", peers_dir().join("node/node_modules"))
        .kill_on_drop(true);
    command
}

/// The spec directory (the folder holding `mcp/<version>/schema.json`): `$MCP_SPEC_DIR` when
/// set; else `../shared/spec` beside the repository (as in CI); else the pinned copy that
/// `scripts/fetch-spec.sh` keeps in `~/.cache/mcp-toolkit/spec`. Panics loudly, saying what to
/// run, when none is there, so that spec-driven tests never pass without running.
pub fn spec_dir() -> PathBuf {
    let root = repo_root();
    let fetch = root.join("scripts/fetch-spec.sh");
    if let Some(dir) = std::env::var_os("MCP_SPEC_DIR").filter(|dir| !dir.is_empty()) {
        let dir = PathBuf::from(dir);
        assert!(
            dir.join("mcp").is_dir(),
            "MCP_SPEC_DIR is {}, which has no mcp/ folder: these tests did NOT run. Set \
             MCP_SPEC_DIR to the folder holding mcp/<version>/schema.json, or unset it and run \
             `{}`, then run the tests again.",
            dir.display(),
            fetch.display()
        );
        return dir;
    }
    let shared = root.parent().unwrap_or(&root).join("shared/spec");
    let cache =
        std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache/mcp-toolkit/spec"));
    for dir in [Some(&shared), cache.as_ref()].into_iter().flatten() {
        if dir.join("mcp").is_dir() {
            return dir.clone();
        }
    }
    panic!(
        "the MCP spec directory was not found: these tests did NOT run. Looked in: \
         $MCP_SPEC_DIR (unset), {}, {}. Run `{}` (it fetches the pinned spec files into \
         ~/.cache/mcp-toolkit/spec; it needs git and access to github.com), or set MCP_SPEC_DIR \
         to a folder holding mcp/<version>/schema.json, then run the tests again.",
        shared.display(),
        cache.map_or_else(
            || "~/.cache/mcp-toolkit/spec (HOME is unset)".to_owned(),
            |dir| dir.display().to_string()
        ),
        fetch.display()
    );
}

/// A port on 127.0.0.1 that was free a moment ago.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free local port")
}

/// A server process that is killed when dropped.
pub struct ServerProcess {
    /// The process.
    pub child: Child,
    /// Its MCP endpoint.
    pub url: String,
}

/// Starts the everything server over streamable HTTP and waits until it says it listens.
pub async fn start_everything_http() -> ServerProcess {
    let port = free_port();
    let mut command = node_command();
    command
        .arg(everything_js())
        .arg("streamableHttp")
        .env("PORT", port.to_string());
    start_http_server(command, port, "everything", "listening on port").await
}

/// Starts the Python SDK fixture server (`fixtures/python_server.py`) over streamable HTTP.
pub async fn start_python_http() -> ServerProcess {
    let port = free_port();
    let mut command = Command::new(peers_python());
    command
        .arg(fixture("python_server.py"))
        .arg("--http")
        .arg(port.to_string())
        .kill_on_drop(true);
    start_http_server(command, port, "python", "Uvicorn running").await
}

/// Spawns an HTTP server listening on `port` and waits for the line on stderr that says it is
/// ready (its stderr keeps being forwarded to the test's).
pub async fn start_http_server(
    mut command: Command,
    port: u16,
    name: &'static str,
    ready_line: &str,
) -> ServerProcess {
    let mut child = command
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("the {name} server did not start: {e}"));
    let stderr = child.stderr.take().expect("piped stderr");
    let mut lines = BufReader::new(stderr).lines();
    let ready = async {
        while let Some(line) = lines.next_line().await.expect("read server output") {
            if line.contains(ready_line) {
                return true;
            }
            eprintln!("[{name}] {line}");
        }
        false
    };
    let ready = tokio::time::timeout(Duration::from_secs(30), ready).await;
    assert!(
        matches!(ready, Ok(true)),
        "the {name} server did not report `{ready_line}` for port {port}"
    );
    // Keep forwarding its stderr so that it never blocks on a full pipe.
    tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            eprintln!("[{name}] {line}");
        }
    });
    ServerProcess {
        child,
        url: format!("http://127.0.0.1:{port}/mcp"),
    }
}

/// Builds the examples of `package` (with `features`) for the calling test's profile and
/// target directory, and returns the directory holding them.
///
/// `cargo test` builds examples only when no target is selected, and a stale binary must not
/// pass for a fresh one; when they are up to date the build is a no-op.
pub fn build_examples(package: &str, features: &[&str]) -> PathBuf {
    // A test runs from <target-dir>/<profile>/deps/.
    let exe = std::env::current_exe().expect("the test's own path");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("the test binary lives in <target-dir>/<profile>/deps");
    let target_dir = profile_dir.parent().expect("a target directory");
    let profile = profile_dir
        .file_name()
        .and_then(|name| name.to_str())
        .expect("a profile directory");
    let mut build = std::process::Command::new(env!("CARGO"));
    build
        .current_dir(repo_root())
        .args(["build", "--quiet", "--locked", "-p", package, "--examples"])
        .arg("--target-dir")
        .arg(target_dir);
    match profile {
        "debug" => {}
        "release" => {
            build.arg("--release");
        }
        other => {
            build.args(["--profile", other]);
        }
    }
    if !features.is_empty() {
        build.args(["--features", &features.join(",")]);
    }
    let status = build.status().expect("cargo runs");
    assert!(
        status.success(),
        "building the examples of {package} failed: {status}"
    );
    profile_dir.join("examples")
}

/// Runs the conformance suite (`conformance <args>`) to completion within `limit` and returns
/// its output; panics with a hint when Node.js is missing or the run takes too long.
pub async fn run_conformance(args: &[&str], limit: Duration) -> std::process::Output {
    let mut command = node_command();
    command
        .arg(conformance_bin())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    tokio::time::timeout(limit, command.output())
        .await
        .unwrap_or_else(|_| panic!("conformance {args:?} did not finish within {limit:?}"))
        .unwrap_or_else(|e| panic!("cannot run node (is Node.js installed?): {e}"))
}
