use crate::text::{Hit, SearchDoc, SearchIndex};

/// A small catalog over two servers, descriptions written like real ones.
const CATALOG: &[(&str, &str, &str)] = &[
    (
        "github",
        "add_pull_request_review_comment",
        "Add a review comment to the requester's latest pending pull request review.",
    ),
    (
        "github",
        "list_issues",
        "List issues in a GitHub repository, with filters for state and labels.",
    ),
    (
        "github",
        "create_issue",
        "Create a new issue in a GitHub repository with a title and body.",
    ),
    (
        "github",
        "get_file_contents",
        "Get the contents of a file or directory from a repository.",
    ),
    (
        "github",
        "merge_pull_request",
        "Merge a pull request in a GitHub repository.",
    ),
    (
        "github",
        "list_pull_requests",
        "List pull requests in a repository.",
    ),
    (
        "github",
        "getCommit",
        "Get details for a commit of a repository.",
    ),
    ("slack", "post_message", "Post a message to a channel."),
    (
        "slack",
        "list_channels",
        "List the channels of the workspace.",
    ),
    (
        "files",
        "get_file_contents",
        "Read a file from the local disk.",
    ),
];

fn index() -> SearchIndex {
    SearchIndex::new(
        CATALOG
            .iter()
            .map(|&(server, tool, description)| SearchDoc {
                server,
                tool,
                description,
            }),
    )
}

fn tools(hits: &[Hit]) -> Vec<&str> {
    hits.iter().map(|hit| hit.tool.as_str()).collect()
}

fn rank(hits: &[Hit], tool: &str) -> usize {
    hits.iter()
        .position(|hit| hit.tool == tool)
        .unwrap_or_else(|| panic!("{tool} not in {hits:?}"))
}

#[test]
fn ranks_the_tool_that_fits_first() {
    let index = index();
    assert_eq!(index.len(), CATALOG.len());

    let hits = index.search("pull request comments", 10);
    assert_eq!(hits[0].tool, "add_pull_request_review_comment", "{hits:?}");
    assert!(!tools(&hits).contains(&"list_issues"), "{hits:?}");

    let hits = index.search("create an issue", 10);
    assert_eq!(hits[0].tool, "create_issue", "{hits:?}");
    assert!(rank(&hits, "create_issue") < rank(&hits, "list_issues"));

    let hits = index.search("merging pull requests", 3);
    assert_eq!(
        tools(&hits)[..2],
        ["merge_pull_request", "list_pull_requests"],
        "{hits:?}"
    );

    let hits = index.search("send a message to a channel", 10);
    assert_eq!(hits[0].tool, "post_message", "{hits:?}");
}

#[test]
fn matches_camel_case_names() {
    let hits = index().search("get commit", 5);
    assert_eq!(hits[0].tool, "getCommit", "{hits:?}");
    let hits = index().search("commits", 5);
    assert_eq!(tools(&hits), ["getCommit"]);
}

#[test]
fn scores_are_positive_and_descending() {
    let hits = index().search("list repository", 100);
    assert!(!hits.is_empty());
    assert!(hits.iter().all(|hit| hit.score > 0.0));
    assert!(hits.windows(2).all(|pair| pair[0].score >= pair[1].score));
}

#[test]
fn limit_caps_the_hits() {
    assert_eq!(index().search("repository", 2).len(), 2);
    assert!(index().search("repository", 0).is_empty());
}

#[test]
fn equal_scores_order_by_server_then_tool() {
    // Both servers' get_file_contents are named exactly; github's description also matches.
    let hits = index().search("get_file_contents", 10);
    assert_eq!(
        hits.iter()
            .take(2)
            .map(|hit| (hit.server.as_str(), hit.tool.as_str()))
            .collect::<Vec<_>>(),
        [
            ("github", "get_file_contents"),
            ("files", "get_file_contents")
        ]
    );
    // Documents that are copies of each other score the same and come out in name order.
    let same = "List things.";
    let index = SearchIndex::new([
        SearchDoc {
            server: "b",
            tool: "list_y",
            description: same,
        },
        SearchDoc {
            server: "a",
            tool: "list_z",
            description: same,
        },
        SearchDoc {
            server: "b",
            tool: "list_x",
            description: same,
        },
        SearchDoc {
            server: "a",
            tool: "list_x",
            description: same,
        },
    ]);
    let hits = index.search("list", 10);
    let order: Vec<_> = hits
        .iter()
        .map(|hit| (hit.server.as_str(), hit.tool.as_str()))
        .collect();
    assert_eq!(
        order,
        [
            ("a", "list_x"),
            ("a", "list_z"),
            ("b", "list_x"),
            ("b", "list_y")
        ]
    );
    assert!(hits.windows(2).all(|pair| pair[0].score == pair[1].score));
}

#[test]
fn an_exact_tool_name_comes_first() {
    // "list issues" also matches list_pull_requests' and create_issue's words; the named
    // tool wins however the name is spelled.
    for query in [
        "list_issues",
        "list issues",
        "LIST_ISSUES",
        "ListIssues",
        "how do I call `list_issues`?",
    ] {
        let hits = index().search(query, 3);
        assert_eq!(hits[0].tool, "list_issues", "{query}: {hits:?}");
    }
    // A tool whose name holds only stopwords is still found by its name.
    let index = SearchIndex::new([
        SearchDoc {
            server: "s",
            tool: "get_me",
            description: "The signed-in user.",
        },
        SearchDoc {
            server: "s",
            tool: "get_it",
            description: "Something else.",
        },
    ]);
    assert_eq!(index.search("get_me", 5)[0].tool, "get_me");
}

#[test]
fn no_terms_no_hits() {
    let index = index();
    assert!(index.search("", 10).is_empty());
    assert!(index.search("   ", 10).is_empty());
    assert!(index.search("the of and to", 10).is_empty());
    assert!(index.search("zebra xylophone", 10).is_empty());
    assert!(SearchIndex::new([]).search("issue", 10).is_empty());
    assert!(SearchIndex::new([]).is_empty());
}

#[test]
fn searching_is_deterministic() {
    let first = index().search("repository file pull", 10);
    for _ in 0..5 {
        assert_eq!(index().search("repository file pull", 10), first);
    }
}

proptest::proptest! {
    #[test]
    fn any_query_gives_sorted_positive_hits(query in "\\PC{0,30}", limit in 0_usize..12) {
        let hits = index().search(&query, limit);
        proptest::prop_assert!(hits.len() <= limit);
        proptest::prop_assert!(hits.iter().all(|hit| hit.score > 0.0));
        proptest::prop_assert!(hits.windows(2).all(|pair| pair[0].score >= pair[1].score));
    }
}
