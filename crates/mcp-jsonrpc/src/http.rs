//! The streamable HTTP client transport: every message is a POST; answers come back as a JSON
//! body or an SSE stream; a GET SSE stream carries what the server sends on its own.
//!
//! Behaviour, in the terms of the MCP transports page (2025-03-26 … 2026-07-28):
//! - POST with `Content-Type: application/json` and `Accept: application/json, text/event-stream`.
//! - `mcp-session-id` from any response is kept, updated when it changes, and sent on every
//!   later request; `DELETE` ends the session on [`Client::close`](crate::Client::close).
//! - The GET stream is tried at connect; `405` (and, before a session exists, `400`/`404`) is
//!   tolerated, and the GET is retried after a `202 Accepted` or when a session id first
//!   appears. Once established, a GET stream that ends is resumed with `Last-Event-ID` when
//!   the server gave event ids; otherwise the client closes (fail-fast) so that no server
//!   message is lost silently. `[DONE]` ends a POST's SSE stream; on the GET stream it is
//!   ignored.
//! - A POST's SSE stream that breaks before the response arrived is resumed with a GET
//!   carrying `Last-Event-ID` (honouring `retry:`), when the server gave event ids.
//! - A failed exchange for a request (connect error, timeout, non-2xx without a JSON-RPC
//!   answer, a stream without the response) becomes a `-32000` error response for that
//!   request; a non-2xx whose body is a JSON-RPC error answers the request with that error.
//! - No redirects and no system proxy unless asked; `connect_timeout` bounds connecting and
//!   the GET's headers, `request_timeout` bounds each POST exchange (never the GET stream).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};
use std::time::Duration;

use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use reqwest::{Method, StatusCode, Url};
use serde_json::json;
use tokio::sync::Semaphore;

use crate::client::Client;
use crate::peer::{Frame, FrameKind, Outbound, Shared};
use crate::sse::{SseEvent, SseParser};
use crate::stdout_log::StdoutLogWriter;
use crate::{Error, ErrorObject, Id, SpawnOptions, error_codes};

const SESSION_HEADER: &str = "mcp-session-id";
const LAST_EVENT_ID: &str = "last-event-id";
/// Resumption attempts for one broken SSE stream before giving up.
const MAX_RESUME_ATTEMPTS: u32 = 5;
/// The reconnection delay when the server did not send `retry:`.
const DEFAULT_RETRY: Duration = Duration::from_millis(100);
/// Bound on concurrently detached POSTs (automatic replies sent without waiting).
const MAX_DETACHED_POSTS: usize = 64;
/// How much of an error body is read to find a JSON-RPC answer or to quote it.
const ERROR_BODY_LIMIT: usize = 64 * 1024;
/// The time given to the `DELETE` that ends a session.
const DELETE_TIMEOUT: Duration = Duration::from_secs(5);

/// Options of the streamable HTTP transport.
#[derive(Debug, Clone)]
pub struct StreamableHttpOptions {
    /// Extra headers sent with every request (GET, POST, DELETE).
    pub headers: BTreeMap<String, String>,
    /// Bounds establishing a connection and receiving the GET stream's response headers
    /// (default 10 s). Not a limit on the stream's lifetime.
    pub connect_timeout: Option<Duration>,
    /// Bounds each POST exchange, response stream included (default: none; `mcp-kit` sets its
    /// per-request timeout here). Never applied to the GET stream.
    pub request_timeout: Option<Duration>,
    /// Follow HTTP redirects (default `false`: a redirect is reported as an error, which
    /// closes a server-side request forgery path).
    pub follow_redirects: bool,
}

