//! Benchmarks of `mcp-jsonrpc` against rmcp (used here as a benchmark peer only).
//!
//! Run everything, and write `docs/benchmarks.md`, with
//! `cargo run --release --manifest-path bench/Cargo.toml --bin jsonrpc-bench`.

pub mod codec;
pub mod echo;
pub mod payload;
pub mod report;
pub mod rtt;
