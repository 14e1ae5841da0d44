//! The handshake: `server/discover` first (2026-07-28), `initialize` for older servers, or the
//! one a pinned version asks for.

use std::time::Duration;

use mcp_schema::headers::PROTOCOL_VERSION;
use mcp_schema::{
    DiscoverRequest, Era, InitializeRequest, InitializedNotification, McpNotification, McpRequest,
    error_codes,
};
use serde_json::{Map, Value, json};

use super::request::mirrored_headers;
use super::{Negotiated, Session};
use crate::Error;

/// The versions this client speaks per era, newest last.
const STATELESS: &[&str] = &[mcp_schema::V2026_07_28];
const STATEFUL: &[&str] = &[
    mcp_schema::V2024_11_05,
    mcp_schema::V2025_03_26,
    mcp_schema::V2025_06_18,
    mcp_schema::V2025_11_25,
];

/// How long the `server/discover` probe may take before the server is taken for a legacy one
/// that ignores unknown requests (at most half the session timeout, which bounds the whole
/// handshake: the other half is left for `initialize`).
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

pub(super) async fn negotiate(
    session: &Session,
    pinned: Option<&str>,
    hint: Option<Era>,
) -> Result<Negotiated, Error> {
    match pinned {
        Some(version) if Era::of(version) == Some(Era::Stateless) => {
            match discover(session, version).await {
                // A server may refuse a version it then lists (a transient choice): once more.
                Err(ProbeFailure::Unsupported { supported, .. })
                    if supported.iter().any(|s| s == version) =>
                {
                    discover(session, version)
                        .await
                        .map_err(ProbeFailure::into_error)
                }
                outcome => outcome.map_err(ProbeFailure::into_error),
            }
        }
        Some(version) => initialize(session, version).await,
        None if hint == Some(Era::Stateful) => {
            // This server spoke the stateful era last time: `initialize` first spares it the
            // `server/discover` probe, which some legacy servers answer with pages of errors on
            // their stderr. A server that has moved on is probed as usual.
            match initialize(session, STATEFUL[STATEFUL.len() - 1]).await {
                Err(Error::Rpc { error, .. }) => {
                    tracing::debug!(server = session.server_name(), %error, "initialize refused: probing");
                    auto(session).await
                }
                outcome => outcome,
            }
        }
        None => auto(session).await,
    }
}

/// Auto: probe with `server/discover`; a modern answer (result, or an unsupported-version
/// error listing versions) settles it; any other error or silence means a legacy server.
async fn auto(session: &Session) -> Result<Negotiated, Error> {
    let latest = STATELESS[STATELESS.len() - 1];
    match discover(session, latest).await {
        Ok(negotiated) => Ok(negotiated),
        Err(ProbeFailure::Unsupported { supported, error }) => {
            if let Some(version) = mcp_schema::version::select_mutual_version(STATELESS, &supported)
            {
                discover(session, version)
                    .await
                    .map_err(ProbeFailure::into_error)
            } else if let Some(version) =
                mcp_schema::version::select_mutual_version(STATEFUL, &supported)
            {
                initialize(session, version).await
            } else {
                Err(error)
            }
        }
        Err(ProbeFailure::Legacy(why, _)) => {
            tracing::debug!(server = session.server_name(), %why, "server/discover failed: using initialize");
            initialize(session, STATEFUL[STATEFUL.len() - 1]).await
        }
        Err(ProbeFailure::Fatal(error)) => Err(error),
    }
}

enum ProbeFailure {
    /// The server speaks the modern era but not this version.
    Unsupported {
        supported: Vec<String>,
        error: Error,
    },
    /// The server does not know `server/discover` (why, and the error to report when no
    /// fallback is allowed).
    Legacy(String, Error),
    /// The connection is gone, or the answer was malformed.
    Fatal(Error),
}

impl ProbeFailure {
    fn into_error(self) -> Error {
        match self {
            ProbeFailure::Unsupported { error, .. }
            | ProbeFailure::Fatal(error)
            | ProbeFailure::Legacy(_, error) => error,
        }
    }
}

