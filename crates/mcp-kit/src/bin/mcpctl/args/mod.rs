//! The command line: global options and subcommands (clap derive).
//!
//! docs/cli.md documents every option declared here; the `help_matches_the_docs` test in
//! `tests/mcpctl.rs` fails when the two drift apart.

use std::path::PathBuf;

use clap::builder::TypedValueParser;
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use clap_complete::engine::CompletionCandidate;
use mcp_kit::mcp::LoggingLevel;

mod subcommands;

pub(crate) use subcommands::*;

/// The exit codes, as `--help` lists them (kept in step with [`crate::exit::Exit`]).
const EXIT_CODES: &str = "\
Exit codes:
  0    success
  1    the server or the tool failed (JSON-RPC error, a tool result with isError: true,
       a malformed answer)
  2    usage or configuration error (bad flags or arguments, invalid mcp.json, unknown server)
  3    refused by the trust policy (e.g. stdio without --trust, http:// without --allow-http)
  4    connection failure or timeout
  5    authorization required or failed (OAuth: `mcpctl login SERVER` first)
  130  interrupted by Ctrl-C (the request in flight was cancelled first)

Output: tables when stdout is a terminal, pretty JSON when it is not; --json prints compact
JSON, --output chooses explicitly. What the server sends besides the result (progress, log
messages, its requests) and mcpctl's own logs (filter: RUST_LOG, default warn) go to stderr.";

/// The help heading of the global options.
const GLOBAL: &str = "Global options";

/// The help heading of the security options (global too).
const SECURITY: &str = "Security options (global)";

/// The help heading of the options of a server named on the command line.
const LAUNCH: &str = "Server on the command line (global)";

/// The help heading of the options that say how server→client messages are answered or shown.
const SERVER_SIDE: &str = "What the server sends (global)";

/// How a server is named, as the subcommands' help says it.
pub(super) const TARGET_HELP: &str = "SERVER is a server's name in the configuration, or an http(s) URL \
(a streamable HTTP server). Instead of SERVER, a stdio server's command may follow `--`: \
`mcpctl list-tools -- node server.js`. A URL or command typed here is trusted (you typed it); \
no configuration file is read for it.";

/// What a subcommand's help says in place of the global options.
const GLOBALS_ELSEWHERE: &str = "Global options (--json, --output, --quiet, --timeout-ms, --trust, \
--allow-*, -e/--env, --header, --log-level, --wire, --elicit, …) are accepted too: see `mcpctl --help`.";

/// Parses the command line. A subcommand's help (`mcpctl call -h`, `mcpctl help call`) shows
/// the subcommand's own options and refers to `mcpctl --help` for the global ones, which would
/// otherwise bury them.
pub(crate) fn parse() -> Cli {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let mut command = Cli::command();
    if asks_subcommand_help(&command, &argv) {
        command = command
            .mut_args(|arg| {
                if arg.is_global_set() {
                    arg.hide(true)
                } else {
                    arg
                }
            })
            .mut_subcommands(|sub| {
                let after = match sub.get_after_help() {
                    Some(text) => format!("{text}\n\n{GLOBALS_ELSEWHERE}"),
                    None => GLOBALS_ELSEWHERE.to_owned(),
                };
                sub.after_help(after)
            });
    }
    let matches = command.get_matches_from(argv);
    Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

/// Completes a server name from the configuration the current directory finds (what
/// `mcpctl list-servers` lists), for the shells' dynamic completion (`mcpctl completions`).
pub(super) fn configured_servers(current: &std::ffi::OsStr) -> Vec<CompletionCandidate> {
    let Some(prefix) = current.to_str() else {
        return Vec::new();
    };
    let Ok(root) = std::env::current_dir() else {
        return Vec::new();
    };
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return Vec::new();
    };
    let Ok(config) = runtime.block_on(mcp_kit::Config::load(&root, None)) else {
        return Vec::new();
    };
    config
        .servers
        .iter()
        .filter(|(name, _)| name.starts_with(prefix))
        .map(|(name, server)| {
            CompletionCandidate::new(name).help(Some(server.transport().as_str().into()))
        })
        .collect()
}

/// Whether `argv` asks for a subcommand's help: `-h`/`--help` with a subcommand's name, or
/// `help NAME` (before any `--`).
fn asks_subcommand_help(command: &clap::Command, argv: &[std::ffi::OsString]) -> bool {
    let words: Vec<&str> = argv
        .iter()
        .skip(1)
        .filter_map(|a| a.to_str())
        .take_while(|a| *a != "--")
        .collect();
    let is_subcommand = |word: &&str| command.find_subcommand(word).is_some();
    let named = words.iter().any(|w| *w != "help" && is_subcommand(w));
    let help = words.iter().any(|w| matches!(*w, "-h" | "--help" | "help"));
    named && help
}

/// `mcpctl`: a config-driven MCP client (stdio, unix, streamable HTTP) for inspecting and
/// debugging servers.
#[derive(Debug, Parser)]
#[command(
    name = "mcpctl",
    version,
    about = "A config-driven MCP client: inspect and debug the servers of an mcp.json",
    long_about = "A config-driven MCP client: inspect and debug the servers of an mcp.json \
                  (transports stdio, unix and streamable_http).\n\n\
                  The configuration is --config, else the first of <root>/.mcp.json, mcp.json, \
                  .cursor/mcp.json and .vscode/mcp.json. \
                  The configuration is untrusted by default: stdio and unix servers need \
                  --trust, and remote servers must be https on a public host unless an \
                  --allow-* option relaxes that.",
    after_help = EXIT_CODES,
    propagate_version = true,
    max_term_width = 100
)]
pub(crate) struct Cli {
    /// Options that apply to every subcommand.
    #[command(flatten)]
    pub(crate) global: GlobalArgs,

