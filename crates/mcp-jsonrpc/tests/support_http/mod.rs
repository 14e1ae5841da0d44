//! A scripted HTTP/1.1 server on 127.0.0.1 for the streamable HTTP transport tests.
//!
//! Each test hands the server an async handler that sees every request (method, path, headers,
//! body) and chooses the answer byte for byte: a whole body, a chunked body the test feeds
//! event by event and then ends cleanly or breaks off, or no answer at all. Every request is
//! also recorded, and a test can await "the server has seen a request like this" instead of
//! sleeping. The server is hand-written (not axum) because the tests need what a framework
//! hides: CRLF and chunk boundaries as sent, a stream broken without its terminating chunk,
//! a connection that is accepted and never answered, and notice of the client going away.
//!
//! Every connection carries one exchange (`connection: close`), so the record of requests
//! is the record of what the client did.

#![allow(dead_code, unreachable_pub)]

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_jsonrpc::{Peer, SpawnOptions, StreamableHttpOptions};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinSet;

/// The bound on every await that should complete: long enough never to fire on a slow
/// machine, short enough that a bug fails the test instead of hanging it.
pub const WAIT: Duration = Duration::from_secs(10);

/// Awaits `fut`, failing the test after [`WAIT`].
pub async fn within<F: Future>(what: &str, fut: F) -> F::Output {
    match tokio::time::timeout(WAIT, fut).await {
        Ok(out) => out,
        Err(_) => panic!("timed out after {WAIT:?} waiting for {what}"),
    }
}

/// Logs of the transport (`RUST_LOG=mcp_jsonrpc=debug`) in the test output.
pub fn init_tracing() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_test_writer()
        .try_init();
}

// ----- requests -------------------------------------------------------------------------------

/// One request the server received.
#[derive(Debug, Clone)]
pub struct Req {
    pub method: String,
    pub path: String,
    /// Names in lower case, in the order received.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// When the request's head had been read.
    pub at: Instant,
}

impl Req {
    /// The first value of a header.
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON (`Null` when it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }

    /// The JSON-RPC `method` of the body.
    pub fn rpc_method(&self) -> Option<String> {
        self.json()
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_owned)
    }

    /// The JSON-RPC `id` of the body (`Null` when absent).
    pub fn rpc_id(&self) -> Value {
        self.json().get("id").cloned().unwrap_or(Value::Null)
    }

    /// A POST whose body is the JSON-RPC request or notification `method`.
    pub fn is_post_of(&self, method: &str) -> bool {
        self.method == "POST" && self.rpc_method().as_deref() == Some(method)
    }

    /// A POST carrying the client's answer to the server's request `id`.
    pub fn is_answer_to(&self, id: &Value) -> bool {
        let body = self.json();
        self.method == "POST"
            && body.get("method").is_none()
            && body.get("id") == Some(id)
            && (body.get("result").is_some() || body.get("error").is_some())
    }
}

// ----- responses ------------------------------------------------------------------------------

/// A piece of a streamed body.
#[derive(Debug)]
pub enum Chunk {
    /// Bytes, sent as one HTTP chunk.
    Data(Vec<u8>),
    /// The terminating chunk: the body ends cleanly.
    End,
    /// The connection is closed without the terminating chunk: the body breaks.
    Abort,
}

/// The test's end of a streamed (chunked) body. Dropping it ends the body cleanly.
#[derive(Debug, Clone)]
pub struct StreamTx(mpsc::UnboundedSender<Chunk>);

impl StreamTx {
    /// Sends raw bytes as one chunk.
    pub fn raw(&self, bytes: impl Into<Vec<u8>>) {
        let _ = self.0.send(Chunk::Data(bytes.into()));
    }

    /// Sends one SSE event `data: <json>`.
    pub fn message(&self, message: &Value) {
        self.raw(format!("data: {message}\n\n"));
    }

    /// Sends one SSE event with an id.
    pub fn message_with_id(&self, id: &str, message: &Value) {
        self.raw(format!("id: {id}\ndata: {message}\n\n"));
    }

    /// Ends the body cleanly.
    pub fn end(&self) {
        let _ = self.0.send(Chunk::End);
    }

    /// Breaks the body off (no terminating chunk).
    pub fn abort(&self) {
        let _ = self.0.send(Chunk::Abort);
    }
}

enum Body {
    Full(Vec<u8>),
    Stream(mpsc::UnboundedReceiver<Chunk>),
    /// Never answered; the connection is held until the client goes away.
    Hang,
}

