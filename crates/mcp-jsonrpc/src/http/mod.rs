//! The streamable HTTP client transport: every message is a POST; answers come back as a JSON
//! body or an SSE stream; a GET SSE stream carries what the server sends on its own.
//!
//! Behaviour, in the terms of the MCP transports page (2025-03-26 … 2026-07-28):
//! - POST with `Content-Type: application/json` and `Accept: application/json, text/event-stream`.
//! - `mcp-session-id` from any response is kept, updated when it changes, and sent on every
//!   later request; `DELETE` ends the session on [`Peer::close`](crate::Peer::close).
//! - The GET stream is tried at connect; `405` (and, before a session exists, `400`/`404`) is
//!   tolerated, and the GET is retried after a `202 Accepted` or when a session id first
//!   appears. Once established, a GET stream that ends is resumed with `Last-Event-ID` when
//!   the server gave event ids, as often as the server ends it (a server may make the client
//!   poll), a failed resumption being tried again up to 5 times; otherwise the client closes
//!   (fail-fast) so that no server message is lost silently. `[DONE]` ends a POST's SSE
//!   stream; on the GET stream it is ignored.
//! - A POST's SSE stream is read until its request is answered, then let go (even if the
//!   server keeps it open). One that breaks before the response arrived is resumed with a GET
//!   carrying `Last-Event-ID` (honouring `retry:`), when the server gave event ids; one that
//!   ends with `[DONE]` is not resumed.
//! - `Last-Event-ID` is the id of the last *complete* event: an event cut off before its
//!   blank line was not received, and its id does not count.
//! - A failed exchange for a request (connect error, timeout, non-2xx without a JSON-RPC
//!   answer, a stream without the response) becomes a `-32000` error response for that
//!   request; a non-2xx whose body is a JSON-RPC error answers the request with that error
//!   (one with a null id too: it can only be about the request its POST carried).
//! - No redirects and no system proxy unless asked; `connect_timeout` bounds connecting and
//!   the headers of every GET (the stream and its resumptions); `request_timeout` bounds each
//!   POST exchange (requests, notifications and responses alike) and the wait for the answer
//!   to a request the server accepted with `202`, never the GET stream.

pub(crate) mod auth;
mod cause;
mod get_stream;
pub(crate) mod legacy;
mod post;
mod redact;
mod streams;

pub use auth::{
    AuthChallenge, AuthFuture, AuthOutcome, Authorizer, HttpAuthorizer, MAX_AUTH_RETRIES,
    PrepareFuture,
};
pub use post::{BodyError, read_limited};
pub use redact::redact_url;

use get_stream::{GetStream, Trigger};
use streams::{StreamEnd, is_event_stream};

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

use parking_lot::Mutex;

use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use reqwest::{Method, StatusCode, Url};
use serde_json::json;
use tokio::sync::Semaphore;

use crate::connection::{
    Frame, FrameKind, InboundReceivers, Outbound, Shared, Transport, TransportFuture,
};
use crate::http_headers::{LAST_EVENT_ID, SESSION_ID};
use crate::sse::{SseEvent, SseParser};
use crate::stdout_log::StdoutLogWriter;
use crate::{Error, ErrorObject, Id, SpawnOptions, error_codes};

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
    /// Bounds establishing a connection and receiving the response headers of the GET stream
    /// and of its resumptions (default 10 s). Not a limit on the stream's lifetime.
    pub connect_timeout: Option<Duration>,
    /// Bounds each POST exchange, response stream included, and the wait for the answer to a
    /// request the server accepted with `202` (default: none; `mcp-kit` sets its per-request
    /// timeout here). Never applied to the GET stream.
    pub request_timeout: Option<Duration>,
    /// Follow HTTP redirects (default `false`: a redirect is reported as an error, which
    /// closes a server-side request forgery path).
    pub follow_redirects: bool,
    /// What authorizes the requests (default: none; see [`HttpAuthorizer`]). Its headers
    /// are added to every request after [`headers`](Self::headers); a 401 or 403 is handed
    /// to it. The streamable HTTP transport only: the legacy HTTP+SSE one ignores it.
    pub authorizer: Option<Authorizer>,
}

