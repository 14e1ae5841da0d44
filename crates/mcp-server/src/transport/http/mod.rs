//! Streamable HTTP: one endpoint (default `/mcp`) serving both protocol eras.
//!
//! - **Stateful era** (2024-11-05 … 2025-11-25): `initialize` starts a session whose id the
//!   response carries in `Mcp-Session-Id`; later POSTs name it, GET opens the stream for
//!   messages unrelated to any request (list changes), DELETE ends the session. Streams are
//!   resumable with `Last-Event-ID`; a dropped connection does not cancel a request.
//! - **2026-07-28**: every POST stands alone (no session); the `MCP-Protocol-Version`,
//!   `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` headers must match the body (`400`, `-32020`
//!   otherwise); an unknown method is `404`; closing the response stream cancels the request.
//!   GET and DELETE are `405`.
//!
//! A request is answered with one JSON body unless something related to it (progress, a log
//! message, a request to the client, a subscription's notifications) comes before its
//! response; then the answer is an SSE stream carrying those messages and ending with the
//! response.
//!
//! Every request is checked first against the `Host` and `Origin` allowlists of
//! [`HttpOptions`] (`403 Forbidden`), which protect a local server from DNS rebinding.

mod auth;
mod get;
mod headers;
mod ops;
mod options;
mod post;
mod replicas;
mod reply;
mod serve;
mod session_store;
mod sessions;
mod store;
mod stream;
mod tls;
mod ws;

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, header, request::Parts};
use axum::response::Response;
use axum::routing::any;
use tokio::net::ToSocketAddrs;
use tokio::task::JoinHandle;

use crate::Server;
use options::Guard;

pub use auth::ProtectedResourceMetadata;
/// The shared byte buffer an [`EventStore`] keeps messages in (the `bytes` crate's).
pub use axum::body::Bytes;
pub use options::HttpOptions;
#[cfg(feature = "redis")]
pub use session_store::redis::{RedisOptions, RedisSessionStore};
pub use session_store::{
    BusMessage, Followed, Loaded, MemorySessionStore, SessionRecord, SessionStore, StoreError,
    StoreHealth, StoredStream,
};
pub use sessions::HttpSessions;
pub use store::{EventStore, MemoryEventStore};
pub use tls::TlsConfig;

/// What every request of one endpoint shares.
struct Shared {
    server: Server,
    guard: Guard,
    sessions: HttpSessions,
    keep_alive: Option<Duration>,
    /// How long a request body may stop arriving before the request is refused `408`.
    idle_timeout: Duration,
    /// The server serves at least one legacy (stateful) version.
    stateful: bool,
    cors: bool,
    /// Authenticates every request when set.
    auth: Option<Arc<dyn crate::auth::Authenticator>>,
    /// The URL of the protected-resource metadata, for `WWW-Authenticate` challenges.
    metadata_url: Option<String>,
    /// Upgraded (WebSocket) connections open now.
    upgraded: Arc<tokio::sync::watch::Sender<usize>>,
}

/// Counts one upgraded connection while alive.
pub(super) struct OpenConnection(Arc<tokio::sync::watch::Sender<usize>>);

impl OpenConnection {
    pub(super) fn new(count: &Arc<tokio::sync::watch::Sender<usize>>) -> Self {
        count.send_modify(|n| *n += 1);
        Self(count.clone())
    }
}

impl Drop for OpenConnection {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n -= 1);
    }
}

/// Who sent the HTTP request being handled.
#[derive(Clone)]
struct Caller {
    /// Who it authenticated as, when an authenticator is configured.
    principal: Option<crate::auth::Principal>,
    /// The peer's address (`bind_http` always knows it; an application serving
    /// `http_router` may not).
    peer: Option<SocketAddr>,
}

tokio::task_local! {
    /// The caller of the HTTP request being handled (set around the handling of each
    /// request), so that the code binding sessions reads it without threading it through every
    /// call.
    static CALLER: Caller;
}

