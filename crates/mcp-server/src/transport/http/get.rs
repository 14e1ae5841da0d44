//! GET (a session's stream for messages unrelated to any request, and resumption of any of
//! its streams with `Last-Event-ID`) and DELETE (the client ends its session). Both belong to
//! the stateful era: 2026-07-28 has neither, and gets `405 Method Not Allowed`.

use std::sync::Arc;

use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;

use super::Shared;
use super::headers::{LAST_EVENT_ID, SESSION_ID, text};
use super::post::{accepts, session_of};
use super::reply::{self, invalid};
use super::sessions::STANDALONE;
use super::stream::{self, parse_event_id};

/// True when a GET or DELETE comes from (or goes to) the stateless era.
fn stateless(shared: &Shared, headers: &HeaderMap) -> bool {
    if !shared.stateful {
        return true;
    }
    headers.get(SESSION_ID).is_none()
        && matches!(
            text(headers, super::headers::PROTOCOL_VERSION),
            Ok(Some(v)) if mcp_schema::Era::of(v) != Some(mcp_schema::Era::Stateful)
        )
}

fn not_allowed(shared: &Shared) -> Response {
    super::method_not_allowed(
        shared,
        "protocol 2026-07-28 has no GET stream and no sessions: send every message as a POST",
    )
}

pub(super) async fn get(shared: &Arc<Shared>, headers: &HeaderMap) -> Response {
    if stateless(shared, headers) {
        return not_allowed(shared);
    }
    if !accepts(headers, &["text/event-stream"]) {
        return invalid(
            StatusCode::NOT_ACCEPTABLE,
            None,
            "Not Acceptable: the GET stream is text/event-stream (send Accept: text/event-stream)",
        );
    }
    let hs = match session_of(shared, headers, None) {
        Ok(hs) => hs,
        Err(response) => return *response,
    };
    let store = shared.sessions.store();
    let resume = match text(headers, LAST_EVENT_ID) {
        Ok(None) => None,
        Ok(Some(id)) => match parse_event_id(id) {
            Some(id) => Some(id),
            None => {
                return invalid(
                    StatusCode::BAD_REQUEST,
                    None,
                    format!("Last-Event-ID '{id}' is not an event id of this server"),
                );
            }
        },
        Err(()) => {
            return invalid(
                StatusCode::BAD_REQUEST,
                None,
                "the Last-Event-ID header contains invalid characters",
            );
        }
    };
    let rx = match resume {
        // The GET stream, fresh or resumed: messages flow to this connection from now on.
        None => hs.standalone(store).attach(None, hs.primes()),
        Some((STANDALONE, after)) => hs.standalone(store).attach(Some(after), false),
        Some((stream, after)) => match hs.live_stream(stream) {
            Some(live) => live.attach(Some(after), false),
            None => match store.replay(&hs.id, stream, after) {
                // A finished stream: what is left of it, then the end.
                Some(events) => {
                    let (tx, rx) = tokio::sync::mpsc::channel(events.len().max(1));
                    for (seq, message) in events {
                        let _ = tx.try_send(stream::event(Some((stream, seq)), &message));
                    }
                    rx
                }
                None => {
                    return invalid(
                        StatusCode::BAD_REQUEST,
                        None,
                        format!(
                            "Last-Event-ID names stream {stream}, which this session does not have \
                             (its events expired from the event store)"
                        ),
                    );
                }
            },
        },
    };
    let stop_with = resume
        .is_none_or(|(s, _)| s == STANDALONE)
        .then(|| shared.server.clone());
    stream::sse_response(stream::stateful_body(
        rx,
        shared.keep_alive,
        hs.session.busy(),
        stop_with,
    ))
}

pub(super) fn delete(shared: &Arc<Shared>, headers: &HeaderMap) -> Response {
    if stateless(shared, headers) {
        return not_allowed(shared);
    }
    let hs = match session_of(shared, headers, None) {
        Ok(hs) => hs,
        Err(response) => return *response,
    };
    shared.sessions.remove(&hs.id);
    reply::empty(StatusCode::OK)
}
