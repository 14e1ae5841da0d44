//! What the scale-out tests run their replicas with: a real `redis-server` (the shared session
//! store) and a real `haproxy` (round-robin, no stickiness), each started on a free port with
//! its files in a directory of the test's, and killed when dropped. Both come from the Debian
//! packages `scripts/install-system-deps.sh` installs; a test fails, saying so, without them.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};

use crate::free_port;

/// How long a started server gets to accept connections.
const READY_WITHIN: Duration = Duration::from_secs(20);

/// A program of a Debian package, found on the `PATH` or in `/usr/sbin`.
fn system_program(name: &str, package: &str) -> PathBuf {
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/usr/bin")])
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file());
    on_path.unwrap_or_else(|| {
        panic!(
            "`{name}` is not installed: run `scripts/install-system-deps.sh` (Debian package \
             {package}), then run the tests again"
        )
    })
}

/// A `redis-server` of the test's own.
pub struct Redis {
    child: Child,
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// `redis://127.0.0.1:PORT`.
    pub url: String,
    dir: PathBuf,
}

impl Redis {
    /// Starts one on a free port, its data in `dir` (an append-only file, synced every
    /// second), and waits until it answers `PING`.
    pub async fn start(dir: &Path) -> Self {
        let port = free_port();
        let child = Self::spawn(dir, port);
        let redis = Self {
            child,
            port,
            url: format!("redis://127.0.0.1:{port}"),
            dir: dir.to_path_buf(),
        };
        redis.wait_ready().await;
        redis
    }

    fn spawn(dir: &Path, port: u16) -> Child {
        Command::new(system_program("redis-server", "redis-server"))
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .arg("--dir")
            .arg(dir)
            .args(["--save", "", "--appendonly", "yes", "--daemonize", "no"])
            .args(["--loglevel", "warning"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("redis-server starts")
    }

    async fn wait_ready(&self) {
        let deadline = tokio::time::Instant::now() + READY_WITHIN;
        loop {
            if self.ping().await {
                return;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "redis-server did not answer PING on port {} within {READY_WITHIN:?}",
                self.port
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Whether it answers `PING` with `PONG` now.
    pub async fn ping(&self) -> bool {
        let Ok(mut stream) = TcpStream::connect(("127.0.0.1", self.port)).await else {
            return false;
        };
        if stream.write_all(b"PING\r\n").await.is_err() {
            return false;
        }
        let mut answer = [0u8; 7];
        matches!(
            tokio::time::timeout(Duration::from_secs(2), stream.read_exact(&mut answer)).await,
            Ok(Ok(_))
        ) && &answer == b"+PONG\r\n"
    }

    /// Stops it (killed: what is not yet in the append-only file may be lost, as in a crash).
    pub async fn stop(&mut self) {
        let _ = self.child.kill().await;
    }

    /// Starts it again on the same port with the same data, and waits until it answers.
    pub async fn restart(&mut self) {
        self.stop().await;
        self.child = Self::spawn(&self.dir, self.port);
        self.wait_ready().await;
    }
}

/// An `haproxy` balancing round-robin, without stickiness, over local backends.
pub struct Haproxy {
    _child: Child,
    /// Its port on 127.0.0.1.
    pub port: u16,
}

impl Haproxy {
    /// Starts one in front of `backends` (ports on 127.0.0.1), its configuration in `dir`,
    /// and waits until it accepts connections. Every HTTP request is balanced anew (HTTP
    /// mode), a backend that refuses connections is taken out by a TCP check within a second,
    /// and a request that could not connect is retried on another.
    pub async fn start(backends: &[u16], dir: &Path) -> Self {
        let port = free_port();
        let servers: String = backends
            .iter()
            .enumerate()
            .map(|(i, backend)| {
                format!(
                    "    server r{} 127.0.0.1:{backend} check inter 300ms fall 1 rise 1\n",
                    i + 1
                )
            })
            .collect();
        let config = format!(
            "global\n    maxconn 1024\n\
             defaults\n    mode http\n    timeout connect 1s\n    timeout client 60s\n    \
             timeout server 60s\n    timeout tunnel 1h\n    retries 3\n    option redispatch 1\n    \
             retry-on conn-failure empty-response\n\
             frontend mcp\n    bind 127.0.0.1:{port}\n    default_backend replicas\n\
             backend replicas\n    balance roundrobin\n{servers}"
        );
        let file = dir.join("haproxy.cfg");
        std::fs::write(&file, config).expect("write haproxy.cfg");
        let child = Command::new(system_program("haproxy", "haproxy"))
            .arg("-db")
            .arg("-f")
            .arg(&file)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("haproxy starts");
        let deadline = tokio::time::Instant::now() + READY_WITHIN;
        while TcpStream::connect(("127.0.0.1", port)).await.is_err() {
            assert!(
                tokio::time::Instant::now() < deadline,
                "haproxy did not accept connections on port {port} within {READY_WITHIN:?} \
                 (its configuration: {})",
                file.display()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Self {
            _child: child,
            port,
        }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}
