//! Client-side OAuth for MCP servers (feature `oauth`): the pieces of the authorization flow
//! of the MCP specification (2025-11-25 and 2026-07-28), each checked on its own.
//!
//! - [`challenge`]: `WWW-Authenticate` parsing, and the Bearer parameters of a 401 or 403.
//! - [`discovery`]: the URLs of the protected resource metadata (RFC 9728) and of the
//!   authorization server metadata (RFC 8414, OpenID Connect), in the specified order; the
//!   canonical `resource` (RFC 8707).
//! - [`metadata`]: the documents, the checks before using them (resource, issuer, PKCE S256),
//!   and scope selection (first request, step-up union).
//! - [`pkce`]: S256 verifier and challenge, and random `state`.
//! - [`OAuth`]: the flow itself, as the [`HttpAuthorizer`](mcp_jsonrpc::HttpAuthorizer) of a
//!   server's HTTP connection: discovery, the client's identity, the authorization code with
//!   PKCE, refresh, step-up. [`Manager::with_oauth`](crate::Manager::with_oauth) gives one to
//!   every HTTP server that sends no `Authorization` header of its own.
//! - [`AuthorizationAgent`]: where a person authorizes ([`LoopbackAgent`] for a CLI,
//!   [`HeadlessAgent`] for servers that approve at once).
//! - [`TokenStore`]: where registrations and tokens are kept ([`MemoryTokenStore`],
//!   [`FileTokenStore`]).
//!
//! What the flow keeps in mind, from the specification and the conformance suite:
//!
//! - Identifiers are compared as the server wrote them: the `resource` sent (RFC 8707) is the
//!   protected resource metadata's `resource` string, issuers are the `authorization_servers`
//!   strings, and the authorization response's `iss` (RFC 9207) is compared byte for byte
//!   with the issuer recorded before the redirect. A parsed [`url::Url`] turns
//!   `http://localhost:8080` into `http://localhost:8080/`: parse to build URLs, never to
//!   compare.
//! - Credentials and tokens are kept per authorization server issuer (2026-07-28), and a token
//!   goes only to the resource it was issued for.
//! - A 403 is a step-up only with `error="insufficient_scope"` (servers also answer 403 to a
//!   bad `Origin`); the new scopes are the union with those asked before, and retries are
//!   bounded.
//! - Client identity, in order: pre-registered, Client ID Metadata Document (when the
//!   server's metadata says `client_id_metadata_document_supported`), dynamic registration
//!   (deprecated in 2026-07-28, with `application_type: "native"` for a CLI).

pub mod agent;
pub mod challenge;
pub mod discovery;
mod error;
mod fetch;
mod flow;
mod jwt;
pub mod metadata;
pub mod pkce;
pub mod store;

use std::sync::Arc;

pub use agent::{
    AgentFuture, AuthorizationAgent, DEFAULT_REDIRECT_PORT, HeadlessAgent, LoopbackAgent,
};
pub use challenge::BearerChallenge;
pub use error::AuthError;
pub use fetch::{EXCHANGE_TIMEOUT, MAX_DOCUMENT_BYTES};
pub use flow::{MAX_STEP_UPS, OAuth};
pub use metadata::{AuthorizationServerMetadata, MetadataError, ProtectedResourceMetadata};
pub use pkce::Pkce;
pub use store::{FileTokenStore, MemoryTokenStore, StoreKey, StoredAuth, TokenSet, TokenStore};

/// Now, in seconds since the Unix epoch (what token expiry and JWT times count in).
fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default()
}

/// A client registered with an authorization server beforehand (its `client_id`, and secret
/// for a confidential client).
#[derive(Clone, PartialEq, Eq)]
pub struct PreRegisteredClient {
    /// The issuer it is registered at. `None`: whatever authorization server a server names
    /// (2026-07-28 binds credentials to their issuer: set it when known).
    pub issuer: Option<String>,
    /// The `client_id`.
    pub client_id: String,
    /// The secret of a confidential client.
    pub client_secret: Option<String>,
}

impl std::fmt::Debug for PreRegisteredClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreRegisteredClient")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "…"))
            .finish()
    }
}

/// How the client obtains tokens.
#[derive(Clone, Default)]
#[non_exhaustive]
pub enum Grant {
    /// The authorization code with PKCE, a person authorizing through the
    /// [`AuthorizationAgent`] (the default).
    #[default]
    AuthorizationCode,
    /// The client credentials grant (machine to machine, no person; extension
    /// `io.modelcontextprotocol/oauth-client-credentials`).
    ClientCredentials {
        /// The client's id at the authorization server.
        client_id: String,
        /// How it proves it.
        credential: ClientCredential,
    },
    /// A JWT bearer assertion (RFC 7523 §2.1) issued to this workload by its platform
    /// (workload identity federation; extension `io.modelcontextprotocol/auth/wif`). A
    /// refused assertion is final: no retry, no other grant.
    JwtBearer {
        /// The assertion.
        assertion: String,
        /// The client's id, sent with the request when given.
        client_id: Option<String>,
    },
    /// Enterprise-managed authorization (extension
    /// `io.modelcontextprotocol/enterprise-managed-authorization`): the user's ID token is
    /// exchanged at the enterprise identity provider for an identity assertion grant
    /// (ID-JAG, RFC 8693 token exchange), which the MCP server's authorization server takes
    /// as a JWT bearer grant from this client.
    EnterpriseManaged(EnterpriseManaged),
}

