//! A task as it is stored: everything any replica needs to answer `tasks/get`, and the changes
//! the requests and the running handler make to it, applied by one function so that every
//! store keeps the same rules.

use std::collections::BTreeSet;

use mcp_jsonrpc::ErrorObject;
use mcp_schema::ext::tasks::{DetailedTask, Task, TaskStatus};
use mcp_schema::{InputRequests, InputResponses, JsonObject};
use serde::{Deserialize, Serialize};

/// One task, as a [`TaskStore`](super::TaskStore) keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskRecord {
    /// The task id (unguessable).
    pub id: String,
    /// The current status.
    pub status: TaskStatus,
    /// What the task is doing, for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_ms: u64,
    /// Time of the last change, milliseconds since the Unix epoch.
    pub updated_ms: u64,
    /// How long after creation the task is kept (`None`: until the server restarts).
    pub ttl_ms: Option<u64>,
    /// How often clients should poll.
    pub poll_interval_ms: u64,
    /// The replica that runs the handler.
    pub owner: String,
    /// Who created the task (`issuer subject`); only they may read or change it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub principal: Option<String>,
    /// Input requests waiting for the client, by key.
    #[serde(default, skip_serializing_if = "InputRequests::is_empty")]
    pub input_requests: InputRequests,
    /// Every input key ever issued (keys are unique for the task's life).
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub issued: BTreeSet<String>,
    /// Answers the client sent that the handler has not taken yet.
    #[serde(default, skip_serializing_if = "InputResponses::is_empty")]
    pub answers: InputResponses,
    /// Whether the client asked for cancellation.
    #[serde(default)]
    pub cancel_requested: bool,
    /// The request's result (`completed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<JsonObject>,
    /// Why the request failed (`failed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
}

/// A change to a task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum TaskChange {
    /// The client's `tasks/update`: answers for outstanding keys are kept, others ignored.
    Answer(InputResponses),
    /// The client's `tasks/cancel`.
    Cancel,
    /// The handler asks for input (`input_required` until every key is answered).
    Ask(InputRequests),
    /// The handler takes the answers to these keys.
    Take(Vec<String>),
    /// The handler reports what it is doing.
    Message(String),
    /// The task ended.
    Finish(Ending),
}

/// How a task ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Ending {
    /// The result the request would have had (tool errors included).
    Completed(JsonObject),
    /// A protocol-level failure.
    Failed(ErrorObject),
    /// Stopped at the client's request.
    Cancelled,
}

/// What applying a [`TaskChange`] did.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Applied {
    /// Whether the record changed (then it is written back, and watchers are told).
    pub changed: bool,
    /// The answers a [`TaskChange::Take`] took.
    pub taken: InputResponses,
    /// Whether the change was refused because the task had already ended.
    pub ended: bool,
}

impl TaskRecord {
    /// A new `working` task.
    pub fn new(id: String, owner: String, now_ms: u64, ttl_ms: Option<u64>, poll_ms: u64) -> Self {
        Self {
            id,
            status: TaskStatus::Working,
            status_message: None,
            created_ms: now_ms,
            updated_ms: now_ms,
            ttl_ms,
            poll_interval_ms: poll_ms,
            owner,
            principal: None,
            input_requests: InputRequests::new(),
            issued: BTreeSet::new(),
            answers: InputResponses::new(),
            cancel_requested: false,
            result: None,
            error: None,
        }
    }

    /// When the task may be forgotten, milliseconds since the Unix epoch.
    pub fn expires_ms(&self) -> Option<u64> {
        self.ttl_ms.map(|ttl| self.created_ms.saturating_add(ttl))
    }

    /// Whether the task ended.
    pub fn is_terminal(&self) -> bool {
        self.status.is_terminal()
    }

    /// Applies `change` at `now_ms`. A task that ended takes no change but a client's answer
    /// or cancellation (both ignored, as the protocol says).
    pub fn apply(&mut self, change: TaskChange, now_ms: u64) -> Applied {
        let mut applied = Applied::default();
        if self.is_terminal() {
            applied.ended = true;
            return applied;
        }
        match change {
            TaskChange::Answer(responses) => {
                for (key, response) in responses {
                    if self.input_requests.remove(&key).is_some() {
                        self.answers.insert(key, response);
                        applied.changed = true;
                    }
                }
                if applied.changed && self.input_requests.is_empty() {
                    self.status = TaskStatus::Working;
                }
            }
            TaskChange::Cancel => {
                applied.changed = !self.cancel_requested;
                self.cancel_requested = true;
            }
            TaskChange::Ask(requests) => {
                for (key, request) in requests {
                    self.issued.insert(key.clone());
                    self.input_requests.insert(key, request);
                }
                self.status = TaskStatus::InputRequired;
                applied.changed = true;
            }
            TaskChange::Take(keys) => {
                for key in keys {
                    if let Some(answer) = self.answers.remove(&key) {
                        applied.taken.insert(key, answer);
                    }
                }
                applied.changed = !applied.taken.is_empty();
            }
            TaskChange::Message(message) => {
                applied.changed = self.status_message.as_deref() != Some(message.as_str());
                self.status_message = Some(message);
            }
            TaskChange::Finish(ending) => {
                self.input_requests.clear();
                self.answers.clear();
                match ending {
                    Ending::Completed(result) => {
                        self.status = TaskStatus::Completed;
                        self.result = Some(result);
                    }
                    Ending::Failed(error) => {
                        self.status = TaskStatus::Failed;
                        self.status_message = Some(error.message.clone());
                        self.error = Some(error);
                    }
                    Ending::Cancelled => self.status = TaskStatus::Cancelled,
                }
                applied.changed = true;
            }
        }
        if applied.changed {
            self.updated_ms = now_ms.max(self.updated_ms);
        }
        applied
    }

