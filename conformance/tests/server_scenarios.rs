//! The official MCP conformance suite's server scenarios against `conformance-server`.
//!
//! - Both frozen requirement sets (`--requirements 2025-11-25`, `--requirements 2026-07-28`)
//!   must exit 0 with no FAILURE in any scored scenario.
//! - Every scenario the suite has for a spec version (`--suite all --spec-version REV`,
//!   pending and extension scenarios included) also runs; the ones that fail are printed, and
//!   none of them may be a scenario of the requirement set (so only pending or extension
//!   scenarios can fail there).
//! - Scale-out (issue 16): the 2025-11-25 requirement set must pass the same way against three
//!   `conformance-server` replicas sharing their sessions through one `redis-server`
//!   (`MCP_REDIS_URL`), behind an `haproxy` that balances every request round-robin, without
//!   stickiness: whichever replica a request lands on serves its session.
//!
//! Needs the peers (`scripts/install-peers.sh`), and for scale-out `redis-server` and `haproxy`
//! (`scripts/install-system-deps.sh`); fails, never skips, when they are missing.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Output;
use std::time::Duration;

use mcp_test_support::scale_out::{Haproxy, Redis};
use mcp_test_support::{ServerProcess, free_port, run_conformance};
use serde_json::Value;

const SERVER: &str = env!("CARGO_BIN_EXE_conformance-server");
/// Bound on one invocation of the suite.
const RUN_TIMEOUT: Duration = Duration::from_secs(600);

/// One suite run at a time: a whole run is already parallel inside the suite.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

async fn start_server() -> ServerProcess {
    let port = free_port();
    let mut command = tokio::process::Command::new(SERVER);
    command
        .args(["--port", &port.to_string()])
        .kill_on_drop(true);
    mcp_test_support::start_http_server(command, port, "conformance-server", "listening on http://")
        .await
}

/// A `conformance-server` replica on `port` whose sessions live in the Redis at `redis_url`;
/// ready once it says it listens (it has reached the store by then).
async fn start_replica(name: &'static str, port: u16, redis_url: &str) -> ServerProcess {
    let mut command = tokio::process::Command::new(SERVER);
    command
        .args(["--port", &port.to_string()])
        .env("MCP_REDIS_URL", redis_url)
        .kill_on_drop(true);
    mcp_test_support::start_http_server(command, port, name, "listening on http://").await
}

async fn conformance(args: &[&str]) -> Output {
    run_conformance(args, RUN_TIMEOUT).await
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `scenario -> checks` for every `checks.json` under `dir`
/// (`DIR/server-<scenario>-<ISO timestamp>/checks.json`).
fn read_checks(dir: &Path) -> Vec<(String, Vec<Value>)> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n == "checks.json") {
                let parent = path.parent().unwrap().strip_prefix(dir).unwrap();
                let parent = parent.to_string_lossy();
                let name = parent[..parent.len().saturating_sub(25)].to_owned();
                let name = name.strip_prefix("server-").unwrap_or(&name).to_owned();
                let raw = std::fs::read_to_string(&path).unwrap();
                let checks: Vec<Value> = serde_json::from_str(&raw)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                found.push((name, checks));
            }
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

fn with_status(checks: &[Value], status: &str) -> Vec<String> {
    checks
        .iter()
        .filter(|c| c["status"] == status)
        .map(|c| {
            format!(
                "{status} {}: {}",
                c["id"].as_str().unwrap_or_default(),
                c["errorMessage"]
                    .as_str()
                    .or(c["description"].as_str())
                    .unwrap_or_default()
            )
        })
        .collect()
}

/// The server scenarios a requirement set scores.
async fn listed(revision: &str) -> BTreeSet<String> {
    let output = conformance(&["list", "--requirements", revision]).await;
    let listing = text(&output.stdout);
    assert!(
        output.status.success(),
        "conformance list failed:\n{listing}"
    );
    let mut in_server = false;
    let mut names = BTreeSet::new();
    for line in listing.lines() {
        if line.starts_with("Server scenarios") {
            in_server = true;
        } else if line.trim().is_empty() || !line.starts_with(' ') {
            in_server = false;
        } else if let Some(entry) = line.trim().strip_prefix("- ") {
            // Only the scored list: "Run and reported, but never scored" entries are not.
            if in_server {
                names.insert(
                    entry
                        .split_whitespace()
                        .next()
                        .unwrap_or_default()
                        .to_owned(),
                );
            }
        }
    }
    assert!(
        names.contains("tools-call-simple-text") || names.contains("tools-list"),
        "no server scenario found in the listing of {revision}:\n{listing}"
    );
    names
}

async fn requirement_set(revision: &str) {
    let _serial = SERIAL.lock().await;
    let server = start_server().await;
    requirement_set_at(revision, &server.url, revision).await;
}

