//! Typed JSON-RPC envelopes (`JSONRPCRequest`, `JSONRPCNotification`, `JSONRPCResultResponse`,
//! `JSONRPCErrorResponse`, `JSONRPCResponse`), generic over the params or result type.
//!
//! These are for whole messages as JSON values (tests, logs, the schema's `*ResultResponse`
//! examples). Framing, batching and raw-byte handling belong to `mcp-jsonrpc`, whose
//! [`Message`](mcp_jsonrpc::Message) is the untyped `JSONRPCMessage`.

use serde::de::{self, DeserializeOwned};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use mcp_jsonrpc::ErrorObject;

use crate::common::has_member;
use crate::meta::RequestId;
use crate::methods::{McpNotification, McpRequest};
use crate::tags::JsonRpcTag;

/// A request message (`JSONRPCRequest`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcRequest<P = Value> {
    /// `"jsonrpc": "2.0"`.
    pub jsonrpc: JsonRpcTag,
    /// The request id.
    pub id: RequestId,
    /// The method name.
    pub method: String,
    /// The params (`None`: no `params` member).
    // No `default` here: it would make serde require `P: Default`; a missing `Option` member
    // is `None` anyway.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<P>,
    /// Other members of the message.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl<P> JsonRpcRequest<P> {
    /// A request.
    pub fn new(id: impl Into<RequestId>, method: impl Into<String>, params: Option<P>) -> Self {
        Self {
            jsonrpc: JsonRpcTag,
            id: id.into(),
            method: method.into(),
            params,
            extra: Map::new(),
        }
    }

    /// A request for method `R`.
    pub fn of<R: McpRequest<Params = P>>(id: impl Into<RequestId>, params: P) -> Self {
        Self::new(id, R::METHOD, Some(params))
    }
}

/// A notification message (`JSONRPCNotification`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcNotification<P = Value> {
    /// `"jsonrpc": "2.0"`.
    pub jsonrpc: JsonRpcTag,
    /// The method name.
    pub method: String,
    /// The params (`None`: no `params` member).
    // No `default` here: it would make serde require `P: Default`; a missing `Option` member
    // is `None` anyway.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<P>,
    /// Other members of the message.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl<P> JsonRpcNotification<P> {
    /// A notification.
    pub fn new(method: impl Into<String>, params: Option<P>) -> Self {
        Self {
            jsonrpc: JsonRpcTag,
            method: method.into(),
            params,
            extra: Map::new(),
        }
    }

    /// A notification of method `N`.
    pub fn of<N: McpNotification<Params = P>>(params: Option<P>) -> Self {
        Self::new(N::METHOD, params)
    }
}

/// A success response (`JSONRPCResultResponse`; `JSONRPCResponse` before 2025-11-25).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcResultResponse<R = Value> {
    /// `"jsonrpc": "2.0"`.
    pub jsonrpc: JsonRpcTag,
    /// The id of the request answered.
    pub id: RequestId,
    /// The result.
    pub result: R,
    /// Other members of the message.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl<R> JsonRpcResultResponse<R> {
    /// A success response.
    pub fn new(id: impl Into<RequestId>, result: R) -> Self {
        Self {
            jsonrpc: JsonRpcTag,
            id: id.into(),
            result,
            extra: Map::new(),
        }
    }
}

/// An error response (`JSONRPCErrorResponse`; `JSONRPCError` before 2025-11-25), including the
/// MCP error responses `HeaderMismatchError`, `UnsupportedProtocolVersionError`,
/// `MissingRequiredClientCapabilityError` and `URLElicitationRequiredError` (read their typed
/// data with [`ErrorData::from_error`](crate::ErrorData::from_error)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcErrorResponse {
    /// `"jsonrpc": "2.0"`.
    pub jsonrpc: JsonRpcTag,
    /// The id: `None` when absent (allowed since 2025-11-25), `Some(None)` for `"id": null`
    /// (an unreadable request id), `Some(Some(id))` otherwise.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present_id"
    )]
    pub id: Option<Option<RequestId>>,
    /// The error.
    pub error: ErrorObject,
    /// Other members of the message.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn present_id<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<RequestId>>, D::Error> {
    Option::<RequestId>::deserialize(d).map(Some)
}

impl JsonRpcErrorResponse {
    /// An error response to request `id` (`None`: the id could not be read; sent as `null`).
    pub fn new(id: Option<RequestId>, error: ErrorObject) -> Self {
        Self {
            jsonrpc: JsonRpcTag,
            id: Some(id),
            error,
            extra: Map::new(),
        }
    }

    /// The id of the request answered, if known.
    pub fn request_id(&self) -> Option<&RequestId> {
        self.id.as_ref().and_then(Option::as_ref)
    }
}

/// A response (`JSONRPCResponse` since 2025-11-25): success or error, told apart by the
/// `error` member.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum JsonRpcResponse<R = Value> {
    /// A success response.
    Result(JsonRpcResultResponse<R>),
    /// An error response.
    Error(JsonRpcErrorResponse),
}

impl<'de, R: DeserializeOwned> Deserialize<'de> for JsonRpcResponse<R> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(deserializer)?;
        if has_member(&v, "error") {
            serde_json::from_value(v).map(JsonRpcResponse::Error)
        } else {
            serde_json::from_value(v).map(JsonRpcResponse::Result)
        }
        .map_err(de::Error::custom)
    }
}
