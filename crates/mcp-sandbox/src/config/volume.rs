//! Shared volumes (`MSB_SHARED_VOLUME_PATH`): `host:sandbox[:ro]` entries, as a JSON array
//! or a comma-separated list, checked at start: the host directory must exist and be named
//! by its real path (no symlink that leads elsewhere), and the sandbox path must not cover
//! what the sandbox needs.

use std::path::{Component, Path, PathBuf};

use crate::backend::{DRIVER_DIR, Volume, WORKSPACE};

/// Sandbox paths a volume may not be mounted on or above.
const RESERVED: &[&str] = &[
    "/", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc", "/proc", "/dev", "/tmp",
];

/// A volume that cannot be mounted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("shared volume `{entry}`: {problem}")]
pub struct VolumeError {
    /// The entry as configured.
    pub entry: String,
    /// What is wrong with it.
    pub problem: String,
}

/// Splits the variable's text into entries, checking their form (not the paths).
///
/// # Errors
/// Not a JSON array of strings (when it starts with `[`), or an entry is not
/// `host:sandbox` with an optional `:ro` or `:rw`.
pub fn parse_volumes(text: &str) -> Result<Vec<String>, String> {
    let text = text.trim();
    let entries: Vec<String> = if text.starts_with('[') {
        serde_json::from_str(text)
            .map_err(|e| format!("not a JSON array of \"host:sandbox[:ro]\" strings: {e}"))?
    } else {
        text.split(',')
            .map(str::trim)
            .filter(|e| !e.is_empty())
            .map(str::to_owned)
            .collect()
    };
    for entry in &entries {
        split(entry).map_err(|problem| format!("`{entry}`: {problem}"))?;
    }
    Ok(entries)
}

fn split(entry: &str) -> Result<(&str, &str, bool), String> {
    let parts: Vec<&str> = entry.split(':').collect();
    let (host, sandbox, read_only) = match parts.as_slice() {
        [host, sandbox] => (*host, *sandbox, false),
        [host, sandbox, "ro"] => (*host, *sandbox, true),
        [host, sandbox, "rw"] => (*host, *sandbox, false),
        _ => return Err("expected host:sandbox, host:sandbox:ro or host:sandbox:rw".to_owned()),
    };
    if host.is_empty() || sandbox.is_empty() {
        return Err("both the host and the sandbox path are needed".to_owned());
    }
    Ok((host, sandbox, read_only))
}

/// Checks every entry against the file system: relative host paths are taken from `cwd`.
///
/// # Errors
/// A host directory does not exist, is not a directory, or is reached through a symlink
/// (its real path differs); a sandbox path is relative, contains `..`, or is or covers a
/// reserved path (`/`, `/usr`, `/etc`, `/proc`, the workspace, the driver directory …).
pub fn resolve_volumes(entries: &[String], cwd: &Path) -> Result<Vec<Volume>, VolumeError> {
    entries
        .iter()
        .map(|entry| {
            let error = |problem: String| VolumeError {
                entry: entry.clone(),
                problem,
            };
            let (host, sandbox, read_only) = split(entry).map_err(&error)?;
            let host = cwd.join(host);
            let real = std::fs::canonicalize(&host).map_err(|e| {
                error(format!(
                    "the host path {} cannot be used: {e}",
                    host.display()
                ))
            })?;
            if !real.is_dir() {
                return Err(error(format!("{} is not a directory", real.display())));
            }
            let lexical = normalize(&host);
            if real != lexical {
                return Err(error(format!(
                    "{} leads through a symlink to {}; name the real directory",
                    host.display(),
                    real.display()
                )));
            }
            let sandbox = PathBuf::from(sandbox);
            if !sandbox.is_absolute()
                || sandbox
                    .components()
                    .any(|c| matches!(c, Component::ParentDir | Component::CurDir))
            {
                return Err(error(format!(
                    "the sandbox path {} must be absolute, without . or ..",
                    sandbox.display()
                )));
            }
            let covers = |reserved: &str| {
                let reserved = Path::new(reserved);
                sandbox == reserved || (reserved.starts_with(&sandbox))
            };
            if RESERVED.iter().any(|r| covers(r))
                || covers(WORKSPACE)
                || covers(DRIVER_DIR)
                || sandbox.starts_with(DRIVER_DIR)
                || ["/usr", "/etc", "/proc", "/dev"]
                    .iter()
                    .any(|r| sandbox.starts_with(r))
            {
                return Err(error(format!(
                    "{} is a path the sandbox itself needs; mount the volume elsewhere (such as \
                     /mnt/data)",
                    sandbox.display()
                )));
            }
            Ok(Volume {
                host: real,
                sandbox,
                read_only,
            })
        })
        .collect()
}

/// `path` with `.` and `..` resolved lexically.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_array_or_comma_list() {
        assert_eq!(
            parse_volumes(r#"["/a:/b", "/c:/d:ro"]"#).unwrap(),
            ["/a:/b", "/c:/d:ro"]
        );
        assert_eq!(
            parse_volumes("/a:/b, /c:/d:ro").unwrap(),
            ["/a:/b", "/c:/d:ro"]
        );
        assert!(
            parse_volumes("/a")
                .unwrap_err()
                .contains("expected host:sandbox")
        );
        assert!(parse_volumes("[1]").is_err());
    }

    #[test]
    fn missing_symlinked_and_reserved_paths_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir(&real).unwrap();
        std::os::unix::fs::symlink("/etc", dir.path().join("link")).unwrap();
        let ok = resolve_volumes(&["real:/mnt/data:ro".into()], dir.path()).unwrap();
        assert!(ok[0].read_only && ok[0].sandbox == Path::new("/mnt/data"));
        let cases = [
            ("missing:/mnt/x", "cannot be used"),
            ("link:/mnt/x", "leads through a symlink to /etc"),
            ("real:/usr/local/x", "the sandbox itself needs"),
            ("real:/workspace", "the sandbox itself needs"),
            ("real:/", "the sandbox itself needs"),
            ("real:relative", "must be absolute"),
        ];
        for (entry, expected) in cases {
            let error = resolve_volumes(&[entry.into()], dir.path()).unwrap_err();
            assert!(error.to_string().contains(expected), "{entry}: {error}");
        }
    }
}
