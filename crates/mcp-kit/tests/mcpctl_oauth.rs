//! mcpctl against servers that need OAuth: what a command does without a login (exit code 5,
//! the way out named), and a URL of the flow that the trust policy refuses (exit code 3, the
//! policy's own message). The servers here are scripted over a real socket: they answer every
//! MCP request with 401 and serve the discovery documents the test chooses.

use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

mod cli_support;
use cli_support::{Step, mcpctl, on_terminal, workspace};

/// A server that refuses every MCP request with 401 (naming `resource_metadata`) and serves
/// the documents of `documents` (path → JSON) on GET; everything else is a 404.
struct Refusing {
    port: u16,
    _task: tokio::task::JoinHandle<()>,
}

impl Refusing {
    async fn start(
        documents: impl Fn(u16) -> Vec<(String, Value)> + Send + Sync + 'static,
    ) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = listener.local_addr().expect("address").port();
        let documents = Arc::new(documents(port));
        let task = tokio::spawn(async move {
            loop {
                let Ok((mut stream, _)) = listener.accept().await else {
                    return;
                };
                let documents = documents.clone();
                tokio::spawn(async move {
                    let Some((method, path)) = read_head(&mut stream).await else {
                        return;
                    };
                    let response = match (method.as_str(), path.as_str()) {
                        ("POST", "/mcp") => format!(
                            "HTTP/1.1 401 Unauthorized\r\nwww-authenticate: Bearer \
                             error=\"invalid_token\", resource_metadata=\"http://localhost:{port}/.well-known/oauth-protected-resource/mcp\"\r\n\
                             content-length: 0\r\nconnection: close\r\n\r\n"
                        ),
                        ("GET", path) => match documents.iter().find(|(p, _)| p == path) {
                            Some((_, document)) => {
                                let body = document.to_string();
                                format!(
                                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\
                                     content-length: {}\r\nconnection: close\r\n\r\n{body}",
                                    body.len()
                                )
                            }
                            None => not_found(),
                        },
                        _ => not_found(),
                    };
                    let _ = stream.write_all(response.as_bytes()).await;
                    let _ = stream.shutdown().await;
                });
            }
        });
        Refusing { port, _task: task }
    }

    fn url(&self) -> String {
        format!("http://localhost:{}/mcp", self.port)
    }
}

fn not_found() -> String {
    "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".to_owned()
}

/// The method and path of a request; its body (Content-Length) is read and dropped.
async fn read_head(stream: &mut tokio::net::TcpStream) -> Option<(String, String)> {
    let mut data = Vec::new();
    let mut buffer = [0u8; 4096];
    let end = loop {
        let read = stream.read(&mut buffer).await.ok()?;
        if read == 0 {
            return None;
        }
        data.extend_from_slice(&buffer[..read]);
        if let Some(end) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break end + 4;
        }
    };
    let head = String::from_utf8_lossy(&data[..end]).into_owned();
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().ok())?
        })
        .unwrap_or(0);
    let mut have = data.len() - end;
    while have < length {
        let read = stream.read(&mut buffer).await.ok()?;
        if read == 0 {
            break;
        }
        have += read;
    }
    let mut first = head.lines().next()?.split(' ');
    Some((first.next()?.to_owned(), first.next()?.to_owned()))
}

fn config(url: &str) -> Value {
    json!({
        "version": 1,
        "servers": { "remote": { "transport": "streamable_http", "url": url } }
    })
}

/// The documents of a well-behaved server and its authorization server, on one origin.
fn discovery(port: u16) -> Vec<(String, Value)> {
    let origin = format!("http://localhost:{port}");
    vec![
        (
            "/.well-known/oauth-protected-resource/mcp".to_owned(),
            json!({ "resource": format!("{origin}/mcp"), "authorization_servers": [origin] }),
        ),
        (
            "/.well-known/oauth-authorization-server".to_owned(),
            json!({
                "issuer": origin,
                "authorization_endpoint": format!("{origin}/authorize"),
                "token_endpoint": format!("{origin}/token"),
                "registration_endpoint": format!("{origin}/register"),
                "code_challenge_methods_supported": ["S256"],
                "response_types_supported": ["code"]
            }),
        ),
    ]
}

async fn run(dir: &Path, args: &[&str]) -> cli_support::Run {
    let mut all = vec!["--allow-http", "--allow-localhost"];
    all.extend_from_slice(args);
    mcpctl(dir, &all).await
}

#[tokio::test]
async fn without_a_login_a_command_fails_with_exit_code_5_and_names_the_way_out() {
    let server = Refusing::start(discovery).await;
    let dir = workspace(config(&server.url()));
    let run = run(dir.path(), &["list-tools", "remote"]).await.expect(5);
    assert!(
        run.stderr.contains(
            "mcp server `remote` requires authorization: log in first (mcpctl login remote)"
        ),
        "{run:?}"
    );
    // No terminal: nothing was asked.
    assert!(!run.stderr.contains("Log in now?"), "{run:?}");
    let status = run_json(dir.path(), &["auth-status"]).await;
    assert_eq!(status["servers"][0]["server"], "remote");
    assert_eq!(status["servers"][0]["logged_in"], false);
}

async fn run_json(dir: &Path, args: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    run(dir, &all).await.json()
}

#[tokio::test]
async fn a_url_of_the_flow_the_policy_refuses_stops_it_with_the_policys_message() {
    // The resource metadata names an authorization server on a private address: untrusted
    // mode refuses it as it would refuse a server there (exit code 3, the trust policy's).
    let server = Refusing::start(|port| {
        vec![(
            "/.well-known/oauth-protected-resource/mcp".to_owned(),
            json!({
                "resource": format!("http://localhost:{port}/mcp"),
                "authorization_servers": ["http://10.1.2.3/oauth"]
            }),
        )]
    })
    .await;
    let dir = workspace(config(&server.url()));
    let run = run(dir.path(), &["list-tools", "remote"]).await.expect(3);
    assert!(
        run.stderr.contains(
            "refusing to connect non-global ip in untrusted mode: server `remote`, field \
             `authorization_servers`, url `http://10.1.2.3/…`, ip `10.1.2.3`; rerun with \
             --allow-private-ip (CLI) / UntrustedStreamableHttpPolicy { allow_private_ips: \
             true, .. } (code), or with --trust"
        ),
        "{run:?}"
    );
}

#[tokio::test]
async fn on_a_terminal_mcpctl_offers_the_login_and_a_no_leaves_exit_code_5() {
    let server = Refusing::start(discovery).await;
    let dir = workspace(config(&server.url()));
    let run = on_terminal(
        dir.path(),
        &["--allow-http", "--allow-localhost", "list-tools", "remote"],
        &[
            Step::Expect("mcp server `remote` requires authorization. Log in now? [Y/n] "),
            Step::Send("n\n".to_owned()),
            Step::Expect("log in first (mcpctl login remote)"),
        ],
    )
    .await;
    assert_eq!(run.code, 5, "{}", run.transcript);
}
