//! The examples and the user documentation stay true:
//!
//! - the examples that need no outside server run and print what they promise
//!   (`stdio_self_spawn`, `unix_loopback`, `in_memory_duplex`, `session_handoff`, and
//!   `minimal_client` / `client_with_policy` against `demo_server`); the streamable HTTP ones run
//!   against the everything server;
//! - the repository's `.mcp.json` configures the demo server;
//! - every link of `docs/SUMMARY.md` and every relative link inside the docs resolves, anchors
//!   included (the check `mdbook build` would make, and more), every page is in the summary,
//!   and every example is documented in `docs/examples.md`;
//! - `llms.txt` and `docs/llms.txt` are what `scripts/gen-llms-txt.sh` makes of the docs now.
//!
//! The examples are built with `cargo build --examples` first: `cargo test` builds them only
//! when no target is selected, and a stale binary must not pass for a fresh one. When they are
//! up to date (as after a plain `cargo test`), that build is a no-op.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use mcp_kit::{Config, ServerConfig};

/// How long one example may run.
const EXAMPLE_TIMEOUT: Duration = Duration::from_secs(120);

fn repo_root() -> PathBuf {
    mcp_test_support::repo_root()
}

/// The directory holding the example binaries, built for this test's profile and features.
fn examples_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        // The same features as this test, so that the build does not change the library.
        let features: &[&str] = if cfg!(feature = "cli") { &["cli"] } else { &[] };
        mcp_test_support::build_examples("mcp-kit", features)
    })
}

fn example(name: &str) -> PathBuf {
    let path = examples_dir().join(name);
    assert!(path.exists(), "{} was not built", path.display());
    path
}

/// Runs a program to completion (bounded by [`EXAMPLE_TIMEOUT`]) and returns its output.
fn run(program: &Path, args: &[&str], cwd: &Path) -> Output {
    let mut child = Command::new(program)
        .args(args)
        .current_dir(cwd)
        // Errors printed by `anyhow` stay one line.
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()));
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("piped stdout")));
    let stderr = drain(Box::new(child.stderr.take().expect("piped stderr")));
    let deadline = Instant::now() + EXAMPLE_TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the example") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!(
                "{} {args:?} did not finish within {EXAMPLE_TIMEOUT:?}",
                program.display()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: stdout.join().expect("stdout reader"),
        stderr: stderr.join().expect("stderr reader"),
    }
}

/// Runs an example that must succeed and returns its stdout.
fn run_ok(name: &str, args: &[&str], cwd: &Path) -> String {
    let output = run(&example(name), args, cwd);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{name} {args:?} failed ({}):\n--- stdout\n{stdout}--- stderr\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

fn assert_contains(output: &str, expected: &[&str]) {
    for line in expected {
        assert!(
            output.contains(line),
            "expected {line:?} in the output:\n{output}"
        );
    }
}

// ----- examples that need no outside server ---------------------------------------------------

#[test]
fn stdio_self_spawn() {
    let stdout = run_ok("stdio_self_spawn", &[], &repo_root());
    assert_contains(
        &stdout,
        &[
            "2 tool(s):",
            "  echo ",
            "  add ",
            "negotiated protocol version 2025-11-25 with \"mcp-kit-example-server\"",
            "echo -> hello from the parent process",
            "add(2, 40) -> 42",
            "ping -> ok",
            "server exited: exit status: 0",
        ],
    );
}

#[test]
fn unix_loopback() {
    let stdout = run_ok("unix_loopback", &[], &repo_root());
    assert_contains(
        &stdout,
        &[
            "(V1)",
            "untrusted: refusing to connect unix mcp server in untrusted mode: server `local` \
             (transport=unix); rerun with --trust (CLI) or use TrustMode::Trusted (code)",
            "2 tool(s):",
            "echo -> hello over a unix socket",
            "connected servers: [\"local\"]",
        ],
    );
}

#[test]
fn in_memory_duplex() {
    let stdout = run_ok("in_memory_duplex", &[], &repo_root());
    assert_contains(
        &stdout,
        &[
            "connected: {\"name\":\"mcp-kit-example-server\"",
            "3 tool(s):",
            "  ask_client ",
            "roots/list -> {\"roots\":[{\"uri\":\"file:///workspace/demo\",\"name\":\"demo\"}]}",
            "example/confirm -> {\"confirmed\":true,\"asked\":\"proceed?\"}",
            "sampling/createMessage -> peer returned an error: Method not found: \
             sampling/createMessage (code -32601)",
            "notification: notifications/message from scripted: ",
        ],
    );
}

#[test]
fn session_handoff() {
    let stdout = run_ok("session_handoff", &[], &repo_root());
    assert_contains(
        &stdout,
        &[
            "[worker] protocol 2025-11-25",
            "[cached] protocol 2025-11-25",
            "echo -> handed over",
            "add(1.5, 2) -> 3.5",
            "cached: [\"cached\"]",
            "after take_session: []",
        ],
    );
    assert_eq!(stdout.matches("add(1.5, 2) -> 3.5").count(), 2, "{stdout}");
}

/// A root whose `.mcp.json` runs the demo server (by absolute path).
fn demo_root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let config = serde_json::json!({
        "version": 1,
        "servers": {
            "demo": { "transport": "stdio", "argv": [example("demo_server")] }
        }
    });
    std::fs::write(dir.path().join(".mcp.json"), config.to_string()).expect("write .mcp.json");
    dir
}

