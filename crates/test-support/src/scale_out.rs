//! What the scale-out tests run their replicas with: a real `redis-server` (the shared session
//! store) and a real `haproxy` (round-robin, no stickiness), each started on a free port with
//! its files in a directory of the test's, and killed when dropped. Both come from the Debian
//! packages `scripts/install-system-deps.sh` installs; a test fails, saying so, without them.
//!
//! [`Cluster`] puts them together: a store, replicas of a server program (each a real process
//! sharing its sessions through the store) and a balancer in front of them. The balancer names
//! the replica that answered each response in the [`SERVED_BY`] header, and the store tells
//! which replica writes which stream ([`Cluster::streams`]), so that a test can prove where
//! each step of a session ran.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};

use crate::{ServerProcess, free_port, start_http_server};

/// The response header in which the balancer names the replica that answered (`r1`, `r2`, …:
/// [`Replica::name`]).
pub const SERVED_BY: &str = "x-served-by";

/// The prefix of the store's keys (the session store's default).
pub const PREFIX: &str = "mcp";

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

    /// Runs one command (`["HGETALL", key]`) on a connection of its own and returns the
    /// answer; panics when the store cannot be reached.
    pub async fn command(&self, args: &[&str]) -> Reply {
        let stream = TcpStream::connect(("127.0.0.1", self.port))
            .await
            .unwrap_or_else(|e| panic!("redis-server on port {}: {e}", self.port));
        let mut stream = BufReader::new(stream);
        let mut request = format!("*{}\r\n", args.len()).into_bytes();
        for arg in args {
            request.extend_from_slice(format!("${}\r\n", arg.len()).as_bytes());
            request.extend_from_slice(arg.as_bytes());
            request.extend_from_slice(b"\r\n");
        }
        let exchange = async {
            stream.get_mut().write_all(&request).await?;
            Reply::read(&mut stream).await
        };
        tokio::time::timeout(Duration::from_secs(5), exchange)
            .await
            .unwrap_or_else(|_| panic!("redis-server did not answer {args:?} within 5 s"))
            .unwrap_or_else(|e| panic!("redis-server answered {args:?} unreadably: {e}"))
    }

    /// The keys matching `pattern` (`mcp:*`), sorted.
    pub async fn keys(&self, pattern: &str) -> Vec<String> {
        let mut keys = self.command(&["KEYS", pattern]).await.strings();
        keys.sort();
        keys
    }
}

/// An answer of Redis (RESP2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// A missing value.
    Nil,
    /// `+OK` and the like.
    Status(String),
    /// `-ERR …`.
    Error(String),
    /// `:N`.
    Integer(i64),
    /// A string (as UTF-8, lossily).
    Bulk(String),
    /// A list of answers.
    Array(Vec<Reply>),
}

