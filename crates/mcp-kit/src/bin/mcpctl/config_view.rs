//! `list-servers`: the parsed configuration, without secrets.
//!
//! What is never printed: the argv of stdio servers (unless `--show-argv`), the values of
//! `env`, `http_headers` and `env_http_headers` (only their keys, as `env_keys`,
//! `http_header_keys` and `env_http_header_keys`), URL credentials and URL query values.

use std::collections::BTreeMap;

use mcp_kit::{Config, ConfigFormat, HttpUrls, ServerConfig};
use serde_json::{Map, Value, json};

use crate::output::str_of;
use mcp_kit::terminal::Table;

use crate::output::fitted;

/// The name of a configuration format in the output.
fn format_name(format: ConfigFormat) -> &'static str {
    format.as_str()
}

/// The keys of a map, as a JSON array.
fn keys<V>(map: &BTreeMap<String, V>) -> Value {
    Value::Array(map.keys().cloned().map(Value::String).collect())
}

/// The configuration as `list-servers` prints it.
pub(crate) fn describe(config: &Config, show_argv: bool) -> Value {
    let client = &config.client;
    let servers: Map<String, Value> = config
        .servers
        .iter()
        .map(|(name, server)| (name.clone(), describe_server(server, show_argv)))
        .collect();
    json!({
        "config_path": config.path.as_ref().map(|p| p.display().to_string()),
        "format": format_name(config.format),
        "client": {
            "protocol_version": client.protocol_version,
            "capabilities": client.capabilities,
            "roots": client.roots,
        },
        "servers": servers,
        "skipped": config.skipped.iter().map(|skipped| json!({
            "name": skipped.name,
            "reason": skipped.reason.to_string(),
        })).collect::<Vec<_>>(),
    })
}

/// One server's key fields.
fn describe_server(server: &ServerConfig, show_argv: bool) -> Value {
    let mut out = Map::new();
    out.insert("transport".into(), json!(server.transport().as_str()));
    match server {
        ServerConfig::Stdio(stdio) => {
            if show_argv {
                out.insert("argv".into(), json!(stdio.argv));
            }
            out.insert("argv_len".into(), json!(stdio.argv.len()));
            out.insert("env_keys".into(), keys(&stdio.env));
            out.insert("inherit_env".into(), json!(stdio.inherit_env));
            let log = stdio.stdout_log.as_ref().map(|log| {
                json!({
                    "path": log.path.display().to_string(),
                    "max_bytes_per_part": log.max_bytes_per_part,
                    "max_parts": log.max_parts,
                })
            });
            out.insert("stdout_log".into(), log.unwrap_or(Value::Null));
        }
        ServerConfig::Unix(unix) => {
            out.insert(
                "unix_path".into(),
                json!(unix.unix_path.display().to_string()),
            );
        }
        ServerConfig::StreamableHttp(http) => {
            match &http.urls {
                HttpUrls::Single(url) => {
                    out.insert("url".into(), json!(mcp_jsonrpc::redact_url(url)));
                }
                HttpUrls::Split { sse_url, http_url } => {
                    out.insert("sse_url".into(), json!(mcp_jsonrpc::redact_url(sse_url)));
                    out.insert("http_url".into(), json!(mcp_jsonrpc::redact_url(http_url)));
                }
            }
            out.insert("http_header_keys".into(), keys(&http.http_headers));
            out.insert(
                "bearer_token_env_var".into(),
                json!(http.bearer_token_env_var),
            );
            out.insert("env_http_header_keys".into(), keys(&http.env_http_headers));
        }
        // A transport added later: its name above is all this view knows.
        _ => {}
    }
    Value::Object(out)
}

/// A list of strings as `a, b` (`-` when empty).
fn list(value: Option<&Value>) -> String {
    let items: Vec<&str> = value
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if items.is_empty() {
        "-".to_owned()
    } else {
        items.join(", ")
    }
}

