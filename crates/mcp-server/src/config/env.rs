//! The `MCP_*` environment variables, which override the file.

use std::collections::HashMap;
use std::path::PathBuf;

use super::value::{self, invalid};
use super::{ConfigError, OAuthConfig, ServerConfig};
use crate::TlsConfig;

/// Every environment variable [`ServerConfig`] reads, with what it sets. Variables override
/// the file; an empty variable counts as unset; lists are comma-separated.
pub const ENV_VARS: &[(&str, &str)] = &[
    (
        "MCP_CONFIG",
        "the TOML file ServerConfig::from_env reads before the variables",
    ),
    ("MCP_SERVER_HOST", "server.host: the address to listen on"),
    (
        "MCP_SERVER_PORT",
        "server.port: the TCP port (0 picks a free one)",
    ),
    ("MCP_SERVER_PATH", "server.path: the MCP endpoint's path"),
    (
        "MCP_ENABLE_CORS",
        "http.cors: on when \"true\" in any case, otherwise off",
    ),
    (
        "MCP_ALLOWED_HOSTS",
        "http.allowed_hosts: accepted Host values, comma-separated",
    ),
    (
        "MCP_ALLOWED_ORIGINS",
        "http.allowed_origins: accepted Origin values, comma-separated",
    ),
    (
        "MCP_KEEP_ALIVE",
        "http.keep_alive: SSE keep-alive interval (\"0s\": none)",
    ),
    (
        "MCP_HEADER_READ_TIMEOUT",
        "http.header_read_timeout: how long a ready connection may take to send a request's headers",
    ),
    (
        "MCP_IDLE_TIMEOUT",
        "http.idle_timeout: how long a connection may go without traffic while no request is handled",
    ),
    (
        "MCP_MAX_CONNECTIONS",
        "http.max_connections: the most HTTP connections at once",
    ),
    (
        "MCP_METRICS",
        "server.metrics: GET /metrics (\"true\" or \"false\")",
    ),
    ("MCP_TLS_CERT", "tls.cert: PEM certificate chain file"),
    ("MCP_TLS_KEY", "tls.key: PEM private key file"),
    (
        "MCP_OPS_ENDPOINTS",
        "server.ops_endpoints: GET /health, /info, /tools (\"true\" or \"false\")",
    ),
    (
        "MCP_SHUTDOWN_GRACE",
        "server.shutdown_grace: how long requests in flight may run after shutdown began",
    ),
    (
        "MCP_SESSION_IDLE_TIMEOUT",
        "sessions.idle_timeout: how long a session may stay unused",
    ),
    (
        "MCP_MAX_SESSIONS",
        "sessions.max: the most stateful sessions at once",
    ),
    (
        "MCP_REDIS_URL",
        "sessions.redis_url: the Redis sessions are shared through (feature redis)",
    ),
    (
        "MCP_REDIS_PREFIX",
        "sessions.redis_prefix: the prefix of the keys and channels in that Redis",
    ),
    (
        "MCP_MAX_SESSIONS_PER_CLIENT",
        "sessions.max_per_client: the most stateful sessions of one client at once",
    ),
    (
        "MCP_MAX_MESSAGE_BYTES",
        "limits.max_message_bytes: the largest message accepted",
    ),
    (
        "MCP_PAGE_SIZE",
        "limits.page_size: entries per page of list results",
    ),
    (
        "MCP_MAX_IN_FLIGHT",
        "limits.max_in_flight: requests at once on one stdio or WebSocket connection",
    ),
    (
        "MCP_MAX_BATCH_LEN",
        "limits.max_batch_len: messages in one batch",
    ),
    (
        "MCP_BATCH_CONCURRENCY",
        "limits.batch_concurrency: requests of one batch running at once",
    ),
    (
        "MCP_MAX_BATCH_RESPONSE_BYTES",
        "limits.max_batch_response_bytes: the largest answer to one batch",
    ),
    (
        "MCP_TASK_TTL",
        "limits.task_ttl: how long a task is kept (0s: until the server stops)",
    ),
    (
        "MCP_TASK_POLL_INTERVAL",
        "limits.task_poll_interval: the polling pace advised to clients of a task",
    ),
    (
        "MCP_MAX_TASKS",
        "limits.max_tasks: tasks this process runs at once",
    ),
    (
        "MCP_AUTH_TOKENS",
        "auth.tokens: accepted bearer tokens, comma-separated",
    ),
    (
        "MCP_OAUTH_ISSUER",
        "auth.oauth.issuer: the authorization server",
    ),
    (
        "MCP_OAUTH_AUDIENCE",
        "auth.oauth.audience: this server's resource URI",
    ),
    (
        "MCP_OAUTH_JWKS_URL",
        "auth.oauth.jwks_url: the issuer's JWKS (default: discovered from its metadata)",
    ),
    (
        "MCP_SKILLS_DIR",
        "skills.dirs: folders of skills to serve (SEP-2640)",
    ),
];

