//! The TOML file: sections `[server]`, `[http]`, `[tls]`, `[sessions]`, `[limits]`,
//! `[skills]` and `[auth]` (with `[auth.oauth]`). Every key is checked by hand rather than by serde, so
//! that each problem names its key (`server.port`), the value and what was expected, and
//! unknown keys are refused by name.

use std::path::{Path, PathBuf};
use std::time::Duration;

use toml::{Table, Value};

use super::value::{self, invalid};
use super::{AuthConfig, ConfigError, OAuthConfig, ServerConfig};
use crate::TlsConfig;

const SECTIONS: &[&str] = &[
    "server", "http", "tls", "sessions", "limits", "skills", "auth",
];

/// Parses `text` over `config`; `path` names the file in errors and anchors relative TLS
/// paths. The sections named in `extra` belong to the application and are returned as they
/// are.
pub(super) fn parse(
    mut config: ServerConfig,
    text: &str,
    path: Option<&Path>,
    extra: &[&str],
) -> Result<(ServerConfig, Table), ConfigError> {
    let origin = path.map(|p| p.display().to_string());
    let origin = origin.as_deref();
    let mut root: Table = text.parse().map_err(|e: toml::de::Error| {
        ConfigError::new(
            origin,
            "",
            format!("not valid TOML: {}", e.to_string().trim_end()),
        )
    })?;
    let base = path.and_then(Path::parent);
    let mut application = Table::new();
    for name in extra {
        if let Some(section) = root.remove(*name) {
            application.insert((*name).to_owned(), section);
        }
    }

    let mut s = Section::take(&mut root, "server", origin)?;
    if let Some(v) = s.string("host", value::HOST)? {
        config.host = s.check("host", value::host(&v))?;
    }
    if let Some(v) = s.get("port") {
        config.port = s.check("port", port(&v))?;
    }
    if let Some(v) = s.string("path", value::PATH)? {
        config.path = s.check("path", value::path(&v))?;
    }
    if let Some(v) = s.bool("ops_endpoints")? {
        config.ops_endpoints = v;
    }
    if let Some(v) = s.bool("metrics")? {
        config.metrics = v;
    }
    if let Some(v) = s.get("shutdown_grace") {
        config.shutdown_grace = s.check("shutdown_grace", duration(&v))?;
    }
    s.finish(&[
        "host",
        "port",
        "path",
        "ops_endpoints",
        "metrics",
        "shutdown_grace",
    ])?;

    let mut s = Section::take(&mut root, "http", origin)?;
    if let Some(v) = s.bool("cors")? {
        config.cors = v;
    }
    if let Some(list) = s.strings("allowed_hosts", value::HOST_ENTRY)? {
        config.allowed_hosts = Some(s.each("allowed_hosts", list, value::host_entry)?);
    }
    if let Some(list) = s.strings("allowed_origins", value::ORIGIN_ENTRY)? {
        config.allowed_origins = Some(s.each("allowed_origins", list, value::origin_entry)?);
    }
    if let Some(v) = s.get("keep_alive") {
        let every = s.check("keep_alive", duration(&v))?;
        config.keep_alive = (!every.is_zero()).then_some(every);
    }
    if let Some(v) = s.get("header_read_timeout") {
        config.header_read_timeout = s.check("header_read_timeout", positive(duration(&v)))?;
    }
    if let Some(v) = s.get("idle_timeout") {
        config.idle_timeout = s.check("idle_timeout", positive(duration(&v)))?;
    }
    if let Some(v) = s.get("max_connections") {
        config.max_connections = s.check("max_connections", count(&v))?;
    }
    s.finish(&[
        "cors",
        "allowed_hosts",
        "allowed_origins",
        "keep_alive",
        "header_read_timeout",
        "idle_timeout",
        "max_connections",
    ])?;

    let mut s = Section::take(&mut root, "tls", origin)?;
    let cert = s.string("cert", "the path of a PEM certificate file")?;
    let key = s.string("key", "the path of a PEM private key file")?;
    let anchored = |p: String| -> PathBuf {
        let p = PathBuf::from(p);
        match base {
            Some(dir) if p.is_relative() => dir.join(p),
            _ => p,
        }
    };
    config.tls = match (cert, key) {
        (Some(cert), Some(key)) => Some(TlsConfig::new(anchored(cert), anchored(key))),
        (None, None) => None,
        (Some(_), None) => return Err(s.error("key", both_tls("tls.cert"))),
        (None, Some(_)) => return Err(s.error("cert", both_tls("tls.key"))),
    };
    s.finish(&["cert", "key"])?;

    let mut s = Section::take(&mut root, "sessions", origin)?;
    if let Some(v) = s.get("idle_timeout") {
        config.session_idle_timeout = s.check("idle_timeout", positive(duration(&v)))?;
    }
    if let Some(v) = s.get("sweep_interval") {
        config.session_sweep_interval = s.check("sweep_interval", positive(duration(&v)))?;
    }
    if let Some(v) = s.get("max") {
        config.max_sessions = s.check("max", count(&v))?;
    }
    if let Some(v) = s.get("max_per_client") {
        config.max_sessions_per_client = s.check("max_per_client", count(&v))?;
    }
    if let Some(v) = s.string("redis_url", value::REDIS_URL)? {
        config.redis_url = Some(s.check("redis_url", value::redis_url(&v))?);
    }
    if let Some(v) = s.string("redis_prefix", value::REDIS_PREFIX)? {
        config.redis_prefix = s.check("redis_prefix", value::redis_prefix(&v))?;
    }
    s.finish(&[
        "idle_timeout",
        "sweep_interval",
        "max",
        "max_per_client",
        "redis_url",
        "redis_prefix",
    ])?;

    let mut s = Section::take(&mut root, "limits", origin)?;
    if let Some(v) = s.get("max_message_bytes") {
        config.max_message_bytes = s.check("max_message_bytes", size(&v))?;
    }
    if let Some(v) = s.get("page_size") {
        config.page_size = s.check("page_size", count(&v))?;
    }
    if let Some(v) = s.get("max_in_flight") {
        config.max_in_flight = s.check("max_in_flight", count(&v))?;
    }
    if let Some(v) = s.get("max_batch_len") {
        config.max_batch_len = s.check("max_batch_len", count(&v))?;
    }
    if let Some(v) = s.get("batch_concurrency") {
        config.batch_concurrency = s.check("batch_concurrency", count(&v))?;
    }
    if let Some(v) = s.get("max_batch_response_bytes") {
        config.max_batch_response_bytes = s.check("max_batch_response_bytes", size(&v))?;
    }
    if let Some(v) = s.get("task_ttl") {
        config.task_ttl = Some(s.check("task_ttl", duration(&v))?).filter(|d| !d.is_zero());
    }
    if let Some(v) = s.get("task_poll_interval") {
        config.task_poll_interval = s.check("task_poll_interval", duration(&v))?;
    }
    if let Some(v) = s.get("max_tasks") {
        config.max_tasks = s.check("max_tasks", count(&v))?;
    }
    s.finish(&[
        "max_message_bytes",
        "page_size",
        "max_in_flight",
        "max_batch_len",
        "batch_concurrency",
        "max_batch_response_bytes",
        "task_ttl",
        "task_poll_interval",
        "max_tasks",
    ])?;

    let mut s = Section::take(&mut root, "skills", origin)?;
    if let Some(dirs) = s.strings("dirs", "the path of a folder of skills")? {
        config.skills_dirs = dirs.into_iter().map(&anchored).collect();
    }
    s.finish(&["dirs"])?;

    config.auth = auth(&mut root, origin)?;

    if let Some(key) = root.keys().next() {
        let sections: Vec<&str> = SECTIONS.iter().chain(extra).copied().collect();
        let problem = match value::suggestion(key, &sections) {
            Some(close) => format!("unknown section (did you mean [{close}]?)"),
            None => format!(
                "unknown section or key (the sections are {})",
                sections
                    .iter()
                    .map(|s| format!("[{s}]"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        return Err(ConfigError::new(origin, key.as_str(), problem));
    }
    Ok((config, application))
}

fn auth(root: &mut Table, origin: Option<&str>) -> Result<AuthConfig, ConfigError> {
    let mut s = Section::take(root, "auth", origin)?;
    let mut auth = AuthConfig::default();
    if let Some(list) = s.strings("tokens", "a list of token strings")? {
        auth.tokens = s.each("tokens", list, |t| value::text(t, "a non-empty token"))?;
    }
    let mut oauth_table = Section::take(&mut s.table, "auth.oauth", origin)?;
    if !oauth_table.table.is_empty() {
        let issuer = oauth_table.required("issuer", "the authorization server's URL")?;
        let audience = oauth_table.required("audience", "this server's resource URI")?;
        let jwks_url = oauth_table.string("jwks_url", "the URL of the issuer's JWKS")?;
        oauth_table.finish(&["issuer", "audience", "jwks_url"])?;
        let mut oauth = OAuthConfig::new(issuer, audience);
        oauth.jwks_url = jwks_url;
        auth.oauth = Some(oauth);
    }
    s.finish(&["tokens", "oauth"])?;
    Ok(auth)
}

fn both_tls(set: &str) -> String {
    format!("missing ({set} is set; HTTPS needs both the certificate and the key)")
}

/// A value as shown in an error message.
fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => value::quoted(s),
        Value::Integer(n) => n.to_string(),
        Value::Float(x) => x.to_string(),
        Value::Boolean(b) => b.to_string(),
        Value::Datetime(d) => d.to_string(),
        Value::Array(_) => "(an array)".to_owned(),
        Value::Table(_) => "(a table)".to_owned(),
    }
}

fn port(v: &Value) -> Result<u16, String> {
    match v {
        Value::Integer(n) => value::port_number(*n),
        Value::String(s) => value::port(s),
        other => Err(invalid(&shown(other), value::PORT)),
    }
}

fn duration(v: &Value) -> Result<Duration, String> {
    match v {
        Value::Integer(n) => value::seconds(*n),
        Value::String(s) => value::duration(s),
        other => Err(invalid(&shown(other), value::DURATION)),
    }
}

fn positive(d: Result<Duration, String>) -> Result<Duration, String> {
    match d {
        Ok(d) if d.is_zero() => Err(invalid(
            &value::quoted("0s"),
            "a duration longer than zero, such as \"30s\"",
        )),
        other => other,
    }
}

fn size(v: &Value) -> Result<usize, String> {
    match v {
        Value::Integer(n) => value::size_number(*n),
        Value::String(s) => value::size(s),
        other => Err(invalid(&shown(other), value::SIZE)),
    }
}

fn count(v: &Value) -> Result<usize, String> {
    match v {
        Value::Integer(n) => value::count_number(*n),
        other => Err(invalid(&shown(other), value::COUNT)),
    }
}

/// One section's keys, taken out one by one; what is left at the end is unknown.
struct Section<'a> {
    name: &'static str,
    table: Table,
    origin: Option<&'a str>,
}

impl<'a> Section<'a> {
    /// The table `name` (its last dotted part) of `root` (empty when absent).
    fn take(
        root: &mut Table,
        name: &'static str,
        origin: Option<&'a str>,
    ) -> Result<Self, ConfigError> {
        let key = name.rsplit('.').next().unwrap_or(name);
        let table = match root.remove(key) {
            None => Table::new(),
            Some(Value::Table(t)) => t,
            Some(other) => {
                return Err(ConfigError::new(
                    origin,
                    name,
                    format!(
                        "invalid value {} (expected a table: a [{name}] section)",
                        shown(&other)
                    ),
                ));
            }
        };
        Ok(Self {
            name,
            table,
            origin,
        })
    }

    fn error(&self, key: &str, problem: impl Into<String>) -> ConfigError {
        ConfigError::new(self.origin, format!("{}.{key}", self.name), problem)
    }

    fn check<T>(&self, key: &str, parsed: Result<T, String>) -> Result<T, ConfigError> {
        parsed.map_err(|problem| self.error(key, problem))
    }

    fn get(&mut self, key: &str) -> Option<Value> {
        self.table.remove(key)
    }

    fn string(&mut self, key: &str, expected: &str) -> Result<Option<String>, ConfigError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(self.error(key, invalid(&shown(&other), expected))),
        }
    }

    fn required(&mut self, key: &str, expected: &str) -> Result<String, ConfigError> {
        match self.string(key, expected)? {
            Some(s) => self.check(key, value::text(&s, expected)),
            None => Err(self.error(key, format!("missing (expected {expected})"))),
        }
    }

    fn bool(&mut self, key: &str) -> Result<Option<bool>, ConfigError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Boolean(b)) => Ok(Some(b)),
            Some(other) => Err(self.error(key, invalid(&shown(&other), value::BOOL))),
        }
    }

    fn strings(&mut self, key: &str, expected: &str) -> Result<Option<Vec<String>>, ConfigError> {
        let items = match self.get(key) {
            None => return Ok(None),
            Some(Value::Array(items)) => items,
            Some(other) => {
                return Err(self.error(
                    key,
                    invalid(
                        &shown(&other),
                        &format!("a list of strings, each {expected}"),
                    ),
                ));
            }
        };
        items
            .into_iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::String(s) => Ok(s),
                other => Err(self.error(&format!("{key}[{i}]"), invalid(&shown(&other), expected))),
            })
            .collect::<Result<_, _>>()
            .map(Some)
    }

    /// Checks every item of a list with `parse`, naming the item (`http.allowed_hosts[2]`).
    fn each(
        &self,
        key: &str,
        items: Vec<String>,
        parse: impl Fn(&str) -> Result<String, String>,
    ) -> Result<Vec<String>, ConfigError> {
        items
            .iter()
            .enumerate()
            .map(|(i, item)| parse(item).map_err(|p| self.error(&format!("{key}[{i}]"), p)))
            .collect()
    }

    /// Refuses the keys nobody took.
    fn finish(self, known: &[&str]) -> Result<(), ConfigError> {
        let Some(key) = self.table.keys().next() else {
            return Ok(());
        };
        let problem = match value::suggestion(key, known) {
            Some(close) => format!("unknown key (did you mean {}.{close}?)", self.name),
            None => format!(
                "unknown key (the keys of [{}] are {})",
                self.name,
                known.join(", ")
            ),
        };
        Err(self.error(key, problem))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str, path: Option<&Path>) -> Result<ServerConfig, ConfigError> {
        super::parse(ServerConfig::default(), text, path, &[]).map(|(config, _)| config)
    }

    fn error(text: &str) -> String {
        parse(text, Some(Path::new("mcp.toml")))
            .expect_err("refused")
            .to_string()
    }

    #[test]
    fn every_key() {
        let config = parse(
            r#"
            [server]
            host = "[::1]"
            port = 9000
            path = "/v1/mcp"
            ops_endpoints = false
            shutdown_grace = "5s"
            [http]
            cors = true
            allowed_hosts = ["mcp.example.com", "*"]
            allowed_origins = ["https://app.example.com"]
            keep_alive = 0
            [tls]
            cert = "certs/cert.pem"
            key = "/abs/key.pem"
            [sessions]
            idle_timeout = "5m"
            sweep_interval = 10
            max = 7
            [limits]
            max_message_bytes = "1MiB"
            page_size = 3
            [auth]
            tokens = ["a", "b"]
            [auth.oauth]
            issuer = "https://auth.example.com"
            audience = "https://mcp.example.com/mcp"
            "#,
            Some(Path::new("/etc/mcp/mcp.toml")),
        )
        .unwrap();
        assert_eq!(config.host, "::1");
        assert_eq!(config.bind_address(), "[::1]:9000");
        assert_eq!(config.path, "/v1/mcp");
        assert!(!config.ops_endpoints);
        assert_eq!(config.shutdown_grace, Duration::from_secs(5));
        assert!(config.cors);
        assert_eq!(
            config.allowed_hosts.as_deref(),
            Some(&["mcp.example.com".to_owned(), "*".to_owned()][..])
        );
        assert_eq!(config.keep_alive, None);
        let tls = config.tls.as_ref().unwrap();
        assert_eq!(tls.cert, Path::new("/etc/mcp/certs/cert.pem"));
        assert_eq!(tls.key, Path::new("/abs/key.pem"));
        assert_eq!(config.session_idle_timeout, Duration::from_secs(300));
        assert_eq!(config.session_sweep_interval, Duration::from_secs(10));
        assert_eq!(config.max_sessions, 7);
        assert_eq!(config.max_message_bytes, 1 << 20);
        assert_eq!(config.page_size, 3);
        assert_eq!(config.auth.tokens, ["a", "b"]);
        assert!(
            !format!("{config:?}").contains("\"a\""),
            "tokens are not shown"
        );
        let oauth = config.auth.oauth.unwrap();
        assert_eq!(oauth.issuer, "https://auth.example.com");
        assert_eq!(oauth.jwks_url, None);
    }

    #[test]
    fn empty_file_is_the_defaults() {
        assert_eq!(parse("", None).unwrap(), ServerConfig::default());
    }

    #[test]
    fn problems_name_their_key() {
        assert_eq!(
            error("[server]\nport = \"abc\""),
            "mcp.toml: server.port: invalid value \"abc\" (expected a port number 1-65535, or 0 \
             for any free port)"
        );
        assert_eq!(
            error("[server]\nport = 70000"),
            "mcp.toml: server.port: invalid value 70000 (expected a port number 1-65535, or 0 \
             for any free port)"
        );
        assert_eq!(
            error("[server]\nprot = 1"),
            "mcp.toml: server.prot: unknown key (did you mean server.port?)"
        );
        assert!(
            error("[server]\nzzz = 1")
                .starts_with("mcp.toml: server.zzz: unknown key (the keys of [server] are host, ")
        );
        assert_eq!(
            error("[srever]\nport = 1"),
            "mcp.toml: srever: unknown section (did you mean [server]?)"
        );
        assert!(error("port = 1").contains("port: unknown section or key (the sections are"));
        assert_eq!(
            error("[http]\ncors = \"yes\""),
            "mcp.toml: http.cors: invalid value \"yes\" (expected true or false)"
        );
        assert!(
            error("[http]\nallowed_hosts = [\"ok\", \"https://bad\"]")
                .starts_with("mcp.toml: http.allowed_hosts[1]: invalid value \"https://bad\"")
        );
        assert!(
            error("[server]\nshutdown_grace = \"soon\"")
                .starts_with("mcp.toml: server.shutdown_grace: invalid value \"soon\"")
        );
        assert!(
            error("[sessions]\nmax = 0").starts_with("mcp.toml: sessions.max: invalid value 0")
        );
        assert_eq!(
            error("[tls]\ncert = \"c.pem\""),
            "mcp.toml: tls.key: missing (tls.cert is set; HTTPS needs both the certificate and \
             the key)"
        );
        assert_eq!(
            error("[auth.oauth]\nissuer = \"https://a\""),
            "mcp.toml: auth.oauth.audience: missing (expected this server's resource URI)"
        );
        assert!(
            error("[auth.oauth]\nissuer = \"https://a\"\naudience = \"x\"\nscope = 1")
                .starts_with("mcp.toml: auth.oauth.scope: unknown key")
        );
        assert!(
            error("server = 1").starts_with("mcp.toml: server: invalid value 1 (expected a table")
        );
        assert!(
            error("[server").starts_with("mcp.toml: not valid TOML: TOML parse error at line 1")
        );
    }
}
