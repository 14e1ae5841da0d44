//! Helpers shared by the `http_*` tests: a server on a real socket, requests with the headers
//! each era expects, and a small SSE reader.

#![allow(dead_code)]

use mcp_server::{HttpOptions, HttpServer, Server};
use reqwest::{Client, RequestBuilder, Response};
use serde_json::{Value, json};

pub(crate) const LEGACY: &str = "2025-11-25";
pub(crate) const MODERN: &str = "2026-07-28";

/// A client that talks to 127.0.0.1 directly (no system proxy).
pub(crate) fn client() -> Client {
    Client::builder()
        .no_proxy()
        .build()
        .expect("an HTTP client")
}

/// Serves `server` on a free port of 127.0.0.1.
pub(crate) async fn start(server: &Server, options: HttpOptions) -> HttpServer {
    server
        .bind_http("127.0.0.1:0", options)
        .await
        .expect("bind 127.0.0.1:0")
}

/// A POST with the headers every streamable HTTP client sends.
pub(crate) fn post(client: &Client, url: &str) -> RequestBuilder {
    client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
}

/// A stateful POST in session `sid`.
pub(crate) fn in_session(client: &Client, url: &str, sid: &str) -> RequestBuilder {
    post(client, url)
        .header("mcp-session-id", sid)
        .header("mcp-protocol-version", LEGACY)
}

/// `initialize` at `version` with these client capabilities, then
/// `notifications/initialized`; returns the session id.
pub(crate) async fn initialize_with(
    client: &Client,
    url: &str,
    version: &str,
    capabilities: Value,
) -> String {
    let response = post(client, url)
        .json(&json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": version,
                "capabilities": capabilities,
                "clientInfo": { "name": "http-test", "version": "1.0.0" },
            },
        }))
        .send()
        .await
        .expect("initialize");
    assert_eq!(response.status(), 200);
    let sid = session_id(&response);
    let body: Value = response.json().await.expect("initialize result");
    assert_eq!(body["result"]["protocolVersion"], version, "{body}");
    let ack = post(client, url)
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", version)
        .json(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
        .send()
        .await
        .expect("notifications/initialized");
    assert_eq!(ack.status(), 202);
    sid
}

/// The `Mcp-Session-Id` an `initialize` response carries.
pub(crate) fn session_id(response: &Response) -> String {
    response
        .headers()
        .get("mcp-session-id")
        .expect("initialize answers with Mcp-Session-Id")
        .to_str()
        .expect("a visible-ASCII session id")
        .to_owned()
}

/// A GET whose answer is JSON (the ops endpoints, the metadata documents).
pub(crate) async fn get_json(client: &Client, url: &str) -> Value {
    let response = client.get(url).send().await.expect("GET");
    response.json().await.expect("a JSON body")
}

/// `initialize` at 2025-11-25 with no client capabilities.
pub(crate) async fn initialize(client: &Client, url: &str) -> String {
    initialize_with(client, url, LEGACY, json!({})).await
}

/// The `_meta` of a 2026-07-28 request.
pub(crate) fn meta_with(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": { "name": "http-test", "version": "1.0.0" },
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

/// The `_meta` of a 2026-07-28 request without client capabilities.
pub(crate) fn meta() -> Value {
    meta_with(json!({}))
}

/// A 2026-07-28 request with the headers mirroring its body (`params._meta` is added when
/// missing).
pub(crate) fn stateless(
    client: &Client,
    url: &str,
    id: i64,
    method: &str,
    mut params: Value,
) -> RequestBuilder {
    if params.get("_meta").is_none() {
        params["_meta"] = meta();
    }
    let mut request = post(client, url)
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", method);
    // The method table says which params member the Mcp-Name header mirrors.
    let name = mcp_server::schema::methods::method_info(method)
        .filter(|info| info.target_header)
        .and_then(|info| info.target)
        .and_then(|field| params.get(field.as_str()));
    if let Some(name) = name.and_then(Value::as_str) {
        request = request.header("mcp-name", name);
    }
    request.json(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))
}

