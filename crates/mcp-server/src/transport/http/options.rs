//! What an HTTP endpoint accepts: its path, the `Host` and `Origin` allowlists (DNS rebinding
//! protection), CORS, session expiry and where resumable events are kept.

use std::sync::Arc;
use std::time::Duration;

use super::session_store::{MemorySessionStore, SessionStore};
use super::store::{EventStore, MemoryEventStore};

/// How a streamable HTTP endpoint behaves. Start from [`HttpOptions::default`] and change the
/// fields you need.
///
/// The defaults suit a server on the local machine: only loopback `Host` names and loopback
/// `Origin`s are accepted, which is what protects a local server from DNS rebinding (a web page
/// on another site making the browser talk to `localhost`). A server reachable under another
/// name must list it in [`allowed_hosts`](HttpOptions::allowed_hosts).
#[derive(Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    /// The path of the MCP endpoint (default `/mcp`).
    pub path: String,
    /// `Host` header values accepted (default: `localhost`, `127.0.0.1` and `[::1]`). An entry
    /// without a port accepts that host on any port; `host:port` accepts exactly that port;
    /// `*` accepts any host. Names compare case-insensitively. Other hosts get `403 Forbidden`.
    /// [`Server::bind_http`](crate::Server::bind_http) also accepts the literal address it
    /// bound (unless it is `0.0.0.0` or `::`).
    pub allowed_hosts: Vec<String>,
    /// `Origin` header values accepted (default: `http` and `https` origins of `localhost`,
    /// `127.0.0.1` and `[::1]` on any port). An entry is `scheme://host` (any port),
    /// `scheme://host:port` (that port) or `*` (any origin). Requests without an `Origin`
    /// header (non-browser clients) are always accepted; other origins get `403 Forbidden`.
    pub allowed_origins: Vec<String>,
    /// Adds CORS headers for browser clients (default `false`): `Access-Control-Allow-Origin:
    /// *`, the methods `GET, POST, DELETE, OPTIONS`, the MCP request headers, and
    /// `Mcp-Session-Id` exposed; preflight `OPTIONS` requests are answered. The `Origin`
    /// allowlist still applies: add the origins of the web apps that may call the server.
    pub cors: bool,
    /// How long a stateful session may stay unused before it is removed (default 30 minutes).
    /// A session with a request in flight or an open stream is never idle.
    pub session_idle_timeout: Duration,
    /// How often idle sessions are looked for (default 60 s, never more than
    /// `session_idle_timeout`): a session goes at most this long after its timeout.
    pub session_sweep_interval: Duration,
    /// The most stateful sessions alive at once (default 100,000); `initialize` beyond it gets
    /// `503 Service Unavailable`.
    pub max_sessions: usize,
    /// The most stateful sessions one client may have at once (default 100): one client is
    /// the authenticated principal, or without authentication the peer's IP address. Its
    /// `initialize` beyond it gets `429 Too Many Requests`, so that one client cannot take
    /// every session of the server.
    pub max_sessions_per_client: usize,
    /// Where the events of SSE streams are kept so that a client that lost its connection can
    /// resume with `Last-Event-ID` (default: a bounded [`MemoryEventStore`]). With a shared
    /// [`session_store`](Self::session_store) it holds the events of this replica's streams,
    /// and the session store those of every replica.
    pub event_store: Arc<dyn EventStore>,
    /// Where stateful sessions live (default: [`MemorySessionStore`], this process). A shared
    /// store (`RedisSessionStore`, feature `redis`) lets several replicas of the server serve
    /// every session behind a load balancer without stickiness; it is started when the
    /// endpoint binds (with [`Server::http_router`](crate::Server::http_router), await
    /// [`HttpSessions::start`](super::HttpSessions::start) before serving).
    pub session_store: Arc<dyn SessionStore>,
    /// An SSE comment is sent on a stream that carried nothing for this long (default 15 s),
    /// so that intermediaries and client idle timeouts do not close long-lived streams
    /// (`subscriptions/listen`, the GET stream). `None` sends none.
    pub keep_alive: Option<Duration>,
    /// Serves `GET /health`, `GET /info` and `GET /tools` beside the MCP endpoint on the same
    /// port (default `true`), behind the same `Host`/`Origin` checks; see the crate's
    /// `docs/server_http.md`, "Operations endpoints".
    pub ops_endpoints: bool,
    /// Serves HTTPS with this certificate and key (default `None`: plain HTTP); needs the
    /// crate feature `tls`. The files are read when the endpoint binds.
    pub tls: Option<super::TlsConfig>,
    /// How long requests in flight may still run once [`Server::shutdown`](crate::Server::shutdown)
    /// was called (default 30 s): then [`HttpServer::wait`](super::HttpServer::wait) returns
    /// even if some are still running (they are abandoned and end with the process).
    pub shutdown_grace: Duration,
    /// Authenticates every request (default none). A failure is `401` with a `Bearer`
    /// challenge; a stateful session belongs to the principal that initialized it.
    pub auth: Option<Arc<dyn crate::auth::Authenticator>>,
    /// The RFC 9728 protected-resource metadata to publish and to name in challenges
    /// (default none).
    pub resource_metadata: Option<super::auth::ProtectedResourceMetadata>,
    /// The path of the WebSocket endpoint on the same port (default `/ws`; subprotocol `mcp`,
    /// one JSON-RPC message per text frame). `None` serves no WebSocket. It must differ from
    /// [`path`](HttpOptions::path); a clash leaves WebSocket off and logs an error.
    pub websocket_path: Option<String>,
    /// The largest WebSocket message accepted, in bytes (default `None`: the server's
    /// [`ServerOptions::max_message_bytes`](crate::ServerOptions::max_message_bytes), 16 MiB
    /// unless changed). A larger frame or message is answered with a `-32600` error naming the
    /// limit and the connection is closed with code 1009 (the WebSocket library cannot skip
    /// the rest of an oversized frame).
    pub websocket_max_message_bytes: Option<usize>,
    /// How often the server pings each WebSocket client (default 30 s); a client that leaves
    /// two pings in a row without a pong is closed with code 1011. `None` (or zero) sends no
    /// pings.
    pub websocket_ping_interval: Option<Duration>,
    /// How long a connection has, once it is ready for a request (just accepted, or after its
    /// previous response), to send the request's complete headers (default 10 s); then it is
    /// closed. This ends slowloris clients that trickle header bytes, and it is also how long
    /// an unused keep-alive connection stays open.
    /// ([`Server::bind_http`](crate::Server::bind_http) only; with
    /// [`Server::http_router`](crate::Server::http_router) the application serves the
    /// connections.)
    pub header_read_timeout: Duration,
    /// A connection that neither sends nor receives a byte for this long while none of its
    /// requests is being handled is closed (default 60 s), at the latest twice this long
    /// after its last byte: a client that stopped reading its response. A request body that stops arriving for this long is answered
    /// `408 Request Timeout`. Keep it above [`keep_alive`](Self::keep_alive), which keeps
    /// quiet SSE streams busy. (`bind_http` only, except the body rule.)
    pub idle_timeout: Duration,
    /// The most HTTP connections open at once (default 10,000; keep it below the process's
    /// open-file limit, `ulimit -n`). At the cap the listener stops accepting until one
    /// closes: new clients wait in the kernel's backlog. Connections upgraded to WebSocket are
    /// not counted. (`bind_http` only.)
    pub max_connections: usize,
}

