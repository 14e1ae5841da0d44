//! Authentication on the HTTP endpoint: `401` challenges and the RFC 9728 protected-resource
//! metadata document.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use serde::Serialize;

use super::reply;
use crate::auth::AuthError;

/// The OAuth 2.0 protected-resource metadata of this server (RFC 9728), published at
/// `/.well-known/oauth-protected-resource` (and that path followed by the endpoint's path)
/// when set in `HttpOptions::resource_metadata`, and named in every `401` challenge.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProtectedResourceMetadata {
    /// This server's resource identifier: its canonical URL (`https://mcp.example.com/mcp`),
    /// the audience its access tokens must name.
    pub resource: String,
    /// The authorization servers that issue tokens for it.
    pub authorization_servers: Vec<String>,
    /// The scopes it understands.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scopes_supported: Vec<String>,
    /// How tokens are presented (`header`).
    pub bearer_methods_supported: Vec<String>,
}

impl ProtectedResourceMetadata {
    /// Metadata for `resource`, with tokens from `authorization_servers`.
    pub fn new(resource: impl Into<String>, authorization_servers: Vec<String>) -> Self {
        Self {
            resource: resource.into(),
            authorization_servers,
            scopes_supported: Vec::new(),
            bearer_methods_supported: vec!["header".to_owned()],
        }
    }

    /// Declares the scopes.
    pub fn scopes(mut self, scopes: Vec<String>) -> Self {
        self.scopes_supported = scopes;
        self
    }

    /// Where the document is published, per RFC 9728 §3.1: the well-known path inserted
    /// between the resource's host and its path.
    pub fn document_url(&self) -> String {
        let (origin, path) = match self.resource.split_once("://") {
            Some((scheme, rest)) => {
                let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
                (format!("{scheme}://{host}"), path.trim_end_matches('/'))
            }
            None => (self.resource.clone(), ""),
        };
        mcp_schema::authorization::protected_resource_metadata_url(&origin, path)
    }
}

/// `401 Unauthorized` with the RFC 6750 challenge (and the metadata URL, RFC 9728 §5.1).
pub(super) fn unauthorized(metadata_url: Option<&str>, error: &AuthError) -> Response {
    let mut challenge = String::from("Bearer");
    let mut params = Vec::new();
    if let Some(url) = metadata_url {
        params.push(format!("resource_metadata=\"{url}\""));
    }
    if let AuthError::Invalid(reason) = error {
        params.push("error=\"invalid_token\"".to_owned());
        params.push(format!("error_description=\"{}\"", quoted(reason)));
    }
    if !params.is_empty() {
        challenge.push(' ');
        challenge.push_str(&params.join(", "));
    }
    let mut response = reply::invalid(StatusCode::UNAUTHORIZED, None, error);
    if let Ok(value) = HeaderValue::from_str(&challenge) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

/// `403 Forbidden` for a session that belongs to another principal.
pub(super) fn not_yours(id: Option<&mcp_jsonrpc::Id>) -> Response {
    reply::invalid(
        StatusCode::FORBIDDEN,
        id,
        "this session belongs to another principal: initialize a session of your own",
    )
}

/// A value fit for a quoted-string (no quotes, backslashes or control characters).
pub(super) fn quoted(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control() && *c != '"' && *c != '\\')
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_sits_between_host_and_path() {
        let m = ProtectedResourceMetadata::new("https://mcp.example.com/v1/mcp", vec![]);
        assert_eq!(
            m.document_url(),
            "https://mcp.example.com/.well-known/oauth-protected-resource/v1/mcp"
        );
        let m = ProtectedResourceMetadata::new("https://mcp.example.com", vec![]);
        assert_eq!(
            m.document_url(),
            "https://mcp.example.com/.well-known/oauth-protected-resource"
        );
    }
}
