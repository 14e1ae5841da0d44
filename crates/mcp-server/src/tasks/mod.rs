//! The tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28): a `tools/call` that the
//! server answers with a task handle, its handler running on while the client polls
//! `tasks/get`, answers input with `tasks/update` and asks for cancellation with
//! `tasks/cancel`.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use parking_lot::Mutex;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Whether a tool's calls may run as tasks ([`ToolDef::task_support`](crate::ToolDef::task_support)).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TaskSupport {
    /// Never: every call is answered inline (the default).
    #[default]
    Forbidden,
    /// When the client declares the extension on the request; inline otherwise.
    Optional,
    /// Only as a task: a request that does not declare the extension is answered `-32021`.
    Required,
}

/// When a call that may run as a task becomes one ([`ToolDef::task_start`](crate::ToolDef::task_start)).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TaskStart {
    /// Before the handler runs (the default).
    #[default]
    Immediate,
    /// When the handler has not finished after this long: quick calls are answered inline.
    After(Duration),
    /// When the handler calls [`RequestContext::run_as_task`](crate::RequestContext::run_as_task);
    /// until then its input requests are ordinary 2026-07-28 input rounds.
    Explicit,
}

/// A tool's task settings.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TaskOptions {
    pub(crate) support: TaskSupport,
    pub(crate) start: TaskStart,
}

pub use record::{Applied, Ending, TaskChange, TaskRecord};
pub use store::{MemoryTaskStore, TaskStore, TaskStoreError};

mod record;
mod run;
mod store;

pub(crate) use run::TaskRun;

/// The tasks of a server: where they are kept, and the ones this process runs.
pub(crate) struct Tasks {
    /// A store shared by replicas, once the HTTP transport bound one.
    shared: OnceLock<Arc<dyn TaskStore>>,
    memory: Arc<MemoryTaskStore>,
    runs: Mutex<HashMap<String, Arc<TaskRun>>>,
    /// Ids of tasks whose record changed (for `subscriptions/listen` streams).
    changes: broadcast::Sender<String>,
    tracker: TaskTracker,
    /// The server's shutdown.
    shutdown: CancellationToken,
}

impl Tasks {
    pub(crate) fn new(shutdown: CancellationToken) -> Arc<Self> {
        Arc::new(Self {
            shared: OnceLock::new(),
            memory: Arc::default(),
            runs: Mutex::default(),
            changes: broadcast::channel(256).0,
            tracker: TaskTracker::new(),
            shutdown,
        })
    }

    /// Where tasks are kept: the shared store if one is bound, else this process's memory.
    pub(crate) fn store(&self) -> &dyn TaskStore {
        match self.shared.get() {
            Some(shared) => shared.as_ref(),
            None => self.memory.as_ref(),
        }
    }

    /// Keeps tasks in `store` from now on (the HTTP transport, binding a shared session
    /// store). Only the first call counts.
    pub(crate) fn share(&self, store: Arc<dyn TaskStore>) {
        let _ = self.shared.set(store);
    }

    /// Whether tasks are kept where other replicas see them.
    pub(crate) fn is_shared(&self) -> bool {
        self.shared.get().is_some()
    }

    /// The run of task `id`, when this process runs it.
    pub(crate) fn run(&self, id: &str) -> Option<Arc<TaskRun>> {
        self.runs.lock().get(id).cloned()
    }

    /// How many tasks this process runs.
    pub(crate) fn running(&self) -> usize {
        self.runs.lock().len()
    }

    /// Task `id` changed (here, or on another replica): its run re-reads it, and listeners
    /// hear of it.
    pub(crate) fn changed(&self, id: &str) {
        if let Some(run) = self.run(id) {
            run.wake();
        }
        let _ = self.changes.send(id.to_owned());
    }

    /// Waits until every run ended (after the server's shutdown, which cancels them, they end
    /// within their grace). New runs may not start once this was called.
    pub(crate) async fn drained(&self) {
        self.tracker.close();
        self.tracker.wait().await;
    }

    /// Ids of tasks changed from now on.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<String> {
        self.changes.subscribe()
    }
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// A new task id: 128 random bits, URL-safe.
pub(crate) fn new_id() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the operating system's random source works");
    URL_SAFE_NO_PAD.encode(bytes)
}

/// A `-32603` error saying `message` (without the generic "Internal error" prefix): why a task
/// failed, as `tasks/get` shows it.
pub(crate) fn failure(message: &str) -> mcp_jsonrpc::ErrorObject {
    mcp_jsonrpc::ErrorObject::new(mcp_jsonrpc::error_codes::INTERNAL_ERROR, message)
}
