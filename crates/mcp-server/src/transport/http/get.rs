//! GET (a session's stream for messages unrelated to any request, and resumption of any of
//! its streams with `Last-Event-ID`) and DELETE (the client ends its session). Both belong to
//! the stateful era: 2026-07-28 has neither, and gets `405 Method Not Allowed`.

use std::sync::Arc;

use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;

use super::Shared;
use super::headers::{LAST_EVENT_ID, SESSION_ID, text};
use super::post::{accepts, session_of};
use super::replicas;
use super::reply::{self, invalid};
use super::session_store::{Followed, StoreError};
use super::sessions::{HttpSession, HttpSessions, STANDALONE};
use super::stream::{self, SINK_CAPACITY, parse_event_id};
use tokio::sync::mpsc;

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
    let hs = match session_of(shared, headers, None).await {
        Ok(hs) => hs,
        Err(response) => return *response,
    };
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
    let sessions = &shared.sessions;
    let rx = match resume {
        // The GET stream, fresh or resumed: messages flow to this connection from now on.
        None | Some((STANDALONE, _)) => {
            match standalone(sessions, &hs, resume.map(|(_, after)| after)).await {
                Ok(rx) => rx,
                Err(e) => return reply::store_unavailable(None, &e),
            }
        }
        Some((stream, after)) => match hs.live_stream(stream) {
            Some(live) => live.attach(Some(after), false),
            None => match finished(sessions, &hs, stream, after).await {
                Ok(Some(rx)) => rx,
                Ok(None) => {
                    return invalid(
                        StatusCode::BAD_REQUEST,
                        None,
                        format!(
                            "Last-Event-ID names stream {stream}, which this session does not have \
                             (its events expired from the event store)"
                        ),
                    );
                }
                Err(e) => return reply::store_unavailable(None, &e),
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

pub(super) async fn delete(shared: &Arc<Shared>, headers: &HeaderMap) -> Response {
    if stateless(shared, headers) {
        return not_allowed(shared);
    }
    let hs = match session_of(shared, headers, None).await {
        Ok(hs) => hs,
        Err(response) => return *response,
    };
    shared.sessions.evict(&hs.id);
    if let Err(e) = replicas::end(&shared.sessions, &hs.id).await {
        return reply::store_unavailable(None, &e);
    }
    reply::empty(StatusCode::OK)
}

/// The GET stream attached to this connection: fresh, or resumed after `after`. With a
/// shared store the stream may have been served by another replica until now: its stored
/// events come first, this replica numbers on from the last one and tells the others it
/// serves the stream now.
async fn standalone(
    sessions: &HttpSessions,
    hs: &Arc<HttpSession>,
    after: Option<u64>,
) -> Result<mpsc::Receiver<stream::Event>, StoreError> {
    let taking_over = sessions
        .store()
        .filter(|_| hs.live_stream(STANDALONE).is_none());
    let stored = match taking_over {
        Some(store) => store
            .replay(&hs.id, STANDALONE, after.unwrap_or(u64::MAX))
            .await?
            .unwrap_or_default(),
        None => Default::default(),
    };
    let live = hs.standalone(sessions, stored.last);
    // Only once the stream exists here: the previous replica hands over to it.
    if taking_over.is_some() {
        replicas::take_push(sessions, hs, stored.last);
    }
    Ok(match after {
        None => live.attach(None, hs.primes()),
        Some(after) => live.attach_after(stored.events, Some(after), false),
    })
}

/// A stream that is no longer live here: what is left of it, then the end. With a shared
/// store it may be another replica's, still running: it is followed until it ends.
async fn finished(
    sessions: &HttpSessions,
    hs: &Arc<HttpSession>,
    stream: u64,
    after: u64,
) -> Result<Option<mpsc::Receiver<stream::Event>>, StoreError> {
    if let Some(events) = sessions.events().replay(&hs.id, stream, after) {
        let (tx, rx) = mpsc::channel(events.len().max(1));
        for (seq, message) in events {
            let _ = tx.try_send(stream::event(Some((stream, seq)), &message));
        }
        return Ok(Some(rx));
    }
    let Some(store) = sessions.store() else {
        return Ok(None);
    };
    let Some(stored) = store.replay(&hs.id, stream, after).await? else {
        return Ok(None);
    };
    let (tx, rx) = mpsc::channel(SINK_CAPACITY);
    let mut last = after;
    let follow = (!stored.finished).then(|| store.follow(&hs.id, stream, stored.last.max(after)));
    tokio::spawn(async move {
        for (seq, message) in stored.events {
            last = seq;
            if tx
                .send(stream::event(Some((stream, seq)), &message))
                .await
                .is_err()
            {
                return;
            }
        }
        let Some(mut follow) = follow else {
            return;
        };
        while let Some(step) = follow.recv().await {
            let event = match step {
                Followed::Event(seq, message) => {
                    last = seq;
                    stream::event(Some((stream, seq)), &message)
                }
                Followed::Abandoned(Some(request)) => {
                    stream::event(Some((stream, last + 1)), &replicas::abandoned(&request))
                }
                Followed::Failed(e) => {
                    tracing::debug!(stream, "following a stream stopped: {e}");
                    return;
                }
                _ => return,
            };
            if tx.send(event).await.is_err() {
                return;
            }
        }
    });
    Ok(Some(rx))
}
