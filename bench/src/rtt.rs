//! Part (a): `tools/call` round trips over stdio to the echo child.

use std::borrow::Cow;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use mcp_jsonrpc::{Peer, PeerHandle, SpawnOptions};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientConfig, JsonObject, ProtocolVersion};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde::{Deserialize, Serialize};

/// The text sent and expected back.
pub const MESSAGE: &str = "hello world";
/// The tool the echo child serves.
const TOOL: &str = "echo";
/// The protocol version both clients ask for: the newest one that still has the
/// `initialize` handshake, so that both run the same session-based protocol.
const PROTOCOL_VERSION: &str = "2025-11-25";

/// Which client implementation drives the echo child.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Implementation {
    /// `mcp_jsonrpc::Peer::spawn`.
    Ours,
    /// rmcp's client over `TokioChildProcess`.
    Rmcp,
}

/// How to start the echo child: a program and its arguments.
#[derive(Debug, Clone)]
pub struct ChildCommand {
    /// The executable.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
}

/// `tools/call` parameters as mcp-jsonrpc callers send them: any `Serialize` type.
#[derive(Serialize)]
struct CallToolParams<'a> {
    name: &'a str,
    arguments: EchoArguments<'a>,
}

/// The echo tool's arguments.
#[derive(Serialize)]
struct EchoArguments<'a> {
    message: &'a str,
}

/// The part of a `CallToolResult` the check reads (borrowed from the raw result).
#[derive(Deserialize)]
struct CallToolResultView<'a> {
    #[serde(borrow)]
    content: Vec<TextBlockView<'a>>,
}

/// A content block, expected to be text.
#[derive(Deserialize)]
struct TextBlockView<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    text: Cow<'a, str>,
}

/// A connected client of either implementation, shareable between tasks.
enum Connection {
    Ours {
        client: Peer,
        handle: PeerHandle,
    },
    Rmcp {
        service: RunningService<RoleClient, ClientConfig>,
        arguments: JsonObject,
    },
}

impl Connection {
    /// Spawns the child and completes the MCP handshake (`initialize`, then
    /// `notifications/initialized`).
    async fn open(implementation: Implementation, child: &ChildCommand) -> Result<Self, String> {
        match implementation {
            Implementation::Ours => {
                let client =
                    Peer::spawn_with_options(&child.program, &child.args, SpawnOptions::default())
                        .await
                        .map_err(|e| e.to_string())?;
                let init = serde_json::json!({
                    "protocolVersion": PROTOCOL_VERSION,
                    "capabilities": {},
                    "clientInfo": {"name": "jsonrpc-bench", "version": "0.0.0"},
                });
                let result = client
                    .request("initialize", Some(init))
                    .await
                    .map_err(|e| e.to_string())?;
                if result["protocolVersion"] != PROTOCOL_VERSION {
                    return Err(format!("unexpected initialize result {result}"));
                }
                client
                    .notify("notifications/initialized", None)
                    .await
                    .map_err(|e| e.to_string())?;
                let handle = client.handle();
                Ok(Connection::Ours { client, handle })
            }
            Implementation::Rmcp => {
                let transport = TokioChildProcess::new(
                    tokio::process::Command::new(&child.program).configure(|command| {
                        command.args(&child.args);
                    }),
                )
                .map_err(|e| e.to_string())?;
                let mut config = ClientConfig::default();
                config.protocol_version = ProtocolVersion::LATEST_WITH_INITIALIZE;
                if config.protocol_version.as_str() != PROTOCOL_VERSION {
                    return Err(format!(
                        "rmcp's newest version with initialize is {}",
                        config.protocol_version
                    ));
                }
                let service = config.serve(transport).await.map_err(|e| e.to_string())?;
                let mut arguments = JsonObject::new();
                arguments.insert("message".into(), MESSAGE.into());
                Ok(Connection::Rmcp { service, arguments })
            }
        }
    }

    /// One `tools/call` round trip; `Ok` only when the echoed text is right.
    async fn call(&self) -> Result<(), String> {
        match self {
            Connection::Ours { handle, .. } => {
                let params = CallToolParams {
                    name: TOOL,
                    arguments: EchoArguments { message: MESSAGE },
                };
                let raw = handle
                    .request_raw("tools/call", Some(&params))
                    .await
                    .map_err(|e| e.to_string())?;
                let result: CallToolResultView<'_> =
                    serde_json::from_str(raw.get()).map_err(|e| e.to_string())?;
                match result.content.as_slice() {
                    [block] if block.kind == "text" && block.text == MESSAGE => Ok(()),
                    _ => Err(format!("wrong tools/call result: {}", raw.get())),
                }
            }
            Connection::Rmcp { service, arguments } => {
                let params = CallToolRequestParams::new(TOOL).with_arguments(arguments.clone());
                let result = service.call_tool(params).await.map_err(|e| e.to_string())?;
                match result.content.as_slice() {
                    [block] if block.as_text().is_some_and(|t| t.text == MESSAGE) => Ok(()),
                    _ => Err(format!("wrong tools/call result: {result:?}")),
                }
            }
        }
    }

    /// Ends the session and waits for the child to exit.
    async fn close(self) -> Result<(), String> {
        match self {
            Connection::Ours { mut client, handle } => {
                drop(handle);
                client
                    .wait_with_timeout(
                        Duration::from_secs(5),
                        mcp_jsonrpc::WaitOnTimeout::Kill {
                            kill_timeout: Duration::from_secs(1),
                        },
                    )
                    .await
                    .map_err(|e| e.to_string())?;
                Ok(())
            }
            Connection::Rmcp { service, .. } => {
                service.cancel().await.map_err(|e| e.to_string())?;
                Ok(())
            }
        }
    }
}

/// Measures round trips per second with `in_flight` requests outstanding at all times:
/// `in_flight` tasks each send a request, check the answer and send the next. Requests
/// completed during `measure` (after `warmup`) are counted; a wrong or failed answer aborts
/// the measurement.
pub async fn requests_per_second(
    implementation: Implementation,
    child: &ChildCommand,
    in_flight: usize,
    warmup: Duration,
    measure: Duration,
) -> Result<f64, String> {
    let connection = Arc::new(Connection::open(implementation, child).await?);
    let completed = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let workers: Vec<_> = (0..in_flight)
        .map(|_| {
            let connection = connection.clone();
            let completed = completed.clone();
            let stop = stop.clone();
            tokio::spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    connection.call().await?;
                    completed.fetch_add(1, Ordering::Relaxed);
                }
                Ok::<(), String>(())
            })
        })
        .collect();

    tokio::time::sleep(warmup).await;
    let before = completed.load(Ordering::Relaxed);
    let start = Instant::now();
    tokio::time::sleep(measure).await;
    let after = completed.load(Ordering::Relaxed);
    let elapsed = start.elapsed();
    stop.store(true, Ordering::Relaxed);

    for worker in workers {
        worker.await.map_err(|e| e.to_string())??;
    }
    let connection = Arc::into_inner(connection).ok_or("connection still shared")?;
    connection.close().await?;
    Ok((after - before) as f64 / elapsed.as_secs_f64())
}
