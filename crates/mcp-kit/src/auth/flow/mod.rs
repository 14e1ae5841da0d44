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

use mcp_jsonrpc::{AuthChallenge, AuthFuture, AuthOutcome, HttpAuthorizer, PrepareFuture};
use serde_json::{Value, json};
use url::Url;

mod discover;
mod grants;
mod identity;
mod tokens;

use super::agent::AuthorizationAgent;
use super::challenge::BearerChallenge;
use super::discovery::{authorization_server_metadata_urls, protected_resource_metadata_urls};
use super::fetch::Fetcher;
use super::jwt::SigningKey;
use super::metadata::{
    AuthorizationServerMetadata, ProtectedResourceMetadata, initial_scopes, step_up_scopes,
};
use super::now;
use super::pkce::{Pkce, random_token};
use super::store::{ClientRegistration, StoreKey, StoredAuth, TokenSet};
use super::{AuthError, Grant, OAuthOptions, PreRegisteredClient};
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
    dpop: parking_lot::Mutex<Dpop>,
    /// One authorization at a time: the requests refused meanwhile wait for its token.
    busy: tokio::sync::Mutex<()>,
}

/// Proof of possession (RFC 9449): the key tokens are bound to, and the servers' nonces.
#[derive(Default)]
struct Dpop {
    /// Whether token requests carry proofs (the server and its authorization server both
    /// take DPoP).
    active: bool,
    key: Option<SigningKey>,
    /// The authorization server's nonce (§8).
    as_nonce: Option<String>,
    /// The MCP server's nonce (§9).
    rs_nonce: Option<String>,
}

/// What an authorization is asked for.
#[derive(Default)]
struct Request {
    /// The scopes: the step-up union, or the challenged ones of a first authorization.
    scopes: Option<Vec<String>>,
    /// Whether `scopes` are a step-up's (else they are completed from the metadata).
    step_up: bool,
    /// The challenge's `resource_metadata`.
    resource_metadata: Option<String>,
    /// Whether the server challenged with the DPoP scheme.
    offers_dpop: bool,
    /// The agent to use instead of the options' (logging in).
    agent: Option<Arc<dyn AuthorizationAgent>>,
}

#[derive(Default)]
struct State {
    record: Option<StoredAuth>,
    /// The scopes of the last authorization request.
    requested: Option<Vec<String>>,
    /// When the tokens in use were obtained (a request sent before was sent with others).
    obtained_at: Option<std::time::Instant>,
    step_ups: usize,
}

/// What a grant brought: the tokens, the client that got them, where they came from.
struct Obtained {
    tokens: TokenSet,
    client: Option<ClientRegistration>,
    token_endpoint: Url,
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
        let key_of = |record: &StoredAuth| {
            let stored = record.dpop_key.as_deref()?;
            SigningKey::from_stored(stored)
                .inspect_err(
                    |e| tracing::warn!(server, error = %e, "the stored DPoP key is unusable"),
                )
                .ok()
        };
        // Tokens stored with a key are bound to it: proofs go with them.
        let dpop_key = record.as_ref().and_then(key_of);
        let dpop = Dpop {
            active: dpop_key.is_some(),
            key: dpop_key,
            ..Dpop::default()
        };
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
                dpop: parking_lot::Mutex::new(dpop),
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
    /// well-known URLs, then the configured grant; the tokens are stored.
    ///
    /// # Errors
    ///
    /// Why authorization failed.
    pub async fn login(&self) -> Result<TokenSet, AuthError> {
        let _busy = self.inner.busy.lock().await;
        self.inner.authorize(Request::default()).await
    }

    /// [`login`](Self::login) with `agent` asking the person, whatever agent the options
    /// have (a CLI's `login` command, when other commands run without one).
    ///
    /// # Errors
    ///
    /// Why authorization failed.
    pub async fn login_with(
        &self,
        agent: Arc<dyn AuthorizationAgent>,
    ) -> Result<TokenSet, AuthError> {
        let _busy = self.inner.busy.lock().await;
        self.inner
            .authorize(Request {
                agent: Some(agent),
                ..Request::default()
            })
            .await
    }

    /// Forgets the tokens and registration of this server, in memory and in the store;
    /// `false` when there were none. The next request needs a new authorization.
    ///
    /// # Errors
    ///
    /// The store cannot be written.
    pub fn logout(&self) -> Result<bool, AuthError> {
        let held = self.inner.state.lock().record.take().is_some();
        let stored = self
            .inner
            .options
            .store
            .remove(&self.inner.key)
            .map_err(|e| AuthError::Store {
                server: self.inner.server(),
                message: e.to_string(),
            })?;
        let mut dpop = self.inner.dpop.lock();
        *dpop = Dpop::default();
        Ok(held || stored)
    }
}

