//! The authorizer of one server's connection ([`OAuth`]): it answers the server's 401 and
//! 403 with the MCP authorization flow, keeps the tokens, and puts them on every request.
//!
//! On a 401: refresh the token when there is a refresh token; else authorize from scratch.
//! Authorizing is discovery (protected resource metadata, then the authorization server's,
//! both checked), a client identity (pre-registered, client ID metadata document, stored or
//! new dynamic registration), the authorization code with PKCE through the
//! [`AuthorizationAgent`], the checks of the response (`state`, `iss`), and the code
//! exchange. On a 403 `insufficient_scope`: authorize again with the union of the scopes
//! asked for before and the challenged ones, unless those were granted already.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use mcp_jsonrpc::{AuthChallenge, AuthFuture, AuthOutcome, HttpAuthorizer, PrepareFuture};
use serde_json::{Value, json};
use url::Url;

mod discover;
mod identity;
mod tokens;

use super::agent::AuthorizationAgent;
use super::challenge::BearerChallenge;
use super::discovery::{authorization_server_metadata_urls, protected_resource_metadata_urls};
use super::fetch::Fetcher;
use super::metadata::{
    AuthorizationServerMetadata, MetadataError, ProtectedResourceMetadata, initial_scopes,
    step_up_scopes,
};
use super::pkce::{Pkce, random_token};
use super::store::{ClientRegistration, StoreKey, StoredAuth, TokenSet};
use super::{AuthError, OAuthOptions, PreRegisteredClient};
use crate::security::{TrustMode, UntrustedStreamableHttpPolicy};

/// Step-up authorizations one connection makes before a scope refusal is final.
pub const MAX_STEP_UPS: usize = 2;

/// A token that expires within this many seconds is refreshed before it is sent.
const EXPIRY_MARGIN_SECS: u64 = 30;

/// The authorizer of one server ([`HttpAuthorizer`] of its HTTP connection).
#[derive(Clone)]
pub struct OAuth {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for OAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuth")
            .field("server", &self.inner.key.server)
            .finish_non_exhaustive()
    }
}

struct Inner {
    key: StoreKey,
    server_url: Url,
    fetcher: Fetcher,
    options: OAuthOptions,
    state: parking_lot::Mutex<State>,
    /// One authorization at a time: the requests refused meanwhile wait for its token.
    busy: tokio::sync::Mutex<()>,
}

#[derive(Default)]
struct State {
    record: Option<StoredAuth>,
    /// The scopes of the last authorization request.
    requested: Option<Vec<String>>,
    step_ups: usize,
}

/// Where the flow stands after discovery.
struct Discovered {
    resource: ProtectedResourceMetadata,
    issuer: String,
    server: AuthorizationServerMetadata,
}

impl OAuth {
    /// The authorizer of `server` at `url` (its MCP endpoint), with the tokens `options.store`
    /// holds for it. URLs of the flow go through the trust policy of `trust`.
    ///
    /// # Errors
    ///
    /// `url` is not a URL, or the store cannot be read.
    pub fn new(
        server: &str,
        url: &str,
        trust: TrustMode,
        policy: UntrustedStreamableHttpPolicy,
        options: OAuthOptions,
    ) -> Result<Self, AuthError> {
        let server_url = Url::parse(url).map_err(|_| AuthError::BadUrl {
            server: server.to_owned(),
            field: "url",
            url: mcp_jsonrpc::redact_url(url),
        })?;
        let key = StoreKey::new(server, url);
        let record = options.store.load(&key).map_err(|e| AuthError::Store {
            server: server.to_owned(),
            message: e.to_string(),
        })?;
        Ok(Self {
            inner: Arc::new(Inner {
                fetcher: Fetcher::new(server, trust, policy)?,
                key,
                server_url,
                options,
                state: parking_lot::Mutex::new(State {
                    record,
                    ..State::default()
                }),
                busy: tokio::sync::Mutex::new(()),
            }),
        })
    }

