//! The stateful sessions of one HTTP endpoint: found by `Mcp-Session-Id`, removed on
//! `DELETE`, on idle expiry and at shutdown.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use parking_lot::Mutex;
use std::time::Duration;

use mcp_schema::ProtocolVersion;
use tokio::sync::{mpsc, watch};

use super::HttpOptions;
use super::store::EventStore;
use super::stream::{LiveStream, OUTLET_CAPACITY};
use crate::session::{Outbound, Session};

/// The live stateful sessions of an HTTP endpoint. Cheap to clone; all clones see the same
/// sessions.
#[derive(Clone)]
pub struct HttpSessions {
    inner: Arc<Registry>,
}

struct Registry {
    map: Mutex<HashMap<Arc<str>, Arc<HttpSession>>>,
    count: watch::Sender<usize>,
    store: Arc<dyn EventStore>,
    idle_timeout: Duration,
    sweep_interval: Duration,
    max: usize,
    max_per_client: usize,
    /// Live sessions per client ([`current_client`](super::current_client)).
    per_client: Mutex<HashMap<Arc<str>, usize>>,
    sweeping: AtomicBool,
}

impl std::fmt::Debug for HttpSessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpSessions")
            .field("count", &self.count())
            .finish_non_exhaustive()
    }
}

/// Why `initialize` found no room for a session.
pub(super) enum Full {
    /// Every session of the server is taken.
    Server(usize),
    /// This client has its share.
    Client(usize),
}

impl HttpSessions {
    pub(super) fn new(options: &HttpOptions) -> Self {
        Self {
            inner: Arc::new(Registry {
                map: Mutex::default(),
                count: watch::channel(0).0,
                store: options.event_store.clone(),
                idle_timeout: options.session_idle_timeout,
                sweep_interval: options
                    .session_sweep_interval
                    .min(options.session_idle_timeout)
                    .max(Duration::from_millis(1)),
                max: options.max_sessions,
                max_per_client: options.max_sessions_per_client,
                per_client: Mutex::default(),
                sweeping: AtomicBool::new(false),
            }),
        }
    }

    /// How many sessions are alive.
    pub fn count(&self) -> usize {
        self.inner.map.lock().len()
    }

    /// Waits until the number of live sessions satisfies `condition` (checked at once and
    /// after every change), and returns that number.
    pub async fn wait_for_count(&self, mut condition: impl FnMut(usize) -> bool) -> usize {
        let mut rx = self.inner.count.subscribe();
        match rx.wait_for(|n| condition(*n)).await {
            Ok(n) => *n,
            // The sender lives in `self`: it cannot be gone.
            Err(_) => self.count(),
        }
    }

    /// Ends the session `id` as a client's `DELETE` does (its requests in flight are
    /// cancelled and its streams end); false when there is no such session.
    pub fn close(&self, id: &str) -> bool {
        self.remove(id).is_some()
    }

    /// The store of resumable events.
    pub(super) fn store(&self) -> &Arc<dyn EventStore> {
        &self.inner.store
    }

    fn publish(&self, map: &HashMap<Arc<str>, Arc<HttpSession>>) {
        self.inner.count.send_replace(map.len());
    }

    /// Registers a new session and starts the idle sweep the first time.
    pub(super) fn insert(&self, session: Arc<HttpSession>) -> Result<(), Full> {
        {
            let mut map = self.inner.map.lock();
            if map.len() >= self.inner.max {
                return Err(Full::Server(self.inner.max));
            }
            if let Some(client) = &session.client {
                let mut per_client = self.inner.per_client.lock();
                let count = per_client.entry(client.clone()).or_default();
                if *count >= self.inner.max_per_client {
                    return Err(Full::Client(self.inner.max_per_client));
                }
                *count += 1;
            }
            map.insert(session.id.clone(), session);
            self.publish(&map);
        }
        if !self.inner.sweeping.swap(true, Ordering::AcqRel) {
            tokio::spawn(sweep(Arc::downgrade(&self.inner)));
        }
        Ok(())
    }

    /// The session with this id.
    pub(super) fn get(&self, id: &str) -> Option<Arc<HttpSession>> {
        self.inner.map.lock().get(id).cloned()
    }

    /// Removes and ends a session.
    pub(super) fn remove(&self, id: &str) -> Option<Arc<HttpSession>> {
        let removed = {
            let mut map = self.inner.map.lock();
            let removed = map.remove(id);
            self.publish(&map);
            removed
        };
        if let Some(s) = &removed {
            self.inner.forget(s);
            s.close(&self.inner.store);
        }
        removed
    }

    /// Shutdown, first step: the clients can send nothing more; requests waiting on them fail
    /// and the rest run to completion.
    pub(super) fn input_closed_all(&self) {
        for s in self.inner.map.lock().values() {
            s.session.input_closed();
        }
    }

    /// Shutdown, last step: every session ends.
    pub(super) fn close_all(&self) {
        let all: Vec<_> = {
            let mut map = self.inner.map.lock();
            let all = map.drain().map(|(_, s)| s).collect();
            self.publish(&map);
            all
        };
        for s in all {
            self.inner.forget(&s);
            s.close(&self.inner.store);
        }
    }
}

