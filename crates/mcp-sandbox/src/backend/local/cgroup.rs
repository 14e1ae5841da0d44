//! Control groups: one per session (memory, CPU quota, process count), under one per server
//! (the optional total memory cap), in cgroup v2 or in the v1 hierarchies of the `memory`,
//! `cpu` and `pids` controllers. The server's own cgroup is found in `/proc/self/cgroup` and
//! `/proc/self/mountinfo`; nothing is created outside it.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::backend::Limits;

/// The v1 controllers a session is limited with.
const V1_CONTROLLERS: [&str; 3] = ["memory", "cpu", "pids"];

/// Which cgroup version limits sessions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Version {
    V1,
    V2,
}

/// The server's cgroups: one directory per hierarchy (v1: per controller; v2: one).
#[derive(Debug)]
pub(crate) struct Cgroups {
    version: Version,
    parents: Vec<PathBuf>,
}

/// One session's cgroup: a directory under each of the server's.
#[derive(Debug)]
pub(crate) struct SessionCgroup {
    version: Version,
    dirs: Vec<PathBuf>,
}

fn write(path: &Path, value: impl AsRef<[u8]>) -> io::Result<()> {
    fs::write(path, value).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}

/// The directory of this process's cgroup in each hierarchy: `(controllers, directory)`.
fn own_cgroups() -> io::Result<Vec<(Vec<String>, PathBuf, bool)>> {
    let cgroup = fs::read_to_string("/proc/self/cgroup")?;
    let mountinfo = fs::read_to_string("/proc/self/mountinfo")?;
    let mut found = Vec::new();
    for line in cgroup.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let v2 = controllers.is_empty();
        let controllers: Vec<String> = controllers
            .split(',')
            .filter(|c| !c.is_empty())
            .map(str::to_owned)
            .collect();
        if let Some(dir) = mount_of(&mountinfo, &controllers, v2, path) {
            found.push((controllers, dir, v2));
        }
    }
    Ok(found)
}

/// Where the hierarchy with `controllers` (or the v2 one) is mounted, joined with `path`.
fn mount_of(mountinfo: &str, controllers: &[String], v2: bool, path: &str) -> Option<PathBuf> {
    for line in mountinfo.lines() {
        let Some((before, after)) = line.split_once(" - ") else {
            continue;
        };
        let fields: Vec<&str> = before.split(' ').collect();
        let after: Vec<&str> = after.split(' ').collect();
        let (Some(root), Some(mount_point), Some(fstype), Some(options)) =
            (fields.get(3), fields.get(4), after.first(), after.get(2))
        else {
            continue;
        };
        let matches = if v2 {
            *fstype == "cgroup2"
        } else {
            *fstype == "cgroup"
                && controllers
                    .iter()
                    .all(|c| options.split(',').any(|o| o == c))
        };
        if !matches {
            continue;
        }
        // A mount of a sub-tree (containers) shows paths relative to its root.
        let relative = path
            .strip_prefix(root)
            .unwrap_or(path)
            .trim_start_matches('/');
        return Some(Path::new(mount_point).join(relative));
    }
    None
}

impl Cgroups {
    /// Creates the server's cgroup `name` under this process's own, in v2 if the system uses
    /// it, else in the v1 `memory`, `cpu` and `pids` hierarchies. `total_memory` caps every
    /// session together.
    ///
    /// # Errors
    /// There is no usable hierarchy, or it is not writable (the message says which); the
    /// caller then limits with rlimits.
    pub(crate) fn create(name: &str, total_memory: Option<u64>) -> io::Result<Cgroups> {
        let own = own_cgroups()?;
        let unified = Path::new("/sys/fs/cgroup/cgroup.controllers").exists();
        if unified {
            let (_, dir, _) = own
                .iter()
                .find(|(_, _, v2)| *v2)
                .ok_or_else(|| io::Error::other("no cgroup v2 entry in /proc/self/cgroup"))?;
            return Self::create_v2(dir, name, total_memory);
        }
        let mut parents = Vec::new();
        for controller in V1_CONTROLLERS {
            let (_, dir, _) = own
                .iter()
                .find(|(cs, _, v2)| !v2 && cs.iter().any(|c| c == controller))
                .ok_or_else(|| {
                    io::Error::other(format!(
                        "the cgroup v1 `{controller}` controller is not mounted"
                    ))
                })?;
            let parent = dir.join(name);
            remove_stale(dir);
            fs::create_dir_all(&parent)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", parent.display())))?;
            parents.push(parent);
        }
        let cgroups = Cgroups {
            version: Version::V1,
            parents,
        };
        if let Some(bytes) = total_memory {
            write(
                &cgroups.parents[0].join("memory.limit_in_bytes"),
                bytes.to_string(),
            )?;
        }
        Ok(cgroups)
    }

