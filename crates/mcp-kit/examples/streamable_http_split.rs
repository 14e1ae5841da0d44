//! `transport=streamable_http` with separate URLs for the GET (SSE) stream and for the POSTs.
//!
//! ```text
//! cargo run -p mcp-kit --example streamable_http_split -- <sse_url> <http_url>
//! ```
//!
//! The server configuration is built with [`ServerConfig::streamable_http_split`], the code
//! equivalent of `{"transport": "streamable_http", "sse_url": …, "http_url": …}` in `mcp.json`.
//! Most servers use one URL for both: pass it twice.
//!
//! The URLs come from you, on the command line, not from a file someone else wrote; so the
//! example trusts them ([`TrustMode::Trusted`]) and works with `http://127.0.0.1:…` test
//! servers too. A configuration read from disk should stay Untrusted (see
//! `client_with_policy`).

mod common;

use std::time::Duration;

use mcp_kit::{Config, Manager, ServerConfig, TrustMode};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [sse_url, http_url] = args.as_slice() else {
        anyhow::bail!("usage: streamable_http_split <sse_url> <http_url>");
    };

    let config = Config::default().with_server(
        "remote",
        ServerConfig::streamable_http_split(sse_url.as_str(), http_url.as_str()),
    );
    let root = std::env::current_dir()?;

    let manager = Manager::new(config, root)
        .with_client_info("streamable-http-split", "0.1.0")
        .with_timeout(Duration::from_secs(30))
        .with_trust_mode(TrustMode::Trusted);
    let tools = manager.list_tools("remote").await?;
    let session = manager.session("remote").await?;
    println!(
        "protocol {} with {}",
        session.protocol_version(),
        session.initialize_result()["serverInfo"]
    );
    common::print_tools(&tools);
    Ok(())
}
