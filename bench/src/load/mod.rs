//! The load generator: drives the MCP servers of the comparison (ours, rmcp, the TypeScript
//! and Python SDKs, a plain axum endpoint) with `tools/call` requests for a fixed time and
//! counts only answers whose content was checked.
//!
//! - [`http`]: a minimal HTTP/1.1 client, one keep-alive connection per session.
//! - [`ws`]: a WebSocket session with our server's `/ws` endpoint.
//! - [`mcp`]: the requests and the checks of their answers.
//! - [`server`]: starting and stopping the servers.
//! - [`stdio`]: sequential and pipelined calls to a child over its stdin/stdout.
//! - [`memory`]: resident memory per connected and per idle session.
//! - [`procfs`]: CPU time and memory of a process from `/proc`.
//! - [`plan`]: the servers and scenarios of a run, and its results.
//! - [`sessions`]: the sessions of one closed-loop measurement, from opening to their latencies.

pub mod http;
pub mod mcp;
pub mod memory;
pub mod plan;
pub mod procfs;
pub mod server;
pub mod sessions;
pub mod stdio;
pub mod ws;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};

use self::http::{Connection, Response};
use self::mcp::{Protocol, Tool};
use self::sessions::{MEASURE, STOP, Sessions};
use self::ws::WsSession;
use crate::tools::{self, Blob};

/// How long a measurement warms up and then measures.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    /// Calls made but not counted, before the measurement.
    pub warmup: Duration,
    /// The measured time.
    pub measure: Duration,
}

/// One measurement: a tool called by a number of concurrent sessions (HTTP, WebSocket) or with
/// a number of requests in flight on one connection (stdio).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Scenario {
    /// The tool called.
    pub tool: Tool,
    /// Concurrent sessions (HTTP, WebSocket) or requests in flight (stdio).
    pub concurrency: usize,
}

/// The outcome of one measurement.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sample {
    /// Checked answers per second.
    pub rate: f64,
    /// Median latency of a call, microseconds.
    pub p50_us: f64,
    /// 99th percentile latency, microseconds.
    pub p99_us: f64,
    /// Server CPU time (user + system) per checked answer, microseconds.
    pub server_cpu_us: f64,
    /// The load generator's own CPU time per checked answer, microseconds.
    pub client_cpu_us: f64,
    /// Checked answers counted.
    pub requests: u64,
}

/// A session of the closed-loop measurements (HTTP, WebSocket): one call at a time.
pub trait ClosedLoop: Send + Sized + 'static {
    /// Sends the `tools/call` request `body` and waits for its answer: the timed part.
    fn exchange(&mut self, body: &[u8]) -> impl Future<Output = Result<(), String>> + Send;

    /// The JSON-RPC message that answers the last exchange, request `id` (`scratch` may hold
    /// it).
    fn answer<'a>(&'a self, id: u64, scratch: &'a mut Vec<u8>) -> Result<&'a [u8], String>;

    /// Ends the session.
    fn close(self) -> impl Future<Output = ()> + Send;
}

/// Percentile `p` (0–100) of sorted nanosecond latencies, in microseconds.
pub fn percentile_us(sorted_ns: &[u64], p: f64) -> f64 {
    if sorted_ns.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * sorted_ns.len() as f64).ceil() as usize;
    sorted_ns[rank.clamp(1, sorted_ns.len()) - 1] as f64 / 1_000.0
}

/// Builds a [`Sample`] from the latencies of the counted calls and the CPU seconds spent.
pub fn sample(
    mut latencies_ns: Vec<u64>,
    elapsed: Duration,
    server_cpu_s: f64,
    client_cpu_s: f64,
) -> Sample {
    latencies_ns.sort_unstable();
    let requests = latencies_ns.len() as u64;
    let per_request = |seconds: f64| {
        if requests == 0 {
            f64::NAN
        } else {
            seconds * 1e6 / requests as f64
        }
    };
    Sample {
        rate: requests as f64 / elapsed.as_secs_f64(),
        p50_us: percentile_us(&latencies_ns, 50.0),
        p99_us: percentile_us(&latencies_ns, 99.0),
        server_cpu_us: per_request(server_cpu_s),
        client_cpu_us: per_request(client_cpu_s),
        requests,
    }
}

