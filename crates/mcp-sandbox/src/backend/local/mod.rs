//! The local backend: each sandbox is a bubblewrap process tree in new user, PID, IPC, UTS,
//! mount and network namespaces, limited by a cgroup of its own (v2, or v1 `memory`, `cpu`
//! and `pids`; rlimits where cgroups are not writable), with a seccomp filter, no new
//! privileges, a cleared environment and a read-only view of the system.

mod bwrap;
mod cgroup;
mod seccomp;
pub(crate) mod spawn;

use std::collections::HashMap;
use std::fs;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use tokio::net::unix::pipe;
use tokio::process::{Child, Command};

use self::bwrap::{CONTROL_IN_FD, CONTROL_OUT_FD, Interpreter, RuntimeFiles, SECCOMP_FDS};
use self::cgroup::{Cgroups, SessionCgroup, Version};
use self::spawn::{ChildSetup, Rlimit};
use super::{
    Backend, BackendError, BoxFuture, DRIVERS, Isolation, Sandbox, SandboxHandle, SandboxSpec,
    Usage,
};
use crate::template::Template;

/// How to build a [`LocalBackend`].
#[derive(Debug, Clone, Default)]
pub struct LocalOptions {
    /// The `bwrap` binary (default: found on `PATH`).
    pub bwrap: Option<PathBuf>,
    /// The Python interpreter (default: `python3` in `/usr/local/bin`, `/usr/bin`, `/bin`).
    pub python: Option<PathBuf>,
    /// The Node.js interpreter (default: `node`, looked up the same way).
    pub node: Option<PathBuf>,
    /// A directory of the server's own for the driver programs and the sandboxes' `/etc`
    /// files (created; removed by whoever created it).
    pub runtime_dir: PathBuf,
    /// Every session together may use at most this much memory, in bytes (cgroups only).
    pub total_memory_bytes: Option<u64>,
    /// Limit with rlimits even where cgroups are writable.
    pub rlimits_only: bool,
}

/// The default backend: bubblewrap, cgroups, seccomp.
#[derive(Debug)]
pub struct LocalBackend {
    bwrap: PathBuf,
    interpreters: HashMap<Template, Interpreter>,
    runtime: RuntimeFiles,
    seccomp: [PathBuf; 2],
    cgroups: Option<Cgroups>,
    /// Why cgroups are not used, when they are not.
    cgroups_unavailable: Option<String>,
}

/// What Debian, Fedora and Alpine call the package.
const INSTALL_BWRAP: &str = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; \
     Fedora: dnf install bubblewrap; Alpine: apk add bubblewrap), or set MSB_BWRAP to its path";

fn find_on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

impl LocalBackend {
    /// Finds bubblewrap and the interpreters, writes the runtime files, sets up cgroups (or
    /// notes why rlimits are used instead), and checks that a sandbox starts on this host.
    ///
    /// # Errors
    /// bubblewrap is missing, no interpreter is installed, the runtime directory cannot be
    /// written, or the host does not allow the namespaces (the message says what to do).
    pub async fn new(options: LocalOptions) -> Result<Self, BackendError> {
        let bwrap = match &options.bwrap {
            Some(path) if path.is_file() => path.clone(),
            Some(path) => {
                return Err(BackendError::Unavailable(format!(
                    "bubblewrap not found at {} (MSB_BWRAP): {INSTALL_BWRAP}",
                    path.display()
                )));
            }
            None => find_on_path("bwrap").ok_or_else(|| {
                BackendError::Unavailable(format!(
                    "bubblewrap (bwrap) is not installed, and mcp-sandbox isolates code with \
                     it: {INSTALL_BWRAP}"
                ))
            })?,
        };
        let mut interpreters = HashMap::new();
        for template in Template::ALL {
            let configured = match template {
                Template::Python => options.python.as_deref(),
                Template::Node => options.node.as_deref(),
            };
            match bwrap::find_interpreter(template.program(), configured) {
                Some(found) => {
                    interpreters.insert(template, found);
                }
                None => tracing::warn!(
                    "{} not found: the {template} template is unavailable",
                    template.program()
                ),
            }
        }
        if interpreters.is_empty() {
            return Err(BackendError::Unavailable(
                "neither python3 nor node is installed: install one (Debian: apt-get install \
                 python3 nodejs), or set MSB_PYTHON / MSB_NODE"
                    .to_owned(),
            ));
        }
        let root = &options.runtime_dir;
        let runtime = RuntimeFiles {
            drivers: root.join("driver"),
            etc: root.join("etc"),
        };
        let seccomp = [
            root.join("seccomp-eperm.bpf"),
            root.join("seccomp-clone3.bpf"),
        ];
        write_runtime_files(&runtime, &seccomp).map_err(|e| {
            BackendError::Unavailable(format!(
                "cannot write the runtime directory {}: {e}",
                root.display()
            ))
        })?;
        let name = crate::owner::own_name();
        let (cgroups, cgroups_unavailable) = if options.rlimits_only {
            (None, Some("rlimits were asked for".to_owned()))
        } else {
            match Cgroups::create(&name, options.total_memory_bytes) {
                Ok(c) => (Some(c), None),
                Err(e) => {
                    tracing::warn!(
                        "cgroups are not usable ({e}): limiting sandboxes with rlimits (memory \
                         as address space, processes per user)"
                    );
                    (None, Some(e.to_string()))
                }
            }
        };
        let backend = LocalBackend {
            bwrap,
            interpreters,
            runtime,
            seccomp,
            cgroups,
            cgroups_unavailable,
        };
        backend.probe().await?;
        Ok(backend)
    }

