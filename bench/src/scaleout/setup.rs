//! The processes of the scale-out benchmark: a `redis-server` (the shared session store),
//! an `haproxy` (round-robin over the replicas, no stickiness) and the replicas themselves
//! (the root workspace's release `example_server --http PORT`), each on a free port of
//! 127.0.0.1, with their files in a temporary directory, and killed when dropped.
//!
//! The same idea as `mcp-test-support`'s `scale_out` module, with what a benchmark needs and
//! a test does not: no persistence in Redis, the process ids (for their CPU time), Redis's
//! command counters and haproxy's per-replica request counters.

use std::collections::BTreeMap;
use std::fs::File;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};

use crate::load::http::{Connection, Response};
use crate::load::server::free_port;

/// The command that builds the replicas' program with the Redis store.
pub const BUILD: &str =
    "cargo build --release --locked -p mcp-server --features redis --example example_server";

/// How long a started process gets to accept connections.
const READY_WITHIN: Duration = Duration::from_secs(30);

/// A program of a Debian package, found on the `PATH` or in `/usr/sbin`, `/usr/bin`.
pub fn system_program(name: &str, package: &str) -> Result<PathBuf, String> {
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/usr/bin")])
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| {
            format!(
                "`{name}` is not installed: run `scripts/install-system-deps.sh` (Debian package \
                 {package})"
            )
        })
}

/// The programs the benchmark runs.
#[derive(Debug, Clone)]
pub struct Programs {
    /// `mcp-server`'s example server, built with feature `redis`.
    pub example_server: PathBuf,
    /// `redis-server`.
    pub redis: PathBuf,
    /// `haproxy`.
    pub haproxy: PathBuf,
}

impl Programs {
    /// The example server in `bin_dir` (the root workspace's `target/release`), Redis and
    /// haproxy from the system; an error says how to get a missing one.
    pub fn locate(bin_dir: &Path) -> Result<Self, String> {
        let example_server = bin_dir.join("examples/example_server");
        if !example_server.exists() {
            return Err(format!(
                "{} is missing: build it with `{BUILD}` (bench/run.sh does), or name the \
                 directory of the root workspace's release programs with --bin-dir",
                example_server.display()
            ));
        }
        Ok(Self {
            example_server,
            redis: system_program("redis-server", "redis-server")?,
            haproxy: system_program("haproxy", "haproxy")?,
        })
    }
}

/// A directory of its own under the system's temporary directory, removed when dropped.
#[derive(Debug)]
pub struct TempDir(PathBuf);

