//! `Manager` against a server written with the official Python SDK (2.3.0), over stdio and
//! streamable HTTP, in both protocol eras: automatic negotiation lands on 2026-07-28
//! (`server/discover`), a pinned 2025-11-25 uses `initialize`.

use std::time::Duration;

use mcp_kit::{Config, Manager, ServerConfig, TrustMode};
use mcp_schema::Era;
use mcp_test_support as support;
use serde_json::json;

async fn exercise(config: &Config, pinned: Option<&str>, expected: Era) {
    let manager = Manager::new(config.clone(), std::env::temp_dir())
        .with_client_info("mcp-kit-tests", "0.0.0")
        .with_timeout(Duration::from_secs(20))
        .with_trust_mode(TrustMode::Trusted)
        .with_protocol_version(pinned.map(str::to_owned));
    let session = manager.session("python").await.expect("connect");
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
    assert_eq!(names, ["add", "echo", "summarize", "work"]);
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
    Config::default().with_server(
        "python",
        ServerConfig::stdio([
            support::peers_python().display().to_string(),
            support::fixture("python_server.py").display().to_string(),
        ]),
    )
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
    let config =
        Config::default().with_server("python", ServerConfig::streamable_http(server.url.clone()));
    exercise(&config, None, Era::Stateless).await;
    exercise(&config, Some("2025-11-25"), Era::Stateful).await;
}

/// Many tasks asking one `Manager` for the same server at once share one connection: the
/// server process starts once, and every call is answered on it. The tasks are spawned, so
/// the manager's futures are `Send`.
#[tokio::test]
async fn concurrent_callers_share_one_connection() {
    let dir = tempfile::tempdir().unwrap();
    let starts = dir.path().join("starts");
    let script = format!(
        "echo started >> '{}'; exec '{}' '{}'",
        starts.display(),
        support::peers_python().display(),
        support::fixture("python_server.py").display()
    );
    let config = Config::default().with_server(
        "python",
        ServerConfig::stdio(["sh".to_owned(), "-c".into(), script]),
    );
    let manager = std::sync::Arc::new(
        Manager::new(config, dir.path())
            .with_timeout(Duration::from_secs(20))
            .with_trust_mode(TrustMode::Trusted),
    );
    let calls: Vec<_> = (0..16)
        .map(|i| {
            let manager = manager.clone();
            tokio::spawn(async move {
                manager
                    .call_tool(
                        "python",
                        "add",
                        json!({ "a": i, "b": 1 }).as_object().cloned(),
                    )
                    .await
            })
        })
        .collect();
    for (i, call) in calls.into_iter().enumerate() {
        let result = call.await.unwrap().expect("add");
        assert_eq!(
            result.structured_content.unwrap(),
            json!({ "result": i + 1 })
        );
    }
    let started = std::fs::read_to_string(&starts).unwrap();
    assert_eq!(started.lines().count(), 1, "{started}");
    assert_eq!(manager.connected_server_names(), ["python"]);
}
