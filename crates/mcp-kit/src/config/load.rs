//! Discovery, safe reading and format detection of configuration files.

use std::collections::BTreeMap;
use std::fs::{FileType, Metadata};
use std::io;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use tokio::fs;
use tokio::io::AsyncReadExt;

use super::compat::{self, Flavor};
use super::json::{self, Ctx, has_parent_dir, kind, quoted};
use super::{
    ClientConfig, Config, ConfigError, ConfigFormat, MAX_CONFIG_BYTES, ServerConfig, SkippedServer,
    v1,
};

/// The files [`Config::load`] looks up under the root, in order: Claude Code's and the
/// generic name, then Cursor's and VS Code's project files.
pub const DISCOVERED_FILES: [&str; 4] = [
    ".mcp.json",
    "mcp.json",
    ".cursor/mcp.json",
    ".vscode/mcp.json",
];

impl Config {
    /// Loads the configuration: `override_path` (absolute or relative to `root`), else
    /// the first of [`DISCOVERED_FILES`] under `root`, else an empty configuration
    /// ([`ConfigFormat::Empty`], no servers, `path: None`).
    ///
    /// - A missing override file is an error ([`ConfigError::NotFound`]); a discovered file
    ///   that exists but cannot be loaded is an error too (discovery does not fall through to
    ///   `mcp.json` then).
    /// - The file must be a regular file: a symlink, directory, fifo, socket or device is
    ///   refused ([`ConfigError::NotRegularFile`]), checked before opening and again on the
    ///   opened file (which must be the very file that was checked).
    /// - At most [`MAX_CONFIG_BYTES`] are read, even if the file grows meanwhile
    ///   ([`ConfigError::TooLarge`]).
    /// - The content is parsed as `mcp.json` v1 (strict) or one of the compatible formats
    ///   (best effort); see [`ConfigFormat`] for how each is recognized. An
    ///   `"mcpServers": "<path>"` string is followed once (relative to the file's directory,
    ///   without `..`, and its canonical path must stay under the canonical `root`).
    ///
    /// `${VAR}` placeholders are kept as written; see [`ServerConfig::expanded`].
    ///
    /// # Errors
    ///
    /// A [`ConfigError`] when the file is missing (override only), is not a regular file, is
    /// too large, cannot be read, is not JSON, or does not follow its format's schema.
    pub async fn load(root: &Path, override_path: Option<PathBuf>) -> Result<Config, ConfigError> {
        Ok(Self::load_with_extension(root, override_path, None)
            .await?
            .0)
    }

    /// [`Config::load`] for an application that keeps its own options in the same file: the
    /// top-level member `extension` (e.g. `"mcpx"`) is taken out before the format is
    /// recognized, so it is allowed in every format (even strict v1), and returned as written
    /// (`None` when absent or when `extension` is `None`).
    ///
    /// # Errors
    ///
    /// As [`Config::load`].
    pub async fn load_with_extension(
        root: &Path,
        override_path: Option<PathBuf>,
        extension: Option<&str>,
    ) -> Result<(Config, Option<Value>), ConfigError> {
        let root = if root.as_os_str().is_empty() {
            Path::new(".")
        } else {
            root
        };
        let path = match override_path {
            Some(path) if path.is_absolute() => path,
            Some(path) => root.join(path),
            None => match discover(root).await? {
                Some(path) => path,
                None => {
                    tracing::debug!(root = %root.display(), "no mcp config found: no servers");
                    let empty = Config {
                        path: None,
                        format: ConfigFormat::Empty,
                        ..Config::default()
                    };
                    return Ok((empty, None));
                }
            },
        };

        let bytes = read_config_file(&path, None).await?;
        let mut value = json::parse(&path, &bytes)?;
        let own = match (extension, value.as_object_mut()) {
            (Some(key), Some(top)) => top.remove(key),
            _ => None,
        };
        let (format, client, servers, skipped) = parse_document(root, &path, &value).await?;
        let inputs = match (format, value.get("inputs")) {
            (ConfigFormat::VsCode, Some(inputs)) => compat::inputs(Ctx { path: &path }, inputs),
            _ => Vec::new(),
        };
        tracing::debug!(
            path = %path.display(),
            ?format,
            servers = servers.len(),
            "loaded mcp config"
        );
        let config = Config {
            path: Some(path),
            format,
            client,
            servers,
            skipped,
            inputs,
        };
        Ok((config, own))
    }
}