impl HttpAuthorizer for OAuth {
    fn headers(&self, method: &str, url: &str) -> Vec<(String, String)> {
        // The transport sends to this server's endpoint only: the token's own resource.
        let state = self.inner.state.lock();
        let Some(tokens) = state.record.as_ref().and_then(|r| r.tokens.as_ref()) else {
            return Vec::new();
        };
        if tokens.token_type.eq_ignore_ascii_case("DPoP") {
            let dpop = self.inner.dpop.lock();
            if let Some(key) = &dpop.key {
                match key.dpop_proof(
                    method,
                    url,
                    Some(&tokens.access_token),
                    dpop.rs_nonce.as_deref(),
                ) {
                    Ok(proof) => {
                        return vec![
                            (
                                "Authorization".to_owned(),
                                format!("DPoP {}", tokens.access_token),
                            ),
                            ("DPoP".to_owned(), proof),
                        ];
                    }
                    Err(e) => {
                        tracing::warn!(server = %self.inner.key.server, error = %e, "cannot make a DPoP proof");
                    }
                }
            }
        }
        vec![(
            "Authorization".to_owned(),
            format!("Bearer {}", tokens.access_token),
        )]
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
        let _busy = self.busy.lock().await;
        if self
            .state
            .lock()
            .obtained_at
            .is_some_and(|at| at > challenge.sent_at)
        {
            // The tokens changed since the request was sent (another request authorized or
            // refreshed): it is to be tried with them.
            return Ok(AuthOutcome::Retry);
        }
        let refused_token = self.access_token();
        let bearer =
            BearerChallenge::from_headers(challenge.www_authenticate.iter().map(String::as_str));
        if challenge.status == 401
            && let Some(nonce) = &challenge.dpop_nonce
            && bearer
                .as_ref()
                .is_some_and(|b| b.error.as_deref() == Some("use_dpop_nonce"))
        {
            // RFC 9449 §9: the server wants its nonce in the proof; not a reason to
            // authorize again. A nonce it refuses again is its refusal.
            let mut dpop = self.dpop.lock();
            if dpop.rs_nonce.as_ref() == Some(nonce) {
                return Ok(AuthOutcome::Report);
            }
            dpop.rs_nonce = Some(nonce.clone());
            return Ok(AuthOutcome::Retry);
        }
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
            let already_granted = challenged.iter().all(|s| granted.contains(s));
            if already_granted || step_ups >= MAX_STEP_UPS {
                return Err(AuthError::ScopeNotGranted {
                    server: self.server(),
                    scopes: challenged.join(" "),
                });
            }
            self.state.lock().step_ups += 1;
            self.authorize(Request {
                scopes: Some(step_up_scopes(&previous, &challenged)),
                step_up: true,
                resource_metadata: bearer.resource_metadata.clone(),
                offers_dpop: bearer.offers_dpop,
                agent: None,
            })
            .await?;
            return Ok(AuthOutcome::Retry);
        }
        let bearer = bearer.unwrap_or_default();
        if refused_token.is_some() && self.refresh().await? {
            return Ok(AuthOutcome::Retry);
        }
        self.authorize(Request {
            scopes: bearer.scope.clone(),
            step_up: false,
            resource_metadata: bearer.resource_metadata.clone(),
            offers_dpop: bearer.offers_dpop,
            agent: None,
        })
        .await?;
        Ok(AuthOutcome::Retry)
    }

    /// Obtains tokens with the configured grant, and keeps them.
    async fn authorize(&self, request: Request) -> Result<TokenSet, AuthError> {
        let found = self.discover(request.resource_metadata.as_deref()).await?;
        self.arm_dpop(&found, request.offers_dpop)?;
        let mut scopes = match (&self.options.scopes, request.step_up) {
            (_, true) => request.scopes,
            (Some(configured), false) => Some(step_up_scopes(
                configured,
                request.scopes.as_deref().unwrap_or_default(),
            )),
            (None, false) => initial_scopes(request.scopes.as_deref(), &found.resource),
        };
        // A person's authorization may ask to last (refresh tokens), where the server offers it.
        if matches!(self.options.grant, Grant::AuthorizationCode)
            && let Some(scopes) = scopes.as_mut()
            && found.server.offers_offline_access()
            && !scopes.iter().any(|s| s == "offline_access")
        {
            scopes.push("offline_access".to_owned());
        }
        let obtained = self.grant(&found, scopes.as_deref(), request.agent).await?;
        let Obtained {
            tokens,
            mut client,
            token_endpoint,
        } = obtained;
        if let Some(client) = client.as_mut()
            && self.configured(&client.client_id).is_some()
        {
            // The configuration keeps a configured client's secret.
            client.client_secret = None;
        }
        let dpop_key = {
            let dpop = self.dpop.lock();
            dpop.key
                .as_ref()
                .filter(|_| tokens.token_type.eq_ignore_ascii_case("DPoP"))
                .map(SigningKey::to_stored)
        };
        self.save(StoredAuth {
            issuer: found.issuer.clone(),
            resource: found.resource.resource.clone(),
            token_endpoint: Some(token_endpoint.to_string()),
            client,
            tokens: Some(tokens.clone()),
            dpop_key,
        })?;
        self.state.lock().requested = scopes;
        Ok(tokens)
    }

    /// The agent that asks the person: `given` (logging in), else the options'; on the
    /// configured redirect port.
    fn agent(
        &self,
        given: Option<Arc<dyn AuthorizationAgent>>,
    ) -> Option<Arc<dyn AuthorizationAgent>> {
        let agent = given.or_else(|| self.options.agent.clone())?;
        Some(
            self.options
                .redirect_port
                .and_then(|port| agent.on_port(port))
                .unwrap_or(agent),
        )
    }

    /// Turns DPoP on for the token requests to come when the server challenged with it, its
    /// authorization server takes ES256 proofs, and the options allow it; a key is made once.
    fn arm_dpop(&self, found: &Discovered, offered: bool) -> Result<(), AuthError> {
        let mut dpop = self.dpop.lock();
        dpop.active = self.options.dpop && offered && found.server.accepts_dpop("ES256");
        if dpop.active && dpop.key.is_none() {
            dpop.key = Some(SigningKey::generate().map_err(|message| AuthError::Agent {
                server: self.server(),
                message,
            })?);
        }
        Ok(())
    }

    /// The authorization code flow: a person authorizes through the agent.
    async fn code_grant(
        &self,
        found: &Discovered,
        scopes: Option<&[String]>,
        agent: Option<Arc<dyn AuthorizationAgent>>,
    ) -> Result<Obtained, AuthError> {
        let agent = agent.ok_or_else(|| AuthError::LoginRequired {
            server: self.server(),
        })?;
        let client = self.client_identity(found, agent.as_ref()).await?;
        let code = self
            .authorization_code(found, &client, agent.as_ref(), scopes)
            .await?;
        let token_endpoint = self.endpoint(found, "token_endpoint").await?;
        let form = vec![
            ("grant_type", "authorization_code".to_owned()),
            ("code", code.code),
            ("redirect_uri", client.redirect_uri.clone()),
            ("code_verifier", code.verifier),
            ("resource", found.resource.resource.clone()),
        ];
        self.obtain(token_endpoint, Some(client), form, scopes)
            .await
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
        let mut state = self.state.lock();
        state.record = Some(record);
        state.obtained_at = Some(std::time::Instant::now());
        Ok(())
    }
}

