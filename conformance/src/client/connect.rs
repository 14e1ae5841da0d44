//! From the scenario's URL to an established [`Session`]: a configuration built in code, a
//! [`Manager`] with the client's identity, capabilities and handlers, and the Untrusted policy
//! relaxed just enough for a plain-HTTP endpoint on this machine.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use mcp_kit::mcp::Era;
use mcp_kit::{Config, Manager, Root, ServerConfig, Session, UntrustedStreamableHttpPolicy};
use serde_json::{Value, json};

use super::Invocation;
use super::elicitation;

/// The name the scenario's server has in the configuration.
pub(crate) const SERVER: &str = "conformance";
/// What the client calls itself (`clientInfo.name`).
pub(crate) const CLIENT_NAME: &str = "mcp-kit-conformance-client";
/// Per-request timeout: well under the suite's 30 s per scenario, so that a hung request
/// fails the scenario with a message instead of a kill.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);

/// An established session.
pub(crate) struct Connected {
    pub(crate) session: Session,
}

/// The capabilities this client declares: elicitation (answered by
/// [`elicitation::handler`]) and roots (the working directory, answered by `mcp-kit` itself).
fn capabilities() -> Value {
    json!({ "elicitation": {} })
}

fn roots() -> Vec<Root> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| "/".into());
    vec![Root {
        uri: format!("file://{}", cwd.display()),
        name: Some("working directory".into()),
    }]
}

/// The protocol version to pin. The suite names the revision it tests: a stateful one
/// (through 2025-11-25) is pinned, so that the `initialize` handshake asks for exactly it; for
/// 2026-07-28 the client negotiates as it would with any server (`server/discover`, retrying
/// with a version the server lists when it refuses the first).
fn pinned_version(requested: Option<&str>) -> Option<String> {
    let requested = requested?;
    match Era::of(requested) {
        Some(Era::Stateful) => Some(requested.to_owned()),
        Some(Era::Stateless) => None,
        None => {
            tracing::warn!(requested, "unknown protocol version requested: negotiating");
            None
        }
    }
}

/// The manager over `config`, rooted at `root`: identity, timeout, pinned version, capabilities, roots, handlers, and a
/// policy that admits `http://localhost:…` (the suite's servers) while keeping every other
/// Untrusted rule.
pub(crate) fn manager(invocation: &Invocation, config: Config, root: PathBuf) -> Manager {
    let policy = UntrustedStreamableHttpPolicy {
        require_https: false,
        allow_localhost: true,
        allow_private_ips: true,
        ..UntrustedStreamableHttpPolicy::default()
    };
    Manager::new(config, root)
        .with_client_info(CLIENT_NAME, env!("CARGO_PKG_VERSION"))
        .with_timeout(REQUEST_TIMEOUT)
        .with_protocol_version(pinned_version(invocation.protocol_version.as_deref()))
        .with_capabilities(capabilities())
        .with_roots(roots())
        .with_untrusted_streamable_http_policy(policy)
        .with_server_request_handler(elicitation::handler())
        .with_server_notification_handler(elicitation::notification_logger())
}

/// A configuration with one streamable HTTP server, as `mcp.json` would declare it.
pub(crate) fn config(url: &str) -> Config {
    Config::default().with_server(SERVER, ServerConfig::streamable_http(url))
}

/// Connects to the scenario's server and performs the handshake.
pub(crate) async fn connect(invocation: &Invocation) -> anyhow::Result<Connected> {
    connect_with(invocation, |manager| manager).await
}

/// [`connect`] with the manager adjusted by `adjust` first (OAuth for the `auth/*` scenarios).
pub(crate) async fn connect_with(
    invocation: &Invocation,
    adjust: impl FnOnce(Manager) -> Manager,
) -> anyhow::Result<Connected> {
    let cwd = std::env::current_dir().context("the working directory")?;
    let manager = adjust(manager(invocation, config(&invocation.url), cwd));
    let session = manager
        .open(SERVER)
        .await
        .with_context(|| format!("connecting to {}", invocation.url))?;
    let negotiated = session.negotiated();
    tracing::info!(
        version = negotiated.protocol_version(),
        era = ?negotiated.era(),
        server = %negotiated.result(),
        "connected"
    );
    if let Some(requested) = &invocation.protocol_version
        && requested != session.protocol_version()
    {
        tracing::warn!(
            requested = %requested,
            negotiated = session.protocol_version(),
            "the server settled on another protocol version than the run targets"
        );
    }
    Ok(Connected { session })
}
