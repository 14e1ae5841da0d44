//! The stateful sessions of one HTTP endpoint: found by `Mcp-Session-Id`, removed on
//! `DELETE`, on idle expiry and at shutdown.
//!
//! With a shared [`SessionStore`] the table is a cache: a session another replica created is
//! loaded from the store on first use here, every use refreshes it (and the store's expiry),
//! and a session idle *here* is only evicted from this replica; `DELETE` and the store's
//! expiry end it everywhere.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use parking_lot::Mutex;
use std::time::Duration;

use axum::body::Bytes;
use mcp_jsonrpc::Id;
use mcp_schema::ProtocolVersion;
use tokio::sync::{mpsc, watch};

use super::HttpOptions;
use super::replicas;
use super::session_store::{Loaded, SessionStore, StoreError};
use super::store::EventStore;
use super::stream::{LiveStream, OUTLET_CAPACITY};
use crate::Server;
use crate::session::{Outbound, Session};

/// The live stateful sessions of an HTTP endpoint. Cheap to clone; all clones see the same
/// sessions.
#[derive(Clone)]
pub struct HttpSessions {
    inner: Arc<Registry>,
}

pub(super) struct Registry {
    map: Mutex<HashMap<Arc<str>, Arc<HttpSession>>>,
    count: watch::Sender<usize>,
    events: Arc<dyn EventStore>,
    pub(super) store: Arc<dyn SessionStore>,
    /// `store.is_shared()`, read once.
    pub(super) shared: bool,
    pub(super) server: Server,
    idle_timeout: Duration,
    sweep_interval: Duration,
    max: usize,
    max_per_client: usize,
    /// Live sessions per client ([`current_client`](super::current_client)).
    per_client: Mutex<HashMap<Arc<str>, usize>>,
    sweeping: AtomicBool,
    started: tokio::sync::OnceCell<()>,
}

