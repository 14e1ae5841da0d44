//! The JSON-RPC 2.0 message model: the types here, parsing in [`parse`]'s module and encoding
//! in the `encode_*` functions (each a layer over the model).
//!
//! Parameters and results are kept as [`RawValue`]: the exact bytes the peer sent, validated
//! but not turned into a tree. A caller deserializes them straight into its own types (or into
//! a [`Value`]) once, and a proxy forwards them without any re-encoding.

use std::fmt;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::Id;

mod encode;
mod parse;

pub use encode::{encode_error, encode_notification, encode_request, encode_result};
pub use parse::{ParseError, Parsed, parse};

/// Standard JSON-RPC 2.0 error codes, and the implementation-defined ones this crate uses.
pub mod error_codes {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: i64 = -32700;
    /// The JSON sent is not a valid request object.
    pub const INVALID_REQUEST: i64 = -32600;
    /// The method does not exist or is not available.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Invalid method parameters.
    pub const INVALID_PARAMS: i64 = -32602;
    /// Internal JSON-RPC error.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// Implementation-defined server error. This crate uses it for two things: answering an
    /// inbound request when the inbound request queue is full (`"client overloaded"`), and
    /// bridging a failed HTTP exchange into the error response of the request it carried.
    pub const SERVER_ERROR: i64 = -32000;
}

/// The error member of a JSON-RPC error response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// The error code (see [`error_codes`]).
    pub code: i64,
    /// A short description of the error.
    pub message: String,
    /// Additional information about the error (`Some(Value::Null)` for an explicit `null`).
    #[serde(
        default,
        deserialize_with = "present_value",
        skip_serializing_if = "Option::is_none"
    )]
    pub data: Option<Value>,
    /// Members beyond `code`, `message` and `data`, kept so that forwarding an error loses
    /// nothing.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, Value>,
}

/// The `data` member of a bridged HTTP error holding the response's status.
pub(crate) const HTTP_STATUS: &str = "httpStatus";
/// The `data` member of a bridged HTTP error that says the request was never delivered.
pub(crate) const NOT_DELIVERED: &str = "notDelivered";

/// Keeps `"data": null` distinguishable from an absent `data`.
fn present_value<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

impl ErrorObject {
    /// An error with a code and a message.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
            extra: serde_json::Map::new(),
        }
    }

    /// Attaches `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// The HTTP status of a failed streamable HTTP exchange, which the HTTP transport records
    /// in `data.httpStatus` of the error it reports (e.g. `404` for a session the server no
    /// longer knows).
    pub fn http_status(&self) -> Option<u16> {
        let status = self.data.as_ref()?.get(HTTP_STATUS)?.as_u64()?;
        u16::try_from(status).ok()
    }

    /// True when the request never reached the peer (the HTTP transport could not connect:
    /// `data.notDelivered`), so sending it again cannot run it twice.
    pub fn not_delivered(&self) -> bool {
        self.code == error_codes::SERVER_ERROR
            && self
                .data
                .as_ref()
                .and_then(|data| data.get(NOT_DELIVERED))
                .and_then(Value::as_bool)
                == Some(true)
    }

    /// `-32700 Parse error`.
    pub fn parse_error(detail: impl fmt::Display) -> Self {
        Self::new(error_codes::PARSE_ERROR, format!("Parse error: {detail}"))
    }

    /// `-32600 Invalid Request`.
    pub fn invalid_request(detail: impl fmt::Display) -> Self {
        Self::new(
            error_codes::INVALID_REQUEST,
            format!("Invalid Request: {detail}"),
        )
    }

    /// `-32601 Method not found`.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            error_codes::METHOD_NOT_FOUND,
            format!("Method not found: {method}"),
        )
    }

    /// `-32602 Invalid params`.
    pub fn invalid_params(detail: impl fmt::Display) -> Self {
        Self::new(
            error_codes::INVALID_PARAMS,
            format!("Invalid params: {detail}"),
        )
    }

    /// `-32603 Internal error`.
    pub fn internal_error(detail: impl fmt::Display) -> Self {
        Self::new(
            error_codes::INTERNAL_ERROR,
            format!("Internal error: {detail}"),
        )
    }
}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (code {})", self.message, self.code)
    }
}

impl std::error::Error for ErrorObject {}

/// A request: it has an id and expects exactly one response.
#[derive(Debug, Clone)]
pub struct Request {
    /// The request id.
    pub id: Id,
    /// The method name.
    pub method: String,
    /// The parameters (a JSON object or array), as sent.
    pub params: Option<Box<RawValue>>,
}

/// A notification: a method call without an id, never answered.
#[derive(Debug, Clone)]
pub struct Notification {
    /// The method name.
    pub method: String,
    /// The parameters (a JSON object or array), as sent.
    pub params: Option<Box<RawValue>>,
}

