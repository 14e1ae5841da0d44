//! Sessions: a workspace, a sandbox and the interpreter in it, kept between calls.
//! Executions in one session run one at a time; a timeout, a cancellation or a crash ends
//! the sandbox (everything the call started with it) and the next call starts a new
//! interpreter on the same workspace, saying that state was lost.

mod error;
mod manager;
mod pool;
mod running;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};

use serde::Serialize;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

pub use self::error::SessionError;
pub use self::manager::Sessions;
use self::running::Running;
use crate::backend::{Backend, Volume};
use crate::config::SandboxConfig;
use crate::driver::{Capture, Job, Outcome, Stream};
use crate::flavor::Flavor;
use crate::template::Template;

/// What every session shares: the backend and the settings.
pub(crate) struct Shared {
    pub(crate) backend: Arc<dyn Backend>,
    pub(crate) config: SandboxConfig,
    pub(crate) volumes: Vec<Volume>,
    pub(crate) metrics: std::sync::OnceLock<mcp_server::Metrics>,
}

impl Shared {
    pub(crate) fn record(&self, f: impl FnOnce()) {
        if let Some(metrics) = self.metrics.get() {
            metrics.record(f);
        }
    }
}

/// One call's result.
#[derive(Debug)]
pub struct Execution {
    /// How it ended.
    pub outcome: Outcome,
    /// What it wrote to standard output (up to the limit).
    pub stdout: Capture,
    /// What it wrote to standard error (up to the limit).
    pub stderr: Capture,
    /// How long it ran.
    pub duration: Duration,
    /// The interpreter was started anew for this call (or ended during it): what earlier
    /// calls defined is gone; files in the workspace are not.
    pub interpreter_restarted: bool,
    /// The interpreter was killed for exceeding the flavor's memory.
    pub out_of_memory: bool,
}

/// A session, as `get_sessions` shows it.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SessionInfo {
    /// The session's id.
    pub session_id: String,
    /// `python` or `node`.
    pub template: Template,
    /// `small`, `medium` or `large`.
    pub flavor: Flavor,
    /// The interpreter's version, once it started.
    pub interpreter: Option<String>,
    /// Created, in seconds since the Unix epoch.
    pub created_at: u64,
    /// Seconds since the last call ended (0 while one runs).
    pub idle_seconds: u64,
    /// A call is running.
    pub busy: bool,
    /// Calls so far.
    pub executions: u64,
    /// Times the interpreter was restarted after a timeout, cancellation or crash.
    pub interpreter_restarts: u64,
    /// Memory in use by its processes, in bytes (when the backend can tell).
    pub memory_bytes: Option<u64>,
    /// Memory it may use, in MiB.
    pub memory_limit_mb: u64,
    /// CPUs it may use.
    pub cpus: u32,
    /// Where its files are, inside the sandbox.
    pub workspace: String,
}

#[derive(Default)]
struct State {
    running: Option<Running>,
    /// State was lost since the last call: the next one says so.
    lost: bool,
    stopped: bool,
}

#[derive(Debug)]
struct Stats {
    last_used: Instant,
    executions: u64,
    restarts: u64,
    interpreter: Option<String>,
    memory_bytes: Option<u64>,
}

/// A session.
pub struct Session {
    id: String,
    template: Template,
    flavor: Flavor,
    created: SystemTime,
    workspace: PathBuf,
    shared: Arc<Shared>,
    state: tokio::sync::Mutex<State>,
    stats: parking_lot::Mutex<Stats>,
    busy: AtomicBool,
    stop: CancellationToken,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("id", &self.id)
            .field("template", &self.template)
            .field("flavor", &self.flavor)
            .finish_non_exhaustive()
    }
}

/// Marks a session busy for as long as it lives.
struct Busy<'a>(&'a AtomicBool);

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

impl Session {
    fn new(
        id: String,
        template: Template,
        flavor: Flavor,
        workspace: PathBuf,
        shared: Arc<Shared>,
        running: Option<Running>,
    ) -> Self {
        let interpreter = running.as_ref().map(Running::interpreter);
        Self {
            id,
            template,
            flavor,
            created: SystemTime::now(),
            workspace,
            shared,
            state: tokio::sync::Mutex::new(State {
                running,
                ..State::default()
            }),
            stats: parking_lot::Mutex::new(Stats {
                last_used: Instant::now(),
                executions: 0,
                restarts: 0,
                interpreter,
                memory_bytes: None,
            }),
            busy: AtomicBool::new(false),
            stop: CancellationToken::new(),
        }
    }

    /// The session's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Its language.
    pub fn template(&self) -> Template {
        self.template
    }

