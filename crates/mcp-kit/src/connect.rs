//! From a server's configuration to an open JSON-RPC connection, through the trust policy.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use mcp_jsonrpc::{Peer, SpawnOptions, StderrMode, StdoutLog, StreamableHttpOptions, WireTap};

use crate::config::{ServerConfig, StdioServer, StdoutLogConfig, StreamableHttpServer};
use crate::security::{self, TrustMode, UntrustedStreamableHttpPolicy};
use crate::{Config, Error};

/// What the manager decides about connecting.
#[derive(Debug, Clone)]
pub(crate) struct ConnectPolicy {
    pub(crate) trust_mode: TrustMode,
    pub(crate) untrusted_http: UntrustedStreamableHttpPolicy,
    pub(crate) allow_stdout_log_outside_root: bool,
    pub(crate) stderr: StderrMode,
    pub(crate) wire: Option<WireTap>,
    pub(crate) own_process_group: bool,
    /// The values of `${input:ID}` placeholders.
    pub(crate) inputs: BTreeMap<String, String>,
    /// How HTTP servers are authorized, when OAuth is on.
    #[cfg(feature = "oauth")]
    pub(crate) oauth: Option<crate::auth::OAuthOptions>,
}

impl ConnectPolicy {
    /// The options of a connection that spawns nothing (unix, HTTP): the wire tap.
    fn connection_options(&self) -> SpawnOptions {
        SpawnOptions {
            wire: self.wire.clone(),
            ..SpawnOptions::default()
        }
    }
}

/// Opens the connection to `server` as configured, `root` being the workspace root (the
/// child's working directory and the base of relative paths).
pub(crate) async fn open(
    policy: &ConnectPolicy,
    timeout: Duration,
    config: &Config,
    server: &str,
    root: &Path,
) -> Result<Peer, Error> {
    let resolved = resolve(policy, config, server, root).await?;
    let connection_error = connection_error(server);
    match resolved {
        ServerConfig::Stdio(stdio) => {
            let (program, options) = spawn_options(policy, server, &stdio, root)?;
            Peer::spawn_with_options(&program, &stdio.argv[1..], options)
                .await
                .map_err(connection_error)
        }
        ServerConfig::Unix(unix) => {
            let path = root.join(&unix.unix_path);
            Peer::connect_unix_with_options(&path, policy.connection_options())
                .await
                .map_err(connection_error)
        }
        ServerConfig::StreamableHttp(http) => Peer::connect_streamable_http_split_with_options(
            http.urls.sse_url(),
            http.urls.http_url(),
            http_options(policy, timeout, server, &http)?,
            policy.connection_options(),
        )
        .await
        .map_err(connection_error),
    }
}

/// Opens `server`, a streamable HTTP server in the configuration, with the legacy HTTP+SSE
/// transport of 2024-11-05 instead (its URL as the SSE endpoint), through the same checks.
pub(crate) async fn open_legacy_sse(
    policy: &ConnectPolicy,
    timeout: Duration,
    config: &Config,
    server: &str,
    root: &Path,
) -> Result<Peer, Error> {
    let ServerConfig::StreamableHttp(http) = resolve(policy, config, server, root).await? else {
        return Err(Error::Protocol {
            server: server.to_owned(),
            message: "only an HTTP server can use the legacy HTTP+SSE transport".into(),
        });
    };
    Peer::connect_legacy_sse_with_options(
        http.urls.sse_url(),
        http_options(policy, timeout, server, &http)?,
        policy.connection_options(),
    )
    .await
    .map_err(connection_error(server))
}

/// Wraps a transport error of `server` as [`Error::Connection`].
fn connection_error(server: &str) -> impl Fn(mcp_jsonrpc::Error) -> Error + '_ {
    move |source| Error::Connection {
        server: server.to_owned(),
        source,
    }
}

