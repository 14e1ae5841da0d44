//! mcpx end to end: real upstream processes (stdio and HTTP, both eras), mcpx as a process,
//! mcp-kit as the downstream client over stdio and HTTP. The same scenario runs over both.

mod support;

use std::time::Instant;

use mcp_test_support::free_port;
use serde_json::json;
use support::{Downstream, start_mcpx, start_upstream_http, text, upstream_bin, write_config};

/// The lines of `server` in the listing.
fn section<'a>(listing: &'a str, server: &str) -> &'a str {
    let start = listing
        .find(&format!("\n  Server: {server}"))
        .expect("the server is listed")
        + 1;
    let rest = &listing[start..];
    let end = rest[1..].find("\n  Server: ").map_or(rest.len(), |i| i + 1);
    &rest[..end]
}

/// True when `server`'s line in the listing marks it neither unavailable nor connecting.
fn ready(listing: &str, server: &str) -> bool {
    let line = section(listing, server).lines().next().unwrap_or_default();
    !line.contains("(unavailable") && !line.contains("(connecting")
}

async fn scenario(downstream: Downstream, protocol: Option<&str>) {
    let port = free_port();
    let _old = start_upstream_http(port).await;
    let dir = write_config(&json!({
        "mcpServers": {
            "up": { "command": upstream_bin() },
            "old": { "url": format!("http://127.0.0.1:{port}/mcp") },
            "broken": { "command": "/nonexistent/upstream" }
        },
        "mcpx": {
            "connect_timeout": 5,
            "servers": {
                "old": { "protocol_version": "2025-11-25", "exclude": ["add_tool"] }
            }
        }
    }));
    let mut proxy = start_mcpx(dir.path(), downstream, protocol).await;

    // The listing: servers with instructions, tools with one line, the broken one marked.
    let listing = proxy.listing().await;
    assert!(
        listing.starts_with("Inspect available MCP tools and their schemas:"),
        "{listing}"
    );
    assert!(
        listing.contains("\n  Server: up - A test upstream for mcpx"),
        "{listing}"
    );
    assert!(
        listing.contains("\n    - echo: Echoes a message back"),
        "{listing}"
    );
    assert!(
        listing.contains("\n  Server: broken (unavailable: mcp server `broken`: failed to spawn"),
        "{listing}"
    );
    let old_section = section(&listing, "old");
    assert!(old_section.contains("- echo"), "{listing}");
    assert!(
        !old_section.contains("add_tool"),
        "excluded tools are hidden: {listing}"
    );

    // Calls through the kept connections, both upstream eras.
    for server in ["up", "old"] {
        let result = proxy
            .exec(server, "echo", json!({ "message": "hi" }))
            .await
            .expect("exec");
        assert_eq!(text(&result), "hi");
    }

    // Structured: text is TOON or JSON, structuredContent raw.
    let result = proxy.exec("up", "weather", json!({})).await.expect("exec");
    assert_eq!(result["structuredContent"]["city"], "Paris");
    assert_eq!(result["structuredContent"]["temperature"], 21.5);
    assert!(
        text(&result).contains("Paris") && text(&result).contains("sunny"),
        "{result}"
    );

    // Multimodal passes unchanged.
    let result = proxy.exec("up", "pixel", json!({})).await.expect("exec");
    assert_eq!(result["content"][0]["text"], "one pixel");
    assert_eq!(result["content"][1]["type"], "image");
    assert_eq!(result["content"][1]["mimeType"], "image/png");

    // An upstream tool error and an upstream JSON-RPC error reach the agent verbatim.
    let result = proxy
        .exec("up", "tool_error", json!({}))
        .await
        .expect("exec");
    assert_eq!(result["isError"], true);
    assert_eq!(text(&result), "the tool failed on purpose");
    let error = proxy
        .exec("old", "rpc_error", json!({}))
        .await
        .expect_err("a JSON-RPC error");
    let rpc = error.rpc_error().expect("rpc error");
    assert_eq!(
        (rpc.code, rpc.message.as_str()),
        (-32042, "upstream refused on purpose")
    );

    // The proxy's own errors are tool errors the model can act on, with exact messages.
    let cases = [
        (
            "upp",
            "echo",
            json!({}),
            "unknown server `upp` (did you mean `up`?)",
        ),
        (
            "up",
            "ecko",
            json!({}),
            "unknown tool `ecko` on server `up` (did you mean `echo`?)",
        ),
        (
            "up",
            "echo",
            json!({ "message": 5 }),
            "invalid arguments for `up.echo`: /message: 5 is not of type \"string\" (see inspect(\"up\", \"echo\") for its schema)",
        ),
        (
            "old",
            "add_tool",
            json!({ "name": "x" }),
            "tool `add_tool` on server `old` is hidden by mcpx's include/exclude filters for that server",
        ),
    ];
    for (server, tool, arguments, message) in cases {
        let result = proxy
            .exec(server, tool, arguments)
            .await
            .expect("a tool result");
        assert_eq!(result["isError"], true, "{result}");
        assert_eq!(text(&result), message);
    }
    let result = proxy
        .exec("broken", "echo", json!({}))
        .await
        .expect("a tool result");
    assert!(
        text(&result).starts_with(
            "server `broken` is unavailable (failed: mcp server `broken`: failed to spawn"
        ),
        "{result}"
    );

    // inspect: one tool, a server, a search.
    let found = proxy
        .inspect(json!({ "server_name": "up", "tool_name": "echo" }))
        .await;
    assert_eq!(found["structuredContent"]["name"], "echo");
    assert_eq!(
        found["structuredContent"]["inputSchema"]["required"],
        json!(["message"])
    );
    assert!(text(&found).contains("message"), "{found}");
    let found = proxy.inspect(json!({ "server_name": "old" })).await;
    assert_eq!(found["structuredContent"]["server"], "old");
    let found = proxy.inspect(json!({ "query": "progress counting" })).await;
    assert_eq!(
        found["structuredContent"]["matches"][0]["tool"], "count",
        "{found}"
    );

    // Elicitation and sampling from the upstream reach the downstream client and back.
    let result = proxy.exec("up", "ask_name", json!({})).await.expect("exec");
    assert_eq!(text(&result), "hello Ada");
    let result = proxy.exec("up", "sample", json!({})).await.expect("exec");
    assert_eq!(text(&result), "the model said: banana");

    // A tool list change upstream reaches the listing and the client.
    let result = proxy
        .exec("up", "add_tool", json!({ "name": "fresh" }))
        .await
        .expect("exec");
    assert_eq!(text(&result), "added fresh");
    let listing = proxy
        .wait_listing(|l| l.contains("\n    - fresh: An added tool"))
        .await;
    assert!(listing.contains("- fresh"), "{listing}");
    let result = proxy
        .exec("up", "fresh", json!({ "message": "new" }))
        .await
        .expect("exec");
    assert_eq!(text(&result), "new");
}

