//! Shutdown from outside the program: SIGINT and SIGTERM (Ctrl-C on other systems), and the
//! grace period that requests in flight get once shutdown began.

use std::io;

use crate::Server;

impl Server {
    /// Calls [`Server::shutdown`] on the first SIGINT or SIGTERM (Ctrl-C where there are no
    /// Unix signals), so that an operator's `kill`, `docker stop` or Ctrl-C stops the server
    /// gracefully: listeners stop accepting, requests in flight finish (over HTTP within
    /// [`HttpOptions::shutdown_grace`](crate::HttpOptions::shutdown_grace)), streams end, and
    /// `serve_*` return `Ok`, so `main` returns and the process exits with status 0.
    ///
    /// A second signal exits the process at once (status 130 for SIGINT, 143 for SIGTERM), for
    /// the operator who does not want to wait.
    ///
    /// The handlers are installed before this returns, so a signal that arrives right after is
    /// not lost. Call it once, inside a Tokio runtime.
    ///
    /// ```no_run
    /// # async fn run(server: mcp_server::Server) -> std::io::Result<()> {
    /// server.shutdown_on_signals()?;
    /// server.serve_http(("127.0.0.1", 8080)).await // returns after SIGTERM
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// When the signal handlers cannot be installed.
    pub fn shutdown_on_signals(&self) -> io::Result<()> {
        let mut signals = Signals::install()?;
        let server = self.clone();
        tokio::spawn(async move {
            let first = signals.recv().await;
            eprintln!("MCP server: {} received, shutting down", first.name);
            tracing::info!(signal = first.name, "shutting down");
            server.shutdown();
            let second = signals.recv().await;
            eprintln!("MCP server: {} received again, exiting now", second.name);
            std::process::exit(second.exit_status);
        });
        Ok(())
    }
}

/// A signal that was received.
struct Received {
    name: &'static str,
    /// The status a shell reports for a process killed by it (128 + its number).
    exit_status: i32,
}

#[cfg(unix)]
struct Signals {
    interrupt: tokio::signal::unix::Signal,
    terminate: tokio::signal::unix::Signal,
}

#[cfg(unix)]
impl Signals {
    fn install() -> io::Result<Self> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Self {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
        })
    }

    async fn recv(&mut self) -> Received {
        tokio::select! {
            _ = self.interrupt.recv() => Received { name: "SIGINT", exit_status: 130 },
            _ = self.terminate.recv() => Received { name: "SIGTERM", exit_status: 143 },
        }
    }
}

#[cfg(not(unix))]
struct Signals;

#[cfg(not(unix))]
impl Signals {
    fn install() -> io::Result<Self> {
        Ok(Self)
    }

    async fn recv(&mut self) -> Received {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::error!("waiting for Ctrl-C failed: {e}");
            std::future::pending::<()>().await;
        }
        Received {
            name: "Ctrl-C",
            exit_status: 130,
        }
    }
}

/// Runs `serving` (a listener with graceful shutdown) to its end, but not for longer than
/// `grace` once shutdown began: then the connections still busy are abandoned (they end with
/// the process) and serving counts as finished.
#[cfg(feature = "http")]
pub(crate) async fn within_grace(
    server: &Server,
    grace: std::time::Duration,
    serving: impl IntoFuture<Output = io::Result<()>>,
) -> io::Result<()> {
    tokio::select! {
        served = serving => served,
        () = async {
            server.shutting_down().await;
            tokio::time::sleep(grace).await;
        } => {
            tracing::warn!(
                "requests were still in flight {grace:?} after shutdown began \
                 (HttpOptions::shutdown_grace); they are abandoned"
            );
            eprintln!(
                "MCP server: requests still in flight after the shutdown grace period of \
                 {grace:?} were abandoned"
            );
            Ok(())
        }
    }
}
