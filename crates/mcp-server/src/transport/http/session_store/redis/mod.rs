//! [`RedisSessionStore`]: stateful sessions in Redis, so that every replica of a server can
//! serve every session.
//!
//! Keys (prefix `P`, default `mcp`; `{sid}` is the session id in braces):
//!
//! | key | type | holds |
//! |---|---|---|
//! | `P:{sid}:rec` | hash | the record's fields, `rev` (grows with each save) |
//! | `P:{sid}:subs` | set | subscribed resource URIs |
//! | `P:{sid}:streams` | hash | stream number → `owner` replica and request id |
//! | `P:{sid}:ev:N` | stream | the events of stream N: entry `0-seq`, field `m`; `1-0` ends it |
//! | `P:replica:ID` | string | a replica's heartbeat (expires when it stops) |
//! | `P:signing-key` | string | the key every replica signs cursors with |
//! | `P:task:ID` | string | a task (the tasks extension) as JSON; expires with the task |
//! | `P:bus`, `P:bus:ID` | channels | messages to every replica, to replica ID |
//!
//! Every key of a session expires after the idle timeout unless used again.

mod bus;
mod heartbeat;
mod log;
mod record;
mod scripts;
mod tasks;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::body::Bytes;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use parking_lot::Mutex;
use redis::aio::ConnectionManager;
use redis::{AsyncCommands as _, RedisResult, Value};
use tokio::sync::{OnceCell, broadcast, mpsc};

use super::{
    BusMessage, Followed, Loaded, SessionRecord, SessionStore, StoreError, StoreHealth,
    StoredStream,
};
use crate::registry::BoxFuture;

/// Tunables of a [`RedisSessionStore`]. Start from [`RedisOptions::default`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RedisOptions {
    /// Prefix of every key and channel (default `mcp`): servers that share one Redis but
    /// not their sessions use different prefixes.
    pub prefix: String,
    /// Events kept per SSE stream (default 256; older ones are trimmed).
    pub max_events_per_stream: usize,
    /// The longest one Redis operation may take before the request that needs it is
    /// answered `503` (default 1 s).
    pub op_timeout: Duration,
    /// How often a replica says it is alive, and probes Redis (default 1 s); a replica
    /// silent for three times this is taken for gone.
    pub heartbeat: Duration,
}

impl Default for RedisOptions {
    fn default() -> Self {
        Self {
            prefix: "mcp".into(),
            max_events_per_stream: 256,
            op_timeout: Duration::from_secs(1),
            heartbeat: Duration::from_secs(1),
        }
    }
}

/// A [`SessionStore`] in Redis (feature `redis`): every replica of a server configured with
/// the same Redis (and prefix) serves every stateful session, behind a load balancer without
/// stickiness. See the "Running several replicas" chapter of the guide.
///
/// ```no_run
/// # async fn run(server: mcp_server::Server) -> Result<(), Box<dyn std::error::Error>> {
/// use std::sync::Arc;
/// use mcp_server::{HttpOptions, RedisOptions, RedisSessionStore};
///
/// let mut options = HttpOptions::default();
/// options.session_store = Arc::new(RedisSessionStore::new(
///     "redis://127.0.0.1:6379/0",
///     RedisOptions::default(),
/// )?);
/// server.bind_http("0.0.0.0:8080", options).await?.wait().await?;
/// # Ok(()) }
/// ```
///
/// Redis must be a single primary (Redis Cluster is not supported: a session's scripts name
/// keys they build). Without persistence, a Redis restart ends every session (clients get
/// `404` and initialize again); with `appendonly yes` sessions survive it.
#[derive(Clone)]
pub struct RedisSessionStore {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for RedisSessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisSessionStore")
            .field("redis", &self.inner.address)
            .field("replica", &self.inner.replica)
            .finish_non_exhaustive()
    }
}

struct Inner {
    client: redis::Client,
    /// `redis://host:port/db`, without credentials.
    address: String,
    options: RedisOptions,
    replica: String,
    /// Commands (set by `start`).
    conn: OnceCell<ConnectionManager>,
    /// The subscriptions of the bus (set by `start`).
    bus_conn: OnceCell<ConnectionManager>,
    /// The sessions' time to live, in ms (the endpoint's idle timeout, set by `start`).
    ttl_ms: AtomicU64,
    /// The last failure, until a probe succeeds.
    down: Mutex<Option<String>>,
    /// Stream writes, in order, for the writer task.
    log: mpsc::UnboundedSender<log::Op>,
    log_rx: Mutex<Option<mpsc::UnboundedReceiver<log::Op>>>,
    /// Messages from other replicas.
    bus: broadcast::Sender<BusMessage>,
    /// The key every replica signs with (kept to put it back after Redis lost its data).
    key: OnceCell<[u8; 32]>,
}

