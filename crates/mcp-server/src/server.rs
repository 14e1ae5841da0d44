//! The server value: identity, options, registry; built once, served on any transport.

use std::future::Future;
use std::sync::Arc;

use mcp_schema::ext;
use mcp_schema::{
    Implementation, ListChangedCapability, ProtocolVersion, ResourcesCapability, ServerCapabilities,
};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use tokio_util::sync::CancellationToken;

use crate::context::RequestContext;
use crate::error::Result;
use crate::metrics::Metrics;
use crate::middleware::{MetricsLayer, Middleware};
use crate::registry::prompt::PromptDef;
use crate::registry::resource::{ResourceDef, ResourceTemplateDef};
use crate::registry::skill::{SkillDef, SkillError};
use crate::registry::tool::{IntoToolResult, ToolDef};
use crate::registry::{Change, Registry};
use crate::session::Session;
use crate::shared::{ServerOptions, Shared};
use crate::signing::Signer;
use crate::tasks::Tasks;

/// An MCP server: what it offers and how it answers. Cheap to clone (all clones share the
/// registry); serve it with [`Server::serve_stdio`] or `Server::serve_http` (feature `http`), or
/// both.
#[derive(Clone)]
pub struct Server {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) shared: Arc<Shared>,
    pub(crate) registry: Registry,
    pub(crate) middleware: Vec<Arc<dyn Middleware>>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("info", &self.inner.shared.info)
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

    /// Serves the skills extension (SEP-2640), with the skills added so far (none is fine: more
    /// can come at run time with [`Server::add_skill`]).
    pub fn skills(self) -> Self {
        self.registry.skills.enable();
        self
    }

    /// Adds a skill (and serves the skills extension).
    pub fn skill(self, def: SkillDef) -> Self {
        self.registry.add_skills(vec![def]);
        self
    }

    /// Adds every skill below directory `dir` (see [`SkillDef::load_tree`]) and serves the
    /// skills extension, even when `dir` holds none yet.
    pub fn skills_dir(self, dir: impl AsRef<std::path::Path>) -> Result<Self, SkillError> {
        let skills = SkillDef::load_tree(dir)?;
        let builder = self.skills();
        builder.registry.add_skills(skills);
        Ok(builder)
    }

    /// The server.
    pub fn build(self) -> Server {
        let metrics = self.metrics.then(Metrics::new);
        let mut middleware = self.middleware;
        let shutdown = CancellationToken::new();
        if let Some(m) = &metrics {
            middleware.insert(0, Arc::new(MetricsLayer(m.clone())));
        }
        Server {
            inner: Arc::new(Inner {
                shared: Arc::new(Shared {
                    info_json: serde_json::to_value(&self.info).unwrap_or_default(),
                    info: self.info,
                    instructions: self.instructions,
                    options: self.options,
                    key_configured: self.key.is_some(),
                    own_signer: self.key.map_or_else(Signer::random, Signer::with_key),
                    shared_signer: std::sync::OnceLock::new(),
                    replicas: std::sync::OnceLock::new(),
                    metrics,
                    tasks: Tasks::new(shutdown.clone()),
                    shutdown,
                }),
                registry: self.registry,
                middleware,
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
        &self.inner.shared.info
    }

    /// The metrics, when switched on with [`ServerBuilder::metrics`].
    pub fn metrics(&self) -> Option<&Metrics> {
        self.inner.shared.metrics.as_ref()
    }

    /// The options.
    pub fn options(&self) -> &ServerOptions {
        &self.inner.shared.options
    }

    /// What the server announces to a client of `version`: [`Server::capabilities`], and the
    /// extensions it serves in that version (see [`Server::serves_extension`]).
    pub fn capabilities_for(&self, version: ProtocolVersion) -> ServerCapabilities {
        let mut capabilities = self.capabilities();
        let skills = ext::skills::SkillsSettings {
            directory_read: Some(true),
            ..Default::default()
        };
        for (id, settings) in [
            (ext::TASKS, Default::default()),
            (ext::SKILLS, skills.to_object()),
        ] {
            let exists = ext::since(id).is_some_and(|since| version >= since);
            if exists && self.serves_extension(id) {
                capabilities = capabilities.with_extension(id, settings);
            }
        }
        capabilities
    }

    /// Whether the server serves extension `id` now: the tasks extension
    /// ([`mcp_schema::ext::TASKS`]) once a tool may run as a task; the skills extension
    /// ([`mcp_schema::ext::SKILLS`], every era, with `directoryRead`) once a skill was added
    /// or [`ServerBuilder::skills`] asked for it.
    pub fn serves_extension(&self, id: &str) -> bool {
        match id {
            ext::TASKS => self
                .inner
                .registry
                .tools
                .snapshot()
                .items
                .iter()
                .any(|t| t.runs_as_task()),
            ext::SKILLS => self.inner.registry.skills.enabled(),
            _ => false,
        }
    }

    /// What the server announces: tools, resources (with subscriptions), prompts (all with
    /// `listChanged`, since everything can change at run time), completions and logging. The
    /// extensions depend on the client's version: [`Server::capabilities_for`].
    pub fn capabilities(&self) -> ServerCapabilities {
        let list_changed = || ListChangedCapability {
            list_changed: Some(true),
            ..Default::default()
        };
        ServerCapabilities {
            tools: Some(list_changed()),
            resources: Some(ResourcesCapability {
                subscribe: Some(true),
                list_changed: Some(true),
                ..Default::default()
            }),
            prompts: Some(list_changed()),
            completions: Some(Default::default()),
            logging: Some(Default::default()),
            ..Default::default()
        }
    }

    fn announce(&self, change: Change) {
        if let Some(replicas) = self.inner.shared.replicas.get() {
            replicas.publish_change(&change);
        }
        self.inner.registry.announce(change);
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

    /// Adds (or replaces) a skill, serves the skills extension, and tells connected clients
    /// (the resource list changed).
    pub fn add_skill(&self, def: SkillDef) {
        self.inner.registry.add_skills(vec![def]);
        self.announce(Change::Resources);
    }

    /// Adds every skill below `dir` (see [`SkillDef::load_tree`]); returns how many. Nothing is
    /// added when one of them cannot be loaded.
    pub fn add_skills_dir(&self, dir: impl AsRef<std::path::Path>) -> Result<usize, SkillError> {
        let skills = SkillDef::load_tree(dir)?;
        let count = skills.len();
        self.inner.registry.add_skills(skills);
        self.announce(Change::Resources);
        Ok(count)
    }

    /// Removes the skill whose `SKILL.md` is `uri`; true when it existed (clients are told).
    pub fn remove_skill(&self, uri: &str) -> bool {
        let removed = self.inner.registry.remove_skill(uri);
        if removed {
            self.announce(Change::Resources);
        }
        removed
    }

    /// The skills served, as `skills/list` describes them (sorted by URI).
    pub fn skills(&self) -> Vec<mcp_schema::ext::skills::SkillEntry> {
        let index = self.inner.registry.skills.snapshot();
        index.skills.iter().map(|s| s.entry()).collect()
    }

    /// Tells clients subscribed to `uri` that it changed (`notifications/resources/updated`).
    pub fn notify_resource_updated(&self, uri: impl Into<String>) {
        self.announce(Change::ResourceUpdated(uri.into()));
    }

    /// The registered tools as `tools/list` describes them, in registration order.
    pub fn tools(&self) -> Vec<mcp_schema::Tool> {
        self.inner
            .registry
            .tools
            .snapshot()
            .items
            .iter()
            .map(|t| t.tool.clone())
            .collect()
    }

    /// The names of the registered tools, in registration order.
    pub fn tool_names(&self) -> Vec<String> {
        self.tools().into_iter().map(|t| t.name).collect()
    }

    /// Asks every transport serving this server to stop: open subscriptions end with their
    /// final result, listeners stop accepting, and `serve_*` return once in-flight requests
    /// finished.
    pub fn shutdown(&self) {
        self.inner.shared.shutdown.cancel();
    }

    /// Completes when [`Server::shutdown`] was called.
    pub async fn shutting_down(&self) {
        self.inner.shared.shutdown.cancelled().await;
    }

    /// A session of this server for one client (`id`: its HTTP session id, if any).
    pub(crate) fn new_session(&self, id: Option<Arc<str>>) -> Arc<Session> {
        Session::create(self.inner.shared.clone(), Box::new(self.clone()), id, false)
    }

    /// A session for one 2026-07-28 request (over HTTP, where there is no connection).
    pub(crate) fn new_stateless_session(&self) -> Arc<Session> {
        Session::create(
            self.inner.shared.clone(),
            Box::new(self.clone()),
            None,
            true,
        )
    }
}

impl Session {
    /// The server this session belongs to.
    pub(crate) fn server(&self) -> &Server {
        self.server
            .downcast_ref()
            .expect("a session always holds the Server that created it")
    }
}

impl RequestContext {
    /// The server handling the request (to register tools or announce resource updates).
    pub fn server(&self) -> &Server {
        self.inner.session.server()
    }
}
