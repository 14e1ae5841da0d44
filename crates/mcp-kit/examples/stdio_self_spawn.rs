//! `transport=stdio` without any outside server: the example spawns itself as the server.
//!
//! ```text
//! cargo run -p mcp-kit --example stdio_self_spawn
//! ```
//!
//! Run without arguments it is the client: it configures a stdio server whose `argv` is its
//! own executable plus `--server`, connects (spawn, handshake), lists the tools, calls `echo`
//! and `add`, and pings. Run with `--server` it is that server: the tiny MCP server of
//! `common/mod.rs` on stdin/stdout.
//!
//! Spawning a process is what an untrusted `mcp.json` must never be able to make a client do,
//! so the manager is switched to [`TrustMode::Trusted`]: here the configuration is built by the
//! program itself, not read from a file someone else wrote.

mod common;

use std::time::Duration;

use mcp_kit::{Config, Manager, ServerConfig, TrustMode};
use serde_json::json;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    if std::env::args().nth(1).as_deref() == Some("--server") {
        common::serve(tokio::io::stdin(), tokio::io::stdout()).await?;
        return Ok(());
    }

    // The configuration, built in code: one stdio server running this very program.
    let me = std::env::current_exe()?;
    let config = Config::default().with_server(
        "self",
        ServerConfig::stdio([me.to_string_lossy().into_owned(), "--server".into()]),
    );

    // The root is the child's working directory and the base of relative paths.
    let root = std::env::current_dir()?;
    let manager = Manager::new(config, root)
        .with_client_info("stdio-self-spawn", "0.1.0")
        .with_timeout(Duration::from_secs(10))
        .with_trust_mode(TrustMode::Trusted);

    // The first request connects: spawn, `server/discover` (answered -32601 by this old-era
    // server), then `initialize` + `notifications/initialized`.
    let tools = manager.list_tools("self").await?;
    common::print_tools(&tools);

    // The cached session, shared: the manager and this `Arc` both hold it.
    let session = manager.session("self").await?;
    println!(
        "negotiated protocol version {} with {}",
        session.protocol_version(),
        session.initialize_result()["serverInfo"]["name"]
    );
    drop(session);

    let echo = manager
        .call_tool(
            "self",
            "echo",
            common::arguments(json!({ "message": "hello from the parent process" })),
        )
        .await?;
    println!("echo -> {}", common::result_text(&echo));

    let sum = manager
        .call_tool("self", "add", common::arguments(json!({ "a": 2, "b": 40 })))
        .await?;
    println!("add(2, 40) -> {}", common::result_text(&sum));

    manager.ping("self").await?;
    println!("ping -> ok");

    // Taking the session out of the manager (no `Arc` of it is left) and closing it ends the
    // child: its stdin closes, the server sees end of file and exits. (Dropping the manager
    // would kill it instead.)
    if let Some(mut session) = manager.take_session("self") {
        let status = session
            .peer_mut()
            .wait_with_timeout(
                Duration::from_secs(5),
                mcp_jsonrpc::WaitOnTimeout::Kill {
                    kill_timeout: Duration::from_secs(1),
                },
            )
            .await?;
        if let Some(status) = status {
            println!("server exited: {status}");
        }
    }
    Ok(())
}
