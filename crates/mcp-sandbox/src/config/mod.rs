//! The sandbox's settings: the `[sandbox]` table of the TOML file, then the `MSB_*`
//! environment variables of seed 004's wrapper (which override the file). Where to listen,
//! CORS and authentication are the server's settings (`[server]`, `[http]`, `[auth]`,
//! `MCP_SERVER_HOST`, `MCP_SERVER_PORT`, `MCP_ENABLE_CORS`, … see `mcp_server::ServerConfig`).

mod fields;
mod volume;

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use self::fields::FIELDS;
pub use self::volume::{VolumeError, parse_volumes, resolve_volumes};
use crate::backend::{Limits, Network};
use crate::flavor::Flavor;

/// The sandbox's settings; [`SandboxConfig::default`] is what an empty file and environment
/// give.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SandboxConfig {
    /// A session unused this long is stopped (default 1,800 s).
    pub session_timeout: Duration,
    /// How often idle sessions are looked for (default 60 s).
    pub cleanup_interval: Duration,
    /// The most sessions at once (default 10); at the cap, the least recently used idle
    /// session makes room.
    pub max_sessions: usize,
    /// The flavor of sessions created without one (default `small`).
    pub default_flavor: Flavor,
    /// An execution's time limit when the call gives none (default 300 s).
    pub execution_timeout: Duration,
    /// The longest time limit a call may ask for (default 1,800 s).
    pub max_execution_timeout: Duration,
    /// Every session's memory together, in MiB (default: no cap beyond the host's).
    pub max_total_memory_mb: Option<u64>,
    /// Host directories mounted into every session (`host:sandbox[:ro]`).
    pub volumes: Vec<String>,
    /// Network access from sessions (default none: loopback only).
    pub network: Network,
    /// Output kept per stream and execution, in bytes (default 1 MiB).
    pub max_output_bytes: usize,
    /// The largest file code may write, in bytes (default 1 GiB).
    pub max_file_size: u64,
    /// Processes and threads per session (default 256).
    pub max_processes: u32,
    /// Open files per process (default 1,024).
    pub max_open_files: u64,
    /// Size of each session's private `/tmp`, in bytes (default 256 MiB).
    pub tmp_size: u64,
    /// How long an interpreter may take to start (default 10 s).
    pub start_timeout: Duration,
    /// Sandboxes of the default flavor kept started per template, so that a new session
    /// does not wait for one (default 1; 0: none).
    pub pool_size: usize,
    /// Where session workspaces live (default: a new directory in the system's temporary
    /// directory, removed at shutdown).
    pub workspace_root: Option<PathBuf>,
    /// The bubblewrap binary (default: `bwrap` on `PATH`).
    pub bwrap: Option<PathBuf>,
    /// The Python interpreter (default: `python3` in the system directories).
    pub python: Option<PathBuf>,
    /// The Node.js interpreter (default: `node` in the system directories).
    pub node: Option<PathBuf>,
    /// Limit with rlimits even where cgroups are writable (default false).
    pub rlimits_only: bool,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        Self {
            session_timeout: Duration::from_secs(1800),
            cleanup_interval: Duration::from_secs(60),
            max_sessions: 10,
            default_flavor: Flavor::Small,
            execution_timeout: Duration::from_secs(300),
            max_execution_timeout: Duration::from_secs(1800),
            max_total_memory_mb: None,
            volumes: Vec::new(),
            network: Network::None,
            max_output_bytes: 1 << 20,
            max_file_size: 1 << 30,
            max_processes: 256,
            max_open_files: 1024,
            tmp_size: 256 << 20,
            start_timeout: Duration::from_secs(10),
            pool_size: 1,
            workspace_root: None,
            bwrap: None,
            python: None,
            node: None,
            rlimits_only: false,
        }
    }
}

/// A setting that cannot be used: which file or variable, which key, what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct SandboxConfigError {
    /// The file, when the problem is in one.
    pub file: Option<String>,
    /// The key (`sandbox.max_sessions`) or variable (`MSB_MAX_SESSIONS`).
    pub field: String,
    /// What is wrong.
    pub problem: String,
}

impl fmt::Display for SandboxConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{file}: ")?;
        }
        write!(f, "{}: {}", self.field, self.problem)
    }
}

impl SandboxConfig {
    /// Applies the `[sandbox]` table of a TOML file (`file` names it in errors).
    ///
    /// # Errors
    /// A key is unknown or its value invalid (the message names `sandbox.KEY`).
    pub fn with_table(
        mut self,
        table: &toml::Table,
        file: Option<&Path>,
    ) -> Result<Self, SandboxConfigError> {
        let file = file.map(|p| p.display().to_string());
        for (key, value) in table {
            let error = |problem: String| SandboxConfigError {
                file: file.clone(),
                field: format!("sandbox.{key}"),
                problem,
            };
            let field = fields::by_key(key).ok_or_else(|| error(fields::unknown_key(key)))?;
            let text = fields::toml_text(value).map_err(&error)?;
            (field.set)(&mut self, &text).map_err(error)?;
        }
        Ok(self)
    }

    /// Applies the `MSB_*` variables of this process's environment.
    ///
    /// # Errors
    /// A variable's value is invalid or not UTF-8 (the message names the variable).
    pub fn with_env(self) -> Result<Self, SandboxConfigError> {
        let mut vars = Vec::new();
        for field in FIELDS {
            match std::env::var(field.var) {
                Ok(value) => vars.push((field.var, value)),
                Err(std::env::VarError::NotPresent) => {}
                Err(std::env::VarError::NotUnicode(_)) => {
                    return Err(SandboxConfigError {
                        file: None,
                        field: field.var.to_owned(),
                        problem: "not valid UTF-8".to_owned(),
                    });
                }
            }
        }
        self.with_vars(vars)
    }

    /// Applies the given variables (name, value) as if they were the environment; other
    /// names are ignored, empty values count as unset.
    ///
    /// ```
    /// use mcp_sandbox::SandboxConfig;
    /// let config = SandboxConfig::default()
    ///     .with_vars([("MSB_MAX_SESSIONS", "3"), ("MSB_DEFAULT_FLAVOR", "medium")])
    ///     .unwrap();
    /// assert_eq!(config.max_sessions, 3);
    /// let error = SandboxConfig::default().with_vars([("MSB_SESSION_TIMEOUT", "soon")]);
    /// assert!(error.unwrap_err().to_string().starts_with("MSB_SESSION_TIMEOUT: invalid value"));
    /// ```
    ///
    /// # Errors
    /// A value is invalid (the message names the variable).
    pub fn with_vars<I, K, V>(mut self, vars: I) -> Result<Self, SandboxConfigError>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        for (name, value) in vars {
            let (name, value) = (name.as_ref(), value.as_ref());
            let Some(field) = FIELDS.iter().find(|f| f.var == name) else {
                continue;
            };
            if value.trim().is_empty() {
                continue;
            }
            (field.set)(&mut self, value).map_err(|problem| SandboxConfigError {
                file: None,
                field: name.to_owned(),
                problem,
            })?;
        }
        Ok(self)
    }

    /// The limits of a session of `flavor`.
    pub fn limits(&self, flavor: Flavor) -> Limits {
        Limits {
            memory_bytes: flavor.memory_bytes(),
            cpus: flavor.cpus(),
            processes: self.max_processes,
            file_size_bytes: self.max_file_size,
            open_files: self.max_open_files,
            tmp_bytes: self.tmp_size,
        }
    }
}
