//! Authentication over real HTTP: static bearer tokens and API keys, `401` challenges that
//! point at the RFC 9728 metadata document, per-tool scopes refused with `403
//! insufficient_scope`, and sessions that belong to the principal that opened them.

mod http_support;

use std::sync::Arc;

use http_support::*;
use mcp_server::auth::{Principal, StaticTokens};
use mcp_server::middleware::RequireScopes;
use mcp_server::{HttpOptions, NoArguments, ProtectedResourceMetadata, Server};
use serde_json::{Value, json};

fn server() -> Server {
    Server::builder("auth", "1.0.0")
        .tool("read", "Reads", |_: NoArguments, _| async { Ok("read") })
        .tool("write", "Writes", |_: NoArguments, cx| async move {
            Ok(format!(
                "written by {}",
                cx.principal().map_or("nobody", |p| p.subject.as_str())
            ))
        })
        .middleware(RequireScopes::new().tool("write", ["files:write"]))
        .build()
}

fn options() -> HttpOptions {
    let mut options = HttpOptions::default();
    options.auth = Some(Arc::new(
        StaticTokens::new()
            .token("reader-token", Principal::new("reader", ["files:read"]))
            .token(
                "writer-token",
                Principal::new("writer", ["files:read", "files:write"]),
            ),
    ));
    options.resource_metadata = Some(
        ProtectedResourceMetadata::new(
            "http://127.0.0.1/mcp",
            vec!["https://auth.example.com".to_owned()],
        )
        .scopes(vec!["files:read".into(), "files:write".into()]),
    );
    options
}

fn call(id: i64, tool: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool}})
}

fn init() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}})
}

#[tokio::test]
async fn tokens_scopes_and_session_owners() {
    let server = server();
    let http = start(&server, options()).await;
    let url = http.url();
    let c = client();

    // No credentials: 401 with a challenge naming the metadata document.
    let response = post(&c, &url).json(&init()).send().await.unwrap();
    assert_eq!(response.status(), 401);
    let challenge = response.headers()["www-authenticate"]
        .to_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        challenge,
        "Bearer resource_metadata=\"http://127.0.0.1/.well-known/oauth-protected-resource/mcp\""
    );
    // A wrong token: invalid_token.
    let response = post(&c, &url)
        .bearer_auth("nope")
        .json(&init())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    assert!(
        response.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .contains("error=\"invalid_token\"")
    );

    // The metadata document.
    let base = format!("http://{}", http.local_addr());
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let doc = get_json(&c, &format!("{base}{path}")).await;
        assert_eq!(doc["resource"], "http://127.0.0.1/mcp");
        assert_eq!(doc["authorization_servers"][0], "https://auth.example.com");
        assert_eq!(
            doc["scopes_supported"],
            json!(["files:read", "files:write"])
        );
    }

    // The operations pages: /health is open to probes, the others are authenticated.
    assert_eq!(
        c.get(format!("{base}/health"))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    for page in ["/tools", "/info"] {
        let anonymous = c.get(format!("{base}{page}")).send().await.unwrap();
        assert_eq!(anonymous.status(), 401, "{page}");
        let known = c
            .get(format!("{base}{page}"))
            .bearer_auth("reader-token")
            .send()
            .await
            .unwrap();
        assert_eq!(known.status(), 200, "{page}");
    }

    // The reader: may read, may not write (403 insufficient_scope).
    let response = post(&c, &url)
        .bearer_auth("reader-token")
        .json(&init())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let sid = session_id(&response);
    let (status, body, _) = outcome(
        in_session(&c, &url, &sid)
            .bearer_auth("reader-token")
            .json(&call(1, "read"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let response = in_session(&c, &url, &sid)
        .bearer_auth("reader-token")
        .json(&call(2, "write"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403);
    assert_eq!(
        response.headers()["www-authenticate"],
        "Bearer error=\"insufficient_scope\", scope=\"files:write\", \
         resource_metadata=\"http://127.0.0.1/.well-known/oauth-protected-resource/mcp\""
    );
    let (_, body, code) = outcome(response).await;
    assert_eq!(code, Some(-32013), "{body}");
    // Another principal may not use the reader's session; an API key works like a token.
    let (status, _, _) = outcome(
        in_session(&c, &url, &sid)
            .header("x-api-key", "writer-token")
            .json(&call(3, "read"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 403);

    // The writer, statelessly (2026-07-28): allowed, and the handler sees the principal.
    let response = stateless(&c, &url, 4, "tools/call", json!({"name": "write"}))
        .bearer_auth("writer-token")
        .send()
        .await
        .unwrap();
    let (status, body, _) = outcome(response).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(text_of(&body), "written by writer");
}
