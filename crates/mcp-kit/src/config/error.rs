//! Errors of loading a configuration and of expanding its `${VAR}` placeholders.

use std::fmt;
use std::path::{Path, PathBuf};

/// A configuration could not be loaded, or one of its placeholders could not be expanded.
///
/// Every message starts with what went wrong (using the wording of the troubleshooting guide
/// where it has one, e.g. `mcp config too large`), names the file, server and field involved,
/// and ends with a hint how to fix it. Text taken from the file is escaped, so a hostile
/// configuration cannot inject control characters into a terminal through an error message;
/// values (which may hold secrets) are never quoted.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file (an explicit override, or the target of an `"mcpServers": "<path>"`
    /// indirection) does not exist.
    #[error("mcp config not found: {}{}", path.display(), NotFoundHint(referenced_by.as_deref()))]
    NotFound {
        /// The path that was looked up.
        path: PathBuf,
        /// The configuration file whose `mcpServers` string pointed here (`None` for an
        /// explicit override path).
        referenced_by: Option<PathBuf>,
    },

    /// The file could not be inspected or read.
    #[error(
        "failed to read mcp config {}: {source} (check that the file exists and is readable)",
        path.display()
    )]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },

    /// The file is larger than [`MAX_CONFIG_BYTES`](super::MAX_CONFIG_BYTES) (4 MiB).
    #[error(
        "mcp config too large: {} is over the limit of {limit} bytes (4 MiB); remove unrelated \
         content from it (a file referenced by `\"mcpServers\": \"<path>\"` must fit the limit \
         too)",
        path.display()
    )]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The limit, in bytes.
        limit: u64,
    },

    /// The path is not a regular file: a symlink, a directory, a fifo, a socket or a device (or
    /// it was replaced while it was being opened).
    #[error(
        "mcp config must be a regular file: {} is a {kind} (use a regular file in its place; \
         symlinks are refused even when they point to a regular file)",
        path.display()
    )]
    NotRegularFile {
        /// The path.
        path: PathBuf,
        /// What it is instead: `symlink`, `directory`, `fifo`, `socket`, `block device`,
        /// `character device`, `special file`, or `file that was replaced while it was being
        /// opened`.
        kind: &'static str,
    },

    /// The file is not valid JSON (syntax error, duplicate key, bad encoding).
    #[error(
        "invalid mcp.json {}: {source} (the file must be a single JSON object)",
        path.display()
    )]
    Json {
        /// The file.
        path: PathBuf,
        /// The parser's error, with line and column.
        #[source]
        source: serde_json::Error,
    },

    /// The file has `"version"` (and no `mcpServers`) but the version is not `1`.
    #[error(
        "unsupported mcp.json version {version} (expected 1): {} (set the top-level \"version\" \
         to 1; this release reads mcp.json v1 only)",
        path.display()
    )]
    UnsupportedVersion {
        /// The file.
        path: PathBuf,
        /// The version found, rendered as JSON (`2`, `"1"`, `null`, …).
        version: String,
    },

    /// A server name is empty or has a character outside `[a-zA-Z0-9_-]`.
    #[error(
        "invalid mcp server name: `{}` in {} (names may only use [a-zA-Z0-9_-] and must not be \
         empty; rename the key, e.g. `my-server_1`)",
        name.escape_debug(),
        path.display()
    )]
    InvalidServerName {
        /// The file.
        path: PathBuf,
        /// The offending name.
        name: String,
    },

    /// The file is a JSON object but neither mcp.json v1 (no `version`) nor one of the
    /// compatible formats.
    #[error(
        "invalid mcp.json {}: missing field `version`, and the file is not a recognized \
         compatible format (write an mcp.json v1 file: {{\"version\": 1, \"servers\": {{…}}}}; \
         or use {{\"mcpServers\": {{…}}}}, a server map {{\"<name>\": {{\"command\": …}}}} or \
         VS Code's {{\"servers\": {{…}}}})",
        path.display()
    )]
    UnrecognizedFormat {
        /// The file.
        path: PathBuf,
    },

    /// The content does not follow the schema: an unknown field (v1), a field of another
    /// transport, a missing field, a wrong type or an invalid value.
    #[error("invalid mcp.json {}: {}{message}", path.display(), At(at))]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Where in the file, as a JSON path: `servers.<name>`, `client.roots[0]`,
        /// `mcpServers.<name>`, … (empty for the top level).
        at: String,
        /// What is wrong, naming the field, and how to fix it.
        message: String,
    },

    /// An `"mcpServers": "<path>"` indirection resolves (through a symlink) to a file outside
    /// the root.
    #[error(
        "invalid mcp.json {}: `mcpServers` path `{}` resolves to {}, outside the root {} (point \
         it at a file under the root; symlinks may not lead out of it)",
        path.display(),
        reference.escape_debug(),
        resolved.display(),
        root.display()
    )]
    OutsideRoot {
        /// The file holding the `mcpServers` string.
        path: PathBuf,
        /// The string as written.
        reference: String,
        /// Where it resolves to (canonicalized).
        resolved: PathBuf,
        /// The root (canonicalized).
        root: PathBuf,
    },

    /// A `${NAME}` placeholder names an environment variable that is not set.
    #[error(
        "environment variable `{}` is not set (referenced as `${{{}}}`{} in the mcp config; set \
         it before starting the client, or remove the placeholder)",
        name.escape_debug(),
        name.escape_debug(),
        InField(field.as_deref())
    )]
    UnsetVariable {
        /// The variable's name.
        name: String,
        /// The field holding the placeholder (`argv[1]`, `env.KEY`, `url`, `http_headers.X`;
        /// `None` when [`expand_placeholders`](super::expand_placeholders) was called directly).
        field: Option<String>,
    },

    /// A `${` without its closing `}`.
    #[error(
        "unterminated `${{` placeholder{} in the mcp config (close it with `}}`; a `$` not \
         followed by `{{` is kept as is)",
        InField(field.as_deref())
    )]
    UnterminatedPlaceholder {
        /// The field holding the placeholder (see [`ConfigError::UnsetVariable`]).
        field: Option<String>,
    },

    /// A `${input:ID}` placeholder (VS Code's `inputs`) without a value.
    #[error(
        "input `{}` has no value (referenced as `${{input:{}}}`{} in the mcp config; give it \
         with Manager::with_inputs, or `mcpctl --input {}=VALUE`)",
        id.escape_debug(),
        id.escape_debug(),
        InField(field.as_deref()),
        id.escape_debug()
    )]
    MissingInput {
        /// The input's id.
        id: String,
        /// The field holding the placeholder (see [`ConfigError::UnsetVariable`]).
        field: Option<String>,
    },

    /// A stdio server's `envFile` cannot be read or is not a valid dotenv file.
    #[error("cannot read the envFile {}: {reason}", path.display())]
    EnvFile {
        /// The file, resolved against the root.
        path: PathBuf,
        /// Why (the values are never quoted).
        reason: String,
    },

    /// A placeholder that cannot be expanded: an empty or invalid variable name, a variable
    /// whose value is not UTF-8, or a root path that is not UTF-8.
    #[error(
        "invalid placeholder `${{{}}}`{} in the mcp config: {reason}",
        placeholder.escape_debug(),
        InField(field.as_deref())
    )]
    InvalidPlaceholder {
        /// The text between `${` and `}`.
        placeholder: String,
        /// The field holding the placeholder (see [`ConfigError::UnsetVariable`]).
        field: Option<String>,
        /// Why, and how to fix it.
        reason: String,
    },
}

