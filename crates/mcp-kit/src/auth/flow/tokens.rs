//! The authorization code (the redirect and its checks), and the token endpoint: the code
//! exchange and refresh.

use super::*;
use crate::auth::fetch::Answer;

impl Inner {
    /// The authorization code: the authorization request through the agent (PKCE, `state`,
    /// scopes, `resource`), and the checks of the response before its code is used.
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

    /// A request to the token endpoint, authenticated as `client` says.
    pub(super) async fn token_request(
        &self,
        endpoint: &Url,
        client: Option<&ClientRegistration>,
        mut form: Vec<(&'static str, String)>,
        requested: Option<&[String]>,
    ) -> Result<TokenSet, AuthError> {
        let mut basic = None;
        if let Some(client) = client {
            match (
                client.token_endpoint_auth_method.as_str(),
                &client.client_secret,
            ) {
                ("client_secret_basic", Some(secret)) => {
                    basic = Some((client.client_id.as_str(), secret.as_str()));
                }
                ("client_secret_post", Some(secret)) => {
                    form.push(("client_id", client.client_id.clone()));
                    form.push(("client_secret", secret.clone()));
                }
                // The assertion identifies the client (RFC 7521 §4.2).
                ("private_key_jwt", _) => {}
                _ => form.push(("client_id", client.client_id.clone())),
            }
        }
        let pairs: Vec<(&str, &str)> = form.iter().map(|(n, v)| (*n, v.as_str())).collect();
        let mut retried = false;
        let answer = loop {
            let answer = self
                .fetcher
                .post_form(
                    "the token request",
                    endpoint,
                    &pairs,
                    basic,
                    &self.token_proof(endpoint)?,
                )
                .await?;
            // RFC 9449 §8: a proof refused for want of the server's nonce is made again with
            // it, once.
            if !self.note_as_nonce(&answer) || retried {
                break self.accepted("the token request", answer)?;
            }
            retried = true;
        };
        let access_token = self.answered("the token request", &answer, "access_token")?;
        let text = |name: &str| text(&answer.json, name);
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
            issued_at: Some(now()),
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
            .token_request(&endpoint, Some(&client), form, Some(&tokens.scopes))
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

    /// The `DPoP` header of a token request, when DPoP is on.
    fn token_proof(&self, endpoint: &Url) -> Result<Vec<(String, String)>, AuthError> {
        let dpop = self.dpop.lock();
        let Some(key) = dpop.key.as_ref().filter(|_| dpop.active) else {
            return Ok(Vec::new());
        };
        let proof = key
            .dpop_proof("POST", endpoint.as_str(), None, dpop.as_nonce.as_deref())
            .map_err(|message| AuthError::Agent {
                server: self.server(),
                message,
            })?;
        Ok(vec![("DPoP".to_owned(), proof)])
    }

    /// Keeps the nonce a token endpoint gave; `true` when it refused the proof for want of
    /// it (`use_dpop_nonce`), the request then being due again.
    fn note_as_nonce(&self, answer: &Answer) -> bool {
        let Some(nonce) = &answer.dpop_nonce else {
            return false;
        };
        let mut dpop = self.dpop.lock();
        if !dpop.active {
            return false;
        }
        let fresh = dpop.as_nonce.as_ref() != Some(nonce);
        dpop.as_nonce = Some(nonce.clone());
        fresh
            && answer.status == reqwest::StatusCode::BAD_REQUEST
            && answer.json.get("error").and_then(Value::as_str) == Some("use_dpop_nonce")
    }

    /// An endpoint's answer, if it is a success; else its OAuth error.
    pub(super) fn accepted(&self, what: &'static str, answer: Answer) -> Result<Answer, AuthError> {
        if answer.status.is_success() {
            Ok(answer)
        } else {
            Err(self.refused(what, &answer.json, answer.status))
        }
    }

    /// The string `field` of an endpoint's answer, which must be there.
    pub(super) fn answered(
        &self,
        what: &'static str,
        answer: &Answer,
        field: &str,
    ) -> Result<String, AuthError> {
        text(&answer.json, field).ok_or_else(|| AuthError::Refused {
            server: self.server(),
            what,
            error: "invalid_response".to_owned(),
            description: Some(format!("the answer has no {field}")),
        })
    }

    /// Sends a token request for `client` (none: the form identifies it, if anything) and
    /// makes what it brought.
    pub(super) async fn obtain(
        &self,
        token_endpoint: Url,
        client: Option<ClientRegistration>,
        form: Vec<(&'static str, String)>,
        scopes: Option<&[String]>,
    ) -> Result<Obtained, AuthError> {
        let tokens = self
            .token_request(&token_endpoint, client.as_ref(), form, scopes)
            .await?;
        Ok(Obtained {
            tokens,
            client,
            token_endpoint,
        })
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
/// The string `name` of a JSON answer.
pub(super) fn text(json: &Value, name: &str) -> Option<String> {
    json.get(name).and_then(Value::as_str).map(str::to_owned)
}

pub(super) struct Code {
    pub(super) code: String,
    pub(super) verifier: String,
}
