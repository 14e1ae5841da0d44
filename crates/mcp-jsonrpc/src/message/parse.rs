//! Parsing one frame into messages, every defect told apart: not JSON (`-32700`), or JSON that
//! is not a usable message (`-32600`, with the id when it is readable).

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::{ErrorObject, InvalidMessage, Message, Notification, Request, Response};
use crate::Id;
use crate::members::repeated_member;

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
