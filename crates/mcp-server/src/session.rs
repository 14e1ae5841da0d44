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

/// What changed in a session's state since a shared session store last saw it (the stateful
/// handshake, the log level, resource subscriptions, the principal).
#[derive(Debug, Default)]
pub(crate) struct Changes {
    /// The handshake fields (version, client info, capabilities) changed.
    pub(crate) handshake: bool,
    pub(crate) log_level: bool,
    pub(crate) initialized: bool,
    pub(crate) principal: bool,
    /// Subscriptions added (`true`) or removed, in order.
    pub(crate) subscriptions: Vec<(String, bool)>,
}

impl Changes {
    pub(crate) fn is_empty(&self) -> bool {
        !(self.handshake || self.log_level || self.initialized || self.principal)
            && self.subscriptions.is_empty()
    }
}

/// A message [`Session::receive`] could not deliver here: it may belong to another replica
/// serving the same session.
#[derive(Debug)]
pub(crate) enum Undelivered {
    /// An answer to a request this process did not send (or no longer waits for).
    Answer(Response),
    /// A cancellation of a request not in flight here.
    Cancel(Notification),
}

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
    subscriptions: Mutex<HashSet<String>>,
    /// What changed since the shared session store last saw it (unused without one).
    changes: Mutex<Changes>,
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
            changes: Mutex::default(),
            last_active: Mutex::new(Instant::now()),
            busy: AtomicUsize::new(0),
            ending: CancellationToken::new(),
            principal: OnceLock::new(),
        })
    }

    pub(crate) fn negotiated(&self) -> Negotiated {
        self.negotiated.lock().clone()
    }

    /// Changes the negotiated state, noting what changed for a shared session store.
    pub(crate) fn update(&self, f: impl FnOnce(&mut Negotiated)) {
        let mut negotiated = self.negotiated.lock();
        let before = negotiated.clone();
        f(&mut negotiated);
        let mut changes = self.changes.lock();
        changes.handshake |= before.version != negotiated.version
            || before.client_info != negotiated.client_info
            || before.client_capabilities != negotiated.client_capabilities;
        changes.log_level |= before.log_level != negotiated.log_level;
        changes.initialized |= before.initialized != negotiated.initialized;
    }

    /// Replaces the negotiated state and subscriptions with what a shared session store holds
    /// (another replica changed them); nothing is noted as changed.
    pub(crate) fn restore(&self, negotiated: Negotiated, subscriptions: HashSet<String>) {
        *self.negotiated.lock() = negotiated;
        *self.subscriptions.lock() = subscriptions;
    }

    /// Takes what changed since the last call.
    pub(crate) fn take_changes(&self) -> Changes {
        std::mem::take(&mut self.changes.lock())
    }

    /// Subscribes to (or unsubscribes from) updates of the resource `uri`.
    pub(crate) fn subscribe(&self, uri: &str, on: bool) {
        let mut subscriptions = self.subscriptions.lock();
        let changed = if on {
            subscriptions.insert(uri.to_owned())
        } else {
            subscriptions.remove(uri)
        };
        if changed {
            self.changes.lock().subscriptions.push((uri.to_owned(), on));
        }
    }

    /// Whether the client subscribed to `uri` (here).
    pub(crate) fn is_subscribed(&self, uri: &str) -> bool {
        self.subscriptions.lock().contains(uri)
    }

    /// Binds the session to `principal`; false when it already belongs to another identity
    /// (another subject, or the same subject from another issuer).
    pub(crate) fn bind_principal(&self, principal: Principal) -> bool {
        let mut first = false;
        let bound = self.principal.get_or_init(|| {
            first = true;
            principal.clone()
        });
        if first {
            self.changes.lock().principal = true;
        }
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

    /// Handles a notification or a response, at once; gives back what is for a request not
    /// known here (another replica may know it).
    pub(crate) fn receive(&self, message: Message) -> Option<Undelivered> {
        self.touch();
        match message {
            Message::Notification(n) => self.handle_notification(n),
            Message::Response(r) => self.answer(r),
            Message::Request(r) => {
                tracing::error!(id = %r.id, "a request passed to Session::receive");
                None
            }
        }
    }

    fn handle_notification(&self, n: Notification) -> Option<Undelivered> {
        match ClientNotification::from_raw(&n.method, n.params.as_deref()) {
            Ok(ClientNotification::Initialized(_)) => self.update(|s| s.initialized = true),
            Ok(ClientNotification::Cancelled(params)) => {
                let Some(id) = params.request_id else {
                    tracing::debug!("notifications/cancelled without a requestId");
                    return None;
                };
                if !self.cancel(&id) {
                    return Some(Undelivered::Cancel(n));
                }
            }
            Ok(other) => tracing::debug!(method = other.method(), "notification ignored"),
            Err(e) => tracing::debug!(method = %n.method, "a malformed notification: {e}"),
        }
        None
    }

    /// Cancels the request `id` if it is in flight here.
    pub(crate) fn cancel(&self, id: &Id) -> bool {
        match self.in_flight.lock().get(id) {
            Some(cancel) => {
                cancel.cancel();
                true
            }
            None => false,
        }
    }

    /// Completes the request of ours that `response` answers; gives the response back when no
    /// request here waits for it.
    pub(crate) fn answer(&self, response: Response) -> Option<Undelivered> {
        let Some(id) = response.id.clone() else {
            tracing::debug!("the client answered with an error for an unreadable request id");
            return None;
        };
        if !self.awaiting_client.contains(&id) {
            tracing::debug!(%id, "a response to no request of ours here");
            return Some(Undelivered::Answer(response));
        }
        let outcome = match response.outcome {
            Ok(raw) => serde_json::from_str(raw.get())
                .map_err(|e| ErrorObject::internal_error(format!("unreadable result: {e}"))),
            Err(error) => Err(error),
        };
        self.awaiting_client.complete(&id, Some(outcome));
        None
    }

    /// Sends a request to the client on `outlet` and waits for its answer (stateful era).
    pub(crate) async fn request_client<P: Serialize>(
        &self,
        method: &str,
        params: &P,
        outlet: &Outlet,
        cancel: &CancellationToken,
    ) -> Result<Value, Error> {
        let n = self.next_id.fetch_add(1, Ordering::Relaxed);
        // With other replicas, the id says which one waits for the answer.
        let id = Id::from(match self.shared.replicas.get() {
            Some(replicas) => format!("srv-{}-{n}", replicas.replica()),
            None => format!("srv-{n}"),
        });
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
