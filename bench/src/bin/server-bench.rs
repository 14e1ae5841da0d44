//! The load generator of the server comparison: runs every server of
//! `mcp_jsonrpc_bench::load::plan::servers` through the same measurements and prints (or
//! writes) the report. `bench/run.sh` runs it together with `jsonrpc-bench` and `mcpx-bench`
//! and writes `docs/benchmarks.md`.
//!
//! ```text
//! server-bench [--quick] [--runs N] [--warmup S] [--measure S] [--sessions N] [--in-flight N]
//!              [--connected N] [--idle N] [--no-memory] [--only KEY,KEY] [--include FILE]…
//!              [--out FILE]
//! ```
//!
//! Needs `node` and `$PEERS_PYTHON` (`source scripts/peers/env.sh` after
//! `scripts/install-peers.sh`) unless `--only` leaves those peers out.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use mcp_jsonrpc_bench::cli;
use mcp_jsonrpc_bench::load::mcp::{Protocol, Tool};
use mcp_jsonrpc_bench::load::memory;
use mcp_jsonrpc_bench::load::plan::{self, Locations, Results, Settings};
use mcp_jsonrpc_bench::load::server::{ServerSpec, Transport};
use mcp_jsonrpc_bench::load::stdio::StdioSession;
use mcp_jsonrpc_bench::load::{Scenario, Timing, measure_http, measure_ws, procfs};
use mcp_jsonrpc_bench::report::{self, Machine};
use mcp_jsonrpc_bench::server_report;

/// Most idle sessions opened on the Python SDK's server.
const PYTHON_IDLE: usize = 2_000;

/// Command-line options.
struct Options {
    settings: Settings,
    memory: bool,
    only: Option<Vec<String>>,
    /// Parts appended to the page, in order (`--include`, repeatable).
    include: Vec<PathBuf>,
    out: Option<PathBuf>,
}

const USAGE: &str = "usage: server-bench [--quick] [--runs N] [--warmup S] [--measure S] \
[--sessions N] [--in-flight N] [--connected N] [--idle N] [--no-memory] [--only KEY,KEY] \
[--include FILE]… [--out FILE]";

