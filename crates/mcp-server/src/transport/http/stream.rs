//! Server-Sent Events: how a request's messages become an SSE response, and the resumable
//! streams of stateful sessions.
//!
//! A request answers with one JSON body when its response comes before anything else; the
//! first related message (progress, a log, a request to the client) switches it to an SSE
//! stream that carries the messages in order and ends with the response. Each event is one
//! chunk of the response body, written as soon as it exists.
//!
//! In the stateful era a stream outlives its connection: every event is kept in the
//! [`EventStore`] under an id `{stream}-{seq}` and written to whichever connection is attached
//! (the POST that started it, or a GET resuming it with `Last-Event-ID`). In 2026-07-28 the
//! stream *is* the request: events carry no ids and closing the connection cancels it.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;

use parking_lot::Mutex;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use tokio::sync::mpsc;

use super::session_store::SessionStore;
use super::store::EventStore;
use crate::Server;
use crate::registry::BoxFuture;
use crate::session::{BusyGuard, Outbound, Session};

/// Messages a handler may queue for its stream before it waits.
pub(super) const OUTLET_CAPACITY: usize = 64;
/// Events queued for one connection; a connection that falls this far behind is dropped (the
/// client resumes with `Last-Event-ID` and loses nothing the store still holds).
pub(super) const SINK_CAPACITY: usize = 256;

/// One SSE event as the pieces it is written in, so that a message's bytes go out as they
/// were encoded instead of being copied into a frame: `id: …` and `data: `, the message, the
/// blank line.
pub(super) struct Event {
    head: Bytes,
    data: Bytes,
    tail: &'static [u8],
}

impl Event {
    /// Bytes that already are a whole event (or comment).
    fn whole(bytes: Bytes) -> Self {
        Self {
            head: bytes,
            data: Bytes::new(),
            tail: b"",
        }
    }

    /// The non-empty pieces, in order (an empty chunk would end a chunked body).
    fn pieces(self) -> impl Iterator<Item = Bytes> {
        [self.head, self.data, Bytes::from_static(self.tail)]
            .into_iter()
            .filter(|piece| !piece.is_empty())
    }
}

/// One SSE event: an optional id and one encoded message as its data.
pub(super) fn event(id: Option<(u64, u64)>, message: &Bytes) -> Event {
    let head = match id {
        Some((stream, seq)) => Bytes::from(format!("id: {stream}-{seq}\ndata: ")),
        None => Bytes::from_static(b"data: "),
    };
    if memchr::memchr2(b'\n', b'\r', message).is_none() {
        return Event {
            head,
            data: message.clone(),
            tail: b"\n\n",
        };
    }
    // Our encoder writes single-line JSON, but a raw value passed through may keep its line
    // breaks (insignificant whitespace): each line gets its own `data:` field and the client
    // joins them again.
    let mut out = Vec::with_capacity(message.len() + 32);
    out.extend_from_slice(&head);
    for (i, line) in message.split(|b| *b == b'\n' || *b == b'\r').enumerate() {
        if i > 0 {
            out.extend_from_slice(b"\ndata: ");
        }
        out.extend_from_slice(line);
    }
    out.extend_from_slice(b"\n\n");
    Event::whole(Bytes::from(out))
}

/// The priming event: an id and empty data, so that the client has a `Last-Event-ID` before
/// the first message (2025-11-25).
fn priming(stream: u64, seq: u64) -> Event {
    Event::whole(Bytes::from(format!("id: {stream}-{seq}\ndata:\n\n")))
}

/// A body of SSE events.
fn sse_body(events: impl futures_util::Stream<Item = Event> + Send + 'static) -> Body {
    use futures_util::StreamExt as _;
    Body::from_stream(
        events
            .flat_map(|event| futures_util::stream::iter(event.pieces().map(Ok::<_, Infallible>))),
    )
}

/// Parses a `Last-Event-ID` of ours: `{stream}-{seq}`.
pub(super) fn parse_event_id(id: &str) -> Option<(u64, u64)> {
    let (stream, seq) = id.trim().split_once('-')?;
    Some((stream.parse().ok()?, seq.parse().ok()?))
}

/// What a request produces, in order.
pub(super) enum Item {
    /// A message related to the request (progress, log, a request to the client).
    Message(Bytes),
    /// The handler lets the client poll: end the connection, reconnect after this many ms.
    Poll(u64),
    /// The encoded response.
    Response(Vec<u8>),
    /// Nothing more (after the response, or the request was cancelled).
    End,
}

fn item(outbound: Outbound) -> Item {
    match outbound {
        Outbound::Message(message) => Item::Message(Bytes::from(message)),
        Outbound::Poll { retry } => {
            Item::Poll(u64::try_from(retry.as_millis()).unwrap_or(u64::MAX))
        }
    }
}

/// A request in flight: its response future and the outlet its handler writes related
/// messages to.
pub(super) struct Exchange {
    response: Option<BoxFuture<Option<Vec<u8>>>>,
    outlet: mpsc::Receiver<Outbound>,
    outlet_open: bool,
    finished: Option<Option<Vec<u8>>>,
}

