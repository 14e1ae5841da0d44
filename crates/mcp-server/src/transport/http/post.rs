//! POST: one JSON-RPC message (or a 2025-03-26 batch) per request, answered with JSON or an
//! SSE stream.
//!
//! The era is chosen per message. A request is served statelessly (2026-07-28: a fresh
//! session, the metadata headers checked against the body) when its `_meta` names a modern
//! protocol version or it is `server/discover`, or when it carries no `Mcp-Session-Id` but an
//! `MCP-Protocol-Version` header that is not a legacy version. `initialize` starts a session;
//! everything else belongs to the session its `Mcp-Session-Id` names.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header, request::Parts};
use axum::response::Response;
use futures_util::StreamExt as _;
use mcp_jsonrpc::message::{InvalidMessage, Parsed, Request, parse};
use mcp_jsonrpc::{ErrorObject, Id, Message};
use mcp_schema::{Era, ProtocolVersion, error_codes as mcp_codes};
use tokio::sync::mpsc;

use super::Shared;
use super::headers::{self, PROTOCOL_VERSION, Peek, SESSION_ID};
use super::replicas;
use super::reply::{self, invalid};
use super::sessions::{self, HttpSession};
use super::stream::{self, CloseOnDrop, Exchange, Item, OUTLET_CAPACITY};
use crate::registry::BoxFuture;
use crate::session::Session;
use crate::signing::session_id;

pub(super) async fn handle(shared: &Arc<Shared>, parts: Parts, body: Body) -> Response {
    let headers = &parts.headers;
    if !is_json(headers) {
        return invalid(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            None,
            "the body must be JSON: send Content-Type: application/json",
        );
    }
    if !accepts(headers, &["application/json", "text/event-stream"]) {
        return invalid(
            StatusCode::NOT_ACCEPTABLE,
            None,
            "Not Acceptable: the client must accept both application/json and text/event-stream \
             (send Accept: application/json, text/event-stream)",
        );
    }
    let limit = shared.server.options().max_message_bytes;
    let bytes = match read_body(headers, body, limit, shared.idle_timeout).await {
        Ok(b) => b,
        Err(BodyError::TooLarge) => {
            return invalid(
                StatusCode::PAYLOAD_TOO_LARGE,
                None,
                format!(
                    "message too large: the limit is {limit} bytes (ServerOptions::max_message_bytes)"
                ),
            );
        }
        Err(BodyError::Stalled(idle)) => {
            return invalid(
                StatusCode::REQUEST_TIMEOUT,
                None,
                format!(
                    "the request body stopped arriving: nothing came for {} s (HttpOptions::idle_timeout)",
                    idle.as_secs_f64()
                ),
            );
        }
        Err(BodyError::Read(e)) => {
            return invalid(
                StatusCode::BAD_REQUEST,
                None,
                format!("the body could not be read: {e}"),
            );
        }
    };
    match parse(&bytes) {
        Err(e) => reply::error(StatusCode::BAD_REQUEST, None, ErrorObject::parse_error(e)),
        Ok(Parsed::Single(Err(bad))) => refuse_invalid(&bad),
        Ok(Parsed::Single(Ok(Message::Request(request)))) => {
            drop(bytes);
            self::request(shared, headers, request).await
        }
        Ok(Parsed::Single(Ok(other))) => message(shared, headers, other).await,
        Ok(Parsed::Batch(items)) => batch(shared, headers, items).await,
    }
}

fn refuse_invalid(bad: &InvalidMessage) -> Response {
    reply::error(
        StatusCode::BAD_REQUEST,
        bad.id.as_ref(),
        ErrorObject::invalid_request(&bad.reason),
    )
}

/// `Content-Type: application/json` (parameters such as `charset` allowed).
fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
}

/// True when the `Accept` header admits every one of `types` (wildcards count).
pub(super) fn accepts(headers: &HeaderMap, types: &[&str]) -> bool {
    let ranges: Vec<String> = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|r| r.split(';').next())
        .map(|r| r.trim().to_ascii_lowercase())
        .collect();
    types.iter().all(|t| {
        let major = t.split('/').next().unwrap_or_default();
        ranges
            .iter()
            .any(|r| r == t || r == "*/*" || r.strip_suffix("/*") == Some(major))
    })
}

