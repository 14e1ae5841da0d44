//! Answering what servers ask of mcpctl: elicitation (a form on a terminal, else `--elicit`)
//! and sampling (`--sampling-reply`, `--sampling-command`, else a clear refusal). Roots are
//! answered by mcp-kit itself (`--root-dir`). Each request is noted on stderr.

use std::io::IsTerminal;
use std::process::Stdio;
use std::sync::Arc;

use mcp_kit::mcp::{CreateMessageRequest, ElicitRequest, McpRequest};
use mcp_kit::{ServerRequestContext, ServerRequestHandler, ServerRequestOutcome};
use serde_json::{Map, Value, json};
use tokio::io::AsyncWriteExt;

use crate::console::Console;
use crate::form::{self, FormOutcome};
use crate::output::sanitize;

/// The JSON-RPC error code of a refused sampling request (the one the spec's examples use
/// for a user's refusal).
const REFUSED: i64 = -1;

/// How elicitation requests are answered.
#[derive(Debug, Clone)]
pub(crate) enum Elicit {
    /// A form on the terminal.
    Form,
    /// Decline: no terminal to ask on, and no `--elicit` (the note says how to answer).
    NoTerminal,
    /// Decline (`--elicit decline`).
    Decline,
    /// Cancel.
    Cancel,
    /// Accept with this content (`--elicit json=FILE`; empty with `--elicit accept`).
    Accept(Map<String, Value>),
}

impl Elicit {
    /// A form when stdin and stderr are a terminal, else decline.
    pub(crate) fn by_default() -> Self {
        if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
            Elicit::Form
        } else {
            Elicit::NoTerminal
        }
    }
}

/// How sampling requests are answered.
#[derive(Debug, Clone)]
pub(crate) enum Sampling {
    /// Refused: mcpctl has no model.
    Refuse,
    /// This text.
    Reply(String),
    /// The output of this shell command, given the request's params on stdin.
    Command(String),
}

/// What mcpctl answers.
#[derive(Debug)]
pub(crate) struct Answers {
    pub(crate) console: Arc<Console>,
    pub(crate) elicit: Elicit,
    pub(crate) sampling: Sampling,
    /// One form at a time: two requests must not ask on the terminal at once.
    pub(crate) asking: tokio::sync::Mutex<()>,
}

impl Answers {
    /// The client capabilities these answers support, added to `capabilities`: elicitation
    /// (form and URL) always, sampling when there is a reply.
    pub(crate) fn declare(&self, capabilities: &mut Map<String, Value>) {
        capabilities
            .entry("elicitation")
            .or_insert_with(|| json!({ "form": {}, "url": {} }));
        if !matches!(self.sampling, Sampling::Refuse) {
            capabilities.entry("sampling").or_insert_with(|| json!({}));
        }
    }

    /// The handler for the manager.
    pub(crate) fn handler(self: Arc<Self>) -> ServerRequestHandler {
        Arc::new(move |ctx: ServerRequestContext| {
            let answers = self.clone();
            Box::pin(async move { answers.answer(ctx).await })
        })
    }

    async fn answer(&self, ctx: ServerRequestContext) -> ServerRequestOutcome {
        let params = ctx.params.unwrap_or(Value::Null);
        match ctx.method.as_str() {
            ElicitRequest::METHOD => self.elicit(&ctx.server_name, &params).await,
            CreateMessageRequest::METHOD => self.sample(&ctx.server_name, &params).await,
            _ => ServerRequestOutcome::MethodNotFound,
        }
    }

