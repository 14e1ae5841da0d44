//! [`Manager`]: connections to the servers of a configuration, made on demand and shared.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use mcp_jsonrpc::{StderrMode, WireTap};
use mcp_schema::{
    CallToolResult, Era, GetPromptResult, Implementation, McpNotification, McpRequest, Prompt,
    ReadResourceResult, Resource, ResourceTemplate, Tool,
};
use parking_lot::Mutex;
use serde_json::{Map, Value};
use tokio::io::{AsyncRead, AsyncWrite};

use crate::connect::{self, ConnectPolicy};
use crate::handlers::{Handlers, ServerNotificationHandler, ServerRequestHandler};
use crate::session::{Session, SessionSettings};
use crate::{Config, Error, TrustMode, UntrustedStreamableHttpPolicy};

/// The default per-request timeout (30 s).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// The servers of one configuration, connected on first use and shared.
///
/// A manager owns its [`Config`] and the workspace root (a stdio server's working directory
/// and the base of relative paths), so a call names only the server:
/// `manager.list_tools("remote")`. Every method takes `&self`: share the manager (in an
/// [`Arc`]) and call many servers, or one server many times, at once. A server is connected
/// once however many calls ask for it together; a connection that dies is dropped from the
/// cache and made again by the next call.
///
/// Safe by default: [`TrustMode::Untrusted`] refuses stdio and unix servers and checks remote
/// ones against an [`UntrustedStreamableHttpPolicy`]; see [`with_trust_mode`](Self::with_trust_mode).
pub struct Manager {
    config: Config,
    root: PathBuf,
    settings: SessionSettings,
    policy: ConnectPolicy,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    /// One gate per configured server, held while it is being connected.
    connecting: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

impl std::fmt::Debug for Manager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Manager")
            .field("root", &self.root)
            .field("client_info", &self.settings.client_info)
            .field("timeout", &self.settings.timeout)
            .field("trust_mode", &self.policy.trust_mode)
            .field(
                "connected",
                &self.sessions.lock().keys().collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl Default for Manager {
    /// A manager without configured servers, rooted at `.`: for connections the caller makes
    /// ([`open_io`](Self::open_io), [`open_peer`](Self::open_peer)).
    fn default() -> Self {
        Self::new(Config::default(), ".")
    }
}

impl Manager {
    /// A manager for the servers of `config`, rooted at `root`, with the configuration's
    /// `client` section applied (a pinned `protocol_version`, `capabilities`, and `roots`,
    /// which enable the built-in `roots/list`).
    ///
    /// It announces itself as `mcp-kit` ([`with_client_info`](Self::with_client_info)),
    /// waits [`DEFAULT_TIMEOUT`] per request, and trusts nothing
    /// ([`with_trust_mode`](Self::with_trust_mode)).
    pub fn new(config: Config, root: impl Into<PathBuf>) -> Self {
        let client = &config.client;
        let settings = SessionSettings {
            client_info: Implementation::new("mcp-kit", env!("CARGO_PKG_VERSION")),
            protocol_version: client.protocol_version.clone(),
            capabilities: client.capabilities.clone().unwrap_or_default(),
            timeout: DEFAULT_TIMEOUT,
            handlers: Handlers {
                roots: client.roots.clone().map(Arc::new),
                request: None,
                notification: None,
            },
            log_level: None,
            era_hints: HashMap::new(),
        };
        Self {
            root: root.into(),
            config,
            settings,
            policy: ConnectPolicy {
                trust_mode: TrustMode::Untrusted,
                untrusted_http: UntrustedStreamableHttpPolicy::default(),
                allow_stdout_log_outside_root: false,
                stderr: StderrMode::Inherit,
                wire: None,
                own_process_group: false,
                inputs: std::collections::BTreeMap::new(),
                #[cfg(feature = "oauth")]
                oauth: None,
            },
            sessions: Mutex::default(),
            connecting: Mutex::default(),
        }
    }

    // ----- builders ---------------------------------------------------------------------------

    /// The name and version announced to servers (`clientInfo`).
    pub fn with_client_info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.settings.client_info = Implementation::new(name, version);
        self
    }

    /// The per-request timeout (default 30 s). Sessions already open keep theirs.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.settings.timeout = timeout;
        self
    }

