//! The metadata documents of the flow, and the checks the specification asks of a client
//! before it uses them.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use url::Url;

/// Protected resource metadata (RFC 9728 §2), as an MCP server publishes it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProtectedResourceMetadata {
    /// The resource identifier: must be the server's canonical URI.
    pub resource: String,
    /// The issuers of the authorization servers that serve it (at least one).
    #[serde(default)]
    pub authorization_servers: Vec<String>,
    /// The scopes it knows, if published.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Authorization server metadata (RFC 8414 §2; OpenID Connect Discovery shares the fields
/// used here).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AuthorizationServerMetadata {
    /// The issuer: must be the one the document was looked up for.
    pub issuer: String,
    /// Where the user authorizes (authorization code flow).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_endpoint: Option<String>,
    /// Where codes and refresh tokens are exchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint: Option<String>,
    /// Dynamic client registration (RFC 7591).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registration_endpoint: Option<String>,
    /// The scopes it knows (`offline_access` among them allows asking for refresh tokens).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// The PKCE methods; absent means the client must not proceed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// How clients authenticate at the token endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// The grant types.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_types_supported: Option<Vec<String>>,
    /// Client ID Metadata Documents are accepted as `client_id`.
    #[serde(default)]
    pub client_id_metadata_document_supported: bool,
    /// The authorization response carries `iss` (RFC 9207).
    #[serde(default)]
    pub authorization_response_iss_parameter_supported: bool,
    /// The algorithms of DPoP proofs it accepts (RFC 9449 §5.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Why a metadata document cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MetadataError {
    /// The protected resource metadata names another resource (RFC 9728 §3.3).
    #[error("the protected resource metadata is for `{found}`, not `{expected}`")]
    ResourceMismatch {
        /// The server's canonical URI.
        expected: String,
        /// What the document says.
        found: String,
    },
    /// The protected resource metadata names no authorization server.
    #[error("the protected resource metadata names no authorization server")]
    NoAuthorizationServer,
    /// The authorization server metadata claims another issuer (RFC 8414 §3.3).
    #[error(
        "the authorization server metadata claims issuer `{found}`, but was looked up for `{expected}`"
    )]
    IssuerMismatch {
        /// The issuer it was looked up for.
        expected: String,
        /// What the document says.
        found: String,
    },
    /// The authorization server does not offer PKCE with S256.
    #[error(
        "the authorization server does not offer PKCE with S256 (code_challenge_methods_supported: {offered}), which MCP requires"
    )]
    NoPkce {
        /// What it offers (`absent` when the field is missing).
        offered: String,
    },
}

impl ProtectedResourceMetadata {
    /// Checks that the document is about the MCP server at `server` and names an
    /// authorization server. Its `resource` must cover the server: the same origin, and the
    /// server's path or a parent of it at a `/` boundary (a server at `…/mcp` may publish its
    /// origin as the resource; a trailing `/` is not a difference).
    ///
    /// # Errors
    ///
    /// [`MetadataError::ResourceMismatch`] (naming the server's canonical URI),
    /// [`MetadataError::NoAuthorizationServer`].
    pub fn check(&self, server: &Url) -> Result<(), MetadataError> {
        if !resource_covers(&self.resource, server) {
            return Err(MetadataError::ResourceMismatch {
                expected: super::discovery::canonical_resource(server),
                found: self.resource.clone(),
            });
        }
        if self.authorization_servers.is_empty() {
            return Err(MetadataError::NoAuthorizationServer);
        }
        Ok(())
    }
}

/// Whether `resource` covers the server at `server` (see [`ProtectedResourceMetadata::check`]).
fn resource_covers(resource: &str, server: &Url) -> bool {
    let Ok(parsed) = Url::parse(resource) else {
        return false;
    };
    if parsed.origin() != server.origin() || parsed.fragment().is_some() {
        return false;
    }
    let theirs = parsed.path().trim_end_matches('/');
    let ours = server.path().trim_end_matches('/');
    ours == theirs || ours.starts_with(&format!("{theirs}/"))
}

impl AuthorizationServerMetadata {
    /// Checks the document before use: its `issuer` is identical to the one it was looked up
    /// for (the string of `authorization_servers`, as written: compared byte for byte), and it
    /// offers PKCE with S256.
    ///
    /// # Errors
    ///
    /// [`MetadataError::IssuerMismatch`], [`MetadataError::NoPkce`].
    pub fn check(&self, issuer: &str) -> Result<(), MetadataError> {
        if self.issuer != issuer {
            return Err(MetadataError::IssuerMismatch {
                expected: issuer.to_owned(),
                found: self.issuer.clone(),
            });
        }
        match &self.code_challenge_methods_supported {
            Some(methods) if methods.iter().any(|m| m == "S256") => Ok(()),
            Some(methods) => Err(MetadataError::NoPkce {
                offered: methods.join(", "),
            }),
            None => Err(MetadataError::NoPkce {
                offered: "absent".to_owned(),
            }),
        }
    }

