//! Benchmarks of `mcp-jsonrpc` and `mcp-server` against other implementations (rmcp, the
//! TypeScript and Python SDKs), used here as benchmark peers only.
//!
//! Run everything, and write `docs/benchmarks.md`, with `bench/run.sh` (see
//! `bench/README.md`).

pub mod cli;
pub mod codec;
pub mod echo;
pub mod load;
pub mod mcpx;
pub mod payload;
pub mod peer_args;
pub mod report;
pub mod rtt;
pub mod sandbox;
pub mod scaleout;
pub mod server_report;
pub mod tools;
