//! `Config::load` on a real filesystem: discovery, overrides, the size cap and the
//! regular-file rule, every field of mcp.json v1 with its defaults and errors, the compatible
//! formats (including the `"mcpServers": "<path>"` indirection), and `${VAR}` expansion.

#![cfg(unix)]

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use mcp_kit::config::{MAX_CONFIG_BYTES, expand_placeholders};
use mcp_kit::{
    ClientConfig, Config, ConfigError, ConfigFormat, HttpUrls, Root, ServerConfig, SkipReason,
    SkippedServer, StdioServer, StdoutLogConfig, StreamableHttpServer, Transport, UnixServer,
};
use serde_json::json;
use tempfile::TempDir;

// ---------------------------------------------------------------------------------------------
// Helpers

fn tempdir() -> TempDir {
    tempfile::tempdir().expect("tempdir")
}

fn write(dir: &Path, name: &str, content: &str) -> PathBuf {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("create dirs");
    }
    fs::write(&path, content).expect("write");
    path
}

fn d(path: &Path) -> String {
    path.display().to_string()
}

/// Writes `content` as `root/.mcp.json` and loads it.
async fn load_str(content: &str) -> (TempDir, PathBuf, Result<Config, ConfigError>) {
    let dir = tempdir();
    let path = write(dir.path(), ".mcp.json", content);
    let result = Config::load(dir.path(), None).await;
    (dir, path, result)
}

/// Loads `content`, expecting success.
async fn load_ok(content: &str) -> Config {
    let (_dir, _path, result) = load_str(content).await;
    result.unwrap_or_else(|e| panic!("expected success, got: {e}"))
}

/// Loads `content`, expecting an error; returns it and its message with the file's path
/// replaced by `<path>`.
async fn load_err(content: &str) -> (ConfigError, String) {
    let (_dir, path, result) = load_str(content).await;
    let error = result.expect_err("expected an error");
    let message = error.to_string().replace(&d(&path), "<path>");
    (error, message)
}

/// The one entry of a compatible document skipped as invalid (the document itself loads), with
/// its message (the path as `<path>`).
async fn skipped(content: &str) -> (SkippedServer, String) {
    let (_dir, path, result) = load_str(content).await;
    let config = result.expect("a compatible file loads despite a bad entry");
    let [entry] = config.skipped.as_slice() else {
        panic!("expected one skipped entry: {config:?}")
    };
    let SkipReason::Invalid(message) = &entry.reason else {
        panic!("expected an invalid entry: {entry:?}")
    };
    let message = message.replace(&d(&path), "<path>");
    (entry.clone(), message)
}

/// The message of a v1 document with one server `s` = `server`.
async fn server_err(server: serde_json::Value) -> String {
    let doc = json!({"version": 1, "servers": {"s": server}});
    load_err(&doc.to_string()).await.1
}

/// The server `s` of a v1 document.
async fn server_ok(server: serde_json::Value) -> ServerConfig {
    let doc = json!({"version": 1, "servers": {"s": server}});
    let mut config = load_ok(&doc.to_string()).await;
    config.servers.remove("s").expect("server s")
}

fn invalid(at: &str, message: &str) -> String {
    if at.is_empty() {
        format!("invalid mcp.json <path>: {message}")
    } else {
        format!("invalid mcp.json <path>: {at}: {message}")
    }
}

fn stdio(argv: &[&str]) -> StdioServer {
    StdioServer {
        argv: argv.iter().map(|s| s.to_string()).collect(),
        env: BTreeMap::new(),
        inherit_env: false,
        stdout_log: None,
        env_file: None,
    }
}

fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

const MINIMAL: &str = r#"{"version": 1, "servers": {}}"#;

// ---------------------------------------------------------------------------------------------
// Discovery and overrides

#[tokio::test]
async fn discovery_prefers_dot_mcp_json() {
    let dir = tempdir();
    let dot = write(
        dir.path(),
        ".mcp.json",
        r#"{"version": 1, "servers": {"dot": {"transport": "unix", "unix_path": "a.sock"}}}"#,
    );
    write(
        dir.path(),
        "mcp.json",
        r#"{"version": 1, "servers": {"plain": {"transport": "unix", "unix_path": "b.sock"}}}"#,
    );
    let config = Config::load(dir.path(), None).await.unwrap();
    assert_eq!(config.path.as_deref(), Some(dot.as_path()));
    assert_eq!(config.format, ConfigFormat::V1);
    assert_eq!(config.servers.keys().collect::<Vec<_>>(), ["dot"]);
}

#[tokio::test]
async fn discovery_falls_back_to_mcp_json() {
    let dir = tempdir();
    let plain = write(
        dir.path(),
        "mcp.json",
        r#"{"version": 1, "servers": {"plain": {"transport": "unix", "unix_path": "b.sock"}}}"#,
    );
    let config = Config::load(dir.path(), None).await.unwrap();
    assert_eq!(config.path.as_deref(), Some(plain.as_path()));
    assert_eq!(config.servers.keys().collect::<Vec<_>>(), ["plain"]);
}

#[tokio::test]
async fn discovery_finds_cursor_then_vscode_project_files() {
    let dir = tempdir();
    let vscode = write(
        dir.path(),
        ".vscode/mcp.json",
        r#"{"servers": {"code": {"type": "http", "url": "https://example.com/mcp"}}}"#,
    );
    let config = Config::load(dir.path(), None).await.unwrap();
    assert_eq!(config.path.as_deref(), Some(vscode.as_path()));
    assert_eq!(config.format, ConfigFormat::VsCode);
    assert_eq!(config.servers.keys().collect::<Vec<_>>(), ["code"]);

    let cursor = write(
        dir.path(),
        ".cursor/mcp.json",
        r#"{"mcpServers": {"cur": {"command": "node", "args": ["s.js"]}}}"#,
    );
    let config = Config::load(dir.path(), None).await.unwrap();
    assert_eq!(config.path.as_deref(), Some(cursor.as_path()));
    assert_eq!(config.servers.keys().collect::<Vec<_>>(), ["cur"]);

    // The root's own files come first.
    write(
        dir.path(),
        "mcp.json",
        r#"{"version": 1, "servers": {"plain": {"transport": "unix", "unix_path": "b.sock"}}}"#,
    );
    let config = Config::load(dir.path(), None).await.unwrap();
    assert_eq!(config.servers.keys().collect::<Vec<_>>(), ["plain"]);
}

#[tokio::test]
async fn a_symlinked_cursor_directory_is_passed_over() {
    let elsewhere = tempdir();
    write(
        elsewhere.path(),
        "mcp.json",
        r#"{"mcpServers": {"outside": {"command": "node"}}}"#,
    );
    let dir = tempdir();
    symlink(elsewhere.path(), dir.path().join(".cursor")).unwrap();
    let config = Config::load(dir.path(), None).await.unwrap();
    assert_eq!(config.format, ConfigFormat::Empty);
    assert!(config.servers.is_empty());
}

#[tokio::test]
async fn no_file_gives_an_empty_configuration() {
    let dir = tempdir();
    let config = Config::load(dir.path(), None).await.unwrap();
    assert_eq!(
        config,
        Config {
            path: None,
            format: ConfigFormat::Empty,
            client: ClientConfig::default(),
            servers: BTreeMap::new(),
            skipped: Vec::new(),
            inputs: Vec::new(),
        }
    );
}

#[tokio::test]
async fn a_broken_dot_mcp_json_does_not_fall_through_to_mcp_json() {
    let dir = tempdir();
    fs::create_dir(dir.path().join(".mcp.json")).unwrap();
    write(dir.path(), "mcp.json", MINIMAL);
    let error = Config::load(dir.path(), None).await.unwrap_err();
    assert!(matches!(
        error,
        ConfigError::NotRegularFile {
            kind: "directory",
            ..
        }
    ));
}

