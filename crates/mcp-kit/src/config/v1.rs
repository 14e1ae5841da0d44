//! The strict `mcp.json` v1 schema: unknown fields are errors at every level.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{Map, Value};

use super::json::{Ctx, has_parent_dir, kind, quoted};
use super::{
    ClientConfig, ConfigError, HttpUrls, OAuthSettings, Root, ServerConfig, StdioServer,
    StdoutLogConfig, StreamableHttpServer, Transport, UnixServer,
};

const TOP_FIELDS: &[&str] = &["version", "client", "servers"];
const CLIENT_FIELDS: &[&str] = &["protocol_version", "capabilities", "roots"];
const ROOT_FIELDS: &[&str] = &["uri", "name"];
const STDOUT_LOG_FIELDS: &[&str] = &["path", "max_bytes_per_part", "max_parts"];
const STDIO_FIELDS: &[&str] = &["argv", "env", "inherit_env", "stdout_log"];
const UNIX_FIELDS: &[&str] = &["unix_path"];
const HTTP_FIELDS: &[&str] = &[
    "url",
    "sse_url",
    "http_url",
    "http_headers",
    "bearer_token_env_var",
    "env_http_headers",
    "oauth",
];
const OAUTH_FIELDS: &[&str] = &[
    "client_id",
    "client_secret_env_var",
    "issuer",
    "scopes",
    "redirect_port",
];
const TRANSPORTS: [Transport; 3] = [Transport::Stdio, Transport::Unix, Transport::StreamableHttp];

/// The fields a transport allows besides `transport`.
fn transport_fields(transport: Transport) -> &'static [&'static str] {
    match transport {
        Transport::Stdio => STDIO_FIELDS,
        Transport::Unix => UNIX_FIELDS,
        Transport::StreamableHttp => HTTP_FIELDS,
    }
}

/// What an mcp.json v1 file holds.
pub(super) struct V1 {
    pub(super) client: ClientConfig,
    pub(super) servers: BTreeMap<String, ServerConfig>,
}

/// Parses an mcp.json v1 document (the top level is an object with a `version` key).
pub(super) fn parse(ctx: Ctx<'_>, top: &Map<String, Value>) -> Result<V1, ConfigError> {
    match top.get("version") {
        Some(Value::Number(n)) if n.as_u64() == Some(1) => {}
        Some(other) => {
            return Err(ConfigError::UnsupportedVersion {
                path: ctx.path.to_path_buf(),
                version: other.to_string(),
            });
        }
        None => return Err(ctx.invalid("", "missing field `version` (add \"version\": 1)")),
    }
    deny_unknown(ctx, "", top, TOP_FIELDS)?;

    let client = match present(top, "client") {
        Some(value) => client(ctx, value)?,
        None => ClientConfig::default(),
    };

    let servers_value = top.get("servers").ok_or_else(|| {
        ctx.invalid(
            "",
            "missing field `servers` (add \"servers\": {} even when there are none)",
        )
    })?;
    let servers_object = ctx.object("", "servers", servers_value)?;
    let mut servers = BTreeMap::new();
    for (name, value) in servers_object {
        ctx.server_name(name)?;
        servers.insert(name.clone(), server(ctx, name, value)?);
    }
    Ok(V1 { client, servers })
}

/// The value of an optional field; `null` counts as absent.
fn present<'v>(object: &'v Map<String, Value>, key: &str) -> Option<&'v Value> {
    object.get(key).filter(|value| !value.is_null())
}

/// Refuses keys outside `allowed`.
fn deny_unknown(
    ctx: Ctx<'_>,
    at: &str,
    object: &Map<String, Value>,
    allowed: &[&str],
) -> Result<(), ConfigError> {
    match object.keys().find(|key| !allowed.contains(&key.as_str())) {
        Some(key) => Err(ctx.invalid(at, unknown_field(key, allowed))),
        None => Ok(()),
    }
}