/// A duration longer than zero.
fn positive(v: &str) -> Result<std::time::Duration, String> {
    value::duration(v).and_then(|d| {
        if d.is_zero() {
            Err(invalid(&value::quoted(v), "a duration longer than zero"))
        } else {
            Ok(d)
        }
    })
}

/// This process's variable `name`: `None` when unset or empty.
pub(super) fn read(name: &str) -> Result<Option<String>, ConfigError> {
    match std::env::var(name) {
        Ok(v) if v.trim().is_empty() => Ok(None),
        Ok(v) => Ok(Some(v)),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => {
            Err(ConfigError::new(None, name, "the value is not valid UTF-8"))
        }
    }
}

/// Applies the known variables among `vars` to `config`.
pub(super) fn apply<I, K, V>(config: &mut ServerConfig, vars: I) -> Result<(), ConfigError>
where
    I: IntoIterator<Item = (K, V)>,
    K: AsRef<str>,
    V: AsRef<str>,
{
    let mut set: HashMap<&'static str, String> = HashMap::new();
    for (name, v) in vars {
        let (name, v) = (name.as_ref(), v.as_ref());
        match ENV_VARS.iter().find(|(known, _)| *known == name) {
            Some((known, _)) if !v.trim().is_empty() => {
                set.insert(known, v.to_owned());
            }
            Some(_) => {}
            None => {
                let ours = ["MCP_SERVER_", "MCP_TLS_", "MCP_OAUTH_", "MCP_AUTH_"];
                if ours.iter().any(|p| name.starts_with(p)) {
                    let names: Vec<&str> = ENV_VARS.iter().map(|(n, _)| *n).collect();
                    let hint = value::suggestion(name, &names)
                        .map(|n| format!(" (did you mean {n}?)"))
                        .unwrap_or_default();
                    tracing::warn!(
                        "the environment variable {name} is not one mcp-server reads{hint}"
                    );
                }
            }
        }
    }
    let get = |name: &str| set.get(name).map(String::as_str);
    if let Some(v) = get("MCP_SKILLS_DIR") {
        config.skills_dirs = value::comma_list(v)
            .into_iter()
            .map(PathBuf::from)
            .collect();
    }

    if let Some(v) = get("MCP_SERVER_HOST") {
        config.host = check("MCP_SERVER_HOST", value::host(v))?;
    }
    if let Some(v) = get("MCP_SERVER_PORT") {
        config.port = check("MCP_SERVER_PORT", value::port(v))?;
    }
    if let Some(v) = get("MCP_SERVER_PATH") {
        config.path = check("MCP_SERVER_PATH", value::path(v))?;
    }
    if let Some(v) = get("MCP_ENABLE_CORS") {
        config.cors = value::env_bool("MCP_ENABLE_CORS", v);
    }
    if let Some(v) = get("MCP_ALLOWED_HOSTS") {
        config.allowed_hosts = Some(list("MCP_ALLOWED_HOSTS", v, value::host_entry)?);
    }
    if let Some(v) = get("MCP_ALLOWED_ORIGINS") {
        config.allowed_origins = Some(list("MCP_ALLOWED_ORIGINS", v, value::origin_entry)?);
    }
    if let Some(v) = get("MCP_KEEP_ALIVE") {
        let every = check("MCP_KEEP_ALIVE", value::duration(v))?;
        config.keep_alive = (!every.is_zero()).then_some(every);
    }
    if let Some(v) = get("MCP_OPS_ENDPOINTS") {
        config.ops_endpoints = value::env_bool("MCP_OPS_ENDPOINTS", v);
    }
    if let Some(v) = get("MCP_METRICS") {
        config.metrics = value::env_bool("MCP_METRICS", v);
    }
    if let Some(v) = get("MCP_HEADER_READ_TIMEOUT") {
        config.header_read_timeout = check("MCP_HEADER_READ_TIMEOUT", positive(v))?;
    }
    if let Some(v) = get("MCP_IDLE_TIMEOUT") {
        config.idle_timeout = check("MCP_IDLE_TIMEOUT", positive(v))?;
    }
    if let Some(v) = get("MCP_MAX_CONNECTIONS") {
        config.max_connections = check("MCP_MAX_CONNECTIONS", value::count(v))?;
    }
    if let Some(v) = get("MCP_SHUTDOWN_GRACE") {
        config.shutdown_grace = check("MCP_SHUTDOWN_GRACE", value::duration(v))?;
    }
    if let Some(v) = get("MCP_SESSION_IDLE_TIMEOUT") {
        config.session_idle_timeout = check("MCP_SESSION_IDLE_TIMEOUT", positive(v))?;
    }
    if let Some(v) = get("MCP_MAX_SESSIONS") {
        config.max_sessions = check("MCP_MAX_SESSIONS", value::count(v))?;
    }
    if let Some(v) = get("MCP_REDIS_URL") {
        config.redis_url = Some(check("MCP_REDIS_URL", value::redis_url(v))?);
    }
    if let Some(v) = get("MCP_REDIS_PREFIX") {
        config.redis_prefix = check("MCP_REDIS_PREFIX", value::redis_prefix(v))?;
    }
    if let Some(v) = get("MCP_MAX_SESSIONS_PER_CLIENT") {
        config.max_sessions_per_client = check("MCP_MAX_SESSIONS_PER_CLIENT", value::count(v))?;
    }
    if let Some(v) = get("MCP_MAX_MESSAGE_BYTES") {
        config.max_message_bytes = check("MCP_MAX_MESSAGE_BYTES", value::size(v))?;
    }
    if let Some(v) = get("MCP_PAGE_SIZE") {
        config.page_size = check("MCP_PAGE_SIZE", value::count(v))?;
    }
    if let Some(v) = get("MCP_MAX_IN_FLIGHT") {
        config.max_in_flight = check("MCP_MAX_IN_FLIGHT", value::count(v))?;
    }
    if let Some(v) = get("MCP_MAX_BATCH_LEN") {
        config.max_batch_len = check("MCP_MAX_BATCH_LEN", value::count(v))?;
    }
    if let Some(v) = get("MCP_BATCH_CONCURRENCY") {
        config.batch_concurrency = check("MCP_BATCH_CONCURRENCY", value::count(v))?;
    }
    if let Some(v) = get("MCP_MAX_BATCH_RESPONSE_BYTES") {
        config.max_batch_response_bytes = check("MCP_MAX_BATCH_RESPONSE_BYTES", value::size(v))?;
    }
    if let Some(v) = get("MCP_TASK_TTL") {
        config.task_ttl = Some(check("MCP_TASK_TTL", value::duration(v))?).filter(|d| !d.is_zero());
    }
    if let Some(v) = get("MCP_TASK_POLL_INTERVAL") {
        config.task_poll_interval = check("MCP_TASK_POLL_INTERVAL", value::duration(v))?;
    }
    if let Some(v) = get("MCP_MAX_TASKS") {
        config.max_tasks = check("MCP_MAX_TASKS", value::count(v))?;
    }

    let cert = get("MCP_TLS_CERT").map(PathBuf::from);
    let key = get("MCP_TLS_KEY").map(PathBuf::from);
    if cert.is_some() || key.is_some() {
        let current = config.tls.take();
        let cert = cert.or_else(|| current.as_ref().map(|t| t.cert.clone()));
        let key = key.or_else(|| current.as_ref().map(|t| t.key.clone()));
        config.tls = match (cert, key) {
            (Some(cert), Some(key)) => Some(TlsConfig::new(cert, key)),
            (Some(_), None) => {
                return Err(ConfigError::new(
                    None,
                    "MCP_TLS_KEY",
                    "missing (MCP_TLS_CERT is set; HTTPS needs both the certificate and the key)",
                ));
            }
            _ => {
                return Err(ConfigError::new(
                    None,
                    "MCP_TLS_CERT",
                    "missing (MCP_TLS_KEY is set; HTTPS needs both the certificate and the key)",
                ));
            }
        };
    }

    if let Some(v) = get("MCP_AUTH_TOKENS") {
        config.auth.tokens = value::comma_list(v)
            .into_iter()
            .map(str::to_owned)
            .collect();
    }
    let issuer = get("MCP_OAUTH_ISSUER");
    let audience = get("MCP_OAUTH_AUDIENCE");
    let jwks_url = get("MCP_OAUTH_JWKS_URL");
    if issuer.is_some() || audience.is_some() || jwks_url.is_some() {
        let current = config.auth.oauth.take();
        let issuer = issuer
            .map(|s| s.trim().to_owned())
            .or_else(|| current.as_ref().map(|o| o.issuer.clone()))
            .ok_or_else(|| oauth_missing("MCP_OAUTH_ISSUER", "the authorization server's URL"))?;
        let audience = audience
            .map(|s| s.trim().to_owned())
            .or_else(|| current.as_ref().map(|o| o.audience.clone()))
            .ok_or_else(|| oauth_missing("MCP_OAUTH_AUDIENCE", "this server's resource URI"))?;
        let mut oauth = OAuthConfig::new(issuer, audience);
        oauth.jwks_url = jwks_url
            .map(|s| s.trim().to_owned())
            .or_else(|| current.and_then(|o| o.jwks_url));
        config.auth.oauth = Some(oauth);
    }
    Ok(())
}

