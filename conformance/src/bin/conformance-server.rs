//! The fixture server of the conformance suite's server scenarios.
//!
//! ```text
//! conformance-server --port 3001      # serves http://127.0.0.1:3001/mcp
//! "$CONFORMANCE" server --url http://localhost:3001/mcp --requirements 2025-11-25
//! ```
//!
//! With `MCP_REDIS_URL` set, its sessions are shared through that Redis, so that several
//! replicas behind a load balancer serve them.

use anyhow::{Context, bail};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let port: u16 = match args.as_slice() {
        [flag, port] if flag == "--port" => port.parse().context("--port takes a port number")?,
        [flag] if flag == "--help" || flag == "-h" => {
            println!("usage: conformance-server --port N   (serves http://127.0.0.1:N/mcp)");
            return Ok(());
        }
        _ => bail!("usage: conformance-server --port N   (serves http://127.0.0.1:N/mcp)"),
    };
    // MCP_REDIS_URL: several of these serve the same sessions behind a load balancer.
    let options = mcp_server::HttpOptions::default().session_store_from_env()?;
    let http = mcp_conformance::server::server()
        .bind_http(("127.0.0.1", port), options)
        .await
        .context("binding HTTP")?;
    eprintln!("MCP server listening on {}", http.url());
    http.wait().await.context("serving HTTP")
}
