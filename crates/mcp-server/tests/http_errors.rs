//! The malformed-request matrix over streamable HTTP: every refusal has its HTTP status and
//! JSON-RPC error code, and the server goes on serving valid requests afterwards.

mod http_support;

use http_support::*;
use mcp_server::schemars::JsonSchema;
use mcp_server::{HttpOptions, Server, ServerOptions};
use reqwest::{Client, RequestBuilder};
use serde::Deserialize;
use serde_json::{Value, json};

const LIMIT: usize = 16 * 1024;

#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "mcp_server::schemars")]
struct EchoArgs {
    message: String,
}

fn server() -> Server {
    let mut options = ServerOptions::default();
    options.max_message_bytes = LIMIT;
    Server::builder("http-errors", "1.0.0")
        .options(options)
        .tool(
            "echo",
            "Echoes its message",
            |a: EchoArgs, _cx| async move { Ok(a.message) },
        )
        .build()
}

/// After each refusal: a valid stateful call and a valid stateless call still work.
async fn still_serves(client: &Client, url: &str, sid: &str, n: i64) {
    let call = json!({
        "jsonrpc": "2.0", "id": n, "method": "tools/call",
        "params": { "name": "echo", "arguments": { "message": format!("ok {n}") } },
    });
    let (status, body, _) = outcome(
        in_session(client, url, sid)
            .json(&call)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(text_of(&body), format!("ok {n}"));
    let params = json!({ "name": "echo", "arguments": { "message": "stateless ok" } });
    let (status, body, _) = outcome(
        stateless(client, url, n, "tools/call", params)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(text_of(&body), "stateless ok");
}

struct Case {
    name: &'static str,
    request: RequestBuilder,
    status: u16,
    code: i64,
    /// The id the error must carry (`Value::Null` when the request's id was unknown).
    id: Value,
}

#[tokio::test]
async fn every_malformed_request_gets_its_status_and_code() {
    let server = server();
    let http = start(&server, HttpOptions::default()).await;
    let url = http.url();
    let c = client();
    let sid = initialize(&c, &url).await;
    let tools_list = json!({ "jsonrpc": "2.0", "id": 7, "method": "tools/list" });
    let echo = |id: i64| {
        json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": { "name": "echo", "arguments": { "message": "x" }, "_meta": meta() } })
    };
    let cases = vec![
        Case {
            name: "parse error",
            request: in_session(&c, &url, &sid).body("{\"jsonrpc\": \"2.0\", oops"),
            status: 400,
            code: -32700,
            id: Value::Null,
        },
        Case {
            name: "invalid request (wrong jsonrpc version)",
            request: in_session(&c, &url, &sid).body(r#"{"jsonrpc":"1.0","id":5,"method":"tools/list"}"#),
            status: 400,
            code: -32600,
            id: json!(5),
        },
        Case {
            name: "invalid request (empty batch)",
            request: in_session(&c, &url, &sid).body("[]"),
            status: 400,
            code: -32600,
            id: Value::Null,
        },
        Case {
            name: "unknown method (stateful: a JSON-RPC error in a 200)",
            request: in_session(&c, &url, &sid)
                .json(&json!({ "jsonrpc": "2.0", "id": 8, "method": "no/such/method" })),
            status: 200,
            code: -32601,
            id: json!(8),
        },
        Case {
            name: "unknown method (2026-07-28: 404)",
            request: stateless(&c, &url, 9, "no/such/method", json!({})),
            status: 404,
            code: -32601,
            id: json!(9),
        },
        Case {
            name: "removed method in 2026-07-28 (ping)",
            request: stateless(&c, &url, 10, "ping", json!({})),
            status: 404,
            code: -32601,
            id: json!(10),
        },
        Case {
            name: "bad params (stateful)",
            request: in_session(&c, &url, &sid)
                .json(&json!({ "jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": { "name": "nope" } })),
            status: 200,
            code: -32602,
            id: json!(11),
        },
        Case {
            name: "bad params (2026-07-28: 400)",
            request: stateless(&c, &url, 12, "tools/call", json!({ "name": "nope" })),
            status: 400,
            code: -32602,
            id: json!(12),
        },
        Case {
            name: "2026-07-28 without _meta",
            request: post(&c, &url)
                .header("mcp-protocol-version", MODERN)
                .header("mcp-method", "tools/list")
                .json(&json!({ "jsonrpc": "2.0", "id": 13, "method": "tools/list", "params": {} })),
            status: 400,
            code: -32602,
            id: json!(13),
        },
        Case {
            name: "unsupported 2026-era version",
            request: post(&c, &url)
                .header("mcp-protocol-version", "2099-01-01")
                .header("mcp-method", "server/discover")
                .json(&json!({ "jsonrpc": "2.0", "id": 14, "method": "server/discover", "params": {
                    "_meta": { "io.modelcontextprotocol/protocolVersion": "2099-01-01",
                               "io.modelcontextprotocol/clientCapabilities": {} } } })),
            status: 400,
            code: -32022,
            id: json!(14),
        },
        Case {
            name: "oversized body",
            request: in_session(&c, &url, &sid).json(&json!({
                "jsonrpc": "2.0", "id": 15, "method": "tools/call",
                "params": { "name": "echo", "arguments": { "message": "x".repeat(LIMIT) } },
            })),
            status: 413,
            code: -32600,
            id: Value::Null,
        },
        Case {
            name: "wrong content type",
            request: c
                .post(&url)
                .header("content-type", "text/plain")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-session-id", &sid)
                .body(tools_list.to_string()),
            status: 415,
            code: -32600,
            id: Value::Null,
        },
        Case {
            name: "Accept without text/event-stream",
            request: c
                .post(&url)
                .header("content-type", "application/json")
                .header("accept", "application/json")
                .header("mcp-session-id", &sid)
                .body(tools_list.to_string()),
            status: 406,
            code: -32600,
            id: Value::Null,
        },
        Case {
            name: "missing session",
            request: post(&c, &url).json(&tools_list),
            status: 400,
            code: -32600,
            id: json!(7),
        },
        Case {
            name: "unknown session",
            request: post(&c, &url)
                .header("mcp-session-id", "0123456789abcdef0123456789abcdef")
                .json(&tools_list),
            status: 404,
            code: -32600,
            id: json!(7),
        },
        Case {
            name: "protocol version header other than the negotiated one",
            request: post(&c, &url)
                .header("mcp-session-id", &sid)
                .header("mcp-protocol-version", "2025-06-18")
                .json(&tools_list),
            status: 400,
            code: -32600,
            id: json!(7),
        },
        Case {
            name: "unknown protocol version header",
            request: post(&c, &url)
                .header("mcp-session-id", &sid)
                .header("mcp-protocol-version", "1999-01-01")
                .json(&tools_list),
            status: 400,
            code: -32600,
            id: json!(7),
        },
        Case {
            name: "batch in a 2025-11-25 session",
            request: in_session(&c, &url, &sid).json(&json!([tools_list])),
            status: 400,
            code: -32600,
            id: Value::Null,
        },
        Case {
            name: "disallowed Host",
            request: in_session(&c, &url, &sid)
                .header("host", "evil.example.com")
                .json(&tools_list),
            status: 403,
            code: -32600,
            id: Value::Null,
        },
        Case {
            name: "disallowed Origin",
            request: in_session(&c, &url, &sid)
                .header("origin", "http://evil.example.com")
                .json(&tools_list),
            status: 403,
            code: -32600,
            id: Value::Null,
        },
        Case {
            name: "2026: no MCP-Protocol-Version header",
            request: post(&c, &url).header("mcp-method", "tools/call").header("mcp-name", "echo").json(&echo(20)),
            status: 400,
            code: -32020,
            id: json!(20),
        },
        Case {
            name: "2026: MCP-Protocol-Version header differs from _meta",
            request: post(&c, &url)
                .header("mcp-protocol-version", "2025-11-25")
                .header("mcp-method", "tools/call")
                .header("mcp-name", "echo")
                .json(&echo(21)),
            status: 400,
            code: -32020,
            id: json!(21),
        },
        Case {
            name: "2026: no Mcp-Method header",
            request: post(&c, &url)
                .header("mcp-protocol-version", MODERN)
                .header("mcp-name", "echo")
                .json(&echo(22)),
            status: 400,
            code: -32020,
            id: json!(22),
        },
        Case {
            name: "2026: Mcp-Method in another case",
            request: post(&c, &url)
                .header("mcp-protocol-version", MODERN)
                .header("mcp-method", "TOOLS/CALL")
                .header("mcp-name", "echo")
                .json(&echo(23)),
            status: 400,
            code: -32020,
            id: json!(23),
        },
        Case {
            name: "2026: no Mcp-Name header",
            request: post(&c, &url)
                .header("mcp-protocol-version", MODERN)
                .header("mcp-method", "tools/call")
                .json(&echo(24)),
            status: 400,
            code: -32020,
            id: json!(24),
        },
        Case {
            name: "2026: Mcp-Name differs from the body",
            request: post(&c, &url)
                .header("mcp-protocol-version", MODERN)
                .header("mcp-method", "tools/call")
                .header("mcp-name", "wrong_tool_name")
                .json(&echo(25)),
            status: 400,
            code: -32020,
            id: json!(25),
        },
        Case {
            name: "2026: Mcp-Name with broken base64",
            request: post(&c, &url)
                .header("mcp-protocol-version", MODERN)
                .header("mcp-method", "tools/call")
                .header("mcp-name", "=?base64?ZWNob!!?=")
                .json(&echo(26)),
            status: 400,
            code: -32020,
            id: json!(26),
        },
    ];
    // An HTTP client library adds `Accept: */*`; these go by hand.
    // An HTTP client library adds `Accept: */*` and `Host`; these requests are written by hand.
    let addr = http.local_addr();
    let raw_cases = [
        (
            "POST without Accept",
            format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nMcp-Session-Id: {sid}"),
            406,
        ),
        (
            "GET without Accept",
            format!("GET /mcp HTTP/1.1\r\nHost: {addr}\r\nMcp-Session-Id: {sid}"),
            406,
        ),
        (
            "POST without Host (HTTP/1.0)",
            "POST /mcp HTTP/1.0\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream".to_owned(),
            403,
        ),
    ];
    for (name, head, expected) in raw_cases {
        let (status, body) = raw(addr, &head, &tools_list.to_string()).await;
        assert_eq!(status, expected, "{name}: {body}");
        assert_eq!(body["error"]["code"], -32600, "{name}: {body}");
        still_serves(&c, &url, &sid, 900).await;
    }
    for (n, case) in cases.into_iter().enumerate() {
        let response = case
            .request
            .send()
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let (status, body, code) = outcome(response).await;
        assert_eq!(status, case.status, "{}: {body}", case.name);
        assert_eq!(code, Some(case.code), "{}: {body}", case.name);
        assert_eq!(body["id"], case.id, "{}: {body}", case.name);
        let message = body["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.len() > 20,
            "{}: a message that says what is wrong: {body}",
            case.name
        );
        still_serves(&c, &url, &sid, 1000 + n as i64).await;
    }
}

#[tokio::test]
async fn accepted_variants_pass() {
    let server = server();
    let http = start(&server, HttpOptions::default()).await;
    let url = http.url();
    let c = client();
    let sid = initialize(&c, &url).await;
    let list = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list" });
    // No MCP-Protocol-Version: the session's version applies.
    let response = post(&c, &url)
        .header("mcp-session-id", &sid)
        .json(&list)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    // Wildcards in Accept, a charset on Content-Type, a loopback Origin and Host with a port.
    let response = c
        .post(&url)
        .header("content-type", "application/json; charset=utf-8")
        .header("accept", "*/*")
        .header(
            "origin",
            format!("http://localhost:{}", http.local_addr().port()),
        )
        .header("host", format!("localhost:{}", http.local_addr().port()))
        .header("mcp-session-id", &sid)
        .json(&list)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    // 2026-07-28: header names in any case, whitespace around values, base64 names.
    let body = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": { "name": "echo", "arguments": { "message": "b64" }, "_meta": meta() } });
    for name in ["  echo  ", "=?base64?ZWNobw==?="] {
        let response = post(&c, &url)
            .header("MCP-PROTOCOL-VERSION", MODERN)
            .header("mcp-METHOD", "tools/call")
            .header("Mcp-Name", name)
            .json(&body)
            .send()
            .await
            .unwrap();
        let (status, body, _) = outcome(response).await;
        assert_eq!(status, 200, "{name:?}: {body}");
        assert_eq!(text_of(&body), "b64");
    }
    // A notification without a session in 2026-07-28 is accepted and ignored.
    let response = post(&c, &url)
        .header("mcp-protocol-version", MODERN)
        .json(&json!({ "jsonrpc": "2.0", "method": "notifications/whatever" }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 202);
}

#[tokio::test]
async fn get_and_delete_refusals() {
    let server = server();
    let http = start(&server, HttpOptions::default()).await;
    let url = http.url();
    let c = client();
    let sid = initialize(&c, &url).await;
    let get = |headers: &[(&str, &str)]| {
        let mut r = c.get(&url);
        for (k, v) in headers {
            r = r.header(*k, *v);
        }
        r
    };
    let cases: Vec<(&str, RequestBuilder, u16)> = vec![
        (
            "GET without a session",
            get(&[("accept", "text/event-stream")]),
            400,
        ),
        (
            "GET with an unknown session",
            get(&[("accept", "text/event-stream"), ("mcp-session-id", "nope")]),
            404,
        ),
        (
            "GET accepting only JSON",
            get(&[("accept", "application/json"), ("mcp-session-id", &sid)]),
            406,
        ),
        (
            "GET from a 2026-07-28 client",
            get(&[
                ("accept", "text/event-stream"),
                ("mcp-protocol-version", MODERN),
            ]),
            405,
        ),
        (
            "GET resuming an unknown stream",
            get(&[
                ("accept", "text/event-stream"),
                ("mcp-session-id", &sid),
                ("last-event-id", "77-1"),
            ]),
            400,
        ),
        (
            "GET with a foreign Last-Event-ID",
            get(&[
                ("accept", "text/event-stream"),
                ("mcp-session-id", &sid),
                ("last-event-id", "abc"),
            ]),
            400,
        ),
        ("DELETE without a session", c.delete(&url), 400),
        (
            "DELETE an unknown session",
            c.delete(&url).header("mcp-session-id", "nope"),
            404,
        ),
        (
            "DELETE from a 2026-07-28 client",
            c.delete(&url).header("mcp-protocol-version", MODERN),
            405,
        ),
        ("PUT", c.put(&url).body("{}"), 405),
    ];
    for (name, request, expected) in cases {
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        if status == 405 {
            assert!(
                response.headers().get("allow").is_some(),
                "{name}: an Allow header"
            );
        }
        let (status, body, code) = outcome(response).await;
        assert_eq!(status, expected, "{name}: {body}");
        assert_eq!(code, Some(-32600), "{name}: {body}");
        still_serves(&c, &url, &sid, 1).await;
    }
}

#[tokio::test]
async fn cors_and_custom_allowlists() {
    let server = server();
    let mut options = HttpOptions::default();
    options.cors = true;
    options
        .allowed_origins
        .push("https://app.example.com".into());
    options.allowed_hosts.push("mcp.example.com".into());
    let http = start(&server, options).await;
    let url = http.url();
    let c = client();
    let preflight = c
        .request(reqwest::Method::OPTIONS, &url)
        .header("origin", "https://app.example.com")
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "content-type, mcp-session-id, mcp-param-region",
        )
        .send()
        .await
        .unwrap();
    assert!(preflight.status().is_success(), "{}", preflight.status());
    let h = preflight.headers();
    assert_eq!(h["access-control-allow-origin"], "*");
    let methods = h["access-control-allow-methods"]
        .to_str()
        .unwrap()
        .to_ascii_uppercase();
    for m in ["GET", "POST", "DELETE", "OPTIONS"] {
        assert!(methods.contains(m), "{methods}");
    }
    let allowed = h["access-control-allow-headers"]
        .to_str()
        .unwrap()
        .to_ascii_lowercase();
    assert!(
        allowed.contains("mcp-session-id") && allowed.contains("mcp-param-region"),
        "{allowed}"
    );
    let response = post(&c, &url)
        .header("origin", "https://app.example.com")
        .header("host", "mcp.example.com")
        .json(&json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } } }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["access-control-allow-origin"], "*");
    let exposed = response.headers()["access-control-expose-headers"]
        .to_str()
        .unwrap();
    assert!(
        exposed.to_ascii_lowercase().contains("mcp-session-id"),
        "{exposed}"
    );
    let refused = post(&c, &url)
        .header("origin", "https://other.example.com")
        .json(&json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {} }))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 403);
}

