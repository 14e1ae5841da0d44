//! What a handler can do besides returning its result: report progress, log, notice
//! cancellation, and ask the client for input — one API for both protocol eras.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_jsonrpc::Id;
use mcp_schema::{
    ClientCapabilities, CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequest, ElicitRequestFormParams, ElicitRequestParams, ElicitResult, ErrorData,
    Implementation, InputRequest, InputRequests, InputResponse, InputResponses, ListRootsRequest,
    ListRootsResult, LoggingLevel, LoggingMessageNotification, LoggingMessageNotificationParams,
    McpRequest, MissingRequiredClientCapabilityData, ProgressNotification,
    ProgressNotificationParams, ProgressToken, ProtocolVersion, ServerRequest,
};
use parking_lot::Mutex;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::auth::Principal;
use crate::error::{Error, Result};
use crate::session::{Outbound, Outlet, Session, notification};

mod task;

pub(crate) use task::TaskSlot;

/// The context of one request, handed to every handler. Cheap to clone.
#[derive(Clone)]
pub struct RequestContext {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) session: Arc<Session>,
    pub(crate) request_id: Id,
    pub(crate) version: ProtocolVersion,
    pub(crate) progress_token: Option<ProgressToken>,
    pub(crate) client_capabilities: ClientCapabilities,
    pub(crate) client_info: Option<Implementation>,
    /// 2026-07-28: the request's `logLevel` (no logging without one). Stateful: unused (the
    /// session's level applies).
    pub(crate) log_level: Option<LoggingLevel>,
    pub(crate) cancel: CancellationToken,
    pub(crate) outlet: Outlet,
    /// 2026-07-28 multi round-trip state of `tools/call`, `prompts/get`, `resources/read`.
    pub(crate) input: Option<InputRound>,
    /// The task the call became, or may become (the tasks extension).
    pub(crate) task: TaskSlot,
    last_progress: Mutex<Option<f64>>,
}

/// The answers known so far and the request asked for in this round.
#[derive(Default)]
pub(crate) struct InputRound {
    pub(crate) answers: InputResponses,
    asked: AtomicUsize,
    pub(crate) pending: Mutex<InputRequests>,
}

impl InputRound {
    pub(crate) fn new(answers: InputResponses) -> Self {
        Self {
            answers,
            ..Self::default()
        }
    }
}

impl std::fmt::Debug for RequestContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestContext")
            .field("request_id", &self.inner.request_id)
            .field("version", &self.inner.version)
            .finish()
    }
}

