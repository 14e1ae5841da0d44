//! A chain of middleware around every request, on every transport.
//!
//! Middleware runs after the request's envelope was checked (its era, version and client
//! capabilities are known) and around the handler that answers it, in the order it was added
//! with [`ServerBuilder::middleware`](crate::ServerBuilder::middleware): the first added is the
//! outermost. Each one sees the request ([`Request`]: method, params, target, context) and
//! either answers it itself (a refusal) or passes it on with [`Next::run`], and may look at
//! or change the outcome.
//!
//! Built in: [`Timeout`], [`ConcurrencyLimit`], [`RateLimit`], [`RequestLog`],
//! [`ResponseCache`]; metrics are
//! switched on with [`ServerBuilder::metrics`](crate::ServerBuilder::metrics).
//!
//! Refusals use JSON-RPC codes of the implementation range that MCP leaves free
//! (-32000…-32019), with data saying when to retry; the HTTP transport turns them into the
//! matching status ([`codes`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::context::RequestContext;
use crate::dispatch::Call;
use crate::error::Error;

mod cache;
mod limits;
mod log;
mod metrics;

pub use cache::ResponseCache;
pub use limits::{ConcurrencyLimit, RateLimit, Timeout};
pub use log::RequestLog;
pub use metrics::Metrics;
pub(crate) use metrics::MetricsLayer;

/// A boxed future borrowing from the request.
pub type MiddlewareFuture<'a> = Pin<Box<dyn Future<Output = Result<Value, Error>> + Send + 'a>>;

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

/// A request on its way through the chain.
#[derive(Clone, Copy)]
pub struct Request<'a> {
    call: &'a Call<'a>,
}

impl<'a> Request<'a> {
    /// The method (`tools/call`, `resources/read`, …).
    pub fn method(&self) -> &'a str {
        self.call.method
    }

    /// The params object (empty when the request had none).
    pub fn params(&self) -> &'a Map<String, Value> {
        &self.call.params
    }

    /// What the request is about: the tool or prompt name of `tools/call` and `prompts/get`,
    /// the URI of `resources/read` and `resources/(un)subscribe`.
    pub fn target(&self) -> Option<&'a str> {
        let key = match self.call.method {
            "tools/call" | "prompts/get" => "name",
            "resources/read" | "resources/subscribe" | "resources/unsubscribe" => "uri",
            _ => return None,
        };
        self.call.params.get(key).and_then(Value::as_str)
    }

    /// The request's context (id, protocol version, session, client capabilities).
    pub fn context(&self) -> &'a RequestContext {
        &self.call.cx
    }

    /// Who is asking, for per-client limits: the authenticated principal, else the session
    /// id when there is one, otherwise the client's declared name (2026-07-28 `clientInfo`), otherwise `anonymous`.
    pub fn client_key(&self) -> String {
        let cx = &self.call.cx;
        if let Some(principal) = cx.principal() {
            return format!("principal:{}", principal.subject);
        }
        if let Some(id) = cx.session_id() {
            return format!("session:{id}");
        }
        match cx.client_info() {
            Some(info) => format!("client:{}", info.name),
            None => "anonymous".to_owned(),
        }
    }
}

/// The rest of the chain.
pub struct Next<'a> {
    rest: &'a [Arc<dyn Middleware>],
}

impl<'a> Next<'a> {
    /// Passes the request to the next link (at the end, the handler).
    pub fn run(self, request: Request<'a>) -> MiddlewareFuture<'a> {
        match self.rest.split_first() {
            Some((first, rest)) => first.handle(request, Next { rest }),
            None => Box::pin(crate::dispatch::route(request.call)),
        }
    }
}

/// Runs `call` through `chain`.
pub(crate) fn run<'a>(
    chain: &'a [Arc<dyn Middleware>],
    call: &'a Call<'a>,
) -> MiddlewareFuture<'a> {
    Next { rest: chain }.run(Request { call })
}
