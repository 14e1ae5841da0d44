//! A config-driven, safe-by-default MCP client, for both protocol eras.
//!
//! - [`Config`] reads `mcp.json` (v1, strict) or the common compatible formats
//!   (`mcpServers`, Claude Code's server map, VS Code's `servers`).
//! - [`Manager`] connects to configured servers on demand over stdio, unix sockets or streamable
//!   HTTP, performs the handshake, caches the sessions, and offers typed helpers.
//! - [`Session`] is one live server connection you can hand to other code.
//! - [`TrustMode`] and [`UntrustedStreamableHttpPolicy`]: by default an `mcp.json` is not
//!   trusted — no processes are spawned, no unix sockets are opened, and remote servers must be
//!   `https` on public hosts, without credentials, sensitive headers or environment secrets.
//!
//! # Protocol eras
//!
//! By default the client negotiates: it sends `server/discover` (2026-07-28) and falls back to
//! `initialize` (up to 2025-11-25) when the server does not know it. A version can be pinned
//! ([`Manager::with_protocol_version`]). In the 2026-07-28 era every request carries the
//! protocol version, client info and capabilities in `_meta` (and `Mcp-Method`/`Mcp-Name`
//! headers on HTTP), and an `InputRequiredResult` is answered through the same handlers that
//! serve server→client requests in the older era, then retried — transparently to the caller.
//!
//! # Example
//!
//! ```no_run
//! use std::time::Duration;
//!
//! use mcp_kit::{Config, Manager, mcp};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let root = std::env::current_dir()?;
//! let config = Config::load(&root, None).await?;
//! let manager = Manager::new(config, root)
//!     .with_client_info("my-client", "0.1.0")
//!     .with_timeout(Duration::from_secs(30));
//! // Connects on first use; later calls, from any task, share the session.
//! let tools = manager
//!     .request_typed::<mcp::ListToolsRequest>("remote", None)
//!     .await?;
//! println!("{}", serde_json::to_string_pretty(&tools)?);
//! # Ok(())
//! # }
//! ```
//!
//! Server→client requests (sampling, elicitation, custom methods) reach a handler installed
//! with [`Manager::with_server_request_handler`]; `roots/list` is answered from the configured
//! roots and `ping` built in. Progress arrives as a stream
//! ([`Session::request_with_progress`]); a timeout or a dropped call sends
//! `notifications/cancelled`. The `cli` feature builds the `mcpctl` command-line client.

// Module layers, bottom up; a module imports only modules on lower lines:
//
//   config, security   leaves: what mcp.json says; the trust policy and its checks
//   arguments          command-line tool arguments (KEY=VALUE by schema, JSON objects)
//   terminal           plain-text tables and escaping for a terminal
//   error              Error: a refusal, a configuration error, a transport or JSON-RPC error
//   handlers           the caller's handlers for server→client requests and notifications
//   session            one live connection: handshake in either era, typed methods, input rounds
//   connect            a configured server → a connected peer, once the policy allows it
//   manager            Manager: configuration + policy + the cached, shared sessions

pub mod arguments;
#[cfg(feature = "oauth")]
pub mod auth;
pub mod config;
mod connect;
mod error;
mod handlers;
mod manager;
mod private_file;
pub mod security;
mod session;
pub mod terminal;

pub use config::{
    ClientConfig, Config, ConfigError, ConfigFormat, HttpUrls, Input, OAuthSettings, Root,
    ServerConfig, SkipReason, SkippedServer, StdioServer, StdoutLogConfig, StreamableHttpServer,
    Transport, UnixServer,
};
pub use error::Error;
pub use handlers::{
    BoxFuture, RequestOrigin, ServerNotificationContext, ServerNotificationHandler,
    ServerRequestContext, ServerRequestHandler, ServerRequestOutcome,
};
pub use manager::{DEFAULT_TIMEOUT, Manager};
pub use mcp_schema::{McpNotification, McpRequest};
pub use private_file::write_private_file;
pub use security::{PolicyError, TrustMode, UntrustedStreamableHttpPolicy};
pub use session::{
    CancelGuard, LoadedSkill, Negotiated, ProgressUpdate, Session, SkillFileContent, Subscription,
    TaskHandle, ToolCall, task_status_line,
};

/// Typed MCP messages (all of [`mcp_schema`]): method markers such as
/// [`mcp::ListToolsRequest`] for [`Manager::request_typed`], and every params and result type.
pub mod mcp {
    pub use mcp_schema::*;
}
