//! The handler API inside a task (the tasks extension): the same context, whose cancellation,
//! progress and input requests go to the task once the call became one.

use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::RequestContext;
use crate::error::Result;
use crate::tasks::{TaskChange, TaskRun};

/// The task a call became, or the way to ask the dispatcher to make it one.
#[derive(Default)]
pub(crate) struct TaskSlot {
    pub(crate) run: OnceLock<Arc<TaskRun>>,
    /// Fired when the call becomes a task.
    pub(crate) promoted: CancellationToken,
    /// While the call may still become a task at the handler's request
    /// ([`TaskStart::Explicit`](crate::TaskStart::Explicit),
    /// [`TaskStart::After`](crate::TaskStart::After)): asks the dispatcher, which answers
    /// whether it did.
    pub(crate) promote: Mutex<Option<oneshot::Sender<oneshot::Sender<bool>>>>,
}

impl RequestContext {
    pub(crate) fn task_run(&self) -> Option<&Arc<TaskRun>> {
        self.inner.task.run.get()
    }

    /// Makes the rest of this call a task, when the tool allows it and the client declared
    /// the tasks extension on this request: the client gets a task handle now, and this
    /// handler goes on in the background; what it returns becomes the task's result. Returns
    /// whether the call is a task (also `true` when it already was).
    ///
    /// Input gathered before (2026-07-28 input rounds) stays available; input asked for
    /// after goes through the task (`input_required`, answered with `tasks/update`).
    pub async fn run_as_task(&self) -> Result<bool> {
        if self.task_run().is_some() {
            return Ok(true);
        }
        let Some(promote) = self.inner.task.promote.lock().take() else {
            return Ok(false);
        };
        let (reply, answer) = oneshot::channel();
        if promote.send(reply).is_err() {
            return Ok(false);
        }
        Ok(answer.await.unwrap_or(false))
    }

    /// The task this call became, if it did.
    pub fn task_id(&self) -> Option<&str> {
        self.task_run().map(|run| run.id.as_str())
    }

    /// Sets the task's status message (what `tasks/get` shows); does nothing outside a task.
    pub async fn set_status_message(&self, message: impl Into<String>) {
        if let Some(run) = self.task_run() {
            run.change(TaskChange::Message(message.into())).await;
        }
    }
}