    /// Pins the protocol version (`None`: automatic — `server/discover`, then `initialize`).
    pub fn with_protocol_version(mut self, version: Option<String>) -> Self {
        self.settings.protocol_version = version;
        self
    }

    /// The client capabilities announced to servers (a JSON object; other values are
    /// ignored). `roots` is added automatically when roots are set.
    pub fn with_capabilities(mut self, capabilities: Value) -> Self {
        if let Value::Object(capabilities) = capabilities {
            self.settings.capabilities = capabilities;
        }
        self
    }

    /// Asks each server for log messages at `level` and above, as soon as it is connected
    /// ([`Session::set_logging_level`], both eras; in the stateful era only servers that
    /// declare `logging` are asked, the others would refuse). A refusal is logged, not fatal.
    /// Default: none asked (the server's own default).
    pub fn with_log_level(mut self, level: mcp_schema::LoggingLevel) -> Self {
        self.settings.log_level = Some(level);
        self
    }

    /// Tells the handshake which era `server` spoke before (remembered by the caller, as
    /// mcpctl does in its cache). Only [`Era::Stateful`] changes anything: `initialize` is then
    /// tried first, sparing a legacy server the `server/discover` probe (some print pages of
    /// errors for it); if the server refuses it, the usual negotiation follows. A pinned
    /// protocol version takes precedence.
    pub fn with_era_hint(mut self, server: impl Into<String>, era: Era) -> Self {
        self.settings.era_hints.insert(server.into(), era);
        self
    }

    /// Roots: declares `capabilities.roots` and answers `roots/list` with them.
    pub fn with_roots(mut self, roots: Vec<crate::Root>) -> Self {
        self.settings.handlers.roots = Some(Arc::new(roots));
        self
    }

    /// How far the configuration is trusted (default [`TrustMode::Untrusted`]).
    pub fn with_trust_mode(mut self, trust_mode: TrustMode) -> Self {
        self.policy.trust_mode = trust_mode;
        self
    }

    /// The rules for remote servers in Untrusted mode.
    pub fn with_untrusted_streamable_http_policy(
        mut self,
        policy: UntrustedStreamableHttpPolicy,
    ) -> Self {
        self.policy.untrusted_http = policy;
        self
    }

    /// Where the stderr of spawned (stdio) servers goes (default [`StderrMode::Inherit`]).
    /// With [`StderrMode::Capture`] an error about a server that exited ends with its exit
    /// status and the last lines it wrote there ([`Error::ServerExited`]).
    pub fn with_stderr(mut self, stderr: StderrMode) -> Self {
        self.policy.stderr = stderr;
        self
    }

    /// Shows every JSON-RPC message of the connections this manager makes, both ways, to
    /// `tap` (for debugging; the messages may carry secrets).
    pub fn with_wire_tap(mut self, tap: WireTap) -> Self {
        self.policy.wire = Some(tap);
        self
    }

    /// Authorizes HTTP servers with OAuth (feature `oauth`): every streamable HTTP server
    /// whose configuration sends no `Authorization` header of its own gets an
    /// [`OAuth`](crate::auth::OAuth) authorizer, which answers the server's 401 and 403 with
    /// the MCP authorization flow and keeps its tokens in `options.store`. Every URL the flow
    /// touches goes through the trust policy, like the server's own.
    #[cfg(feature = "oauth")]
    pub fn with_oauth(mut self, options: crate::auth::OAuthOptions) -> Self {
        self.policy.oauth = Some(options);
        self
    }

