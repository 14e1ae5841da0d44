//! `mcpx`: an MCP proxy that shows agents two tools, `inspect` and `exec`, in front of every
//! configured server. See `mcpx --help`.

mod args;
mod commands;

use std::process::ExitCode;

use clap::Parser;

/// The error and its causes, each cause added only when the message does not already say it.
fn message(error: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in error.chain() {
        let part = cause.to_string();
        if !text.contains(&part) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&part);
        }
    }
    text
}

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
            eprintln!("mcpx: {}", message(&e));
            ExitCode::FAILURE
        }
    }
}
