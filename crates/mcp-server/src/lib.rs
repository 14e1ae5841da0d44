//! # mcp-server
//!
//! A Model Context Protocol server framework: register tools, resources, prompts and
//! completions; serve them over stdio or streamable HTTP to clients of every protocol
//! version, the stateful era (`initialize`, 2024-11-05 … 2025-11-25) and the stateless one
//! (2026-07-28, `server/discover`) on the same endpoint.
#![doc = include_str!("../README.md")]

// Module layers, bottom up; a module imports only modules on lower lines (never one that
// imports it back):
//
//   error, signing, uri_template, validate, auth, metrics, boxed   leaves
//   tasks       the tasks extension: task records, their store, the runs of this process
//   shared      the part of a server every session holds: identity, options, key, metrics
//   session     one client's state: negotiated era, requests in flight and to the client
//   context     RequestContext: what a handler can do (progress, log, cancel, ask the client)
//   registry    tools, resources, prompts, completers (handlers take a context); change feed
//   middleware  the chain around every request, and the built-in links
//   server      Server and ServerBuilder: registry + middleware + shared; gives contexts and
//               sessions their server back (they hold it type-erased, being below it)
//   dispatch    one request: envelope, era, typed routing, input rounds, result stamping
//   transport   stdio, streamable HTTP, WebSocket, and the ops endpoints: bytes to dispatch
//   signals     SIGINT/SIGTERM for a graceful shutdown
//   config      what binaries use to configure and run a server

pub mod auth;
mod boxed;
#[cfg(feature = "config")]
mod config;
mod context;
mod dispatch;
mod error;
mod metrics;
pub mod middleware;
mod registry;
mod server;
mod session;
mod shared;
mod signals;
mod signing;
mod tasks;
mod transport;
pub mod uri_template;
mod validate;

#[cfg(feature = "config")]
pub use config::value as config_value;
#[cfg(feature = "config")]
pub use config::{AuthConfig, ConfigError, ENV_VARS, OAuthConfig, ServerConfig};
pub use context::RequestContext;
pub use error::{Error, Result};
pub use metrics::Metrics;
pub use registry::BoxFuture;
pub use registry::completion::{Choices, Completer, CompletionRequest};
pub use registry::prompt::{IntoPromptResult, PromptArguments, PromptDef};
pub use registry::resource::{IntoContents, ResourceDef, ResourceTemplateDef};
pub use registry::skill::{SkillDef, SkillError};
pub use registry::tool::{IntoToolResult, Json, NoArguments, ToolDef, schema_of};
pub use server::{Server, ServerBuilder};
pub use shared::ServerOptions;
pub use signals::{Signal, Signals};
pub use tasks::{
    Applied, Ending, MemoryTaskStore, TaskChange, TaskRecord, TaskStart, TaskStore, TaskStoreError,
    TaskSupport,
};
#[cfg(feature = "http")]
pub use transport::http::TlsConfig;
#[cfg(feature = "http")]
pub use transport::http::{
    BusMessage, Bytes, EventStore, Followed, HttpOptions, HttpServer, HttpSessions, Loaded,
    MemoryEventStore, MemorySessionStore, ProtectedResourceMetadata, SessionRecord, SessionStore,
    StoreError, StoreHealth, StoredStream,
};
#[cfg(feature = "redis")]
pub use transport::http::{RedisOptions, RedisSessionStore};
pub use validate::{CompiledSchema, SchemaError};

/// The protocol types (`mcp-schema`), re-exported so servers need one dependency.
pub use mcp_schema as schema;
/// `schemars`, whose `JsonSchema` derive typed tool arguments need. Depend on `schemars = "1"`
/// directly (the derive names the crate `schemars`), or point the derive here with
/// `#[schemars(crate = "mcp_server::schemars")]`.
pub use schemars;
