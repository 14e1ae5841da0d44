//! One client's state: the negotiated version and capabilities (stateful era), requests in
//! flight (for cancellation), requests the server sent to the client, resource subscriptions,
//! and where unrelated messages go.
//!
//! Transports feed parsed messages to [`Session::handle`] and deliver the encoded messages
//! they get back or find in an [`Outlet`]. A 2026-07-28 request carries everything it needs in
//! its `_meta`, so the same session value also serves stateless requests (over HTTP the
//! transport gives each one a fresh session without an id).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use mcp_jsonrpc::message::{Notification, Request, Response, encode_error, encode_notification};
use mcp_jsonrpc::{ErrorObject, Id, Message};
use mcp_schema::{ClientCapabilities, Implementation, LoggingLevel, ProtocolVersion};
use serde::Serialize;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::AbortHandle;

use crate::Server;
use crate::error::Error;
use crate::registry::Change;

mod run;

/// Where encoded messages (one JSON-RPC message each, no trailing newline) go to reach the
/// client: a POST's response stream, the GET stream, stdout.
pub(crate) type Outlet = mpsc::Sender<Vec<u8>>;

/// The stateful-era handshake results.
#[derive(Debug, Default, Clone)]
pub(crate) struct Negotiated {
    pub(crate) version: Option<ProtocolVersion>,
    pub(crate) client_info: Option<Implementation>,
    pub(crate) client_capabilities: ClientCapabilities,
    pub(crate) log_level: Option<LoggingLevel>,
    pub(crate) initialized: bool,
}

type ReplySlot = oneshot::Sender<Result<Value, ErrorObject>>;

pub(crate) struct Session {
    pub(crate) server: Server,
    pub(crate) id: Option<Arc<str>>,
    /// Serves 2026-07-28 requests only (an HTTP request without a session): every request is
    /// judged by its own `_meta`, even one that lacks it.
    pub(crate) stateless: bool,
    negotiated: Mutex<Negotiated>,
    in_flight: Mutex<HashMap<Id, watch::Sender<bool>>>,
    awaiting_client: Mutex<HashMap<Id, ReplySlot>>,
    next_id: AtomicI64,
    push: Mutex<Option<Push>>,
    pub(crate) subscriptions: Mutex<HashSet<String>>,
    last_active: Mutex<Instant>,
    busy: AtomicUsize,
    /// Set when the client can send nothing more (stdin closed, session deleted): open
    /// subscriptions end and requests waiting on the client fail.
    ending: watch::Sender<bool>,
    /// Who the client authenticated as (the first authenticated request sets it).
    principal: std::sync::OnceLock<crate::auth::Principal>,
}

/// The task forwarding registry changes to the push outlet (it owns the outlet).
struct Push {
    forwarder: AbortHandle,
    metrics: Option<crate::middleware::Metrics>,
}

