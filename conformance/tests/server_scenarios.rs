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
    // The scenarios a set runs without scoring them (the tasks extension's, in 2026-07-28)
    // must pass too.
    assert!(
        failures.is_empty(),
        "[{label}] scenarios run but not scored failed:\n  {}",
        failures.join("\n  ")
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

/// Three `conformance-server` replicas sharing one `redis-server`, behind an `haproxy` that
/// balances every request round-robin, without stickiness; their files in a directory of the
/// caller's.
struct Balanced {
    _redis: Redis,
    _replicas: Vec<ServerProcess>,
    balancer: Haproxy,
}

impl Balanced {
    async fn start(dir: &Path) -> Self {
        let redis = Redis::start(dir).await;
        let (mut replicas, mut ports) = (Vec::new(), Vec::new());
        for name in ["replica-1", "replica-2", "replica-3"] {
            let port = free_port();
            replicas.push(start_replica(name, port, &redis.url).await);
            ports.push(port);
        }
        let balancer = Haproxy::start(&ports, dir).await;
        Self {
            _redis: redis,
            _replicas: replicas,
            balancer,
        }
    }

    /// The MCP endpoint, through the balancer.
    fn url(&self) -> String {
        format!("{}/mcp", self.balancer.origin())
    }
}

/// The 2025-11-25 requirement set against three replicas behind a round-robin balancer: every
/// request of a scenario (its `initialize`, the requests and notifications of its session, its
/// GET stream, its answers to the server's requests) may land on another replica.
#[tokio::test]
async fn requirements_2025_11_25_behind_a_balancer() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let cluster = Balanced::start(dir.path()).await;
    let url = cluster.url();
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

/// The tasks extension's scenarios (SEP-2663). They are off the suite's timeline, so each runs
/// alone (`--scenario`, without `--spec-version`: at 2026-07-28).
const TASK_SCENARIOS: [&str; 10] = [
    "tasks-capability-negotiation",
    "tasks-lifecycle",
    "tasks-wire-fields",
    "tasks-request-state-removal",
    "tasks-mrtr-input",
    "tasks-request-headers",
    "tasks-dispatch-and-envelope",
    "tasks-status-notifications",
    "tasks-required-task-error",
    "tasks-mrtr-composition",
];

/// Checks the suite itself always skips (its harness for them is pending).
const SKIPPED_BY_THE_SUITE: [&str; 1] = ["tasks-status-notifications"];

/// Runs each of `scenarios` against `url`: every check must succeed (no FAILURE, no WARNING,
/// and no SKIPPED but the suite's own).
async fn extension_scenarios_at(url: &str, scenarios: &[&str], label: &str) {
    let mut problems = Vec::new();
    let mut checked = 0;
    for scenario in scenarios {
        let out = tempfile::tempdir().expect("a temporary directory");
        let dir = out.path().to_str().expect("a UTF-8 path");
        let output =
            conformance(&["server", "--url", url, "--scenario", scenario, "-o", dir]).await;
        let results = read_checks(out.path());
        if results.is_empty() || !output.status.success() {
            problems.push(format!(
                "{scenario}: the suite exited with {} after {} checks:\n{}{}",
                output.status,
                results.iter().map(|(_, c)| c.len()).sum::<usize>(),
                text(&output.stdout),
                text(&output.stderr)
            ));
        }
        for (name, checks) in &results {
            checked += checks.len();
            let skipped = with_status(checks, "SKIPPED").into_iter().filter(|s| {
                !SKIPPED_BY_THE_SUITE
                    .iter()
                    .any(|id| s.starts_with(&format!("SKIPPED {id}:")))
            });
            for problem in with_status(checks, "FAILURE")
                .into_iter()
                .chain(with_status(checks, "WARNING"))
                .chain(skipped)
            {
                problems.push(format!("{name}: {problem}"));
            }
        }
    }
    eprintln!("[{label}] {} scenarios, {checked} checks", scenarios.len());
    assert!(
        problems.is_empty(),
        "[{label}] extension scenarios did not pass:\n  {}",
        problems.join("\n  ")
    );
}

#[tokio::test]
async fn tasks_extension() {
    let _serial = SERIAL.lock().await;
    let server = start_server().await;
    extension_scenarios_at(&server.url, &TASK_SCENARIOS, "tasks").await;
}

/// The tasks scenarios against three replicas on Redis behind a round-robin balancer: the
/// `tasks/get`, `tasks/update` and `tasks/cancel` of a task land on replicas other than the one
/// running it.
#[tokio::test]
async fn tasks_extension_behind_a_balancer() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let cluster = Balanced::start(dir.path()).await;
    let url = cluster.url();
    extension_scenarios_at(&url, &TASK_SCENARIOS, "tasks, 3 replicas behind haproxy").await;
}

/// The skills extension's server scenarios (SEP-2640) against the fixture skills. A scenario
/// skips its checks when the server does not declare the extension, so a SKIPPED check fails
/// here, and so does a WARNING (a SHOULD of the SEP not met).
const SKILLS_SCENARIOS: [&str; 3] = [
    "sep-2640-skills-enumeration",
    "sep-2640-skills-manifest",
    "sep-2640-skills-directory",
];

#[tokio::test]
async fn skills_extension() {
    let _serial = SERIAL.lock().await;
    let server = start_server().await;
    extension_scenarios_at(&server.url, &SKILLS_SCENARIOS, "skills").await;
}
