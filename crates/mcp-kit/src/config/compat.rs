//! The compatible formats, best effort: the `mcpServers` wrapper (Cursor, Claude Desktop,
//! plugins), Claude Code's direct server map, and VS Code's `servers` map.
//!
//! Unknown fields are ignored (and logged at debug level). An entry with a known field of the
//! wrong type, a missing `command`/`url`, an invalid server name or an unsupported `type` is
//! reported (a warning) and skipped, as is one that says `"disabled": true`: both are listed
//! in [`Config::skipped`](super::Config::skipped), and the other entries load.
//! A stdio server gets the baseline environment plus its `env`, as in `mcp.json` v1; our own
//! field `"inherit_env": true` passes it the whole environment instead.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::json::{Ctx, kind, quoted};
use super::{
    HttpUrls, Input, ServerConfig, SkipReason, SkippedServer, StdioServer, StreamableHttpServer,
};
use crate::config::ConfigError;

/// Which compatible format a server map comes from (for locations and hints).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Flavor {
    /// `{"mcpServers": {…}}`.
    McpServers,
    /// `{"<name>": {…}}`, including the target of an `"mcpServers": "<path>"` indirection.
    ServerMap,
    /// `{"servers": {…}}` without `version`.
    VsCode,
}

impl Flavor {
    /// The JSON path of a server of this flavor.
    fn at(self, name: &str) -> String {
        match self {
            Flavor::McpServers => format!("mcpServers.{name}"),
            Flavor::ServerMap => name.to_owned(),
            Flavor::VsCode => format!("servers.{name}"),
        }
    }
}

/// The fields read from an entry; everything else is ignored.
const KNOWN_FIELDS: &[&str] = &[
    "type",
    "command",
    "args",
    "env",
    "inherit_env",
    "url",
    "headers",
    "disabled",
    "envFile",
];

/// True when `value` looks like a server entry of a compatible format: an object with
/// `command` or `url`.
pub(super) fn looks_like_entry(value: &Value) -> bool {
    value
        .as_object()
        .is_some_and(|entry| entry.contains_key("command") || entry.contains_key("url"))
}

/// The servers of a compatible file, and the entries skipped.
pub(super) type ServerMap = (BTreeMap<String, ServerConfig>, Vec<SkippedServer>);

/// Parses a map of server name → entry: disabled and invalid entries are skipped (an invalid
/// one with a warning), the others loaded.
pub(super) fn servers(ctx: Ctx<'_>, flavor: Flavor, map: &Map<String, Value>) -> ServerMap {
    let mut servers = BTreeMap::new();
    let mut skipped = Vec::new();
    for (name, value) in map {
        if value.get("disabled") == Some(&Value::Bool(true)) {
            skipped.push(SkippedServer {
                name: name.clone(),
                reason: SkipReason::Disabled,
            });
            continue;
        }
        match ctx
            .server_name(name)
            .and_then(|()| entry(ctx, flavor, name, value))
        {
            Ok(server) => {
                servers.insert(name.clone(), server);
            }
            Err(error) => {
                tracing::warn!("{error}; skipping this server, the others load");
                skipped.push(SkippedServer {
                    name: name.clone(),
                    reason: SkipReason::Invalid(error.to_string()),
                });
            }
        }
    }
    (servers, skipped)
}

/// What an entry connects through.
enum Kind {
    Stdio,
    Http,
}