#[tokio::test(flavor = "multi_thread")]
async fn over_stdio_to_a_stateful_client() {
    scenario(Downstream::Stdio, Some("2025-11-25")).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn over_stdio_to_a_stateless_client() {
    scenario(Downstream::Stdio, Some("2026-07-28")).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn over_http_to_a_stateful_client() {
    scenario(Downstream::Http, Some("2025-11-25")).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn over_http_to_a_stateless_client() {
    scenario(Downstream::Http, Some("2026-07-28")).await;
}

/// A dead upstream fails fast and comes back without restarting mcpx; the others keep working.
#[tokio::test(flavor = "multi_thread")]
async fn a_killed_upstream_fails_fast_and_recovers() {
    let port = free_port();
    let mut old = start_upstream_http(port).await;
    let dir = write_config(&json!({
        "mcpServers": {
            "up": { "command": upstream_bin() },
            "old": { "url": format!("http://127.0.0.1:{port}/mcp") }
        }
    }));
    let mut proxy = start_mcpx(dir.path(), Downstream::Stdio, None).await;
    assert_eq!(
        text(
            &proxy
                .exec("old", "echo", json!({ "message": "a" }))
                .await
                .expect("exec")
        ),
        "a"
    );

    old.child.kill().await.expect("kill the upstream");
    let started = Instant::now();
    let result = proxy
        .exec("old", "echo", json!({ "message": "b" }))
        .await
        .expect("a tool result");
    let took = started.elapsed();
    assert_eq!(result["isError"], true, "{result}");
    assert!(
        text(&result).starts_with("server `old` is unavailable"),
        "{result}"
    );
    assert!(took.as_millis() < 1000, "the error took {took:?}");
    // The others are fine.
    assert_eq!(
        text(
            &proxy
                .exec("up", "echo", json!({ "message": "c" }))
                .await
                .expect("exec")
        ),
        "c"
    );

    // Back on the same port: mcpx reconnects by itself.
    let _old = start_upstream_http(port).await;
    proxy.wait_listing(|l| ready(l, "old")).await;
    assert_eq!(
        text(
            &proxy
                .exec("old", "echo", json!({ "message": "d" }))
                .await
                .expect("exec")
        ),
        "d"
    );

    // A stdio upstream that dies is spawned again.
    let result = proxy.exec("up", "exit", json!({})).await;
    assert!(
        result.is_ok_and(|r| r["isError"] == true),
        "the call on a dying upstream fails"
    );
    proxy.wait_listing(|l| ready(l, "up")).await;
    let again = async {
        loop {
            let result = proxy
                .exec("up", "echo", json!({ "message": "e" }))
                .await
                .expect("exec");
            if result["isError"] != true {
                return result;
            }
            proxy.changes.recv().await;
        }
    };
    let result = tokio::time::timeout(std::time::Duration::from_secs(30), again)
        .await
        .expect("respawned");
    assert_eq!(text(&result), "e");
}