impl RequestContext {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        session: Arc<Session>,
        request_id: Id,
        version: ProtocolVersion,
        progress_token: Option<ProgressToken>,
        client_capabilities: ClientCapabilities,
        client_info: Option<Implementation>,
        log_level: Option<LoggingLevel>,
        cancel: CancellationToken,
        outlet: Outlet,
        input: Option<InputRound>,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                session,
                request_id,
                version,
                progress_token,
                client_capabilities,
                client_info,
                log_level,
                cancel,
                outlet,
                input,
                task: TaskSlot::default(),
                last_progress: Mutex::new(None),
            }),
        }
    }

    /// The JSON-RPC id of the request.
    pub fn request_id(&self) -> &Id {
        &self.inner.request_id
    }

    /// The protocol version the request speaks.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.inner.version
    }

    /// The HTTP session id, in the stateful era over HTTP.
    pub fn session_id(&self) -> Option<&str> {
        self.inner.session.id.as_deref()
    }

    /// Who the client authenticated as (HTTP and WebSocket with an authenticator), with the
    /// granted scopes.
    pub fn principal(&self) -> Option<&Principal> {
        self.inner.session.principal()
    }

    /// What the client declared it can do.
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.inner.client_capabilities
    }

    /// The client's name and version, when it said.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.inner.client_info.as_ref()
    }

    /// True once the client cancelled the request (or its stream closed). In a task: once
    /// the client cancelled the task with `tasks/cancel` (or it expired, or the server is
    /// stopping); the request's own stream closing does not count.
    pub fn is_cancelled(&self) -> bool {
        if let Some(run) = self.task_run() {
            return run.cancel.is_cancelled();
        }
        self.inner.cancel.is_cancelled() || self.inner.outlet.is_closed()
    }

    /// True when the client asked for progress (its request has a progress token), so that
    /// [`progress`](Self::progress) sends anything; always in a task, where progress becomes
    /// the task's status message.
    pub fn wants_progress(&self) -> bool {
        self.inner.progress_token.is_some() || self.task_run().is_some()
    }

    /// Completes when the request is cancelled ([`is_cancelled`](Self::is_cancelled)); use it
    /// in `tokio::select!` around long work.
    pub async fn cancelled(&self) {
        if let Some(run) = self.task_run() {
            return run.cancel.cancelled().await;
        }
        // Promotion to a task replaces the request's cancellation with the task's.
        tokio::select! {
            _ = self.inner.cancel.cancelled() => {}
            _ = self.inner.outlet.closed() => {}
            _ = self.inner.task.promoted.cancelled() => {}
        }
        if let Some(run) = self.task_run() {
            run.cancel.cancelled().await;
        }
    }

    /// Reports progress (`notifications/progress`) when the client asked for it with a
    /// progress token; otherwise does nothing. Progress must increase: a value not above the
    /// last one reported is dropped. In a task, progress becomes the task's status message
    /// (`message`, else `progress/total`), which `tasks/get` shows.
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        if let Some(run) = self.task_run() {
            return run.report(progress, total, message).await;
        }
        let Some(token) = &self.inner.progress_token else {
            return;
        };
        {
            let mut last = self.inner.last_progress.lock();
            if last.is_some_and(|l| progress <= l) {
                tracing::debug!(progress, "progress not increasing; not sent");
                return;
            }
            *last = Some(progress);
        }
        let mut params = ProgressNotificationParams::new(token.clone(), progress, total);
        params.message = message.map(str::to_owned);
        self.send(notification::<ProgressNotification>(Some(&params)))
            .await;
    }

    /// Sends a log message (`notifications/message`) if the client wants this level: in the
    /// stateful era, at or above the level set with `logging/setLevel` (everything until it
    /// is set); in 2026-07-28, at or above the request's `logLevel` (nothing without one).
    pub async fn log(&self, level: LoggingLevel, logger: Option<&str>, data: impl Into<Value>) {
        let minimum = if self.inner.version.is_stateful() {
            self.inner.session.negotiated().log_level
        } else {
            match &self.inner.log_level {
                Some(l) => Some(l.clone()),
                None => return,
            }
        };
        if minimum.is_some_and(|m| !level.passes(&m)) {
            return;
        }
        let mut params = LoggingMessageNotificationParams::new(level, data);
        params.logger = logger.map(str::to_owned);
        self.send(notification::<LoggingMessageNotification>(Some(&params)))
            .await;
    }

    async fn send(&self, message: Outbound) {
        let _ = self.inner.outlet.send(message).await;
    }

    /// Lets the client poll instead of holding a connection open (streamable HTTP, sessions
    /// of 2025-11-25 and later): the connection carrying this request's SSE stream ends with a
    /// `retry` hint, the client reconnects with `Last-Event-ID`, and whatever the handler sent
    /// meanwhile — its result included — waits in the event store. Does nothing on other
    /// transports and versions.
    pub async fn close_sse_stream(&self, retry: std::time::Duration) {
        let inner = &self.inner;
        if inner.session.id.is_none() || inner.version < ProtocolVersion::V2025_11_25 {
            return;
        }
        let _ = inner.outlet.send(Outbound::Poll { retry }).await;
    }

    /// Asks the user for input through the client (`elicitation/create`).
    ///
    /// Stateful era: a request to the client, answered while the handler waits. 2026-07-28:
    /// the first call ends the handler with an input-required error (propagate it with `?`);
    /// the client answers and retries, the handler runs again and this call returns the answer.
    /// The input request's key is made from the call's position (`elicitation-1`, …); use
    /// [`RequestContext::request_inputs`] to choose keys or ask several things at once.
    pub async fn elicit(&self, params: impl Into<ElicitRequestParams>) -> Result<ElicitResult> {
        let key = self.next_key("elicitation");
        let answer = self
            .request_input(key, InputRequest::elicit(params.into()))
            .await?;
        parse_answer::<ElicitRequest, _>(answer)
    }

    /// Asks the user to fill in a form: `requested_schema` is a flat object schema of
    /// primitive properties (`{"type": "object", "properties": {"name": {"type": "string"}}}`).
    /// See [`RequestContext::elicit`] for how each era carries it.
    pub async fn elicit_form(
        &self,
        message: impl Into<String>,
        requested_schema: Value,
    ) -> Result<ElicitResult> {
        let requested_schema = serde_json::from_value(requested_schema)
            .map_err(|e| Error::msg(format!("invalid elicitation schema: {e}")))?;
        let params = ElicitRequestFormParams {
            mode: None,
            message: message.into(),
            requested_schema,
            task: None,
            meta: None,
            extra: Default::default(),
        };
        self.elicit(params).await
    }

    /// Asks the client's model for a completion (`sampling/createMessage`).
    pub async fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult> {
        let key = self.next_key("sampling");
        let answer = self
            .request_input(key, InputRequest::create_message(params))
            .await?;
        parse_answer::<CreateMessageRequest, _>(answer)
    }

    /// Asks the client for its roots (`roots/list`).
    pub async fn list_roots(&self) -> Result<ListRootsResult> {
        let key = self.next_key("roots");
        let answer = self.request_input(key, InputRequest::list_roots()).await?;
        parse_answer::<ListRootsRequest, _>(answer)
    }

    /// Asks the client for one input under a key of your choosing (the key of 2026-07-28
    /// `inputRequests`; it must be unique within the request).
    pub async fn request_input(
        &self,
        key: impl Into<String>,
        request: InputRequest,
    ) -> Result<InputResponse> {
        let mut answers = self.request_inputs(vec![(key.into(), request)]).await?;
        Ok(answers.remove(0))
    }

    /// Asks the client for several inputs at once, and returns the answers in the same
    /// order. Stateful era: requests to the client, one after the other. 2026-07-28: one
    /// `InputRequiredResult` carrying every request not answered yet.
    ///
    /// Each request needs the matching client capability (`elicitation`, `sampling`,
    /// `roots`); without it the call fails with `-32021`.
    pub async fn request_inputs(
        &self,
        requests: Vec<(String, InputRequest)>,
    ) -> Result<Vec<InputResponse>> {
        for (_, request) in &requests {
            self.check_capability(request)?;
        }
        if self.inner.version.is_stateful() {
            let mut answers = Vec::with_capacity(requests.len());
            for (_, request) in requests {
                answers.push(self.ask_client(request).await?);
            }
            return Ok(answers);
        }
        let Some(round) = &self.inner.input else {
            return Err(Error::msg(
                "client input is only possible from tools/call, prompts/get and resources/read in protocol 2026-07-28",
            ));
        };
        let missing: Vec<&(String, InputRequest)> = requests
            .iter()
            .filter(|(key, _)| !round.answers.contains_key(key))
            .collect();
        if missing.is_empty() {
            return Ok(requests
                .iter()
                .map(|(key, _)| round.answers[key].clone())
                .collect());
        }
        if let Some(run) = self.task_run() {
            let asked = missing.into_iter().cloned().collect();
            let mut answers = run.ask(asked).await?;
            return Ok(requests
                .iter()
                .map(|(key, _)| {
                    answers
                        .remove(key)
                        .unwrap_or_else(|| round.answers[key].clone())
                })
                .collect());
        }
        let mut pending = round.pending.lock();
        for (key, request) in missing {
            pending.insert(key.clone(), request.clone());
        }
        Err(Error::input_required())
    }

    fn next_key(&self, kind: &str) -> String {
        let n = match &self.inner.input {
            Some(round) => round.asked.fetch_add(1, Ordering::Relaxed) + 1,
            None => 0,
        };
        format!("{kind}-{n}")
    }

    fn check_capability(&self, request: &InputRequest) -> Result<()> {
        let caps = &self.inner.client_capabilities;
        let (declared, name) = match &request.request {
            ServerRequest::Elicit(_) => (caps.elicitation.is_some(), "elicitation"),
            ServerRequest::CreateMessage(_) => (caps.sampling.is_some(), "sampling"),
            ServerRequest::ListRoots(_) => (caps.roots.is_some(), "roots"),
            _ => (true, ""),
        };
        if declared {
            Ok(())
        } else {
            Err(missing_capability(name))
        }
    }

    async fn ask_client(&self, request: InputRequest) -> Result<InputResponse> {
        let method = request.method().to_owned();
        let params = request
            .request
            .params_value()
            .ok()
            .flatten()
            .unwrap_or_else(|| Value::Object(Default::default()));
        let value = self
            .inner
            .session
            .request_client(&method, &params, &self.inner.outlet, &self.inner.cancel)
            .await?;
        serde_json::from_value(value)
            .map_err(|e| Error::msg(format!("the client's answer to {method} is malformed: {e}")))
    }
}

/// The client's answer to a request of method `M`, as `T`.
fn parse_answer<M: McpRequest, T: DeserializeOwned>(answer: InputResponse) -> Result<T> {
    let value = match answer {
        InputResponse::Unknown(v) => v,
        other => serde_json::to_value(other).unwrap_or(Value::Null),
    };
    serde_json::from_value(value).map_err(|e| {
        Error::invalid_params(format!("the answer to {} is malformed: {e}", M::METHOD))
    })
}

fn missing_capability(name: &str) -> Error {
    let mut required = ClientCapabilities::default();
    required.extra.insert(name.to_owned(), json!({}));
    // Through JSON, so the named member lands in its typed field.
    let required = serde_json::to_value(&required)
        .and_then(serde_json::from_value)
        .unwrap_or_default();
    let data = MissingRequiredClientCapabilityData {
        required_capabilities: required,
        extra: Default::default(),
    };
    Error::rpc(data.to_error(format!(
        "this request needs the client capability `{name}`, which the client did not declare"
    )))
}