impl Default for StreamableHttpOptions {
    fn default() -> Self {
        Self {
            headers: BTreeMap::new(),
            connect_timeout: Some(Duration::from_secs(10)),
            request_timeout: None,
            follow_redirects: false,
            authorizer: None,
        }
    }
}

/// The outbound side of a streamable HTTP connection.
pub(crate) struct HttpOutbound {
    http: reqwest::Client,
    post_url: Url,
    sse_url: Url,
    /// The URLs as messages show them ([`redact_url`]).
    post_shown: String,
    sse_shown: String,
    connect_timeout: Option<Duration>,
    request_timeout: Option<Duration>,
    max_message_bytes: usize,
    headers: Mutex<HeaderMap>,
    session: Mutex<Option<HeaderValue>>,
    get: Mutex<GetStream>,
    detached: Arc<Semaphore>,
    shared: OnceLock<Weak<Shared>>,
    log: Option<Mutex<StdoutLogWriter>>,
    authorizer: Option<Authorizer>,
}

/// Connects to a streamable HTTP endpoint: the connection core and its receiving ends.
pub(crate) async fn connect(
    sse_url: &str,
    http_url: &str,
    http_options: StreamableHttpOptions,
    options: SpawnOptions,
) -> Result<(Arc<Shared>, InboundReceivers), Error> {
    let sse_url = parse_url("sse_url", sse_url)?;
    let post_url = parse_url("http_url", http_url)?;
    let (http, headers) = client(&http_options)?;
    let log = options
        .stdout_log
        .as_ref()
        .map(StdoutLogWriter::open)
        .transpose()?
        .map(Mutex::new);
    let outbound = Arc::new(HttpOutbound {
        http,
        post_shown: redact_url(post_url.as_str()),
        sse_shown: redact_url(sse_url.as_str()),
        post_url,
        sse_url,
        connect_timeout: http_options.connect_timeout,
        request_timeout: http_options.request_timeout,
        max_message_bytes: options.limits.max_message_bytes,
        headers: Mutex::new(headers),
        session: Mutex::new(None),
        get: Mutex::new(GetStream::new()),
        detached: Arc::new(Semaphore::new(MAX_DETACHED_POSTS)),
        shared: OnceLock::new(),
        log,
        authorizer: http_options.authorizer,
    });
    let transport = Arc::new(HttpTransport(outbound.clone()));
    let (shared, receivers) =
        Shared::new(Outbound::Exchanges(transport), options.limits, options.wire);
    let _ = outbound.shared.set(Arc::downgrade(&shared));
    outbound.open_get_stream(Trigger::Connect).await?;
    Ok((shared, receivers))
}

/// An http(s) URL (`what` names it in the error).
fn parse_url(what: &str, url: &str) -> Result<Url, Error> {
    let shown = redact_url(url);
    let parsed =
        Url::parse(url).map_err(|e| Error::Http(format!("invalid {what} `{shown}`: {e}")))?;
    match parsed.scheme() {
        "http" | "https" => Ok(parsed),
        other => Err(Error::Http(format!(
            "{what} `{shown}` has scheme `{other}`; expected http or https"
        ))),
    }
}

/// The HTTP client of a connection (no proxy, redirects as asked, the connect timeout) and
/// the headers sent with every request.
fn client(http_options: &StreamableHttpOptions) -> Result<(reqwest::Client, HeaderMap), Error> {
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
    Ok((http, headers))
}

/// Sets a header sent with every later exchange (`Transport::set_header` of both HTTP
/// transports).
fn set_header(headers: &Mutex<HeaderMap>, name: &str, value: &str) -> Result<(), Error> {
    let name = HeaderName::from_bytes(name.as_bytes())
        .map_err(|e| Error::InvalidArgument(format!("invalid header name `{name}`: {e}")))?;
    let value = HeaderValue::from_str(value)
        .map_err(|e| Error::InvalidArgument(format!("invalid value for `{name}`: {e}")))?;
    headers.lock().insert(name, value);
    Ok(())
}

/// The streamable HTTP transport as the connection sees it.
struct HttpTransport(Arc<HttpOutbound>);

