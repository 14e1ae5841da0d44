//! The sandbox benchmark: how long `mcp-sandbox` takes to give a new Python or Node.js
//! session its first result (with warm sandboxes and without) against the interpreter's bare
//! start, a call in an existing session, ten sessions at once, and the memory of an idle
//! session, over streamable HTTP and stdio. Prints the `## Sandbox` part of
//! `docs/benchmarks.md`; `bench/run.sh` puts it last.
//!
//! ```text
//! sandbox-bench [--quick] [--floor-runs N] [--cold-runs N] [--warmup-calls N] [--calls N]
//!               [--sessions N] [--warmup S] [--measure S] [--bin-dir DIR] [--out FILE]
//! ```
//!
//! Needs the root workspace's release `mcp-sandbox` (in `--bin-dir`, default
//! `<repo>/target/release`), bubblewrap, `/usr/bin/python3` and `/usr/bin/node`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use mcp_jsonrpc_bench::cli;
use mcp_jsonrpc_bench::load::procfs;
use mcp_jsonrpc_bench::mcpx::latency::Transport;
use mcp_jsonrpc_bench::mcpx::setup::default_bin_dir;
use mcp_jsonrpc_bench::report::{self, Machine, command_version};
use mcp_jsonrpc_bench::sandbox::measure::{self, Settings};
use mcp_jsonrpc_bench::sandbox::memory;
use mcp_jsonrpc_bench::sandbox::report::{self as sandbox_report, Findings, Path, Software};
use mcp_jsonrpc_bench::sandbox::server::{BUILD, Sandbox, Setup, Template, TemplateExt};

const USAGE: &str = "usage: sandbox-bench [--quick] [--floor-runs N] [--cold-runs N] \
[--warmup-calls N] [--calls N] [--sessions N] [--warmup S] [--measure S] [--bin-dir DIR] \
[--out FILE]";

/// Warm sandboxes per template of the servers that keep them (the server's default).
const POOL: usize = 1;

/// The options that take a value and shape the figures.
const VALUE_FLAGS: [&str; 7] = [
    "--floor-runs",
    "--cold-runs",
    "--warmup-calls",
    "--calls",
    "--sessions",
    "--warmup",
    "--measure",
];

/// Command-line options.
struct Options {
    settings: Settings,
    bin_dir: PathBuf,
    out: Option<PathBuf>,
    /// The arguments that shape the figures (not `--out`), for the report.
    shown: Vec<String>,
}

fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        settings: Settings {
            floor_runs: 30,
            cold_runs: 30,
            warmup_calls: 200,
            calls: 2_000,
            sessions: 10,
            warmup: Duration::from_millis(500),
            measure: Duration::from_secs(3),
        },
        bin_dir: default_bin_dir(),
        out: None,
        shown: Vec::new(),
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = || cli::value(arg, &mut args);
        let number = |v: &str| cli::number(arg, v);
        let seconds = |v: &str| cli::seconds(arg, v);
        let s = &mut options.settings;
        let taken = match arg.as_str() {
            "--quick" => {
                s.floor_runs = 5;
                s.cold_runs = 5;
                s.warmup_calls = 20;
                s.calls = 200;
                s.warmup = Duration::from_millis(200);
                s.measure = Duration::from_secs(1);
                None
            }
            "--out" => {
                options.out = Some(value()?.into());
                continue;
            }
            "--bin-dir" => {
                options.bin_dir = value()?.into();
                continue;
            }
            flag if VALUE_FLAGS.contains(&flag) => {
                let v = value()?;
                match flag {
                    "--floor-runs" => s.floor_runs = number(&v)?.max(1),
                    "--cold-runs" => s.cold_runs = number(&v)?.max(1),
                    "--warmup-calls" => s.warmup_calls = number(&v)?,
                    "--calls" => s.calls = number(&v)?.max(1),
                    "--sessions" => s.sessions = number(&v)?.max(1),
                    "--warmup" => s.warmup = seconds(&v)?,
                    "--measure" => s.measure = seconds(&v)?.max(Duration::from_millis(10)),
                    _ => unreachable!("one of VALUE_FLAGS"),
                }
                Some(v)
            }
            other => return Err(format!("unknown argument {other:?}")),
        };
        options.shown.push(arg.clone());
        options.shown.extend(taken);
    }
    Ok(options)
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match cli::options("sandbox-bench", USAGE, parse_args(&args)) {
        Ok(options) => cli::exit("sandbox-bench", run(&options).await),
        Err(code) => code,
    }
}

