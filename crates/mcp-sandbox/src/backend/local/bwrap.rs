//! The bubblewrap command line of one sandbox: which namespaces, which host paths (read-only
//! system directories, the workspace, the volumes, the driver), the environment and the
//! seccomp descriptors.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::backend::{
    DRIVER_DIR, Network, SandboxSpec, WORKSPACE, driver_command, driver_environment,
};

/// The descriptors bubblewrap reads the seccomp programs from.
pub(crate) const SECCOMP_FDS: [i32; 2] = [5, 6];
/// The descriptors the driver reads requests on and writes answers to.
pub(crate) const CONTROL_IN_FD: i32 = 3;
/// See [`CONTROL_IN_FD`].
pub(crate) const CONTROL_OUT_FD: i32 = 4;

/// The user the code runs as inside (mapped to the server's user outside).
const SANDBOX_UID: &str = "1000";

/// Top-level system directories: bound read-only, or recreated as the symlinks they are on
/// merged-`/usr` systems.
const SYSTEM_DIRS: &[&str] = &["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/// What of the host's `/etc` the interpreters and common tools need: the dynamic linker's
/// cache, alternatives (Debian's `python3`/`node` links), certificates, time zone, MIME
/// types, the interpreters' own settings. Not passwords, not the host's users, hosts or
/// resolver (the sandbox gets its own `passwd`, `group` and `hosts`).
const ETC_ENTRIES: &[&str] = &[
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "alternatives",
    "ssl",
    "ca-certificates",
    "ca-certificates.conf",
    "localtime",
    "timezone",
    "mime.types",
    "nsswitch.conf",
    "python3",
    "python3.11",
    "python3.12",
    "python3.13",
    "nodejs",
];

/// The files of the server's runtime directory that sandboxes mount.
#[derive(Debug, Clone)]
pub(crate) struct RuntimeFiles {
    /// The driver programs (mounted at [`DRIVER_DIR`]).
    pub(crate) drivers: PathBuf,
    /// The sandbox's `passwd`, `group` and `hosts`.
    pub(crate) etc: PathBuf,
}

/// An interpreter on the host: the binary, and the installation prefix to mount when it
/// lives outside the system directories.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Interpreter {
    pub(crate) path: PathBuf,
    pub(crate) prefix: Option<PathBuf>,
}

fn push(args: &mut Vec<OsString>, items: &[&str]) {
    args.extend(items.iter().map(OsString::from));
}

fn push_paths(args: &mut Vec<OsString>, flag: &str, from: &Path, to: &Path) {
    args.push(flag.into());
    args.push(from.into());
    args.push(to.into());
}

/// bubblewrap's arguments for `spec`, running `interpreter` on the driver.
pub(crate) fn arguments(
    spec: &SandboxSpec,
    interpreter: &Interpreter,
    runtime: &RuntimeFiles,
) -> Vec<OsString> {
    let mut args = Vec::new();
    push(
        &mut args,
        &[
            "--die-with-parent",
            "--new-session",
            "--unshare-user",
            "--unshare-ipc",
            "--unshare-pid",
            "--unshare-uts",
            "--unshare-cgroup-try",
        ],
    );
    if spec.network == Network::None {
        push(&mut args, &["--unshare-net"]);
    }
    push(
        &mut args,
        &[
            "--disable-userns",
            "--uid",
            SANDBOX_UID,
            "--gid",
            SANDBOX_UID,
            "--hostname",
            "sandbox",
            "--ro-bind",
            "/usr",
            "/usr",
        ],
    );
    for dir in SYSTEM_DIRS {
        let path = Path::new(dir);
        match std::fs::read_link(path) {
            Ok(target) => push_paths(&mut args, "--symlink", &target, path),
            Err(_) if path.is_dir() => push_paths(&mut args, "--ro-bind", path, path),
            Err(_) => {}
        }
    }
    for entry in ETC_ENTRIES {
        let path = Path::new("/etc").join(entry);
        push_paths(&mut args, "--ro-bind-try", &path, &path);
    }
    for file in ["passwd", "group", "hosts"] {
        push_paths(
            &mut args,
            "--ro-bind",
            &runtime.etc.join(file),
            &Path::new("/etc").join(file),
        );
    }
    if spec.network == Network::Host {
        let resolv = Path::new("/etc/resolv.conf");
        push_paths(&mut args, "--ro-bind-try", resolv, resolv);
    }
    if let Some(prefix) = &interpreter.prefix {
        push_paths(&mut args, "--ro-bind", prefix, prefix);
    }
    push(&mut args, &["--proc", "/proc", "--dev", "/dev", "--size"]);
    args.push(spec.limits.tmp_bytes.to_string().into());
    push(&mut args, &["--tmpfs", "/tmp"]);
    push_paths(&mut args, "--bind", &spec.workspace, Path::new(WORKSPACE));
    for volume in &spec.volumes {
        let flag = if volume.read_only {
            "--ro-bind"
        } else {
            "--bind"
        };
        push_paths(&mut args, flag, &volume.host, &volume.sandbox);
    }
    push_paths(
        &mut args,
        "--ro-bind",
        &runtime.drivers,
        Path::new(DRIVER_DIR),
    );
    // The root is a tmpfs of bubblewrap's; nothing may be written there.
    push(
        &mut args,
        &["--remount-ro", "/", "--chdir", WORKSPACE, "--clearenv"],
    );
    for (name, value) in driver_environment() {
        push(&mut args, &["--setenv", name, value]);
    }
    for fd in SECCOMP_FDS {
        args.push("--add-seccomp-fd".into());
        args.push(fd.to_string().into());
    }
    args.push("--".into());
    args.push(interpreter.path.clone().into());
    args.extend(
        driver_command(spec.template)
            .into_iter()
            .map(OsString::from),
    );
    args
}

