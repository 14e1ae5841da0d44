//! What `server-bench` measures: the servers, the scenarios, and the results of a run.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::mcp::{Protocol, Tool};
use super::memory::MemorySample;
use super::server::{ServerSpec, Transport};
use super::{Sample, Scenario, Timing};

/// Where the peers and binaries are.
#[derive(Debug, Clone)]
pub struct Locations {
    /// Directory of `bench-server`, `rmcp-server` and `axum-echo` (next to the generator).
    pub bin_dir: PathBuf,
    /// `bench/peers/`.
    pub peers_dir: PathBuf,
    /// `node`.
    pub node: PathBuf,
    /// The Python with the `mcp` package (`$PEERS_PYTHON`).
    pub python: Option<PathBuf>,
}

fn spec(
    key: &'static str,
    implementation: &'static str,
    mode: &'static str,
    transport: Transport,
    protocol: Protocol,
    program: PathBuf,
    args: &[&str],
) -> ServerSpec {
    ServerSpec {
        key,
        implementation,
        mode,
        transport,
        protocol,
        program,
        args: args.iter().map(|a| (*a).to_owned()).collect(),
    }
}

/// Every server configuration, in report order.
pub fn servers(at: &Locations) -> Vec<ServerSpec> {
    use Protocol::*;
    use Transport::*;
    let bin = |name: &str| at.bin_dir.join(name);
    let ts = at.peers_dir.join("ts_server.cjs");
    let ts = ts.to_string_lossy().into_owned();
    let py = at.peers_dir.join("python_server.py");
    let py = py.to_string_lossy().into_owned();
    let python = at
        .python
        .clone()
        .unwrap_or_else(|| PathBuf::from("$PEERS_PYTHON"));
    let http = ["--transport", "http", "--port", "{port}"];
    let stdio = ["--transport", "stdio"];
    vec![
        spec(
            "ours-http",
            "mcp-server (ours)",
            "stateful (2025-11-25), JSON responses",
            Http,
            Stateful,
            bin("bench-server"),
            &http,
        ),
        spec(
            "ours-http-stateless",
            "mcp-server (ours)",
            "stateless (2026-07-28), JSON responses",
            Http,
            Stateless,
            bin("bench-server"),
            &http,
        ),
        spec(
            "ours-ws",
            "mcp-server (ours)",
            "WebSocket (`/ws`), stateful (2025-11-25), one connection per session",
            WebSocket,
            Stateful,
            bin("bench-server"),
            &http,
        ),
        spec(
            "rmcp-http",
            "rmcp 3.9",
            "stateful (2025-11-25), SSE responses (defaults)",
            Http,
            Stateful,
            bin("rmcp-server"),
            &http,
        ),
        spec(
            "rmcp-http-stateless",
            "rmcp 3.9",
            "stateless, `json_response: true`, 2026-07-28 requests",
            Http,
            Stateless,
            bin("rmcp-server"),
            &["--transport", "http", "--port", "{port}", "--stateless"],
        ),
        spec(
            "rmcp-http-stateless-legacy",
            "rmcp 3.9",
            "stateless, `json_response: true`, 2025-11-25 requests without a session",
            Http,
            StatelessLegacy,
            bin("rmcp-server"),
            &["--transport", "http", "--port", "{port}", "--stateless"],
        ),
        spec(
            "ts-http",
            "TypeScript SDK 1.32.2",
            "stateful (2025-11-25), SSE responses (defaults), node:http",
            Http,
            Stateful,
            at.node.clone(),
            &[&ts, "--transport", "http", "--port", "{port}"],
        ),
        spec(
            "python-http",
            "Python SDK 2.3.0",
            "stateful (2025-11-25), SSE responses (defaults), uvicorn",
            Http,
            Stateful,
            python.clone(),
            &[&py, "--transport", "http", "--port", "{port}"],
        ),
        spec(
            "axum-http",
            "plain axum 0.8 JSON echo",
            "no MCP: the same bodies, parsed and answered (ceiling)",
            Http,
            Plain,
            bin("axum-echo"),
            &http,
        ),
        spec(
            "ours-stdio",
            "mcp-server (ours)",
            "stdio",
            Stdio,
            Stateful,
            bin("bench-server"),
            &stdio,
        ),
        spec(
            "rmcp-stdio",
            "rmcp 3.9",
            "stdio",
            Stdio,
            Stateful,
            bin("rmcp-server"),
            &stdio,
        ),
        spec(
            "ts-stdio",
            "TypeScript SDK 1.32.2",
            "stdio",
            Stdio,
            Stateful,
            at.node.clone(),
            &[&ts, "--transport", "stdio"],
        ),
        spec(
            "python-stdio",
            "Python SDK 2.3.0",
            "stdio",
            Stdio,
            Stateful,
            python,
            &[&py, "--transport", "stdio"],
        ),
    ]
}