impl Registry {
    /// A session left the table: its client has one less.
    fn forget(&self, session: &HttpSession) {
        let Some(client) = &session.client else {
            return;
        };
        let mut per_client = self.per_client.lock();
        if let Some(count) = per_client.get_mut(client) {
            *count -= 1;
            if *count == 0 {
                per_client.remove(client);
            }
        }
    }
}

/// Removes idle sessions every `sweep_interval` for as long as the registry exists.
async fn sweep(registry: Weak<Registry>) {
    let interval = match registry.upgrade() {
        Some(r) => r.sweep_interval,
        None => return,
    };
    loop {
        tokio::time::sleep(interval).await;
        let Some(registry) = registry.upgrade() else {
            return;
        };
        let expired: Vec<Arc<HttpSession>> = {
            let mut map = registry.map.lock();
            let before = map.len();
            let mut expired = Vec::new();
            map.retain(|_, s| {
                let keep = s.session.idle_for() < registry.idle_timeout;
                if !keep {
                    expired.push(s.clone());
                }
                keep
            });
            if map.len() != before {
                registry.count.send_replace(map.len());
            }
            expired
        };
        if !expired.is_empty() {
            tracing::debug!(count = expired.len(), "idle HTTP sessions expired");
        }
        for s in expired {
            registry.forget(&s);
            s.close(&registry.store);
        }
    }
}

/// A stateful session as the HTTP transport sees it: the protocol session and its streams.
pub(super) struct HttpSession {
    pub(super) id: Arc<str>,
    pub(super) session: Arc<Session>,
    /// The client it counts against ([`current_client`](super::current_client)).
    client: Option<Arc<str>>,
    next_stream: AtomicU64,
    /// Streams still producing events; `0` is the GET stream.
    live: Mutex<HashMap<u64, Arc<LiveStream>>>,
    /// Set (under the `live` lock) when the session ended: streams opened later are born
    /// finished, so nothing is stored for a session that is gone.
    closed: AtomicBool,
}

/// The number of the standalone (GET) stream.
pub(super) const STANDALONE: u64 = 0;

impl HttpSession {
    pub(super) fn new(id: Arc<str>, session: Arc<Session>, client: Option<Arc<str>>) -> Arc<Self> {
        Arc::new(Self {
            id,
            session,
            client,
            next_stream: AtomicU64::new(STANDALONE + 1),
            live: Mutex::default(),
            closed: AtomicBool::new(false),
        })
    }

    /// True when SSE streams start with a priming event: the negotiated version is 2025-11-25
    /// or later (older clients fail on the event's empty data).
    pub(super) fn primes(&self) -> bool {
        self.session
            .negotiated()
            .version
            .is_some_and(|v| v >= ProtocolVersion::V2025_11_25)
    }

    /// A new stream for a POST's response.
    pub(super) fn open_stream(&self, store: &Arc<dyn EventStore>) -> Arc<LiveStream> {
        let id = self.next_stream.fetch_add(1, Ordering::Relaxed);
        let stream = LiveStream::new(self.id.clone(), id, store.clone());
        let mut live = self.live.lock();
        if self.closed.load(Ordering::Acquire) {
            stream.finish();
        } else {
            live.insert(id, stream.clone());
        }
        stream
    }

    /// The stream is finished: resuming it replays from the store only.
    pub(super) fn stream_finished(&self, stream: &LiveStream) {
        stream.finish();
        self.live.lock().remove(&stream.id);
    }

    pub(super) fn live_stream(&self, id: u64) -> Option<Arc<LiveStream>> {
        self.live.lock().get(&id).cloned()
    }

    /// The GET stream, created on first use: from then on, messages unrelated to any request
    /// (list changes, resource updates) are sent on it until the session ends, kept for replay
    /// while no connection is attached.
    pub(super) fn standalone(&self, store: &Arc<dyn EventStore>) -> Arc<LiveStream> {
        let mut live = self.live.lock();
        if let Some(s) = live.get(&STANDALONE) {
            return s.clone();
        }
        let stream = LiveStream::new(self.id.clone(), STANDALONE, store.clone());
        if self.closed.load(Ordering::Acquire) {
            stream.finish();
            return stream;
        }
        let (tx, mut rx) = mpsc::channel::<Outbound>(OUTLET_CAPACITY);
        self.session.set_push(Some(tx));
        // Holds the stream, not the session: the session's push outlet is the only sender, so
        // the task ends when the session ends (or is dropped).
        let pump = stream.clone();
        tokio::spawn(async move {
            while let Some(outbound) = rx.recv().await {
                // Nothing asks the GET stream to poll: only a request's own stream can.
                if let Outbound::Message(message) = outbound {
                    pump.emit(message.into());
                }
            }
            pump.finish();
        });
        live.insert(STANDALONE, stream.clone());
        stream
    }

    /// Ends the session: requests in flight are cancelled, open connections end, the kept
    /// events are forgotten.
    fn close(&self, store: &Arc<dyn EventStore>) {
        self.session.close();
        let streams: Vec<_> = {
            let mut live = self.live.lock();
            self.closed.store(true, Ordering::Release);
            live.drain().map(|(_, s)| s).collect()
        };
        for s in streams {
            s.finish();
        }
        store.remove_session(&self.id);
    }
}
