//! The mcpx benchmark: what the proxy saves in the agent's prompt (tokens of `tools/list`, the
//! listing at several budgets, `inspect(server, tool)` against each tool's JSON) and what it
//! adds to a call (`exec` against a direct `tools/call`, over stdio and HTTP). Prints the
//! `## mcpx` part of `docs/benchmarks.md`; `bench/run.sh` puts it after the others.
//!
//! ```text
//! mcpx-bench [--quick] [--runs N] [--calls N] [--warmup-calls N] [--callers N]
//!            [--warmup S] [--measure S] [--budgets N,N,…] [--only tokens|latency]
//!            [--bin-dir DIR] [--out FILE]
//! ```
//!
//! Needs the root workspace's release `mcpx`, `example_server` and `replay_server` (in
//! `--bin-dir`, default `<repo>/target/release`), the peers of `scripts/install-peers.sh`
//! and the GitHub tool catalog (`$MCP_CATALOG_DIR`, `../shared/catalogs` or
//! `~/.cache/mcp-toolkit/catalogs`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use mcp_jsonrpc_bench::cli;
use mcp_jsonrpc_bench::load::procfs;
use mcp_jsonrpc_bench::mcpx::latency::{self, Settings};
use mcp_jsonrpc_bench::mcpx::report::{
    self as mcpx_report, Findings, TARGET_GITHUB_PERCENT, TARGET_MIXED_PERCENT,
};
use mcp_jsonrpc_bench::mcpx::setup::{self, Programs, Upstream, Upstreams};
use mcp_jsonrpc_bench::mcpx::tokens;
use mcp_jsonrpc_bench::report::{self, Machine, command_version};
use mcpx::options::DEFAULT_LISTING_BUDGET_TOKENS;

const USAGE: &str = "usage: mcpx-bench [--quick] [--runs N] [--calls N] [--warmup-calls N] \
[--callers N] [--warmup S] [--measure S] [--budgets N,N,…] [--only tokens|latency] \
[--bin-dir DIR] [--out FILE]";

/// Command-line options.
struct Options {
    latency: Settings,
    budgets: Vec<usize>,
    only: Option<String>,
    bin_dir: PathBuf,
    out: Option<PathBuf>,
}

fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        latency: Settings {
            runs: 3,
            warmup_calls: 500,
            calls: 5_000,
            callers: 50,
            warmup: Duration::from_millis(500),
            measure: Duration::from_secs(2),
        },
        budgets: vec![1_000, 2_000, 3_000, 4_000, 8_000],
        only: None,
        bin_dir: setup::default_bin_dir(),
        out: None,
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = || cli::value(arg, &mut args);
        let number = |v: String| cli::number(arg, &v);
        let seconds = |v: String| cli::seconds(arg, &v);
        let s = &mut options.latency;
        match arg.as_str() {
            "--quick" => {
                s.runs = 1;
                s.warmup_calls = 100;
                s.calls = 1_000;
                s.warmup = Duration::from_millis(200);
                s.measure = Duration::from_secs(1);
            }
            "--runs" => s.runs = number(value()?)?.max(1),
            "--calls" => s.calls = number(value()?)?.max(1),
            "--warmup-calls" => s.warmup_calls = number(value()?)?,
            "--callers" => s.callers = number(value()?)?.max(1),
            "--warmup" => s.warmup = seconds(value()?)?,
            "--measure" => s.measure = seconds(value()?)?.max(Duration::from_millis(10)),
            "--budgets" => {
                options.budgets = value()?
                    .split(',')
                    .map(|b| number(b.trim().to_owned()))
                    .collect::<Result<_, _>>()?;
            }
            "--only" => match value()?.as_str() {
                which @ ("tokens" | "latency") => options.only = Some(which.to_owned()),
                other => return Err(format!("--only takes tokens or latency, not {other:?}")),
            },
            "--bin-dir" => options.bin_dir = value()?.into(),
            "--out" => options.out = Some(value()?.into()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(options)
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match cli::options("mcpx-bench", USAGE, parse_args(&args)) {
        Ok(options) => cli::exit("mcpx-bench", run(&options).await),
        Err(code) => code,
    }
}

async fn run(options: &Options) -> Result<(), String> {
    let programs = Programs::locate(&options.bin_dir)?;
    let machine = Machine::detect();
    let wall = Instant::now();
    let load_before = report::load_average();
    let busy_before = procfs::machine_busy_seconds().map_err(|e| e.to_string())?;
    let mut findings = Findings {
        tokens: Vec::new(),
        latency: Vec::new(),
        settings: options.latency,
        load: (load_before, String::new()),
        wall_seconds: 0.0,
        busy_seconds: 0.0,
        peers: String::new(),
    };
    if options.only.as_deref() != Some("latency") {
        findings.tokens = measure_tokens(&programs, &options.budgets).await?;
        findings.peers = format!(
            "the everything server on Node.js {}, the Python SDK's server on {}",
            command_version("node", &["--version"]),
            command_version(
                &mcp_test_support::peers_python().display().to_string(),
                &["--version"]
            )
        );
    }
    if options.only.as_deref() != Some("tokens") {
        findings.latency = latency::measure(&programs, &options.latency).await?;
    }
    findings.load.1 = report::load_average();
    findings.wall_seconds = wall.elapsed().as_secs_f64();
    findings.busy_seconds =
        procfs::machine_busy_seconds().map_err(|e| e.to_string())? - busy_before;

    let doc = mcpx_report::markdown(
        &findings,
        &machine,
        &report::today(),
        DEFAULT_LISTING_BUDGET_TOKENS,
    );
    println!("{doc}");
    if let Some(path) = &options.out {
        std::fs::write(path, &doc).map_err(|e| format!("writing {}: {e}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// (a) GitHub's 117 tools, with the listing at every budget; (b) the everything server, the
/// example server and the Python SDK's server together.
async fn measure_tokens(
    programs: &Programs,
    budgets: &[usize],
) -> Result<Vec<(tokens::Exposure, f64)>, String> {
    let github: Upstreams = vec![("github".into(), setup::github(programs))];
    // The default budget is always among those measured.
    let mut budgets = budgets.to_vec();
    budgets.push(DEFAULT_LISTING_BUDGET_TOKENS);
    budgets.sort_unstable();
    budgets.dedup();
    let github = tokens::measure("GitHub (117 tools, replayed)", &github, &budgets).await?;
    eprintln!(
        "GitHub: direct {} tokens, mcpx {} tokens",
        github.direct, github.mcpx
    );
    let python = mcp_test_support::start_python_http().await;
    let mixed: Upstreams = vec![
        ("everything".into(), setup::everything()),
        (
            "example".into(),
            Upstream::stdio([&programs.example_server]),
        ),
        ("python".into(), Upstream::Http(python.url.clone())),
    ];
    let mixed = tokens::measure("everything + example + Python SDK", &mixed, &[]).await?;
    eprintln!(
        "everything + example + python: direct {} tokens, mcpx {} tokens",
        mixed.direct, mixed.mcpx
    );
    drop(python);
    Ok(vec![
        (github, TARGET_GITHUB_PERCENT),
        (mixed, TARGET_MIXED_PERCENT),
    ])
}