impl Default for StreamableHttpOptions {
    fn default() -> Self {
        Self {
            headers: BTreeMap::new(),
            connect_timeout: Some(Duration::from_secs(10)),
            request_timeout: None,
            follow_redirects: false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GetState {
    Closed,
    Connecting,
    Open,
    NotOffered,
}

struct GetStream {
    state: GetState,
    /// The session id the last attempt was made with.
    tried_with_session: Option<HeaderValue>,
    /// Whether an attempt was already made after a `202` for that session.
    tried_after_accepted: bool,
}

/// Why the GET stream is being (re)tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trigger {
    Connect,
    Accepted,
    NewSession,
}

/// The outbound side of a streamable HTTP connection.
pub(crate) struct HttpOutbound {
    http: reqwest::Client,
    post_url: Url,
    sse_url: Url,
    connect_timeout: Option<Duration>,
    request_timeout: Option<Duration>,
    max_message_bytes: usize,
    headers: Mutex<HeaderMap>,
    session: Mutex<Option<HeaderValue>>,
    get: Mutex<GetStream>,
    detached: Arc<Semaphore>,
    shared: OnceLock<Weak<Shared>>,
    log: Option<Mutex<StdoutLogWriter>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A `-32000` error standing for a failed HTTP exchange.
fn bridged(message: String, status: Option<StatusCode>, body: Option<&[u8]>) -> Error {
    let mut data = serde_json::Map::new();
    if let Some(status) = status {
        data.insert("httpStatus".into(), json!(status.as_u16()));
    }
    if let Some(body) = body.filter(|b| !b.is_empty()) {
        data.insert("body".into(), json!(crate::peer::preview(body)));
    }
    let mut error = ErrorObject::new(error_codes::SERVER_ERROR, message);
    if !data.is_empty() {
        error.data = Some(data.into());
    }
    Error::Rpc(error)
}

fn is_event_stream(response: &reqwest::Response) -> bool {
    content_type(response).starts_with("text/event-stream")
}

fn content_type(response: &reqwest::Response) -> String {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

impl Client {
    /// Connects to a streamable HTTP MCP endpoint (one URL for GET and POST).
    pub async fn connect_streamable_http(url: &str) -> Result<Self, Error> {
        Self::connect_streamable_http_with_options(
            url,
            StreamableHttpOptions::default(),
            SpawnOptions::default(),
        )
        .await
    }

    /// Connects with options. Of `options`, `limits` and `stdout_log` apply (the log records
    /// every message received).
    pub async fn connect_streamable_http_with_options(
        url: &str,
        http_options: StreamableHttpOptions,
        options: SpawnOptions,
    ) -> Result<Self, Error> {
        Self::connect_streamable_http_split_with_options(url, url, http_options, options).await
    }

    /// Connects with separate URLs for the GET SSE stream and for POSTs.
    pub async fn connect_streamable_http_split_with_options(
        sse_url: &str,
        http_url: &str,
        http_options: StreamableHttpOptions,
        options: SpawnOptions,
    ) -> Result<Self, Error> {
        let parse = |what: &str, url: &str| {
            let parsed =
                Url::parse(url).map_err(|e| Error::Http(format!("invalid {what} `{url}`: {e}")))?;
            match parsed.scheme() {
                "http" | "https" => Ok(parsed),
                other => Err(Error::Http(format!(
                    "{what} `{url}` has scheme `{other}`; expected http or https"
                ))),
            }
        };
        let sse_url = parse("sse_url", sse_url)?;
        let post_url = parse("http_url", http_url)?;
        let mut headers = HeaderMap::new();
        for (name, value) in &http_options.headers {
            let name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|e| Error::Http(format!("invalid header name `{name}`: {e}")))?;
            let value = HeaderValue::from_str(value)
                .map_err(|e| Error::Http(format!("invalid value for header `{name}`: {e}")))?;
            headers.insert(name, value);
        }
        let mut builder = reqwest::Client::builder()
            .no_proxy()
            .tcp_nodelay(true)
            .redirect(if http_options.follow_redirects {
                reqwest::redirect::Policy::limited(10)
            } else {
                reqwest::redirect::Policy::none()
            });
        if let Some(timeout) = http_options.connect_timeout {
            builder = builder.connect_timeout(timeout);
        }
        let http = builder
            .build()
            .map_err(|e| Error::Http(format!("cannot build the HTTP client: {e}")))?;
        let log = options
            .stdout_log
            .as_ref()
            .map(StdoutLogWriter::open)
            .transpose()?
            .map(Mutex::new);
        let outbound = Arc::new(HttpOutbound {
            http,
            post_url,
            sse_url,
            connect_timeout: http_options.connect_timeout,
            request_timeout: http_options.request_timeout,
            max_message_bytes: options.limits.max_message_bytes,
            headers: Mutex::new(headers),
            session: Mutex::new(None),
            get: Mutex::new(GetStream {
                state: GetState::Closed,
                tried_with_session: None,
                tried_after_accepted: false,
            }),
            detached: Arc::new(Semaphore::new(MAX_DETACHED_POSTS)),
            shared: OnceLock::new(),
            log,
        });
        let (shared, receivers) = Shared::new(Outbound::Http(outbound.clone()), options.limits);
        let _ = outbound.shared.set(Arc::downgrade(&shared));
        outbound.open_get_stream(Trigger::Connect).await?;
        let mut client = Client::from_parts(shared, receivers, None);
        client.http = Some(outbound);
        Ok(client)
    }
}

impl crate::ClientHandle {
    /// Sets a header sent with every later HTTP request of this connection (for example
    /// `MCP-Protocol-Version` once negotiated). Fails on non-HTTP connections and for invalid
    /// names or values.
    pub fn set_http_header(&self, name: &str, value: &str) -> Result<(), Error> {
        let Outbound::Http(http) = &self.shared.outbound_ref() else {
            return Err(Error::InvalidArgument(
                "set_http_header needs a streamable HTTP connection".into(),
            ));
        };
        let name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|e| Error::InvalidArgument(format!("invalid header name `{name}`: {e}")))?;
        let value = HeaderValue::from_str(value)
            .map_err(|e| Error::InvalidArgument(format!("invalid value for `{name}`: {e}")))?;
        lock(&http.headers).insert(name, value);
        Ok(())
    }

    /// The `mcp-session-id` the server assigned, on a streamable HTTP connection.
    pub fn session_id(&self) -> Option<String> {
        match self.shared.outbound_ref() {
            Outbound::Http(http) => lock(&http.session)
                .as_ref()
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned),
            _ => None,
        }
    }
}

impl HttpOutbound {
    fn shared(&self) -> Option<Arc<Shared>> {
        self.shared.get().and_then(Weak::upgrade)
    }

