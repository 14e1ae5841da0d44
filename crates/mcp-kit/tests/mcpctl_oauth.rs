//! mcpctl against servers that need OAuth: `login`, the commands after it, `auth-status` and
//! `logout` with a real authorization server (oidc-provider) and resource server
//! (mcp-server's `ops_server`); and, against servers scripted over a real socket (they answer
//! every MCP request with 401 and serve the discovery documents the test chooses), what a
//! command does without a login (exit code 5, the way out named, the login offered on a
//! terminal) and a URL of the flow that the trust policy refuses (exit code 3, the policy's
//! own message).

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

/// `mcpctl login` with a real authorization server (oidc-provider) and resource server
/// (mcp-server's `ops_server` checking JWTs against the JWKS it discovers): the URL printed
/// with `--no-browser` is opened by a browser that signs in and consents, whose last redirect
/// reaches mcpctl's loopback listener; the tokens are kept (a private file), used by the next
/// commands, shown by `auth-status`, and forgotten by `logout`, after which a command exits 5.
#[tokio::test]
async fn login_then_calls_then_logout_with_a_real_authorization_server() {
    use mcp_test_support::oidc::{AuthorizationServer, Browser};
    use std::os::unix::fs::PermissionsExt as _;
    use tokio::io::AsyncBufReadExt as _;

    let authorization_server = AuthorizationServer::start(300).await;
    let ops_server =
        mcp_test_support::build_examples("mcp-server", &["config", "oauth"]).join("ops_server");
    let port = mcp_test_support::free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let mut server = tokio::process::Command::new(&ops_server)
        .env("MCP_SERVER_HOST", "127.0.0.1")
        .env("MCP_SERVER_PORT", port.to_string())
        .env("MCP_OAUTH_ISSUER", &authorization_server.issuer)
        .env("MCP_OAUTH_AUDIENCE", &resource)
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("ops_server starts");
    let mut server_log = tokio::io::BufReader::new(server.stderr.take().unwrap()).lines();
    let listening = tokio::time::timeout(cli_support::RUN_LIMIT, server_log.next_line())
        .await
        .expect("ops_server says where it listens")
        .unwrap()
        .unwrap();
    assert!(listening.contains(&resource), "{listening}");

    let redirect_port = mcp_test_support::free_port();
    let dir = workspace(json!({
        "version": 1,
        "servers": { "notes": {
            "transport": "streamable_http",
            "url": resource,
            "oauth": { "redirect_port": redirect_port, "scopes": ["mcp:read"] }
        } }
    }));
    let dir = dir.path();
    let flags = ["--allow-http", "--allow-private-ip"];

    // Not logged in yet.
    let mut args = flags.to_vec();
    args.extend(["call", "notes", "echo", "message=hi"]);
    mcpctl(dir, &args).await.expect(5);

    // The login: mcpctl prints the URL and waits for the redirect.
    let mut login = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpctl"))
        .args(flags)
        .args(["login", "notes", "--no-browser"])
        .current_dir(dir)
        .env_remove("RUST_LOG")
        .env("MCPCTL_CACHE_DIR", cli_support::cache_dir(dir))
        .env("MCPCTL_CONFIG_DIR", dir.join(".mcpctl-config"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("mcpctl starts");
    let mut stderr = tokio::io::BufReader::new(login.stderr.take().unwrap()).lines();
    let url = loop {
        let line = tokio::time::timeout(cli_support::RUN_LIMIT, stderr.next_line())
            .await
            .expect("mcpctl prints the authorization URL")
            .unwrap()
            .expect("mcpctl's stderr stays open until the URL");
        if let Some(url) = line.trim().strip_prefix(&authorization_server.issuer) {
            break format!("{}{url}", authorization_server.issuer);
        }
    };
    let browser = Browser::new();
    let callback = browser
        .authorize(
            &url.parse().unwrap(),
            &format!("http://127.0.0.1:{redirect_port}/callback"),
        )
        .await
        .expect("the person signs in and consents");
    let (status, page) = browser.open(&callback).await.expect("mcpctl's listener");
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("Authorization received"), "{page}");
    let output = tokio::time::timeout(cli_support::RUN_LIMIT, login.wait_with_output())
        .await
        .expect("mcpctl login finishes")
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    // Not a terminal: the result is JSON.
    let logged_in: Value = serde_json::from_str(&stdout).expect("JSON on stdout");
    assert_eq!(logged_in["server"], "notes");
    assert_eq!(logged_in["logged_in"], true);
    assert_eq!(logged_in["issuer"], authorization_server.issuer.as_str());
    assert_eq!(logged_in["scopes"], "mcp:read");
    assert_eq!(browser.prompts(), [["login", "consent"]]);

    // The tokens: one private file, used by the next commands.
    let files: Vec<_> = std::fs::read_dir(dir.join(".mcpctl-config/oauth"))
        .expect("the token directory")
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let mode = std::fs::metadata(&files[0]).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let mut args = flags.to_vec();
    args.extend(["call", "notes", "echo", "message=hi"]);
    let call = mcpctl(dir, &args).await.expect(0);
    assert!(call.stdout.contains("hi"), "{call:?}");
    let status = run_json_with(dir, &flags, &["auth-status"]).await;
    assert_eq!(status["servers"][0]["logged_in"], true, "{status}");
    assert_eq!(
        status["servers"][0]["issuer"],
        authorization_server.issuer.as_str()
    );
    let status_text = serde_json::to_string(&status).unwrap();
    let stored = std::fs::read_to_string(&files[0]).unwrap();
    let stored: Value = serde_json::from_str(&stored).unwrap();
    let token = stored["tokens"]["access_token"].as_str().unwrap();
    assert!(!status_text.contains(token), "auth-status shows no token");

    // Logging out forgets them: the next command needs a login again.
    let mut args = flags.to_vec();
    args.extend(["logout", "notes"]);
    let logout = mcpctl(dir, &args).await.expect(0).json();
    assert_eq!(logout, json!({ "server": "notes", "logged_out": true }));
    assert!(!files[0].exists(), "the token file is removed");
    let mut args = flags.to_vec();
    args.extend(["call", "notes", "echo", "message=hi"]);
    mcpctl(dir, &args).await.expect(5);
    let _ = server.kill().await;
}

async fn run_json_with(dir: &Path, flags: &[&str], args: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(flags);
    all.extend_from_slice(args);
    mcpctl(dir, &all).await.json()
}
