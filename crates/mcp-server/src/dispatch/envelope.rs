//! A request's envelope: which era serves it, and (2026-07-28) the protocol version, client
//! capabilities, client info and log level its `_meta` carries; (stateful era) what the
//! session negotiated.

use std::borrow::Cow;

use mcp_jsonrpc::ErrorObject;
use mcp_schema::meta::keys;
use mcp_schema::{
    ClientCapabilities, ClientRequest, DiscoverRequest, Era, ErrorData, Implementation,
    InitializeRequest, LoggingLevel, McpRequest, MissingRequiredClientCapabilityData, PingRequest,
    ProgressToken, ProtocolVersion, UnsupportedProtocolVersionData,
};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::error::Error;
use crate::session::Session;
use crate::shared::Shared;

/// What the request's envelope says about it.
pub(super) struct Envelope {
    pub(super) version: ProtocolVersion,
    pub(super) client_capabilities: ClientCapabilities,
    pub(super) client_info: Option<Implementation>,
    /// 2026-07-28: the request's `logLevel`.
    pub(super) log_level: Option<LoggingLevel>,
}

/// Where the `_meta` of a request is read from: its decoded params, or — when they did not
/// decode — a second look at the raw params, so that envelope errors still come first.
pub(super) struct MetaSource<'a>(Option<Cow<'a, Map<String, Value>>>);

impl<'a> MetaSource<'a> {
    pub(super) fn of(
        parsed: &'a Result<ClientRequest, serde_json::Error>,
        raw: Option<&RawValue>,
    ) -> Result<Self, Error> {
        let meta = match parsed {
            Ok(ClientRequest::Unknown { params, .. }) => match params {
                None | Some(Value::Null) => None,
                Some(Value::Object(params)) => meta_member(params.get("_meta"))?.map(Cow::Borrowed),
                Some(_) => return Err(not_an_object()),
            },
            Ok(known) => known.meta().map(|m| Cow::Borrowed(&m.0)),
            Err(_) => match raw.map(|raw| serde_json::from_str::<Value>(raw.get())) {
                None | Some(Ok(Value::Null)) => None,
                Some(Ok(Value::Object(mut params))) => {
                    meta_member(params.get("_meta"))?;
                    match params.remove("_meta") {
                        Some(Value::Object(meta)) => Some(Cow::Owned(meta)),
                        _ => None,
                    }
                }
                Some(Ok(_)) => return Err(not_an_object()),
                Some(Err(e)) => return Err(Error::invalid_params(e)),
            },
        };
        Ok(Self(meta))
    }

    pub(super) fn get(&self) -> Option<&Map<String, Value>> {
        self.0.as_deref()
    }
}

fn not_an_object() -> Error {
    Error::invalid_params("params must be a JSON object")
}

fn meta_member(meta: Option<&Value>) -> Result<Option<&Map<String, Value>>, Error> {
    match meta {
        None => Ok(None),
        Some(Value::Object(meta)) => Ok(Some(meta)),
        Some(_) => Err(Error::invalid_params("params._meta must be a JSON object")),
    }
}

/// `_meta.progressToken`, when present.
pub(super) fn progress_token(
    meta: Option<&Map<String, Value>>,
) -> Result<Option<ProgressToken>, Error> {
    match meta.and_then(|m| m.get(keys::PROGRESS_TOKEN)) {
        None => Ok(None),
        Some(t) => serde::Deserialize::deserialize(t).map(Some).map_err(|_| {
            Error::invalid_params("params._meta.progressToken must be a string or an integer")
        }),
    }
}

/// Whether the request is served statelessly: `server/discover`, or a `_meta` naming a
/// version outside the stateful era.
pub(crate) fn is_stateless(method: &str, meta: Option<&Map<String, Value>>) -> bool {
    if method == DiscoverRequest::METHOD {
        return true;
    }
    match meta
        .and_then(|m| m.get(keys::PROTOCOL_VERSION))
        .and_then(Value::as_str)
    {
        Some(v) => Era::of(v) != Some(Era::Stateful),
        None => false,
    }
}

/// The stateful envelope: what `initialize` negotiated.
pub(super) fn stateful(session: &Session, method: &str) -> Result<Envelope, Error> {
    let n = session.negotiated();
    match n.version {
        Some(version) => Ok(Envelope {
            version,
            client_capabilities: n.client_capabilities,
            client_info: n.client_info,
            log_level: None,
        }),
        None if method == InitializeRequest::METHOD || method == PingRequest::METHOD => {
            Ok(Envelope {
                version: ProtocolVersion::V2025_11_25,
                client_capabilities: ClientCapabilities::default(),
                client_info: None,
                log_level: None,
            })
        }
        None => Err(Error::rpc(ErrorObject::invalid_request(format!(
            "{} before initialize: send initialize first (or, for protocol 2026-07-28, put the \
             protocol version in params._meta[\"{}\"])",
            crate::error::reflect(method),
            keys::PROTOCOL_VERSION
        )))),
    }
}

/// Reads and checks the `_meta` of a 2026-07-28 request.
pub(super) fn stateless(
    shared: &Shared,
    meta: Option<&Map<String, Value>>,
) -> Result<Envelope, Error> {
    let empty = Map::new();
    let meta = meta.unwrap_or(&empty);
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
    let supported = &shared.options.protocol_versions;
    let version = ProtocolVersion::parse(requested)
        .filter(|v| !v.is_stateful() && supported.contains(&v.as_str()))
        .ok_or_else(|| {
            Error::rpc(
                UnsupportedProtocolVersionData::new(requested, supported)
                    .to_error("Unsupported protocol version"),
            )
        })?;
    let client_capabilities = match meta.get(keys::CLIENT_CAPABILITIES) {
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
    let client_info = meta
        .get(keys::CLIENT_INFO)
        .and_then(|v| serde::Deserialize::deserialize(v).ok());
    let log_level = match meta.get(keys::LOG_LEVEL) {
        None => None,
        Some(v) => {
            let level = <LoggingLevel as serde::Deserialize>::deserialize(v).map_err(|e| {
                Error::invalid_params(format!("params._meta[\"{}\"]: {e}", keys::LOG_LEVEL))
            })?;
            if level.severity().is_none() {
                return Err(Error::invalid_params(format!(
                    "params._meta[\"{}\"]: unknown level {}",
                    keys::LOG_LEVEL,
                    crate::error::reflect(&v.to_string())
                )));
            }
            Some(level)
        }
    };
    Ok(Envelope {
        version,
        client_capabilities,
        client_info,
        log_level,
    })
}

/// `-32021` for a request that needs the client to declare extension `id`, saying `why`.
pub(super) fn missing_extension(id: &str, why: String) -> Error {
    Error::rpc(MissingRequiredClientCapabilityData::extension(id).to_error(why))
}