/// Whether `tokens` expire within the margin (or have expired): [`EXPIRY_MARGIN_SECS`], or
/// half the token's life when that is shorter (a token of a few seconds is not refreshed
/// before every request).
fn expiring(tokens: &TokenSet) -> bool {
    let Some(at) = tokens.expires_at else {
        return false;
    };
    let margin = match tokens.issued_at {
        Some(issued) => EXPIRY_MARGIN_SECS.min(at.saturating_sub(issued) / 2),
        None => EXPIRY_MARGIN_SECS,
    };
    at <= now() + margin
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(issued_ago: u64, lives: u64) -> TokenSet {
        let issued = now() - issued_ago;
        TokenSet {
            access_token: "a".into(),
            token_type: "Bearer".into(),
            refresh_token: Some("r".into()),
            expires_at: Some(issued + lives),
            issued_at: Some(issued),
            scopes: Vec::new(),
        }
    }

    #[test]
    fn a_token_is_refreshed_30_s_before_expiry_or_at_half_its_life_when_shorter() {
        // An hour-long token: 30 s before its end, not before.
        assert!(!expiring(&tokens(3000, 3600)));
        assert!(expiring(&tokens(3580, 3600)));
        // A 10 s token: after 5 s, not at once (not before every request).
        assert!(!expiring(&tokens(0, 10)));
        assert!(expiring(&tokens(6, 10)));
        // Without an issue time, the fixed margin.
        let mut unknown = tokens(0, 20);
        unknown.issued_at = None;
        assert!(expiring(&unknown));
    }
}
