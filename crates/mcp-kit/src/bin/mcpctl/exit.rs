//! Exit codes, and how a failure is reported on stderr.

use std::fmt;
use std::io::Write;

use mcp_kit::{ConfigError, PolicyError};

use crate::output::sanitize;

/// The exit codes of `mcpctl` (documented in docs/cli.md and in `--help`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Exit {
    /// 0: the command succeeded.
    Success = 0,
    /// 1: the server or the tool failed: a JSON-RPC error, a tool result with `isError: true`,
    /// an answer that does not follow the protocol.
    Server = 1,
    /// 2: usage or configuration error: bad flags or arguments (clap's own code for them), an
    /// invalid or missing configuration, an unknown server, a missing environment variable.
    Usage = 2,
    /// 3: refused by the trust policy ([`mcp_kit::Error::Refused`], and `stdout_log.path`
    /// outside the root).
    Refused = 3,
    /// 4: the connection failed (spawn, connect, I/O, closed) or a request timed out.
    Connection = 4,
    /// 5: the server requires authorization that mcpctl could not obtain: not logged in
    /// (`mcpctl login SERVER`), or the OAuth flow failed.
    Unauthorized = 5,
    /// 130: interrupted by Ctrl-C (SIGINT), after cancelling the request in flight (the
    /// shells' 128 + SIGINT).
    Interrupted = 130,
}

impl Exit {
    /// The process exit code.
    pub(crate) fn code(self) -> u8 {
        self as u8
    }
}

/// A failure of `mcpctl` itself (not of the library), with the exit code it ends with.
#[derive(Debug)]
pub(crate) struct Failure {
    /// The exit code.
    pub(crate) exit: Exit,
    /// The message, printed after `mcpctl: `.
    pub(crate) message: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// A usage error (exit code 2): bad arguments, unreadable input files.
pub(crate) fn usage(message: impl Into<String>) -> anyhow::Error {
    Failure {
        exit: Exit::Usage,
        message: message.into(),
    }
    .into()
}

/// A server or tool failure (exit code 1).
pub(crate) fn server_failure(message: impl Into<String>) -> anyhow::Error {
    Failure {
        exit: Exit::Server,
        message: message.into(),
    }
    .into()
}

/// The exit code of a library error.
fn of_library_error(error: &mcp_kit::Error) -> Exit {
    use mcp_kit::Error as E;
    match error {
        E::Refused(_) | E::StdoutLogOutsideRoot { .. } => Exit::Refused,
        E::Config(_) | E::UnknownServer(_) | E::MissingEnvVar { .. } => Exit::Usage,
        E::Connection { .. } | E::Timeout { .. } | E::ServerExited { .. } => Exit::Connection,
        E::Rpc { .. } | E::Protocol { .. } | E::Json { .. } => Exit::Server,
        // A URL of the flow that the trust policy refused is a refusal like any other.
        E::Unauthorized { .. } => match error.auth_error() {
            Some(mcp_kit::auth::AuthError::Policy(_)) => Exit::Refused,
            _ => Exit::Unauthorized,
        },
        // A kind added to the library later: a server-side failure until classified.
        _ => Exit::Server,
    }
}

/// The exit code an error ends `mcpctl` with: the first error of the chain that has one.
pub(crate) fn classify(error: &anyhow::Error) -> Exit {
    for cause in error.chain() {
        if let Some(failure) = cause.downcast_ref::<Failure>() {
            return failure.exit;
        }
        if let Some(error) = cause.downcast_ref::<mcp_kit::Error>() {
            return of_library_error(error);
        }
        if cause.downcast_ref::<ConfigError>().is_some() {
            return Exit::Usage;
        }
        if cause.downcast_ref::<PolicyError>().is_some() {
            return Exit::Refused;
        }
    }
    Exit::Server
}

/// The report of an error: `mcpctl: <message>`, then each cause of the chain that the
/// message does not already contain, then the data of a JSON-RPC error.
pub(crate) fn render(error: &anyhow::Error) -> String {
    let mut report = format!(
        "mcpctl: {}",
        mcp_kit::terminal::error_messages(error.as_ref()).join("\n  caused by: ")
    );
    let data = error
        .chain()
        .find_map(|cause| cause.downcast_ref::<mcp_kit::Error>())
        .and_then(mcp_kit::Error::rpc_error)
        .and_then(|rpc| rpc.data.as_ref());
    if let Some(data) = data {
        report.push_str("\n  error data: ");
        report.push_str(&data.to_string());
    }
    if classify(error) == Exit::Refused {
        report.push_str(
            "\n  hint: `mcpctl trust` trusts this configuration until it changes; a URL or a \
             command after `--` typed on the command line is trusted as it is",
        );
    }
    sanitize(&report)
}

/// Prints the report of `error` on stderr and returns its exit code.
pub(crate) fn report(error: &anyhow::Error) -> Exit {
    let exit = classify(error);
    let mut stderr = std::io::stderr().lock();
    // Nothing better to do when stderr itself fails.
    let _ = writeln!(stderr, "{}", render(error));
    exit
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causes_already_in_the_message_are_not_repeated() {
        #[derive(Debug)]
        struct Outer(std::io::Error);
        impl fmt::Display for Outer {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "outer: {}", self.0)
            }
        }
        impl std::error::Error for Outer {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let error = anyhow::Error::new(Outer(std::io::Error::other("inner")));
        assert_eq!(render(&error), "mcpctl: outer: inner");
        let error = anyhow::Error::new(std::io::Error::other("inner")).context("while testing");
        assert_eq!(render(&error), "mcpctl: while testing\n  caused by: inner");
    }

    #[test]
    fn exit_codes() {
        assert_eq!(classify(&usage("x")), Exit::Usage);
        assert_eq!(classify(&server_failure("x").context("c")), Exit::Server);
        let unknown = anyhow::Error::new(mcp_kit::Error::UnknownServer("s".into()));
        assert_eq!(classify(&unknown), Exit::Usage);
        let timeout = anyhow::Error::new(mcp_kit::Error::Timeout {
            method: "ping".into(),
            timeout: std::time::Duration::from_secs(1),
        });
        assert_eq!(classify(&timeout), Exit::Connection);
        assert_eq!(classify(&anyhow::anyhow!("other")), Exit::Server);
    }
}
