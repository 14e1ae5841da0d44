//! `mcp.json`: the configuration of the servers a client may connect to.
//!
//! [`Config::load`] discovers the first of [`DISCOVERED_FILES`] under a root (`.mcp.json`,
//! `mcp.json`, `.cursor/mcp.json`, `.vscode/mcp.json`), or takes an explicit
//! path), enforces the size cap and the regular-file rule, and parses either the strict
//! `mcp.json` v1 schema or one of the compatible formats (the `mcpServers` wrapper, Claude
//! Code's direct server map, VS Code's `servers` map).
//!
//! The format is recognized from the top-level object, in this order:
//!
//! 1. it has `mcpServers` (whatever else it has, e.g. a plugin's `"version": "1.0.0"`):
//!    [`ConfigFormat::McpServers`]; `mcpServers` is an object of servers, or a string naming a
//!    file (relative to the configuration file's directory, no `..`, staying under the root
//!    after canonicalization) holding a server map or an `mcpServers` object (followed once);
//! 2. it has `version`: [`ConfigFormat::V1`], strict (`version` must be `1`);
//! 3. it has `servers`: [`ConfigFormat::VsCode`];
//! 4. it is non-empty and every value is an object with `command` or `url`:
//!    [`ConfigFormat::ClaudeServerMap`];
//! 5. anything else is [`ConfigError::UnrecognizedFormat`].
//!
//! In the compatible formats an entry with `command` (+ `args`, `env`) becomes a stdio server
//! and one with `url` (+ `headers`) a streamable HTTP server; `type` (`stdio`, `http`, `sse`,
//! `streamable_http`) is only checked; other fields are ignored; `client` is never set.
//!
//! Values are kept as written: `${VAR}` placeholders are expanded by
//! [`ServerConfig::expanded`] / [`expand_placeholders`], which the connection manager calls in
//! Trusted mode only, and relative paths are resolved against the root when connecting.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{Map, Value};

mod compat;
mod error;
mod expand;
mod json;
mod load;
mod v1;

pub use error::ConfigError;
pub use expand::expand_placeholders;
pub use json::kind as value_kind;
pub use load::DISCOVERED_FILES;

/// The largest configuration file that is read, in bytes (4 MiB).
pub const MAX_CONFIG_BYTES: u64 = 4 * 1024 * 1024;

/// A loaded configuration.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Config {
    /// The file it was read from (`None` when built in code or when no file was found).
    pub path: Option<PathBuf>,
    /// Which format the file had.
    pub format: ConfigFormat,
    /// Overrides of what the client announces (v1 only).
    pub client: ClientConfig,
    /// The servers, by name (`[a-zA-Z0-9_-]+`).
    pub servers: BTreeMap<String, ServerConfig>,
    /// Entries of a compatible file that were not loaded: disabled ones, and invalid ones
    /// (reported and skipped, so that one bad entry does not cost the whole file). Always
    /// empty for `mcp.json` v1, which is strict.
    pub skipped: Vec<SkippedServer>,
    /// The values the user is asked for (VS Code's `inputs`), referenced as `${input:ID}`;
    /// give them with [`Manager::with_inputs`](crate::Manager::with_inputs).
    pub inputs: Vec<Input>,
}

/// A value the user gives when a server starts (VS Code's `inputs`: `promptString` or
/// `pickString`), referenced as `${input:ID}` in a server's fields.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Input {
    /// The id `${input:ID}` refers to.
    pub id: String,
    /// What to ask.
    pub description: Option<String>,
    /// A secret: typed without echo.
    pub password: bool,
    /// The value when the user gives none.
    pub default: Option<String>,
    /// The choices of a `pickString` input (empty for `promptString`).
    pub options: Vec<String>,
}

/// An entry of a compatible configuration file that is not among [`Config::servers`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedServer {
    /// The entry's name (as written; it may be an invalid server name).
    pub name: String,
    /// Why it was skipped.
    pub reason: SkipReason,
}

/// Why an entry was skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipReason {
    /// It says `"disabled": true` (Cursor, Claude Desktop, Cline).
    Disabled,
    /// It is invalid: the error it would have been, as text.
    Invalid(String),
}

/// `disabled ("disabled": true)`, or `invalid: ` and the error.
impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkipReason::Disabled => f.write_str("disabled (\"disabled\": true)"),
            SkipReason::Invalid(error) => write!(f, "invalid: {error}"),
        }
    }
}

impl Config {
    /// This configuration with `server` added (or replaced) under `name`: a configuration built
    /// in code, `Config::default().with_server("docs", ServerConfig::streamable_http(url))`.
    #[must_use]
    pub fn with_server(mut self, name: impl Into<String>, server: ServerConfig) -> Self {
        self.servers.insert(name.into(), server);
        self
    }
}

