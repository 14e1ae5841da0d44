//! Serving one request: which era it speaks, its envelope, the handler that answers it through
//! the middleware chain, and how the answer is shaped and encoded for that era.
//!
//! The era is decided per request: a request whose `_meta` names a protocol version of the
//! 2026-07-28 family (or `server/discover`) is served statelessly from its own `_meta`; any
//! other request belongs to the session that `initialize` set up.
//!
//! The params are decoded once, into the method's types ([`ClientRequest`]); handlers return
//! typed results ([`ServerResult`]), serialized once, straight into the response.
//!
//! Layers inside: `envelope` (era and `_meta` checks) and `input` (2026-07-28 input rounds)
//! under the handlers (`lifecycle`, `tools`, `resources`, `prompts`, `listen`, `skills`, with
//! `paging`),
//! under `route` (the exhaustive match over [`ClientRequest`]), under this module (a request
//! from bytes to bytes) and `run` (how its future runs); `push` forwards registry changes.

use std::future::Future;
use std::sync::Arc;

use mcp_jsonrpc::ErrorObject;
use mcp_jsonrpc::message::{Request, encode_error, encode_result};
use mcp_schema::meta::keys;
use mcp_schema::methods::method_info;
use mcp_schema::{ClientRequest, Era, ServerResult};
use tokio_util::sync::CancellationToken;

use crate::context::RequestContext;
use crate::error::Error;
use crate::middleware::{self, Call};
use crate::session::{Outlet, Session};
use crate::shared::Shared;

mod envelope;
mod input;
mod lifecycle;
mod listen;
mod paging;
mod prompts;
mod push;
mod resources;
mod route;
mod run;
mod skills;
mod tasks;
mod tools;

pub(crate) use envelope::is_stateless;

impl Session {
    /// Registers a request at once (so a cancellation that follows it finds it) and returns
    /// the future that serves it (inline: see [`run::HandlerRun`]).
    pub(crate) fn begin_request(
        self: &Arc<Self>,
        request: Request,
        related: Outlet,
    ) -> impl Future<Output = Option<Vec<u8>>> + Send + 'static {
        let busy = self.busy();
        let id = request.id.clone();
        let (handler, registered): (run::Handler, bool) = match self.register_request(&id) {
            None => {
                let mut out = Vec::new();
                encode_error(
                    &mut out,
                    Some(&id),
                    &ErrorObject::invalid_request(format!(
                        "request id {id} is already in use by a request in flight"
                    )),
                );
                (Box::pin(std::future::ready(Some(out))), false)
            }
            Some(cancel) => {
                let session = self.clone();
                let serve = async move { serve_encoded(&session, request, related, cancel).await };
                (Box::pin(serve), true)
            }
        };
        run::HandlerRun::new(self.clone(), id, handler, registered, busy)
    }

    /// Sets (or clears) where messages unrelated to any request go, and starts forwarding
    /// registry changes there.
    pub(crate) fn set_push(self: &Arc<Self>, outlet: Option<Outlet>) {
        push::set(self, outlet);
    }
}

/// Serves one request and encodes its response; `None` when it was cancelled.
async fn serve_encoded(
    session: &Arc<Session>,
    request: Request,
    outlet: Outlet,
    cancel: CancellationToken,
) -> Option<Vec<u8>> {
    let id = request.id.clone();
    let outcome = serve(session, request, outlet, cancel).await;
    let mut out = Vec::new();
    match outcome {
        Ok(result) => {
            if let Err(e) = encode_result(&mut out, &id, &result) {
                out.clear();
                encode_error(&mut out, Some(&id), &ErrorObject::internal_error(e));
            }
        }
        Err(e) if e.is_cancelled() => return None,
        // Era-dependent errors were resolved where the era was known (`Error::resolve`).
        Err(e) => encode_error(&mut out, Some(&id), &e.into_error_object(Era::Stateless)),
    }
    Some(out)
}

async fn serve(
    session: &Arc<Session>,
    request: Request,
    outlet: Outlet,
    cancel: CancellationToken,
) -> Result<ServerResult, Error> {
    let server = session.server();
    let shared = &session.shared;
    let method = request.method.as_str();
    let parsed = ClientRequest::from_raw(method, request.params.as_deref());
    // The envelope is judged before the params' other members, so that a request of an
    // unsupported version hears that first whatever else is wrong with it.
    let meta_source = envelope::MetaSource::of(&parsed, request.params.as_deref())?;
    let meta = meta_source.get();
    let progress_token = envelope::progress_token(meta)?;
    let env = if session.stateless || envelope::is_stateless(method, meta) {
        envelope::stateless(shared, meta)?
    } else {
        envelope::stateful(session, method)?
    };
    drop(meta_source);
    let request_typed = match parsed {
        Ok(typed) => typed,
        // A method the request's version does not have is unknown, whatever its params.
        Err(_) if !method_info(method).is_some_and(|i| i.exists_in(env.version)) => {
            return Err(route::method_not_found(method, env.version));
        }
        Err(e) => {
            return Err(Error::invalid_params(format!(
                "invalid params for {method}: {e}"
            )));
        }
    };
    let info = request_typed.info();
    let stateless = !env.version.is_stateful();
    let round = match request_typed.retry_params() {
        Some(retry) if stateless => Some(input::receive(shared, &request_typed, retry)?),
        _ => None,
    };
    let cx = RequestContext::new(
        session.clone(),
        request.id,
        env.version,
        progress_token,
        env.client_capabilities,
        env.client_info,
        env.log_level,
        cancel,
        outlet,
        round,
    );
    let call = Call {
        cx,
        request: request_typed,
        info,
        registry: &server.inner.registry,
    };
    let mut result = middleware::run(&server.inner.middleware, &route::Router, &call).await?;
    if stateless {
        stamp_stateless(shared, info.is_some_and(|i| i.cacheable), &mut result);
    }
    Ok(result)
}

/// 2026-07-28 result members: `resultType`, the server's identity, and cache hints on the
/// cacheable results.
fn stamp_stateless(shared: &Shared, cacheable: bool, result: &mut ServerResult) {
    let Some(fields) = result.complete_mut() else {
        return;
    };
    if !fields.is_complete() {
        return;
    }
    fields.mark_complete();
    if cacheable && let Some(hints) = fields.cache_hints_mut() {
        let options = &shared.options;
        let ttl = hints
            .ttl_ms()
            .unwrap_or(u64::try_from(options.cache_ttl.as_millis()).unwrap_or(u64::MAX));
        let scope = hints
            .cache_scope()
            .cloned()
            .unwrap_or_else(|| options.cache_scope.clone());
        hints.set_cache_hints(ttl, scope);
    }
    fields
        .meta_or_default()
        .entry(keys::SERVER_INFO)
        .or_insert_with(|| shared.info_json.clone());
}
