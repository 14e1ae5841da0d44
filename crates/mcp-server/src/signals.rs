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
    /// The returned [`Signals`] tells the program about each signal: the first (which has
    /// begun the shutdown by then), and a second one, for the operator who does not want to
    /// wait — the program then exits at once with [`Signal::exit_status`] (130 for SIGINT,
    /// 143 for SIGTERM). The library itself never prints or exits.
    ///
    /// The handlers are installed before this returns, so a signal that arrives right after is
    /// not lost. Call it once, inside a Tokio runtime.
    ///
    /// ```no_run
    /// # async fn run(server: mcp_server::Server) -> std::process::ExitCode {
    /// let mut signals = server.shutdown_on_signals().expect("signal handlers");
    /// let serving = server.serve_http(("127.0.0.1", 8080));
    /// tokio::pin!(serving);
    /// loop {
    ///     tokio::select! {
    ///         biased; // a signal is told before serving ends because of it
    ///         signal = signals.next() => {
    ///             if signal.again {
    ///                 return std::process::ExitCode::from(signal.exit_status);
    ///             }
    ///             eprintln!("{} received, shutting down", signal.name);
    ///         }
    ///         served = &mut serving => return match served {
    ///             Ok(()) => std::process::ExitCode::SUCCESS,
    ///             Err(_) => std::process::ExitCode::FAILURE,
    ///         },
    ///     }
    /// }
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// When the signal handlers cannot be installed.
    pub fn shutdown_on_signals(&self) -> io::Result<Signals> {
        let mut installed = Installed::install()?;
        let server = self.clone();
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(async move {
            let mut signal = installed.recv().await;
            tracing::info!(signal = signal.name, "shutting down");
            // Told before the shutdown begins, so the program hears of the signal before it
            // sees serving end.
            let _ = tx.send(signal);
            server.shutdown();
            loop {
                signal = installed.recv().await;
                signal.again = true;
                tracing::warn!(signal = signal.name, "received again during shutdown");
                if tx.send(signal).is_err() {
                    return;
                }
            }
        });
        Ok(Signals(rx))
    }
}

/// The signals [`Server::shutdown_on_signals`] handles, as they arrive.
#[derive(Debug)]
pub struct Signals(tokio::sync::mpsc::UnboundedReceiver<Signal>);

impl Signals {
    /// The next signal (never completes when the handlers are gone).
    pub async fn next(&mut self) -> Signal {
        match self.0.recv().await {
            Some(signal) => signal,
            None => std::future::pending().await,
        }
    }
}

/// A SIGINT or SIGTERM (or Ctrl-C) that was received.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Signal {
    /// `SIGINT`, `SIGTERM` or `Ctrl-C`.
    pub name: &'static str,
    /// The status a shell reports for a process ended by it (128 + its number).
    pub exit_status: u8,
    /// A second signal, after the first began the shutdown: the operator does not want to
    /// wait.
    pub again: bool,
}

#[cfg(unix)]
struct Installed {
    interrupt: tokio::signal::unix::Signal,
    terminate: tokio::signal::unix::Signal,
}

#[cfg(unix)]
impl Installed {
    fn install() -> io::Result<Self> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Self {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
        })
    }

    async fn recv(&mut self) -> Signal {
        let (name, exit_status) = tokio::select! {
            _ = self.interrupt.recv() => ("SIGINT", 130),
            _ = self.terminate.recv() => ("SIGTERM", 143),
        };
        Signal {
            name,
            exit_status,
            again: false,
        }
    }
}

#[cfg(not(unix))]
struct Installed;

#[cfg(not(unix))]
impl Installed {
    fn install() -> io::Result<Self> {
        Ok(Self)
    }

    async fn recv(&mut self) -> Signal {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::error!("waiting for Ctrl-C failed: {e}");
            std::future::pending::<()>().await;
        }
        Signal {
            name: "Ctrl-C",
            exit_status: 130,
            again: false,
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
            Ok(())
        }
    }
}
