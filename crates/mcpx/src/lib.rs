//! # mcpx
//!
//! An MCP proxy for agents that use many servers: it connects to every configured upstream,
//! caches their tools, and shows the downstream client only two tools, `inspect` and `exec`.
//! Schemas are read on demand, as TypeScript types and TOON, so the agent's prompt carries a
//! short listing instead of every tool schema of every server.

// Module layers, bottom up; a module imports only modules on lower lines:
//
//   text               leaf: token counts, TOON, search, one-line and cut text
//   typescript         JSON Schema → TypeScript (its comments use text's one-line form)
//   options            the proxy's options (the `mcpx` object of the configuration, env vars)
//   registry           the upstreams: supervised connections, cached catalogs, statuses
//   config             which file, trusted or not, its servers and options
//   exec               `exec`: validate, route, call, forward progress and client requests
//   inspect            `inspect`: schemas for the model and for programs; search
//   listing            the `inspect` description within its token budget
//   proxy              the downstream MCP server of the two tools
//   report             `mcpx check` and `mcpx tokens`: upstream states, token savings

pub mod config;
pub mod exec;
pub mod inspect;
pub mod listing;
pub mod options;
pub mod proxy;
pub mod registry;
pub mod report;
pub mod text;
pub mod typescript;
