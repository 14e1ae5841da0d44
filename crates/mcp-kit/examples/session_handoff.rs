//! Handing a [`Session`] to other code: one live, initialized connection that another task or
//! module owns and uses without knowing about configurations or the [`Manager`].
//!
//! ```text
//! cargo run -p mcp-kit --example session_handoff
//! ```
//!
//! Two ways to get a session:
//!
//! 1. [`Manager::open_io`]: connect over a reader/writer pair (here an in-memory pipe to the
//!    tiny server of `common/mod.rs`) and get the session back, never cached (for configured
//!    servers, [`Manager::open`]);
//! 2. [`Manager::insert`] caches a session under its name, and [`Manager::take_session`]
//!    takes it out of the cache later.
//!
//! The session then moves into a task of a separate module. Its methods take `&self`, so one
//! session can also be shared (`Arc<Session>`) by concurrent tasks.

mod common;

use std::time::Duration;

use mcp_kit::{Manager, Session};

/// Code that knows nothing about configurations: it is handed a session.
mod tool_runner {
    use std::sync::Arc;

    use mcp_kit::Session;
    use serde_json::json;

    use crate::common;

    /// Lists the tools, then calls `echo` and `add` concurrently on the same session.
    pub(crate) async fn run(session: Session) -> anyhow::Result<()> {
        println!(
            "[{}] protocol {}",
            session.server_name(),
            session.protocol_version()
        );
        let tools = session.list_all_tools().await?;
        common::print_tools(&tools);

        let session = Arc::new(session);
        let echo = tokio::spawn({
            let session = session.clone();
            async move {
                session
                    .call_tool(
                        "echo",
                        common::arguments(json!({ "message": "handed over" })),
                    )
                    .await
            }
        });
        let add = tokio::spawn({
            let session = session.clone();
            async move {
                session
                    .call_tool("add", common::arguments(json!({ "a": 1.5, "b": 2 })))
                    .await
            }
        });
        println!("echo -> {}", common::result_text(&echo.await??));
        println!("add(1.5, 2) -> {}", common::result_text(&add.await??));

        // Closing is explicit here; dropping the last reference would close it too.
        if let Some(session) = Arc::into_inner(session) {
            session.close().await;
        }
        Ok(())
    }
}

/// An in-memory connection to a fresh instance of the example server.
fn pipe_to_server() -> (
    tokio::io::ReadHalf<tokio::io::DuplexStream>,
    tokio::io::WriteHalf<tokio::io::DuplexStream>,
) {
    let (ours, theirs) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(theirs);
    tokio::spawn(common::serve(server_read, server_write));
    tokio::io::split(ours)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let manager = Manager::default()
        .with_client_info("session-handoff", "0.1.0")
        .with_timeout(Duration::from_secs(10));

    // 1. A session that the manager never holds.
    let (read, write) = pipe_to_server();
    let session: Session = manager.open_io("worker", read, write).await?;
    tokio::spawn(tool_runner::run(session)).await??;

    // 2. A session cached by the manager, then taken out of it.
    let (read, write) = pipe_to_server();
    manager.insert(manager.open_io("cached", read, write).await?);
    println!("cached: {:?}", manager.connected_server_names());
    let session = manager
        .take_session("cached")
        .expect("the session was just cached");
    println!("after take_session: {:?}", manager.connected_server_names());
    tokio::spawn(tool_runner::run(session)).await??;
    Ok(())
}
