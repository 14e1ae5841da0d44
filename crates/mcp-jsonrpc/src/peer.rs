//! [`Peer`]: one connection, with the constructors of every stream transport.

use std::ffi::OsStr;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::process::{Child, Command};
use tokio::sync::mpsc;

use crate::connection::{InboundReceivers, PeerStats, Shared};
use crate::handle::{PeerHandle, PendingRequest};
use crate::incoming::IncomingRequest;
use crate::message::Notification;
use crate::stderr_tail::{ChildExit, StderrTail};
use crate::stdout_log::StdoutLogWriter;
use crate::stream::{self, AfterClose};
use crate::{BASELINE_ENV_VARS, Error, SpawnOptions, StderrMode};

/// A JSON-RPC connection to one peer, possibly with the child process serving it.
///
/// Requests and notifications go out through [`request`](Self::request) and
/// [`notify`](Self::notify) (or a cloned [`PeerHandle`]); what the peer sends on its own
/// arrives in two bounded queues, [`take_requests`](Self::take_requests) and
/// [`take_notifications`](Self::take_notifications). Dropping the `Peer` closes the
/// connection (and kills a child spawned with `kill_on_drop`).
pub struct Peer {
    handle: PeerHandle,
    child: Option<Child>,
    stderr: Option<Arc<StderrTail>>,
    requests: Option<mpsc::Receiver<IncomingRequest>>,
    notifications: Option<mpsc::Receiver<Notification>>,
}

impl std::fmt::Debug for Peer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Peer")
            .field("child", &self.child.as_ref().and_then(Child::id))
            .field("closed", &self.handle.close_reason())
            .finish_non_exhaustive()
    }
}

impl Peer {
    pub(crate) fn from_parts(
        shared: Arc<Shared>,
        receivers: InboundReceivers,
        child: Option<Child>,
    ) -> Self {
        Self {
            handle: PeerHandle { shared },
            child,
            stderr: None,
            requests: Some(receivers.requests),
            notifications: Some(receivers.notifications),
        }
    }

    // ----- constructors -----------------------------------------------------------------------

    /// Spawns `program` with `args` and talks JSON-RPC over its stdin/stdout.
    pub async fn spawn<S: AsRef<OsStr>>(
        program: impl AsRef<OsStr>,
        args: &[S],
    ) -> Result<Self, Error> {
        Self::spawn_with_options(program, args, SpawnOptions::default()).await
    }

    /// Spawns a child with options: environment (`env`, `inherit_env`), `cwd`,
    /// `kill_on_drop`, stderr handling, limits and stdout log.
    pub async fn spawn_with_options<S: AsRef<OsStr>>(
        program: impl AsRef<OsStr>,
        args: &[S],
        options: SpawnOptions,
    ) -> Result<Self, Error> {
        let mut command = Command::new(program.as_ref());
        command.args(args);
        if !options.inherit_env {
            command.env_clear();
            for name in BASELINE_ENV_VARS {
                if let Some(value) = std::env::var_os(name) {
                    command.env(name, value);
                }
            }
        }
        command.envs(options.env.iter().map(|(k, v)| (k, v)));
        if let Some(cwd) = &options.cwd {
            command.current_dir(cwd);
        }
        Self::spawn_command(command, options).await
    }

