//! `ServerConfig` end to end: a TOML file served with `bind_config` and checked over real
//! HTTP; the `MCP_*` variables of a real process (`ops_server`) overriding its file; and
//! invalid configuration stopping the process at start with a message naming the field.

mod http_support;
mod ops_support;

use std::time::Duration;

use http_support::{client, initialize};
use mcp_server::{NoArguments, Server, ServerConfig};

fn server(config: &ServerConfig) -> Server {
    Server::builder("config-test", "1.0.0")
        .options(config.server_options())
        .tool("a", "A", |_: NoArguments, _cx| async move { Ok("a") })
        .tool("b", "B", |_: NoArguments, _cx| async move { Ok("b") })
        .tool("c", "C", |_: NoArguments, _cx| async move { Ok("c") })
        .build()
}

#[tokio::test]
async fn a_file_configures_the_endpoint() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mcp.toml");
    std::fs::write(
        &file,
        r#"
        [server]
        host = "127.0.0.1"
        port = 0
        path = "/v1/mcp"
        ops_endpoints = false
        shutdown_grace = "2s"

        [http]
        cors = true
        allowed_origins = ["https://app.example.com"]

        [limits]
        page_size = 2
        max_message_bytes = "1KiB"
        "#,
    )
    .unwrap();
    let config = ServerConfig::from_file(&file).unwrap();
    assert_eq!(config.http_options().shutdown_grace, Duration::from_secs(2));
    let server = server(&config);
    let http = server.bind_config(&config).await.unwrap();
    let url = http.url();
    assert!(url.ends_with("/v1/mcp"), "{url}");
    let base = url.trim_end_matches("/v1/mcp");
    let client = client();

    // ops_endpoints = false
    let health = client.get(format!("{base}/health")).send().await.unwrap();
    assert_eq!(health.status(), 404);

    // The origin allowlist replaced the default, and CORS is on.
    let sid = initialize(&client, &url).await;
    let list = |origin: &'static str| {
        http_support::in_session(&client, &url, &sid)
            .header("origin", origin)
            .json(&serde_json::json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list" }))
            .send()
    };
    let allowed = list("https://app.example.com").await.unwrap();
    assert_eq!(allowed.status(), 200);
    assert_eq!(allowed.headers()["access-control-allow-origin"], "*");
    let page: serde_json::Value = allowed.json().await.unwrap();
    assert_eq!(
        page["result"]["tools"].as_array().unwrap().len(),
        2,
        "page_size = 2"
    );
    assert_eq!(list("http://localhost:3000").await.unwrap().status(), 403);

    // max_message_bytes = 1 KiB
    let big = http_support::in_session(&client, &url, &sid)
        .body(format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"ping","pad":"{}"}}"#,
            "x".repeat(2048)
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(big.status(), 413);

    server.shutdown();
    http.wait().await.unwrap();
}

#[tokio::test]
async fn a_bind_failure_names_the_address() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let config = ServerConfig::default()
        .with_vars([("MCP_SERVER_PORT", port.to_string())])
        .unwrap();
    let error = server(&config).bind_config(&config).await.unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with(&format!("cannot serve on 127.0.0.1:{port}: ")),
        "{error}"
    );
}

/// The variables of a real process override its file: host, port, path, CORS (seed 004's
/// `MCP_ENABLE_CORS=TRUE`), ops endpoints.
#[tokio::test]
async fn environment_overrides_the_file_in_a_real_process() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mcp.toml");
    std::fs::write(
        &file,
        "[server]\nport = 1\npath = \"/from-file\"\nops_endpoints = false\n",
    )
    .unwrap();
    let file = file.to_str().unwrap();
    let mut running = ops_support::start(
        &[
            ("MCP_SERVER_HOST", "127.0.0.1"),
            ("MCP_SERVER_PORT", "0"),
            ("MCP_SERVER_PATH", "/from-env"),
            ("MCP_ENABLE_CORS", "TRUE"),
            ("MCP_OPS_ENDPOINTS", "true"),
        ],
        &[file],
    )
    .await;
    assert!(
        running.url.starts_with("http://127.0.0.1:") && running.url.ends_with("/from-env"),
        "{}",
        running.url
    );
    let client = client();
    let info = client
        .get(format!("{}/info", running.base()))
        .header("origin", "http://localhost:8000")
        .send()
        .await
        .unwrap();
    assert_eq!(info.status(), 200);
    assert_eq!(info.headers()["access-control-allow-origin"], "*");
    let info: serde_json::Value = info.json().await.unwrap();
    assert_eq!(info["name"], "ops-server");
    assert_eq!(info["transports"][0]["path"], "/from-env");
    initialize(&client, &running.url).await;

    running.signal("TERM").await;
    assert!(running.exit().await.success());
}