/// Runs the requirement set `revision` against the MCP endpoint `url` (`label` names the run
/// in messages) and asserts that it passes.
async fn requirement_set_at(revision: &str, url: &str, label: &str) {
    let out = tempfile::tempdir().expect("a temporary directory");
    let dir = out.path().to_str().expect("a UTF-8 path");
    let output = conformance(&[
        "server",
        "--url",
        url,
        "--requirements",
        revision,
        "-o",
        dir,
    ])
    .await;
    let summary = format!("{}{}", text(&output.stdout), text(&output.stderr));
    let results = read_checks(out.path());
    let failures: Vec<String> = results
        .iter()
        .flat_map(|(name, checks)| {
            with_status(checks, "FAILURE")
                .into_iter()
                .map(move |f| format!("{name}: {f}"))
        })
        .collect();
    let warnings: Vec<String> = results
        .iter()
        .flat_map(|(name, checks)| {
            with_status(checks, "WARNING")
                .into_iter()
                .map(move |f| format!("{name}: {f}"))
        })
        .collect();
    eprintln!(
        "[{label}] {} scenarios, {} checks; warnings:\n  {}",
        results.len(),
        results.iter().map(|(_, c)| c.len()).sum::<usize>(),
        warnings.join("\n  ")
    );
    assert!(
        output.status.success(),
        "[{label}] the requirement set failed ({}):\n  {}\n--- suite output ---\n{summary}",
        output.status,
        failures.join("\n  ")
    );
    assert!(
        !results.is_empty(),
        "[{label}] no checks.json was written:\n{summary}"
    );
}

async fn whole_suite(revision: &str) {
    let scored = listed(revision).await;
    let _serial = SERIAL.lock().await;
    let server = start_server().await;
    let out = tempfile::tempdir().expect("a temporary directory");
    let dir = out.path().to_str().expect("a UTF-8 path");
    let output = conformance(&[
        "server",
        "--url",
        &server.url,
        "--suite",
        "all",
        "--spec-version",
        revision,
        "-o",
        dir,
    ])
    .await;
    let summary = format!("{}{}", text(&output.stdout), text(&output.stderr));
    let results = read_checks(out.path());
    assert!(
        !results.is_empty(),
        "[{revision}] no checks.json was written:\n{summary}"
    );
    let mut failing = Vec::new();
    for (name, checks) in &results {
        let failures = with_status(checks, "FAILURE");
        if !failures.is_empty() {
            failing.push((name.clone(), failures));
        }
    }
    eprintln!(
        "[{revision}] --suite all: {} scenarios ran, {} failed:",
        results.len(),
        failing.len()
    );
    for (name, failures) in &failing {
        eprintln!(
            "  {name}{}",
            if scored.contains(name) {
                " (SCORED)"
            } else {
                ""
            }
        );
        for f in failures {
            eprintln!("      {f}");
        }
    }
    let scored_failing: Vec<&String> = failing
        .iter()
        .map(|(n, _)| n)
        .filter(|n| scored.contains(*n))
        .collect();
    assert!(
        scored_failing.is_empty(),
        "[{revision}] scenarios of the requirement set failed in the whole-suite run: {scored_failing:?}"
    );
}

#[tokio::test]
async fn requirements_2025_11_25() {
    requirement_set("2025-11-25").await;
}

#[tokio::test]
async fn requirements_2026_07_28() {
    requirement_set("2026-07-28").await;
}

/// The 2025-11-25 requirement set against three replicas behind a round-robin balancer: every
/// request of a scenario (its `initialize`, the requests and notifications of its session, its
/// GET stream, its answers to the server's requests) may land on another replica.
#[tokio::test]
async fn requirements_2025_11_25_behind_a_balancer() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let redis = Redis::start(dir.path()).await;
    let (mut replicas, mut ports) = (Vec::new(), Vec::new());
    for name in ["replica-1", "replica-2", "replica-3"] {
        let port = free_port();
        replicas.push(start_replica(name, port, &redis.url).await);
        ports.push(port);
    }
    let balancer = Haproxy::start(&ports, dir.path()).await;
    let url = format!("{}/mcp", balancer.origin());
    requirement_set_at("2025-11-25", &url, "2025-11-25, 3 replicas behind haproxy").await;
}

#[tokio::test]
async fn whole_suite_2025_11_25() {
    whole_suite("2025-11-25").await;
}

#[tokio::test]
async fn whole_suite_2026_07_28() {
    whole_suite("2026-07-28").await;
}

/// The skills extension's server scenarios (SEP-2640) against the fixture skills. They are off
/// the version timeline: `--scenario NAME` without `--spec-version` runs them (at the draft
/// version, the stateless wire); with a version they would be skipped. A scenario skips its
/// checks when the server does not declare the extension, so a SKIPPED check fails here, and so
/// does a WARNING (a SHOULD of the SEP not met).
#[tokio::test]
async fn skills_scenarios() {
    let _serial = SERIAL.lock().await;
    let server = start_server().await;
    let mut problems = Vec::new();
    for scenario in [
        "sep-2640-skills-enumeration",
        "sep-2640-skills-manifest",
        "sep-2640-skills-directory",
    ] {
        let out = tempfile::tempdir().expect("a temporary directory");
        let dir = out.path().to_str().expect("a UTF-8 path");
        let output = conformance(&[
            "server",
            "--url",
            &server.url,
            "--scenario",
            scenario,
            "-o",
            dir,
        ])
        .await;
        let summary = format!("{}{}", text(&output.stdout), text(&output.stderr));
        let results = read_checks(out.path());
        let checks: usize = results.iter().map(|(_, c)| c.len()).sum();
        if !output.status.success() || checks == 0 {
            problems.push(format!(
                "{scenario}: the suite exited with {} after {checks} checks:\n{summary}",
                output.status
            ));
        }
        for (_, checks) in &results {
            for status in ["FAILURE", "SKIPPED", "WARNING"] {
                problems.extend(
                    with_status(checks, status)
                        .into_iter()
                        .map(|p| format!("{scenario}: {p}")),
                );
            }
        }
        eprintln!("{scenario}: {checks} checks");
    }
    assert!(
        problems.is_empty(),
        "skills scenarios:\n  {}",
        problems.join("\n  ")
    );
}