    /// What to do.
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// How results are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum OutputFormat {
    /// Human-readable tables and text (the default when stdout is a terminal).
    Table,
    /// Compact JSON on one line (same as --json).
    Json,
    /// Indented JSON (the default when stdout is not a terminal).
    Pretty,
}

/// The options shared by all subcommands (accepted before or after the subcommand).
#[derive(Debug, Args)]
pub(crate) struct GlobalArgs {
    /// Workspace root: base of relative paths and working directory of stdio servers
    /// [default: the current directory]
    #[arg(long, global = true, value_name = "PATH", help_heading = GLOBAL)]
    pub(crate) root: Option<PathBuf>,

    /// Configuration file (absolute, or relative to --root) [default: the first of
    /// <root>/.mcp.json, mcp.json, .cursor/mcp.json, .vscode/mcp.json]
    #[arg(long, global = true, value_name = "PATH", help_heading = GLOBAL)]
    pub(crate) config: Option<PathBuf>,

    /// Print compact JSON (same as --output json)
    #[arg(long, global = true, conflicts_with = "output", help_heading = GLOBAL)]
    pub(crate) json: bool,

    /// Output format [default: table when stdout is a terminal, else pretty]
    #[arg(long, global = true, value_enum, value_name = "FORMAT", help_heading = GLOBAL)]
    pub(crate) output: Option<OutputFormat>,

    /// Hide what stdio servers write to stderr (it is shown by default; when a server fails,
    /// its last lines are part of the error either way)
    #[arg(short, long, global = true, help_heading = GLOBAL)]
    pub(crate) quiet: bool,

