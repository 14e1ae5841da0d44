//! One client's state: the negotiated version and capabilities (stateful era), requests in
//! flight (for cancellation), requests the server sent to the client, resource subscriptions,
//! who the client authenticated as, and where unrelated messages go.
//!
//! This module only keeps state. Serving a message is the dispatch layer's
//! (`dispatch::Session::begin_request`), which transports call. A 2026-07-28 request carries
//! everything it needs in its `_meta`, so the same type also serves stateless requests (over
//! HTTP the transport gives each one a fresh session without an id).

use std::any::Any;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcp_jsonrpc::message::{Notification, Response, encode_notification, encode_request};
use mcp_jsonrpc::pending::PendingRequests;
use mcp_jsonrpc::{ErrorObject, Id, Message};
use mcp_schema::{
    ClientCapabilities, ClientNotification, Implementation, LoggingLevel, McpNotification,
    ProtocolVersion,
};
use parking_lot::Mutex;
use serde::Serialize;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;
use tokio_util::sync::CancellationToken;

use crate::auth::Principal;
use crate::error::Error;
use crate::metrics::Metrics;
use crate::shared::Shared;

/// Why requests to the client fail once it can send nothing more.
const SESSION_ENDED: &str = "session ended";

/// What goes out to the client on an [`Outlet`].
#[derive(Debug)]
pub(crate) enum Outbound {
    /// One encoded JSON-RPC message (no trailing newline).
    Message(Vec<u8>),
    /// The handler lets the client poll: the transport ends the connection carrying this
    /// request's stream and asks the client to come back after `retry` (streamable HTTP);
    /// other transports ignore it.
    Poll {
        /// When the client should reconnect.
        retry: Duration,
    },
}

/// Where messages go to reach the client: a POST's response stream, the GET stream, stdout.
pub(crate) type Outlet = mpsc::Sender<Outbound>;

/// The stateful-era handshake results.
#[derive(Debug, Default, Clone)]
pub(crate) struct Negotiated {
    pub(crate) version: Option<ProtocolVersion>,
    pub(crate) client_info: Option<Implementation>,
    pub(crate) client_capabilities: ClientCapabilities,
    pub(crate) log_level: Option<LoggingLevel>,
    pub(crate) initialized: bool,
}

/// What the client answered to a request of ours; `None` when the session ended first.
type ClientAnswer = Option<Result<Value, ErrorObject>>;

pub(crate) struct Session {
    pub(crate) id: Option<Arc<str>>,
    /// Serves 2026-07-28 requests only (an HTTP request without a session): every request is
    /// judged by its own `_meta`, even one that lacks it.
    pub(crate) stateless: bool,
    pub(crate) shared: Arc<Shared>,
    /// The [`Server`](crate::Server) this session belongs to, held without naming its type:
    /// the server sits above this layer (its registry holds handlers that take contexts that
    /// hold sessions). `server.rs` gives it back its type.
    pub(crate) server: Box<dyn Any + Send + Sync>,
    negotiated: Mutex<Negotiated>,
    in_flight: Mutex<HashMap<Id, CancellationToken>>,
    /// Requests sent to the client, awaiting its answer (closed once the client can send
    /// nothing more).
    awaiting_client: PendingRequests<Id, ClientAnswer>,
    next_id: AtomicI64,
    push: Mutex<Option<Push>>,
    pub(crate) subscriptions: Mutex<HashSet<String>>,
    last_active: Mutex<Instant>,
    busy: AtomicUsize,
    /// Cancelled when the client can send nothing more (stdin closed, session deleted): open
    /// subscriptions end and requests waiting on the client fail.
    ending: CancellationToken,
    /// Who the client authenticated as (the first authenticated request sets it).
    principal: OnceLock<Principal>,
}

/// The task forwarding registry changes to the session's push outlet: stopped when replaced
/// or when the session closes.
pub(crate) struct Push {
    forwarder: AbortHandle,
    metrics: Option<Metrics>,
}

impl Push {
    /// Counts one connection that can receive pushes while the forwarder runs.
    pub(crate) fn new(forwarder: AbortHandle, metrics: Option<Metrics>) -> Self {
        if let Some(m) = &metrics {
            m.gauge("mcp_active_connections", 1.0);
        }
        Self { forwarder, metrics }
    }
}

