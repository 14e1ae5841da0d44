//! Configuration from a TOML file and `MCP_*` environment variables (feature `config`, on by
//! default): where to listen, TLS, CORS and the `Host`/`Origin` allowlists, session expiry,
//! limits, the shutdown grace period, and authentication settings.
//!
//! [`ServerConfig`] yields the [`ServerOptions`] to build the server with, the
//! [`HttpOptions`] and the address to serve; [`Server::serve_config`] binds and serves.
//!
//! ```no_run
//! use mcp_server::{Server, ServerConfig};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! // The file named by MCP_CONFIG (if set), then the MCP_* variables.
//! let config = ServerConfig::from_env()?;
//! let server = Server::builder("my-server", "1.0.0")
//!     .options(config.server_options())
//!     // .tool(...)
//!     .build();
//! server.shutdown_on_signals()?;
//! server.serve_config(&config).await?; // returns after SIGTERM, once requests finished
//! # Ok(())
//! # }
//! ```

mod env;
mod file;
mod serve;
pub mod value;

use std::fmt;
use std::io;
use std::path::Path;
use std::time::Duration;

use crate::{HttpOptions, ServerOptions, TlsConfig};

pub use env::ENV_VARS;

/// A server's deployment settings: read them with [`ServerConfig::load`] (a TOML file, then
/// the environment) or [`ServerConfig::from_env`], or start from [`ServerConfig::default`] and
/// set fields.
///
/// # The file
///
/// Every section and key is optional; an unknown one is an error that names it.
///
/// ```toml
/// [server]
/// host = "127.0.0.1"        # never 0.0.0.0 unless you say so
/// port = 8080               # 0 picks a free port
/// path = "/mcp"
/// ops_endpoints = true      # GET /health, /info, /tools
/// metrics = false           # GET /metrics (Prometheus text)
/// shutdown_grace = "30s"    # how long requests in flight may take after SIGTERM
///
/// [http]
/// cors = false
/// allowed_hosts = ["localhost", "127.0.0.1", "[::1]"]            # replaces the default
/// allowed_origins = ["http://localhost", "https://localhost"]     # replaces the default
/// keep_alive = "15s"        # SSE comment on idle streams; "0s" sends none
/// header_read_timeout = "10s"   # a request's headers, once the connection is ready for one
/// idle_timeout = "60s"      # a connection with no traffic and no request being handled
/// max_connections = 10000   # at the cap, new clients wait until one closes
///
/// [tls]                     # HTTPS (feature `tls`); relative paths are relative to this file
/// cert = "cert.pem"
/// key = "key.pem"
///
/// [sessions]
/// idle_timeout = "30m"
/// sweep_interval = "60s"
/// max = 100000
/// max_per_client = 100      # per principal, or per peer address without authentication
///
/// [limits]
/// max_message_bytes = "16MiB"   # request bodies and stdio lines
/// page_size = 100
/// max_in_flight = 1024      # requests at once on one stdio or WebSocket connection
/// max_batch_len = 100       # messages in one 2025-03-26 batch
/// batch_concurrency = 16    # requests of one batch running at once
/// max_batch_response_bytes = "16MiB"
/// task_ttl = "1h"           # how long a task is kept ("0s": until the server stops)
/// task_poll_interval = "2s" # the polling pace advised to clients
/// max_tasks = 256           # tasks this process runs at once
///
/// [skills]                  # SEP-2640 skills: every folder below each of these holding a
/// dirs = ["skills"]         # SKILL.md is served (relative paths: relative to this file);
///                           # applied by ServerBuilder::config_skills
///
/// [auth]                    # read, not enforced here: for the authentication middleware
/// tokens = ["…"]
/// [auth.oauth]
/// issuer = "https://auth.example.com"
/// audience = "https://mcp.example.com/mcp"
/// jwks_url = "https://auth.example.com/jwks"   # default: the jwks_uri of the issuer's metadata
/// ```
///
/// Durations are strings such as `"500ms"`, `"30s"`, `"5m"`, `"1h"`, or whole seconds as
/// integers; sizes are bytes as integers or strings such as `"64KiB"` or `"16MiB"`.
///
/// # The environment
///
/// Variables override the file (see [`ENV_VARS`] for the full list): `MCP_SERVER_HOST`,
/// `MCP_SERVER_PORT`, `MCP_SERVER_PATH`, `MCP_ENABLE_CORS` (on when it is `true` in any
/// case, as in seed 004), `MCP_ALLOWED_HOSTS` and `MCP_ALLOWED_ORIGINS` (comma-separated),
/// `MCP_TLS_CERT`, `MCP_TLS_KEY`, `MCP_OPS_ENDPOINTS`, `MCP_SHUTDOWN_GRACE`,
/// `MCP_SESSION_IDLE_TIMEOUT`, `MCP_MAX_SESSIONS`, `MCP_MAX_SESSIONS_PER_CLIENT`, `MCP_REDIS_URL`, `MCP_REDIS_PREFIX`,
/// `MCP_MAX_MESSAGE_BYTES`, `MCP_PAGE_SIZE`, `MCP_MAX_IN_FLIGHT`, `MCP_MAX_BATCH_LEN`,
/// `MCP_BATCH_CONCURRENCY`, `MCP_MAX_BATCH_RESPONSE_BYTES`, `MCP_TASK_TTL`,
/// `MCP_TASK_POLL_INTERVAL`, `MCP_MAX_TASKS`, `MCP_KEEP_ALIVE`,
/// `MCP_HEADER_READ_TIMEOUT`, `MCP_IDLE_TIMEOUT`, `MCP_MAX_CONNECTIONS`, `MCP_METRICS`,
/// `MCP_AUTH_TOKENS` (comma-separated), `MCP_OAUTH_ISSUER`,
/// `MCP_OAUTH_AUDIENCE`, `MCP_OAUTH_JWKS_URL`, `MCP_SKILLS_DIR` (comma-separated); and `MCP_CONFIG`, the file
/// [`ServerConfig::from_env`] reads first. An empty variable counts as unset.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ServerConfig {
    /// The address to listen on (default `127.0.0.1`; `0.0.0.0` or `::` only when asked
    /// for, and then [`allowed_hosts`](Self::allowed_hosts) must name the server).
    pub host: String,
    /// The TCP port (default 8080; 0 picks a free one).
    pub port: u16,
    /// The MCP endpoint's path (default `/mcp`).
    pub path: String,
    /// `GET /health`, `/info` and `/tools` on the same port (default on).
    pub ops_endpoints: bool,
    /// Request metrics, served at `GET /metrics` (default off; `server.metrics`,
    /// `MCP_METRICS`). Build the server with [`ServerBuilder::config`](crate::ServerBuilder::config)
    /// for it to take effect.
    pub metrics: bool,
    /// How long requests in flight may still run once shutdown began (default 30 s).
    pub shutdown_grace: Duration,
    /// CORS headers for browser clients (default off).
    pub cors: bool,
    /// `Host` values accepted; `None` keeps [`HttpOptions`]' loopback default.
    pub allowed_hosts: Option<Vec<String>>,
    /// `Origin` values accepted; `None` keeps [`HttpOptions`]' loopback default.
    pub allowed_origins: Option<Vec<String>>,
    /// Interval of SSE keep-alive comments (default 15 s; `None` sends none).
    pub keep_alive: Option<Duration>,
    /// How long a ready connection may take to send a request's headers (default 10 s).
    pub header_read_timeout: Duration,
    /// How long a connection may go without traffic while no request is handled (default
    /// 60 s).
    pub idle_timeout: Duration,
    /// The most HTTP connections at once (default 10,000).
    pub max_connections: usize,
    /// How long a stateful session may stay unused (default 30 minutes).
    pub session_idle_timeout: Duration,
    /// How often idle sessions are looked for (default 60 s).
    pub session_sweep_interval: Duration,
    /// The most stateful sessions at once (default 100,000).
    pub max_sessions: usize,
    /// The most stateful sessions of one client at once (default 100).
    pub max_sessions_per_client: usize,
    /// The Redis that sessions are shared through, so that several replicas serve them all
    /// (default none: sessions live in this process). Needs feature `redis`.
    pub redis_url: Option<String>,
    /// The prefix of the keys and channels in that Redis (default `mcp`): servers sharing one
    /// Redis but not their sessions use different prefixes.
    pub redis_prefix: String,
    /// The largest message accepted, in bytes (default 16 MiB).
    pub max_message_bytes: usize,
    /// Entries per page of the list methods (default 100).
    pub page_size: usize,
    /// Requests at once on one stdio or WebSocket connection (default 1,024).
    pub max_in_flight: usize,
    /// Messages in one batch (default 100).
    pub max_batch_len: usize,
    /// Requests of one batch running at once (default 16).
    pub batch_concurrency: usize,
    /// The largest answer to one batch (default 16 MiB).
    pub max_batch_response_bytes: usize,
    /// How long a task is kept (default 1 hour; `None`: until the server stops).
    pub task_ttl: Option<Duration>,
    /// The polling pace advised to clients of a task (default 2 s).
    pub task_poll_interval: Duration,
    /// Tasks this process runs at once (default 256).
    pub max_tasks: usize,
    /// HTTPS certificate and key (default none: plain HTTP).
    pub tls: Option<TlsConfig>,
    /// Authentication settings, read for the authentication middleware.
    pub auth: AuthConfig,
    /// Folders of skills to serve (`[skills] dirs`, `MCP_SKILLS_DIR`; default none), loaded
    /// by [`ServerBuilder::config_skills`](crate::ServerBuilder::config_skills).
    pub skills_dirs: Vec<std::path::PathBuf>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        let http = HttpOptions::default();
        let server = ServerOptions::default();
        Self {
            host: "127.0.0.1".to_owned(),
            port: 8080,
            path: http.path,
            ops_endpoints: http.ops_endpoints,
            metrics: false,
            shutdown_grace: http.shutdown_grace,
            cors: http.cors,
            allowed_hosts: None,
            allowed_origins: None,
            keep_alive: http.keep_alive,
            header_read_timeout: http.header_read_timeout,
            idle_timeout: http.idle_timeout,
            max_connections: http.max_connections,
            session_idle_timeout: http.session_idle_timeout,
            session_sweep_interval: http.session_sweep_interval,
            max_sessions: http.max_sessions,
            max_sessions_per_client: http.max_sessions_per_client,
            redis_url: None,
            redis_prefix: "mcp".to_owned(),
            max_message_bytes: server.max_message_bytes,
            page_size: server.page_size,
            max_in_flight: server.max_in_flight,
            max_batch_len: server.max_batch_len,
            batch_concurrency: server.batch_concurrency,
            max_batch_response_bytes: server.max_batch_response_bytes,
            task_ttl: server.task_ttl,
            task_poll_interval: server.task_poll_interval,
            max_tasks: server.max_tasks,
            tls: None,
            auth: AuthConfig::default(),
            skills_dirs: Vec::new(),
        }
    }
}

