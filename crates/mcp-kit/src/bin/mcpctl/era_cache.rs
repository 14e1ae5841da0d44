//! The era each server spoke last time, remembered between runs, so that a legacy server is
//! greeted with `initialize` at once instead of the `server/discover` probe (the Python SDK's
//! FastMCP 1.x prints some ninety lines of validation errors for every probe).
//!
//! One small JSON file, `$MCPCTL_CACHE_DIR/eras.json` (default `$XDG_CACHE_HOME/mcpctl`, else
//! `~/.cache/mcpctl`), mapping a hash of the server's connection (its command and directory,
//! or its URL; never the command itself, which may hold secrets) to `"stateful"` or
//! `"stateless"`. A cache that cannot be read or written is ignored: it only saves a probe.

use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};

use mcp_kit::ServerConfig;
use mcp_kit::mcp::Era;

use crate::state_files;

/// The most servers remembered; the file is emptied when it would grow past this.
const MAX_ENTRIES: usize = 500;

/// The cache file's name in its directory.
const FILE: &str = "eras.json";

/// The cache of one run, for one server.
#[derive(Debug)]
pub(crate) struct EraCache {
    file: PathBuf,
    key: String,
}

impl EraCache {
    /// The cache entry of `server` (connected from `root`), if a cache directory is known.
    pub(crate) fn of(server: &ServerConfig, root: &Path) -> Option<Self> {
        Some(EraCache {
            file: state_files::user_dir("MCPCTL_CACHE_DIR", "XDG_CACHE_HOME", ".cache")?.join(FILE),
            key: key(server, root),
        })
    }

    /// The era this server spoke last time.
    pub(crate) fn get(&self) -> Option<Era> {
        let era = state_files::read::<BTreeMap<String, String>>(&self.file).remove(&self.key)?;
        match era.as_str() {
            "stateful" => Some(Era::Stateful),
            "stateless" => Some(Era::Stateless),
            _ => None,
        }
    }

    /// Remembers the era this server spoke now (nothing is written when it is already known).
    pub(crate) fn put(&self, era: Era) {
        if self.get() == Some(era) {
            return;
        }
        let mut entries: BTreeMap<String, String> = state_files::read(&self.file);
        if entries.len() >= MAX_ENTRIES {
            entries.clear();
        }
        let word = match era {
            Era::Stateful => "stateful",
            Era::Stateless => "stateless",
        };
        entries.insert(self.key.clone(), word.to_owned());
        if let Err(e) = state_files::write(&self.file, &entries) {
            tracing::debug!(file = %self.file.display(), error = %e, "cannot write the era cache");
        }
    }
}

/// What identifies a server's connection, hashed.
fn key(server: &ServerConfig, root: &Path) -> String {
    let mut hasher = DefaultHasher::new();
    match server {
        ServerConfig::Stdio(stdio) => {
            "stdio".hash(&mut hasher);
            stdio.argv.hash(&mut hasher);
            root.hash(&mut hasher);
        }
        ServerConfig::Unix(unix) => {
            "unix".hash(&mut hasher);
            root.join(&unix.unix_path).hash(&mut hasher);
        }
        ServerConfig::StreamableHttp(http) => {
            "http".hash(&mut hasher);
            http.urls.http_url().hash(&mut hasher);
        }
        other => format!("{other:?}").hash(&mut hasher),
    }
    format!("{:016x}", hasher.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_the_era_per_server() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("cache").join(FILE);
        let root = Path::new("/w");
        let one = EraCache {
            file: file.clone(),
            key: key(
                &ServerConfig::streamable_http("https://a.example/mcp"),
                root,
            ),
        };
        let two = EraCache {
            file: file.clone(),
            key: key(
                &ServerConfig::streamable_http("https://b.example/mcp"),
                root,
            ),
        };
        assert_eq!(one.get(), None);
        one.put(Era::Stateful);
        two.put(Era::Stateless);
        assert_eq!(one.get(), Some(Era::Stateful));
        assert_eq!(two.get(), Some(Era::Stateless));
        one.put(Era::Stateless);
        assert_eq!(one.get(), Some(Era::Stateless));
        // The file never names a server.
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(!text.contains("example"), "{text}");
        // A damaged file is an empty cache.
        std::fs::write(&file, "{not json").unwrap();
        assert_eq!(one.get(), None);
    }
}
