//! Resident memory per session of a stateful HTTP (or WebSocket) server.
//!
//! - *Connected*: `n` sessions, each `initialize`d on its own keep-alive connection (or
//!   WebSocket connection), which stays open and idle.
//! - *Idle*: `n` sessions `initialize`d over a few connections that are then closed: what a
//!   session costs while its client is away.
//!
//! Both start a fresh server, open one session and call `echo` once (so that lazily
//! allocated state is there before the baseline), read `VmRSS`, open the `n` sessions, wait
//! half a second and read `VmRSS` again: the difference divided by `n`.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Mutex;

use super::mcp::{self, Protocol, Tool};
use super::procfs;
use super::server::{Running, ServerSpec, Transport};
use super::ws::WsSession;
use super::{ClosedLoop as _, HttpSession};

/// Connections the idle sessions are created over.
const IDLE_CONNECTIONS: usize = 16;
/// Sessions set up at the same time in the connected measurement.
const CONNECT_PARALLEL: usize = 32;

/// One memory measurement.
#[derive(Debug, Clone, Copy, Default)]
pub struct MemorySample {
    /// Sessions opened.
    pub sessions: usize,
    /// `VmRSS` before, KiB.
    pub before_kib: u64,
    /// `VmRSS` after, KiB.
    pub after_kib: u64,
    /// Open file descriptors of the server after.
    pub server_fds: usize,
    /// Time it took to open the sessions.
    pub setup: Duration,
}

impl MemorySample {
    /// KiB per session.
    pub fn per_session_kib(&self) -> f64 {
        (self.after_kib as f64 - self.before_kib as f64) / self.sessions.max(1) as f64
    }
}

/// A stateful session held open: streamable HTTP or WebSocket.
enum Held {
    Http(HttpSession),
    Ws(WsSession),
}

impl Held {
    /// Opens a stateful session over `transport`.
    async fn open(transport: Transport, addr: SocketAddr) -> Result<Self, String> {
        match transport {
            Transport::WebSocket => WsSession::open(addr).await.map(Held::Ws),
            _ => HttpSession::open(addr, Protocol::Stateful, Tool::Echo)
                .await
                .map(Held::Http),
        }
    }

    /// Sends a request and waits for its answer (not checked).
    async fn exchange(&mut self, body: &[u8]) -> Result<(), String> {
        match self {
            Held::Http(session) => session.exchange(body).await,
            Held::Ws(session) => session.exchange(body).await,
        }
    }
}

/// Starts the server, opens one session, calls `echo`, returns the server and its `VmRSS`.
async fn baseline(
    spec: &ServerSpec,
    log_dir: &std::path::Path,
) -> Result<(Running, Held, u64), String> {
    let server = spec.start(log_dir).await?;
    let addr = server.addr.ok_or("not an HTTP server")?;
    let mut warm = Held::open(spec.transport, addr).await?;
    let mut body = Vec::new();
    mcp::call_body(&mut body, 1, Tool::Echo, "warm", Protocol::Stateful);
    warm.exchange(&body).await?;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let rss = procfs::status_kib(server.pid, "VmRSS").map_err(|e| e.to_string())?;
    Ok((server, warm, rss))
}

/// Reads `VmRSS` and the open descriptors after the sessions settled.
async fn settled(server: &Running) -> Result<(u64, usize), String> {
    tokio::time::sleep(Duration::from_millis(500)).await;
    let rss = procfs::status_kib(server.pid, "VmRSS").map_err(|e| e.to_string())?;
    let fds = procfs::open_fds(server.pid).map_err(|e| e.to_string())?;
    Ok((rss, fds))
}

/// Waits for the workers that open the sessions, reads the server's memory once they settled,
/// and stops the server.
async fn finish(
    server: Running,
    workers: Vec<tokio::task::JoinHandle<Result<(), String>>>,
    started: Instant,
    n: usize,
    before_kib: u64,
) -> Result<MemorySample, String> {
    for worker in workers {
        worker.await.map_err(|e| e.to_string())??;
    }
    let setup = started.elapsed();
    let (after_kib, server_fds) = settled(&server).await?;
    server.stop().await;
    Ok(MemorySample {
        sessions: n,
        before_kib,
        after_kib,
        server_fds,
        setup,
    })
}

/// Memory per connected session (`n` sessions, `n` open idle connections; one WebSocket
/// connection is one session).
pub async fn connected(
    spec: &ServerSpec,
    log_dir: &std::path::Path,
    n: usize,
) -> Result<MemorySample, String> {
    let (server, warm, before_kib) = baseline(spec, log_dir).await?;
    let addr = server.addr.ok_or("not an HTTP server")?;
    let transport = spec.transport;
    let started = Instant::now();
    let sessions = Arc::new(Mutex::new(Vec::with_capacity(n)));
    let mut workers = Vec::new();
    for worker in 0..CONNECT_PARALLEL {
        let sessions = sessions.clone();
        workers.push(tokio::spawn(async move {
            let mut index = worker;
            while index < n {
                let session = Held::open(transport, addr).await?;
                sessions.lock().await.push(session);
                index += CONNECT_PARALLEL;
            }
            Ok::<(), String>(())
        }));
    }
    let sample = finish(server, workers, started, n, before_kib).await;
    drop((warm, sessions));
    sample
}

/// Memory per idle session (`n` sessions whose connections were closed).
pub async fn idle(
    spec: &ServerSpec,
    log_dir: &std::path::Path,
    n: usize,
) -> Result<MemorySample, String> {
    let (server, warm, before_kib) = baseline(spec, log_dir).await?;
    let addr = server.addr.ok_or("not an HTTP server")?;
    let started = Instant::now();
    let mut workers = Vec::new();
    for worker in 0..IDLE_CONNECTIONS {
        workers.push(tokio::spawn(async move {
            let mut session = HttpSession::open(addr, Protocol::Stateful, Tool::Echo).await?;
            let mut index = worker + IDLE_CONNECTIONS;
            while index < n {
                session.initialize().await?;
                index += IDLE_CONNECTIONS;
            }
            // The connection closes here; the sessions stay on the server.
            Ok::<(), String>(())
        }));
    }
    let sample = finish(server, workers, started, n, before_kib).await;
    drop(warm);
    sample
}