impl std::fmt::Debug for HttpSessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpSessions")
            .field("count", &self.count())
            .field("store", &self.inner.store.describe())
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
    pub(super) fn new(server: &Server, options: &HttpOptions) -> Self {
        Self {
            inner: Arc::new(Registry {
                map: Mutex::default(),
                count: watch::channel(0).0,
                events: options.event_store.clone(),
                shared: options.session_store.is_shared(),
                store: options.session_store.clone(),
                server: server.clone(),
                idle_timeout: options.session_idle_timeout,
                sweep_interval: options
                    .session_sweep_interval
                    .min(options.session_idle_timeout)
                    .max(Duration::from_millis(1)),
                max: options.max_sessions,
                max_per_client: options.max_sessions_per_client,
                per_client: Mutex::default(),
                sweeping: AtomicBool::new(false),
                started: tokio::sync::OnceCell::new(),
            }),
        }
    }

    /// Starts a shared session store (connects, shares the signing key, listens to the other
    /// replicas); does nothing for a store in memory or one already started.
    /// [`Server::bind_http`] calls it; an application serving
    /// [`Server::http_router`] awaits it before serving.
    ///
    /// # Errors
    ///
    /// The store cannot be reached (the message names it and why).
    pub async fn start(&self) -> std::io::Result<()> {
        if !self.inner.shared {
            return Ok(());
        }
        self.inner
            .started
            .get_or_try_init(|| replicas::start(self.clone()))
            .await
            .map(|_| ())
            .map_err(|e| std::io::Error::other(e.to_string()))
    }

    /// How many sessions are alive (in this process).
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
    /// cancelled and its streams end; with a shared store, on every replica); false when
    /// there is no such session here.
    pub fn close(&self, id: &str) -> bool {
        let found = self.evict(id).is_some();
        if self.inner.shared {
            let this = self.clone();
            let id = id.to_owned();
            tokio::spawn(async move {
                if let Err(e) = replicas::end(&this, &id).await {
                    tracing::warn!(session = %id, "the session's shared record stays: {e}");
                }
            });
        }
        found
    }

    pub(super) fn registry(&self) -> &Registry {
        &self.inner
    }

    /// The store of this process's resumable events.
    pub(super) fn events(&self) -> &Arc<dyn EventStore> {
        &self.inner.events
    }

    /// The session store.
    pub(super) fn store(&self) -> Option<&Arc<dyn SessionStore>> {
        self.inner.shared.then_some(&self.inner.store)
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
        self.sweep_from_now_on();
        Ok(())
    }

    fn sweep_from_now_on(&self) {
        if !self.inner.sweeping.swap(true, Ordering::AcqRel) {
            tokio::spawn(sweep(Arc::downgrade(&self.inner)));
        }
    }

    /// The session with this id in this process.
    pub(super) fn get(&self, id: &str) -> Option<Arc<HttpSession>> {
        self.inner.map.lock().get(id).cloned()
    }

    /// The session with this id: from this process, brought up to date with (or first
    /// loaded from) a shared store.
    pub(super) async fn load(&self, id: &str) -> Result<Option<Arc<HttpSession>>, StoreError> {
        let local = self.get(id);
        if !self.inner.shared {
            return Ok(local);
        }
        let known = local.as_ref().map(|hs| hs.revision.load(Ordering::Acquire));
        match self.inner.store.load(id, known).await? {
            Loaded::Changed(record, revision) => {
                let hs = match local {
                    Some(hs) => hs,
                    None => self.adopt(id),
                };
                replicas::restore(&hs, &record);
                hs.revision.store(revision, Ordering::Release);
                Ok(Some(hs))
            }
            Loaded::Missing => {
                // Ended on another replica (or expired) while cached here.
                if local.is_some() {
                    self.evict(id);
                }
                Ok(None)
            }
            _ => Ok(local),
        }
    }

    /// A session another replica created, served here from now on.
    fn adopt(&self, id: &str) -> Arc<HttpSession> {
        let id: Arc<str> = Arc::from(id);
        let mut map = self.inner.map.lock();
        if let Some(hs) = map.get(&id) {
            return hs.clone();
        }
        let session = self.inner.server.new_session(Some(id.clone()));
        // Quotas count the sessions created here: an adopted one counts against no client.
        let hs = HttpSession::new(id.clone(), session, None);
        map.insert(id, hs.clone());
        self.publish(&map);
        drop(map);
        self.sweep_from_now_on();
        hs
    }

    /// Removes a session from this process and ends what it runs here (the store keeps it).
    pub(super) fn evict(&self, id: &str) -> Option<Arc<HttpSession>> {
        self.inner.evict(id)
    }

    /// Shutdown, first step: the clients can send nothing more; requests waiting on them fail
    /// and the rest run to completion.
    pub(super) fn input_closed_all(&self) {
        for s in self.inner.map.lock().values() {
            s.session.input_closed();
        }
    }

    /// Shutdown, last step: every session ends here (a shared store keeps them for the other
    /// replicas).
    pub(super) fn close_all(&self) {
        let all: Vec<_> = {
            let mut map = self.inner.map.lock();
            let all = map.drain().map(|(_, s)| s).collect();
            self.publish(&map);
            all
        };
        for s in all {
            self.inner.end_here(&s);
        }
    }
}

impl Registry {
    pub(super) fn idle_timeout(&self) -> Duration {
        self.idle_timeout
    }

    /// Removes a session from this process and ends what it runs here.
    fn evict(&self, id: &str) -> Option<Arc<HttpSession>> {
        let removed = {
            let mut map = self.map.lock();
            let removed = map.remove(id);
            self.count.send_replace(map.len());
            removed
        };
        if let Some(s) = &removed {
            self.end_here(s);
        }
        removed
    }

    /// A session left the table: what it runs here ends, its client has one less.
    fn end_here(&self, session: &HttpSession) {
        self.forget(session);
        session.close(&self.events);
    }

