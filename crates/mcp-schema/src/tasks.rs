//! Tasks (2025-11-25, experimental): task-augmented requests, `tasks/get`, `tasks/result`,
//! `tasks/list`, `tasks/cancel` and `notifications/tasks/status`.
//!
//! Either side may be the receiver: a client augments `tools/call`, a server augments
//! `sampling/createMessage` or `elicitation/create`, by setting the params' `task` member; the
//! receiver then answers with a [`CreateTaskResult`] (see [`Outcome::Task`]) and the real result
//! is fetched with `tasks/result`. 2026-07-28 moved tasks out of the core protocol into the
//! `io.modelcontextprotocol/tasks` extension, which this crate does not model.
//!
//! [`Outcome::Task`]: crate::Outcome::Task

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::common::ResultType;
use crate::macros::{extensible, has_meta, string_enum};
use crate::meta::Meta;
use crate::pagination::Cursor;

string_enum! {
    /// The state of a task (`TaskStatus`).
    pub enum TaskStatus {
        /// `"working"`: being processed.
        Working = "working",
        /// `"input_required"`: waiting for input (elicitation or sampling).
        InputRequired = "input_required",
        /// `"completed"`: the result is available.
        Completed = "completed",
        /// `"failed"`: the request did not complete successfully.
        Failed = "failed",
        /// `"cancelled"`: cancelled before completion.
        Cancelled = "cancelled",
    }
}

impl TaskStatus {
    /// True for `completed`, `failed` and `cancelled`.
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

/// The `task` member of a task-augmented request's params (`TaskMetadata`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskMetadata {
    /// Requested retention in milliseconds from creation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<u64>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The value of `_meta["io.modelcontextprotocol/related-task"]` (`RelatedTaskMetadata`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RelatedTaskMetadata {
    /// The task this message relates to.
    pub task_id: String,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl RelatedTaskMetadata {
    /// Metadata for task `task_id`.
    pub fn new(task_id: impl Into<String>) -> Self {
        Self {
            task_id: task_id.into(),
            extra: Map::new(),
        }
    }
}

/// The data of a task (`Task`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// The task id (assigned by the receiver).
    pub task_id: String,
    /// The current state.
    pub status: TaskStatus,
    /// A human-readable description of the state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// ISO 8601 creation time.
    pub created_at: String,
    /// ISO 8601 time of the last update.
    pub last_updated_at: String,
    /// Retention in milliseconds from creation; `null` (None) for unlimited. Always sent.
    pub ttl: Option<u64>,
    /// Suggested polling interval in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval: Option<u64>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Task {
    /// A task with the required members.
    pub fn new(
        task_id: impl Into<String>,
        status: TaskStatus,
        created_at: impl Into<String>,
        last_updated_at: impl Into<String>,
        ttl: Option<u64>,
    ) -> Self {
        Self {
            task_id: task_id.into(),
            status,
            status_message: None,
            created_at: created_at.into(),
            last_updated_at: last_updated_at.into(),
            ttl,
            poll_interval: None,
            extra: Map::new(),
        }
    }
}

/// The answer to a task-augmented request (`CreateTaskResult`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateTaskResult {
    /// The created task.
    pub task: Task,
    /// `_meta` (may carry `io.modelcontextprotocol/model-immediate-response`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl CreateTaskResult {
    /// A result for `task`.
    pub fn new(task: Task) -> Self {
        Self {
            task,
            meta: None,
            extra: Map::new(),
        }
    }
}

/// Params of `tasks/get`, `tasks/result` and `tasks/cancel` (`{ taskId }`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTaskRequestParams {
    /// The task id.
    pub task_id: String,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl GetTaskRequestParams {
    /// Params for task `task_id`.
    pub fn new(task_id: impl Into<String>) -> Self {
        Self {
            task_id: task_id.into(),
            ..Self::default()
        }
    }
}

/// Params of `tasks/result`.
pub type GetTaskPayloadRequestParams = GetTaskRequestParams;
/// Params of `tasks/cancel`.
pub type CancelTaskRequestParams = GetTaskRequestParams;

/// The result of `tasks/get` (`GetTaskResult`: the common result members and a [`Task`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTaskResult {
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// `resultType` (not defined for tasks; kept if present).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The task (its unmodelled members are kept in `task.extra`).
    #[serde(flatten)]
    pub task: Task,
}

impl GetTaskResult {
    /// A result for `task`.
    pub fn new(task: Task) -> Self {
        Self {
            meta: None,
            result_type: None,
            task,
        }
    }
}

/// The result of `tasks/cancel` (`CancelTaskResult`, the same shape as [`GetTaskResult`]).
pub type CancelTaskResult = GetTaskResult;

/// The result of `tasks/result` (`GetTaskPayloadResult`): the result of the original request
/// (for example a `CallToolResult`), with its members kept as they are.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GetTaskPayloadResult {
    /// `_meta` (carries `io.modelcontextprotocol/related-task`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The other members of the original request's result.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl GetTaskPayloadResult {
    /// Parses the payload as the original request's result type.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        let value = crate::meta::to_value_infallible(self);
        T::deserialize(value)
    }

    /// Wraps the result of the original request.
    pub fn from_result<T: Serialize>(result: &T) -> Result<Self, serde_json::Error> {
        serde_json::from_value(serde_json::to_value(result)?)
    }
}

/// The result of `tasks/list` (`ListTasksResult`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTasksResult {
    /// The tasks of this page.
    pub tasks: Vec<Task>,
    /// The cursor of the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// `resultType` (not defined for tasks; kept if present).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Params of `notifications/tasks/status` (`TaskStatusNotificationParams`: `_meta` and the
/// full [`Task`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskStatusNotificationParams {
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The task (its unmodelled members are kept in `task.extra`).
    #[serde(flatten)]
    pub task: Task,
}

impl TaskStatusNotificationParams {
    /// Params reporting `task`.
    pub fn new(task: Task) -> Self {
        Self { meta: None, task }
    }
}

has_meta!(
    CreateTaskResult,
    GetTaskRequestParams,
    GetTaskResult,
    GetTaskPayloadResult,
    ListTasksResult,
    TaskStatusNotificationParams,
);
extensible!(
    TaskMetadata,
    RelatedTaskMetadata,
    Task,
    CreateTaskResult,
    GetTaskRequestParams,
    GetTaskPayloadResult,
    ListTasksResult,
);
crate::macros::result_fields!(GetTaskResult, ListTasksResult);
