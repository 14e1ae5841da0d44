//! JSON-RPC 2.0 for the Model Context Protocol: the message model, a bidirectional peer with
//! explicit limits, and client transports over stdio, unix sockets, any byte stream, and
//! streamable HTTP.
//!
//! This crate knows JSON-RPC, not MCP: it never looks at a method name. `mcp-kit` builds the
//! MCP client on top of it; `mcp-schema` gives the typed messages.
//!
//! # A connection
//!
//! [`Peer`] is one connection. Requests may be sent concurrently from any task (through a
//! cloned [`PeerHandle`]); they are matched to their responses by id, and writes are
//! serialized so messages never interleave. What the peer sends on its own lands in two
//! bounded queues: [`Peer::take_requests`] (each [`IncomingRequest`] must be answered; when
//! the queue is full the peer gets `-32000 client overloaded` at once) and
//! [`Peer::take_notifications`] (dropped and counted when full).
//!
//! ```
//! use mcp_jsonrpc::Peer;
//! use serde_json::json;
//! use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // Any AsyncRead/AsyncWrite pair works; here an in-memory pipe with a tiny echo server.
//! let (ours, theirs) = tokio::io::duplex(64 * 1024);
//! let (read, write) = tokio::io::split(ours);
//! tokio::spawn(async move {
//!     let (server_read, mut server_write) = tokio::io::split(theirs);
//!     let mut lines = BufReader::new(server_read).lines();
//!     while let Ok(Some(line)) = lines.next_line().await {
//!         let request: serde_json::Value = serde_json::from_str(&line).unwrap();
//!         let reply = json!({ "jsonrpc": "2.0", "id": request["id"], "result": request["params"] });
//!         server_write.write_all(format!("{reply}\n").as_bytes()).await.unwrap();
//!     }
//! });
//!
//! let client = Peer::connect_io(read, write).await?;
//! let result = client.request("echo", Some(json!({ "hello": "world" }))).await?;
//! assert_eq!(result, json!({ "hello": "world" }));
//! # Ok(())
//! # }
//! ```
//!
//! # Transports
//!
//! | constructor | transport |
//! |---|---|
//! | [`Peer::spawn`], [`Peer::spawn_with_options`], [`Peer::spawn_command`] | a child process's stdin/stdout, one message per line; stderr inherited; killed on drop; the baseline environment unless `inherit_env: true` |
//! | [`Peer::connect_unix`] | a unix domain socket, one message per line |
//! | [`Peer::connect_io`] | any `AsyncRead` + `AsyncWrite`, one message per line |
//! | [`Peer::connect_streamable_http`] and the `_with_options` / `_split_with_options` variants | streamable HTTP: POST per message, JSON or SSE answers, `mcp-session-id`, GET SSE stream, `Last-Event-ID` resumption, no redirects or system proxy by default |
//!
//! # Limits and hostile peers
//!
//! [`Limits`] bounds every inbound message (`max_message_bytes`, per line or per SSE event;
//! a larger one is discarded as it streams in and fails only the request it answered) and
//! both inbound queues. Lines that are not JSON are skipped (counted in [`PeerStats`]), a
//! response to an unknown id is ignored, an invalid request is answered `-32600`, a batch is
//! answered with one array, a request dropped without an answer is answered `-32603`, and a
//! peer that disappears fails every pending request at once with [`Error::Closed`]. Dropping
//! the future of a pending request frees its slot.
//!
//! # Child processes
//!
//! [`Peer::wait`] closes stdin and waits for the child; [`Peer::wait_with_timeout`]
//! bounds that wait and then either returns [`Error::WaitTimeout`] (the child can be taken
//! with [`Peer::take_child`]) or kills it ([`WaitOnTimeout::Kill`]). A [`StdoutLog`]
//! records every line the child printed, rotating files by size.
//!
//! # Features
//!
//! - `io`: what both sides of a connection need, a server too — [`framing`] (reading and
//!   writing JSON lines) and [`pending`] (requests awaiting their answers); tokio.
//! - `client` (default, with `io`): the peer and the stream transports.
//! - `http` (default): the streamable HTTP transport (reqwest with rustls).
//!
//! Without default features only the message model ([`message`], [`Id`], [`ErrorObject`]),
//! the SSE parser ([`sse`]) and the header checks ([`is_header_name`]) remain, with no I/O
//! dependency.
//!
//! The crate targets unix platforms (it uses `O_NOFOLLOW` and unix sockets).

// Module layers, bottom up; a module imports only modules on lower lines:
//
//   id, token, members, scan      leaves: ids, header tokens, repeated members, the id scan
//   http_headers                  leaf: the transport's HTTP header names
//   message                       the message model, parsing and encoding
//   sse                           the SSE parser
//   framing, pending              (feature io) lines in and out; requests awaiting answers
//   error, options, stdout_log    (feature client) errors, connection options, the stdout log
//   incoming                      requests from the peer, answered through `Replies`
//   connection                    one connection's core: ids, pending table, inbound
//                                 dispatch and queues, the outbound path, `Transport`
//   handle                        PeerHandle and PendingRequest, over the core
//   stream, http                  transports feeding the core (stream: lines; http: POST/SSE)
//   peer                          Peer: the constructors of every transport

pub mod http_headers;
mod id;
mod members;
pub mod message;
mod scan;
pub mod sse;
mod token;

pub use id::Id;
pub use message::{ErrorObject, Message, Notification, error_codes};
pub use token::{is_header_name, is_header_value};

#[cfg(feature = "io")]
pub mod framing;
#[cfg(feature = "io")]
pub mod pending;

#[cfg(feature = "client")]
mod connection;
#[cfg(feature = "client")]
mod error;
#[cfg(feature = "client")]
mod handle;
#[cfg(feature = "http")]
mod http;
#[cfg(feature = "client")]
mod incoming;
#[cfg(feature = "client")]
mod options;
#[cfg(feature = "client")]
mod peer;
#[cfg(feature = "client")]
mod stderr_tail;
#[cfg(feature = "client")]
mod stdout_log;
#[cfg(feature = "client")]
mod stream;

#[cfg(feature = "client")]
pub use connection::PeerStats;
#[cfg(feature = "client")]
pub use error::Error;
#[cfg(feature = "client")]
pub use handle::{PeerHandle, PendingRequest};
#[cfg(feature = "http")]
pub use http::{
    AuthChallenge, AuthFuture, AuthOutcome, Authorizer, BodyError, HttpAuthorizer,
    MAX_AUTH_RETRIES, PrepareFuture, StreamableHttpOptions, read_limited, redact_url,
};
#[cfg(feature = "client")]
pub use incoming::IncomingRequest;
#[cfg(feature = "client")]
pub use options::{
    BASELINE_ENV_VARS, Limits, SpawnOptions, StderrMode, StdoutLog, WireDirection, WireTap,
};
#[cfg(feature = "client")]
pub use peer::{Peer, WaitOnTimeout};
#[cfg(feature = "client")]
pub use stderr_tail::{ChildExit, STDERR_TAIL_LINES};
