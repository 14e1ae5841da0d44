//! The official MCP conformance suite's client scenarios, run against `conformance-client`, for
//! both requirement sets (2025-11-25 and 2026-07-28).
//!
//! For each set: every scenario the set runs (scored or not) that is not in
//! `expected-failures.yml` is run on its own, one after the other, at the set's wire version,
//! and must exit 0 with no FAILURE or WARNING in its `checks.json`. Then the set as a whole
//! (`--requirements REV --expected-failures expected-failures.yml`) must exit 0: the baselined
//! scenarios (none today) fail as expected and nothing else does. The two sets run one after
//! the other. The extension scenarios (OAuth's among them) run with each set, unscored by the
//! suite but held to the same standard here.
//!
//! Needs the peers (`scripts/install-peers.sh`); fails, never skips, when they are missing.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use mcp_test_support::run_conformance;
use serde_json::Value;

const CLIENT: &str = env!("CARGO_BIN_EXE_conformance-client");
/// Bound on one invocation of the suite (a scenario, or a whole requirement set).
const RUN_TIMEOUT: Duration = Duration::from_secs(300);

/// The two sets must not run at once: a set's whole run is parallel inside the suite, and
/// `sse-retry` measures the client's reconnection delay.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn baseline_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("expected-failures.yml")
}

/// The scenarios of the `client:` list of `expected-failures.yml` (`client: []` when none).
fn baselined() -> Vec<String> {
    let text = std::fs::read_to_string(baseline_path()).expect("read expected-failures.yml");
    let mut in_client = false;
    let mut seen_client = false;
    let mut names = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or_default();
        if !line.starts_with(' ') && !line.trim().is_empty() {
            let key = line.trim();
            in_client = key == "client:";
            seen_client |= in_client || key == "client: []";
            continue;
        }
        if in_client && let Some(name) = line.trim().strip_prefix("- ") {
            names.push(name.trim().to_owned());
        }
    }
    assert!(
        seen_client,
        "expected-failures.yml has no `client:` list (write `client: []` for none)"
    );
    names
}

async fn conformance(args: &[&str]) -> Output {
    run_conformance(args, RUN_TIMEOUT).await
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The client scenarios a requirement set runs, scored or not (`conformance list
/// --requirements REV`).
async fn client_scenarios(revision: &str) -> Vec<String> {
    let output = conformance(&["list", "--requirements", revision]).await;
    let listing = text(&output.stdout);
    assert!(
        output.status.success(),
        "conformance list failed:\n{listing}{}",
        text(&output.stderr)
    );
    let mut scenarios = Vec::new();
    let mut in_client = false;
    for line in listing.lines() {
        if line.starts_with("Client scenarios") {
            in_client = true;
        } else if line.trim().is_empty() || !line.starts_with(' ') {
            in_client = false;
        } else if let Some(entry) = line.trim().strip_prefix("- ") {
            if in_client {
                scenarios.push(entry.to_owned());
            } else if let Some(name) = entry.strip_suffix(" [client]") {
                scenarios.push(name.to_owned());
            }
        }
    }
    assert!(
        scenarios.iter().any(|s| s == "tools_call"),
        "no client scenario found in the listing of {revision}:\n{listing}"
    );
    scenarios
}

/// One `checks.json`: the scenario it belongs to and its checks.
struct Checks {
    scenario: String,
    checks: Vec<Value>,
}

/// Every `checks.json` under `dir` (results are `DIR/<scenario>-<ISO timestamp>/checks.json`,
/// the scenario name possibly containing `/`).
fn read_checks(dir: &Path) -> Vec<Checks> {
    fn walk(root: &Path, dir: &Path, found: &mut Vec<Checks>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(root, &path, found);
            } else if path.file_name().is_some_and(|n| n == "checks.json") {
                let parent = path.parent().unwrap().strip_prefix(root).unwrap();
                let parent = parent.to_string_lossy();
                // `-2026-11-22T06-20-38-998Z`
                let scenario = parent[..parent.len().saturating_sub(25)].to_owned();
                let raw = std::fs::read_to_string(&path).unwrap();
                let checks: Vec<Value> = serde_json::from_str(&raw)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                found.push(Checks { scenario, checks });
            }
        }
    }
    let mut found = Vec::new();
    walk(dir, dir, &mut found);
    found
}

/// The checks that failed or warned, as `id: message` lines.
fn bad_checks(checks: &[Value]) -> Vec<String> {
    checks
        .iter()
        .filter(|c| matches!(c["status"].as_str(), Some("FAILURE" | "WARNING")))
        .map(|c| {
            format!(
                "{} {}: {}",
                c["status"].as_str().unwrap_or_default(),
                c["id"].as_str().unwrap_or_default(),
                c["errorMessage"]
                    .as_str()
                    .or(c["description"].as_str())
                    .unwrap_or_default()
            )
        })
        .collect()
}

/// The client's own log for a scenario (its stderr, saved by the suite).
fn client_log(dir: &Path) -> String {
    let mut log = String::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n == "stderr.txt") {
                log.push_str(&std::fs::read_to_string(&path).unwrap_or_default());
            }
        }
    }
    log
}

