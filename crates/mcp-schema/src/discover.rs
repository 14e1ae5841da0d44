//! `server/discover` (2026-07-28): the server's supported versions, capabilities and
//! identity, replacing the stateful `initialize` handshake.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::capabilities::ServerCapabilities;
use crate::common::{CacheScope, Implementation, ResultType};
use crate::macros::{extensible, has_meta};
use crate::meta::Meta;

/// The result of `server/discover` (`DiscoverResult`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverResult {
    /// The protocol versions the server supports.
    pub supported_versions: Vec<String>,
    /// The server's capabilities.
    pub capabilities: ServerCapabilities,
    /// How to use the server, e.g. for a system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Freshness hint in milliseconds (required).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Cache scope (required).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// `resultType` (required).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// `_meta` (`io.modelcontextprotocol/serverInfo` identifies the server).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl DiscoverResult {
    /// A complete result with the required members.
    pub fn new(
        supported_versions: Vec<String>,
        capabilities: ServerCapabilities,
        ttl_ms: u64,
        cache_scope: CacheScope,
    ) -> Self {
        Self {
            supported_versions,
            capabilities,
            instructions: None,
            ttl_ms: Some(ttl_ms),
            cache_scope: Some(cache_scope),
            result_type: Some(ResultType::Complete),
            meta: None,
            extra: Map::new(),
        }
    }

    /// The server identity from `_meta["io.modelcontextprotocol/serverInfo"]`.
    pub fn server_info(&self) -> Result<Option<Implementation>, serde_json::Error> {
        self.meta.as_ref().map_or(Ok(None), Meta::server_info)
    }

    /// The latest version in `ours` that the server also supports.
    pub fn select_version<'a>(&self, ours: &[&'a str]) -> Option<&'a str> {
        crate::version::select_mutual_version(ours, &self.supported_versions)
    }
}

has_meta!(DiscoverResult);
extensible!(DiscoverResult);
crate::macros::cache_hints!(DiscoverResult);
