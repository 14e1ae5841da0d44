//! The experimental tasks of protocol 2025-11-25 (the predecessor of the tasks extension), as
//! the TypeScript SDK serves them: a tool whose `execution.taskSupport` is `required`, on a
//! server declaring `tasks.requests.tools.call`, cannot be called plainly. Such a call is made
//! task-augmented (`params.task`), polled with `tasks/get`, and its result fetched with
//! `tasks/result` once the task needs input or ended — the server sends its questions
//! (elicitation, sampling) while `tasks/result` is pending, and the session's handlers answer
//! them as any server request. Dropping the call cancels the task (`tasks/cancel`).

use std::collections::HashSet;

use mcp_schema::{CallToolRequest, ListToolsRequest, McpRequest};
use serde_json::{Value, json};

use super::Session;
use super::tasks::{DEFAULT_POLL, advised, pause};
use crate::Error;

/// The member of a 2025-11-25 task that advises the polling pace.
const POLL_INTERVAL: &str = "pollInterval";

impl Session {
    /// Whether this `tools/call` must be task-augmented: a 2025-11-25 server that declares
    /// task-augmented `tools/call`, for a tool whose `execution.taskSupport` is `required`
    /// (learnt from `tools/list` once per session).
    pub(crate) async fn needs_legacy_task(&self, method: &str, params: Option<&Value>) -> bool {
        if method != CallToolRequest::METHOD {
            return false;
        }
        let declared = self.negotiated.result()["capabilities"]["tasks"]["requests"]["tools"]
            .get("call")
            .is_some();
        let Some(name) = params.and_then(|p| p.get("name")).and_then(Value::as_str) else {
            return false;
        };
        if !declared || params.is_some_and(|p| p.get("task").is_some()) {
            return false;
        }
        self.task_only_tools().await.contains(name)
    }

    /// The tools of this server whose calls must be tasks.
    async fn task_only_tools(&self) -> HashSet<String> {
        if let Some(known) = self.task_only.lock().clone() {
            return known;
        }
        let mut found = HashSet::new();
        let mut cursor: Option<Value> = None;
        for _ in 0..super::methods::MAX_PAGES {
            let params = cursor.take().map(|c| json!({ "cursor": c }));
            let Ok(page) = self.exchange(ListToolsRequest::METHOD, params, None).await else {
                break;
            };
            for tool in page["tools"].as_array().into_iter().flatten() {
                if tool["execution"]["taskSupport"] == "required"
                    && let Some(name) = tool["name"].as_str()
                {
                    found.insert(name.to_owned());
                }
            }
            match page.get("nextCursor") {
                Some(next) if !next.is_null() => cursor = Some(next.clone()),
                _ => break,
            }
        }
        *self.task_only.lock() = Some(found.clone());
        found
    }

    /// A task-augmented call followed to its end.
    pub(crate) async fn call_as_legacy_task(
        &self,
        method: &str,
        params: Option<Value>,
        progress_token: Option<&str>,
    ) -> Result<Value, Error> {
        let mut params = params.unwrap_or_else(|| json!({}));
        params["task"] = json!({});
        let created = self.exchange(method, Some(params), progress_token).await?;
        let Some(task) = created.get("task") else {
            // Answered at once after all.
            return Ok(created);
        };
        let Some(id) = task["taskId"].as_str().map(str::to_owned) else {
            return Err(Error::Protocol {
                server: self.server_name().to_owned(),
                message: format!("{method}: a task without a taskId"),
            });
        };
        // The extension's handle sends the same tasks/cancel.
        let handle = self.task(id.clone());
        let guard = handle.cancel_when_dropped();
        let mut poll = advised(task, POLL_INTERVAL).unwrap_or(DEFAULT_POLL);
        loop {
            let now = self
                .exchange("tasks/get", Some(json!({ "taskId": id })), None)
                .await?;
            poll = advised(&now, POLL_INTERVAL).unwrap_or(poll);
            if now["status"] != "working" {
                break;
            }
            pause(poll).await;
        }
        // Waits for the end; the server's questions come meanwhile.
        let result = self
            .exchange("tasks/result", Some(json!({ "taskId": id })), None)
            .await;
        guard.disarm();
        result
    }
}
