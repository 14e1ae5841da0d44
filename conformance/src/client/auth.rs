//! How the client authorizes in the `auth/*` scenarios: tokens in memory, the suite's
//! authorization server approving at once (the [`HeadlessAgent`] takes its redirect), the
//! suite's Client ID Metadata Document URL, and what a scenario's context gives: a
//! pre-registered client, or the credentials of a grant without a person (the extensions:
//! client credentials, workload identity, enterprise-managed authorization). DPoP needs no
//! setting: the client binds its tokens where the server challenges with `DPoP`.

use std::sync::Arc;

use anyhow::Context;
use mcp_kit::auth::{
    ClientCredential, EnterpriseManaged, Grant, HeadlessAgent, MemoryTokenStore, OAuthOptions,
    PreRegisteredClient,
};
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
    let options = OAuthOptions::new(Arc::new(MemoryTokenStore::new()), CLIENT_NAME)
        .with_agent(Arc::new(HeadlessAgent::new(REDIRECT_URI)))
        .with_client_metadata_url(CLIENT_METADATA_URL);
    let Some(context) = &invocation.context else {
        return Ok(options);
    };
    let text = |name: &str| {
        context
            .get(name)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .with_context(|| format!("the scenario's context has no `{name}`"))
    };
    // The contexts of pre-registration and client-credentials-basic look alike: the name
    // tells them apart.
    Ok(match context.get("name").and_then(Value::as_str) {
        Some("auth/pre-registration") => options.with_client(PreRegisteredClient {
            issuer: text("issuer").ok(),
            client_id: text("client_id")?,
            client_secret: Some(text("client_secret")?),
        }),
        Some("auth/client-credentials-basic") => options.with_grant(Grant::ClientCredentials {
            client_id: text("client_id")?,
            credential: ClientCredential::Secret(text("client_secret")?),
        }),
        Some("auth/client-credentials-jwt") => options.with_grant(Grant::ClientCredentials {
            client_id: text("client_id")?,
            credential: ClientCredential::PrivateKeyJwt(text("private_key_pem")?),
        }),
        Some("auth/wif-jwt-bearer") => options.with_grant(Grant::JwtBearer {
            // The context also has assertions that are wrong on purpose, for the suite's
            // negative clients; a workload presents the one its platform issued it.
            assertion: text("valid_jwt")?,
            client_id: text("client_id").ok(),
        }),
        Some("auth/enterprise-managed-authorization") => {
            options.with_grant(Grant::EnterpriseManaged(EnterpriseManaged {
                idp_token_endpoint: text("idp_token_endpoint")?,
                idp_client_id: text("idp_client_id")?,
                id_token: text("idp_id_token")?,
                client_id: text("client_id")?,
                client_secret: text("client_secret")?,
            }))
        }
        _ => options,
    })
}