/// A response to a request.
#[derive(Debug, Clone)]
pub struct Response {
    /// The id of the request answered; `None` for an error response to a request whose id
    /// could not be read (the wire shows `"id": null`).
    pub id: Option<Id>,
    /// The `result` member, or the `error` member.
    pub outcome: Result<Box<RawValue>, ErrorObject>,
}

/// One JSON-RPC message.
#[derive(Debug, Clone)]
pub enum Message {
    /// A request (has an id).
    Request(Request),
    /// A notification (no id).
    Notification(Notification),
    /// A response (result or error).
    Response(Response),
}

/// A JSON value that is not a valid JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub struct InvalidMessage {
    /// The id, when the value carried a readable one. A request with an id gets a
    /// `-32600 Invalid Request` response with that id; without one, the response has a null id.
    pub id: Option<Id>,
    /// True when the value looked like a request (it has a `method`) rather than a response.
    pub is_request: bool,
    /// What is wrong, for logs and for the error response.
    pub reason: String,
}

impl InvalidMessage {
    fn new(id: Option<Id>, is_request: bool, reason: impl Into<String>) -> Self {
        Self {
            id,
            is_request,
            reason: reason.into(),
        }
    }

    /// The error response JSON-RPC prescribes for this value.
    pub fn to_response(&self) -> Response {
        Response {
            id: self.id.clone(),
            outcome: Err(ErrorObject::invalid_request(&self.reason)),
        }
    }
}

impl fmt::Display for InvalidMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

impl Request {
    /// A request with parameters given as any serializable value.
    pub fn new<P: Serialize + ?Sized>(
        id: impl Into<Id>,
        method: impl Into<String>,
        params: Option<&P>,
    ) -> Result<Self, serde_json::Error> {
        Ok(Self {
            id: id.into(),
            method: method.into(),
            params: params.map(serde_json::value::to_raw_value).transpose()?,
        })
    }

    /// Deserializes the parameters (absent parameters deserialize from `null`).
    pub fn params_as<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        params_as(self.params.as_deref())
    }
}

impl Notification {
    /// A notification with parameters given as any serializable value.
    pub fn new<P: Serialize + ?Sized>(
        method: impl Into<String>,
        params: Option<&P>,
    ) -> Result<Self, serde_json::Error> {
        Ok(Self {
            method: method.into(),
            params: params.map(serde_json::value::to_raw_value).transpose()?,
        })
    }

    /// Deserializes the parameters (absent parameters deserialize from `null`).
    pub fn params_as<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        params_as(self.params.as_deref())
    }

    /// The parameters as a [`Value`] (`Value::Null` when absent).
    pub fn params_value(&self) -> Value {
        self.params_as().unwrap_or(Value::Null)
    }
}

impl Response {
    /// A success response.
    pub fn success(id: Id, result: Box<RawValue>) -> Self {
        Self {
            id: Some(id),
            outcome: Ok(result),
        }
    }

    /// An error response.
    pub fn error(id: Option<Id>, error: ErrorObject) -> Self {
        Self {
            id,
            outcome: Err(error),
        }
    }
}

pub(crate) fn params_as<T: DeserializeOwned>(
    params: Option<&RawValue>,
) -> Result<T, serde_json::Error> {
    serde_json::from_str(params.map_or("null", RawValue::get))
}

impl Message {
    /// Encodes the message as compact JSON (no trailing newline).
    pub fn encode(&self, out: &mut Vec<u8>) {
        // Raw values are already valid JSON: none of these can fail.
        match self {
            Message::Request(r) => {
                let _ = encode_request(out, &r.id, &r.method, r.params.as_deref());
            }
            Message::Notification(n) => {
                let _ = encode_notification(out, &n.method, n.params.as_deref());
            }
            Message::Response(r) => match &r.outcome {
                Ok(result) => {
                    if let Some(id) = &r.id {
                        let _ = encode_result(out, id, result.as_ref());
                    }
                }
                Err(error) => encode_error(out, r.id.as_ref(), error),
            },
        }
    }

    /// The message as compact JSON bytes.
    pub fn to_vec(&self) -> Vec<u8> {
        let payload = match self {
            Message::Request(r) => r.params.as_ref().map_or(0, |p| p.get().len()),
            Message::Notification(n) => n.params.as_ref().map_or(0, |p| p.get().len()),
            Message::Response(r) => r.outcome.as_ref().map_or(0, |p| p.get().len()),
        };
        let mut out = Vec::with_capacity(payload + 128);
        self.encode(&mut out);
        out
    }

    /// The method name, for requests and notifications.
    pub fn method(&self) -> Option<&str> {
        match self {
            Message::Request(r) => Some(&r.method),
            Message::Notification(n) => Some(&n.method),
            Message::Response(_) => None,
        }
    }
}

#[cfg(test)]
mod tests;