/// `MCP_CONFIG` names the file `ServerConfig::from_env` reads.
#[tokio::test]
async fn mcp_config_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mcp.toml");
    std::fs::write(&file, "[server]\nport = 0\npath = \"/named\"\n").unwrap();
    let mut running = ops_support::start(&[("MCP_CONFIG", file.to_str().unwrap())], &[]).await;
    assert!(running.url.ends_with("/named"), "{}", running.url);
    running.signal("TERM").await;
    assert!(running.exit().await.success());
}

#[tokio::test]
async fn invalid_configuration_stops_the_process_naming_the_field() {
    let (status, stderr) = ops_support::refused(&[("MCP_SERVER_PORT", "abc")], &[]).await;
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert_eq!(
        stderr.trim(),
        "ops_server: MCP_SERVER_PORT: invalid value \"abc\" (expected a port number 1-65535, \
         or 0 for any free port)"
    );

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.toml");
    std::fs::write(&file, "[server]\nport = 0\n[http]\ncorss = true\n").unwrap();
    let (status, stderr) = ops_support::refused(&[], &[file.to_str().unwrap()]).await;
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert_eq!(
        stderr.trim(),
        format!(
            "ops_server: {}: http.corss: unknown key (did you mean http.cors?)",
            file.display()
        )
    );

    let (status, stderr) =
        ops_support::refused(&[], &[dir.path().join("missing.toml").to_str().unwrap()]).await;
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("missing.toml: cannot read the configuration file: "),
        "{stderr}"
    );

    // TLS files that cannot be used stop it too (or, without the `tls` feature, say so).
    let (status, stderr) = ops_support::refused(
        &[
            ("MCP_SERVER_PORT", "0"),
            ("MCP_TLS_CERT", "/nonexistent/cert.pem"),
            ("MCP_TLS_KEY", "/nonexistent/key.pem"),
        ],
        &[],
    )
    .await;
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("/nonexistent/cert.pem"),
        "the message names the file: {stderr}"
    );
}

#[tokio::test]
async fn the_auth_section_protects_the_endpoint() {
    let config = ServerConfig::from_toml(
        r#"
        [server]
        port = 0

        [auth]
        tokens = ["s3cret"]

        [auth.oauth]
        issuer = "https://auth.example.com"
        audience = "http://127.0.0.1/mcp"
        jwks_url = "http://127.0.0.1:9/jwks"
        "#,
    )
    .unwrap();
    let server = server(&config);
    let http = server.bind_config(&config).await.unwrap();
    let url = http.url();
    let client = client();
    let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let post = || {
        client
            .post(&url)
            .header("accept", "application/json, text/event-stream")
            .json(&body)
    };
    let refused = post().send().await.unwrap();
    assert_eq!(refused.status(), 401);
    assert!(
        refused.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .contains("/.well-known/oauth-protected-resource/mcp")
    );
    assert_eq!(
        post().bearer_auth("s3cret").send().await.unwrap().status(),
        200
    );
    // Not a configured token, and not a JWT the issuer signed.
    assert_eq!(
        post().bearer_auth("guess").send().await.unwrap().status(),
        401
    );
}

/// Operators switch `/metrics` on from the configuration: `MCP_METRICS=true` (or
/// `server.metrics = true` in the file) on a real `ops_server`; without it, `404`.
#[tokio::test]
async fn metrics_are_switched_on_by_the_configuration() {
    let client = client();
    for (vars, status) in [
        (vec![("MCP_SERVER_PORT", "0"), ("MCP_METRICS", "true")], 200),
        (vec![("MCP_SERVER_PORT", "0")], 404),
    ] {
        let running = ops_support::start(&vars, &[]).await;
        let base = running.url.trim_end_matches("/mcp").to_owned();
        initialize(&client, &running.url).await;
        let response = client.get(format!("{base}/metrics")).send().await.unwrap();
        assert_eq!(response.status(), status, "{vars:?}");
        if status == 200 {
            let text = response.text().await.unwrap();
            assert!(text.contains("mcp_requests_total"), "{text}");
            assert!(text.contains("mcp_active_sessions 1"), "{text}");
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mcp.toml");
    std::fs::write(&file, "[server]\nport = 0\nmetrics = true\n").unwrap();
    let running = ops_support::start(&[], &[file.to_str().unwrap()]).await;
    let base = running.url.trim_end_matches("/mcp").to_owned();
    let response = client.get(format!("{base}/metrics")).send().await.unwrap();
    assert_eq!(response.status(), 200);
}
