//! The JSON-RPC 2.0 message model: parsing and encoding.
//!
//! Parameters and results are kept as [`RawValue`]: the exact bytes the peer sent, validated
//! but not turned into a tree. A caller deserializes them straight into its own types (or into
//! a [`Value`]) once, and a proxy forwards them without any re-encoding.

use std::borrow::Cow;
use std::fmt;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::Id;
use crate::members::repeated_member;

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

/// The outcome of parsing one frame (a line, an SSE event, an HTTP body).
#[derive(Debug)]
pub enum Parsed {
    /// One message (or one invalid value).
    Single(Result<Message, InvalidMessage>),
    /// A batch: a non-empty JSON array of messages, accepted from peers of protocol version
    /// 2025-03-26 and older JSON-RPC peers. An empty array is reported as a single invalid
    /// value, as JSON-RPC 2.0 prescribes.
    Batch(Vec<Result<Message, InvalidMessage>>),
}

/// The frame was not JSON at all (`-32700`).
#[derive(Debug, thiserror::Error)]
#[error("not valid JSON: {0}")]
pub struct ParseError(#[from] serde_json::Error);

/// Parses one frame.
///
/// Returns `Err` when the bytes are not JSON (the JSON-RPC `-32700` case); a JSON value that is
/// not a valid message is `Ok` with an [`InvalidMessage`] in it (the `-32600` case).
pub fn parse(bytes: &[u8]) -> Result<Parsed, ParseError> {
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace()).copied();
    match first {
        Some(b'[') => {
            let items: Vec<&RawValue> = serde_json::from_slice(bytes)?;
            if items.is_empty() {
                // JSON-RPC answers an empty batch with one Invalid Request error.
                return Ok(Parsed::Single(Err(InvalidMessage::new(
                    None,
                    true,
                    "empty batch",
                ))));
            }
            Ok(Parsed::Batch(
                items.into_iter().map(|raw| classify(raw.get())).collect(),
            ))
        }
        Some(b'{') => match serde_json::from_slice::<Envelope<'_>>(bytes) {
            // One pass over the bytes in the common case: the envelope's members are validated
            // and captured as they are read.
            Ok(env) => Ok(Parsed::Single(classify_envelope(env))),
            Err(e) => {
                // Not JSON at all (-32700), or JSON that is not a usable message (-32600, e.g.
                // duplicate members): a plain validation pass tells which.
                let _: &RawValue = serde_json::from_slice(bytes)?;
                Ok(Parsed::Single(Err(InvalidMessage::new(
                    None,
                    false,
                    e.to_string(),
                ))))
            }
        },
        _ => {
            // Let serde_json decide between "not JSON" and "JSON, but not an object".
            let _: &RawValue = serde_json::from_slice(bytes)?;
            Ok(Parsed::Single(Err(InvalidMessage::new(
                None,
                false,
                "a JSON-RPC message must be an object",
            ))))
        }
    }
}

/// Fields of a message, each kept raw so that every defect is reported precisely.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default, borrow, deserialize_with = "present")]
    jsonrpc: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    method: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    params: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

/// Keeps a member that is present with the value `null` distinguishable from an absent one.
fn present<'de, D>(deserializer: D) -> Result<Option<&'de RawValue>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    <&RawValue>::deserialize(deserializer).map(Some)
}

fn is_null(raw: &RawValue) -> bool {
    raw.get() == "null"
}

fn classify(text: &str) -> Result<Message, InvalidMessage> {
    if !text.starts_with('{') {
        return Err(InvalidMessage::new(
            None,
            false,
            "a JSON-RPC message must be an object",
        ));
    }
    match serde_json::from_str(text) {
        Ok(env) => classify_envelope(env),
        // Duplicate members, mostly: the value is JSON but not a usable message.
        Err(e) => Err(InvalidMessage::new(None, false, e.to_string())),
    }
}

