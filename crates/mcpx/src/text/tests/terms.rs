use crate::text::terms::{STOPWORDS, is_stopword, stem, terms, words};

#[test]
fn stopwords_are_sorted_for_binary_search() {
    assert!(STOPWORDS.windows(2).all(|pair| pair[0] < pair[1]));
    assert!(is_stopword("the") && is_stopword("your") && !is_stopword("issue"));
}

#[test]
fn splits_identifiers_into_words() {
    assert_eq!(words("list_pull_requests"), ["list", "pull", "requests"]);
    assert_eq!(words("getFileContents"), ["get", "file", "contents"]);
    assert_eq!(words("GetFileContents"), ["get", "file", "contents"]);
    assert_eq!(words("pull-request"), ["pull", "request"]);
    assert_eq!(words("HTTPServer v2"), ["http", "server", "v2"]);
    assert_eq!(words("parseJSON"), ["parse", "json"]);
    assert_eq!(
        words("workflow IDs, repo's URLs"),
        ["workflow", "ids", "repo", "s", "urls"]
    );
    assert_eq!(words("sha256 base64"), ["sha256", "base64"]);
    assert_eq!(words("Größe ÄNDERN"), ["größe", "ändern"]);
    assert!(words(" -- __ ").is_empty());
}

#[test]
fn stems_inflections_together() {
    let same = |forms: &[&str]| {
        let stems: Vec<String> = forms.iter().map(|form| stem(form)).collect();
        assert!(
            stems.windows(2).all(|pair| pair[0] == pair[1]),
            "{forms:?} → {stems:?}"
        );
    };
    same(&["create", "creates", "created", "creating"]);
    same(&["merge", "merges", "merged", "merging"]);
    same(&["list", "lists", "listed", "listing"]);
    same(&["get", "gets", "getting"]);
    same(&["commit", "commits", "committed", "committing"]);
    same(&["repository", "repositories"]);
    same(&["branch", "branches"]);
    same(&["status", "statuses"]);
    same(&["class", "classes"]);
    same(&["release", "releases", "released"]);
    same(&["issue", "issues"]);
    same(&["id", "ids"]);
    same(&["run", "runs", "running"]);
    same(&["use", "uses", "used", "using"]);
    same(&["apply", "applies", "applied"]);
    same(&["add", "adds", "added", "adding"]);
    same(&["pull", "pulls", "pulled"]);
}

#[test]
fn leaves_words_without_those_suffixes_alone() {
    for word in [
        "string", "need", "status", "analysis", "access", "bring", "go", "v2", "größe",
    ] {
        let stemmed = stem(word);
        assert!(
            word.starts_with(&stemmed) && stemmed.len() + 1 >= word.len(),
            "{word} → {stemmed}"
        );
    }
    assert_eq!(stem("string"), "string");
    assert_eq!(stem("need"), "need");
    assert_eq!(stem("status"), "status");
}

#[test]
fn terms_drop_stopwords_and_stem() {
    assert_eq!(
        terms("Create an issue in the repository"),
        ["creat", "issu", "repository"]
    );
    assert_eq!(
        terms("add_pull_request_review_comment"),
        ["add", "pull", "request", "review", "comment"]
    );
    assert!(terms("the of and").is_empty());
}

proptest::proptest! {
    #[test]
    fn words_are_nonempty_lowercase_alphanumerics(text in "\\PC{0,40}") {
        for word in words(&text) {
            proptest::prop_assert!(!word.is_empty());
            proptest::prop_assert!(word.chars().all(char::is_alphanumeric), "{word:?}");
            proptest::prop_assert_eq!(word.to_lowercase(), word.clone());
        }
    }

    #[test]
    fn stems_are_nonempty_and_no_longer(word in "[a-z]{1,12}") {
        let stemmed = stem(&word);
        proptest::prop_assert!(!stemmed.is_empty() && stemmed.len() <= word.len());
    }
}
