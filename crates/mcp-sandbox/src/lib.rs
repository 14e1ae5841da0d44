//! # mcp-sandbox
//!
//! An MCP server that runs code and commands for AI agents in isolated, persistent,
//! resource-limited sessions: `execute_code` (Python, Node.js), `execute_command`,
//! `get_sessions`, `stop_session`, `get_volume_path` (seed 004's tools), over streamable HTTP
//! (both protocol eras) or stdio. Each session is one long-lived interpreter in a sandbox of
//! its own — by default bubblewrap with new namespaces, a cgroup and a seccomp filter — with a
//! writable `/workspace` that clients can also read as resources.
#![doc = include_str!("../README.md")]

// Module layers, bottom up; a module imports only modules on lower lines:
//
//   flavor, template, workspace, owner   leaves: sizes, languages, reading files beneath a
//               directory, the names of what a server leaves on the host
//   backend     what isolates a session (the trait; `local`: bubblewrap, cgroups, seccomp)
//   driver      the host side of the interpreter driver: requests, fences, captured output
//   config      `[sandbox]` and the MSB_* variables; shared volumes
//   session     a session (sandbox + driver, executions one at a time) and the manager
//   tools       the five tools and their results
//   resources   workspace files as `sandbox://{session_id}/{path}`
//   server      the MCP server: start, serve, shut down

pub mod backend;
pub mod config;
pub mod driver;
pub mod flavor;
mod owner;
pub mod resources;
pub mod server;
pub mod session;
pub mod template;
pub mod tools;
mod workspace;

pub use config::{SandboxConfig, SandboxConfigError};
pub use flavor::Flavor;
pub use server::{SandboxServer, StartError, check_exposure};
pub use session::{SessionError, Sessions};
pub use template::Template;
