//! The sandbox benchmark (`sandbox-bench`): how long `mcp-sandbox` takes to give a new
//! session its first result (with and without warm sandboxes) against the bare interpreter
//! start, a call in an existing session, ten sessions at once, and the memory of an idle
//! session.
//!
//! - [`server`]: the server process (streamable HTTP or stdio) and its client (mcp-kit).
//! - [`measure`]: the floor, cold sessions, calls in a session, sessions at once.
//! - [`memory`]: the memory of idle sessions' sandboxes.
//! - [`report`]: the `## Sandbox` part of `docs/benchmarks.md`.

pub mod measure;
pub mod memory;
pub mod report;
pub mod server;