async fn run(options: &Options) -> Result<(), String> {
    let program = options.bin_dir.join("mcp-sandbox");
    if !program.exists() {
        return Err(format!(
            "{} is missing: build it with `{BUILD}` (bench/run.sh does), or name its directory \
             with --bin-dir",
            program.display()
        ));
    }
    let s = &options.settings;
    let machine = Machine::detect();
    let wall = Instant::now();
    let load_before = report::load_average();
    let busy_before = procfs::machine_busy_seconds().map_err(|e| e.to_string())?;
    let mut command = vec!["bench/target/release/sandbox-bench".to_owned()];
    command.extend(options.shown.iter().cloned());
    let mut f = Findings {
        command: command.join(" "),
        settings: *s,
        floor: Vec::new(),
        cold: Vec::new(),
        warm: Vec::new(),
        crowd: Vec::new(),
        memory: Vec::new(),
        server_rss_kib: 0,
        software: Software {
            python: command_version(Template::Python.interpreter(), &["--version"]),
            node: command_version(Template::Node.interpreter(), &["--version"]),
            bwrap: command_version("bwrap", &["--version"]),
            limits: measure::check_line(&program, "limits:").unwrap_or_else(|| "unknown".into()),
        },
        load: (load_before, String::new()),
        wall_seconds: 0.0,
        busy_seconds: 0.0,
    };
    for template in Template::ALL {
        let spread = measure::floor(template, s.floor_runs)?;
        eprintln!(
            "floor {}: p50 {:.2} ms, p99 {:.2} ms",
            template.name(),
            spread.p50_ms,
            spread.p99_ms
        );
        f.floor.push((template, spread));
    }
    for transport in [Transport::Http, Transport::Stdio] {
        for pool_size in [POOL, 0] {
            let setup = Setup {
                transport,
                pool_size,
                max_sessions: s.sessions.max(10),
            };
            let sandbox = Sandbox::start(&program, setup).await?;
            let measured = measure_server(&sandbox, setup, s, &mut f).await;
            let stopped = sandbox.stop().await;
            measured.and(stopped)?;
        }
    }
    let setup = Setup {
        transport: Transport::Http,
        pool_size: 0,
        max_sessions: s.sessions.max(10),
    };
    let sandbox = Sandbox::start(&program, setup).await?;
    let measured = measure_memory(&sandbox, s, &mut f).await;
    let stopped = sandbox.stop().await;
    measured.and(stopped)?;

    f.load.1 = report::load_average();
    f.wall_seconds = wall.elapsed().as_secs_f64();
    f.busy_seconds = procfs::machine_busy_seconds().map_err(|e| e.to_string())? - busy_before;
    let doc = sandbox_report::markdown(&f, &machine, &report::today());
    println!("{doc}");
    if let Some(path) = &options.out {
        std::fs::write(path, &doc).map_err(|e| format!("writing {}: {e}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// Cold sessions of both templates on one server; with warm sandboxes also calls in a
/// session and sessions at once.
async fn measure_server(
    sandbox: &Sandbox,
    setup: Setup,
    s: &Settings,
    f: &mut Findings,
) -> Result<(), String> {
    let client = sandbox.client();
    let pool = setup.pool_size > 0;
    let label = |template: Template| {
        format!(
            "{:?}, pool {}, {}",
            setup.transport,
            setup.pool_size,
            template.name()
        )
    };
    for template in Template::ALL {
        let spread = measure::cold(client, template, pool, s.cold_runs).await?;
        eprintln!(
            "{}: cold p50 {:.2} ms, p99 {:.2} ms",
            label(template),
            spread.p50_ms,
            spread.p99_ms
        );
        f.cold.push(Path::of(&setup, template, spread));
    }
    if !pool {
        return Ok(());
    }
    for template in Template::ALL {
        let spread = measure::warm(client, template, s).await?;
        eprintln!(
            "{}: warm p50 {:.3} ms, p99 {:.3} ms",
            label(template),
            spread.p50_ms,
            spread.p99_ms
        );
        f.warm.push(Path::of(&setup, template, spread));
    }
    for template in Template::ALL {
        let crowd = measure::crowd(client, template, pool, s).await?;
        eprintln!(
            "{}: {} sessions: all first {:?}, {:.0} calls/s, p50 {:.2} ms, p99 {:.2} ms",
            label(template),
            crowd.sessions,
            crowd.all_first,
            crowd.rate,
            crowd.latency.p50_ms,
            crowd.latency.p99_ms
        );
        f.crowd.push(Path::of(&setup, template, crowd));
    }
    Ok(())
}

/// Idle sessions of both templates, and the server's own `VmRSS` before them.
async fn measure_memory(sandbox: &Sandbox, s: &Settings, f: &mut Findings) -> Result<(), String> {
    f.server_rss_kib = memory::server_rss_kib(sandbox.pid())?;
    for template in Template::ALL {
        let idle = memory::idle(sandbox.client(), sandbox.pid(), template, s.sessions).await?;
        eprintln!(
            "memory {}: {} processes, Pss {:.1} MiB per session ({} fallbacks to VmRSS), \
             RSS {:.1} MiB per session",
            template.name(),
            idle.processes,
            idle.per_session_mib(idle.pss_kib),
            idle.rss_fallbacks,
            idle.per_session_mib(idle.rss_kib)
        );
        f.memory.push(idle);
    }
    Ok(())
}
