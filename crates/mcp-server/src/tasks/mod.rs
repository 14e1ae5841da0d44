//! The tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28): a `tools/call` that the
//! server answers with a task handle, its handler running on while the client polls
//! `tasks/get`, answers input with `tasks/update` and asks for cancellation with
//! `tasks/cancel`.

use std::time::Duration;

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
