//! `mcpctl`: the command-line MCP client of `mcp-kit` (feature `cli`).
//!
//! It loads `mcp.json` like [`mcp_kit::Config::load`], builds a [`mcp_kit::Manager`] from the
//! configuration and the flags (untrusted unless `--trust`), and runs one subcommand against
//! one server. Results go to stdout (tables on a terminal, JSON otherwise); logs, the spinner
//! and errors go to stderr. The reference is docs/cli.md.

mod answers;
mod args;
mod client;
mod commands;
mod config_view;
mod console;
mod era_cache;
mod exit;
mod form;
mod inputs;
mod oauth;
mod output;
mod skills;
mod spinner;
mod state_files;
mod target;
mod tasks;
mod trust_store;
mod views;
mod wire;

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Duration;

use tracing_subscriber::EnvFilter;

use crate::exit::Exit;

/// How long the runtime waits for its remaining tasks when mcpctl exits.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(1);

/// Logs go to stderr, filtered by `RUST_LOG` (default `warn`), so stdout only carries the
/// result.
fn init_logging() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
}

fn main() -> ExitCode {
    // A shell asking for completions (`COMPLETE=bash mcpctl -- …`) is answered here.
    clap_complete::CompleteEnv::with_factory(<args::Cli as clap::CommandFactory>::command)
        .complete();
    // Usage errors exit with 2 here (clap's code), --help and --version with 0.
    let cli = args::parse();
    init_logging();
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            let error = anyhow::Error::new(e).context("cannot start the async runtime");
            return ExitCode::from(exit::report(&error).code());
        }
    };
    let outcome = runtime.block_on(commands::run(cli));
    runtime.shutdown_timeout(SHUTDOWN_GRACE);
    match outcome {
        Ok(()) => ExitCode::from(Exit::Success.code()),
        Err(error) => ExitCode::from(exit::report(&error).code()),
    }
}
