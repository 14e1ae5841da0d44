//! Backends: what isolates a session. The sessions above speak to an interpreter driver over
//! four byte streams; a backend's job is to start that driver inside an isolated, limited
//! environment with the session's workspace, hand back the streams, and remove everything
//! when asked.
//!
//! # Adding a backend
//!
//! Implement [`Backend`] (and [`SandboxHandle`] for what it starts). [`Backend::start`] gets a
//! [`SandboxSpec`] and must:
//!
//! 1. create an environment where nothing of the host is reachable but what the spec names:
//!    the workspace (read-write at [`WORKSPACE`]), the volumes, the driver programs (read-only
//!    at [`DRIVER_DIR`]) and the interpreters; no network unless [`Network::Host`];
//! 2. enforce [`Limits`] (memory, CPUs, processes, file size, open files);
//! 3. run the template's interpreter on the driver (`python3 -u /opt/mcp-sandbox/python.py`
//!    or `node /opt/mcp-sandbox/node.js`, see [`driver_command`]) with the working directory
//!    [`WORKSPACE`], `stdin` empty, and give back its `stdout`, `stderr` and the two control
//!    streams that the driver reads on descriptor 3 and writes on descriptor 4;
//! 4. make [`SandboxHandle::kill`] end every process the sandbox ever started and release
//!    its resources; the workspace directory itself is the session's and stays.
//!
//! A microVM backend would boot a VM with the workspace shared (virtiofs) and carry the four
//! streams over vsock; a container backend would `exec` the driver in a container with the
//! workspace bind-mounted and the control streams on a unix socket. The local backend
//! ([`local::LocalBackend`]) uses bubblewrap, cgroups and seccomp.

pub mod local;

use std::fmt;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;

use tokio::io::{AsyncRead, AsyncWrite};

use crate::template::Template;

/// A future a backend returns (boxed: backends are used as `dyn Backend`).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Where the session's workspace appears inside the sandbox.
pub const WORKSPACE: &str = "/workspace";

/// Where the driver programs appear inside the sandbox.
pub const DRIVER_DIR: &str = "/opt/mcp-sandbox";

/// The driver programs, by template: file name and source. Every backend installs them in
/// [`DRIVER_DIR`].
pub const DRIVERS: &[(Template, &str, &str)] = &[
    (
        Template::Python,
        "python.py",
        include_str!("../driver/python.py"),
    ),
    (Template::Node, "node.js", include_str!("../driver/node.js")),
];

/// The driver's file name for `template`.
pub fn driver_file(template: Template) -> &'static str {
    DRIVERS
        .iter()
        .find(|(t, _, _)| *t == template)
        .map(|(_, file, _)| *file)
        .expect("every template has a driver")
}

/// The arguments after the interpreter that start the driver for `template`.
pub fn driver_command(template: Template) -> Vec<String> {
    let path = format!("{DRIVER_DIR}/{}", driver_file(template));
    match template {
        // Unbuffered, so output streams out while the code runs.
        Template::Python => vec!["-u".to_owned(), path],
        Template::Node => vec![path],
    }
}

/// The environment of the driver (and so of everything the code starts): nothing of the
/// server's own environment.
pub fn driver_environment() -> Vec<(&'static str, &'static str)> {
    vec![
        ("PATH", "/usr/local/bin:/usr/bin:/bin"),
        ("HOME", WORKSPACE),
        ("LANG", "C.UTF-8"),
        ("TMPDIR", "/tmp"),
        ("MCP_SANDBOX_WORKSPACE", WORKSPACE),
    ]
}

/// The resources one sandbox may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Memory (resident, including the sandbox's `/tmp`), in bytes.
    pub memory_bytes: u64,
    /// CPUs (a quota of this many full CPUs).
    pub cpus: u32,
    /// Processes and threads at once.
    pub processes: u32,
    /// The largest file the code may write, in bytes.
    pub file_size_bytes: u64,
    /// Open files per process.
    pub open_files: u64,
    /// The size of the sandbox's private `/tmp`, in bytes.
    pub tmp_bytes: u64,
}

