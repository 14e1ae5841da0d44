//! The rotating log of lines read from the peer (see [`StdoutLog`]).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Component, Path, PathBuf};

use crate::{Error, StdoutLog};

/// An open log. Writing never fails: the first failure disables the log with one error.
pub(crate) struct StdoutLogWriter {
    base: PathBuf,
    dir: PathBuf,
    stem: String,
    ext: String,
    max_bytes_per_part: u64,
    max_parts: Option<usize>,
    file: Option<File>,
    size: u64,
    next_part: u64,
    line: Vec<u8>,
}

impl StdoutLogWriter {
    /// Validates the path (no symlink anywhere in it), creates the directories, opens the file
    /// for appending, and finds where segment numbering continues.
    pub(crate) fn open(config: &StdoutLog) -> Result<Self, Error> {
        if config.max_bytes_per_part < 1 {
            return Err(Error::StdoutLog(
                "max_bytes_per_part must be at least 1".into(),
            ));
        }
        let base = absolute(&config.path)?;
        let Some(file_name) = base.file_name().and_then(|n| n.to_str()).map(str::to_owned) else {
            return Err(Error::StdoutLog(format!(
                "{} does not name a file (or the name is not UTF-8)",
                config.path.display()
            )));
        };
        let dir = base.parent().map(Path::to_path_buf).ok_or_else(|| {
            Error::StdoutLog(format!("{} has no parent directory", base.display()))
        })?;
        refuse_symlinks(&base)?;
        fs::create_dir_all(&dir).map_err(|e| {
            Error::StdoutLog(format!("cannot create directory {}: {e}", dir.display()))
        })?;
        // Checked again now that the directories exist: one may have been raced in.
        refuse_symlinks(&base)?;
        let (stem, ext) = match file_name.rfind('.') {
            Some(dot) if dot > 0 => (file_name[..dot].to_owned(), file_name[dot..].to_owned()),
            _ => (file_name.clone(), String::new()),
        };
        let file = open_no_follow(&base)
            .map_err(|e| Error::StdoutLog(format!("cannot open {}: {e}", base.display())))?;
        let size = file
            .metadata()
            .map_err(|e| Error::StdoutLog(format!("cannot stat {}: {e}", base.display())))?
            .len();
        let mut writer = Self {
            base,
            dir,
            stem,
            ext,
            max_bytes_per_part: config.max_bytes_per_part,
            max_parts: config.max_parts,
            file: Some(file),
            size,
            next_part: 1,
            line: Vec::with_capacity(1024),
        };
        let segments = writer
            .segments()
            .map_err(|e| Error::StdoutLog(format!("cannot list {}: {e}", writer.dir.display())))?;
        writer.next_part = segments.last().map_or(1, |(n, _)| n + 1);
        writer
            .enforce_retention(segments)
            .map_err(|e| Error::StdoutLog(format!("cannot remove old segments: {e}")))?;
        Ok(writer)
    }

    /// Appends one line (a newline is added); blank lines are not logged.
    pub(crate) fn write_line(&mut self, line: &[u8]) {
        if self.file.is_none() || line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        if let Err(e) = self.try_write(line) {
            tracing::error!(
                path = %self.base.display(),
                error = %e,
                "stdout log write failed; the log is disabled for the rest of this connection"
            );
            self.file = None;
        }
    }

    fn try_write(&mut self, line: &[u8]) -> io::Result<()> {
        let needed = line.len() as u64 + 1;
        if self.size > 0 && self.size + needed > self.max_bytes_per_part {
            self.rotate()?;
        }
        self.line.clear();
        self.line.extend_from_slice(line);
        self.line.push(b'\n');
        let file = self
            .file
            .as_mut()
            .ok_or_else(|| io::Error::other("log closed"))?;
        file.write_all(&self.line)?;
        self.size += needed;
        if self.line.capacity() > 64 * 1024 {
            self.line = Vec::with_capacity(1024);
        }
        Ok(())
    }

    fn segment_path(&self, n: u64) -> PathBuf {
        self.dir
            .join(format!("{}.segment-{n:04}{}", self.stem, self.ext))
    }

    fn rotate(&mut self) -> io::Result<()> {
        if let Some(file) = self.file.take() {
            file.sync_data().ok();
        }
        let target = self.segment_path(self.next_part);
        if fs::symlink_metadata(&target).is_ok() {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("{} already exists", target.display()),
            ));
        }
        fs::rename(&self.base, &target)?;
        self.next_part += 1;
        self.enforce_retention(self.segments()?)?;
        self.file = Some(open_no_follow(&self.base)?);
        self.size = 0;
        Ok(())
    }

    /// The rotated segments on disk, oldest first.
    fn segments(&self) -> io::Result<Vec<(u64, PathBuf)>> {
        let prefix = format!("{}.segment-", self.stem);
        let mut found = Vec::new();
        for entry in fs::read_dir(&self.dir)? {
            let entry = entry?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let Some(rest) = name.strip_prefix(&prefix) else {
                continue;
            };
            let Some(digits) = rest.strip_suffix(self.ext.as_str()) else {
                continue;
            };
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                continue;
            }
            if let Ok(n) = digits.parse::<u64>() {
                found.push((n, entry.path()));
            }
        }
        found.sort();
        Ok(found)
    }

    fn enforce_retention(&self, segments: Vec<(u64, PathBuf)>) -> io::Result<()> {
        let Some(keep) = self.max_parts else {
            return Ok(());
        };
        let excess = segments.len().saturating_sub(keep);
        for (_, path) in segments.into_iter().take(excess) {
            fs::remove_file(path)?;
        }
        Ok(())
    }
}

fn open_no_follow(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
}

fn absolute(path: &Path) -> Result<PathBuf, Error> {
    if path.components().any(|c| c == Component::ParentDir) {
        return Err(Error::StdoutLog(format!(
            "{} must not contain `..`",
            path.display()
        )));
    }
    std::path::absolute(path)
        .map_err(|e| Error::StdoutLog(format!("cannot resolve {}: {e}", path.display())))
}

/// Fails if any existing component of `path` (the file included) is a symlink.
fn refuse_symlinks(path: &Path) -> Result<(), Error> {
    let mut current = PathBuf::new();
    for component in path.components() {
        current.push(component);
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(Error::StdoutLog(format!(
                    "refusing stdout log path {}: {} is a symlink",
                    path.display(),
                    current.display()
                )));
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => {
                return Err(Error::StdoutLog(format!(
                    "cannot inspect {}: {e}",
                    current.display()
                )));
            }
        }
    }
    Ok(())
}