fn classify_envelope(env: Envelope<'_>) -> Result<Message, InvalidMessage> {
    let is_request = env.method.is_some();
    // The id is read first so that every other defect can be answered with it.
    let id = match env.id {
        None => None,
        Some(raw) if is_null(raw) => None,
        Some(raw) => match serde_json::from_str::<Id>(raw.get()) {
            Ok(id) => Some(id),
            Err(e) => {
                return Err(InvalidMessage::new(
                    None,
                    is_request,
                    format!("bad id: {e}"),
                ));
            }
        },
    };
    match env.jsonrpc {
        Some(v) if v.get() == "\"2.0\"" => {}
        Some(v) => {
            return Err(InvalidMessage::new(
                id,
                is_request,
                format!("\"jsonrpc\" must be \"2.0\", got {}", v.get()),
            ));
        }
        None => {
            return Err(InvalidMessage::new(
                id,
                is_request,
                "missing \"jsonrpc\": \"2.0\"",
            ));
        }
    }

    if let Some(method) = env.method {
        let method: Cow<'_, str> = serde_json::from_str(method.get())
            .map_err(|_| InvalidMessage::new(id.clone(), true, "\"method\" must be a string"))?;
        if env.result.is_some() || env.error.is_some() {
            return Err(InvalidMessage::new(
                id,
                true,
                "a message cannot have both \"method\" and \"result\"/\"error\"",
            ));
        }
        let params = match env.params {
            None => None,
            Some(p) if p.get().starts_with('{') || p.get().starts_with('[') => Some(p.to_owned()),
            Some(_) => {
                return Err(InvalidMessage::new(
                    id,
                    true,
                    "\"params\" must be an object or an array",
                ));
            }
        };
        // Repeated names at the top level are refused by the envelope's parser; inside the
        // params too, at any depth.
        if let Some(name) = params.as_deref().and_then(|p| repeated_member(p.get())) {
            return Err(InvalidMessage::new(
                id,
                true,
                format!("the member \"params.{name}\" appears twice: send each member once"),
            ));
        }
        return match (env.id, id) {
            (None, _) => Ok(Message::Notification(Notification {
                method: method.into_owned(),
                params,
            })),
            (Some(_), Some(id)) => Ok(Message::Request(Request {
                id,
                method: method.into_owned(),
                params,
            })),
            (Some(_), None) => Err(InvalidMessage::new(
                None,
                true,
                "a request id must not be null",
            )),
        };
    }

    let outcome = match (env.result, env.error) {
        (Some(result), None) => {
            if id.is_none() {
                return Err(InvalidMessage::new(
                    None,
                    false,
                    "a result response must have a non-null id",
                ));
            }
            Ok(result.to_owned())
        }
        (None, Some(error)) => match serde_json::from_str::<ErrorObject>(error.get()) {
            Ok(error) => Err(error),
            Err(e) => {
                return Err(InvalidMessage::new(
                    id,
                    false,
                    format!("malformed \"error\" member: {e}"),
                ));
            }
        },
        (Some(_), Some(_)) => {
            return Err(InvalidMessage::new(
                id,
                false,
                "a response cannot have both \"result\" and \"error\"",
            ));
        }
        (None, None) => {
            return Err(InvalidMessage::new(
                id,
                false,
                "neither a request (no \"method\") nor a response (no \"result\" or \"error\")",
            ));
        }
    };
    if env.id.is_none() {
        return Err(InvalidMessage::new(
            None,
            false,
            "a response must have an id",
        ));
    }
    Ok(Message::Response(Response { id, outcome }))
}

// ----- encoding -------------------------------------------------------------------------------

/// Writes `s` as a JSON string literal.
pub(crate) fn write_json_string(out: &mut Vec<u8>, s: &str) {
    // Serializing a str into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, s);
}

fn write_params<P: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    params: Option<&P>,
) -> Result<(), serde_json::Error> {
    if let Some(params) = params {
        out.extend_from_slice(b",\"params\":");
        serde_json::to_writer(&mut *out, params)?;
    }
    Ok(())
}

/// Encodes a request without building an intermediate tree.
pub fn encode_request<P: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    id: &Id,
    method: &str,
    params: Option<&P>,
) -> Result<(), serde_json::Error> {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    id.write_json(out);
    out.extend_from_slice(b",\"method\":");
    write_json_string(out, method);
    write_params(out, params)?;
    out.push(b'}');
    Ok(())
}

/// Encodes a notification.
pub fn encode_notification<P: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    method: &str,
    params: Option<&P>,
) -> Result<(), serde_json::Error> {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":");
    write_json_string(out, method);
    write_params(out, params)?;
    out.push(b'}');
    Ok(())
}

/// Encodes a success response.
pub fn encode_result<R: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    id: &Id,
    result: &R,
) -> Result<(), serde_json::Error> {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    id.write_json(out);
    out.extend_from_slice(b",\"result\":");
    serde_json::to_writer(&mut *out, result)?;
    out.push(b'}');
    Ok(())
}

/// Encodes an error response (`id: None` is written as `null`).
pub fn encode_error(out: &mut Vec<u8>, id: Option<&Id>, error: &ErrorObject) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    match id {
        Some(id) => id.write_json(out),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"error\":");
    // ErrorObject holds only strings, integers and a Value: serializing it cannot fail.
    let _ = serde_json::to_writer(&mut *out, error);
    out.push(b'}');
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
mod tests {
    use super::*;