    /// Starts `/bin/true` the way sandboxes start, so that a host without user namespaces
    /// fails at start with a reason rather than at the first call.
    async fn probe(&self) -> Result<(), BackendError> {
        let mut command = Command::new(&self.bwrap);
        command
            .args([
                "--unshare-all",
                "--unshare-user",
                "--disable-userns",
                "--die-with-parent",
                "--ro-bind",
                "/",
                "/",
                "--",
                "true",
            ])
            .env_clear()
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let output = command.output().await.map_err(|e| {
            BackendError::Unavailable(format!("cannot run {}: {e}", self.bwrap.display()))
        })?;
        if output.status.success() {
            return Ok(());
        }
        Err(BackendError::Unavailable(format!(
            "bubblewrap cannot create namespaces on this host ({}): {}. Allow unprivileged \
             user namespaces (sysctl kernel.unprivileged_userns_clone=1, \
             user.max_user_namespaces > 0; in a container, run it with the privileges that \
             allow nested namespaces), or use another backend",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )))
    }

    fn setup(
        &self,
        cgroup: Option<&SessionCgroup>,
        spec: &SandboxSpec,
    ) -> std::io::Result<(ChildSetup, OwnedFd, OwnedFd)> {
        let (control_in_read, control_in_write) = std::io::pipe()?;
        let (control_out_read, control_out_write) = std::io::pipe()?;
        let mut setup = ChildSetup::default();
        setup.fds.push((control_in_read.into(), CONTROL_IN_FD));
        setup.fds.push((control_out_write.into(), CONTROL_OUT_FD));
        for (path, fd) in self.seccomp.iter().zip(SECCOMP_FDS) {
            setup.fds.push((fs::File::open(path)?.into(), fd));
        }
        if let Some(cgroup) = cgroup {
            for procs in cgroup.procs_files() {
                setup
                    .cgroup_procs
                    .push(fs::OpenOptions::new().write(true).open(procs)?.into());
            }
        }
        let limits = &spec.limits;
        setup.rlimits = vec![
            Rlimit::FileSize(limits.file_size_bytes),
            Rlimit::OpenFiles(limits.open_files),
            Rlimit::Core(0),
        ];
        if cgroup.is_none() {
            setup
                .rlimits
                .push(Rlimit::AddressSpace(limits.memory_bytes));
            setup
                .rlimits
                .push(Rlimit::Processes(u64::from(limits.processes)));
        }
        Ok((setup, control_in_write.into(), control_out_read.into()))
    }
}

fn write_runtime_files(runtime: &RuntimeFiles, seccomp: &[PathBuf; 2]) -> std::io::Result<()> {
    fs::create_dir_all(&runtime.drivers)?;
    fs::create_dir_all(&runtime.etc)?;
    for (_, file, source) in DRIVERS {
        fs::write(runtime.drivers.join(file), source)?;
    }
    for (file, text) in bwrap::etc_files() {
        fs::write(runtime.etc.join(file), text)?;
    }
    let programs = seccomp::programs().map_err(std::io::Error::other)?;
    for (path, program) in seccomp.iter().zip(programs) {
        fs::write(path, program)?;
    }
    Ok(())
}