impl Reply {
    fn read<'a>(
        stream: &'a mut BufReader<TcpStream>,
    ) -> std::pin::Pin<Box<dyn Future<Output = std::io::Result<Reply>> + Send + 'a>> {
        Box::pin(async move {
            let mut line = String::new();
            stream.read_line(&mut line).await?;
            let line = line.trim_end_matches(['\r', '\n']);
            let bad = || std::io::Error::other(format!("not RESP: {line:?}"));
            let (kind, rest) = line.split_at_checked(1).ok_or_else(bad)?;
            let number = || rest.parse::<i64>().map_err(|_| bad());
            Ok(match kind {
                "+" => Reply::Status(rest.to_owned()),
                "-" => Reply::Error(rest.to_owned()),
                ":" => Reply::Integer(number()?),
                "$" if number()? < 0 => Reply::Nil,
                "$" => {
                    let mut data = vec![0; usize::try_from(number()?).map_err(|_| bad())? + 2];
                    stream.read_exact(&mut data).await?;
                    data.truncate(data.len() - 2);
                    Reply::Bulk(String::from_utf8_lossy(&data).into_owned())
                }
                "*" if number()? < 0 => Reply::Nil,
                "*" => {
                    let mut items = Vec::new();
                    for _ in 0..number()? {
                        items.push(Reply::read(stream).await?);
                    }
                    Reply::Array(items)
                }
                _ => return Err(bad()),
            })
        })
    }

    /// The strings of an array answer (or the one string of a string answer).
    pub fn strings(self) -> Vec<String> {
        match self {
            Reply::Array(items) => items.into_iter().flat_map(Reply::strings).collect(),
            Reply::Bulk(s) | Reply::Status(s) => vec![s],
            _ => Vec::new(),
        }
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
    /// a request that could not connect is retried on another, and every response names the
    /// backend that answered it (`r1` for the first, …) in the [`SERVED_BY`] header.
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
             backend replicas\n    balance roundrobin\n    \
             http-response set-header {SERVED_BY} %[srv_name]\n{servers}"
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

/// Checks `condition` every 50 ms until it yields a value, and returns it; panics, naming
/// `what`, when that takes longer than `within`. For conditions that no event announces
/// (a key in the store, a replica's view of itself), never as a pause.
pub async fn wait_for<T, F, Fut>(what: &str, within: Duration, mut condition: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + within;
    loop {
        if let Some(value) = condition().await {
            return value;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{what}: not within {within:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// One replica of a [`Cluster`]: a server process of its own.
pub struct Replica {
    /// Its name at the balancer (`r1`, `r2`, …), as the [`SERVED_BY`] header gives it.
    pub name: String,
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// Its id in the store (its heartbeat is `mcp:replica:ID`; it owns the streams it writes).
    pub id: String,
    process: ServerProcess,
}

impl Replica {
    /// `http://127.0.0.1:PORT`, its own (not through the balancer).
    pub fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Its own MCP endpoint.
    pub fn url(&self) -> &str {
        &self.process.url
    }

    /// Kills it (`SIGKILL`: a crash, nothing said to anyone) and waits until it is gone.
    pub async fn kill(&mut self) {
        let _ = self.process.child.kill().await;
    }
}

/// A stream as the store records it: who writes it, for which request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredStream {
    /// The stream's number (`0`: the session's GET stream).
    pub number: u64,
    /// The id of the replica writing it ([`Replica::id`]).
    pub owner: String,
    /// The JSON-RPC id (as JSON) of the request whose response it carries.
    pub request: Option<String>,
}

/// A store, replicas of one server program sharing their sessions through it, and a balancer
/// in front of them (round-robin per request, no stickiness).
pub struct Cluster {
    /// The shared store.
    pub redis: Redis,
    /// The replicas, in the balancer's order (`r1` first).
    pub replicas: Vec<Replica>,
    /// The balancer.
    pub balancer: Haproxy,
}

impl Cluster {
    /// Starts a `redis-server`, then `count` replicas (`PROGRAM --http PORT` with
    /// `MCP_REDIS_URL`, each awaited until it says it listens and its heartbeat is in the
    /// store, which gives its id), then an `haproxy` in front of them; their files in `dir`.
    pub async fn start(program: &Path, count: usize, dir: &Path) -> Self {
        let redis = Redis::start(dir).await;
        let mut replicas: Vec<Replica> = Vec::new();
        for i in 1..=count {
            let name = format!("r{i}");
            let port = free_port();
            let mut command = Command::new(program);
            command
                .args(["--http", &port.to_string()])
                .env("MCP_REDIS_URL", &redis.url)
                .env_remove("MCP_REDIS_PREFIX")
                .kill_on_drop(true);
            // The label of its log lines lives as long as the test.
            let label: &'static str = Box::leak(format!("replica {name}").into_boxed_str());
            let process = start_http_server(command, port, label, "listening on http://").await;
            let heartbeat = format!("{PREFIX}:replica:");
            let id = wait_for(
                &format!("replica {name}'s heartbeat in the store"),
                READY_WITHIN,
                || async {
                    redis
                        .keys(&format!("{heartbeat}*"))
                        .await
                        .into_iter()
                        .filter_map(|key| key.strip_prefix(&heartbeat).map(str::to_owned))
                        .find(|id| replicas.iter().all(|r| r.id != *id))
                },
            )
            .await;
            replicas.push(Replica {
                name,
                port,
                id,
                process,
            });
        }
        let ports: Vec<u16> = replicas.iter().map(|r| r.port).collect();
        let balancer = Haproxy::start(&ports, dir).await;
        Self {
            redis,
            replicas,
            balancer,
        }
    }

    /// The MCP endpoint through the balancer.
    pub fn url(&self) -> String {
        format!("{}/mcp", self.balancer.origin())
    }

    /// The replica the balancer calls `name`.
    pub fn named(&self, name: &str) -> &Replica {
        self.replicas
            .iter()
            .find(|r| r.name == name)
            .unwrap_or_else(|| panic!("no replica is called {name:?}"))
    }

    /// Kills the replica the balancer calls `name` ([`Replica::kill`]).
    pub async fn kill(&mut self, name: &str) {
        let replica = self
            .replicas
            .iter_mut()
            .find(|r| r.name == name)
            .unwrap_or_else(|| panic!("no replica is called {name:?}"));
        replica.kill().await;
    }

    /// The replica whose id in the store is `id`.
    pub fn with_id(&self, id: &str) -> &Replica {
        self.replicas
            .iter()
            .find(|r| r.id == id)
            .unwrap_or_else(|| panic!("no replica has the id {id:?}"))
    }

    /// The streams of `session` the store records, by number.
    pub async fn streams(&self, session: &str) -> Vec<StoredStream> {
        let key = format!("{PREFIX}:{{{session}}}:streams");
        let fields = self.redis.command(&["HGETALL", &key]).await.strings();
        let mut streams: Vec<StoredStream> = fields
            .chunks(2)
            .filter_map(|pair| {
                let meta: Value = serde_json::from_str(pair.get(1)?).ok()?;
                Some(StoredStream {
                    number: pair[0].parse().ok()?,
                    owner: meta["owner"].as_str()?.to_owned(),
                    request: meta["request"].as_str().map(str::to_owned),
                })
            })
            .collect();
        streams.sort_by_key(|s| s.number);
        streams
    }

    /// The keys of `session` in the store.
    pub async fn session_keys(&self, session: &str) -> Vec<String> {
        self.redis.keys(&format!("{PREFIX}:{{{session}}}:*")).await
    }
}