enum BodyError {
    TooLarge,
    /// Nothing arrived for this long.
    Stalled(Duration),
    Read(axum::Error),
}

async fn read_body(
    headers: &HeaderMap,
    body: Body,
    limit: usize,
    idle: Duration,
) -> Result<Vec<u8>, BodyError> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(BodyError::TooLarge);
    }
    let mut out = Vec::with_capacity(declared.map_or(0, |n| n as usize));
    let mut chunks = body.into_data_stream();
    loop {
        let next = tokio::time::timeout(idle, chunks.next())
            .await
            .map_err(|_| BodyError::Stalled(idle))?;
        let Some(chunk) = next else {
            break;
        };
        let chunk = chunk.map_err(BodyError::Read)?;
        if out.len() + chunk.len() > limit {
            return Err(BodyError::TooLarge);
        }
        out.extend_from_slice(&chunk);
    }
    Ok(out)
}

/// The `MCP-Protocol-Version` header: `Ok(None)` when absent, `Err` when not visible ASCII.
fn version_header(headers: &HeaderMap) -> Result<Option<&str>, ()> {
    headers::text(headers, PROTOCOL_VERSION)
}

/// True when the headers say 2026-07-28 (or later), or the server serves no legacy version:
/// the request gets the stateless treatment whatever legacy headers it also carries.
fn modern(shared: &Shared, headers: &HeaderMap) -> bool {
    !shared.stateful
        || match version_header(headers) {
            Ok(Some(v)) => Era::of(v) != Some(Era::Stateful),
            Ok(None) => false,
            Err(()) => headers.get(SESSION_ID).is_none(),
        }
}

async fn request(shared: &Arc<Shared>, headers: &HeaderMap, request: Request) -> Response {
    let peek = Peek::of(request.params.as_deref());
    let meta = peek.meta.as_ref().and_then(serde_json::Value::as_object);
    let stateless = crate::dispatch::is_stateless(&request.method, meta)
        || (headers.get(SESSION_ID).is_none() && modern(shared, headers))
        || !shared.stateful;
    if stateless {
        if let Err(message) = headers::check(&shared.server, headers, &request.method, &peek) {
            return reply::error(
                StatusCode::BAD_REQUEST,
                Some(&request.id),
                ErrorObject::new(
                    mcp_codes::HEADER_MISMATCH,
                    format!("Header mismatch: {message}"),
                ),
            );
        }
        drop(peek);
        return serve_stateless(shared, request).await;
    }
    drop(peek);
    if request.method == <mcp_schema::InitializeRequest as mcp_schema::McpRequest>::METHOD {
        return initialize(shared, headers, request).await;
    }
    let hs = match session_of(shared, headers, Some(&request.id)).await {
        Ok(hs) => hs,
        Err(response) => return *response,
    };
    let (tx, rx) = mpsc::channel(OUTLET_CAPACITY);
    let request_id = request.id.clone();
    let serve = hs.session.begin_request(request, tx);
    let (sessions, served) = (shared.sessions.clone(), hs.clone());
    // What the request changed (a log level, a subscription) is shared before it is answered.
    let response = Box::pin(async move {
        let out = serve.await;
        replicas::save(&sessions, &served).await;
        out
    });
    let start = run(shared, &hs, Exchange::new(response, rx), Some(&request_id)).await;
    answer(shared, &hs, start)
}

