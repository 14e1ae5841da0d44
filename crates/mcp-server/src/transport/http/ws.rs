//! WebSocket: the MCP endpoint as a WebSocket (default path `/ws`, subprotocol `mcp`) on the
//! same router and port as streamable HTTP.
//!
//! A connection is one stateful session, exactly as a stdio pipe is: `initialize` starts it,
//! and a 2026-07-28 request carrying its `_meta` is served statelessly on the same socket.
//! Every text frame holds one JSON-RPC message (or a 2025-03-26 batch); requests run
//! concurrently and each is answered when done; notifications and responses are handled in
//! order, at once. Everything the server sends — responses, progress, log messages, requests to
//! the client (elicitation, sampling, roots), `list_changed` — is one text frame.
//!
//! - **Admission** (at the upgrade, before any frame): the `Host` and `Origin` allowlists
//!   (`403`), then the endpoint's authenticator when one is set (`401` with the challenge;
//!   the session belongs to that principal for its whole life). A client that offers
//!   subprotocols must offer `mcp` (`400` otherwise, naming it); a client that offers none is
//!   accepted, as many do not send one.
//! - **Bad input** never ends the connection: text that is not JSON is answered `-32700`, JSON
//!   that is not a JSON-RPC message `-32600`, a binary frame `-32600`. Only what the WebSocket
//!   library cannot read past ends it: a message over the size limit (a `-32600` error naming
//!   the limit, then close code 1009), a text frame that is not UTF-8 (1007), a protocol
//!   violation (1002).
//! - **Heartbeat**: the server pings every `websocket_ping_interval`; a client that leaves two
//!   pings in a row without a pong is closed with code 1011.
//! - **End**: when the client closes or vanishes, its requests in flight are cancelled. At
//!   [`Server::shutdown`](crate::Server::shutdown) the server stops reading, lets requests in
//!   flight answer (requests waiting on the client fail; those still running after
//!   `shutdown_grace` are cancelled), then closes with code 1001.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade, close_code};
use axum::extract::{FromRequestParts, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::any;
use futures_util::stream::SplitSink;
use futures_util::{SinkExt as _, StreamExt as _};
use mcp_jsonrpc::ErrorObject;
use mcp_jsonrpc::message::encode_error;
use tokio::sync::mpsc;
use tokio::time::{Instant, Interval, MissedTickBehavior};

use super::{HttpOptions, Shared, admit, normalized_path, reply};
use crate::Server;
use crate::session::{Outbound, Session};
use crate::transport::connection::Connection;

/// The read buffer of one WebSocket connection.
const WS_READ_BUFFER: usize = 16 * 1024;

/// The WebSocket subprotocol of MCP.
const SUBPROTOCOL: &str = "mcp";

/// Messages queued for the socket's writer before handlers wait (back-pressure on a client
/// that reads slowly).
const OUTBOUND_QUEUE: usize = 1024;

/// Pongs a client may owe before it is considered gone.
const MISSED_PONGS: u32 = 2;

/// How long a closing connection waits for its last frames to be written and for the
/// client's closing handshake.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(5);

/// What the WebSocket endpoint takes from [`HttpOptions`].
#[derive(Debug, Clone, Copy)]
struct Settings {
    /// `None`: the server's `max_message_bytes`.
    max_message_bytes: Option<usize>,
    ping_interval: Option<Duration>,
    /// How long requests in flight may still run after shutdown began.
    shutdown_grace: Duration,
}

/// The WebSocket route of `options` (none when `websocket_path` is `None` or clashes with
/// the streamable HTTP path).
pub(super) fn routes(options: &HttpOptions) -> Router<Arc<Shared>> {
    let Some(path) = options.websocket_path.as_deref().map(normalized_path) else {
        return Router::new();
    };
    if path == normalized_path(&options.path) {
        tracing::error!(
            path,
            "HttpOptions::websocket_path is the streamable HTTP path; WebSocket is off: give it \
             a path of its own (default /ws)"
        );
        return Router::new();
    }
    let settings = Settings {
        max_message_bytes: options.websocket_max_message_bytes,
        ping_interval: options.websocket_ping_interval.filter(|d| !d.is_zero()),
        shutdown_grace: options.shutdown_grace,
    };
    Router::new().route(
        &path,
        any(
            move |State(shared): State<Arc<Shared>>, request: axum::extract::Request| {
                upgrade(shared, settings, request)
            },
        ),
    )
}

/// Admits the upgrade request (allowlists, authentication, subprotocol) and hands the socket
/// to [`serve`].
async fn upgrade(
    shared: Arc<Shared>,
    settings: Settings,
    request: axum::extract::Request,
) -> Response {
    let (mut parts, _body) = request.into_parts();
    let principal = match admit(&shared, &parts).await {
        Ok(principal) => principal,
        Err(refused) => return refused,
    };
    let ws = match WebSocketUpgrade::from_request_parts(&mut parts, &()).await {
        Ok(ws) => ws,
        Err(rejection) => {
            return reply::invalid(
                rejection.status(),
                None,
                format!(
                    "{}: this is the MCP WebSocket endpoint; connect with a WebSocket client \
                     (subprotocol `{SUBPROTOCOL}`)",
                    rejection.body_text()
                ),
            );
        }
    };
    let offered: Vec<&str> = ws
        .requested_protocols()
        .filter_map(|p| p.to_str().ok())
        .map(str::trim)
        .collect();
    if !offered.is_empty() && !offered.contains(&SUBPROTOCOL) {
        return reply::invalid(
            StatusCode::BAD_REQUEST,
            None,
            format!(
                "this endpoint speaks the WebSocket subprotocol `{SUBPROTOCOL}`, and the client \
                 offered only `{}`: offer `{SUBPROTOCOL}` (or no subprotocol)",
                offered.join(", ")
            ),
        );
    }
    let server = shared.server.clone();
    // Counted from here, so that serving ends only after upgraded connections closed (axum's
    // graceful shutdown stops tracking a connection once it is upgraded).
    let open = super::OpenConnection::new(&shared.upgraded);
    let limit = settings
        .max_message_bytes
        .unwrap_or(server.options().max_message_bytes);
    ws.protocols([SUBPROTOCOL])
        // tungstenite's default 128 KiB read buffer is zero-filled before every read: it made
        // each idle connection cost ~139 KiB and every read pay for the fill. Larger messages
        // still arrive whole, read in several chunks.
        .read_buffer_size(WS_READ_BUFFER)
        .max_message_size(limit)
        .max_frame_size(limit)
        .on_failed_upgrade(|e| tracing::debug!("a WebSocket upgrade failed: {e}"))
        .on_upgrade(move |socket| async move {
            let _open = open;
            let session = server.new_session(None);
            if let Some(principal) = principal {
                session.bind_principal(principal);
            }
            serve(&server, session, socket, limit, settings).await;
        })
}

/// What the writer task is asked besides writing messages.
enum Control {
    /// Sends a ping.
    Ping,
    /// Writes what is queued, then the close frame, and stops.
    Close(u16, String),
}

/// Why a connection ends.
enum End {
    /// The client closed, or the connection broke.
    Gone,
    /// The library could not read on; the client is told why with a close frame.
    Failed {
        code: u16,
        reason: String,
        /// An error response sent before the close frame.
        error: Option<Box<ErrorObject>>,
    },
    /// The client left [`MISSED_PONGS`] pings unanswered.
    Unresponsive,
    /// [`Server::shutdown`] was called.
    Shutdown,
}

impl End {
    fn name(&self) -> &'static str {
        match self {
            End::Gone => "closed by the client",
            End::Failed { .. } => "unreadable input",
            End::Unresponsive => "no pong",
            End::Shutdown => "shutdown",
        }
    }
}

