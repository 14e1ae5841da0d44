//! The error type of `mcp-kit`.

use std::time::Duration;

use crate::config::ConfigError;
use crate::security::PolicyError;

/// Everything that can go wrong between loading a configuration and getting a result.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The configuration could not be loaded or is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),

    /// The trust policy refused the connection.
    #[error(transparent)]
    Refused(#[from] PolicyError),

    /// No server of this name is configured.
    #[error("unknown mcp server: `{0}` (not in the configuration)")]
    UnknownServer(String),

    /// `stdout_log.path` resolves outside the root and that was not allowed.
    #[error(
        "refusing stdout_log path outside the root for mcp server `{server}`: {} is not under {}; \
         move it under the root, or allow it with --allow-stdout-log-outside-root (CLI) or \
         Manager::with_allow_stdout_log_outside_root(true)",
        path.display(),
        root.display()
    )]
    StdoutLogOutsideRoot {
        /// The server's name.
        server: String,
        /// The resolved log path.
        path: std::path::PathBuf,
        /// The root.
        root: std::path::PathBuf,
    },

    /// An environment variable the (trusted) configuration reads is not set.
    #[error(
        "mcp server `{server}`: environment variable `{var}` is not set (the configuration reads it)"
    )]
    MissingEnvVar {
        /// The server's name.
        server: String,
        /// The variable.
        var: String,
    },

    /// The request got no response in time. A `notifications/cancelled` was sent.
    #[error(
        "mcp request timed out: {method} (after {timeout:?}; raise it with --timeout-ms or \
         Manager::with_timeout / Session::with_timeout)"
    )]
    Timeout {
        /// The request's method.
        method: String,
        /// The timeout that expired.
        timeout: Duration,
    },

    /// The server answered with a JSON-RPC error.
    #[error("mcp server `{server}` returned an error for {method}: {error}")]
    Rpc {
        /// The server's name.
        server: String,
        /// The request's method.
        method: String,
        /// The error object (boxed: it is large, and errors travel through every `Result`).
        error: Box<mcp_jsonrpc::ErrorObject>,
    },

    /// The connection failed (spawn, connect, I/O, closed).
    #[error("mcp server `{server}`: {source}")]
    Connection {
        /// The server's name.
        server: String,
        /// What went wrong underneath.
        #[source]
        source: mcp_jsonrpc::Error,
    },

    /// A spawned server's connection closed and the server had exited, or soon did: the
    /// error, then its exit status and the last lines it wrote to stderr, when known (see
    /// [`Manager::with_stderr`](crate::Manager::with_stderr)).
    #[error("{source}{}", exit_details(.status.as_deref(), .stderr_tail))]
    ServerExited {
        /// The server's name.
        server: String,
        /// How it exited (`exit status: 1`, `signal: 9 (SIGKILL)`), when it had.
        status: Option<String>,
        /// The last lines it wrote to stderr (empty when not captured).
        stderr_tail: Vec<String>,
        /// The error the connection ended with.
        #[source]
        source: Box<Error>,
    },

    /// The server's answer did not follow the protocol (a malformed result, a version we do
    /// not speak, a handshake that failed).
    #[error("mcp server `{server}`: {message}")]
    Protocol {
        /// The server's name.
        server: String,
        /// What was wrong.
        message: String,
    },

    /// The server refused for want of authorization and it could not be obtained. With the
    /// `oauth` feature the source is an [`AuthError`](crate::auth::AuthError)
    /// ([`Error::auth_error`]); its message names the server.
    #[error("{source}")]
    Unauthorized {
        /// The server's name.
        server: String,
        /// Why authorization failed.
        source: std::sync::Arc<dyn std::error::Error + Send + Sync>,
    },

    /// A skill's content is not what its entry promises (SEP-2640 verification: an unlisted
    /// file, a size or digest mismatch, a different frontmatter, an invalid entry). The
    /// content was not used; when the skill changed, get its entry again.
    #[error(
        "mcp server `{server}`: skill {uri} failed verification, its content was not used: {reason}"
    )]
    SkillVerification {
        /// The server's name.
        server: String,
        /// The skill's `SKILL.md` URI.
        uri: String,
        /// What did not match.
        reason: String,
    },

    /// The server does not declare the extension a method belongs to, so the method was not
    /// sent.
    #[error(
        "mcp server `{server}` does not declare the {extension} extension, so it has no {method}"
    )]
    ExtensionNotServed {
        /// The server's name.
        server: String,
        /// The extension (and setting) needed.
        extension: String,
        /// The method that was not sent.
        method: String,
    },

    /// Parameters or results could not be (de)serialized.
    #[error("{context}: {source}")]
    Json {
        /// What was being (de)serialized.
        context: String,
        /// The serde error.
        #[source]
        source: serde_json::Error,
    },
}

impl Error {
    /// The JSON-RPC error object, when the server answered with one.
    pub fn rpc_error(&self) -> Option<&mcp_jsonrpc::ErrorObject> {
        match self {
            Error::Rpc { error, .. } => Some(error),
            _ => None,
        }
    }

    /// Why authorization failed, when that is the error.
    #[cfg(feature = "oauth")]
    pub fn auth_error(&self) -> Option<&crate::auth::AuthError> {
        match self {
            Error::Unauthorized { source, .. } => source.downcast_ref(),
            Error::Connection { source, .. } => source.unauthorized()?.downcast_ref(),
            _ => None,
        }
    }

    /// True when the trust policy refused the connection.
    pub fn is_refused(&self) -> bool {
        matches!(self, Error::Refused(_))
    }
}

/// `; the server exited (exit status: 1); its last stderr lines:` and the lines, indented.
fn exit_details(status: Option<&str>, stderr_tail: &[String]) -> String {
    let mut text = match status {
        Some(status) => format!("; the server exited ({status})"),
        None => String::new(),
    };
    if !stderr_tail.is_empty() {
        text.push_str("; its last stderr lines:");
        for line in stderr_tail {
            text.push_str("\n  | ");
            text.push_str(line);
        }
    }
    text
}
