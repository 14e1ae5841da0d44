//! Talks raw JSON-RPC to a real MCP server: initialize → initialized → tools/list →
//! tools/call, answering the server's `roots/list` requests and printing its notifications.
//!
//! ```text
//! cargo run -p mcp-jsonrpc --example talk_to_server -- stdio <program> [args…]
//! cargo run -p mcp-jsonrpc --example talk_to_server -- http <url>
//! ```
//! Optional environment: `CALLS='echo {"message":"hi"};get-sum {"a":1,"b":2};get-roots-list {}'`
//! (the default, for the everything server).

use std::time::Duration;

use anyhow::{Context, bail};
use mcp_jsonrpc::{IncomingRequest, Peer, StreamableHttpOptions};
use serde_json::{Value, json};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut client = match args.first().map(String::as_str) {
        Some("stdio") if args.len() >= 2 => Peer::spawn(&args[1], &args[2..]).await?,
        Some("http") if args.len() == 2 => {
            Peer::connect_streamable_http_with_options(
                &args[1],
                StreamableHttpOptions {
                    request_timeout: Some(Duration::from_secs(30)),
                    ..Default::default()
                },
                Default::default(),
            )
            .await?
        }
        _ => bail!("usage: talk_to_server stdio <program> [args…] | http <url>"),
    };

    // Server→client traffic: answer roots/list, refuse the rest, print notifications.
    let mut requests = client.take_requests().context("requests taken")?;
    tokio::spawn(async move {
        while let Some(request) = requests.recv().await {
            answer(request).await;
        }
    });
    let mut notifications = client.take_notifications().context("notifications taken")?;
    tokio::spawn(async move {
        while let Some(n) = notifications.recv().await {
            println!("← notification {} {}", n.method, n.params_value());
        }
    });

    let init = client
        .request(
            "initialize",
            Some(json!({
                "protocolVersion": "2025-11-25",
                "capabilities": { "roots": { "listChanged": true } },
                "clientInfo": { "name": "mcp-jsonrpc-demo", "version": env!("CARGO_PKG_VERSION") }
            })),
        )
        .await?;
    println!(
        "connected to {} (protocol {})",
        init["serverInfo"]["name"], init["protocolVersion"]
    );
    if let Some(version) = init["protocolVersion"].as_str() {
        // Streamable HTTP wants the negotiated version on every later request.
        let _ = client
            .handle()
            .set_http_header("mcp-protocol-version", version);
    }
    client.notify("notifications/initialized", None).await?;

    let tools = client.request("tools/list", Some(json!({}))).await?;
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .map(|t| t.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    println!("tools ({}): {}", names.len(), names.join(", "));

    let calls = std::env::var("CALLS").unwrap_or_else(|_| {
        r#"echo {"message":"hi"};get-sum {"a":1,"b":2};get-roots-list {}"#.to_owned()
    });
    for call in calls.split(';').map(str::trim).filter(|c| !c.is_empty()) {
        let (name, arguments) = call.split_once(' ').unwrap_or((call, "{}"));
        let arguments: Value = serde_json::from_str(arguments)?;
        let result = client
            .request(
                "tools/call",
                Some(json!({ "name": name, "arguments": arguments })),
            )
            .await?;
        let text: Vec<&str> = result["content"]
            .as_array()
            .map(|c| c.iter().filter_map(|c| c["text"].as_str()).collect())
            .unwrap_or_default();
        println!("tools/call {name} → {}", text.join(" "));
    }

    let stats = client.stats();
    println!(
        "stats: {} invalid lines, {} dropped notifications, {} overloaded requests",
        stats.invalid_json, stats.notifications_dropped, stats.requests_overloaded
    );
    let status = client
        .wait_with_timeout(
            Duration::from_secs(2),
            mcp_jsonrpc::WaitOnTimeout::Kill {
                kill_timeout: Duration::from_secs(2),
            },
        )
        .await?;
    if let Some(status) = status {
        println!("server exited: {status}");
    }
    Ok(())
}

async fn answer(request: IncomingRequest) {
    println!("← request {} (id {})", request.method, request.id);
    let outcome = match request.method.as_str() {
        "roots/list" => {
            let cwd = std::env::current_dir().unwrap_or_default();
            Ok(json!({ "roots": [{ "uri": format!("file://{}", cwd.display()), "name": "cwd" }] }))
        }
        "ping" => Ok(json!({})),
        other => Err(mcp_jsonrpc::ErrorObject::method_not_found(other)),
    };
    if let Err(e) = request.respond(outcome).await {
        eprintln!("could not answer: {e}");
    }
}