/// The format a configuration was read in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigFormat {
    /// `mcp.json` v1 (`"version": 1`), strict: unknown fields are errors.
    #[default]
    V1,
    /// A `{"mcpServers": {...}}` wrapper (Cursor, Claude Desktop, plugins), best effort.
    McpServers,
    /// Claude Code's `.mcp.json`: a direct map of server name to `{command, args, env}`.
    ClaudeServerMap,
    /// VS Code's `{"servers": {name: {"type": "stdio"|"http"|"sse", ...}}}`, best effort.
    VsCode,
    /// No file was found: an empty configuration.
    Empty,
}

/// The `client` section of `mcp.json` v1.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClientConfig {
    /// The protocol version to request (a pinned version; `None`: negotiate automatically).
    pub protocol_version: Option<String>,
    /// Client capabilities announced to servers (a JSON object).
    pub capabilities: Option<Map<String, Value>>,
    /// Roots: when set, the client declares `capabilities.roots` and answers `roots/list`.
    pub roots: Option<Vec<Root>>,
}

/// A root offered to servers through `roots/list`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Root {
    /// The root's URI (non-empty), usually `file://…`.
    pub uri: String,
    /// A display name (non-empty when present).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The transport of a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Transport {
    /// A child process speaking over stdin/stdout.
    Stdio,
    /// An existing unix domain socket.
    Unix,
    /// A remote streamable HTTP endpoint.
    StreamableHttp,
}

impl ConfigFormat {
    /// A short name: `v1`, `mcpServers`, `claude_server_map`, `vscode`, `empty`.
    pub fn as_str(self) -> &'static str {
        match self {
            ConfigFormat::V1 => "v1",
            ConfigFormat::McpServers => "mcpServers",
            ConfigFormat::ClaudeServerMap => "claude_server_map",
            ConfigFormat::VsCode => "vscode",
            ConfigFormat::Empty => "empty",
        }
    }
}

impl Transport {
    /// The name used in `mcp.json` (`stdio`, `unix`, `streamable_http`).
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Unix => "unix",
            Transport::StreamableHttp => "streamable_http",
        }
    }
}

/// One server's configuration, by transport.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ServerConfig {
    /// `transport: "stdio"`.
    Stdio(StdioServer),
    /// `transport: "unix"`.
    Unix(UnixServer),
    /// `transport: "streamable_http"`.
    StreamableHttp(StreamableHttpServer),
}

/// A server spawned as a child process.
#[derive(Debug, Clone, PartialEq)]
pub struct StdioServer {
    /// Program and arguments (non-empty; no empty item). May contain `${VAR}` placeholders,
    /// expanded in Trusted mode only.
    pub argv: Vec<String>,
    /// Variables added to the child's environment (values may contain `${VAR}`).
    pub env: BTreeMap<String, String>,
    /// Inherit this process's whole environment (default `false`: the child gets only
    /// [`mcp_jsonrpc::BASELINE_ENV_VARS`] and [`env`](Self::env), so the parent's secrets do not
    /// reach a server that was not given them). `"inherit_env": true` in the configuration
    /// (every format) opts in.
    pub inherit_env: bool,
    /// Rotating log of the server's stdout.
    pub stdout_log: Option<StdoutLogConfig>,
    /// A dotenv file (VS Code's `envFile`) whose variables the child gets too, under those of
    /// [`env`](Self::env), which win. The path may hold placeholders and is relative to the
    /// root; the file is read when the server is started, in Trusted mode only (see
    /// [`ServerConfig::expanded`]).
    pub env_file: Option<String>,
}

/// A server reached through an existing unix domain socket.
#[derive(Debug, Clone, PartialEq)]
pub struct UnixServer {
    /// The socket path (relative paths are resolved against the root).
    pub unix_path: PathBuf,
}

/// A remote server over streamable HTTP.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamableHttpServer {
    /// The endpoint URL(s).
    pub urls: HttpUrls,
    /// Static headers sent with every request.
    pub http_headers: BTreeMap<String, String>,
    /// Name of an environment variable holding a bearer token (`Authorization: Bearer …`);
    /// read in Trusted mode only.
    pub bearer_token_env_var: Option<String>,
    /// Header name → name of the environment variable holding its value; Trusted mode only.
    pub env_http_headers: BTreeMap<String, String>,
    /// How the client authorizes at this server with OAuth (`oauth`), when set.
    pub oauth: Option<OAuthSettings>,
}