/// The answer to an `initialize` that found no room: `429` when this client has its share of
/// sessions, `503` when the server has none left; both with `Retry-After` (sessions free up
/// when clients end them or they expire).
fn no_room(id: &Id, full: &sessions::Full) -> Response {
    use crate::middleware::codes;
    let (code, limit, scope, message) = match *full {
        sessions::Full::Client(limit) => (
            codes::RATE_LIMITED,
            limit,
            "client",
            format!(
                "this client already has {limit} sessions, the most one client may have \
                 (HttpOptions::max_sessions_per_client): end some with DELETE, or let them expire"
            ),
        ),
        sessions::Full::Server(limit) => (
            codes::OVERLOADED,
            limit,
            "server",
            format!(
                "the server has {limit} sessions, its limit (HttpOptions::max_sessions): try \
                 again later"
            ),
        ),
    };
    let error = ErrorObject::new(code, message)
        .with_data(serde_json::json!({ "limit": limit, "scope": scope, "retryAfterMs": 60_000 }));
    let mut body = Vec::new();
    mcp_jsonrpc::message::encode_error(&mut body, Some(id), &error);
    reply::answered(body, false, None)
}

/// The session a request names, after its `MCP-Protocol-Version` header was checked against
/// it; the error response otherwise (`400` missing id or bad version, `404` unknown session).
pub(super) async fn session_of(
    shared: &Shared,
    headers: &HeaderMap,
    id: Option<&Id>,
) -> Result<Arc<HttpSession>, Box<Response>> {
    let Some(session_id) = headers.get(SESSION_ID) else {
        return Err(Box::new(invalid(
            StatusCode::BAD_REQUEST,
            id,
            "the Mcp-Session-Id header is missing: send initialize first (without the header), \
             then repeat the session id its response carries on every request",
        )));
    };
    let found = match session_id.to_str() {
        Ok(sid) => shared.sessions.load(sid).await,
        Err(_) => Ok(None),
    };
    let found = match found {
        Ok(found) => found,
        Err(e) => return Err(Box::new(reply::store_unavailable(id, &e))),
    };
    let Some(hs) = found else {
        return Err(Box::new(invalid(
            StatusCode::NOT_FOUND,
            id,
            "unknown session: it ended or expired (or was never created here); \
             initialize again without Mcp-Session-Id",
        )));
    };
    if let Some(principal) = super::current_principal()
        && !hs.session.bind_principal(principal)
    {
        return Err(Box::new(super::auth::not_yours(id)));
    }
    check_version(shared, headers, Some(&hs.session), id)?;
    Ok(hs)
}

/// A stateful request's `MCP-Protocol-Version` header, if present, must be a legacy version
/// the server supports and (once negotiated) the session's version; absent, the session's
/// version applies.
fn check_version(
    shared: &Shared,
    headers: &HeaderMap,
    session: Option<&Session>,
    id: Option<&Id>,
) -> Result<(), Box<Response>> {
    let header = match version_header(headers) {
        Ok(None) => return Ok(()),
        Ok(Some(v)) => v,
        Err(()) => {
            return Err(Box::new(invalid(
                StatusCode::BAD_REQUEST,
                id,
                "the MCP-Protocol-Version header contains invalid characters",
            )));
        }
    };
    let supported = &shared.server.options().protocol_versions;
    let known = ProtocolVersion::parse(header)
        .filter(|v| v.is_stateful() && supported.contains(&v.as_str()));
    let Some(version) = known else {
        return Err(Box::new(invalid(
            StatusCode::BAD_REQUEST,
            id,
            format!(
                "unsupported MCP-Protocol-Version header '{header}': this server supports {}",
                supported.join(", ")
            ),
        )));
    };
    if let Some(negotiated) = session.and_then(|s| s.negotiated().version)
        && negotiated != version
    {
        return Err(Box::new(invalid(
            StatusCode::BAD_REQUEST,
            id,
            format!(
                "MCP-Protocol-Version header '{header}' does not match the version this session \
                 negotiated ({negotiated}); send MCP-Protocol-Version: {negotiated}"
            ),
        )));
    }
    Ok(())
}