/// `parsed`, or its problem as the error of variable `name`.
fn check<T>(name: &str, parsed: Result<T, String>) -> Result<T, ConfigError> {
    parsed.map_err(|problem| ConfigError::new(None, name, problem))
}

fn oauth_missing(name: &str, expected: &str) -> ConfigError {
    ConfigError::new(
        None,
        name,
        format!(
            "missing (another MCP_OAUTH_* variable is set and an OAuth resource server needs \
             {expected})"
        ),
    )
}

fn list(
    name: &str,
    text: &str,
    parse: fn(&str) -> Result<String, String>,
) -> Result<Vec<String>, ConfigError> {
    value::comma_list(text)
        .into_iter()
        .map(|item| parse(item).map_err(|p| ConfigError::new(None, name, p)))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn with(vars: &[(&str, &str)]) -> Result<ServerConfig, ConfigError> {
        ServerConfig::default().with_vars(vars.iter().copied())
    }

    #[test]
    fn seed_004_variables() {
        let config = with(&[
            ("MCP_SERVER_HOST", "localhost"),
            ("MCP_SERVER_PORT", "8775"),
            ("MCP_ENABLE_CORS", "True"),
        ])
        .unwrap();
        assert_eq!(config.bind_address(), "localhost:8775");
        assert!(config.cors);
        assert!(!with(&[("MCP_ENABLE_CORS", "1")]).unwrap().cors);
        assert!(!with(&[("MCP_ENABLE_CORS", "false")]).unwrap().cors);
    }

    #[test]
    fn every_variable() {
        let config = with(&[
            ("MCP_SERVER_PATH", "/v2"),
            ("MCP_ALLOWED_HOSTS", "a.example, b.example:8443"),
            ("MCP_ALLOWED_ORIGINS", "https://app.example"),
            ("MCP_KEEP_ALIVE", "0s"),
            ("MCP_TLS_CERT", "c.pem"),
            ("MCP_TLS_KEY", "k.pem"),
            ("MCP_OPS_ENDPOINTS", "FALSE"),
            ("MCP_SHUTDOWN_GRACE", "250ms"),
            ("MCP_SESSION_IDLE_TIMEOUT", "2m"),
            ("MCP_MAX_SESSIONS", "5"),
            ("MCP_MAX_MESSAGE_BYTES", "64KiB"),
            ("MCP_PAGE_SIZE", "2"),
            ("MCP_TASK_TTL", "0s"),
            ("MCP_TASK_POLL_INTERVAL", "500ms"),
            ("MCP_MAX_TASKS", "3"),
            ("MCP_AUTH_TOKENS", "t1,t2"),
            ("MCP_OAUTH_ISSUER", "https://auth.example"),
            ("MCP_OAUTH_AUDIENCE", "https://mcp.example/mcp"),
            ("UNRELATED", "x"),
        ])
        .unwrap();
        assert_eq!(config.path, "/v2");
        assert_eq!(
            config.allowed_hosts.unwrap(),
            ["a.example", "b.example:8443"]
        );
        assert_eq!(config.allowed_origins.unwrap(), ["https://app.example"]);
        assert_eq!(config.keep_alive, None);
        assert_eq!(config.tls, Some(TlsConfig::new("c.pem", "k.pem")));
        assert!(!config.ops_endpoints);
        assert_eq!(config.shutdown_grace, Duration::from_millis(250));
        assert_eq!(config.session_idle_timeout, Duration::from_secs(120));
        assert_eq!(config.task_ttl, None, "0s: kept until the server stops");
        assert_eq!(config.task_poll_interval, Duration::from_millis(500));
        assert_eq!(config.max_tasks, 3);
        assert_eq!(config.max_sessions, 5);
        assert_eq!(config.max_message_bytes, 65_536);
        assert_eq!(config.page_size, 2);
        assert_eq!(config.auth.tokens, ["t1", "t2"]);
        assert_eq!(
            config.auth.oauth.unwrap().audience,
            "https://mcp.example/mcp"
        );
    }

    #[test]
    fn variables_override_the_file_field_by_field() {
        let file = ServerConfig::from_toml(
            "[server]\nport = 1000\nhost = \"::1\"\n[tls]\ncert = \"a.pem\"\nkey = \"b.pem\"",
        )
        .unwrap();
        let config = file
            .with_vars([
                ("MCP_SERVER_PORT", "2000"),
                ("MCP_TLS_KEY", "other.pem"),
                ("MCP_SERVER_HOST", ""),
            ])
            .unwrap();
        assert_eq!(config.port, 2000);
        assert_eq!(config.host, "::1", "an empty variable is unset");
        assert_eq!(config.tls, Some(TlsConfig::new("a.pem", "other.pem")));
    }

    #[test]
    fn the_redis_sessions_are_shared_through() {
        let config = with(&[
            ("MCP_REDIS_URL", "redis://:secret@10.0.0.5:6379/2"),
            ("MCP_REDIS_PREFIX", "billing"),
        ]);
        #[cfg(feature = "redis")]
        {
            let config = config.unwrap();
            assert_eq!(
                config.redis_url.as_deref(),
                Some("redis://:secret@10.0.0.5:6379/2")
            );
            assert_eq!(config.redis_prefix, "billing");
            let store = config.http_options().session_store;
            assert!(store.is_shared());
            assert_eq!(store.describe(), "Redis at redis://10.0.0.5:6379/2");
        }
        #[cfg(not(feature = "redis"))]
        assert!(config.unwrap_err().to_string().contains("feature `redis`"));
        let e = |vars: &[(&str, &str)]| with(vars).unwrap_err().to_string();
        let tls = e(&[("MCP_REDIS_URL", "rediss://:secret@host:6380")]);
        assert!(tls.starts_with("MCP_REDIS_URL: TLS to Redis"), "{tls}");
        let other = e(&[("MCP_REDIS_URL", "http://:secret@host")]);
        assert!(
            !other.contains("secret"),
            "a URL may hold a password: {other}"
        );
        assert!(e(&[("MCP_REDIS_PREFIX", "a b")]).starts_with("MCP_REDIS_PREFIX: invalid value"));
        assert!(!with(&[]).unwrap().http_options().session_store.is_shared());
    }

    #[test]
    fn problems_name_their_variable() {
        let e = |vars: &[(&str, &str)]| with(vars).unwrap_err().to_string();
        assert_eq!(
            e(&[("MCP_SERVER_PORT", "abc")]),
            "MCP_SERVER_PORT: invalid value \"abc\" (expected a port number 1-65535, or 0 for any \
             free port)"
        );
        assert!(
            e(&[("MCP_SERVER_PATH", "mcp")]).starts_with("MCP_SERVER_PATH: invalid value \"mcp\"")
        );
        assert!(
            e(&[("MCP_SHUTDOWN_GRACE", "later")]).starts_with("MCP_SHUTDOWN_GRACE: invalid value")
        );
        assert!(e(&[("MCP_PAGE_SIZE", "0")]).starts_with("MCP_PAGE_SIZE: invalid value \"0\""));
        assert!(
            e(&[("MCP_ALLOWED_ORIGINS", "app.example")])
                .starts_with("MCP_ALLOWED_ORIGINS: invalid value \"app.example\"")
        );
        assert_eq!(
            e(&[("MCP_TLS_CERT", "c.pem")]),
            "MCP_TLS_KEY: missing (MCP_TLS_CERT is set; HTTPS needs both the certificate and the \
             key)"
        );
        assert!(e(&[("MCP_OAUTH_ISSUER", "https://a")]).starts_with("MCP_OAUTH_AUDIENCE: missing"));
        let error = with(&[("MCP_MAX_SESSIONS", "many")]).unwrap_err();
        assert_eq!(error.field(), "MCP_MAX_SESSIONS");
        assert_eq!(error.file(), None);
    }
}
