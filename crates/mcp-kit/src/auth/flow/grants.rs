//! The grants without a person: client credentials, a JWT bearer assertion (workload
//! identity), and enterprise-managed authorization (token exchange at the identity provider,
//! then a JWT bearer grant).

use super::*;
use crate::auth::{ClientCredential, EnterpriseManaged};

/// RFC 7523 §2.1.
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// RFC 7523 §2.2.
const CLIENT_ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
/// RFC 8693 §2.1.
const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
/// The identity assertion authorization grant's token type.
const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";
/// RFC 8693 §3.
const ID_TOKEN: &str = "urn:ietf:params:oauth:token-type:id_token";

impl Inner {
    /// Obtains tokens with the configured grant: the authorization code through `agent` (else
    /// the options'), or a grant that needs no person.
    pub(super) async fn grant(
        &self,
        found: &Discovered,
        scopes: Option<&[String]>,
        agent: Option<Arc<dyn AuthorizationAgent>>,
    ) -> Result<Obtained, AuthError> {
        let mut form = vec![("resource", found.resource.resource.clone())];
        if let Some(scopes) = scopes.filter(|s| !s.is_empty()) {
            form.push(("scope", scopes.join(" ")));
        }
        let client = match &self.options.grant {
            Grant::AuthorizationCode => {
                return self.code_grant(found, scopes, self.agent(agent)).await;
            }
            Grant::ClientCredentials {
                client_id,
                credential,
            } => {
                form.push(("grant_type", "client_credentials".to_owned()));
                Some(match credential {
                    ClientCredential::Secret(secret) => ClientRegistration {
                        client_id: client_id.clone(),
                        client_secret: Some(secret.clone()),
                        token_endpoint_auth_method: identity::auth_method(&found.server, true),
                        redirect_uri: String::new(),
                    },
                    ClientCredential::PrivateKeyJwt(pem) => {
                        let assertion = SigningKey::from_pem(pem)
                            .and_then(|key| key.client_assertion(client_id, &found.issuer))
                            .map_err(|message| AuthError::Agent {
                                server: self.server(),
                                message,
                            })?;
                        form.push(("client_assertion_type", CLIENT_ASSERTION_TYPE.to_owned()));
                        form.push(("client_assertion", assertion));
                        ClientRegistration {
                            client_id: client_id.clone(),
                            client_secret: None,
                            token_endpoint_auth_method: "private_key_jwt".to_owned(),
                            redirect_uri: String::new(),
                        }
                    }
                })
            }
            Grant::JwtBearer {
                assertion,
                client_id,
            } => {
                form.push(("grant_type", JWT_BEARER.to_owned()));
                form.push(("assertion", assertion.clone()));
                // A public workload: its id, if it has one, goes in the form.
                if let Some(client_id) = client_id {
                    form.push(("client_id", client_id.clone()));
                }
                None
            }
            Grant::EnterpriseManaged(enterprise) => {
                let grant = self.identity_assertion(found, enterprise).await?;
                form.push(("grant_type", JWT_BEARER.to_owned()));
                form.push(("assertion", grant));
                Some(ClientRegistration {
                    client_id: enterprise.client_id.clone(),
                    client_secret: Some(enterprise.client_secret.clone()),
                    token_endpoint_auth_method: "client_secret_basic".to_owned(),
                    redirect_uri: String::new(),
                })
            }
        };
        let token_endpoint = self.endpoint(found, "token_endpoint").await?;
        self.obtain(token_endpoint, client, form, scopes).await
    }

    /// Exchanges the user's ID token at the identity provider for an identity assertion
    /// grant (ID-JAG) addressed to the MCP server's authorization server, for its resource.
    async fn identity_assertion(
        &self,
        found: &Discovered,
        enterprise: &EnterpriseManaged,
    ) -> Result<String, AuthError> {
        let endpoint = self
            .fetcher
            .check("idp_token_endpoint", &enterprise.idp_token_endpoint)
            .await?;
        let form = [
            ("grant_type", TOKEN_EXCHANGE),
            ("requested_token_type", ID_JAG),
            ("subject_token", enterprise.id_token.as_str()),
            ("subject_token_type", ID_TOKEN),
            ("audience", found.issuer.as_str()),
            ("resource", found.resource.resource.as_str()),
            ("client_id", enterprise.idp_client_id.as_str()),
        ];
        let answer = self
            .fetcher
            .post_form(
                "the token exchange at the identity provider",
                &endpoint,
                &form,
                None,
                &[],
            )
            .await?;
        const WHAT: &str = "the token exchange at the identity provider";
        let answer = self.accepted(WHAT, answer)?;
        self.answered(WHAT, &answer, "access_token")
    }
}
