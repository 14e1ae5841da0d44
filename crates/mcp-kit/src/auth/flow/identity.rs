//! The client's identity at an authorization server: pre-registered, a Client ID Metadata
//! Document, or a dynamic registration (stored, else new); and how it authenticates at the
//! token endpoint.

use super::*;

impl Inner {
    pub(super) async fn client_identity(
        &self,
        found: &Discovered,
        agent: &dyn AuthorizationAgent,
    ) -> Result<ClientRegistration, AuthError> {
        let redirect_uri = agent.redirect_uri();
        if let Some(client) = self.pre_registered(&found.issuer)? {
            return Ok(ClientRegistration {
                token_endpoint_auth_method: auth_method(
                    &found.server,
                    client.client_secret.is_some(),
                ),
                client_id: client.client_id.clone(),
                client_secret: client.client_secret.clone(),
                redirect_uri,
            });
        }
        if found.server.client_id_metadata_document_supported
            && let Some(url) = &self.options.client_metadata_url
        {
            return Ok(ClientRegistration {
                client_id: url.clone(),
                client_secret: None,
                token_endpoint_auth_method: "none".to_owned(),
                redirect_uri,
            });
        }
        let stored = {
            let state = self.state.lock();
            state
                .record
                .as_ref()
                .filter(|r| r.issuer == found.issuer)
                .and_then(|r| r.client.clone())
                .filter(|c| {
                    c.redirect_uri == redirect_uri
                        && self.options.client_metadata_url.as_ref() != Some(&c.client_id)
                        && self.configured(&c.client_id).is_none()
                })
        };
        if let Some(client) = stored {
            return Ok(client);
        }
        self.register(found, redirect_uri).await
    }

    /// The configured client for `issuer`: one bound to it, else one bound to none. One bound
    /// only to other issuers is an error, not silently tried.
    fn pre_registered(&self, issuer: &str) -> Result<Option<&PreRegisteredClient>, AuthError> {
        let clients = &self.options.clients;
        if let Some(client) = clients
            .iter()
            .find(|c| c.issuer.as_deref() == Some(issuer))
            .or_else(|| clients.iter().find(|c| c.issuer.is_none()))
        {
            return Ok(Some(client));
        }
        match clients.first() {
            Some(client) => Err(AuthError::ForeignClient {
                server: self.server(),
                configured: client.issuer.clone().unwrap_or_default(),
                issuer: issuer.to_owned(),
            }),
            None => Ok(None),
        }
    }

    /// Dynamic client registration (RFC 7591): a native public client when the server allows
    /// one, else a confidential one with the method it supports.
    pub(super) async fn register(
        &self,
        found: &Discovered,
        redirect_uri: String,
    ) -> Result<ClientRegistration, AuthError> {
        if found.server.registration_endpoint.is_none() {
            return Err(AuthError::NoClientIdentity {
                server: self.server(),
                issuer: found.issuer.clone(),
            });
        }
        let endpoint = self.endpoint(found, "registration_endpoint").await?;
        let method = if supports(&found.server, "none") {
            "none".to_owned()
        } else {
            auth_method(&found.server, true)
        };
        let request = json!({
            "client_name": self.options.client_name,
            "redirect_uris": [redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": method,
            "application_type": "native",
        });
        let answer = self
            .fetcher
            .post_json("the client registration", &endpoint, &request)
            .await?;
        let answer = self.accepted("registration", answer)?;
        let client_id = self.answered("registration", &answer, "client_id")?;
        let text = |name: &str| tokens::text(&answer.json, name);
        let client_secret = text("client_secret");
        let token_endpoint_auth_method = text("token_endpoint_auth_method")
            .unwrap_or_else(|| auth_method(&found.server, client_secret.is_some()));
        Ok(ClientRegistration {
            client_id,
            client_secret,
            token_endpoint_auth_method,
            redirect_uri,
        })
    }
}

/// Whether the authorization server lists `method` for the token endpoint (RFC 8414: absent
/// means `client_secret_basic`).
fn supports(server: &AuthorizationServerMetadata, method: &str) -> bool {
    match &server.token_endpoint_auth_methods_supported {
        Some(methods) => methods.iter().any(|m| m == method),
        None => method == "client_secret_basic",
    }
}

/// How a client authenticates at the token endpoint: with a secret, Basic when offered, else
/// in the form; without, `none`.
pub(super) fn auth_method(server: &AuthorizationServerMetadata, has_secret: bool) -> String {
    if !has_secret {
        return "none".to_owned();
    }
    if !supports(server, "client_secret_basic") && supports(server, "client_secret_post") {
        "client_secret_post".to_owned()
    } else {
        "client_secret_basic".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    pub(super) fn the_token_endpoint_method_follows_the_servers_list() {
        let server = |methods: Option<&[&str]>| AuthorizationServerMetadata {
            token_endpoint_auth_methods_supported: methods
                .map(|m| m.iter().map(|s| (*s).to_owned()).collect()),
            ..Default::default()
        };
        assert_eq!(auth_method(&server(None), true), "client_secret_basic");
        assert_eq!(
            auth_method(&server(Some(&["client_secret_post"])), true),
            "client_secret_post"
        );
        assert_eq!(auth_method(&server(Some(&["none"])), false), "none");
        assert!(supports(&server(None), "client_secret_basic"));
        assert!(!supports(&server(None), "none"));
    }
}
