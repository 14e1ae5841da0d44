//! `transport=unix` without any outside server: the example listens on a unix socket itself.
//!
//! ```text
//! cargo run -p mcp-kit --example unix_loopback
//! ```
//!
//! In a temporary directory it binds a `UnixListener` (`demo.sock`) served by the tiny MCP
//! server of `common/mod.rs`, writes an `mcp.json` with a `transport=unix` server whose
//! `unix_path` is relative (it resolves against the root), loads it with [`Config::load`], and
//! connects: first with the default [`TrustMode::Untrusted`], which refuses, then with
//! [`TrustMode::Trusted`].

mod common;

use std::time::Duration;

use mcp_kit::{Config, Manager, TrustMode};
use serde_json::json;
use tokio::net::UnixListener;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let root = dir.path();

    // The server: every connection to the socket gets its own instance.
    let listener = UnixListener::bind(root.join("demo.sock"))?;
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (read, write) = stream.into_split();
            tokio::spawn(common::serve(read, write));
        }
    });

    // The configuration, as a user would write it.
    let config_json = json!({
        "version": 1,
        "servers": { "local": { "transport": "unix", "unix_path": "demo.sock" } }
    });
    std::fs::write(
        root.join("mcp.json"),
        serde_json::to_vec_pretty(&config_json)?,
    )?;
    let config = Config::load(root, None).await?;
    println!(
        "loaded {} ({:?})",
        config.path.as_deref().unwrap_or(root).display(),
        config.format
    );

    // Untrusted (the default) refuses unix sockets: a configuration found in a repository
    // must not make the client talk to local services.
    let untrusted = Manager::new(config.clone(), root)
        .with_client_info("unix-loopback", "0.1.0")
        .with_timeout(Duration::from_secs(10));
    match untrusted.list_tools("local").await {
        Err(error) if error.is_refused() => println!("untrusted: {error}"),
        other => anyhow::bail!("expected a refusal, got {other:?}"),
    }

    // Trusted: connect, list, call.
    let manager = Manager::new(config, root)
        .with_client_info("unix-loopback", "0.1.0")
        .with_timeout(Duration::from_secs(10))
        .with_trust_mode(TrustMode::Trusted);
    let tools = manager.list_tools("local").await?;
    common::print_tools(&tools);
    let result = manager
        .call_tool(
            "local",
            "echo",
            common::arguments(json!({ "message": "hello over a unix socket" })),
        )
        .await?;
    println!("echo -> {}", common::result_text(&result));
    println!("connected servers: {:?}", manager.connected_server_names());
    Ok(())
}