    /// Its size.
    pub fn flavor(&self) -> Flavor {
        self.flavor
    }

    /// Its workspace on the server's host.
    pub fn workspace(&self) -> &std::path::Path {
        &self.workspace
    }

    pub(crate) fn is_busy(&self) -> bool {
        self.busy.load(Ordering::SeqCst)
    }

    pub(crate) fn last_used(&self) -> Instant {
        self.stats.lock().last_used
    }

    /// Runs `job`, waiting for an execution already running in this session to finish
    /// first. Output goes to `progress` while it runs. Ends at `timeout`, when `cancelled`
    /// completes, or when the session is stopped.
    ///
    /// # Errors
    /// The session was stopped, or its sandbox did not start.
    pub async fn execute(
        &self,
        job: &Job,
        timeout: Duration,
        progress: Option<&mpsc::Sender<(Stream, String)>>,
        cancelled: impl std::future::Future<Output = ()>,
    ) -> Result<Execution, SessionError> {
        let mut state = tokio::select! {
            state = self.state.lock() => state,
            () = self.stop.cancelled() => return Err(SessionError::Stopped(self.id.clone())),
        };
        if state.stopped {
            return Err(SessionError::Stopped(self.id.clone()));
        }
        self.busy.store(true, Ordering::SeqCst);
        let _busy = Busy(&self.busy);
        let started = Instant::now();
        let mut running = match state.running.take() {
            Some(running) => running,
            None => self.start().await?,
        };
        // Until this call ends normally, the interpreter counts as lost: a call whose future
        // is dropped midway leaves `running` empty, and the next call starts afresh.
        let restarted = std::mem::replace(&mut state.lost, true);
        let stop = self.stop.clone();
        let interrupt = async move {
            tokio::select! {
                () = stop.cancelled() => {}
                () = cancelled => {}
            }
        };
        let finished = running
            .driver
            .run(
                job,
                self.shared.config.max_output_bytes,
                progress,
                tokio::time::Instant::now() + timeout,
                interrupt,
            )
            .await;
        let usage = running.handle.usage();
        let out_of_memory = usage.oom_kills.unwrap_or(0) > 0;
        let keep = matches!(finished.outcome, Outcome::Done(_)) && !out_of_memory;
        let mut stats_restart = false;
        if keep {
            state.lost = false;
            state.running = Some(running);
        } else {
            running.handle.kill().await;
            stats_restart = true;
        }
        let duration = started.elapsed();
        {
            let mut stats = self.stats.lock();
            stats.last_used = Instant::now();
            stats.executions += 1;
            stats.restarts += u64::from(stats_restart);
            stats.memory_bytes = usage.memory_bytes;
        }
        Ok(Execution {
            outcome: finished.outcome,
            stdout: finished.stdout,
            stderr: finished.stderr,
            duration,
            interpreter_restarted: restarted || stats_restart,
            out_of_memory,
        })
    }

    async fn start(&self) -> Result<Running, SessionError> {
        let running = Running::start(
            &self.shared,
            &self.id,
            self.template,
            self.flavor,
            &self.workspace,
        )
        .await?;
        self.stats.lock().interpreter = Some(running.interpreter());
        Ok(running)
    }

    /// Ends the sandbox (interrupting a running call) and removes the workspace.
    pub(crate) async fn stop(&self) {
        self.stop.cancel();
        let mut state = self.state.lock().await;
        state.stopped = true;
        if let Some(mut running) = state.running.take() {
            running.handle.kill().await;
        }
        if let Err(e) = tokio::fs::remove_dir_all(&self.workspace).await
            && e.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!(session = %self.id, "cannot remove the workspace: {e}");
        }
    }

    /// The session as `get_sessions` shows it.
    pub fn info(&self) -> SessionInfo {
        let busy = self.is_busy();
        let stats = self.stats.lock();
        let memory_bytes = match self.state.try_lock() {
            Ok(state) => state
                .running
                .as_ref()
                .and_then(|r| r.handle.usage().memory_bytes),
            Err(_) => stats.memory_bytes,
        };
        SessionInfo {
            session_id: self.id.clone(),
            template: self.template,
            flavor: self.flavor,
            interpreter: stats.interpreter.clone(),
            created_at: self
                .created
                .duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            idle_seconds: if busy {
                0
            } else {
                stats.last_used.elapsed().as_secs()
            },
            busy,
            executions: stats.executions,
            interpreter_restarts: stats.restarts,
            memory_bytes,
            memory_limit_mb: self.flavor.memory_mb(),
            cpus: self.flavor.cpus(),
            workspace: crate::backend::WORKSPACE.to_owned(),
        }
    }
}
