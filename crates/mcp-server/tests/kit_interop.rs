//! `mcp-kit` (our client) against `mcp-server` (the example server as a child process), over
//! stdio and streamable HTTP, in both protocol eras: tools (structured output), progress,
//! elicitation (a server→client request in the stateful era, an `InputRequiredResult` in
//! 2026-07-28 — the same client handler answers both), resources, prompts, completion.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use mcp_kit::mcp::{CompleteRequestParams, Era, Reference};
use mcp_kit::{
    Config, Manager, ServerConfig, ServerRequestContext, ServerRequestOutcome, Session,
    StdioServer, TrustMode,
};
use mcp_test_support::free_port;
use serde_json::{Map, json};

fn example_server() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| mcp_test_support::build_examples("mcp-server", &[]).join("example_server"))
}

fn manager(config: &Config, version: Option<&str>) -> Manager {
    let handler: mcp_kit::ServerRequestHandler = Arc::new(|ctx: ServerRequestContext| {
        Box::pin(async move {
            match ctx.method.as_str() {
                "elicitation/create" => ServerRequestOutcome::Ok(
                    json!({"action": "accept", "content": {"name": "Ada"}}),
                ),
                _ => ServerRequestOutcome::MethodNotFound,
            }
        })
    });
    Manager::new(config.clone(), std::env::current_dir().unwrap())
        .with_client_info("kit-interop", "1.0.0")
        .with_timeout(Duration::from_secs(30))
        .with_trust_mode(TrustMode::Trusted)
        .with_protocol_version(version.map(str::to_owned))
        .with_capabilities(json!({"elicitation": {}}))
        .with_server_request_handler(handler)
}

fn stdio_config() -> Config {
    Config::default().with_server(
        "example",
        ServerConfig::Stdio(StdioServer {
            argv: vec![example_server().display().to_string()],
            env: BTreeMap::new(),
            inherit_env: false,
            stdout_log: None,
            env_file: None,
        }),
    )
}

fn http_config(url: &str) -> Config {
    Config::default().with_server("example", ServerConfig::streamable_http(url))
}

async fn exercise(session: &Session, era: Era) {
    assert_eq!(session.negotiated().era(), era);
    let tools = session.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["echo", "add", "count", "greet", "touch"]);
    let add = tools.iter().find(|t| t.name == "add").unwrap();
    assert!(
        add.output_schema.is_some(),
        "a Json<T> result declares its schema"
    );

    let mut args = Map::new();
    args.insert("a".into(), json!(2));
    args.insert("b".into(), json!(40));
    let sum = session.call_tool("add", Some(args)).await.unwrap();
    assert_eq!(sum.structured_content.unwrap(), json!({"sum": 42.0}));

    let mut args = Map::new();
    args.insert("steps".into(), json!(3));
    let (mut progress, call) = session.call_tool_with_progress("count", Some(args));
    let result = call.await.unwrap();
    assert_eq!(result.text_content(), "counted to 3");
    let mut seen = 0;
    while progress.try_recv().is_ok() {
        seen += 1;
    }
    assert!(seen >= 2, "progress updates: {seen}");

    let greeting = session.call_tool("greet", None).await.unwrap();
    assert_eq!(greeting.text_content(), "Hello, Ada!");

    let readme = session.read_resource("demo://readme").await.unwrap();
    let text = serde_json::to_value(&readme.contents[0]).unwrap();
    assert_eq!(text["text"], "This is the example server.");
    let item = session.read_resource("demo://items/7").await.unwrap();
    assert_eq!(
        serde_json::to_value(&item.contents[0]).unwrap()["text"],
        "item 7"
    );

    let mut prompt_args = Map::new();
    prompt_args.insert("name".to_owned(), json!("Ada"));
    let prompt = session
        .get_prompt("greeting", Some(prompt_args))
        .await
        .unwrap();
    assert!(
        serde_json::to_string(&prompt.messages)
            .unwrap()
            .contains("Ada")
    );

    let completion = session
        .complete(CompleteRequestParams::new(
            Reference::prompt("greeting"),
            "name",
            "A",
        ))
        .await
        .unwrap();
    assert_eq!(completion.completion.values, ["Ada", "Alan"]);
}

/// Negotiates (landing on 2026-07-28), then pins 2025-11-25, and exercises each session.
async fn in_both_eras(config: &Config) {
    let modern = manager(config, None).open("example").await.unwrap();
    assert_eq!(modern.protocol_version(), "2026-07-28");
    exercise(&modern, Era::Stateless).await;
    modern.close().await;

    let legacy = manager(config, Some("2025-11-25"))
        .open("example")
        .await
        .unwrap();
    assert_eq!(legacy.protocol_version(), "2025-11-25");
    exercise(&legacy, Era::Stateful).await;
    legacy.close().await;
}

#[tokio::test]
async fn kit_and_server_over_stdio_in_both_eras() {
    in_both_eras(&stdio_config()).await;
}

#[tokio::test]
async fn kit_and_server_over_http_in_both_eras() {
    let port = free_port();
    let mut command = tokio::process::Command::new(example_server());
    command
        .args(["--http", &port.to_string()])
        .kill_on_drop(true);
    let server = mcp_test_support::start_http_server(
        command,
        port,
        "example_server",
        "listening on http://",
    )
    .await;
    in_both_eras(&http_config(&server.url)).await;
}
