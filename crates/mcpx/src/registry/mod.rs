//! The upstream registry: one supervised connection per configured server, its cached
//! catalog, and a generation counter that moves whenever a status or a catalog changes.

mod catalog;
mod forward;
mod upstream;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use mcp_kit::{
    Config, Manager, ServerNotificationContext, ServerRequestContext, ServerRequestHandler,
    TrustMode, UntrustedStreamableHttpPolicy,
};
use mcp_schema::{McpNotification, ToolListChangedNotification};
use serde_json::json;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub use catalog::{CachedTool, Catalog, ServerSummary};
pub use forward::Ask;
pub use upstream::{CallGuard, RETRY_MAX, RETRY_MIN, Snapshot, Status, Upstream};

use crate::options::ProxyOptions;

/// The upstream servers, kept connected and their tools cached.
pub struct Registry {
    upstreams: Arc<BTreeMap<String, Arc<Upstream>>>,
    generation: watch::Sender<u64>,
    shutdown: CancellationToken,
    tasks: TaskTracker,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("upstreams", &self.upstreams.values().collect::<Vec<_>>())
            .finish()
    }
}

impl Registry {
    /// Starts connecting to every server of `config` at once, each on its own (one that
    /// fails or hangs never delays the others). `root` resolves relative paths; `trust`
    /// and `http_policy` decide what may be
    /// reached (`mcp-kit`'s policy). Must be called within a Tokio runtime.
    pub fn start(
        config: Config,
        root: PathBuf,
        options: &ProxyOptions,
        trust: TrustMode,
        http_policy: UntrustedStreamableHttpPolicy,
    ) -> Self {
        let upstreams: Arc<BTreeMap<String, Arc<Upstream>>> = Arc::new(
            config
                .servers
                .keys()
                .map(|name| {
                    let upstream = Upstream::new(name.clone(), options.upstream(name).clone());
                    (name.clone(), Arc::new(upstream))
                })
                .collect(),
        );
        // One manager per upstream: its own timeout and protocol version, the shared
        // configuration, policy and handlers.
        let request = request_handler(upstreams.clone());
        let notification = notification_handler(upstreams.clone());
        let manager_of = |upstream: &Upstream| {
            let options = upstream.options();
            Arc::new(
                Manager::new(config.clone(), root.clone())
                    .with_client_info("mcpx", env!("CARGO_PKG_VERSION"))
                    .with_trust_mode(trust)
                    .with_untrusted_streamable_http_policy(http_policy.clone())
                    .with_timeout(options.connect_timeout.max(options.call_timeout))
                    .with_protocol_version(options.protocol_version.clone())
                    // Put to the downstream client when an upstream asks during a call. Not
                    // `roots`: upstreams ask for them at any time, not only during a call.
                    .with_capabilities(json!({ "elicitation": {}, "sampling": {} }))
                    .with_server_request_handler(request.clone())
                    .with_server_notification_handler(notification.clone()),
            )
        };
        let (generation, _) = watch::channel(0);
        let registry = Self {
            upstreams,
            generation,
            shutdown: CancellationToken::new(),
            tasks: TaskTracker::new(),
        };
        for upstream in registry.upstreams.values() {
            let generation = registry.generation.clone();
            registry.tasks.spawn(upstream.clone().supervise(
                manager_of(upstream),
                registry.shutdown.clone(),
                move || generation.send_modify(|g| *g += 1),
            ));
        }
        registry.tasks.close();
        registry
    }

    /// Waits until no upstream is in its first connection attempt any more (each attempt is
    /// bounded by its `connect_timeout`).
    pub async fn settled(&self) {
        let mut changes = self.generation.subscribe();
        while self
            .upstreams
            .values()
            .any(|u| u.snapshot().status == Status::Connecting)
        {
            if changes.changed().await.is_err() {
                return;
            }
        }
    }

    /// Every upstream, by name.
    pub fn upstreams(&self) -> impl Iterator<Item = &Arc<Upstream>> {
        self.upstreams.values()
    }

    /// The upstream `name`.
    pub fn upstream(&self, name: &str) -> Option<&Arc<Upstream>> {
        self.upstreams.get(name)
    }

    /// The configured names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.upstreams.keys().map(String::as_str)
    }

    /// A receiver that sees the generation move on every change of a status or catalog.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.generation.subscribe()
    }

    /// Stops every supervisor and closes every upstream connection.
    pub async fn shutdown(&self) {
        self.shutdown.cancel();
        self.tasks.wait().await;
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

/// Upstream requests to the client go to the downstream client of the call in flight.
fn request_handler(upstreams: Arc<BTreeMap<String, Arc<Upstream>>>) -> ServerRequestHandler {
    Arc::new(move |request: ServerRequestContext| {
        let caller = upstreams
            .get(&request.server_name)
            .and_then(|u| u.current_caller());
        Box::pin(forward::to_downstream(caller, request))
    })
}

fn notification_handler(
    upstreams: Arc<BTreeMap<String, Arc<Upstream>>>,
) -> mcp_kit::ServerNotificationHandler {
    Arc::new(move |note: ServerNotificationContext| {
        if note.method == ToolListChangedNotification::METHOD
            && let Some(upstream) = upstreams.get(&note.server_name)
        {
            upstream.request_refresh();
        }
        Box::pin(async {})
    })
}
