//! Starting bubblewrap: what the child does between `fork` and `exec`. It joins the session's
//! cgroups (so that every process the sandbox ever starts is counted from the first), sets
//! the rlimits, and puts the driver's control pipes and the seccomp programs on the
//! descriptors bubblewrap and the driver expect. Only async-signal-safe system calls run
//! there, on values prepared before the fork.
#![allow(unsafe_code)]

use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

#[cfg(target_env = "gnu")]
type Resource = libc::__rlimit_resource_t;
#[cfg(not(target_env = "gnu"))]
type Resource = libc::c_int;

/// A resource limit to set in the child.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Rlimit {
    /// `RLIMIT_AS`: address space, bytes.
    AddressSpace(u64),
    /// `RLIMIT_NPROC`: processes of the user.
    Processes(u64),
    /// `RLIMIT_FSIZE`: the largest file written, bytes.
    FileSize(u64),
    /// `RLIMIT_NOFILE`: open descriptors.
    OpenFiles(u64),
    /// `RLIMIT_CORE`: core dump size (0: none).
    Core(u64),
}

impl Rlimit {
    fn parts(self) -> (Resource, u64) {
        match self {
            Rlimit::AddressSpace(v) => (libc::RLIMIT_AS, v),
            Rlimit::Processes(v) => (libc::RLIMIT_NPROC, v),
            Rlimit::FileSize(v) => (libc::RLIMIT_FSIZE, v),
            Rlimit::OpenFiles(v) => (libc::RLIMIT_NOFILE, v),
            Rlimit::Core(v) => (libc::RLIMIT_CORE, v),
        }
    }
}

/// What the child sets up before it executes bubblewrap. Holds the descriptors until the
/// child has started.
#[derive(Debug, Default)]
pub(crate) struct ChildSetup {
    /// Descriptors to put at fixed numbers: `(descriptor, number in the child)`.
    pub(crate) fds: Vec<(OwnedFd, RawFd)>,
    /// Open `cgroup.procs` files the child writes `0` to, joining those cgroups.
    pub(crate) cgroup_procs: Vec<OwnedFd>,
    /// Limits the child sets on itself (bubblewrap and everything after it inherit them).
    pub(crate) rlimits: Vec<Rlimit>,
}

/// Starts `command` with `setup` applied in the child.
///
/// Call it on a runtime worker thread, never from `spawn_blocking`: bubblewrap's
/// `--die-with-parent` is the kernel's parent-death signal, which follows the *thread* that
/// spawned the child, and blocking-pool threads exit when idle.
///
/// # Errors
/// The program cannot be started, or a step of the setup failed (the child then exits and
/// `spawn` reports that step's error).
pub(crate) fn spawn(
    command: &mut tokio::process::Command,
    setup: ChildSetup,
) -> io::Result<tokio::process::Child> {
    let moves: Vec<(RawFd, RawFd)> = setup
        .fds
        .iter()
        .map(|(fd, target)| (fd.as_raw_fd(), *target))
        .collect();
    let procs: Vec<RawFd> = setup.cgroup_procs.iter().map(AsRawFd::as_raw_fd).collect();
    let limits: Vec<(Resource, u64)> = setup.rlimits.iter().map(|r| r.parts()).collect();
    // SAFETY: the closure runs in the forked child before exec. It only calls write(2),
    // setrlimit(2), fcntl(2) and dup2(2) (async-signal-safe) on descriptors and values
    // computed before the fork, allocates nothing, and touches no lock.
    unsafe {
        command.pre_exec(move || {
            for &fd in &procs {
                if libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                    return Err(io::Error::last_os_error());
                }
            }
            for &(resource, value) in &limits {
                let limit = libc::rlimit {
                    rlim_cur: value as libc::rlim_t,
                    rlim_max: value as libc::rlim_t,
                };
                if libc::setrlimit(resource, &limit) != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            // Two steps, so that no target number overwrites a source not moved yet: every
            // source is first copied above the targets (close-on-exec), then onto its target
            // (dup2 clears close-on-exec there).
            let mut high = [0 as RawFd; 16];
            for (i, &(fd, _)) in moves.iter().enumerate().take(high.len()) {
                high[i] = libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 64);
                if high[i] < 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            for (i, &(_, target)) in moves.iter().enumerate().take(high.len()) {
                if libc::dup2(high[i], target) < 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    let child = command.spawn();
    drop(setup);
    child
}

/// Sends SIGKILL to process `pid` (nothing when it is gone already).
pub(crate) fn kill(pid: i32) {
    if pid > 0 {
        // SAFETY: kill(2) has no memory-safety preconditions; a stale pid yields ESRCH.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
    }
}
