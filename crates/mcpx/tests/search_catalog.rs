//! Search over a real catalog: the 117 tools of GitHub's MCP server, read at test time
//! (`mcp_test_support::catalog_path`; never copied into this repository).

use mcpx::text::{SearchDoc, SearchIndex};

/// The catalog's tools as (name, description).
fn github_tools() -> Vec<(String, String)> {
    mcp_test_support::github_catalog_tools()
        .iter()
        .map(|tool| {
            let name = tool["name"].as_str().expect("a tool name").to_owned();
            let description = tool["description"].as_str().unwrap_or_default().to_owned();
            (name, description)
        })
        .collect()
}

fn index(tools: &[(String, String)]) -> SearchIndex {
    SearchIndex::new(tools.iter().map(|(tool, description)| SearchDoc {
        server: "github",
        tool,
        description,
    }))
}

#[test]
fn natural_queries_find_the_tool_in_the_top_three() {
    let tools = github_tools();
    assert_eq!(
        tools.len(),
        117,
        "the catalog changed; check the expectations below"
    );
    let index = index(&tools);
    let cases = [
        ("create an issue", "create_issue"),
        ("merge pull request", "merge_pull_request"),
        ("search code", "search_code"),
        ("list workflow runs", "actions_list"),
        ("get file contents", "get_file_contents"),
        ("add a comment to an issue", "add_issue_comment"),
        ("list my notifications", "list_notifications"),
        ("download logs of a failed job", "get_job_logs"),
        ("create a new branch", "create_branch"),
        ("star a repository", "star_repository"),
        ("details of the authenticated user", "get_me"),
        ("latest release", "get_latest_release"),
        ("request a review from copilot", "request_copilot_review"),
    ];
    let mut misses = Vec::new();
    for (query, expected) in cases {
        let hits = index.search(query, 3);
        let top: Vec<&str> = hits.iter().map(|hit| hit.tool.as_str()).collect();
        println!("{query:?} → {top:?}");
        if !top.contains(&expected) {
            misses.push(format!(
                "{query:?}: expected {expected} in the top 3, got {top:?}"
            ));
        }
    }
    assert!(misses.is_empty(), "{}", misses.join("\n"));
}

#[test]
fn tool_names_find_themselves_first() {
    let tools = github_tools();
    let index = index(&tools);
    for (tool, _) in &tools {
        let hits = index.search(tool, 1);
        assert_eq!(
            hits.first().map(|hit| hit.tool.as_str()),
            Some(tool.as_str())
        );
    }
}

#[test]
fn nonsense_finds_nothing() {
    let index = index(&github_tools());
    assert!(index.search("", 5).is_empty());
    assert!(index.search("quasar zeppelin", 5).is_empty());
}