#[tokio::test]
async fn override_absolute_path() {
    let root = tempdir();
    let elsewhere = tempdir();
    write(root.path(), ".mcp.json", r#"{"not": "read"}"#);
    let path = write(
        elsewhere.path(),
        "custom.json",
        r#"{"version": 1, "servers": {"x": {"transport": "unix", "unix_path": "/tmp/x.sock"}}}"#,
    );
    let config = Config::load(root.path(), Some(path.clone())).await.unwrap();
    assert_eq!(config.path, Some(path));
    assert_eq!(
        config.servers["x"],
        ServerConfig::unix("/tmp/x.sock"),
        "the override is read, not the discovered file"
    );
}

#[tokio::test]
async fn override_relative_to_root() {
    let root = tempdir();
    let path = write(root.path(), "conf/servers.json", MINIMAL);
    let config = Config::load(root.path(), Some(PathBuf::from("conf/servers.json")))
        .await
        .unwrap();
    assert_eq!(config.path, Some(path));
    assert_eq!(config.format, ConfigFormat::V1);
}

#[tokio::test]
async fn missing_override_is_an_error() {
    let root = tempdir();
    write(root.path(), ".mcp.json", MINIMAL);
    let error = Config::load(root.path(), Some(PathBuf::from("nope.json")))
        .await
        .unwrap_err();
    let missing = root.path().join("nope.json");
    assert!(
        matches!(&error, ConfigError::NotFound { path, referenced_by: None } if *path == missing)
    );
    assert_eq!(
        error.to_string(),
        format!(
            "mcp config not found: {} (check the --config / override path: a relative path is \
             resolved against the root; without an override, ./.mcp.json, ./mcp.json, \
             ./.cursor/mcp.json and ./.vscode/mcp.json are looked up in that order and a missing \
             file means no servers)",
            d(&missing)
        )
    );
    assert_eq!(error.path(), Some(missing.as_path()));
}

// ---------------------------------------------------------------------------------------------
// File rules: size cap, regular files only

#[tokio::test]
async fn a_file_of_exactly_the_cap_loads() {
    let mut content = MINIMAL.to_string();
    content.push_str(&" ".repeat(MAX_CONFIG_BYTES as usize - content.len()));
    assert_eq!(content.len() as u64, MAX_CONFIG_BYTES);
    let config = load_ok(&content).await;
    assert_eq!(config.format, ConfigFormat::V1);
}

#[tokio::test]
async fn a_file_over_the_cap_is_refused() {
    assert_eq!(MAX_CONFIG_BYTES, 4 * 1024 * 1024);
    let mut content = MINIMAL.to_string();
    content.push_str(&" ".repeat(MAX_CONFIG_BYTES as usize + 1 - content.len()));
    let (error, message) = load_err(&content).await;
    assert!(matches!(
        error,
        ConfigError::TooLarge {
            limit: MAX_CONFIG_BYTES,
            ..
        }
    ));
    assert_eq!(
        message,
        "mcp config too large: <path> is over the limit of 4194304 bytes (4 MiB); remove \
         unrelated content from it (a file referenced by `\"mcpServers\": \"<path>\"` must fit \
         the limit too)"
    );
}

fn not_regular(path: &Path, kind: &str) -> String {
    format!(
        "mcp config must be a regular file: {} is a {kind} (use a regular file in its place; \
         symlinks are refused even when they point to a regular file)",
        d(path)
    )
}

#[tokio::test]
async fn a_symlinked_config_is_refused() {
    let dir = tempdir();
    let real = write(dir.path(), "real.json", MINIMAL);
    let link = dir.path().join(".mcp.json");
    symlink(&real, &link).unwrap();
    let error = Config::load(dir.path(), None).await.unwrap_err();
    assert!(matches!(
        error,
        ConfigError::NotRegularFile {
            kind: "symlink",
            ..
        }
    ));
    assert_eq!(error.to_string(), not_regular(&link, "symlink"));

    // The same through an explicit override.
    let error = Config::load(dir.path(), Some(PathBuf::from(".mcp.json")))
        .await
        .unwrap_err();
    assert_eq!(error.to_string(), not_regular(&link, "symlink"));
}

#[tokio::test]
async fn a_dangling_symlink_is_refused_not_skipped() {
    let dir = tempdir();
    let link = dir.path().join(".mcp.json");
    symlink(dir.path().join("missing.json"), &link).unwrap();
    write(dir.path(), "mcp.json", MINIMAL);
    let error = Config::load(dir.path(), None).await.unwrap_err();
    assert_eq!(error.to_string(), not_regular(&link, "symlink"));
}

#[tokio::test]
async fn a_directory_config_is_refused() {
    let dir = tempdir();
    let path = dir.path().join("mcp.json");
    fs::create_dir(&path).unwrap();
    let error = Config::load(dir.path(), None).await.unwrap_err();
    assert_eq!(error.to_string(), not_regular(&path, "directory"));
}

#[tokio::test]
async fn a_fifo_config_is_refused_without_blocking() {
    let dir = tempdir();
    let path = dir.path().join(".mcp.json");
    let status = std::process::Command::new("mkfifo")
        .arg(&path)
        .status()
        .expect("run mkfifo");
    assert!(status.success());
    let result = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        Config::load(dir.path(), None),
    )
    .await
    .expect("loading a fifo must not block");
    let error = result.unwrap_err();
    assert!(matches!(
        error,
        ConfigError::NotRegularFile { kind: "fifo", .. }
    ));
    assert_eq!(error.to_string(), not_regular(&path, "fifo"));
}

#[tokio::test]
async fn a_symlinked_root_directory_is_fine() {
    // Only the file itself must not be a symlink; the directories above it may be.
    let dir = tempdir();
    let real = dir.path().join("real");
    fs::create_dir(&real).unwrap();
    write(&real, ".mcp.json", MINIMAL);
    let linked = dir.path().join("linked");
    symlink(&real, &linked).unwrap();
    let config = Config::load(&linked, None).await.unwrap();
    assert_eq!(config.format, ConfigFormat::V1);
}

// ---------------------------------------------------------------------------------------------
// JSON

#[tokio::test]
async fn invalid_json_is_reported_with_the_path() {
    let (error, message) = load_err(r#"{"version": 1,"#).await;
    assert!(matches!(error, ConfigError::Json { .. }));
    assert!(
        message.starts_with("invalid mcp.json <path>: "),
        "{message}"
    );
    assert!(
        message.ends_with("(the file must be a single JSON object)"),
        "{message}"
    );
}

#[tokio::test]
async fn an_empty_file_is_invalid_json() {
    let (error, _) = load_err("").await;
    assert!(matches!(error, ConfigError::Json { .. }));
}

#[tokio::test]
async fn duplicate_keys_are_refused() {
    let (error, message) = load_err(r#"{"version": 1, "servers": {}, "servers": {"a": {}}}"#).await;
    assert!(matches!(error, ConfigError::Json { .. }));
    assert!(
        message.starts_with(
            "invalid mcp.json <path>: duplicate key `servers` (each key may appear once per \
             object) at line 1"
        ),
        "{message}"
    );
}

#[tokio::test]
async fn a_byte_order_mark_is_skipped() {
    let config = load_ok(&format!("\u{feff}{MINIMAL}")).await;
    assert_eq!(config.format, ConfigFormat::V1);
}

#[tokio::test]
async fn the_top_level_must_be_an_object() {
    let (_, message) = load_err("[1, 2]").await;
    assert_eq!(
        message,
        invalid(
            "",
            "the top level must be a JSON object (e.g. {\"version\": 1, \"servers\": {}}), got \
             an array"
        )
    );
}

#[tokio::test]
async fn an_unrecognized_object_is_an_error() {
    let expected = "invalid mcp.json <path>: missing field `version`, and the file is not a \
                    recognized compatible format (write an mcp.json v1 file: {\"version\": 1, \
                    \"servers\": {…}}; or use {\"mcpServers\": {…}}, a server map {\"<name>\": \
                    {\"command\": …}} or VS Code's {\"servers\": {…}})";
    for doc in [
        "{}",
        r#"{"foo": 1}"#,
        r#"{"a": {"command": "x"}, "b": {"args": []}}"#,
    ] {
        let (error, message) = load_err(doc).await;
        assert!(
            matches!(error, ConfigError::UnrecognizedFormat { .. }),
            "{doc}"
        );
        assert_eq!(message, expected, "{doc}");
    }
}

// ---------------------------------------------------------------------------------------------
// mcp.json v1: fields and defaults

#[tokio::test]
async fn v1_every_field() {
    let doc = json!({
        "version": 1,
        "client": {
            "protocol_version": "2025-06-18",
            "capabilities": {"experimental": {"x": {}}},
            "roots": [
                {"uri": "file:///repo", "name": "workspace"},
                {"uri": "file:///other"}
            ]
        },
        "servers": {
            "local": {
                "transport": "stdio",
                "argv": ["mcp-server-bin", "--stdio"],
                "env": {"KEY": "VALUE", "EMPTY": ""},
                "inherit_env": false,
                "stdout_log": {
                    "path": "./.mcp-kit/logs/mcp/server.stdout.log",
                    "max_bytes_per_part": 4096,
                    "max_parts": 0
                }
            },
            "sock": {"transport": "unix", "unix_path": "run/mcp.sock"},
            "remote": {
                "transport": "streamable_http",
                "url": "https://example.com/mcp",
                "http_headers": {"X-Client": "my-app"},
                "bearer_token_env_var": "MCP_TOKEN",
                "env_http_headers": {"X-Api-Key": "MCP_API_KEY"}
            },
            "split-1_x": {
                "transport": "streamable_http",
                "sse_url": "https://example.com/sse",
                "http_url": "https://example.com/post"
            }
        }
    });
    let (_dir, path, result) = load_str(&doc.to_string()).await;
    let config = result.unwrap();

    let mut servers = BTreeMap::new();
    servers.insert(
        "local".to_string(),
        ServerConfig::Stdio(StdioServer {
            argv: vec!["mcp-server-bin".into(), "--stdio".into()],
            env: map(&[("KEY", "VALUE"), ("EMPTY", "")]),
            inherit_env: false,
            stdout_log: Some(StdoutLogConfig {
                path: PathBuf::from("./.mcp-kit/logs/mcp/server.stdout.log"),
                max_bytes_per_part: 4096,
                max_parts: 0,
            }),
            env_file: None,
        }),
    );
    servers.insert(
        "sock".to_string(),
        ServerConfig::Unix(UnixServer {
            unix_path: PathBuf::from("run/mcp.sock"),
        }),
    );
    servers.insert(
        "remote".to_string(),
        ServerConfig::StreamableHttp(StreamableHttpServer {
            urls: HttpUrls::Single("https://example.com/mcp".into()),
            http_headers: map(&[("X-Client", "my-app")]),
            bearer_token_env_var: Some("MCP_TOKEN".into()),
            env_http_headers: map(&[("X-Api-Key", "MCP_API_KEY")]),
            oauth: None,
        }),
    );
    servers.insert(
        "split-1_x".to_string(),
        ServerConfig::streamable_http_split("https://example.com/sse", "https://example.com/post"),
    );

    let capabilities = json!({"experimental": {"x": {}}});
    assert_eq!(
        config,
        Config {
            path: Some(path),
            format: ConfigFormat::V1,
            client: ClientConfig {
                protocol_version: Some("2025-06-18".into()),
                capabilities: Some(capabilities.as_object().unwrap().clone()),
                roots: Some(vec![
                    Root {
                        uri: "file:///repo".into(),
                        name: Some("workspace".into()),
                    },
                    Root {
                        uri: "file:///other".into(),
                        name: None,
                    },
                ]),
            },
            servers,
            skipped: Vec::new(),
            inputs: Vec::new(),
        }
    );
    assert_eq!(config.servers["local"].transport(), Transport::Stdio);
    assert_eq!(config.servers["sock"].transport(), Transport::Unix);
    assert_eq!(
        config.servers["remote"].transport(),
        Transport::StreamableHttp
    );
}

#[tokio::test]
async fn v1_defaults() {
    let config = load_ok(MINIMAL).await;
    assert_eq!(config.client, ClientConfig::default());
    assert!(config.servers.is_empty());

    assert_eq!(
        server_ok(json!({"transport": "stdio", "argv": ["bin"]})).await,
        ServerConfig::stdio(["bin"]),
        "env empty, inherit_env false (the baseline environment), no stdout_log"
    );

    let server = server_ok(json!({
        "transport": "stdio",
        "argv": ["bin"],
        "stdout_log": {"path": "logs/out.log"}
    }))
    .await;
    let ServerConfig::Stdio(stdio) = server else {
        panic!("stdio")
    };
    assert_eq!(stdio.stdout_log, Some(StdoutLogConfig::new("logs/out.log")));
    assert_eq!(
        stdio.stdout_log.unwrap(),
        StdoutLogConfig {
            path: PathBuf::from("logs/out.log"),
            max_bytes_per_part: 1_048_576,
            max_parts: 32,
        }
    );

    // An empty client section, empty roots, empty maps.
    let config = load_ok(
        r#"{"version": 1, "client": {"roots": []}, "servers": {
            "s": {"transport": "stdio", "argv": ["bin"], "env": {}},
            "h": {"transport": "streamable_http", "url": "https://x.example/mcp",
                  "http_headers": {}, "env_http_headers": {}}}}"#,
    )
    .await;
    assert_eq!(config.client.roots, Some(vec![]));
    assert_eq!(config.client.protocol_version, None);
    assert_eq!(config.client.capabilities, None);
    assert_eq!(config.servers["s"], ServerConfig::stdio(["bin"]));
    assert_eq!(
        config.servers["h"],
        ServerConfig::streamable_http("https://x.example/mcp")
    );
}

