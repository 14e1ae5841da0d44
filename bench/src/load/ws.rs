//! A WebSocket session with our server's `/ws` endpoint (the same process and port as its
//! streamable HTTP endpoint): one connection is one stateful session, `initialize`d like a
//! stdio pipe, and each JSON-RPC message is one text frame.

use std::net::SocketAddr;

use futures_util::{SinkExt as _, StreamExt as _};
use tokio::net::TcpStream;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest as _;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

use super::ClosedLoop;
use super::mcp;

/// The endpoint's path (`HttpOptions::websocket_path`'s default).
pub const PATH: &str = "/ws";

/// The WebSocket subprotocol of MCP.
const SUBPROTOCOL: &str = "mcp";

/// The client's read buffer. tungstenite zero-fills its read buffer up to this size before
/// every socket read; its default (128 KiB) would make the generator spend far more per
/// answer than its HTTP client does, on the cores it shares with the server.
const READ_BUFFER: usize = 16 * 1024;

/// An initialized WebSocket session.
pub struct WsSession {
    socket: WebSocketStream<TcpStream>,
    /// The last answer read.
    answer: Utf8Bytes,
}

impl WsSession {
    /// Connects (`TCP_NODELAY`, as every HTTP connection of the generator), upgrades offering
    /// the `mcp` subprotocol, and runs `initialize` and `notifications/initialized`.
    pub async fn open(addr: SocketAddr) -> Result<Self, String> {
        let url = format!("ws://{addr}{PATH}");
        let stream = TcpStream::connect(addr)
            .await
            .map_err(|e| format!("connecting to {addr}: {e}"))?;
        stream
            .set_nodelay(true)
            .map_err(|e| format!("TCP_NODELAY: {e}"))?;
        let mut request = url
            .as_str()
            .into_client_request()
            .map_err(|e| format!("{url}: {e}"))?;
        request.headers_mut().insert(
            "Sec-WebSocket-Protocol",
            HeaderValue::from_static(SUBPROTOCOL),
        );
        let config = WebSocketConfig::default().read_buffer_size(READ_BUFFER);
        let (socket, response) =
            tokio_tungstenite::client_async_with_config(request, stream, Some(config))
                .await
                .map_err(|e| format!("WebSocket upgrade at {url}: {e}"))?;
        if response
            .headers()
            .get("sec-websocket-protocol")
            .is_none_or(|p| p != SUBPROTOCOL)
        {
            return Err(format!(
                "{url}: the server did not select the `{SUBPROTOCOL}` subprotocol"
            ));
        }
        let mut session = WsSession {
            socket,
            answer: Utf8Bytes::from_static(""),
        };
        session.exchange(&mcp::initialize_body(0)).await?;
        mcp::initialize_version(session.answer.as_bytes())?;
        session.send(mcp::INITIALIZED_BODY).await?;
        Ok(session)
    }

    /// Sends one message as a text frame.
    async fn send(&mut self, message: &[u8]) -> Result<(), String> {
        let text = std::str::from_utf8(message).map_err(|e| format!("not UTF-8: {e}"))?;
        self.socket
            .send(Message::text(text))
            .await
            .map_err(|e| format!("sending a frame: {e}"))
    }

    /// Reads frames until a text frame; keeps it in `self.answer` (pings are answered by the
    /// library). With one request in flight, and tools that send no notifications, it is the
    /// request's answer; [`mcp::check_call`] refuses anything else. (Not parsing it here to
    /// skip notifications keeps the generator's cost per answer close to its HTTP client's.)
    async fn receive(&mut self) -> Result<(), String> {
        loop {
            match self.socket.next().await {
                Some(Ok(Message::Text(text))) => {
                    self.answer = text;
                    return Ok(());
                }
                Some(Ok(Message::Binary(_))) => return Err("the server sent a binary frame".into()),
                Some(Ok(Message::Close(frame))) => {
                    return Err(format!("the server closed the connection: {frame:?}"));
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(format!("reading a frame: {e}")),
                None => return Err("the connection ended".into()),
            }
        }
    }
}

impl ClosedLoop for WsSession {
    async fn exchange(&mut self, body: &[u8]) -> Result<(), String> {
        self.send(body).await?;
        self.receive().await
    }

    fn answer<'a>(&'a self, _id: u64, _scratch: &'a mut Vec<u8>) -> Result<&'a [u8], String> {
        Ok(self.answer.as_bytes())
    }

    async fn close(mut self) {
        let _ = self.socket.close(None).await;
    }
}