impl mcp_jsonrpc::framing::AsLine for Outbound {
    fn line(&self) -> Option<&[u8]> {
        match self {
            Outbound::Message(message) => Some(message),
            Outbound::Poll { .. } => None,
        }
    }
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
            && let Some(m) = &self.shared.metrics
        {
            m.gauge("mcp_active_sessions", -1.0);
        }
    }
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
    /// A session of the server whose shared part is `shared`; `server` is the server itself.
    pub(crate) fn create(
        shared: Arc<Shared>,
        server: Box<dyn Any + Send + Sync>,
        id: Option<Arc<str>>,
        stateless: bool,
    ) -> Arc<Self> {
        if !stateless && let Some(m) = &shared.metrics {
            m.gauge("mcp_active_sessions", 1.0);
        }
        Arc::new(Self {
            id,
            stateless,
            shared,
            server,
            negotiated: Mutex::default(),
            in_flight: Mutex::default(),
            awaiting_client: PendingRequests::new(),
            next_id: AtomicI64::new(0),
            push: Mutex::new(None),
            subscriptions: Mutex::default(),
            last_active: Mutex::new(Instant::now()),
            busy: AtomicUsize::new(0),
            ending: CancellationToken::new(),
            principal: OnceLock::new(),
        })
    }

    pub(crate) fn negotiated(&self) -> Negotiated {
        self.negotiated.lock().clone()
    }

    pub(crate) fn update(&self, f: impl FnOnce(&mut Negotiated)) {
        f(&mut self.negotiated.lock());
    }

    /// Binds the session to `principal`; false when it already belongs to another identity
    /// (another subject, or the same subject from another issuer).
    pub(crate) fn bind_principal(&self, principal: Principal) -> bool {
        let bound = self.principal.get_or_init(|| principal.clone());
        bound.same_identity(&principal)
    }

    /// The principal the session belongs to.
    pub(crate) fn principal(&self) -> Option<&Principal> {
        self.principal.get()
    }

    pub(crate) fn touch(&self) {
        *self.last_active.lock() = Instant::now();
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
        self.last_active.lock().elapsed()
    }

    /// Sets (or clears) the task forwarding unrelated messages to the client.
    pub(crate) fn replace_push(&self, push: Option<Push>) {
        *self.push.lock() = push;
    }

    /// Registers a request in flight; `None` when its id is already in use by one.
    pub(crate) fn register_request(&self, id: &Id) -> Option<CancellationToken> {
        let mut in_flight = self.in_flight.lock();
        if in_flight.contains_key(id) {
            return None;
        }
        let cancel = CancellationToken::new();
        in_flight.insert(id.clone(), cancel.clone());
        Some(cancel)
    }

    /// Frees a finished request's id.
    pub(crate) fn request_done(&self, id: &Id) {
        self.in_flight.lock().remove(id);
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

    fn handle_notification(&self, n: Notification) {
        match ClientNotification::from_raw(&n.method, n.params.as_deref()) {
            Ok(ClientNotification::Initialized(_)) => self.update(|s| s.initialized = true),
            Ok(ClientNotification::Cancelled(params)) => {
                let Some(id) = params.request_id else {
                    tracing::debug!("notifications/cancelled without a requestId");
                    return;
                };
                if let Some(cancel) = self.in_flight.lock().get(&id) {
                    cancel.cancel();
                }
            }
            Ok(other) => tracing::debug!(method = other.method(), "notification ignored"),
            Err(e) => tracing::debug!(method = %n.method, "a malformed notification: {e}"),
        }
    }

    fn handle_response(&self, response: Response) {
        let Some(id) = response.id else {
            tracing::debug!("the client answered with an error for an unreadable request id");
            return;
        };
        let outcome = match response.outcome {
            Ok(raw) => serde_json::from_str(raw.get())
                .map_err(|e| ErrorObject::internal_error(format!("unreadable result: {e}"))),
            Err(error) => Err(error),
        };
        if !self.awaiting_client.complete(&id, Some(outcome)) {
            tracing::debug!(%id, "a response to no request of ours");
        }
    }

    /// Sends a request to the client on `outlet` and waits for its answer (stateful era).
    pub(crate) async fn request_client<P: Serialize>(
        &self,
        method: &str,
        params: &P,
        outlet: &Outlet,
        cancel: &CancellationToken,
    ) -> Result<Value, Error> {
        let id = Id::from(format!(
            "srv-{}",
            self.next_id.fetch_add(1, Ordering::Relaxed)
        ));
        let mut out = Vec::new();
        encode_request(&mut out, &id, method, Some(params))
            .map_err(|e| Error::msg(format!("{method} params do not serialize: {e}")))?;
        let rx = self.awaiting_client.insert(id.clone()).map_err(|closed| {
            Error::msg(format!(
                "could not send {method} to the client: {}",
                closed.0
            ))
        })?;
        let forget = || self.awaiting_client.abandon(&id);
        if outlet.send(Outbound::Message(out)).await.is_err() {
            forget();
            return Err(Error::msg(format!(
                "could not send {method} to the client: its stream is closed"
            )));
        }
        let timeout = self.shared.options.client_request_timeout;
        tokio::select! {
            answer = rx => match answer {
                Ok(Some(Ok(value))) => Ok(value),
                Ok(Some(Err(e))) => Err(Error::msg(format!("the client refused {method}: {} ({})", e.message, e.code))),
                Ok(None) | Err(_) => Err(Error::msg(format!("the {SESSION_ENDED} before the client answered {method}"))),
            },
            _ = cancel.cancelled() => {
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
        self.ending.cancel();
        self.close_awaiting_client();
    }

    /// Fails every request waiting on the client, and refuses new ones.
    fn close_awaiting_client(&self) {
        self.awaiting_client
            .close(std::sync::Arc::from(SESSION_ENDED), |_| None);
    }

    /// Completes once [`Session::input_closed`] or [`Session::close`] was called.
    pub(crate) async fn ending(&self) {
        self.ending.cancelled().await;
    }

    /// Ends the session: cancels what is in flight and fails what waits on the client.
    pub(crate) fn close(&self) {
        self.ending.cancel();
        for (_, cancel) in self.in_flight.lock().drain() {
            cancel.cancel();
        }
        self.close_awaiting_client();
        *self.push.lock() = None;
    }
}

/// A notification of method `N`, encoded (`None`: no params).
pub(crate) fn notification<N: McpNotification>(params: Option<&N::Params>) -> Outbound {
    let mut out = Vec::new();
    encode_notification(&mut out, N::METHOD, params)
        .expect("mcp-schema params types always serialize");
    Outbound::Message(out)
}