/// The principal of the request this task handles.
pub(super) fn current_principal() -> Option<crate::auth::Principal> {
    CALLER.try_with(|c| c.principal.clone()).ok().flatten()
}

/// Who counts as one client for session quotas: the principal when authenticated, else the
/// peer's IP address; `None` when neither is known.
pub(super) fn current_client() -> Option<Arc<str>> {
    CALLER
        .try_with(|c| match (&c.principal, c.peer) {
            (Some(principal), _) => Some(Arc::from(format!("principal {}", principal.key()))),
            (None, Some(peer)) => Some(Arc::from(format!("address {}", peer.ip()))),
            (None, None) => None,
        })
        .ok()
        .flatten()
}

impl Server {
    /// Serves streamable HTTP at `http://ADDR/mcp` with [`HttpOptions::default`] until
    /// [`Server::shutdown`]: logs the URL (`tracing`, info level), then stops accepting
    /// connections at shutdown, lets requests in flight finish, and returns. (A program that
    /// prints its URL binds with [`Server::bind_http`] and prints [`HttpServer::url`].)
    ///
    /// ```no_run
    /// # async fn run(server: mcp_server::Server) -> std::io::Result<()> {
    /// server.serve_http(("127.0.0.1", 8080)).await
    /// # }
    /// ```
    pub async fn serve_http(&self, addr: impl ToSocketAddrs) -> io::Result<()> {
        let http = self.bind_http(addr, HttpOptions::default()).await?;
        tracing::info!(url = %http.url(), "MCP server listening");
        http.wait().await
    }

    /// Binds `addr` and starts serving streamable HTTP in a background task; the returned
    /// [`HttpServer`] tells the address (bind port 0 to get a free one) and waits for the end.
    /// Serving stops at [`Server::shutdown`]; requests in flight then get
    /// [`HttpOptions::shutdown_grace`] to finish. With [`HttpOptions::tls`] (feature `tls`) it
    /// serves HTTPS, and the certificate files are read before anything is bound.
    ///
    /// Besides [`HttpOptions::allowed_hosts`], the literal address bound is an accepted
    /// `Host` (unless it is `0.0.0.0` or `::`).
    ///
    /// ```no_run
    /// # async fn run(server: mcp_server::Server) -> std::io::Result<()> {
    /// use std::time::Duration;
    /// use mcp_server::HttpOptions;
    ///
    /// let mut options = HttpOptions::default();
    /// options.session_idle_timeout = Duration::from_secs(5 * 60);
    /// let http = server.bind_http("127.0.0.1:0", options).await?;
    /// println!("serving {} ({} sessions)", http.url(), http.sessions().count());
    /// http.wait().await // until server.shutdown()
    /// # }
    /// ```
    pub async fn bind_http(
        &self,
        addr: impl ToSocketAddrs,
        options: HttpOptions,
    ) -> io::Result<HttpServer> {
        let listener = tls::Listener::bind(addr, options.tls.as_ref()).await?;
        let local_addr = listener.local_addr()?;
        let scheme = listener.scheme();
        let grace = options.shutdown_grace;
        let limits = serve::ConnectionLimits {
            header_read_timeout: options.header_read_timeout,
            idle_timeout: options.idle_timeout,
            max_connections: options.max_connections,
        };
        let path = normalized_path(&options.path);
        let upgraded = Arc::new(tokio::sync::watch::channel(0).0);
        let (router, sessions) = build_with(self, options, Some(local_addr), upgraded.clone());
        sessions.start().await?;
        let server = self.clone();
        let closing = sessions.clone();
        let task = tokio::spawn(async move {
            // The listener sets TCP_NODELAY on every socket it accepts (and does TLS).
            let signal_sessions = closing.clone();
            let graceful = server.clone();
            let serving = serve::serve(listener, router, limits, async move {
                server.shutting_down().await;
                // Requests waiting on a client fail; the others run to completion.
                signal_sessions.input_closed_all();
            });
            // Then the WebSocket connections, which leave the HTTP connections when they
            // upgrade, finish too.
            // And the tasks, cancelled by the shutdown, record how they ended.
            let tasks = graceful.inner.shared.tasks.clone();
            let serving = async move {
                serving.await;
                let mut open = upgraded.subscribe();
                let _ = open.wait_for(|n| *n == 0).await;
                tasks.drained().await;
                Ok(())
            };
            let served = crate::signals::within_grace(&graceful, grace, serving).await;
            closing.close_all();
            served
        });
        Ok(HttpServer {
            local_addr,
            scheme,
            path,
            sessions,
            task,
        })
    }

