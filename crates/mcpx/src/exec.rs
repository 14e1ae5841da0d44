//! `exec`: one call of an upstream tool over the kept connection, its arguments checked
//! against the cached schema first.

use std::sync::Arc;
use std::time::Duration;

use mcp_jsonrpc::ErrorObject;
use mcp_kit::{ServerRequestOutcome, TaskHandle, ToolCall, task_status_line};
use mcp_schema::{CallToolResult, ContentBlock};
use serde_json::{Map, Value};
use tokio::sync::mpsc;

use crate::registry::{CachedTool, Catalog, Registry, Snapshot, Status, Upstream};
use crate::text::compact_text;

/// What `exec` needs of the client that asked for it: where progress goes, how to put an
/// upstream's request (elicitation, sampling, roots) to it, and whether it gave up.
pub trait Downstream: Send + Sync {
    /// True when the client wants progress of the call (the upstream is then asked for it).
    fn wants_progress(&self) -> bool;

    /// Reports progress of the call.
    fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> mcp_server::BoxFuture<()>;

    /// Puts an upstream's request to the client. `Err` ends the call (the client was asked
    /// in a way that needs the call to end first, as a 2026-07-28 input request does).
    fn ask(
        &self,
        method: String,
        params: Option<Value>,
    ) -> mcp_server::BoxFuture<Result<ServerRequestOutcome, mcp_server::Error>>;

    /// Resolves when the client cancelled the call.
    fn cancelled(&self) -> mcp_server::BoxFuture<()>;

    /// The upstream runs the call as a task (the tasks extension): makes the rest of this
    /// call a task for the client too, when the client can follow one. Returns whether it
    /// did (by default it cannot).
    fn run_as_task(&self) -> mcp_server::BoxFuture<bool> {
        Box::pin(std::future::ready(false))
    }

    /// The upstream task's status, for the client's task (when [`run_as_task`] made one).
    ///
    /// [`run_as_task`]: Downstream::run_as_task
    fn set_status(&self, message: String) -> mcp_server::BoxFuture<()> {
        let _ = message;
        Box::pin(std::future::ready(()))
    }
}

/// Why `exec` (or `inspect`) did not answer with the upstream's result.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// No upstream of that name.
    #[error("unknown server `{name}`{}", did_you_mean(suggestions))]
    UnknownServer {
        /// The name asked for.
        name: String,
        /// The closest configured names.
        suggestions: Vec<String>,
    },
    /// The upstream has no (shown) tool of that name.
    #[error(
        "unknown tool `{tool}` on server `{server}`{}",
        did_you_mean(suggestions)
    )]
    UnknownTool {
        /// The server.
        server: String,
        /// The tool asked for.
        tool: String,
        /// The closest tool names of that server.
        suggestions: Vec<String>,
    },
    /// The tool exists upstream, but the proxy's filters hide it.
    #[error(
        "tool `{tool}` on server `{server}` is hidden by mcpx's include/exclude filters for that server"
    )]
    HiddenTool {
        /// The server.
        server: String,
        /// The tool.
        tool: String,
    },
    /// The arguments do not match the tool's `inputSchema`.
    #[error(
        "invalid arguments for `{server}.{tool}`: {problems} (see inspect(\"{server}\", \"{tool}\") for its schema)"
    )]
    InvalidArguments {
        /// The server.
        server: String,
        /// The tool.
        tool: String,
        /// Every violation, each with its JSON path.
        problems: String,
    },
    /// The upstream is not connected.
    #[error(
        "server `{server}` is unavailable ({state}: {reason}); mcpx keeps reconnecting in the background"
    )]
    Unavailable {
        /// The server.
        server: String,
        /// Its state (`connecting`, `failed`, `reconnecting`).
        state: &'static str,
        /// Why.
        reason: String,
    },
    /// The upstream did not answer within its `call_timeout`.
    #[error("server `{server}` did not answer `{tool}` within {after:?} (call_timeout)")]
    Timeout {
        /// The server.
        server: String,
        /// The tool.
        tool: String,
        /// The timeout.
        after: Duration,
    },
    /// The call failed without an answer from the tool, the connection being fine.
    #[error("calling `{tool}` on server `{server}` failed: {reason}")]
    Failed {
        /// The server.
        server: String,
        /// The tool.
        tool: String,
        /// Why.
        reason: String,
    },
    /// The request to the proxy itself is incomplete.
    #[error("{0}")]
    InvalidRequest(String),
    /// The upstream answered with a JSON-RPC error: passed on verbatim.
    #[error("{}", .0.message)]
    Upstream(Box<ErrorObject>),
    /// The downstream side ended the call (cancelled, or a 2026-07-28 input request).
    #[error("{0}")]
    Downstream(mcp_server::Error),
}

