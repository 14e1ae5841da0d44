//! The tasks extension on the request path: whether a `tools/call` becomes a task and when,
//! the promotion itself (the record stored before the handle goes out, the handler moved to a
//! task of its own), and `tasks/get`, `tasks/update`, `tasks/cancel`.

use mcp_jsonrpc::ErrorObject;
use mcp_schema::ext::TASKS;
use mcp_schema::ext::tasks::{
    CreateTaskResult, GetTaskResult, TaskCancelResult, TaskGetResult, TaskNotificationParams,
    UpdateTaskRequestParams,
};
use mcp_schema::{
    CallToolResult, EmptyResult, Era, GetTaskRequestParams, Meta, Outcome, ResultFields,
    TaskNotification,
};
use tokio::sync::oneshot;

use super::envelope::missing_extension;
use super::input;
use crate::error::Error;
use crate::middleware::Call;
use crate::registry::BoxFuture;
use crate::registry::tool::ToolDef;
use crate::session::{Outbound, notification};
use crate::tasks::{
    Ending, TaskChange, TaskRecord, TaskRun, TaskStart, TaskSupport, new_id, now_ms,
};

/// When this call becomes a task (`None`: it runs inline): only for a tool that allows it,
/// asked by a 2026-07-28 request whose client capabilities declare the extension, while this
/// process runs fewer than `max_tasks`. A tool that requires tasks refuses other requests.
pub(super) fn start(call: &Call<'_>, def: &ToolDef) -> Result<Option<TaskStart>, Error> {
    let support = def.task.support;
    let version = call.cx.protocol_version();
    // The extension does not exist in the stateful era: every call runs inline there.
    if support == TaskSupport::Forbidden || version.is_stateful() {
        return Ok(None);
    }
    let required = support == TaskSupport::Required;
    if !call.cx.client_capabilities().declares_extension(TASKS) {
        if required {
            return Err(missing_extension(
                TASKS,
                format!(
                    "tool {} runs only as a task: declare the {TASKS} extension in the \
                     request's client capabilities",
                    def.name()
                ),
            ));
        }
        return Ok(None);
    }
    let shared = &call.cx.inner.session.shared;
    if shared.tasks.running() >= shared.options.max_tasks {
        if required {
            return Err(Error::rpc(ErrorObject::new(
                crate::middleware::codes::OVERLOADED,
                format!(
                    "this server runs {} tasks already; try again later",
                    shared.options.max_tasks
                ),
            )));
        }
        return Ok(None);
    }
    Ok(Some(def.task.start))
}

/// Runs `work` (the handler and what becomes of its outcome) as a task, from `start` on.
pub(super) async fn call(
    call: &Call<'_>,
    start: TaskStart,
    mut work: BoxFuture<Result<CallToolResult, Error>>,
) -> Result<Outcome<CallToolResult>, Error> {
    let cx = &call.cx;
    let (promote, mut asked) = oneshot::channel();
    *cx.inner.task.promote.lock() = Some(promote);
    let reply = match start {
        TaskStart::Immediate => None,
        TaskStart::After(delay) => tokio::select! {
            outcome = &mut work => return input::outcome(call, outcome),
            _ = tokio::time::sleep(delay) => None,
            Ok(reply) = &mut asked => Some(reply),
        },
        TaskStart::Explicit => tokio::select! {
            outcome = &mut work => return input::outcome(call, outcome),
            Ok(reply) = &mut asked => Some(reply),
        },
    };
    cx.inner.task.promote.lock().take();
    let shared = &cx.inner.session.shared;
    let tasks = &shared.tasks;
    let options = &shared.options;
    let poll = options
        .task_poll_interval
        .max(tasks.store().liveness_window());
    let owner = shared
        .replicas
        .get()
        .map_or_else(|| "local".to_owned(), |r| r.replica().to_owned());
    let ttl = options.task_ttl;
    let mut record = TaskRecord::new(new_id(), owner, now_ms(), ttl.map(millis), millis(poll));
    record.principal = principal(call);
    if let Err(e) = tasks.store().create(record.clone()).await {
        tracing::warn!("{e}");
        return Err(Error::rpc(ErrorObject::internal_error(format!(
            "the task could not be created: {e}"
        ))));
    }
    let run = TaskRun::start(tasks, record.id.clone());
    let _ = cx.inner.task.run.set(run.clone());
    cx.inner.task.promoted.cancel();
    if let Some(reply) = reply {
        let _ = reply.send(true);
    }
    run.supervise(Box::pin(async move { ending(work.await) }), ttl);
    Ok(Outcome::TaskHandle(CreateTaskResult::new(record.task())))
}