impl Exchange {
    pub(super) fn new(
        response: BoxFuture<Option<Vec<u8>>>,
        outlet: mpsc::Receiver<Outbound>,
    ) -> Self {
        Self {
            response: Some(response),
            outlet,
            outlet_open: true,
            finished: None,
        }
    }

    /// The next item: messages sent before the response come before it. Cancel-safe.
    pub(super) async fn next(&mut self) -> Item {
        loop {
            let Some(response) = &mut self.response else {
                if let Ok(m) = self.outlet.try_recv() {
                    return item(m);
                }
                return match self.finished.take() {
                    Some(Some(r)) => Item::Response(r),
                    _ => Item::End,
                };
            };
            tokio::select! {
                biased;
                m = self.outlet.recv(), if self.outlet_open => match m {
                    Some(m) => return item(m),
                    None => self.outlet_open = false,
                },
                out = response => {
                    self.response = None;
                    self.finished = Some(out);
                }
            }
        }
    }
}

/// A stream of a stateful session: its events are stored, and written to the connection
/// attached at the moment (if any).
pub(super) struct LiveStream {
    session: Arc<str>,
    pub(super) id: u64,
    store: Arc<dyn EventStore>,
    /// A shared session store, which keeps the events for the other replicas too.
    shared: Option<Arc<dyn SessionStore>>,
    state: Mutex<StreamState>,
}

#[derive(Default)]
struct StreamState {
    last: u64,
    sink: Option<mpsc::Sender<Event>>,
    finished: bool,
}

impl LiveStream {
    /// A stream whose next event is `last + 1`.
    pub(super) fn new(
        session: Arc<str>,
        id: u64,
        store: Arc<dyn EventStore>,
        shared: Option<Arc<dyn SessionStore>>,
        last: u64,
    ) -> Arc<Self> {
        Arc::new(Self {
            session,
            id,
            store,
            shared,
            state: Mutex::new(StreamState {
                last,
                ..StreamState::default()
            }),
        })
    }

    /// Stores a message as the next event and writes it to the attached connection. A
    /// connection that cannot take it (gone, or too far behind) is detached: its response
    /// ends, and the client can resume.
    pub(super) fn emit(&self, message: Bytes) {
        let mut state = self.state.lock();
        if state.finished {
            return;
        }
        state.last += 1;
        let seq = state.last;
        let framed = state
            .sink
            .as_ref()
            .map(|sink| (sink, event(Some((self.id, seq)), &message)));
        if let Some(shared) = &self.shared {
            shared.append(&self.session, self.id, seq, message.clone());
        }
        self.store.append(&self.session, self.id, seq, message);
        if let Some((sink, framed)) = framed
            && sink.try_send(framed).is_err()
        {
            tracing::debug!(
                stream = self.id,
                "an SSE connection fell behind or closed; detached"
            );
            state.sink = None;
        }
    }

    /// Attaches a new connection, replacing the previous one (whose response ends): first
    /// the priming event if asked, then the kept events after `after` (when resuming), then
    /// the live ones. A finished stream yields the replay and ends.
    pub(super) fn attach(&self, after: Option<u64>, prime: bool) -> mpsc::Receiver<Event> {
        self.attach_after(Vec::new(), after, prime)
    }

    /// As [`attach`](Self::attach), with `earlier` (events another replica wrote, from a
    /// shared store) before the ones kept here.
    pub(super) fn attach_after(
        &self,
        earlier: Vec<(u64, Bytes)>,
        after: Option<u64>,
        prime: bool,
    ) -> mpsc::Receiver<Event> {
        let mut state = self.state.lock();
        let local_after = after.map(|a| earlier.last().map_or(a, |(seq, _)| a.max(*seq)));
        let mut replay = earlier;
        replay.extend(
            local_after
                .and_then(|after| self.store.replay(&self.session, self.id, after))
                .unwrap_or_default(),
        );
        let (tx, rx) = mpsc::channel(SINK_CAPACITY + replay.len() + 1);
        if prime {
            let _ = tx.try_send(priming(self.id, state.last));
        }
        if let (Some(after), Some((first, _))) = (after, replay.first())
            && *first > after + 1
        {
            tracing::warn!(
                stream = self.id,
                missed = first - after - 1,
                "resuming a stream whose oldest events were dropped from the event store"
            );
        }
        for (seq, message) in &replay {
            let _ = tx.try_send(event(Some((self.id, *seq)), message));
        }
        if !state.finished {
            state.sink = Some(tx);
        }
        rx
    }

    /// Ends the attached connection after telling the client to reconnect in `retry_ms`
    /// (polling); events keep being stored for its `Last-Event-ID`.
    pub(super) fn detach(&self, retry_ms: u64) {
        if let Some(sink) = self.state.lock().sink.take() {
            let _ = sink.try_send(Event::whole(Bytes::from(format!("retry: {retry_ms}\n\n"))));
        }
    }