fn entry(
    ctx: Ctx<'_>,
    flavor: Flavor,
    name: &str,
    value: &Value,
) -> Result<ServerConfig, ConfigError> {
    let at = flavor.at(name);
    let at = at.as_str();
    let object = value.as_object().ok_or_else(|| {
        ctx.invalid(
            at,
            format!(
                "a server must be a JSON object with `command` (and `args`, `env`) or `url` (and \
                 `headers`), got {}",
                kind(value)
            ),
        )
    })?;
    let field = |key: &str| object.get(key).filter(|v| !v.is_null());

    for key in object.keys() {
        if !KNOWN_FIELDS.contains(&key.as_str()) {
            tracing::debug!(
                path = %ctx.path.display(),
                server = name,
                field = %key.escape_debug(),
                "ignoring a field the compatible format does not support"
            );
        }
    }

    let declared = match field("type") {
        None => None,
        Some(Value::String(t)) => match t.as_str() {
            "stdio" => Some(Kind::Stdio),
            "http" | "sse" | "streamable_http" => Some(Kind::Http),
            _ => {
                return Err(ctx.invalid(
                    at,
                    format!(
                        "unsupported `type` {} (expected \"stdio\" with `command`, or \
                         \"http\", \"sse\" or \"streamable_http\" with `url`)",
                        quoted(t)
                    ),
                ));
            }
        },
        Some(other) => {
            return Err(ctx.invalid(
                at,
                format!(
                    "`type` must be a string (\"stdio\", \"http\", \"sse\" or \
                     \"streamable_http\"), got {}",
                    kind(other)
                ),
            ));
        }
    };

    let command = field("command");
    let url = field("url");
    let kind = match (declared, command.is_some(), url.is_some()) {
        (_, true, true) => {
            return Err(ctx.invalid(
                at,
                "both `command` and `url` are set (keep `command` for a local process, or `url` \
                 for a remote server)",
            ));
        }
        (Some(Kind::Stdio), false, true) => {
            return Err(ctx.invalid(
                at,
                "`type` \"stdio\" needs `command`, not `url` (set \"type\": \"http\" for a \
                 remote server)",
            ));
        }
        (Some(Kind::Http), true, false) => {
            return Err(ctx.invalid(
                at,
                "`type` http/sse/streamable_http needs `url`, not `command` (set \"type\": \
                 \"stdio\" for a local process)",
            ));
        }
        (_, true, false) => Kind::Stdio,
        (_, false, true) => Kind::Http,
        (declared, false, false) => {
            let missing = match declared {
                Some(Kind::Stdio) => "missing field `command`",
                Some(Kind::Http) => "missing field `url`",
                None => "missing field `command` or `url`",
            };
            let hint = if object.contains_key("transport") && flavor == Flavor::VsCode {
                " (this looks like an mcp.json v1 server: add \"version\": 1 at the top level)"
            } else {
                " (give `command` and `args` for a local process, or `url` for a remote server)"
            };
            return Err(ctx.invalid(at, format!("{missing}{hint}")));
        }
    };

    match kind {
        Kind::Stdio => {
            let mut argv =
                vec![ctx.non_empty_string(at, "command", command.unwrap_or(&Value::Null))?];
            if let Some(args) = field("args") {
                argv.extend(ctx.string_array(at, "args", args)?);
            }
            let env = field("env")
                .map(|v| ctx.env_map(at, "env", v))
                .transpose()?
                .unwrap_or_default();
            let inherit_env = field("inherit_env")
                .map(|v| ctx.boolean(at, "inherit_env", v))
                .transpose()?
                .unwrap_or(false);
            let env_file = field("envFile")
                .map(|v| ctx.non_empty_string(at, "envFile", v))
                .transpose()?;
            Ok(ServerConfig::Stdio(StdioServer {
                argv,
                env,
                inherit_env,
                stdout_log: None,
                env_file,
            }))
        }
        Kind::Http => {
            let url = ctx.non_empty_string(at, "url", url.unwrap_or(&Value::Null))?;
            let http_headers = field("headers")
                .map(|v| ctx.header_map(at, "headers", v, false))
                .transpose()?
                .unwrap_or_default();
            Ok(ServerConfig::StreamableHttp(StreamableHttpServer {
                urls: HttpUrls::Single(url),
                http_headers,
                bearer_token_env_var: None,
                env_http_headers: BTreeMap::new(),
                oauth: None,
            }))
        }
    }
}

/// VS Code's top-level `inputs`: `[{"type": "promptString" | "pickString", "id", "description",
/// "password", "default", "options"}]`. Best effort: an entry without a valid `id` is reported
/// and skipped.
pub(super) fn inputs(ctx: Ctx<'_>, value: &Value) -> Vec<Input> {
    let Some(entries) = value.as_array() else {
        tracing::warn!(path = %ctx.path.display(), "`inputs` is not an array: ignored");
        return Vec::new();
    };
    let text = |entry: &Map<String, Value>, key: &str| {
        entry.get(key).and_then(Value::as_str).map(str::to_owned)
    };
    entries
        .iter()
        .enumerate()
        .filter_map(|(i, entry)| {
            let entry = entry.as_object()?;
            let id = text(entry, "id").filter(|id| {
                !id.is_empty()
                    && id
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            });
            let Some(id) = id else {
                tracing::warn!(
                    path = %ctx.path.display(),
                    "inputs[{i}] has no valid `id` (letters, digits, `-`, `_`, `.`): skipped"
                );
                return None;
            };
            let options = entry
                .get("options")
                .and_then(Value::as_array)
                .map(|options| {
                    options
                        .iter()
                        .filter_map(|o| match o {
                            Value::String(s) => Some(s.clone()),
                            Value::Object(o) => o.get("value")?.as_str().map(str::to_owned),
                            _ => None,
                        })
                        .collect()
                })
                .unwrap_or_default();
            Some(Input {
                id,
                description: text(entry, "description"),
                password: entry.get("password").and_then(Value::as_bool) == Some(true),
                default: text(entry, "default"),
                options,
            })
        })
        .collect()
}
