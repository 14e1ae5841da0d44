//! [`Manager`]: connections to the servers of a configuration, made on demand and cached.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use mcp_schema::{
    CallToolResult, GetPromptResult, Implementation, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, McpNotification, McpRequest,
    ReadResourceResult, Tool,
};
use serde_json::{Map, Value};
use tokio::io::{AsyncRead, AsyncWrite};

use crate::config::Root;
use crate::connect::{self, ConnectPolicy};
use crate::handlers::{Handlers, ServerNotificationHandler, ServerRequestHandler};
use crate::session::{Session, SessionSettings};
use crate::{Config, Error, TrustMode, UntrustedStreamableHttpPolicy};

/// The default per-request timeout (30 s).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// Connections to the servers of a configuration: connected (and initialized) on first use,
/// cached by server name, removed when they die.
///
/// Safe by default: [`TrustMode::Untrusted`] refuses stdio and unix servers and checks remote
/// ones against an [`UntrustedStreamableHttpPolicy`]; see [`with_trust_mode`](Self::with_trust_mode).
pub struct Manager {
    client_info: Implementation,
    timeout: Duration,
    protocol_version: Option<String>,
    capabilities: Map<String, Value>,
    roots: Option<Arc<Vec<Root>>>,
    trust_mode: TrustMode,
    untrusted_http: UntrustedStreamableHttpPolicy,
    allow_stdout_log_outside_root: bool,
    request_handler: Option<ServerRequestHandler>,
    notification_handler: Option<ServerNotificationHandler>,
    sessions: HashMap<String, Session>,
}

