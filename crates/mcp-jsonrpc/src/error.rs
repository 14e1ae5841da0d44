//! The error type of this crate.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use crate::ErrorObject;

/// Everything that can go wrong on a connection.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The peer answered the request with a JSON-RPC error response.
    #[error("peer returned an error: {0}")]
    Rpc(Box<ErrorObject>),

    /// The connection is closed; the reason says why (peer exited, read error, closed by us…).
    /// Every request pending when a connection closes fails with this error at once.
    #[error("connection closed: {0}")]
    Closed(Arc<str>),

    /// A message from the peer exceeded [`Limits::max_message_bytes`](crate::Limits). The
    /// message was discarded without being buffered; the connection goes on.
    #[error(
        "message from peer exceeds max_message_bytes ({limit} bytes); it was discarded. \
         If the server legitimately sends messages this large, raise Limits::max_message_bytes"
    )]
    MessageTooLarge {
        /// The configured limit.
        limit: usize,
    },

    /// I/O failed (spawning a process, connecting a socket, writing…).
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The underlying error.
        #[source]
        source: io::Error,
    },

    /// Parameters could not be serialized.
    #[error("cannot encode the message: {0}")]
    Encode(#[source] serde_json::Error),

    /// A result could not be deserialized into the requested type.
    #[error("cannot decode the result: {0}")]
    Decode(#[source] serde_json::Error),

    /// Setting up the streamable HTTP transport failed (bad URL, TLS setup, initial GET…).
    #[error("streamable http: {0}")]
    Http(String),

    /// The stdout log could not be set up (directory, file, or a symlink in the path).
    #[error("stdout log: {0}")]
    StdoutLog(String),

    /// [`Peer::wait_with_timeout`](crate::Peer::wait_with_timeout) ran out of time.
    #[error("timed out after {0:?} waiting for the child process to exit")]
    WaitTimeout(Duration),

    /// An invalid argument (for example an empty argv).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),

    /// The server refused the request (HTTP 401 or 403) and the connection's
    /// [`HttpAuthorizer`](crate::HttpAuthorizer) could not authorize it: the authorizer's own
    /// error, which the application can downcast.
    #[error("{0}")]
    Unauthorized(Arc<dyn std::error::Error + Send + Sync>),
}

impl Error {
    /// True when this is the timeout of [`Peer::wait_with_timeout`](crate::Peer::wait_with_timeout).
    pub fn is_wait_timeout(&self) -> bool {
        matches!(self, Error::WaitTimeout(_))
    }

    /// The authorizer's error, when the server refused the request and it could not be
    /// authorized ([`Error::Unauthorized`]).
    pub fn unauthorized(&self) -> Option<&(dyn std::error::Error + Send + Sync + 'static)> {
        match self {
            Error::Unauthorized(source) => Some(source.as_ref()),
            _ => None,
        }
    }

    /// True when the connection is closed (no further request can succeed on it).
    pub fn is_closed(&self) -> bool {
        matches!(self, Error::Closed(_))
    }

    /// The JSON-RPC error object, when the peer answered with an error response.
    pub fn as_rpc(&self) -> Option<&ErrorObject> {
        match self {
            Error::Rpc(e) => Some(e.as_ref()),
            _ => None,
        }
    }

    pub(crate) fn io(context: impl Into<String>, source: io::Error) -> Self {
        Error::Io {
            context: context.into(),
            source,
        }
    }
}
