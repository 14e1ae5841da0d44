//! The stateful-era handshake: `initialize` and `notifications/initialized`
//! (2024-11-05 … 2025-11-25). 2026-07-28 has no handshake: see [`discover`](crate::discover)
//! and the per-request [`Meta`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::capabilities::{ClientCapabilities, ServerCapabilities};
use crate::common::{Implementation, ResultType};
use crate::macros::{extensible, has_meta};
use crate::meta::Meta;

/// Params of `initialize` (`InitializeRequestParams`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeRequestParams {
    /// The latest version the client supports.
    pub protocol_version: String,
    /// The client's capabilities.
    pub capabilities: ClientCapabilities,
    /// The client.
    pub client_info: Implementation,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl InitializeRequestParams {
    /// Params proposing `protocol_version`.
    pub fn new(
        protocol_version: impl Into<String>,
        capabilities: ClientCapabilities,
        client_info: Implementation,
    ) -> Self {
        Self {
            protocol_version: protocol_version.into(),
            capabilities,
            client_info,
            meta: None,
            extra: Map::new(),
        }
    }
}

/// The result of `initialize` (`InitializeResult`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// The version the server chose (see
    /// [`server_select_initialize_version`](crate::version::server_select_initialize_version)).
    pub protocol_version: String,
    /// The server's capabilities.
    pub capabilities: ServerCapabilities,
    /// The server.
    pub server_info: Implementation,
    /// How to use the server, e.g. for a system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// `resultType` (not defined for `initialize`; kept if present).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl InitializeResult {
    /// A result answering `protocol_version`.
    pub fn new(
        protocol_version: impl Into<String>,
        capabilities: ServerCapabilities,
        server_info: Implementation,
    ) -> Self {
        Self {
            protocol_version: protocol_version.into(),
            capabilities,
            server_info,
            instructions: None,
            result_type: None,
            meta: None,
            extra: Map::new(),
        }
    }
}

has_meta!(InitializeRequestParams, InitializeResult);
extensible!(InitializeRequestParams, InitializeResult);
crate::macros::result_fields!(InitializeResult);
