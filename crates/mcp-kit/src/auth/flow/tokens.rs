//! The authorization code (the redirect and its checks), and the token endpoint: the code
//! exchange and refresh.

use super::*;

impl Inner {
    // ----- authorization code --------------------------------------------------------------

    pub(super) async fn authorization_code(
        &self,
        found: &Discovered,
        client: &ClientRegistration,
        agent: &dyn AuthorizationAgent,
        scopes: Option<&[String]>,
    ) -> Result<Code, AuthError> {
        let mut url = self.endpoint(found, "authorization_endpoint").await?;
        let pkce = Pkce::generate()?;
        let state = random_token()?;
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", &client.client_id)
                .append_pair("redirect_uri", &client.redirect_uri)
                .append_pair("code_challenge", &pkce.challenge)
                .append_pair("code_challenge_method", Pkce::METHOD)
                .append_pair("state", &state);
            if let Some(scopes) = scopes.filter(|s| !s.is_empty()) {
                query.append_pair("scope", &scopes.join(" "));
            }
            query.append_pair("resource", &found.resource.resource);
        }
        let redirected = agent
            .authorize(&url)
            .await
            .map_err(|message| AuthError::Agent {
                server: self.server(),
                message,
            })?;
        let answer = |name: &str| {
            redirected
                .query_pairs()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.into_owned())
        };
        let bad = |reason: String| AuthError::BadResponse {
            server: self.server(),
            reason,
        };
        if answer("state").as_deref() != Some(state.as_str()) {
            return Err(bad(
                "its state is not the one sent (a forged or stale response)".into(),
            ));
        }
        // RFC 9207, as MCP 2026-07-28 has it: compared whenever present, required when
        // advertised, byte for byte with the issuer recorded before the redirect.
        match answer("iss") {
            Some(iss) if iss != found.issuer => {
                return Err(bad(format!(
                    "it comes from issuer `{iss}`, not `{}` (a mix-up attack?)",
                    found.issuer
                )));
            }
            None if found.server.authorization_response_iss_parameter_supported => {
                return Err(bad(format!(
                    "it lacks the iss parameter that `{}` promises to send",
                    found.issuer
                )));
            }
            _ => {}
        }
        if let Some(error) = answer("error") {
            return Err(AuthError::Refused {
                server: self.server(),
                what: "authorization",
                error,
                description: answer("error_description"),
            });
        }
        let code = answer("code").ok_or_else(|| bad("it carries no code".into()))?;
        Ok(Code {
            code,
            verifier: pkce.verifier,
        })
    }

    // ----- tokens --------------------------------------------------------------------------

    /// A request to the token endpoint, authenticated as `client` says.
    pub(super) async fn token_request(
        &self,
        endpoint: &Url,
        client: &ClientRegistration,
        mut form: Vec<(&'static str, String)>,
        requested: Option<&[String]>,
    ) -> Result<TokenSet, AuthError> {
        let basic = client.token_endpoint_auth_method == "client_secret_basic";
        match (
            client.token_endpoint_auth_method.as_str(),
            &client.client_secret,
        ) {
            ("client_secret_basic", Some(_)) => {}
            ("client_secret_post", Some(secret)) => {
                form.push(("client_id", client.client_id.clone()));
                form.push(("client_secret", secret.clone()));
            }
            _ => form.push(("client_id", client.client_id.clone())),
        }
        let pairs: Vec<(&str, &str)> = form.iter().map(|(n, v)| (*n, v.as_str())).collect();
        let credentials = basic
            .then(|| Some((client.client_id.as_str(), client.client_secret.as_deref()?)))
            .flatten();
        let answer = self
            .fetcher
            .post_form("the token request", endpoint, &pairs, credentials, &[])
            .await?;
        if !answer.status.is_success() {
            return Err(self.refused("the token request", &answer.json, answer.status));
        }
        let text = |name: &str| {
            answer
                .json
                .get(name)
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let access_token = text("access_token").ok_or_else(|| AuthError::Refused {
            server: self.server(),
            what: "the token request",
            error: "invalid_response".to_owned(),
            description: Some("the answer has no access_token".to_owned()),
        })?;
        let scopes = match text("scope") {
            Some(scope) => scope.split_ascii_whitespace().map(str::to_owned).collect(),
            // RFC 6749 §5.1: an omitted scope is the one requested.
            None => requested.map(<[String]>::to_vec).unwrap_or_default(),
        };
        Ok(TokenSet {
            access_token,
            token_type: text("token_type").unwrap_or_else(|| "Bearer".to_owned()),
            refresh_token: text("refresh_token"),
            expires_at: answer
                .json
                .get("expires_in")
                .and_then(Value::as_u64)
                .map(|seconds| now() + seconds),
            scopes,
        })
    }

    /// Trades the refresh token for new tokens; `false` when there is none or the
    /// authorization server refuses it (the caller then authorizes from scratch).
    pub(super) async fn refresh(&self) -> Result<bool, AuthError> {
        let Some(record) = self.state.lock().record.clone() else {
            return Ok(false);
        };
        let (Some(tokens), Some(endpoint)) = (&record.tokens, &record.token_endpoint) else {
            return Ok(false);
        };
        let Some(refresh_token) = tokens.refresh_token.clone() else {
            return Ok(false);
        };
        let Some(mut client) = record.client.clone() else {
            return Ok(false);
        };
        if client.client_secret.is_none()
            && let Some(configured) = self.configured(&client.client_id)
        {
            client.client_secret = configured.client_secret.clone();
        }
        let endpoint = self.fetcher.check("token_endpoint", endpoint).await?;
        let form = vec![
            ("grant_type", "refresh_token".to_owned()),
            ("refresh_token", refresh_token.clone()),
            ("resource", record.resource.clone()),
        ];
        match self
            .token_request(&endpoint, &client, form, Some(&tokens.scopes))
            .await
        {
            Ok(mut fresh) => {
                // A server that does not rotate refresh tokens keeps the old one valid.
                fresh.refresh_token = fresh.refresh_token.or(Some(refresh_token));
                self.save(StoredAuth {
                    tokens: Some(fresh),
                    ..record
                })?;
                Ok(true)
            }
            Err(AuthError::Refused { error, .. }) => {
                tracing::info!(server = %self.key.server, %error, "the refresh token was refused; authorizing again");
                Ok(false)
            }
            Err(other) => Err(other),
        }
    }

    pub(super) fn refused(
        &self,
        what: &'static str,
        body: &Value,
        status: reqwest::StatusCode,
    ) -> AuthError {
        let text = |name: &str| body.get(name).and_then(Value::as_str).map(str::to_owned);
        AuthError::Refused {
            server: self.server(),
            what,
            error: text("error").unwrap_or_else(|| format!("HTTP {status}")),
            description: text("error_description"),
        }
    }
}

/// What the authorization response brought, and what exchanging it needs.
pub(super) struct Code {
    pub(super) code: String,
    pub(super) verifier: String,
}
