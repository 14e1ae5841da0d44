//! What mcpx adds to a call: `echo` of `mcp-server`'s example server called directly, against
//! the same call through mcpx (`exec`), over stdio and over streamable HTTP.
//!
//! - stdio: the client (mcp-kit) spawns the example server, or spawns `mcpx --config FILE`,
//!   which spawns its own example server.
//! - HTTP: one example server listens (`--http`); the client reaches it directly, or reaches
//!   `mcpx --http` whose upstream is that server.
//!
//! Each run makes, for both routes in turn, sequential calls after a warm-up (p50 and p99 of
//! their round trips, timed by the client), then lets a number of callers loop on the one
//! session for a fixed time (calls/s). Every answer is checked.

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_kit::{Manager, Session};
use mcp_test_support::ServerProcess;
use serde_json::{Map, Value, json};

use super::setup::{self, Programs, Upstream, Upstreams};
use crate::load::{percentile_us, procfs};

/// The message `echo` sends back.
const MESSAGE: &str = "hello from mcpx-bench";

/// The upstream's name in mcpx's configuration.
const UPSTREAM: &str = "example";

/// How much each measurement calls.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Runs; medians are reported.
    pub runs: usize,
    /// Sequential calls before the timed ones.
    pub warmup_calls: usize,
    /// Timed sequential calls.
    pub calls: usize,
    /// Concurrent callers on one session.
    pub callers: usize,
    /// Concurrent calls before counting.
    pub warmup: Duration,
    /// Counted time of the concurrent calls.
    pub measure: Duration,
}

/// How the client reaches the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// Child processes.
    Stdio,
    /// Streamable HTTP on 127.0.0.1.
    Http,
}

/// Directly, or through mcpx.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// `tools/call` of `echo` on the example server.
    Direct,
    /// `tools/call` of `exec` on mcpx, which calls `echo` upstream.
    Mcpx,
}

/// One run of one path.
#[derive(Debug, Clone, Copy)]
pub struct Run {
    /// Median sequential round trip, µs.
    pub p50_us: f64,
    /// 99th percentile, µs.
    pub p99_us: f64,
    /// Calls/s of the concurrent callers.
    pub rate: f64,
    /// CPU time (user + system) of the mcpx process per call of the concurrent callers, µs
    /// (through mcpx only).
    pub mcpx_cpu_us: Option<f64>,
}

/// Every run of one transport and route.
#[derive(Debug, Clone)]
pub struct PathRuns {
    /// The transport.
    pub transport: Transport,
    /// The route.
    pub route: Route,
    /// The protocol version the client negotiated.
    pub protocol: String,
    /// One per run.
    pub runs: Vec<Run>,
}

/// A session and the call it repeats.
struct Caller {
    session: Arc<Session>,
    tool: &'static str,
    arguments: Map<String, Value>,
}

impl Caller {
    fn new(session: Arc<Session>, route: Route) -> Self {
        let echo = json!({ "message": MESSAGE });
        let (tool, arguments) = match route {
            Route::Direct => ("echo", echo),
            Route::Mcpx => (
                "exec",
                json!({ "server_name": UPSTREAM, "tool_name": "echo", "arguments": echo }),
            ),
        };
        let Value::Object(arguments) = arguments else {
            unreachable!("json! of an object")
        };
        Self {
            session,
            tool,
            arguments,
        }
    }

    /// One call, its answer checked.
    async fn call(&self) -> Result<(), String> {
        let result = self
            .session
            .call_tool(self.tool, Some(self.arguments.clone()))
            .await
            .map_err(|e| format!("{}: {e}", self.tool))?;
        let text = result.content.first().and_then(|b| b.as_text());
        if result.is_error() || text != Some(MESSAGE) {
            return Err(format!(
                "{}: unexpected answer {}",
                self.tool,
                serde_json::to_string(&result).unwrap_or_default()
            ));
        }
        Ok(())
    }

    /// p50 and p99 of `calls` sequential round trips after `warmup` untimed ones, µs.
    async fn sequential(&self, warmup: usize, calls: usize) -> Result<(f64, f64), String> {
        for _ in 0..warmup {
            self.call().await?;
        }
        let mut latencies = Vec::with_capacity(calls);
        for _ in 0..calls {
            let start = Instant::now();
            self.call().await?;
            latencies.push(u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX));
        }
        latencies.sort_unstable();
        Ok((
            percentile_us(&latencies, 50.0),
            percentile_us(&latencies, 99.0),
        ))
    }
}

