//! The scale-out benchmark (`scaleout-bench`): stateful sessions served by replicas of
//! `mcp-server`'s example server that share their sessions in Redis, behind haproxy balancing
//! round-robin without stickiness, against the single process without Redis.
//!
//! - [`setup`]: the programs and processes (Redis, haproxy, replicas) and their counters.
//! - [`measure`]: the layouts, their deployment and the closed-loop measurement.
//! - [`report`]: the `## Scale-out` part of `docs/benchmarks.md`.

pub mod measure;
pub mod report;
pub mod setup;
