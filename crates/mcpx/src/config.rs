//! Finding and loading the configuration: which file, whether it is trusted, its servers
//! (every format `mcp-kit` reads) and the proxy's own `mcpx` object.
//!
//! - A file named by the operator (`--config`, `MCPX_CONFIG`) is the operator's own, as
//!   Claude Desktop treats its configuration: trusted (stdio servers are spawned, `${VAR}`
//!   placeholders expanded).
//! - Otherwise `./mcpx.json`, then `mcp-kit`'s lookup (`./.mcp.json`, `./mcp.json`,
//!   `./.cursor/mcp.json`, `./.vscode/mcp.json`): a file that merely lies in the working
//!   directory is untrusted (`mcp-kit`'s policy and messages)
//!   unless the operator says `--trust`.
//!
//! Changes to the file take effect on restart.

use std::path::{Path, PathBuf};

use mcp_kit::config::DISCOVERED_FILES;
use mcp_kit::{Config, ConfigError, SkipReason, TrustMode};

use crate::options::{CONFIG_KEY, OptionsError, ProxyOptions};

/// The file looked up first in the working directory.
pub const DEFAULT_FILE: &str = "mcpx.json";

/// A loaded configuration.
#[derive(Debug, Clone)]
pub struct ProxyConfig {
    /// The servers (and the file they came from, `servers.path`).
    pub servers: Config,
    /// The proxy's options, the environment applied.
    pub options: ProxyOptions,
    /// Trusted when named by the operator (or `--trust`), untrusted when found by lookup.
    pub trust: TrustMode,
}

/// Why the configuration could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The servers part (missing file, bad JSON with line and column, bad structure).
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The file named with `--config` / `MCPX_CONFIG` does not exist.
    #[error("configuration not found: {} (named with --config or MCPX_CONFIG)", path.display())]
    Missing {
        /// The path, resolved against the working directory.
        path: PathBuf,
    },
    /// The `mcpx` object.
    #[error("invalid mcpx options in {}: {error}", path.display())]
    Options {
        /// The file.
        path: PathBuf,
        /// What is wrong, naming the key.
        error: OptionsError,
    },
    /// An `MCPX_*` environment variable.
    #[error("invalid environment variable {error}")]
    Env {
        /// What is wrong, naming the variable.
        error: OptionsError,
    },
    /// No file named, none found.
    #[error(
        "no configuration found: looked for {DEFAULT_FILE}, {} in {} (name one with --config \
         PATH or MCPX_CONFIG)",
        DISCOVERED_FILES.join(", "),
        dir.display()
    )]
    NotFound {
        /// The working directory searched.
        dir: PathBuf,
    },
    /// A file without servers: none configured, or every entry skipped (each invalid one's
    /// error is the message then).
    #[error("{}", no_servers(path, skipped))]
    NoServers {
        /// The file.
        path: PathBuf,
        /// Why each entry was skipped.
        skipped: Vec<String>,
    },
}

/// The message of [`LoadError::NoServers`].
fn no_servers(path: &std::path::Path, skipped: &[String]) -> String {
    if skipped.is_empty() {
        format!(
            "{} configures no servers: add some under \"mcpServers\" (or \"servers\")",
            path.display()
        )
    } else {
        skipped.join("; ")
    }
}

/// Loads the configuration: `explicit` (from `--config` / `MCPX_CONFIG`; relative to `cwd`)
/// trusted, else `mcpx.json`, then mcp-kit's lookup (`DISCOVERED_FILES`) in `cwd`, trusted only
/// when `trust` is set. `env` is the environment (`std::env::vars()`); its `MCPX_*` options
/// override the file's.
///
/// # Errors
/// A [`LoadError`] naming the file and what is wrong in it.
pub async fn load(
    explicit: Option<PathBuf>,
    cwd: &Path,
    trust: bool,
    env: impl IntoIterator<Item = (String, String)>,
) -> Result<ProxyConfig, LoadError> {
    let named = explicit.is_some();
    let path = match explicit {
        Some(path) => Some(path),
        None => tokio::fs::try_exists(cwd.join(DEFAULT_FILE))
            .await
            .unwrap_or(false)
            .then(|| PathBuf::from(DEFAULT_FILE)),
    };
    let (servers, own) = Config::load_with_extension(cwd, path, Some(CONFIG_KEY))
        .await
        .map_err(|e| match e {
            ConfigError::NotFound {
                path,
                referenced_by: None,
            } if named => LoadError::Missing { path },
            other => LoadError::Config(other),
        })?;
    let Some(file) = servers.path.clone() else {
        return Err(LoadError::NotFound {
            dir: cwd.to_path_buf(),
        });
    };
    if servers.servers.is_empty() {
        let skipped = servers
            .skipped
            .iter()
            .map(|entry| match &entry.reason {
                SkipReason::Invalid(error) => error.clone(),
                SkipReason::Disabled => format!("server `{}` is {}", entry.name, entry.reason),
            })
            .collect();
        return Err(LoadError::NoServers {
            path: file,
            skipped,
        });
    }
    let names: Vec<&str> = servers.servers.keys().map(String::as_str).collect();
    let mut options = match &own {
        Some(value) => {
            ProxyOptions::from_json(value, &names).map_err(|error| LoadError::Options {
                path: file.clone(),
                error,
            })?
        }
        None => ProxyOptions::default(),
    };
    options
        .apply_env(env.into_iter().filter(|(k, _)| k.starts_with("MCPX_")))
        .map_err(|error| LoadError::Env { error })?;
    let trust = if named || trust {
        TrustMode::Trusted
    } else {
        TrustMode::Untrusted
    };
    Ok(ProxyConfig {
        servers,
        options,
        trust,
    })
}