    /// The OAuth authorizer of `server` (a streamable HTTP server of the configuration), for
    /// logging in ahead of a connection, or showing what is stored. `None` without
    /// [`with_oauth`](Self::with_oauth).
    ///
    /// # Errors
    ///
    /// An unknown server, one that is not an HTTP server, a URL the trust policy refuses, an
    /// unreadable token store.
    #[cfg(feature = "oauth")]
    pub async fn oauth(&self, server: &str) -> Result<Option<crate::auth::OAuth>, Error> {
        crate::connect::oauth(&self.policy, &self.config, server, &self.root).await
    }

    /// Starts stdio servers in a process group of their own (default `false`): a terminal's
    /// Ctrl-C then reaches only this process, which can cancel its requests and close the
    /// servers itself (mcpctl does).
    pub fn with_own_process_group(mut self, own: bool) -> Self {
        self.policy.own_process_group = own;
        self
    }

    /// The values of the configuration's `${input:ID}` placeholders (VS Code's `inputs`; see
    /// [`ServerConfig::inputs_used`](crate::ServerConfig::inputs_used)), used in Trusted mode
    /// when a server starts. A placeholder without a value fails that server's connection with
    /// [`ConfigError::MissingInput`](crate::ConfigError::MissingInput).
    pub fn with_inputs(mut self, inputs: std::collections::BTreeMap<String, String>) -> Self {
        self.policy.inputs = inputs;
        self
    }

    /// Allows `stdout_log.path` outside the root (default `false`).
    pub fn with_allow_stdout_log_outside_root(mut self, allow: bool) -> Self {
        self.policy.allow_stdout_log_outside_root = allow;
        self
    }

    /// Handles requests from servers (after the built-in `roots/list` and `ping`); also
    /// answers the input requests of 2026-07-28 `InputRequiredResult`s.
    pub fn with_server_request_handler(mut self, handler: ServerRequestHandler) -> Self {
        self.settings.handlers.request = Some(handler);
        self
    }

    /// Receives notifications from servers.
    pub fn with_server_notification_handler(mut self, handler: ServerNotificationHandler) -> Self {
        self.settings.handlers.notification = Some(handler);
        self
    }

    // ----- what it is -------------------------------------------------------------------------

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The workspace root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The trust mode.
    pub fn trust_mode(&self) -> TrustMode {
        self.policy.trust_mode
    }

    /// The per-request timeout.
    pub fn timeout(&self) -> Duration {
        self.settings.timeout
    }

    // ----- sessions ---------------------------------------------------------------------------

    /// The session of `server`, connecting (and performing the handshake) first if it has none
    /// or its connection died.
    pub async fn session(&self, server: &str) -> Result<Arc<Session>, Error> {
        if let Some(session) = self.cached(server) {
            return Ok(session);
        }
        let gate = self.gate(server)?;
        let _connecting = gate.lock().await;
        // Another call may have connected while this one waited.
        if let Some(session) = self.cached(server) {
            return Ok(session);
        }
        Ok(self.insert(self.open(server).await?))
    }

    /// Connects to `server` anew, replacing its cached session.
    pub async fn connect(&self, server: &str) -> Result<Arc<Session>, Error> {
        let gate = self.gate(server)?;
        let _connecting = gate.lock().await;
        Ok(self.insert(self.open(server).await?))
    }

    /// The cached session of `server` if it is connected; no connection is made.
    pub fn cached(&self, server: &str) -> Option<Arc<Session>> {
        let mut sessions = self.sessions.lock();
        match sessions.get(server) {
            Some(session) if session.is_connected() => Some(session.clone()),
            Some(_) => {
                sessions.remove(server);
                None
            }
            None => None,
        }
    }

    /// True when `server` has a live connection; a dead one is dropped.
    pub fn is_connected(&self, server: &str) -> bool {
        self.cached(server).is_some()
    }