impl Drop for Push {
    fn drop(&mut self) {
        self.forwarder.abort();
        if let Some(m) = &self.metrics {
            m.gauge("mcp_active_connections", -1.0);
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if !self.stateless
            && let Some(m) = self.server.metrics()
        {
            m.gauge("mcp_active_sessions", -1.0);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Marks a session busy while alive (a request in flight, a stream open), so idle expiry
/// never removes a session that is in use.
pub(crate) struct BusyGuard(Arc<Session>);

impl Drop for BusyGuard {
    fn drop(&mut self) {
        self.0.busy.fetch_sub(1, Ordering::AcqRel);
        self.0.touch();
    }
}

impl Session {
    pub(crate) fn new(server: &Server, id: Option<Arc<str>>) -> Arc<Self> {
        Self::create(server, id, false)
    }

    /// A session for one 2026-07-28 request (over HTTP, where there is no connection).
    pub(crate) fn new_stateless(server: &Server) -> Arc<Self> {
        Self::create(server, None, true)
    }

    fn create(server: &Server, id: Option<Arc<str>>, stateless: bool) -> Arc<Self> {
        if !stateless && let Some(m) = server.metrics() {
            m.gauge("mcp_active_sessions", 1.0);
        }
        Arc::new(Self {
            server: server.clone(),
            id,
            stateless,
            negotiated: Mutex::default(),
            in_flight: Mutex::default(),
            awaiting_client: Mutex::default(),
            next_id: AtomicI64::new(0),
            push: Mutex::new(None),
            subscriptions: Mutex::default(),
            last_active: Mutex::new(Instant::now()),
            busy: AtomicUsize::new(0),
            ending: watch::channel(false).0,
            principal: std::sync::OnceLock::new(),
        })
    }

    pub(crate) fn negotiated(&self) -> Negotiated {
        lock(&self.negotiated).clone()
    }

    pub(crate) fn update(&self, f: impl FnOnce(&mut Negotiated)) {
        f(&mut lock(&self.negotiated));
    }

    /// Binds the session to `principal`; false when it already belongs to another subject.
    pub(crate) fn bind_principal(&self, principal: crate::auth::Principal) -> bool {
        let bound = self.principal.get_or_init(|| principal.clone());
        bound.subject == principal.subject
    }

    /// The principal the session belongs to.
    pub(crate) fn principal(&self) -> Option<&crate::auth::Principal> {
        self.principal.get()
    }

    pub(crate) fn touch(&self) {
        *lock(&self.last_active) = Instant::now();
    }

    pub(crate) fn busy(self: &Arc<Self>) -> BusyGuard {
        self.busy.fetch_add(1, Ordering::AcqRel);
        self.touch();
        BusyGuard(self.clone())
    }

    /// How long the session has been unused (zero while anything is in flight or open).
    pub(crate) fn idle_for(&self) -> Duration {
        if self.busy.load(Ordering::Acquire) > 0 {
            return Duration::ZERO;
        }
        lock(&self.last_active).elapsed()
    }

    /// Sets (or clears) where messages unrelated to any request go, and starts forwarding
    /// registry changes there.
    pub(crate) fn set_push(self: &Arc<Self>, outlet: Option<Outlet>) {
        let push = outlet.map(|outlet| {
            // Subscribed here, not in the task, so that no change made after this call is
            // missed (the task may first run later).
            let changes = self.server.subscribe_changes();
            let forwarder = tokio::spawn(forward_changes(Arc::downgrade(self), outlet, changes));
            let metrics = self.server.metrics().cloned();
            if let Some(m) = &metrics {
                m.gauge("mcp_active_connections", 1.0);
            }
            Push {
                forwarder: forwarder.abort_handle(),
                metrics,
            }
        });
        *lock(&self.push) = push;
    }

    /// Handles one message. A request yields its encoded response (`None` when it was
    /// cancelled); notifications and responses yield nothing.
    pub(crate) async fn handle(
        self: &Arc<Self>,
        message: Message,
        related: &Outlet,
    ) -> Option<Vec<u8>> {
        match message {
            Message::Request(request) => self.begin_request(request, related.clone()).await,
            other => {
                self.receive(other);
                None
            }
        }
    }

    /// Handles a notification or a response, at once.
    pub(crate) fn receive(&self, message: Message) {
        self.touch();
        match message {
            Message::Notification(n) => self.handle_notification(n),
            Message::Response(r) => self.handle_response(r),
            Message::Request(r) => {
                tracing::error!(id = %r.id, "a request passed to Session::receive")
            }
        }
    }

    /// Registers a request at once (so a cancellation that follows it finds it) and returns
    /// the future that serves it (inline: see [`run::HandlerRun`]).
    pub(crate) fn begin_request(
        self: &Arc<Self>,
        request: Request,
        related: Outlet,
    ) -> impl std::future::Future<Output = Option<Vec<u8>>> + Send + 'static {
        let busy = self.busy();
        let id = request.id.clone();
        let (cancel_tx, cancel_rx) = watch::channel(false);
        let duplicate = {
            let mut in_flight = lock(&self.in_flight);
            if in_flight.contains_key(&id) {
                true
            } else {
                in_flight.insert(id.clone(), cancel_tx);
                false
            }
        };
        let handler: run::Handler = if duplicate {
            let mut out = Vec::new();
            encode_error(
                &mut out,
                Some(&id),
                &ErrorObject::invalid_request(format!(
                    "request id {id} is already in use by a request in flight"
                )),
            );
            Box::pin(std::future::ready(Some(out)))
        } else {
            let session = self.clone();
            Box::pin(async move {
                crate::dispatch::request(&session, request, related, cancel_rx).await
            })
        };
        run::HandlerRun::new(self.clone(), id, handler, !duplicate, busy)
    }

    /// Frees a finished request's id.
    fn request_done(&self, id: &Id) {
        lock(&self.in_flight).remove(id);
    }

    fn handle_notification(&self, n: Notification) {
        match n.method.as_str() {
            "notifications/initialized" => self.update(|s| s.initialized = true),
            "notifications/cancelled" => {
                let params = n.params_value();
                let Some(id) = params
                    .get("requestId")
                    .and_then(|v| serde_json::from_value::<Id>(v.clone()).ok())
                else {
                    tracing::debug!("notifications/cancelled without a usable requestId");
                    return;
                };
                if let Some(cancel) = lock(&self.in_flight).get(&id) {
                    let _ = cancel.send(true);
                }
            }
            other => tracing::debug!(method = other, "notification ignored"),
        }
    }

    fn handle_response(&self, response: Response) {
        let Some(id) = response.id else {
            tracing::debug!("the client answered with an error for an unreadable request id");
            return;
        };
        let Some(slot) = lock(&self.awaiting_client).remove(&id) else {
            tracing::debug!(%id, "a response to no request of ours");
            return;
        };
        let outcome = response.outcome.and_then(|raw| {
            serde_json::from_str(raw.get())
                .map_err(|e| ErrorObject::internal_error(format!("unreadable result: {e}")))
        });
        let _ = slot.send(outcome);
    }

    /// Sends a request to the client on `outlet` and waits for its answer (stateful era).
    pub(crate) async fn request_client<P: Serialize>(
        &self,
        method: &str,
        params: &P,
        outlet: &Outlet,
        cancel: &mut watch::Receiver<bool>,
    ) -> Result<Value, Error> {
        let id = Id::from(format!(
            "srv-{}",
            self.next_id.fetch_add(1, Ordering::Relaxed)
        ));
        let (tx, rx) = oneshot::channel();
        lock(&self.awaiting_client).insert(id.clone(), tx);
        let mut out = Vec::new();
        mcp_jsonrpc::message::encode_request(&mut out, &id, method, Some(params))
            .map_err(|e| Error::msg(format!("{method} params do not serialize: {e}")))?;
        let forget = || {
            lock(&self.awaiting_client).remove(&id);
        };
        if outlet.send(out).await.is_err() {
            forget();
            return Err(Error::msg(format!(
                "could not send {method} to the client: its stream is closed"
            )));
        }
        let timeout = self.server.inner.options.client_request_timeout;
        tokio::select! {
            answer = rx => match answer {
                Ok(Ok(value)) => Ok(value),
                Ok(Err(e)) => Err(Error::msg(format!("the client refused {method}: {} ({})", e.message, e.code))),
                Err(_) => Err(Error::msg(format!("the session ended before the client answered {method}"))),
            },
            _ = cancel.wait_for(|c| *c) => {
                forget();
                Err(Error::cancelled())
            }
            _ = tokio::time::sleep(timeout) => {
                forget();
                Err(Error::msg(format!("the client did not answer {method} within {timeout:?}")))
            }
        }
    }

    /// The client will send nothing more: subscriptions end (with their final result) and
    /// requests waiting for the client's answer fail; other requests run to completion.
    pub(crate) fn input_closed(&self) {
        let _ = self.ending.send(true);
        lock(&self.awaiting_client).clear();
    }

    /// Completes once [`Session::input_closed`] or [`Session::close`] was called.
    pub(crate) async fn ending(&self) {
        let mut rx = self.ending.subscribe();
        let _ = rx.wait_for(|e| *e).await;
    }

    /// Ends the session: cancels what is in flight and fails what waits on the client.
    pub(crate) fn close(&self) {
        let _ = self.ending.send(true);
        for (_, cancel) in lock(&self.in_flight).drain() {
            let _ = cancel.send(true);
        }
        lock(&self.awaiting_client).clear();
        *lock(&self.push) = None;
    }
}

/// Sends registry changes to a stateful session's push outlet until it closes.
async fn forward_changes(
    session: std::sync::Weak<Session>,
    outlet: Outlet,
    mut changes: tokio::sync::broadcast::Receiver<Change>,
) {
    loop {
        let change = tokio::select! {
            change = changes.recv() => change,
            _ = outlet.closed() => return,
        };
        let change = match change {
            Ok(c) => c,
            Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => {
                tracing::warn!(missed = n, "a slow session missed change notifications");
                continue;
            }
            Err(_) => return,
        };
        let Some(session) = session.upgrade() else {
            return;
        };
        if !session.negotiated().initialized && session.negotiated().version.is_none() {
            continue;
        }
        let message = match &change {
            Change::Tools => notification("notifications/tools/list_changed", None),
            Change::Prompts => notification("notifications/prompts/list_changed", None),
            Change::Resources => notification("notifications/resources/list_changed", None),
            Change::ResourceUpdated(uri) => {
                if !lock(&session.subscriptions).contains(uri) {
                    continue;
                }
                notification(
                    "notifications/resources/updated",
                    Some(&serde_json::json!({ "uri": uri })),
                )
            }
        };
        drop(session);
        if outlet.send(message).await.is_err() {
            return;
        }
    }
}

/// A control message on an outlet, never mistaken for a JSON-RPC message (those start with
/// `{`): the handler lets the client poll — the transport ends the connection of the request's
/// stream and asks the client to come back after `retry_ms` (streamable HTTP); other
/// transports drop it.
pub(crate) fn poll_signal(retry_ms: u64) -> Vec<u8> {
    let mut out = vec![0];
    out.extend_from_slice(&retry_ms.to_be_bytes());
    out
}

/// The retry delay of a [`poll_signal`].
pub(crate) fn as_poll_signal(message: &[u8]) -> Option<u64> {
    match message {
        [0, rest @ ..] => Some(u64::from_be_bytes(rest.try_into().ok()?)),
        _ => None,
    }
}

pub(crate) fn notification(method: &str, params: Option<&Value>) -> Vec<u8> {
    let mut out = Vec::new();
    encode_notification(&mut out, method, params).expect("a Value always serializes");
    out
}
