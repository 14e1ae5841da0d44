//! Request logging with `tracing`.

use std::time::Instant;

use tracing::Instrument;

use super::{Middleware, MiddlewareFuture, Next, Request, is_tool_error};

/// Logs every request as a `tracing` span `mcp.request` (fields: request id, session,
/// method, target, protocol version) with one event at its end giving the duration and the
/// outcome (`ok`, `tool_error`, or the JSON-RPC error code). Events are `info` for successes
/// and `warn` for errors; route them with your subscriber (stderr on stdio servers).
#[derive(Debug, Clone, Copy, Default)]
pub struct RequestLog;

impl Middleware for RequestLog {
    fn handle<'a>(&'a self, request: Request<'a>, next: Next<'a>) -> MiddlewareFuture<'a> {
        let cx = request.context();
        let span = tracing::info_span!(
            "mcp.request",
            id = %cx.request_id(),
            session = cx.session_id().unwrap_or("-"),
            method = request.method(),
            target = request.target().unwrap_or("-"),
            version = cx.protocol_version().as_str(),
        );
        Box::pin(
            async move {
                let started = Instant::now();
                let outcome = next.run(request).await;
                let ms = started.elapsed().as_secs_f64() * 1000.0;
                match &outcome {
                    Ok(result) if is_tool_error(result) => {
                        tracing::info!(duration_ms = ms, outcome = "tool_error", "request done");
                    }
                    Ok(_) => tracing::info!(duration_ms = ms, outcome = "ok", "request done"),
                    Err(e) if e.is_cancelled() => {
                        tracing::info!(duration_ms = ms, outcome = "cancelled", "request done");
                    }
                    Err(e) => tracing::warn!(duration_ms = ms, outcome = "error", error = %e, "request done"),
                }
                outcome
            }
            .instrument(span),
        )
    }
}
