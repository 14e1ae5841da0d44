//! The HTTP exchanges of the flow, under the trust policy: every URL is checked before it is
//! used (in Untrusted mode by the rules of a server's URL, else for an http(s) scheme),
//! redirects are never followed, and documents have size and time limits.

use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use mcp_jsonrpc::BodyError;
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use serde_json::Value;
use url::Url;

use super::AuthError;
use crate::security::{self, TrustMode, UntrustedStreamableHttpPolicy};

/// The largest metadata document or endpoint answer read.
pub const MAX_DOCUMENT_BYTES: usize = 64 * 1024;
/// Bounds each exchange of the flow (connecting, headers and body).
pub const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(15);

/// An answer of an endpoint: status, the body as JSON (`Null` when it is not), and the DPoP
/// nonce it gave.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) status: reqwest::StatusCode,
    pub(crate) json: Value,
    pub(crate) dpop_nonce: Option<String>,
}

/// The HTTP side of the flow, for one server.
#[derive(Debug, Clone)]
pub(crate) struct Fetcher {
    http: reqwest::Client,
    pub(crate) server: String,
    trust: TrustMode,
    policy: UntrustedStreamableHttpPolicy,
}

impl Fetcher {
    pub(crate) fn new(
        server: &str,
        trust: TrustMode,
        policy: UntrustedStreamableHttpPolicy,
    ) -> Result<Self, AuthError> {
        let http = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(EXCHANGE_TIMEOUT)
            .build()
            .map_err(|e| AuthError::Agent {
                server: server.to_owned(),
                message: format!("cannot build the HTTP client: {e}"),
            })?;
        Ok(Self {
            http,
            server: server.to_owned(),
            trust,
            policy,
        })
    }