    fn request(&self, method: Method, url: &Url) -> reqwest::RequestBuilder {
        let mut headers = lock(&self.headers).clone();
        if let Some(session) = lock(&self.session).clone() {
            headers.insert(SESSION_HEADER, session);
        }
        self.http.request(method, url.clone()).headers(headers)
    }

    /// Records a session id the server sent; a new one is a reason to retry the GET stream.
    fn note_session(self: &Arc<Self>, response: &reqwest::Response) {
        let Some(value) = response.headers().get(SESSION_HEADER) else {
            return;
        };
        let changed = {
            let mut session = lock(&self.session);
            if session.as_ref() == Some(value) {
                false
            } else {
                *session = Some(value.clone());
                true
            }
        };
        if changed {
            self.retry_get_stream(Trigger::NewSession);
        }
    }

    fn log(&self, bytes: &[u8]) {
        if let Some(log) = &self.log {
            lock(log).write_line(bytes);
        }
    }

    // ----- sending ----------------------------------------------------------------------------

    pub(crate) async fn send(
        self: &Arc<Self>,
        shared: &Arc<Shared>,
        frame: Frame,
    ) -> Result<(), Error> {
        match frame.kind {
            FrameKind::Request(id) => {
                let task = tokio::spawn(self.clone().post_request(shared.clone(), frame.bytes, id));
                shared.set_abort(id, task.abort_handle());
                Ok(())
            }
            FrameKind::Notification | FrameKind::Response => {
                self.post_message(shared, frame.bytes).await
            }
        }
    }

    pub(crate) fn send_detached(self: &Arc<Self>, shared: &Arc<Shared>, frame: Frame) -> bool {
        let Ok(permit) = self.detached.clone().try_acquire_owned() else {
            return false;
        };
        let this = self.clone();
        let shared = shared.clone();
        tokio::spawn(async move {
            if let Err(e) = this.post_message(&shared, frame.bytes).await {
                tracing::warn!(error = %e, "could not deliver an automatic reply to the server");
            }
            drop(permit);
        });
        true
    }

    /// POSTs a notification or a response; the server accepts it with `202`.
    async fn post_message(
        self: &Arc<Self>,
        shared: &Arc<Shared>,
        bytes: Vec<u8>,
    ) -> Result<(), Error> {
        let response = self
            .post(bytes)
            .await
            .map_err(|e| Error::Http(format!("POST {} failed: {e}", self.post_url)))?;
        self.note_session(&response);
        let status = response.status();
        if status == StatusCode::ACCEPTED {
            self.retry_get_stream(Trigger::Accepted);
        }
        if !status.is_success() {
            let body = read_limited(response, ERROR_BODY_LIMIT)
                .await
                .unwrap_or_default();
            return Err(Error::Http(format!(
                "POST {}: HTTP {status}{}",
                self.post_url,
                if body.is_empty() {
                    String::new()
                } else {
                    format!(": {}", crate::peer::preview(&body))
                }
            )));
        }
        if is_event_stream(&response) {
            // Unusual for a notification, but whatever the server streams is delivered.
            let this = self.clone();
            let shared = shared.clone();
            tokio::spawn(async move {
                let mut parser = SseParser::new(this.max_message_bytes);
                let _ = this.pump(&shared, response, &mut parser, None).await;
            });
        } else if let Ok(body) = read_limited(response, self.max_message_bytes).await {
            self.deliver(shared, &body);
        }
        Ok(())
    }

