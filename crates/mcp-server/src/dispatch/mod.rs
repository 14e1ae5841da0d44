//! Routing one request: which era it speaks, which handler answers, and how the answer is
//! shaped for that era.
//!
//! The era is decided per request: a request whose `_meta` names a protocol version of the
//! 2026-07-28 family (or `server/discover`) is served statelessly from its own `_meta`; any
//! other request belongs to the session that `initialize` set up.

use std::sync::Arc;

use mcp_jsonrpc::message::{Request, encode_error, encode_result};
use mcp_jsonrpc::{ErrorObject, error_codes};
use mcp_schema::meta::keys;
use mcp_schema::{
    ClientCapabilities, Era, Implementation, LoggingLevel, ProtocolVersion,
    UnsupportedProtocolVersionData,
};
use serde_json::{Map, Value, json};
use tokio::sync::watch;

use crate::context::RequestContext;
use crate::error::{Error, ErrorKind};
use crate::session::{Outlet, Session};

mod lifecycle;
mod listen;
mod paging;
mod prompts;
mod resources;
mod round_trip;
mod tools;

/// How a request is served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Part of an `initialize`d session.
    Stateful,
    /// Self-contained (2026-07-28): version and capabilities in `_meta`.
    Stateless,
}

/// Which era serves a request with this method and `_meta`.
pub(crate) fn mode_of(method: &str, meta: Option<&Value>) -> Mode {
    if method == "server/discover" {
        return Mode::Stateless;
    }
    match meta
        .and_then(|m| m.get(keys::PROTOCOL_VERSION))
        .and_then(Value::as_str)
    {
        Some(v) if Era::of(v) == Some(Era::Stateful) => Mode::Stateful,
        Some(_) => Mode::Stateless,
        None => Mode::Stateful,
    }
}

/// The request being served, after its envelope was checked.
pub(crate) struct Call<'a> {
    pub(crate) cx: RequestContext,
    pub(crate) method: &'a str,
    pub(crate) params: Map<String, Value>,
}

impl Call<'_> {
    pub(crate) fn era(&self) -> Era {
        self.cx.inner.version.era()
    }

    pub(crate) fn session(&self) -> &Arc<Session> {
        &self.cx.inner.session
    }

    /// `params` as a typed value; `-32602` naming the problem otherwise.
    pub(crate) fn params_as<T: serde::de::DeserializeOwned>(&self) -> Result<T, Error> {
        let fields = self.params.iter().map(|(k, v)| (k.as_str(), v));
        let params = serde::de::value::MapDeserializer::<_, serde_json::Error>::new(fields);
        T::deserialize(params)
            .map_err(|e| Error::invalid_params(format!("invalid params for {}: {e}", self.method)))
    }
}

