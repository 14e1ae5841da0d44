//! JSON-RPC 2.0 for the Model Context Protocol.
//!
//! (crate documentation is completed below)

mod id;
pub mod message;

pub use id::Id;
pub use message::{ErrorObject, Message, Notification, error_codes};

#[cfg(feature = "client")]
mod client;
#[cfg(feature = "client")]
mod error;
#[cfg(feature = "client")]
mod framing;
#[cfg(feature = "http")]
mod http;
#[cfg(feature = "client")]
mod incoming;
#[cfg(feature = "client")]
mod options;
#[cfg(feature = "client")]
mod peer;
mod scan;
pub mod sse;
#[cfg(feature = "client")]
mod stdout_log;
#[cfg(feature = "client")]
mod stream;

#[cfg(feature = "client")]
pub use client::{Client, WaitOnTimeout};
#[cfg(feature = "client")]
pub use error::Error;
#[cfg(feature = "http")]
pub use http::StreamableHttpOptions;
#[cfg(feature = "client")]
pub use incoming::IncomingRequest;
#[cfg(feature = "client")]
pub use options::{BASELINE_ENV_VARS, Limits, SpawnOptions, StderrMode, StdoutLog};
#[cfg(feature = "client")]
pub use peer::{ClientHandle, ClientStats, PendingRequest};
