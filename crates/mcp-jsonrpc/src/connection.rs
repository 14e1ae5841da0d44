//! The transport-independent core of a connection: id allocation, the requests awaiting
//! their answers, dispatch of what the peer sends, bounded inbound queues, and the outbound
//! path. Transports (`stream`, `http`) sit above it and feed it frames; the public handle sits
//! above it too.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

use parking_lot::Mutex;
use serde_json::value::RawValue;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::framing::AsLine;
use crate::incoming::{BatchReplies, IncomingRequest, Replies, ReplyTo};
use crate::message::{self, Message, Notification, Parsed, Response};
use crate::pending::PendingRequests;
use crate::{Error, ErrorObject, Id, Limits, WireDirection, WireTap, error_codes};

/// Frames waiting for the writer of a stream transport. Senders wait when it is full.
pub(crate) const OUTBOUND_QUEUE: usize = 1024;

/// One encoded message on its way out.
#[derive(Debug)]
pub(crate) struct Frame {
    /// Compact JSON, no trailing newline.
    pub(crate) bytes: Vec<u8>,
    /// What the frame carries (the HTTP transport sends each kind differently).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) kind: FrameKind,
    /// Extra HTTP headers of this message (streamable HTTP only; empty otherwise).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) headers: Vec<(String, String)>,
}

impl AsLine for Frame {
    fn line(&self) -> Option<&[u8]> {
        Some(&self.bytes)
    }
}

impl Frame {
    pub(crate) fn response(bytes: Vec<u8>) -> Self {
        Self {
            bytes,
            kind: FrameKind::Response,
            headers: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FrameKind {
    /// A request we sent, with its numeric id.
    Request(i64),
    Notification,
    /// A response (or a batch of responses) to the peer's requests.
    Response,
}

/// A boxed future borrowing from its transport.
pub(crate) type TransportFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// How frames leave this process.
pub(crate) enum Outbound {
    /// A line-oriented byte stream served by a writer task.
    Stream(mpsc::Sender<Frame>),
    /// A transport with exchanges of its own (streamable HTTP: one POST per message).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    Exchanges(Arc<dyn Transport>),
}

/// A transport that carries each message in an exchange of its own (streamable HTTP), and
/// what it offers beyond carrying messages. The HTTP-only operations have defaults for
/// transports without them.
pub(crate) trait Transport: Send + Sync {
    /// Sends a frame, waiting until it is on its way.
    fn send<'a>(
        &'a self,
        shared: &'a Arc<Shared>,
        frame: Frame,
    ) -> TransportFuture<'a, Result<(), Error>>;
    /// Sends a frame without waiting; false when it had to be dropped.
    fn send_detached(&self, shared: &Arc<Shared>, frame: Frame) -> bool;
    /// Sets a header sent with every later exchange.
    fn set_header(&self, name: &str, value: &str) -> Result<(), Error>;
    /// Stops the server-initiated stream (the GET stream) for good.
    fn stop_server_stream(&self) {}
    /// The session id the server assigned.
    fn session_id(&self) -> Option<String> {
        None
    }
    /// Ends the session with the server (best effort).
    fn end_session(&self) -> TransportFuture<'_, ()> {
        Box::pin(async {})
    }
    /// Ends the session from a context that cannot wait.
    fn end_session_detached(&self) {}
}

/// What a request of ours is completed with.
pub(crate) type Answer = Result<Box<RawValue>, Error>;

struct InboundQueues {
    requests: mpsc::Sender<IncomingRequest>,
    notifications: mpsc::Sender<Notification>,
}

#[derive(Default)]
struct Stats {
    invalid_json: AtomicU64,
    invalid_messages: AtomicU64,
    notifications_dropped: AtomicU64,
    notifications_queued: AtomicU64,
    requests_overloaded: AtomicU64,
    replies_dropped: AtomicU64,
    oversized_messages: AtomicU64,
    unknown_responses: AtomicU64,
}

/// Counters of what the connection discarded or refused, for diagnostics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PeerStats {
    /// Frames that were not JSON (skipped).
    pub invalid_json: u64,
    /// JSON values that were not valid JSON-RPC messages.
    pub invalid_messages: u64,
    /// Server→client notifications dropped because the queue was full or nobody listens.
    pub notifications_dropped: u64,
    /// Notifications handed to the notification queue so far. A response is read after every
    /// notification that came before it, so a consumer that has taken this many from the
    /// queue has seen everything the peer sent before that response (progress, for one).
    pub notifications_queued: u64,
    /// Server→client requests answered `-32000 client overloaded` because the queue was full.
    pub requests_overloaded: u64,
    /// Automatic replies (overload, invalid request) that could not be queued because the
    /// outbound queue was full; the peer never sees them.
    pub replies_dropped: u64,
    /// Messages discarded for exceeding `max_message_bytes`.
    pub oversized_messages: u64,
    /// Responses whose id matched no pending request (late, duplicate or unsolicited).
    pub unknown_responses: u64,
    /// Requests currently waiting for their response.
    pub pending_requests: usize,
}

