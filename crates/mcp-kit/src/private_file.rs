//! Small private files kept between runs (OAuth tokens, a CLI's state): written whole or not
//! at all, readable by their owner only.

use std::io::{self, Write as _};
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _};
use std::path::Path;

/// Writes `bytes` to `file` so that a reader sees the old content or the new, never part of
/// one, and no other user can read it: the missing directories are created with `dir_mode`
/// (masked by the umask), the bytes go to a new temporary file of mode 0600 beside `file`
/// (`<name>.<pid>.tmp`, never following a link there), synced, then renamed over `file`. On
/// failure the temporary file is removed.
///
/// # Errors
///
/// Creating the directory, writing, syncing or renaming failed.
pub fn write_private_file(file: &Path, bytes: &[u8], dir_mode: u32) -> io::Result<()> {
    let dir = file.parent().unwrap_or(Path::new("."));
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(dir_mode)
        .create(dir)?;
    let name = file.file_name().unwrap_or_default().to_string_lossy();
    let temporary = dir.join(format!("{name}.{}.tmp", std::process::id()));
    // Left by a process of the same id that died mid-write.
    let _ = std::fs::remove_file(&temporary);
    let written = (|| {
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temporary)?;
        out.write_all(bytes)?;
        out.sync_all()?;
        std::fs::rename(&temporary, file)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}