/// What a task's handler outcome makes of the task.
fn ending(outcome: Result<CallToolResult, Error>) -> Ending {
    match outcome {
        Ok(mut result) => {
            result.mark_complete();
            match serde_json::to_value(result) {
                Ok(serde_json::Value::Object(result)) => Ending::Completed(result),
                _ => Ending::Failed(ErrorObject::internal_error(
                    "the tool's result could not be serialized",
                )),
            }
        }
        Err(e) if e.is_cancelled() => Ending::Cancelled,
        Err(e) => Ending::Failed(e.into_error_object(Era::Stateless)),
    }
}

fn millis(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Who may see a task: the principal that created it (`None`: no authentication).
fn principal(call: &Call<'_>) -> Option<String> {
    call.cx
        .principal()
        .map(|p| format!("{} {}", p.issuer, p.subject))
}

/// The task, if it exists, has not expired, and belongs to whoever asks.
async fn load(call: &Call<'_>, id: &str) -> Result<TaskRecord, Error> {
    let tasks = &call.cx.inner.session.shared.tasks;
    match tasks.store().load(id).await {
        Ok(Some(record)) if record.principal == principal(call) => Ok(record),
        Ok(_) => Err(not_found(id)),
        Err(e) => Err(unavailable(e)),
    }
}

fn not_found(id: &str) -> Error {
    Error::invalid_params(format!(
        "Task not found: {} (unknown, expired, or created by someone else)",
        crate::error::reflect(id)
    ))
}

fn unavailable(e: crate::tasks::TaskStoreError) -> Error {
    Error::rpc(ErrorObject::internal_error(e.to_string()))
}

async fn change(call: &Call<'_>, id: &str, change: TaskChange) -> Result<(), Error> {
    let tasks = &call.cx.inner.session.shared.tasks;
    match tasks.store().apply(id, change, now_ms()).await {
        Ok(Some((_, applied))) => {
            if applied.changed {
                tasks.changed(id);
            }
            Ok(())
        }
        Ok(None) => Err(not_found(id)),
        Err(e) => Err(unavailable(e)),
    }
}

/// `tasks/get`.
pub(super) async fn get(
    call: &Call<'_>,
    params: &GetTaskRequestParams,
) -> Result<TaskGetResult, Error> {
    let record = load(call, &params.task_id).await?;
    Ok(TaskGetResult::Extension(GetTaskResult::new(
        record.detailed(),
    )))
}

/// `tasks/update`: answers for outstanding input requests (others are ignored). The record
/// holds them before the acknowledgement goes out, so the next `tasks/get` sees them.
pub(super) async fn update(
    call: &Call<'_>,
    params: &UpdateTaskRequestParams,
) -> Result<EmptyResult, Error> {
    load(call, &params.task_id).await?;
    let answers = params.input_responses.clone();
    change(call, &params.task_id, TaskChange::Answer(answers)).await?;
    Ok(EmptyResult::default())
}

/// `tasks/cancel`: a request to stop; the task may still end otherwise. Cancelling a task that
/// ended is acknowledged too.
pub(super) async fn cancel(
    call: &Call<'_>,
    params: &GetTaskRequestParams,
) -> Result<TaskCancelResult, Error> {
    let record = load(call, &params.task_id).await?;
    if !record.is_terminal() {
        change(call, &params.task_id, TaskChange::Cancel).await?;
    }
    Ok(TaskCancelResult::Ack(EmptyResult::default()))
}

/// The tasks of `ids` a `subscriptions/listen` stream may follow: the ones that exist and
/// belong to whoever asks. Asking needs the extension declared (`-32021`).
pub(super) async fn followable(call: &Call<'_>, ids: &[String]) -> Result<Vec<String>, Error> {
    if !call.cx.client_capabilities().declares_extension(TASKS) {
        return Err(missing_extension(
            TASKS,
            format!(
                "following tasks needs the {TASKS} extension, which the request's client \
                 capabilities do not declare"
            ),
        ));
    }
    let mut agreed = Vec::new();
    for id in ids {
        if load(call, id).await.is_ok() && !agreed.contains(id) {
            agreed.push(id.clone());
        }
    }
    Ok(agreed)
}

/// `notifications/tasks` reporting task `id` as it is now, tagged with `meta`.
pub(super) async fn status_notification(
    call: &Call<'_>,
    id: &str,
    meta: &Meta,
) -> Option<Outbound> {
    let record = load(call, id).await.ok()?;
    let params = TaskNotificationParams {
        meta: Some(meta.clone()),
        task: record.detailed(),
    };
    Some(notification::<TaskNotification>(Some(&params)))
}