fn did_you_mean(suggestions: &[String]) -> String {
    match suggestions {
        [] => String::new(),
        [one] => format!(" (did you mean `{one}`?)"),
        many => format!(
            " (did you mean one of: {}?)",
            many.iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Up to three names closest to `wanted` (Jaro-Winkler ≥ 0.7, or containing it).
pub fn closest<'a>(wanted: &str, names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let wanted_lower = wanted.to_lowercase();
    let mut scored: Vec<(f64, &str)> = names
        .map(|name| {
            let lower = name.to_lowercase();
            let mut score = strsim::jaro_winkler(&wanted_lower, &lower);
            if !wanted_lower.is_empty() && lower.contains(&wanted_lower) {
                score = score.max(0.9);
            }
            (score, name)
        })
        .filter(|(score, _)| *score >= 0.7)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored
        .into_iter()
        .take(3)
        .map(|(_, n)| n.to_owned())
        .collect()
}

/// Finds `server`, or says which servers are close.
pub fn find_upstream<'a>(
    registry: &'a Registry,
    server: &str,
) -> Result<&'a Arc<Upstream>, ExecError> {
    registry
        .upstream(server)
        .ok_or_else(|| ExecError::UnknownServer {
            name: server.to_owned(),
            suggestions: closest(server, registry.names()),
        })
}

/// Finds `tool` in `server`'s catalog, or says it is hidden, or which tools are close.
pub fn find_tool<'a>(
    server: &str,
    catalog: &'a Catalog,
    tool: &str,
) -> Result<&'a Arc<CachedTool>, ExecError> {
    catalog.tool(tool).ok_or_else(|| {
        if catalog.hidden.iter().any(|h| h == tool) {
            ExecError::HiddenTool {
                server: server.to_owned(),
                tool: tool.to_owned(),
            }
        } else {
            ExecError::UnknownTool {
                server: server.to_owned(),
                tool: tool.to_owned(),
                suggestions: closest(tool, catalog.tools.iter().map(|t| t.name())),
            }
        }
    })
}

/// The error of a call or question to `server`, which is in `status` (not ready).
pub(crate) fn unavailable(server: &str, status: &Status) -> ExecError {
    ExecError::Unavailable {
        server: server.to_owned(),
        state: status.name(),
        reason: status
            .reason()
            .unwrap_or("the first connection attempt is still under way")
            .to_owned(),
    }
}

/// Calls `tool` on `server` with `arguments` for `downstream`.
pub async fn exec(
    registry: &Registry,
    server: &str,
    tool: &str,
    arguments: Option<Map<String, Value>>,
    downstream: &dyn Downstream,
) -> Result<CallToolResult, ExecError> {
    let upstream = find_upstream(registry, server)?;
    let snapshot = upstream.snapshot();
    let Some(catalog) = &snapshot.catalog else {
        return Err(unavailable(server, &snapshot.status));
    };
    let cached = find_tool(server, catalog, tool)?;
    let arguments = Value::Object(arguments.unwrap_or_default());
    cached
        .check(&arguments)
        .map_err(|problems| ExecError::InvalidArguments {
            server: server.to_owned(),
            tool: tool.to_owned(),
            problems,
        })?;
    let Value::Object(arguments) = arguments else {
        unreachable!("built as an object above")
    };
    let outcome = call(upstream, &snapshot, tool, arguments.clone(), downstream).await;
    match outcome {
        Err(Attempt::Retry(why)) => {
            tracing::info!(upstream = %server, %why, "call did not reach the upstream; reconnecting and trying once more");
            let fresh = reconnected(registry, upstream, &snapshot).await;
            match call(upstream, &fresh, tool, arguments, downstream).await {
                Err(Attempt::Retry(why)) => Err(ExecError::Unavailable {
                    server: server.to_owned(),
                    state: fresh.status.name(),
                    reason: why,
                }),
                Err(Attempt::Failed(e)) => Err(e),
                Ok(result) => Ok(result),
            }
        }
        Err(Attempt::Failed(e)) => Err(e),
        Ok(result) => Ok(result),
    }
}

