//! The OAuth 2.1 resource server over real HTTP: JWT access tokens checked against a JWKS
//! served by a real HTTP server — valid, expired, wrong audience, wrong issuer, bad signature,
//! unknown key, and a key rotation picked up by fetching the JWKS again — and the JWKS found
//! from the issuer's metadata (RFC 8414, OpenID Connect with the path inserted or appended),
//! lazily, with the issuer checked byte for byte, a failed discovery tried again, keys that
//! moved found again, and an explicit JWKS URL used without any discovery.

mod http_support;

use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use http_support::*;
use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
use mcp_server::auth::JwtAuthenticator;
use mcp_server::{HttpOptions, NoArguments, ProtectedResourceMetadata, Server};
use serde_json::{Value, json};

const ISSUER: &str = "https://auth.example.com";
const AUDIENCE: &str = "http://127.0.0.1/mcp";

fn fixture(name: &str) -> String {
    std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/oauth")
            .join(name),
    )
    .unwrap()
}

/// A JWKS endpoint whose document the test can swap (key rotation).
async fn jwks_server(document: Arc<RwLock<String>>) -> String {
    let app = axum::Router::new().route(
        "/jwks",
        axum::routing::get(move || {
            let body = document.read().unwrap().clone();
            async move { ([("content-type", "application/json")], body) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}/jwks")
}

/// The DER bytes of a PEM document (PKCS#8 private key).
fn pem_to_der(pem: &str) -> Vec<u8> {
    use base64::Engine;
    let body: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
    base64::engine::general_purpose::STANDARD
        .decode(body)
        .unwrap()
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn token(key: &str, kid: &str, claims: Value) -> String {
    let mut header = Header::new(Algorithm::ES256);
    header.kid = Some(kid.to_owned());
    encode(
        &header,
        &claims,
        &EncodingKey::from_ec_der(&pem_to_der(&fixture(key))),
    )
    .unwrap()
}

fn claims() -> Value {
    json!({"iss": ISSUER, "aud": AUDIENCE, "sub": "alice", "exp": now() + 300, "scope": "tools:read tools:call"})
}

#[tokio::test]
async fn jwt_access_tokens_are_checked_against_the_jwks() {
    let document = Arc::new(RwLock::new(fixture("jwks1.json")));
    let jwks_url = jwks_server(document.clone()).await;
    let server = Server::builder("oauth", "1.0.0")
        .tool("whoami", "Who is asking", |_: NoArguments, cx| async move {
            let p = cx.principal().expect("authenticated");
            Ok(format!("{} {:?}", p.subject, p.scopes))
        })
        .build();
    let mut options = HttpOptions::default();
    options.auth = Some(Arc::new(
        JwtAuthenticator::new(ISSUER, AUDIENCE, jwks_url).refetch_interval(Duration::ZERO),
    ));
    options.resource_metadata = Some(ProtectedResourceMetadata::new(
        AUDIENCE,
        vec![ISSUER.to_owned()],
    ));
    let http = start(&server, options).await;
    let url = http.url();
    let c = client();
    let call = |token: &str| {
        stateless(&c, &url, 1, "tools/call", json!({"name": "whoami"}))
            .bearer_auth(token.to_owned())
    };
    let accepted = |token: String| {
        let request = call(&token);
        async move {
            let (status, body, _) = outcome(request.send().await.unwrap()).await;
            assert_eq!(status, 200, "{body}");
            body
        }
    };

    let body = accepted(token("key1.pem", "k1", claims())).await;
    assert_eq!(text_of(&body), r#"alice {"tools:call", "tools:read"}"#);

    let refused = |claims: Value, key: &'static str, kid: &'static str, why: &'static str| {
        let request = call(&token(key, kid, claims));
        async move {
            let response = request.send().await.unwrap();
            assert_eq!(response.status(), 401, "{why}");
            let challenge = response.headers()["www-authenticate"]
                .to_str()
                .unwrap()
                .to_owned();
            assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
            assert!(challenge.contains(why), "{challenge}");
            assert!(challenge.contains(
                "resource_metadata=\"http://127.0.0.1/.well-known/oauth-protected-resource/mcp\""
            ));
        }
    };
    let mut expired = claims();
    expired["exp"] = json!(now() - 3600);
    refused(expired, "key1.pem", "k1", "expired").await;
    let mut audience = claims();
    audience["aud"] = json!("https://other.example.com/mcp");
    refused(audience, "key1.pem", "k1", "another audience").await;
    let mut issuer = claims();
    issuer["iss"] = json!("https://evil.example.com");
    refused(issuer, "key1.pem", "k1", "another issuer").await;
    // Signed with key 2 but naming key 1.
    refused(claims(), "key2.pem", "k1", "signature").await;
    // Key 2 is not published yet.
    refused(claims(), "key2.pem", "k2", "unknown signing key").await;

    // The issuer rotates: key 2 is published; the server fetches the JWKS again.
    *document.write().unwrap() = fixture("jwks2.json");
    accepted(token("key2.pem", "k2", claims())).await;

    // No token at all: a bare challenge.
    let response = stateless(&c, &url, 2, "tools/list", json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    assert!(
        !response.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .contains("invalid_token")
    );
}

/// A session started with one authenticator's principal is not usable with another
/// authenticator's principal of the same subject: a JWT whose `sub` is the name a static
/// token stands for does not take over that token's session (POST, GET stream, DELETE).
#[tokio::test]
async fn a_session_belongs_to_its_authenticator_not_just_the_subject() {
    use mcp_server::auth::{AnyOf, Principal, StaticTokens};
    let jwks_url = jwks_server(Arc::new(RwLock::new(fixture("jwks1.json")))).await;
    let server = Server::builder("oauth", "1.0.0")
        .tool("whoami", "Who is asking", |_: NoArguments, cx| async move {
            Ok(cx.principal().expect("authenticated").subject.clone())
        })
        .build();
    let mut options = HttpOptions::default();
    options.auth = Some(Arc::new(AnyOf(vec![
        Arc::new(StaticTokens::new().token("t1", Principal::new("token:1", ["tools:call"]))),
        Arc::new(
            JwtAuthenticator::new(ISSUER, AUDIENCE, jwks_url).refetch_interval(Duration::ZERO),
        ),
    ])));
    let http = start(&server, options).await;
    let url = http.url();
    let c = client();
    let response = post(&c, &url)
        .bearer_auth("t1")
        .json(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": LEGACY, "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let sid = session_id(&response);
    let mut forged = claims();
    forged["sub"] = json!("token:1");
    let jwt = token("key1.pem", "k1", forged);
    let call = |bearer: &str| {
        in_session(&c, &url, &sid)
            .bearer_auth(bearer.to_owned())
            .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                          "params": {"name": "whoami"}}))
    };
    // POST, the GET stream and DELETE of the session all refuse the forged principal.
    let with_forged = |request: reqwest::RequestBuilder| {
        request
            .header("mcp-session-id", &sid)
            .header("mcp-protocol-version", LEGACY)
            .bearer_auth(&jwt)
            .send()
    };
    let hijack = call(&jwt).send().await.unwrap();
    assert_eq!(
        hijack.status(),
        403,
        "POST with another authenticator's principal"
    );
    let stream = with_forged(c.get(&url).header("accept", "text/event-stream"))
        .await
        .unwrap();
    assert_eq!(
        stream.status(),
        403,
        "GET with another authenticator's principal"
    );
    let delete = with_forged(c.delete(&url)).await.unwrap();
    assert_eq!(
        delete.status(),
        403,
        "DELETE with another authenticator's principal"
    );
    let (status, body, _) = outcome(call("t1").send().await.unwrap()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(text_of(&body), "token:1");
}

/// An authorization server's well-known documents, served from a table the test fills (path →
/// JSON), every request counted by path; other paths are `404`.
#[derive(Clone, Default)]
struct MetadataServer {
    documents: Arc<RwLock<std::collections::HashMap<String, String>>>,
    hits: Arc<RwLock<std::collections::HashMap<String, usize>>>,
    origin: String,
}

impl MetadataServer {
    async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let server = Self {
            origin: format!("http://{}", listener.local_addr().unwrap()),
            ..Self::default()
        };
        let (documents, hits) = (server.documents.clone(), server.hits.clone());
        let app = axum::Router::new().fallback(move |uri: axum::http::Uri| {
            let path = uri.path().to_owned();
            *hits.write().unwrap().entry(path.clone()).or_default() += 1;
            let found = documents.read().unwrap().get(&path).cloned();
            async move {
                match found {
                    Some(body) => (
                        axum::http::StatusCode::OK,
                        [("content-type", "application/json")],
                        body,
                    ),
                    None => (
                        axum::http::StatusCode::NOT_FOUND,
                        [("content-type", "text/plain")],
                        "not found".to_owned(),
                    ),
                }
            }
        });
        tokio::spawn(async move { axum::serve(listener, app).await });
        server
    }

    /// Serves `body` at `path`.
    fn serve(&self, path: &str, body: impl Into<String>) {
        self.documents
            .write()
            .unwrap()
            .insert(path.to_owned(), body.into());
    }

    /// Serves metadata for `issuer` naming `/jwks` (which serves `jwks1.json`) at `path`.
    fn metadata(&self, path: &str, issuer: &str) {
        self.serve(
            path,
            json!({"issuer": issuer, "jwks_uri": format!("{}/jwks", self.origin),
                   "authorization_endpoint": format!("{}/authorize", self.origin),
                   "token_endpoint": format!("{}/token", self.origin)})
            .to_string(),
        );
        self.serve("/jwks", fixture("jwks1.json"));
    }

    /// Stops serving `path` (`404`).
    fn remove(&self, path: &str) {
        self.documents.write().unwrap().remove(path);
    }

    fn hits(&self, path: &str) -> usize {
        self.hits.read().unwrap().get(path).copied().unwrap_or(0)
    }

    fn total_hits(&self) -> usize {
        self.hits.read().unwrap().values().sum()
    }
}

/// A server whose only tool says who is asking, behind `auth`; its URL.
async fn protected(
    auth: Arc<dyn mcp_server::auth::Authenticator>,
) -> (mcp_server::HttpServer, String) {
    let server = Server::builder("oauth", "1.0.0")
        .tool("whoami", "Who is asking", |_: NoArguments, cx| async move {
            Ok(cx.principal().expect("authenticated").subject.clone())
        })
        .build();
    let mut options = HttpOptions::default();
    options.auth = Some(auth);
    let http = start(&server, options).await;
    let url = http.url();
    (http, url)
}

/// Calls `whoami` with a token from `issuer`: the status and, on `401`, the challenge.
async fn whoami(url: &str, issuer: &str) -> (u16, String) {
    let mut claims = claims();
    claims["iss"] = json!(issuer);
    let response = stateless(&client(), url, 1, "tools/call", json!({"name": "whoami"}))
        .bearer_auth(token("key1.pem", "k1", claims))
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let (_, body, _) = outcome(response).await;
    if status == 200 {
        assert_eq!(text_of(&body), "alice", "{body}");
    }
    (status, challenge)
}

const RFC8414: &str = "/.well-known/oauth-authorization-server";
const OPENID: &str = "/.well-known/openid-configuration";

#[test]
fn metadata_urls_follow_the_order_mcp_clients_use() {
    assert_eq!(
        JwtAuthenticator::metadata_urls("https://auth.example.com"),
        [
            "https://auth.example.com/.well-known/oauth-authorization-server",
            "https://auth.example.com/.well-known/openid-configuration",
        ]
    );
    assert_eq!(
        JwtAuthenticator::metadata_urls("https://auth.example.com/"),
        JwtAuthenticator::metadata_urls("https://auth.example.com")
    );
    assert_eq!(
        JwtAuthenticator::metadata_urls("https://auth.example.com:8443/tenant/one/"),
        [
            "https://auth.example.com:8443/.well-known/oauth-authorization-server/tenant/one",
            "https://auth.example.com:8443/.well-known/openid-configuration/tenant/one",
            "https://auth.example.com:8443/tenant/one/.well-known/openid-configuration",
        ]
    );
    assert!(JwtAuthenticator::metadata_urls("auth.example.com").is_empty());
    assert!(JwtAuthenticator::metadata_urls("ftp://auth.example.com").is_empty());
}

/// RFC 8414 first, with the issuer's path inserted after the well-known part; nothing is
/// fetched before the first token; the OpenID document is not needed then.
#[tokio::test]
async fn the_jwks_is_discovered_from_rfc8414_metadata() {
    let as_ = MetadataServer::start().await;
    let issuer = format!("{}/tenant", as_.origin);
    as_.metadata(&format!("{RFC8414}/tenant"), &issuer);
    // An OpenID document that would not do: it must not be read.
    as_.serve(
        &format!("{OPENID}/tenant"),
        json!({"issuer": issuer, "jwks_uri": format!("{}/nowhere", as_.origin)}).to_string(),
    );
    let (_http, url) = protected(Arc::new(JwtAuthenticator::discovering(
        issuer.clone(),
        AUDIENCE,
    )))
    .await;
    assert_eq!(
        as_.total_hits(),
        0,
        "nothing is fetched before a token arrives"
    );

    assert_eq!(whoami(&url, &issuer).await.0, 200);
    assert_eq!(whoami(&url, &issuer).await.0, 200);
    assert_eq!(as_.hits(&format!("{RFC8414}/tenant")), 1);
    assert_eq!(as_.hits("/jwks"), 1, "the keys are fetched once and kept");
    assert_eq!(as_.hits(&format!("{OPENID}/tenant")), 0);
}

/// Without RFC 8414 metadata, the OpenID Connect configuration: at the root for an issuer
/// without a path, and for one with a path inserted, else appended.
#[tokio::test]
async fn the_jwks_is_discovered_from_openid_metadata() {
    let as_ = MetadataServer::start().await;
    let root = as_.origin.clone();
    let inserted = format!("{root}/inserted");
    let appended = format!("{root}/appended");
    as_.metadata(OPENID, &root);
    as_.metadata(&format!("{OPENID}/inserted"), &inserted);
    as_.metadata(&format!("/appended{OPENID}"), &appended);
    for (issuer, document, before) in [
        (&root, OPENID.to_owned(), vec![RFC8414.to_owned()]),
        (
            &inserted,
            format!("{OPENID}/inserted"),
            vec![format!("{RFC8414}/inserted")],
        ),
        (
            &appended,
            format!("/appended{OPENID}"),
            vec![format!("{RFC8414}/appended"), format!("{OPENID}/appended")],
        ),
    ] {
        let (_http, url) = protected(Arc::new(JwtAuthenticator::discovering(
            issuer.clone(),
            AUDIENCE,
        )))
        .await;
        let (status, challenge) = whoami(&url, issuer).await;
        assert_eq!(status, 200, "{issuer}: {challenge}");
        assert_eq!(as_.hits(&document), 1, "{issuer}");
        for tried in before {
            assert_eq!(as_.hits(&tried), 1, "{issuer}: {tried} is tried first");
        }
    }
}

/// A document whose `issuer` differs from the configured one by a single byte (a trailing
/// slash) is refused, and its keys are never fetched.
#[tokio::test]
async fn metadata_of_another_issuer_is_refused() {
    let as_ = MetadataServer::start().await;
    let issuer = as_.origin.clone();
    as_.metadata(RFC8414, &format!("{issuer}/"));
    let (_http, url) = protected(Arc::new(
        JwtAuthenticator::discovering(issuer.clone(), AUDIENCE).refetch_interval(Duration::ZERO),
    ))
    .await;
    let (status, challenge) = whoami(&url, &issuer).await;
    assert_eq!(status, 401);
    assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
    assert!(
        challenge.contains("could not be discovered")
            && challenge.contains(&format!("is for issuer `{issuer}/`, not `{issuer}`"))
            && challenge.contains("identical"),
        "{challenge}"
    );
    assert_eq!(as_.hits("/jwks"), 0);
    // The OpenID document is not a way around the refusal.
    as_.metadata(OPENID, &issuer);
    assert_eq!(whoami(&url, &issuer).await.0, 401);
    assert_eq!(as_.hits(OPENID), 0);
}

/// The authorization server publishes no metadata yet when the server starts and the first
/// token arrives: the token is refused saying why; once it does, a later token discovers the
/// keys. Within the refetch interval a failure is the answer without asking the issuer again.
#[tokio::test]
async fn a_failed_discovery_is_tried_again_for_a_later_token() {
    let as_ = MetadataServer::start().await;
    let issuer = as_.origin.clone();
    let (_http, url) = protected(Arc::new(
        JwtAuthenticator::discovering(issuer.clone(), AUDIENCE).refetch_interval(Duration::ZERO),
    ))
    .await;
    let (status, challenge) = whoami(&url, &issuer).await;
    assert_eq!(status, 401);
    assert!(
        challenge.contains("error=\"invalid_token\"")
            && challenge
                .contains("could not be discovered: no authorization server metadata found")
            && challenge.contains(&format!("{issuer}{RFC8414}: HTTP 404 Not Found"))
            && challenge.contains(&format!("{issuer}{OPENID}: HTTP 404 Not Found")),
        "{challenge}"
    );
    as_.metadata(RFC8414, &issuer);
    assert_eq!(whoami(&url, &issuer).await.0, 200);
    assert_eq!(as_.hits(RFC8414), 2);

    let quiet = MetadataServer::start().await;
    let issuer = quiet.origin.clone();
    let (_http, url) = protected(Arc::new(
        JwtAuthenticator::discovering(issuer.clone(), AUDIENCE)
            .refetch_interval(Duration::from_secs(3600)),
    ))
    .await;
    let (status, challenge) = whoami(&url, &issuer).await;
    assert_eq!(status, 401);
    quiet.metadata(RFC8414, &issuer);
    assert_eq!(whoami(&url, &issuer).await, (401, challenge));
    assert_eq!(
        quiet.hits(RFC8414),
        1,
        "not asked again within the interval"
    );
}

/// The issuer moves its keys (a new `jwks_uri`, the old URL gone) while rotating them: the
/// fetch from the old URL fails, and the next attempt reads the metadata again.
#[tokio::test]
async fn keys_that_moved_are_found_from_the_metadata_again() {
    let as_ = MetadataServer::start().await;
    let issuer = as_.origin.clone();
    as_.metadata(RFC8414, &issuer);
    let (_http, url) = protected(Arc::new(
        JwtAuthenticator::discovering(issuer.clone(), AUDIENCE).refetch_interval(Duration::ZERO),
    ))
    .await;
    assert_eq!(whoami(&url, &issuer).await.0, 200);

    as_.remove("/jwks");
    as_.serve("/keys2", fixture("jwks2.json"));
    as_.serve(
        RFC8414,
        json!({"issuer": issuer, "jwks_uri": format!("{issuer}/keys2")}).to_string(),
    );
    let rotated = || {
        let mut claims = claims();
        claims["iss"] = json!(issuer);
        token("key2.pem", "k2", claims)
    };
    let call = |jwt: String| {
        let request =
            stateless(&client(), &url, 1, "tools/call", json!({"name": "whoami"})).bearer_auth(jwt);
        async move { request.send().await.unwrap() }
    };
    let refused = call(rotated()).await;
    assert_eq!(refused.status(), 401);
    let challenge = refused.headers()["www-authenticate"].to_str().unwrap();
    assert!(
        challenge.contains(&format!(
            "could not be fetched from {issuer}/jwks: HTTP 404 Not Found"
        )),
        "{challenge}"
    );
    assert_eq!(call(rotated()).await.status(), 200);
    assert_eq!(as_.hits(RFC8414), 2, "the metadata was read again");
    assert_eq!(as_.hits("/keys2"), 1);
}

/// An explicit JWKS URL is used as it is: no metadata is read, even where a document exists.
#[tokio::test]
async fn an_explicit_jwks_url_is_used_without_discovery() {
    let as_ = MetadataServer::start().await;
    let issuer = as_.origin.clone();
    as_.serve(
        RFC8414,
        json!({"issuer": issuer, "jwks_uri": format!("{issuer}/nowhere")}).to_string(),
    );
    as_.serve("/keys", fixture("jwks1.json"));
    let (_http, url) = protected(Arc::new(JwtAuthenticator::new(
        issuer.clone(),
        AUDIENCE,
        format!("{issuer}/keys"),
    )))
    .await;
    assert_eq!(whoami(&url, &issuer).await.0, 200);
    assert_eq!(as_.hits("/keys"), 1);
    assert_eq!(
        as_.hits(RFC8414) + as_.hits(OPENID) + as_.hits("/nowhere"),
        0
    );
}

/// `[auth.oauth]` without `jwks_url` discovers; with it, uses it.
#[tokio::test]
async fn the_configuration_discovers_unless_given_a_jwks_url() {
    let as_ = MetadataServer::start().await;
    let issuer = as_.origin.clone();
    as_.metadata(RFC8414, &issuer);
    as_.serve("/keys", fixture("jwks1.json"));
    for (jwks_line, fetched) in [("", "/jwks"), ("jwks_url = \"KEYS\"", "/keys")] {
        let toml = format!(
            "[auth.oauth]\nissuer = \"{issuer}\"\naudience = \"{AUDIENCE}\"\n{}\n",
            jwks_line.replace("KEYS", &format!("{issuer}/keys"))
        );
        let config = mcp_server::ServerConfig::from_toml(&toml).unwrap();
        let options = config.http_options();
        let before = (as_.hits(RFC8414), as_.hits(fetched));
        let (_http, url) = protected(options.auth.expect("an authenticator")).await;
        assert_eq!(whoami(&url, &issuer).await.0, 200, "{toml}");
        let discovered = usize::from(jwks_line.is_empty());
        assert_eq!(
            (as_.hits(RFC8414), as_.hits(fetched)),
            (before.0 + discovered, before.1 + 1),
            "{toml}"
        );
    }
}
