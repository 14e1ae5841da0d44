//! MCP error codes and the typed `data` of the errors the schemas define.
//!
//! Error objects themselves are [`mcp_jsonrpc::ErrorObject`] (re-exported here); this module
//! adds the MCP codes beside the JSON-RPC ones and typed `data` structs implementing
//! [`ErrorData`].

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use mcp_jsonrpc::ErrorObject;

use crate::capabilities::ClientCapabilities;
use crate::elicitation::ElicitRequestUrlParams;
use crate::macros::extensible;
use crate::meta::to_value_infallible;
use crate::version::Era;

/// JSON-RPC and MCP error codes.
pub mod error_codes {
    pub use mcp_jsonrpc::error_codes::*;

    use crate::version::Era;

    /// Resource not found (2024-11-05 … 2025-11-25; 2026-07-28 uses
    /// [`INVALID_PARAMS`] instead, and clients should still accept this code).
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
    /// The server requires a URL-mode elicitation first (2025-11-25 only).
    pub const URL_ELICITATION_REQUIRED: i64 = -32042;
    /// HTTP headers do not match the body, or required headers are missing (2026-07-28).
    pub const HEADER_MISMATCH: i64 = -32020;
    /// A capability the client did not declare is required (2026-07-28).
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    /// The requested protocol version is not supported (2026-07-28).
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

    /// The start of the sub-range reserved for codes defined by the MCP specification
    /// (`-32020` down to `-32099`).
    pub const MCP_RESERVED_START: i64 = -32020;
    /// The end of the reserved sub-range.
    pub const MCP_RESERVED_END: i64 = -32099;

    /// The code for "resource not found" in `era`.
    pub fn resource_not_found(era: Era) -> i64 {
        match era {
            Era::Stateful => RESOURCE_NOT_FOUND,
            Era::Stateless => INVALID_PARAMS,
        }
    }

    /// Whether `code` is one of the errors a 2026-07-28 server defines. On stdio, a dual-era
    /// client that probes with `server/discover` and gets such an error knows the server is
    /// modern (and must not fall back to `initialize`).
    pub fn is_modern(code: i64) -> bool {
        matches!(
            code,
            HEADER_MISMATCH | MISSING_REQUIRED_CLIENT_CAPABILITY | UNSUPPORTED_PROTOCOL_VERSION
        )
    }

    /// Whether `code` lies in the sub-range reserved for the MCP specification.
    pub fn is_mcp_reserved(code: i64) -> bool {
        (MCP_RESERVED_END..=MCP_RESERVED_START).contains(&code)
    }
}

/// Typed `data` of an MCP error with a fixed code.
pub trait ErrorData: Serialize + DeserializeOwned {
    /// The error code.
    const CODE: i64;

    /// An error object with this code, `message` and this data.
    fn to_error(&self, message: impl Into<String>) -> ErrorObject {
        ErrorObject::new(Self::CODE, message).with_data(to_value_infallible(self))
    }

    /// The data of `error`, when it has this code: `None` for another code, `Err` when the
    /// data is missing or malformed.
    fn from_error(error: &ErrorObject) -> Option<Result<Self, serde_json::Error>> {
        (error.code == Self::CODE)
            .then(|| Self::deserialize(error.data.as_ref().unwrap_or(&Value::Null)))
    }
}

/// `data` of `UnsupportedProtocolVersionError` (`-32022`, 2026-07-28).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UnsupportedProtocolVersionData {
    /// The versions the server supports.
    pub supported: Vec<String>,
    /// The version the client asked for.
    pub requested: String,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl UnsupportedProtocolVersionData {
    /// Data for a request of version `requested` to a server supporting `supported`.
    pub fn new(requested: impl Into<String>, supported: &[&str]) -> Self {
        Self {
            supported: supported.iter().map(|s| (*s).to_owned()).collect(),
            requested: requested.into(),
            extra: Map::new(),
        }
    }

    /// The latest version in `ours` that the server supports: the one to retry with.
    pub fn select_version<'a>(&self, ours: &[&'a str]) -> Option<&'a str> {
        crate::version::select_mutual_version(ours, &self.supported)
    }
}

impl ErrorData for UnsupportedProtocolVersionData {
    const CODE: i64 = error_codes::UNSUPPORTED_PROTOCOL_VERSION;
}

/// `data` of `MissingRequiredClientCapabilityError` (`-32021`, 2026-07-28).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MissingRequiredClientCapabilityData {
    /// The capabilities the request needs.
    pub required_capabilities: ClientCapabilities,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ErrorData for MissingRequiredClientCapabilityData {
    const CODE: i64 = error_codes::MISSING_REQUIRED_CLIENT_CAPABILITY;
}

/// `data` of `URLElicitationRequiredError` (`-32042`, 2025-11-25).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UrlElicitationRequiredData {
    /// The URL-mode elicitations to complete before retrying.
    pub elicitations: Vec<ElicitRequestUrlParams>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ErrorData for UrlElicitationRequiredData {
    const CODE: i64 = error_codes::URL_ELICITATION_REQUIRED;
}

/// `data` of a "resource not found" error (`{ "uri": … }`, from the resources pages; the code
/// depends on the era, see [`error_codes::resource_not_found`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResourceNotFoundData {
    /// The URI that was not found.
    pub uri: String,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ResourceNotFoundData {
    /// The error object for `uri` in `era`.
    pub fn error(uri: impl Into<String>, era: Era) -> ErrorObject {
        let data = Self {
            uri: uri.into(),
            extra: Map::new(),
        };
        ErrorObject::new(error_codes::resource_not_found(era), "Resource not found")
            .with_data(to_value_infallible(&data))
    }
}

extensible!(
    UnsupportedProtocolVersionData,
    MissingRequiredClientCapabilityData,
    UrlElicitationRequiredData,
    ResourceNotFoundData,
);
