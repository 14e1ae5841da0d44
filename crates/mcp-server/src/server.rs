//! The server value: identity, options, registry; built once, served on any transport.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use mcp_schema::{CacheScope, Implementation, ServerCapabilities};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::json;
use tokio::sync::{broadcast, watch};

use crate::context::RequestContext;
use crate::error::Result;
use crate::middleware::{Metrics, MetricsLayer, Middleware};
use crate::registry::prompt::PromptDef;
use crate::registry::resource::{ResourceDef, ResourceTemplateDef};
use crate::registry::tool::{IntoToolResult, ToolDef};
use crate::registry::{Change, Registry};
use crate::signing::Signer;

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
    /// The protocol versions served (default: every version this crate knows).
    pub protocol_versions: Vec<&'static str>,
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
            protocol_versions: mcp_schema::version::SUPPORTED.to_vec(),
        }
    }
}

/// An MCP server: what it offers and how it answers. Cheap to clone (all clones share the
/// registry); serve it with [`Server::serve_stdio`] or `Server::serve_http` (feature `http`), or
/// both.
#[derive(Clone)]
pub struct Server {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) info: Implementation,
    /// `info` as JSON, stamped on every 2026-07-28 result.
    pub(crate) info_json: serde_json::Value,
    pub(crate) instructions: Option<String>,
    pub(crate) registry: Registry,
    pub(crate) options: ServerOptions,
    pub(crate) signer: Signer,
    pub(crate) middleware: Vec<Arc<dyn Middleware>>,
    pub(crate) metrics: Option<Metrics>,
    changes: broadcast::Sender<Change>,
    /// Grows with every registry change (what caches compare against).
    generation: std::sync::atomic::AtomicU64,
    shutdown: watch::Sender<bool>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("info", &self.inner.info)
            .field("tools", &self.inner.registry.tools.len())
            .finish()
    }
}

/// Builds a [`Server`].
#[must_use]
pub struct ServerBuilder {
    info: Implementation,
    instructions: Option<String>,
    registry: Registry,
    options: ServerOptions,
    key: Option<[u8; 32]>,
    middleware: Vec<Arc<dyn Middleware>>,
    metrics: bool,
}

impl std::fmt::Debug for ServerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerBuilder")
            .field("info", &self.info)
            .finish()
    }
}

impl ServerBuilder {
    /// A display name for the server.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.info.title = Some(title.into());
        self
    }

    /// How to use the server (clients may put it in a system prompt).
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Options.
    pub fn options(mut self, options: ServerOptions) -> Self {
        self.options = options;
        self
    }

    /// The key that signs cursors and `requestState` (default: random per process). Servers
    /// behind a load balancer must share one.
    pub fn signing_key(mut self, key: [u8; 32]) -> Self {
        self.key = Some(key);
        self
    }

    /// Adds a middleware around every request (the first added is the outermost); see
    /// [`middleware`](crate::middleware).
    pub fn middleware(mut self, middleware: impl Middleware) -> Self {
        self.middleware.push(Arc::new(middleware));
        self
    }

    /// Records request metrics ([`Metrics`]: counts, durations, errors, sessions, connections,
    /// queue length), served by the HTTP transport at `GET /metrics` and readable with
    /// [`Server::metrics`].
    pub fn metrics(mut self) -> Self {
        self.metrics = true;
        self
    }

    /// Adds a tool with a typed handler (see [`ToolDef::new`]).
    pub fn tool<A, R, F, Fut>(
        self,
        name: impl Into<String>,
        description: impl Into<String>,
        handler: F,
    ) -> Self
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        R: IntoToolResult,
        F: Fn(A, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R>> + Send + 'static,
    {
        self.tool_def(ToolDef::new(name, description, handler))
    }

    /// Adds a tool.
    pub fn tool_def(self, def: ToolDef) -> Self {
        self.registry.tools.insert(def.tool.name.clone(), def);
        self
    }

    /// Adds a resource.
    pub fn resource(self, def: ResourceDef) -> Self {
        self.registry
            .resources
            .insert(def.resource.uri.clone(), def);
        self
    }

    /// Adds a resource template.
    pub fn resource_template(self, def: ResourceTemplateDef) -> Self {
        self.registry
            .templates
            .insert(def.template.uri_template.clone(), def);
        self
    }

    /// Adds a prompt.
    pub fn prompt(self, def: PromptDef) -> Self {
        self.registry.prompts.insert(def.prompt.name.clone(), def);
        self
    }

    /// The server.
    pub fn build(self) -> Server {
        let metrics = self.metrics.then(Metrics::new);
        let mut middleware = self.middleware;
        if let Some(m) = &metrics {
            middleware.insert(0, Arc::new(MetricsLayer(m.clone())));
        }
        let (changes, _) = broadcast::channel(256);
        let (shutdown, _) = watch::channel(false);
        Server {
            inner: Arc::new(Inner {
                info_json: serde_json::to_value(&self.info).unwrap_or_default(),
                info: self.info,
                instructions: self.instructions,
                registry: self.registry,
                options: self.options,
                signer: self.key.map_or_else(Signer::random, Signer::with_key),
                middleware,
                metrics,
                changes,
                generation: std::sync::atomic::AtomicU64::new(0),
                shutdown,
            }),
        }
    }
}

