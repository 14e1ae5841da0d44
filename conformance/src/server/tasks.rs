//! The tasks extension's fixtures (`tasks-*` scenarios): tools that run as tasks, fail, ask
//! for input inside the task, or gather input in 2026-07-28 rounds before becoming one.

use mcp_server::schema::ErrorObject;
use mcp_server::{TaskStart, TaskSupport};

use super::*;

#[derive(Deserialize, JsonSchema)]
struct GreetArgs {
    /// Who to greet.
    name: String,
}

#[derive(Deserialize, JsonSchema)]
struct SlowArgs {
    /// How long to work, in seconds.
    seconds: u64,
    /// A label for the result.
    #[serde(default)]
    label: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
struct DeleteArgs {
    /// The file to delete.
    filename: String,
}

/// Member `key` of an elicitation's content (`null` when absent).
fn answered(answer: &mcp_server::schema::ElicitResult, key: &str) -> Value {
    serde_json::to_value(&answer.content).unwrap_or_default()[key].clone()
}

fn confirm_schema() -> Value {
    json!({ "type": "object", "properties": { "confirm": { "type": "boolean" } }, "required": ["confirm"] })
}

/// The tasks fixtures.
pub(super) fn task_tools(b: mcp_server::ServerBuilder) -> mcp_server::ServerBuilder {
    b.tool("greet", "Greets someone (never a task)", |a: GreetArgs, _| async move {
        Ok(format!("Hello, {}!", a.name))
    })
    .tool_def(
        ToolDef::new(
            "slow_compute",
            "Works for `seconds` seconds, as a task when the client can follow one",
            |a: SlowArgs, cx: RequestContext| async move {
                for done in 0..a.seconds {
                    tokio::select! {
                        _ = tokio::time::sleep(Duration::from_secs(1)) => {}
                        _ = cx.cancelled() => return Err(Error::cancelled()),
                    }
                    cx.progress((done + 1) as f64, Some(a.seconds as f64), None).await;
                }
                let label = a.label.unwrap_or_else(|| "compute".to_owned());
                Ok(format!(
                    "Computation \"{label}\" completed after {} seconds. Result: 42.",
                    a.seconds
                ))
            },
        )
        .task_support(TaskSupport::Optional),
    )
    .tool_def(
        ToolDef::new(
            "failing_job",
            "A task whose tool fails (a result with isError)",
            |_: NoArguments, _| async move {
                tokio::time::sleep(Duration::from_millis(500)).await;
                Err::<String, _>(Error::msg("the job failed: disk full"))
            },
        )
        .task_support(TaskSupport::Required),
    )
    .tool_def(
        ToolDef::new(
            "protocol_error_job",
            "A task that fails with a protocol error",
            |_: NoArguments, _| async move {
                tokio::time::sleep(Duration::from_millis(300)).await;
                Err::<String, _>(Error::rpc(ErrorObject::internal_error(
                    "simulated protocol error",
                )))
            },
        )
        .task_support(TaskSupport::Required),
    )
    .tool_def(
        ToolDef::new(
            "confirm_delete",
            "Asks for confirmation inside the task",
            |a: DeleteArgs, cx: RequestContext| async move {
                let answer = cx
                    .elicit_form(format!("Delete {}?", a.filename), confirm_schema())
                    .await?;
                let confirmed = answered(&answer, "confirm").as_bool().unwrap_or(false);
                Ok(if confirmed {
                    format!("Deleted {}", a.filename)
                } else {
                    format!("Kept {}", a.filename)
                })
            },
        )
        .task_support(TaskSupport::Required),
    )
    .tool_def(
        ToolDef::new(
            "multi_input",
            "Asks for two inputs at once inside the task",
            |_: NoArguments, cx: RequestContext| async move {
                let name = json!({ "type": "object", "properties": { "name": { "type": "string" } }, "required": ["name"] });
                let answers = cx
                    .request_inputs(vec![
                        ("name".to_owned(), elicit("Your name?", name)?),
                        ("confirm".to_owned(), elicit("Go on?", confirm_schema())?),
                    ])
                    .await?;
                let (_, name) = elicited(&answers[0])?;
                Ok(format!("Got both answers ({})", name["name"]))
            },
        )
        .task_support(TaskSupport::Required),
    )
    .tool_def(
        ToolDef::new(
            "test_tool_with_task",
            "Asks for a name in 2026-07-28 input rounds, then becomes a task",
            |_: NoArguments, cx: RequestContext| async move {
                let answer = cx
                    .elicit_form("What is your name?", json!({
                        "type": "object", "properties": { "name": { "type": "string" } }, "required": ["name"]
                    }))
                    .await?;
                cx.run_as_task().await?;
                let name = answered(&answer, "name");
                Ok(format!("Hello, {}!", name.as_str().unwrap_or("nobody")))
            },
        )
        .task_support(TaskSupport::Required)
        .task_start(TaskStart::Explicit),
    )
}