/// The message of an unknown field, in serde's words plus a hint.
fn unknown_field(key: &str, allowed: &[&str]) -> String {
    let expected = allowed
        .iter()
        .map(|field| format!("`{field}`"))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "unknown field {}, expected one of {expected} (mcp.json v1 refuses unknown fields: \
         remove it or fix its spelling)",
        quoted(key)
    )
}

fn client(ctx: Ctx<'_>, value: &Value) -> Result<ClientConfig, ConfigError> {
    let at = "client";
    let object = ctx.object("", "client", value)?;
    deny_unknown(ctx, at, object, CLIENT_FIELDS)?;

    let protocol_version = present(object, "protocol_version")
        .map(|v| ctx.non_empty_string(at, "protocol_version", v))
        .transpose()?;
    let capabilities = present(object, "capabilities")
        .map(|v| ctx.object(at, "capabilities", v).cloned())
        .transpose()?;
    let roots = match present(object, "roots") {
        None => None,
        Some(value) => {
            let items = value.as_array().ok_or_else(|| {
                ctx.invalid(
                    at,
                    format!(
                        "`roots` must be an array of {{\"uri\": …, \"name\": …}} objects, got {}",
                        kind(value)
                    ),
                )
            })?;
            let roots = items
                .iter()
                .enumerate()
                .map(|(i, item)| root(ctx, &format!("client.roots[{i}]"), item))
                .collect::<Result<Vec<_>, _>>()?;
            Some(roots)
        }
    };
    Ok(ClientConfig {
        protocol_version,
        capabilities,
        roots,
    })
}

fn root(ctx: Ctx<'_>, at: &str, value: &Value) -> Result<Root, ConfigError> {
    let object = value.as_object().ok_or_else(|| {
        ctx.invalid(
            at,
            format!(
                "a root must be an object like {{\"uri\": \"file:///repo\", \"name\": \
                 \"workspace\"}}, got {}",
                kind(value)
            ),
        )
    })?;
    deny_unknown(ctx, at, object, ROOT_FIELDS)?;
    let uri = object
        .get("uri")
        .ok_or_else(|| ctx.invalid(at, "missing field `uri` (e.g. \"uri\": \"file:///repo\")"))?;
    let uri = ctx.non_empty_string(at, "uri", uri)?;
    let name = present(object, "name")
        .map(|v| ctx.non_empty_string(at, "name", v))
        .transpose()?;
    Ok(Root { uri, name })
}

fn server(ctx: Ctx<'_>, name: &str, value: &Value) -> Result<ServerConfig, ConfigError> {
    let at = format!("servers.{name}");
    let at = at.as_str();
    let object = value.as_object().ok_or_else(|| {
        ctx.invalid(
            at,
            format!(
                "a server must be a JSON object like {{\"transport\": \"stdio\", \"argv\": […]}}, \
                 got {}",
                kind(value)
            ),
        )
    })?;

    let transport = match object.get("transport") {
        None => {
            return Err(ctx.invalid(
                at,
                "missing field `transport` (one of \"stdio\", \"unix\", \"streamable_http\")",
            ));
        }
        Some(Value::String(s)) => TRANSPORTS
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| {
                ctx.invalid(
                    at,
                    format!(
                        "unknown transport {} (expected \"stdio\", \"unix\" or \
                         \"streamable_http\")",
                        quoted(s)
                    ),
                )
            })?,
        Some(other) => {
            return Err(ctx.invalid(
                at,
                format!(
                    "`transport` must be a string (\"stdio\", \"unix\" or \"streamable_http\"), \
                     got {}",
                    kind(other)
                ),
            ));
        }
    };

    let allowed = transport_fields(transport);
    for key in object.keys() {
        if key == "transport" || allowed.contains(&key.as_str()) {
            continue;
        }
        if let Some(owner) = TRANSPORTS
            .into_iter()
            .find(|t| transport_fields(*t).contains(&key.as_str()))
        {
            return Err(ctx.invalid(
                at,
                format!(
                    "field `{key}` is not allowed for transport={} (it belongs to transport={}; \
                     remove it or change `transport`)",
                    transport.as_str(),
                    owner.as_str()
                ),
            ));
        }
        let mut expected = vec!["transport"];
        expected.extend_from_slice(allowed);
        return Err(ctx.invalid(at, unknown_field(key, &expected)));
    }

    match transport {
        Transport::Stdio => stdio(ctx, at, object).map(ServerConfig::Stdio),
        Transport::Unix => {
            let path = object.get("unix_path").ok_or_else(|| {
                ctx.invalid(
                    at,
                    "missing field `unix_path` (the socket to connect to, e.g. \
                     \"/tmp/mcp.sock\"; relative paths resolve against the root)",
                )
            })?;
            let path = ctx.non_empty_string(at, "unix_path", path)?;
            Ok(ServerConfig::Unix(UnixServer {
                unix_path: PathBuf::from(path),
            }))
        }
        Transport::StreamableHttp => http(ctx, at, object).map(ServerConfig::StreamableHttp),
    }
}

