//! Serving stateful sessions from several replicas through a shared [`SessionStore`]: the
//! records kept in step with the sessions in memory, messages relayed to the replica they are
//! for, and what other replicas announce handled here.

use std::collections::HashSet;
use std::sync::Arc;

use axum::body::Bytes;
use mcp_jsonrpc::message::{Parsed, parse};
use mcp_jsonrpc::{ErrorObject, Id, Message};
use tokio::sync::broadcast::error::RecvError;

use super::session_store::{BusMessage, SessionRecord, SessionStore, StoreError};
use super::sessions::{HttpSession, HttpSessions, STANDALONE};
use crate::session::{Changes, Negotiated, Undelivered};
use crate::shared::{Change, Replicas};
use crate::signing::Signer;

/// Starts the store, shares its signing key and hooks the server to the other replicas.
pub(super) async fn start(sessions: HttpSessions) -> Result<(), StoreError> {
    let registry = sessions.registry();
    let store = registry.store.clone();
    let shared = registry.server.inner.shared.clone();
    let key = store.start(registry.idle_timeout()).await?;
    let _ = shared.shared_signer.set(Signer::with_key(key));
    if let Some(tasks) = store.tasks() {
        shared.tasks.share(tasks);
    }
    let _ = shared.replicas.set(Arc::new(Hook {
        store: store.clone(),
    }));
    tokio::spawn(listen(sessions.clone()));
    Ok(())
}

/// What the layers below the transport ask of the other replicas.
struct Hook {
    store: Arc<dyn SessionStore>,
}

impl Replicas for Hook {
    fn replica(&self) -> &str {
        self.store.replica()
    }

    fn publish_change(&self, change: &Change) {
        let (what, uri) = match change {
            Change::Tools => ("tools", None),
            Change::Prompts => ("prompts", None),
            Change::Resources => ("resources", None),
            Change::ResourceUpdated(uri) => ("resource", Some(uri.clone())),
        };
        let message = BusMessage::Changed {
            what: what.into(),
            uri,
        };
        tell_everyone(self.store.as_ref(), message);
    }

    fn is_subscribed(
        &self,
        session: &str,
        uri: &str,
    ) -> std::pin::Pin<Box<dyn Future<Output = bool> + Send + 'static>> {
        let subscribed = self.store.is_subscribed(session, uri);
        Box::pin(async move {
            subscribed.await.unwrap_or_else(|e| {
                tracing::warn!("a resource update not sent: {e}");
                false
            })
        })
    }
}

/// Handles what the other replicas send, for as long as the endpoint exists.
async fn listen(sessions: HttpSessions) {
    let mut messages = sessions.registry().store.messages();
    loop {
        let message = match messages.recv().await {
            Ok(m) => m,
            Err(RecvError::Lagged(n)) => {
                tracing::warn!(missed = n, "messages from other replicas were missed");
                continue;
            }
            Err(RecvError::Closed) => return,
        };
        match message {
            BusMessage::Deliver { session, message } => {
                let Some(hs) = sessions.get(&session) else {
                    continue;
                };
                match parse(message.as_bytes()) {
                    Ok(Parsed::Single(Ok(message))) => {
                        if let Some(lost) = hs.session.receive(message) {
                            tracing::debug!(?lost, "a relayed message matched nothing here");
                        }
                    }
                    _ => tracing::debug!("an unreadable relayed message"),
                }
            }
            BusMessage::Closed { session } => {
                sessions.evict(&session);
            }
            BusMessage::PushTaken { session, by, after } => {
                let Some(hs) = sessions.get(&session) else {
                    continue;
                };
                let sent = hs.release_standalone(sessions.events(), after);
                if !sent.is_empty() {
                    let messages = sent
                        .iter()
                        .map(|m| String::from_utf8_lossy(m).into_owned())
                        .collect();
                    let handover = BusMessage::Handover { session, messages };
                    let store = sessions.registry().store.clone();
                    if let Err(e) = store.publish(Some(&by), handover).await {
                        tracing::warn!("GET stream messages not handed over: {e}");
                    }
                }
            }
            BusMessage::Handover { session, messages } => {
                let Some(stream) = sessions
                    .get(&session)
                    .and_then(|hs| hs.live_stream(STANDALONE))
                else {
                    continue;
                };
                for message in messages {
                    stream.emit(Bytes::from(message));
                }
            }
            BusMessage::TaskChanged { task } => {
                sessions.registry().server.inner.shared.tasks.changed(&task);
            }
            BusMessage::Changed { what, uri } => {
                let change = match (what.as_str(), uri) {
                    ("tools", _) => Change::Tools,
                    ("prompts", _) => Change::Prompts,
                    ("resources", _) => Change::Resources,
                    ("resource", Some(uri)) => Change::ResourceUpdated(uri),
                    _ => continue,
                };
                sessions.registry().server.inner.registry.announce(change);
            }
        }
    }
}

