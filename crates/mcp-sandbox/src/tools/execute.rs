//! `execute_code` and `execute_command`: find or create the session, run, stream the output
//! as progress, answer with [`ExecutionOutput`].

use std::sync::Arc;
use std::time::Duration;

use mcp_server::schema::CallToolResult;
use mcp_server::{Error, RequestContext, TaskStart, TaskSupport, ToolDef, schema_of};
use serde::Deserialize;
use serde_json::{Map, Value};
use tokio::sync::mpsc;

use super::{ExecutionOutput, annotations, schema, session_id};
use crate::driver::Job;
use crate::flavor::Flavor;
use crate::session::Sessions;
use crate::template::Template;

/// The largest code or command line accepted, in bytes.
const MAX_SOURCE: usize = 4 << 20;

/// The properties of `execute_code` of its own (the session ones are added by [`input_schema`]).
const CODE_PROPERTIES: &str = r#"{
  "code": {"type": "string", "description": "Code to execute"},
  "template": {
    "type": "string",
    "description": "Sandbox template: the language of a new session (a session's template is fixed)",
    "enum": ["python", "node"],
    "default": "python"
  }
}"#;

/// The properties of `execute_command` of its own.
const COMMAND_PROPERTIES: &str = r#"{
  "command": {"type": "string", "description": "Command to execute: a shell command line (run by sh -c) when args is absent, else the program to run"},
  "args": {"type": "array", "items": {"type": "string"}, "description": "Optional arguments: the program in command is run directly with them, without a shell"}
}"#;

/// The properties both tools share: which session, how big a new one is, how long to wait.
const SESSION_PROPERTIES: &str = r#"{
  "session_id": {"type": "string", "description": "Optional session ID: run in this session, with its variables and files; omit to start a new session"},
  "flavor": {
    "type": "string",
    "description": "Size of a new session: small 1 CPU/1 GiB, medium 2/2 GiB, large 4/4 GiB",
    "enum": ["small", "medium", "large"],
    "default": "small"
  },
  "timeout": {"type": "number", "exclusiveMinimum": 0, "description": "Seconds it may run (default: the server's execution timeout)"}
}"#;

/// An input schema: the tool's own properties (the first `required`), then the session ones.
fn input_schema(own: &str, required: &str) -> Value {
    let mut properties = match schema(own) {
        Value::Object(map) => map,
        _ => unreachable!("the properties are an object"),
    };
    if let Value::Object(shared) = schema(SESSION_PROPERTIES) {
        properties.extend(shared);
    }
    serde_json::json!({
        "type": "object",
        "properties": properties,
        "required": [required],
        "additionalProperties": false
    })
}

#[derive(Debug, Deserialize)]
struct CodeArgs {
    code: String,
    template: Option<Template>,
    session_id: Option<String>,
    flavor: Option<Flavor>,
    timeout: Option<f64>,
}

#[derive(Debug, Deserialize)]
struct CommandArgs {
    command: String,
    args: Option<Vec<String>>,
    session_id: Option<String>,
    flavor: Option<Flavor>,
    timeout: Option<f64>,
}

fn parse<T: for<'de> Deserialize<'de>>(arguments: Map<String, Value>) -> Result<T, Error> {
    serde_json::from_value(Value::Object(arguments))
        .map_err(|e| Error::invalid_params(format!("invalid arguments: {e}")))
}

fn source<'a>(what: &str, text: &'a str) -> Result<&'a str, Error> {
    if text.trim().is_empty() {
        return Err(Error::msg(format!("{what} is empty: pass what to run")));
    }
    if text.len() > MAX_SOURCE {
        return Err(Error::msg(format!(
            "{what} is {} bytes; the limit is {} MiB: write it to a file in the workspace in \
             parts, or run a file that is already there",
            text.len(),
            MAX_SOURCE >> 20
        )));
    }
    if text.contains('\0') {
        return Err(Error::msg(format!("{what} contains a NUL character")));
    }
    Ok(text)
}

fn timeout(sessions: &Sessions, asked: Option<f64>) -> Result<Duration, Error> {
    let config = sessions.config();
    let Some(seconds) = asked else {
        return Ok(config.execution_timeout);
    };
    let max = config.max_execution_timeout;
    if !seconds.is_finite() || seconds <= 0.0 || seconds > max.as_secs_f64() {
        return Err(Error::msg(format!(
            "timeout must be more than 0 and at most {} seconds (MSB_MAX_EXECUTION_TIME), not \
             {seconds}",
            max.as_secs()
        )));
    }
    Ok(Duration::from_secs_f64(seconds))
}