    async fn elicit(&self, server: &str, params: &Value) -> ServerRequestOutcome {
        let message = params
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let url = (params.get("mode").and_then(Value::as_str) == Some("url")).then(|| {
            params
                .get("url")
                .and_then(Value::as_str)
                .unwrap_or_default()
        });
        if let Some(url) = url {
            let value =
                json!({ "server": server, "elicitation": "url", "message": message, "url": url });
            self.console.event(&value, || {
                sanitize(&format!(
                    "[{server}] asks you to open this URL: {url}\n  ({message})"
                ))
            });
        }
        let outcome = match (&self.elicit, url) {
            (Elicit::Form, None) => {
                let schema = params.get("requestedSchema").cloned().unwrap_or_default();
                let header = format!("[{server}] asks: {message}");
                self.on_terminal(move |input, output| form::ask(&header, &schema, input, output))
                    .await
            }
            (Elicit::Form, Some(_)) => self.on_terminal(form::confirm).await,
            (Elicit::NoTerminal | Elicit::Decline, _) => FormOutcome::Decline,
            (Elicit::Cancel, _) => FormOutcome::Cancel,
            (Elicit::Accept(content), _) => FormOutcome::Accept(content.clone()),
        };
        let (action, content) = match outcome {
            FormOutcome::Accept(content) if url.is_none() => ("accept", Some(content)),
            FormOutcome::Accept(_) => ("accept", None),
            FormOutcome::Decline => ("decline", None),
            FormOutcome::Cancel => ("cancel", None),
        };
        let value = json!({ "server": server, "elicitation": action, "message": message });
        self.console.event(&value, || {
            let hint = match (&self.elicit, url) {
                (Elicit::NoTerminal, None) => {
                    " (no terminal to ask on: answer with --elicit json=FILE)"
                }
                (Elicit::NoTerminal, Some(_)) => {
                    " (no terminal to ask on: --elicit accept accepts)"
                }
                _ => "",
            };
            sanitize(&format!(
                "[{server}] elicitation \"{message}\": {action}{hint}"
            ))
        });
        let mut result = json!({ "action": action });
        if let Some(content) = content {
            result["content"] = Value::Object(content);
        }
        ServerRequestOutcome::Ok(result)
    }

    /// Asks on the terminal (stdin, stderr), one question at a time, without the progress
    /// bar.
    async fn on_terminal<F>(&self, ask: F) -> FormOutcome
    where
        F: FnOnce(
                &mut std::io::StdinLock<'static>,
                &mut std::io::StderrLock<'static>,
            ) -> std::io::Result<FormOutcome>
            + Send
            + 'static,
    {
        let _turn = self.asking.lock().await;
        self.console.clear_progress();
        let asked = tokio::task::spawn_blocking(move || {
            ask(&mut std::io::stdin().lock(), &mut std::io::stderr().lock())
        })
        .await;
        match asked {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(e)) => {
                self.console
                    .line(&format!("mcpctl: cannot read the answer: {e}"));
                FormOutcome::Cancel
            }
            Err(_) => FormOutcome::Cancel,
        }
    }

    async fn sample(&self, server: &str, params: &Value) -> ServerRequestOutcome {
        let text = match &self.sampling {
            Sampling::Refuse => {
                let message = "mcpctl has no model to sample with: run it with \
                               --sampling-reply TEXT or --sampling-command COMMAND";
                let value = json!({ "server": server, "sampling": "refused" });
                self.console.event(&value, || {
                    format!("[{server}] sampling request refused ({message})")
                });
                return ServerRequestOutcome::Error {
                    code: REFUSED,
                    message: message.to_owned(),
                    data: None,
                };
            }
            Sampling::Reply(text) => text.clone(),
            Sampling::Command(command) => match run_sampling_command(command, params).await {
                Ok(text) => text,
                Err(message) => {
                    self.console
                        .line(&sanitize(&format!("[{server}] sampling failed: {message}")));
                    return ServerRequestOutcome::Error {
                        code: REFUSED,
                        message,
                        data: None,
                    };
                }
            },
        };
        let value = json!({ "server": server, "sampling": "answered" });
        self.console
            .event(&value, || format!("[{server}] sampling request answered"));
        ServerRequestOutcome::Ok(json!({
            "role": "assistant",
            "content": { "type": "text", "text": text },
            "model": "mcpctl",
            "stopReason": "endTurn",
        }))
    }
}

/// Runs `sh -c COMMAND` with `params` as JSON on stdin; its stdout (trimmed) is the reply.
async fn run_sampling_command(command: &str, params: &Value) -> Result<String, String> {
    let mut child = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot run the sampling command: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        // A command that does not read its input is fine.
        let _ = stdin.write_all(params.to_string().as_bytes()).await;
    }
    let output = child
        .wait_with_output()
        .await
        .map_err(|e| format!("the sampling command failed: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "the sampling command failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
}