#[test]
fn minimal_client_is_untrusted_by_default() {
    let root = demo_root();
    let output = run(&example("minimal_client"), &["demo"], root.path());
    assert!(!output.status.success());
    assert_contains(
        &String::from_utf8_lossy(&output.stderr),
        &["refusing to spawn mcp server in untrusted mode: server `demo` (transport=stdio)"],
    );

    let output = run(&example("minimal_client"), &[], root.path());
    assert!(!output.status.success());
    assert_contains(
        &String::from_utf8_lossy(&output.stderr),
        &["usage: minimal_client <server>"],
    );
}

#[test]
fn client_with_policy_flags() {
    let root = demo_root();
    let refused = run(&example("client_with_policy"), &["demo"], root.path());
    assert_eq!(refused.status.code(), Some(3));
    assert_contains(
        &String::from_utf8_lossy(&refused.stderr),
        &["refusing to spawn mcp server in untrusted mode"],
    );

    // The --allow-* flags never open a stdio server.
    let still_refused = run(
        &example("client_with_policy"),
        &[
            "--allow-http",
            "--allow-localhost",
            "--allow-private-ip",
            "demo",
        ],
        root.path(),
    );
    assert_eq!(still_refused.status.code(), Some(3));

    let stdout = run_ok("client_with_policy", &["--trust", "demo"], root.path());
    assert_contains(&stdout, &["2 tool(s):", "  echo ", "  add "]);

    let usage = run(&example("client_with_policy"), &["--bogus"], root.path());
    assert_eq!(usage.status.code(), Some(2));
    assert_contains(
        &String::from_utf8_lossy(&usage.stderr),
        &["unknown flag --bogus"],
    );
}

#[tokio::test]
async fn the_repository_mcp_json_runs_the_demo_server() {
    let root = repo_root();
    let config = Config::load(&root, None)
        .await
        .expect("the repository's .mcp.json");
    assert_eq!(config.path, Some(root.join(".mcp.json")));
    let Some(ServerConfig::Stdio(demo)) = config.servers.get("demo") else {
        panic!("`demo` must be a stdio server: {config:?}");
    };
    assert_eq!(demo.argv, ["target/debug/examples/example_server"]);
    assert!(
        root.join("crates/mcp-server/examples/example_server.rs")
            .exists()
    );

    // With the default target directory and profile, the configured path is the binary this
    // test built: use the configuration as it is.
    if examples_dir() == root.join("target/debug/examples") {
        mcp_test_support::build_examples("mcp-server", &[]);
        let stdout = tokio::task::spawn_blocking(move || {
            run_ok("client_with_policy", &["--trust", "demo"], &root)
        })
        .await
        .expect("the example ran");
        assert_contains(&stdout, &["5 tool(s):"]);
    }
}

// ----- streamable HTTP examples, against the everything server ---------------------------------