/// A host directory mounted into every sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Volume {
    /// The host directory (absolute, symlinks resolved).
    pub host: PathBuf,
    /// Where it appears inside the sandbox (absolute).
    pub sandbox: PathBuf,
    /// Mounted read-only.
    pub read_only: bool,
}

impl fmt::Display for Volume {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.host.display(), self.sandbox.display())?;
        if self.read_only {
            f.write_str(":ro")?;
        }
        Ok(())
    }
}

/// Network access from inside a sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Network {
    /// Only a loopback interface of its own (the default).
    #[default]
    None,
    /// The host's network: the code can reach whatever the server can. Opt-in.
    Host,
}

/// What to start.
#[derive(Debug, Clone)]
pub struct SandboxSpec {
    /// The session's id (names its cgroup).
    pub session_id: String,
    /// Which interpreter runs the driver.
    pub template: Template,
    /// The limits to enforce.
    pub limits: Limits,
    /// The session's workspace on the host, mounted read-write at [`WORKSPACE`].
    pub workspace: PathBuf,
    /// Host directories mounted into the sandbox.
    pub volumes: Vec<Volume>,
    /// Network access.
    pub network: Network,
}

/// Bytes in, from the sandbox.
pub type Reader = Box<dyn AsyncRead + Send + Unpin>;
/// Bytes out, to the sandbox.
pub type Writer = Box<dyn AsyncWrite + Send + Unpin>;

/// A started sandbox: the driver's four streams and the handle that ends it.
pub struct Sandbox {
    /// The driver's control input (its descriptor 3).
    pub control_in: Writer,
    /// The driver's control output (its descriptor 4).
    pub control_out: Reader,
    /// What the code writes to standard output.
    pub stdout: Reader,
    /// What the code writes to standard error.
    pub stderr: Reader,
    /// Ends the sandbox.
    pub handle: Box<dyn SandboxHandle>,
}

impl fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sandbox").finish_non_exhaustive()
    }
}

/// What a sandbox has used so far, where the backend can tell.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Memory in use now, in bytes.
    pub memory_bytes: Option<u64>,
    /// Processes killed for exceeding the memory limit, since the sandbox started.
    pub oom_kills: Option<u64>,
}

/// A running sandbox's handle.
pub trait SandboxHandle: Send + Sync {
    /// Ends every process the sandbox started (detached ones too) and releases what the
    /// backend created for it; returns once they are gone. Idempotent.
    fn kill(&mut self) -> BoxFuture<'_, ()>;

    /// Resource use so far.
    fn usage(&self) -> Usage;
}

/// How a backend reports what it isolates with, for `get_sessions` and the logs.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Isolation {
    /// The backend's name (`local`).
    pub backend: String,
    /// How limits are enforced (`cgroup v1`, `cgroup v2`, `rlimits`).
    pub limits: String,
    /// One line per mechanism, for the logs and the docs.
    pub details: Vec<String>,
}

/// A sandbox could not be started, or the backend cannot work on this host.
#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    /// Something the backend needs is missing (the message says how to install it).
    #[error("{0}")]
    Unavailable(String),
    /// Starting this sandbox failed.
    #[error("cannot start the sandbox: {0}")]
    Start(String),
}

/// What isolates sessions. See the module documentation for what an implementation owes.
pub trait Backend: Send + Sync + 'static {
    /// What this backend isolates with.
    fn isolation(&self) -> Isolation;

    /// The templates this host can run (their interpreters are installed).
    fn templates(&self) -> Vec<Template>;

    /// Starts the driver for `spec` in a new sandbox.
    fn start<'a>(&'a self, spec: &'a SandboxSpec) -> BoxFuture<'a, Result<Sandbox, BackendError>>;

    /// Releases what the backend holds for all sandboxes (after every handle was killed).
    fn shutdown(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
}
