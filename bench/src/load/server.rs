//! The servers under test: how each is started, reached and stopped.

use std::fs::File;
use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::process::{Child, Command};

use super::mcp::Protocol;

/// How the generator talks to a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Transport {
    /// A child process, one JSON-RPC message per line.
    Stdio,
    /// Streamable HTTP at `http://127.0.0.1:{port}/mcp`.
    Http,
    /// WebSocket at `ws://127.0.0.1:{port}/ws`, served by the same process as streamable HTTP.
    WebSocket,
}

impl Transport {
    /// Whether the server listens on a port (HTTP and WebSocket) rather than being a child
    /// talked to over its stdin and stdout.
    pub fn listens(self) -> bool {
        matches!(self, Transport::Http | Transport::WebSocket)
    }
}

/// One server configuration of the comparison.
#[derive(Debug, Clone)]
pub struct ServerSpec {
    /// Short unique key (`ours-http`, `rmcp-stdio`, …): log file names, `--only` filters.
    pub key: &'static str,
    /// Who wrote it (`mcp-server`, `rmcp 3.9`, …).
    pub implementation: &'static str,
    /// How it is configured (`stateful, JSON responses`, …).
    pub mode: &'static str,
    /// The transport.
    pub transport: Transport,
    /// How requests are framed.
    pub protocol: Protocol,
    /// The executable.
    pub program: PathBuf,
    /// Its arguments; for HTTP and WebSocket, `{port}` is replaced by the port.
    pub args: Vec<String>,
}

/// A running server process.
#[derive(Debug)]
pub struct Running {
    /// The child.
    pub child: Child,
    /// Its process id (the server itself: no shell in between).
    pub pid: u32,
    /// Its address (HTTP and WebSocket only).
    pub addr: Option<SocketAddr>,
    /// Where its stderr goes.
    pub log: PathBuf,
}

/// A port that was free a moment ago.
pub fn free_port() -> Result<u16, String> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    Ok(listener.local_addr().map_err(|e| e.to_string())?.port())
}

impl ServerSpec {
    /// Starts the server; stdin and stdout are piped (the stdio protocol), stderr goes to
    /// `log_dir/{key}.log`. A server that listens is waited for until it accepts connections.
    pub async fn start(&self, log_dir: &std::path::Path) -> Result<Running, String> {
        let port = if self.transport.listens() {
            Some(free_port()?)
        } else {
            None
        };
        let args: Vec<String> = self
            .args
            .iter()
            .map(|a| match port {
                Some(port) => a.replace("{port}", &port.to_string()),
                None => a.clone(),
            })
            .collect();
        std::fs::create_dir_all(log_dir)
            .map_err(|e| format!("creating {}: {e}", log_dir.display()))?;
        let log = log_dir.join(format!("{}.log", self.key));
        let stderr = File::create(&log).map_err(|e| format!("creating {}: {e}", log.display()))?;
        let mut command = Command::new(&self.program);
        command
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .kill_on_drop(true);
        if self.transport.listens() {
            command.stdout(Stdio::null()).stdin(Stdio::null());
        }
        let child = command.spawn().map_err(|e| {
            format!(
                "{}: cannot start {} ({e})",
                self.key,
                self.program.display()
            )
        })?;
        let pid = child
            .id()
            .ok_or_else(|| format!("{}: exited at once", self.key))?;
        let mut running = Running {
            child,
            pid,
            addr: port.map(|p| SocketAddr::from(([127, 0, 0, 1], p))),
            log,
        };
        if let Some(addr) = running.addr {
            running.wait_listening(addr, self.key).await?;
        }
        Ok(running)
    }
}

impl Running {
    /// Waits (up to 60 s) until `addr` accepts a connection.
    async fn wait_listening(&mut self, addr: SocketAddr, key: &str) -> Result<(), String> {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if tokio::net::TcpStream::connect(addr).await.is_ok() {
                return Ok(());
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!(
                    "{key}: exited ({status}) before listening on {addr}: {}",
                    self.log_tail()
                ));
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "{key}: not listening on {addr} after 60 s: {}",
                    self.log_tail()
                ));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The last lines of the server's stderr.
    pub fn log_tail(&self) -> String {
        log_tail(&self.log)
    }

    /// Stops the server: kills it and reaps it.
    pub async fn stop(mut self) {
        let _ = self.child.start_kill();
        let _ = tokio::time::timeout(Duration::from_secs(10), self.child.wait()).await;
    }
}

/// The last lines of a server's stderr, kept in the file `log`.
pub fn log_tail(log: &std::path::Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let tail = lines[lines.len().saturating_sub(8)..].join("\n");
    if tail.is_empty() {
        format!("(nothing on stderr, {})", log.display())
    } else {
        format!("stderr ({}):\n{tail}", log.display())
    }
}
