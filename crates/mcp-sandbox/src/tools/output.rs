//! What `execute_code` and `execute_command` answer: the output as text for the model
//! (stdout and stderr labelled when both have something, then what went wrong), and the
//! same facts as `structuredContent`.

use mcp_server::schema::{CallToolResult, StructuredContent};
use schemars::JsonSchema;
use serde::Serialize;

use crate::driver::{Outcome, RaisedError};
use crate::flavor::Flavor;
use crate::session::Execution;
use crate::template::Template;

/// How an execution ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The code ran without raising; the command exited 0.
    Ok,
    /// The code raised; the command exited non-zero or was killed by a signal.
    Error,
    /// The time limit passed: everything the call started was stopped.
    Timeout,
    /// The client cancelled the call, or the session was stopped during it.
    Cancelled,
    /// The interpreter died (killed for memory, or it exited).
    Crashed,
}

/// The `structuredContent` of `execute_code` and `execute_command`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ExecutionOutput {
    /// The session the code ran in: pass it back to keep its state and files.
    pub session_id: String,
    /// The session was created by this call.
    pub session_created: bool,
    /// The session's language.
    pub template: Template,
    /// The session's size.
    pub flavor: Flavor,
    /// How it ended.
    pub status: Status,
    /// A command's exit code; for code, 0 when it ran and 1 when it raised. Absent when it
    /// timed out, was cancelled, crashed or was killed by a signal.
    pub exit_code: Option<i32>,
    /// The signal that ended a command.
    pub signal: Option<i32>,
    /// What the code raised, or why a command could not start.
    pub error: Option<RaisedError>,
    /// Standard output (the first `MSB_MAX_OUTPUT` bytes).
    pub stdout: String,
    /// Standard error (the first `MSB_MAX_OUTPUT` bytes).
    pub stderr: String,
    /// Standard output went past the limit; the rest was dropped.
    pub stdout_truncated: bool,
    /// Standard error went past the limit; the rest was dropped.
    pub stderr_truncated: bool,
    /// Wall-clock time of the call, in milliseconds (a new session's start included).
    pub execution_time_ms: u64,
    /// The time limit passed.
    pub timed_out: bool,
    /// The interpreter was started anew before or during this call: variables, imports and
    /// functions from earlier calls are gone (files in the workspace are kept).
    pub interpreter_restarted: bool,
    /// A process was killed for exceeding the flavor's memory.
    pub out_of_memory: bool,
    /// A command rather than code (its exit code is worth a note).
    #[serde(skip)]
    #[schemars(skip)]
    command: bool,
}

impl ExecutionOutput {
    /// The output of `execution` in session `session_id`.
    pub fn new(
        session_id: &str,
        session_created: bool,
        template: Template,
        flavor: Flavor,
        is_code: bool,
        execution: Execution,
    ) -> Self {
        let (status, exit_code, signal, error) = match &execution.outcome {
            Outcome::Done(done) => {
                let status = if done.ok { Status::Ok } else { Status::Error };
                let exit_code = match (is_code, done.exit_code) {
                    (true, _) => Some(i32::from(!done.ok)),
                    (false, code) => code,
                };
                (status, exit_code, done.signal, done.error.clone())
            }
            Outcome::TimedOut => (Status::Timeout, None, None, None),
            Outcome::Cancelled => (Status::Cancelled, None, None, None),
            Outcome::Ended(_) => (Status::Crashed, None, None, None),
        };
        let status = if execution.out_of_memory && status != Status::Timeout {
            Status::Crashed
        } else {
            status
        };
        let error = match (&execution.outcome, error) {
            (Outcome::Ended(reason), None) => Some(RaisedError {
                name: if execution.out_of_memory {
                    "OutOfMemory".to_owned()
                } else {
                    "InterpreterExited".to_owned()
                },
                message: reason.clone(),
            }),
            (_, error) => error,
        };
        Self {
            session_id: session_id.to_owned(),
            session_created,
            template,
            flavor,
            status,
            exit_code,
            signal,
            error,
            stdout: execution.stdout.text(),
            stderr: execution.stderr.text(),
            stdout_truncated: execution.stdout.truncated(),
            stderr_truncated: execution.stderr.truncated(),
            execution_time_ms: execution.duration.as_millis() as u64,
            timed_out: matches!(execution.outcome, Outcome::TimedOut),
            interpreter_restarted: execution.interpreter_restarted,
            out_of_memory: execution.out_of_memory,
            command: !is_code,
        }
    }

