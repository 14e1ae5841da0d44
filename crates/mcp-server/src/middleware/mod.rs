//! A chain of middleware around every request, on every transport.
//!
//! Middleware runs after the request's envelope was checked (its era, version and client
//! capabilities are known) and its params were decoded into their types, around the handler
//! that answers it, in the order it was added with
//! [`ServerBuilder::middleware`](crate::ServerBuilder::middleware): the first added is the
//! outermost. Each one sees the request ([`Request`]: the typed request, its target, its
//! context) and either answers it itself (a refusal) or passes it on with [`Next::run`], and
//! may look at or change the typed result.
//!
//! Built in: [`Timeout`], [`ConcurrencyLimit`], [`RateLimit`], [`RequestLog`],
//! [`ResponseCache`], [`RequireScopes`]; metrics are switched on with
//! [`ServerBuilder::metrics`](crate::ServerBuilder::metrics).
//!
//! Refusals use JSON-RPC codes of the implementation range that MCP leaves free
//! (-32000…-32019), with data saying when to retry; the HTTP transport turns them into the
//! matching status ([`codes`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use mcp_schema::methods::MethodInfo;
use mcp_schema::{ClientRequest, Outcome, ServerResult};

use crate::context::RequestContext;
use crate::error::Error;
use crate::registry::Registry;

mod cache;
mod limits;
mod log;
mod metrics;
mod scopes;

pub use crate::metrics::Metrics;
pub use cache::ResponseCache;
pub use limits::{ConcurrencyLimit, RateLimit, Timeout};
pub use log::RequestLog;
pub(crate) use metrics::MetricsLayer;
pub use scopes::RequireScopes;

/// What a request's handler (or a middleware answering in its place) yields.
pub type Served = Result<ServerResult, Error>;

/// A boxed future borrowing from the request.
pub type MiddlewareFuture<'a> = Pin<Box<dyn Future<Output = Served> + Send + 'a>>;

/// The JSON-RPC error codes of the built-in middleware (the implementation-defined range
/// -32000…-32019, which MCP does not reserve).
pub mod codes {
    /// Too many requests from this client: `data.retryAfterMs` says when to try again. HTTP
    /// answers `429 Too Many Requests` with `Retry-After`.
    pub const RATE_LIMITED: i64 = -32010;
    /// The request did not finish within the server's time limit (`data.timeoutMs`).
    pub const REQUEST_TIMEOUT: i64 = -32011;
    /// The server is at its concurrency limit and its queue is full. HTTP answers
    /// `503 Service Unavailable` with `Retry-After`.
    pub const OVERLOADED: i64 = -32012;
    /// The principal lacks a scope the request needs (`data.requiredScopes`). HTTP answers
    /// `403 Forbidden` with `WWW-Authenticate: Bearer error="insufficient_scope"`.
    pub const FORBIDDEN: i64 = -32013;
}

/// One link of the chain.
pub trait Middleware: Send + Sync + 'static {
    /// Handles `request`: answer it, or pass it on with `next.run(request)`.
    fn handle<'a>(&'a self, request: Request<'a>, next: Next<'a>) -> MiddlewareFuture<'a>;
}

/// The request being served, after its envelope was checked and its params decoded.
pub(crate) struct Call<'a> {
    pub(crate) cx: RequestContext,
    pub(crate) request: ClientRequest,
    /// The method's row of the method table (`None` for a method no version has).
    pub(crate) info: Option<&'static MethodInfo>,
    pub(crate) registry: &'a Registry,
}

/// A request on its way through the chain.
#[derive(Clone, Copy)]
pub struct Request<'a> {
    call: &'a Call<'a>,
}

impl<'a> Request<'a> {
    /// The method (`tools/call`, `resources/read`, …).
    pub fn method(&self) -> &'a str {
        self.call.request.method()
    }

    /// The request with its params decoded (`ClientRequest::Unknown` for a method no
    /// protocol version has: the handler answers it `-32601`).
    pub fn request(&self) -> &'a ClientRequest {
        &self.call.request
    }

    /// The method's row of the method table: where it exists, what names its target,
    /// whether it may need client input or be cached.
    pub fn info(&self) -> Option<&'static MethodInfo> {
        self.call.info
    }

    /// What the request is about: the tool or prompt name of `tools/call` and `prompts/get`,
    /// the URI of `resources/read` and `resources/(un)subscribe`.
    pub fn target(&self) -> Option<&'a str> {
        self.call.request.target()
    }

    /// The request's context (id, protocol version, session, client capabilities).
    pub fn context(&self) -> &'a RequestContext {
        &self.call.cx
    }

    /// Who is asking, for per-client limits: the authenticated principal, else the session
    /// id when there is one, otherwise the client's declared name (2026-07-28 `clientInfo`),
    /// otherwise `anonymous`.
    pub fn client_key(&self) -> String {
        let cx = &self.call.cx;
        if let Some(principal) = cx.principal() {
            return format!("principal:{}", principal.key());
        }
        if let Some(id) = cx.session_id() {
            return format!("session:{id}");
        }
        match cx.client_info() {
            Some(info) => format!("client:{}", info.name),
            None => "anonymous".to_owned(),
        }
    }

    /// Requests that stay open by design (`subscriptions/listen`): never limited in time or
    /// counted as in flight.
    fn is_long_lived(&self) -> bool {
        matches!(self.call.request, ClientRequest::SubscriptionsListen(_))
    }

    /// The request as the dispatcher built it.
    pub(crate) fn call(&self) -> &'a Call<'a> {
        self.call
    }

    /// The metrics, when the server records them.
    fn metrics(&self) -> Option<&'a Metrics> {
        self.call.cx.inner.session.shared.metrics.as_ref()
    }
}

/// Whether a result is a tool's error (`isError: true`), not a protocol error.
fn is_tool_error(result: &ServerResult) -> bool {
    matches!(result, ServerResult::CallTool(Outcome::Complete(r)) if r.is_error())
}

/// The end of the chain: the handler that answers a request.
pub(crate) trait Endpoint: Send + Sync {
    /// Answers `request`.
    fn call<'a>(&'a self, request: Request<'a>) -> MiddlewareFuture<'a>;
}

/// The rest of the chain.
pub struct Next<'a> {
    rest: &'a [Arc<dyn Middleware>],
    endpoint: &'a dyn Endpoint,
}

impl<'a> Next<'a> {
    /// Passes the request to the next link (at the end, the handler).
    pub fn run(self, request: Request<'a>) -> MiddlewareFuture<'a> {
        match self.rest.split_first() {
            Some((first, rest)) => first.handle(
                request,
                Next {
                    rest,
                    endpoint: self.endpoint,
                },
            ),
            None => self.endpoint.call(request),
        }
    }
}

/// Runs `call` through `chain` to `endpoint`.
pub(crate) fn run<'a>(
    chain: &'a [Arc<dyn Middleware>],
    endpoint: &'a dyn Endpoint,
    call: &'a Call<'a>,
) -> MiddlewareFuture<'a> {
    Next {
        rest: chain,
        endpoint,
    }
    .run(Request { call })
}
