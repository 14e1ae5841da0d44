//! Where the stateful sessions of an HTTP endpoint live: in this process
//! ([`MemorySessionStore`], the default), or in a store that several replicas of the server
//! share (`RedisSessionStore`, feature `redis`), so that a client's requests may land on any
//! replica behind a plain load balancer.
//!
//! With a shared store, each replica keeps the sessions it serves in memory as a cache of the
//! store's records, and the store carries what crosses replicas: the session records (the
//! handshake, the log level, resource subscriptions, the principal), the events of every SSE
//! stream (for `Last-Event-ID` on any replica), and a message bus (a client's answer to a
//! request sent from another replica, cancellations, list changes, a session's end).

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use serde::{Deserialize, Serialize};
use tokio::sync::{broadcast, mpsc};

use crate::registry::BoxFuture;

#[cfg(feature = "redis")]
pub(crate) mod redis;

/// Where the stateful sessions of an HTTP endpoint live
/// ([`HttpOptions::session_store`](super::HttpOptions::session_store)).
///
/// The crate implements it twice: [`MemorySessionStore`] (the default: sessions live in the
/// process that created them) and, with feature `redis`, `RedisSessionStore` (sessions any
/// replica can serve). A store of your own (another database) implements every method; a
/// store that is not [shared](SessionStore::is_shared) implements only that one and
/// [`describe`](SessionStore::describe), and the transport never calls the others.
///
/// The methods that return futures must not hold the caller up for long when the store is
/// unreachable: they fail with [`StoreError::Unavailable`] and the request is answered `503`.
pub trait SessionStore: Send + Sync + 'static {
    /// True when other processes share the sessions (every method below is then used).
    fn is_shared(&self) -> bool;

    /// What the store is, for logs and `/health` (never a password).
    fn describe(&self) -> String;

    /// This replica's id among the processes sharing the store: short, unique, visible ASCII
    /// without `-`.
    fn replica(&self) -> &str {
        "local"
    }

    /// Connects and starts what runs in the background (the bus, the heartbeat); returns the
    /// key every replica signs cursors and request state with. Called once, when the endpoint
    /// binds; a session unused for `idle_timeout` expires.
    fn start(&self, _idle_timeout: Duration) -> BoxFuture<Result<[u8; 32], StoreError>> {
        not_shared()
    }

    /// Stores a new session's record.
    fn create(&self, _session: &str, _record: SessionRecord) -> BoxFuture<Result<(), StoreError>> {
        not_shared()
    }

    /// The record of `session` (and keeps it alive for another idle timeout);
    /// [`Loaded::Unchanged`] when its revision is still `known`.
    fn load(&self, _session: &str, _known: Option<u64>) -> BoxFuture<Result<Loaded, StoreError>> {
        not_shared()
    }

    /// Writes what changed in a session's record (only the fields set in `change`).
    fn save(&self, _session: &str, _change: SessionRecord) -> BoxFuture<Result<(), StoreError>> {
        not_shared()
    }

    /// Whether `session` subscribed to updates of `uri`.
    fn is_subscribed(&self, _session: &str, _uri: &str) -> BoxFuture<Result<bool, StoreError>> {
        not_shared()
    }

    /// Removes everything of `session` (record, subscriptions, stream events).
    fn delete(&self, _session: &str) -> BoxFuture<Result<(), StoreError>> {
        not_shared()
    }

    /// Keeps the sessions in use here alive for another idle timeout; tells which still exist.
    fn touch(&self, _sessions: Vec<Arc<str>>) -> BoxFuture<Result<Vec<bool>, StoreError>> {
        not_shared()
    }

    /// Records in the background, in call order with the other stream methods, that this
    /// replica opened stream `stream` of `session` for the request `request` (its encoded
    /// JSON-RPC id; `None` for the GET stream). Never waits.
    fn open_stream(&self, _session: &str, _stream: u64, _request: Option<String>) {}

    /// Appends event `seq` of a stream, in the background. Never waits.
    fn append(&self, _session: &str, _stream: u64, _seq: u64, _message: Bytes) {}

    /// Marks a stream finished, in the background. Never waits.
    fn finish_stream(&self, _session: &str, _stream: u64) {}

    /// The stored events of a stream after `after`; `None` when the store knows nothing of
    /// the stream.
    fn replay(
        &self,
        _session: &str,
        _stream: u64,
        _after: u64,
    ) -> BoxFuture<Result<Option<StoredStream>, StoreError>> {
        not_shared()
    }

    /// Follows a stream written by another replica: its events after `after` as they are
    /// stored, until it finishes (or its writer is found gone) or the receiver is dropped.
    fn follow(&self, session: &str, stream: u64, after: u64) -> mpsc::Receiver<Followed> {
        let _ = (session, stream, after);
        mpsc::channel(1).1
    }

    /// Sends `message` to the replica `to`, or to every other replica; false when a directed
    /// message reached no one (that replica is gone).
    fn publish(
        &self,
        _to: Option<&str>,
        _message: BusMessage,
    ) -> BoxFuture<Result<bool, StoreError>> {
        not_shared()
    }

    /// Where tasks (the tasks extension) are kept when the store is shared, so that every
    /// replica answers for every task; `None` keeps them in this process.
    fn tasks(&self) -> Option<std::sync::Arc<dyn crate::tasks::TaskStore>> {
        None
    }

    /// The messages other replicas send to this one, from now on.
    fn messages(&self) -> broadcast::Receiver<BusMessage> {
        broadcast::channel(1).1
    }

    /// Whether the store answers, as last seen (cheap: no round trip).
    fn health(&self) -> StoreHealth {
        StoreHealth::default()
    }
}

