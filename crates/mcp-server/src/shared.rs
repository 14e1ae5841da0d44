//! What every session of a server shares and nothing in it refers back to: the server's
//! identity, options, signing key, metrics and shutdown signal.
//!
//! The [`Server`](crate::Server) owns this next to its registry and middleware; sessions and
//! request contexts hold it directly, so the lower layers reach the options without knowing
//! the server.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use mcp_schema::{CacheScope, Implementation};
use tokio_util::sync::CancellationToken;

use crate::metrics::Metrics;
use crate::signing::Signer;
use crate::tasks::Tasks;

/// Tunables of a server. Start from [`ServerOptions::default`] and change what you need.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServerOptions {
    /// Entries per page of `tools/list`, `resources/list`, … (default 100).
    pub page_size: usize,
    /// How long a request to the client (elicitation, sampling, roots) may wait for its
    /// answer in the stateful era (default 10 minutes: a person may be answering).
    pub client_request_timeout: Duration,
    /// 2026-07-28 `ttlMs` of cacheable results (default 0: clients re-fetch; servers whose
    /// lists rarely change can raise it).
    pub cache_ttl: Duration,
    /// 2026-07-28 `cacheScope` of cacheable results (default `public`; use `private` when
    /// results depend on who asks).
    pub cache_scope: CacheScope,
    /// How long a 2026-07-28 `requestState` stays valid (default 10 minutes).
    pub request_state_ttl: Duration,
    /// Largest message accepted, in bytes (default 16 MiB): longer stdio lines and HTTP
    /// bodies are refused with an error and the connection goes on.
    pub max_message_bytes: usize,
    /// Requests (and batches) of one stdio or WebSocket connection that run at once (default
    /// 1,024); one more is answered `-32012` at once and the connection goes on.
    pub max_in_flight: usize,
    /// The most messages one JSON-RPC batch (2025-03-26) may hold (default 100); a longer
    /// batch is answered with one `-32600` error naming the limit.
    pub max_batch_len: usize,
    /// Requests of one batch that run at once (default 16); the others wait for a turn.
    pub batch_concurrency: usize,
    /// The largest answer to one batch, in bytes (default 16 MiB): answers beyond it are
    /// replaced by `-32603` errors naming the limit.
    pub max_batch_response_bytes: usize,
    /// The protocol versions served (default: every version this crate knows).
    pub protocol_versions: Vec<&'static str>,
    /// How long a task is kept after it was created (`ttlMs`; default 1 hour). A task still
    /// running then is cancelled and ends `failed`. `None`: kept until the server stops.
    pub task_ttl: Option<Duration>,
    /// How often clients are advised to poll a task (`pollIntervalMs`; default 2 s). A store
    /// shared by replicas may raise it to the time it takes to notice a stopped replica.
    pub task_poll_interval: Duration,
    /// The most tasks this process runs at once (default 256). Beyond it, tools that may run
    /// as tasks answer inline, and tools that must are refused with `-32012`.
    pub max_tasks: usize,
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            page_size: 100,
            client_request_timeout: Duration::from_secs(600),
            cache_ttl: Duration::ZERO,
            cache_scope: CacheScope::Public,
            request_state_ttl: Duration::from_secs(600),
            max_message_bytes: 16 * 1024 * 1024,
            max_in_flight: 1024,
            max_batch_len: 100,
            batch_concurrency: 16,
            max_batch_response_bytes: 16 * 1024 * 1024,
            protocol_versions: mcp_schema::version::SUPPORTED.to_vec(),
            task_ttl: Some(Duration::from_secs(3600)),
            task_poll_interval: Duration::from_secs(2),
            max_tasks: 256,
        }
    }
}

/// A change clients may be told about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Change {
    Tools,
    Prompts,
    Resources,
    ResourceUpdated(String),
}

/// The other replicas serving the same stateful sessions (a shared session store, set by the
/// HTTP transport when it binds with one): what the layers below the transport ask of them.
pub(crate) trait Replicas: Send + Sync {
    /// This replica's id: it prefixes the ids of requests sent to clients, so that an answer
    /// arriving at another replica finds its way back.
    fn replica(&self) -> &str;
    /// Tells the other replicas' clients about a change made here.
    fn publish_change(&self, change: &Change);
    /// Whether session `session` subscribed to `uri` (on any replica).
    fn is_subscribed(
        &self,
        session: &str,
        uri: &str,
    ) -> Pin<Box<dyn Future<Output = bool> + Send + 'static>>;
}

/// The part of a server every session holds.
pub(crate) struct Shared {
    pub(crate) info: Implementation,
    /// `info` as JSON, stamped on every 2026-07-28 result.
    pub(crate) info_json: serde_json::Value,
    pub(crate) instructions: Option<String>,
    pub(crate) options: ServerOptions,
    /// The key of this process (random unless the builder was given one).
    pub(crate) own_signer: Signer,
    /// Whether `own_signer` was configured (then a shared store's key does not replace it).
    pub(crate) key_configured: bool,
    /// The key every replica uses, when a shared session store provides one.
    pub(crate) shared_signer: OnceLock<Signer>,
    /// The other replicas, when a shared session store is bound.
    pub(crate) replicas: OnceLock<Arc<dyn Replicas>>,
    pub(crate) metrics: Option<Metrics>,
    /// Cancelled by `Server::shutdown`.
    pub(crate) shutdown: CancellationToken,
    /// The tasks (the tasks extension): where they are kept, and the ones this process runs.
    pub(crate) tasks: Arc<Tasks>,
}

impl Shared {
    /// The key that signs cursors and request state: the one every replica shares, else this
    /// process's.
    pub(crate) fn signer(&self) -> &Signer {
        match self.shared_signer.get() {
            Some(shared) if !self.key_configured => shared,
            _ => &self.own_signer,
        }
    }

    /// Whether the server serves at least one version of the stateful era.
    pub(crate) fn serves_stateful(&self) -> bool {
        self.options
            .protocol_versions
            .iter()
            .any(|v| mcp_schema::Era::of(v) == Some(mcp_schema::Era::Stateful))
    }
}
