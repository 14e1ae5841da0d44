//! Where tasks are kept: [`TaskStore`]. The memory store serves one process; a shared store
//! (Redis, through the HTTP transport's session store) lets any replica answer for a task
//! another replica runs.

use std::collections::HashMap;
use std::time::Duration;

use parking_lot::Mutex;

use super::record::{Applied, TaskChange, TaskRecord};
use crate::boxed::BoxFuture;

/// A store that could not be reached, or refused a write.
#[derive(Debug, Clone, thiserror::Error)]
#[error("the task store failed: {0}")]
pub struct TaskStoreError(pub String);

/// Where a server keeps its tasks. Every method is one atomic step on one task.
pub trait TaskStore: Send + Sync {
    /// Keeps a new task; the task is readable once this returns (creation is strongly
    /// consistent: the handle goes out only after it).
    fn create(&self, record: TaskRecord) -> BoxFuture<Result<(), TaskStoreError>>;

    /// The task, unless it is unknown or expired. A store shared by replicas also ends here a
    /// task whose replica stopped (`failed`, with the reason), so that no task stays
    /// `working` forever.
    fn load(&self, id: &str) -> BoxFuture<Result<Option<TaskRecord>, TaskStoreError>>;

    /// Applies `change` at `now_ms` ([`TaskRecord::apply`]) and writes the record back when it
    /// changed; `None` for an unknown or expired task.
    fn apply(
        &self,
        id: &str,
        change: TaskChange,
        now_ms: u64,
    ) -> BoxFuture<Result<Option<(TaskRecord, Applied)>, TaskStoreError>>;

    /// How long a stopped replica may go unnoticed: polls are never advised more often than
    /// this, so a poll after it sees the task `failed`. Zero for a store of one process.
    fn liveness_window(&self) -> Duration {
        Duration::ZERO
    }
}

/// Tasks in this process's memory (the default). An expired task is dropped when touched, and
/// creating a task drops every expired one at most every 30 s.
#[derive(Debug, Default)]
pub struct MemoryTaskStore {
    tasks: Mutex<HashMap<String, TaskRecord>>,
    swept_ms: Mutex<u64>,
}

/// How often (at most) creating a task sweeps the expired ones, in milliseconds.
const SWEEP_EVERY: u64 = 30_000;

impl MemoryTaskStore {
    /// Forgets the tasks that expired before `now_ms`; returns how many.
    pub fn sweep(&self, now_ms: u64) -> usize {
        *self.swept_ms.lock() = now_ms;
        let mut tasks = self.tasks.lock();
        let before = tasks.len();
        tasks.retain(|_, r| r.expires_ms().is_none_or(|e| e > now_ms));
        before - tasks.len()
    }

    /// `f` of task `id` unless it is unknown or expired at `now_ms` (then it is dropped), under
    /// one lock.
    fn with_live<T>(
        &self,
        id: &str,
        now_ms: u64,
        f: impl FnOnce(&mut TaskRecord) -> T,
    ) -> Option<T> {
        let mut tasks = self.tasks.lock();
        let record = tasks.get_mut(id)?;
        if record.expires_ms().is_some_and(|e| e <= now_ms) {
            tasks.remove(id);
            return None;
        }
        Some(f(record))
    }
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, record: TaskRecord) -> BoxFuture<Result<(), TaskStoreError>> {
        let now = super::now_ms();
        if now.saturating_sub(*self.swept_ms.lock()) >= SWEEP_EVERY {
            self.sweep(now);
        }
        self.tasks.lock().insert(record.id.clone(), record);
        Box::pin(std::future::ready(Ok(())))
    }

    fn load(&self, id: &str) -> BoxFuture<Result<Option<TaskRecord>, TaskStoreError>> {
        let found = self.with_live(id, super::now_ms(), |r| r.clone());
        Box::pin(std::future::ready(Ok(found)))
    }

    fn apply(
        &self,
        id: &str,
        change: TaskChange,
        now_ms: u64,
    ) -> BoxFuture<Result<Option<(TaskRecord, Applied)>, TaskStoreError>> {
        let result = self.with_live(id, now_ms, |record| {
            let applied = record.apply(change, now_ms);
            (record.clone(), applied)
        });
        Box::pin(std::future::ready(Ok(result)))
    }
}
