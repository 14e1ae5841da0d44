//! The tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28) on the client side: the
//! session declares it, so a server may answer a `tools/call` with a task. [`Session::call_tool`]
//! follows such a task to its end by itself (polling as the server advises, answering its input
//! requests through the session's handlers, cancelling it when the call is dropped);
//! [`Session::call_tool_as_task`] hands the task over instead, and [`Session::task`] picks one
//! up again by id, after a reconnection for instance.

use std::future::Future;
use std::time::Duration;

use mcp_schema::ext::tasks::{DetailedTask, TaskStatus};
use mcp_schema::{CallToolRequest, CallToolResult, McpRequest};
use serde_json::{Map, Value, json};

use super::{Session, from_result};
use crate::Error;
use crate::handlers::{RequestOrigin, ServerRequestContext};

/// How long to wait between polls when the server does not say.
pub(super) const DEFAULT_POLL: Duration = Duration::from_secs(1);
/// The shortest and longest pause between polls, whatever the server advises.
const POLL_BOUNDS: (Duration, Duration) = (Duration::from_millis(50), Duration::from_secs(30));

/// Waits before the next poll: `poll`, within [`POLL_BOUNDS`].
pub(super) async fn pause(poll: Duration) {
    tokio::time::sleep(poll.clamp(POLL_BOUNDS.0, POLL_BOUNDS.1)).await;
}

/// The polling pace a task (or its handle) advises in milliseconds under `member`
/// (`pollIntervalMs`; `pollInterval` in 2025-11-25).
pub(super) fn advised(task: &Value, member: &str) -> Option<Duration> {
    task.get(member)
        .and_then(Value::as_u64)
        .map(Duration::from_millis)
}

/// What a `tools/call` made with [`Session::call_tool_as_task`] became.
#[derive(Debug)]
pub enum ToolCall<'a> {
    /// The server answered at once.
    Complete(Box<CallToolResult>),
    /// The server runs the call as a task.
    Task(TaskHandle<'a>),
}

/// A task on a server: read it, answer it, cancel it, or wait for its end.
#[derive(Debug, Clone)]
pub struct TaskHandle<'a> {
    session: &'a Session,
    id: String,
    /// The method the task answers (`tools/call`).
    method: String,
}

impl Session {
    /// `tools/call`, handing over the task when the server runs the call as one (2026-07-28,
    /// with the tasks extension) instead of following it to its end as
    /// [`call_tool`](Self::call_tool) does. Input requests before the task exists are answered
    /// as usual.
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        arguments: Option<Map<String, Value>>,
    ) -> Result<ToolCall<'_>, Error> {
        let params = super::methods::named_params(name, arguments);
        let value = self
            .call_raw(CallToolRequest::METHOD, Some(params), None)
            .await?;
        self.tool_call(value)
    }

    /// [`call_tool_as_task`](Self::call_tool_as_task) with the progress the server reports
    /// before it answers (see [`request_with_progress`](Self::request_with_progress)).
    pub fn call_tool_as_task_with_progress<'a>(
        &'a self,
        name: &str,
        arguments: Option<Map<String, Value>>,
    ) -> (
        tokio::sync::mpsc::Receiver<crate::ProgressUpdate>,
        impl Future<Output = Result<ToolCall<'a>, Error>> + Send + 'a,
    ) {
        let params = super::methods::named_params(name, arguments);
        let (progress, call) = self.with_progress(CallToolRequest::METHOD, Some(params), false);
        (progress, async move { self.tool_call(call.await?) })
    }

    fn tool_call(&self, value: Value) -> Result<ToolCall<'_>, Error> {
        match task_id_of(&value) {
            Some(id) => Ok(ToolCall::Task(self.task_for(id, CallToolRequest::METHOD))),
            None => from_result(CallToolRequest::METHOD, value)
                .map(|result| ToolCall::Complete(Box::new(result))),
        }
    }

    /// The task `id` of this server (made by a `tools/call`), for instance one started before
    /// a reconnection.
    pub fn task(&self, id: impl Into<String>) -> TaskHandle<'_> {
        self.task_for(id.into(), CallToolRequest::METHOD)
    }

    fn task_for(&self, id: String, method: &str) -> TaskHandle<'_> {
        TaskHandle {
            session: self,
            id,
            method: method.to_owned(),
        }
    }

    /// Follows the task a request became to its end, and returns the request's result
    /// (`failed` is the error the request would have had). Each new status message goes to
    /// the progress listener of `progress_token`, if any. Dropping the future cancels the
    /// task.
    pub(crate) async fn follow_task(
        &self,
        method: &str,
        handle: Value,
        progress_token: Option<&str>,
    ) -> Result<Value, Error> {
        let Some(id) = task_id_of(&handle) else {
            return Err(self.task_error(method, "a task handle without a taskId".into()));
        };
        let task = self.task_for(id, method);
        let guard = task.cancel_when_dropped();
        let progress = progress_token.and_then(|token| {
            let sender = self.shared.routes().progress.get(token).cloned()?;
            Some((token.to_owned(), sender))
        });
        let mut changes = 0u32;
        let mut report = |now: &DetailedTask| {
            if let Some((token, sender)) = &progress {
                changes += 1;
                let mut update =
                    crate::ProgressUpdate::new(token.clone(), f64::from(changes), None);
                update.message = Some(task_status_line(now));
                let _ = sender.try_send(update);
            }
        };
        let outcome = task
            .wait_polling(
                advised(&handle, "pollIntervalMs").unwrap_or(DEFAULT_POLL),
                &mut report,
            )
            .await;
        guard.disarm();
        outcome
    }

    fn task_error(&self, method: &str, message: String) -> Error {
        Error::Protocol {
            server: self.server_name().to_owned(),
            message: format!("{method}: {message}"),
        }
    }
}

