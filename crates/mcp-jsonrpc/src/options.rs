//! Connection options: limits, stdout log, child process settings.

use std::ffi::OsString;
use std::path::PathBuf;

/// Bounds that protect the client from a misbehaving peer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// The largest message accepted from the peer, in bytes: one line on stdio and unix
    /// sockets, the accumulated `data` of one SSE event or one JSON body on streamable HTTP.
    /// A larger message is discarded as it streams in (never buffered whole), counted in
    /// [`PeerStats::oversized_messages`](crate::PeerStats), and when it can be attributed
    /// to a pending request, that request fails with [`Error::MessageTooLarge`](crate::Error).
    /// Default: 16 MiB.
    pub max_message_bytes: usize,
    /// Capacity of the queue of server→client notifications. When it is full, new
    /// notifications are dropped and counted ([`PeerStats::notifications_dropped`](crate::PeerStats)).
    /// Default: 1024.
    pub notifications_capacity: usize,
    /// Capacity of the queue of server→client requests. When it is full, a new request is
    /// answered at once with `-32000 client overloaded`. Default: 64.
    pub requests_capacity: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_message_bytes: 16 * 1024 * 1024,
            notifications_capacity: 1024,
            requests_capacity: 64,
        }
    }
}

/// Rotating log of every non-blank line read from the peer (usually a stdio server's stdout).
///
/// When the current file would grow past `max_bytes_per_part`, it is renamed to
/// `<stem>.segment-NNNN<.ext>` (for `server.stdout.log`: `server.stdout.segment-0001.log`, …)
/// and a new file is started. Numbering continues after the highest part already on disk, so
/// history is never overwritten; `max_parts` keeps only the newest segments. No component of
/// `path` may be a symlink. Writing is best effort: the first write failure disables the log
/// with one error message, and the connection is not affected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StdoutLog {
    /// The file being written; parent directories are created.
    pub path: PathBuf,
    /// Rotate before a part would exceed this many bytes (minimum 1). A single line longer
    /// than this gets a part of its own.
    pub max_bytes_per_part: u64,
    /// Keep at most this many rotated segments (`None`: keep all). The current file is not
    /// counted.
    pub max_parts: Option<usize>,
}

impl StdoutLog {
    /// A log at `path` with the defaults of `mcp.json`: 1 MiB parts, 32 segments kept.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            max_bytes_per_part: 1024 * 1024,
            max_parts: Some(32),
        }
    }
}

/// Where a spawned child's stderr goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StderrMode {
    /// The child writes to this process's stderr (default: server logs stay visible).
    #[default]
    Inherit,
    /// Discarded.
    Null,
    /// Read by this process: each line passed on to its stderr when `echo` is set, and the
    /// last [`STDERR_TAIL_LINES`](crate::STDERR_TAIL_LINES) kept, so that
    /// [`Peer::child_exit`](crate::Peer::child_exit) can tell what a server that failed
    /// printed last.
    Capture {
        /// Also write the lines to this process's stderr.
        echo: bool,
    },
}

/// Which way a message went, for a [`WireTap`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireDirection {
    /// Sent to the peer.
    Outgoing,
    /// Received from the peer.
    Incoming,
}

/// Sees every JSON-RPC message of a connection, both ways, as the bytes that travel (one
/// message or batch per call; a received frame that is not JSON is shown too). For debugging
/// (`mcpctl --wire`): it runs on the connection's tasks, so it must be quick, and it sees
/// secrets the messages carry.
#[derive(Clone)]
pub struct WireTap(std::sync::Arc<WireFn>);

/// What a [`WireTap`] calls.
type WireFn = dyn Fn(WireDirection, &[u8]) + Send + Sync;

impl WireTap {
    /// A tap calling `f` with each message.
    pub fn new(f: impl Fn(WireDirection, &[u8]) + Send + Sync + 'static) -> Self {
        Self(std::sync::Arc::new(f))
    }

    pub(crate) fn see(&self, direction: WireDirection, bytes: &[u8]) {
        (self.0)(direction, bytes);
    }
}

impl std::fmt::Debug for WireTap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WireTap")
    }
}

/// Options of a connection. Despite the name (kept from the seed API), only the `env`,
/// `inherit_env`, `cwd`, `kill_on_drop` and `stderr` fields are specific to spawning a child;
/// `limits`, `stdout_log` and `wire` apply to every transport.
#[derive(Debug, Clone)]
pub struct SpawnOptions {
    /// Log every line read from the peer (see [`StdoutLog`]).
    pub stdout_log: Option<StdoutLog>,
    /// Message size and queue bounds.
    pub limits: Limits,
    /// Variables set in the child's environment (after the inherited or baseline ones).
    pub env: Vec<(OsString, OsString)>,
    /// Inherit this process's whole environment (default `false`: the child starts from an
    /// empty environment plus only [`BASELINE_ENV_VARS`] (those set here), then `env`, so host
    /// secrets do not leak into the server).
    pub inherit_env: bool,
    /// Working directory of the child (default: this process's).
    pub cwd: Option<PathBuf>,
    /// Kill the child when the [`Peer`](crate::Peer) is dropped (default `true`).
    pub kill_on_drop: bool,
    /// Where the child's stderr goes (default: inherited).
    pub stderr: StderrMode,
    /// Sees every message both ways (default: none).
    pub wire: Option<WireTap>,
    /// Start the child in a process group of its own (default `false`), so that the Ctrl-C
    /// of a terminal (SIGINT to the foreground group) reaches this process only, which can
    /// then cancel what it asked and end the server itself.
    pub own_process_group: bool,
}

/// The variables passed to a child spawned with `inherit_env: false` (the default), when
/// they are set: what programs need to run (the search path, the home and temporary
/// directories, the user, the shell and terminal, and their Windows equivalents), none of
/// them a secret. The official SDKs pass the same; anything else — cloud credentials, API
/// keys — stays with the parent unless configured in `env` or `inherit_env: true` is set.
pub const BASELINE_ENV_VARS: &[&str] = &[
    "PATH",
    "HOME",
    "LOGNAME",
    "USER",
    "SHELL",
    "TERM",
    "TMPDIR",
    "TEMP",
    "TMP",
    "USERPROFILE",
    "USERNAME",
    "APPDATA",
    "LOCALAPPDATA",
    "HOMEDRIVE",
    "HOMEPATH",
    "PROCESSOR_ARCHITECTURE",
    "PROGRAMFILES",
    "SYSTEMDRIVE",
    "SystemRoot",
    "SYSTEMROOT",
];

impl Default for SpawnOptions {
    fn default() -> Self {
        Self {
            stdout_log: None,
            limits: Limits::default(),
            env: Vec::new(),
            inherit_env: false,
            cwd: None,
            kill_on_drop: true,
            stderr: StderrMode::Inherit,
            wire: None,
            own_process_group: false,
        }
    }
}
