//! Where the events of SSE streams are kept, so that a client whose connection broke can
//! resume a stream with `Last-Event-ID` (stateful era; 2026-07-28 streams are not resumable).

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use axum::body::Bytes;
use parking_lot::{Mutex, MutexGuard};

/// Keeps the messages sent on the SSE streams of stateful sessions for replay.
///
/// Every stream belongs to one session and is numbered within it; its events are numbered
/// from 1 in the order they were sent (the SSE event id the client sees is `{stream}-{seq}`).
/// The transport appends each message before it writes it to the client, asks for the
/// messages after a client's `Last-Event-ID` when the client reconnects, and tells the store
/// when a session ended.
///
/// The methods are called on the async runtime while a stream's state is locked: they must
/// return quickly and never block on I/O. The sessions themselves live in the server's
/// memory, so a store outside the process would not let another process resume a stream;
/// implement this trait to change how much is kept, not where.
pub trait EventStore: Send + Sync + 'static {
    /// Keeps `message` (one encoded JSON-RPC message), event `seq` of stream `stream` of
    /// session `session`. `seq` grows by one with each call for a stream.
    /// The bytes are shared with the connection that writes them: keeping them is a reference
    /// count, not a copy.
    fn append(&self, session: &str, stream: u64, seq: u64, message: Bytes);

    /// The kept events of stream `stream` of `session` whose `seq` is above `after`, oldest
    /// first; `None` when nothing is known about the stream (it never existed, belongs to
    /// another session, or was forgotten).
    fn replay(&self, session: &str, stream: u64, after: u64) -> Option<Vec<(u64, Bytes)>>;

    /// The session ended: forget its streams.
    fn remove_session(&self, session: &str);
}

/// The default [`EventStore`]: events in memory, bounded per stream and per session.
///
/// Beyond [`max_events_per_stream`](MemoryEventStore::new) the oldest events of a stream are
/// dropped, and beyond `max_streams_per_session` the oldest streams of a session; a client
/// resuming from before the oldest kept event gets what is left.
#[derive(Debug)]
pub struct MemoryEventStore {
    max_events: usize,
    max_streams: usize,
    sessions: Mutex<HashMap<Arc<str>, SessionEvents>>,
}

/// The kept events of one stream: `(seq, message)`, oldest first.
type Events = VecDeque<(u64, Bytes)>;

#[derive(Debug, Default)]
struct SessionEvents {
    /// Streams by number, oldest first.
    streams: VecDeque<(u64, Events)>,
}

impl Default for MemoryEventStore {
    /// 256 events per stream, 32 streams per session.
    fn default() -> Self {
        Self::new(256, 32)
    }
}

impl MemoryEventStore {
    /// A store keeping at most `max_events_per_stream` events of each stream and
    /// `max_streams_per_session` streams of each session (both at least 1).
    pub fn new(max_events_per_stream: usize, max_streams_per_session: usize) -> Self {
        Self {
            max_events: max_events_per_stream.max(1),
            max_streams: max_streams_per_session.max(1),
            sessions: Mutex::default(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<Arc<str>, SessionEvents>> {
        self.sessions.lock()
    }

    /// How many events are kept in all (for tests and metrics).
    pub fn len(&self) -> usize {
        self.lock()
            .values()
            .flat_map(|s| s.streams.iter())
            .map(|(_, events)| events.len())
            .sum()
    }

    /// True when no event is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl EventStore for MemoryEventStore {
    fn append(&self, session: &str, stream: u64, seq: u64, message: Bytes) {
        let mut sessions = self.lock();
        let events = match sessions.get_mut(session) {
            Some(e) => e,
            None => sessions.entry(Arc::from(session)).or_default(),
        };
        let index = match events.streams.iter().position(|(s, _)| *s == stream) {
            Some(i) => i,
            None => {
                if events.streams.len() >= self.max_streams {
                    events.streams.pop_front();
                }
                events.streams.push_back((stream, VecDeque::new()));
                events.streams.len() - 1
            }
        };
        let kept = &mut events.streams[index].1;
        if kept.len() >= self.max_events {
            kept.pop_front();
        }
        kept.push_back((seq, message));
    }

    fn replay(&self, session: &str, stream: u64, after: u64) -> Option<Vec<(u64, Bytes)>> {
        let sessions = self.lock();
        let (_, events) = sessions
            .get(session)?
            .streams
            .iter()
            .find(|(s, _)| *s == stream)?;
        Some(
            events
                .iter()
                .filter(|(seq, _)| *seq > after)
                .cloned()
                .collect(),
        )
    }

    fn remove_session(&self, session: &str) {
        self.lock().remove(session);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_replay_per_session() {
        let store = MemoryEventStore::new(3, 2);
        for seq in 1..=5 {
            store.append("a", 1, seq, Bytes::from(format!("m{seq}")));
        }
        let after = |stream, n| {
            store
                .replay("a", stream, n)
                .map(|v| v.into_iter().map(|(s, _)| s).collect::<Vec<_>>())
        };
        assert_eq!(after(1, 0), Some(vec![3, 4, 5]));
        assert_eq!(after(1, 4), Some(vec![5]));
        assert_eq!(store.replay("b", 1, 0), None, "another session's stream");
        store.append("a", 2, 1, Bytes::from_static(b"x"));
        store.append("a", 3, 1, Bytes::from_static(b"y"));
        assert_eq!(after(1, 0), None, "the oldest stream was dropped");
        assert_eq!(after(3, 0), Some(vec![1]));
        store.remove_session("a");
        assert!(store.is_empty());
    }
}