impl RedisSessionStore {
    /// A store in the Redis at `url` (`redis://[user:password@]host:port[/db]`, or
    /// `redis+unix:///path`). Nothing is connected before the endpoint binds.
    ///
    /// # Errors
    ///
    /// The URL is not a Redis URL.
    pub fn new(url: &str, options: RedisOptions) -> Result<Self, StoreError> {
        let client = redis::Client::open(url)
            .map_err(|e| StoreError::Unavailable(format!("invalid Redis URL: {e}")))?;
        let info = client.get_connection_info();
        let address = format!("redis://{}/{}", info.addr(), info.redis_settings().db());
        let (log, log_rx) = mpsc::unbounded_channel();
        let mut id = [0u8; 6];
        getrandom::fill(&mut id).map_err(|e| StoreError::Unavailable(e.to_string()))?;
        Ok(Self {
            inner: Arc::new(Inner {
                client,
                address,
                replica: id.iter().map(|b| format!("{b:02x}")).collect(),
                options,
                conn: OnceCell::new(),
                bus_conn: OnceCell::new(),
                ttl_ms: AtomicU64::new(30 * 60 * 1000),
                down: Mutex::new(None),
                log,
                log_rx: Mutex::new(Some(log_rx)),
                bus: broadcast::channel(1024).0,
                key: OnceCell::new(),
            }),
        })
    }

    /// The store `MCP_REDIS_URL` names (with `MCP_REDIS_PREFIX` as the prefix when set);
    /// `None` when the variable is unset or empty.
    ///
    /// # Errors
    ///
    /// The URL is not a Redis URL.
    pub fn from_env() -> Option<Result<Self, StoreError>> {
        let url = std::env::var("MCP_REDIS_URL")
            .ok()
            .filter(|u| !u.is_empty())?;
        let mut options = RedisOptions::default();
        if let Ok(prefix) = std::env::var("MCP_REDIS_PREFIX")
            && !prefix.is_empty()
        {
            options.prefix = prefix;
        }
        Some(Self::new(&url, options))
    }
}

impl Inner {
    fn key(&self, session: &str, what: &str) -> String {
        format!("{}:{{{session}}}:{what}", self.options.prefix)
    }

    fn session_keys(&self, session: &str) -> [String; 3] {
        ["rec", "subs", "streams"].map(|what| self.key(session, what))
    }

    fn stream_key(&self, session: &str, stream: u64) -> String {
        self.key(session, &format!("ev:{stream}"))
    }

    fn heartbeat_key(&self, replica: &str) -> String {
        format!("{}:replica:{replica}", self.options.prefix)
    }

    fn ttl_ms(&self) -> u64 {
        self.ttl_ms.load(Ordering::Relaxed)
    }

    fn unavailable(&self, cause: impl std::fmt::Display) -> StoreError {
        StoreError::Unavailable(format!("Redis at {}: {cause}", self.address))
    }

    fn mark_down(&self, cause: &str) {
        let mut down = self.down.lock();
        if down.is_none() {
            tracing::warn!(redis = %self.address, "the session store is unreachable: {cause}");
        }
        *down = Some(cause.to_owned());
    }

    fn mark_up(&self) -> bool {
        let was_down = self.down.lock().take().is_some();
        if was_down {
            tracing::info!(redis = %self.address, "the session store answers again");
        }
        was_down
    }

    /// Runs one operation within the time limit; while Redis is known to be down, fails at
    /// once (a probe clears that).
    async fn run<T>(
        &self,
        op: impl std::future::Future<Output = RedisResult<T>>,
    ) -> Result<T, StoreError> {
        if let Some(cause) = self.down.lock().clone() {
            return Err(self.unavailable(cause));
        }
        self.run_anyway(op).await
    }

    /// Runs one operation within the time limit, even while Redis is known to be down.
    async fn run_anyway<T>(
        &self,
        op: impl std::future::Future<Output = RedisResult<T>>,
    ) -> Result<T, StoreError> {
        let cause = match tokio::time::timeout(self.options.op_timeout, op).await {
            Ok(Ok(value)) => return Ok(value),
            Ok(Err(e)) if !is_connection_error(&e) => return Err(self.unavailable(e)),
            Ok(Err(e)) => e.to_string(),
            Err(_) => format!("no answer within {:?}", self.options.op_timeout),
        };
        self.mark_down(&cause);
        Err(self.unavailable(cause))
    }

