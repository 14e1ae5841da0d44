//! The transport-independent half of a connection: id allocation, pending requests, inbound
//! dispatch, bounded inbound queues and the outbound path.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::{mpsc, oneshot, watch};

use crate::incoming::{BatchReplies, IncomingRequest, ReplyTo};
use crate::message::{self, Message, Notification, Parsed, Response};
use crate::{Error, ErrorObject, Id, Limits, error_codes};

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

/// How frames leave this process.
pub(crate) enum Outbound {
    /// A line-oriented byte stream served by a writer task.
    Stream(mpsc::Sender<Frame>),
    /// One HTTP POST per message.
    #[cfg(feature = "http")]
    Http(Arc<crate::http::HttpOutbound>),
}

struct Slot {
    tx: oneshot::Sender<Result<Box<RawValue>, Error>>,
    /// Work to stop when the request is abandoned (the HTTP exchange carrying it).
    abort: Option<tokio::task::AbortHandle>,
}

#[derive(Default)]
struct PendingTable {
    slots: HashMap<i64, Slot>,
    /// Set once, when the connection closes; no slot is added afterwards.
    closed: Option<Arc<str>>,
}

struct InboundQueues {
    requests: mpsc::Sender<IncomingRequest>,
    notifications: mpsc::Sender<Notification>,
}

#[derive(Default)]
struct Stats {
    invalid_json: AtomicU64,
    invalid_messages: AtomicU64,
    notifications_dropped: AtomicU64,
    requests_overloaded: AtomicU64,
    replies_dropped: AtomicU64,
    oversized_messages: AtomicU64,
    unknown_responses: AtomicU64,
}

/// Counters of what the connection discarded or refused, for diagnostics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClientStats {
    /// Frames that were not JSON (skipped).
    pub invalid_json: u64,
    /// JSON values that were not valid JSON-RPC messages.
    pub invalid_messages: u64,
    /// Server→client notifications dropped because the queue was full or nobody listens.
    pub notifications_dropped: u64,
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

/// State shared by a [`Client`](crate::Client), its handles, and its transport tasks.
pub(crate) struct Shared {
    next_id: AtomicI64,
    pending: Mutex<PendingTable>,
    inbound: Mutex<Option<InboundQueues>>,
    outbound: Outbound,
    closed_tx: watch::Sender<bool>,
    stats: Stats,
    pub(crate) limits: Limits,
}