impl TempDir {
    /// Creates `…/scaleout-bench-PID-NAME`.
    pub fn new(name: &str) -> Result<Self, String> {
        let dir =
            std::env::temp_dir().join(format!("scaleout-bench-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
        Ok(Self(dir))
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A started process: the child (killed when dropped), its id and its stderr file.
#[derive(Debug)]
pub struct Process {
    child: Child,
    /// Its process id (the program itself: no shell in between).
    pub pid: u32,
    /// Where its stderr goes.
    pub log: PathBuf,
    /// What it is, for messages.
    pub name: String,
}

impl Process {
    /// Starts `command` (stdin and stdout to `/dev/null`, stderr to `log`).
    fn spawn(mut command: Command, name: &str, log: PathBuf) -> Result<Self, String> {
        let stderr = File::create(&log).map_err(|e| format!("creating {}: {e}", log.display()))?;
        let child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("{name}: cannot start ({e})"))?;
        let pid = child
            .id()
            .ok_or_else(|| format!("{name}: exited at once"))?;
        Ok(Self {
            child,
            pid,
            log,
            name: name.to_owned(),
        })
    }

    /// Waits until `port` on 127.0.0.1 accepts a connection (an error when the process ends
    /// first or after [`READY_WITHIN`]).
    async fn wait_listening(&mut self, port: u16) -> Result<(), String> {
        let deadline = Instant::now() + READY_WITHIN;
        loop {
            if TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
                return Ok(());
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!(
                    "{}: exited ({status}) before listening on port {port}: {}",
                    self.name,
                    self.log_tail()
                ));
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "{}: not listening on port {port} after {READY_WITHIN:?}: {}",
                    self.name,
                    self.log_tail()
                ));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Whether it still runs.
    pub fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// The last lines of its stderr.
    pub fn log_tail(&self) -> String {
        crate::load::server::log_tail(&self.log)
    }

    /// Kills it and reaps it.
    pub async fn stop(mut self) {
        let _ = self.child.start_kill();
        let _ = tokio::time::timeout(Duration::from_secs(10), self.child.wait()).await;
    }
}

/// Redis's counters at one moment: `INFO stats commandstats`.
#[derive(Debug, Clone, Default)]
pub struct RedisCounters {
    /// Calls per command (`cmdstat_NAME:calls=N`), without the `INFO` calls of the benchmark.
    pub calls: BTreeMap<String, u64>,
    /// `total_net_input_bytes`.
    pub input_bytes: u64,
    /// `total_net_output_bytes`.
    pub output_bytes: u64,
}

impl RedisCounters {
    /// Parses the text of `INFO stats commandstats`.
    pub fn parse(info: &str) -> Self {
        let mut counters = Self::default();
        for line in info.lines() {
            let line = line.trim_end();
            if let Some(rest) = line.strip_prefix("cmdstat_") {
                let Some((name, fields)) = rest.split_once(':') else {
                    continue;
                };
                if name == "info" {
                    continue;
                }
                let calls = fields
                    .split(',')
                    .find_map(|f| f.strip_prefix("calls="))
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(0);
                counters.calls.insert(name.to_owned(), calls);
            } else if let Some(n) = line.strip_prefix("total_net_input_bytes:") {
                counters.input_bytes = n.parse().unwrap_or(0);
            } else if let Some(n) = line.strip_prefix("total_net_output_bytes:") {
                counters.output_bytes = n.parse().unwrap_or(0);
            }
        }
        counters
    }

    /// What happened between `before` and `self`.
    pub fn since(&self, before: &Self) -> Self {
        Self {
            calls: self
                .calls
                .iter()
                .map(|(name, &n)| {
                    let was = before.calls.get(name).copied().unwrap_or(0);
                    (name.clone(), n.saturating_sub(was))
                })
                .filter(|(_, n)| *n > 0)
                .collect(),
            input_bytes: self.input_bytes.saturating_sub(before.input_bytes),
            output_bytes: self.output_bytes.saturating_sub(before.output_bytes),
        }
    }

    /// Every command counted (commands run by a Lua script included, as Redis counts them).
    pub fn total(&self) -> u64 {
        self.calls.values().sum()
    }
}

/// A `redis-server` of the benchmark's own: no snapshots, no append-only file.
#[derive(Debug)]
pub struct Redis {
    /// The process.
    pub process: Process,
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// `redis://127.0.0.1:PORT`.
    pub url: String,
}

impl Redis {
    /// Starts one on a free port (its working directory `dir`), and waits until it answers
    /// `PING`.
    pub async fn start(program: &Path, dir: &Path) -> Result<Self, String> {
        let port = free_port()?;
        let mut command = Command::new(program);
        command
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .arg("--dir")
            .arg(dir)
            .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
            .args(["--loglevel", "warning"]);
        let mut process = Process::spawn(command, "redis-server", dir.join("redis.log"))?;
        process.wait_listening(port).await?;
        let redis = Self {
            process,
            port,
            url: format!("redis://127.0.0.1:{port}"),
        };
        let deadline = Instant::now() + READY_WITHIN;
        while redis.command("PING").await.as_deref() != Ok("PONG") {
            if Instant::now() > deadline {
                return Err(format!("redis-server on port {port} does not answer PING"));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Ok(redis)
    }

    /// Sends one inline command on a new connection and returns its answer: a simple
    /// string's or a bulk string's text (an error answer is an error).
    pub async fn command(&self, command: &str) -> Result<String, String> {
        let fail = |e: std::io::Error| format!("redis {command}: {e}");
        let mut stream = TcpStream::connect(("127.0.0.1", self.port))
            .await
            .map_err(fail)?;
        stream
            .write_all(format!("{command}\r\n").as_bytes())
            .await
            .map_err(fail)?;
        let mut answer = Vec::new();
        let mut chunk = [0u8; 16 * 1024];
        let read = async {
            loop {
                let n = stream.read(&mut chunk).await?;
                if n == 0 {
                    return Ok(());
                }
                answer.extend_from_slice(&chunk[..n]);
                if resp_complete(&answer) {
                    return Ok(());
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(5), read)
            .await
            .map_err(|_| format!("redis {command}: no answer within 5 s"))?
            .map_err(fail)?;
        resp_text(&answer).map_err(|e| format!("redis {command}: {e}"))
    }

    /// The counters now.
    pub async fn counters(&self) -> Result<RedisCounters, String> {
        Ok(RedisCounters::parse(
            &self.command("INFO stats commandstats").await?,
        ))
    }
}

/// Whether `answer` holds a whole simple string, error or bulk string.
fn resp_complete(answer: &[u8]) -> bool {
    let Some(line_end) = answer.windows(2).position(|w| w == b"\r\n") else {
        return false;
    };
    match answer.first() {
        Some(b'$') => {
            let len: i64 = std::str::from_utf8(&answer[1..line_end])
                .ok()
                .and_then(|n| n.parse().ok())
                .unwrap_or(-1);
            len < 0 || answer.len() >= line_end + 2 + len as usize + 2
        }
        _ => true,
    }
}

/// The text of a simple string or bulk string answer.
fn resp_text(answer: &[u8]) -> Result<String, String> {
    let line_end = answer
        .windows(2)
        .position(|w| w == b"\r\n")
        .ok_or("no answer")?;
    let first = String::from_utf8_lossy(&answer[1..line_end]).into_owned();
    match answer.first() {
        Some(b'+') => Ok(first),
        Some(b'-') => Err(first),
        Some(b'$') => {
            let len: usize = first
                .parse()
                .map_err(|_| format!("bulk length {first:?}"))?;
            let body = answer
                .get(line_end + 2..line_end + 2 + len)
                .ok_or("short bulk string")?;
            Ok(String::from_utf8_lossy(body).into_owned())
        }
        _ => Err(format!(
            "unexpected answer {:?}",
            String::from_utf8_lossy(answer)
        )),
    }
}

/// An `haproxy` in HTTP mode balancing every request round-robin over the replicas, without
/// stickiness, with a statistics page on a port of its own.
#[derive(Debug)]
pub struct Haproxy {
    /// The process.
    pub process: Process,
    /// Its address (127.0.0.1).
    pub addr: SocketAddr,
    /// The address of its statistics page.
    stats: SocketAddr,
}

impl Haproxy {
    /// Starts one in front of `backends` (ports on 127.0.0.1), its configuration in `dir`,
    /// and waits until it accepts connections. Keep-alive on both sides (haproxy's default
    /// HTTP mode): each request of a client connection is balanced anew, and haproxy reuses
    /// its idle connections to the replicas.
    pub async fn start(program: &Path, backends: &[u16], dir: &Path) -> Result<Self, String> {
        let port = free_port()?;
        let stats = free_port()?;
        let servers: String = backends
            .iter()
            .enumerate()
            .map(|(i, backend)| format!("    server r{} 127.0.0.1:{backend}\n", i + 1))
            .collect();
        let config = format!(
            "global\n    maxconn 4096\n\
             defaults\n    mode http\n    timeout connect 1s\n    timeout client 60s\n    \
             timeout server 60s\n    timeout http-keep-alive 60s\n\
             frontend mcp\n    bind 127.0.0.1:{port}\n    default_backend replicas\n\
             backend replicas\n    balance roundrobin\n{servers}\
             listen stats\n    bind 127.0.0.1:{stats}\n    stats enable\n    stats uri /stats\n"
        );
        let file = dir.join("haproxy.cfg");
        std::fs::write(&file, config).map_err(|e| format!("writing {}: {e}", file.display()))?;
        let mut command = Command::new(program);
        command.arg("-db").arg("-f").arg(&file);
        let mut process = Process::spawn(command, "haproxy", dir.join("haproxy.log"))?;
        process.wait_listening(port).await?;
        process.wait_listening(stats).await?;
        Ok(Self {
            process,
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
            stats: SocketAddr::from(([127, 0, 0, 1], stats)),
        })
    }

    /// HTTP requests sent to each replica so far (`req_tot`, else `stot`, of the statistics
    /// page's CSV), in the order of the backends.
    pub async fn requests_per_replica(&self) -> Result<Vec<u64>, String> {
        let mut connection = Connection::connect(self.stats)
            .await
            .map_err(|e| format!("haproxy statistics: {e}"))?;
        let mut response = Response::default();
        connection
            .send("GET", "/stats;csv", &[], b"", &mut response)
            .await
            .map_err(|e| format!("haproxy statistics: {e}"))?;
        if response.status != 200 {
            return Err(format!("haproxy statistics: HTTP {}", response.status));
        }
        parse_stats(&String::from_utf8_lossy(&response.body))
    }
}

/// The requests per server of backend `replicas` in haproxy's CSV statistics.
fn parse_stats(csv: &str) -> Result<Vec<u64>, String> {
    let mut lines = csv.lines();
    let header = lines
        .next()
        .and_then(|h| h.strip_prefix("# "))
        .ok_or("haproxy statistics: no CSV header")?;
    let columns: Vec<&str> = header.split(',').collect();
    let column = |name: &str| columns.iter().position(|c| *c == name);
    let (px, sv) = (
        column("pxname").ok_or("no pxname column")?,
        column("svname").ok_or("no svname column")?,
    );
    let counters: Vec<usize> = ["req_tot", "stot"]
        .iter()
        .filter_map(|name| column(name))
        .collect();
    let mut per_server = Vec::new();
    for line in lines {
        let fields: Vec<&str> = line.split(',').collect();
        if fields.get(px) != Some(&"replicas") {
            continue;
        }
        let name = fields.get(sv).copied().unwrap_or("");
        if name == "BACKEND" || name == "FRONTEND" {
            continue;
        }
        // The first counter the server row fills.
        let value = counters
            .iter()
            .find_map(|&i| fields.get(i).and_then(|v| v.parse::<u64>().ok()))
            .unwrap_or(0);
        per_server.push(value);
    }
    Ok(per_server)
}

/// One replica: the example server over streamable HTTP on 127.0.0.1, its sessions in Redis
/// when a URL is given (`MCP_REDIS_URL`), else in its own memory.
pub async fn start_replica(
    program: &Path,
    redis_url: Option<&str>,
    name: &str,
    dir: &Path,
) -> Result<(Process, u16), String> {
    let port = free_port()?;
    let mut command = Command::new(program);
    command
        .arg("--http")
        .arg(port.to_string())
        .env_remove("MCP_REDIS_URL")
        .env_remove("MCP_REDIS_PREFIX")
        .env_remove("RUST_LOG");
    if let Some(url) = redis_url {
        command.env("MCP_REDIS_URL", url);
    }
    let mut process = Process::spawn(command, name, dir.join(format!("{name}.log")))?;
    process.wait_listening(port).await?;
    Ok((process, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_redis_counters() {
        let info = "# Stats\r\ntotal_net_input_bytes:100\r\ntotal_net_output_bytes:50\r\n\
                    # Commandstats\r\ncmdstat_evalsha:calls=7,usec=1\r\n\
                    cmdstat_info:calls=3,usec=1\r\ncmdstat_pexpire:calls=21,usec=4\r\n";
        let after = RedisCounters::parse(info);
        assert_eq!(after.total(), 28);
        assert_eq!(after.input_bytes, 100);
        let before = RedisCounters::parse("cmdstat_evalsha:calls=2,usec=1\r\n");
        let delta = after.since(&before);
        assert_eq!(delta.calls["evalsha"], 5);
        assert_eq!(delta.total(), 26);
    }

    #[test]
    fn reads_resp_answers() {
        assert!(!resp_complete(b"$5\r\nhel"));
        assert!(resp_complete(b"$5\r\nhello\r\n"));
        assert_eq!(resp_text(b"$5\r\nhello\r\n").unwrap(), "hello");
        assert_eq!(resp_text(b"+PONG\r\n").unwrap(), "PONG");
        assert!(resp_text(b"-ERR no\r\n").is_err());
    }

    #[test]
    fn reads_haproxy_statistics() {
        let csv = "# pxname,svname,stot,req_tot\nmcp,FRONTEND,9,9\nreplicas,r1,4,5\n\
                   replicas,r2,4,4\nreplicas,BACKEND,8,9\nstats,FRONTEND,1,1\n";
        assert_eq!(parse_stats(csv).unwrap(), vec![5, 4]);
    }
}
