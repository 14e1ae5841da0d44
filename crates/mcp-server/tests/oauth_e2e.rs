//! OAuth end to end, with nothing simulated: a real authorization server (oidc-provider, run
//! by `mcp-test-support`'s `fixtures/oidc_as.mjs`), `mcp-server` over streamable HTTP as the
//! resource server (JWT access tokens checked against the JWKS it discovers from the
//! authorization server's metadata, RFC 9728 protected resource metadata, per-tool scopes),
//! and `mcp-kit`'s OAuth client with an [`AuthorizationAgent`] that plays the browser over
//! plain HTTP (it signs in as `alice` and consents).
//!
//! One scenario, in order: discovery (protected resource metadata, then authorization server
//! metadata), dynamic registration (a public native client), the authorization code with PKCE
//! S256, tool calls; the access token expires (a TTL of a few seconds: the only way to see a
//! real token expire at a real resource server, and short enough to wait for) and the client
//! refreshes it, both ahead of sending it and after a `401 invalid_token`; a tool that needs
//! `mcp:write` is refused `403 insufficient_scope` and the client steps up with the union of
//! its scopes; logging out (the record removed from the token store) makes the next connection
//! need an authorization again, which without an agent fails with `LoginRequired`.
//!
//! Needs Node 20 and the peers of `scripts/install-peers.sh`; fails saying so without them.

mod http_support;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use mcp_kit::auth::{
    AgentFuture, AuthError, AuthorizationAgent, MemoryTokenStore, OAuthOptions, StoreKey,
    TokenStore,
};
use mcp_kit::{Config, Manager, ServerConfig, UntrustedStreamableHttpPolicy};
use mcp_server::auth::JwtAuthenticator;
use mcp_server::middleware::RequireScopes;
use mcp_server::{HttpOptions, HttpServer, NoArguments, ProtectedResourceMetadata, Server};
use mcp_test_support::oidc::AuthorizationServer;
use serde_json::{Value, json};
use url::Url;

/// The access tokens' lifetime. A few seconds: long enough for every step between a refresh
/// and the request that uses the token, short enough that the test can wait for a real
/// expiry (it sleeps until the `exp` of a token it holds, a known instant, never as a way to
/// let something else finish).
const ACCESS_TOKEN_TTL_SECS: u64 = 5;

/// The server's name in the client's configuration (and the token store's key).
const SERVER: &str = "e2e";

/// The resource server: tools that need `mcp:read` and `mcp:write`, JWTs from `issuer` with
/// the JWKS discovered, its RFC 9728 document advertising `mcp:read` (the scope every client
/// starts with: `mcp:write` is asked for when a tool needs it).
async fn resource_server(issuer: &str) -> (HttpServer, String) {
    let port = mcp_test_support::free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let server = Server::builder("notes", "1.0.0")
        .middleware(
            RequireScopes::new()
                .tool("read_note", ["mcp:read"])
                .tool("write_note", ["mcp:write"]),
        )
        .tool(
            "read_note",
            "Reads the note",
            |_: NoArguments, cx| async move {
                Ok(format!(
                    "{} reads",
                    cx.principal().expect("authenticated").subject
                ))
            },
        )
        .tool(
            "write_note",
            "Writes the note",
            |_: NoArguments, cx| async move {
                Ok(format!(
                    "{} writes",
                    cx.principal().expect("authenticated").subject
                ))
            },
        )
        .build();
    let mut options = HttpOptions::default();
    // No leeway: a token is refused as soon as it expires, which the test checks.
    options.auth = Some(Arc::new(
        JwtAuthenticator::discovering(issuer, &resource).leeway(Duration::ZERO),
    ));
    options.resource_metadata = Some(
        ProtectedResourceMetadata::new(&resource, vec![issuer.to_owned()])
            .scopes(vec!["mcp:read".to_owned()]),
    );
    let http = server
        .bind_http(("127.0.0.1", port), options)
        .await
        .expect("bind the resource server");
    assert_eq!(http.url(), resource);
    (http, resource)
}

/// The person: a browser at the authorization server's login and consent pages
/// ([`mcp_test_support::oidc::Browser`]), handing the redirect back to the client without
/// requesting it (nothing listens on the redirect URI).
struct Browser {
    redirect_uri: String,
    browser: mcp_test_support::oidc::Browser,
}

impl Browser {
    fn new() -> Self {
        Self {
            redirect_uri: format!(
                "http://127.0.0.1:{}/callback",
                mcp_test_support::free_port()
            ),
            browser: mcp_test_support::oidc::Browser::new(),
        }
    }

    /// The prompts of each authorization so far (`["login", "consent"]`, …).
    fn prompts(&self) -> Vec<Vec<String>> {
        self.browser.prompts()
    }
}

impl AuthorizationAgent for Browser {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn authorize<'a>(&'a self, url: &'a Url) -> AgentFuture<'a> {
        Box::pin(self.browser.authorize(url, &self.redirect_uri))
    }
}

