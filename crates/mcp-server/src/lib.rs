//! # mcp-server
//!
//! A Model Context Protocol server framework: register tools, resources, prompts and
//! completions; serve them over stdio or streamable HTTP to clients of every protocol
//! version, the stateful era (`initialize`, 2024-11-05 … 2025-11-25) and the stateless one
//! (2026-07-28, `server/discover`) on the same endpoint.
#![doc = include_str!("../README.md")]

pub mod auth;
#[cfg(feature = "config")]
mod config;
mod context;
mod dispatch;
mod error;
pub mod middleware;
#[cfg(feature = "http")]
mod ops;
mod registry;
mod server;
mod session;
mod signals;
mod signing;
mod transport;
pub mod uri_template;
mod validate;

#[cfg(feature = "config")]
pub use config::{AuthConfig, ConfigError, ENV_VARS, OAuthConfig, ServerConfig};
pub use context::RequestContext;
pub use error::{Error, Result};
pub use registry::BoxFuture;
pub use registry::completion::{Choices, Completer, CompletionRequest};
pub use registry::prompt::{IntoPromptResult, PromptArguments, PromptDef};
pub use registry::resource::{IntoContents, ResourceDef, ResourceTemplateDef};
pub use registry::tool::{IntoToolResult, Json, NoArguments, ToolDef, schema_of};
pub use server::{Server, ServerBuilder, ServerOptions};
#[cfg(feature = "http")]
pub use transport::http::TlsConfig;
#[cfg(feature = "http")]
pub use transport::http::{
    EventStore, HttpOptions, HttpServer, HttpSessions, MemoryEventStore, ProtectedResourceMetadata,
};
pub use validate::SchemaError;

/// The protocol types (`mcp-schema`), re-exported so servers need one dependency.
pub use mcp_schema as schema;
/// `schemars`, whose `JsonSchema` derive typed tool arguments need. Depend on `schemars = "1"`
/// directly (the derive names the crate `schemars`), or point the derive here with
/// `#[schemars(crate = "mcp_server::schemars")]`.
pub use schemars;