/// Serves one request and encodes its response; `None` when it was cancelled.
pub(crate) async fn request(
    session: &Arc<Session>,
    request: Request,
    outlet: Outlet,
    cancel: watch::Receiver<bool>,
) -> Option<Vec<u8>> {
    let id = request.id.clone();
    let outcome = serve(session, &request, outlet, cancel).await;
    let mut out = Vec::new();
    match outcome {
        Ok(value) => {
            if let Err(e) = encode_result(&mut out, &id, &value) {
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
    request: &Request,
    outlet: Outlet,
    cancel: watch::Receiver<bool>,
) -> Result<Value, Error> {
    let params = match &request.params {
        None => Map::new(),
        Some(raw) => match serde_json::from_str::<Value>(raw.get()) {
            Ok(Value::Object(map)) => map,
            Ok(_) => {
                return Err(Error::invalid_params(format!(
                    "params of {} must be a JSON object",
                    request.method
                )));
            }
            Err(e) => return Err(Error::invalid_params(e)),
        },
    };
    let meta = params.get("_meta");
    if meta.is_some_and(|m| !m.is_object()) {
        return Err(Error::invalid_params("params._meta must be a JSON object"));
    }
    let method = request.method.as_str();
    let progress_token = match meta.and_then(|m| m.get(keys::PROGRESS_TOKEN)) {
        None => None,
        Some(t) => Some(serde::Deserialize::deserialize(t).map_err(|_| {
            Error::invalid_params("params._meta.progressToken must be a string or an integer")
        })?),
    };
    let server = &session.server;
    let mode = if session.stateless {
        Mode::Stateless
    } else {
        mode_of(method, meta)
    };
    let (version, caps, info, log_level) = match mode {
        Mode::Stateless => {
            let (version, caps, info, level) = stateless_envelope(server, meta)?;
            (version, caps, info, level)
        }
        Mode::Stateful => {
            let n = session.negotiated();
            match n.version {
                Some(v) => (v, n.client_capabilities, n.client_info, None),
                None if method == "initialize" || method == "ping" => (
                    ProtocolVersion::V2025_11_25,
                    ClientCapabilities::default(),
                    None,
                    None,
                ),
                None => {
                    return Err(Error::rpc(ErrorObject::invalid_request(format!(
                        "{method} before initialize: send initialize first (or, for protocol 2026-07-28, \
                     put the protocol version in params._meta[\"{}\"])",
                        keys::PROTOCOL_VERSION
                    ))));
                }
            }
        }
    };
    let input =
        matches!(method, "tools/call" | "prompts/get" | "resources/read") && !version.is_stateful();
    let round = if input {
        Some(round_trip::receive(server, method, &params)?)
    } else {
        None
    };
    let cx = RequestContext::new(
        session.clone(),
        request.id.clone(),
        version,
        progress_token,
        caps,
        info,
        log_level,
        cancel,
        outlet,
        round,
    );
    let call = Call { cx, method, params };
    let result = crate::middleware::run(&server.inner.middleware, &call).await;
    let stateless = !version.is_stateful();
    let result = if input {
        round_trip::finish(server, &call, result)
    } else {
        result
    };
    let mut value = result?;
    if stateless {
        stamp_stateless(server, method, &mut value);
    }
    Ok(value)
}

/// Reads and checks the `_meta` of a 2026-07-28 request.
fn stateless_envelope(
    server: &crate::Server,
    meta: Option<&Value>,
) -> Result<
    (
        ProtocolVersion,
        ClientCapabilities,
        Option<Implementation>,
        Option<LoggingLevel>,
    ),
    Error,
> {
    let empty = Map::new();
    let meta = meta.and_then(Value::as_object).unwrap_or(&empty);
    let requested = match meta.get(keys::PROTOCOL_VERSION) {
        Some(Value::String(v)) => v.as_str(),
        Some(_) => {
            return Err(Error::invalid_params(format!(
                "params._meta[\"{}\"] must be a string",
                keys::PROTOCOL_VERSION
            )));
        }
        None => {
            return Err(Error::invalid_params(format!(
                "params._meta[\"{}\"] is required",
                keys::PROTOCOL_VERSION
            )));
        }
    };
    let supported = &server.inner.options.protocol_versions;
    let version = ProtocolVersion::parse(requested)
        .filter(|v| !v.is_stateful() && supported.contains(&v.as_str()))
        .ok_or_else(|| {
            Error::rpc(
                ErrorObject::new(
                    mcp_schema::error_codes::UNSUPPORTED_PROTOCOL_VERSION,
                    "Unsupported protocol version",
                )
                .with_data(
                    serde_json::to_value(UnsupportedProtocolVersionData::new(requested, supported))
                        .unwrap_or_default(),
                ),
            )
        })?;
    let caps = match meta.get(keys::CLIENT_CAPABILITIES) {
        Some(v) => serde::Deserialize::deserialize(v).map_err(|e| {
            Error::invalid_params(format!(
                "params._meta[\"{}\"] is malformed: {e}",
                keys::CLIENT_CAPABILITIES
            ))
        })?,
        None => {
            return Err(Error::invalid_params(format!(
                "params._meta[\"{}\"] is required",
                keys::CLIENT_CAPABILITIES
            )));
        }
    };
    let info = meta
        .get(keys::CLIENT_INFO)
        .and_then(|v| serde::Deserialize::deserialize(v).ok());
    let level = match meta.get(keys::LOG_LEVEL) {
        None => None,
        Some(v) => {
            let level = <LoggingLevel as serde::Deserialize>::deserialize(v).map_err(|e| {
                Error::invalid_params(format!("params._meta[\"{}\"]: {e}", keys::LOG_LEVEL))
            })?;
            if level.severity().is_none() {
                return Err(Error::invalid_params(format!(
                    "params._meta[\"{}\"]: unknown level {v}",
                    keys::LOG_LEVEL
                )));
            }
            Some(level)
        }
    };
    Ok((version, caps, info, level))
}

/// The handler of a request: the end of the middleware chain.
pub(crate) async fn route(call: &Call<'_>) -> Result<Value, Error> {
    let stateful = call.cx.inner.version.is_stateful();
    match (call.method, stateful) {
        ("initialize", true) => lifecycle::initialize(call),
        ("ping", true) => Ok(json!({})),
        ("server/discover", false) => Ok(lifecycle::discover(call)),
        ("logging/setLevel", true) => lifecycle::set_level(call),
        ("tools/list", _) => tools::list(call),
        ("tools/call", _) => tools::call(call).await,
        ("resources/list", _) => resources::list(call),
        ("resources/templates/list", _) => resources::list_templates(call),
        ("resources/read", _) => resources::read(call).await,
        ("resources/subscribe", true) => resources::subscribe(call, true),
        ("resources/unsubscribe", true) => resources::subscribe(call, false),
        ("prompts/list", _) => prompts::list(call),
        ("prompts/get", _) => prompts::get(call).await,
        ("completion/complete", _) => prompts::complete(call),
        ("subscriptions/listen", false) => listen::listen(call).await,
        (method, _) => Err(Error::rpc(ErrorObject::new(
            error_codes::METHOD_NOT_FOUND,
            format!(
                "Method not found: {method} (protocol {})",
                call.cx.inner.version.as_str()
            ),
        ))),
    }
}

/// 2026-07-28 result members: `resultType`, the server's identity, and cache hints on the
/// cacheable results.
fn stamp_stateless(server: &crate::Server, method: &str, value: &mut Value) {
    let Some(obj) = value.as_object_mut() else {
        return;
    };
    let result_type = obj
        .entry("resultType")
        .or_insert_with(|| Value::from("complete"));
    if result_type.as_str() != Some("complete") {
        return;
    }
    let cacheable = matches!(
        method,
        "server/discover"
            | "tools/list"
            | "prompts/list"
            | "resources/list"
            | "resources/templates/list"
            | "resources/read"
    );
    if cacheable {
        let options = &server.inner.options;
        obj.entry("ttlMs")
            .or_insert_with(|| json!(options.cache_ttl.as_millis() as u64));
        obj.entry("cacheScope")
            .or_insert_with(|| json!(options.cache_scope));
    }
    let meta = obj.entry("_meta").or_insert_with(|| json!({}));
    if let Some(meta) = meta.as_object_mut() {
        meta.entry(keys::SERVER_INFO)
            .or_insert_with(|| server.inner.info_json.clone());
    }
}

/// What tool errors become: the message as an `isError` result (so the model can read and
/// correct it), other kinds as protocol errors.
pub(crate) fn tool_error_result(error: Error) -> Result<Value, Error> {
    match error.kind {
        ErrorKind::Message(message) => Ok(json!({
            "content": [{ "type": "text", "text": message }],
            "isError": true,
        })),
        kind => Err(Error { kind }),
    }
}