impl TaskHandle<'_> {
    /// The task id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// A guard that sends `tasks/cancel` when dropped, unless [disarmed](CancelGuard::disarm):
    /// hold it while waiting, so that abandoning the wait (Ctrl-C, a dropped future) stops the
    /// task.
    pub fn cancel_when_dropped(&self) -> CancelGuard<'_> {
        CancelGuard(Some(self.clone()))
    }

    /// `tasks/get`: the task now.
    pub async fn get(&self) -> Result<DetailedTask, Error> {
        let value = self
            .session
            .call_raw("tasks/get", Some(json!({ "taskId": self.id })), None)
            .await?;
        from_result("tasks/get", value)
    }

    /// `tasks/update`: answers to some of the task's `inputRequests`, by key.
    pub async fn update(&self, responses: Map<String, Value>) -> Result<(), Error> {
        self.session
            .call_raw(
                "tasks/update",
                Some(json!({ "taskId": self.id, "inputResponses": responses })),
                None,
            )
            .await
            .map(drop)
    }

    /// `tasks/cancel`: asks the server to stop the task (it may still end otherwise).
    pub async fn cancel(&self) -> Result<(), Error> {
        self.session
            .call_raw("tasks/cancel", Some(json!({ "taskId": self.id })), None)
            .await
            .map(drop)
    }

    /// Waits for the end of the task, answering its input requests through the session's
    /// handlers, and returns its result: a `completed` task's result, a `failed` task's error
    /// ([`Error::Rpc`]), a `cancelled` task as [`Error::Protocol`] saying so.
    pub async fn wait(&self) -> Result<CallToolResult, Error> {
        self.wait_with_status(|_| {}).await
    }

    /// [`wait`](Self::wait), calling `status` with the task each time its status or status
    /// message changes (the first time too).
    pub async fn wait_with_status(
        &self,
        mut status: impl FnMut(&DetailedTask) + Send,
    ) -> Result<CallToolResult, Error> {
        let value = self.wait_polling(DEFAULT_POLL, &mut status).await?;
        from_result(&self.method, value)
    }

    /// Polls until the task ends, calling `on_change` each time its status or status message
    /// changes.
    async fn wait_polling(
        &self,
        mut poll: Duration,
        on_change: &mut (dyn FnMut(&DetailedTask) + Send),
    ) -> Result<Value, Error> {
        let mut answered = std::collections::BTreeSet::new();
        let mut last: Option<(TaskStatus, Option<String>)> = None;
        loop {
            let task = self.get().await?;
            if let Some(advised) = task.task.poll_interval_ms {
                poll = Duration::from_millis(advised);
            }
            let now = (task.task.status.clone(), task.task.status_message.clone());
            if last.as_ref() != Some(&now) {
                on_change(&task);
            }
            last = Some(now);
            match task.task.status {
                TaskStatus::Completed => {
                    return Ok(task.result.map(Value::Object).unwrap_or_default());
                }
                TaskStatus::Failed => {
                    let error = task.error.unwrap_or_else(|| {
                        mcp_jsonrpc::ErrorObject::internal_error(
                            task.task.status_message.unwrap_or_default(),
                        )
                    });
                    return Err(Error::Rpc {
                        server: self.session.server_name().to_owned(),
                        method: self.method.clone(),
                        error: Box::new(error),
                    });
                }
                TaskStatus::Cancelled => {
                    return Err(self
                        .session
                        .task_error(&self.method, format!("task {} was cancelled", self.id)));
                }
                TaskStatus::InputRequired => {
                    let requests = task.input_requests.unwrap_or_default();
                    let fresh: Vec<_> = requests
                        .iter()
                        .filter(|(key, _)| !answered.contains(*key))
                        .collect();
                    if !fresh.is_empty() {
                        let mut responses = Map::new();
                        for (key, request) in fresh {
                            let request = serde_json::to_value(request).unwrap_or_default();
                            let answer = self.answer(key, &request).await?;
                            responses.insert(key.clone(), answer);
                            answered.insert(key.clone());
                        }
                        self.update(responses).await?;
                        continue;
                    }
                }
                _ => {}
            }
            pause(poll).await;
        }
    }

    async fn answer(&self, key: &str, request: &Value) -> Result<Value, Error> {
        let method = request
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let ctx = ServerRequestContext {
            server_name: self.session.server_name().to_owned(),
            method: method.clone(),
            params: request.get("params").cloned(),
            origin: RequestOrigin::TaskInput {
                task_id: self.id.clone(),
                key: key.to_owned(),
            },
        };
        self.session
            .shared
            .handlers
            .answer(ctx)
            .await
            .map_err(|error| {
                self.session.task_error(
                &self.method,
                format!(
                    "task {} needs input `{key}` ({method}) that this client cannot give: {error}",
                    self.id
                ),
            )
            })
    }
}