fn parse_args(args: &[String]) -> Result<Options, String> {
    let target = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/server-bench");
    let mut options = Options {
        settings: Settings {
            timing: Timing {
                warmup: Duration::from_secs(1),
                measure: Duration::from_millis(1_500),
            },
            runs: 3,
            sessions: 50,
            in_flight: 64,
            connected: 1_000,
            idle: 10_000,
            log_dir: target,
        },
        memory: true,
        only: None,
        include: Vec::new(),
        out: None,
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| cli::value(name, &mut args);
        let number = |name: &str, v: String| cli::number(name, &v);
        let seconds = |name: &str, v: String| cli::seconds(name, &v);
        let s = &mut options.settings;
        match arg.as_str() {
            "--quick" => {
                s.runs = 1;
                s.timing = Timing {
                    warmup: Duration::from_millis(200),
                    measure: Duration::from_secs(1),
                };
                s.connected = 200;
                s.idle = 1_000;
            }
            "--runs" => s.runs = number(arg, value(arg)?)?.max(1),
            "--warmup" => s.timing.warmup = seconds(arg, value(arg)?)?,
            "--measure" => s.timing.measure = seconds(arg, value(arg)?)?,
            "--sessions" => s.sessions = number(arg, value(arg)?)?.max(1),
            "--in-flight" => s.in_flight = number(arg, value(arg)?)?.max(1),
            "--connected" => s.connected = number(arg, value(arg)?)?.max(1),
            "--idle" => s.idle = number(arg, value(arg)?)?.max(16),
            "--no-memory" => options.memory = false,
            "--only" => {
                options.only = Some(value(arg)?.split(',').map(str::to_owned).collect());
            }
            "--include" => options.include.push(value(arg)?.into()),
            "--out" => options.out = Some(value(arg)?.into()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(options)
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match cli::options("server-bench", USAGE, parse_args(&args)) {
        Ok(options) => cli::exit("server-bench", run(&options).await),
        Err(code) => code,
    }
}

/// Whether `spec` is selected by `--only` (a key, or the start of keys: `ours`, `rmcp-http`).
fn selected(options: &Options, spec: &ServerSpec) -> bool {
    options.only.as_ref().is_none_or(|only| {
        only.iter()
            .any(|o| spec.key == o || spec.key.starts_with(&format!("{o}-")))
    })
}

/// Checks that the selected peers can be started, with a message saying how to fix it.
fn locate(options: &Options) -> Result<(Locations, Vec<ServerSpec>), String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let bin_dir = exe
        .parent()
        .ok_or("no directory of the executable")?
        .to_owned();
    let at = Locations {
        bin_dir,
        peers_dir: plan::peers_dir(),
        node: PathBuf::from("node"),
        python: std::env::var_os("PEERS_PYTHON").map(PathBuf::from),
    };
    let specs: Vec<ServerSpec> = plan::servers(&at)
        .into_iter()
        .filter(|s| selected(options, s))
        .collect();
    if specs.is_empty() {
        return Err("--only selects no server".into());
    }
    for spec in &specs {
        if spec.key.starts_with("python") && at.python.is_none() {
            return Err(
                "PEERS_PYTHON is not set: run scripts/install-peers.sh, then \
                 `source scripts/peers/env.sh` (or use bench/run.sh)"
                    .into(),
            );
        }
        if spec.key.starts_with("ts") && std::env::var_os("NODE_PATH").is_none_or(|p| p.is_empty())
        {
            return Err(
                "NODE_PATH is not set, so node cannot find the TypeScript SDK: run \
                 scripts/install-peers.sh, then `source scripts/peers/env.sh` (or use bench/run.sh)"
                    .into(),
            );
        }
        if spec.program.is_absolute() && !spec.program.exists() {
            return Err(format!(
                "{} is missing: build the benchmark with `cargo build --release --manifest-path \
                 bench/Cargo.toml --bins` (bench/run.sh does)",
                spec.program.display()
            ));
        }
    }
    Ok((at, specs))
}

async fn run(options: &Options) -> Result<(), String> {
    let (at, specs) = locate(options)?;
    let settings = &options.settings;
    let machine = Machine::detect();
    let wall = Instant::now();
    let mut results = Results {
        load_before: report::load_average(),
        ..Results::default()
    };
    let busy_before = procfs::machine_busy_seconds().map_err(|e| e.to_string())?;
    let own_before = procfs::own_and_children_seconds().map_err(|e| e.to_string())?;
    for run in 1..=settings.runs {
        for spec in &specs {
            measure_server(spec, run, settings, &mut results).await;
        }
    }
    if options.memory {
        for spec in specs
            .iter()
            .filter(|s| s.transport.listens() && s.protocol == Protocol::Stateful)
        {
            let connected = memory::connected(spec, &settings.log_dir, settings.connected).await;
            report_memory(spec, "connected", &connected);
            results.connected.insert(spec.key, connected);
            // A WebSocket session ends with its connection: it is never idle.
            if spec.transport == Transport::WebSocket {
                continue;
            }
            let idle = memory::idle(spec, &settings.log_dir, idle_sessions(spec, settings)).await;
            report_memory(spec, "idle", &idle);
            results.idle.insert(spec.key, idle);
        }
    }
    if specs.iter().any(|s| s.key == "rmcp-http") {
        let spec = plan::rmcp_with_nagle(&at);
        let scenario = Scenario {
            tool: Tool::Echo,
            concurrency: 1,
        };
        let nagle = async {
            let server = spec.start(&settings.log_dir).await?;
            let addr = server.addr.ok_or("not an HTTP server")?;
            let sample =
                measure_http(addr, server.pid, spec.protocol, scenario, settings.timing).await;
            server.stop().await;
            sample
        }
        .await;
        eprintln!("rmcp with Nagle on: {nagle:?}");
        results.nagle = Some(nagle);
    }
    results.load_after = report::load_average();
    results.wall_seconds = wall.elapsed().as_secs_f64();
    results.machine_busy_seconds =
        procfs::machine_busy_seconds().map_err(|e| e.to_string())? - busy_before;
    results.own_seconds =
        procfs::own_and_children_seconds().map_err(|e| e.to_string())? - own_before;

    let section = server_report::markdown(&results, &specs, settings, &machine, &report::today());
    let mut doc = section;
    for path in &options.include {
        let included = std::fs::read_to_string(path)
            .map_err(|e| format!("reading {}: {e}", path.display()))?;
        doc.push_str(&included);
    }
    println!("{doc}");
    if let Some(path) = &options.out {
        std::fs::write(path, &doc).map_err(|e| format!("writing {}: {e}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// Sessions of the idle-memory measurement for `spec`: the Python SDK refuses more than
/// 10,000 sessions by default and opens them slowly (about 4 ms each), so it gets at most
/// 2,000.
fn idle_sessions(spec: &ServerSpec, settings: &Settings) -> usize {
    if spec.key.starts_with("python") {
        settings.idle.min(PYTHON_IDLE)
    } else {
        settings.idle
    }
}

fn report_memory(spec: &ServerSpec, what: &str, sample: &Result<memory::MemorySample, String>) {
    match sample {
        Ok(m) => eprintln!(
            "{}: {what}: {} sessions, {:.1} KiB each ({} → {} KiB, {} fds, {:.1} s to open)",
            spec.key,
            m.sessions,
            m.per_session_kib(),
            m.before_kib,
            m.after_kib,
            m.server_fds,
            m.setup.as_secs_f64()
        ),
        Err(e) => eprintln!("{}: {what}: failed: {e}", spec.key),
    }
}

/// One run of one server: a fresh process, every scenario, its peak RSS.
async fn measure_server(spec: &ServerSpec, run: usize, settings: &Settings, results: &mut Results) {
    let scenarios = plan::scenarios(spec.transport, settings.sessions, settings.in_flight);
    let fail_all = |results: &mut Results, e: &str| {
        for scenario in &scenarios {
            results
                .failures
                .entry((spec.key, *scenario))
                .or_insert_with(|| e.to_owned());
        }
        eprintln!("run {run}: {}: failed: {e}", spec.key);
    };
    let mut server = match spec.start(&settings.log_dir).await {
        Ok(server) => server,
        Err(e) => return fail_all(results, &e),
    };
    let pid = server.pid;
    let mut stdio = None;
    if spec.transport == Transport::Stdio {
        match StdioSession::open(&mut server).await {
            Ok(session) => stdio = Some(session),
            Err(e) => {
                server.stop().await;
                return fail_all(results, &e);
            }
        }
    }
    for scenario in &scenarios {
        let sample = match (&mut stdio, server.addr) {
            (Some(session), _) => session.measure(pid, *scenario, settings.timing).await,
            (None, Some(addr)) if spec.transport == Transport::WebSocket => {
                measure_ws(addr, pid, *scenario, settings.timing).await
            }
            (None, Some(addr)) => {
                measure_http(addr, pid, spec.protocol, *scenario, settings.timing).await
            }
            (None, None) => Err("neither stdio nor HTTP".into()),
        };
        match sample {
            Ok(sample) => {
                eprintln!(
                    "run {run}: {:<28} {:>4} x {:<4} {:>9.0} req/s  p50 {:>8.3} ms  p99 {:>8.3} ms  server {:>6.1} µs/call  client {:>6.1} µs/call",
                    spec.key,
                    scenario.tool.name(),
                    scenario.concurrency,
                    sample.rate,
                    sample.p50_us / 1e3,
                    sample.p99_us / 1e3,
                    sample.server_cpu_us,
                    sample.client_cpu_us
                );
                results
                    .samples
                    .entry((spec.key, *scenario))
                    .or_default()
                    .push(sample);
            }
            Err(e) => {
                eprintln!(
                    "run {run}: {} {} x {}: failed: {e}",
                    spec.key,
                    scenario.tool.name(),
                    scenario.concurrency
                );
                results.failures.entry((spec.key, *scenario)).or_insert(e);
            }
        }
    }
    if let Ok(peak) = procfs::status_kib(pid, "VmHWM") {
        results.peak_rss_kib.entry(spec.key).or_default().push(peak);
    }
    if let Some(session) = stdio {
        session.close().await;
    }
    server.stop().await;
}