    async fn post(&self, bytes: Vec<u8>) -> Result<reqwest::Response, reqwest::Error> {
        self.request(Method::POST, &self.post_url)
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream")
            .body(bytes)
            .send()
            .await
    }

    fn deliver(&self, shared: &Arc<Shared>, bytes: &[u8]) {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        self.log(bytes);
        shared.dispatch(bytes);
    }

    /// Carries one request: POST, then read the answer however it comes. Whatever goes wrong
    /// becomes the request's error response.
    async fn post_request(self: Arc<Self>, shared: Arc<Shared>, bytes: Vec<u8>, id: i64) {
        let exchange = self.exchange(&shared, bytes, id);
        let outcome = match self.request_timeout {
            Some(limit) => tokio::time::timeout(limit, exchange)
                .await
                .unwrap_or_else(|_| {
                    Err(bridged(
                        format!("HTTP request timed out after {limit:?} (request_timeout)"),
                        None,
                        None,
                    ))
                }),
            None => exchange.await,
        };
        if let Err(error) = outcome {
            shared.complete(id, Err(error));
        }
    }

    async fn exchange(
        self: &Arc<Self>,
        shared: &Arc<Shared>,
        bytes: Vec<u8>,
        id: i64,
    ) -> Result<(), Error> {
        let response = self
            .post(bytes)
            .await
            .map_err(|e| bridged(format!("POST {} failed: {e}", self.post_url), None, None))?;
        self.note_session(&response);
        let status = response.status();
        if status == StatusCode::ACCEPTED {
            // The answer will arrive on the GET stream.
            self.retry_get_stream(Trigger::Accepted);
            return Ok(());
        }
        if !status.is_success() {
            let body = read_limited(response, ERROR_BODY_LIMIT)
                .await
                .unwrap_or_default();
            // A modern server answers with a JSON-RPC error in the body (e.g. 404 + -32601).
            if body.first().is_some_and(|b| *b == b'{' || *b == b'[') {
                self.deliver(shared, &body);
                if !shared.is_pending(id) {
                    return Ok(());
                }
            }
            return Err(bridged(
                self.status_message(status),
                Some(status),
                Some(&body),
            ));
        }
        if is_event_stream(&response) {
            let mut parser = SseParser::new(self.max_message_bytes);
            let mut attempts = 0;
            let mut next = Some(response);
            loop {
                let ended = match next.take() {
                    Some(response) => self.pump(shared, response, &mut parser, Some(id)).await,
                    None => Err(Error::Http("resuming with Last-Event-ID failed".into())),
                };
                if !shared.is_pending(id) {
                    return Ok(());
                }
                let Some(last) = parser.last_event_id().map(str::to_owned) else {
                    let why = ended
                        .err()
                        .map_or_else(|| "it ended".to_owned(), |e| e.to_string());
                    return Err(bridged(
                        format!(
                            "the SSE response stream closed before the response arrived ({why})"
                        ),
                        Some(status),
                        None,
                    ));
                };
                attempts += 1;
                if attempts > MAX_RESUME_ATTEMPTS {
                    return Err(bridged(
                        format!(
                            "the SSE response stream broke and {MAX_RESUME_ATTEMPTS} resumptions with Last-Event-ID failed"
                        ),
                        Some(status),
                        None,
                    ));
                }
                tokio::time::sleep(
                    parser
                        .retry_ms()
                        .map_or(DEFAULT_RETRY, Duration::from_millis),
                )
                .await;
                parser.finish();
                next = match self.resume(&last).await {
                    Ok(response) => Some(response),
                    Err(e) => {
                        tracing::debug!(error = %e, attempt = attempts, "resuming the SSE response stream failed");
                        None
                    }
                };
            }
        }
        match read_limited(response, self.max_message_bytes).await {
            Ok(body) => self.deliver(shared, &body),
            Err(BodyError::TooLarge) => {
                shared.oversized(Some(Id::Number(id)), false);
                return Ok(());
            }
            Err(BodyError::Http(e)) => {
                return Err(bridged(
                    format!("reading the response body failed: {e}"),
                    Some(status),
                    None,
                ));
            }
        }
        if shared.is_pending(id) {
            return Err(bridged(
                format!("HTTP {status} carried no JSON-RPC response for this request"),
                Some(status),
                None,
            ));
        }
        Ok(())
    }