/// Cancels a task when dropped, unless disarmed first: see
/// [`TaskHandle::cancel_when_dropped`].
#[derive(Debug)]
#[must_use = "dropping the guard at once cancels the task"]
pub struct CancelGuard<'a>(Option<TaskHandle<'a>>);

impl CancelGuard<'_> {
    /// Keeps the task running when the guard is dropped.
    pub fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for CancelGuard<'_> {
    fn drop(&mut self) {
        let Some(task) = self.0.take() else {
            return;
        };
        let params = json!({ "taskId": task.id });
        let session = task.session;
        // Cannot wait here: send it through a detached request on the same connection.
        session.request_detached("tasks/cancel", params);
    }
}

/// What a task is doing, in a line: its status message, else its status.
pub fn task_status_line(task: &DetailedTask) -> String {
    match &task.task.status_message {
        Some(message) => format!("{}: {message}", task.task.status.as_str()),
        None => task.task.status.as_str().to_owned(),
    }
}

/// The task id of a `resultType: "task"` answer.
pub(crate) fn task_id_of(result: &Value) -> Option<String> {
    if result.get("resultType").and_then(Value::as_str) != Some("task") {
        return None;
    }
    result
        .get("taskId")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// Whether `method`'s result may be a task (the method table says).
pub(crate) fn may_be_task(method: &str) -> bool {
    let _ = CallToolRequest::METHOD;
    mcp_schema::methods::method_info(method).is_some_and(|info| info.task_augmentable)
}