fn stdio(ctx: Ctx<'_>, at: &str, object: &Map<String, Value>) -> Result<StdioServer, ConfigError> {
    let argv = object.get("argv").ok_or_else(|| {
        ctx.invalid(
            at,
            "missing field `argv` (the program and its arguments, e.g. \"argv\": \
             [\"mcp-server-bin\", \"--stdio\"])",
        )
    })?;
    let argv = ctx.argv(at, "argv", argv)?;
    let env = present(object, "env")
        .map(|v| ctx.env_map(at, "env", v))
        .transpose()?
        .unwrap_or_default();
    let inherit_env = present(object, "inherit_env")
        .map(|v| ctx.boolean(at, "inherit_env", v))
        .transpose()?
        .unwrap_or(false);
    let stdout_log = present(object, "stdout_log")
        .map(|v| stdout_log(ctx, &format!("{at}.stdout_log"), v))
        .transpose()?;
    Ok(StdioServer {
        argv,
        env,
        inherit_env,
        stdout_log,
        env_file: None,
    })
}

fn stdout_log(ctx: Ctx<'_>, at: &str, value: &Value) -> Result<StdoutLogConfig, ConfigError> {
    let object = value.as_object().ok_or_else(|| {
        ctx.invalid(
            at,
            format!(
                "`stdout_log` must be an object like {{\"path\": \
                 \"./.mcp-kit/logs/mcp/server.stdout.log\"}}, got {}",
                kind(value)
            ),
        )
    })?;
    deny_unknown(ctx, at, object, STDOUT_LOG_FIELDS)?;

    let path = object.get("path").ok_or_else(|| {
        ctx.invalid(
            at,
            "missing field `path` (the log file, e.g. \"./.mcp-kit/logs/mcp/server.stdout.log\")",
        )
    })?;
    let path = PathBuf::from(ctx.non_empty_string(at, "path", path)?);
    if has_parent_dir(&path) {
        return Err(ctx.invalid(
            at,
            "`path` must not contain a `..` component (path traversal); write the path \
             without `..`",
        ));
    }

    let max_bytes_per_part = match present(object, "max_bytes_per_part") {
        None => StdoutLogConfig::DEFAULT_MAX_BYTES_PER_PART,
        Some(value) => match value.as_u64() {
            Some(n) if n >= 1 => n,
            _ => {
                return Err(ctx.invalid(
                    at,
                    format!(
                        "`max_bytes_per_part` must be an integer >= 1 (default 1048576), got {}",
                        value
                    ),
                ));
            }
        },
    };
    let max_parts = match present(object, "max_parts") {
        None => StdoutLogConfig::DEFAULT_MAX_PARTS,
        Some(value) => match value.as_u64().map(u32::try_from) {
            Some(Ok(n)) => n,
            _ => {
                return Err(ctx.invalid(
                    at,
                    format!(
                        "`max_parts` must be an integer from 0 to {} (default 32; 0 keeps all \
                         parts), got {}",
                        u32::MAX,
                        value
                    ),
                ));
            }
        },
    };
    Ok(StdoutLogConfig {
        path,
        max_bytes_per_part,
        max_parts,
    })
}