/// The HTTP options of a server: its headers (as the trust mode allows), the timeout, and
/// the OAuth authorizer when OAuth is on and the headers do not authorize already.
fn http_options(
    policy: &ConnectPolicy,
    timeout: Duration,
    server: &str,
    http: &StreamableHttpServer,
) -> Result<StreamableHttpOptions, Error> {
    let headers = http_headers(policy.trust_mode, server, http)?;
    #[cfg(feature = "oauth")]
    let authorizer = oauth_for(policy, server, http, &headers)?.map(mcp_jsonrpc::Authorizer::new);
    #[cfg(not(feature = "oauth"))]
    let authorizer = None;
    Ok(StreamableHttpOptions {
        headers,
        request_timeout: Some(timeout),
        authorizer,
        ..Default::default()
    })
}

/// The OAuth authorizer of an HTTP server: with OAuth on, unless its headers carry an
/// `Authorization` of their own.
#[cfg(feature = "oauth")]
fn oauth_for(
    policy: &ConnectPolicy,
    server: &str,
    http: &StreamableHttpServer,
    headers: &BTreeMap<String, String>,
) -> Result<Option<crate::auth::OAuth>, Error> {
    let Some(options) = &policy.oauth else {
        return Ok(None);
    };
    if headers
        .keys()
        .any(|name| name.trim().eq_ignore_ascii_case("authorization"))
    {
        return Ok(None);
    }
    let options = with_server_settings(options.clone(), policy.trust_mode, server, http)?;
    crate::auth::OAuth::new(
        server,
        http.urls.http_url(),
        policy.trust_mode,
        policy.untrusted_http.clone(),
        options,
    )
    .map(Some)
    .map_err(|e| Error::Unauthorized {
        server: server.to_owned(),
        source: std::sync::Arc::new(e),
    })
}

/// The manager's OAuth options with a server's `oauth` settings applied: its pre-registered
/// client (preferred; its secret read from the environment, Trusted mode only — the policy
/// refused it otherwise), its scopes, its redirect port (for whichever agent authorizes).
#[cfg(feature = "oauth")]
fn with_server_settings(
    mut options: crate::auth::OAuthOptions,
    trust: TrustMode,
    server: &str,
    http: &StreamableHttpServer,
) -> Result<crate::auth::OAuthOptions, Error> {
    let Some(settings) = &http.oauth else {
        return Ok(options);
    };
    if let Some(client_id) = &settings.client_id {
        let client_secret = match (&settings.client_secret_env_var, trust) {
            (Some(var), TrustMode::Trusted) => {
                Some(std::env::var(var).map_err(|_| Error::MissingEnvVar {
                    server: server.to_owned(),
                    var: var.clone(),
                })?)
            }
            _ => None,
        };
        options.clients.insert(
            0,
            crate::auth::PreRegisteredClient {
                issuer: settings.issuer.clone(),
                client_id: client_id.clone(),
                client_secret,
            },
        );
    }
    if settings.scopes.is_some() {
        options.scopes.clone_from(&settings.scopes);
    }
    if settings.redirect_port.is_some() {
        options.redirect_port = settings.redirect_port;
    }
    Ok(options)
}

/// [`Manager::oauth`](crate::Manager::oauth): the authorizer of `server`, through the same
/// checks as connecting.
#[cfg(feature = "oauth")]
pub(crate) async fn oauth(
    policy: &ConnectPolicy,
    config: &Config,
    server: &str,
    root: &Path,
) -> Result<Option<crate::auth::OAuth>, Error> {
    let ServerConfig::StreamableHttp(http) = resolve(policy, config, server, root).await? else {
        return Err(Error::Protocol {
            server: server.to_owned(),
            message: "only an HTTP server uses OAuth".into(),
        });
    };
    let headers = http_headers(policy.trust_mode, server, &http)?;
    oauth_for(policy, server, &http, &headers)
}