/// Serves one connection until it ends.
async fn serve(
    server: &Server,
    session: Arc<Session>,
    socket: WebSocket,
    limit: usize,
    settings: Settings,
) {
    tracing::debug!("a WebSocket connection opened");
    let (sink, mut stream) = socket.split();
    let (tx, rx) = mpsc::channel::<Outbound>(OUTBOUND_QUEUE);
    let (control, control_rx) = mpsc::channel::<Control>(4);
    let mut writer = tokio::spawn(write_loop(sink, rx, control_rx));
    let connection = Connection::new(session, tx.clone());
    let session = connection.session().clone();
    let mut ticker = settings.ping_interval.map(|every| {
        let mut ticker = tokio::time::interval_at(Instant::now() + every, every);
        ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
        ticker
    });
    let mut owed_pongs = 0u32;
    let shutting_down = server.shutting_down();
    tokio::pin!(shutting_down);
    let end = loop {
        let frame = tokio::select! {
            frame = stream.next() => frame,
            _ = &mut shutting_down => break End::Shutdown,
            _ = tick(&mut ticker) => {
                if owed_pongs >= MISSED_PONGS {
                    break End::Unresponsive;
                }
                owed_pongs += 1;
                // A full control queue means pings are already waiting to be written.
                let _ = control.try_send(Control::Ping);
                continue;
            }
        };
        match frame {
            Some(Ok(Message::Text(text))) => connection.on_frame(text.as_bytes()).await,
            Some(Ok(Message::Binary(data))) => {
                let error = ErrorObject::invalid_request(format!(
                    "a binary frame ({} bytes) was ignored: send each JSON-RPC message as one \
                     text frame",
                    data.len()
                ));
                connection.send_error(None, &error).await;
            }
            Some(Ok(Message::Pong(_))) => owed_pongs = 0,
            // The library answers pings, and answers a close frame with its own; the stream
            // ends after that.
            Some(Ok(Message::Ping(_) | Message::Close(_))) => {}
            Some(Err(e)) => break failure(&e, limit),
            None => break End::Gone,
        }
    };
    drop(ticker);
    tracing::debug!(reason = end.name(), "a WebSocket connection ends");
    match end {
        End::Shutdown => {
            // Like the other transports: the client can send nothing more, requests waiting
            // on it fail, the others answer; then the socket closes.
            session.input_closed();
            let grace = settings.shutdown_grace;
            let answered = tokio::time::timeout(grace, connection.wait()).await;
            if answered.is_err() {
                tracing::warn!(
                    "WebSocket requests still in flight {grace:?} after shutdown began \
                     (HttpOptions::shutdown_grace) were cancelled"
                );
            }
            session.close();
            close(
                &control,
                &mut writer,
                close_code::AWAY,
                "server shutting down",
            )
            .await;
            // The client's half of the closing handshake.
            let _ = tokio::time::timeout(CLOSE_TIMEOUT, async {
                while let Some(Ok(_)) = stream.next().await {}
            })
            .await;
        }
        End::Gone => {
            session.close();
            writer.abort();
        }
        End::Unresponsive => {
            tracing::debug!("a WebSocket client missed {MISSED_PONGS} pongs and was closed");
            session.close();
            let reason = format!("keepalive ping timeout: no pong to {MISSED_PONGS} pings");
            close(&control, &mut writer, close_code::ERROR, &reason).await;
        }
        End::Failed {
            code,
            reason,
            error,
        } => {
            session.close();
            if let Some(error) = error {
                let mut out = Vec::new();
                encode_error(&mut out, None, &error);
                // Not waiting: a client that reads nothing must not hold the connection.
                let _ = tx.try_send(Outbound::Message(out));
            }
            close(&control, &mut writer, code, &reason).await;
        }
    }
    // What is left in flight was cancelled by `session.close` and ends on its own.
}