    fn status_message(&self, status: StatusCode) -> String {
        let mut message = format!("HTTP {status} from POST {}", self.post_url);
        if status == StatusCode::NOT_FOUND && lock(&self.session).is_some() {
            message.push_str(" (the server no longer knows this session: it expired or was deleted; reconnect to start a new one)");
        } else if status.is_redirection() {
            message.push_str(" (redirects are not followed unless follow_redirects is set)");
        }
        message
    }

    /// GET with `Last-Event-ID` to resume a stream.
    async fn resume(&self, last_event_id: &str) -> Result<reqwest::Response, Error> {
        let response = self
            .request(Method::GET, &self.sse_url)
            .header(ACCEPT, "text/event-stream")
            .header(LAST_EVENT_ID, last_event_id)
            .send()
            .await
            .map_err(|e| Error::Http(format!("GET {} failed: {e}", self.sse_url)))?;
        if response.status().is_success() && is_event_stream(&response) {
            Ok(response)
        } else {
            Err(Error::Http(format!(
                "GET {}: HTTP {}",
                self.sse_url,
                response.status()
            )))
        }
    }

    /// Delivers the events of one SSE body until it ends. With `request`, the body is that
    /// request's response stream: `[DONE]` ends it, and an oversized event whose id cannot be
    /// read is charged to the request.
    async fn pump(
        &self,
        shared: &Arc<Shared>,
        mut response: reqwest::Response,
        parser: &mut SseParser,
        request: Option<i64>,
    ) -> Result<(), Error> {
        let mut done = false;
        while !done {
            let chunk = match response.chunk().await {
                Ok(Some(chunk)) => chunk,
                Ok(None) => break,
                Err(e) => return Err(Error::Http(format!("SSE stream error: {e}"))),
            };
            parser.feed(&chunk, &mut |event| match event {
                SseEvent::Message { data, .. } => {
                    if data.as_slice() == b"[DONE]" {
                        if request.is_some() {
                            done = true;
                        }
                    } else {
                        self.deliver(shared, &data);
                    }
                }
                SseEvent::Oversized(o) => {
                    let id = match (o.id, request) {
                        (Some(id), _) => Some(id),
                        (None, Some(own)) if !o.is_request => Some(Id::Number(own)),
                        (None, _) => None,
                    };
                    shared.oversized(id, o.is_request);
                }
            });
        }
        Ok(())
    }

    // ----- the GET stream ---------------------------------------------------------------------

    fn retry_get_stream(self: &Arc<Self>, trigger: Trigger) {
        let session = lock(&self.session).clone();
        {
            let mut get = lock(&self.get);
            if get.state != GetState::NotOffered {
                return;
            }
            let retry = match trigger {
                Trigger::Connect => false,
                Trigger::NewSession => get.tried_with_session != session,
                Trigger::Accepted => !get.tried_after_accepted || get.tried_with_session != session,
            };
            if !retry {
                return;
            }
            if trigger == Trigger::Accepted {
                get.tried_after_accepted = true;
            }
        }
        let this = self.clone();
        tokio::spawn(async move {
            if let Err(e) = this.open_get_stream(trigger).await {
                tracing::debug!(error = %e, "retrying the GET SSE stream failed");
            }
        });
    }

