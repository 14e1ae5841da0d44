//! OAuth in mcpctl: tokens kept per user (`~/.config/mcpctl/oauth/`, one file per server,
//! mode 0600), `login` (a browser on the loopback redirect, or the URL printed), `logout`,
//! `auth-status`, and the offer to log in when a command meets a server that needs it.
//!
//! Commands other than `login` run without an agent: a server that needs a new authorization
//! fails them with "log in first" (exit code 5), and on a terminal (not with `--json`)
//! mcpctl offers to log in, then runs the command again.

use std::io::{BufRead as _, IsTerminal as _, Write as _};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use mcp_kit::auth::{
    AuthError, AuthorizationAgent, DEFAULT_REDIRECT_PORT, FileTokenStore, LoopbackAgent,
    MemoryTokenStore, OAuthOptions, StoreKey, TokenStore,
};
use mcp_kit::terminal::Table;
use mcp_kit::{Config, Manager, ServerConfig};
use serde_json::{Value, json};

use crate::client::CLIENT_NAME;
use crate::exit::{Exit, Failure};
use crate::output::{Printer, fitted, sanitize, str_of};
use crate::state_files;

/// Where the tokens are kept: `$MCPCTL_CONFIG_DIR/oauth`, else `$XDG_CONFIG_HOME/mcpctl/oauth`,
/// else `~/.config/mcpctl/oauth`.
fn token_dir() -> Option<PathBuf> {
    Some(state_files::user_dir("MCPCTL_CONFIG_DIR", "XDG_CONFIG_HOME", ".config")?.join("oauth"))
}

/// The token store: the per-user directory, or memory when there is no home.
fn store() -> Arc<dyn TokenStore> {
    match token_dir() {
        Some(dir) => Arc::new(FileTokenStore::new(dir)),
        None => Arc::new(MemoryTokenStore::new()),
    }
}

/// The OAuth options of every command: the per-user store, no agent.
pub(crate) fn options() -> OAuthOptions {
    OAuthOptions::new(store(), CLIENT_NAME)
}

/// The agent of `login`: the loopback redirect; the URL printed on stderr, and opened in a
/// browser unless `no_browser`.
fn agent(no_browser: bool) -> Arc<dyn AuthorizationAgent> {
    Arc::new(LoopbackAgent::new(
        DEFAULT_REDIRECT_PORT,
        Arc::new(move |url: &url::Url| {
            let mut stderr = std::io::stderr().lock();
            let _ = writeln!(
                stderr,
                "Authorize mcpctl in your browser{}:\n  {url}\nWaiting for the redirect …",
                if no_browser {
                    "; open"
                } else {
                    " (opening it); or open"
                }
            );
            if !no_browser {
                open_browser(url.as_str());
            }
        }),
    ))
}

/// Opens `url` with the desktop's opener, never through a shell (the URL comes from a
/// server); a failure only leaves the printed URL to the user.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let spawned = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Err(e) = spawned {
        tracing::debug!(opener, error = %e, "could not open a browser");
    }
}

/// The authorizer of `server`, which must be an HTTP server.
async fn authorizer(manager: &Manager, server: &str) -> anyhow::Result<mcp_kit::auth::OAuth> {
    manager.oauth(server).await?.ok_or_else(|| {
        Failure {
            exit: Exit::Usage,
            message: format!(
                "mcp server `{server}` sends an Authorization header of its own: OAuth is not \
                 used for it"
            ),
        }
        .into()
    })
}

/// `mcpctl login SERVER`.
pub(crate) async fn login(
    manager: &Manager,
    server: &str,
    no_browser: bool,
    printer: Printer,
) -> anyhow::Result<()> {
    let oauth = authorizer(manager, server).await?;
    oauth
        .login_with(agent(no_browser))
        .await
        .map_err(|e| unauthorized(server, e))?;
    let record = oauth.record();
    printer.print(&status_of(server, record.as_ref()), |v| {
        sanitize(&format!(
            "logged in to {} (issuer {}; scopes: {}; {})\n",
            str_of(v, "server").unwrap_or("?"),
            str_of(v, "issuer").unwrap_or("?"),
            str_of(v, "scopes")
                .filter(|s| !s.is_empty())
                .unwrap_or("none"),
            expiry(v)
        ))
    })
}

/// `mcpctl logout SERVER`.
pub(crate) async fn logout(
    manager: &Manager,
    server: &str,
    printer: Printer,
) -> anyhow::Result<()> {
    let oauth = authorizer(manager, server).await?;
    let forgot = oauth.logout().map_err(|e| unauthorized(server, e))?;
    printer.print(&json!({ "server": server, "logged_out": forgot }), |v| {
        let server = str_of(v, "server").unwrap_or("?");
        sanitize(&if v["logged_out"] == true {
            format!("logged out of {server}\n")
        } else {
            format!("not logged in to {server}\n")
        })
    })
}