/// `initialize`: a new session whose id travels in the response's `Mcp-Session-Id` header. A
/// refused `initialize` leaves no session behind and is answered `400`.
async fn initialize(shared: &Arc<Shared>, headers: &HeaderMap, request: Request) -> Response {
    if let Err(response) = check_version(shared, headers, None, Some(&request.id)) {
        return *response;
    }
    let id: Arc<str> = Arc::from(session_id());
    let hs = HttpSession::new(
        id.clone(),
        shared.server.new_session(Some(id.clone())),
        super::current_client(),
    );
    if let Some(principal) = super::current_principal() {
        hs.session.bind_principal(principal);
    }
    if let Err(full) = shared.sessions.insert(hs.clone()) {
        return no_room(&request.id, &full);
    }
    let (tx, rx) = mpsc::channel(OUTLET_CAPACITY);
    let request_id = request.id.clone();
    let serve = hs.session.begin_request(request, tx);
    let (sessions, created) = (shared.sessions.clone(), hs.clone());
    let unstored = Arc::new(parking_lot::Mutex::new(None));
    let failed = unstored.clone();
    // A shared session exists in the store before the client learns its id.
    let response = Box::pin(async move {
        let out = serve.await;
        if created.session.negotiated().version.is_some()
            && let Err(e) = replicas::create(&sessions, &created).await
        {
            *failed.lock() = Some(e);
            return None;
        }
        out
    });
    let start = run(shared, &hs, Exchange::new(response, rx), None).await;
    if let Some(e) = unstored.lock().take() {
        shared.sessions.evict(&id);
        return reply::store_unavailable(Some(&request_id), &e);
    }
    let refused = matches!(start, Start::Json(_)) && hs.session.negotiated().version.is_none();
    let mut response = answer(shared, &hs, start);
    if refused {
        shared.sessions.evict(&id);
        *response.status_mut() = StatusCode::BAD_REQUEST;
    } else if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(SESSION_ID, value);
    }
    response
}

/// How a stateful request's response begins.
pub(super) enum Start {
    /// The response came first: one JSON body.
    Json(Vec<u8>),
    /// A related message came first: the SSE stream's events for this connection.
    Sse(mpsc::Receiver<stream::Event>),
    /// Cancelled before anything was said.
    Nothing,
}

/// Serves a stateful request and returns how its response starts. A request answered before
/// it says anything else is served inline (a plain JSON body, the common case); once it
/// streams, the rest runs in a task of its own, so that it goes on when the client
/// disconnects (the stateful era does not cancel on disconnect; the events stay in the store
/// for resumption). A client that leaves before anything was said has nothing to resume from:
/// the handler still finishes (see `HandlerRun`), unheard.
async fn run(
    shared: &Arc<Shared>,
    hs: &Arc<HttpSession>,
    mut exchange: Exchange,
    request_id: Option<&Id>,
) -> Start {
    let first = match exchange.next().await {
        Item::Response(r) => return Start::Json(r),
        Item::End => return Start::Nothing,
        Item::Message(m) => Ok(m),
        Item::Poll(ms) => Err(ms),
    };
    let stream = hs.open_stream(&shared.sessions, request_id);
    let start = Start::Sse(stream.attach(None, hs.primes()));
    match first {
        Ok(m) => stream.emit(m),
        Err(ms) => stream.detach(ms),
    }
    let hs = hs.clone();
    tokio::spawn(async move {
        loop {
            match exchange.next().await {
                Item::Message(m) => stream.emit(m),
                Item::Poll(ms) => stream.detach(ms),
                Item::Response(r) => {
                    stream.emit(r.into());
                    break;
                }
                Item::End => break,
            }
        }
        hs.stream_finished(&stream);
    });
    start
}

/// The HTTP response of a stateful request.
fn answer(shared: &Shared, hs: &Arc<HttpSession>, start: Start) -> Response {
    match start {
        Start::Json(body) => reply::answered(body, false, shared.metadata_url.as_deref()),
        Start::Sse(rx) => stream::sse_response(stream::stateful_body(
            rx,
            shared.keep_alive,
            hs.session.busy(),
            None,
        )),
        Start::Nothing => stream::empty_sse(),
    }
}