    /// Per-request timeout in milliseconds
    #[arg(
        long,
        global = true,
        value_name = "MS",
        default_value_t = 30_000,
        value_parser = clap::value_parser!(u64).range(1..),
        help_heading = GLOBAL
    )]
    pub(crate) timeout_ms: u64,

    /// The value of a VS Code input, `${input:ID}` in the configuration (repeatable) [default:
    /// asked on a terminal]
    #[arg(long, global = true, value_name = "ID=VALUE", help_heading = GLOBAL)]
    pub(crate) input: Vec<String>,

    /// Pin the protocol version instead of negotiating it (overrides client.protocol_version
    /// of the configuration)
    #[arg(long, global = true, value_name = "VERSION", help_heading = GLOBAL)]
    pub(crate) protocol_version: Option<String>,

    /// Trust the configuration fully: spawn stdio servers, connect unix sockets, read env
    /// secrets, send authentication headers (a URL or command typed on the command line is
    /// always trusted)
    #[arg(
        long,
        global = true,
        env = "MCPCTL_TRUST",
        value_parser = clap::builder::FalseyValueParser::new(),
        help_heading = SECURITY
    )]
    pub(crate) trust: bool,

    /// Allow stdout_log.path outside --root (refused by default)
    #[arg(long, global = true, help_heading = SECURITY)]
    pub(crate) allow_stdout_log_outside_root: bool,

    /// list-servers: print the argv of stdio servers (hidden by default: it may hold secrets)
    #[arg(long, global = true, help_heading = SECURITY)]
    pub(crate) show_argv: bool,

    /// Untrusted: allow http:// URLs (default: https only)
    #[arg(long, global = true, help_heading = SECURITY)]
    pub(crate) allow_http: bool,

    /// Untrusted: allow localhost, *.localhost, *.local, *.localdomain and single-label hosts
    #[arg(long, global = true, help_heading = SECURITY)]
    pub(crate) allow_localhost: bool,

    /// Untrusted: allow non-global IP literals (loopback, private, link-local, ...)
    #[arg(long, global = true, help_heading = SECURITY)]
    pub(crate) allow_private_ip: bool,

    /// Untrusted: resolve hostnames and refuse those resolving to non-global IPs
    #[arg(long, global = true, help_heading = SECURITY)]
    pub(crate) dns_check: bool,

    /// DNS lookup timeout in milliseconds (with --dns-check)
    #[arg(
        long,
        global = true,
        value_name = "MS",
        default_value_t = 2_000,
        value_parser = clap::value_parser!(u64).range(1..),
        help_heading = SECURITY
    )]
    pub(crate) dns_timeout_ms: u64,

    /// Let a failed or timed-out DNS lookup through (with --dns-check; default: refuse)
    #[arg(long, global = true, help_heading = SECURITY)]
    pub(crate) dns_fail_open: bool,

    /// Untrusted: only allow this host and its subdomains (repeatable)
    #[arg(long, global = true, value_name = "HOST", help_heading = SECURITY)]
    pub(crate) allow_host: Vec<String>,

    /// A variable for the server command after `--` (repeatable; the server otherwise gets
    /// only PATH, HOME and the like)
    #[arg(short = 'e', long = "env", global = true, value_name = "KEY=VALUE", help_heading = LAUNCH)]
    pub(crate) env: Vec<String>,

    /// The working directory of the server command after `--` [default: the current directory]
    #[arg(long, global = true, value_name = "DIR", help_heading = LAUNCH)]
    pub(crate) cwd: Option<PathBuf>,

    /// A header sent to a server given by URL (repeatable)
    #[arg(long, global = true, value_name = "NAME: VALUE", help_heading = LAUNCH)]
    pub(crate) header: Vec<String>,

    /// Ask the server for log messages at LEVEL and above (both eras); they are shown on
    /// stderr
    #[arg(
        long,
        global = true,
        value_name = "LEVEL",
        value_parser = clap::builder::PossibleValuesParser::new(LoggingLevel::KNOWN)
            .map(|level| LoggingLevel::from(level.as_str())),
        help_heading = SERVER_SIDE
    )]
    pub(crate) log_level: Option<LoggingLevel>,

    /// Print every JSON-RPC message, both ways, on stderr (values of secret-looking keys,
    /// headers and -e variables redacted)
    #[arg(long, global = true, help_heading = SERVER_SIDE)]
    pub(crate) wire: bool,

    /// Answer elicitation requests without asking: decline, cancel, accept (with no content:
    /// URL mode), or json=FILE (accept with the JSON object in FILE) [default: a form on a
    /// terminal, else decline]
    #[arg(long, global = true, value_name = "ANSWER", value_parser = parse_elicit, help_heading = SERVER_SIDE)]
    pub(crate) elicit: Option<ElicitAnswer>,

    /// Answer sampling requests (sampling/createMessage) with this text [default: sampling is
    /// not offered, and refused if asked]
    #[arg(long, global = true, value_name = "TEXT", conflicts_with = "sampling_command", help_heading = SERVER_SIDE)]
    pub(crate) sampling_reply: Option<String>,

    /// Answer sampling requests with the output of this shell command, which gets the
    /// request's params as JSON on stdin
    #[arg(long, global = true, value_name = "COMMAND", help_heading = SERVER_SIDE)]
    pub(crate) sampling_command: Option<String>,

    /// Declare a root (a directory the server may work in) and answer roots/list with it
    /// (repeatable)
    #[arg(long, global = true, value_name = "DIR", help_heading = SERVER_SIDE)]
    pub(crate) root_dir: Vec<PathBuf>,
}