    /// Checks a URL of the flow before it is fetched or opened, `field` naming where it came
    /// from; returns it parsed.
    pub(crate) async fn check(&self, field: &'static str, url: &str) -> Result<Url, AuthError> {
        let bad = || AuthError::BadUrl {
            server: self.server.clone(),
            field,
            url: mcp_jsonrpc::redact_url(url),
        };
        let parsed = Url::parse(url).map_err(|_| bad())?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(bad());
        }
        if self.trust == TrustMode::Untrusted {
            security::check_untrusted_url(&self.policy, &self.server, field, url).await?;
        }
        Ok(parsed)
    }

    fn failed(&self, what: &'static str, url: &Url, message: String) -> AuthError {
        AuthError::Http {
            server: self.server.clone(),
            what,
            url: mcp_jsonrpc::redact_url(url.as_str()),
            message,
        }
    }

    /// GETs a JSON document: `None` when the server answers with anything but a 2xx JSON
    /// object (the next well-known URL is then tried); an error when it cannot be reached.
    pub(crate) async fn document(
        &self,
        what: &'static str,
        url: &Url,
    ) -> Result<Option<Value>, AuthError> {
        let request = self
            .http
            .get(url.clone())
            .header(ACCEPT, "application/json");
        let answer = self.send(what, url, request).await?;
        Ok((answer.status.is_success() && answer.json.is_object()).then_some(answer.json))
    }

    /// POSTs a form (`application/x-www-form-urlencoded`), with HTTP Basic client
    /// authentication when `basic` is given (both parts form-encoded first, RFC 6749 §2.3.1).
    pub(crate) async fn post_form(
        &self,
        what: &'static str,
        url: &Url,
        form: &[(&str, &str)],
        basic: Option<(&str, &str)>,
        headers: &[(String, String)],
    ) -> Result<Answer, AuthError> {
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form)
            .finish();
        let mut request = self
            .http
            .post(url.clone())
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header(ACCEPT, "application/json")
            .body(body);
        if let Some((id, secret)) = basic {
            let encode =
                |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
            let pair = format!("{}:{}", encode(id), encode(secret));
            request = request.header(AUTHORIZATION, format!("Basic {}", STANDARD.encode(pair)));
        }
        for (name, value) in headers {
            request = request.header(name.as_str(), value.as_str());
        }
        self.send(what, url, request).await
    }

    /// POSTs a JSON document.
    pub(crate) async fn post_json(
        &self,
        what: &'static str,
        url: &Url,
        body: &Value,
    ) -> Result<Answer, AuthError> {
        let request = self
            .http
            .post(url.clone())
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json")
            .body(body.to_string());
        self.send(what, url, request).await
    }

    async fn send(
        &self,
        what: &'static str,
        url: &Url,
        request: reqwest::RequestBuilder,
    ) -> Result<Answer, AuthError> {
        let response = request
            .send()
            .await
            .map_err(|e| self.failed(what, url, e.without_url().to_string()))?;
        let status = response.status();
        let dpop_nonce = response
            .headers()
            .get("dpop-nonce")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        if status.is_redirection() {
            return Err(self.failed(
                what,
                url,
                format!("HTTP {status}: redirects are not followed"),
            ));
        }
        let body = mcp_jsonrpc::read_limited(response, MAX_DOCUMENT_BYTES)
            .await
            .map_err(|e| match e {
                BodyError::TooLarge => self.failed(
                    what,
                    url,
                    format!("the answer exceeds {MAX_DOCUMENT_BYTES} bytes"),
                ),
                BodyError::Http(e) => self.failed(what, url, e.without_url().to_string()),
            })?;
        Ok(Answer {
            status,
            dpop_nonce,
            json: serde_json::from_slice(&body).unwrap_or(Value::Null),
        })
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    fn fetcher(trust: TrustMode, policy: UntrustedStreamableHttpPolicy) -> Fetcher {
        Fetcher::new("remote", trust, policy).unwrap()
    }

    async fn refusal(fetcher: &Fetcher, field: &'static str, url: &str) -> String {
        fetcher.check(field, url).await.unwrap_err().to_string()
    }

    /// Every URL of the flow meets the trust policy with the refusals (and messages) of a
    /// server's URL, naming the field it came from; in trusted mode it must still be http(s).
    #[tokio::test]
    async fn each_url_of_the_flow_is_refused_as_a_servers_url_would_be() {
        const TRUST: &str = "rerun with --trust (CLI) or use TrustMode::Trusted (code)";
        let untrusted = fetcher(
            TrustMode::Untrusted,
            UntrustedStreamableHttpPolicy::default(),
        );
        let cases = [
            (
                "resource_metadata",
                "http://mcp.example.com/.well-known/oauth-protected-resource",
                "refusing to connect non-https streamable http url in untrusted mode: server \
                 `remote`, field `resource_metadata`, url `http://mcp.example.com/…`; use \
                 https://, or rerun with --allow-http (CLI) / UntrustedStreamableHttpPolicy { \
                 require_https: false, .. } (code)"
                    .to_owned(),
            ),
            (
                "authorization_servers",
                "https://auth.localhost",
                "refusing to connect localhost/local/single-label domain in untrusted mode: \
                 server `remote`, field `authorization_servers`, url `https://auth.localhost`, \
                 host `auth.localhost`; rerun with --allow-localhost (CLI) / \
                 UntrustedStreamableHttpPolicy { allow_localhost: true, .. } (code), or with \
                 --trust (--allow-host does not lift this rule)"
                    .to_owned(),
            ),
            (
                "token_endpoint",
                "https://10.0.0.1/token?x=1",
                "refusing to connect non-global ip in untrusted mode: server `remote`, field \
                 `token_endpoint`, url `https://10.0.0.1/…`, ip `10.0.0.1`; rerun with \
                 --allow-private-ip (CLI) / UntrustedStreamableHttpPolicy { allow_private_ips: \
                 true, .. } (code), or with --trust"
                    .to_owned(),
            ),
            (
                "authorization_endpoint",
                "https://user:pw@auth.example.com/authorize",
                format!(
                    "refusing to connect streamable http url with credentials in untrusted mode: \
                     server `remote`, field `authorization_endpoint`, url \
                     `https://auth.example.com/…` (credentials not shown); remove the user:pass@ \
                     part, or {TRUST}"
                ),
            ),
            (
                "token_endpoint",
                "https://bücher.example/token",
                format!(
                    "refusing to connect unparsable streamable http url in untrusted mode: server \
                     `remote`, field `token_endpoint`: non-ASCII hosts are not supported in \
                     untrusted mode (write them in punycode, xn--…); write it as \
                     https://host[:port]/path with an ASCII (punycode) host, or {TRUST}"
                ),
            ),
            (
                "authorization_endpoint",
                "javascript:alert(1)",
                "mcp server `remote`: the authorization_endpoint `javascript:alert(1)` is not an \
                 http(s) URL"
                    .to_owned(),
            ),
        ];
        for (field, url, message) in cases {
            assert_eq!(
                refusal(&untrusted, field, url).await,
                message,
                "{field} {url}"
            );
        }
        let allowlist = fetcher(
            TrustMode::Untrusted,
            UntrustedStreamableHttpPolicy {
                allowed_hosts: vec!["example.com".into()],
                ..Default::default()
            },
        );
        assert_eq!(
            refusal(
                &allowlist,
                "registration_endpoint",
                "https://evil.test/register"
            )
            .await,
            "refusing to connect host not in allowlist in untrusted mode: server `remote`, field \
             `registration_endpoint`, url `https://evil.test/…`, host `evil.test`; add it with \
             --allow-host evil.test (CLI) / UntrustedStreamableHttpPolicy::allowed_hosts (code), \
             or rerun with --trust"
        );
        let trusted = fetcher(TrustMode::Trusted, UntrustedStreamableHttpPolicy::default());
        assert!(
            trusted
                .check("token_endpoint", "http://localhost:1/token")
                .await
                .is_ok()
        );
        assert_eq!(
            refusal(&trusted, "authorization_endpoint", "file:///etc/passwd").await,
            "mcp server `remote`: the authorization_endpoint `file:///etc/passwd` is not an \
             http(s) URL"
        );
    }
}