    /// The streamable HTTP endpoint as an [`axum::Router`], to merge into an application's
    /// own router, and its sessions. The router serves `options.path`; call
    /// [`Server::shutdown`] when the application stops, so that open streams end. (Setting
    /// `TCP_NODELAY` on the accepted sockets, as [`Server::bind_http`] does, is the
    /// application's part: `axum::serve::ListenerExt::tap_io`.)
    ///
    /// ```no_run
    /// # async fn run(server: mcp_server::Server) -> std::io::Result<()> {
    /// let (mcp, _sessions) = server.http_router(mcp_server::HttpOptions::default());
    /// let app = axum::Router::new()
    ///     .route("/version", axum::routing::get(|| async { "1.0.0" }))
    ///     .merge(mcp);
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
    /// axum::serve(listener, app)
    ///     .with_graceful_shutdown(async move { server.shutting_down().await })
    ///     .await
    /// # }
    /// ```
    pub fn http_router(&self, options: HttpOptions) -> (Router, HttpSessions) {
        build(self, options, None)
    }
}

fn normalized_path(path: &str) -> String {
    if path.starts_with('/') {
        path.to_owned()
    } else {
        format!("/{path}")
    }
}

fn build(
    server: &Server,
    options: HttpOptions,
    bound: Option<SocketAddr>,
) -> (Router, HttpSessions) {
    build_with(
        server,
        options,
        bound,
        Arc::new(tokio::sync::watch::channel(0).0),
    )
}

fn build_with(
    server: &Server,
    options: HttpOptions,
    bound: Option<SocketAddr>,
    upgraded: Arc<tokio::sync::watch::Sender<usize>>,
) -> (Router, HttpSessions) {
    let mut guard = Guard::new(&options);
    if let Some(addr) = bound {
        guard.allow_bound(addr);
    }
    let sessions = HttpSessions::new(server, &options);
    let stateful = server.inner.shared.serves_stateful();
    let shared = Arc::new(Shared {
        server: server.clone(),
        guard,
        sessions: sessions.clone(),
        keep_alive: options.keep_alive,
        idle_timeout: options.idle_timeout,
        stateful,
        cors: options.cors,
        auth: options.auth.clone(),
        metadata_url: options.resource_metadata.as_ref().map(|m| m.document_url()),
        upgraded: upgraded.clone(),
    });
    let mut router = Router::new()
        .route(&normalized_path(&options.path), any(endpoint))
        .merge(metadata_routes(&options))
        .merge(ws::routes(&options))
        .merge(
            // What these pages show (tools and their schemas, traffic) is for the same
            // clients as /mcp: they are authenticated like it. /health stays open to probes.
            Router::new()
                .route("/metrics", axum::routing::get(metrics))
                .merge(ops::routes(server, &sessions, &options, {
                    let shared = shared.clone();
                    move |parts: &Parts| refuse_foreign(&shared, parts)
                }))
                .route_layer(axum::middleware::from_fn_with_state(
                    shared.clone(),
                    authenticate_ops,
                )),
        )
        .with_state(shared);
    if options.cors {
        router = router.layer(cors());
    }
    (router, sessions)
}

