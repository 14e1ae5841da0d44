//! An OAuth 2.1 resource server: JWT access tokens checked against the authorization
//! server's JWKS.

use std::collections::BTreeSet;
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation, decode, decode_header};
use serde::Deserialize;

use super::{AuthError, AuthFuture, Authenticator, Principal, bearer_token};

/// Validates JWT access tokens (RFC 9068 style) as an OAuth 2.1 resource server: the
/// signature against a key of the issuer's JWKS (fetched from `jwks_url`, fetched again when
/// a token names a key id it does not know — key rotation — at most once per
/// [`refetch_interval`](JwtAuthenticator::refetch_interval)), the issuer, the audience (this
/// server's resource URI), expiry and not-before (with a small leeway). The principal's
/// subject is `sub`; its scopes come from `scope` (space-separated) or `scp` (a list).
///
/// Failures are `401` with `error="invalid_token"` and a description saying which check
/// failed (expired, wrong audience, wrong issuer, bad signature, unknown key).
pub struct JwtAuthenticator {
    issuer: String,
    audience: String,
    jwks_url: String,
    algorithms: Vec<Algorithm>,
    leeway: Duration,
    refetch_interval: Duration,
    client: reqwest::Client,
    keys: RwLock<Arc<JwkSet>>,
    last_fetch: Mutex<Option<Instant>>,
    fetching: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for JwtAuthenticator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtAuthenticator")
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .field("jwks_url", &self.jwks_url)
            .finish_non_exhaustive()
    }
}

#[derive(Deserialize)]
struct Claims {
    sub: Option<String>,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    scp: Option<Vec<String>>,
}

impl JwtAuthenticator {
    /// Tokens from `issuer` for `audience` (this server's resource URI), signed with keys of
    /// the JWKS at `jwks_url`. Accepts ES256, ES384, RS256, RS384, RS512, PS256 and EdDSA.
    pub fn new(
        issuer: impl Into<String>,
        audience: impl Into<String>,
        jwks_url: impl Into<String>,
    ) -> Self {
        Self {
            issuer: issuer.into(),
            audience: audience.into(),
            jwks_url: jwks_url.into(),
            algorithms: vec![
                Algorithm::ES256,
                Algorithm::ES384,
                Algorithm::RS256,
                Algorithm::RS384,
                Algorithm::RS512,
                Algorithm::PS256,
                Algorithm::EdDSA,
            ],
            leeway: Duration::from_secs(30),
            refetch_interval: Duration::from_secs(30),
            client: reqwest::Client::builder()
                .timeout(Duration::from_secs(10))
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("a TLS-capable HTTP client"),
            keys: RwLock::new(Arc::new(JwkSet { keys: Vec::new() })),
            last_fetch: Mutex::new(None),
            fetching: tokio::sync::Mutex::new(()),
        }
    }

    /// Clock skew tolerated on `exp` and `nbf` (default 30 s).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// The shortest time between two JWKS fetches triggered by unknown key ids (default
    /// 30 s), so that tokens with made-up key ids cannot make the server hammer the issuer.
    pub fn refetch_interval(mut self, interval: Duration) -> Self {
        self.refetch_interval = interval;
        self
    }

    fn cached(&self) -> Arc<JwkSet> {
        self.keys.read().clone()
    }

    /// Fetches the JWKS again unless that happened less than the refetch interval ago.
    async fn refresh(&self) -> Result<(), AuthError> {
        let _one_at_a_time = self.fetching.lock().await;
        {
            let last = self.last_fetch.lock();
            if last.is_some_and(|t| t.elapsed() < self.refetch_interval) {
                return Ok(());
            }
        }
        *self.last_fetch.lock() = Some(Instant::now());
        let set: JwkSet = async {
            self.client
                .get(&self.jwks_url)
                .send()
                .await?
                .error_for_status()?
                .json()
                .await
        }
        .await
        .map_err(|e| {
            tracing::warn!(url = %self.jwks_url, "fetching the JWKS failed: {e}");
            AuthError::Invalid("the issuer's signing keys could not be fetched".into())
        })?;
        *self.keys.write() = Arc::new(set);
        Ok(())
    }

    async fn check(&self, token: &str) -> Result<Principal, AuthError> {
        let header = decode_header(token)
            .map_err(|_| AuthError::Invalid("the token is not a JWT".into()))?;
        if !self.algorithms.contains(&header.alg) {
            return Err(AuthError::Invalid(format!(
                "algorithm {:?} is not accepted",
                header.alg
            )));
        }
        let kid = header.kid.unwrap_or_default();
        let mut keys = self.cached();
        if keys.find(&kid).is_none() {
            self.refresh().await?;
            keys = self.cached();
        }
        let jwk = keys
            .find(&kid)
            .ok_or_else(|| AuthError::Invalid(format!("unknown signing key `{kid}`")))?;
        let key = DecodingKey::from_jwk(jwk)
            .map_err(|e| AuthError::Invalid(format!("unusable signing key `{kid}`: {e}")))?;
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[&self.audience]);
        validation.leeway = self.leeway.as_secs();
        validation.validate_nbf = true;
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        let data = decode::<Claims>(token, &key, &validation).map_err(|e| {
            use jsonwebtoken::errors::ErrorKind as K;
            AuthError::Invalid(
                match e.kind() {
                    K::ExpiredSignature => "the token expired",
                    K::ImmatureSignature => "the token is not valid yet",
                    K::InvalidAudience => "the token is for another audience",
                    K::InvalidIssuer => "the token is from another issuer",
                    K::InvalidSignature => "the token's signature does not verify",
                    K::MissingRequiredClaim(_) => {
                        "the token lacks a required claim (exp, iss, aud, sub)"
                    }
                    _ => "the token is malformed",
                }
                .to_owned(),
            )
        })?;
        let claims = data.claims;
        let scopes: BTreeSet<String> = match (claims.scope, claims.scp) {
            (Some(s), _) => s.split_whitespace().map(str::to_owned).collect(),
            (None, Some(list)) => list.into_iter().collect(),
            (None, None) => BTreeSet::new(),
        };
        Ok(Principal {
            issuer: self.issuer.clone(),
            subject: claims.sub.unwrap_or_default(),
            scopes,
        })
    }
}

impl Authenticator for JwtAuthenticator {
    fn authenticate<'a>(&'a self, headers: &'a axum::http::HeaderMap) -> AuthFuture<'a> {
        Box::pin(async move {
            match bearer_token(headers) {
                None => Err(AuthError::Missing),
                Some(token) => self.check(token).await,
            }
        })
    }
}