/// A `tools/call` request of tool `name` with these arguments.
pub(crate) fn call(id: i64, name: &str, arguments: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": { "name": name, "arguments": arguments } })
}

/// The status, the body as JSON and the error code (if any) of a response.
pub(crate) async fn outcome(response: Response) -> (u16, Value, Option<i64>) {
    let status = response.status().as_u16();
    let text = response.text().await.expect("a body");
    let body: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("HTTP {status}: the body is not JSON ({e}): {text:?}"));
    let code = body["error"]["code"].as_i64();
    (status, body, code)
}

/// The text of the first content block of a tool result.
pub(crate) fn text_of(response: &Value) -> &str {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text content in {response}"))
}

/// One SSE event.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Event {
    pub(crate) id: Option<String>,
    pub(crate) data: String,
}

impl Event {
    /// The data as JSON.
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.data)
            .unwrap_or_else(|e| panic!("event data is not JSON ({e}): {:?}", self.data))
    }
}

/// Reads the events of a `text/event-stream` response as they arrive.
pub(crate) struct Sse {
    response: Response,
    buffer: Vec<u8>,
}

impl Sse {
    pub(crate) fn new(response: Response) -> Self {
        assert_eq!(response.status(), 200, "an SSE response");
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        assert!(
            content_type.starts_with("text/event-stream"),
            "expected text/event-stream, got {content_type:?}"
        );
        Self {
            response,
            buffer: Vec::new(),
        }
    }

    /// The next event (comments skipped); `None` when the stream ended.
    pub(crate) async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(end) = self.buffer.windows(2).position(|w| w == b"\n\n") {
                let block: Vec<u8> = self.buffer.drain(..end + 2).collect();
                let block = String::from_utf8(block).expect("UTF-8 events");
                let mut id = None;
                let mut data: Option<String> = None;
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("id:") {
                        id = Some(v.trim_start().to_owned());
                    } else if let Some(v) = line.strip_prefix("data:") {
                        let v = v.strip_prefix(' ').unwrap_or(v);
                        match &mut data {
                            Some(d) => {
                                d.push('\n');
                                d.push_str(v);
                            }
                            None => data = Some(v.to_owned()),
                        }
                    }
                }
                if id.is_none() && data.is_none() {
                    continue; // a keep-alive comment
                }
                return Some(Event {
                    id,
                    data: data.unwrap_or_default(),
                });
            }
            match self.response.chunk().await.expect("reading the SSE body") {
                Some(chunk) => self.buffer.extend_from_slice(&chunk),
                None => return None,
            }
        }
    }

    /// The next event that carries a message (the priming event skipped).
    pub(crate) async fn message(&mut self) -> Option<(Option<String>, Value)> {
        loop {
            let event = self.next().await?;
            if !event.data.is_empty() {
                return Some((event.id.clone(), event.json()));
            }
        }
    }
}

/// A request written by hand on a fresh TCP connection (for what an HTTP client library
/// would not send, such as a POST without `Accept` or without `Host`): `head` is the request
/// line and the header lines (`Content-Length` and `Connection: close` are added); returns the
/// status and the body as JSON.
pub(crate) async fn raw(addr: std::net::SocketAddr, head: &str, body: &str) -> (u16, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut tcp = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let request = format!(
        "{head}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    tcp.write_all(request.as_bytes()).await.expect("write");
    let mut response = Vec::new();
    tcp.read_to_end(&mut response).await.expect("read");
    let response = String::from_utf8(response).expect("UTF-8 response");
    let (head, body) = response
        .split_once("\r\n\r\n")
        .expect("a complete response");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("a status line: {head}"));
    let body = serde_json::from_str(body)
        .unwrap_or_else(|e| panic!("HTTP {status}: not JSON ({e}): {body:?}"));
    (status, body)
}