/// `MCP_ENABLE_CORS` semantics: any origin, the MCP methods and request headers, and
/// `Mcp-Session-Id` and `MCP-Protocol-Version` readable by scripts (the `Origin` allowlist
/// still applies).
fn cors() -> tower_http::cors::CorsLayer {
    use tower_http::cors::{AllowHeaders, Any, CorsLayer};
    let name = HeaderName::from_static;
    CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([Method::GET, Method::POST, Method::DELETE, Method::OPTIONS])
        // Whatever request headers the preflight names: the MCP ones (Content-Type,
        // Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID, Mcp-Method, Mcp-Name,
        // Authorization) and a tool's `Mcp-Param-*`, which no fixed list can name.
        .allow_headers(AllowHeaders::mirror_request())
        .expose_headers([
            name(mcp_jsonrpc::http_headers::SESSION_ID),
            HeaderName::from_bytes(mcp_schema::headers::PROTOCOL_VERSION.as_bytes())
                .expect("a valid header name"),
        ])
}

async fn endpoint(State(shared): State<Arc<Shared>>, request: axum::extract::Request) -> Response {
    let (parts, body) = request.into_parts();
    let principal = match admit(&shared, &parts).await {
        Ok(principal) => principal,
        Err(refused) => return refused,
    };
    let peer = parts
        .extensions
        .get::<axum::extract::ConnectInfo<SocketAddr>>()
        .map(|info| info.0);
    CALLER
        .scope(Caller { principal, peer }, async move {
            match parts.method {
                Method::POST => post::handle(&shared, parts, body).await,
                Method::GET => get::get(&shared, &parts.headers).await,
                Method::DELETE => get::delete(&shared, &parts.headers).await,
                ref other => method_not_allowed(
                    &shared,
                    &format!("{other} is not served here: send MCP messages with POST"),
                ),
            }
        })
        .await
}

/// `GET /.well-known/oauth-protected-resource[/<path>]`: the RFC 9728 document, when set.
fn metadata_routes(options: &HttpOptions) -> Router<Arc<Shared>> {
    let Some(metadata) = &options.resource_metadata else {
        return Router::new();
    };
    let body = serde_json::to_vec(metadata).unwrap_or_default();
    let serve = move || {
        let body = body.clone();
        async move { reply::json(StatusCode::OK, body) }
    };
    let base = "/.well-known/oauth-protected-resource";
    let mut router = Router::new().route(base, axum::routing::get(serve.clone()));
    let path = normalized_path(&options.path);
    if path != "/" {
        router = router.route(&format!("{base}{path}"), axum::routing::get(serve));
    }
    router
}

/// Authenticates requests for the operations pages (except `/health`) when an
/// authenticator is configured.
async fn authenticate_ops(
    State(shared): State<Arc<Shared>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    // Host and Origin first, as on /mcp: a request for another host learns nothing, not even
    // that the page wants credentials.
    let (parts, body) = request.into_parts();
    if let Some(refused) = refuse_foreign(&shared, &parts) {
        return refused;
    }
    let request = axum::extract::Request::from_parts(parts, body);
    if let Some(auth) = &shared.auth
        && request.uri().path() != "/health"
        && let Err(e) = auth.authenticate(request.headers()).await
    {
        return auth::unauthorized(shared.metadata_url.as_deref(), &e);
    }
    next.run(request).await
}

/// `GET /metrics`: the server's metrics in Prometheus text format; `404` when they are off
/// ([`ServerBuilder::metrics`](crate::ServerBuilder::metrics)).
async fn metrics(State(shared): State<Arc<Shared>>, request: axum::extract::Request) -> Response {
    let (parts, _) = request.into_parts();
    if let Some(refused) = refuse_foreign(&shared, &parts) {
        return refused;
    }
    match shared.server.metrics() {
        Some(m) => {
            let mut response = Response::new(axum::body::Body::from(m.render()));
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
            );
            response
        }
        None => reply::invalid(
            StatusCode::NOT_FOUND,
            None,
            "metrics are off: build the server with ServerBuilder::metrics()",
        ),
    }
}

