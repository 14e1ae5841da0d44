//! A task this process runs: the handler's future in a task of its own, watched until it
//! ends — by the client's cancellation, the task's expiry, the server's shutdown — and its
//! ending written to the store.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use mcp_schema::InputResponses;
use parking_lot::Mutex;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::record::{Ending, TaskChange, TaskRecord};
use super::{Tasks, failure, now_ms};
use crate::boxed::BoxFuture;
use crate::error::panic_message;

/// How long a handler may ignore a cancellation before its future is dropped.
const CANCEL_GRACE: Duration = Duration::from_secs(5);
/// The least time between two progress reports written to the store.
const REPORT_EVERY: Duration = Duration::from_millis(250);
/// How often a run re-reads a record kept in a shared store, in case a message from another
/// replica (an answer, a cancellation) was lost.
const RECHECK: Duration = Duration::from_millis(500);

/// The part of a running task its handler's context holds.
pub(crate) struct TaskRun {
    pub(crate) id: String,
    /// Fired when the client cancels, the task expires, or the server shuts down.
    pub(crate) cancel: CancellationToken,
    wake: Notify,
    tasks: Arc<Tasks>,
    last_report: Mutex<Option<Instant>>,
}

impl TaskRun {
    /// Registers a run of task `id`.
    pub(crate) fn start(tasks: &Arc<Tasks>, id: String) -> Arc<Self> {
        let run = Arc::new(Self {
            id: id.clone(),
            cancel: tasks.shutdown.child_token(),
            wake: Notify::new(),
            tasks: tasks.clone(),
            last_report: Mutex::new(None),
        });
        tasks.runs.lock().insert(id, run.clone());
        run
    }

    pub(super) fn wake(&self) {
        self.wake.notify_waiters();
    }

    /// Applies a change to the task's record, and tells whoever watches it.
    pub(crate) async fn change(&self, change: TaskChange) -> Option<TaskRecord> {
        match self.tasks.store().apply(&self.id, change, now_ms()).await {
            Ok(Some((record, applied))) => {
                if applied.changed {
                    self.tasks.changed(&self.id);
                }
                if applied.ended {
                    // Ended elsewhere (a replica's liveness rule, expiry): stop the handler.
                    self.cancel.cancel();
                }
                Some(record)
            }
            Ok(None) => {
                self.cancel.cancel();
                None
            }
            Err(e) => {
                tracing::warn!(task = %self.id, "{e}");
                None
            }
        }
    }

    /// Progress of the handler, as the task's status message (`message`, else
    /// `progress/total`); at most one write per [`REPORT_EVERY`].
    pub(crate) async fn report(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        {
            let mut last = self.last_report.lock();
            if last.is_some_and(|t| t.elapsed() < REPORT_EVERY) {
                return;
            }
            *last = Some(Instant::now());
        }
        let text = match (message, total) {
            (Some(m), _) => m.to_owned(),
            (None, Some(total)) => format!("{progress}/{total}"),
            (None, None) => progress.to_string(),
        };
        self.change(TaskChange::Message(text)).await;
    }

    /// Parks the task in `input_required` with `requests` until each is answered (through
    /// `tasks/update`, on any replica), and returns the answers.
    pub(crate) async fn ask(
        &self,
        requests: mcp_schema::InputRequests,
    ) -> Result<InputResponses, crate::Error> {
        let mut wanted: Vec<String> = requests.keys().cloned().collect();
        self.change(TaskChange::Ask(requests)).await;
        let mut answers = InputResponses::new();
        while !wanted.is_empty() {
            let woken = self.wake.notified();
            // Taking writes nothing when no answer is there yet.
            if let Some(taken) = self.take(&wanted).await
                && !taken.is_empty()
            {
                wanted.retain(|k| !taken.contains_key(k));
                answers.extend(taken);
                continue;
            }
            tokio::select! {
                _ = woken => {}
                _ = tokio::time::sleep(RECHECK), if self.tasks.is_shared() => {}
                _ = self.cancel.cancelled() => return Err(crate::Error::cancelled()),
            }
        }
        Ok(answers)
    }

    async fn take(&self, keys: &[String]) -> Option<InputResponses> {
        let taken = self
            .tasks
            .store()
            .apply(&self.id, TaskChange::Take(keys.to_vec()), now_ms())
            .await
            .ok()
            .flatten()?;
        Some(taken.1.taken)
    }

    /// Runs `work` (the handler and what becomes of its result) in a task of its own until
    /// it ends, and records the ending.
    pub(crate) fn supervise(
        self: Arc<Self>,
        work: BoxFuture<Ending>,
        expires_in: Option<Duration>,
    ) {
        let tracker = self.tasks.tracker.clone();
        tracker.spawn(async move {
            let ending = self.watch(work, expires_in).await;
            self.change(TaskChange::Finish(ending)).await;
            self.tasks.runs.lock().remove(&self.id);
        });
    }

    async fn watch(&self, work: BoxFuture<Ending>, expires_in: Option<Duration>) -> Ending {
        let mut work = CatchUnwind(work);
        let expiry = async {
            match expires_in {
                Some(d) => tokio::time::sleep(d).await,
                None => std::future::pending().await,
            }
        };
        tokio::pin!(expiry);
        let mut expired = false;
        let abandoned = async {
            self.cancel.cancelled().await;
            tokio::time::sleep(CANCEL_GRACE).await;
        };
        tokio::pin!(abandoned);
        let ending = loop {
            let woken = self.wake.notified();
            tokio::select! {
                ending = &mut work => break ending,
                _ = &mut abandoned => {
                    tracing::warn!(task = %self.id, "the handler ignored its cancellation; dropped");
                    break Ending::Cancelled;
                }
                _ = &mut expiry, if !expired => {
                    expired = true;
                    self.cancel.cancel();
                }
                _ = woken => self.recheck().await,
                _ = tokio::time::sleep(RECHECK), if self.tasks.is_shared() => self.recheck().await,
            }
        };
        if expired {
            return Ending::Failed(failure("the task expired before it finished"));
        }
        if self.tasks.shutdown.is_cancelled() {
            return Ending::Failed(failure("the server stopped before the task finished"));
        }
        if self.cancel.is_cancelled() {
            return Ending::Cancelled;
        }
        ending
    }

    /// Re-reads the record: a cancellation requested anywhere reaches the handler.
    async fn recheck(&self) {
        match self.tasks.store().load(&self.id).await {
            Ok(Some(record)) if record.cancel_requested || record.is_terminal() => {
                self.cancel.cancel()
            }
            Ok(None) => self.cancel.cancel(),
            _ => {}
        }
    }
}

/// A future whose panic becomes a failed task.
struct CatchUnwind(BoxFuture<Ending>);

impl Future for CatchUnwind {
    type Output = Ending;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Ending> {
        match std::panic::catch_unwind(AssertUnwindSafe(|| self.0.as_mut().poll(cx))) {
            Ok(poll) => poll,
            Err(panic) => {
                tracing::error!("a task's handler panicked: {}", panic_message(&*panic));
                Poll::Ready(Ending::Failed(failure(
                    "the tool's handler panicked; see the server log",
                )))
            }
        }
    }
}
