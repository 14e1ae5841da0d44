//! What can go wrong while authorizing, in words a user acts on. No message ever carries a
//! token, a secret, a code or a PKCE verifier.

use crate::security::PolicyError;

use super::metadata::MetadataError;

/// Why a server's requests could not be authorized.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// The trust policy refused a URL of the flow (a metadata document, an endpoint).
    #[error(transparent)]
    Policy(#[from] PolicyError),

    /// A URL of the flow is not a URL, or not an http(s) one.
    #[error("mcp server `{server}`: the {field} `{url}` is not an http(s) URL")]
    BadUrl {
        /// The server's name.
        server: String,
        /// Where the URL came from (`resource_metadata`, `token_endpoint`, …).
        field: &'static str,
        /// The URL, redacted.
        url: String,
    },

    /// An HTTP exchange of the flow failed (connection, status, body).
    #[error("mcp server `{server}`: {what} ({url}) failed: {message}")]
    Http {
        /// The server's name.
        server: String,
        /// The step (`fetching the protected resource metadata`, `the token request`, …).
        what: &'static str,
        /// The URL, redacted.
        url: String,
        /// What went wrong.
        message: String,
    },

    /// No protected resource metadata was found where the specification says to look.
    #[error(
        "mcp server `{server}` requires authorization, but publishes no protected resource \
         metadata (tried {tried})"
    )]
    NoResourceMetadata {
        /// The server's name.
        server: String,
        /// The URLs tried, redacted.
        tried: String,
    },

    /// No authorization server metadata was found for the issuer.
    #[error(
        "mcp server `{server}`: the authorization server `{issuer}` publishes no metadata \
         (tried {tried})"
    )]
    NoServerMetadata {
        /// The server's name.
        server: String,
        /// The issuer.
        issuer: String,
        /// The URLs tried, redacted.
        tried: String,
    },

    /// A metadata document failed its checks (resource, issuer, PKCE).
    #[error("mcp server `{server}`: {source}; not authorizing")]
    Metadata {
        /// The server's name.
        server: String,
        /// The failed check.
        source: MetadataError,
    },

    /// The authorization server metadata lacks an endpoint the flow needs.
    #[error("mcp server `{server}`: the authorization server `{issuer}` has no {field}")]
    MissingEndpoint {
        /// The server's name.
        server: String,
        /// The issuer.
        issuer: String,
        /// `authorization_endpoint`, `token_endpoint`.
        field: &'static str,
    },

    /// The client has no identity at this authorization server: nothing pre-registered, no
    /// client metadata document accepted, no dynamic registration offered.
    #[error(
        "mcp server `{server}`: the authorization server `{issuer}` offers no way to register \
         this client (no registration_endpoint, no client ID metadata documents); configure a \
         client_id for it in the server's `oauth` settings"
    )]
    NoClientIdentity {
        /// The server's name.
        server: String,
        /// The issuer.
        issuer: String,
    },

    /// A pre-registered client belongs to another authorization server than the one the
    /// server now names (2026-07-28: credentials are bound to their issuer).
    #[error(
        "mcp server `{server}`: the configured client is registered at `{configured}`, but the \
         server now names the authorization server `{issuer}`; not sending its credentials \
         there (update the server's `oauth` settings)"
    )]
    ForeignClient {
        /// The server's name.
        server: String,
        /// The issuer the configured client belongs to.
        configured: String,
        /// The issuer in use.
        issuer: String,
    },

    /// The authorization response does not belong to the request (`state`), or comes from
    /// another authorization server (`iss`, RFC 9207): the code is not used.
    #[error("mcp server `{server}`: rejected the authorization response: {reason}")]
    BadResponse {
        /// The server's name.
        server: String,
        /// What did not match.
        reason: String,
    },

    /// The authorization server refused: the user denied access, or an endpoint answered
    /// with an OAuth error.
    #[error("mcp server `{server}`: {what}: {error}{}", shown_description(.description))]
    Refused {
        /// The server's name.
        server: String,
        /// The step (`authorization`, `the token request`, `registration`).
        what: &'static str,
        /// The OAuth error code (`access_denied`, `invalid_grant`, …).
        error: String,
        /// The authorization server's explanation.
        description: Option<String>,
    },

    /// The server keeps refusing for scopes already granted: no further authorization.
    #[error(
        "mcp server `{server}` refuses the request for want of scope `{scopes}`, which was \
         already granted; not authorizing again"
    )]
    ScopeNotGranted {
        /// The server's name.
        server: String,
        /// The scopes the server asked for.
        scopes: String,
    },

    /// Authorization needs a person, and none can be asked here.
    #[error(
        "mcp server `{server}` requires authorization: log in first (mcpctl login {server}), \
         or give the client an authorization agent"
    )]
    LoginRequired {
        /// The server's name.
        server: String,
    },

    /// The authorization agent (browser, redirect listener) failed.
    #[error("mcp server `{server}`: {message}")]
    Agent {
        /// The server's name.
        server: String,
        /// What went wrong.
        message: String,
    },

    /// The token store failed.
    #[error("mcp server `{server}`: the token store failed: {message}")]
    Store {
        /// The server's name.
        server: String,
        /// What went wrong.
        message: String,
    },

    /// The system's random source failed.
    #[error("the random source failed: {0}")]
    Random(String),
}

impl From<getrandom::Error> for AuthError {
    fn from(e: getrandom::Error) -> Self {
        AuthError::Random(e.to_string())
    }
}

fn shown_description(description: &Option<String>) -> String {
    description
        .as_deref()
        .map(|d| format!(" ({d})"))
        .unwrap_or_default()
}