/// The `[auth]` section: static bearer tokens and an OAuth 2.1 resource server's settings.
/// Read and checked for shape here; what they protect is the authentication middleware's
/// business. `Debug` does not show the tokens.
#[derive(Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuthConfig {
    /// Bearer tokens (API keys) accepted as they are (`tokens`, `MCP_AUTH_TOKENS`).
    pub tokens: Vec<String>,
    /// JWT access tokens from an authorization server (`[auth.oauth]`, `MCP_OAUTH_*`).
    pub oauth: Option<OAuthConfig>,
}

impl fmt::Debug for AuthConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthConfig")
            .field("tokens", &format_args!("[{} hidden]", self.tokens.len()))
            .field("oauth", &self.oauth)
            .finish()
    }
}

/// `[auth.oauth]`: how to validate JWT access tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct OAuthConfig {
    /// The authorization server that issues the tokens (the `iss` claim).
    pub issuer: String,
    /// This server's resource URI (the `aud` claim a token must carry).
    pub audience: String,
    /// Where the issuer's signing keys are published; `None`: the `jwks_uri` of the issuer's
    /// metadata (RFC 8414 `/.well-known/oauth-authorization-server`, else OpenID Connect
    /// `/.well-known/openid-configuration`, whose `issuer` must be identical to
    /// [`issuer`](Self::issuer)), discovered when the first token arrives
    /// (`JwtAuthenticator::discovering`, feature `oauth`).
    pub jwks_url: Option<String>,
}

