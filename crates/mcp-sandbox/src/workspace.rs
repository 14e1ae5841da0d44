//! Reading a session's workspace from the host without following the sandbox's links out of
//! it: code in the sandbox controls every name in the workspace, so a path is resolved by
//! the kernel with `openat2(RESOLVE_BENEATH)` (no `..` above the workspace, no absolute
//! symlink, no magic link), never by checking a path and then opening it.
#![allow(unsafe_code)]

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path};

/// Opens `relative` (a file or directory) for reading, beneath `root`.
///
/// # Errors
/// The path is absolute or leaves `root` (`..`, a symlink pointing out, a magic link): the
/// kernel's `EXDEV`/`ELOOP`, reported as `PermissionDenied`; it does not exist; the kernel has
/// no `openat2` (before Linux 5.6): `Unsupported`.
pub(crate) fn open_beneath(root: &Path, relative: &Path) -> io::Result<File> {
    if relative.is_absolute()
        || relative
            .components()
            .any(|c| matches!(c, Component::ParentDir | Component::Prefix(_)))
    {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "the path leaves the workspace",
        ));
    }
    let root = File::open(root)?;
    let name = if relative.as_os_str().is_empty() {
        CString::new(".")
    } else {
        CString::new(relative.as_os_str().as_bytes())
    }
    .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "the path contains a NUL byte"))?;
    // SAFETY: `open_how` is a plain C struct; zeroed is a valid value, then filled in.
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = (libc::O_RDONLY | libc::O_CLOEXEC | libc::O_NOCTTY | libc::O_NONBLOCK) as u64;
    how.resolve = libc::RESOLVE_BENEATH | libc::RESOLVE_NO_MAGICLINKS | libc::RESOLVE_NO_XDEV;
    // SAFETY: the pointers are to a NUL-terminated string and an `open_how` that outlive the
    // call, whose size is passed; the returned descriptor is owned below.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_openat2,
            root.as_raw_fd(),
            name.as_ptr(),
            &how as *const libc::open_how,
            std::mem::size_of::<libc::open_how>(),
        )
    };
    if fd < 0 {
        let error = io::Error::last_os_error();
        return Err(match error.raw_os_error() {
            Some(libc::EXDEV | libc::ELOOP) => io::Error::new(
                io::ErrorKind::PermissionDenied,
                "the path leads out of the workspace",
            ),
            Some(libc::ENOSYS) => io::Error::new(
                io::ErrorKind::Unsupported,
                "reading workspace files needs Linux 5.6 or later (openat2)",
            ),
            _ => error,
        });
    }
    // SAFETY: `fd` is a new descriptor that nothing else owns.
    let fd = unsafe { OwnedFd::from_raw_fd(fd as i32) };
    Ok(File::from(fd))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stays_beneath_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/a.txt"), "inside").unwrap();
        std::fs::write(dir.path().join("secret"), "outside").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", root.join("abs")).unwrap();
        std::os::unix::fs::symlink("../secret", root.join("rel")).unwrap();
        std::os::unix::fs::symlink("sub/a.txt", root.join("ok")).unwrap();
        let read = |p: &str| open_beneath(&root, Path::new(p)).and_then(std::io::read_to_string);
        assert_eq!(read("sub/a.txt").unwrap(), "inside");
        assert_eq!(read("ok").unwrap(), "inside");
        for escape in ["abs", "rel", "../secret", "/etc/passwd", "sub/../../secret"] {
            let error = read(escape).unwrap_err();
            assert_eq!(
                error.kind(),
                io::ErrorKind::PermissionDenied,
                "{escape}: {error}"
            );
        }
        assert_eq!(read("missing").unwrap_err().kind(), io::ErrorKind::NotFound);
    }
}
