//! The small JSON files mcpctl keeps between runs (the era cache, the trust store): where they
//! live, and how they are read and written.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;

/// A per-user directory of mcpctl: `$<override_var>`, else `$<xdg_var>/mcpctl`, else
/// `~/<home_default>/mcpctl` (`XDG_CACHE_HOME` and `.cache`, `XDG_CONFIG_HOME` and
/// `.config`). Empty variables count as unset.
pub(crate) fn user_dir(override_var: &str, xdg_var: &str, home_default: &str) -> Option<PathBuf> {
    let set = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = set(override_var) {
        return Some(PathBuf::from(dir));
    }
    if let Some(dir) = set(xdg_var) {
        return Some(PathBuf::from(dir).join("mcpctl"));
    }
    set("HOME").map(|home| PathBuf::from(home).join(home_default).join("mcpctl"))
}

/// The content of `file`, or the default when it is missing or damaged (these files only
/// ever save work or ask the user again).
pub(crate) fn read<T: DeserializeOwned + Default>(file: &Path) -> T {
    std::fs::read(file)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

/// Writes `value` to `file` (mode 0600) through a temporary file renamed over it, so that a
/// concurrent run reads the old file or the new one, never half of one.
pub(crate) fn write<T: Serialize>(file: &Path, value: &T) -> std::io::Result<()> {
    // The directory as `create_dir_all` makes it (the umask decides), the file private.
    mcp_kit::write_private_file(file, &serde_json::to_vec_pretty(value)?, 0o777)
}