    /// The stream ended normally: a shared store marks it finished for the other replicas.
    pub(super) fn finish_stored(&self) {
        if let Some(shared) = &self.shared {
            shared.finish_stream(&self.session, self.id);
        }
    }

    /// No more events: the attached connection's response ends.
    pub(super) fn finish(&self) {
        let mut state = self.state.lock();
        state.finished = true;
        state.sink = None;
    }
}

/// The headers every SSE response carries.
pub(super) fn sse_response(body: Body) -> Response {
    let mut response = Response::new(body);
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // Tells reverse proxies (nginx) not to buffer the stream.
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// An SSE response with no event (a request cancelled before it said anything).
pub(super) fn empty_sse() -> Response {
    let mut response = sse_response(Body::empty());
    *response.status_mut() = StatusCode::OK;
    response
}

/// A comment: keeps proxies from closing an idle stream.
fn keep_alive_comment() -> Event {
    Event::whole(Bytes::from_static(b":\n\n"))
}

async fn sleep_or_never(d: Option<Duration>) {
    match d {
        Some(d) => tokio::time::sleep(d).await,
        None => std::future::pending().await,
    }
}

/// The body of a stateful stream's connection: the chunks of `rx` until the stream finishes
/// or detaches it. `stop_with` ends it when the server shuts down (the GET stream, which
/// never finishes on its own). The session counts as busy while the body is alive.
pub(super) fn stateful_body(
    rx: mpsc::Receiver<Event>,
    keep_alive: Option<Duration>,
    busy: BusyGuard,
    stop_with: Option<Server>,
) -> Body {
    struct Feed {
        rx: mpsc::Receiver<Event>,
        keep_alive: Option<Duration>,
        _busy: BusyGuard,
        stop_with: Option<Server>,
    }
    let feed = Feed {
        rx,
        keep_alive,
        _busy: busy,
        stop_with,
    };
    let stream = futures_util::stream::unfold(feed, |mut feed| async move {
        let chunk = tokio::select! {
            chunk = feed.rx.recv() => chunk?,
            _ = sleep_or_never(feed.keep_alive) => keep_alive_comment(),
            _ = async {
                match &feed.stop_with {
                    Some(server) => server.shutting_down().await,
                    None => std::future::pending().await,
                }
            } => return None,
        };
        Some((chunk, feed))
    });
    sse_body(stream)
}

/// Ends a 2026-07-28 request's session when its response is dropped: a client that closes
/// the stream cancels the request.
pub(super) struct CloseOnDrop(pub(super) Arc<Session>);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// The body of a 2026-07-28 streamed response: it drives the request itself, so that when the
/// client goes away the body is dropped and the request cancelled.
pub(super) fn stateless_body(
    first: Bytes,
    exchange: Exchange,
    close: CloseOnDrop,
    keep_alive: Option<Duration>,
) -> Body {
    struct Drive {
        pending: VecDeque<Bytes>,
        exchange: Exchange,
        _close: CloseOnDrop,
        keep_alive: Option<Duration>,
        done: bool,
    }
    let drive = Drive {
        pending: VecDeque::from([first]),
        exchange,
        _close: close,
        keep_alive,
        done: false,
    };
    let stream = futures_util::stream::unfold(drive, |mut drive| async move {
        if let Some(m) = drive.pending.pop_front() {
            return Some((event(None, &m), drive));
        }
        if drive.done {
            return None;
        }
        let item = tokio::select! {
            item = drive.exchange.next() => item,
            _ = sleep_or_never(drive.keep_alive) => {
                return Some((keep_alive_comment(), drive));
            }
        };
        match item {
            Item::Message(m) => Some((event(None, &m), drive)),
            // 2026-07-28 streams are not resumable: nothing to poll.
            Item::Poll(_) => Some((keep_alive_comment(), drive)),
            Item::Response(r) => {
                drive.done = true;
                Some((event(None, &Bytes::from(r)), drive))
            }
            Item::End => None,
        }
    });
    sse_body(stream)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(event: Event) -> Vec<u8> {
        event.pieces().flat_map(|piece| piece.to_vec()).collect()
    }

    #[test]
    fn events_and_ids() {
        let message = Bytes::from_static(b"{}");
        assert_eq!(
            written(event(Some((3, 7)), &message)),
            b"id: 3-7\ndata: {}\n\n"
        );
        // The message is sent as it is, not copied.
        assert_eq!(event(None, &message).data.as_ptr(), message.as_ptr());
        let two_lines = Bytes::from_static(b"{\n}");
        assert_eq!(written(event(None, &two_lines)), b"data: {\ndata: }\n\n");
        assert_eq!(written(priming(2, 0)), b"id: 2-0\ndata:\n\n");
        assert_eq!(parse_event_id("12-34"), Some((12, 34)));
        assert_eq!(parse_event_id("x-1"), None);
        assert_eq!(parse_event_id("5"), None);
    }
}