/// The next progress update, or never when the call has no progress.
async fn next_progress(
    progress: &mut Option<mpsc::Receiver<mcp_kit::ProgressUpdate>>,
) -> Option<mcp_kit::ProgressUpdate> {
    match progress {
        Some(progress) => progress.recv().await,
        None => std::future::pending().await,
    }
}

enum Attempt {
    /// The request never ran upstream (the session was stale or no connection was made).
    Retry(String),
    Failed(ExecError),
}

async fn call(
    upstream: &Upstream,
    snapshot: &Snapshot,
    tool: &str,
    arguments: Map<String, Value>,
    downstream: &dyn Downstream,
) -> Result<CallToolResult, Attempt> {
    let server = upstream.name();
    let (Status::Ready, Some(session)) = (&snapshot.status, &snapshot.session) else {
        return Err(Attempt::Failed(unavailable(server, &snapshot.status)));
    };
    let (_guard, mut asks) = upstream.track_call();
    // Progress is asked of the upstream only for a client that wants it (a call without is
    // cheaper: no progress route to keep).
    type Call<'a> =
        std::pin::Pin<Box<dyn Future<Output = Result<ToolCall<'a>, mcp_kit::Error>> + Send + 'a>>;
    let (progress, call): (Option<mpsc::Receiver<mcp_kit::ProgressUpdate>>, Call<'_>) =
        if downstream.wants_progress() {
            let (progress, call) = session.call_tool_as_task_with_progress(tool, Some(arguments));
            (Some(progress), Box::pin(call))
        } else {
            (
                None,
                Box::pin(session.call_tool_as_task(tool, Some(arguments))),
            )
        };
    let mut cancelled = downstream.cancelled();
    let outcome = match drive(call, progress, &mut asks, &mut cancelled, downstream).await? {
        Ok(ToolCall::Task(task)) => follow(&task, &mut asks, &mut cancelled, downstream).await?,
        Ok(ToolCall::Complete(result)) => Ok(*result),
        Err(error) => Err(error),
    };
    let error = match outcome {
        Ok(result) => return Ok(result),
        Err(error) => error,
    };
    Err(match error {
        mcp_kit::Error::Rpc { error, .. } => {
            let stale_session =
                error.http_status() == Some(404) && session.peer().handle().session_id().is_some();
            if stale_session || error.not_delivered() {
                upstream.report_lost(session);
                Attempt::Retry(error.message)
            } else {
                Attempt::Failed(ExecError::Upstream(error))
            }
        }
        mcp_kit::Error::Timeout { timeout, .. } => Attempt::Failed(ExecError::Timeout {
            server: server.to_owned(),
            tool: tool.to_owned(),
            after: timeout,
        }),
        lost @ mcp_kit::Error::Connection { .. } => {
            upstream.report_lost(session);
            Attempt::Failed(ExecError::Unavailable {
                server: server.to_owned(),
                state: "failed",
                reason: lost.to_string(),
            })
        }
        // The call failed, the connection did not (a result that does not parse, an input
        // request nobody could answer): the upstream stays as it is.
        other => Attempt::Failed(ExecError::Failed {
            server: server.to_owned(),
            tool: tool.to_owned(),
            reason: other.to_string(),
        }),
    })
}

/// Runs `call` to its outcome, meanwhile forwarding its progress and the upstream's
/// requests to the client; `Err` when the client ended the call.
async fn drive<T>(
    mut call: std::pin::Pin<Box<dyn Future<Output = Result<T, mcp_kit::Error>> + Send + '_>>,
    mut progress: Option<mpsc::Receiver<mcp_kit::ProgressUpdate>>,
    asks: &mut mpsc::Receiver<crate::registry::Ask>,
    cancelled: &mut mcp_server::BoxFuture<()>,
    downstream: &dyn Downstream,
) -> Result<Result<T, mcp_kit::Error>, Attempt> {
    let forward = |update: mcp_kit::ProgressUpdate| {
        let total = update.total.as_ref().and_then(serde_json::Number::as_f64);
        let progress = update.progress.as_f64().unwrap_or_default();
        downstream.progress(progress, total, update.message)
    };
    loop {
        tokio::select! {
            outcome = &mut call => {
                // Progress sent before the result, not forwarded yet.
                while let Some(update) = progress.as_mut().and_then(|p| p.try_recv().ok()) {
                    forward(update).await;
                }
                return Ok(outcome);
            }
            Some(update) = next_progress(&mut progress) => forward(update).await,
            Some(ask) = asks.recv() => put_to_client(ask, downstream).await?,
            () = &mut *cancelled => return Err(client_ended(mcp_server::Error::cancelled())),
        }
    }
}

/// Puts an upstream's request to the client and hands the answer back; `Err` when the client
/// ended the call instead (dropping the call then cancels it upstream).
async fn put_to_client(
    ask: crate::registry::Ask,
    downstream: &dyn Downstream,
) -> Result<(), Attempt> {
    let answer = downstream
        .ask(ask.method, ask.params)
        .await
        .map_err(client_ended)?;
    let _ = ask.reply.send(answer);
    Ok(())
}

fn client_ended(end: mcp_server::Error) -> Attempt {
    Attempt::Failed(ExecError::Downstream(end))
}

/// Follows an upstream task to its end: the client's call becomes a task too when it can
/// follow one (the upstream's status becomes its status), else the status is its progress.
/// The upstream's input requests go to the client as during any call; the client cancelling
/// cancels the upstream task.
async fn follow(
    task: &TaskHandle<'_>,
    asks: &mut mpsc::Receiver<crate::registry::Ask>,
    cancelled: &mut mcp_server::BoxFuture<()>,
    downstream: &dyn Downstream,
) -> Result<Result<CallToolResult, mcp_kit::Error>, Attempt> {
    let guard = task.cancel_when_dropped();
    let as_task = downstream.run_as_task().await;
    let (status_tx, mut status) = mpsc::unbounded_channel();
    let wait = task.wait_with_status(move |now| {
        let _ = status_tx.send(task_status_line(now));
    });
    let mut wait = std::pin::pin!(wait);
    let mut changes = 0u32;
    let outcome = loop {
        tokio::select! {
            outcome = &mut wait => break outcome,
            Some(line) = status.recv() => {
                if as_task {
                    downstream.set_status(line).await;
                } else if downstream.wants_progress() {
                    changes += 1;
                    downstream.progress(f64::from(changes), None, Some(line)).await;
                }
            }
            Some(ask) = asks.recv() => put_to_client(ask, downstream).await?,
            () = &mut *cancelled => return Err(client_ended(mcp_server::Error::cancelled())),
        }
    };
    guard.disarm();
    Ok(outcome)
}

/// Waits (within the upstream's connect timeout) for a new session after the old one was
/// reported lost; returns the state then.
async fn reconnected(registry: &Registry, upstream: &Upstream, before: &Snapshot) -> Snapshot {
    let mut changes = registry.changes();
    let wait = async {
        loop {
            let now = upstream.snapshot();
            let renewed = match (&now.session, &before.session) {
                (Some(new), Some(old)) => !Arc::ptr_eq(new, old),
                (Some(_), None) => true,
                (None, _) => false,
            };
            if renewed || matches!(now.status, Status::Failed { .. }) {
                return now;
            }
            if changes.changed().await.is_err() {
                return now;
            }
        }
    };
    let limit = upstream.options().connect_timeout;
    tokio::time::timeout(limit, wait)
        .await
        .unwrap_or_else(|_| upstream.snapshot())
}

/// The result as the agent gets it: a structured result's text is its TOON or compact JSON
/// (the fewer tokens) in place of the text blocks that repeat it; every other block passes
/// unchanged, and `structuredContent` stays raw.
pub fn for_agent(mut result: CallToolResult) -> CallToolResult {
    let Some(structured) = &result.structured_content else {
        return result;
    };
    let value = structured.to_value().into_owned();
    let repeats = |block: &ContentBlock| match block {
        ContentBlock::Text(text) => {
            serde_json::from_str::<Value>(&text.text).ok().as_ref() == Some(&value)
        }
        _ => false,
    };
    if !result
        .content
        .iter()
        .filter(|b| matches!(b, ContentBlock::Text(_)))
        .all(repeats)
    {
        // The text says something of its own: keep it as written.
        return result;
    }
    let (_, text) = compact_text(&value);
    result
        .content
        .retain(|b| !matches!(b, ContentBlock::Text(_)));
    result.content.insert(0, ContentBlock::text(text));
    result
}