/// rmcp served by plain `axum::serve` (Nagle's algorithm left on): the diagnostic run.
pub fn rmcp_with_nagle(at: &Locations) -> ServerSpec {
    spec(
        "rmcp-http-nagle",
        "rmcp 3.9",
        "stateful, SSE, plain `axum::serve` (no TCP_NODELAY)",
        Transport::Http,
        Protocol::Stateful,
        at.bin_dir.join("rmcp-server"),
        &["--transport", "http", "--port", "{port}", "--nagle"],
    )
}

/// The measurements of one transport.
pub fn scenarios(transport: Transport, sessions: usize, in_flight: usize) -> Vec<Scenario> {
    let (one, many) = match transport {
        Transport::Http | Transport::WebSocket => (1, sessions),
        Transport::Stdio => (1, in_flight),
    };
    vec![
        Scenario {
            tool: Tool::Echo,
            concurrency: many,
        },
        Scenario {
            tool: Tool::Echo,
            concurrency: one,
        },
        Scenario {
            tool: Tool::Blob,
            concurrency: many,
        },
    ]
}

/// How a run is configured.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Warm-up and measured time of each measurement.
    pub timing: Timing,
    /// Runs; medians are reported.
    pub runs: usize,
    /// Concurrent HTTP sessions (WebSocket connections) of the "many" measurements.
    pub sessions: usize,
    /// Requests in flight of the pipelined stdio measurements.
    pub in_flight: usize,
    /// Sessions of the connected-memory measurement.
    pub connected: usize,
    /// Sessions of the idle-memory measurement.
    pub idle: usize,
    /// Where the servers' stderr goes.
    pub log_dir: PathBuf,
}

/// Everything one `server-bench` run measured.
#[derive(Debug, Default)]
pub struct Results {
    /// Samples of every run, by server key and scenario.
    pub samples: HashMap<(&'static str, Scenario), Vec<Sample>>,
    /// The first failure of a measurement, by server key and scenario.
    pub failures: HashMap<(&'static str, Scenario), String>,
    /// `VmHWM` at the end of each run, KiB, by server key.
    pub peak_rss_kib: HashMap<&'static str, Vec<u64>>,
    /// Memory per connected session, by server key.
    pub connected: HashMap<&'static str, Result<MemorySample, String>>,
    /// Memory per idle session, by server key.
    pub idle: HashMap<&'static str, Result<MemorySample, String>>,
    /// rmcp with Nagle's algorithm on: `echo`, one session.
    pub nagle: Option<Result<Sample, String>>,
    /// `/proc/loadavg` before and after.
    pub load_before: String,
    /// `/proc/loadavg` after the run.
    pub load_after: String,
    /// Wall time of the run, seconds.
    pub wall_seconds: f64,
    /// Busy CPU seconds of the whole machine during the run.
    pub machine_busy_seconds: f64,
    /// CPU seconds of the generator and every server it started during the run.
    pub own_seconds: f64,
}

impl Results {
    /// The samples of one server and scenario.
    pub fn of(&self, key: &str, scenario: Scenario) -> &[Sample] {
        self.samples
            .iter()
            .find(|((k, s), _)| *k == key && *s == scenario)
            .map_or(&[], |(_, v)| v.as_slice())
    }

    /// The failure of one server and scenario, if any.
    pub fn failure(&self, key: &str, scenario: Scenario) -> Option<&str> {
        self.failures
            .iter()
            .find(|((k, s), _)| *k == key && *s == scenario)
            .map(|(_, e)| e.as_str())
    }
}

/// `bench/peers/`, from the crate's directory.
pub fn peers_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("peers")
}
