//! Authentication of HTTP and WebSocket clients, and authorization by scope.
//!
//! An [`Authenticator`] (set in `HttpOptions::auth`) looks at each HTTP request's headers
//! before any JSON-RPC is read and yields a [`Principal`] — who is asking and with which
//! scopes — or an [`AuthError`], answered `401 Unauthorized` with the `WWW-Authenticate`
//! challenge of RFC 6750 (pointing at the RFC 9728 protected-resource metadata when
//! configured). A stateful session belongs to the principal that initialized it: requests
//! presenting another one are refused (`403`). [`StaticTokens`] maps bearer tokens or API keys
//! from configuration to principals.
//!
//! [`RequireScopes`](crate::middleware::RequireScopes) is the matching authorization
//! middleware: per-method and per-tool scope requirements, refused with `-32013` and, over
//! HTTP, `403` with `error="insufficient_scope"`.

use std::collections::{BTreeSet, HashMap};
#[cfg(feature = "http")]
use std::sync::Arc;

/// Who is asking.
///
/// A subject is only unique within the authority that vouches for it: the same `sub` from two
/// token issuers, or a JWT `sub` equal to a static token's name, are different principals.
/// Sessions belong to, and rate limits count per, the pair ([`Principal::key`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Principal {
    /// Who vouches for the subject: [`StaticTokens::ISSUER`] for static tokens and API keys,
    /// the `iss` of a JWT access token, whatever a custom [`Authenticator`] sets (empty by
    /// default).
    pub issuer: String,
    /// A stable identifier within the issuer (a token's `sub`, an API key's name).
    pub subject: String,
    /// The scopes granted.
    pub scopes: BTreeSet<String>,
}

impl Principal {
    /// A principal with these scopes (no issuer: the authenticator that returns it sets one).
    pub fn new<I, S>(subject: impl Into<String>, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            issuer: String::new(),
            subject: subject.into(),
            scopes: scopes.into_iter().map(Into::into).collect(),
        }
    }

    /// With `issuer` as the authority vouching for the subject.
    pub fn issued_by(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = issuer.into();
        self
    }

    /// The identity, issuer and subject, as one key (what sessions are bound to and rate
    /// limits count by); unambiguous whatever characters either holds.
    pub fn key(&self) -> String {
        format!("{}:{}{}", self.issuer.len(), self.issuer, self.subject)
    }

    /// Whether `other` is the same identity (issuer and subject; scopes may differ).
    pub fn same_identity(&self, other: &Principal) -> bool {
        self.issuer == other.issuer && self.subject == other.subject
    }

    /// True when every scope of `required` was granted.
    pub fn has_scopes(&self, required: &[String]) -> bool {
        required.iter().all(|s| self.scopes.contains(s))
    }
}

/// Why a request was not authenticated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    /// No credentials were presented (`401` with a bare `Bearer` challenge).
    #[error("authentication required: send Authorization: Bearer <token>")]
    Missing,
    /// The credentials are wrong, expired or not for this server (`401`,
    /// `error="invalid_token"`).
    #[error("invalid token: {0}")]
    Invalid(String),
}

/// What an [`Authenticator`] returns.
pub type AuthFuture<'a> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<Principal, AuthError>> + Send + 'a>>;

/// Authenticates HTTP requests from their headers.
#[cfg(feature = "http")]
pub trait Authenticator: Send + Sync + 'static {
    /// The principal the headers prove, or why not.
    fn authenticate<'a>(&'a self, headers: &'a axum::http::HeaderMap) -> AuthFuture<'a>;
}

#[cfg(feature = "http")]
/// Bearer tokens (`Authorization: Bearer …`) or API keys (`X-API-Key: …`) from configuration,
/// each standing for a principal. Tokens are compared in constant time.
#[derive(Clone, Default)]
pub struct StaticTokens {
    tokens: Arc<HashMap<String, Principal>>,
}

#[cfg(feature = "http")]
impl std::fmt::Debug for StaticTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the tokens.
        f.debug_struct("StaticTokens")
            .field("count", &self.tokens.len())
            .finish()
    }
}

#[cfg(feature = "http")]
impl StaticTokens {
    /// No tokens yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The issuer of the principals static tokens stand for.
    pub const ISSUER: &'static str = "static-token";

    /// Accepts `token` as `principal` (its issuer becomes [`StaticTokens::ISSUER`]).
    pub fn token(mut self, token: impl Into<String>, principal: Principal) -> Self {
        Arc::make_mut(&mut self.tokens).insert(token.into(), principal.issued_by(Self::ISSUER));
        self
    }

    fn find(&self, presented: &str) -> Option<&Principal> {
        // Compare with every token, always all bytes, so timing tells nothing.
        let mut found = None;
        for (token, principal) in self.tokens.iter() {
            if constant_time_eq(token.as_bytes(), presented.as_bytes()) {
                found = Some(principal);
            }
        }
        found
    }
}

#[cfg(feature = "http")]
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The bearer token of an `Authorization` header, if any.
#[cfg(feature = "http")]
pub fn bearer_token(headers: &axum::http::HeaderMap) -> Option<&str> {
    let value = headers
        .get(axum::http::header::AUTHORIZATION)?
        .to_str()
        .ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

#[cfg(feature = "http")]
impl Authenticator for StaticTokens {
    fn authenticate<'a>(&'a self, headers: &'a axum::http::HeaderMap) -> AuthFuture<'a> {
        let presented = bearer_token(headers)
            .or_else(|| headers.get("x-api-key").and_then(|v| v.to_str().ok()))
            .map(str::to_owned);
        let outcome = match presented {
            None => Err(AuthError::Missing),
            Some(t) => self.find(&t).cloned().ok_or_else(|| {
                AuthError::Invalid("the token is not one this server accepts".into())
            }),
        };
        Box::pin(async move { outcome })
    }
}

/// Tries authenticators in turn: the first that accepts the request wins; when none does,
/// the answer is "missing" if no credentials were seen, else the last refusal.
#[cfg(feature = "http")]
#[derive(Clone, Default)]
pub struct AnyOf(pub Vec<Arc<dyn Authenticator>>);

#[cfg(feature = "http")]
impl std::fmt::Debug for AnyOf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AnyOf({} authenticators)", self.0.len())
    }
}

#[cfg(feature = "http")]
impl Authenticator for AnyOf {
    fn authenticate<'a>(&'a self, headers: &'a axum::http::HeaderMap) -> AuthFuture<'a> {
        Box::pin(async move {
            let mut refusal = AuthError::Missing;
            for auth in &self.0 {
                match auth.authenticate(headers).await {
                    Ok(principal) => return Ok(principal),
                    Err(AuthError::Missing) => {}
                    Err(e) => refusal = e,
                }
            }
            Err(refusal)
        })
    }
}

#[cfg(feature = "oauth")]
mod oauth;
#[cfg(feature = "oauth")]
pub use oauth::JwtAuthenticator;