/// Brings a session in memory up to date with its stored record.
pub(super) fn restore(hs: &HttpSession, record: &SessionRecord) {
    let negotiated = Negotiated {
        version: record
            .version
            .as_deref()
            .and_then(mcp_schema::ProtocolVersion::parse),
        client_info: from_json(&record.client_info),
        client_capabilities: from_json(&record.client_capabilities).unwrap_or_default(),
        log_level: from_json(&record.log_level),
        initialized: record.initialized.unwrap_or(false),
    };
    let subscriptions: HashSet<String> = record.subscribed.iter().cloned().collect();
    hs.session.restore(negotiated, subscriptions);
    if let Some(principal) = from_json(&record.principal) {
        hs.session.bind_principal(principal);
        // Bound from the record: nothing to save.
        let _ = hs.session.take_changes();
    }
}

/// A record field's value (JSON text).
fn from_json<T: serde::de::DeserializeOwned>(field: &Option<String>) -> Option<T> {
    field
        .as_deref()
        .and_then(|text| serde_json::from_str(text).ok())
}

/// The record of a new session, whole.
fn record_of(hs: &HttpSession) -> SessionRecord {
    let all = Changes {
        handshake: true,
        log_level: true,
        initialized: true,
        principal: true,
        subscriptions: Vec::new(),
    };
    let mut record = change_of(hs, all);
    record.client = hs.client.as_deref().map(str::to_owned);
    record
}

/// The fields of the record that `changes` touched.
fn change_of(hs: &HttpSession, changes: Changes) -> SessionRecord {
    let session = &hs.session;
    let negotiated = session.negotiated();
    let mut record = SessionRecord::default();
    if changes.handshake {
        record.version = negotiated.version.map(|v| v.as_str().to_owned());
        record.client_info = negotiated.client_info.as_ref().and_then(to_json);
        record.client_capabilities = to_json(&negotiated.client_capabilities);
    }
    if changes.log_level {
        record.log_level = negotiated.log_level.as_ref().and_then(to_json);
    }
    if changes.initialized {
        record.initialized = Some(negotiated.initialized);
    }
    if changes.principal {
        record.principal = session.principal().and_then(to_json);
    }
    for (uri, on) in changes.subscriptions {
        if on {
            record.unsubscribed.remove(&uri);
            record.subscribed.insert(uri);
        } else {
            record.subscribed.remove(&uri);
            record.unsubscribed.insert(uri);
        }
    }
    record
}

/// A value as a record field holds it: JSON text.
fn to_json<T: serde::Serialize>(value: &T) -> Option<String> {
    serde_json::to_string(value).ok()
}

/// Stores a session `initialize` just created.
pub(super) async fn create(sessions: &HttpSessions, hs: &HttpSession) -> Result<(), StoreError> {
    let Some(store) = sessions.store() else {
        return Ok(());
    };
    let _ = hs.session.take_changes();
    store.create(&hs.id, record_of(hs)).await
}

/// Saves what a request or notification changed in the session.
pub(super) async fn save(sessions: &HttpSessions, hs: &HttpSession) {
    let Some(store) = sessions.store() else {
        return;
    };
    let changes = hs.session.take_changes();
    if changes.is_empty() {
        return;
    }
    if let Err(e) = store.save(&hs.id, change_of(hs, changes)).await {
        tracing::warn!(session = %hs.id, "a change of the session is not shared: {e}");
    }
}