impl ConfigError {
    /// The configuration file the error is about, when there is one.
    #[must_use]
    pub fn path(&self) -> Option<&Path> {
        match self {
            ConfigError::NotFound { path, .. }
            | ConfigError::Io { path, .. }
            | ConfigError::TooLarge { path, .. }
            | ConfigError::NotRegularFile { path, .. }
            | ConfigError::Json { path, .. }
            | ConfigError::UnsupportedVersion { path, .. }
            | ConfigError::InvalidServerName { path, .. }
            | ConfigError::UnrecognizedFormat { path }
            | ConfigError::Invalid { path, .. }
            | ConfigError::OutsideRoot { path, .. } => Some(path),
            ConfigError::UnsetVariable { .. }
            | ConfigError::MissingInput { .. }
            | ConfigError::EnvFile { .. }
            | ConfigError::UnterminatedPlaceholder { .. }
            | ConfigError::InvalidPlaceholder { .. } => None,
        }
    }

    /// Sets the field of a placeholder error that has none (used by
    /// [`ServerConfig::expanded`](super::ServerConfig::expanded)).
    pub(crate) fn in_field(mut self, name: impl FnOnce() -> String) -> Self {
        match &mut self {
            ConfigError::UnsetVariable { field, .. }
            | ConfigError::MissingInput { field, .. }
            | ConfigError::UnterminatedPlaceholder { field }
            | ConfigError::InvalidPlaceholder { field, .. }
                if field.is_none() =>
            {
                *field = Some(name());
            }
            _ => {}
        }
        self
    }
}

/// The hint of [`ConfigError::NotFound`].
struct NotFoundHint<'a>(Option<&'a Path>);

impl fmt::Display for NotFoundHint<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(by) => write!(
                f,
                " (referenced by `mcpServers` in {}; the path is relative to that file's \
                 directory: create the file or fix the path)",
                by.display()
            ),
            None => f.write_str(
                " (check the --config / override path: a relative path is resolved against the \
                 root; without an override, ./.mcp.json, ./mcp.json, ./.cursor/mcp.json and \
                 ./.vscode/mcp.json are looked up in that order and a \
                 missing file means no servers)",
            ),
        }
    }
}

/// `at: ` or nothing, for [`ConfigError::Invalid`].
struct At<'a>(&'a str);

impl fmt::Display for At<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            Ok(())
        } else {
            write!(f, "{}: ", self.0)
        }
    }
}

/// ` in <field>` or nothing, for the placeholder errors.
struct InField<'a>(Option<&'a str>);

impl fmt::Display for InField<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(field) => write!(f, " in `{}`", field.escape_debug()),
            None => Ok(()),
        }
    }
}