    /// The tokens in use, if any (for status displays; never log the token).
    pub fn tokens(&self) -> Option<TokenSet> {
        self.inner.state.lock().record.as_ref()?.tokens.clone()
    }

    /// The record in use: issuer, resource, registration and tokens.
    pub fn record(&self) -> Option<StoredAuth> {
        self.inner.state.lock().record.clone()
    }

    /// Authorizes now, whatever tokens are held (logging in): discovery from the server's
    /// well-known URLs, then the code flow.
    ///
    /// # Errors
    ///
    /// Why authorization failed.
    pub async fn login(&self) -> Result<TokenSet, AuthError> {
        let _busy = self.inner.busy.lock().await;
        self.inner.authorize(None, None).await
    }
}

impl HttpAuthorizer for OAuth {
    fn headers(&self, _method: &str, _url: &str) -> Vec<(String, String)> {
        // The transport sends to this server's endpoint only: the token's own resource.
        let state = self.inner.state.lock();
        match state.record.as_ref().and_then(|r| r.tokens.as_ref()) {
            Some(tokens) => vec![(
                "Authorization".to_owned(),
                format!("Bearer {}", tokens.access_token),
            )],
            None => Vec::new(),
        }
    }

    fn challenged<'a>(&'a self, challenge: &'a AuthChallenge) -> AuthFuture<'a> {
        Box::pin(async move {
            self.inner.challenged(challenge).await.map_err(|e| {
                tracing::info!(server = %self.inner.key.server, error = %e, "authorization failed");
                mcp_jsonrpc::Error::Unauthorized(Arc::new(e))
            })
        })
    }

    fn prepare(&self) -> Option<PrepareFuture<'_>> {
        if !self.inner.refresh_due() {
            return None;
        }
        Some(Box::pin(async move {
            let _busy = self.inner.busy.lock().await;
            if self.inner.refresh_due()
                && let Err(e) = self.inner.refresh().await
            {
                tracing::info!(server = %self.inner.key.server, error = %e, "refreshing the token before it expires failed");
            }
        }))
    }
}

impl Inner {
    fn server(&self) -> String {
        self.key.server.clone()
    }

    /// Whether the token is about to expire and can be refreshed.
    fn refresh_due(&self) -> bool {
        let state = self.state.lock();
        state
            .record
            .as_ref()
            .and_then(|r| r.tokens.as_ref())
            .is_some_and(|t| t.refresh_token.is_some() && expiring(t))
    }

    fn access_token(&self) -> Option<String> {
        let state = self.state.lock();
        Some(state.record.as_ref()?.tokens.as_ref()?.access_token.clone())
    }

    async fn challenged(&self, challenge: &AuthChallenge) -> Result<AuthOutcome, AuthError> {
        let refused_token = self.access_token();
        let _busy = self.busy.lock().await;
        if self.access_token() != refused_token {
            // Another request authorized while this one waited: its token is to be tried.
            return Ok(AuthOutcome::Retry);
        }
        let bearer =
            BearerChallenge::from_headers(challenge.www_authenticate.iter().map(String::as_str));
        if challenge.status == 403 {
            let Some(bearer) = bearer.filter(BearerChallenge::is_insufficient_scope) else {
                // A 403 for another reason (a bad Origin, a policy): not for OAuth to answer.
                return Ok(AuthOutcome::Report);
            };
            let challenged = bearer.scope.clone().unwrap_or_default();
            let (granted, previous, step_ups) = {
                let state = self.state.lock();
                let granted = state
                    .record
                    .as_ref()
                    .and_then(|r| r.tokens.as_ref())
                    .map(|t| t.scopes.clone())
                    .unwrap_or_default();
                (
                    granted,
                    state.requested.clone().unwrap_or_default(),
                    state.step_ups,
                )
            };
            let new: Vec<&String> = challenged.iter().filter(|s| !granted.contains(s)).collect();
            if new.is_empty() || step_ups >= MAX_STEP_UPS {
                return Err(AuthError::ScopeNotGranted {
                    server: self.server(),
                    scopes: challenged.join(" "),
                });
            }
            self.state.lock().step_ups += 1;
            let scopes = step_up_scopes(&previous, &challenged);
            self.authorize(Some(scopes), bearer.resource_metadata.as_deref())
                .await?;
            return Ok(AuthOutcome::Retry);
        }
        let bearer = bearer.unwrap_or_default();
        if refused_token.is_some() && self.refresh().await? {
            return Ok(AuthOutcome::Retry);
        }
        let scopes = bearer.scope.clone();
        self.authorize_initial(scopes, bearer.resource_metadata.as_deref())
            .await?;
        Ok(AuthOutcome::Retry)
    }