    /// The text the model reads: the output, then notes on truncation, failure and lost
    /// state.
    pub fn text(&self, timeout: std::time::Duration) -> String {
        let mut text = String::new();
        match (self.stdout.is_empty(), self.stderr.is_empty()) {
            (false, true) => text.push_str(&self.stdout),
            (true, false) => text.push_str(&self.stderr),
            (false, false) => {
                text.push_str("stdout:\n");
                text.push_str(&self.stdout);
                if !self.stdout.ends_with('\n') {
                    text.push('\n');
                }
                text.push_str("stderr:\n");
                text.push_str(&self.stderr);
            }
            (true, true) => {}
        }
        let mut notes = Vec::new();
        for (truncated, stream) in [
            (self.stdout_truncated, "stdout"),
            (self.stderr_truncated, "stderr"),
        ] {
            if truncated {
                notes.push(format!(
                    "[{stream} was cut at {} bytes (MSB_MAX_OUTPUT); write large output to a \
                     file in the workspace instead]",
                    if stream == "stdout" {
                        self.stdout.len()
                    } else {
                        self.stderr.len()
                    }
                ));
            }
        }
        match self.status {
            Status::Ok => {}
            Status::Error => {
                if let Some(signal) = self.signal {
                    notes.push(format!("[killed by signal {signal}]"));
                } else if let Some(error) = self.error.as_ref().filter(|_| self.stderr.is_empty()) {
                    notes.push(format!("[{}: {}]", error.name, error.message));
                }
                if let (true, Some(code)) = (self.command, self.exit_code) {
                    notes.push(format!("[exit code {code}]"));
                }
            }
            Status::Timeout => notes.push(format!(
                "[timed out after {:.1} s: everything it started was stopped, and the \
                 interpreter was restarted (variables and imports are gone; files in /workspace \
                 are kept)]",
                timeout.as_secs_f64()
            )),
            Status::Cancelled => notes.push(
                "[cancelled: everything it started was stopped, and the interpreter was \
                 restarted (files in /workspace are kept)]"
                    .to_owned(),
            ),
            Status::Crashed => notes.push(match &self.error {
                Some(error) if self.out_of_memory => format!(
                    "[out of memory: the {} flavor allows {} MiB, so the interpreter was killed \
                     and restarted (variables are gone; files are kept); {}]",
                    self.flavor,
                    self.flavor.memory_mb(),
                    error.message
                ),
                Some(error) => format!(
                    "[the interpreter ended ({}); it will be restarted on the next call, \
                     without the earlier variables]",
                    error.message
                ),
                None => "[the interpreter ended]".to_owned(),
            }),
        }
        if self.interpreter_restarted && self.status == Status::Ok {
            notes.push(
                "[the interpreter was restarted before this call (an earlier one timed out, \
                 was cancelled or crashed): variables, imports and functions defined before are \
                 gone; files in /workspace are kept]"
                    .to_owned(),
            );
        }
        for note in notes {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&note);
        }
        if text.is_empty() {
            text.push_str("(no output)");
        }
        text
    }

    /// The tool result: the text, `structuredContent`, `isError` unless the status is ok.
    pub fn into_result(self, timeout: std::time::Duration) -> CallToolResult {
        let mut result = CallToolResult::text(self.text(timeout));
        result.is_error = Some(self.status != Status::Ok);
        result.structured_content =
            Some(StructuredContent::serialize(&self).expect("the output serializes"));
        result
    }
}