impl Transport for HttpTransport {
    fn send<'a>(
        &'a self,
        shared: &'a Arc<Shared>,
        frame: Frame,
    ) -> TransportFuture<'a, Result<(), Error>> {
        Box::pin(self.0.send(shared, frame))
    }

    fn send_detached(&self, shared: &Arc<Shared>, frame: Frame) -> bool {
        self.0.send_detached(shared, frame)
    }

    fn set_header(&self, name: &str, value: &str) -> Result<(), Error> {
        set_header(&self.0.headers, name, value)
    }

    fn stop_server_stream(&self) {
        self.0.stop_get_stream();
    }

    fn session_id(&self) -> Option<String> {
        self.0
            .session
            .lock()
            .as_ref()
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    }

    fn end_session(&self) -> TransportFuture<'_, ()> {
        Box::pin(self.0.end_session())
    }

    fn end_session_detached(&self) {
        self.0.end_session_detached();
    }
}

impl HttpOutbound {
    fn shared(&self) -> Option<Arc<Shared>> {
        self.shared.get().and_then(Weak::upgrade)
    }

    fn request(&self, method: Method, url: &Url) -> reqwest::RequestBuilder {
        let mut headers = self.headers.lock().clone();
        if let Some(session) = self.session.lock().clone() {
            headers.insert(SESSION_ID, session);
        }
        if let Some(authorizer) = &self.authorizer {
            for (name, value) in authorizer.0.headers(method.as_str(), url.as_str()) {
                // An authorizer's header that is not a valid one is left out: the server then
                // refuses the request, which says more than failing it here.
                if let (Ok(name), Ok(value)) = (
                    HeaderName::from_bytes(name.as_bytes()),
                    HeaderValue::from_str(&value),
                ) {
                    headers.insert(name, value);
                }
            }
        }
        self.http.request(method, url.clone()).headers(headers)
    }

    /// The challenge of a refused response, when an authorizer may answer it.
    fn challenge(
        &self,
        method: &Method,
        response: &reqwest::Response,
        sent_at: std::time::Instant,
    ) -> Option<AuthChallenge> {
        let status = response.status();
        (self.authorizer.is_some()
            && matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN))
        .then(|| {
            AuthChallenge::new(
                status.as_u16(),
                method.as_str(),
                response.url().as_str(),
                response.headers(),
            )
            .sent_at(sent_at)
        })
    }

    /// Lets the authorizer do what is due before a message goes (a refresh).
    async fn prepare_authorization(&self) {
        if let Some(authorizer) = &self.authorizer
            && let Some(work) = authorizer.0.prepare()
        {
            work.await;
        }
    }

    /// Hands a refusal to the authorizer.
    async fn authorize(&self, challenge: &AuthChallenge) -> Result<AuthOutcome, Error> {
        match &self.authorizer {
            Some(authorizer) => authorizer.0.challenged(challenge).await,
            None => Ok(AuthOutcome::Report),
        }
    }

    /// Records a session id the server sent; a new one is a reason to retry the GET stream.
    fn note_session(self: &Arc<Self>, response: &reqwest::Response) {
        // Only an accepted exchange assigns a session: some servers (the Python SDK's) mint an
        // id even on the 400 that refuses a pre-session GET, and then do not know it.
        if !response.status().is_success() {
            return;
        }
        let Some(value) = response.headers().get(SESSION_ID) else {
            return;
        };
        let changed = {
            let mut session = self.session.lock();
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
            log.lock().write_line(bytes);
        }
    }

    // ----- the session ---------------------------------------------------------------------------

    /// Ends the session with `DELETE` (best effort).
    pub(crate) async fn end_session(&self) {
        let Some(session) = self.session.lock().take() else {
            return;
        };
        let request = self
            .request(Method::DELETE, &self.post_url)
            .header(SESSION_ID, session)
            .timeout(DELETE_TIMEOUT);
        match request.send().await {
            Ok(response) => tracing::debug!(status = %response.status(), "session ended"),
            Err(e) => tracing::debug!(error = %e, "DELETE of the session failed"),
        }
    }

    /// [`end_session`](Self::end_session) from a context that cannot wait.
    pub(crate) fn end_session_detached(self: &Arc<Self>) {
        if self.session.lock().is_none() {
            return;
        }
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let this = self.clone();
            runtime.spawn(async move { this.end_session().await });
        }
    }
}
