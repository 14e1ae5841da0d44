//! The smallest useful client: load the configuration, list one server's tools.
//!
//! ```text
//! cargo run -p mcp-kit --example minimal_client -- <server>
//! ```
//!
//! The configuration is found in the current directory (`./.mcp.json`, else `./mcp.json`, `./.cursor/mcp.json`, `./.vscode/mcp.json`).
//! The manager keeps the default trust mode, [`TrustMode::Untrusted`](mcp_kit::TrustMode):
//! only `transport=streamable_http` servers at `https://` URLs on public hosts are reached;
//! stdio and unix servers, `http://`, localhost and private addresses are refused with a message
//! saying why and what to change. `client_with_policy` shows how to relax that.

use std::time::Duration;

use mcp_kit::{Config, Manager};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let Some(server) = std::env::args().nth(1) else {
        anyhow::bail!("usage: minimal_client <server>");
    };

    let root = std::env::current_dir()?;
    let config = Config::load(&root, None).await?;

    let manager = Manager::new(config, root)
        .with_client_info("minimal-client", "0.1.0")
        .with_timeout(Duration::from_secs(30));
    // Connects on first use (policy check, connection, handshake), then follows every page.
    let tools = manager.list_tools(&server).await?;

    for tool in &tools {
        println!(
            "{}\t{}",
            tool.name,
            tool.description.as_deref().unwrap_or("")
        );
    }
    Ok(())
}