impl Backend for LocalBackend {
    fn isolation(&self) -> Isolation {
        let limits = match (&self.cgroups, &self.cgroups_unavailable) {
            (Some(c), _) if c.version() == Version::V2 => "cgroup v2".to_owned(),
            (Some(_), _) => "cgroup v1".to_owned(),
            (None, reason) => format!("rlimits ({})", reason.as_deref().unwrap_or("no cgroups")),
        };
        let denied: Vec<&str> = seccomp::denied_names().collect();
        Isolation {
            backend: "local".to_owned(),
            limits,
            details: vec![
                format!("bubblewrap {}", self.bwrap.display()),
                "namespaces: user, pid, ipc, uts, mount, cgroup, network (loopback only unless host network is on)".to_owned(),
                "no new privileges, no capabilities, no further user namespaces".to_owned(),
                format!("seccomp: {} refused, clone3 unavailable", denied.join(", ")),
            ],
        }
    }

    fn templates(&self) -> Vec<Template> {
        Template::ALL
            .into_iter()
            .filter(|t| self.interpreters.contains_key(t))
            .collect()
    }

    fn start<'a>(&'a self, spec: &'a SandboxSpec) -> BoxFuture<'a, Result<Sandbox, BackendError>> {
        Box::pin(async move {
            let interpreter = self.interpreters.get(&spec.template).ok_or_else(|| {
                BackendError::Start(format!(
                    "{} is not installed on this host, so the {} template is unavailable",
                    spec.template.program(),
                    spec.template
                ))
            })?;
            let cgroup = match &self.cgroups {
                Some(cgroups) => Some(
                    cgroups
                        .session(&spec.session_id, &spec.limits)
                        .map_err(|e| BackendError::Start(format!("cgroup: {e}")))?,
                ),
                None => None,
            };
            let started = self.spawn(spec, interpreter, cgroup.as_ref());
            match started {
                Ok((child, control_in, control_out)) => {
                    let mut child = child;
                    let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
                    Ok(Sandbox {
                        control_in: Box::new(control_in),
                        control_out: Box::new(control_out),
                        stdout: Box::new(stdout.expect("piped")),
                        stderr: Box::new(stderr.expect("piped")),
                        handle: Box::new(LocalHandle { child, cgroup }),
                    })
                }
                Err(e) => {
                    if let Some(cgroup) = &cgroup {
                        cgroup.kill_and_remove().await;
                    }
                    Err(BackendError::Start(e.to_string()))
                }
            }
        })
    }

    fn shutdown(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            if let Some(cgroups) = &self.cgroups {
                cgroups.remove();
            }
        })
    }
}

impl LocalBackend {
    fn spawn(
        &self,
        spec: &SandboxSpec,
        interpreter: &Interpreter,
        cgroup: Option<&SessionCgroup>,
    ) -> std::io::Result<(Child, pipe::Sender, pipe::Receiver)> {
        let (setup, control_in, control_out) = self.setup(cgroup, spec)?;
        let mut command = Command::new(&self.bwrap);
        command
            .args(bwrap::arguments(spec, interpreter, &self.runtime))
            .env_clear()
            .current_dir(Path::new("/"))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let child = spawn::spawn(&mut command, setup)?;
        let control_in = pipe::Sender::from_owned_fd(control_in)?;
        let control_out = pipe::Receiver::from_owned_fd(control_out)?;
        Ok((child, control_in, control_out))
    }
}

/// A running bubblewrap sandbox.
struct LocalHandle {
    child: Child,
    cgroup: Option<SessionCgroup>,
}

/// A handle dropped without `kill` (a call whose future was dropped midway) still ends its
/// sandbox: the child is killed on drop, and its cgroup is removed in the background.
impl Drop for LocalHandle {
    fn drop(&mut self) {
        if let Some(cgroup) = self.cgroup.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            let _ = self.child.start_kill();
            runtime.spawn(async move { cgroup.kill_and_remove().await });
        }
    }
}

impl SandboxHandle for LocalHandle {
    fn kill(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            // bubblewrap runs the sandbox's PID 1 with --die-with-parent: killing it ends the
            // PID namespace and so every process in it; the cgroup catches the rest.
            let _ = self.child.start_kill();
            if let Some(cgroup) = &self.cgroup {
                cgroup.kill_and_remove().await;
            }
            let _ = self.child.wait().await;
            self.cgroup = None;
        })
    }

    fn usage(&self) -> Usage {
        match &self.cgroup {
            Some(cgroup) => Usage {
                memory_bytes: cgroup.memory_usage(),
                oom_kills: cgroup.oom_kills(),
            },
            None => Usage::default(),
        }
    }
}