#[tokio::test]
async fn a_refused_initialize_leaves_no_session() {
    let server = server();
    let http = start(&server, HttpOptions::default()).await;
    let url = http.url();
    let c = client();
    let response = post(&c, &url)
        .json(&json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "capabilities": {} } }))
        .send()
        .await
        .unwrap();
    assert!(response.headers().get("mcp-session-id").is_none());
    let (status, body, code) = outcome(response).await;
    assert_eq!((status, code), (400, Some(-32602)), "{body}");
    assert_eq!(http.sessions().count(), 0);
}

#[tokio::test]
async fn batches_in_a_2025_03_26_session() {
    let server = server();
    let http = start(&server, HttpOptions::default()).await;
    let url = http.url();
    let c = client();
    let sid = initialize_with(&c, &url, "2025-03-26", json!({})).await;
    let batch = json!([
        { "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": { "name": "echo", "arguments": { "message": "one" } } },
        { "jsonrpc": "2.0", "method": "notifications/whatever" },
        { "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": { "name": "echo", "arguments": { "message": "two" } } },
        { "jsonrpc": "2.0", "id": 3 },
    ]);
    let response = post(&c, &url)
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", "2025-03-26")
        .json(&batch)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let answers: Vec<Value> = response.json().await.unwrap();
    assert_eq!(answers.len(), 3, "{answers:?}");
    assert_eq!(text_of(&answers[0]), "one");
    assert_eq!(text_of(&answers[1]), "two");
    assert_eq!(answers[2]["error"]["code"], -32600);
    // Only notifications: 202, no body.
    let response = post(&c, &url)
        .header("mcp-session-id", &sid)
        .json(&json!([{ "jsonrpc": "2.0", "method": "notifications/whatever" }]))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 202);
}

