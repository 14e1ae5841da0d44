//! `Manager` against a server written with the official Python SDK (2.3.0), over stdio and
//! streamable HTTP, in both protocol eras: automatic negotiation lands on 2026-07-28
//! (`server/discover`), a pinned 2025-11-25 uses `initialize`.

use std::time::Duration;

use mcp_kit::{Config, Manager, ServerConfig, TrustMode};
use mcp_schema::Era;
use mcp_test_support as support;
use serde_json::json;

async fn exercise(config: &Config, pinned: Option<&str>, expected: Era) {
    let root = std::env::temp_dir();
    let mut manager = Manager::new("mcp-kit-tests", "0.0.0", Duration::from_secs(20))
        .with_trust_mode(TrustMode::Trusted)
        .with_protocol_version(pinned.map(str::to_owned));
    let session = manager
        .get_or_connect(config, "python", &root)
        .await
        .expect("connect");
    assert_eq!(
        session.negotiated().era(),
        expected,
        "{:?}",
        session.negotiated()
    );
    let version = match expected {
        Era::Stateful => "2025-11-25",
        Era::Stateless => "2026-07-28",
    };
    assert_eq!(session.protocol_version(), version);
    let mut names: Vec<String> = session
        .list_all_tools()
        .await
        .expect("tools")
        .into_iter()
        .map(|t| t.name)
        .collect();
    names.sort();
    assert_eq!(names, ["add", "echo"]);
    let sum = session
        .call_tool("add", json!({ "a": 20, "b": 22 }).as_object().cloned())
        .await
        .expect("add");
    assert_eq!(
        sum.structured_content.clone().unwrap(),
        json!({ "result": 42 })
    );
    let read = session
        .read_resource("test://greeting")
        .await
        .expect("read");
    assert!(
        serde_json::to_string(&read)
            .unwrap()
            .contains("hello from python")
    );
    let prompt = session
        .get_prompt(
            "review",
            json!({ "code": "fn main() {}" }).as_object().cloned(),
        )
        .await
        .expect("prompt");
    assert!(
        serde_json::to_string(&prompt)
            .unwrap()
            .contains("fn main() {}")
    );
    if expected == Era::Stateless {
        // Every 2026-07-28 result says it is complete; the discover result lists the version.
        assert_eq!(
            serde_json::to_value(&sum).unwrap()["resultType"],
            "complete"
        );
        assert!(
            session.initialize_result()["supportedVersions"]
                .as_array()
                .unwrap()
                .contains(&json!("2026-07-28"))
        );
    } else {
        assert_eq!(
            session.initialize_result()["serverInfo"]["name"],
            "python-peer"
        );
    }
}

fn stdio_config() -> Config {
    let mut config = Config::default();
    config.servers.insert(
        "python".into(),
        ServerConfig::stdio([
            support::peers_python().display().to_string(),
            support::fixture("python_server.py").display().to_string(),
        ]),
    );
    config
}

#[tokio::test]
async fn python_over_stdio_negotiates_the_stateless_era() {
    exercise(&stdio_config(), None, Era::Stateless).await;
}

#[tokio::test]
async fn python_over_stdio_pinned_to_the_stateful_era() {
    exercise(&stdio_config(), Some("2025-11-25"), Era::Stateful).await;
}

#[tokio::test]
async fn python_over_http_in_both_eras() {
    let server = support::start_python_http().await;
    let mut config = Config::default();
    config.servers.insert(
        "python".into(),
        ServerConfig::streamable_http(server.url.clone()),
    );
    exercise(&config, None, Era::Stateless).await;
    exercise(&config, Some("2025-11-25"), Era::Stateful).await;
}