fn not_shared<T: Send + 'static>() -> BoxFuture<Result<T, StoreError>> {
    Box::pin(std::future::ready(Err(StoreError::Unavailable(
        "this session store is not shared".into(),
    ))))
}

/// The default [`SessionStore`]: the sessions live in the memory of the process that created
/// them, as long as it runs (a load balancer must send a session's requests to that process).
#[derive(Debug, Default, Clone, Copy)]
pub struct MemorySessionStore;

impl SessionStore for MemorySessionStore {
    fn is_shared(&self) -> bool {
        false
    }

    fn describe(&self) -> String {
        "memory".into()
    }
}

/// Why a shared store could not do what was asked.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The store does not answer (or answered with an error): the request needs it.
    #[error("the session store is unavailable: {0}")]
    Unavailable(String),
}

/// Whether the store answers, as last seen.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct StoreHealth {
    /// The last operation or probe failed with this (the store is then treated as
    /// unreachable until a probe succeeds).
    pub error: Option<String>,
}

/// What every replica needs to know of a stateful session. In a change
/// ([`SessionStore::save`]) only the fields that changed are set.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SessionRecord {
    /// The negotiated protocol version.
    pub version: Option<String>,
    /// The client's `clientInfo` (JSON).
    pub client_info: Option<String>,
    /// The client's capabilities (JSON).
    pub client_capabilities: Option<String>,
    /// The level set with `logging/setLevel` (JSON).
    pub log_level: Option<String>,
    /// The client sent `notifications/initialized`.
    pub initialized: Option<bool>,
    /// Who the session belongs to (JSON: issuer, subject, scopes).
    pub principal: Option<String>,
    /// Who the session counts against for quotas.
    pub client: Option<String>,
    /// Resource subscriptions: the whole set in a loaded record; in a change, the ones added.
    pub subscribed: BTreeSet<String>,
    /// In a change, the subscriptions removed.
    pub unsubscribed: BTreeSet<String>,
}

/// What [`SessionStore::load`] found.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Loaded {
    /// No such session (never created, ended, or expired).
    Missing,
    /// The record still has the revision the caller knows.
    Unchanged,
    /// The record, at revision `.1`.
    Changed(Box<SessionRecord>, u64),
}

/// A stream as the store holds it.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct StoredStream {
    /// The events after the one asked for, oldest first: `(seq, message)`.
    pub events: Vec<(u64, Bytes)>,
    /// The highest event number stored.
    pub last: u64,
    /// No event will follow.
    pub finished: bool,
    /// The replica writing the stream.
    pub owner: Option<String>,
    /// The encoded JSON-RPC id of the request the stream answers.
    pub request: Option<String>,
}

/// One step of following a stream.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Followed {
    /// The next event: `(seq, message)`.
    Event(u64, Bytes),
    /// The stream finished.
    End,
    /// The replica writing the stream is gone before finishing it; the request it answered
    /// (encoded id) will never be answered.
    Abandoned(Option<String>),
    /// The store failed while following.
    Failed(StoreError),
}

/// A message between replicas.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum BusMessage {
    /// A client message (a response, a cancellation) for a request of the session that is
    /// not known where it arrived.
    Deliver {
        /// The session.
        session: String,
        /// The JSON-RPC message as the client sent it.
        message: String,
    },
    /// The session ended (DELETE on some replica): every replica forgets it.
    Closed {
        /// The session.
        session: String,
    },
    /// The client's GET stream is now served by replica `by`: another replica serving it
    /// stops.
    PushTaken {
        /// The session.
        session: String,
        /// The replica that took it.
        by: String,
        /// The last event of the stream it found stored: the replica that served the stream
        /// hands over what it sent after this ([`BusMessage::Handover`]).
        after: u64,
    },
    /// Messages a replica sent on a session's GET stream after another replica took the
    /// stream over (and after the events that replica found stored): the new one sends them on.
    Handover {
        /// The session.
        session: String,
        /// The JSON-RPC messages, oldest first.
        messages: Vec<String>,
    },
    /// A task changed (an answer, a cancellation, progress, its end): the replica running it
    /// and the streams following it read it again.
    TaskChanged {
        /// The task.
        task: String,
    },
    /// A list changed, or a resource was updated, on the replica that sent this.
    Changed {
        /// `tools`, `prompts`, `resources` or `resource`.
        what: String,
        /// The resource updated.
        uri: Option<String>,
    },
}

impl fmt::Display for BusMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BusMessage::Deliver { session, .. } => write!(f, "a message for session {session}"),
            BusMessage::Closed { session } => write!(f, "session {session} closed"),
            BusMessage::PushTaken { session, by, .. } => {
                write!(f, "session {session}'s GET stream taken by {by}")
            }
            BusMessage::Handover { session, messages } => write!(
                f,
                "{} messages of session {session}'s GET stream handed over",
                messages.len()
            ),
            BusMessage::Changed { what, .. } => write!(f, "{what} changed"),
            BusMessage::TaskChanged { task } => write!(f, "task {task} changed"),
        }
    }
}