    fn create_v2(own: &Path, name: &str, total_memory: Option<u64>) -> io::Result<Cgroups> {
        let enable = |dir: &Path| write(&dir.join("cgroup.subtree_control"), "+memory +cpu +pids");
        if let Err(e) = enable(own) {
            // "No internal processes": a cgroup with processes cannot hand controllers to
            // children. Move this server into a leaf of its own first, then enable them.
            if e.raw_os_error() != Some(libc::EBUSY) && e.kind() != io::ErrorKind::ResourceBusy {
                return Err(e);
            }
            let leaf = own.join("mcp-sandbox-server");
            fs::create_dir_all(&leaf)?;
            write(&leaf.join("cgroup.procs"), std::process::id().to_string())?;
            enable(own)?;
        }
        remove_stale(own);
        let parent = own.join(name);
        fs::create_dir_all(&parent)?;
        enable(&parent)?;
        if let Some(bytes) = total_memory {
            write(&parent.join("memory.max"), bytes.to_string())?;
        }
        Ok(Cgroups {
            version: Version::V2,
            parents: vec![parent],
        })
    }

    /// The version in use.
    pub(crate) fn version(&self) -> Version {
        self.version
    }

    /// Creates the cgroup of session `name` with `limits`.
    ///
    /// # Errors
    /// A directory or limit file cannot be written.
    pub(crate) fn session(&self, name: &str, limits: &Limits) -> io::Result<SessionCgroup> {
        let dirs: Vec<PathBuf> = self.parents.iter().map(|p| p.join(name)).collect();
        for dir in &dirs {
            fs::create_dir_all(dir)?;
        }
        let cgroup = SessionCgroup {
            version: self.version,
            dirs,
        };
        if let Err(e) = cgroup.limit(limits) {
            cgroup.remove_now();
            return Err(e);
        }
        Ok(cgroup)
    }

    /// Removes the server's cgroups (their sessions' must be gone).
    pub(crate) fn remove(&self) {
        for parent in &self.parents {
            let _ = fs::remove_dir(parent);
        }
    }
}

/// Removes the cgroups left by servers that died without cleaning up (their names end with
/// a process id that is no longer alive), killing whatever still runs in them.
fn remove_stale(own: &Path) {
    let Ok(entries) = fs::read_dir(own) else {
        return;
    };
    for entry in entries.flatten() {
        if !crate::owner::is_stale(&entry.file_name()) {
            continue;
        }
        let parent = entry.path();
        if let Ok(children) = fs::read_dir(&parent) {
            for child in children.flatten().filter(|c| c.path().is_dir()) {
                kill_members(&child.path());
                let _ = fs::remove_dir(child.path());
            }
        }
        let _ = fs::remove_dir(&parent);
    }
}

/// Sends SIGKILL to every process in the cgroup at `dir`.
fn kill_members(dir: &Path) {
    let Ok(procs) = fs::read_to_string(dir.join("cgroup.procs")) else {
        return;
    };
    for pid in procs.lines().filter_map(|l| l.trim().parse::<i32>().ok()) {
        crate::backend::local::spawn::kill(pid);
    }
}

