//! The mcpx benchmark (`mcpx-bench`): what the proxy saves in the agent's prompt and what it
//! adds to a call.
//!
//! - [`setup`]: the programs, the upstream servers and the clients (direct or through mcpx).
//! - [`tokens`]: direct `tools/list` against mcpx's two tools; the listing at several budgets;
//!   `inspect(server, tool)` against each tool's JSON.
//! - [`latency`]: `echo` directly and through `exec`, over stdio and HTTP.
//! - [`report`]: the `## mcpx` part of `docs/benchmarks.md`.

pub mod latency;
pub mod report;
pub mod setup;
pub mod tokens;
