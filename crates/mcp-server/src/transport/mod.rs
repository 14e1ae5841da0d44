//! Transports: they turn bytes into messages for a session and its answers back into bytes.

#[cfg(feature = "http")]
pub(crate) mod http;
pub(crate) mod stdio;

use std::future::Future;

use tokio::sync::mpsc;

/// The tasks serving one connection's requests: counted, and waited for at the end, but never
/// reaped one by one (a `JoinSet` wakes its owner as each task ends, which costs a thread
/// wake-up per request on a connection that serves one call at a time).
pub(crate) struct TaskGroup {
    /// Each task holds a clone; the receiver sees the end when the last one is gone.
    alive: Option<mpsc::Sender<()>>,
    all_done: mpsc::Receiver<()>,
}

impl TaskGroup {
    pub(crate) fn new() -> Self {
        let (alive, all_done) = mpsc::channel(1);
        Self {
            alive: Some(alive),
            all_done,
        }
    }

    /// Runs `task` in a task of its own.
    pub(crate) fn spawn(&self, task: impl Future<Output = ()> + Send + 'static) {
        let alive = self.alive.clone();
        tokio::spawn(async move {
            task.await;
            drop(alive);
        });
    }

    /// The tasks still running.
    pub(crate) fn len(&self) -> usize {
        self.alive.as_ref().map_or(0, |a| a.strong_count() - 1)
    }

    /// Waits until every task has ended (no new ones can start after).
    pub(crate) async fn wait(&mut self) {
        self.alive = None;
        let _ = self.all_done.recv().await;
    }
}
