//! The OAuth 2.1 resource server over real HTTP: JWT access tokens checked against a JWKS
//! served by a real HTTP server — valid, expired, wrong audience, wrong issuer, bad signature,
//! unknown key, and a key rotation picked up by fetching the JWKS again.

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