/// A 2026-07-28 request (its headers checked): served on a fresh session that ends with the
/// response — or when the client closes the connection, which cancels the request.
async fn serve_stateless(shared: &Arc<Shared>, request: Request) -> Response {
    let session = shared.server.new_stateless_session();
    if let Some(principal) = super::current_principal() {
        session.bind_principal(principal);
    }
    let (tx, rx) = mpsc::channel(OUTLET_CAPACITY);
    let response: BoxFuture<Option<Vec<u8>>> = Box::pin(session.begin_request(request, tx));
    let close = CloseOnDrop(session);
    let mut exchange = Exchange::new(response, rx);
    loop {
        return match exchange.next().await {
            Item::Response(body) => reply::answered(body, true, shared.metadata_url.as_deref()),
            Item::Message(first) => stream::sse_response(stream::stateless_body(
                first,
                exchange,
                close,
                shared.keep_alive,
            )),
            // 2026-07-28 streams are not resumable: nothing to poll.
            Item::Poll(_) => continue,
            Item::End => stream::empty_sse(),
        };
    }
}

/// A notification or a response: `202 Accepted` once handed to its session (or, with a
/// shared store, to the replica it is for).
async fn message(shared: &Arc<Shared>, headers: &HeaderMap, message: Message) -> Response {
    if headers.get(SESSION_ID).is_none() && modern(shared, headers) {
        // 2026-07-28 defines no client notification over HTTP, and no client responses.
        return match message {
            Message::Response(_) => invalid(
                StatusCode::BAD_REQUEST,
                None,
                "protocol 2026-07-28 clients do not send JSON-RPC responses",
            ),
            _ => reply::empty(StatusCode::ACCEPTED),
        };
    }
    let hs = match session_of(shared, headers, None).await {
        Ok(hs) => hs,
        Err(response) => return *response,
    };
    if let Some(undelivered) = hs.session.receive(message) {
        match replicas::relay(&shared.sessions, &hs, undelivered).await {
            Ok(None) => {}
            Ok(Some(replica)) => {
                let gone = ErrorObject::internal_error(format!(
                    "replica {replica}, which sent the request this answers, is gone: the \
                     request it belonged to was lost with it"
                ));
                return reply::error(StatusCode::GONE, None, gone);
            }
            Err(e) => return reply::store_unavailable(None, &e),
        }
    }
    replicas::save(&shared.sessions, &hs).await;
    reply::empty(StatusCode::ACCEPTED)
}

/// A JSON-RPC batch (2025-03-26 sessions): every request concurrently, the answers in one
/// array.
async fn batch(
    shared: &Arc<Shared>,
    headers: &HeaderMap,
    items: Vec<Result<Message, InvalidMessage>>,
) -> Response {
    let hs = match session_of(shared, headers, None).await {
        Ok(hs) => hs,
        Err(response) => return *response,
    };
    if let Some(v) = hs.session.negotiated().version
        && v > ProtocolVersion::V2025_03_26
    {
        return invalid(
            StatusCode::BAD_REQUEST,
            None,
            format!(
                "JSON-RPC batches are part of protocol 2025-03-26 only and this session \
                 negotiated {v}: send one message per POST"
            ),
        );
    }
    let answers_expected = items
        .iter()
        .any(|i| matches!(i, Ok(Message::Request(_)) | Err(_)));
    let session = hs.session.clone();
    let (tx, rx) = mpsc::channel(OUTLET_CAPACITY);
    if !answers_expected {
        for item in items.into_iter().flatten() {
            // Batches belong to 2025-03-26 clients; their answers are not relayed.
            let _ = session.receive(item);
        }
        replicas::save(&shared.sessions, &hs).await;
        return reply::empty(StatusCode::ACCEPTED);
    }
    let (sessions, served) = (shared.sessions.clone(), hs.clone());
    let response: BoxFuture<Option<Vec<u8>>> = Box::pin(async move {
        let answers = crate::transport::batch::handle_batch(&session, items, &tx).await;
        drop(tx);
        replicas::save(&sessions, &served).await;
        answers
    });
    let start = run(shared, &hs, Exchange::new(response, rx), None).await;
    answer(shared, &hs, start)
}