/// State shared by a [`Peer`](crate::Peer), its handles, and its transport tasks.
pub(crate) struct Shared {
    pub(crate) next_id: AtomicI64,
    pub(crate) pending: PendingRequests<i64, Answer>,
    inbound: Mutex<Option<InboundQueues>>,
    outbound: Outbound,
    /// Cancelled when the connection closes.
    closed: CancellationToken,
    stats: Stats,
    pub(crate) limits: Limits,
    /// Sees every message both ways.
    wire: Option<WireTap>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared").finish_non_exhaustive()
    }
}

/// The receiving ends handed to the [`Peer`](crate::Peer).
pub(crate) struct InboundReceivers {
    pub(crate) requests: mpsc::Receiver<IncomingRequest>,
    pub(crate) notifications: mpsc::Receiver<Notification>,
}

impl Shared {
    pub(crate) fn new(
        outbound: Outbound,
        limits: Limits,
        wire: Option<WireTap>,
    ) -> (Arc<Self>, InboundReceivers) {
        let (requests_tx, requests) = mpsc::channel(limits.requests_capacity.max(1));
        let (notifications_tx, notifications) = mpsc::channel(limits.notifications_capacity.max(1));
        let shared = Arc::new(Self {
            next_id: AtomicI64::new(1),
            pending: PendingRequests::new(),
            inbound: Mutex::new(Some(InboundQueues {
                requests: requests_tx,
                notifications: notifications_tx,
            })),
            outbound,
            closed: CancellationToken::new(),
            stats: Stats::default(),
            limits,
            wire,
        });
        (
            shared,
            InboundReceivers {
                requests,
                notifications,
            },
        )
    }

    // ----- lifecycle --------------------------------------------------------------------------

    /// Closes the connection (the first reason wins): every pending request fails with
    /// [`Error::Closed`], the inbound queues end, and the transport tasks stop.
    pub(crate) fn close(&self, reason: impl Into<Arc<str>>) {
        let reason = reason.into();
        if !self
            .pending
            .close(reason.clone(), |why| Err(Error::Closed(why.clone())))
        {
            return;
        }
        tracing::debug!(%reason, "json-rpc connection closed");
        drop(self.inbound.lock().take());
        self.closed.cancel();
    }

    /// The transport with exchanges of its own, if the connection has one.
    pub(crate) fn transport(&self) -> Option<&Arc<dyn Transport>> {
        match &self.outbound {
            Outbound::Exchanges(transport) => Some(transport),
            Outbound::Stream(_) => None,
        }
    }

    pub(crate) fn close_reason(&self) -> Option<Arc<str>> {
        self.pending.closed()
    }

    /// Completes when the connection is closed (at once when it is).
    pub(crate) async fn closed(&self) {
        self.closed.cancelled().await;
    }

    /// Cancelled when the connection closes (for tasks that must not keep it alive).
    pub(crate) fn closed_token(&self) -> CancellationToken {
        self.closed.clone()
    }

    pub(crate) fn closed_error(&self) -> Error {
        Error::Closed(
            self.close_reason()
                .unwrap_or_else(|| Arc::from("connection closed")),
        )
    }

    // ----- outbound ---------------------------------------------------------------------------

    /// Queues a frame, waiting for room in the outbound queue.
    pub(crate) async fn send(self: &Arc<Self>, frame: Frame) -> Result<(), Error> {
        self.tap(WireDirection::Outgoing, &frame.bytes);
        match &self.outbound {
            Outbound::Stream(tx) => tx.send(frame).await.map_err(|_| self.closed_error()),
            Outbound::Exchanges(transport) => transport.send(self, frame).await,
        }
    }

    /// Queues a frame without waiting; false when it had to be dropped.
    /// Queues an automatic reply without waiting; false (and counted) when it had to be
    /// dropped.
    pub(crate) fn send_now(self: &Arc<Self>, frame: Frame) -> bool {
        let queued = self.try_send(frame);
        if !queued {
            self.stats.replies_dropped.fetch_add(1, Ordering::Relaxed);
        }
        queued
    }

