//! `initialize`, `server/discover`, `logging/setLevel`.

use mcp_schema::meta::keys;
use mcp_schema::{InitializeRequestParams, LoggingLevel, ProtocolVersion};
use serde_json::{Value, json};

use super::Call;
use crate::error::Error;

pub(super) fn initialize(call: &Call<'_>) -> Result<Value, Error> {
    let params: InitializeRequestParams = call.params_as()?;
    let session = call.session();
    let server = &session.server;
    if session.negotiated().version.is_some() {
        return Err(Error::rpc(mcp_jsonrpc::ErrorObject::invalid_request(
            "this session is already initialized",
        )));
    }
    let supported = &server.inner.options.protocol_versions;
    let chosen =
        mcp_schema::version::server_select_initialize_version(&params.protocol_version, supported)
            .and_then(ProtocolVersion::parse)
            .ok_or_else(|| {
                Error::rpc(
            mcp_jsonrpc::ErrorObject::invalid_params(
                "this server does not support the initialize handshake; use server/discover",
            )
            .with_data(json!({ "supported": supported, "requested": params.protocol_version })),
        )
            })?;
    session.update(|n| {
        n.version = Some(chosen);
        n.client_capabilities = params.capabilities.clone();
        n.client_info = Some(params.client_info.clone());
    });
    let mut result = json!({
        "protocolVersion": chosen.as_str(),
        "capabilities": server.capabilities(),
        "serverInfo": server.inner.info,
    });
    if let Some(instructions) = &server.inner.instructions {
        result["instructions"] = json!(instructions);
    }
    Ok(result)
}

pub(super) fn discover(call: &Call<'_>) -> Value {
    let server = &call.session().server;
    let mut result = json!({
        "supportedVersions": server.inner.options.protocol_versions,
        "capabilities": server.capabilities(),
        "_meta": { keys::SERVER_INFO: server.inner.info },
    });
    if let Some(instructions) = &server.inner.instructions {
        result["instructions"] = json!(instructions);
    }
    result
}

pub(super) fn set_level(call: &Call<'_>) -> Result<Value, Error> {
    let level = call
        .params
        .get("level")
        .ok_or_else(|| Error::invalid_params("logging/setLevel needs params.level"))?;
    let level: LoggingLevel = serde_json::from_value(level.clone())
        .map_err(|e| Error::invalid_params(format!("invalid level: {e}")))?;
    if level.severity().is_none() {
        return Err(Error::invalid_params(format!(
            "unknown level {:?}: use debug, info, notice, warning, error, critical, alert or emergency",
            call.params.get("level")
        )));
    }
    call.session().update(|n| n.log_level = Some(level));
    Ok(json!({}))
}
