//! An OAuth 2.1 resource server: JWT access tokens checked against the authorization
//! server's JWKS, given or discovered from the issuer's metadata (RFC 8414, OpenID Connect
//! Discovery).

use std::collections::BTreeSet;
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation, decode, decode_header};
use serde::Deserialize;

use super::{AuthError, AuthFuture, Authenticator, Principal, bearer_token};

/// Validates JWT access tokens (RFC 9068 style) as an OAuth 2.1 resource server: the
/// signature against a key of the issuer's JWKS (fetched when the first token arrives,
/// fetched again when a token names a key id it does not know — key rotation — at most once
/// per [`refetch_interval`](JwtAuthenticator::refetch_interval)), the issuer, the audience
/// (this server's resource URI), expiry and not-before (with a small leeway). The principal's
/// subject is `sub`; its scopes come from `scope` (space-separated) or `scp` (a list).
///
/// Where the JWKS is: [`new`](JwtAuthenticator::new) takes its URL;
/// [`discovering`](JwtAuthenticator::discovering) finds it in the issuer's metadata (see
/// there), lazily: nothing is fetched before the first token, so an authorization server that
/// is down does not keep the resource server from starting.
///
/// Failures are `401` with `error="invalid_token"` and a description saying which check
/// failed (expired, wrong audience, wrong issuer, bad signature, unknown key, the keys or the
/// issuer's metadata could not be fetched).
///
/// ```
/// use std::sync::Arc;
/// use mcp_server::HttpOptions;
/// use mcp_server::auth::JwtAuthenticator;
///
/// let mut options = HttpOptions::default();
/// // The JWKS URL is read from https://auth.example.com/.well-known/oauth-authorization-server
/// // (or the OpenID Connect configuration) when the first token arrives.
/// options.auth = Some(Arc::new(JwtAuthenticator::discovering(
///     "https://auth.example.com",
///     "https://mcp.example.com/mcp",
/// )));
/// ```
pub struct JwtAuthenticator {
    issuer: String,
    audience: String,
    keys_at: KeySource,
    algorithms: Vec<Algorithm>,
    leeway: Duration,
    refetch_interval: Duration,
    client: reqwest::Client,
    keys: RwLock<Arc<JwkSet>>,
    last_fetch: Mutex<Option<Instant>>,
    /// Why the last fetch (or discovery) failed; cleared by a successful one.
    last_failure: Mutex<Option<String>>,
    fetching: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for JwtAuthenticator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtAuthenticator")
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .field("jwks", &self.keys_at)
            .finish_non_exhaustive()
    }
}

/// Where the JWKS is.
#[derive(Debug)]
enum KeySource {
    /// At this URL (configured).
    Fixed(String),
    /// At the `jwks_uri` of the issuer's metadata, once discovered.
    Discovered(Mutex<Option<String>>),
}

/// The largest metadata document or JWKS read (a JWKS of a few dozen keys is a few KiB).
const MAX_DOCUMENT_BYTES: usize = 256 * 1024;