#[tokio::test]
async fn streamable_http_examples_against_the_everything_server() {
    let server = mcp_test_support::start_everything_http().await;
    let url = server.url.clone();
    let root = repo_root();
    let (split, custom) = tokio::task::spawn_blocking(move || {
        let split = run_ok("streamable_http_split", &[&url, &url], &root);
        let custom = run_ok(
            "streamable_http_custom_options",
            &[
                "--connect-timeout-ms",
                "5000",
                "--request-timeout-ms",
                "20000",
                "--header",
                "X-Example: 1",
                "--requests-capacity",
                "8",
                &url,
            ],
            &root,
        );
        (split, custom)
    })
    .await
    .expect("the examples ran");
    assert_contains(
        &split,
        &[
            "protocol 2025-11-25 with {",
            "mcp-servers/everything",
            "  echo ",
        ],
    );
    assert_contains(&custom, &["  echo ", "  get-sum "]);
    drop(server);
}

// ----- the book ---------------------------------------------------------------------------------

fn docs_dir() -> PathBuf {
    repo_root().join("docs")
}

/// The Markdown links of `text` (`[label](target)`), outside code blocks and code spans:
/// `(label, target)`.
fn markdown_links(text: &str) -> Vec<(String, String)> {
    let mut links = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        // Drop code spans.
        let mut prose = String::new();
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                prose.push_str(part);
            }
        }
        let mut rest = prose.as_str();
        while let Some(open) = rest.find('[') {
            let after = &rest[open + 1..];
            let Some(close) = after.find("](") else { break };
            let label = &after[..close];
            let target_start = &after[close + 2..];
            let Some(end) = target_start.find(')') else {
                break;
            };
            if !label.contains('[') {
                links.push((label.to_owned(), target_start[..end].to_owned()));
            }
            rest = &target_start[end + 1..];
        }
    }
    links
}

/// A link to a file in the repository (not a URL, not an anchor in the same page).
fn is_relative(target: &str) -> bool {
    !(target.contains("://") || target.starts_with("mailto:") || target.starts_with('#'))
}

fn doc_pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(docs_dir())
        .expect("docs/")
        .map(|entry| entry.expect("a docs/ entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    pages.sort();
    pages
}

/// The pages of `docs/SUMMARY.md`, in order.
fn summary_pages() -> Vec<String> {
    let summary = std::fs::read_to_string(docs_dir().join("SUMMARY.md")).expect("SUMMARY.md");
    markdown_links(&summary)
        .into_iter()
        .map(|(_, target)| target)
        .filter(|target| is_relative(target))
        .collect()
}

#[test]
fn every_summary_link_resolves() {
    let pages = summary_pages();
    assert!(
        pages.len() > 20,
        "SUMMARY.md lists too few pages: {pages:?}"
    );
    for page in &pages {
        assert!(
            page.ends_with(".md") && !page.contains('#'),
            "SUMMARY.md must link whole .md pages: `{page}`"
        );
        assert!(
            docs_dir().join(page).is_file(),
            "SUMMARY.md links to docs/{page}, which does not exist"
        );
    }
    let mut unique = pages.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(
        unique.len(),
        pages.len(),
        "a page is listed twice: {pages:?}"
    );
}

#[test]
fn every_page_is_in_the_summary() {
    let pages = summary_pages();
    for page in doc_pages() {
        let name = page.file_name().and_then(|n| n.to_str()).expect("a name");
        if name == "SUMMARY.md" {
            continue;
        }
        assert!(
            pages.iter().any(|listed| listed == name),
            "docs/{name} is not in docs/SUMMARY.md"
        );
    }
}

/// The ids mdbook gives the headings of a page (`## Protocol eras` → `protocol-eras`; a
/// repeated id gets `-1`, `-2`, …).
fn heading_ids(text: &str) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        let Some(heading) = line.strip_prefix('#') else {
            continue;
        };
        if in_fence {
            continue;
        }
        let heading = heading.trim_start_matches('#');
        if !heading.starts_with(' ') {
            continue;
        }
        // The heading's text: link targets and markup removed.
        let mut text = String::new();
        let mut rest = heading.trim();
        while let Some(open) = rest.find("](") {
            text.push_str(&rest[..open]);
            rest = rest[open + 2..]
                .split_once(')')
                .map_or("", |(_, after)| after);
        }
        text.push_str(rest);
        let base: String = text
            .chars()
            .filter_map(|c| {
                if c.is_alphanumeric() || c == '_' || c == '-' {
                    Some(c.to_ascii_lowercase())
                } else if c.is_whitespace() {
                    Some('-')
                } else {
                    None
                }
            })
            .collect();
        let mut id = base.clone();
        let mut n = 0;
        while ids.contains(&id) {
            n += 1;
            id = format!("{base}-{n}");
        }
        ids.push(id);
    }
    ids
}

