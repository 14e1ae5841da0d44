//! The metrics of one server, in a Prometheus recorder of its own.

use std::sync::Arc;

use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusRecorder};

/// The metrics of one server (switched on with
/// [`ServerBuilder::metrics`](crate::ServerBuilder::metrics)), kept in a recorder of its own
/// (not the process-global one), and served at `GET /metrics` by the HTTP transport:
///
/// | metric | type | labels |
/// |---|---|---|
/// | `mcp_requests_total` | counter | `method`, `tool`, `outcome` (`ok`, `tool_error`, `error`, `cancelled`) |
/// | `mcp_request_duration_seconds` | histogram | `method`, `tool` |
/// | `mcp_errors_total` | counter | `code` (the JSON-RPC error code) |
/// | `mcp_active_sessions` | gauge | — (stateful sessions alive, every transport) |
/// | `mcp_active_connections` | gauge | — (connections that can receive server pushes: stdio, WebSocket, HTTP GET streams) |
/// | `mcp_queue_length` | gauge | — (requests waiting for a [`ConcurrencyLimit`](crate::middleware::ConcurrencyLimit) turn) |
///
/// `tool` is the tool name of `tools/call` and empty otherwise.
#[derive(Clone)]
pub struct Metrics {
    recorder: Arc<PrometheusRecorder>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Metrics(..)")
    }
}

/// Histogram buckets of request durations, in seconds (50 µs … 30 s).
const BUCKETS: &[f64] = &[
    0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
    1.0, 2.5, 5.0, 10.0, 30.0,
];

impl Metrics {
    pub(crate) fn new() -> Self {
        let recorder = PrometheusBuilder::new()
            .set_buckets(BUCKETS)
            .expect("non-empty buckets")
            .build_recorder();
        let metrics = Self {
            recorder: Arc::new(recorder),
        };
        // The gauges exist from the start, so a scrape never misses them.
        for gauge in [
            "mcp_active_sessions",
            "mcp_active_connections",
            "mcp_queue_length",
        ] {
            metrics.set_gauge(gauge, 0.0);
        }
        metrics
    }

    /// Runs `f` with this server's recorder installed, so that the `metrics` macros inside it
    /// (`metrics::counter!`, `metrics::gauge!`, `metrics::histogram!`) record into this
    /// server's metrics: how an application adds metrics of its own to `GET /metrics`.
    pub fn record(&self, f: impl FnOnce()) {
        metrics::with_local_recorder(self.recorder.as_ref(), f);
    }

    /// Every metric in Prometheus text format (version 0.0.4).
    pub fn render(&self) -> String {
        let handle = self.recorder.handle();
        handle.run_upkeep();
        handle.render()
    }

    pub(crate) fn gauge(&self, name: &'static str, delta: f64) {
        self.record(|| metrics::gauge!(name).increment(delta));
    }

    pub(crate) fn set_gauge(&self, name: &'static str, value: f64) {
        self.record(|| metrics::gauge!(name).set(value));
    }
}