    /// The task's wire shape.
    pub fn task(&self) -> Task {
        Task {
            task_id: self.id.clone(),
            status: self.status.clone(),
            status_message: self.status_message.clone(),
            created_at: iso8601(self.created_ms),
            last_updated_at: iso8601(self.updated_ms),
            ttl_ms: self.ttl_ms,
            poll_interval_ms: (!self.is_terminal()).then_some(self.poll_interval_ms),
            extra: Default::default(),
        }
    }

    /// The task with what its status calls for (`tasks/get`, `notifications/tasks`).
    pub fn detailed(&self) -> DetailedTask {
        DetailedTask {
            input_requests: (self.status == TaskStatus::InputRequired)
                .then(|| self.input_requests.clone()),
            result: self
                .result
                .clone()
                .filter(|_| self.status == TaskStatus::Completed),
            error: self
                .error
                .clone()
                .filter(|_| self.status == TaskStatus::Failed),
            task: self.task(),
        }
    }
}

/// `ms` since the epoch as an RFC 3339 UTC time with milliseconds.
fn iso8601(ms: u64) -> String {
    let nanos = i128::from(ms) * 1_000_000;
    let format = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
    );
    time::OffsetDateTime::from_unix_timestamp_nanos(nanos)
        .ok()
        .and_then(|t| t.format(&format).ok())
        .unwrap_or_else(|| "1970-01-01T00:00:00.000Z".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_schema::InputResponse;
    use serde_json::json;

    fn elicit() -> mcp_schema::InputRequest {
        serde_json::from_value(json!({"method": "elicitation/create", "params": {
            "mode": "form", "message": "ok?", "requestedSchema": {"type": "object", "properties": {}}
        }}))
        .unwrap()
    }

    fn accept() -> InputResponse {
        serde_json::from_value(json!({"action": "accept", "content": {}})).unwrap()
    }

    #[test]
    fn partial_answers_keep_the_task_waiting_for_the_rest() {
        let mut r = TaskRecord::new("t".into(), "r".into(), 1_000, Some(60_000), 1_000);
        r.apply(
            TaskChange::Ask([("a".into(), elicit()), ("b".into(), elicit())].into()),
            1_001,
        );
        let a = r.apply(
            TaskChange::Answer([("a".into(), accept()), ("zz".into(), accept())].into()),
            1_002,
        );
        assert!(a.changed);
        assert_eq!(r.status, TaskStatus::InputRequired);
        assert_eq!(r.input_requests.keys().collect::<Vec<_>>(), ["b"]);
        assert!(
            !r.answers.contains_key("zz"),
            "keys not outstanding are ignored"
        );
        r.apply(TaskChange::Answer([("b".into(), accept())].into()), 1_003);
        assert_eq!(r.status, TaskStatus::Working);
        let taken = r.apply(TaskChange::Take(vec!["a".into(), "b".into()]), 1_004);
        assert_eq!(taken.taken.len(), 2);
        assert!(r.answers.is_empty());
    }

    #[test]
    fn an_ended_task_takes_no_change() {
        let mut r = TaskRecord::new("t".into(), "r".into(), 0, None, 1_000);
        r.apply(TaskChange::Finish(Ending::Cancelled), 5);
        let a = r.apply(TaskChange::Finish(Ending::Completed(JsonObject::new())), 6);
        assert!(a.ended && !a.changed);
        assert_eq!(r.status, TaskStatus::Cancelled);
        assert_eq!(r.updated_ms, 5);
        assert!(r.detailed().validate().is_ok());
        assert_eq!(r.task().created_at, "1970-01-01T00:00:00.000Z");
    }

    #[test]
    fn detailed_tasks_carry_what_their_status_calls_for() {
        let mut r = TaskRecord::new("t".into(), "r".into(), 1_700_000_000_123, None, 1_000);
        r.apply(
            TaskChange::Finish(Ending::Failed(super::super::failure("boom"))),
            1_700_000_000_200,
        );
        let d = r.detailed();
        assert!(d.validate().is_ok(), "{:?}", d.validate());
        assert_eq!(d.task.status_message.as_deref(), Some("boom"));
        assert_eq!(d.task.created_at, "2023-11-14T22:13:20.123Z");
        assert_eq!(d.task.poll_interval_ms, None);
    }
}