/// An HTTP session after its handshake: the connection and the headers every call repeats.
pub struct HttpSession {
    /// The connection.
    pub connection: Connection,
    /// Headers of every call (`Mcp-Session-Id`, `MCP-Protocol-Version`, …).
    pub headers: Vec<(String, String)>,
    /// The server's address (to reconnect when it closes the connection).
    pub addr: SocketAddr,
    /// The response buffer.
    pub response: Response,
}

impl HttpSession {
    /// Connects and, for the stateful protocol, runs `initialize` and
    /// `notifications/initialized`. `tool` decides the `Mcp-Name` header of stateless calls.
    pub async fn open(addr: SocketAddr, protocol: Protocol, tool: Tool) -> Result<Self, String> {
        let connection = Connection::connect(addr)
            .await
            .map_err(|e| format!("connecting to {addr}: {e}"))?;
        let mut session = HttpSession {
            connection,
            headers: Vec::new(),
            addr,
            response: Response::default(),
        };
        match protocol {
            Protocol::Stateful => session.initialize().await?,
            Protocol::Stateless => {
                session.headers = vec![
                    ("MCP-Protocol-Version".into(), mcp::STATELESS_VERSION.into()),
                    ("Mcp-Method".into(), "tools/call".into()),
                    ("Mcp-Name".into(), tool.name().into()),
                ];
            }
            Protocol::StatelessLegacy => {
                session.headers =
                    vec![("MCP-Protocol-Version".into(), mcp::STATEFUL_VERSION.into())];
            }
            Protocol::Plain => {}
        }
        Ok(session)
    }

    /// `initialize` then `notifications/initialized`; keeps the session id and version (of
    /// the new session, when called again on the same connection).
    pub async fn initialize(&mut self) -> Result<(), String> {
        self.headers.clear();
        let body = mcp::initialize_body(0);
        self.post(&body).await?;
        if self.response.status != 200 {
            return Err(format!(
                "initialize: HTTP {} {}",
                self.response.status,
                mcp::preview(&self.response.body)
            ));
        }
        let session_id = self
            .response
            .session_id
            .clone()
            .ok_or("initialize: no Mcp-Session-Id in the answer")?;
        let mut scratch = Vec::new();
        let message = mcp::response_in(&self.response.body, self.response.sse, 0, &mut scratch)?;
        let version = mcp::initialize_version(message)?;
        self.headers = vec![
            ("Mcp-Session-Id".into(), session_id),
            ("MCP-Protocol-Version".into(), version),
        ];
        self.post(mcp::INITIALIZED_BODY).await?;
        if !(200..300).contains(&self.response.status) {
            return Err(format!(
                "notifications/initialized: HTTP {}",
                self.response.status
            ));
        }
        Ok(())
    }

    /// POSTs `body` to `/mcp` with the session's headers; the answer is in `self.response`.
    pub async fn post(&mut self, body: &[u8]) -> Result<(), String> {
        self.send("POST", body).await
    }

    /// Sends `method` with the session's headers.
    async fn send(&mut self, method: &str, body: &[u8]) -> Result<(), String> {
        if self.connection.closing() {
            self.connection = Connection::connect(self.addr)
                .await
                .map_err(|e| format!("reconnecting to {}: {e}", self.addr))?;
        }
        let headers: Vec<(&str, &str)> = self
            .headers
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        self.connection
            .send(method, "/mcp", &headers, body, &mut self.response)
            .await
            .map_err(|e| format!("{method} /mcp: {e}"))
    }

    /// Ends a stateful session with `DELETE` (the answer is not checked).
    pub async fn close(mut self) {
        if self.headers.iter().any(|(n, _)| n == "Mcp-Session-Id") {
            let _ = self.send("DELETE", b"").await;
        }
    }
}

impl ClosedLoop for HttpSession {
    fn exchange(&mut self, body: &[u8]) -> impl Future<Output = Result<(), String>> + Send {
        self.post(body)
    }

    fn answer<'a>(&'a self, id: u64, scratch: &'a mut Vec<u8>) -> Result<&'a [u8], String> {
        if self.response.status != 200 {
            return Err(format!(
                "tools/call: HTTP {} {}",
                self.response.status,
                mcp::preview(&self.response.body)
            ));
        }
        mcp::response_in(&self.response.body, self.response.sse, id, scratch)
    }

    fn close(self) -> impl Future<Output = ()> + Send {
        HttpSession::close(self)
    }
}