    /// Tries to open the GET stream. At connect, only a refusal the transport tolerates is
    /// `Ok`; later attempts never fail the connection.
    async fn open_get_stream(self: &Arc<Self>, trigger: Trigger) -> Result<(), Error> {
        let session = {
            let session = lock(&self.session).clone();
            let mut get = lock(&self.get);
            if matches!(get.state, GetState::Open | GetState::Connecting) {
                return Ok(());
            }
            get.state = GetState::Connecting;
            if get.tried_with_session != session {
                get.tried_after_accepted = trigger == Trigger::Accepted;
            }
            get.tried_with_session = session.clone();
            session
        };
        let send = self
            .request(Method::GET, &self.sse_url)
            .header(ACCEPT, "text/event-stream")
            .send();
        let sent = match self.connect_timeout {
            Some(limit) => tokio::time::timeout(limit, send).await.map_err(|_| None),
            None => Ok(send.await),
        }
        .and_then(|sent| sent.map_err(Some));
        let set_state = |state| lock(&self.get).state = state;
        let response = match sent {
            Ok(response) => response,
            Err(failure) => {
                set_state(GetState::NotOffered);
                let e = Error::Http(match failure {
                    Some(e) => format!("GET {} failed: {e}", self.sse_url),
                    None => format!("GET {}: no response within connect_timeout", self.sse_url),
                });
                return if trigger == Trigger::Connect {
                    Err(e)
                } else {
                    Ok(())
                };
            }
        };
        self.note_session(&response);
        let status = response.status();
        if status.is_success() && is_event_stream(&response) {
            set_state(GetState::Open);
            let this = self.clone();
            tokio::spawn(async move { this.run_get_stream(response).await });
            return Ok(());
        }
        set_state(GetState::NotOffered);
        let tolerated = status == StatusCode::METHOD_NOT_ALLOWED
            || (session.is_none()
                && matches!(status, StatusCode::BAD_REQUEST | StatusCode::NOT_FOUND));
        if tolerated || trigger != Trigger::Connect {
            tracing::debug!(%status, url = %self.sse_url, "the server offers no GET SSE stream (yet)");
            return Ok(());
        }
        Err(Error::Http(format!(
            "GET {} (SSE stream): HTTP {status}{}",
            self.sse_url,
            if status.is_redirection() {
                " (redirects are not followed unless follow_redirects is set)"
            } else {
                ""
            }
        )))
    }

    /// Pumps the GET stream; resumes it when it breaks and the server gave event ids; closes
    /// the connection otherwise.
    async fn run_get_stream(self: Arc<Self>, mut response: reqwest::Response) {
        let Some(shared) = self.shared() else { return };
        let mut closed = shared.closed_signal();
        let mut parser = SseParser::new(self.max_message_bytes);
        let mut attempts = 0;
        loop {
            let ended = tokio::select! {
                ended = self.pump(&shared, response, &mut parser, None) => ended,
                _ = closed.wait_for(|c| *c) => return,
            };
            let why = ended
                .err()
                .map_or_else(|| "the server ended it".to_owned(), |e| e.to_string());
            let resumed = match parser.last_event_id().map(str::to_owned) {
                Some(last) if attempts < MAX_RESUME_ATTEMPTS => {
                    attempts += 1;
                    tokio::time::sleep(
                        parser
                            .retry_ms()
                            .map_or(DEFAULT_RETRY, Duration::from_millis),
                    )
                    .await;
                    parser.finish();
                    self.resume(&last).await.ok()
                }
                _ => None,
            };
            match resumed {
                Some(next) => {
                    response = next;
                    continue;
                }
                None => {
                    lock(&self.get).state = GetState::Closed;
                    shared.close(format!(
                        "the server's SSE stream (GET {}) was lost: {why}; closing so that no server message is lost silently",
                        self.sse_url
                    ));
                    return;
                }
            }
        }
    }

    // ----- the session ------------------------------------------------------------------------

    /// Ends the session with `DELETE` (best effort).
    pub(crate) async fn end_session(&self) {
        let Some(session) = lock(&self.session).take() else {
            return;
        };
        let request = self
            .http
            .request(Method::DELETE, self.post_url.clone())
            .headers(lock(&self.headers).clone())
            .header(SESSION_HEADER, session)
            .timeout(DELETE_TIMEOUT);
        match request.send().await {
            Ok(response) => tracing::debug!(status = %response.status(), "session ended"),
            Err(e) => tracing::debug!(error = %e, "DELETE of the session failed"),
        }
    }

    /// [`end_session`](Self::end_session) from a context that cannot wait.
    pub(crate) fn end_session_detached(self: &Arc<Self>) {
        if lock(&self.session).is_none() {
            return;
        }
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let this = self.clone();
            runtime.spawn(async move { this.end_session().await });
        }
    }
}

enum BodyError {
    TooLarge,
    Http(reqwest::Error),
}

/// Reads a whole body, refusing to hold more than `limit` bytes.
async fn read_limited(mut response: reqwest::Response, limit: usize) -> Result<Vec<u8>, BodyError> {
    if response.content_length().is_some_and(|n| n > limit as u64) {
        return Err(BodyError::TooLarge);
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(BodyError::Http)? {
        if body.len() + chunk.len() > limit {
            return Err(BodyError::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}