    fn single(text: &str) -> Result<Message, InvalidMessage> {
        match parse(text.as_bytes()).expect("valid JSON") {
            Parsed::Single(m) => m,
            Parsed::Batch(_) => panic!("unexpected batch"),
        }
    }

    fn invalid(text: &str) -> InvalidMessage {
        single(text).expect_err("must be invalid")
    }

    #[test]
    fn classifies_the_four_shapes() {
        let Message::Request(r) =
            single(r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}"#).unwrap()
        else {
            panic!()
        };
        assert_eq!((r.id, r.method.as_str()), (Id::Number(1), "ping"));
        assert_eq!(r.params.unwrap().get(), "{}");

        let Message::Notification(n) =
            single(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap()
        else {
            panic!()
        };
        assert!(n.params.is_none());

        let Message::Response(r) =
            single(r#"{"jsonrpc":"2.0","id":"a","result":{"x":[1, 2]}}"#).unwrap()
        else {
            panic!()
        };
        assert_eq!(r.id, Some(Id::String("a".into())));
        assert_eq!(r.outcome.unwrap().get(), r#"{"x":[1, 2]}"#);

        let Message::Response(r) = single(
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(r.id, None);
        assert_eq!(r.outcome.unwrap_err().code, -32700);
    }

    #[test]
    fn reports_invalid_values_with_their_id() {
        let e = invalid(r#"{"jsonrpc":"1.0","id":5,"method":"x"}"#);
        assert_eq!((e.id, e.is_request), (Some(Id::Number(5)), true));
        let e = invalid(r#"{"id":5,"method":"x"}"#);
        assert_eq!(e.id, Some(Id::Number(5)));
        let e = invalid(r#"{"jsonrpc":"2.0","id":5,"method":7}"#);
        assert!(e.reason.contains("method"));
        let e = invalid(r#"{"jsonrpc":"2.0","id":5,"method":"x","params":3}"#);
        assert!(e.reason.contains("params"));
        let e = invalid(r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#);
        assert!(e.reason.contains("null"));
        let e = invalid(r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#);
        assert_eq!(e.id, None);
        let e = invalid(r#"{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":""}}"#);
        assert_eq!(e.id, Some(Id::Number(1)));
        invalid(r#"{"jsonrpc":"2.0","id":1}"#);
        invalid(r#"{"jsonrpc":"2.0","result":{}}"#);
        invalid(r#"{"jsonrpc":"2.0","id":null,"result":{}}"#);
        invalid(r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}"#);
        invalid(r#"{"jsonrpc":"2.0","id":1,"error":{"message":"no code"}}"#);
        invalid("42");
        invalid("\"str\"");
    }

    #[test]
    fn not_json_is_a_parse_error() {
        // The last one has a duplicate member before it breaks off: still not JSON.
        for text in [
            "",
            "garbage",
            "{\"jsonrpc\":\"2.0\"",
            "{\"a\":}",
            "[1,",
            "{\"id\":1,\"id\":2,",
        ] {
            assert!(parse(text.as_bytes()).is_err(), "{text:?}");
        }
    }

    #[test]
    fn batches() {
        let Parsed::Batch(items) =
            parse(br#"[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"b"},5]"#)
                .unwrap()
        else {
            panic!()
        };
        assert_eq!(items.len(), 3);
        assert!(matches!(items[0], Ok(Message::Request(_))));
        assert!(matches!(items[1], Ok(Message::Notification(_))));
        assert!(items[2].is_err());
        // An empty batch is one invalid request.
        assert!(matches!(parse(b" [ ] ").unwrap(), Parsed::Single(Err(_))));
    }

    #[test]
    fn encodes_compactly_and_round_trips() {
        let cases = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"h\"i\n"}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}"#,
            r#"{"jsonrpc":"2.0","id":"x","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"m","data":{"a":1}}}"#,
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32000,"message":"m","data":null,"hint":"x"}}"#,
            // Numbers in parsed values re-encode exactly (float_roundtrip; found by fuzzing).
            r#"{"jsonrpc":"2.0","id":5,"error":{"code":1,"message":"m","data":[-1.2222222222222221e+61]}}"#,
        ];
        for text in cases {
            let Parsed::Single(Ok(message)) = parse(text.as_bytes()).unwrap() else {
                panic!("{text}")
            };
            assert_eq!(String::from_utf8(message.to_vec()).unwrap(), text);
        }
    }

    #[test]
    fn unicode_and_escapes_in_method_survive() {
        let Message::Notification(n) =
            single(r#"{"jsonrpc":"2.0","method":"a\u00e9\"b"}"#).unwrap()
        else {
            panic!()
        };
        assert_eq!(n.method, "aé\"b");
    }
}