/// The loop of one session: call, check, count while measuring; until told to stop.
async fn run_session<S: ClosedLoop>(
    mut session: S,
    protocol: Protocol,
    tool: Tool,
    index: usize,
    phase: Arc<AtomicU8>,
    blob: Arc<Blob>,
) -> Result<Vec<u64>, String> {
    let mut latencies = Vec::with_capacity(1 << 16);
    let mut body = Vec::with_capacity(1024);
    let mut scratch = Vec::new();
    let mut message = String::with_capacity(32);
    let mut seq: u64 = 0;
    loop {
        let now_phase = phase.load(Ordering::Relaxed);
        if now_phase == STOP {
            break;
        }
        seq += 1;
        message.clear();
        {
            use std::fmt::Write as _;
            let _ = write!(message, "bench {index}-{seq}");
        }
        mcp::call_body(&mut body, seq, tool, &message, protocol);
        let started = Instant::now();
        session.exchange(&body).await?;
        let elapsed = started.elapsed();
        let answer = session.answer(seq, &mut scratch)?;
        mcp::check_call(answer, seq, tool, &message, &blob)?;
        if phase.load(Ordering::Relaxed) == MEASURE {
            latencies.push(elapsed.as_nanos() as u64);
        }
    }
    session.close().await;
    Ok(latencies)
}

/// Measures `scenario` against the HTTP server at `addr` (process `pid`): opens
/// `scenario.concurrency` sessions, lets each call the tool in a closed loop for the warm-up
/// and the measured time, and counts the checked answers of the measured time.
pub async fn measure_http(
    addr: SocketAddr,
    pid: u32,
    protocol: Protocol,
    scenario: Scenario,
    timing: Timing,
) -> Result<Sample, String> {
    measure_closed_loop(pid, protocol, scenario, timing, || {
        HttpSession::open(addr, protocol, scenario.tool)
    })
    .await
}

/// Measures `scenario` against the WebSocket endpoint of the server at `addr` (process
/// `pid`), as [`measure_http`] does: `scenario.concurrency` connections, each its own stateful
/// session, each calling in a closed loop.
pub async fn measure_ws(
    addr: SocketAddr,
    pid: u32,
    scenario: Scenario,
    timing: Timing,
) -> Result<Sample, String> {
    measure_closed_loop(pid, Protocol::Stateful, scenario, timing, || {
        WsSession::open(addr)
    })
    .await
}

/// Opens `scenario.concurrency` sessions with `open`, lets each call the tool in a closed loop
/// for the warm-up and the measured time, and counts the checked answers of the measured time.
async fn measure_closed_loop<S, F, Fut>(
    pid: u32,
    protocol: Protocol,
    scenario: Scenario,
    timing: Timing,
    open: F,
) -> Result<Sample, String>
where
    S: ClosedLoop,
    F: Fn() -> Fut,
    Fut: Future<Output = Result<S, String>> + Send + 'static,
{
    let blob = Arc::new(tools::blob());
    let tool = scenario.tool;
    let sessions = Sessions::open(
        scenario.concurrency,
        |_| open(),
        move |session, index, phase| {
            run_session(session, protocol, tool, index, phase, blob.clone())
        },
    )
    .await?;
    sessions.warm_up(timing.warmup).await;
    let (server_before, client_before) = cpu_pair(pid)?;
    let started = Instant::now();
    sessions.measure();
    tokio::time::sleep(timing.measure).await;
    sessions.stop();
    let elapsed = started.elapsed();
    let (server_after, client_after) = cpu_pair(pid)?;
    let latencies = sessions.latencies().await?;
    Ok(sample(
        latencies,
        elapsed,
        server_after - server_before,
        client_after - client_before,
    ))
}

/// CPU seconds of the server and of this process.
pub fn cpu_pair(pid: u32) -> Result<(f64, f64), String> {
    let server = procfs::cpu_seconds(pid).map_err(|e| format!("reading CPU of {pid}: {e}"))?;
    let client = procfs::cpu_seconds(std::process::id()).map_err(|e| e.to_string())?;
    Ok((server, client))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_of_a_known_list() {
        let sorted: Vec<u64> = (1..=100).map(|i| i * 1_000).collect();
        assert_eq!(percentile_us(&sorted, 50.0), 50.0);
        assert_eq!(percentile_us(&sorted, 99.0), 99.0);
        assert_eq!(percentile_us(&sorted[..1], 99.0), 1.0);
    }
}
