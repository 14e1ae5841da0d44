//! Test helpers shared by the workspace: where the third-party peers and data (the MCP spec,
//! the TOON spec's fixtures, tool catalogs) live, and how to start the peers.
//!
//! Peers are installed by `scripts/install-peers.sh` into `$MCP_PEERS_DIR` (default
//! `~/.cache/mcp-toolkit/peers`). A test that needs a missing peer fails with a message
//! saying how to install it; it never skips.
//!
//! The data ([`spec_dir`], [`toon_spec_dir`], [`catalog_path`]) come from the variable that
//! names them, else `../shared` beside the repository (as in CI), else the pinned copies that
//! `scripts/fetch-spec.sh` keeps in `~/.cache/mcp-toolkit`; a test whose data are missing fails
//! saying what to run, it never skips.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

pub mod oidc;
pub mod scale_out;

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

/// The folder of the `oidc-provider` package (panva/node-oidc-provider, a real OAuth 2.1 and
/// OpenID Connect authorization server), for the OAuth end-to-end tests. It is ESM-only and
/// `import` does not read `NODE_PATH`: a script loads it from this folder.
pub fn oidc_provider_dir() -> PathBuf {
    let dir = peers_dir().join("node/node_modules/oidc-provider");
    require(
        dir.join("package.json"),
        "the oidc-provider authorization server (oidc-provider)",
    );
    dir
}

/// A Python interpreter that has the official `mcp` package.
pub fn peers_python() -> PathBuf {
    require(peers_dir().join("venv/bin/python"), "the Python SDK (mcp)")
}

/// A Python interpreter that has `mcp` 1.x (FastMCP 1.x, a server of the stateful era only).
pub fn peers_python_mcp1() -> PathBuf {
    require(
        peers_dir().join("venv-mcp1/bin/python"),
        "the Python SDK 1.x (mcp 1.30.0)",
    )
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
    locate(&Data {
        what: "the MCP spec directory",
        variable: "MCP_SPEC_DIR",
        shared: "spec",
        cache: "spec",
        marker: "mcp",
        holding: "mcp/<version>/schema.json",
    })
}

/// The TOON spec directory (the folder holding `tests/fixtures/{encode,decode}/*.json`, the
/// spec's conformance fixtures): `$TOON_SPEC_DIR` when set; else `../shared/spec/toon` beside
/// the repository (as in CI); else the pinned copy that `scripts/fetch-spec.sh` keeps in
/// `~/.cache/mcp-toolkit/spec/toon`. Panics like [`spec_dir`] when none is there.
pub fn toon_spec_dir() -> PathBuf {
    locate(&Data {
        what: "the TOON spec fixtures",
        variable: "TOON_SPEC_DIR",
        shared: "spec/toon",
        cache: "spec/toon",
        marker: "tests/fixtures",
        holding: "tests/fixtures/{encode,decode}/",
    })
}

/// A tool catalog file (such as `github-mcp-server.tools.json`, a real server's tools as
/// `{"source": …, "tools": [<MCP Tool>…]}`): `$MCP_CATALOG_DIR/<name>` when the variable is
/// set; else `../shared/catalogs/<name>` beside the repository (as in CI); else the pinned copy
/// that `scripts/fetch-spec.sh` keeps in `~/.cache/mcp-toolkit/catalogs/<name>`. Panics like
/// [`spec_dir`] when none is there.
pub fn catalog_path(name: &str) -> PathBuf {
    locate(&Data {
        what: &format!("the tool catalog {name}"),
        variable: "MCP_CATALOG_DIR",
        shared: "catalogs",
        cache: "catalogs",
        marker: name,
        holding: name,
    })
    .join(name)
}

/// One kind of third-party data that lives outside the repository, for [`locate`].
struct Data<'a> {
    /// What it is, for messages ("the MCP spec directory").
    what: &'a str,
    /// The variable that names its folder.
    variable: &'a str,
    /// Its folder under `../shared` beside the repository.
    shared: &'a str,
    /// Its folder under `~/.cache/mcp-toolkit`, where `scripts/fetch-spec.sh` puts it.
    cache: &'a str,
    /// What a folder must contain to be the one (relative to the folder).
    marker: &'a str,
    /// What the folder holds, for messages.
    holding: &'a str,
}

