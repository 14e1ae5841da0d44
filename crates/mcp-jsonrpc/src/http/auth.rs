//! Authorizing the requests of a streamable HTTP connection: the hook an OAuth client plugs
//! in ([`StreamableHttpOptions::authorizer`](super::StreamableHttpOptions::authorizer)).
//!
//! Every request (POST, the GET stream, the `DELETE` that ends a session) carries the
//! authorizer's [headers](HttpAuthorizer::headers). When the server answers a POST with 401
//! or 403, the transport hands the refusal to [`HttpAuthorizer::challenged`] outside the
//! request's timeout (authorizing may wait for a person), then sends the same message again
//! with fresh headers, at most [`MAX_AUTH_RETRIES`] times per message. A GET stream refused
//! with 401 or 403 at connect is tolerated: it is tried again once a session exists, with the
//! headers of then. Before each POST, [`HttpAuthorizer::prepare`] may refresh a token about
//! to expire.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Instant;

use crate::Error;

/// How many times one message is sent again after a refusal the authorizer answered (a
/// token obtained, then a wider scope, then a DPoP nonce, say). Past it the refusal stands.
pub const MAX_AUTH_RETRIES: usize = 3;

/// A refusal (HTTP 401 or 403): what an authorizer needs to react to it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuthChallenge {
    /// 401 or 403.
    pub status: u16,
    /// Every `WWW-Authenticate` header of the response, in order.
    pub www_authenticate: Vec<String>,
    /// The `DPoP-Nonce` header (RFC 9449 §9), when the server sent one.
    pub dpop_nonce: Option<String>,
    /// The refused request's method (`POST`).
    pub method: String,
    /// The refused request's URL.
    pub url: String,
    /// When the refused request was sent: an authorizer whose credentials changed since
    /// has the request sent again with them rather than authorizing once more.
    pub sent_at: Instant,
}

impl AuthChallenge {
    /// A challenge from a response's status and headers.
    pub fn new(status: u16, method: &str, url: &str, headers: &reqwest::header::HeaderMap) -> Self {
        let text = |v: &reqwest::header::HeaderValue| v.to_str().ok().map(str::to_owned);
        Self {
            status,
            www_authenticate: headers
                .get_all(reqwest::header::WWW_AUTHENTICATE)
                .iter()
                .filter_map(text)
                .collect(),
            dpop_nonce: headers.get("dpop-nonce").and_then(text),
            method: method.to_owned(),
            url: url.to_owned(),
            sent_at: Instant::now(),
        }
    }

    /// The challenge of a request sent at `sent_at`.
    pub fn sent_at(mut self, sent_at: Instant) -> Self {
        self.sent_at = sent_at;
        self
    }
}

/// What the transport does once [`HttpAuthorizer::challenged`] answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthOutcome {
    /// Send the message again, with fresh [`headers`](HttpAuthorizer::headers).
    Retry,
    /// Report the refusal as the transport does without an authorizer: it is no matter of
    /// authorization (a 403 for a bad `Origin`, say).
    Report,
}

/// The future of [`HttpAuthorizer::challenged`].
pub type AuthFuture<'a> = Pin<Box<dyn Future<Output = Result<AuthOutcome, Error>> + Send + 'a>>;

/// The future of [`HttpAuthorizer::prepare`].
pub type PrepareFuture<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// What authorizes the requests of a connection (`mcp-kit`'s OAuth client implements it).
pub trait HttpAuthorizer: Send + Sync + 'static {
    /// The headers that authorize a request with `method` to `url`: `Authorization`, and
    /// `DPoP` for a proof-of-possession token (a proof is bound to the method and URL). None
    /// before the first authorization.
    fn headers(&self, method: &str, url: &str) -> Vec<(String, String)>;

    /// The server refused a request: [`AuthOutcome::Retry`] sends it again with fresh
    /// [`headers`](Self::headers) (a token was obtained or refreshed, a wider scope granted,
    /// a DPoP nonce learnt); an error (usually [`Error::Unauthorized`]) fails the request
    /// with it.
    fn challenged<'a>(&'a self, challenge: &'a AuthChallenge) -> AuthFuture<'a>;

    /// Work due before a message is sent (refreshing a token about to expire), awaited
    /// outside the request's timeout; `None` (the default) when there is none. A failure is
    /// the authorizer's to log: the message then goes with the headers there are.
    fn prepare(&self) -> Option<PrepareFuture<'_>> {
        None
    }
}

/// A shared [`HttpAuthorizer`], as the transport options hold it.
#[derive(Clone)]
pub struct Authorizer(pub Arc<dyn HttpAuthorizer>);

impl fmt::Debug for Authorizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Authorizer(..)")
    }
}

impl Authorizer {
    /// Wraps an authorizer.
    pub fn new(authorizer: impl HttpAuthorizer) -> Self {
        Self(Arc::new(authorizer))
    }
}