impl Server {
    /// Starts building a server called `name` at `version`.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder {
            info: Implementation::new(name, version),
            instructions: None,
            registry: Registry::default(),
            options: ServerOptions::default(),
            key: None,
            middleware: Vec::new(),
            metrics: false,
        }
    }

    /// The server's name and version.
    pub fn info(&self) -> &Implementation {
        &self.inner.info
    }

    /// The metrics, when switched on with [`ServerBuilder::metrics`].
    pub fn metrics(&self) -> Option<&Metrics> {
        self.inner.metrics.as_ref()
    }

    /// The options.
    pub fn options(&self) -> &ServerOptions {
        &self.inner.options
    }

    /// What the server announces: tools, resources (with subscriptions), prompts (all with
    /// `listChanged`, since everything can change at run time), completions and logging.
    pub fn capabilities(&self) -> ServerCapabilities {
        serde_json::from_value(json!({
            "tools": { "listChanged": true },
            "resources": { "subscribe": true, "listChanged": true },
            "prompts": { "listChanged": true },
            "completions": {},
            "logging": {},
        }))
        .expect("static capabilities parse")
    }

    pub(crate) fn subscribe_changes(&self) -> broadcast::Receiver<Change> {
        self.inner.changes.subscribe()
    }

    fn announce(&self, change: Change) {
        // No receivers is fine: nobody is connected.
        self.inner
            .generation
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        let _ = self.inner.changes.send(change);
    }

    /// A number that changes whenever the registry does.
    pub(crate) fn generation(&self) -> u64 {
        self.inner
            .generation
            .load(std::sync::atomic::Ordering::Acquire)
    }

    /// Adds (or replaces) a tool and tells connected clients.
    pub fn add_tool(&self, def: ToolDef) {
        self.inner.registry.tools.insert(def.tool.name.clone(), def);
        self.announce(Change::Tools);
    }

    /// Removes a tool; true when it existed (clients are told).
    pub fn remove_tool(&self, name: &str) -> bool {
        let removed = self
            .inner
            .registry
            .tools
            .remove(name, |t| t.tool.name.as_str());
        if removed {
            self.announce(Change::Tools);
        }
        removed
    }

    /// Adds (or replaces) a resource and tells connected clients.
    pub fn add_resource(&self, def: ResourceDef) {
        self.inner
            .registry
            .resources
            .insert(def.resource.uri.clone(), def);
        self.announce(Change::Resources);
    }

    /// Removes a resource; true when it existed.
    pub fn remove_resource(&self, uri: &str) -> bool {
        let removed = self
            .inner
            .registry
            .resources
            .remove(uri, |r| r.resource.uri.as_str());
        if removed {
            self.announce(Change::Resources);
        }
        removed
    }

    /// Adds (or replaces) a resource template and tells connected clients.
    pub fn add_resource_template(&self, def: ResourceTemplateDef) {
        self.inner
            .registry
            .templates
            .insert(def.template.uri_template.clone(), def);
        self.announce(Change::Resources);
    }

    /// Removes a resource template; true when it existed.
    pub fn remove_resource_template(&self, uri_template: &str) -> bool {
        let removed = self
            .inner
            .registry
            .templates
            .remove(uri_template, |t| t.template.uri_template.as_str());
        if removed {
            self.announce(Change::Resources);
        }
        removed
    }

    /// Adds (or replaces) a prompt and tells connected clients.
    pub fn add_prompt(&self, def: PromptDef) {
        self.inner
            .registry
            .prompts
            .insert(def.prompt.name.clone(), def);
        self.announce(Change::Prompts);
    }

    /// Removes a prompt; true when it existed.
    pub fn remove_prompt(&self, name: &str) -> bool {
        let removed = self
            .inner
            .registry
            .prompts
            .remove(name, |p| p.prompt.name.as_str());
        if removed {
            self.announce(Change::Prompts);
        }
        removed
    }

    /// Tells clients subscribed to `uri` that it changed (`notifications/resources/updated`).
    pub fn notify_resource_updated(&self, uri: impl Into<String>) {
        self.announce(Change::ResourceUpdated(uri.into()));
    }

    /// The names of the registered tools, in registration order.
    pub fn tool_names(&self) -> Vec<String> {
        self.inner
            .registry
            .tools
            .snapshot()
            .items
            .iter()
            .map(|t| t.tool.name.clone())
            .collect()
    }

    /// Asks every transport serving this server to stop: open subscriptions end with their
    /// final result, listeners stop accepting, and `serve_*` return once in-flight requests
    /// finished.
    pub fn shutdown(&self) {
        // `send_replace`: the flag must stick even when nobody is waiting yet (`send` would
        // drop it without receivers).
        self.inner.shutdown.send_replace(true);
    }

    /// Completes when [`Server::shutdown`] was called.
    pub async fn shutting_down(&self) {
        let mut rx = self.inner.shutdown.subscribe();
        let _ = rx.wait_for(|s| *s).await;
    }
}