impl HttpOptions {
    /// Shares stateful sessions through the Redis that `MCP_REDIS_URL` names, when it is set
    /// and not empty (with `MCP_REDIS_PREFIX` as the key prefix when set); otherwise returns
    /// the options as they are.
    ///
    /// # Errors
    ///
    /// The variable is set but is not a Redis URL, or the crate lacks feature `redis`.
    pub fn session_store_from_env(self) -> std::io::Result<Self> {
        let set = std::env::var("MCP_REDIS_URL").is_ok_and(|url| !url.is_empty());
        if !set {
            return Ok(self);
        }
        #[cfg(feature = "redis")]
        {
            let store = super::RedisSessionStore::from_env()
                .expect("MCP_REDIS_URL is set")
                .map_err(|e| std::io::Error::other(format!("MCP_REDIS_URL: {e}")))?;
            Ok(Self {
                session_store: Arc::new(store),
                ..self
            })
        }
        #[cfg(not(feature = "redis"))]
        Err(std::io::Error::other(
            "MCP_REDIS_URL is set, but mcp-server was built without its feature `redis`",
        ))
    }
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            path: "/mcp".to_owned(),
            allowed_hosts: LOOPBACK.iter().map(|h| (*h).to_owned()).collect(),
            allowed_origins: LOOPBACK
                .iter()
                .flat_map(|h| [format!("http://{h}"), format!("https://{h}")])
                .collect(),
            cors: false,
            session_idle_timeout: Duration::from_secs(30 * 60),
            session_sweep_interval: Duration::from_secs(60),
            max_sessions: 100_000,
            max_sessions_per_client: 100,
            event_store: Arc::new(MemoryEventStore::default()),
            session_store: Arc::new(MemorySessionStore),
            keep_alive: Some(Duration::from_secs(15)),
            ops_endpoints: true,
            tls: None,
            shutdown_grace: Duration::from_secs(30),
            auth: None,
            resource_metadata: None,
            websocket_path: Some("/ws".to_owned()),
            websocket_max_message_bytes: None,
            websocket_ping_interval: Some(Duration::from_secs(30)),
            header_read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            max_connections: 10_000,
        }
    }
}

