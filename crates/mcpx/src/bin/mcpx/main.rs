//! `mcpx`: an MCP proxy that shows agents two tools, `inspect` and `exec`, in front of every
//! configured server. See `mcpx --help`.

mod args;
mod commands;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = args::Cli::parse();
    let filter = tracing_subscriber::EnvFilter::try_from_env("MCPX_LOG").unwrap_or_else(|_| {
        tracing_subscriber::EnvFilter::new(if args.verbose { "debug" } else { "warn" })
    });
    // Logs go to stderr: stdout belongs to the protocol on stdio.
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("mcpx: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(commands::run(args)) {
        Ok(code) => code,
        Err(e) => {
            let messages = mcp_kit::terminal::error_messages(e.as_ref());
            eprintln!(
                "mcpx: {}",
                mcp_kit::terminal::sanitize(&messages.join(": "))
            );
            ExitCode::FAILURE
        }
    }
}