    /// The names of the servers with a live connection (dead ones are dropped), sorted.
    pub fn connected_server_names(&self) -> Vec<String> {
        let mut sessions = self.sessions.lock();
        sessions.retain(|_, session| session.is_connected());
        let mut names: Vec<String> = sessions.keys().cloned().collect();
        names.sort();
        names
    }

    /// Caches `session` under its server's name (replacing the one there) and shares it.
    pub fn insert(&self, session: Session) -> Arc<Session> {
        let session = Arc::new(session);
        self.sessions
            .lock()
            .insert(session.server_name().to_owned(), session.clone());
        session
    }

    /// Removes `server`'s session from the cache and hands it over, to own (and
    /// [`close`](Session::close)) from now on. `None` when it has none, or while calls still
    /// share it (it stays cached then).
    pub fn take_session(&self, server: &str) -> Option<Session> {
        let mut sessions = self.sessions.lock();
        // Held by the cache alone, it cannot be cloned by anyone else while the lock is held.
        if Arc::strong_count(sessions.get(server)?) > 1 {
            return None;
        }
        Arc::into_inner(sessions.remove(server)?)
    }

    /// Connects to the configured `server` without caching the session: the caller owns it.
    ///
    /// An HTTP server whose URL refuses the streamable HTTP handshake with a 4xx (other than
    /// 401/403) is tried once more with the legacy HTTP+SSE transport of 2024-11-05, as the
    /// specification's backwards-compatibility section describes: the URL is then its SSE
    /// endpoint. If that fails too, the streamable HTTP error is returned.
    pub async fn open(&self, server: &str) -> Result<Session, Error> {
        let timeout = self.settings.timeout;
        let (policy, config, root) = (&self.policy, &self.config, &self.root);
        let peer = connect::open(policy, timeout, config, server, root).await?;
        let http = peer.handle().is_streamable_http();
        let error = match self.open_peer(server, peer).await {
            Err(error) if http && refused_with_4xx(&error) => error,
            outcome => return outcome,
        };
        let legacy = match connect::open_legacy_sse(policy, timeout, config, server, root).await {
            Ok(peer) => peer,
            Err(legacy) => {
                tracing::debug!(server, error = %legacy, "not a legacy HTTP+SSE server either");
                return Err(error);
            }
        };
        tracing::debug!(server, "using the legacy HTTP+SSE transport");
        // A server of the old transport most likely speaks the stateful era.
        let mut settings = self.settings.clone();
        settings.era_hints.insert(server.to_owned(), Era::Stateful);
        Session::establish(server, legacy, true, &settings).await
    }

