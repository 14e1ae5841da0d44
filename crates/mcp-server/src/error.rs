//! The error a handler returns, and how it reaches the client.

use std::fmt;

use mcp_jsonrpc::ErrorObject;
use mcp_schema::Era;

/// What went wrong in a handler.
///
/// How it reaches the client depends on where it was raised:
///
/// | kind | from a tool | from a resource, prompt or completion handler |
/// |---|---|---|
/// | [`Error::msg`] / `?` on any `std::error::Error` | `CallToolResult` with `isError: true` and the message as text, so the model can read it | `-32603` with the message |
/// | [`Error::invalid_params`] | `-32602` | `-32602` |
/// | [`Error::resource_not_found`] | `-32602` | `-32002` (stateful era) / `-32602` (2026-07-28) with `data.uri` |
/// | [`Error::rpc`] | that error object, verbatim | that error object, verbatim |
///
/// Asking the client for input ([`RequestContext::elicit`](crate::RequestContext::elicit) and
/// friends) in the 2026-07-28 era ends the handler with an error of a hidden kind that the
/// framework turns into an `InputRequiredResult`; propagate it with `?`.
pub struct Error {
    pub(crate) kind: ErrorKind,
}

#[derive(Debug)]
pub(crate) enum ErrorKind {
    /// A failure described for the client (a tool error in tools, -32603 elsewhere).
    Message(String),
    /// `-32602`.
    InvalidParams(String),
    /// A resource that does not exist.
    ResourceNotFound(String),
    /// A JSON-RPC error object, sent as is.
    Rpc(Box<ErrorObject>),
    /// The handler needs input from the client (2026-07-28); the context holds the request.
    InputRequired,
    /// The request was cancelled; nothing is sent.
    Cancelled,
}

impl Error {
    /// A failure with a message for the client.
    pub fn msg(message: impl fmt::Display) -> Self {
        Self {
            kind: ErrorKind::Message(message.to_string()),
        }
    }

    /// The request's parameters are wrong (`-32602`).
    pub fn invalid_params(message: impl fmt::Display) -> Self {
        Self {
            kind: ErrorKind::InvalidParams(message.to_string()),
        }
    }

    /// The resource `uri` does not exist (the error code the client's protocol version names).
    pub fn resource_not_found(uri: impl Into<String>) -> Self {
        Self {
            kind: ErrorKind::ResourceNotFound(uri.into()),
        }
    }

    /// A JSON-RPC error object, sent verbatim.
    pub fn rpc(error: ErrorObject) -> Self {
        Self {
            kind: ErrorKind::Rpc(Box::new(error)),
        }
    }

    pub(crate) fn input_required() -> Self {
        Self {
            kind: ErrorKind::InputRequired,
        }
    }

    /// The request was cancelled by the client (no response is sent).
    pub fn cancelled() -> Self {
        Self {
            kind: ErrorKind::Cancelled,
        }
    }

    /// True when this error ends a request that needs client input (2026-07-28).
    pub fn is_input_required(&self) -> bool {
        matches!(self.kind, ErrorKind::InputRequired)
    }

    /// True when the request was cancelled.
    pub fn is_cancelled(&self) -> bool {
        matches!(self.kind, ErrorKind::Cancelled)
    }

    /// The JSON-RPC error code this error is answered with outside a tool (`0` for the
    /// input-required signal, which is not an error on the wire).
    pub fn code(&self) -> i64 {
        match &self.kind {
            ErrorKind::Message(_) | ErrorKind::Cancelled => {
                mcp_jsonrpc::error_codes::INTERNAL_ERROR
            }
            ErrorKind::InvalidParams(_) => mcp_jsonrpc::error_codes::INVALID_PARAMS,
            ErrorKind::ResourceNotFound(_) => mcp_schema::error_codes::RESOURCE_NOT_FOUND,
            ErrorKind::Rpc(e) => e.code,
            ErrorKind::InputRequired => 0,
        }
    }

    /// Fixes the error code of era-dependent errors (resource not found).
    pub(crate) fn resolve(self, era: Era) -> Self {
        match self.kind {
            ErrorKind::ResourceNotFound(uri) => {
                Self::rpc(mcp_schema::ResourceNotFoundData::error(uri, era))
            }
            kind => Self { kind },
        }
    }

    /// The JSON-RPC error this becomes outside a tool, in `era`.
    pub(crate) fn into_error_object(self, era: Era) -> ErrorObject {
        match self.kind {
            ErrorKind::Message(m) => ErrorObject::new(mcp_jsonrpc::error_codes::INTERNAL_ERROR, m),
            ErrorKind::InvalidParams(m) => ErrorObject::invalid_params(m),
            ErrorKind::ResourceNotFound(uri) => mcp_schema::ResourceNotFoundData::error(uri, era),
            ErrorKind::Rpc(e) => *e,
            ErrorKind::InputRequired => ErrorObject::internal_error(
                "the handler asked for client input but the framework could not form the request",
            ),
            ErrorKind::Cancelled => ErrorObject::new(
                mcp_jsonrpc::error_codes::INTERNAL_ERROR,
                "the request was cancelled",
            ),
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.kind.fmt(f)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::Message(m) | ErrorKind::InvalidParams(m) => f.write_str(m),
            ErrorKind::ResourceNotFound(uri) => write!(f, "resource not found: {uri}"),
            ErrorKind::Rpc(e) => write!(f, "{e}"),
            ErrorKind::InputRequired => f.write_str("input required from the client"),
            ErrorKind::Cancelled => f.write_str("cancelled"),
        }
    }
}

/// Any standard error becomes a failure with its message, so handlers can use `?`.
impl<E: std::error::Error + Send + Sync + 'static> From<E> for Error {
    fn from(e: E) -> Self {
        Self::msg(e)
    }
}

/// The result type of handlers.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The longest piece of a client's input (a method name, a header value, a URI) that error
/// messages repeat.
const REFLECTED_MAX_CHARS: usize = 100;

/// A value from the client, as an error message may repeat it: whole when short, otherwise
/// its first characters and how long it was (a client must not get back megabytes it sent).
pub(crate) fn reflect(value: &str) -> std::borrow::Cow<'_, str> {
    match value.char_indices().nth(REFLECTED_MAX_CHARS) {
        None => std::borrow::Cow::Borrowed(value),
        Some((end, _)) => {
            std::borrow::Cow::Owned(format!("{}… ({} bytes)", &value[..end], value.len()))
        }
    }
}

/// What a caught panic said (its message when it is a string).
pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(not a string)")
}