#[tokio::test]
async fn v1_null_optional_fields_are_absent() {
    let config = load_ok(
        r#"{"version": 1, "client": null, "servers": {
            "s": {"transport": "stdio", "argv": ["bin"], "env": null, "inherit_env": null,
                  "stdout_log": null}}}"#,
    )
    .await;
    assert_eq!(config.client, ClientConfig::default());
    assert_eq!(config.servers["s"], ServerConfig::stdio(["bin"]));
}

#[tokio::test]
async fn v1_stdout_log_limits() {
    for (max_bytes, max_parts) in [(1u64, 1u32), (u64::MAX, u32::MAX), (1, 0)] {
        let server = server_ok(json!({
            "transport": "stdio",
            "argv": ["bin"],
            "stdout_log": {"path": "/var/log/x.log", "max_bytes_per_part": max_bytes,
                           "max_parts": max_parts}
        }))
        .await;
        let ServerConfig::Stdio(stdio) = server else {
            panic!("stdio")
        };
        let log = stdio.stdout_log.unwrap();
        assert_eq!(log.path, PathBuf::from("/var/log/x.log"));
        assert_eq!(
            (log.max_bytes_per_part, log.max_parts),
            (max_bytes, max_parts)
        );
    }
}

#[tokio::test]
async fn v1_server_names() {
    let config = load_ok(
        r#"{"version": 1, "servers": {"my-server_1": {"transport": "unix", "unix_path": "s"},
            "A": {"transport": "unix", "unix_path": "s"}, "9": {"transport": "unix",
            "unix_path": "s"}}}"#,
    )
    .await;
    assert_eq!(config.servers.len(), 3);
}

// ---------------------------------------------------------------------------------------------
// mcp.json v1: errors