/// The receiving ends handed to the [`Client`](crate::Client).
pub(crate) struct InboundReceivers {
    pub(crate) requests: mpsc::Receiver<IncomingRequest>,
    pub(crate) notifications: mpsc::Receiver<Notification>,
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding one of these short locks leaves consistent data behind.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    pub(crate) fn new(outbound: Outbound, limits: Limits) -> (Arc<Self>, InboundReceivers) {
        let (requests_tx, requests) = mpsc::channel(limits.requests_capacity.max(1));
        let (notifications_tx, notifications) = mpsc::channel(limits.notifications_capacity.max(1));
        let shared = Arc::new(Self {
            next_id: AtomicI64::new(1),
            pending: Mutex::new(PendingTable::default()),
            inbound: Mutex::new(Some(InboundQueues {
                requests: requests_tx,
                notifications: notifications_tx,
            })),
            outbound,
            closed_tx: watch::Sender::new(false),
            stats: Stats::default(),
            limits,
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
        let slots = {
            let mut table = lock(&self.pending);
            if table.closed.is_some() {
                return;
            }
            table.closed = Some(reason.clone());
            std::mem::take(&mut table.slots)
        };
        tracing::debug!(%reason, "json-rpc connection closed");
        for (_, slot) in slots {
            if let Some(abort) = slot.abort {
                abort.abort();
            }
            let _ = slot.tx.send(Err(Error::Closed(reason.clone())));
        }
        drop(lock(&self.inbound).take());
        self.closed_tx.send_replace(true);
    }

    #[cfg(feature = "http")]
    pub(crate) fn outbound_ref(&self) -> &Outbound {
        &self.outbound
    }

    pub(crate) fn close_reason(&self) -> Option<Arc<str>> {
        lock(&self.pending).closed.clone()
    }

    pub(crate) fn closed_signal(&self) -> watch::Receiver<bool> {
        self.closed_tx.subscribe()
    }

    fn closed_error(&self) -> Error {
        Error::Closed(
            self.close_reason()
                .unwrap_or_else(|| Arc::from("connection closed")),
        )
    }

    // ----- outbound ---------------------------------------------------------------------------

    /// Queues a frame, waiting for room in the outbound queue.
    async fn send(self: &Arc<Self>, frame: Frame) -> Result<(), Error> {
        match &self.outbound {
            Outbound::Stream(tx) => tx.send(frame).await.map_err(|_| self.closed_error()),
            #[cfg(feature = "http")]
            Outbound::Http(http) => http.send(self, frame).await,
        }
    }

    /// Queues a frame without waiting; false when it had to be dropped.
    pub(crate) fn send_now(self: &Arc<Self>, frame: Frame) -> bool {
        let queued = match &self.outbound {
            Outbound::Stream(tx) => tx.try_send(frame).is_ok(),
            #[cfg(feature = "http")]
            Outbound::Http(http) => http.send_detached(self, frame),
        };
        if !queued {
            self.stats.replies_dropped.fetch_add(1, Ordering::Relaxed);
        }
        queued
    }

    pub(crate) async fn send_response(self: &Arc<Self>, bytes: Vec<u8>) -> Result<(), Error> {
        self.send(Frame::response(bytes)).await
    }

    fn reply_error_now(self: &Arc<Self>, id: Option<&Id>, error: &ErrorObject) {
        let mut bytes = Vec::with_capacity(96);
        message::encode_error(&mut bytes, id, error);
        self.send_now(Frame::response(bytes));
    }

    // ----- requests ---------------------------------------------------------------------------

    fn register(
        &self,
        id: i64,
        tx: oneshot::Sender<Result<Box<RawValue>, Error>>,
    ) -> Result<(), Error> {
        let mut table = lock(&self.pending);
        if let Some(reason) = &table.closed {
            return Err(Error::Closed(reason.clone()));
        }
        table.slots.insert(id, Slot { tx, abort: None });
        Ok(())
    }

    fn unregister(&self, id: i64) {
        let slot = lock(&self.pending).slots.remove(&id);
        if let Some(Slot {
            abort: Some(abort), ..
        }) = slot
        {
            abort.abort();
        }
    }

    /// Ties the work carrying a request to its slot, so that abandoning the request stops it.
    #[cfg(feature = "http")]
    pub(crate) fn set_abort(&self, id: i64, abort: tokio::task::AbortHandle) {
        if let Some(slot) = lock(&self.pending).slots.get_mut(&id) {
            slot.abort = Some(abort);
        } else {
            // Already answered or abandoned: nothing to wait for.
            abort.abort();
        }
    }

    /// Completes a pending request with an outcome produced locally (transport failure…).
    pub(crate) fn complete(&self, id: i64, outcome: Result<Box<RawValue>, Error>) -> bool {
        let slot = lock(&self.pending).slots.remove(&id);
        match slot {
            Some(slot) => {
                let _ = slot.tx.send(outcome);
                true
            }
            None => false,
        }
    }

    #[cfg(feature = "http")]
    pub(crate) fn is_pending(&self, id: i64) -> bool {
        lock(&self.pending).slots.contains_key(&id)
    }

    // ----- inbound ----------------------------------------------------------------------------

    /// Handles one inbound frame (a line, an SSE event, an HTTP body).
    pub(crate) fn dispatch(self: &Arc<Self>, bytes: &[u8]) {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return;
        }
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
                    batch.fill_now(self, index, bytes);
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
        if !self.complete(id, response.outcome.map_err(Error::Rpc)) {
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
        let sender = lock(&self.inbound).as_ref().map(|q| q.requests.clone());
        let Some(sender) = sender else { return };
        let id = request.id.clone();
        let incoming = IncomingRequest::new(
            request,
            ReplyTo {
                shared: self.clone(),
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
        let sender = lock(&self.inbound)
            .as_ref()
            .map(|q| q.notifications.clone());
        let Some(sender) = sender else { return };
        if let Err(e) = sender.try_send(notification) {
            self.stats
                .notifications_dropped
                .fetch_add(1, Ordering::Relaxed);
            let method = match &e {
                mpsc::error::TrySendError::Full(n) | mpsc::error::TrySendError::Closed(n) => {
                    n.method.clone()
                }
            };
            tracing::debug!(%method, "dropping a server→client notification: queue full or not consumed");
        }
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

    fn stats(&self) -> ClientStats {
        let s = &self.stats;
        ClientStats {
            invalid_json: s.invalid_json.load(Ordering::Relaxed),
            invalid_messages: s.invalid_messages.load(Ordering::Relaxed),
            notifications_dropped: s.notifications_dropped.load(Ordering::Relaxed),
            requests_overloaded: s.requests_overloaded.load(Ordering::Relaxed),
            replies_dropped: s.replies_dropped.load(Ordering::Relaxed),
            oversized_messages: s.oversized_messages.load(Ordering::Relaxed),
            unknown_responses: s.unknown_responses.load(Ordering::Relaxed),
            pending_requests: lock(&self.pending).slots.len(),
        }
    }
}

/// True for a valid HTTP header name: a non-empty RFC 9110 `token` (letters, digits and
/// `` !#$%&'*+-.^_`|~ ``). [`ClientHandle::start_request_with_headers`] applies it.
pub fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

fn is_header_value(value: &str) -> bool {
    value
        .bytes()
        .all(|b| b == b'\t' || (0x20..0x7f).contains(&b))
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

// ----- the public handle ----------------------------------------------------------------------

/// A cloneable handle to a connection: send requests and notifications from any task.
///
/// Writes are serialized (messages never interleave); requests may be issued concurrently and
/// are matched to their responses by id. All handles stop working once the owning
/// [`Client`](crate::Client) is dropped or the connection closes.
#[derive(Clone)]
pub struct ClientHandle {
    pub(crate) shared: Arc<Shared>,
}

impl std::fmt::Debug for ClientHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientHandle")
            .field("closed", &self.shared.close_reason())
            .finish_non_exhaustive()
    }
}

impl ClientHandle {
    /// Sends a request and waits for its result.
    ///
    /// A JSON-RPC error response becomes [`Error::Rpc`]. Dropping the returned future (for
    /// example on a timeout) forgets the request: a late response is ignored.
    pub async fn request(&self, method: &str, params: Option<Value>) -> Result<Value, Error> {
        let raw = self.request_raw(method, params.as_ref()).await?;
        serde_json::from_str(raw.get()).map_err(Error::Decode)
    }

    /// Sends a request with any serializable parameters and returns the raw result bytes,
    /// validated as JSON but not parsed into a tree.
    pub async fn request_raw<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: Option<&P>,
    ) -> Result<Box<RawValue>, Error> {
        self.start_request(method, params).await?.await
    }

    /// Sends a request and deserializes its result into `R`.
    pub async fn request_as<P: Serialize + ?Sized, R: DeserializeOwned>(
        &self,
        method: &str,
        params: Option<&P>,
    ) -> Result<R, Error> {
        let raw = self.request_raw(method, params).await?;
        serde_json::from_str(raw.get()).map_err(Error::Decode)
    }

    /// Sends a request and returns as soon as it is queued, with its id: the returned
    /// [`PendingRequest`] resolves to the result. Use it when the id is needed while waiting
    /// (to send a cancellation, to correlate progress).
    pub async fn start_request<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: Option<&P>,
    ) -> Result<PendingRequest, Error> {
        self.start_request_with_headers(method, params, Vec::new())
            .await
    }

    /// [`start_request`](Self::start_request) with extra HTTP headers for this request alone
    /// (on streamable HTTP; other transports ignore them). MCP 2026-07-28 mirrors the method
    /// and the tool, prompt or resource name into headers this way. An invalid header name
    /// or value is an [`Error::InvalidArgument`].
    pub async fn start_request_with_headers<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: Option<&P>,
        headers: Vec<(String, String)>,
    ) -> Result<PendingRequest, Error> {
        for (name, value) in &headers {
            if !is_header_name(name) || !is_header_value(value) {
                return Err(Error::InvalidArgument(format!(
                    "invalid HTTP header `{name}` (names are RFC 9110 tokens; values are visible \
                     ASCII, spaces and tabs)"
                )));
            }
        }
        let shared = &self.shared;
        let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
        let mut bytes = Vec::with_capacity(128);
        message::encode_request(&mut bytes, &Id::Number(id), method, params)
            .map_err(Error::Encode)?;
        let (tx, rx) = oneshot::channel();
        shared.register(id, tx)?;
        let pending = PendingRequest {
            id,
            rx,
            shared: shared.clone(),
            done: false,
        };
        // If queuing fails or this future is dropped while waiting for room, `pending` is
        // dropped too and frees the slot.
        shared
            .send(Frame {
                bytes,
                kind: FrameKind::Request(id),
                headers,
            })
            .await?;
        Ok(pending)
    }

    /// Sends a notification. It is complete when queued for writing (stream transports) or
    /// when the server accepted the POST (streamable HTTP).
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), Error> {
        self.notify_raw(method, params.as_ref()).await
    }

