//! Discovery: the protected resource metadata, then its authorization server's, each checked
//! before use.

use url::Url;

use super::*;

impl Inner {
    /// Discovery: the protected resource metadata and its first authorization server's
    /// metadata. A server that publishes no resource metadata is taken for one of 2025-03-26,
    /// whose own origin is the authorization server: its metadata there, else the default
    /// endpoints (`/authorize`, `/token`, `/register`).
    pub(super) async fn discover(&self, hinted: Option<&str>) -> Result<Discovered, AuthError> {
        let (resource, legacy) = match self.resource_metadata(hinted).await {
            Ok(resource) => (resource, false),
            Err(AuthError::NoResourceMetadata { tried, .. }) if hinted.is_none() => {
                tracing::info!(server = %self.key.server, %tried, "no protected resource metadata: the server's origin is taken for its authorization server (MCP 2025-03-26)");
                let origin = self.server_url.origin().ascii_serialization();
                let resource = ProtectedResourceMetadata {
                    resource: crate::auth::discovery::canonical_resource(&self.server_url),
                    authorization_servers: vec![origin],
                    ..Default::default()
                };
                (resource, true)
            }
            Err(other) => return Err(other),
        };
        let issuer = resource.authorization_servers[0].clone();
        let parsed = self.fetcher.check("authorization_servers", &issuer).await?;
        let mut tried = Vec::new();
        for url in authorization_server_metadata_urls(&parsed) {
            tried.push(mcp_jsonrpc::redact_url(url.as_str()));
            let Some(document) = self
                .fetcher
                .document("fetching the authorization server metadata", &url)
                .await?
            else {
                continue;
            };
            let Ok(server) = serde_json::from_value::<AuthorizationServerMetadata>(document) else {
                continue;
            };
            server
                .check(&issuer)
                .map_err(|source| AuthError::Metadata {
                    server: self.server(),
                    source,
                })?;
            return Ok(Discovered {
                resource,
                issuer,
                server,
            });
        }
        if legacy {
            let at = |path: &str| Some(format!("{issuer}{path}"));
            let server = AuthorizationServerMetadata {
                issuer: issuer.clone(),
                authorization_endpoint: at("/authorize"),
                token_endpoint: at("/token"),
                registration_endpoint: at("/register"),
                // 2025-03-26 requires PKCE of every client and server.
                code_challenge_methods_supported: Some(vec![Pkce::METHOD.to_owned()]),
                ..Default::default()
            };
            return Ok(Discovered {
                resource,
                issuer,
                server,
            });
        }
        Err(AuthError::NoServerMetadata {
            server: self.server(),
            issuer,
            tried: tried.join(", "),
        })
    }

    pub(super) async fn resource_metadata(
        &self,
        hinted: Option<&str>,
    ) -> Result<ProtectedResourceMetadata, AuthError> {
        if let Some(hinted) = hinted {
            self.fetcher.check("resource_metadata", hinted).await?;
        }
        let urls = protected_resource_metadata_urls(&self.server_url, hinted).map_err(|_| {
            AuthError::BadUrl {
                server: self.server(),
                field: "resource_metadata",
                url: mcp_jsonrpc::redact_url(hinted.unwrap_or_default()),
            }
        })?;
        let mut tried = Vec::new();
        for url in urls {
            tried.push(mcp_jsonrpc::redact_url(url.as_str()));
            self.fetcher
                .check("resource_metadata", url.as_str())
                .await?;
            let Some(document) = self
                .fetcher
                .document("fetching the protected resource metadata", &url)
                .await?
            else {
                continue;
            };
            let Ok(metadata) = serde_json::from_value::<ProtectedResourceMetadata>(document) else {
                continue;
            };
            metadata
                .check(&self.server_url)
                .map_err(|source| AuthError::Metadata {
                    server: self.server(),
                    source,
                })?;
            return Ok(metadata);
        }
        Err(AuthError::NoResourceMetadata {
            server: self.server(),
            tried: tried.join(", "),
        })
    }

    pub(super) async fn endpoint(
        &self,
        found: &Discovered,
        field: &'static str,
    ) -> Result<Url, AuthError> {
        let url = match field {
            "authorization_endpoint" => found.server.authorization_endpoint.as_deref(),
            "registration_endpoint" => found.server.registration_endpoint.as_deref(),
            _ => found.server.token_endpoint.as_deref(),
        }
        .ok_or_else(|| AuthError::MissingEndpoint {
            server: self.server(),
            issuer: found.issuer.clone(),
            field,
        })?;
        self.fetcher.check(field, url).await
    }
}