/// Over HTTP, a batch longer than the limit is one error (not thousands of answers), and the
/// session goes on.
#[tokio::test]
async fn an_over_long_batch_is_refused_with_one_error() {
    // The defaults: at most 100 messages per batch.
    let server = Server::builder("batch", "1.0.0").build();
    let http = start(&server, HttpOptions::default()).await;
    let url = http.url();
    let c = client();
    let sid = initialize_with(&c, &url, "2025-03-26", json!({})).await;
    let batch: Vec<Value> = (0..3000)
        .map(|id| json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}))
        .collect();
    let response = post(&c, &url)
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", "2025-03-26")
        .json(&batch)
        .send()
        .await
        .unwrap();
    let body: Value = response.json().await.unwrap();
    assert!(
        body.is_object(),
        "one error object, not {} answers",
        body.as_array().map_or(0, Vec::len)
    );
    assert_eq!(body["error"]["code"], -32600, "{body}");
    assert_eq!(body["error"]["data"]["limit"], 100, "{body}");
    let response = post(&c, &url)
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", "2025-03-26")
        .json(&json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]))
        .send()
        .await
        .unwrap();
    let answers: Vec<Value> = response.json().await.unwrap();
    assert_eq!(answers[0]["result"], json!({}));
}

/// A value the client sent is not echoed back whole: a 1 MB method name comes back as its
/// first characters and its length.
#[tokio::test]
async fn a_huge_method_name_is_not_echoed_back() {
    let server = Server::builder("reflection", "1.0.0").build();
    let http = start(&server, HttpOptions::default()).await;
    let url = http.url();
    let c = client();
    let method = "x".repeat(1_000_000);
    let response = stateless(&c, &url, 1, "tools/list", json!({}))
        .header("mcp-method", "tools/list")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method,
                      "params": {"_meta": meta()}}))
        .send()
        .await
        .unwrap();
    let body = response.text().await.unwrap();
    assert!(body.len() < 2_000, "{} bytes came back", body.len());
    assert!(body.contains("1000000 bytes"), "{body}");
}