impl OAuthConfig {
    /// Tokens from `issuer` for `audience`.
    pub fn new(issuer: impl Into<String>, audience: impl Into<String>) -> Self {
        Self {
            issuer: issuer.into(),
            audience: audience.into(),
            jwks_url: None,
        }
    }
}

impl ServerConfig {
    /// Reads the TOML file at `path`, then applies the `MCP_*` environment variables.
    ///
    /// # Errors
    ///
    /// The file cannot be read or is not TOML; a key is unknown; a value is invalid (the
    /// message names the key or variable, the value and what was expected).
    pub fn load(path: impl AsRef<Path>) -> Result<Self, ConfigError> {
        Self::from_file(path)?.with_env()
    }

    /// Reads the TOML file at `path` alone (no environment). Relative TLS paths in it are
    /// taken relative to the file's directory.
    ///
    /// # Errors
    ///
    /// As [`ServerConfig::load`].
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, ConfigError> {
        Self::default()
            .with_file(path, &[])
            .map(|(config, _)| config)
    }

    /// Applies the TOML file at `path` to `self` (no environment), for an application with
    /// defaults of its own, or sections of its own in the same file: the sections named in
    /// `sections` are not the server's and come back as they are (absent ones are missing
    /// from the table); any other unknown section is still an error.
    ///
    /// ```
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let path = dir.path().join("app.toml");
    /// std::fs::write(&path, "[server]\nhost = \"::1\"\n[sandbox]\nmax_sessions = 3\n").unwrap();
    /// let mut defaults = mcp_server::ServerConfig::default();
    /// defaults.port = 8775;
    /// let (config, sections) = defaults.with_file(&path, &["sandbox"]).unwrap();
    /// assert_eq!((config.host.as_str(), config.port), ("::1", 8775));
    /// assert_eq!(sections["sandbox"]["max_sessions"].as_integer(), Some(3));
    /// ```
    ///
    /// # Errors
    ///
    /// As [`ServerConfig::load`].
    pub fn with_file(
        self,
        path: impl AsRef<Path>,
        sections: &[&str],
    ) -> Result<(Self, toml::Table), ConfigError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            origin: Some(path.display().to_string()),
            field: String::new(),
            problem: format!("cannot read the configuration file: {e}"),
            source: Some(e),
        })?;
        file::parse(self, &text, Some(path), sections)
    }

    /// Parses TOML text (no file, no environment); relative TLS paths stay relative to the
    /// working directory.
    ///
    /// # Errors
    ///
    /// As [`ServerConfig::load`].
    pub fn from_toml(text: &str) -> Result<Self, ConfigError> {
        file::parse(Self::default(), text, None, &[]).map(|(config, _)| config)
    }

    /// The defaults, then the file named by `MCP_CONFIG` when it is set, then the other
    /// `MCP_*` variables.
    ///
    /// # Errors
    ///
    /// As [`ServerConfig::load`].
    pub fn from_env() -> Result<Self, ConfigError> {
        match env::read("MCP_CONFIG")? {
            Some(path) => Self::load(path),
            None => Self::default().with_env(),
        }
    }

    /// Applies the `MCP_*` variables of this process's environment to `self`.
    ///
    /// # Errors
    ///
    /// A variable's value is invalid or not UTF-8.
    pub fn with_env(self) -> Result<Self, ConfigError> {
        let mut vars = Vec::new();
        for (name, _) in ENV_VARS {
            if let Some(value) = env::read(name)? {
                vars.push((*name, value));
            }
        }
        self.with_vars(vars)
    }

    /// Applies the given `MCP_*` variables (name, value) to `self`, as if they were the
    /// environment; other names are ignored. For tests and for programs that read their
    /// settings elsewhere.
    ///
    /// ```
    /// let config = mcp_server::ServerConfig::default()
    ///     .with_vars([("MCP_SERVER_PORT", "9000"), ("MCP_ENABLE_CORS", "TRUE")])
    ///     .unwrap();
    /// assert_eq!((config.port, config.cors), (9000, true));
    ///
    /// let error = mcp_server::ServerConfig::default()
    ///     .with_vars([("MCP_SERVER_PORT", "abc")])
    ///     .unwrap_err();
    /// assert_eq!(
    ///     error.to_string(),
    ///     r#"MCP_SERVER_PORT: invalid value "abc" (expected a port number 1-65535, or 0 for any free port)"#
    /// );
    /// ```
    ///
    /// # Errors
    ///
    /// A variable's value is invalid.
    pub fn with_vars<I, K, V>(mut self, vars: I) -> Result<Self, ConfigError>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        env::apply(&mut self, vars)?;
        Ok(self)
    }

    /// [`ServerOptions::default`] with this configuration's limits
    /// ([`ServerBuilder::config`](crate::ServerBuilder::config) applies them, and metrics).
    pub fn server_options(&self) -> ServerOptions {
        ServerOptions {
            page_size: self.page_size,
            max_message_bytes: self.max_message_bytes,
            max_in_flight: self.max_in_flight,
            max_batch_len: self.max_batch_len,
            batch_concurrency: self.batch_concurrency,
            max_batch_response_bytes: self.max_batch_response_bytes,
            task_ttl: self.task_ttl,
            task_poll_interval: self.task_poll_interval,
            max_tasks: self.max_tasks,
            ..ServerOptions::default()
        }
    }

    /// The HTTP endpoint's options.
    pub fn http_options(&self) -> HttpOptions {
        let defaults = HttpOptions::default();
        HttpOptions {
            path: self.path.clone(),
            ops_endpoints: self.ops_endpoints,
            shutdown_grace: self.shutdown_grace,
            cors: self.cors,
            allowed_hosts: self
                .allowed_hosts
                .clone()
                .unwrap_or(defaults.allowed_hosts.clone()),
            allowed_origins: self
                .allowed_origins
                .clone()
                .unwrap_or(defaults.allowed_origins.clone()),
            keep_alive: self.keep_alive,
            header_read_timeout: self.header_read_timeout,
            idle_timeout: self.idle_timeout,
            max_connections: self.max_connections,
            session_idle_timeout: self.session_idle_timeout,
            session_sweep_interval: self.session_sweep_interval,
            max_sessions: self.max_sessions,
            max_sessions_per_client: self.max_sessions_per_client,
            session_store: self.session_store(),
            tls: self.tls.clone(),
            auth: self.authenticator(),
            resource_metadata: self.resource_metadata(),
            ..defaults
        }
    }

    /// Where sessions live: the Redis of [`redis_url`](Self::redis_url) (checked when the
    /// configuration was read), else this process.
    fn session_store(&self) -> std::sync::Arc<dyn crate::SessionStore> {
        #[cfg(feature = "redis")]
        if let Some(url) = &self.redis_url {
            let options = crate::RedisOptions {
                prefix: self.redis_prefix.clone(),
                ..crate::RedisOptions::default()
            };
            match crate::RedisSessionStore::new(url, options) {
                Ok(store) => return std::sync::Arc::new(store),
                Err(e) => tracing::error!("sessions.redis_url: {e}; sessions stay in this process"),
            }
        }
        std::sync::Arc::new(crate::MemorySessionStore)
    }

    /// The authenticator `[auth]` describes: the static tokens (each its own principal,
    /// `token:1`, `token:2`, … without scopes) and, with feature `oauth`, JWT access tokens;
    /// `None` when the section is empty.
    fn authenticator(&self) -> Option<std::sync::Arc<dyn crate::auth::Authenticator>> {
        let mut chain: Vec<std::sync::Arc<dyn crate::auth::Authenticator>> = Vec::new();
        if !self.auth.tokens.is_empty() {
            let tokens = self.auth.tokens.iter().enumerate().fold(
                crate::auth::StaticTokens::new(),
                |t, (i, token)| {
                    t.token(
                        token.clone(),
                        crate::auth::Principal::new(
                            format!("token:{}", i + 1),
                            Vec::<String>::new(),
                        ),
                    )
                },
            );
            chain.push(std::sync::Arc::new(tokens));
        }
        #[cfg(feature = "oauth")]
        if let Some(oauth) = &self.auth.oauth {
            let jwt = match &oauth.jwks_url {
                Some(jwks) => crate::auth::JwtAuthenticator::new(
                    oauth.issuer.clone(),
                    oauth.audience.clone(),
                    jwks.clone(),
                ),
                None => crate::auth::JwtAuthenticator::discovering(
                    oauth.issuer.clone(),
                    oauth.audience.clone(),
                ),
            };
            chain.push(std::sync::Arc::new(jwt));
        }
        match chain.len() {
            0 => None,
            1 => chain.pop(),
            _ => Some(std::sync::Arc::new(crate::auth::AnyOf(chain))),
        }
    }

    /// The RFC 9728 document of `[auth.oauth]`: this server (the audience) and its issuer.
    fn resource_metadata(&self) -> Option<crate::ProtectedResourceMetadata> {
        let oauth = self.auth.oauth.as_ref()?;
        Some(crate::ProtectedResourceMetadata::new(
            oauth.audience.clone(),
            vec![oauth.issuer.clone()],
        ))
    }

    /// The address to listen on, `host:port` (an IPv6 host in brackets).
    pub fn bind_address(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

/// A configuration that cannot be used: which file or variable, which field, what is wrong.
///
/// Displayed as `FILE: FIELD: PROBLEM` for the file (`mcp.toml: server.port: invalid value
/// "abc" (expected …)`) and `VARIABLE: PROBLEM` for the environment.
#[derive(Debug)]
pub struct ConfigError {
    origin: Option<String>,
    field: String,
    problem: String,
    source: Option<io::Error>,
}

impl ConfigError {
    fn new(origin: Option<&str>, field: impl Into<String>, problem: impl Into<String>) -> Self {
        Self {
            origin: origin.map(str::to_owned),
            field: field.into(),
            problem: problem.into(),
            source: None,
        }
    }

    /// The key (`server.port`) or variable (`MCP_SERVER_PORT`) at fault; empty when the
    /// problem is the whole file (unreadable, not TOML).
    pub fn field(&self) -> &str {
        &self.field
    }

    /// The file the problem is in, when it is in a file.
    pub fn file(&self) -> Option<&str> {
        self.origin.as_deref()
    }

    /// What is wrong, without the file and field.
    pub fn problem(&self) -> &str {
        &self.problem
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(origin) = &self.origin {
            write!(f, "{origin}: ")?;
        }
        if !self.field.is_empty() {
            write!(f, "{}: ", self.field)?;
        }
        f.write_str(&self.problem)
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_ref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl From<ConfigError> for io::Error {
    fn from(e: ConfigError) -> Self {
        let kind = e
            .source
            .as_ref()
            .map_or(io::ErrorKind::InvalidInput, io::Error::kind);
        io::Error::new(kind, e.to_string())
    }
}