/// `--elicit`: how elicitation requests are answered without a form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ElicitAnswer {
    /// `decline`.
    Decline,
    /// `cancel`.
    Cancel,
    /// `accept` (no content), or `json=FILE`: accept with the object in the file.
    Accept(Option<PathBuf>),
}

fn parse_elicit(text: &str) -> Result<ElicitAnswer, String> {
    match text {
        "decline" => Ok(ElicitAnswer::Decline),
        "cancel" => Ok(ElicitAnswer::Cancel),
        "accept" => Ok(ElicitAnswer::Accept(None)),
        _ => match text.strip_prefix("json=") {
            Some(path) if !path.is_empty() => Ok(ElicitAnswer::Accept(Some(PathBuf::from(path)))),
            _ => Err("expected decline, cancel, accept or json=FILE".to_owned()),
        },
    }
}

/// The subcommands.
#[derive(Debug, Clone, Subcommand)]
pub(crate) enum Command {
    /// Print the parsed configuration: the client section and each server's key fields
    /// (never secrets)
    ListServers,

    /// Show what the handshake negotiated: protocol version, server info, capabilities
    ServerInfo(ServerArg),

    /// List a server's tools (all pages)
    ListTools(ServerArg),

    /// List a server's resources (all pages)
    ListResources(ServerArg),

    /// List a server's resource templates (all pages)
    ListResourceTemplates(ServerArg),

    /// List a server's prompts (all pages)
    ListPrompts(ServerArg),

    /// Call a tool
    Call(CallArgs),

    /// Read or cancel a task a tool call became (tasks extension, protocol 2026-07-28)
    Task(TaskArgs),

    /// Read a resource
    ReadResource(ReadResourceArgs),

    /// Get a prompt
    GetPrompt(GetPromptArgs),

    /// Ask for completions of a prompt argument or a resource template variable
    Complete(CompleteArgs),

    /// Check that a server answers
    Ping(ServerArg),

    /// List a server's skills (SEP-2640), or show, read or browse one: `skills SERVER`,
    /// `skills get|read|ls SERVER …`
    Skills(SkillsArgs),

    /// Send a raw JSON-RPC request and print its result
    Request(RawArgs),

    /// Send a raw JSON-RPC notification
    Notify(RawArgs),

    /// Trust the configuration found from --root (or --config) until it changes: its stdio
    /// servers start and its placeholders expand without --trust
    Trust,

    /// Forget that the configuration found from --root (or --config) is trusted
    Untrust,

    /// Log in to a server that needs OAuth: authorize in the browser, keep the tokens for
    /// later commands
    Login(LoginArgs),

    /// Forget a server's OAuth tokens and registration
    Logout(LogoutArgs),

    /// Show the OAuth tokens kept for the configured servers: issuer, scopes, expiry (never
    /// a token)
    AuthStatus,

    /// Print a shell completion script
    Completions(CompletionsArgs),
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::Cli;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }
}