    /// Sends a notification with any serializable parameters.
    pub async fn notify_raw<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: Option<&P>,
    ) -> Result<(), Error> {
        if let Some(reason) = self.shared.close_reason() {
            return Err(Error::Closed(reason));
        }
        let mut bytes = Vec::with_capacity(96);
        message::encode_notification(&mut bytes, method, params).map_err(Error::Encode)?;
        self.shared
            .send(Frame {
                bytes,
                kind: FrameKind::Notification,
                headers: Vec::new(),
            })
            .await
    }

    /// Counters of discarded or refused input.
    pub fn stats(&self) -> ClientStats {
        self.shared.stats()
    }

    /// True once the connection is closed.
    pub fn is_closed(&self) -> bool {
        self.shared.close_reason().is_some()
    }

    /// Why the connection closed, once it has.
    pub fn close_reason(&self) -> Option<Arc<str>> {
        self.shared.close_reason()
    }

    /// Resolves when the connection closes (at once if it already has).
    pub async fn closed(&self) {
        let mut signal = self.shared.closed_signal();
        let _ = signal.wait_for(|closed| *closed).await;
    }

    /// Closes the connection: pending requests fail with [`Error::Closed`], queued messages are
    /// still written, then the transport shuts down (a child sees end of file on stdin).
    pub fn close(&self) {
        self.shared.close("closed by the client");
    }
}

/// A request that has been sent and awaits its response. Dropping it abandons the request
/// and frees its slot at once.
#[derive(Debug)]
#[must_use = "a request's response is only observed by awaiting its PendingRequest"]
pub struct PendingRequest {
    id: i64,
    rx: oneshot::Receiver<Result<Box<RawValue>, Error>>,
    shared: Arc<Shared>,
    done: bool,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared").finish_non_exhaustive()
    }
}

impl PendingRequest {
    /// The id the request was sent with.
    pub fn id(&self) -> Id {
        Id::Number(self.id)
    }
}

impl Future for PendingRequest {
    type Output = Result<Box<RawValue>, Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        match Pin::new(&mut this.rx).poll(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(outcome) => {
                this.done = true;
                Poll::Ready(outcome.unwrap_or_else(|_| Err(this.shared.closed_error())))
            }
        }
    }
}

impl Drop for PendingRequest {
    fn drop(&mut self) {
        if !self.done {
            self.shared.unregister(self.id);
        }
    }
}