/// A client of `resource` keeping its tokens in `store`, with `agent` to authorize if any.
fn manager(resource: &str, store: &Arc<MemoryTokenStore>, agent: Option<&Arc<Browser>>) -> Manager {
    // Untrusted mode, as for any remote server, opened to plain HTTP on loopback addresses:
    // every URL of the flow goes through this policy.
    let policy = UntrustedStreamableHttpPolicy {
        require_https: false,
        allow_private_ips: true,
        ..UntrustedStreamableHttpPolicy::default()
    };
    let mut options = OAuthOptions::new(store.clone(), "e2e test client");
    if let Some(agent) = agent {
        options = options.with_agent(agent.clone());
    }
    Manager::new(
        Config::default().with_server(SERVER, ServerConfig::streamable_http(resource)),
        std::env::current_dir().unwrap(),
    )
    .with_timeout(Duration::from_secs(30))
    .with_untrusted_streamable_http_policy(policy)
    .with_oauth(options)
}

/// The claims (and header) of a JWT, read without checking anything.
fn jwt_part(token: &str, part: usize) -> Value {
    let segment = token.split('.').nth(part).expect("a JWT");
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(segment)
        .expect("base64url");
    serde_json::from_slice(&bytes).expect("JSON")
}

fn scopes(text: &str) -> BTreeSet<&str> {
    text.split_whitespace().collect()
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A `tools/call` straight to the resource server with `token` (no client library): its
/// status and `WWW-Authenticate`.
async fn call_with(resource: &str, token: &str, tool: &str) -> (u16, String) {
    let response = http_support::stateless(
        &http_support::client(),
        resource,
        1,
        "tools/call",
        json!({"name": tool}),
    )
    .bearer_auth(token)
    .send()
    .await
    .unwrap();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (response.status().as_u16(), challenge)
}

#[tokio::test]
async fn oauth_end_to_end_with_a_real_authorization_server() {
    let authorization_server = AuthorizationServer::start(ACCESS_TOKEN_TTL_SECS).await;
    let issuer = authorization_server.issuer.clone();
    let (_http, resource) = resource_server(&issuer).await;
    let store = Arc::new(MemoryTokenStore::new());
    let key = StoreKey::new(SERVER, resource.clone());
    let access_token = |store: &MemoryTokenStore| {
        store
            .load(&key)
            .unwrap()
            .and_then(|r| r.tokens)
            .expect("tokens are stored")
    };
    let browser = Arc::new(Browser::new());

    // ----- discovery, registration, authorization code with PKCE, a tool call -----
    let client = manager(&resource, &store, Some(&browser));
    let session = client
        .open(SERVER)
        .await
        .expect("connect, authorizing first");
    let read = session.call_tool("read_note", None).await.unwrap();
    assert_eq!(read.text_content(), "alice reads");
    assert_eq!(browser.prompts(), [["login", "consent"]]);

    let log = authorization_server.log().await;
    let registrations = log["registrations"].as_array().unwrap();
    assert_eq!(registrations.len(), 1, "{log:#}");
    let registration = &registrations[0];
    assert_eq!(registration["application_type"], "native", "{log:#}");
    assert_eq!(registration["token_endpoint_auth_method"], "none");
    assert_eq!(registration["redirect_uris"], json!([browser.redirect_uri]));
    assert!(
        registration["grant_types"]
            .as_array()
            .unwrap()
            .contains(&json!("refresh_token"))
    );
    let authorizations = log["authorizations"].as_array().unwrap();
    assert_eq!(authorizations.len(), 1, "{log:#}");
    assert_eq!(authorizations[0]["resource"], resource.as_str());
    assert_eq!(authorizations[0]["code_challenge_method"], "S256");
    assert_eq!(
        scopes(authorizations[0]["scope"].as_str().unwrap()),
        scopes("mcp:read offline_access"),
        "the resource's scopes_supported, plus offline_access which the server offers"
    );
    assert_eq!(authorization_server.granted("authorization_code").await, 1);
    let documents: Vec<&str> = log["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_str().unwrap())
        .collect();
    assert!(
        documents.contains(&"/.well-known/oauth-authorization-server"),
        "RFC 8414 metadata, read by the client and by the resource server: {documents:?}"
    );
    assert!(
        documents.contains(&"/jwks"),
        "the resource server fetched the discovered JWKS: {documents:?}"
    );

    // The access token: a JWT for this resource from this issuer, with mcp:read.
    let first = access_token(&store);
    assert!(
        first.refresh_token.is_some(),
        "offline_access gives a refresh token"
    );
    let header = jwt_part(&first.access_token, 0);
    let claims = jwt_part(&first.access_token, 1);
    assert_eq!(header["alg"], "ES256");
    assert_eq!(header["typ"], "at+jwt");
    assert_eq!(claims["iss"], issuer.as_str());
    assert_eq!(claims["aud"], resource.as_str());
    assert_eq!(claims["sub"], "alice");
    assert_eq!(
        scopes(claims["scope"].as_str().unwrap()),
        scopes("mcp:read")
    );

    // ----- the token expires; the client refreshes it -----
    // mcp-kit refreshes a token that expires within 30 s before sending it: with this TTL,
    // ahead of every request. What is checked here is that the resource server refuses the
    // expired token and that the session carries on with refreshed ones; the 401 path (a
    // token the client did not know had expired) is checked further down.
    let exp = claims["exp"].as_u64().unwrap();
    assert!(exp <= now() + ACCESS_TOKEN_TTL_SECS + 1);
    let refreshed_before = authorization_server.granted("refresh_token").await;
    tokio::time::sleep(Duration::from_secs((exp + 1).saturating_sub(now()))).await;
    let (status, challenge) = call_with(&resource, &first.access_token, "read_note").await;
    assert_eq!(status, 401, "an expired token is refused");
    assert!(
        challenge.contains("error=\"invalid_token\"") && challenge.contains("expired"),
        "{challenge}"
    );
    let read = session.call_tool("read_note", None).await.unwrap();
    assert_eq!(read.text_content(), "alice reads");
    let second = access_token(&store);
    assert_ne!(second.access_token, first.access_token);
    assert_ne!(
        second.refresh_token, first.refresh_token,
        "refresh tokens rotate"
    );
    assert!(
        authorization_server.granted("refresh_token").await > refreshed_before,
        "the new token came from the refresh token"
    );
    assert_eq!(
        browser.prompts().len(),
        1,
        "no new authorization for a refresh"
    );

    // ----- step-up: write_note needs mcp:write -----
    let current = access_token(&store);
    let (status, challenge) = call_with(&resource, &current.access_token, "write_note").await;
    assert_eq!(status, 403, "{challenge}");
    assert!(
        challenge.contains("error=\"insufficient_scope\"")
            && challenge.contains("scope=\"mcp:write\"")
            && challenge.contains("resource_metadata=\"http://"),
        "the 403 names the scope and the resource metadata: {challenge}"
    );
    let write = session.call_tool("write_note", None).await.unwrap();
    assert_eq!(write.text_content(), "alice writes");
    assert_eq!(
        browser.prompts(),
        [vec!["login", "consent"], vec!["consent"]],
        "signed in already: the step-up asks only for consent to the new scope"
    );
    let log = authorization_server.log().await;
    let authorizations = log["authorizations"].as_array().unwrap();
    assert_eq!(authorizations.len(), 2, "{log:#}");
    assert_eq!(
        scopes(authorizations[1]["scope"].as_str().unwrap()),
        scopes("mcp:read offline_access mcp:write"),
        "the union of the scopes asked before and the challenged one"
    );
    let stepped_up = access_token(&store);
    assert_eq!(
        scopes(
            jwt_part(&stepped_up.access_token, 1)["scope"]
                .as_str()
                .unwrap()
        ),
        scopes("mcp:read mcp:write")
    );
    let read = session.call_tool("read_note", None).await.unwrap();
    assert_eq!(read.text_content(), "alice reads");
    session.close().await;
    drop(client);

    // ----- a 401 on a token the client did not know was expired: refresh, then retry -----
    // The stored token is replaced by the first one (expired) with its expiry unknown, as
    // from a server that does not send `expires_in`: the client sends it, is refused, and
    // refreshes. It has no agent: a new authorization would fail.
    let mut record = store.load(&key).unwrap().expect("a record");
    let tokens = record.tokens.as_mut().unwrap();
    tokens.access_token = first.access_token.clone();
    tokens.expires_at = None;
    store.save(&key, &record).unwrap();
    let refreshed_before = authorization_server.granted("refresh_token").await;
    let client = manager(&resource, &store, None);
    let session = client
        .open(SERVER)
        .await
        .expect("connect, refreshing the refused token");
    assert!(
        authorization_server.granted("refresh_token").await > refreshed_before,
        "the refused token was refreshed"
    );
    assert_ne!(access_token(&store).access_token, first.access_token);
    let write = session.call_tool("write_note", None).await.unwrap();
    assert_eq!(write.text_content(), "alice writes");
    let log = authorization_server.log().await;
    assert_eq!(
        log["authorizations"].as_array().unwrap().len(),
        2,
        "no new authorization: {log:#}"
    );
    session.close().await;
    drop(client);

    // ----- logout: the record is gone; without an agent, LoginRequired -----
    assert!(store.remove(&key).unwrap());
    let client = manager(&resource, &store, None);
    let error = client
        .open(SERVER)
        .await
        .expect_err("no tokens and no agent: the connection fails");
    assert!(
        matches!(error.auth_error(), Some(AuthError::LoginRequired { .. })),
        "{error:?}"
    );
    drop(client);

    // With the agent, the client authorizes again from scratch (a new registration: the old
    // one was forgotten with the record).
    let client = manager(&resource, &store, Some(&browser));
    let session = client.open(SERVER).await.expect("authorized again");
    let read = session.call_tool("read_note", None).await.unwrap();
    assert_eq!(read.text_content(), "alice reads");
    let log = authorization_server.log().await;
    assert_eq!(log["registrations"].as_array().unwrap().len(), 2, "{log:#}");
    assert_eq!(browser.prompts().len(), 3);
    session.close().await;
}