/// The first of [`DISCOVERED_FILES`] that exists (as anything, even a dangling symlink) under
/// `root`. A `.cursor` or `.vscode` directory that is a symlink is passed over (with a
/// warning): it could lead out of the root.
async fn discover(root: &Path) -> Result<Option<PathBuf>, ConfigError> {
    for name in DISCOVERED_FILES {
        let candidate = root.join(name);
        if let Some((dir, _)) = name.split_once('/')
            && fs::symlink_metadata(root.join(dir))
                .await
                .is_ok_and(|m| m.file_type().is_symlink())
        {
            tracing::warn!(
                path = %candidate.display(),
                "not reading an mcp config through a symlinked directory"
            );
            continue;
        }
        match fs::symlink_metadata(&candidate).await {
            Ok(_) => return Ok(Some(candidate)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(source) => {
                return Err(ConfigError::Io {
                    path: candidate,
                    source,
                });
            }
        }
    }
    Ok(None)
}

/// Reads a configuration file: a regular file (not a symlink), at most [`MAX_CONFIG_BYTES`].
async fn read_config_file(
    path: &Path,
    referenced_by: Option<&Path>,
) -> Result<Vec<u8>, ConfigError> {
    let io_error = |source: io::Error| {
        if source.kind() == io::ErrorKind::NotFound {
            ConfigError::NotFound {
                path: path.to_path_buf(),
                referenced_by: referenced_by.map(Path::to_path_buf),
            }
        } else {
            ConfigError::Io {
                path: path.to_path_buf(),
                source,
            }
        }
    };
    let too_large = || ConfigError::TooLarge {
        path: path.to_path_buf(),
        limit: MAX_CONFIG_BYTES,
    };

    let before = fs::symlink_metadata(path).await.map_err(io_error)?;
    require_regular(path, before.file_type())?;
    if before.len() > MAX_CONFIG_BYTES {
        return Err(too_large());
    }

    // O_NOFOLLOW refuses a symlink swapped in after the check; O_NONBLOCK keeps a fifo swapped
    // in from blocking the open. The opened file must still be the regular file checked.
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .await
        .map_err(io_error)?;
    let opened = file.metadata().await.map_err(io_error)?;
    require_regular(path, opened.file_type())?;
    if !same_file(&before, &opened) {
        return Err(ConfigError::NotRegularFile {
            path: path.to_path_buf(),
            kind: "file that was replaced while it was being opened",
        });
    }

    let expected = opened.len().min(MAX_CONFIG_BYTES) + 1;
    let mut bytes = Vec::with_capacity(usize::try_from(expected).unwrap_or(0));
    file.take(MAX_CONFIG_BYTES + 1)
        .read_to_end(&mut bytes)
        .await
        .map_err(io_error)?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(too_large());
    }
    Ok(bytes)
}

/// Refuses anything but a regular file.
fn require_regular(path: &Path, file_type: FileType) -> Result<(), ConfigError> {
    if file_type.is_file() {
        return Ok(());
    }
    Err(ConfigError::NotRegularFile {
        path: path.to_path_buf(),
        kind: file_kind(file_type),
    })
}

/// What a non-regular file is, for [`ConfigError::NotRegularFile`].
fn file_kind(file_type: FileType) -> &'static str {
    if file_type.is_symlink() {
        return "symlink";
    }
    if file_type.is_dir() {
        return "directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "fifo";
        }
        if file_type.is_socket() {
            return "socket";
        }
        if file_type.is_block_device() {
            return "block device";
        }
        if file_type.is_char_device() {
            return "character device";
        }
    }
    "special file"
}

/// True when both are the same file (device and inode; always true off unix, where the
/// regular-file checks on both sides remain).
fn same_file(a: &Metadata, b: &Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        a.dev() == b.dev() && a.ino() == b.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        true
    }
}

/// A parsed document: its format, its `client` section (v1 only), its servers and the
/// entries skipped.
type Parsed = (
    ConfigFormat,
    ClientConfig,
    BTreeMap<String, ServerConfig>,
    Vec<SkippedServer>,
);