/// The human-readable view of [`describe`]'s output.
pub(crate) fn human(view: &Value) -> String {
    let mut out = String::new();
    let path = str_of(view, "config_path").unwrap_or("(none found: no servers)");
    let format = str_of(view, "format").unwrap_or("?");
    out.push_str(&format!("config: {path} ({format})\n"));
    let client = &view["client"];
    if let Some(version) = str_of(client, "protocol_version") {
        out.push_str(&format!("client.protocol_version: {version}\n"));
    }
    if let Some(capabilities) = client.get("capabilities").filter(|c| !c.is_null()) {
        out.push_str(&format!("client.capabilities: {capabilities}\n"));
    }
    if let Some(roots) = client.get("roots").and_then(Value::as_array) {
        let uris: Vec<&str> = roots.iter().filter_map(|r| str_of(r, "uri")).collect();
        out.push_str(&format!("client.roots: {}\n", uris.join(", ")));
    }
    let mut skipped = String::new();
    for entry in view["skipped"].as_array().into_iter().flatten() {
        let name = str_of(entry, "name").unwrap_or("?");
        let reason = str_of(entry, "reason").unwrap_or("?");
        skipped.push_str(&format!("skipped `{name}`: {reason}\n"));
    }
    let servers = view.get("servers").and_then(Value::as_object);
    let Some(servers) = servers.filter(|s| !s.is_empty()) else {
        out.push_str("(no servers)\n");
        out.push_str(&skipped);
        return crate::output::sanitize(&out);
    };
    out.push('\n');
    // The target (a command with --show-argv) is wrapped, never cut.
    let mut table = Table::new(["NAME", "TRANSPORT", "TARGET", "DETAILS"]).wrap_column(2);
    for (name, server) in servers {
        let transport = str_of(server, "transport").unwrap_or("?");
        let (target, details) = match transport {
            "stdio" => {
                let target = match server.get("argv").and_then(Value::as_array) {
                    Some(argv) => argv
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(" "),
                    None => {
                        let len = server["argv_len"].as_u64().unwrap_or(0);
                        let items = if len == 1 { "item" } else { "items" };
                        format!("argv hidden ({len} {items}; --show-argv)")
                    }
                };
                let mut details = format!("env_keys: {}", list(server.get("env_keys")));
                if server["inherit_env"] == json!(true) {
                    details.push_str("; inherit_env: true");
                }
                if let Some(log) = server["stdout_log"].get("path").and_then(Value::as_str) {
                    details.push_str(&format!("; stdout_log: {log}"));
                }
                (target, details)
            }
            "unix" => (
                str_of(server, "unix_path").unwrap_or("?").to_owned(),
                String::new(),
            ),
            _ => {
                let target = match str_of(server, "url") {
                    Some(url) => url.to_owned(),
                    None => format!(
                        "sse: {}, http: {}",
                        str_of(server, "sse_url").unwrap_or("?"),
                        str_of(server, "http_url").unwrap_or("?")
                    ),
                };
                let mut details = format!(
                    "http_header_keys: {}; env_http_header_keys: {}",
                    list(server.get("http_header_keys")),
                    list(server.get("env_http_header_keys"))
                );
                if let Some(var) = str_of(server, "bearer_token_env_var") {
                    details.push_str(&format!("; bearer_token_env_var: {var}"));
                }
                (target, details)
            }
        };
        table.row([name.as_str(), transport, &target, &details]);
    }
    out.push_str(&fitted(&table));
    if !skipped.is_empty() {
        out.push('\n');
        out.push_str(&skipped);
    }
    crate::output::sanitize(&out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdio_argv_and_values_are_hidden() {
        let mut config = Config::default();
        let mut server = ServerConfig::stdio(["srv", "--token", "s3cret"]);
        if let ServerConfig::Stdio(stdio) = &mut server {
            stdio.env.insert("API_KEY".into(), "s3cret".into());
        }
        config.servers.insert("local".into(), server);
        let hidden = describe(&config, false).to_string();
        assert!(!hidden.contains("s3cret"), "{hidden}");
        assert!(hidden.contains("\"env_keys\":[\"API_KEY\"]"), "{hidden}");
        assert!(human(&describe(&config, false)).contains("argv hidden (3 items"));
        let shown = describe(&config, true);
        assert_eq!(shown["servers"]["local"]["argv"][2], "s3cret");
    }
}
