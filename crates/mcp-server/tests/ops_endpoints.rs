//! `GET /health`, `/info` and `/tools` over real HTTP: their documents, the `Host`/`Origin`
//! checks they share with `/mcp`, CORS, switching them off, and readiness during shutdown.

mod http_support;

use http_support::{client, initialize, start};
use mcp_server::{HttpOptions, Json, NoArguments, Server};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// The first number.
    a: i64,
    b: i64,
}

#[derive(Serialize, JsonSchema)]
struct Sum {
    sum: i64,
}

fn server() -> Server {
    Server::builder("ops-test", "1.2.3")
        .title("Ops test server")
        .instructions("Adds numbers.")
        .tool("add", "Adds two integers", |a: AddArgs, _cx| async move {
            Ok(Json(Sum { sum: a.a + a.b }))
        })
        .tool("ping", "Answers pong", |_: NoArguments, _cx| async move {
            Ok("pong")
        })
        .build()
}

fn base(url: &str) -> String {
    url.trim_end_matches("/mcp").to_owned()
}

async fn get_json(url: &str) -> (u16, Value) {
    let response = client().get(url).send().await.expect("GET");
    let status = response.status().as_u16();
    assert_eq!(
        response.headers()["content-type"],
        "application/json",
        "{url}"
    );
    assert_eq!(response.headers()["cache-control"], "no-store", "{url}");
    (status, response.json().await.expect("a JSON body"))
}

#[tokio::test]
async fn health_reports_liveness_readiness_and_sessions() {
    let server = server();
    let http = start(&server, HttpOptions::default()).await;
    let base = base(&http.url());
    let (status, body) = get_json(&format!("{base}/health")).await;
    assert_eq!(status, 200);
    assert_eq!(body["status"], "ok");
    assert_eq!(body["live"], true);
    assert_eq!(body["ready"], true);
    assert_eq!(body["sessions"], 0);
    assert!(body["uptimeSeconds"].is_u64(), "{body}");

    initialize(&client(), &http.url()).await;
    let (_, body) = get_json(&format!("{base}/health")).await;
    assert_eq!(body["sessions"], 1);

    // HEAD works for probes that do not want a body.
    let head = client()
        .head(format!("{base}/health"))
        .send()
        .await
        .unwrap();
    assert_eq!(head.status(), 200);
    server.shutdown();
    http.wait().await.unwrap();
}

#[tokio::test]
async fn info_describes_the_server() {
    let server = server();
    let mut options = HttpOptions::default();
    options.path = "/v1/mcp".into();
    let http = start(&server, options).await;
    let base = http.url().trim_end_matches("/v1/mcp").to_owned();
    let (status, body) = get_json(&format!("{base}/info")).await;
    assert_eq!(status, 200);
    assert_eq!(body["name"], "ops-test");
    assert_eq!(body["version"], "1.2.3");
    assert_eq!(body["title"], "Ops test server");
    assert_eq!(body["instructions"], "Adds numbers.");
    let versions: Vec<&str> = body["protocolVersions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(versions, mcp_server::schema::version::SUPPORTED);
    let transports = body["transports"].as_array().unwrap();
    assert_eq!(
        transports[0],
        json!({ "type": "streamable-http", "path": "/v1/mcp" })
    );
    assert!(
        transports
            .iter()
            .any(|t| t["type"] == "websocket" && t["path"] == "/ws"),
        "{body}"
    );
    assert_eq!(body["capabilities"]["tools"]["listChanged"], true);
    assert_eq!(body["capabilities"]["resources"]["subscribe"], true);
    assert_eq!(body["endpoints"]["tools"], "/tools");
    server.shutdown();
    http.wait().await.unwrap();
}

#[tokio::test]
async fn tools_lists_schemas_and_follows_the_registry() {
    let server = server();
    let http = start(&server, HttpOptions::default()).await;
    let base = base(&http.url());
    let (status, body) = get_json(&format!("{base}/tools")).await;
    assert_eq!(status, 200);
    let tools = body["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["add", "ping"]);
    let add = &tools[0];
    assert_eq!(add["description"], "Adds two integers");
    assert_eq!(add["inputSchema"]["type"], "object");
    assert_eq!(
        add["inputSchema"]["properties"]["a"]["description"],
        "The first number."
    );
    assert_eq!(add["inputSchema"]["required"], json!(["a", "b"]));
    assert_eq!(
        add["outputSchema"]["properties"]["sum"]["type"], "integer",
        "{add}"
    );
    assert!(tools[1].get("outputSchema").is_none(), "{}", tools[1]);

    // The same listing as tools/list, and it changes with the registry.
    assert!(server.remove_tool("ping"));
    let (_, body) = get_json(&format!("{base}/tools")).await;
    assert_eq!(body["tools"].as_array().unwrap().len(), 1);
    server.shutdown();
    http.wait().await.unwrap();
}

#[tokio::test]
async fn foreign_hosts_and_origins_are_refused_as_on_mcp() {
    let server = server();
    let http = start(&server, HttpOptions::default()).await;
    let base = base(&http.url());
    for path in ["/health", "/info", "/tools"] {
        let url = format!("{base}{path}");
        let response = client()
            .get(&url)
            .header("host", "evil.example.com")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 403, "{path}");
        let body: Value = response.json().await.unwrap();
        let message = body["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("Host 'evil.example.com' is not allowed"),
            "{message}"
        );

        let response = client()
            .get(&url)
            .header("origin", "https://evil.example.com")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 403, "{path}");

        let response = client()
            .get(&url)
            .header("origin", "http://localhost:5173")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{path}");
    }
    server.shutdown();
    http.wait().await.unwrap();
}

#[tokio::test]
async fn cors_headers_when_cors_is_on() {
    let server = server();
    let mut options = HttpOptions::default();
    options.cors = true;
    let http = start(&server, options).await;
    let response = client()
        .get(format!("{}/info", base(&http.url())))
        .header("origin", "http://localhost:3000")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["access-control-allow-origin"], "*");
    server.shutdown();
    http.wait().await.unwrap();
}

#[tokio::test]
async fn switched_off_they_are_not_found() {
    let server = server();
    let mut options = HttpOptions::default();
    options.ops_endpoints = false;
    let http = start(&server, options).await;
    for path in ["/health", "/info", "/tools"] {
        let response = client()
            .get(format!("{}{path}", base(&http.url())))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 404, "{path}");
    }
    // The MCP endpoint is unaffected.
    initialize(&client(), &http.url()).await;
    server.shutdown();
    http.wait().await.unwrap();
}

/// `bind_http` stops accepting at shutdown, so readiness is seen through `http_router` on a
/// listener the application keeps open (its own graceful shutdown comes later).
#[tokio::test]
async fn health_is_503_while_shutting_down() {
    let server = server();
    let (router, _sessions) = server.http_router(HttpOptions::default());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(async move {
        axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .await
    });
    let url = format!("http://{addr}/health");
    let (status, _) = get_json(&url).await;
    assert_eq!(status, 200);

    server.shutdown();
    let (status, body) = get_json(&url).await;
    assert_eq!(status, 503);
    assert_eq!(body["status"], "shutting_down");
    assert_eq!(body["live"], true);
    assert_eq!(body["ready"], false);

    stop.send(()).unwrap();
    serving.await.unwrap().unwrap();
}