/// `server`'s configuration after the trust policy: checked (untrusted), or with its
/// placeholders expanded (trusted).
async fn resolve(
    policy: &ConnectPolicy,
    config: &Config,
    server: &str,
    root: &Path,
) -> Result<ServerConfig, Error> {
    let configured = config
        .servers
        .get(server)
        .ok_or_else(|| Error::UnknownServer(server.to_owned()))?;
    Ok(match policy.trust_mode {
        TrustMode::Untrusted => {
            security::check_local_transport(server, configured.transport())?;
            if let ServerConfig::StreamableHttp(http) = configured {
                security::check_untrusted_http(&policy.untrusted_http, server, http).await?;
            }
            let literal = configured.fields_with_placeholders();
            if !literal.is_empty() {
                tracing::warn!(
                    "mcp server `{server}`: the placeholders in {} are sent as written \
                     (untrusted mode does not read the environment; --trust expands them)",
                    literal.join(", ")
                );
            }
            configured.clone()
        }
        // Placeholders are expanded only for a trusted configuration: expanding them is
        // reading this process's environment.
        TrustMode::Trusted => configured.expanded_with_inputs(root, &policy.inputs)?,
    })
}

fn spawn_options(
    policy: &ConnectPolicy,
    server: &str,
    stdio: &StdioServer,
    root: &Path,
) -> Result<(String, SpawnOptions), Error> {
    let program = stdio.argv.first().cloned().ok_or_else(|| Error::Protocol {
        server: server.to_owned(),
        message: "argv is empty".into(),
    })?;
    let stdout_log = stdio
        .stdout_log
        .as_ref()
        .map(|log| stdout_log(policy, server, log, root))
        .transpose()?;
    Ok((
        program,
        SpawnOptions {
            stdout_log,
            env: stdio
                .env
                .iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
            inherit_env: stdio.inherit_env,
            cwd: Some(root.to_path_buf()),
            stderr: policy.stderr,
            wire: policy.wire.clone(),
            own_process_group: policy.own_process_group,
            ..Default::default()
        },
    ))
}

/// Resolves `stdout_log.path` against the root and applies the "under the root" rule (the
/// `..` rule is checked when the configuration loads; symlinks are refused when the log opens).
fn stdout_log(
    policy: &ConnectPolicy,
    server: &str,
    log: &StdoutLogConfig,
    root: &Path,
) -> Result<StdoutLog, Error> {
    let path = root.join(&log.path);
    if !policy.allow_stdout_log_outside_root && !is_under(&path, root) {
        return Err(Error::StdoutLogOutsideRoot {
            server: server.to_owned(),
            path,
            root: root.to_path_buf(),
        });
    }
    Ok(StdoutLog {
        path,
        max_bytes_per_part: log.max_bytes_per_part.max(1),
        max_parts: (log.max_parts > 0).then_some(log.max_parts as usize),
    })
}

/// Lexically (the path has no `..`; symlinks are refused separately).
fn is_under(path: &Path, root: &Path) -> bool {
    let normal = |p: &Path| -> PathBuf {
        p.components()
            .filter(|c| !matches!(c, Component::CurDir))
            .collect()
    };
    normal(path).starts_with(normal(root))
}

/// The headers of a streamable HTTP server: static ones, and in Trusted mode the ones read
/// from the environment (the policy refused those in Untrusted mode already).
fn http_headers(
    trust: TrustMode,
    server: &str,
    http: &StreamableHttpServer,
) -> Result<BTreeMap<String, String>, Error> {
    let mut headers = http.http_headers.clone();
    if trust == TrustMode::Trusted {
        let read = |var: &str| {
            std::env::var(var).map_err(|_| Error::MissingEnvVar {
                server: server.to_owned(),
                var: var.to_owned(),
            })
        };
        if let Some(var) = &http.bearer_token_env_var {
            headers.insert("Authorization".into(), format!("Bearer {}", read(var)?));
        }
        for (header, var) in &http.env_http_headers {
            headers.insert(header.clone(), read(var)?);
        }
    }
    Ok(headers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn under_root_is_lexical() {
        let root = Path::new("/work/repo");
        assert!(is_under(Path::new("/work/repo/./logs/a.log"), root));
        assert!(is_under(&root.join("logs/a.log"), root));
        assert!(!is_under(Path::new("/work/repository/a.log"), root));
        assert!(!is_under(Path::new("/tmp/a.log"), root));
    }
}
