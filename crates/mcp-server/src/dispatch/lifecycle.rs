//! `initialize`, `server/discover`, `logging/setLevel`.

use mcp_jsonrpc::ErrorObject;
use mcp_schema::{
    DiscoverResult, EmptyResult, InitializeRequestParams, InitializeResult, ProtocolVersion,
    SetLevelRequestParams, UnsupportedProtocolVersionData,
};

use crate::error::{Error, reflect};
use crate::middleware::Call;

pub(super) fn initialize(
    call: &Call<'_>,
    params: &InitializeRequestParams,
) -> Result<InitializeResult, Error> {
    let session = &call.cx.inner.session;
    let shared = &session.shared;
    if session.negotiated().version.is_some() {
        return Err(Error::rpc(ErrorObject::invalid_request(
            "this session is already initialized",
        )));
    }
    let supported = &shared.options.protocol_versions;
    let chosen =
        mcp_schema::version::server_select_initialize_version(&params.protocol_version, supported)
            .and_then(ProtocolVersion::parse)
            .ok_or_else(|| {
                let data = UnsupportedProtocolVersionData::new(
                    reflect(&params.protocol_version),
                    supported,
                );
                Error::rpc(
            ErrorObject::invalid_params(
                "this server does not support the initialize handshake; use server/discover",
            )
            .with_data(serde_json::to_value(data).unwrap_or_default()),
        )
            })?;
    session.update(|n| {
        n.version = Some(chosen);
        n.client_capabilities = params.capabilities.clone();
        n.client_info = Some(params.client_info.clone());
    });
    Ok(InitializeResult {
        protocol_version: chosen.as_str().to_owned(),
        capabilities: call.cx.server().capabilities_for(chosen),
        server_info: shared.info.clone(),
        instructions: shared.instructions.clone(),
        result_type: None,
        meta: None,
        extra: Default::default(),
    })
}

pub(super) fn discover(call: &Call<'_>) -> DiscoverResult {
    let shared = &call.cx.inner.session.shared;
    DiscoverResult {
        supported_versions: shared
            .options
            .protocol_versions
            .iter()
            .map(|v| (*v).to_owned())
            .collect(),
        capabilities: call
            .cx
            .server()
            .capabilities_for(call.cx.protocol_version()),
        instructions: shared.instructions.clone(),
        ttl_ms: None,
        cache_scope: None,
        result_type: None,
        // The stateless stamp adds the server's identity.
        meta: None,
        extra: Default::default(),
    }
}

pub(super) fn set_level(
    call: &Call<'_>,
    params: &SetLevelRequestParams,
) -> Result<EmptyResult, Error> {
    if params.level.severity().is_none() {
        return Err(Error::invalid_params(format!(
            "unknown level {}: use debug, info, notice, warning, error, critical, alert or emergency",
            reflect(params.level.as_str())
        )));
    }
    let level = params.level.clone();
    call.cx.inner.session.update(|n| n.log_level = Some(level));
    Ok(EmptyResult::default())
}