    /// Whether it accepts DPoP proofs signed with `alg`.
    pub fn accepts_dpop(&self, alg: &str) -> bool {
        self.dpop_signing_alg_values_supported
            .as_ref()
            .is_some_and(|algs| algs.iter().any(|a| a == alg))
    }

    /// Whether refresh tokens may be asked for with the `offline_access` scope.
    pub fn offers_offline_access(&self) -> bool {
        self.scopes_supported
            .as_ref()
            .is_some_and(|scopes| scopes.iter().any(|s| s == "offline_access"))
    }
}

/// The scopes of a first authorization: the challenge's, else everything the resource
/// publishes, else none (the `scope` parameter is then omitted).
pub fn initial_scopes(
    challenged: Option<&[String]>,
    resource: &ProtectedResourceMetadata,
) -> Option<Vec<String>> {
    challenged
        .map(<[String]>::to_vec)
        .or_else(|| resource.scopes_supported.clone())
}

/// The scopes of a step-up authorization after `insufficient_scope`: those asked for before,
/// then the challenged ones not among them (2026-07-28 makes the union the client's job).
pub fn step_up_scopes(previous: &[String], challenged: &[String]) -> Vec<String> {
    let mut scopes = previous.to_vec();
    for scope in challenged {
        if !scopes.contains(scope) {
            scopes.push(scope.clone());
        }
    }
    scopes
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn owned(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn resource_metadata_must_be_about_this_server() {
        let prm: ProtectedResourceMetadata = serde_json::from_value(json!({
            "resource": "https://mcp.example.com/mcp",
            "authorization_servers": ["https://auth.example.com"],
            "bearer_methods_supported": ["header"]
        }))
        .unwrap();
        let url = |text: &str| Url::parse(text).unwrap();
        assert_eq!(prm.check(&url("https://mcp.example.com/mcp")), Ok(()));
        assert_eq!(
            prm.check(&url("https://other.example.com/mcp")),
            Err(MetadataError::ResourceMismatch {
                expected: "https://other.example.com/mcp".into(),
                found: "https://mcp.example.com/mcp".into(),
            })
        );
        assert_eq!(prm.extra["bearer_methods_supported"], json!(["header"]));
        let empty = ProtectedResourceMetadata {
            resource: "https://mcp.example.com/mcp".into(),
            ..Default::default()
        };
        assert_eq!(
            empty.check(&url("https://mcp.example.com/mcp")),
            Err(MetadataError::NoAuthorizationServer)
        );
    }

    #[test]
    fn a_resource_covers_its_server_and_the_paths_below_it_only() {
        let server = Url::parse("http://localhost:3000/mcp").unwrap();
        assert!(resource_covers("http://localhost:3000/mcp", &server));
        assert!(resource_covers("http://localhost:3000", &server));
        assert!(resource_covers("http://localhost:3000/", &server));
        assert!(!resource_covers("http://localhost:3000/mc", &server));
        assert!(!resource_covers(
            "http://localhost:3000/mcp/deeper",
            &server
        ));
        assert!(!resource_covers("https://localhost:3000/mcp", &server));
        assert!(!resource_covers("https://evil.example.com/mcp", &server));
        assert!(!resource_covers("not a url", &server));
    }

    #[test]
    fn server_metadata_needs_its_own_issuer_and_s256() {
        let mut asm: AuthorizationServerMetadata = serde_json::from_value(json!({
            "issuer": "https://auth.example.com",
            "authorization_endpoint": "https://auth.example.com/authorize",
            "token_endpoint": "https://auth.example.com/token",
            "code_challenge_methods_supported": ["S256"],
            "scopes_supported": ["read", "offline_access"]
        }))
        .unwrap();
        assert_eq!(asm.check("https://auth.example.com"), Ok(()));
        assert!(asm.offers_offline_access());
        // A document that claims another issuer than the one it was looked up for.
        assert!(matches!(
            asm.check("https://attacker.example"),
            Err(MetadataError::IssuerMismatch { .. })
        ));
        asm.code_challenge_methods_supported = Some(owned(&["plain"]));
        assert!(matches!(
            asm.check("https://auth.example.com"),
            Err(MetadataError::NoPkce { .. })
        ));
        asm.code_challenge_methods_supported = None;
        let error = asm.check("https://auth.example.com").unwrap_err();
        assert!(error.to_string().contains("absent"), "{error}");
    }

    #[test]
    fn scope_selection_and_step_up() {
        let prm = ProtectedResourceMetadata {
            scopes_supported: Some(owned(&["a", "b"])),
            ..Default::default()
        };
        let challenged = owned(&["x"]);
        assert_eq!(initial_scopes(Some(&challenged), &prm), Some(owned(&["x"])));
        assert_eq!(initial_scopes(None, &prm), Some(owned(&["a", "b"])));
        assert_eq!(
            initial_scopes(None, &ProtectedResourceMetadata::default()),
            None
        );
        assert_eq!(
            step_up_scopes(&owned(&["a", "b"]), &owned(&["b", "admin"])),
            owned(&["a", "b", "admin"])
        );
    }
}
