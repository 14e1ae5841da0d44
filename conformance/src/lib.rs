//! `mcp-kit` against the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`).
//!
//! - [`client`]: what the `conformance-client` binary does. The suite starts a scenario server,
//!   then runs `conformance-client <url>` with `MCP_CONFORMANCE_SCENARIO` (and
//!   `MCP_CONFORMANCE_PROTOCOL_VERSION`, `MCP_CONFORMANCE_CONTEXT`) set; the client acts the
//!   scenario out through the public API of `mcp-kit` only, and the server judges it.
//!
//! This crate is also the most complete example of `mcp-kit` as a client library: a
//! configuration built in code, the Untrusted policy relaxed for a local endpoint, handlers for
//! server requests (elicitation) and notifications, both protocol eras, tools, resources and
//! prompts, and multi round-trip requests.
//!
//! Run it by hand (after `scripts/install-peers.sh` and `source scripts/peers/env.sh`):
//!
//! ```text
//! cargo build -p mcp-conformance
//! "$CONFORMANCE" client --command target/debug/conformance-client --scenario tools_call \
//!     --spec-version 2025-11-25 -o /tmp/conformance
//! ```

pub mod client;
pub mod server;