/// What the server answers.
pub struct Resp {
    status: u16,
    headers: Vec<(String, String)>,
    body: Body,
    client_gone: Option<oneshot::Sender<()>>,
}

impl Resp {
    /// A response with an empty body.
    pub fn status(status: u16) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body: Body::Full(Vec::new()),
            client_gone: None,
        }
    }

    /// `202 Accepted`, empty.
    pub fn accepted() -> Self {
        Self::status(202)
    }

    /// A whole body with a content type (sent with `content-length`).
    pub fn body(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        let mut resp = Self::status(status);
        resp.body = Body::Full(body.into());
        resp.header("content-type", content_type)
    }

    /// A JSON body.
    pub fn json(status: u16, value: &Value) -> Self {
        Self::body(status, "application/json", value.to_string())
    }

    /// A whole SSE body.
    pub fn sse(body: impl Into<Vec<u8>>) -> Self {
        Self::body(200, "text/event-stream", body)
    }

    /// A chunked body the test feeds through the returned [`StreamTx`].
    pub fn stream(status: u16, content_type: &str) -> (StreamTx, Self) {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut resp = Self::status(status).header("content-type", content_type);
        resp.body = Body::Stream(rx);
        (StreamTx(tx), resp)
    }

    /// A `200 text/event-stream` chunked body.
    pub fn sse_stream() -> (StreamTx, Self) {
        Self::stream(200, "text/event-stream")
    }

    /// No answer at all.
    pub fn hang() -> Self {
        let mut resp = Self::status(0);
        resp.body = Body::Hang;
        resp
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Signals `tx` when the client closes the connection before the body ended (a hung or
    /// streamed body only).
    pub fn on_client_gone(mut self, tx: oneshot::Sender<()>) -> Self {
        self.client_gone = Some(tx);
        self
    }
}

// ----- JSON-RPC helpers -----------------------------------------------------------------------

/// A success response.
pub fn result(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// An error response.
pub fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// A notification.
pub fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

/// A server→client request.
pub fn request(id: &Value, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// Answers a request with `{"echo": <method>}` as JSON, and anything else with 202.
pub fn echo(req: &Req) -> Resp {
    match req.rpc_method() {
        Some(method) if !req.rpc_id().is_null() => {
            Resp::json(200, &result(&req.rpc_id(), json!({ "echo": method })))
        }
        _ => Resp::accepted(),
    }
}

// ----- client helpers -------------------------------------------------------------------------

/// Options with a connect timeout that fits the tests.
pub fn http_options() -> StreamableHttpOptions {
    StreamableHttpOptions {
        connect_timeout: Some(Duration::from_secs(5)),
        ..StreamableHttpOptions::default()
    }
}

/// Connects with [`http_options`], failing the test on error.
pub async fn connect(url: &str) -> Peer {
    connect_with(url, http_options()).await
}

/// Connects with the given options, failing the test on error.
pub async fn connect_with(url: &str, options: StreamableHttpOptions) -> Peer {
    within(
        "connect",
        Peer::connect_streamable_http_with_options(url, options, SpawnOptions::default()),
    )
    .await
    .unwrap_or_else(|e| panic!("connect to {url}: {e}"))
}

// ----- the server -----------------------------------------------------------------------------

type Handler = Arc<dyn Fn(Req) -> Pin<Box<dyn Future<Output = Resp> + Send>> + Send + Sync>;

#[derive(Default)]
struct Log {
    requests: Mutex<Vec<Req>>,
}

/// A running scripted server; it stops (and drops every connection) when dropped.
pub struct Server {
    pub addr: SocketAddr,
    log: Arc<Log>,
    changed: watch::Receiver<usize>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Server {
    /// Starts a server on 127.0.0.1 with `handler`.
    pub async fn start<F, Fut>(handler: F) -> Self
    where
        F: Fn(Req) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Resp> + Send + 'static,
    {
        let handler: Handler = Arc::new(move |req| Box::pin(handler(req)));
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("local addr");
        let log = Arc::new(Log::default());
        let (changed_tx, changed) = watch::channel(0);
        let changed_tx = Arc::new(changed_tx);
        let task = tokio::spawn({
            let log = log.clone();
            async move {
                // Dropping the set (when this task is aborted) aborts every connection.
                let mut connections = JoinSet::new();
                loop {
                    tokio::select! {
                        accepted = listener.accept() => {
                            let Ok((socket, _)) = accepted else { continue };
                            let _ = socket.set_nodelay(true);
                            connections.spawn(serve_connection(
                                socket,
                                handler.clone(),
                                log.clone(),
                                changed_tx.clone(),
                            ));
                        }
                        Some(_) = connections.join_next(), if !connections.is_empty() => {}
                    }
                }
            }
        });
        Self {
            addr,
            log,
            changed,
            task,
        }
    }

    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<Req> {
        self.log.requests.lock().unwrap().clone()
    }

    /// How many requests so far match `pred`.
    pub fn count(&self, pred: impl Fn(&Req) -> bool) -> usize {
        self.requests().iter().filter(|r| pred(r)).count()
    }

    /// Waits until `n` requests matching `pred` were received; returns them.
    pub async fn wait_for_n(&self, what: &str, n: usize, pred: impl Fn(&Req) -> bool) -> Vec<Req> {
        let mut changed = self.changed.clone();
        within(what, async {
            loop {
                let matching: Vec<Req> = self.requests().into_iter().filter(|r| pred(r)).collect();
                if matching.len() >= n {
                    return matching;
                }
                changed.changed().await.expect("the server is running");
            }
        })
        .await
    }

    /// Waits for the first request matching `pred` (it may already have arrived).
    pub async fn wait_for(&self, what: &str, pred: impl Fn(&Req) -> bool) -> Req {
        self.wait_for_n(what, 1, pred).await.remove(0)
    }
}

async fn serve_connection(
    mut socket: TcpStream,
    handler: Handler,
    log: Arc<Log>,
    changed: Arc<watch::Sender<usize>>,
) {
    let Some(req) = read_request(&mut socket).await else {
        return;
    };
    {
        let mut requests = log.requests.lock().unwrap();
        requests.push(req.clone());
        changed.send_replace(requests.len());
    }
    let resp = handler(req).await;
    let Resp {
        status,
        headers,
        body,
        client_gone,
    } = resp;
    let mut head = format!("HTTP/1.1 {status} Scripted\r\nconnection: close\r\n");
    for (name, value) in &headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    match body {
        Body::Full(bytes) => {
            head.push_str(&format!("content-length: {}\r\n\r\n", bytes.len()));
            let mut out = head.into_bytes();
            out.extend_from_slice(&bytes);
            let _ = socket.write_all(&out).await;
            let _ = socket.shutdown().await;
        }
        Body::Hang => {
            wait_client_gone(&mut socket).await;
            if let Some(tx) = client_gone {
                let _ = tx.send(());
            }
        }
        Body::Stream(mut rx) => {
            head.push_str("transfer-encoding: chunked\r\n\r\n");
            if socket.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            let (mut read, mut write) = socket.into_split();
            let mut gone = std::pin::pin!(async move {
                let mut buf = [0u8; 1024];
                while let Ok(n) = read.read(&mut buf).await {
                    if n == 0 {
                        break;
                    }
                }
            });
            loop {
                let chunk = tokio::select! {
                    chunk = rx.recv() => chunk.unwrap_or(Chunk::End),
                    () = &mut gone => {
                        if let Some(tx) = client_gone {
                            let _ = tx.send(());
                        }
                        return;
                    }
                };
                match chunk {
                    Chunk::Data(bytes) if bytes.is_empty() => {}
                    Chunk::Data(bytes) => {
                        let mut out = format!("{:x}\r\n", bytes.len()).into_bytes();
                        out.extend_from_slice(&bytes);
                        out.extend_from_slice(b"\r\n");
                        if write.write_all(&out).await.is_err() {
                            return;
                        }
                    }
                    Chunk::End => {
                        let _ = write.write_all(b"0\r\n\r\n").await;
                        let _ = write.shutdown().await;
                        return;
                    }
                    Chunk::Abort => return,
                }
            }
        }
    }
}

async fn wait_client_gone(socket: &mut TcpStream) {
    let mut buf = [0u8; 1024];
    while let Ok(n) = socket.read(&mut buf).await {
        if n == 0 {
            break;
        }
    }
}

/// Reads one request: head, then a `content-length` body.
async fn read_request(socket: &mut TcpStream) -> Option<Req> {
    let mut buf = Vec::new();
    let head_end = loop {
        if let Some(pos) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break pos;
        }
        if buf.len() > 64 * 1024 {
            return None;
        }
        let mut chunk = [0u8; 4096];
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let at = Instant::now();
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split(' ');
    let method = request_line.next()?.to_owned();
    let path = request_line.next()?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    assert!(
        !headers
            .iter()
            .any(|(n, v)| n == "transfer-encoding" && v.contains("chunked")),
        "the scripted server expects request bodies with content-length"
    );
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < length {
        let mut chunk = [0u8; 4096];
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    body.truncate(length);
    Some(Req {
        method,
        path,
        headers,
        body,
        at,
    })
}