/// Ends a session on every replica: its stored keys go, and the others forget it.
pub(super) async fn end(sessions: &HttpSessions, id: &str) -> Result<(), StoreError> {
    let Some(store) = sessions.store() else {
        return Ok(());
    };
    store.delete(id).await?;
    let closed = BusMessage::Closed {
        session: id.to_owned(),
    };
    store.publish(None, closed).await.map(|_| ())
}

/// Hands a client message that matched nothing here to the replica it is for: an answer to
/// the replica named in the request's id (`srv-REPLICA-N`), a cancellation to every replica.
/// Gives back the replica an answer was for when it is gone.
pub(super) async fn relay(
    sessions: &HttpSessions,
    hs: &HttpSession,
    undelivered: Undelivered,
) -> Result<Option<String>, StoreError> {
    let Some(store) = sessions.store() else {
        return Ok(None);
    };
    let to = match &undelivered {
        Undelivered::Answer(response) => {
            let replica = response
                .id
                .as_ref()
                .and_then(|id| id.as_str())
                .and_then(|id| id.strip_prefix("srv-"))
                .and_then(|rest| rest.split_once('-'))
                .map(|(replica, _)| replica.to_owned());
            match replica {
                Some(r) if r != store.replica() => Some(r),
                // Not one of ours, or ours and no longer awaited: nothing to do.
                _ => return Ok(None),
            }
        }
        Undelivered::Cancel(_) => None,
    };
    let mut message = Vec::new();
    match undelivered {
        Undelivered::Answer(response) => Message::Response(response).encode(&mut message),
        Undelivered::Cancel(cancel) => Message::Notification(cancel).encode(&mut message),
    }
    let deliver = BusMessage::Deliver {
        session: hs.id.to_string(),
        message: String::from_utf8_lossy(&message).into_owned(),
    };
    let reached = store.publish(to.as_deref(), deliver).await?;
    match to {
        Some(replica) if !reached => {
            tracing::warn!(
                session = %hs.id,
                %replica,
                "an answer of the client arrived for a replica that is gone"
            );
            Ok(Some(replica))
        }
        _ => Ok(None),
    }
}

/// Tells the other replicas that this one serves the client's GET stream now, after the
/// event `after` it found stored.
pub(super) fn take_push(sessions: &HttpSessions, hs: &HttpSession, after: u64) {
    let Some(store) = sessions.store() else {
        return;
    };
    let taken = BusMessage::PushTaken {
        session: hs.id.to_string(),
        by: store.replica().to_owned(),
        after,
    };
    tell_everyone(store.as_ref(), taken);
}

/// Publishes `message` to every other replica in the background (nothing waits for it); a
/// failure is logged.
fn tell_everyone(store: &dyn SessionStore, message: BusMessage) {
    let what = message.to_string();
    let publish = store.publish(None, message);
    tokio::spawn(async move {
        if let Err(e) = publish.await {
            tracing::warn!("not told to the other replicas ({what}): {e}");
        }
    });
}

/// A stream number no other replica will pick for the same session (48 random bits).
pub(super) fn stream_number() -> u64 {
    let bytes = crate::signing::random_bytes();
    let mut n = [0u8; 8];
    n[2..].copy_from_slice(&bytes[..6]);
    u64::from_be_bytes(n).max(1)
}

/// The answer to a request whose replica stopped before answering (for a client resuming
/// its stream elsewhere).
pub(super) fn abandoned(request: &str) -> Bytes {
    let id = match serde_json::from_str(request) {
        Ok(serde_json::Value::Number(n)) => n.as_i64().map(Id::from),
        Ok(serde_json::Value::String(s)) => Some(Id::from(s)),
        _ => None,
    };
    let error = ErrorObject::new(
        mcp_jsonrpc::error_codes::INTERNAL_ERROR,
        "the replica serving this request stopped before it finished; its outcome is unknown \
         (retry it if that is safe)",
    );
    let mut out = Vec::new();
    mcp_jsonrpc::message::encode_error(&mut out, id.as_ref(), &error);
    Bytes::from(out)
}

/// A request id as JSON text (kept with its stream, to answer for a replica that is gone).
pub(super) fn id_json(id: &Id) -> Option<String> {
    let value = match (id.as_i64(), id.as_str()) {
        (Some(n), _) => serde_json::Value::from(n),
        (None, Some(s)) => serde_json::Value::from(s),
        (None, None) => return None,
    };
    Some(value.to_string())
}