/// The parts of an authorization server's metadata (RFC 8414 §2, OpenID Connect Discovery
/// §3) the resource server reads.
#[derive(Deserialize)]
struct ServerMetadata {
    issuer: Option<String>,
    jwks_uri: Option<String>,
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
        Self::with_keys(
            issuer.into(),
            audience.into(),
            KeySource::Fixed(jwks_url.into()),
        )
    }

    /// Tokens from `issuer` for `audience`, signed with keys of the JWKS that the issuer's
    /// metadata names (`jwks_uri`). The metadata is looked for where MCP clients look for it,
    /// in the same order (see [`metadata_urls`](JwtAuthenticator::metadata_urls)): OAuth 2.0
    /// authorization server metadata (RFC 8414), then OpenID Connect Discovery, the first
    /// document found being the one used. Its `issuer` must be identical, byte for byte, to
    /// `issuer` (RFC 8414 §3.3); a document naming another issuer is refused.
    ///
    /// Discovery happens when the first token arrives, not before: the server starts even if
    /// the authorization server is unreachable. When it fails, the token is refused (`401`,
    /// `invalid_token`, saying why), the failure is logged, and it is tried again for a later
    /// token once the [`refetch_interval`](JwtAuthenticator::refetch_interval) has passed.
    /// Once found, the JWKS URL is kept until fetching the keys from it fails; then the
    /// metadata is read again at the next attempt.
    pub fn discovering(issuer: impl Into<String>, audience: impl Into<String>) -> Self {
        Self::with_keys(
            issuer.into(),
            audience.into(),
            KeySource::Discovered(Mutex::new(None)),
        )
    }

    fn with_keys(issuer: String, audience: String, keys_at: KeySource) -> Self {
        Self {
            issuer,
            audience,
            keys_at,
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
            last_failure: Mutex::new(None),
            fetching: tokio::sync::Mutex::new(()),
        }
    }

    /// The URLs where the metadata of `issuer` is looked for, in order, as MCP clients try
    /// them: for an issuer with a path (`https://auth.example.com/tenant`), RFC 8414 with the
    /// well-known path inserted before the issuer's path
    /// (`/.well-known/oauth-authorization-server/tenant`), OpenID Connect with it inserted
    /// (`/.well-known/openid-configuration/tenant`), then OpenID Connect appended to the path
    /// (`/tenant/.well-known/openid-configuration`); for an issuer without a path, the RFC 8414
    /// then the OpenID Connect document at the root. Empty when `issuer` is not an http(s)
    /// URL.
    pub fn metadata_urls(issuer: &str) -> Vec<String> {
        let Ok(url) = reqwest::Url::parse(issuer) else {
            return Vec::new();
        };
        if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
            return Vec::new();
        }
        mcp_schema::authorization::authorization_server_metadata_urls(
            &url.origin().ascii_serialization(),
            url.path().trim_end_matches('/'),
        )
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

    /// Fetches the JWKS again (discovering where it is first, if that is still to do) unless
    /// that happened less than the refetch interval ago. While a failed attempt is that
    /// recent, its failure is the answer.
    async fn refresh(&self) -> Result<(), AuthError> {
        let _one_at_a_time = self.fetching.lock().await;
        {
            let last = self.last_fetch.lock();
            if last.is_some_and(|t| t.elapsed() < self.refetch_interval) {
                return match self.last_failure.lock().clone() {
                    Some(why) => Err(AuthError::Invalid(why)),
                    None => Ok(()),
                };
            }
        }
        *self.last_fetch.lock() = Some(Instant::now());
        let outcome = async {
            let url = self.jwks_url().await?;
            let set: JwkSet = self.get_json(&url).await.map_err(|e| {
                tracing::warn!(%url, issuer = %self.issuer, "fetching the JWKS failed: {e}");
                if let KeySource::Discovered(discovered) = &self.keys_at {
                    // The issuer may have moved its keys: read its metadata again next time.
                    *discovered.lock() = None;
                }
                format!("the issuer's signing keys could not be fetched from {url}: {e}")
            })?;
            Ok::<_, String>(set)
        }
        .await;
        match outcome {
            Ok(set) => {
                *self.keys.write() = Arc::new(set);
                *self.last_failure.lock() = None;
                Ok(())
            }
            Err(why) => {
                *self.last_failure.lock() = Some(why.clone());
                Err(AuthError::Invalid(why))
            }
        }
    }

    /// The JWKS URL: the configured one, or the one discovered (discovering it now if that
    /// has not succeeded yet). The error is the `invalid_token` description.
    async fn jwks_url(&self) -> Result<String, String> {
        let discovered = match &self.keys_at {
            KeySource::Fixed(url) => return Ok(url.clone()),
            KeySource::Discovered(discovered) => discovered,
        };
        if let Some(url) = discovered.lock().clone() {
            return Ok(url);
        }
        match self.discover().await {
            Ok(url) => {
                tracing::info!(issuer = %self.issuer, jwks_uri = %url, "discovered the issuer's JWKS");
                *discovered.lock() = Some(url.clone());
                Ok(url)
            }
            Err(e) => {
                tracing::error!(
                    issuer = %self.issuer,
                    "discovering the issuer's JWKS failed, tokens are refused until it \
                     succeeds: {e}"
                );
                Err(format!(
                    "the issuer's signing keys could not be discovered: {e}"
                ))
            }
        }
    }

    /// The `jwks_uri` of the first metadata document found for the issuer, checked.
    async fn discover(&self) -> Result<String, String> {
        let urls = Self::metadata_urls(&self.issuer);
        if urls.is_empty() {
            return Err(format!(
                "the issuer `{}` is not an http(s) URL (configure the JWKS URL instead)",
                self.issuer
            ));
        }
        let mut tried = Vec::new();
        for url in urls {
            let metadata: ServerMetadata = match self.get_json(&url).await {
                Ok(metadata) => metadata,
                Err(e) => {
                    tried.push(format!("{url}: {e}"));
                    continue;
                }
            };
            if metadata.issuer.as_deref() != Some(self.issuer.as_str()) {
                return Err(format!(
                    "the metadata at {url} is for issuer {}, not `{}` (they must be identical, \
                     byte for byte: check the configured issuer)",
                    metadata
                        .issuer
                        .map_or_else(|| "(none)".to_owned(), |i| format!("`{i}`")),
                    self.issuer
                ));
            }
            return metadata.jwks_uri.ok_or_else(|| {
                format!("the metadata at {url} has no jwks_uri (configure the JWKS URL instead)")
            });
        }
        Err(format!(
            "no authorization server metadata found (tried {})",
            tried.join("; ")
        ))
    }

    /// GETs `url` and parses its JSON body (at most [`MAX_DOCUMENT_BYTES`]). The error says
    /// what happened in words fit for a client (`unreachable`, `HTTP 404 Not Found`); a
    /// transport error's details are logged.
    async fn get_json<T: serde::de::DeserializeOwned>(&self, url: &str) -> Result<T, String> {
        let unreachable = |e: reqwest::Error| {
            tracing::warn!(%url, "GET failed: {}", e.without_url());
            "unreachable".to_owned()
        };
        let mut response = self
            .client
            .get(url)
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(unreachable)?;
        let status = response.status();
        if !status.is_success() {
            return Err(format!("HTTP {status}"));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(unreachable)? {
            if body.len() + chunk.len() > MAX_DOCUMENT_BYTES {
                return Err(format!(
                    "the document is larger than {MAX_DOCUMENT_BYTES} bytes"
                ));
            }
            body.extend_from_slice(&chunk);
        }
        serde_json::from_slice(&body).map_err(|e| format!("not the JSON expected ({e})"))
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