#[test]
fn every_relative_link_in_the_docs_resolves() {
    let mut checked = 0;
    for page in doc_pages() {
        let text = std::fs::read_to_string(&page).expect("a page");
        for (label, target) in markdown_links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = match target.split_once('#') {
                Some((path, anchor)) => (path, Some(anchor)),
                None => (target.as_str(), None),
            };
            let resolved = if path.is_empty() {
                page.clone()
            } else {
                page.parent().expect("docs/").join(path)
            };
            assert!(
                resolved.exists(),
                "{}: the link [{label}]({target}) points to {}, which does not exist",
                page.display(),
                resolved.display()
            );
            if let Some(anchor) = anchor {
                assert!(
                    path.is_empty() || path.ends_with(".md"),
                    "{}: [{label}]({target}): anchors are only checked in .md pages",
                    page.display()
                );
                let target_text = std::fs::read_to_string(&resolved).expect("the linked page");
                let ids = heading_ids(&target_text);
                assert!(
                    ids.iter().any(|id| id == anchor),
                    "{}: the link [{label}]({target}) names no heading of {} (its ids: {ids:?})",
                    page.display(),
                    resolved.display()
                );
            }
            checked += 1;
        }
    }
    assert!(
        checked > 50,
        "only {checked} relative links found: is the parser broken?"
    );
}

#[test]
fn heading_ids_follow_mdbook() {
    let text = "# Using the library\n## Typed methods: `mcp_kit::mcp`\n```\n# not a heading\n```\n\
                ### client.roots and roots/list\n## Errors\n## Errors\n#not-a-heading";
    assert_eq!(
        heading_ids(text),
        [
            "using-the-library",
            "typed-methods-mcp_kitmcp",
            "clientroots-and-rootslist",
            "errors",
            "errors-1"
        ]
    );
}

#[test]
fn link_parser() {
    let text = "See [a](a.md) and [b](https://x.y/) `[c](c.md)`\n```\n[d](d.md)\n```\n[e](e.md#x)";
    assert_eq!(
        markdown_links(text),
        [
            ("a".to_owned(), "a.md".to_owned()),
            ("b".to_owned(), "https://x.y/".to_owned()),
            ("e".to_owned(), "e.md#x".to_owned())
        ]
    );
}

#[test]
fn every_example_is_documented() {
    let examples = repo_root().join("crates/mcp-kit/examples");
    let guide = std::fs::read_to_string(docs_dir().join("examples.md")).expect("examples.md");
    for entry in std::fs::read_dir(&examples).expect("examples/") {
        let path = entry.expect("an entry").path();
        if path.extension().is_some_and(|ext| ext == "rs") {
            let name = path.file_stem().and_then(|s| s.to_str()).expect("a name");
            assert!(
                guide.contains(&format!("--example {name}")),
                "docs/examples.md does not show how to run the `{name}` example"
            );
        }
    }
}

#[test]
fn llms_txt_is_up_to_date() {
    let root = repo_root();
    let output = Command::new("bash")
        .arg(root.join("scripts/gen-llms-txt.sh"))
        .arg("--stdout")
        .current_dir(&root)
        .output()
        .expect("bash runs scripts/gen-llms-txt.sh");
    assert!(
        output.status.success(),
        "scripts/gen-llms-txt.sh failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let expected = String::from_utf8(output.stdout).expect("UTF-8 docs");
    assert!(expected.contains("\n# Introduction (README.md)\n"));
    for file in ["llms.txt", "docs/llms.txt"] {
        let actual = std::fs::read_to_string(root.join(file))
            .unwrap_or_else(|e| panic!("{file}: {e}; run ./scripts/gen-llms-txt.sh"));
        if actual != expected {
            let line = actual
                .lines()
                .zip(expected.lines())
                .position(|(a, e)| a != e)
                .unwrap_or_else(|| actual.lines().count().min(expected.lines().count()));
            panic!(
                "{file} is stale (first difference at line {}): run ./scripts/gen-llms-txt.sh \
                 and commit the result",
                line + 1
            );
        }
    }
}
