//! The metrics link of the middleware chain.

use std::time::Instant;

use mcp_schema::ClientRequest;

use super::{Middleware, MiddlewareFuture, Next, Request, is_tool_error};
use crate::metrics::Metrics;

/// The outermost link when metrics are on: counts and times every request, refusals by
/// other middleware included.
pub(crate) struct MetricsLayer(pub(crate) Metrics);

impl Middleware for MetricsLayer {
    fn handle<'a>(&'a self, request: Request<'a>, next: Next<'a>) -> MiddlewareFuture<'a> {
        Box::pin(async move {
            let started = Instant::now();
            let method = request.method().to_owned();
            let tool = match request.request() {
                ClientRequest::CallTool(call) => call.name.clone(),
                _ => String::new(),
            };
            let outcome = next.run(request).await;
            let seconds = started.elapsed().as_secs_f64();
            let (label, code) = match &outcome {
                Ok(result) if is_tool_error(result) => ("tool_error", None),
                Ok(_) => ("ok", None),
                Err(e) if e.is_cancelled() => ("cancelled", None),
                Err(e) => ("error", Some(e.code())),
            };
            self.0.record(|| {
                metrics::counter!("mcp_requests_total", "method" => method.clone(), "tool" => tool.clone(), "outcome" => label)
                    .increment(1);
                metrics::histogram!("mcp_request_duration_seconds", "method" => method, "tool" => tool)
                    .record(seconds);
                if let Some(code) = code {
                    metrics::counter!("mcp_errors_total", "code" => code.to_string()).increment(1);
                }
            });
            outcome
        })
    }
}
