//! The public handle of a connection: requests and notifications from any task, and the
//! request being waited for ([`PendingRequest`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::oneshot;

use crate::connection::{Answer, Frame, FrameKind, PeerStats, Shared};
use crate::message;
use crate::token::{is_header_name, is_header_value};
use crate::{Error, Id};

/// A cloneable handle to a connection: send requests and notifications from any task.
///
/// Writes are serialized (messages never interleave); requests may be issued concurrently and
/// are matched to their responses by id. All handles stop working once the owning
/// [`Peer`](crate::Peer) is dropped or the connection closes.
#[derive(Clone)]
pub struct PeerHandle {
    pub(crate) shared: Arc<Shared>,
}

impl std::fmt::Debug for PeerHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PeerHandle")
            .field("closed", &self.shared.close_reason())
            .finish_non_exhaustive()
    }
}

impl PeerHandle {
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
        let rx = shared
            .pending
            .insert(id)
            .map_err(|closed| Error::Closed(closed.0))?;
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

    /// Queues a notification without waiting, for contexts that cannot (a `Drop`): on stream
    /// transports it is written before the connection closes, on streamable HTTP it is
    /// POSTed in the background. False when it could not be queued (the connection is
    /// closed, or the outbound queue is full).
    pub fn notify_now(&self, method: &str, params: Option<&Value>) -> bool {
        if self.shared.close_reason().is_some() {
            return false;
        }
        let mut bytes = Vec::with_capacity(96);
        if message::encode_notification(&mut bytes, method, params).is_err() {
            return false;
        }
        self.shared.try_send(Frame {
            bytes,
            kind: FrameKind::Notification,
            headers: Vec::new(),
        })
    }

    /// Counters of discarded or refused input.
    pub fn stats(&self) -> PeerStats {
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
        self.shared.closed().await;
    }

    /// Closes the connection: pending requests fail with [`Error::Closed`], queued messages are
    /// still written, then the transport shuts down (a child sees end of file on stdin).
    pub fn close(&self) {
        self.shared.close("closed by the client");
    }

    // ----- what streamable HTTP offers besides ----------------------------------------------

    /// Sets a header sent with every later HTTP request of this connection (for example
    /// `MCP-Protocol-Version` once negotiated). Fails on non-HTTP connections and for invalid
    /// names or values.
    pub fn set_http_header(&self, name: &str, value: &str) -> Result<(), Error> {
        match self.shared.transport() {
            Some(transport) => transport.set_header(name, value),
            None => Err(Error::InvalidArgument(
                "set_http_header needs a streamable HTTP connection".into(),
            )),
        }
    }

    /// Closes the GET SSE stream of a streamable HTTP connection and never reopens it. The
    /// 2026-07-28 protocol has no GET stream; a client that negotiated it calls this so that a
    /// stream the server happens to offer is neither held open nor fatal when it ends. No
    /// effect on other transports.
    pub fn stop_get_stream(&self) {
        if let Some(transport) = self.shared.transport() {
            transport.stop_server_stream();
        }
    }

    /// True for a streamable HTTP connection.
    pub fn is_streamable_http(&self) -> bool {
        self.shared.transport().is_some()
    }

    /// The `mcp-session-id` the server assigned, on a streamable HTTP connection.
    pub fn session_id(&self) -> Option<String> {
        self.shared.transport().and_then(|t| t.session_id())
    }
}

/// A request that has been sent and awaits its response. Dropping it abandons the request
/// and frees its slot at once.
#[derive(Debug)]
#[must_use = "a request's response is only observed by awaiting its PendingRequest"]
pub struct PendingRequest {
    id: i64,
    rx: oneshot::Receiver<Answer>,
    shared: Arc<Shared>,
    done: bool,
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
            self.shared.pending.abandon(&self.id);
        }
    }
}