/// Runs one scenario at one spec version; `Err` describes what failed, with the logs.
async fn run_single(scenario: &str, revision: &str, dir: &Path) -> Result<(), String> {
    let dir_arg = dir.to_str().expect("a UTF-8 path");
    let output = conformance(&[
        "client",
        "--command",
        CLIENT,
        "--scenario",
        scenario,
        "--spec-version",
        revision,
        "--force",
        "-o",
        dir_arg,
    ])
    .await;
    let results = read_checks(dir);
    let mut problems = Vec::new();
    if !output.status.success() {
        problems.push(format!("the suite exited with {}", output.status));
    }
    if results.is_empty() {
        problems.push("no checks.json was written".to_owned());
    }
    for result in &results {
        problems.extend(bad_checks(&result.checks));
    }
    if problems.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{scenario}:\n  {}\n--- suite output ---\n{}{}\n--- client log ---\n{}",
        problems.join("\n  "),
        text(&output.stdout),
        text(&output.stderr),
        client_log(dir)
    ))
}

async fn requirement_set(revision: &str) {
    let _serial = SERIAL.lock().await;
    assert!(
        !CLIENT.contains(char::is_whitespace),
        "the suite splits --command on spaces; build outside a path with spaces ({CLIENT})"
    );
    let expected_to_fail = baselined();
    let scenarios = client_scenarios(revision).await;
    let out = tempfile::tempdir().expect("a temporary directory");
    let baseline = baseline_path();
    let baseline = baseline.to_str().expect("a UTF-8 path");

    // 1. One scenario at a time, each judged on its own checks.
    let mut failures = Vec::new();
    let mut ran = 0;
    for scenario in scenarios.iter().filter(|s| !expected_to_fail.contains(s)) {
        let dir = out.path().join(format!("single-{ran}"));
        ran += 1;
        match run_single(scenario, revision, &dir).await {
            Ok(()) => eprintln!("[{revision}] {scenario}: passed"),
            Err(failure) => failures.push(failure),
        }
    }
    assert!(
        failures.is_empty(),
        "[{revision}] client scenarios failed:\n\n{}",
        failures.join("\n\n")
    );
    assert!(ran > 0, "[{revision}] no scenario ran");

    // 2. The whole set, as `conformance client --requirements` judges it.
    let dir = out.path().join("requirements");
    let dir_arg = dir.to_str().expect("a UTF-8 path");
    let output = conformance(&[
        "client",
        "--command",
        CLIENT,
        "--requirements",
        revision,
        "--expected-failures",
        baseline,
        "-o",
        dir_arg,
    ])
    .await;
    let summary = format!("{}{}", text(&output.stdout), text(&output.stderr));
    let results = read_checks(&dir);
    for scenario in &scenarios {
        assert!(
            results.iter().any(|r| &r.scenario == scenario),
            "[{revision}] the requirement run wrote no checks.json for {scenario}:\n{summary}"
        );
    }
    let mut unexpected = Vec::new();
    for result in results
        .iter()
        .filter(|r| !expected_to_fail.contains(&r.scenario))
    {
        let bad = bad_checks(&result.checks);
        if !bad.is_empty() {
            unexpected.push(format!("{}:\n  {}", result.scenario, bad.join("\n  ")));
        }
    }
    assert!(
        unexpected.is_empty(),
        "[{revision}] the requirement run failed checks:\n{}\n\n{summary}",
        unexpected.join("\n")
    );
    assert!(
        output.status.success(),
        "[{revision}] `conformance client --requirements {revision} --expected-failures \
         expected-failures.yml` exited with {}:\n{summary}",
        output.status
    );
    eprintln!(
        "[{revision}] requirement set passed ({} scenarios)",
        results.len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requirements_2025_11_25() {
    requirement_set("2025-11-25").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requirements_2026_07_28() {
    requirement_set("2026-07-28").await;
}

/// The versions besides the two requirement revisions that the suite lists for a client
/// scenario (e.g. `initialize` and `tools_call` at 2025-06-18): each scenario at each of them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_other_listed_version_of_each_scenario() {
    let _serial = SERIAL.lock().await;
    let expected_to_fail = baselined();
    let listing = conformance(&["list"]).await;
    let listing = text(&listing.stdout);
    let client = listing
        .split("Client scenarios")
        .nth(1)
        .expect("`conformance list` has a client section");
    let mut pairs = Vec::new();
    // The section's entries follow its heading; the next heading ends it.
    for line in client.lines().skip(1) {
        let Some(entry) = line.trim().strip_prefix("- ") else {
            if line.trim().is_empty() {
                continue;
            }
            break;
        };
        let Some((name, versions)) = entry.split_once(" [") else {
            continue;
        };
        if expected_to_fail.iter().any(|s| s == name) {
            continue;
        }
        for version in versions.trim_end_matches(']').split(',') {
            if !matches!(version, "2025-11-25" | "2026-07-28" | "extension") {
                pairs.push((name.to_owned(), version.to_owned()));
            }
        }
    }
    assert!(
        pairs
            .iter()
            .any(|(n, v)| n == "initialize" && v == "2025-06-18"),
        "expected initialize at 2025-06-18 among {pairs:?}"
    );
    let out = tempfile::tempdir().expect("a temporary directory");
    let mut failures = Vec::new();
    for (i, (scenario, version)) in pairs.iter().enumerate() {
        match run_single(scenario, version, &out.path().join(format!("other-{i}"))).await {
            Ok(()) => eprintln!("[{version}] {scenario}: passed"),
            Err(failure) => failures.push(failure),
        }
    }
    assert!(
        failures.is_empty(),
        "client scenarios failed:\n\n{}",
        failures.join("\n\n")
    );
}

/// No token, secret or code of the OAuth flow reaches the client's log, at any level: the
/// authorization scenarios run with `RUST_LOG=trace` (every crate: reqwest, hyper, rustls and
/// ours), and the log the suite saved is searched for the values the suite's servers hand out
/// (access tokens `test-token-…` and `cc-token-…`, the authorization code, the registered
/// client's secret, the pre-registered and client-credentials secrets).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_secret_of_the_oauth_flow_reaches_the_log_at_trace_level() {
    let _serial = SERIAL.lock().await;
    const SECRETS: &[&str] = &[
        "test-token-",
        "cc-token-",
        "test-auth-code",
        "test-client-secret",
        "pre-registered-secret",
        "conformance-test-secret",
    ];
    let command = format!("env RUST_LOG=trace {CLIENT}");
    let out = tempfile::tempdir().expect("a temporary directory");
    for (i, scenario) in [
        "auth/token-endpoint-auth-basic",
        "auth/pre-registration",
        "auth/scope-step-up",
        "auth/client-credentials-basic",
    ]
    .iter()
    .enumerate()
    {
        let dir = out.path().join(format!("trace-{i}"));
        let dir_arg = dir.to_str().expect("a UTF-8 path");
        let output = conformance(&[
            "client",
            "--command",
            &command,
            "--scenario",
            scenario,
            "--spec-version",
            "2026-07-28",
            "--force",
            "-o",
            dir_arg,
        ])
        .await;
        let log = client_log(&dir);
        assert!(
            output.status.success(),
            "{scenario} failed with RUST_LOG=trace:\n{}{}\n{log}",
            text(&output.stdout),
            text(&output.stderr)
        );
        assert!(
            log.contains("TRACE"),
            "{scenario}: the client logged nothing at trace level (is RUST_LOG passed on?):\n{log}"
        );
        for secret in SECRETS {
            let leaks: Vec<&str> = log.lines().filter(|l| l.contains(secret)).collect();
            assert!(
                leaks.is_empty(),
                "{scenario}: `{secret}` appears in the client's log:\n{}",
                leaks.join("\n")
            );
        }
    }
}

/// The skills extension's client scenarios (SEP-2640): a host that lists without reading, and
/// one that refuses a SKILL.md whose digest, size or frontmatter differs from its entry (and
/// then reads none of the skill's other files). Each runs at the suite's default wire for an
/// extension scenario (2025-11-25, `initialize`) and at 2026-07-28 (`server/discover`); every
/// check must be SUCCESS (a SKIPPED one means the client never listed or never loaded).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skills_scenarios_at_both_wires() {
    let _serial = SERIAL.lock().await;
    let out = tempfile::tempdir().expect("a temporary directory");
    let mut failures = Vec::new();
    let mut run = 0;
    for scenario in [
        "sep-2640-client-no-prefetch",
        "sep-2640-client-verify-digest",
        "sep-2640-client-verify-size",
        "sep-2640-client-verify-frontmatter",
    ] {
        for version in [None, Some("2026-07-28")] {
            let dir = out.path().join(format!("skills-{run}"));
            run += 1;
            let dir_arg = dir.to_str().expect("a UTF-8 path");
            let mut args = vec!["client", "--command", CLIENT, "--scenario", scenario];
            if let Some(version) = version {
                args.extend(["--spec-version", version, "--force"]);
            }
            args.extend(["-o", dir_arg]);
            let output = conformance(&args).await;
            let results = read_checks(&dir);
            let checks: Vec<&Value> = results.iter().flat_map(|r| &r.checks).collect();
            let not_success: Vec<String> = checks
                .iter()
                .filter(|c| c["status"] != "SUCCESS")
                .map(|c| format!("{} {}: {}", c["status"], c["id"], c["errorMessage"]))
                .collect();
            let label = version.unwrap_or("default version");
            if !output.status.success() || checks.is_empty() || !not_success.is_empty() {
                failures.push(format!(
                    "{scenario} ({label}): exit {}, {} checks\n  {}\n--- suite output ---\n{}{}\n--- client log ---\n{}",
                    output.status,
                    checks.len(),
                    not_success.join("\n  "),
                    text(&output.stdout),
                    text(&output.stderr),
                    client_log(&dir)
                ));
            } else {
                eprintln!("{scenario} ({label}): passed");
            }
        }
    }
    assert!(
        failures.is_empty(),
        "skills client scenarios failed:\n\n{}",
        failures.join("\n\n")
    );
}
