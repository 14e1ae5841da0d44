//! HTTPS (feature `tls`): a self-signed certificate made here, a reqwest client that trusts
//! it, the MCP endpoint and the ops endpoints on the same TLS listener, and the errors for
//! unusable certificate files.

#![cfg(feature = "tls")]

mod http_support;

use std::path::{Path, PathBuf};

use http_support::{get_json, in_session, initialize, text_of};
use mcp_server::{HttpOptions, HttpServer, NoArguments, Server, ServerConfig, TlsConfig};
use reqwest::Client;
use serde_json::{Value, json};

/// A self-signed certificate for `localhost` and 127.0.0.1, written as `cert.pem` and
/// `key.pem` into `dir`; returns the certificate's PEM.
fn self_signed(dir: &Path) -> String {
    let certified =
        rcgen::generate_simple_self_signed(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
            .expect("a self-signed certificate");
    let cert = certified.cert.pem();
    std::fs::write(dir.join("cert.pem"), &cert).unwrap();
    std::fs::write(dir.join("key.pem"), certified.signing_key.serialize_pem()).unwrap();
    cert
}

fn trusting(cert_pem: &str) -> Client {
    Client::builder()
        .no_proxy()
        .tls_certs_only([reqwest::Certificate::from_pem(cert_pem.as_bytes()).unwrap()])
        .build()
        .unwrap()
}

fn server() -> Server {
    Server::builder("tls-test", "1.0.0")
        .tool("ping", "Answers pong", |_: NoArguments, _cx| async move {
            Ok("pong")
        })
        .build()
}

fn files(dir: &Path) -> TlsConfig {
    TlsConfig::new(dir.join("cert.pem"), dir.join("key.pem"))
}

/// The test server over HTTPS with a fresh self-signed certificate in `dir` (returned, PEM).
async fn serve_tls(dir: &Path) -> (String, Server, HttpServer) {
    let cert = self_signed(dir);
    let server = server();
    let mut options = HttpOptions::default();
    options.tls = Some(files(dir));
    let http = server.bind_http("127.0.0.1:0", options).await.unwrap();
    (cert, server, http)
}

#[tokio::test]
async fn mcp_and_ops_endpoints_over_https() {
    let dir = tempfile::tempdir().unwrap();
    let (cert, server, http) = serve_tls(dir.path()).await;
    let url = http.url();
    assert!(url.starts_with("https://127.0.0.1:"), "{url}");

    let client = trusting(&cert);
    let sid = initialize(&client, &url).await;
    let response = in_session(&client, &url, &sid)
        .json(&json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": { "name": "ping", "arguments": {} },
        }))
        .send()
        .await
        .unwrap();
    let body: Value = response.json().await.unwrap();
    assert_eq!(text_of(&body), "pong");

    let base = url.trim_end_matches("/mcp");
    let health = get_json(&client, &format!("{base}/health")).await;
    assert_eq!(health["ready"], true);

    // A client that does not trust the certificate cannot connect…
    let untrusting = Client::builder()
        .no_proxy()
        .tls_certs_only([])
        .build()
        .unwrap();
    let refused = untrusting.get(format!("{base}/health")).send().await;
    assert!(refused.is_err(), "an untrusted certificate was accepted");
    // …and plain HTTP on the TLS port gets no HTTP answer.
    let plain = http_support::client()
        .get(format!("http://{}/health", http.local_addr()))
        .send()
        .await;
    assert!(
        plain.is_err() || plain.as_ref().is_ok_and(|r| r.status() != 200),
        "plain HTTP was served on the TLS port: {plain:?}"
    );

    server.shutdown();
    http.wait().await.unwrap();
}

/// A client that connects and sends nothing holds up no one: handshakes run on their own.
#[tokio::test]
async fn a_silent_connection_does_not_block_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let (cert, server, http) = serve_tls(dir.path()).await;
    let _silent = tokio::net::TcpStream::connect(http.local_addr())
        .await
        .unwrap();
    let base = http.url().trim_end_matches("/mcp").to_owned();
    let response = trusting(&cert)
        .get(format!("{base}/info"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    server.shutdown();
    http.wait().await.unwrap();
}

/// `[tls]` in a configuration file, with paths relative to the file.
#[tokio::test]
async fn configured_from_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let cert = self_signed(dir.path());
    let file = dir.path().join("mcp.toml");
    std::fs::write(
        &file,
        "[server]\nport = 0\n[tls]\ncert = \"cert.pem\"\nkey = \"key.pem\"\n",
    )
    .unwrap();
    let config = ServerConfig::from_file(&file).unwrap();
    assert_eq!(config.tls, Some(files(dir.path())));
    let server = server();
    let http = server.bind_config(&config).await.unwrap();
    assert!(http.url().starts_with("https://"), "{}", http.url());
    let sid = initialize(&trusting(&cert), &http.url()).await;
    assert!(!sid.is_empty());
    server.shutdown();
    http.wait().await.unwrap();
}

async fn bind_error(tls: TlsConfig) -> String {
    let mut options = HttpOptions::default();
    options.tls = Some(tls);
    server()
        .bind_http("127.0.0.1:0", options)
        .await
        .expect_err("unusable TLS files are refused")
        .to_string()
}

#[tokio::test]
async fn unusable_files_are_refused_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    self_signed(dir.path());
    let path = |name: &str| -> PathBuf { dir.path().join(name) };

    let missing = bind_error(TlsConfig::new(path("nope.pem"), path("key.pem"))).await;
    assert!(
        missing.starts_with("cannot read the TLS certificate file ")
            && missing.contains("nope.pem"),
        "{missing}"
    );

    std::fs::write(path("empty.pem"), "not a certificate\n").unwrap();
    let empty = bind_error(TlsConfig::new(path("empty.pem"), path("key.pem"))).await;
    assert!(empty.contains("empty.pem holds no certificate"), "{empty}");

    let no_key = bind_error(TlsConfig::new(path("cert.pem"), path("cert.pem"))).await;
    assert!(
        no_key.contains("cert.pem cannot be used: it holds no private key"),
        "{no_key}"
    );

    // The key of another certificate.
    let other = tempfile::tempdir().unwrap();
    self_signed(other.path());
    let mismatch = bind_error(TlsConfig::new(
        path("cert.pem"),
        other.path().join("key.pem"),
    ))
    .await;
    assert!(mismatch.contains("cannot be used together"), "{mismatch}");
}