/// Recognizes the format and parses the document.
async fn parse_document(root: &Path, path: &Path, value: &Value) -> Result<Parsed, ConfigError> {
    let ctx = Ctx { path };
    let top = value.as_object().ok_or_else(|| {
        ctx.invalid(
            "",
            format!(
                "the top level must be a JSON object (e.g. {{\"version\": 1, \"servers\": {{}}}}), \
                 got {}",
                kind(value)
            ),
        )
    })?;

    if let Some(servers) = top.get("mcpServers") {
        let servers = match servers {
            Value::Object(map) => compat::servers(ctx, Flavor::McpServers, map),
            Value::String(reference) => indirect(root, path, reference).await?,
            other => {
                return Err(ctx.invalid(
                    "",
                    format!(
                        "`mcpServers` must be an object of servers or a relative path to a file \
                         holding them, got {}",
                        kind(other)
                    ),
                ));
            }
        };
        let (servers, skipped) = servers;
        return Ok((
            ConfigFormat::McpServers,
            ClientConfig::default(),
            servers,
            skipped,
        ));
    }

    if top.contains_key("version") {
        let parsed = v1::parse(ctx, top)?;
        return Ok((ConfigFormat::V1, parsed.client, parsed.servers, Vec::new()));
    }

    if let Some(servers) = top.get("servers") {
        let map = ctx.object("", "servers", servers)?;
        let (servers, skipped) = compat::servers(ctx, Flavor::VsCode, map);
        return Ok((
            ConfigFormat::VsCode,
            ClientConfig::default(),
            servers,
            skipped,
        ));
    }

    if !top.is_empty() && top.values().all(compat::looks_like_entry) {
        let (servers, skipped) = compat::servers(ctx, Flavor::ServerMap, top);
        return Ok((
            ConfigFormat::ClaudeServerMap,
            ClientConfig::default(),
            servers,
            skipped,
        ));
    }

    Err(ConfigError::UnrecognizedFormat {
        path: path.to_path_buf(),
    })
}

/// Follows `"mcpServers": "<reference>"` in `path` (one level) and parses the servers there.
async fn indirect(
    root: &Path,
    path: &Path,
    reference: &str,
) -> Result<compat::ServerMap, ConfigError> {
    let ctx = Ctx { path };
    let relative = Path::new(reference);
    if reference.is_empty() {
        return Err(ctx.invalid(
            "",
            "`mcpServers` path must not be empty (give a path relative to this file's \
             directory, e.g. \"./.mcp.json\")",
        ));
    }
    if relative.is_absolute() || relative.has_root() {
        return Err(ctx.invalid(
            "",
            format!(
                "`mcpServers` path {} must be relative to this file's directory, not absolute",
                quoted(reference)
            ),
        ));
    }
    if has_parent_dir(relative) {
        return Err(ctx.invalid(
            "",
            format!(
                "`mcpServers` path {} must not contain a `..` component (it must stay under \
                 the root)",
                quoted(reference)
            ),
        ));
    }

    let base = path.parent().unwrap_or(Path::new("."));
    let joined = base.join(relative);
    let canonical_root = fs::canonicalize(root)
        .await
        .map_err(|source| ConfigError::Io {
            path: root.to_path_buf(),
            source,
        })?;
    let resolved = fs::canonicalize(&joined).await.map_err(|source| {
        if source.kind() == io::ErrorKind::NotFound {
            ConfigError::NotFound {
                path: joined.clone(),
                referenced_by: Some(path.to_path_buf()),
            }
        } else {
            ConfigError::Io {
                path: joined.clone(),
                source,
            }
        }
    })?;
    if !resolved.starts_with(&canonical_root) {
        return Err(ConfigError::OutsideRoot {
            path: path.to_path_buf(),
            reference: reference.to_owned(),
            resolved,
            root: canonical_root,
        });
    }

    let bytes = read_config_file(&resolved, Some(path)).await?;
    let value = json::parse(&resolved, &bytes)?;
    let ctx = Ctx { path: &resolved };
    let referenced = "a file referenced by `mcpServers` must hold a server map \
                      ({\"<name>\": {\"command\": …}}) or an {\"mcpServers\": {…}} wrapper";
    let top = value
        .as_object()
        .ok_or_else(|| ctx.invalid("", format!("{referenced}, got {}", kind(&value))))?;

    match top.get("mcpServers") {
        Some(Value::Object(map)) => Ok(compat::servers(ctx, Flavor::McpServers, map)),
        Some(Value::String(_)) => Err(ctx.invalid(
            "",
            format!(
                "`mcpServers` is a path again, but only one level of indirection is followed \
                 (referenced by {}; put the servers themselves in this file)",
                path.display()
            ),
        )),
        Some(other) => Err(ctx.invalid(
            "",
            format!(
                "`mcpServers` must be an object of servers, got {}",
                kind(other)
            ),
        )),
        None => {
            if is_other_format(top) {
                return Err(ctx.invalid(
                    "",
                    format!("{referenced}; mcp.json v1 and VS Code files cannot be referenced"),
                ));
            }
            Ok(compat::servers(ctx, Flavor::ServerMap, top))
        }
    }
}

/// True for a v1 or VS Code document (rather than a server map with such server names).
fn is_other_format(top: &Map<String, Value>) -> bool {
    ["version", "servers"]
        .iter()
        .any(|key| top.get(*key).is_some_and(|v| !compat::looks_like_entry(v)))
}