/// A server's `oauth` settings: a client registered with its authorization server
/// beforehand, the scopes to ask for, the loopback redirect port. Used when OAuth is on
/// (`Manager::with_oauth`, feature `oauth`; mcpctl turns it on).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OAuthSettings {
    /// The `client_id` of a client registered beforehand (else the client registers itself).
    pub client_id: Option<String>,
    /// Name of an environment variable holding that client's secret; read in Trusted mode
    /// only.
    pub client_secret_env_var: Option<String>,
    /// The issuer the client is registered at: its credentials go to that authorization
    /// server only.
    pub issuer: Option<String>,
    /// The scopes of a first authorization (default: what the server asks for, else all it
    /// publishes).
    pub scopes: Option<Vec<String>>,
    /// The port of the loopback redirect (`http://127.0.0.1:PORT/callback`), for an
    /// authorization server that registered another than the default.
    pub redirect_port: Option<u16>,
}

/// Where a streamable HTTP server listens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HttpUrls {
    /// `url`: one endpoint for GET (SSE) and POST.
    Single(String),
    /// `sse_url` + `http_url`: separate endpoints.
    Split {
        /// The GET SSE stream URL.
        sse_url: String,
        /// The POST URL.
        http_url: String,
    },
}

impl HttpUrls {
    /// The URL of the GET stream.
    pub fn sse_url(&self) -> &str {
        match self {
            HttpUrls::Single(url) => url,
            HttpUrls::Split { sse_url, .. } => sse_url,
        }
    }

    /// The URL POSTs go to.
    pub fn http_url(&self) -> &str {
        match self {
            HttpUrls::Single(url) => url,
            HttpUrls::Split { http_url, .. } => http_url,
        }
    }
}

/// `stdout_log` of a stdio server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StdoutLogConfig {
    /// The log file (relative paths resolve against the root; no `..`; under the root unless
    /// allowed; no symlink component).
    pub path: PathBuf,
    /// Rotate before a part exceeds this many bytes (default 1 MiB, minimum 1).
    pub max_bytes_per_part: u64,
    /// Segments kept (default 32); `0` keeps all.
    pub max_parts: u32,
}

impl StdoutLogConfig {
    /// The default of `max_bytes_per_part`: 1 MiB.
    pub const DEFAULT_MAX_BYTES_PER_PART: u64 = 1024 * 1024;
    /// The default of `max_parts`.
    pub const DEFAULT_MAX_PARTS: u32 = 32;

    /// A log at `path` with the default rotation (1 MiB parts, 32 kept).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        StdoutLogConfig {
            path: path.into(),
            max_bytes_per_part: Self::DEFAULT_MAX_BYTES_PER_PART,
            max_parts: Self::DEFAULT_MAX_PARTS,
        }
    }
}

impl ServerConfig {
    /// The server's transport.
    pub fn transport(&self) -> Transport {
        match self {
            ServerConfig::Stdio(_) => Transport::Stdio,
            ServerConfig::Unix(_) => Transport::Unix,
            ServerConfig::StreamableHttp(_) => Transport::StreamableHttp,
        }
    }

    /// A stdio server running `argv` (the baseline environment, no stdout log).
    pub fn stdio<S: Into<String>>(argv: impl IntoIterator<Item = S>) -> Self {
        ServerConfig::Stdio(StdioServer {
            argv: argv.into_iter().map(Into::into).collect(),
            env: BTreeMap::new(),
            inherit_env: false,
            stdout_log: None,
            env_file: None,
        })
    }

    /// A unix-socket server.
    pub fn unix(path: impl Into<PathBuf>) -> Self {
        ServerConfig::Unix(UnixServer {
            unix_path: path.into(),
        })
    }

    /// A streamable HTTP server at one URL.
    pub fn streamable_http(url: impl Into<String>) -> Self {
        ServerConfig::StreamableHttp(StreamableHttpServer {
            urls: HttpUrls::Single(url.into()),
            http_headers: BTreeMap::new(),
            bearer_token_env_var: None,
            env_http_headers: BTreeMap::new(),
            oauth: None,
        })
    }

    /// A streamable HTTP server with separate GET (SSE) and POST URLs.
    pub fn streamable_http_split(sse_url: impl Into<String>, http_url: impl Into<String>) -> Self {
        ServerConfig::StreamableHttp(StreamableHttpServer {
            urls: HttpUrls::Split {
                sse_url: sse_url.into(),
                http_url: http_url.into(),
            },
            http_headers: BTreeMap::new(),
            bearer_token_env_var: None,
            env_http_headers: BTreeMap::new(),
            oauth: None,
        })
    }
}

/// True for a valid server name: non-empty, `[a-zA-Z0-9_-]` only.
pub fn is_valid_server_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}