impl std::fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpOptions")
            .field("path", &self.path)
            .field("allowed_hosts", &self.allowed_hosts)
            .field("allowed_origins", &self.allowed_origins)
            .field("cors", &self.cors)
            .field("session_idle_timeout", &self.session_idle_timeout)
            .field("session_sweep_interval", &self.session_sweep_interval)
            .field("max_sessions", &self.max_sessions)
            .field("max_sessions_per_client", &self.max_sessions_per_client)
            .field("session_store", &self.session_store.describe())
            .field("keep_alive", &self.keep_alive)
            .field("ops_endpoints", &self.ops_endpoints)
            .field("tls", &self.tls)
            .field("shutdown_grace", &self.shutdown_grace)
            .field("websocket_path", &self.websocket_path)
            .field("header_read_timeout", &self.header_read_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("max_connections", &self.max_connections)
            .field(
                "websocket_max_message_bytes",
                &self.websocket_max_message_bytes,
            )
            .field("websocket_ping_interval", &self.websocket_ping_interval)
            .finish_non_exhaustive()
    }
}

const LOOPBACK: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// A host (lowercase; IPv6 in brackets) and an optional port.
fn split_authority(authority: &str) -> Option<(String, Option<u16>)> {
    let authority = authority.trim();
    if authority.is_empty() {
        return None;
    }
    let (host, port) = if authority.starts_with('[') {
        let end = authority.find(']')?;
        let (host, rest) = authority.split_at(end + 1);
        match rest {
            "" => (host, None),
            _ => (host, Some(rest.strip_prefix(':')?)),
        }
    } else {
        match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    if host.is_empty() || host.contains(['/', '@', ' ']) {
        return None;
    }
    let port = match port {
        None => None,
        Some(p) => Some(p.parse::<u16>().ok()?),
    };
    Some((host.to_ascii_lowercase(), port))
}

/// An allowlist entry: `*`, or a scheme (origins only), a host and maybe a port.
#[derive(Debug, Clone)]
enum Rule {
    Any,
    Exact {
        scheme: Option<String>,
        host: String,
        port: Option<u16>,
    },
}

impl Rule {
    fn host(entry: &str) -> Option<Self> {
        if entry.trim() == "*" {
            return Some(Rule::Any);
        }
        let (host, port) = split_authority(entry)?;
        Some(Rule::Exact {
            scheme: None,
            host,
            port,
        })
    }

    fn origin(entry: &str) -> Option<Self> {
        if entry.trim() == "*" {
            return Some(Rule::Any);
        }
        let (scheme, host, port) = split_origin(entry)?;
        Some(Rule::Exact {
            scheme: Some(scheme),
            host,
            port,
        })
    }

    fn matches(&self, scheme: Option<&str>, host: &str, port: Option<u16>) -> bool {
        match self {
            Rule::Any => true,
            Rule::Exact {
                scheme: s,
                host: h,
                port: p,
            } => s.as_deref() == scheme && h == host && (p.is_none() || *p == port),
        }
    }
}

fn split_origin(origin: &str) -> Option<(String, String, Option<u16>)> {
    let (scheme, rest) = origin.trim().split_once("://")?;
    if scheme.is_empty() || rest.contains('/') {
        return None;
    }
    let (host, port) = split_authority(rest)?;
    Some((scheme.to_ascii_lowercase(), host, port))
}

/// The allowlists, parsed once.
#[derive(Debug, Clone)]
pub(super) struct Guard {
    hosts: Vec<Rule>,
    origins: Vec<Rule>,
}

impl Guard {
    pub(super) fn new(options: &HttpOptions) -> Self {
        let parse = |entries: &[String], rule: fn(&str) -> Option<Rule>, what: &str| {
            entries
                .iter()
                .filter_map(|e| {
                    let parsed = rule(e);
                    if parsed.is_none() {
                        tracing::warn!(entry = %e, "an {what} entry is malformed and was ignored");
                    }
                    parsed
                })
                .collect()
        };
        Self {
            hosts: parse(&options.allowed_hosts, Rule::host, "allowed_hosts"),
            origins: parse(&options.allowed_origins, Rule::origin, "allowed_origins"),
        }
    }

    /// Accepts also `addr`'s literal IP (the address a listener bound).
    pub(super) fn allow_bound(&mut self, addr: std::net::SocketAddr) {
        if addr.ip().is_unspecified() || self.hosts.iter().any(|r| matches!(r, Rule::Any)) {
            return;
        }
        let host = match addr.ip() {
            std::net::IpAddr::V4(ip) => ip.to_string(),
            std::net::IpAddr::V6(ip) => format!("[{ip}]"),
        };
        self.hosts.push(Rule::Exact {
            scheme: None,
            host,
            port: None,
        });
    }

    pub(super) fn host_allowed(&self, host: &str) -> bool {
        split_authority(host)
            .is_some_and(|(h, p)| self.hosts.iter().any(|r| r.matches(None, &h, p)))
    }

    pub(super) fn origin_allowed(&self, origin: &str) -> bool {
        split_origin(origin)
            .is_some_and(|(s, h, p)| self.origins.iter().any(|r| r.matches(Some(&s), &h, p)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_allows_loopback_only() {
        let g = Guard::new(&HttpOptions::default());
        for ok in [
            "localhost",
            "LOCALHOST:3000",
            "127.0.0.1:8080",
            "[::1]:1",
            "[::1]",
        ] {
            assert!(g.host_allowed(ok), "{ok}");
        }
        for bad in [
            "evil.example.com",
            "evil.example.com:80",
            "127.0.0.2",
            "",
            "[::1",
            "localhost:x",
        ] {
            assert!(!g.host_allowed(bad), "{bad}");
        }
        for ok in [
            "http://localhost:5173",
            "https://127.0.0.1",
            "http://[::1]:9",
        ] {
            assert!(g.origin_allowed(ok), "{ok}");
        }
        for bad in [
            "null",
            "http://evil.example.com",
            "ftp://localhost",
            "localhost",
            "http://localhost/x",
        ] {
            assert!(!g.origin_allowed(bad), "{bad}");
        }
    }

    #[test]
    fn ports_wildcards_and_bound_addresses() {
        let options = HttpOptions {
            allowed_hosts: vec!["example.com:8080".into()],
            allowed_origins: vec!["*".into()],
            ..HttpOptions::default()
        };
        let mut g = Guard::new(&options);
        assert!(g.host_allowed("Example.com:8080"));
        assert!(!g.host_allowed("example.com:8081"));
        assert!(!g.host_allowed("example.com"));
        assert!(g.origin_allowed("https://anything.example"));
        g.allow_bound("10.1.2.3:9000".parse().unwrap());
        assert!(g.host_allowed("10.1.2.3:9000"));
        g.allow_bound("0.0.0.0:9000".parse().unwrap());
        assert!(!g.host_allowed("0.0.0.0:9000"));
    }
}
