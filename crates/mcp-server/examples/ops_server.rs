//! A server set up for operations: its settings from a TOML file and the `MCP_*` environment
//! variables, HTTPS when a certificate is configured (feature `tls`), `GET /health`, `/info`
//! and `/tools` beside `/mcp`, and a graceful shutdown on SIGINT/SIGTERM (requests in flight
//! finish, then it exits 0).
//!
//! ```text
//! cargo run -p mcp-server --example ops_server                  # MCP_* variables (and MCP_CONFIG)
//! cargo run -p mcp-server --example ops_server -- mcp.toml      # the file, then the variables
//! MCP_SERVER_PORT=9000 MCP_ENABLE_CORS=true cargo run -p mcp-server --example ops_server
//! curl -s http://127.0.0.1:9000/health
//! ```
//!
//! An invalid setting stops it at start with a message naming the key or variable (exit
//! status 2).

use std::process::ExitCode;
use std::time::Duration;

use mcp_server::{Error, Server, ServerConfig};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    /// The text to send back.
    message: String,
}

#[derive(Deserialize, JsonSchema)]
struct WorkArgs {
    /// How many seconds to work at most.
    seconds: u32,
}

fn server(config: &ServerConfig) -> Server {
    Server::builder("ops-server", env!("CARGO_PKG_VERSION"))
        .title("Operations example")
        .config(config)
        .tool(
            "echo",
            "Echoes a message back",
            |a: EchoArgs, _cx| async move { Ok(a.message) },
        )
        .tool(
            "work",
            "Works for up to `seconds` seconds, reporting progress each second; when the server \
             begins shutting down it stops at once and says so",
            |a: WorkArgs, cx| async move {
                let total = f64::from(a.seconds);
                cx.progress(0.0, Some(total), Some("started")).await;
                for done in 1..=a.seconds {
                    tokio::select! {
                        () = tokio::time::sleep(Duration::from_secs(1)) => {
                            cx.progress(f64::from(done), Some(total), None).await;
                        }
                        () = cx.server().shutting_down() => {
                            return Ok(format!(
                                "stopped after {} s: the server is shutting down",
                                done - 1
                            ));
                        }
                        () = cx.cancelled() => return Err(Error::cancelled()),
                    }
                }
                Ok(format!("worked {} s", a.seconds))
            },
        )
        .build()
}

#[tokio::main]
async fn main() -> ExitCode {
    let config = match std::env::args_os().nth(1) {
        Some(path) => ServerConfig::load(path),
        None => ServerConfig::from_env(),
    };
    let config = match config {
        Ok(config) => config,
        Err(e) => {
            eprintln!("ops_server: {e}");
            return ExitCode::from(2);
        }
    };
    let server = server(&config);
    let mut signals = match server.shutdown_on_signals() {
        Ok(signals) => signals,
        Err(e) => {
            eprintln!("ops_server: cannot handle signals: {e}");
            return ExitCode::FAILURE;
        }
    };
    let http = match server.bind_config(&config).await {
        Ok(http) => http,
        Err(e) => {
            eprintln!("ops_server: {e}");
            return ExitCode::FAILURE;
        }
    };
    eprintln!("MCP server listening on {}", http.url());
    let serving = http.wait();
    tokio::pin!(serving);
    loop {
        tokio::select! {
            // A signal is told before serving ends because of it.
            biased;
            signal = signals.next() => {
                if signal.again {
                    eprintln!("MCP server: {} received again, exiting now", signal.name);
                    return ExitCode::from(signal.exit_status);
                }
                eprintln!("MCP server: {} received, shutting down", signal.name);
            }
            served = &mut serving => {
                return match served {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(e) => {
                        eprintln!("ops_server: {e}");
                        ExitCode::FAILURE
                    }
                };
            }
        }
    }
}