/// `mcpctl auth-status`: every HTTP server of the configuration, with what is stored for it.
pub(crate) fn auth_status(config: &Config, printer: Printer) -> anyhow::Result<()> {
    let store = store();
    let mut rows = Vec::new();
    for (name, server) in &config.servers {
        let ServerConfig::StreamableHttp(http) = server else {
            continue;
        };
        let key = StoreKey::new(name, http.urls.http_url());
        let record = store.load(&key).map_err(|e| Failure {
            exit: Exit::Usage,
            message: format!("mcp server `{name}`: the token store failed: {e}"),
        })?;
        rows.push(status_of(name, record.as_ref()));
    }
    printer.print(&json!({ "servers": rows }), |v| {
        let rows = v["servers"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        if rows.is_empty() {
            return "no HTTP server in the configuration\n".to_owned();
        }
        let mut table =
            Table::new(["SERVER", "STATUS", "ISSUER", "SCOPES", "EXPIRES"]).wrap_column(3);
        for row in rows {
            let logged_in = row["logged_in"] == true;
            table.row([
                str_of(row, "server").unwrap_or("?").to_owned(),
                if logged_in {
                    "logged in"
                } else {
                    "not logged in"
                }
                .to_owned(),
                str_of(row, "issuer").unwrap_or("-").to_owned(),
                str_of(row, "scopes")
                    .filter(|s| !s.is_empty())
                    .unwrap_or("-")
                    .to_owned(),
                if logged_in {
                    expiry(row)
                } else {
                    "-".to_owned()
                },
            ]);
        }
        fitted(&table)
    })
}

/// What is known of a server's authorization, without any secret.
fn status_of(server: &str, record: Option<&mcp_kit::auth::StoredAuth>) -> Value {
    let tokens = record.and_then(|r| r.tokens.as_ref());
    json!({
        "server": server,
        "logged_in": tokens.is_some(),
        "issuer": record.map(|r| r.issuer.clone()),
        "scopes": tokens.map(|t| t.scopes.join(" ")),
        "expires_at": tokens.and_then(|t| t.expires_at),
        "refreshable": tokens.is_some_and(|t| t.refresh_token.is_some()),
        "token_type": tokens.map(|t| t.token_type.clone()),
    })
}

/// `expires in 59 min`, `expired 3 min ago (refreshable)`, `no expiry`.
fn expiry(status: &Value) -> String {
    let refreshable = if status["refreshable"] == true {
        " (refreshable)"
    } else {
        ""
    };
    let Some(at) = status["expires_at"].as_u64() else {
        return format!("no expiry{refreshable}");
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default();
    let span = |secs: u64| match secs {
        0..120 => format!("{secs} s"),
        120..7200 => format!("{} min", secs / 60),
        _ => format!("{} h", secs / 3600),
    };
    if at > now {
        format!("expires in {}{refreshable}", span(at - now))
    } else {
        format!("expired {} ago{refreshable}", span(now - at))
    }
}

/// An authorization failure of `server` as mcpctl reports it (exit code 5, or 3 for a trust
/// policy refusal).
fn unauthorized(server: &str, error: AuthError) -> anyhow::Error {
    mcp_kit::Error::Unauthorized {
        server: server.to_owned(),
        source: Arc::new(error),
    }
    .into()
}

/// Whether `error` is a server's "log in first" that mcpctl may offer to resolve: on a
/// terminal (stdin and stderr), and not in JSON mode.
pub(crate) fn login_would_help(error: &anyhow::Error, json: bool) -> bool {
    let login_required = error.chain().any(|cause| {
        cause
            .downcast_ref::<mcp_kit::Error>()
            .and_then(mcp_kit::Error::auth_error)
            .is_some_and(|e| matches!(e, AuthError::LoginRequired { .. }))
    });
    login_required && !json && std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// Asks on the terminal whether to log in to `server` now.
pub(crate) async fn ask_to_log_in(server: &str) -> bool {
    let question = format!("mcp server `{server}` requires authorization. Log in now? [Y/n] ");
    tokio::task::spawn_blocking(move || {
        let mut stderr = std::io::stderr().lock();
        let _ = write!(stderr, "{}", sanitize(&question));
        let _ = stderr.flush();
        let mut line = String::new();
        match std::io::stdin().lock().read_line(&mut line) {
            Ok(0) | Err(_) => false,
            Ok(_) => matches!(line.trim().to_ascii_lowercase().as_str(), "" | "y" | "yes"),
        }
    })
    .await
    .unwrap_or(false)
}
