//! mcpx in front of a real catalog: GitHub's 117 tools (MIT data, read at test time), served
//! by the replay server over stdio. What the agent is shown must stay small, degrade step by
//! step under a budget, and keep every tool reachable.

mod support;

use std::sync::Arc;

use mcp_kit::{Config, ServerConfig, TrustMode, UntrustedStreamableHttpPolicy};
use mcp_test_support::catalog_path;
use mcpx::inspect::{InspectRequest, inspect};
use mcpx::listing::{Detail, listing};
use mcpx::options::ProxyOptions;
use mcpx::proxy::Proxy;
use mcpx::registry::Registry;
use mcpx::report;

async fn github(options: &ProxyOptions) -> Arc<Registry> {
    let replay = support::examples().join("replay_server");
    let catalog = catalog_path("github-mcp-server.tools.json");
    let server = ServerConfig::stdio([
        replay.display().to_string(),
        "--catalog".to_owned(),
        catalog.display().to_string(),
    ]);
    let config = Config::default().with_server("github", server);
    let registry = Registry::start(
        config,
        std::env::temp_dir(),
        options,
        TrustMode::Trusted,
        UntrustedStreamableHttpPolicy::default(),
    );
    registry.settled().await;
    Arc::new(registry)
}

#[tokio::test(flavor = "multi_thread")]
async fn the_agent_sees_a_small_fraction_of_the_catalog() {
    let options = ProxyOptions::default();
    let registry = github(&options).await;
    let proxy = Proxy::new(registry.clone(), options.clone());
    let tokens = report::tokens(&proxy, &options);
    let github = &tokens.upstreams[0];
    assert_eq!(github.tools, 117);
    eprintln!("{tokens:#?}");
    // The targets, with default settings.
    assert!(
        tokens.exposure_percent <= 5.0,
        "mcpx's tools/list is {}% of the direct one",
        tokens.exposure_percent
    );
    assert!(
        github.inspect_tools * 2 <= github.tools_json,
        "inspect(server, tool) texts: {} tokens for {} of compact JSON",
        github.inspect_tools,
        github.tools_json
    );
    // Every tool is in the listing by name.
    let shown = listing(&registry, options.listing_budget_tokens);
    for tool in registry
        .upstream("github")
        .unwrap()
        .snapshot()
        .catalog
        .unwrap()
        .tools
        .iter()
    {
        assert!(
            shown.text.contains(&format!("- {}", tool.name())),
            "{} is not listed",
            tool.name()
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_listing_degrades_step_by_step_and_says_so() {
    let options = ProxyOptions::default();
    let registry = github(&options).await;
    let full = listing(&registry, usize::MAX);
    assert_eq!(full.detail, Detail::Lines(80));
    assert!(!full.text.contains("shortened"), "{}", full.text);
    let mut last = full.tokens;
    for budget in [full.tokens - 1, 1900, 1500, 1200, 700, 100] {
        let shown = listing(&registry, budget);
        assert!(
            shown.tokens <= budget || shown.detail == Detail::Counts,
            "{budget}: {shown:?}"
        );
        assert!(
            shown.tokens <= last,
            "{budget}: more tokens than a larger budget gave"
        );
        assert!(
            shown.text.contains(&format!(
                "shortened to fit {budget} tokens: use inspect(server_name) or inspect(query) for the rest"
            )),
            "{}",
            shown.text
        );
        last = shown.tokens;
    }
    let names = listing(&registry, 700);
    assert_eq!(names.detail, Detail::Names);
    assert!(
        names
            .text
            .contains("get_file_blame, get_file_contents, get_gist"),
        "{}",
        names.text
    );
    let counts = listing(&registry, 100);
    assert_eq!(counts.detail, Detail::Counts);
    assert!(
        counts.text.contains("Server: github - 117 tools"),
        "{}",
        counts.text
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_search_finds_tools_the_short_listing_does_not_describe() {
    let options = ProxyOptions::default();
    let registry = github(&options).await;
    let request = InspectRequest {
        query: Some("merge a pull request".to_owned()),
        ..InspectRequest::default()
    };
    let found = inspect(&registry, &options, &request).expect("a search answers");
    assert_eq!(
        found.structured["matches"][0]["tool"], "merge_pull_request",
        "{}",
        found.text
    );
    let request = InspectRequest {
        server_name: Some("github".to_owned()),
        tool_name: Some("create_issue".to_owned()),
        query: None,
    };
    let found = inspect(&registry, &options, &request).expect("inspect answers");
    assert!(found.text.contains("\ninput: {\n"), "{}", found.text);
    assert!(found.text.contains("title:string"), "{}", found.text);
    assert_eq!(
        found.structured["inputSchema"]["required"]
            .as_array()
            .map(Vec::len),
        Some(3)
    );
}