/// The folder holding `data`: the one its variable names (which must contain the marker), else
/// the first of `../shared/<shared>` and `~/.cache/mcp-toolkit/<cache>` that contains it. Panics
/// loudly, saying what to run, when none does, so that data-driven tests never pass without
/// running.
fn locate(data: &Data<'_>) -> PathBuf {
    let root = repo_root();
    let fetch = root.join("scripts/fetch-spec.sh");
    let Data {
        what,
        variable,
        marker,
        holding,
        ..
    } = data;
    if let Some(dir) = std::env::var_os(variable).filter(|dir| !dir.is_empty()) {
        let dir = PathBuf::from(dir);
        assert!(
            dir.join(marker).exists(),
            "{variable} is {}, which has no {marker}: these tests did NOT run. Set {variable} \
             to the folder holding {holding}, or unset it and run `{}`, then run the tests again.",
            dir.display(),
            fetch.display()
        );
        return dir;
    }
    let shared = root
        .parent()
        .unwrap_or(&root)
        .join("shared")
        .join(data.shared);
    let cache = std::env::var_os("HOME").map(|home| {
        PathBuf::from(home)
            .join(".cache/mcp-toolkit")
            .join(data.cache)
    });
    for dir in [Some(&shared), cache.as_ref()].into_iter().flatten() {
        if dir.join(marker).exists() {
            return dir.clone();
        }
    }
    panic!(
        "{what} was not found: these tests did NOT run. Looked in: ${variable} (unset), {}, {}. \
         Run `{}` (it fetches the pinned files into ~/.cache/mcp-toolkit; it needs git, python3 \
         and access to github.com), or set {variable} to a folder holding {holding}, then run \
         the tests again.",
        shared.join(marker).display(),
        cache.map_or_else(
            || format!(
                "~/.cache/mcp-toolkit/{}/{marker} (HOME is unset)",
                data.cache
            ),
            |dir| dir.join(marker).display().to_string()
        ),
        fetch.display()
    );
}

/// The tools of GitHub's MCP server (117 real tool schemas, MIT data) from
/// [`catalog_path`]`("github-mcp-server.tools.json")`, as listed: each an MCP `Tool` object.
/// Read at test time, never copied into the repository.
pub fn github_catalog_tools() -> Vec<serde_json::Value> {
    let path = catalog_path("github-mcp-server.tools.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut catalog: serde_json::Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
    match catalog.get_mut("tools").map(serde_json::Value::take) {
        Some(serde_json::Value::Array(tools)) => tools,
        _ => panic!("{} has no `tools` array", path.display()),
    }
}

/// What the SDK interop clients ([`ts_client`], [`py_client`]) do against mcp-server's
/// `example_server`, and what they must see (its tools, a resource, a prompt, progress, an
/// elicitation): the plan of every test that runs them against it, on one process or on
/// several replicas behind a balancer.
pub fn example_server_plan() -> String {
    serde_json::json!({
        "expect_tools": ["echo", "add", "count", "greet", "touch"],
        "calls": [
            {"name": "echo", "arguments": {"message": "hello"}, "expect_text": "hello"},
            {"name": "add", "arguments": {"a": 2, "b": 40}, "expect_text": "42"}
        ],
        "resource": {"uri": "demo://readme", "expect_text": "example server"},
        "prompt": {"name": "greeting", "arguments": {"name": "Ada"}, "expect_text": "Ada"},
        "progress": {"name": "count", "arguments": {"steps": 4}, "min_count": 3},
        "elicitation": {
            "name": "greet", "arguments": {},
            "response": {"action": "accept", "content": {"name": "Grace"}},
            "expect_text": "Hello, Grace!"
        }
    })
    .to_string()
}

/// The TypeScript SDK interop client (`fixtures/ts_client.cjs`) with `plan` (JSON), over
/// `transport` (`["stdio", command, args…]` or `["http", url]`); run it with [`run_sdk_client`].
pub fn ts_client(plan: &str, transport: &[&str]) -> Command {
    let mut command = node_command();
    command
        .arg(fixture("ts_client.cjs"))
        .args(["--plan", plan])
        .args(transport);
    command
}

/// The Python SDK interop client (`fixtures/py_client.py`) with `plan` (JSON), in `mode`
/// (`auto`, `legacy`, `2026-07-28`), failing unless `era` (`legacy`, `modern`) ran, over
/// `transport` as for [`ts_client`].
pub fn py_client(plan: &str, mode: &str, era: &str, transport: &[&str]) -> Command {
    let mut command = Command::new(peers_python());
    command
        .arg(fixture("py_client.py"))
        .args(["--plan", plan, "--mode", mode, "--expect-era", era])
        .args(transport)
        .kill_on_drop(true);
    command
}

/// Runs an SDK interop client (`fixtures/ts_client.cjs` or `fixtures/py_client.py`, which
/// print one JSON summary line) to completion within 120 s and returns its summary; panics
/// with the summary and the client's stderr when a step failed.
pub async fn run_sdk_client(mut command: Command) -> serde_json::Value {
    let output = tokio::time::timeout(Duration::from_secs(120), command.output())
        .await
        .expect("the client finished within 120 s")
        .expect("the client ran");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let summary: serde_json::Value = stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("no JSON summary.\nstdout: {stdout}\nstderr: {stderr}"));
    assert!(
        output.status.success() && summary["ok"] == true,
        "the client failed ({}): {summary:#}\nstderr: {stderr}",
        output.status
    );
    summary
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
