//! Response caching for idempotent reads.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_schema::{CacheScope, ServerResult};
use parking_lot::Mutex;
use serde_json::Value;

use super::{Middleware, MiddlewareFuture, Next, Request};

/// Caches the results of the idempotent reads — the methods whose results the protocol lets
/// clients cache: `server/discover`, `tools/list`, `prompts/list`, `resources/list`,
/// `resources/templates/list` and `resources/read` — for `ttl`, with the
/// semantics 2026-07-28 gives `ttlMs` and `cacheScope`: with the server's
/// [`cache_scope`](crate::ServerOptions::cache_scope) `public` one entry serves every client;
/// `private` keys entries by principal (or session) too. Any change to the registry
/// (`add_tool`, `notify_resource_updated`, …) empties the cache. Errors and multi round-trip
/// requests are never cached. Use it when reads are costly (a resource read from a database);
/// give clients the same freshness with `ServerOptions::cache_ttl`.
#[derive(Debug, Clone)]
pub struct ResponseCache {
    ttl: Duration,
    max_entries: usize,
    entries: Arc<Mutex<HashMap<String, Entry>>>,
}

#[derive(Debug, Clone)]
struct Entry {
    stored: Instant,
    generation: u64,
    value: ServerResult,
}

impl ResponseCache {
    /// Keeps results for `ttl`, at most `max_entries` of them (the oldest go first).
    pub fn new(ttl: Duration, max_entries: usize) -> Self {
        Self {
            ttl,
            max_entries: max_entries.max(1),
            entries: Arc::default(),
        }
    }

    fn key(request: &Request<'_>) -> Option<String> {
        if !request.info().is_some_and(|info| info.cacheable) {
            return None;
        }
        let typed = request.request();
        let retried = typed
            .retry_params()
            .is_some_and(|r| r.input_responses().is_some() || r.request_state().is_some());
        if retried {
            return None;
        }
        let mut relevant = match typed.params_value() {
            Ok(Some(Value::Object(params))) => params,
            Ok(_) => Default::default(),
            Err(_) => return None,
        };
        relevant.remove("_meta");
        let cx = request.context();
        let scope = match cx.inner.session.shared.options.cache_scope {
            CacheScope::Public => String::new(),
            _ => request.client_key(),
        };
        Some(format!(
            "{}\u{0}{}\u{0}{}\u{0}{}",
            request.method(),
            cx.protocol_version().era() == mcp_schema::Era::Stateful,
            scope,
            Value::Object(relevant)
        ))
    }
}

impl Middleware for ResponseCache {
    fn handle<'a>(&'a self, request: Request<'a>, next: Next<'a>) -> MiddlewareFuture<'a> {
        Box::pin(async move {
            let Some(key) = Self::key(&request) else {
                return next.run(request).await;
            };
            let generation = request.call.registry.generation();
            let now = Instant::now();
            {
                let entries = self.entries.lock();
                if let Some(e) = entries.get(&key)
                    && e.generation == generation
                    && now.duration_since(e.stored) < self.ttl
                {
                    return Ok(e.value.clone());
                }
            }
            let outcome = next.run(request).await;
            if let Ok(value) = &outcome
                && is_complete(value)
            {
                let mut entries = self.entries.lock();
                entries.retain(|_, e| {
                    e.generation == generation && now.duration_since(e.stored) < self.ttl
                });
                if entries.len() >= self.max_entries
                    && let Some(oldest) = entries
                        .iter()
                        .min_by_key(|(_, e)| e.stored)
                        .map(|(k, _)| k.clone())
                {
                    entries.remove(&oldest);
                }
                entries.insert(
                    key,
                    Entry {
                        stored: now,
                        generation,
                        value: value.clone(),
                    },
                );
            }
            outcome
        })
    }
}

/// A complete result (not an `InputRequiredResult` or a task).
fn is_complete(result: &ServerResult) -> bool {
    result.complete().is_some_and(|r| r.is_complete())
}
