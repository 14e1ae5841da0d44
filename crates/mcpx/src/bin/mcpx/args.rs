//! The command line.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// An MCP proxy: connects to every configured MCP server and shows the agent only two tools,
/// `inspect` (find tools, read their schemas as TypeScript types) and `exec` (run one), so
/// tool schemas cost few tokens.
///
/// Without a command, serves the proxy on stdio (as Claude Desktop runs it), or on streamable
/// HTTP with --http. The configuration is --config / MCPX_CONFIG (trusted: it may spawn stdio
/// servers), else ./mcpx.json, ./.mcp.json, ./mcp.json (untrusted unless --trust). Every
/// format mcpctl reads is accepted, plus an optional "mcpx" object of proxy options:
/// schema_compression_enabled, max_description_len, listing_budget_tokens, connect_timeout,
/// call_timeout (seconds), and per server under "servers": connect_timeout, call_timeout,
/// include, exclude (tool-name globs), protocol_version (pinned instead of negotiated).
///
/// Environment: MCPX_CONFIG, MCPX_SCHEMA_COMPRESSION, MCPX_MAX_DESCRIPTION_LEN,
/// MCPX_LISTING_BUDGET_TOKENS, MCPX_CONNECT_TIMEOUT, MCPX_CALL_TIMEOUT (override the file);
/// MCPX_LOG (log filter, e.g. `mcpx=debug`; logs go to stderr).
#[derive(Debug, Parser)]
#[command(name = "mcpx", version)]
pub(crate) struct Cli {
    /// The configuration file; a file named here is trusted (stdio servers are spawned,
    /// ${VAR} placeholders expanded).
    #[arg(long, global = true, env = "MCPX_CONFIG", value_name = "PATH")]
    pub(crate) config: Option<PathBuf>,
    /// Trust a configuration found in the working directory (./mcpx.json, ./.mcp.json,
    /// ./mcp.json) as if it were named with --config.
    #[arg(long, global = true)]
    pub(crate) trust: bool,
    /// Untrusted configurations: allow plain http:// servers.
    #[arg(long, global = true)]
    pub(crate) allow_http: bool,
    /// Untrusted configurations: allow servers on localhost / loopback addresses.
    #[arg(long, global = true)]
    pub(crate) allow_localhost: bool,
    /// Untrusted configurations: allow servers on private (and loopback) addresses.
    #[arg(long, global = true)]
    pub(crate) allow_private_ip: bool,
    /// Serve streamable HTTP on this address (e.g. 127.0.0.1:8080; the endpoint is /mcp)
    /// instead of stdio.
    #[arg(long, value_name = "HOST:PORT")]
    pub(crate) http: Option<String>,
    /// Print JSON even on a terminal (commands print a table on a terminal, JSON otherwise).
    #[arg(long, global = true)]
    pub(crate) json: bool,
    /// Debug logs on stderr (MCPX_LOG sets a finer filter).
    #[arg(long, short, global = true)]
    pub(crate) verbose: bool,
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Connect to every upstream and show a line each: state, era, protocol, tools, latency, error.
    /// Exits 1 when any upstream is not ready.
    Check,
    /// Token report (o200k): each upstream's direct tools/list versus mcpx's initial
    /// exposure, and the size of inspect answers.
    Tokens,
    /// Show a server's tools, one tool's schema, or search with --query (what the agent's
    /// inspect returns; --raw for the untouched JSON).
    Inspect {
        /// The server.
        server: Option<String>,
        /// One of its tools.
        tool: Option<String>,
        /// Search every tool's name and description.
        #[arg(long, short)]
        query: Option<String>,
        /// Print the raw JSON (schemas untouched) instead of the text the model gets.
        #[arg(long)]
        raw: bool,
    },
    /// Run a tool through the proxy, as the agent's exec does.
    Exec {
        /// The server.
        server: String,
        /// The tool.
        tool: String,
        /// Arguments as KEY=VALUE, converted by the tool's input schema (as mcpctl call).
        #[arg(value_name = "KEY=VALUE")]
        pairs: Vec<String>,
        /// Arguments as one JSON object (merged under the KEY=VALUE ones).
        #[arg(long, value_name = "JSON")]
        arguments_json: Option<String>,
    },
}
