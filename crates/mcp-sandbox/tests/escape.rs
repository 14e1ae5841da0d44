//! The escape battery: each case is real code in a real sandbox trying to get out, and each
//! asserts that it stayed in and that the server still serves afterwards.

mod support;

use std::io::Read;
use std::net::TcpListener;
use std::time::{Duration, Instant};

use serde_json::json;
use support::{Sandbox, Transport, processes_with, start, text};

/// The server answers and a fresh session runs code.
async fn still_serves(sandbox: &Sandbox) {
    let out = sandbox.python(None, "6 * 7").await;
    assert_eq!(
        out["stdout"], "42\n",
        "the server no longer serves: {out:#}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn host_files_outside_the_workspace_are_neither_readable_nor_writable() {
    let host = tempfile::tempdir().unwrap();
    let secret = host.path().join("secret.txt");
    std::fs::write(&secret, "hunter2-file").unwrap();
    let sandbox = start(Transport::Stdio, &[]).await;
    let code = format!(
        "import os\nfor p in [{secret:?}, '/etc/shadow', '/root/.bashrc', {root:?}]:\n    \
         try:\n        print(p, open(p).read() if os.path.isfile(p) else os.listdir(p))\n    \
         except Exception as e:\n        print(p, type(e).__name__)",
        secret = secret.display().to_string(),
        root = sandbox.root.path().display().to_string(),
    );
    let out = sandbox.python(None, &code).await;
    let stdout = out["stdout"].as_str().unwrap();
    assert!(!stdout.contains("hunter2"), "{stdout}");
    assert!(stdout.contains("FileNotFoundError"), "{stdout}");
    // Writing anywhere but the workspace and /tmp fails, and nothing reaches the host.
    let target = host.path().join("planted.txt");
    let code = format!(
        "import os\nfor p in [{target:?}, '/usr/planted', '/etc/planted', '/planted', \
         '/opt/mcp-sandbox/planted']:\n    try:\n        open(p, 'w').write('x')\n        \
         print(p, 'WROTE')\n    except Exception as e:\n        print(p, type(e).__name__)",
        target = target.display().to_string()
    );
    let out = sandbox.python(None, &code).await;
    let stdout = out["stdout"].as_str().unwrap();
    assert!(!stdout.contains("WROTE"), "{stdout}");
    assert!(!target.exists());
    assert!(!std::path::Path::new("/usr/planted").exists());
    still_serves(&sandbox).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_listener_on_the_hosts_loopback_is_unreachable() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let sandbox = start(Transport::Stdio, &[]).await;
    let code = format!(
        "import socket\ns = socket.socket()\ns.settimeout(3)\ntry:\n    s.connect(('127.0.0.1', \
         {port}))\n    print('CONNECTED')\nexcept Exception as e:\n    print(type(e).__name__)\n\
         import urllib.request\ntry:\n    urllib.request.urlopen('http://example.com', timeout=3)\n    \
         print('INTERNET')\nexcept Exception as e:\n    print(type(e).__name__)"
    );
    let out = sandbox.python(None, &code).await;
    let stdout = out["stdout"].as_str().unwrap();
    assert!(
        !stdout.contains("CONNECTED") && !stdout.contains("INTERNET"),
        "{stdout}"
    );
    assert!(stdout.starts_with("ConnectionRefusedError"), "{stdout}");
    assert!(
        listener.accept().is_err(),
        "the host's listener saw a connection"
    );
    still_serves(&sandbox).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_fork_bomb_hits_the_process_limit_and_is_stopped() {
    let sandbox = start(Transport::Stdio, &[("MSB_MAX_PROCESSES", "64")]).await;
    let started = Instant::now();
    let result = sandbox
        .call(
            "execute_command",
            json!({ "command": "bomb() { bomb | bomb & }; bomb; sleep 5432109", "timeout": 3 }),
        )
        .await;
    assert!(started.elapsed() < Duration::from_secs(20));
    // Either the bomb holds the limit until the timeout stops it, or it wins the race for the
    // last slots and the shell itself cannot fork its `sleep` (and ends at once): both are the
    // limit at work.
    let outcome = &result["structuredContent"];
    let contained = outcome["status"] == "timeout"
        || (outcome["status"] == "error"
            && outcome["stderr"]
                .as_str()
                .is_some_and(|e| e.contains("fork") || e.contains("Resource temporarily")));
    assert!(contained, "{result:#}");
    assert!(
        processes_with("5432109").is_empty(),
        "processes left behind"
    );
    still_serves(&sandbox).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn memory_past_the_flavor_is_refused_or_killed() {
    let sandbox = start(Transport::Stdio, &[]).await;
    let id = sandbox.new_session().await;
    sandbox.python(Some(&id), "keep = 'state'").await;
    // 1.5 GiB touched, page by page, in a small (1 GiB) session.
    let out = sandbox
        .python(Some(&id), "b = bytearray(1536 * 1024 * 1024)\nfor i in range(0, len(b), 4096):\n    b[i] = 1\nprint('ALLOCATED')")
        .await;
    assert!(
        !out["stdout"].as_str().unwrap().contains("ALLOCATED"),
        "{out:#}"
    );
    let refused = out["error"]["name"] == "MemoryError";
    let killed = out["status"] == "crashed" && out["out_of_memory"] == true;
    assert!(refused || killed, "{out:#}");
    // The session goes on (with a new interpreter when the old one was killed).
    let after = sandbox.python(Some(&id), "1 + 1").await;
    assert_eq!(after["stdout"], "2\n");
    still_serves(&sandbox).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cpu_spin_ends_at_the_timeout() {
    let sandbox = start(Transport::Stdio, &[]).await;
    let started = Instant::now();
    let result = sandbox
        .call(
            "execute_code",
            json!({ "code": "while True:\n    pass", "timeout": 1 }),
        )
        .await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(result["structuredContent"]["timed_out"], true);
    assert_eq!(result["isError"], true);
    still_serves(&sandbox).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn endless_output_is_cut_at_the_limit() {
    let sandbox = start(Transport::Stdio, &[("MSB_MAX_OUTPUT", "64KiB")]).await;
    let result = sandbox
        .call(
            "execute_code",
            json!({ "code": "import sys\nwhile True:\n    sys.stdout.write('x' * 1000)", "timeout": 2 }),
        )
        .await;
    let out = &result["structuredContent"];
    assert_eq!(out["stdout_truncated"], true);
    assert_eq!(out["stdout"].as_str().unwrap().len(), 64 * 1024);
    assert!(
        text(&result).contains("[stdout was cut at 65536 bytes"),
        "{}",
        &text(&result)[65000..]
    );
    still_serves(&sandbox).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn background_processes_end_with_the_session() {
    let sandbox = start(Transport::Stdio, &[]).await;
    let id = sandbox.new_session().await;
    // Detached, in a new session, its output redirected: it outlives the call…
    let out = sandbox
        .shell(
            Some(&id),
            "setsid nohup sleep 6543210 >/dev/null 2>&1 & \
             while ! grep -qs 6543210 /proc/[0-9]*/cmdline; do :; done; echo started",
        )
        .await;
    assert_eq!(out["stdout"], "started\n");
    assert_eq!(processes_with("6543210").len(), 1, "it runs after the call");
    // …but not the session.
    sandbox
        .ok("stop_session", json!({ "session_id": id }))
        .await;
    assert!(
        processes_with("6543210").is_empty(),
        "it ended with the session"
    );
    still_serves(&sandbox).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn sessions_cannot_see_signal_or_read_each_other() {
    let sandbox = start(Transport::Stdio, &[]).await;
    let a = sandbox.new_session().await;
    sandbox
        .shell(
            Some(&a),
            "echo alpha-secret > secret.txt; sleep 5432100 >/dev/null 2>&1 & \
             while ! grep -qs 5432100 /proc/[0-9]*/cmdline; do :; done",
        )
        .await;
    let b = sandbox.new_session().await;
    let out = sandbox
        .shell(
            Some(&b),
            "ls /proc | grep -c '^[0-9]'; kill -9 -1; grep -rs alpha-secret / --exclude-dir=proc \
             --exclude-dir=sys; echo done",
        )
        .await;
    let stdout = out["stdout"].as_str().unwrap();
    assert!(!stdout.contains("alpha-secret"), "{stdout}");
    let visible: u32 = stdout.lines().next().unwrap().trim().parse().unwrap();
    assert!(visible < 10, "{visible} processes visible in /proc");
    assert_eq!(
        processes_with("5432100").len(),
        1,
        "session a's process survived b's kill -1"
    );
    assert_eq!(
        sandbox.shell(Some(&a), "cat secret.txt").await["stdout"],
        "alpha-secret\n"
    );
    still_serves(&sandbox).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_servers_environment_and_proc_1_are_not_readable() {
    let sandbox = start(Transport::Stdio, &[("MCP_TEST_SECRET", "hunter2-env")]).await;
    let out = sandbox
        .shell(
            None,
            "cat /proc/1/environ; echo; for f in /proc/*/environ; do cat $f 2>/dev/null; done; env",
        )
        .await;
    let stdout = out["stdout"].as_str().unwrap();
    assert!(!stdout.contains("hunter2"), "{stdout}");
    assert!(
        !stdout.contains("MSB_"),
        "the server's settings leaked: {stdout}"
    );
    still_serves(&sandbox).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn ptrace_mount_unshare_and_setuid_are_denied() {
    let sandbox = start(Transport::Stdio, &[]).await;
    let code = r#"
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
def attempt(name, call):
    ctypes.set_errno(0)
    rc = call()
    print(name, rc, os.strerror(ctypes.get_errno()))
attempt('ptrace', lambda: libc.ptrace(16, 1, 0, 0))
attempt('mount', lambda: libc.mount(b'none', b'/tmp', b'tmpfs', 0, None))
attempt('unshare', lambda: libc.unshare(0x10000000))
attempt('chroot', lambda: libc.chroot(b'/tmp'))
try:
    os.setuid(0)
    print('setuid OK')
except OSError as e:
    # EINVAL: no uid 0 exists in the sandbox's user namespace; EPERM: no capability.
    print('setuid refused', e.strerror)
status = open('/proc/self/status').read()
print([l for l in status.splitlines() if l.startswith(('CapEff', 'NoNewPrivs', 'Seccomp:'))])
"#;
    let out = sandbox.python(None, code).await;
    let stdout = out["stdout"].as_str().unwrap();
    for expected in [
        "ptrace -1 Operation not permitted",
        "mount -1 Operation not permitted",
        "unshare -1 Operation not permitted",
        "chroot -1 Operation not permitted",
        "setuid refused",
        "'CapEff:\\t0000000000000000'",
        "'NoNewPrivs:\\t1'",
        "'Seccomp:\\t2'",
    ] {
        assert!(stdout.contains(expected), "{expected} in {stdout}");
    }
    // A setuid-root program gains nothing either.
    let su = sandbox
        .shell(
            None,
            "ls -l /usr/bin/su /bin/su 2>/dev/null; su -c id root </dev/null; id -u",
        )
        .await;
    let su_out = su["stdout"].as_str().unwrap();
    assert!(su_out.trim_end().ends_with("1000"), "{su:#}");
    still_serves(&sandbox).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_symlink_out_of_the_workspace_leads_nowhere() {
    let host = tempfile::tempdir().unwrap();
    let secret = host.path().join("secret.txt");
    std::fs::write(&secret, "hunter2-link").unwrap();
    let sandbox = start(Transport::Stdio, &[]).await;
    let id = sandbox.new_session().await;
    let out = sandbox
        .shell(
            Some(&id),
            &format!(
                "ln -s {} link; ln -s / root; cat link; ls root/",
                secret.display()
            ),
        )
        .await;
    assert!(
        !out["stdout"].as_str().unwrap().contains("hunter2"),
        "{out:#}"
    );
    // The host side (resources) does not follow it either.
    for path in ["link", "root/etc/hostname"] {
        let error = sandbox
            .session
            .read_resource(&format!("sandbox://{id}/{path}"))
            .await
            .expect_err("refused");
        assert!(
            error.to_string().contains("out of the workspace"),
            "{path}: {error}"
        );
    }
    // The workspace's removal does not follow it.
    sandbox
        .ok("stop_session", json!({ "session_id": id }))
        .await;
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "hunter2-link");
    still_serves(&sandbox).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_huge_file_stops_at_the_file_size_limit() {
    let sandbox = start(Transport::Stdio, &[("MSB_MAX_FILE_SIZE", "8MiB")]).await;
    let id = sandbox.new_session().await;
    let out = sandbox
        .shell(
            Some(&id),
            "head -c 100M /dev/zero > big.bin; echo status=$?",
        )
        .await;
    let stdout = out["stdout"].as_str().unwrap();
    assert!(!stdout.contains("status=0"), "{out:#}");
    let size = std::fs::metadata(sandbox.workspace(&id).join("big.bin"))
        .unwrap()
        .len();
    assert!(size <= 8 << 20, "{size} bytes written");
    let mut python = sandbox
        .python(Some(&id), "open('big2.bin', 'wb').write(b'0' * (16 << 20))")
        .await;
    assert_eq!(python["error"]["name"], "OSError", "{python:#}");
    python["stderr"].take();
    let mut file = std::fs::File::open(sandbox.workspace(&id).join("big2.bin")).unwrap();
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).unwrap();
    assert!(bytes.len() <= 8 << 20);
    still_serves(&sandbox).await;
}
