//! `conformance-client [--scenario NAME] <server-url>`: acts out one client scenario of the MCP
//! conformance suite against `<server-url>` (the last argument).
//!
//! The scenario comes from `--scenario` or `MCP_CONFORMANCE_SCENARIO`; the protocol version
//! from `MCP_CONFORMANCE_PROTOCOL_VERSION`; scenario data from `MCP_CONFORMANCE_CONTEXT`. Logs
//! go to stderr (`RUST_LOG` filters them; default `info`). Exits 0 when the scenario ran to its
//! end, 1 otherwise (the suite's server decides whether the client conformed).

use std::process::ExitCode;

use mcp_conformance::client::{self, Invocation};
use tracing_subscriber::EnvFilter;

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .init();

    let invocation = match Invocation::from_args_and_env(std::env::args().skip(1)) {
        Ok(invocation) => invocation,
        Err(e) => {
            eprintln!("conformance-client: {e:#}");
            eprintln!("usage: conformance-client [--scenario NAME] <server-url>");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("conformance-client: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(client::run(&invocation)) {
        Ok(()) => {
            tracing::info!(scenario = %invocation.scenario, "scenario completed");
            ExitCode::SUCCESS
        }
        Err(e) => {
            tracing::error!(scenario = %invocation.scenario, "scenario failed: {e:#}");
            ExitCode::FAILURE
        }
    }
}