/// The sandbox's `/etc/passwd`, `/etc/group` and `/etc/hosts`.
pub(crate) fn etc_files() -> [(&'static str, String); 3] {
    [
        (
            "passwd",
            format!(
                "root:x:0:0:root:/root:/usr/sbin/nologin\n\
                 sandbox:x:{SANDBOX_UID}:{SANDBOX_UID}:sandbox:{WORKSPACE}:/bin/sh\n\
                 nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
            ),
        ),
        (
            "group",
            format!("root:x:0:\nsandbox:x:{SANDBOX_UID}:\nnogroup:x:65534:\n"),
        ),
        (
            "hosts",
            "127.0.0.1 localhost sandbox\n::1 localhost ip6-localhost ip6-loopback\n".to_owned(),
        ),
    ]
}

/// Finds `program` (`python3`, `node`): `configured` if given, else the first of the system
/// directories that has it. Symlinks are resolved; an interpreter outside the system
/// directories brings its installation prefix (the directory above its `bin`).
pub(crate) fn find_interpreter(program: &str, configured: Option<&Path>) -> Option<Interpreter> {
    let candidate = match configured {
        Some(path) => path.to_owned(),
        None => ["/usr/local/bin", "/usr/bin", "/bin"]
            .iter()
            .map(|dir| Path::new(dir).join(program))
            .find(|p| p.is_file())?,
    };
    let path = std::fs::canonicalize(&candidate).ok()?;
    let system = ["/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/"]
        .iter()
        .any(|dir| path.starts_with(dir));
    let prefix = if system {
        None
    } else {
        path.parent().and_then(Path::parent).map(Path::to_owned)
    };
    Some(Interpreter { path, prefix })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::{Limits, Volume};
    use crate::template::Template;

    fn spec(network: Network) -> SandboxSpec {
        SandboxSpec {
            session_id: "s1".into(),
            template: Template::Python,
            limits: Limits {
                memory_bytes: 1 << 30,
                cpus: 1,
                processes: 64,
                file_size_bytes: 1 << 20,
                open_files: 256,
                tmp_bytes: 1 << 20,
            },
            workspace: "/srv/ws/s1".into(),
            volumes: vec![Volume {
                host: "/data".into(),
                sandbox: "/mnt/data".into(),
                read_only: true,
            }],
            network,
        }
    }

    fn joined(network: Network) -> String {
        let interpreter = Interpreter {
            path: "/usr/bin/python3.11".into(),
            prefix: None,
        };
        let runtime = RuntimeFiles {
            drivers: "/run/x/driver".into(),
            etc: "/run/x/etc".into(),
        };
        arguments(&spec(network), &interpreter, &runtime)
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn no_network_unless_asked_and_the_mounts_in_order() {
        let args = joined(Network::None);
        assert!(args.contains("--unshare-net"), "{args}");
        assert!(!joined(Network::Host).contains("--unshare-net"));
        for part in [
            "--bind /srv/ws/s1 /workspace",
            "--ro-bind /data /mnt/data",
            "--ro-bind /run/x/driver /opt/mcp-sandbox",
            "--ro-bind /run/x/etc/passwd /etc/passwd",
            "--clearenv",
            "--add-seccomp-fd 5 --add-seccomp-fd 6",
            "-- /usr/bin/python3.11 -u /opt/mcp-sandbox/python.py",
        ] {
            assert!(args.contains(part), "{part} in {args}");
        }
        assert!(!args.contains("/etc/shadow"));
        let remount = args.find("--remount-ro /").unwrap();
        assert!(remount > args.find("/opt/mcp-sandbox").unwrap());
    }
}
