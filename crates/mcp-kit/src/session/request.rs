//! One request: per-era parameters and headers, the timeout, cancellation, progress.

use std::future::Future;
use std::sync::Arc;

use mcp_jsonrpc::Id;
use mcp_schema::{CallToolRequest, CancelledNotification, Era, McpNotification, McpRequest};
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

use super::{Session, Shared};
use crate::Error;

/// One `notifications/progress` for a call made with progress.
pub type ProgressUpdate = mcp_schema::ProgressNotificationParams;

/// Progress notifications buffered per call; more are dropped (progress is a hint).
const PROGRESS_BUFFER: usize = 64;

const META: &str = "_meta";

/// The longest a call with progress waits for earlier notifications to be routed.
const CATCH_UP_LIMIT: std::time::Duration = std::time::Duration::from_millis(250);

impl Session {
    /// Sends a request and returns its result, answering `InputRequiredResult`s in the
    /// 2026-07-28 era.
    /// A request that became a task (the tasks extension) is followed to its end.
    pub(crate) async fn call(
        &self,
        method: &str,
        params: Option<Value>,
        progress_token: Option<&str>,
    ) -> Result<Value, Error> {
        let value = self.call_raw(method, params, progress_token).await?;
        if super::tasks::may_be_task(method) && super::tasks::task_id_of(&value).is_some() {
            return self.follow_task(method, value, progress_token).await;
        }
        Ok(value)
    }

    /// [`call`](Self::call), handing back a task handle as it came.
    pub(crate) async fn call_raw(
        &self,
        method: &str,
        params: Option<Value>,
        progress_token: Option<&str>,
    ) -> Result<Value, Error> {
        match self.negotiated.era() {
            Era::Stateful if self.needs_legacy_task(method, params.as_ref()).await => {
                self.call_as_legacy_task(method, params, progress_token)
                    .await
            }
            Era::Stateful => self.exchange(method, params, progress_token).await,
            Era::Stateless => self.call_with_input(method, params, progress_token).await,
        }
    }