impl std::fmt::Debug for Grant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Grant::AuthorizationCode => "AuthorizationCode",
            Grant::ClientCredentials { .. } => "ClientCredentials(..)",
            Grant::JwtBearer { .. } => "JwtBearer(..)",
            Grant::EnterpriseManaged(_) => "EnterpriseManaged(..)",
        })
    }
}

/// How a client of the client credentials grant proves who it is.
#[derive(Clone)]
#[non_exhaustive]
pub enum ClientCredential {
    /// A secret (`client_secret_basic`, or `client_secret_post` where Basic is not offered).
    Secret(String),
    /// A private key (`private_key_jwt`, RFC 7523 §2.2): a PKCS#8 PEM P-256 key; assertions
    /// are ES256, addressed to the authorization server's issuer.
    PrivateKeyJwt(String),
}

/// What enterprise-managed authorization needs: the identity provider's token endpoint and
/// this client's identities there and at the MCP server's authorization server.
#[derive(Clone)]
pub struct EnterpriseManaged {
    /// The identity provider's token endpoint (token exchange).
    pub idp_token_endpoint: String,
    /// This client's id at the identity provider.
    pub idp_client_id: String,
    /// The user's ID token from the identity provider (the subject token).
    pub id_token: String,
    /// This client's id at the MCP server's authorization server.
    pub client_id: String,
    /// Its secret there (`client_secret_basic`).
    pub client_secret: String,
}

/// How the client authorizes: where tokens are kept, who asks the person, and who the client
/// is.
#[derive(Clone)]
pub struct OAuthOptions {
    /// Where registrations and tokens are kept.
    pub store: Arc<dyn TokenStore>,
    /// Where a person authorizes; `None`: only stored tokens are used (and refreshed), and a
    /// server that needs a new authorization fails with [`AuthError::LoginRequired`].
    pub agent: Option<Arc<dyn AuthorizationAgent>>,
    /// The `client_name` of a dynamic registration.
    pub client_name: String,
    /// The URL of this client's Client ID Metadata Document, used as its `client_id` where
    /// the authorization server accepts those (`client_id_metadata_document_supported`).
    pub client_metadata_url: Option<String>,
    /// Clients registered beforehand: preferred over any other identity.
    pub clients: Vec<PreRegisteredClient>,
    /// The scopes of a first authorization, instead of the specification's choice (the
    /// challenge's, else all the server publishes); a challenge's scopes are added to them.
    pub scopes: Option<Vec<String>>,
    /// The port of the loopback redirect, for agents that listen on one (a server's
    /// `oauth.redirect_port`; see [`AuthorizationAgent::on_port`]).
    pub redirect_port: Option<u16>,
    /// How tokens are obtained (default: the authorization code).
    pub grant: Grant,
    /// Whether tokens are bound to a key of this client (DPoP, RFC 9449) where the server
    /// challenges with the `DPoP` scheme and its authorization server signs with ES256
    /// (default `true`; extension `io.modelcontextprotocol/auth/dpop`).
    pub dpop: bool,
}

impl std::fmt::Debug for OAuthOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthOptions")
            .field("interactive", &self.agent.is_some())
            .field("client_name", &self.client_name)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("clients", &self.clients)
            .field("scopes", &self.scopes)
            .field("redirect_port", &self.redirect_port)
            .field("grant", &self.grant)
            .field("dpop", &self.dpop)
            .finish_non_exhaustive()
    }
}

impl OAuthOptions {
    /// Options with `store`, no agent, no identity but dynamic registration under
    /// `client_name`.
    pub fn new(store: Arc<dyn TokenStore>, client_name: impl Into<String>) -> Self {
        Self {
            store,
            agent: None,
            client_name: client_name.into(),
            client_metadata_url: None,
            clients: Vec::new(),
            scopes: None,
            redirect_port: None,
            grant: Grant::AuthorizationCode,
            dpop: true,
        }
    }

    /// Obtains tokens with `grant` instead of the authorization code.
    pub fn with_grant(mut self, grant: Grant) -> Self {
        self.grant = grant;
        self
    }

    /// Lets `agent` ask the person.
    pub fn with_agent(mut self, agent: Arc<dyn AuthorizationAgent>) -> Self {
        self.agent = Some(agent);
        self
    }

    /// Uses the Client ID Metadata Document at `url` where accepted.
    pub fn with_client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// Adds a pre-registered client.
    pub fn with_client(mut self, client: PreRegisteredClient) -> Self {
        self.clients.push(client);
        self
    }
}
