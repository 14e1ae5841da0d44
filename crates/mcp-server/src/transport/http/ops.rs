//! Operations endpoints beside the MCP endpoint, on the same port: `GET /health` (liveness
//! and readiness), `GET /info` (identity, protocol versions, transports, capabilities) and
//! `GET /tools` (the tools with their schemas, for people and scripts rather than MCP
//! clients). On by default; [`HttpOptions::ops_endpoints`](crate::HttpOptions::ops_endpoints)
//! switches them off.
//!
//! They answer JSON, pass the same `Host`/`Origin` checks as the MCP endpoint, and get the
//! CORS headers when CORS is on. `/metrics` is not here: the middleware's Prometheus exporter
//! serves it.

use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header, request::Parts};
use axum::response::Response;
use axum::routing::get;
use futures_util::FutureExt as _;
use serde_json::{Map, Value, json};

use crate::{HttpOptions, HttpSessions, Server};

/// The transport's `Host`/`Origin` check: `Some(refusal)` for a request to refuse.
type Guard = Arc<dyn Fn(&Parts) -> Option<Response> + Send + Sync>;

/// What the ops endpoints of one HTTP endpoint know.
struct Ops {
    server: Server,
    sessions: HttpSessions,
    guard: Guard,
    transports: Vec<Value>,
    started: Instant,
}

/// `GET /health`, `GET /info` and `GET /tools` of `server` (nothing when
/// [`HttpOptions::ops_endpoints`] is off), each request first passing `guard` (the
/// transport's `Host`/`Origin` check).
pub(crate) fn routes<S: Clone + Send + Sync + 'static>(
    server: &Server,
    sessions: &HttpSessions,
    options: &HttpOptions,
    guard: impl Fn(&Parts) -> Option<Response> + Send + Sync + 'static,
) -> Router<S> {
    if !options.ops_endpoints {
        return Router::new();
    }
    let mcp_path = absolute(&options.path);
    let mut transports = vec![json!({ "type": "streamable-http", "path": mcp_path })];
    let ws_path = options.websocket_path.as_deref().map(absolute);
    if let Some(ws) = ws_path.filter(|ws| *ws != mcp_path) {
        transports.push(json!({ "type": "websocket", "path": ws, "subprotocol": "mcp" }));
    }
    let ops = Ops {
        server: server.clone(),
        sessions: sessions.clone(),
        guard: Arc::new(guard),
        transports,
        started: Instant::now(),
    };
    Router::new()
        .route("/health", get(health))
        .route("/info", get(info))
        .route("/tools", get(tools))
        .with_state(Arc::new(ops))
}

/// `GET /health`: `200` with `{"status":"ok","live":true,"ready":true,…}` while the server
/// accepts requests; `503` with `"ready": false` once it is shutting down, or with
/// `"status":"degraded"` while a shared session store does not answer (`"store"` says which
/// and why; stateless requests are still served).
async fn health(State(ops): State<Arc<Ops>>, request: Request) -> Response {
    let (parts, _) = request.into_parts();
    if let Some(refused) = (ops.guard)(&parts) {
        return refused;
    }
    let shutting_down = ops.server.shutting_down().now_or_never().is_some();
    let store = ops
        .sessions
        .store()
        .map(|store| (store.describe(), store.health()));
    let store_error = store.as_ref().and_then(|(_, health)| health.error.clone());
    let (status, word) = if shutting_down {
        (StatusCode::SERVICE_UNAVAILABLE, "shutting_down")
    } else if store_error.is_some() {
        (StatusCode::SERVICE_UNAVAILABLE, "degraded")
    } else {
        (StatusCode::OK, "ok")
    };
    let mut body = json!({
        "status": word,
        "live": true,
        "ready": status == StatusCode::OK,
        "sessions": ops.sessions.count(),
        "uptimeSeconds": ops.started.elapsed().as_secs(),
    });
    if let Some((describe, _)) = store {
        body["store"] = json!({
            "type": describe,
            "reachable": store_error.is_none(),
            "error": store_error,
        });
    }
    json_response(status, &body)
}

/// `GET /info`: who the server is and what it serves.
async fn info(State(ops): State<Arc<Ops>>, request: Request) -> Response {
    let (parts, _) = request.into_parts();
    if let Some(refused) = (ops.guard)(&parts) {
        return refused;
    }
    let server = &ops.server;
    let mut body = match serde_json::to_value(server.info()) {
        Ok(Value::Object(identity)) => identity,
        _ => Map::new(),
    };
    if let Some(instructions) = &server.inner.shared.instructions {
        body.insert("instructions".into(), json!(instructions));
    }
    body.insert(
        "protocolVersions".into(),
        json!(server.options().protocol_versions),
    );
    body.insert("transports".into(), Value::Array(ops.transports.clone()));
    body.insert(
        "capabilities".into(),
        serde_json::to_value(server.capabilities()).unwrap_or_default(),
    );
    body.insert(
        "endpoints".into(),
        json!({ "health": "/health", "info": "/info", "tools": "/tools" }),
    );
    json_response(StatusCode::OK, &Value::Object(body))
}

/// `GET /tools`: `{"tools": [...]}`, each tool as `tools/list` describes it (name, title,
/// description, `inputSchema`, `outputSchema`, annotations), in registration order.
async fn tools(State(ops): State<Arc<Ops>>, request: Request) -> Response {
    let (parts, _) = request.into_parts();
    if let Some(refused) = (ops.guard)(&parts) {
        return refused;
    }
    let snapshot = ops.server.inner.registry.tools.snapshot();
    let tools: Vec<Value> = snapshot
        .items
        .iter()
        .map(|t| serde_json::to_value(&t.tool).unwrap_or_default())
        .collect();
    json_response(StatusCode::OK, &json!({ "tools": tools }))
}

/// `path` with a leading `/`, as the transport serves it.
fn absolute(path: &str) -> String {
    if path.starts_with('/') {
        path.to_owned()
    } else {
        format!("/{path}")
    }
}

/// A JSON body that caches and proxies must not keep (it describes the present moment).
fn json_response(status: StatusCode, body: &Value) -> Response {
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