    /// Queues a frame without waiting; false when it had to be dropped.
    pub(crate) fn try_send(self: &Arc<Self>, frame: Frame) -> bool {
        self.tap(WireDirection::Outgoing, &frame.bytes);
        match &self.outbound {
            Outbound::Stream(tx) => tx.try_send(frame).is_ok(),
            Outbound::Exchanges(transport) => transport.send_detached(self, frame),
        }
    }

    /// Shows a message to the wire tap, if there is one.
    fn tap(&self, direction: WireDirection, bytes: &[u8]) {
        if let Some(wire) = &self.wire {
            wire.see(direction, bytes);
        }
    }

    fn reply_error_now(self: &Arc<Self>, id: Option<&Id>, error: &ErrorObject) {
        let mut bytes = Vec::with_capacity(96);
        message::encode_error(&mut bytes, id, error);
        self.send_now(Frame::response(bytes));
    }

    // ----- requests ---------------------------------------------------------------------------

    /// Completes a pending request with an outcome produced locally (transport failure…).
    pub(crate) fn complete(&self, id: i64, outcome: Answer) -> bool {
        self.pending.complete(&id, outcome)
    }

    /// Whether a request still waits for its answer (the HTTP transport asks).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn is_pending(&self, id: i64) -> bool {
        self.pending.contains(&id)
    }

    // ----- inbound ----------------------------------------------------------------------------

    /// Handles one inbound frame (a line, an SSE event, an HTTP body).
    pub(crate) fn dispatch(self: &Arc<Self>, bytes: &[u8]) {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        self.tap(WireDirection::Incoming, bytes);
        match message::parse(bytes) {
            Err(e) => {
                self.stats.invalid_json.fetch_add(1, Ordering::Relaxed);
                tracing::debug!(error = %e, line = %preview(bytes), "skipping a frame that is not JSON");
            }
            Ok(Parsed::Single(item)) => self.handle(item, None),
            Ok(Parsed::Batch(items)) => {
                // JSON-RPC 2.0: the answers to a batch's requests (and to its invalid members)
                // go back together in one array, once every one of them is answered.
                let needs_reply =
                    |item: &Result<Message, _>| matches!(item, Ok(Message::Request(_)) | Err(_));
                let expected = items.iter().filter(|item| needs_reply(item)).count();
                let batch = (expected > 0).then(|| BatchReplies::new(expected));
                let mut next_slot = 0;
                for item in items {
                    let target = match &batch {
                        Some(batch) if needs_reply(&item) => {
                            next_slot += 1;
                            Some((batch.clone(), next_slot - 1))
                        }
                        _ => None,
                    };
                    self.handle(item, target);
                }
            }
        }
    }

    fn handle(
        self: &Arc<Self>,
        item: Result<Message, crate::message::InvalidMessage>,
        batch: Option<(Arc<BatchReplies>, usize)>,
    ) {
        match item {
            Ok(Message::Response(response)) => self.route_response(response),
            Ok(Message::Request(request)) => self.accept_request(request, batch),
            Ok(Message::Notification(notification)) => self.accept_notification(notification),
            Err(invalid) => {
                self.stats.invalid_messages.fetch_add(1, Ordering::Relaxed);
                tracing::debug!(reason = %invalid, "invalid JSON-RPC message from peer");
                let error = ErrorObject::invalid_request(&invalid.reason);
                if let Some((batch, index)) = batch {
                    let mut bytes = Vec::new();
                    message::encode_error(&mut bytes, invalid.id.as_ref(), &error);
                    batch.fill_now(self.clone(), index, bytes);
                } else if invalid.is_request {
                    // JSON-RPC: an invalid request is answered, with a null id if unreadable.
                    self.reply_error_now(invalid.id.as_ref(), &error);
                }
            }
        }
    }

    fn route_response(&self, response: Response) {
        let id = match response.id {
            Some(Id::Number(n)) => n,
            other => {
                self.stats.unknown_responses.fetch_add(1, Ordering::Relaxed);
                match response.outcome {
                    Err(e) => {
                        tracing::warn!(id = ?other, error = %e, "peer sent an error response no request of ours can own")
                    }
                    Ok(_) => {
                        tracing::debug!(id = ?other, "ignoring a response with an id we never issued")
                    }
                }
                return;
            }
        };
        if !self.complete(id, response.outcome.map_err(|e| Error::Rpc(Box::new(e)))) {
            self.stats.unknown_responses.fetch_add(1, Ordering::Relaxed);
            tracing::debug!(
                id,
                "ignoring a response to no pending request (late or duplicate)"
            );
        }
    }

    fn accept_request(
        self: &Arc<Self>,
        request: message::Request,
        batch: Option<(Arc<BatchReplies>, usize)>,
    ) {
        let sender = self.inbound.lock().as_ref().map(|q| q.requests.clone());
        let Some(sender) = sender else { return };
        let id = request.id.clone();
        let incoming = IncomingRequest::new(
            request,
            ReplyTo {
                sink: self.clone(),
                batch,
            },
        );
        match sender.try_send(incoming) {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Full(incoming)) => {
                self.stats
                    .requests_overloaded
                    .fetch_add(1, Ordering::Relaxed);
                tracing::warn!(%id, method = %incoming.method, "server→client request queue full: answering -32000 client overloaded");
                incoming.reject_now(ErrorObject::new(
                    error_codes::SERVER_ERROR,
                    "client overloaded",
                ));
            }
            Err(mpsc::error::TrySendError::Closed(incoming)) => {
                // Nobody consumes server→client requests on this connection.
                let error = ErrorObject::method_not_found(&incoming.method);
                incoming.reject_now(error);
            }
        }
    }

    fn accept_notification(&self, notification: Notification) {
        let sender = self
            .inbound
            .lock()
            .as_ref()
            .map(|q| q.notifications.clone());
        let Some(sender) = sender else { return };
        match sender.try_send(notification) {
            Ok(()) => {
                self.stats
                    .notifications_queued
                    .fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => self.notification_dropped(&e),
        }
    }

    fn notification_dropped(&self, e: &mpsc::error::TrySendError<Notification>) {
        self.stats
            .notifications_dropped
            .fetch_add(1, Ordering::Relaxed);
        let method = match e {
            mpsc::error::TrySendError::Full(n) | mpsc::error::TrySendError::Closed(n) => {
                n.method.clone()
            }
        };
        tracing::debug!(%method, "dropping a server→client notification: queue full or not consumed");
    }

    /// A message exceeded `max_message_bytes` and was discarded; `id` and `is_request` come
    /// from a scan of its top-level members. A request of ours gets [`Error::MessageTooLarge`];
    /// a request from the peer gets a `-32600` answer so that it does not wait forever.
    pub(crate) fn oversized(self: &Arc<Self>, id: Option<Id>, is_request: bool) {
        self.stats
            .oversized_messages
            .fetch_add(1, Ordering::Relaxed);
        let limit = self.limits.max_message_bytes;
        tracing::warn!(limit, id = ?id, "discarded a message larger than max_message_bytes");
        match (id, is_request) {
            (Some(id), true) => self.reply_error_now(
                Some(&id),
                &ErrorObject::invalid_request(format!(
                    "message exceeds the client's limit of {limit} bytes"
                )),
            ),
            (Some(Id::Number(n)), false) => {
                self.complete(n, Err(Error::MessageTooLarge { limit }));
            }
            _ => {}
        }
    }

    pub(crate) fn stats(&self) -> PeerStats {
        let s = &self.stats;
        PeerStats {
            invalid_json: s.invalid_json.load(Ordering::Relaxed),
            invalid_messages: s.invalid_messages.load(Ordering::Relaxed),
            notifications_dropped: s.notifications_dropped.load(Ordering::Relaxed),
            notifications_queued: s.notifications_queued.load(Ordering::Relaxed),
            requests_overloaded: s.requests_overloaded.load(Ordering::Relaxed),
            replies_dropped: s.replies_dropped.load(Ordering::Relaxed),
            oversized_messages: s.oversized_messages.load(Ordering::Relaxed),
            unknown_responses: s.unknown_responses.load(Ordering::Relaxed),
            pending_requests: self.pending.len(),
        }
    }
}

impl Replies for Shared {
    fn send_response(
        self: Arc<Self>,
        bytes: Vec<u8>,
    ) -> TransportFuture<'static, Result<(), Error>> {
        Box::pin(async move { self.send(Frame::response(bytes)).await })
    }

    fn send_now(self: Arc<Self>, bytes: Vec<u8>) {
        Shared::send_now(&self, Frame::response(bytes));
    }
}

/// At most 200 characters of a frame, for logs.
pub(crate) fn preview(bytes: &[u8]) -> String {
    let cut = bytes.len().min(200);
    let mut s = String::from_utf8_lossy(&bytes[..cut]).into_owned();
    if cut < bytes.len() {
        s.push('…');
    }
    s
}