/// Completes at the next heartbeat (never without one).
async fn tick(ticker: &mut Option<Interval>) {
    match ticker {
        Some(ticker) => {
            ticker.tick().await;
        }
        None => std::future::pending().await,
    }
}

/// The end a read error means. The library ends the stream after any error, so the
/// connection cannot go on; the close code says why. (`axum::Error` hides the library's error
/// type, hence its message is read: the tests pin the cases that matter.)
fn failure(error: &axum::Error, limit: usize) -> End {
    let text = error.to_string();
    if text.contains("Message too long") || text.contains("Space limit exceeded") {
        tracing::warn!(
            limit,
            "a WebSocket message over the size limit closed its connection"
        );
        let detail = format!("message too large: the limit is {limit} bytes");
        End::Failed {
            code: close_code::SIZE,
            error: Some(Box::new(ErrorObject::invalid_request(format!(
                "{detail} (HttpOptions::websocket_max_message_bytes); the connection closes \
                 with code 1009"
            )))),
            reason: detail,
        }
    } else if text.contains("UTF-8") {
        End::Failed {
            code: close_code::INVALID,
            reason: "a text frame was not UTF-8".to_owned(),
            error: None,
        }
    } else if text.contains("protocol error") && !text.contains("without closing handshake") {
        tracing::debug!("a WebSocket client broke the protocol: {text}");
        End::Failed {
            code: close_code::PROTOCOL,
            reason: truncated(&text),
            error: None,
        }
    } else {
        tracing::debug!("a WebSocket connection broke: {text}");
        End::Gone
    }
}