    /// Its client has one less session.
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

/// Removes idle sessions every `sweep_interval` for as long as the registry exists; with a
/// shared store, keeps the store's copy of the sessions busy here alive, and evicts those the
/// store no longer has.
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
        let (expired, in_use): (Vec<Arc<HttpSession>>, Vec<Arc<str>>) = {
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
            // Sessions busy here (a long call, an open stream) may send nothing to the store
            // for a while: their records are kept alive. Idle ones are left to expire.
            let busy = map
                .iter()
                .filter(|(_, s)| s.session.idle_for().is_zero())
                .map(|(id, _)| id.clone())
                .collect();
            (expired, busy)
        };
        if !expired.is_empty() {
            tracing::debug!(count = expired.len(), "idle HTTP sessions expired");
        }
        for s in expired {
            registry.end_here(&s);
        }
        if registry.shared && !in_use.is_empty() {
            match registry.store.touch(in_use.clone()).await {
                Ok(alive) => {
                    for (id, _) in in_use.iter().zip(alive).filter(|(_, alive)| !alive) {
                        registry.evict(id);
                    }
                }
                Err(e) => tracing::debug!("sessions in use not kept alive in the store: {e}"),
            }
        }
    }
}

/// A stateful session as the HTTP transport sees it: the protocol session and its streams.
pub(super) struct HttpSession {
    pub(super) id: Arc<str>,
    pub(super) session: Arc<Session>,
    /// The client it counts against ([`current_client`](super::current_client)).
    pub(super) client: Option<Arc<str>>,
    next_stream: AtomicU64,
    /// The revision of the shared store's record this copy reflects.
    pub(super) revision: AtomicU64,
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
            revision: AtomicU64::new(0),
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

    /// A new stream for a POST's response (of the request whose id is `request`).
    /// With a shared store, streams are numbered at random, so that replicas never reuse a
    /// number of the same session.
    pub(super) fn open_stream(
        &self,
        sessions: &HttpSessions,
        request: Option<&Id>,
    ) -> Arc<LiveStream> {
        let store = sessions.store();
        let id = match store {
            Some(_) => replicas::stream_number(),
            None => self.next_stream.fetch_add(1, Ordering::Relaxed),
        };
        if let Some(store) = store {
            store.open_stream(&self.id, id, request.and_then(replicas::id_json));
        }
        let stream = LiveStream::new(
            self.id.clone(),
            id,
            sessions.events().clone(),
            store.cloned(),
            0,
        );
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
        stream.finish_stored();
        self.live.lock().remove(&stream.id);
    }

    pub(super) fn live_stream(&self, id: u64) -> Option<Arc<LiveStream>> {
        self.live.lock().get(&id).cloned()
    }

    /// The GET stream, created on first use (its events numbered after `last`): from then on,
    /// messages unrelated to any request (list changes, resource updates) are sent on it until
    /// the session ends, kept for replay while no connection is attached.
    pub(super) fn standalone(&self, sessions: &HttpSessions, last: u64) -> Arc<LiveStream> {
        let mut live = self.live.lock();
        if let Some(s) = live.get(&STANDALONE) {
            return s.clone();
        }
        let store = sessions.store();
        let stream = LiveStream::new(
            self.id.clone(),
            STANDALONE,
            sessions.events().clone(),
            store.cloned(),
            last,
        );
        if self.closed.load(Ordering::Acquire) {
            stream.finish();
            return stream;
        }
        if let Some(store) = store {
            store.open_stream(&self.id, STANDALONE, None);
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

    /// Another replica serves the client's GET stream now: this one stops sending on it, and
    /// gives back what it sent after event `after` (which the other replica did not find
    /// stored when it took over).
    pub(super) fn release_standalone(
        &self,
        events: &Arc<dyn EventStore>,
        after: u64,
    ) -> Vec<Bytes> {
        let stream = self.live.lock().remove(&STANDALONE);
        let Some(stream) = stream else {
            return Vec::new();
        };
        self.session.set_push(None);
        stream.finish();
        events
            .replay(&self.id, STANDALONE, after)
            .unwrap_or_default()
            .into_iter()
            .map(|(_, message)| message)
            .collect()
    }

    /// Ends the session here: requests in flight are cancelled, open connections end, the
    /// events kept in this process are forgotten.
    fn close(&self, events: &Arc<dyn EventStore>) {
        self.session.close();
        let streams: Vec<_> = {
            let mut live = self.live.lock();
            self.closed.store(true, Ordering::Release);
            live.drain().map(|(_, s)| s).collect()
        };
        for s in streams {
            s.finish();
        }
        events.remove_session(&self.id);
    }
}