impl SessionCgroup {
    fn limit(&self, limits: &Limits) -> io::Result<()> {
        match self.version {
            Version::V1 => {
                let [memory, cpu, pids] = [&self.dirs[0], &self.dirs[1], &self.dirs[2]];
                write(
                    &memory.join("memory.limit_in_bytes"),
                    limits.memory_bytes.to_string(),
                )?;
                let memsw = memory.join("memory.memsw.limit_in_bytes");
                if memsw.exists() {
                    write(&memsw, limits.memory_bytes.to_string())?;
                }
                let period = fs::read_to_string(cpu.join("cpu.cfs_period_us"))
                    .ok()
                    .and_then(|p| p.trim().parse::<u64>().ok())
                    .unwrap_or(100_000);
                write(
                    &cpu.join("cpu.cfs_quota_us"),
                    (period * u64::from(limits.cpus)).to_string(),
                )?;
                write(&pids.join("pids.max"), limits.processes.to_string())
            }
            Version::V2 => {
                let dir = &self.dirs[0];
                write(&dir.join("memory.max"), limits.memory_bytes.to_string())?;
                let swap = dir.join("memory.swap.max");
                if swap.exists() {
                    write(&swap, "0")?;
                }
                write(
                    &dir.join("cpu.max"),
                    format!("{} 100000", 100_000 * u64::from(limits.cpus)),
                )?;
                write(&dir.join("pids.max"), limits.processes.to_string())
            }
        }
    }

    /// The `cgroup.procs` files a process writes `0` to in order to join this cgroup.
    pub(crate) fn procs_files(&self) -> Vec<PathBuf> {
        self.dirs.iter().map(|d| d.join("cgroup.procs")).collect()
    }

    /// Memory in use by the session's processes, in bytes.
    pub(crate) fn memory_usage(&self) -> Option<u64> {
        let file = match self.version {
            Version::V1 => "memory.usage_in_bytes",
            Version::V2 => "memory.current",
        };
        fs::read_to_string(self.dirs[0].join(file))
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// Processes the kernel killed for exceeding the memory limit.
    pub(crate) fn oom_kills(&self) -> Option<u64> {
        let file = match self.version {
            Version::V1 => "memory.oom_control",
            Version::V2 => "memory.events",
        };
        let text = fs::read_to_string(self.dirs[0].join(file)).ok()?;
        text.lines()
            .find_map(|l| l.strip_prefix("oom_kill "))
            .and_then(|n| n.trim().parse().ok())
    }

    /// Kills every process in the cgroup and removes it; returns once it is gone (or after
    /// a few seconds, when the kernel is slow to reap them; logged).
    pub(crate) async fn kill_and_remove(&self) {
        for attempt in 0..200 {
            if self.version == Version::V2 {
                let _ = fs::write(self.dirs[0].join("cgroup.kill"), "1");
            }
            for dir in &self.dirs {
                kill_members(dir);
            }
            if self.remove_now() {
                return;
            }
            // Killed processes leave the cgroup when the kernel has reaped them; there is no
            // event for that in v1, so look again shortly.
            tokio::time::sleep(Duration::from_millis(if attempt < 20 { 2 } else { 20 })).await;
        }
        tracing::warn!(dirs = ?self.dirs, "a session's cgroup could not be removed");
    }

    /// Removes the directories; true when all are gone.
    fn remove_now(&self) -> bool {
        let mut gone = true;
        for dir in &self.dirs {
            if dir.exists() && fs::remove_dir(dir).is_err() {
                gone = false;
            }
        }
        gone
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOUNTINFO: &str = "\
30 25 0:26 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
31 25 0:27 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
32 25 0:28 /docker/abc /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
33 25 0:29 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw";

    #[test]
    fn finds_each_hierarchy_and_joins_the_path() {
        let memory = mount_of(MOUNTINFO, &["memory".into()], false, "/process_api/x");
        assert_eq!(
            memory.unwrap(),
            Path::new("/sys/fs/cgroup/memory/process_api/x")
        );
        let cpu = mount_of(MOUNTINFO, &["cpu".into(), "cpuacct".into()], false, "/");
        assert_eq!(cpu.unwrap(), Path::new("/sys/fs/cgroup/cpu,cpuacct"));
        let pids = mount_of(MOUNTINFO, &["pids".into()], false, "/docker/abc/sub");
        assert_eq!(pids.unwrap(), Path::new("/sys/fs/cgroup/pids/sub"));
        let v2 = mount_of(MOUNTINFO, &[], true, "/user.slice");
        assert_eq!(v2.unwrap(), Path::new("/sys/fs/cgroup/unified/user.slice"));
        assert_eq!(mount_of(MOUNTINFO, &["blkio".into()], false, "/"), None);
    }
}