/// What every request to the MCP endpoint (POST, GET, DELETE, WebSocket upgrade) passes
/// first, in this order: the `Host`/`Origin` allowlists, then the authenticator. `Ok` holds
/// the caller's principal (`None` without an authenticator), `Err` the refusal to send.
async fn admit(shared: &Shared, parts: &Parts) -> Result<Option<crate::auth::Principal>, Response> {
    if let Some(refused) = refuse_foreign(shared, parts) {
        return Err(refused);
    }
    match &shared.auth {
        None => Ok(None),
        Some(auth) => auth
            .authenticate(&parts.headers)
            .await
            .map(Some)
            .map_err(|e| auth::unauthorized(shared.metadata_url.as_deref(), &e)),
    }
}

/// DNS rebinding protection: `403` for a `Host` or an `Origin` not on the allowlists; `400`
/// for a request with more than one `Host` (RFC 9112 §3.2), which two parties could read
/// differently.
fn refuse_foreign(shared: &Shared, parts: &Parts) -> Option<Response> {
    if parts.headers.get_all(header::HOST).iter().nth(1).is_some() {
        return Some(reply::invalid(
            StatusCode::BAD_REQUEST,
            None,
            "Bad Request: more than one Host header (RFC 9112 section 3.2)",
        ));
    }
    let host = parts
        .headers
        .get(header::HOST)
        .map(|h| h.to_str().unwrap_or("(not ASCII)"))
        .or_else(|| parts.uri.authority().map(|a| a.as_str()));
    match host {
        Some(host) if shared.guard.host_allowed(host) => {}
        Some(host) => {
            return Some(reply::invalid(
                StatusCode::FORBIDDEN,
                None,
                format!(
                    "Forbidden: Host '{}' is not allowed (DNS rebinding protection); a server \
                     reachable under this name must list it in HttpOptions::allowed_hosts",
                    crate::error::reflect(host)
                ),
            ));
        }
        None => {
            return Some(reply::invalid(
                StatusCode::FORBIDDEN,
                None,
                "Forbidden: the request has no Host header",
            ));
        }
    }
    let origin = parts.headers.get(header::ORIGIN)?;
    let origin = origin.to_str().unwrap_or("(not ASCII)");
    if shared.guard.origin_allowed(origin) {
        return None;
    }
    Some(reply::invalid(
        StatusCode::FORBIDDEN,
        None,
        format!(
            "Forbidden: Origin '{}' is not allowed (DNS rebinding protection); list the \
             web app's origin in HttpOptions::allowed_origins",
            crate::error::reflect(origin)
        ),
    ))
}

/// `405` with the methods the endpoint serves.
fn method_not_allowed(shared: &Shared, detail: &str) -> Response {
    let mut response = reply::invalid(StatusCode::METHOD_NOT_ALLOWED, None, detail);
    let allow = match (shared.stateful, shared.cors) {
        (true, true) => "GET, POST, DELETE, OPTIONS",
        (true, false) => "GET, POST, DELETE",
        (false, true) => "POST, OPTIONS",
        (false, false) => "POST",
    };
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(allow));
    response
}

/// A streamable HTTP endpoint serving in the background (see [`Server::bind_http`]).
///
/// Serving goes on when this value is dropped; it stops at [`Server::shutdown`].
#[derive(Debug)]
pub struct HttpServer {
    local_addr: SocketAddr,
    /// `http`, or `https` with TLS.
    scheme: &'static str,
    path: String,
    sessions: HttpSessions,
    task: JoinHandle<io::Result<()>>,
}

impl HttpServer {
    /// The address the listener bound.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The endpoint's URL, `http://ADDR/mcp` (`https://` with TLS).
    pub fn url(&self) -> String {
        format!("{}://{}{}", self.scheme, self.local_addr, self.path)
    }

    /// The endpoint's stateful sessions.
    pub fn sessions(&self) -> &HttpSessions {
        &self.sessions
    }

    /// Waits until serving stopped: after [`Server::shutdown`], once requests in flight
    /// finished and every session ended.
    pub async fn wait(self) -> io::Result<()> {
        self.task
            .await
            .map_err(|e| io::Error::other(format!("the HTTP server task failed: {e}")))?
    }
}
