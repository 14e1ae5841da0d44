//! Time, concurrency and rate limits.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcp_jsonrpc::ErrorObject;
use parking_lot::Mutex;
use serde_json::json;
use tokio::sync::Semaphore;

use super::{Middleware, MiddlewareFuture, Next, Request, codes};
use crate::error::Error;

/// Ends a request that runs longer than a limit: the handler is cancelled (its future is
/// dropped) and the client gets `-32011` with `data.timeoutMs`. `subscriptions/listen` is
/// exempt.
#[derive(Debug, Clone, Copy)]
pub struct Timeout(pub Duration);

impl Middleware for Timeout {
    fn handle<'a>(&'a self, request: Request<'a>, next: Next<'a>) -> MiddlewareFuture<'a> {
        Box::pin(async move {
            if request.is_long_lived() {
                return next.run(request).await;
            }
            match tokio::time::timeout(self.0, next.run(request)).await {
                Ok(outcome) => outcome,
                Err(_) => Err(Error::rpc(
                    ErrorObject::new(
                        codes::REQUEST_TIMEOUT,
                        format!(
                            "{} did not finish within the server's limit of {} ms",
                            request.method(),
                            self.0.as_millis()
                        ),
                    )
                    .with_data(json!({ "timeoutMs": self.0.as_millis() as u64 })),
                )),
            }
        })
    }
}

/// At most `max_in_flight` requests run at once; up to `max_queued` more wait for a turn,
/// and beyond that requests are refused with `-32012` (HTTP `503`). `subscriptions/listen`
/// is exempt. [`ConcurrencyLimit::queued`] tells how many wait (exported as the
/// `mcp_queue_length` metric).
#[derive(Debug, Clone)]
pub struct ConcurrencyLimit {
    permits: Arc<Semaphore>,
    waiting: Arc<AtomicUsize>,
    max_queued: usize,
}

impl ConcurrencyLimit {
    /// A limit of `max_in_flight` running requests and `max_queued` waiting ones.
    pub fn new(max_in_flight: usize, max_queued: usize) -> Self {
        Self {
            permits: Arc::new(Semaphore::new(max_in_flight.max(1))),
            waiting: Arc::new(AtomicUsize::new(0)),
            max_queued,
        }
    }

    /// How many requests wait for a turn now.
    pub fn queued(&self) -> usize {
        self.waiting.load(Ordering::Relaxed)
    }
}

/// One waiting request; leaving the queue updates the count (and the metric).
struct Waiting<'a>(&'a AtomicUsize, Option<&'a crate::middleware::Metrics>);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        let left = self.0.fetch_sub(1, Ordering::Relaxed) - 1;
        if let Some(m) = self.1 {
            m.set_gauge("mcp_queue_length", left as f64);
        }
    }
}

impl Middleware for ConcurrencyLimit {
    fn handle<'a>(&'a self, request: Request<'a>, next: Next<'a>) -> MiddlewareFuture<'a> {
        Box::pin(async move {
            if request.is_long_lived() {
                return next.run(request).await;
            }
            let permit = match self.permits.clone().try_acquire_owned() {
                Ok(permit) => permit,
                Err(_) => {
                    if self.waiting.fetch_add(1, Ordering::Relaxed) >= self.max_queued {
                        self.waiting.fetch_sub(1, Ordering::Relaxed);
                        return Err(Error::rpc(
                            ErrorObject::new(
                                codes::OVERLOADED,
                                "the server is at its concurrency limit and its queue is full; \
                                 retry shortly",
                            )
                            .with_data(json!({ "retryAfterMs": 1000 })),
                        ));
                    }
                    let metrics = request.metrics();
                    let _waiting = Waiting(&self.waiting, metrics);
                    if let Some(m) = metrics {
                        m.set_gauge("mcp_queue_length", self.queued() as f64);
                    }
                    self.permits
                        .clone()
                        .acquire_owned()
                        .await
                        .map_err(|_| Error::msg("the concurrency limiter was closed"))?
                }
            };
            let outcome = next.run(request).await;
            drop(permit);
            outcome
        })
    }
}

/// A token bucket per client ([`Request::client_key`]: the session, else the declared client
/// name): `per_second` requests on average, bursts of up to `burst`. A request over the limit
/// is refused with `-32010` and `data.retryAfterMs` (HTTP `429` with `Retry-After`); the
/// bucket refills with time, so the client recovers by waiting.
#[derive(Debug, Clone)]
pub struct RateLimit {
    per_second: f64,
    burst: f64,
    buckets: Arc<Mutex<HashMap<String, Bucket>>>,
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// Buckets kept at most; beyond it, full (idle) buckets are forgotten.
const MAX_BUCKETS: usize = 100_000;

impl RateLimit {
    /// `per_second` requests per second on average per client, bursts of `burst`.
    pub fn new(per_second: f64, burst: u32) -> Self {
        Self {
            per_second: per_second.max(f64::MIN_POSITIVE),
            burst: f64::from(burst.max(1)),
            buckets: Arc::default(),
        }
    }

    /// Takes a token for `key`; the wait until one is available when there is none.
    fn take(&self, key: &str, now: Instant) -> Result<(), Duration> {
        let mut buckets = self.buckets.lock();
        if buckets.len() >= MAX_BUCKETS && !buckets.contains_key(key) {
            let (rate, burst) = (self.per_second, self.burst);
            buckets.retain(|_, b| b.tokens + now.duration_since(b.at).as_secs_f64() * rate < burst);
        }
        let bucket = buckets.entry(key.to_owned()).or_insert(Bucket {
            tokens: self.burst,
            at: now,
        });
        let refilled = now.duration_since(bucket.at).as_secs_f64() * self.per_second;
        bucket.tokens = (bucket.tokens + refilled).min(self.burst);
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64(
                (1.0 - bucket.tokens) / self.per_second,
            ))
        }
    }
}

impl Middleware for RateLimit {
    fn handle<'a>(&'a self, request: Request<'a>, next: Next<'a>) -> MiddlewareFuture<'a> {
        Box::pin(async move {
            if let Err(wait) = self.take(&request.client_key(), Instant::now()) {
                let ms = wait.as_millis().max(1) as u64;
                return Err(Error::rpc(
                    ErrorObject::new(
                        codes::RATE_LIMITED,
                        format!("rate limit reached: retry in {ms} ms"),
                    )
                    .with_data(json!({ "retryAfterMs": ms })),
                ));
            }
            next.run(request).await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_refill_with_time() {
        let limit = RateLimit::new(10.0, 2);
        let t0 = Instant::now();
        assert!(limit.take("a", t0).is_ok());
        assert!(limit.take("a", t0).is_ok());
        let wait = limit.take("a", t0).unwrap_err();
        assert!(
            wait > Duration::from_millis(90) && wait <= Duration::from_millis(100),
            "{wait:?}"
        );
        assert!(limit.take("b", t0).is_ok(), "buckets are per client");
        assert!(limit.take("a", t0 + Duration::from_millis(100)).is_ok());
    }
}