    /// Spawns a prepared command. Its stdin and stdout are replaced by pipes; `kill_on_drop`
    /// and `stderr` are taken from `options` (the environment and directory are the
    /// command's own).
    pub async fn spawn_command(mut command: Command, options: SpawnOptions) -> Result<Self, Error> {
        let program = command
            .as_std()
            .get_program()
            .to_string_lossy()
            .into_owned();
        if program.is_empty() {
            return Err(Error::InvalidArgument(
                "the program to spawn is empty".into(),
            ));
        }
        let log = options
            .stdout_log
            .as_ref()
            .map(StdoutLogWriter::open)
            .transpose()?;
        if options.own_process_group {
            command.process_group(0);
        }
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(match options.stderr {
                StderrMode::Inherit => Stdio::inherit(),
                StderrMode::Null => Stdio::null(),
                StderrMode::Capture { .. } => Stdio::piped(),
            })
            .kill_on_drop(options.kill_on_drop);
        let mut child = command
            .spawn()
            .map_err(|e| Error::io(format!("failed to spawn `{program}`"), e))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(Error::InvalidArgument("child pipes are missing".into()));
        };
        let stderr = match (options.stderr, child.stderr.take()) {
            (StderrMode::Capture { echo }, Some(stderr)) => Some(StderrTail::start(stderr, echo)),
            _ => None,
        };
        let (shared, receivers) = stream::start(
            stdout,
            stdin,
            options.limits,
            options.wire,
            log,
            AfterClose::DrainUntilEof,
        );
        let mut peer = Self::from_parts(shared, receivers, Some(child));
        peer.stderr = stderr;
        Ok(peer)
    }

    /// Connects to a server listening on a unix domain socket.
    pub async fn connect_unix(path: impl AsRef<Path>) -> Result<Self, Error> {
        Self::connect_unix_with_options(path, SpawnOptions::default()).await
    }

    /// Connects to a unix domain socket with options (limits, stdout log).
    pub async fn connect_unix_with_options(
        path: impl AsRef<Path>,
        options: SpawnOptions,
    ) -> Result<Self, Error> {
        let path = path.as_ref();
        let socket = tokio::net::UnixStream::connect(path).await.map_err(|e| {
            Error::io(
                format!("failed to connect to unix socket {}", path.display()),
                e,
            )
        })?;
        let (read, write) = socket.into_split();
        Self::connect_io_with_options(read, write, options).await
    }

    /// Talks JSON-RPC over any reader/writer pair (newline-delimited, as on stdio).
    pub async fn connect_io<R, W>(read: R, write: W) -> Result<Self, Error>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        Self::connect_io_with_options(read, write, SpawnOptions::default()).await
    }

    /// [`connect_io`](Self::connect_io) with options (limits, stdout log).
    pub async fn connect_io_with_options<R, W>(
        read: R,
        write: W,
        options: SpawnOptions,
    ) -> Result<Self, Error>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let log = options
            .stdout_log
            .as_ref()
            .map(StdoutLogWriter::open)
            .transpose()?;
        let (shared, receivers) = stream::start(
            read,
            write,
            options.limits,
            options.wire,
            log,
            AfterClose::DrainBriefly,
        );
        Ok(Self::from_parts(shared, receivers, None))
    }

    /// Connects to a streamable HTTP MCP endpoint (one URL for GET and POST).
    #[cfg(feature = "http")]
    pub async fn connect_streamable_http(url: &str) -> Result<Self, Error> {
        Self::connect_streamable_http_with_options(
            url,
            crate::StreamableHttpOptions::default(),
            SpawnOptions::default(),
        )
        .await
    }

    /// Connects with options. Of `options`, `limits` and `stdout_log` apply (the log records
    /// every message received).
    #[cfg(feature = "http")]
    pub async fn connect_streamable_http_with_options(
        url: &str,
        http_options: crate::StreamableHttpOptions,
        options: SpawnOptions,
    ) -> Result<Self, Error> {
        Self::connect_streamable_http_split_with_options(url, url, http_options, options).await
    }

    /// Connects to a server of the legacy HTTP+SSE transport (protocol version 2024-11-05):
    /// `url` is its SSE endpoint (often `…/sse`), whose first event names the URL messages
    /// are POSTed to. Of `http_options`, `headers`, `connect_timeout` (the GET and its
    /// `endpoint` event), `request_timeout` (each POST) and `follow_redirects` apply; of
    /// `options`, `limits`, `stdout_log` and `wire`.
    #[cfg(feature = "http")]
    pub async fn connect_legacy_sse_with_options(
        url: &str,
        http_options: crate::StreamableHttpOptions,
        options: SpawnOptions,
    ) -> Result<Self, Error> {
        let (shared, receivers) = crate::http::legacy::connect(url, http_options, options).await?;
        Ok(Self::from_parts(shared, receivers, None))
    }

    /// Connects with separate URLs for the GET SSE stream and for POSTs.
    #[cfg(feature = "http")]
    pub async fn connect_streamable_http_split_with_options(
        sse_url: &str,
        http_url: &str,
        http_options: crate::StreamableHttpOptions,
        options: SpawnOptions,
    ) -> Result<Self, Error> {
        let (shared, receivers) =
            crate::http::connect(sse_url, http_url, http_options, options).await?;
        Ok(Self::from_parts(shared, receivers, None))
    }

    // ----- messaging ----------------------------------------------------------------------------

    /// A cloneable handle for sending from other tasks.
    pub fn handle(&self) -> PeerHandle {
        self.handle.clone()
    }

    /// Sends a request and waits for its result (see [`PeerHandle::request`]).
    pub async fn request(&self, method: &str, params: Option<Value>) -> Result<Value, Error> {
        self.handle.request(method, params).await
    }

    /// Sends a request and returns the raw result (see [`PeerHandle::request_raw`]).
    pub async fn request_raw<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: Option<&P>,
    ) -> Result<Box<RawValue>, Error> {
        self.handle.request_raw(method, params).await
    }

    /// Sends a request and deserializes its result (see [`PeerHandle::request_as`]).
    pub async fn request_as<P: Serialize + ?Sized, R: DeserializeOwned>(
        &self,
        method: &str,
        params: Option<&P>,
    ) -> Result<R, Error> {
        self.handle.request_as(method, params).await
    }

    /// Sends a request and returns once it is queued (see [`PeerHandle::start_request`]).
    pub async fn start_request<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: Option<&P>,
    ) -> Result<PendingRequest, Error> {
        self.handle.start_request(method, params).await
    }

    /// Sends a notification (see [`PeerHandle::notify`]).
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), Error> {
        self.handle.notify(method, params).await
    }

    /// Takes the queue of requests the peer sends to us. Until it is taken they wait in the
    /// queue (up to `requests_capacity`, then `-32000 client overloaded`); once taken and
    /// dropped, new ones are answered `-32601 Method not found`.
    pub fn take_requests(&mut self) -> Option<mpsc::Receiver<IncomingRequest>> {
        self.requests.take()
    }

    /// Takes the queue of notifications the peer sends. Notifications beyond
    /// `notifications_capacity` are dropped and counted.
    pub fn take_notifications(&mut self) -> Option<mpsc::Receiver<Notification>> {
        self.notifications.take()
    }

    /// Counters of discarded or refused input.
    pub fn stats(&self) -> PeerStats {
        self.handle.stats()
    }

    /// True once the connection is closed.
    pub fn is_closed(&self) -> bool {
        self.handle.is_closed()
    }

    /// Closes the connection (see [`PeerHandle::close`]); on streamable HTTP the session is
    /// also ended with `DELETE`.
    pub async fn close(&mut self) {
        self.handle.close();
        if let Some(transport) = self.handle.shared.transport() {
            transport.end_session().await;
        }
    }

    // ----- the child --------------------------------------------------------------------------

    /// The child process, if this connection spawned one and it was not taken.
    pub fn child(&self) -> Option<&Child> {
        self.child.as_ref()
    }

    /// How the spawned child ended, for an error about it: waits up to `grace` for it to
    /// exit (without closing the connection or killing it) and, meanwhile, for its captured
    /// stderr to end, then gives its exit status (if it exited) and its last stderr lines (with
    /// [`StderrMode::Capture`]). `None` when there is no child.
    pub async fn child_exit(&mut self, grace: Duration) -> Option<ChildExit> {
        let child = self.child.as_mut()?;
        // Both waits at once, so that the whole takes at most `grace`.
        let exited = tokio::time::timeout(grace, child.wait());
        let stderr_ended = async {
            if let Some(tail) = &self.stderr {
                tail.wait_for_end(grace).await;
            }
        };
        let (status, ()) = tokio::join!(exited, stderr_ended);
        Some(ChildExit {
            status: status.ok().and_then(Result::ok),
            stderr_tail: self
                .stderr
                .as_ref()
                .map(|tail| tail.lines())
                .unwrap_or_default(),
        })
    }

    /// Takes ownership of the child process (for example after
    /// [`WaitOnTimeout::ReturnError`]).
    pub fn take_child(&mut self) -> Option<Child> {
        self.child.take()
    }

    /// Closes the connection (the child sees end of file on stdin) and waits for the child to
    /// exit. Returns `Ok(None)` when there is no child (unix, io and HTTP connections, or the
    /// child was taken). This can wait forever for a child that ignores end of file: see
    /// [`wait_with_timeout`](Self::wait_with_timeout).
    pub async fn wait(&mut self) -> Result<Option<ExitStatus>, Error> {
        self.close().await;
        match &mut self.child {
            None => Ok(None),
            Some(child) => child
                .wait()
                .await
                .map(Some)
                .map_err(|e| Error::io("failed to wait for the child", e)),
        }
    }

    /// Like [`wait`](Self::wait), bounded by `timeout`; then `on_timeout` decides.
    pub async fn wait_with_timeout(
        &mut self,
        timeout: Duration,
        on_timeout: WaitOnTimeout,
    ) -> Result<Option<ExitStatus>, Error> {
        self.close().await;
        let Some(child) = &mut self.child else {
            return Ok(None);
        };
        match tokio::time::timeout(timeout, child.wait()).await {
            Ok(status) => status
                .map(Some)
                .map_err(|e| Error::io("failed to wait for the child", e)),
            Err(_) => match on_timeout {
                WaitOnTimeout::ReturnError => Err(Error::WaitTimeout(timeout)),
                WaitOnTimeout::Kill { kill_timeout } => {
                    if let Err(e) = child.start_kill() {
                        // Already exited between the timeout and the kill.
                        if e.kind() != std::io::ErrorKind::InvalidInput {
                            return Err(Error::io("failed to kill the child", e));
                        }
                    }
                    match tokio::time::timeout(kill_timeout, child.wait()).await {
                        Ok(status) => status
                            .map(Some)
                            .map_err(|e| Error::io("failed to wait for the child", e)),
                        Err(_) => Err(Error::WaitTimeout(timeout + kill_timeout)),
                    }
                }
            },
        }
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        self.handle.shared.close("the client was dropped");
        if let Some(transport) = self.handle.shared.transport() {
            transport.end_session_detached();
        }
    }
}

/// What [`Peer::wait_with_timeout`] does when the child has not exited in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitOnTimeout {
    /// Return [`Error::WaitTimeout`] and leave the child running (see [`Peer::take_child`]).
    ReturnError,
    /// Kill the child, then wait up to `kill_timeout` more for it to exit.
    Kill {
        /// How long to wait after the kill.
        kill_timeout: Duration,
    },
}