    /// A session named `server` over any reader/writer pair (no trust policy applies: the
    /// caller made the connection). [`insert`](Self::insert) it to share it.
    pub async fn open_io<R, W>(&self, server: &str, read: R, write: W) -> Result<Session, Error>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let peer = mcp_jsonrpc::Peer::connect_io(read, write)
            .await
            .map_err(|source| Error::Connection {
                server: server.to_owned(),
                source,
            })?;
        self.open_peer(server, peer).await
    }

    /// A session named `server` over a JSON-RPC connection built by the caller (with its own
    /// limits or HTTP options). No trust policy applies: only use it for connections you trust.
    pub async fn open_peer(&self, server: &str, peer: mcp_jsonrpc::Peer) -> Result<Session, Error> {
        let http = peer.handle().is_streamable_http();
        Session::establish(server, peer, http, &self.settings).await
    }

    /// The gate serialising connections to one configured server.
    fn gate(&self, server: &str) -> Result<Arc<tokio::sync::Mutex<()>>, Error> {
        // Only configured names get a gate, so the table cannot grow past the configuration.
        if !self.config.servers.contains_key(server) {
            return Err(Error::UnknownServer(server.to_owned()));
        }
        Ok(self
            .connecting
            .lock()
            .entry(server.to_owned())
            .or_default()
            .clone())
    }

    /// Runs `call` on `server`'s session (connecting first if needed); a call that fails
    /// because the connection died drops the session from the cache.
    async fn on<T>(
        &self,
        server: &str,
        call: impl AsyncFnOnce(&Session) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let session = self.session(server).await?;
        let outcome = call(&session).await;
        if outcome.is_err() && !session.is_connected() {
            let mut sessions = self.sessions.lock();
            if sessions
                .get(server)
                .is_some_and(|s| Arc::ptr_eq(s, &session))
            {
                sessions.remove(server);
            }
        }
        outcome
    }

    // ----- requests ---------------------------------------------------------------------------

    /// Sends a request to `server`.
    pub async fn request(
        &self,
        server: &str,
        method: &str,
        params: Option<Value>,
    ) -> Result<Value, Error> {
        self.on(server, async |s| s.request(method, params).await)
            .await
    }

    /// Sends a typed request (see [`McpRequest`] and [`crate::mcp`]).
    pub async fn request_typed<R: McpRequest>(
        &self,
        server: &str,
        params: Option<R::Params>,
    ) -> Result<R::Result, Error> {
        self.on(server, async |s| s.request_typed::<R>(params).await)
            .await
    }

    /// Sends a notification to `server`.
    pub async fn notify(
        &self,
        server: &str,
        method: &str,
        params: Option<Value>,
    ) -> Result<(), Error> {
        self.on(server, async |s| s.notify(method, params).await)
            .await
    }

    /// Sends a typed notification.
    pub async fn notify_typed<N: McpNotification>(
        &self,
        server: &str,
        params: Option<N::Params>,
    ) -> Result<(), Error> {
        self.on(server, async |s| s.notify_typed::<N>(params).await)
            .await
    }

    // ----- one method each --------------------------------------------------------------------

    /// `tools/list`, every page.
    pub async fn list_tools(&self, server: &str) -> Result<Vec<Tool>, Error> {
        self.on(server, async |s| s.list_all_tools().await).await
    }

    /// `tools/call`. A tool's own failure is a result with `isError: true`, not an `Err`.
    pub async fn call_tool(
        &self,
        server: &str,
        name: &str,
        arguments: Option<Map<String, Value>>,
    ) -> Result<CallToolResult, Error> {
        self.on(server, async |s| s.call_tool(name, arguments).await)
            .await
    }

    /// `resources/list`, every page.
    pub async fn list_resources(&self, server: &str) -> Result<Vec<Resource>, Error> {
        self.on(server, async |s| s.list_all_resources().await)
            .await
    }

    /// `resources/templates/list`, every page.
    pub async fn list_resource_templates(
        &self,
        server: &str,
    ) -> Result<Vec<ResourceTemplate>, Error> {
        self.on(server, async |s| s.list_all_resource_templates().await)
            .await
    }

    /// `resources/read`.
    pub async fn read_resource(
        &self,
        server: &str,
        uri: &str,
    ) -> Result<ReadResourceResult, Error> {
        self.on(server, async |s| s.read_resource(uri).await).await
    }

    /// `prompts/list`, every page.
    pub async fn list_prompts(&self, server: &str) -> Result<Vec<Prompt>, Error> {
        self.on(server, async |s| s.list_all_prompts().await).await
    }

    /// `prompts/get`.
    pub async fn get_prompt(
        &self,
        server: &str,
        name: &str,
        arguments: Option<Map<String, Value>>,
    ) -> Result<GetPromptResult, Error> {
        self.on(server, async |s| s.get_prompt(name, arguments).await)
            .await
    }

    /// `ping`.
    pub async fn ping(&self, server: &str) -> Result<(), Error> {
        self.on(server, async |s| s.ping().await).await
    }
}

/// Whether the handshake failed on an HTTP 4xx other than the authorization ones: what a
/// server of the legacy HTTP+SSE transport answers a POST to its SSE URL.
fn refused_with_4xx(error: &Error) -> bool {
    matches!(error, Error::Rpc { error, .. }
        if error.http_status().is_some_and(|s| (400..500).contains(&s) && s != 401 && s != 403))
}