fn http(
    ctx: Ctx<'_>,
    at: &str,
    object: &Map<String, Value>,
) -> Result<StreamableHttpServer, ConfigError> {
    let url_field = |field: &str| {
        present(object, field)
            .map(|v| ctx.non_empty_string(at, field, v))
            .transpose()
    };
    let url = url_field("url")?;
    let sse_url = url_field("sse_url")?;
    let http_url = url_field("http_url")?;
    let urls = match (url, sse_url, http_url) {
        (Some(url), None, None) => HttpUrls::Single(url),
        (None, Some(sse_url), Some(http_url)) => HttpUrls::Split { sse_url, http_url },
        (Some(_), _, _) => {
            return Err(ctx.invalid(
                at,
                "`url` cannot be combined with `sse_url`/`http_url` (use either `url`, or both \
                 `sse_url` and `http_url`)",
            ));
        }
        (None, Some(_), None) => {
            return Err(ctx.invalid(
                at,
                "`sse_url` is set without `http_url` (the two must be set together; or use \
                 `url` alone)",
            ));
        }
        (None, None, Some(_)) => {
            return Err(ctx.invalid(
                at,
                "`http_url` is set without `sse_url` (the two must be set together; or use \
                 `url` alone)",
            ));
        }
        (None, None, None) => {
            return Err(ctx.invalid(
                at,
                "missing field `url` (set \"url\", or both \"sse_url\" and \"http_url\")",
            ));
        }
    };

    let http_headers = present(object, "http_headers")
        .map(|v| ctx.header_map(at, "http_headers", v, false))
        .transpose()?
        .unwrap_or_default();
    let bearer_token_env_var = present(object, "bearer_token_env_var")
        .map(|v| ctx.non_empty_string(at, "bearer_token_env_var", v))
        .transpose()?;
    let env_http_headers = present(object, "env_http_headers")
        .map(|v| ctx.header_map(at, "env_http_headers", v, true))
        .transpose()?
        .unwrap_or_default();
    let oauth = present(object, "oauth")
        .map(|v| oauth(ctx, at, v))
        .transpose()?;
    Ok(StreamableHttpServer {
        urls,
        http_headers,
        bearer_token_env_var,
        env_http_headers,
        oauth,
    })
}

/// A server's `oauth` object.
fn oauth(ctx: Ctx<'_>, server_at: &str, value: &Value) -> Result<OAuthSettings, ConfigError> {
    let at = format!("{server_at}.oauth");
    let object = ctx.object(server_at, "oauth", value)?;
    deny_unknown(ctx, &at, object, OAUTH_FIELDS)?;
    let text = |field: &str| {
        present(object, field)
            .map(|v| ctx.non_empty_string(&at, field, v))
            .transpose()
    };
    let scopes = present(object, "scopes")
        .map(|v| ctx.string_array(&at, "scopes", v))
        .transpose()?;
    if let Some(scope) = scopes.iter().flatten().find(|s| s.contains(' ')) {
        return Err(ctx.invalid(
            &at,
            format!("`scopes` items are single scopes: `{scope}` holds a space (split it)"),
        ));
    }
    let redirect_port = match present(object, "redirect_port") {
        None => None,
        Some(value) => match value.as_u64().map(u16::try_from) {
            Some(Ok(port)) if port > 0 => Some(port),
            _ => {
                return Err(ctx.invalid(
                    &at,
                    format!("`redirect_port` must be an integer from 1 to 65535, got {value}"),
                ));
            }
        },
    };
    let settings = OAuthSettings {
        client_id: text("client_id")?,
        client_secret_env_var: text("client_secret_env_var")?,
        issuer: text("issuer")?,
        scopes,
        redirect_port,
    };
    if settings.client_id.is_none()
        && (settings.client_secret_env_var.is_some() || settings.issuer.is_some())
    {
        return Err(ctx.invalid(
            &at,
            "`client_secret_env_var` and `issuer` describe a pre-registered client: set \
             `client_id` too",
        ));
    }
    Ok(settings)
}