pub(super) fn execute_code(sessions: Arc<Sessions>) -> ToolDef {
    ToolDef::raw(
        "execute_code",
        "Execute code in a sandbox with automatic session management: Python or Node.js (with \
         top-level await). Variables, imports and functions persist between calls with the same \
         session_id, like cells of a notebook, and the last expression's value is shown; files \
         persist in /workspace. Omit session_id to start a new session: the result carries its \
         id. No network access. Output is streamed as progress while the code runs.",
        input_schema(CODE_PROPERTIES, "code"),
        move |arguments, cx| {
            let sessions = sessions.clone();
            async move {
                let args: CodeArgs = parse(arguments)?;
                let code = source("code", &args.code)?.to_owned();
                let timeout = timeout(&sessions, args.timeout)?;
                let id = session_id(args.session_id)?;
                // A new session is Python unless told otherwise (the seed's default); an
                // existing one keeps its template, which is only checked when one is given.
                let template = match (&id, args.template) {
                    (None, None) => Some(Template::Python),
                    (_, template) => template,
                };
                run(
                    &sessions,
                    id,
                    template,
                    args.flavor,
                    Job::Code(code),
                    timeout,
                    &cx,
                )
                .await
            }
        },
    )
    .expect("a valid schema")
    .output_schema(schema_of::<ExecutionOutput>())
    .expect("a valid output schema")
    .annotations(annotations(false, true))
    .task_support(TaskSupport::Optional)
    .task_start(TaskStart::After(TASK_AFTER))
}

pub(super) fn execute_command(sessions: Arc<Sessions>) -> ToolDef {
    ToolDef::raw(
        "execute_command",
        "Execute a command in a sandbox session's /workspace: a shell command line (sh -c) when \
         args is absent, or a program run directly with args. Files persist across calls with the \
         same session_id (and are shared with execute_code in that session). Omit session_id to \
         start a new session: the result carries its id. No network access. Output is streamed \
         as progress while the command runs.",
        input_schema(COMMAND_PROPERTIES, "command"),
        move |arguments, cx| {
            let sessions = sessions.clone();
            async move {
                let args: CommandArgs = parse(arguments)?;
                let command = source("command", &args.command)?.to_owned();
                let job = match args.args {
                    None => Job::Shell(command),
                    Some(list) => {
                        if list.iter().any(|a| a.contains('\0')) {
                            return Err(Error::msg("an argument contains a NUL character"));
                        }
                        let total: usize = list.iter().map(String::len).sum();
                        if total > MAX_SOURCE {
                            return Err(Error::msg(format!(
                                "the arguments are {total} bytes; the limit is {} MiB",
                                MAX_SOURCE >> 20
                            )));
                        }
                        Job::Argv(std::iter::once(command).chain(list).collect())
                    }
                };
                let timeout = timeout(&sessions, args.timeout)?;
                let id = session_id(args.session_id)?;
                run(&sessions, id, None, args.flavor, job, timeout, &cx).await
            }
        },
    )
    .expect("a valid schema")
    .output_schema(schema_of::<ExecutionOutput>())
    .expect("a valid output schema")
    .annotations(annotations(false, true))
    .task_support(TaskSupport::Optional)
    .task_start(TaskStart::After(TASK_AFTER))
}

async fn run(
    sessions: &Sessions,
    id: Option<String>,
    template: Option<Template>,
    flavor: Option<Flavor>,
    job: Job,
    timeout: Duration,
    cx: &RequestContext,
) -> Result<CallToolResult, Error> {
    let (session, created) = sessions
        .acquire(id.as_deref(), template, flavor)
        .await
        .map_err(Error::msg)?;
    let (progress, mut updates) = mpsc::channel::<(crate::driver::Stream, String)>(16);
    let is_code = matches!(job, Job::Code(_));
    // Output always streams: a call may become a task while it runs, and a task shows it.
    let execute = async {
        let result = session
            .execute(&job, timeout, Some(&progress), cx.cancelled())
            .await;
        drop(progress);
        result
    };
    let forward = async {
        let mut sent = 0u64;
        let mut tail = OutputTail::default();
        while let Some((_, text)) = updates.recv().await {
            sent += text.len() as u64;
            tail.push(&text);
            // Progress carries each piece of output; a task's status, the latest output.
            let message = match cx.task_id() {
                Some(_) => tail.as_str(),
                None => &text,
            };
            cx.progress(sent as f64, None, Some(message)).await;
        }
    };
    let (execution, ()) = tokio::join!(execute, forward);
    let execution = execution.map_err(Error::msg)?;
    let output = ExecutionOutput::new(
        session.id(),
        created,
        session.template(),
        session.flavor(),
        is_code,
        execution,
    );
    sessions.count_execution(match output.status {
        super::Status::Ok => "ok",
        super::Status::Error => "error",
        super::Status::Timeout => "timeout",
        super::Status::Cancelled => "cancelled",
        super::Status::Crashed => "crashed",
    });
    Ok(output.into_result(timeout))
}

/// The latest output of a call, at most [`OutputTail::LIMIT`] bytes: what a task shows as its
/// status while it runs (`tasks/get`).
#[derive(Default)]
struct OutputTail(String);

impl OutputTail {
    const LIMIT: usize = 4096;

    fn push(&mut self, text: &str) {
        self.0.push_str(text);
        if self.0.len() > Self::LIMIT {
            let mut cut = self.0.len() - Self::LIMIT;
            while !self.0.is_char_boundary(cut) {
                cut += 1;
            }
            self.0.drain(..cut);
        }
    }

    fn as_str(&self) -> &str {
        &self.0
    }
}

/// When a call that takes long becomes a task, for a client that follows tasks: quick calls
/// are answered inline.
pub(super) const TASK_AFTER: Duration = Duration::from_secs(2);