    /// Sends a request and streams its progress: the receiver gets every
    /// `notifications/progress` the server sends for it (up to 64 buffered; more are
    /// dropped), and the future resolves to the result. Dropping the future cancels the
    /// request (`notifications/cancelled`, or closing its HTTP stream in the 2026-07-28 era).
    pub fn request_with_progress<'a>(
        &'a self,
        method: &'a str,
        params: Option<Value>,
    ) -> (
        mpsc::Receiver<ProgressUpdate>,
        impl Future<Output = Result<Value, Error>> + Send + 'a,
    ) {
        self.with_progress(method, params, true)
    }

    /// [`request_with_progress`](Self::request_with_progress); a task handle is followed to
    /// the task's end when `follow_tasks`, else handed back as it came.
    pub(crate) fn with_progress<'a>(
        &'a self,
        method: &'a str,
        params: Option<Value>,
        follow_tasks: bool,
    ) -> (
        mpsc::Receiver<ProgressUpdate>,
        impl Future<Output = Result<Value, Error>> + Send + 'a,
    ) {
        let token = self.next_token();
        let (tx, rx) = mpsc::channel(PROGRESS_BUFFER);
        self.shared.routes().progress.insert(token.clone(), tx);
        let route = ProgressRoute {
            shared: self.shared.clone(),
            token: token.clone(),
        };
        let call = async move {
            let _route = route;
            let outcome = if follow_tasks {
                self.call(method, params, Some(&token)).await
            } else {
                self.call_raw(method, params, Some(&token)).await
            };
            self.caught_up().await;
            outcome
        };
        (rx, call)
    }

    /// Waits until the notifications that arrived before now have been routed, so that the
    /// progress a server sent before its result reaches the listener before the result does
    /// (the result comes straight from the reader; notifications go through the dispatch
    /// task). Bounded by [`CATCH_UP_LIMIT`], in case the notification handler is slow.
    async fn caught_up(&self) {
        let queued = self.shared.handle.stats().notifications_queued;
        let mut handled = self.shared.handled.subscribe();
        let _ = tokio::time::timeout(CATCH_UP_LIMIT, handled.wait_for(|n| *n >= queued)).await;
    }

    /// One JSON-RPC exchange, bounded by the timeout; abandoning it cancels it.
    pub(crate) async fn exchange(
        &self,
        method: &str,
        params: Option<Value>,
        progress_token: Option<&str>,
    ) -> Result<Value, Error> {
        let params = self.prepare_params(method, params, progress_token)?;
        let headers = self.era_headers(method, params.as_ref());
        self.send_and_wait(method, params, headers, true).await
    }

    /// Sends a request without waiting for it (from a `Drop`); its answer is ignored.
    pub(crate) fn request_detached(&self, method: &str, params: Value) {
        let Ok(params) = self.prepare_params(method, Some(params), None) else {
            return;
        };
        let headers = self.era_headers(method, params.as_ref());
        let handle = self.shared.handle.clone();
        let (method, timeout) = (method.to_owned(), self.timeout);
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            match handle
                .start_request_with_headers(&method, params.as_ref(), headers)
                .await
            {
                Ok(pending) => {
                    let _ = tokio::time::timeout(timeout, pending).await;
                }
                Err(e) => tracing::debug!("{method} not sent: {e}"),
            }
        });
    }

    /// The HTTP headers a request mirrors from its body in the 2026-07-28 era (`Mcp-Method`,
    /// `Mcp-Name`, and a tool's `Mcp-Param-*`); none on other transports or eras.
    pub(crate) fn era_headers(
        &self,
        method: &str,
        params: Option<&Value>,
    ) -> Vec<(String, String)> {
        if !self.shared.http || self.negotiated.era() != Era::Stateless {
            return Vec::new();
        }
        let mut headers = mirrored_headers(method, params);
        if method == CallToolRequest::METHOD {
            headers.extend(self.param_headers(params));
        }
        headers
    }

    /// Sends `params` as they are (already prepared), waits for the result with the timeout.
    pub(crate) async fn send_and_wait(
        &self,
        method: &str,
        params: Option<Value>,
        headers: Vec<(String, String)>,
        cancellable: bool,
    ) -> Result<Value, Error> {
        let pending = self
            .shared
            .handle
            .start_request_with_headers(method, params.as_ref(), headers)
            .await
            .map_err(|e| self.request_error(method, e))?;
        let mut guard = CancelOnDrop {
            shared: self.shared.clone(),
            id: pending.id(),
            reason: "the client abandoned the request",
            // 2026-07-28 over HTTP: closing the request's stream is the cancellation.
            armed: cancellable && !(self.shared.http && self.negotiated.era() == Era::Stateless),
        };
        match tokio::time::timeout(self.timeout, pending).await {
            Ok(outcome) => {
                guard.armed = false;
                let raw = outcome.map_err(|e| self.request_error(method, e))?;
                serde_json::from_str(raw.get()).map_err(|e| Error::Json {
                    context: format!("decoding the result of {method}"),
                    source: e,
                })
            }
            Err(_) => {
                guard.reason = "timeout";
                Err(Error::Timeout {
                    method: method.to_owned(),
                    timeout: self.timeout,
                })
            }
        }
    }

    /// Adds what the era asks of every request: in 2026-07-28, the protocol version, client
    /// info and capabilities in `_meta`; in both eras, the progress token.
    pub(crate) fn prepare_params(
        &self,
        method: &str,
        params: Option<Value>,
        progress_token: Option<&str>,
    ) -> Result<Option<Value>, Error> {
        let stateless = self.negotiated.era() == Era::Stateless;
        if !stateless && progress_token.is_none() {
            return Ok(params);
        }
        let mut object = match params {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(object)) => object,
            Some(_) => {
                return Err(Error::Protocol {
                    server: self.shared.server.clone(),
                    message: format!("the params of {method} must be a JSON object"),
                });
            }
        };
        let meta = object
            .entry(META)
            .or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(meta) = meta else {
            return Err(Error::Protocol {
                server: self.shared.server.clone(),
                message: format!("`_meta` in the params of {method} must be a JSON object"),
            });
        };
        if stateless {
            self.insert_envelope(meta, self.negotiated.protocol_version());
        }
        if let Some(token) = progress_token {
            meta.insert("progressToken".into(), json!(token));
        }
        Ok(Some(Value::Object(object)))
    }

    /// The 2026-07-28 per-request metadata (keys already present are kept).
    pub(crate) fn insert_envelope(&self, meta: &mut Map<String, Value>, version: &str) {
        meta.entry("io.modelcontextprotocol/protocolVersion")
            .or_insert_with(|| json!(version));
        meta.entry("io.modelcontextprotocol/clientInfo")
            .or_insert_with(|| self.client_info.clone());
        meta.entry("io.modelcontextprotocol/clientCapabilities")
            .or_insert_with(|| self.capabilities.clone());
        if let Some(level) = self.log_level() {
            meta.entry(mcp_schema::meta::keys::LOG_LEVEL)
                .or_insert_with(|| json!(level));
        }
    }

    pub(crate) fn request_error(&self, method: &str, error: mcp_jsonrpc::Error) -> Error {
        match error {
            mcp_jsonrpc::Error::Rpc(error) => Error::Rpc {
                server: self.shared.server.clone(),
                method: method.to_owned(),
                error,
            },
            mcp_jsonrpc::Error::Unauthorized(source) => Error::Unauthorized {
                server: self.shared.server.clone(),
                source,
            },
            source => Error::Connection {
                server: self.shared.server.clone(),
                source,
            },
        }
    }
}

/// Sends `notifications/cancelled` for a request abandoned before its response.
struct CancelOnDrop {
    shared: Arc<Shared>,
    id: Id,
    reason: &'static str,
    armed: bool,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if self.armed {
            send_cancelled_detached(&self.shared, &self.id, self.reason);
        }
    }
}

/// Sends `notifications/cancelled` for request `id` from a context that cannot wait (a
/// `Drop`): queued at once, so that it goes out even when the connection is closed right
/// after (mcpctl on Ctrl-C); nothing when the connection is already closed.
pub(super) fn send_cancelled_detached(shared: &Shared, id: &Id, reason: &str) {
    let params = json!({ "requestId": id, "reason": reason });
    if !shared
        .handle
        .notify_now(CancelledNotification::METHOD, Some(&params))
    {
        tracing::debug!("could not send notifications/cancelled");
    }
}

/// Removes a call's progress route when the call ends or is dropped.
struct ProgressRoute {
    shared: Arc<Shared>,
    token: String,
}

impl Drop for ProgressRoute {
    fn drop(&mut self) {
        self.shared.routes().progress.remove(&self.token);
    }
}

/// The `Mcp-Method` and `Mcp-Name` headers a 2026-07-28 request mirrors from its body.
pub(super) fn mirrored_headers(method: &str, params: Option<&Value>) -> Vec<(String, String)> {
    mcp_schema::headers::request_headers(method, params)
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value))
        .collect()
}
