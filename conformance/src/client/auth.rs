//! How the client authorizes in the `auth/*` scenarios: tokens in memory, the suite's
//! authorization server approving at once (the [`HeadlessAgent`] takes its redirect), the
//! suite's Client ID Metadata Document URL, and the pre-registered client a scenario's
//! context gives.

use std::sync::Arc;

use anyhow::Context;
use mcp_kit::auth::{HeadlessAgent, MemoryTokenStore, OAuthOptions, PreRegisteredClient};
use serde_json::Value;

use super::Invocation;
use super::connect::CLIENT_NAME;

/// The redirect URI: the suite's authorization server redirects to it at once, and nothing
/// needs to listen on it.
const REDIRECT_URI: &str = "http://localhost:3000/callback";
/// The client ID metadata document URL the suite expects (it never fetches it).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The OAuth options of a scenario.
pub(crate) fn options(invocation: &Invocation) -> anyhow::Result<OAuthOptions> {
    let mut options = OAuthOptions::new(Arc::new(MemoryTokenStore::new()), CLIENT_NAME)
        .with_agent(Arc::new(HeadlessAgent::new(REDIRECT_URI)))
        .with_client_metadata_url(CLIENT_METADATA_URL);
    if let Some(client) = pre_registered(invocation)? {
        options = options.with_client(client);
    }
    Ok(options)
}

/// The pre-registered client of `auth/pre-registration` (its context: `client_id`,
/// `client_secret`, and the `issuer` it is registered at).
fn pre_registered(invocation: &Invocation) -> anyhow::Result<Option<PreRegisteredClient>> {
    let Some(context) = &invocation.context else {
        return Ok(None);
    };
    if context.get("name").and_then(Value::as_str) != Some("auth/pre-registration") {
        return Ok(None);
    }
    let text = |name: &str| {
        context
            .get(name)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .with_context(|| format!("the scenario's context has no `{name}`"))
    };
    Ok(Some(PreRegisteredClient {
        issuer: text("issuer").ok(),
        client_id: text("client_id")?,
        client_secret: Some(text("client_secret")?),
    }))
}
