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
//!
//! The flow that drives them (fetching under the trust policy, registration, the loopback
//! redirect, token storage and refresh) is built on these in later steps (issue 15). What it
//! must keep in mind, from the specification and the conformance suite:
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

pub mod challenge;
pub mod discovery;
pub mod metadata;
pub mod pkce;

pub use challenge::BearerChallenge;
pub use metadata::{AuthorizationServerMetadata, MetadataError, ProtectedResourceMetadata};
pub use pkce::Pkce;