/// A close reason fits in 123 bytes.
fn truncated(text: &str) -> String {
    let mut end = text.len().min(123);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

/// Has the writer send what is queued and then a close frame; gives up after
/// [`CLOSE_TIMEOUT`] (a client that does not read).
async fn close(
    control: &mpsc::Sender<Control>,
    writer: &mut tokio::task::JoinHandle<()>,
    code: u16,
    reason: &str,
) {
    let closed = tokio::time::timeout(CLOSE_TIMEOUT, async {
        let _ = control.send(Control::Close(code, truncated(reason))).await;
        let _ = (&mut *writer).await;
    })
    .await;
    if closed.is_err() {
        writer.abort();
    }
}

/// Writes messages as text frames (coalescing what is queued into one flush), pings and,
/// last, the close frame.
async fn write_loop(
    mut sink: SplitSink<WebSocket, Message>,
    mut outbound: mpsc::Receiver<Outbound>,
    mut control: mpsc::Receiver<Control>,
) {
    let mut open = true;
    loop {
        let written = tokio::select! {
            biased;
            c = control.recv() => match c {
                Some(Control::Ping) => sink.send(Message::Ping(Bytes::new())).await,
                Some(Control::Close(code, reason)) => {
                    // Messages queued before the close (the last answers) go first.
                    while let Ok(message) = outbound.try_recv() {
                        if feed(&mut sink, message).await.is_err() {
                            return;
                        }
                    }
                    let frame = CloseFrame { code, reason: reason.into() };
                    let _ = sink.send(Message::Close(Some(frame))).await;
                    return;
                }
                None => return,
            },
            message = outbound.recv(), if open => match message {
                Some(message) => write_queued(&mut sink, message, &mut outbound).await,
                None => {
                    open = false;
                    continue;
                }
            },
        };
        if let Err(e) = written {
            tracing::debug!("a WebSocket write failed: {e}");
            return;
        }
    }
}

/// Writes `first` and whatever else is queued, then flushes once.
async fn write_queued(
    sink: &mut SplitSink<WebSocket, Message>,
    first: Outbound,
    outbound: &mut mpsc::Receiver<Outbound>,
) -> Result<(), axum::Error> {
    feed(sink, first).await?;
    while let Ok(more) = outbound.try_recv() {
        feed(sink, more).await?;
    }
    sink.flush().await
}

/// Queues one encoded message as a text frame (poll signals, which only streamable HTTP
/// understands, are dropped).
async fn feed(
    sink: &mut SplitSink<WebSocket, Message>,
    message: Outbound,
) -> Result<(), axum::Error> {
    let Outbound::Message(message) = message else {
        return Ok(());
    };
    match axum::extract::ws::Utf8Bytes::try_from(message) {
        Ok(text) => sink.feed(Message::Text(text)).await,
        Err(e) => {
            tracing::error!("an outbound message was not UTF-8 and was dropped: {e}");
            Ok(())
        }
    }
}