async fn discover(session: &Session, version: &str) -> Result<Negotiated, ProbeFailure> {
    let mut meta = Map::new();
    session.insert_envelope(&mut meta, version);
    let params = json!({ "_meta": meta });
    let headers = if session.shared.http {
        let mut headers = vec![(PROTOCOL_VERSION.to_owned(), version.to_owned())];
        headers.extend(mirrored_headers(DiscoverRequest::METHOD, Some(&params)));
        headers
    } else {
        Vec::new()
    };
    let pending = session
        .shared
        .handle
        .start_request_with_headers(DiscoverRequest::METHOD, Some(&params), headers)
        .await
        .map_err(|e| ProbeFailure::Fatal(session.request_error(DiscoverRequest::METHOD, e)))?;
    let limit = (session.timeout / 2).min(PROBE_TIMEOUT);
    let outcome = match tokio::time::timeout(limit, pending).await {
        Ok(outcome) => outcome,
        Err(_) => {
            return Err(ProbeFailure::Legacy(
                format!("no answer within {limit:?}"),
                Error::Timeout {
                    method: DiscoverRequest::METHOD.into(),
                    timeout: limit,
                },
            ));
        }
    };
    let raw = match outcome {
        Ok(raw) => raw,
        Err(mcp_jsonrpc::Error::Rpc(error)) => {
            if error.code == error_codes::UNSUPPORTED_PROTOCOL_VERSION {
                let supported = error
                    .data
                    .as_ref()
                    .and_then(|d| d.get("supported"))
                    .and_then(|s| serde_json::from_value::<Vec<String>>(s.clone()).ok())
                    .unwrap_or_default();
                return Err(ProbeFailure::Unsupported {
                    supported,
                    error: session
                        .request_error(DiscoverRequest::METHOD, mcp_jsonrpc::Error::Rpc(error)),
                });
            }
            if let Some(status) = error.http_status().filter(|s| *s == 401 || *s == 403) {
                // A modern server behind authorization: falling back to initialize would only
                // be refused the same way.
                return Err(ProbeFailure::Fatal(Error::Protocol {
                    server: session.server_name().to_owned(),
                    message: format!(
                        "the server requires authorization (HTTP {status}), and OAuth is off \
                         (Manager::with_oauth turns it on); or configure a static token \
                         (bearer_token_env_var, Trusted mode) if the server accepts one"
                    ),
                }));
            }
            let why = error.to_string();
            return Err(ProbeFailure::Legacy(
                why,
                session.request_error(DiscoverRequest::METHOD, mcp_jsonrpc::Error::Rpc(error)),
            ));
        }
        Err(e) => {
            return Err(ProbeFailure::Fatal(
                session.request_error(DiscoverRequest::METHOD, e),
            ));
        }
    };
    let result: Value = serde_json::from_str(raw.get()).map_err(|e| {
        ProbeFailure::Fatal(Error::Json {
            context: "decoding the result of server/discover".into(),
            source: e,
        })
    })?;
    let theirs: Vec<String> = result
        .get("supportedVersions")
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default();
    if theirs.is_empty() {
        // Some legacy servers answer any unknown request with `{}`: without supportedVersions
        // this is not a DiscoverResult.
        return Err(ProbeFailure::Legacy(
            "server/discover answered without supportedVersions".into(),
            Error::Protocol {
                server: session.server_name().to_owned(),
                message: "server/discover answered without supportedVersions".into(),
            },
        ));
    }
    let protocol_version = if theirs.iter().any(|t| t == version) {
        version
    } else if let Some(mutual) = mcp_schema::version::select_mutual_version(STATELESS, &theirs) {
        mutual
    } else {
        return Err(ProbeFailure::Fatal(Error::Protocol {
            server: session.server_name().to_owned(),
            message: format!(
                "the server supports protocol versions {theirs:?}, none of which this client speaks ({STATELESS:?})"
            ),
        }));
    };
    Ok(Negotiated::Discover {
        protocol_version: protocol_version.to_owned(),
        result,
    })
}

async fn initialize(session: &Session, version: &str) -> Result<Negotiated, Error> {
    let params = json!({
        "protocolVersion": version,
        "capabilities": session.capabilities,
        "clientInfo": session.client_info,
    });
    // The initialize request must not be cancelled.
    let result = session
        .send_and_wait(InitializeRequest::METHOD, Some(params), Vec::new(), false)
        .await?;
    let answered = result
        .get("protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    if mcp_schema::version::client_accepts_initialize_answer(&answered, STATEFUL).is_none() {
        return Err(Error::Protocol {
            server: session.server_name().to_owned(),
            message: format!(
                "the server answered initialize with protocol version `{answered}`, which this client does not speak (it speaks {STATEFUL:?})"
            ),
        });
    }
    // Only once the answer is in: some servers register capability-dependent features then.
    session
        .notify(InitializedNotification::METHOD, None)
        .await?;
    Ok(Negotiated::Initialize {
        protocol_version: answered,
        result,
    })
}