impl std::fmt::Debug for Manager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Manager")
            .field("client_info", &self.client_info)
            .field("timeout", &self.timeout)
            .field("trust_mode", &self.trust_mode)
            .field("connected", &self.sessions.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl Manager {
    /// A manager announcing itself as `client_name`/`client_version`, with a per-request
    /// timeout; Untrusted, automatic protocol negotiation, no roots.
    pub fn new(
        client_name: impl Into<String>,
        client_version: impl Into<String>,
        timeout: Duration,
    ) -> Self {
        Self {
            client_info: Implementation::new(client_name, client_version),
            timeout,
            protocol_version: None,
            capabilities: Map::new(),
            roots: None,
            trust_mode: TrustMode::Untrusted,
            untrusted_http: UntrustedStreamableHttpPolicy::default(),
            allow_stdout_log_outside_root: false,
            request_handler: None,
            notification_handler: None,
            sessions: HashMap::new(),
        }
    }

    /// [`new`](Self::new), then the configuration's `client` section: a pinned
    /// `protocol_version`, `capabilities`, and `roots` (which enable the built-in `roots/list`).
    pub fn from_config(
        config: &Config,
        client_name: impl Into<String>,
        client_version: impl Into<String>,
        timeout: Duration,
    ) -> Self {
        let mut manager = Self::new(client_name, client_version, timeout);
        manager.protocol_version = config.client.protocol_version.clone();
        if let Some(capabilities) = &config.client.capabilities {
            manager.capabilities = capabilities.clone();
        }
        if let Some(roots) = &config.client.roots {
            manager.roots = Some(Arc::new(roots.clone()));
        }
        manager
    }

    // ----- builders ---------------------------------------------------------------------------

    /// The per-request timeout (default 30 s). Sessions already open keep theirs.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Pins the protocol version (`None`: automatic — `server/discover`, then `initialize`).
    pub fn with_protocol_version(mut self, version: Option<String>) -> Self {
        self.protocol_version = version;
        self
    }

    /// The client capabilities announced to servers (a JSON object; other values are
    /// ignored). `roots` is added automatically when roots are set.
    pub fn with_capabilities(mut self, capabilities: Value) -> Self {
        if let Value::Object(capabilities) = capabilities {
            self.capabilities = capabilities;
        }
        self
    }

    /// Roots: declares `capabilities.roots` and answers `roots/list` with them.
    pub fn with_roots(mut self, roots: Vec<Root>) -> Self {
        self.roots = Some(Arc::new(roots));
        self
    }

    /// How far the configuration is trusted (default [`TrustMode::Untrusted`]).
    pub fn with_trust_mode(mut self, trust_mode: TrustMode) -> Self {
        self.trust_mode = trust_mode;
        self
    }

    /// The rules for remote servers in Untrusted mode.
    pub fn with_untrusted_streamable_http_policy(
        mut self,
        policy: UntrustedStreamableHttpPolicy,
    ) -> Self {
        self.untrusted_http = policy;
        self
    }

    /// Allows `stdout_log.path` outside the root (default `false`).
    pub fn with_allow_stdout_log_outside_root(mut self, allow: bool) -> Self {
        self.allow_stdout_log_outside_root = allow;
        self
    }

    /// Handles requests from servers (after the built-in `roots/list` and `ping`); also
    /// answers the input requests of 2026-07-28 `InputRequiredResult`s.
    pub fn with_server_request_handler(mut self, handler: ServerRequestHandler) -> Self {
        self.request_handler = Some(handler);
        self
    }

    /// Receives notifications from servers.
    pub fn with_server_notification_handler(mut self, handler: ServerNotificationHandler) -> Self {
        self.notification_handler = Some(handler);
        self
    }

    /// The trust mode.
    pub fn trust_mode(&self) -> TrustMode {
        self.trust_mode
    }

    /// The per-request timeout.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    fn settings(&self) -> SessionSettings {
        SessionSettings {
            client_info: self.client_info.clone(),
            protocol_version: self.protocol_version.clone(),
            capabilities: self.capabilities.clone(),
            timeout: self.timeout,
            handlers: Handlers {
                roots: self.roots.clone(),
                request: self.request_handler.clone(),
                notification: self.notification_handler.clone(),
            },
        }
    }

    fn connect_policy(&self) -> ConnectPolicy {
        ConnectPolicy {
            trust_mode: self.trust_mode,
            untrusted_http: self.untrusted_http.clone(),
            allow_stdout_log_outside_root: self.allow_stdout_log_outside_root,
            timeout: self.timeout,
        }
    }

    // ----- connecting -------------------------------------------------------------------------

    /// Connects to `server` as configured (replacing an existing connection) and performs the
    /// handshake. `cwd` is the root: the working directory of a stdio server and the base of
    /// relative paths.
    pub async fn connect(
        &mut self,
        config: &Config,
        server: &str,
        cwd: &Path,
    ) -> Result<(), Error> {
        let session = self.connect_session(config, server, cwd).await?;
        self.sessions.insert(server.to_owned(), session);
        Ok(())
    }

    /// The session of `server`, connecting first if needed (or if the connection died).
    pub async fn get_or_connect(
        &mut self,
        config: &Config,
        server: &str,
        cwd: &Path,
    ) -> Result<&Session, Error> {
        if !self.is_connected(server) {
            self.connect(config, server, cwd).await?;
        }
        self.sessions
            .get(server)
            .ok_or_else(|| Error::NotConnected(server.to_owned()))
    }

    /// Connects to `server` without caching the session: the caller owns it.
    pub async fn connect_session(
        &self,
        config: &Config,
        server: &str,
        cwd: &Path,
    ) -> Result<Session, Error> {
        let opened = connect::open(&self.connect_policy(), config, server, cwd).await?;
        Session::establish(server, opened.client, opened.http, &self.settings()).await
    }

    /// The cached session of `server` (connecting if needed), taken out of the cache: the
    /// caller owns it from now on.
    pub async fn get_or_connect_session(
        &mut self,
        config: &Config,
        server: &str,
        cwd: &Path,
    ) -> Result<Session, Error> {
        match self.take_session(server) {
            Some(session) if session.is_connected() => Ok(session),
            _ => self.connect_session(config, server, cwd).await,
        }
    }

    /// The cached session of `server`, if connected (no connection is made).
    pub fn session(&self, server: &str) -> Option<&Session> {
        self.sessions.get(server).filter(|s| s.is_connected())
    }

    /// Removes `server`'s session from the cache and hands it over.
    pub fn take_session(&mut self, server: &str) -> Option<Session> {
        self.sessions.remove(server)
    }

    /// Installs a connection over any reader/writer pair under the name `server` (no trust
    /// policy applies: the caller made the connection).
    pub async fn connect_io<R, W>(&mut self, server: &str, read: R, write: W) -> Result<(), Error>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let session = self.connect_io_session(server, read, write).await?;
        self.sessions.insert(server.to_owned(), session);
        Ok(())
    }

    /// [`connect_io`](Self::connect_io), returning the session instead of caching it.
    pub async fn connect_io_session<R, W>(
        &self,
        server: &str,
        read: R,
        write: W,
    ) -> Result<Session, Error>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let client = mcp_jsonrpc::Peer::connect_io(read, write)
            .await
            .map_err(|source| Error::Connection {
                server: server.to_owned(),
                source,
            })?;
        self.connect_jsonrpc_session(server, client).await
    }

    /// Installs a JSON-RPC connection built by the caller (with its own limits or HTTP
    /// options). No trust policy applies: only use it for connections you trust.
    pub async fn connect_jsonrpc(
        &mut self,
        server: &str,
        client: mcp_jsonrpc::Peer,
    ) -> Result<(), Error> {
        let session = self.connect_jsonrpc_session(server, client).await?;
        self.sessions.insert(server.to_owned(), session);
        Ok(())
    }

    /// [`connect_jsonrpc`](Self::connect_jsonrpc), returning the session.
    pub async fn connect_jsonrpc_session(
        &self,
        server: &str,
        client: mcp_jsonrpc::Peer,
    ) -> Result<Session, Error> {
        let http = client.handle().is_streamable_http();
        Session::establish(server, client, http, &self.settings()).await
    }

    /// The server's `InitializeResult` (or `DiscoverResult`), once connected.
    pub fn initialize_result(&self, server: &str) -> Option<&Value> {
        self.sessions.get(server).map(Session::initialize_result)
    }

    /// True when `server` has a live connection; a dead one is removed.
    pub fn is_connected(&mut self, server: &str) -> bool {
        match self.sessions.get(server) {
            Some(session) if session.is_connected() => true,
            Some(_) => {
                self.sessions.remove(server);
                false
            }
            None => false,
        }
    }

    /// The names of the servers with a live connection (dead ones are removed), sorted.
    pub fn connected_server_names(&mut self) -> Vec<String> {
        self.sessions.retain(|_, session| session.is_connected());
        let mut names: Vec<String> = self.sessions.keys().cloned().collect();
        names.sort();
        names
    }

    // ----- requests ---------------------------------------------------------------------------

    /// Sends a request to `server` (connecting and initializing first if needed).
    pub async fn request(
        &mut self,
        config: &Config,
        server: &str,
        method: &str,
        params: Option<Value>,
        cwd: &Path,
    ) -> Result<Value, Error> {
        self.get_or_connect(config, server, cwd).await?;
        self.request_connected(server, method, params).await
    }

    /// Sends a typed request (see [`McpRequest`] and [`crate::mcp`]).
    pub async fn request_typed<R: McpRequest>(
        &mut self,
        config: &Config,
        server: &str,
        params: Option<R::Params>,
        cwd: &Path,
    ) -> Result<R::Result, Error> {
        self.get_or_connect(config, server, cwd).await?;
        self.request_typed_connected::<R>(server, params).await
    }

    /// Sends a notification to `server` (connecting first if needed).
    pub async fn notify(
        &mut self,
        config: &Config,
        server: &str,
        method: &str,
        params: Option<Value>,
        cwd: &Path,
    ) -> Result<(), Error> {
        self.get_or_connect(config, server, cwd).await?;
        self.notify_connected(server, method, params).await
    }

    /// Sends a typed notification.
    pub async fn notify_typed<N: McpNotification>(
        &mut self,
        config: &Config,
        server: &str,
        params: Option<N::Params>,
        cwd: &Path,
    ) -> Result<(), Error> {
        self.get_or_connect(config, server, cwd).await?;
        let session = self.live(server)?;
        let outcome = session.notify_typed::<N>(params).await;
        self.forget_if_dead(server, outcome)
    }

    /// Sends a request on an existing connection.
    pub async fn request_connected(
        &mut self,
        server: &str,
        method: &str,
        params: Option<Value>,
    ) -> Result<Value, Error> {
        let outcome = self.live(server)?.request(method, params).await;
        self.forget_if_dead(server, outcome)
    }

    /// Sends a typed request on an existing connection.
    pub async fn request_typed_connected<R: McpRequest>(
        &mut self,
        server: &str,
        params: Option<R::Params>,
    ) -> Result<R::Result, Error> {
        let outcome = self.live(server)?.request_typed::<R>(params).await;
        self.forget_if_dead(server, outcome)
    }

    /// Sends a notification on an existing connection.
    pub async fn notify_connected(
        &mut self,
        server: &str,
        method: &str,
        params: Option<Value>,
    ) -> Result<(), Error> {
        let outcome = self.live(server)?.notify(method, params).await;
        self.forget_if_dead(server, outcome)
    }

    fn live(&mut self, server: &str) -> Result<&Session, Error> {
        if !self.is_connected(server) {
            return Err(Error::NotConnected(server.to_owned()));
        }
        self.sessions
            .get(server)
            .ok_or_else(|| Error::NotConnected(server.to_owned()))
    }

    /// Drops the cached session after an error that killed its connection.
    fn forget_if_dead<T>(&mut self, server: &str, outcome: Result<T, Error>) -> Result<T, Error> {
        if outcome.is_err() {
            self.is_connected(server);
        }
        outcome
    }

    // ----- convenience ------------------------------------------------------------------------

    /// `tools/list`, all pages.
    pub async fn list_tools(
        &mut self,
        config: &Config,
        server: &str,
        cwd: &Path,
    ) -> Result<Vec<Tool>, Error> {
        self.get_or_connect(config, server, cwd).await?;
        let outcome = self.live(server)?.list_all_tools().await;
        self.forget_if_dead(server, outcome)
    }

    /// `tools/list`, one page.
    pub async fn list_tools_page(
        &mut self,
        config: &Config,
        server: &str,
        cursor: Option<&str>,
        cwd: &Path,
    ) -> Result<ListToolsResult, Error> {
        self.get_or_connect(config, server, cwd).await?;
        let outcome = self.live(server)?.list_tools(cursor).await;
        self.forget_if_dead(server, outcome)
    }

    /// `tools/call`.
    pub async fn call_tool(
        &mut self,
        config: &Config,
        server: &str,
        name: &str,
        arguments: Option<Map<String, Value>>,
        cwd: &Path,
    ) -> Result<CallToolResult, Error> {
        self.get_or_connect(config, server, cwd).await?;
        let outcome = self.live(server)?.call_tool(name, arguments).await;
        self.forget_if_dead(server, outcome)
    }

    /// `resources/list`, one page.
    pub async fn list_resources(
        &mut self,
        config: &Config,
        server: &str,
        cursor: Option<&str>,
        cwd: &Path,
    ) -> Result<ListResourcesResult, Error> {
        self.get_or_connect(config, server, cwd).await?;
        let outcome = self.live(server)?.list_resources(cursor).await;
        self.forget_if_dead(server, outcome)
    }

    /// `resources/templates/list`, one page.
    pub async fn list_resource_templates(
        &mut self,
        config: &Config,
        server: &str,
        cursor: Option<&str>,
        cwd: &Path,
    ) -> Result<ListResourceTemplatesResult, Error> {
        self.get_or_connect(config, server, cwd).await?;
        let outcome = self.live(server)?.list_resource_templates(cursor).await;
        self.forget_if_dead(server, outcome)
    }

    /// `resources/read`.
    pub async fn read_resource(
        &mut self,
        config: &Config,
        server: &str,
        uri: &str,
        cwd: &Path,
    ) -> Result<ReadResourceResult, Error> {
        self.get_or_connect(config, server, cwd).await?;
        let outcome = self.live(server)?.read_resource(uri).await;
        self.forget_if_dead(server, outcome)
    }

    /// `prompts/list`, one page.
    pub async fn list_prompts(
        &mut self,
        config: &Config,
        server: &str,
        cursor: Option<&str>,
        cwd: &Path,
    ) -> Result<ListPromptsResult, Error> {
        self.get_or_connect(config, server, cwd).await?;
        let outcome = self.live(server)?.list_prompts(cursor).await;
        self.forget_if_dead(server, outcome)
    }

    /// `prompts/get`.
    pub async fn get_prompt(
        &mut self,
        config: &Config,
        server: &str,
        name: &str,
        arguments: Option<Map<String, Value>>,
        cwd: &Path,
    ) -> Result<GetPromptResult, Error> {
        self.get_or_connect(config, server, cwd).await?;
        let outcome = self.live(server)?.get_prompt(name, arguments).await;
        self.forget_if_dead(server, outcome)
    }

    /// `ping`.
    pub async fn ping(&mut self, config: &Config, server: &str, cwd: &Path) -> Result<(), Error> {
        self.get_or_connect(config, server, cwd).await?;
        let outcome = self.live(server)?.ping().await;
        self.forget_if_dead(server, outcome)
    }
}