#[tokio::test]
async fn unsupported_versions() {
    for (version, shown) in [
        ("2", "2"),
        ("0", "0"),
        ("\"1\"", "\"1\""),
        ("1.0", "1.0"),
        ("null", "null"),
        ("-1", "-1"),
    ] {
        let doc = format!(r#"{{"version": {version}, "servers": {{}}}}"#);
        let (error, message) = load_err(&doc).await;
        assert!(
            matches!(error, ConfigError::UnsupportedVersion { .. }),
            "{doc}"
        );
        assert_eq!(
            message,
            format!(
                "unsupported mcp.json version {shown} (expected 1): <path> (set the top-level \
                 \"version\" to 1; this release reads mcp.json v1 only)"
            )
        );
    }
}

#[tokio::test]
async fn the_version_is_checked_before_unknown_fields() {
    let (error, _) = load_err(r#"{"version": 2, "servers": {}, "future": true}"#).await;
    assert!(matches!(error, ConfigError::UnsupportedVersion { .. }));
}

#[tokio::test]
async fn servers_is_required_and_an_object() {
    let (_, message) = load_err(r#"{"version": 1}"#).await;
    assert_eq!(
        message,
        invalid(
            "",
            "missing field `servers` (add \"servers\": {} even when there are none)"
        )
    );
    let (_, message) = load_err(r#"{"version": 1, "servers": []}"#).await;
    assert_eq!(
        message,
        invalid("", "`servers` must be a JSON object, got an array")
    );
}

#[tokio::test]
async fn invalid_server_names() {
    for name in ["bad name", "", "a.b", "ä", "a/b", "x\u{1b}[31m"] {
        let doc = json!({"version": 1, "servers": {name: {"transport": "unix", "unix_path": "s"}}});
        let (error, message) = load_err(&doc.to_string()).await;
        assert!(
            matches!(&error, ConfigError::InvalidServerName { name: n, .. } if n == name),
            "{name}"
        );
        assert_eq!(
            message,
            format!(
                "invalid mcp server name: `{}` in <path> (names may only use [a-zA-Z0-9_-] and \
                 must not be empty; rename the key, e.g. `my-server_1`)",
                name.escape_debug()
            )
        );
    }
    // The terminal escape is not printed raw.
    let doc = json!({"version": 1, "servers": {"x\u{1b}[31m": {}}});
    let (_, message) = load_err(&doc.to_string()).await;
    assert!(
        message.starts_with("invalid mcp server name: `x\\u{1b}[31m`"),
        "{message}"
    );
}

const UNKNOWN_HINT: &str = "(mcp.json v1 refuses unknown fields: remove it or fix its spelling)";

#[tokio::test]
async fn unknown_fields_at_every_level() {
    let (_, message) = load_err(r#"{"version": 1, "servers": {}, "sever": {}}"#).await;
    assert_eq!(
        message,
        invalid(
            "",
            &format!(
                "unknown field `sever`, expected one of `version`, `client`, `servers` \
                 {UNKNOWN_HINT}"
            )
        )
    );

    let (_, message) =
        load_err(r#"{"version": 1, "client": {"protocolVersion": "x"}, "servers": {}}"#).await;
    assert_eq!(
        message,
        invalid(
            "client",
            &format!(
                "unknown field `protocolVersion`, expected one of `protocol_version`, \
                 `capabilities`, `roots` {UNKNOWN_HINT}"
            )
        )
    );

    let (_, message) = load_err(
        r#"{"version": 1, "client": {"roots": [{"uri": "file:///a"}, {"uri": "file:///b", "title": "x"}]}, "servers": {}}"#,
    )
    .await;
    assert_eq!(
        message,
        invalid(
            "client.roots[1]",
            &format!("unknown field `title`, expected one of `uri`, `name` {UNKNOWN_HINT}")
        )
    );

    for (transport, extra, expected) in [
        (
            "stdio",
            json!({"argv": ["bin"]}),
            "`transport`, `argv`, `env`, `inherit_env`, `stdout_log`",
        ),
        (
            "unix",
            json!({"unix_path": "s"}),
            "`transport`, `unix_path`",
        ),
        (
            "streamable_http",
            json!({"url": "https://x.example"}),
            "`transport`, `url`, `sse_url`, `http_url`, `http_headers`, \
             `bearer_token_env_var`, `env_http_headers`, `oauth`",
        ),
    ] {
        let mut server = extra.as_object().unwrap().clone();
        server.insert("transport".into(), json!(transport));
        server.insert("foo".into(), json!(1));
        let message = server_err(json!(server)).await;
        assert_eq!(
            message,
            invalid(
                "servers.s",
                &format!("unknown field `foo`, expected one of {expected} {UNKNOWN_HINT}")
            ),
            "{transport}"
        );
    }

    let message = server_err(json!({
        "transport": "stdio",
        "argv": ["bin"],
        "stdout_log": {"path": "x.log", "max_size": 1}
    }))
    .await;
    assert_eq!(
        message,
        invalid(
            "servers.s.stdout_log",
            &format!(
                "unknown field `max_size`, expected one of `path`, `max_bytes_per_part`, \
                 `max_parts` {UNKNOWN_HINT}"
            )
        )
    );
}

#[tokio::test]
async fn fields_of_another_transport_are_refused() {
    let cases = [
        (
            json!({"transport": "streamable_http", "url": "https://x.example", "argv": ["bin"]}),
            "argv",
            "streamable_http",
            "stdio",
        ),
        (
            json!({"transport": "streamable_http", "url": "https://x.example", "unix_path": "s"}),
            "unix_path",
            "streamable_http",
            "unix",
        ),
        (
            json!({"transport": "streamable_http", "url": "https://x.example", "env": {}}),
            "env",
            "streamable_http",
            "stdio",
        ),
        (
            json!({"transport": "streamable_http", "url": "https://x.example", "stdout_log": {"path": "x"}}),
            "stdout_log",
            "streamable_http",
            "stdio",
        ),
        (
            json!({"transport": "streamable_http", "url": "https://x.example", "inherit_env": true}),
            "inherit_env",
            "streamable_http",
            "stdio",
        ),
        (
            json!({"transport": "unix", "unix_path": "s", "argv": ["bin"]}),
            "argv",
            "unix",
            "stdio",
        ),
        (
            json!({"transport": "unix", "unix_path": "s", "env": {}}),
            "env",
            "unix",
            "stdio",
        ),
        (
            json!({"transport": "unix", "unix_path": "s", "stdout_log": {"path": "x"}}),
            "stdout_log",
            "unix",
            "stdio",
        ),
        (
            json!({"transport": "unix", "unix_path": "s", "url": "https://x.example"}),
            "url",
            "unix",
            "streamable_http",
        ),
        (
            json!({"transport": "stdio", "argv": ["bin"], "url": "https://x.example"}),
            "url",
            "stdio",
            "streamable_http",
        ),
        (
            json!({"transport": "stdio", "argv": ["bin"], "http_headers": {}}),
            "http_headers",
            "stdio",
            "streamable_http",
        ),
        (
            json!({"transport": "stdio", "argv": ["bin"], "unix_path": "s"}),
            "unix_path",
            "stdio",
            "unix",
        ),
    ];
    for (server, field, transport, owner) in cases {
        assert_eq!(
            server_err(server).await,
            invalid(
                "servers.s",
                &format!(
                    "field `{field}` is not allowed for transport={transport} (it belongs to \
                     transport={owner}; remove it or change `transport`)"
                )
            )
        );
    }
}

#[tokio::test]
async fn transport_errors() {
    assert_eq!(
        server_err(json!({"argv": ["bin"]})).await,
        invalid(
            "servers.s",
            "missing field `transport` (one of \"stdio\", \"unix\", \"streamable_http\")"
        )
    );
    assert_eq!(
        server_err(json!({"transport": "http", "url": "https://x.example"})).await,
        invalid(
            "servers.s",
            "unknown transport `http` (expected \"stdio\", \"unix\" or \"streamable_http\")"
        )
    );
    assert_eq!(
        server_err(json!({"transport": 1})).await,
        invalid(
            "servers.s",
            "`transport` must be a string (\"stdio\", \"unix\" or \"streamable_http\"), got a \
             number"
        )
    );
    assert_eq!(
        server_err(json!(["stdio"])).await,
        invalid(
            "servers.s",
            "a server must be a JSON object like {\"transport\": \"stdio\", \"argv\": […]}, got \
             an array"
        )
    );
}

#[tokio::test]
async fn stdio_errors() {
    let s = |extra: serde_json::Value| {
        let mut server = json!({"transport": "stdio"});
        server
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        server
    };
    let cases = [
        (
            s(json!({})),
            "missing field `argv` (the program and its arguments, e.g. \"argv\": \
             [\"mcp-server-bin\", \"--stdio\"])",
        ),
        (
            s(json!({"argv": []})),
            "`argv` must not be empty: give at least the program (e.g. [\"mcp-server-bin\", \
             \"--stdio\"])",
        ),
        (
            s(json!({"argv": "bin --stdio"})),
            "`argv` must be a non-empty array of non-empty strings (e.g. [\"mcp-server-bin\", \
             \"--stdio\"]), got a string",
        ),
        (
            s(json!({"argv": ["bin", ""]})),
            "`argv[1]` must not be empty",
        ),
        (
            s(json!({"argv": ["bin", 1]})),
            "`argv[1]` must be a non-empty string, got a number",
        ),
        (
            s(json!({"argv": ["bin\u{0}"]})),
            "`argv[0]` must not contain a NUL character",
        ),
        (
            s(json!({"argv": ["bin"], "env": ["A=1"]})),
            "`env` must be a JSON object, got an array",
        ),
        (
            s(json!({"argv": ["bin"], "env": {"A": 1}})),
            "`env.A` must be a string, got a number (quote numbers and booleans)",
        ),
        (
            s(json!({"argv": ["bin"], "env": {"A=B": "1"}})),
            "`env` has an invalid variable name `A=B` (a name must be non-empty, without `=` or \
             NUL)",
        ),
        (
            s(json!({"argv": ["bin"], "env": {"": "1"}})),
            "`env` has an invalid variable name `` (a name must be non-empty, without `=` or \
             NUL)",
        ),
        (
            s(json!({"argv": ["bin"], "inherit_env": "false"})),
            "`inherit_env` must be true or false, got a string",
        ),
    ];
    for (server, message) in cases {
        assert_eq!(server_err(server).await, invalid("servers.s", message));
    }
}

#[tokio::test]
async fn stdout_log_errors() {
    let log = |stdout_log: serde_json::Value| json!({"transport": "stdio", "argv": ["bin"], "stdout_log": stdout_log});
    assert_eq!(
        server_err(log(json!("x.log"))).await,
        invalid(
            "servers.s.stdout_log",
            "`stdout_log` must be an object like {\"path\": \
             \"./.mcp-kit/logs/mcp/server.stdout.log\"}, got a string"
        )
    );
    let at = "servers.s.stdout_log";
    let cases = [
        (
            json!({}),
            "missing field `path` (the log file, e.g. \"./.mcp-kit/logs/mcp/server.stdout.log\")",
        ),
        (json!({"path": ""}), "`path` must not be empty"),
        (
            json!({"path": 1}),
            "`path` must be a non-empty string, got a number",
        ),
        (
            json!({"path": "logs/../../etc/x.log"}),
            "`path` must not contain a `..` component (path traversal); write the path without \
             `..`",
        ),
        (
            json!({"path": "../x.log"}),
            "`path` must not contain a `..` component (path traversal); write the path without \
             `..`",
        ),
        (
            json!({"path": "x.log", "max_bytes_per_part": 0}),
            "`max_bytes_per_part` must be an integer >= 1 (default 1048576), got 0",
        ),
        (
            json!({"path": "x.log", "max_bytes_per_part": -5}),
            "`max_bytes_per_part` must be an integer >= 1 (default 1048576), got -5",
        ),
        (
            json!({"path": "x.log", "max_bytes_per_part": 1.5}),
            "`max_bytes_per_part` must be an integer >= 1 (default 1048576), got 1.5",
        ),
        (
            json!({"path": "x.log", "max_bytes_per_part": "1MiB"}),
            "`max_bytes_per_part` must be an integer >= 1 (default 1048576), got \"1MiB\"",
        ),
        (
            json!({"path": "x.log", "max_parts": -1}),
            "`max_parts` must be an integer from 0 to 4294967295 (default 32; 0 keeps all \
             parts), got -1",
        ),
        (
            json!({"path": "x.log", "max_parts": 4294967296u64}),
            "`max_parts` must be an integer from 0 to 4294967295 (default 32; 0 keeps all \
             parts), got 4294967296",
        ),
    ];
    for (stdout_log, message) in cases {
        assert_eq!(server_err(log(stdout_log)).await, invalid(at, message));
    }
    // `..` inside a file name is not a `..` component.
    let server = server_ok(log(json!({"path": "logs/a..b.log"}))).await;
    let ServerConfig::Stdio(stdio) = server else {
        panic!("stdio")
    };
    assert_eq!(
        stdio.stdout_log.unwrap().path,
        PathBuf::from("logs/a..b.log")
    );
}

#[tokio::test]
async fn unix_errors() {
    assert_eq!(
        server_err(json!({"transport": "unix"})).await,
        invalid(
            "servers.s",
            "missing field `unix_path` (the socket to connect to, e.g. \"/tmp/mcp.sock\"; \
             relative paths resolve against the root)"
        )
    );
    assert_eq!(
        server_err(json!({"transport": "unix", "unix_path": ""})).await,
        invalid("servers.s", "`unix_path` must not be empty")
    );
    assert_eq!(
        server_err(json!({"transport": "unix", "unix_path": ["s"]})).await,
        invalid(
            "servers.s",
            "`unix_path` must be a non-empty string, got an array"
        )
    );
}

#[tokio::test]
async fn streamable_http_errors() {
    let h = |extra: serde_json::Value| {
        let mut server = json!({"transport": "streamable_http"});
        server
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        server
    };
    let url = "https://x.example/mcp";
    let cases = [
        (
            h(json!({})),
            "missing field `url` (set \"url\", or both \"sse_url\" and \"http_url\")".to_string(),
        ),
        (
            h(json!({"url": url, "sse_url": url, "http_url": url})),
            "`url` cannot be combined with `sse_url`/`http_url` (use either `url`, or both \
             `sse_url` and `http_url`)"
                .into(),
        ),
        (
            h(json!({"url": url, "sse_url": url})),
            "`url` cannot be combined with `sse_url`/`http_url` (use either `url`, or both \
             `sse_url` and `http_url`)"
                .into(),
        ),
        (
            h(json!({"sse_url": url})),
            "`sse_url` is set without `http_url` (the two must be set together; or use `url` \
             alone)"
                .into(),
        ),
        (
            h(json!({"http_url": url})),
            "`http_url` is set without `sse_url` (the two must be set together; or use `url` \
             alone)"
                .into(),
        ),
        (h(json!({"url": ""})), "`url` must not be empty".into()),
        (
            h(json!({"url": 5})),
            "`url` must be a non-empty string, got a number".into(),
        ),
        (
            h(json!({"url": url, "http_headers": {"X-A": 1}})),
            "`http_headers.X-A` must be a string, got a number".into(),
        ),
        (
            h(json!({"url": url, "http_headers": "X-A: 1"})),
            "`http_headers` must be a JSON object, got a string".into(),
        ),
        (
            h(json!({"url": url, "http_headers": {"X A": "1"}})),
            "`http_headers` has an invalid header name `X A` (letters, digits and \
             !#$%&'*+-.^_`|~ only)"
                .into(),
        ),
        (
            h(json!({"url": url, "http_headers": {"X-A": "1\r\nX-B: 2"}})),
            "`http_headers.X-A` must not contain CR, LF or NUL".into(),
        ),
        (
            h(json!({"url": url, "bearer_token_env_var": ""})),
            "`bearer_token_env_var` must not be empty".into(),
        ),
        (
            h(json!({"url": url, "bearer_token_env_var": true})),
            "`bearer_token_env_var` must be a non-empty string, got a boolean".into(),
        ),
        (
            h(json!({"url": url, "env_http_headers": {"X-Api-Key": ""}})),
            "`env_http_headers.X-Api-Key` must name an environment variable, got an empty string"
                .into(),
        ),
        (
            h(json!({"url": url, "env_http_headers": {"X-Api-Key": 3}})),
            "`env_http_headers.X-Api-Key` must be a string, got a number".into(),
        ),
    ];
    for (server, message) in cases {
        assert_eq!(server_err(server).await, invalid("servers.s", &message));
    }
}

#[tokio::test]
async fn client_errors() {
    let client_err = |client: serde_json::Value| async move {
        load_err(&json!({"version": 1, "client": client, "servers": {}}).to_string())
            .await
            .1
    };
    assert_eq!(
        client_err(json!([])).await,
        invalid("", "`client` must be a JSON object, got an array")
    );
    assert_eq!(
        client_err(json!({"protocol_version": ""})).await,
        invalid("client", "`protocol_version` must not be empty")
    );
    assert_eq!(
        client_err(json!({"protocol_version": 20250618})).await,
        invalid(
            "client",
            "`protocol_version` must be a non-empty string, got a number"
        )
    );
    assert_eq!(
        client_err(json!({"capabilities": []})).await,
        invalid(
            "client",
            "`capabilities` must be a JSON object, got an array"
        )
    );
    assert_eq!(
        client_err(json!({"roots": {"uri": "file:///a"}})).await,
        invalid(
            "client",
            "`roots` must be an array of {\"uri\": …, \"name\": …} objects, got an object"
        )
    );
    assert_eq!(
        client_err(json!({"roots": ["file:///a"]})).await,
        invalid(
            "client.roots[0]",
            "a root must be an object like {\"uri\": \"file:///repo\", \"name\": \"workspace\"}, \
             got a string"
        )
    );
    assert_eq!(
        client_err(json!({"roots": [{"name": "x"}]})).await,
        invalid(
            "client.roots[0]",
            "missing field `uri` (e.g. \"uri\": \"file:///repo\")"
        )
    );
    assert_eq!(
        client_err(json!({"roots": [{"uri": ""}]})).await,
        invalid("client.roots[0]", "`uri` must not be empty")
    );
    assert_eq!(
        client_err(json!({"roots": [{"uri": "file:///a", "name": ""}]})).await,
        invalid("client.roots[0]", "`name` must not be empty")
    );
}

// ---------------------------------------------------------------------------------------------
// Compatible formats

#[tokio::test]
async fn mcp_servers_wrapper() {
    let config = load_ok(
        r#"{
          "name": "my-plugin",
          "version": "1.0.0",
          "mcpServers": {
            "litellm": {
              "url": "http://localhost:4000/everything/mcp",
              "type": "http",
              "headers": { "Authorization": "Bearer sk-..." },
              "disabled": false
            },
            "sse": {"url": "https://x.example/sse", "type": "sse"},
            "sh": {"url": "https://x.example/mcp", "type": "streamable_http"},
            "plain": {"url": "https://x.example/mcp"},
            "local": {
              "command": "npx",
              "args": ["-y", "server", "${CLAUDE_PLUGIN_ROOT}/data"],
              "env": {"LOG_LEVEL": "debug"},
              "cwd": "/ignored",
              "type": "stdio"
            },
            "bare": {"command": "server-bin"}
          }
        }"#,
    )
    .await;
    assert_eq!(config.format, ConfigFormat::McpServers);
    assert_eq!(config.client, ClientConfig::default());
    let mut litellm = StreamableHttpServer {
        urls: HttpUrls::Single("http://localhost:4000/everything/mcp".into()),
        http_headers: map(&[("Authorization", "Bearer sk-...")]),
        bearer_token_env_var: None,
        env_http_headers: BTreeMap::new(),
        oauth: None,
    };
    assert_eq!(
        config.servers["litellm"],
        ServerConfig::StreamableHttp(litellm.clone())
    );
    litellm.http_headers.clear();
    assert_eq!(
        config.servers["sse"],
        ServerConfig::streamable_http("https://x.example/sse")
    );
    assert_eq!(
        config.servers["sh"],
        ServerConfig::streamable_http("https://x.example/mcp")
    );
    assert_eq!(
        config.servers["plain"],
        ServerConfig::streamable_http("https://x.example/mcp")
    );
    assert_eq!(
        config.servers["local"],
        ServerConfig::Stdio(StdioServer {
            env: map(&[("LOG_LEVEL", "debug")]),
            ..stdio(&["npx", "-y", "server", "${CLAUDE_PLUGIN_ROOT}/data"])
        })
    );
    assert_eq!(config.servers["bare"], ServerConfig::stdio(["server-bin"]));
}

#[tokio::test]
async fn mcp_servers_wins_over_version_1() {
    let config =
        load_ok(r#"{"version": 1, "mcpServers": {"a": {"command": "bin"}}, "servers": {"b": {}}}"#)
            .await;
    assert_eq!(config.format, ConfigFormat::McpServers);
    assert_eq!(config.servers.keys().collect::<Vec<_>>(), ["a"]);
}

#[tokio::test]
async fn mcp_servers_errors() {
    let err = |servers: serde_json::Value| async move {
        load_err(&json!({"mcpServers": servers}).to_string())
            .await
            .1
    };
    assert_eq!(
        err(json!(3)).await,
        invalid(
            "",
            "`mcpServers` must be an object of servers or a relative path to a file holding \
             them, got a number"
        )
    );
    let cases = [
        (
            json!({"command": "bin", "type": "websocket"}),
            "unsupported `type` `websocket` (expected \"stdio\" with `command`, or \"http\", \
             \"sse\" or \"streamable_http\" with `url`)",
        ),
        (
            json!({"url": "https://x.example", "type": 1}),
            "`type` must be a string (\"stdio\", \"http\", \"sse\" or \"streamable_http\"), got \
             a number",
        ),
        (
            json!({"command": "bin", "url": "https://x.example"}),
            "both `command` and `url` are set (keep `command` for a local process, or `url` for \
             a remote server)",
        ),
        (
            json!({"url": "https://x.example", "type": "stdio"}),
            "`type` \"stdio\" needs `command`, not `url` (set \"type\": \"http\" for a remote \
             server)",
        ),
        (
            json!({"command": "bin", "type": "http"}),
            "`type` http/sse/streamable_http needs `url`, not `command` (set \"type\": \"stdio\" \
             for a local process)",
        ),
        (
            json!({"args": ["x"]}),
            "missing field `command` or `url` (give `command` and `args` for a local process, \
             or `url` for a remote server)",
        ),
        (
            json!({"type": "sse"}),
            "missing field `url` (give `command` and `args` for a local process, or `url` for a \
             remote server)",
        ),
        (
            json!({"command": ["npx", "x"]}),
            "`command` must be a non-empty string, got an array",
        ),
        (json!({"command": ""}), "`command` must not be empty"),
        (
            json!({"command": "npx", "args": "-y x"}),
            "`args` must be an array of strings, got a string",
        ),
        (
            json!({"command": "npx", "args": ["-y", 2]}),
            "`args[1]` must be a non-empty string, got a number",
        ),
        (
            json!({"command": "npx", "env": {"A": true}}),
            "`env.A` must be a string, got a boolean (quote numbers and booleans)",
        ),
        (
            json!({"url": "https://x.example", "headers": ["A: b"]}),
            "`headers` must be a JSON object, got an array",
        ),
        (json!({"url": ""}), "`url` must not be empty"),
        (
            json!("npx server"),
            "a server must be a JSON object with `command` (and `args`, `env`) or `url` (and \
             `headers`), got a string",
        ),
    ];
    // A bad entry is reported and skipped; the rest of the file loads.
    for (server, message) in cases {
        let doc = json!({"mcpServers": {"x": server, "ok": {"command": "bin"}}});
        let (entry, got) = skipped(&doc.to_string()).await;
        assert_eq!(entry.name, "x");
        assert_eq!(got, invalid("mcpServers.x", message));
    }
    let (entry, message) = skipped(r#"{"mcpServers": {"bad name": {"command": "bin"}}}"#).await;
    assert_eq!(entry.name, "bad name");
    assert!(
        message.starts_with("invalid mcp server name: `bad name`"),
        "{message}"
    );
}

#[tokio::test]
async fn claude_code_server_map() {
    let config = load_ok(
        r#"{
          "filesystem": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "/allowed/path"],
            "env": { "LOG_LEVEL": "debug" }
          },
          "remote": {"type": "http", "url": "https://x.example/mcp", "headers": {"X-A": "b"}}
        }"#,
    )
    .await;
    assert_eq!(config.format, ConfigFormat::ClaudeServerMap);
    assert_eq!(config.client, ClientConfig::default());
    assert_eq!(
        config.servers["filesystem"],
        ServerConfig::Stdio(StdioServer {
            env: map(&[("LOG_LEVEL", "debug")]),
            ..stdio(&[
                "npx",
                "-y",
                "@modelcontextprotocol/server-filesystem",
                "/allowed/path"
            ])
        })
    );
    let ServerConfig::StreamableHttp(remote) = &config.servers["remote"] else {
        panic!("http")
    };
    assert_eq!(remote.urls.http_url(), "https://x.example/mcp");
    assert_eq!(remote.http_headers, map(&[("X-A", "b")]));

    let (_, message) = skipped(r#"{"bad.name": {"command": "bin"}}"#).await;
    assert!(message.starts_with("invalid mcp server name: `bad.name`"));

    let (_, message) = skipped(r#"{"x": {"command": "bin", "args": [1]}}"#).await;
    assert_eq!(
        message,
        invalid("x", "`args[0]` must be a non-empty string, got a number")
    );
}

#[tokio::test]
async fn vs_code_servers() {
    let config = load_ok(
        r#"{
          "inputs": [{"type": "promptString", "id": "key", "password": true}],
          "servers": {
            "local": {"type": "stdio", "command": "node", "args": ["server.js"],
                      "env": {"A": "1"}, "envFile": "${workspaceFolder}/.env"},
            "remote": {"type": "http", "url": "https://x.example/mcp",
                       "headers": {"X-Key": "k"}},
            "events": {"type": "sse", "url": "https://x.example/sse"},
            "untyped": {"command": "bin"}
          }
        }"#,
    )
    .await;
    assert_eq!(config.format, ConfigFormat::VsCode);
    assert_eq!(config.client, ClientConfig::default());
    assert_eq!(
        config.servers["local"],
        ServerConfig::Stdio(StdioServer {
            env: map(&[("A", "1")]),
            env_file: Some("${workspaceFolder}/.env".into()),
            ..stdio(&["node", "server.js"])
        })
    );
    assert_eq!(config.inputs[0].id, "key");
    assert_eq!(
        config.servers["remote"],
        ServerConfig::StreamableHttp(StreamableHttpServer {
            http_headers: map(&[("X-Key", "k")]),
            ..match ServerConfig::streamable_http("https://x.example/mcp") {
                ServerConfig::StreamableHttp(h) => h,
                _ => unreachable!(),
            }
        })
    );
    assert_eq!(
        config.servers["events"],
        ServerConfig::streamable_http("https://x.example/sse")
    );
    assert_eq!(config.servers["untyped"], ServerConfig::stdio(["bin"]));

    let config = load_ok(r#"{"servers": {}}"#).await;
    assert_eq!(config.format, ConfigFormat::VsCode);
    assert!(config.servers.is_empty());
}

#[tokio::test]
async fn vs_code_errors() {
    let (_, message) = load_err(r#"{"servers": []}"#).await;
    assert_eq!(
        message,
        invalid("", "`servers` must be a JSON object, got an array")
    );

    // A v1 file without `version` is read as VS Code's format; the error says what to add.
    let (_, message) =
        skipped(r#"{"servers": {"x": {"transport": "stdio", "argv": ["bin"]}}}"#).await;
    assert_eq!(
        message,
        invalid(
            "servers.x",
            "missing field `command` or `url` (this looks like an mcp.json v1 server: add \
             \"version\": 1 at the top level)"
        )
    );

    let (_, message) = skipped(r#"{"servers": {"x": {"type": "ws", "url": "wss://x"}}}"#).await;
    assert_eq!(
        message,
        invalid(
            "servers.x",
            "unsupported `type` `ws` (expected \"stdio\" with `command`, or \"http\", \"sse\" \
             or \"streamable_http\" with `url`)"
        )
    );

    let (entry, _) = skipped(r#"{"servers": {"a b": {"command": "bin"}}}"#).await;
    assert_eq!(entry.name, "a b");

    // `"disabled": true` entries are skipped as disabled, in every compatible format.
    for doc in [
        r#"{"mcpServers": {"off": {"command": "bin", "disabled": true}, "on": {"command": "b"}}}"#,
        r#"{"servers": {"off": {"command": "bin", "disabled": true}, "on": {"command": "b"}}}"#,
        r#"{"off": {"command": "bin", "disabled": true}, "on": {"command": "b", "disabled": false}}"#,
    ] {
        let config = load_ok(doc).await;
        assert_eq!(config.servers.keys().collect::<Vec<_>>(), ["on"], "{doc}");
        assert_eq!(
            config.skipped,
            [SkippedServer {
                name: "off".into(),
                reason: SkipReason::Disabled
            }],
            "{doc}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// `"mcpServers": "<path>"` indirection

#[tokio::test]
async fn mcp_servers_path_to_a_server_map() {
    let root = tempdir();
    write(
        root.path(),
        "plugin/servers.json",
        r#"{"fs": {"command": "npx", "args": ["fs"]}}"#,
    );
    let top = write(
        root.path(),
        ".mcp.json",
        r#"{"version": "1.0.0", "mcpServers": "./plugin/servers.json"}"#,
    );
    let config = Config::load(root.path(), None).await.unwrap();
    assert_eq!(config.format, ConfigFormat::McpServers);
    assert_eq!(config.path, Some(top));
    assert_eq!(config.servers["fs"], ServerConfig::stdio(["npx", "fs"]));
}

#[tokio::test]
async fn mcp_servers_path_to_a_wrapper_relative_to_the_config_file() {
    let root = tempdir();
    write(
        root.path(),
        "plugins/p/inner/.mcp.json",
        r#"{"mcpServers": {"remote": {"url": "https://x.example/mcp"}}}"#,
    );
    write(
        root.path(),
        "plugins/p/plugin.json",
        r#"{"name": "p", "mcpServers": "inner/.mcp.json"}"#,
    );
    let config = Config::load(root.path(), Some(PathBuf::from("plugins/p/plugin.json")))
        .await
        .unwrap();
    assert_eq!(
        config.servers["remote"],
        ServerConfig::streamable_http("https://x.example/mcp")
    );
}

#[tokio::test]
async fn mcp_servers_path_through_a_symlink_inside_the_root() {
    let root = tempdir();
    write(
        root.path(),
        "real/servers.json",
        r#"{"a": {"command": "bin"}}"#,
    );
    symlink(root.path().join("real"), root.path().join("alias")).unwrap();
    symlink(
        root.path().join("real/servers.json"),
        root.path().join("link.json"),
    )
    .unwrap();
    for reference in ["alias/servers.json", "link.json"] {
        write(
            root.path(),
            ".mcp.json",
            &json!({"mcpServers": reference}).to_string(),
        );
        let config = Config::load(root.path(), None).await.unwrap();
        assert_eq!(
            config.servers["a"],
            ServerConfig::stdio(["bin"]),
            "{reference}"
        );
    }
}

#[tokio::test]
async fn mcp_servers_path_refusals() {
    let root = tempdir();
    let outside = tempdir();
    let outside_file = write(
        outside.path(),
        "servers.json",
        r#"{"a": {"command": "bin"}}"#,
    );
    symlink(outside.path(), root.path().join("escape")).unwrap();
    symlink(&outside_file, root.path().join("escape.json")).unwrap();
    write(root.path(), "sub/x.json", r#"{"a": {"command": "bin"}}"#);

    let load = |reference: String| {
        let root = root.path().to_path_buf();
        async move {
            let path = write(
                &root,
                ".mcp.json",
                &json!({"mcpServers": reference}).to_string(),
            );
            let error = Config::load(&root, None).await.unwrap_err();
            let message = error.to_string().replace(&d(&path), "<path>");
            (error, message)
        }
    };

    let (_, message) = load("sub/../sub/x.json".into()).await;
    assert_eq!(
        message,
        invalid(
            "",
            "`mcpServers` path `sub/../sub/x.json` must not contain a `..` component (it must \
             stay under the root)"
        )
    );
    let (_, message) = load("../x.json".into()).await;
    assert!(
        message.contains("must not contain a `..` component"),
        "{message}"
    );

    let absolute = d(&root.path().join("sub/x.json"));
    let (_, message) = load(absolute.clone()).await;
    assert_eq!(
        message,
        invalid(
            "",
            &format!(
                "`mcpServers` path `{absolute}` must be relative to this file's directory, not \
                 absolute"
            )
        )
    );

    let (_, message) = load(String::new()).await;
    assert_eq!(
        message,
        invalid(
            "",
            "`mcpServers` path must not be empty (give a path relative to this file's \
             directory, e.g. \"./.mcp.json\")"
        )
    );

    let canonical_root = fs::canonicalize(root.path()).unwrap();
    let canonical_outside = fs::canonicalize(&outside_file).unwrap();
    for reference in ["escape/servers.json", "escape.json"] {
        let (error, message) = load(reference.into()).await;
        assert!(
            matches!(error, ConfigError::OutsideRoot { .. }),
            "{reference}"
        );
        assert_eq!(
            message,
            format!(
                "invalid mcp.json <path>: `mcpServers` path `{reference}` resolves to {}, \
                 outside the root {} (point it at a file under the root; symlinks may not lead \
                 out of it)",
                d(&canonical_outside),
                d(&canonical_root)
            )
        );
    }

    let (error, message) = load("missing.json".into()).await;
    assert!(matches!(
        error,
        ConfigError::NotFound {
            referenced_by: Some(_),
            ..
        }
    ));
    assert_eq!(
        message,
        format!(
            "mcp config not found: {} (referenced by `mcpServers` in <path>; the path is \
             relative to that file's directory: create the file or fix the path)",
            d(&root.path().join("missing.json"))
        )
    );

    let (error, _) = load("sub".into()).await;
    assert!(matches!(
        error,
        ConfigError::NotRegularFile {
            kind: "directory",
            ..
        }
    ));
}

#[tokio::test]
async fn mcp_servers_path_target_rules() {
    let root = tempdir();
    let canonical_root = fs::canonicalize(root.path()).unwrap();
    let target = canonical_root.join("t.json");
    let load = |content: String| {
        let root = root.path().to_path_buf();
        let target = target.clone();
        async move {
            fs::write(&target, content).unwrap();
            write(&root, ".mcp.json", r#"{"mcpServers": "t.json"}"#);
            let error = Config::load(&root, None).await.unwrap_err();
            let message = error.to_string().replace(&d(&target), "<path>");
            (error, message)
        }
    };

    // One level of indirection only.
    let (_, message) = load(r#"{"mcpServers": "t.json"}"#.into()).await;
    assert_eq!(
        message,
        invalid(
            "",
            &format!(
                "`mcpServers` is a path again, but only one level of indirection is followed \
                 (referenced by {}; put the servers themselves in this file)",
                d(&root.path().join(".mcp.json"))
            )
        )
    );

    let referenced = "a file referenced by `mcpServers` must hold a server map \
                      ({\"<name>\": {\"command\": …}}) or an {\"mcpServers\": {…}} wrapper";
    let (_, message) = load(r#"{"version": 1, "servers": {}}"#.into()).await;
    assert_eq!(
        message,
        invalid(
            "",
            &format!("{referenced}; mcp.json v1 and VS Code files cannot be referenced")
        )
    );
    let (_, message) = load("[]".into()).await;
    assert_eq!(message, invalid("", &format!("{referenced}, got an array")));

    // A bad entry of the target is skipped like one of the file itself.
    fs::write(&target, r#"{"a": {"command": 1}}"#).unwrap();
    let config = Config::load(root.path(), None).await.unwrap();
    let [entry] = config.skipped.as_slice() else {
        panic!("one skipped entry: {config:?}")
    };
    assert_eq!(
        entry.reason,
        SkipReason::Invalid(
            invalid("a", "`command` must be a non-empty string, got a number")
                .replace("<path>", &d(&target))
        )
    );

    // The target is under the same size cap.
    let mut big = r#"{"a": {"command": "bin"}}"#.to_string();
    big.push_str(&" ".repeat(MAX_CONFIG_BYTES as usize + 1 - big.len()));
    let (error, message) = load(big).await;
    assert!(matches!(error, ConfigError::TooLarge { .. }));
    assert!(message.starts_with("mcp config too large: <path> is over the limit"));

    // An empty server map is fine.
    fs::write(&target, "{}").unwrap();
    let config = Config::load(root.path(), None).await.unwrap();
    assert!(config.servers.is_empty());
    assert_eq!(config.format, ConfigFormat::McpServers);
}

// ---------------------------------------------------------------------------------------------
// `${VAR}` expansion

/// A variable that is set in the test process (PATH is set wherever cargo runs).
fn set_var() -> (&'static str, String) {
    ("PATH", std::env::var("PATH").expect("PATH is set"))
}

const UNSET: &str = "MCP_KIT_TEST_SURELY_UNSET_VARIABLE_7F3A";

#[test]
fn expand_placeholders_values() {
    assert!(std::env::var_os(UNSET).is_none());
    let root = Path::new("/work/root");
    let (name, value) = set_var();

    let cases = [
        ("plain".to_string(), "plain".to_string()),
        (String::new(), String::new()),
        ("${MCP_ROOT}/bin".into(), "/work/root/bin".into()),
        ("${CLAUDE_PLUGIN_ROOT}".into(), "/work/root".into()),
        (format!("${{{name}}}"), value.clone()),
        (
            format!("a${{{name}}}b${{MCP_ROOT}}c"),
            format!("a{value}b/work/rootc"),
        ),
        (
            "cost: $5, {x}, $HOME, $, $$".into(),
            "cost: $5, {x}, $HOME, $, $$".into(),
        ),
        ("$${MCP_ROOT}$".into(), "$/work/root$".into()),
        // The forms of other clients: VS Code and Cursor, Claude Code's defaults.
        ("${workspaceFolder}/s.js".into(), "/work/root/s.js".into()),
        (format!("${{env:{name}}}"), value.clone()),
        (format!("${{{name}:-fallback}}"), value.clone()),
        (format!("${{{UNSET}:-fallback}}"), "fallback".into()),
        (format!("${{{UNSET}:-}}"), String::new()),
        (format!("${{env:{UNSET}:-x y}}"), "x y".into()),
    ];
    for (input, expected) in cases {
        assert_eq!(
            expand_placeholders(&input, root).unwrap(),
            expected,
            "{input}"
        );
    }
}

#[test]
fn expand_placeholders_errors() {
    let root = Path::new("/r");
    let error = expand_placeholders(&format!("--key=${{{UNSET}}}"), root).unwrap_err();
    assert!(matches!(&error, ConfigError::UnsetVariable { name, field: None } if name == UNSET));
    assert_eq!(
        error.to_string(),
        format!(
            "environment variable `{UNSET}` is not set (referenced as `${{{UNSET}}}` in the mcp \
             config; set it before starting the client, or remove the placeholder)"
        )
    );
    assert_eq!(error.path(), None);

    for input in ["${MCP_ROOT", "a ${", "${A${B}"] {
        let error = expand_placeholders(input, root).unwrap_err();
        if input == "${A${B}" {
            assert_eq!(
                error.to_string(),
                "invalid placeholder `${A${B}` in the mcp config: a variable name must be \
                 non-empty and use only ASCII letters, digits and `_` (write `${NAME}`)"
            );
            continue;
        }
        assert!(matches!(
            error,
            ConfigError::UnterminatedPlaceholder { field: None }
        ));
        assert_eq!(
            error.to_string(),
            "unterminated `${` placeholder in the mcp config (close it with `}`; a `$` not \
             followed by `{` is kept as is)"
        );
    }

    let home = std::env::home_dir().expect("a home directory");
    assert_eq!(
        expand_placeholders("${userHome}/.config", root).unwrap(),
        format!("{}/.config", home.display())
    );
    // `env:` names a variable, never the root or home.
    let error = expand_placeholders("${env:workspaceFolder}", root).unwrap_err();
    assert!(
        matches!(error, ConfigError::UnsetVariable { .. }),
        "{error}"
    );

    // `${input:ID}` needs a value (Manager::with_inputs); expand_placeholders has none.
    let error = expand_placeholders("${input:key}", root).unwrap_err();
    assert!(
        matches!(&error, ConfigError::MissingInput { id, .. } if id == "key"),
        "{error}"
    );

    for name in ["", "env:", "A-B", "A B", ":-x"] {
        let error = expand_placeholders(&format!("${{{name}}}"), root).unwrap_err();
        assert!(
            matches!(&error, ConfigError::InvalidPlaceholder { placeholder, .. } if placeholder == name)
        );
        assert_eq!(
            error.to_string(),
            format!(
                "invalid placeholder `${{{name}}}` in the mcp config: a variable name must be \
                 non-empty and use only ASCII letters, digits and `_` (write `${{NAME}}`)"
            )
        );
    }
}

#[test]
fn expansion_never_quotes_the_value() {
    let error = expand_placeholders("Bearer sk-secret ${", Path::new("/r")).unwrap_err();
    assert!(!error.to_string().contains("sk-secret"));
}

#[test]
fn server_config_expanded() {
    let root = Path::new("/proj");
    let (name, value) = set_var();
    let var = format!("${{{name}}}");

    let server = ServerConfig::Stdio(StdioServer {
        argv: vec!["${MCP_ROOT}/bin".into(), var.clone(), "$literal".into()],
        env: map(&[("A", &var), ("B", "${CLAUDE_PLUGIN_ROOT}")]),
        inherit_env: false,
        stdout_log: Some(StdoutLogConfig::new("${MCP_ROOT}/log")),
        env_file: None,
    });
    assert_eq!(
        server.expanded(root).unwrap(),
        ServerConfig::Stdio(StdioServer {
            argv: vec!["/proj/bin".into(), value.clone(), "$literal".into()],
            env: map(&[("A", &value), ("B", "/proj")]),
            inherit_env: false,
            stdout_log: Some(StdoutLogConfig::new("${MCP_ROOT}/log")),
            env_file: None,
        })
    );

    let http = ServerConfig::StreamableHttp(StreamableHttpServer {
        urls: HttpUrls::Single("https://x.example/${MCP_ROOT}".into()),
        http_headers: map(&[("X-A", &var)]),
        bearer_token_env_var: Some("${MCP_ROOT}".into()),
        env_http_headers: map(&[("X-B", "${MCP_ROOT}")]),
        oauth: None,
    });
    assert_eq!(
        http.expanded(root).unwrap(),
        ServerConfig::StreamableHttp(StreamableHttpServer {
            urls: HttpUrls::Single("https://x.example//proj".into()),
            http_headers: map(&[("X-A", &value)]),
            bearer_token_env_var: Some("${MCP_ROOT}".into()),
            env_http_headers: map(&[("X-B", "${MCP_ROOT}")]),
            oauth: None,
        })
    );

    let split = ServerConfig::streamable_http_split("${MCP_ROOT}/sse", "${MCP_ROOT}/post");
    assert_eq!(
        split.expanded(root).unwrap(),
        ServerConfig::streamable_http_split("/proj/sse", "/proj/post")
    );

    let unix = ServerConfig::unix("${MCP_ROOT}/s.sock");
    assert_eq!(unix.expanded(root).unwrap(), unix);
}

#[test]
fn server_config_expanded_errors_name_the_field() {
    let root = Path::new("/proj");
    let unset = format!("${{{UNSET}}}");
    let cases = [
        (
            ServerConfig::stdio(["bin", "ok", unset.as_str()]),
            "argv[2]",
        ),
        (
            ServerConfig::Stdio(StdioServer {
                env: map(&[("TOKEN", &unset)]),
                ..stdio(&["bin"])
            }),
            "env.TOKEN",
        ),
        (
            ServerConfig::streamable_http(format!("https://{unset}")),
            "url",
        ),
        (
            ServerConfig::streamable_http_split("https://a.example", format!("https://{unset}")),
            "http_url",
        ),
        (
            ServerConfig::streamable_http_split(format!("https://{unset}"), "https://a.example"),
            "sse_url",
        ),
        (
            ServerConfig::StreamableHttp(StreamableHttpServer {
                http_headers: map(&[("X-Api-Key", &unset)]),
                ..match ServerConfig::streamable_http("https://a.example") {
                    ServerConfig::StreamableHttp(h) => h,
                    _ => unreachable!(),
                }
            }),
            "http_headers.X-Api-Key",
        ),
    ];
    for (server, field) in cases {
        let error = server.expanded(root).unwrap_err();
        assert!(
            matches!(&error, ConfigError::UnsetVariable { field: Some(f), .. } if f == field),
            "{field}"
        );
        assert_eq!(
            error.to_string(),
            format!(
                "environment variable `{UNSET}` is not set (referenced as `${{{UNSET}}}` in \
                 `{field}` in the mcp config; set it before starting the client, or remove the \
                 placeholder)"
            )
        );
    }

    let error = ServerConfig::stdio(["bin", "${oops"])
        .expanded(root)
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "unterminated `${` placeholder in `argv[1]` in the mcp config (close it with `}`; a `$` \
         not followed by `{` is kept as is)"
    );
}

#[tokio::test]
async fn loading_keeps_placeholders_verbatim() {
    let server = server_ok(json!({
        "transport": "stdio",
        "argv": ["${MCP_ROOT}/bin", "${MCP_KIT_TEST_SURELY_UNSET_VARIABLE_7F3A}"],
        "env": {"A": "${B"}
    }))
    .await;
    assert_eq!(
        server,
        ServerConfig::Stdio(StdioServer {
            env: map(&[("A", "${B")]),
            ..stdio(&[
                "${MCP_ROOT}/bin",
                "${MCP_KIT_TEST_SURELY_UNSET_VARIABLE_7F3A}"
            ])
        })
    );
}

// ---------------------------------------------------------------------------------------------
// The examples of the configuration guide (config.md), verbatim

#[tokio::test]
async fn guide_examples_parse() {
    // Cursor / `mcpServers` wrapper.
    let config = load_ok(
        r#"{
  "mcpServers": {
    "litellm": {
      "url": "http://localhost:4000/everything/mcp",
      "type": "http",
      "headers": { "Authorization": "Bearer sk-..." }
    }
  }
}"#,
    )
    .await;
    assert_eq!(config.format, ConfigFormat::McpServers);
    assert_eq!(
        config.servers["litellm"].transport(),
        Transport::StreamableHttp
    );

    // Claude Code's direct server map.
    let config = load_ok(
        r#"{
  "filesystem": {
    "command": "npx",
    "args": ["-y", "@modelcontextprotocol/server-filesystem", "/allowed/path"],
    "env": { "LOG_LEVEL": "debug" }
  }
}"#,
    )
    .await;
    assert_eq!(config.format, ConfigFormat::ClaudeServerMap);
    assert_eq!(config.servers["filesystem"].transport(), Transport::Stdio);

    // The top-level schema.
    let config = load_ok(
        r#"{
  "version": 1,
  "client": {
    "protocol_version": "2025-06-18",
    "capabilities": {},
    "roots": [
      { "uri": "file:///repo", "name": "workspace" }
    ]
  },
  "servers": {
    "server_name": { "transport": "stdio", "argv": ["bin", "--stdio"] }
  }
}"#,
    )
    .await;
    assert_eq!(config.format, ConfigFormat::V1);
    assert_eq!(
        config.client.protocol_version.as_deref(),
        Some("2025-06-18")
    );
    assert_eq!(config.client.capabilities, Some(serde_json::Map::new()));
    assert_eq!(
        config.client.roots,
        Some(vec![Root {
            uri: "file:///repo".into(),
            name: Some("workspace".into())
        }])
    );
    assert_eq!(
        config.servers["server_name"],
        ServerConfig::stdio(["bin", "--stdio"])
    );

    // The per-transport server examples, inside a v1 document.
    let stdio_example = r#"{
  "transport": "stdio",
  "argv": ["mcp-server-bin", "--stdio"],
  "env": { "KEY": "VALUE" },
  "stdout_log": {
    "path": "./.mcp-kit/logs/mcp/server.stdout.log",
    "max_bytes_per_part": 1048576,
    "max_parts": 32
  }
}"#;
    let unix_example = r#"{ "transport": "unix", "unix_path": "/tmp/mcp.sock" }"#;
    let http_example = r#"{
  "transport": "streamable_http",
  "url": "https://example.com/mcp",
  "http_headers": { "X-Client": "my-app" },
  "bearer_token_env_var": "MCP_TOKEN",
  "env_http_headers": { "X-Api-Key": "MCP_API_KEY" }
}"#;
    let config = load_ok(&format!(
        r#"{{"version": 1, "servers": {{"s": {stdio_example}, "u": {unix_example}, "h": {http_example}}}}}"#
    ))
    .await;
    assert_eq!(
        config.servers["s"],
        ServerConfig::Stdio(StdioServer {
            env: map(&[("KEY", "VALUE")]),
            stdout_log: Some(StdoutLogConfig::new(
                "./.mcp-kit/logs/mcp/server.stdout.log"
            )),
            ..stdio(&["mcp-server-bin", "--stdio"])
        })
    );
    assert_eq!(config.servers["u"], ServerConfig::unix("/tmp/mcp.sock"));
    assert_eq!(
        config.servers["h"],
        ServerConfig::StreamableHttp(StreamableHttpServer {
            urls: HttpUrls::Single("https://example.com/mcp".into()),
            http_headers: map(&[("X-Client", "my-app")]),
            bearer_token_env_var: Some("MCP_TOKEN".into()),
            env_http_headers: map(&[("X-Api-Key", "MCP_API_KEY")]),
            oauth: None,
        })
    );

    // The root example.
    let root: Root =
        serde_json::from_str(r#"{ "uri": "file:///repo", "name": "workspace" }"#).unwrap();
    assert_eq!(root.name.as_deref(), Some("workspace"));

    // The quick-start and logging guides.
    let config = load_ok(
        r#"{
  "version": 1,
  "servers": {
    "remote": {
      "transport": "streamable_http",
      "url": "https://example.com/mcp"
    }
  }
}"#,
    )
    .await;
    assert_eq!(
        config.servers["remote"],
        ServerConfig::streamable_http("https://example.com/mcp")
    );
    let config = load_ok(
        r#"{
  "version": 1,
  "servers": {
    "local": {
      "transport": "stdio",
      "argv": ["mcp-server-bin", "--stdio"],
      "stdout_log": {
        "path": "./.mcp-kit/logs/mcp/server.stdout.log",
        "max_bytes_per_part": 1048576,
        "max_parts": 32
      }
    }
  }
}"#,
    )
    .await;
    assert_eq!(config.servers["local"].transport(), Transport::Stdio);
}

#[test]
fn error_path_accessor() {
    let error = ConfigError::TooLarge {
        path: PathBuf::from("/x/.mcp.json"),
        limit: MAX_CONFIG_BYTES,
    };
    assert_eq!(error.path(), Some(Path::new("/x/.mcp.json")));
}

#[tokio::test]
async fn vs_code_inputs_and_env_file() {
    let dir = tempfile::tempdir().unwrap();
    let text = json!({
        "inputs": [
            { "type": "promptString", "id": "api-key", "description": "API key", "password": true },
            { "type": "pickString", "id": "region", "options": ["eu", { "value": "us" }], "default": "eu" },
            { "type": "promptString", "description": "no id: skipped" }
        ],
        "servers": { "s": {
            "command": "server",
            "args": ["--region", "${input:region}"],
            "envFile": "${workspaceFolder}/conf/.env",
            "env": { "KEY": "${input:api-key}", "SHARED": "from-env" }
        } }
    });
    fs::create_dir_all(dir.path().join(".vscode")).unwrap();
    fs::write(dir.path().join(".vscode/mcp.json"), text.to_string()).unwrap();
    let config = Config::load(dir.path(), None).await.unwrap();
    let ids: Vec<&str> = config.inputs.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["api-key", "region"]);
    assert!(config.inputs[0].password);
    assert_eq!(config.inputs[1].options, ["eu", "us"]);
    let server = &config.servers["s"];
    assert_eq!(server.inputs_used(), ["region", "api-key"]);
    assert!(
        server
            .fields_with_placeholders()
            .contains(&"envFile".to_owned())
    );

    // Expanded: inputs filled in, the env file read under `env`.
    fs::create_dir_all(dir.path().join("conf")).unwrap();
    fs::write(
        dir.path().join("conf/.env"),
        "export FROM_FILE='a b'\nSHARED=from-file\n",
    )
    .unwrap();
    let inputs: BTreeMap<String, String> = [("api-key", "k-123"), ("region", "us")]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    let ServerConfig::Stdio(expanded) = server.expanded_with_inputs(dir.path(), &inputs).unwrap()
    else {
        panic!("stdio")
    };
    assert_eq!(expanded.argv, ["server", "--region", "us"]);
    assert_eq!(expanded.env["KEY"], "k-123");
    assert_eq!(expanded.env["FROM_FILE"], "a b");
    assert_eq!(expanded.env["SHARED"], "from-env");
    assert_eq!(expanded.env_file, None);

    // A missing input names the flag; the value of a given one is never quoted in errors.
    let error = server.expanded(dir.path()).unwrap_err();
    assert!(matches!(&error, ConfigError::MissingInput { id, .. } if id == "region"));
    assert!(
        error.to_string().contains("--input region=VALUE"),
        "{error}"
    );
    fs::remove_file(dir.path().join("conf/.env")).unwrap();
    let error = server
        .expanded_with_inputs(dir.path(), &inputs)
        .unwrap_err();
    assert!(matches!(error, ConfigError::EnvFile { .. }), "{error}");
    assert!(!error.to_string().contains("k-123"));
}

#[tokio::test]
async fn oauth_settings_of_an_http_server() {
    let server = server_ok(json!({
        "transport": "streamable_http",
        "url": "https://mcp.example.com/mcp",
        "oauth": {
            "client_id": "registered",
            "client_secret_env_var": "OAUTH_SECRET",
            "issuer": "https://auth.example.com",
            "scopes": ["repo", "read:org"],
            "redirect_port": 8976
        }
    }))
    .await;
    let ServerConfig::StreamableHttp(http) = server else {
        panic!("an http server: {server:?}");
    };
    assert_eq!(
        http.oauth,
        Some(mcp_kit::OAuthSettings {
            client_id: Some("registered".into()),
            client_secret_env_var: Some("OAUTH_SECRET".into()),
            issuer: Some("https://auth.example.com".into()),
            scopes: Some(vec!["repo".into(), "read:org".into()]),
            redirect_port: Some(8976),
        })
    );
    let bad = |oauth: serde_json::Value| {
        server_err(json!({
            "transport": "streamable_http",
            "url": "https://mcp.example.com/mcp",
            "oauth": oauth
        }))
    };
    assert_eq!(
        bad(json!({"client": "x"})).await,
        invalid(
            "servers.s.oauth",
            "unknown field `client`, expected one of `client_id`, `client_secret_env_var`, \
             `issuer`, `scopes`, `redirect_port` (mcp.json v1 refuses unknown fields: remove it \
             or fix its spelling)"
        )
    );
    assert_eq!(
        bad(json!({"redirect_port": 0})).await,
        invalid(
            "servers.s.oauth",
            "`redirect_port` must be an integer from 1 to 65535, got 0"
        )
    );
    assert_eq!(
        bad(json!({"scopes": ["repo read:org"]})).await,
        invalid(
            "servers.s.oauth",
            "`scopes` items are single scopes: `repo read:org` holds a space (split it)"
        )
    );
    assert_eq!(
        bad(json!({"client_secret_env_var": "S"})).await,
        invalid(
            "servers.s.oauth",
            "`client_secret_env_var` and `issuer` describe a pre-registered client: set \
             `client_id` too"
        )
    );
    assert_eq!(
        bad(json!("yes")).await,
        invalid("servers.s", "`oauth` must be a JSON object, got a string")
    );
}