    /// A first authorization: the challenged scopes, else the resource's.
    async fn authorize_initial(
        &self,
        challenged: Option<Vec<String>>,
        resource_metadata: Option<&str>,
    ) -> Result<TokenSet, AuthError> {
        self.authorize_with(challenged, resource_metadata, false)
            .await
    }

    /// Authorizes with `scopes` (a step-up), or the initial selection when `None`.
    async fn authorize(
        &self,
        scopes: Option<Vec<String>>,
        resource_metadata: Option<&str>,
    ) -> Result<TokenSet, AuthError> {
        let step_up = scopes.is_some();
        self.authorize_with(scopes, resource_metadata, step_up)
            .await
    }

    async fn authorize_with(
        &self,
        scopes: Option<Vec<String>>,
        resource_metadata: Option<&str>,
        step_up: bool,
    ) -> Result<TokenSet, AuthError> {
        let found = self.discover(resource_metadata).await?;
        let agent = self
            .options
            .agent
            .clone()
            .ok_or_else(|| AuthError::LoginRequired {
                server: self.server(),
            })?;
        let mut scopes = if step_up {
            scopes
        } else {
            initial_scopes(scopes.as_deref(), &found.resource)
        };
        if let Some(scopes) = scopes.as_mut()
            && found.server.offers_offline_access()
            && !scopes.iter().any(|s| s == "offline_access")
        {
            scopes.push("offline_access".to_owned());
        }
        let client = self.client_identity(&found, agent.as_ref()).await?;
        let code = self
            .authorization_code(&found, &client, agent.as_ref(), scopes.as_deref())
            .await?;
        let token_endpoint = self.endpoint(&found, "token_endpoint").await?;
        let form = vec![
            ("grant_type", "authorization_code".to_owned()),
            ("code", code.code),
            ("redirect_uri", client.redirect_uri.clone()),
            ("code_verifier", code.verifier),
            ("resource", found.resource.resource.clone()),
        ];
        let tokens = self
            .token_request(&token_endpoint, &client, form, scopes.as_deref())
            .await?;
        let mut client = client;
        if self.configured(&client.client_id).is_some() {
            // The configuration keeps a configured client's secret.
            client.client_secret = None;
        }
        let record = StoredAuth {
            issuer: found.issuer.clone(),
            resource: found.resource.resource.clone(),
            token_endpoint: Some(token_endpoint.to_string()),
            client: Some(client),
            tokens: Some(tokens.clone()),
        };
        self.save(record)?;
        self.state.lock().requested = scopes;
        Ok(tokens)
    }

    /// The configured client with this id.
    fn configured(&self, client_id: &str) -> Option<&PreRegisteredClient> {
        self.options
            .clients
            .iter()
            .find(|c| c.client_id == client_id)
    }

    fn save(&self, record: StoredAuth) -> Result<(), AuthError> {
        self.options
            .store
            .save(&self.key, &record)
            .map_err(|e| AuthError::Store {
                server: self.server(),
                message: e.to_string(),
            })?;
        self.state.lock().record = Some(record);
        Ok(())
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default()
}

/// Whether `tokens` expire within the margin (or have expired).
fn expiring(tokens: &TokenSet) -> bool {
    tokens
        .expires_at
        .is_some_and(|at| at <= now() + EXPIRY_MARGIN_SECS)
}