/// Calls/s of `callers` tasks looping on `caller` for `measure`, after `warmup` (calls that
/// end within the measured time count), and the CPU time process `pid` spent per counted
/// call, µs.
async fn concurrent(
    caller: &Arc<Caller>,
    settings: &Settings,
    pid: Option<u32>,
) -> Result<(f64, Option<f64>), String> {
    let from = Instant::now() + settings.warmup;
    let until = from + settings.measure;
    let cpu = || pid.and_then(|pid| procfs::cpu_seconds(pid).ok());
    let tasks: Vec<_> = (0..settings.callers)
        .map(|_| {
            let caller = caller.clone();
            tokio::spawn(async move {
                let mut counted = 0_u64;
                while Instant::now() < until {
                    caller.call().await?;
                    let done = Instant::now();
                    if done >= from && done <= until {
                        counted += 1;
                    }
                }
                Ok::<u64, String>(counted)
            })
        })
        .collect();
    tokio::time::sleep_until(from.into()).await;
    let cpu_from = cpu();
    tokio::time::sleep_until(until.into()).await;
    let cpu_until = cpu();
    let mut total = 0;
    for task in tasks {
        total += task.await.map_err(|e| e.to_string())??;
    }
    let cpu_us = match (cpu_from, cpu_until) {
        (Some(from), Some(until)) if total > 0 => Some((until - from) * 1e6 / total as f64),
        _ => None,
    };
    Ok((total as f64 / settings.measure.as_secs_f64(), cpu_us))
}

/// The clients of one transport, and what keeps its servers running.
struct Bench {
    transport: Transport,
    direct: (Manager, Arc<Session>),
    mcpx: (Manager, Arc<Session>),
    /// The mcpx process.
    mcpx_pid: Option<u32>,
    _servers: Vec<ServerProcess>,
}

impl Bench {
    async fn stdio(programs: &Programs) -> Result<Self, String> {
        let upstreams: Upstreams =
            vec![(UPSTREAM.into(), Upstream::stdio([&programs.example_server]))];
        let config = setup::write_mcpx_config("latency-stdio", &upstreams)?;
        let through: Upstreams = vec![("mcpx".into(), setup::mcpx_stdio(programs, &config))];
        let mcpx = connect(&through, "mcpx").await?;
        Ok(Self {
            transport: Transport::Stdio,
            direct: connect(&upstreams, UPSTREAM).await?,
            mcpx,
            mcpx_pid: procfs::child_running(&programs.mcpx),
            _servers: Vec::new(),
        })
    }

    async fn http(programs: &Programs) -> Result<Self, String> {
        let example = setup::example_http(programs).await;
        let upstreams: Upstreams = vec![(UPSTREAM.into(), Upstream::Http(example.url.clone()))];
        let config = setup::write_mcpx_config("latency-http", &upstreams)?;
        let mcpx = setup::mcpx_http(programs, &config).await;
        let through: Upstreams = vec![("mcpx".into(), Upstream::Http(mcpx.url.clone()))];
        Ok(Self {
            transport: Transport::Http,
            direct: connect(&upstreams, UPSTREAM).await?,
            mcpx: connect(&through, "mcpx").await?,
            mcpx_pid: mcpx.child.id(),
            _servers: vec![example, mcpx],
        })
    }
}

async fn connect(upstreams: &Upstreams, name: &str) -> Result<(Manager, Arc<Session>), String> {
    let client = setup::client(upstreams);
    let session = setup::session(&client, name).await?;
    Ok((client, session))
}

/// Runs every measurement over both transports; progress goes to stderr.
pub async fn measure(programs: &Programs, settings: &Settings) -> Result<Vec<PathRuns>, String> {
    let mut paths = Vec::new();
    for transport in [Transport::Stdio, Transport::Http] {
        let bench = match transport {
            Transport::Stdio => Bench::stdio(programs).await?,
            Transport::Http => Bench::http(programs).await?,
        };
        let routes = [(Route::Direct, &bench.direct), (Route::Mcpx, &bench.mcpx)];
        let callers: Vec<(Route, Arc<Caller>)> = routes
            .iter()
            .map(|(route, (_, session))| (*route, Arc::new(Caller::new(session.clone(), *route))))
            .collect();
        let mut runs = vec![Vec::new(), Vec::new()];
        for run in 1..=settings.runs {
            let mut sequential = Vec::new();
            for (route, caller) in &callers {
                let (p50, p99) = caller
                    .sequential(settings.warmup_calls, settings.calls)
                    .await?;
                eprintln!("run {run}: {transport:?} {route:?}: p50 {p50:.1} µs, p99 {p99:.1} µs");
                sequential.push((p50, p99));
            }
            for (i, (route, caller)) in callers.iter().enumerate() {
                let pid = bench.mcpx_pid.filter(|_| *route == Route::Mcpx);
                let (rate, mcpx_cpu_us) = concurrent(caller, settings, pid).await?;
                eprintln!(
                    "run {run}: {transport:?} {route:?}: {} callers, {rate:.0} calls/s, mcpx \
                     CPU {mcpx_cpu_us:.1?} µs/call",
                    settings.callers
                );
                let (p50_us, p99_us) = sequential[i];
                runs[i].push(Run {
                    p50_us,
                    p99_us,
                    rate,
                    mcpx_cpu_us,
                });
            }
        }
        for ((route, (_, session)), runs) in routes.iter().zip(runs) {
            paths.push(PathRuns {
                transport: bench.transport,
                route: *route,
                protocol: session.protocol_version().to_owned(),
                runs,
            });
        }
    }
    Ok(paths)
}