    fn conn(&self) -> Result<ConnectionManager, StoreError> {
        self.conn
            .get()
            .cloned()
            .ok_or_else(|| self.unavailable("the store was not started"))
    }

    async fn start(self: &Arc<Self>, idle_timeout: Duration) -> Result<[u8; 32], StoreError> {
        let ttl = u64::try_from(idle_timeout.as_millis())
            .unwrap_or(u64::MAX)
            .max(1);
        self.ttl_ms.store(ttl, Ordering::Relaxed);
        let config = redis::aio::ConnectionManagerConfig::new()
            .set_connection_timeout(Some(self.options.op_timeout))
            .set_response_timeout(Some(self.options.op_timeout))
            .set_number_of_retries(1)
            .set_max_delay(self.options.op_timeout);
        let conn = self
            .run_anyway(ConnectionManager::new_with_config(
                self.client.clone(),
                config.clone(),
            ))
            .await?;
        let _ = self.conn.set(conn);
        let key = self.signing_key().await?;
        let _ = self.key.set(key);
        bus::start(self, config).await?;
        if let Some(rx) = self.log_rx.lock().take() {
            tokio::spawn(log::writer(Arc::downgrade(self), rx));
        }
        tokio::spawn(heartbeat::beat(Arc::downgrade(self)));
        tracing::info!(
            redis = %self.address,
            replica = %self.replica,
            "sessions are shared through Redis"
        );
        Ok(key)
    }

    /// The key every replica signs with: the stored one, else ours stored first.
    async fn signing_key(&self) -> Result<[u8; 32], StoreError> {
        let name = format!("{}:signing-key", self.options.prefix);
        let ours = self
            .key
            .get()
            .copied()
            .unwrap_or_else(crate::signing::random_bytes);
        let mut conn = self.conn()?;
        let stored: String = self
            .run_anyway(async {
                let _: Value = redis::cmd("SET")
                    .arg(&name)
                    .arg(URL_SAFE_NO_PAD.encode(ours))
                    .arg("NX")
                    .query_async(&mut conn)
                    .await?;
                conn.get(&name).await
            })
            .await?;
        let bytes = URL_SAFE_NO_PAD
            .decode(stored.as_bytes())
            .ok()
            .and_then(|b| <[u8; 32]>::try_from(b).ok());
        bytes.ok_or_else(|| self.unavailable(format!("{name} does not hold a key of 32 bytes")))
    }
}

/// True for failures of the connection (as opposed to an error Redis answered with).
fn is_connection_error(e: &redis::RedisError) -> bool {
    e.is_io_error()
        || e.is_connection_dropped()
        || e.is_connection_refusal()
        || e.is_timeout()
        || e.is_unrecoverable_error()
}

impl SessionStore for RedisSessionStore {
    fn is_shared(&self) -> bool {
        true
    }

    fn describe(&self) -> String {
        format!("Redis at {}", self.inner.address)
    }

    fn replica(&self) -> &str {
        &self.inner.replica
    }

    fn start(&self, idle_timeout: Duration) -> BoxFuture<Result<[u8; 32], StoreError>> {
        let inner = self.inner.clone();
        Box::pin(async move { inner.start(idle_timeout).await })
    }

    fn create(&self, session: &str, record: SessionRecord) -> BoxFuture<Result<(), StoreError>> {
        let inner = self.inner.clone();
        let [rec, subs, streams] = inner.session_keys(session);
        Box::pin(async move {
            let mut conn = inner.conn()?;
            let mut pipe = redis::pipe();
            pipe.atomic();
            let mut fields = record::fields_of(&record);
            fields.push(("rev", "1".into()));
            pipe.hset_multiple(&rec, &fields).ignore();
            if !record.subscribed.is_empty() {
                pipe.sadd(&subs, record.subscribed.iter().collect::<Vec<_>>())
                    .ignore();
            }
            let ttl = inner.ttl_ms();
            for key in [&rec, &subs, &streams] {
                pipe.pexpire(key, ttl as i64).ignore();
            }
            inner.run(pipe.query_async::<()>(&mut conn)).await
        })
    }

    fn load(&self, session: &str, known: Option<u64>) -> BoxFuture<Result<Loaded, StoreError>> {
        let inner = self.inner.clone();
        let keys = inner.session_keys(session);
        Box::pin(async move {
            let mut conn = inner.conn()?;
            let script = &*scripts::LOADING;
            let mut call = script.prepare_invoke();
            call.key(&keys[..])
                .arg(inner.ttl_ms())
                .arg(known.map(|r| r.to_string()).unwrap_or_default());
            let value: Value = inner.run(call.invoke_async(&mut conn)).await?;
            Ok(record::loaded(value))
        })
    }

