//! `mcpctl trust` / `mcpctl untrust`: configurations the user trusts, remembered per
//! workspace root with the SHA-256 of what the file configures (its servers and client
//! section, as loaded), so that an edited file (a pull, a branch switch, a change of someone
//! else's) is untrusted again until trusted anew. Hashing the loaded configuration rather than
//! the file's bytes means what is checked is exactly what runs (no window between reading the
//! file twice), a file it points to (`"mcpServers": "<path>"`) included; a new mcpctl version
//! may describe a configuration differently and ask for trust again.
//!
//! One JSON file, `$MCPCTL_CONFIG_DIR/trusted.json` (default `$XDG_CONFIG_HOME/mcpctl`, else
//! `~/.config/mcpctl`), written atomically with mode 0600 ([`state_files`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use mcp_kit::Config;
use mcp_kit::config::DISCOVERED_FILES;

use crate::exit::usage;
use crate::output::write_stdout;
use crate::state_files;

/// The store's file name in its directory.
const FILE: &str = "trusted.json";

/// One trusted configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Trusted {
    /// The SHA-256 of the file's content when it was trusted, in hex.
    pub(crate) sha256: String,
}

/// The store: `"<root>\n<config path>"` → what was trusted.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Store {
    trusted: BTreeMap<String, Trusted>,
}

/// What the store says of a configuration file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Trusted, and unchanged since.
    Trusted,
    /// Trusted once, but its content changed since.
    Changed,
    /// Never trusted (or untrusted since).
    Unknown,
}

/// The store's file.
pub(crate) fn file() -> anyhow::Result<PathBuf> {
    state_files::user_dir("MCPCTL_CONFIG_DIR", "XDG_CONFIG_HOME", ".config")
        .map(|dir| dir.join(FILE))
        .ok_or_else(|| {
            anyhow::anyhow!("no place for the trust store: set HOME or MCPCTL_CONFIG_DIR")
        })
}

/// The SHA-256, in hex, of what `config` configures: its format, client section and servers.
pub(crate) fn digest(config: &mcp_kit::Config) -> String {
    let described = format!(
        "{:?}\n{:?}\n{:?}",
        config.format, config.client, config.servers
    );
    Sha256::digest(described.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn key(root: &Path, config: &Path) -> String {
    format!("{}\n{}", root.display(), config.display())
}

/// What the store at `file` says of `config` used from `root`, whose content hashes to
/// `sha256`.
pub(crate) fn verdict(file: &Path, root: &Path, config: &Path, sha256: &str) -> Verdict {
    match state_files::read::<Store>(file)
        .trusted
        .get(&key(root, config))
    {
        Some(trusted) if trusted.sha256 == sha256 => Verdict::Trusted,
        Some(_) => Verdict::Changed,
        None => Verdict::Unknown,
    }
}

/// Trusts `config` (with content `sha256`) when used from `root`.
pub(crate) fn trust(file: &Path, root: &Path, config: &Path, sha256: &str) -> anyhow::Result<()> {
    let mut store: Store = state_files::read(file);
    store.trusted.insert(
        key(root, config),
        Trusted {
            sha256: sha256.to_owned(),
        },
    );
    Ok(state_files::write(file, &store)?)
}

/// Forgets `config` used from `root`; whether it was trusted.
pub(crate) fn untrust(file: &Path, root: &Path, config: &Path) -> anyhow::Result<bool> {
    let mut store: Store = state_files::read(file);
    let removed = store.trusted.remove(&key(root, config)).is_some();
    if removed {
        state_files::write(file, &store)?;
    }
    Ok(removed)
}

/// `mcpctl trust` (`trusting`) and `mcpctl untrust`: records or forgets the user's trust in the
/// configuration found from `root`.
pub(crate) fn remember(config: &Config, root: &Path, trusting: bool) -> anyhow::Result<()> {
    let Some(path) = &config.path else {
        return Err(usage(format!(
            "no configuration file found in {} (looked for {}): nothing to {}",
            root.display(),
            DISCOVERED_FILES.join(", "),
            if trusting { "trust" } else { "untrust" }
        )));
    };
    let (root, path) = trust_identity(root, path);
    let store = file()?;
    let message = if trusting {
        trust(&store, &root, &path, &digest(config))?;
        format!(
            "trusted {} for {}: its stdio servers start and its placeholders expand without              --trust, until it changes (mcpctl untrust to undo)",
            path.display(),
            root.display()
        )
    } else if untrust(&store, &root, &path)? {
        format!(
            "{} is no longer trusted for {}",
            path.display(),
            root.display()
        )
    } else {
        format!("{} was not trusted for {}", path.display(), root.display())
    };
    write_stdout(&message)
}

/// Whether the user trusted this configuration with `mcpctl trust` and it has not changed
/// since; a changed one is reported on stderr.
pub(crate) fn trusted_by_the_user(config: &Config, root: &Path) -> bool {
    let (Some(path), Ok(store)) = (&config.path, file()) else {
        return false;
    };
    let (root, path) = trust_identity(root, path);
    match verdict(&store, &root, &path, &digest(config)) {
        Verdict::Trusted => true,
        Verdict::Changed => {
            eprintln!(
                "mcpctl: {} changed since you trusted it: untrusted now (review it, then                  mcpctl trust again)",
                path.display()
            );
            false
        }
        Verdict::Unknown => false,
    }
}

/// The root and configuration path as the trust store names them (canonical when possible).
fn trust_identity(root: &Path, path: &Path) -> (PathBuf, PathBuf) {
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    (canonical(root), canonical(path))
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn a_trusted_file_is_untrusted_again_once_edited() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("store").join(FILE);
        let root = dir.path();
        let config = dir.path().join(".mcp.json");
        let loaded = |text: &str| {
            std::fs::write(&config, text).unwrap();
            let runtime = tokio::runtime::Builder::new_current_thread()
                .build()
                .unwrap();
            runtime.block_on(mcp_kit::Config::load(root, None)).unwrap()
        };
        let sha = digest(&loaded(r#"{"version": 1, "servers": {}}"#));
        assert_eq!(sha.len(), 64);
        assert_eq!(verdict(&store, root, &config, &sha), Verdict::Unknown);
        trust(&store, root, &config, &sha).unwrap();
        assert_eq!(verdict(&store, root, &config, &sha), Verdict::Trusted);
        let mode = std::fs::metadata(&store).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        // Another root is another decision.
        assert_eq!(
            verdict(&store, Path::new("/elsewhere"), &config, &sha),
            Verdict::Unknown
        );
        // Spacing is not configuration; a server is.
        let spaced = digest(&loaded(r#"{ "version": 1,  "servers": { } }"#));
        assert_eq!(verdict(&store, root, &config, &spaced), Verdict::Trusted);
        let edited = digest(&loaded(
            r#"{"version": 1, "servers": {"x": {"transport": "stdio", "argv": ["evil"]}}}"#,
        ));
        assert_eq!(verdict(&store, root, &config, &edited), Verdict::Changed);
        assert!(untrust(&store, root, &config).unwrap());
        assert!(!untrust(&store, root, &config).unwrap());
        assert_eq!(verdict(&store, root, &config, &sha), Verdict::Unknown);
    }
}
