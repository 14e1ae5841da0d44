//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663; 2026-07-28 and later).
//!
//! A server may answer a `tools/call` whose request declared the extension (in the per-request
//! client capabilities) with a [`CreateTaskResult`] (`resultType: "task"`) instead of the tool's
//! result. The client then reads the task with `tasks/get` ([`GetTaskResult`], a
//! [`DetailedTask`] carrying the input requests, the result or the error its status calls for),
//! answers input requests with `tasks/update` ([`UpdateTaskRequestParams`]), and asks for
//! cancellation with `tasks/cancel`; both answer an empty acknowledgement. A server may send
//! `notifications/tasks` ([`TaskNotificationParams`]) on a `subscriptions/listen` stream that
//! named the task in `taskIds`.
//!
//! `tasks/get` and `tasks/cancel` share their names with the experimental 2025-11-25 core tasks
//! ([`crate::tasks`]); their result unions ([`TaskGetResult`], [`TaskCancelResult`]) hold either
//! era's shape, so that one method table row serves both.

use mcp_jsonrpc::ErrorObject;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::common::{EmptyResult, JsonObject, ResultFields, ResultType};
use crate::input_required::{InputRequests, InputResponses};
use crate::macros::{extensible, has_meta, result_fields, value_union_serde};
use crate::meta::{HasMeta, Meta};
pub use crate::tasks::TaskStatus;

/// A task's state (`Task`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// The task id: made by the server, unguessable.
    pub task_id: String,
    /// The current status.
    pub status: TaskStatus,
    /// A human-readable description of the status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// ISO 8601 creation time.
    pub created_at: String,
    /// ISO 8601 time of the last change.
    pub last_updated_at: String,
    /// How long after creation the task is kept, in milliseconds; `None` (`null`): unlimited.
    /// Always sent.
    #[serde(default)]
    pub ttl_ms: Option<u64>,
    /// How often the client should poll, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A task with what its status calls for (`DetailedTask`): the outstanding `inputRequests`
/// (`input_required`), the request's `result` (`completed`, tool errors included), or the
/// JSON-RPC `error` (`failed`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DetailedTask {
    /// Requests the client answers with `tasks/update` (`input_required`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// The result the request would have had (`completed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<JsonObject>,
    /// Why the request failed (`failed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
    /// The task.
    #[serde(flatten)]
    pub task: Task,
}

impl DetailedTask {
    /// Checks that the payload matches the status: `inputRequests` exactly when
    /// `input_required`, `result` exactly when `completed`, `error` exactly when `failed`.
    pub fn validate(&self) -> Result<(), String> {
        let status = &self.task.status;
        let pairs = [
            (
                "inputRequests",
                TaskStatus::InputRequired,
                self.input_requests.is_some(),
            ),
            ("result", TaskStatus::Completed, self.result.is_some()),
            ("error", TaskStatus::Failed, self.error.is_some()),
        ];
        for (member, wants, present) in pairs {
            if (*status == wants) != present {
                return Err(format!(
                    "a {} task {} `{member}`",
                    status.as_str(),
                    if present { "must not carry" } else { "needs" }
                ));
            }
        }
        Ok(())
    }
}

/// The answer to a request that became a task (`CreateTaskResult`, `resultType: "task"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateTaskResult {
    /// `resultType` (`"task"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The task.
    #[serde(flatten)]
    pub task: Task,
}

impl CreateTaskResult {
    /// The handle of `task`.
    pub fn new(task: Task) -> Self {
        Self {
            result_type: Some(ResultType::Task),
            meta: None,
            task,
        }
    }
}

/// The result of `tasks/get` (`GetTaskResult`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTaskResult {
    /// `resultType` (`"complete"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The task.
    #[serde(flatten)]
    pub task: DetailedTask,
}

impl GetTaskResult {
    /// The result reporting `task`.
    pub fn new(task: DetailedTask) -> Self {
        Self {
            result_type: None,
            meta: None,
            task,
        }
    }
}

/// Params of `tasks/update` (`UpdateTaskRequest`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateTaskRequestParams {
    /// The task.
    pub task_id: String,
    /// Answers, keyed as the task's `inputRequests`; keys not outstanding are ignored.
    pub input_responses: InputResponses,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl UpdateTaskRequestParams {
    /// Params answering `responses` for task `task_id`.
    pub fn new(task_id: impl Into<String>, responses: InputResponses) -> Self {
        Self {
            task_id: task_id.into(),
            input_responses: responses,
            ..Self::default()
        }
    }
}

/// Params of `notifications/tasks` (`TaskStatusNotificationParams`): the detailed task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskNotificationParams {
    /// `_meta` (carries the subscription id).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The task.
    #[serde(flatten)]
    pub task: DetailedTask,
}

/// The `taskIds` member a `subscriptions/listen` filter gains with the extension.
pub const TASK_IDS: &str = "taskIds";

/// The result of `tasks/get` in either era.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
#[allow(clippy::large_enum_variant)]
pub enum TaskGetResult {
    /// The extension's detailed task (2026-07-28).
    Extension(GetTaskResult),
    /// The 2025-11-25 core task.
    Legacy(crate::tasks::GetTaskResult),
}

/// The result of `tasks/cancel` in either era.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum TaskCancelResult {
    /// The extension's empty acknowledgement (2026-07-28).
    Ack(EmptyResult),
    /// The 2025-11-25 core answer: the task.
    Legacy(crate::tasks::GetTaskResult),
}

fn has(v: &Value, member: &str) -> bool {
    v.get(member).is_some()
}

// The 2025-11-25 task has `ttl`, the extension's `ttlMs`.
value_union_serde!(TaskGetResult, |v| if has(&v, "ttl") && !has(&v, "ttlMs") {
    serde_json::from_value(v).map(TaskGetResult::Legacy)
} else {
    serde_json::from_value(v).map(TaskGetResult::Extension)
});

// The extension's acknowledgement carries no task.
value_union_serde!(TaskCancelResult, |v| if has(&v, "taskId") {
    serde_json::from_value(v).map(TaskCancelResult::Legacy)
} else {
    serde_json::from_value(v).map(TaskCancelResult::Ack)
});

macro_rules! either {
    ($name:ident: $($variant:ident),+) => {
        impl HasMeta for $name {
            fn meta(&self) -> Option<&Meta> {
                match self { $( Self::$variant(r) => r.meta(), )+ }
            }
            fn meta_mut(&mut self) -> &mut Option<Meta> {
                match self { $( Self::$variant(r) => r.meta_mut(), )+ }
            }
        }

        impl ResultFields for $name {
            fn result_type(&self) -> Option<&ResultType> {
                match self { $( Self::$variant(r) => r.result_type(), )+ }
            }
            fn result_type_mut(&mut self) -> &mut Option<ResultType> {
                match self { $( Self::$variant(r) => r.result_type_mut(), )+ }
            }
        }
    };
}

either!(TaskGetResult: Extension, Legacy);
either!(TaskCancelResult: Ack, Legacy);

has_meta!(
    CreateTaskResult,
    GetTaskResult,
    UpdateTaskRequestParams,
    TaskNotificationParams
);
extensible!(Task, UpdateTaskRequestParams);
result_fields!(CreateTaskResult, GetTaskResult);