    fn save(&self, session: &str, change: SessionRecord) -> BoxFuture<Result<(), StoreError>> {
        let inner = self.inner.clone();
        let keys = inner.session_keys(session);
        Box::pin(async move {
            let mut conn = inner.conn()?;
            let fields = record::fields_of(&change);
            let script = &*scripts::SAVING;
            let mut call = script.prepare_invoke();
            call.key(&keys[..]).arg(inner.ttl_ms()).arg(fields.len());
            for (name, value) in &fields {
                call.arg(*name).arg(value);
            }
            for uri in &change.subscribed {
                call.arg(format!("+{uri}"));
            }
            for uri in &change.unsubscribed {
                call.arg(format!("-{uri}"));
            }
            let _: i64 = inner.run(call.invoke_async(&mut conn)).await?;
            Ok(())
        })
    }

    fn is_subscribed(&self, session: &str, uri: &str) -> BoxFuture<Result<bool, StoreError>> {
        let inner = self.inner.clone();
        let key = inner.key(session, "subs");
        let uri = uri.to_owned();
        Box::pin(async move {
            let mut conn = inner.conn()?;
            inner.run(conn.sismember(&key, &uri)).await
        })
    }

    fn delete(&self, session: &str) -> BoxFuture<Result<(), StoreError>> {
        let inner = self.inner.clone();
        let keys = inner.session_keys(session);
        let events = inner.key(session, "ev:");
        Box::pin(async move {
            let mut conn = inner.conn()?;
            let script = &*scripts::DELETING;
            let mut call = script.prepare_invoke();
            call.key(&keys[..]).arg(events);
            let _: i64 = inner.run(call.invoke_async(&mut conn)).await?;
            Ok(())
        })
    }

    fn touch(&self, sessions: Vec<Arc<str>>) -> BoxFuture<Result<Vec<bool>, StoreError>> {
        let inner = self.inner.clone();
        Box::pin(async move {
            if sessions.is_empty() {
                return Ok(Vec::new());
            }
            let mut conn = inner.conn()?;
            let ttl = inner.ttl_ms() as i64;
            let mut pipe = redis::pipe();
            for session in &sessions {
                let [rec, subs, streams] = inner.session_keys(session);
                pipe.pexpire(rec, ttl);
                pipe.pexpire(subs, ttl).ignore();
                pipe.pexpire(streams, ttl).ignore();
            }
            inner.run(pipe.query_async::<Vec<bool>>(&mut conn)).await
        })
    }

    fn open_stream(&self, session: &str, stream: u64, request: Option<String>) {
        let meta = log::Meta {
            owner: self.inner.replica.clone(),
            request,
        };
        self.write(session, stream, log::Write::Open(meta));
    }

    fn append(&self, session: &str, stream: u64, seq: u64, message: Bytes) {
        self.write(session, stream, log::Write::Event(seq, message));
    }

    fn finish_stream(&self, session: &str, stream: u64) {
        self.write(session, stream, log::Write::End);
    }

    fn replay(
        &self,
        session: &str,
        stream: u64,
        after: u64,
    ) -> BoxFuture<Result<Option<StoredStream>, StoreError>> {
        let inner = self.inner.clone();
        let session = session.to_owned();
        Box::pin(async move { log::replay(&inner, &session, stream, after).await })
    }

    fn follow(&self, session: &str, stream: u64, after: u64) -> mpsc::Receiver<Followed> {
        log::follow(&self.inner, session, stream, after)
    }

    fn publish(
        &self,
        to: Option<&str>,
        message: BusMessage,
    ) -> BoxFuture<Result<bool, StoreError>> {
        let inner = self.inner.clone();
        let to = to.map(str::to_owned);
        Box::pin(async move { bus::publish(&inner, to.as_deref(), &message).await })
    }

    fn messages(&self) -> broadcast::Receiver<BusMessage> {
        self.inner.bus.subscribe()
    }

    fn tasks(&self) -> Option<Arc<dyn crate::tasks::TaskStore>> {
        Some(Arc::new(tasks::RedisTasks {
            inner: self.inner.clone(),
        }))
    }

    fn health(&self) -> StoreHealth {
        StoreHealth {
            error: self
                .inner
                .down
                .lock()
                .as_ref()
                .map(|cause| format!("Redis at {}: {cause}", self.inner.address)),
        }
    }
}

impl RedisSessionStore {
    fn write(&self, session: &str, stream: u64, write: log::Write) {
        let op = log::Op {
            session: session.to_owned(),
            stream,
            write,
        };
        log::queue(&self.inner, op);
    }
}
