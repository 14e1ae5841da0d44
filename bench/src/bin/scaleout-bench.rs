//! The scale-out benchmark: calls/s, p50 and p99 of stateful sessions served by 1 to N
//! replicas of `mcp-server`'s example server that share their sessions in Redis, behind
//! haproxy (round-robin, no stickiness), against the single process without Redis (reached
//! directly, and through haproxy); Redis commands per call and the CPU of every process.
//! Prints the `## Scale-out` part of `docs/benchmarks.md`; `bench/run.sh` puts it last.
//!
//! ```text
//! scaleout-bench [--quick] [--runs N] [--sessions N] [--warmup S] [--measure S]
//!                [--max-replicas N] [--only KEY,…] [--bin-dir DIR] [--out FILE]
//! ```
//!
//! Needs the root workspace's release `example_server` built with feature `redis` (in
//! `--bin-dir`, default `<repo>/target/release`), `redis-server` and `haproxy`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use mcp_jsonrpc_bench::cli;
use mcp_jsonrpc_bench::load::procfs;
use mcp_jsonrpc_bench::mcpx::setup::default_bin_dir;
use mcp_jsonrpc_bench::report::{self, Machine, command_version};
use mcp_jsonrpc_bench::scaleout::measure::{self, Deployment, Layout, MAX_REPLICAS, Settings};
use mcp_jsonrpc_bench::scaleout::report::{self as scaleout_report, Findings};
use mcp_jsonrpc_bench::scaleout::setup::Programs;

const USAGE: &str = "usage: scaleout-bench [--quick] [--runs N] [--sessions N] [--warmup S] \
[--measure S] [--max-replicas N] [--only KEY,…] [--bin-dir DIR] [--out FILE]";

/// The options that take a value and shape the figures.
const VALUE_FLAGS: [&str; 6] = [
    "--runs",
    "--sessions",
    "--warmup",
    "--measure",
    "--max-replicas",
    "--only",
];

/// Command-line options.
struct Options {
    settings: Settings,
    max_replicas: usize,
    only: Option<Vec<String>>,
    bin_dir: PathBuf,
    out: Option<PathBuf>,
    /// The arguments that shape the figures (not `--out`, `--bin-dir`), for the report.
    shown: Vec<String>,
}

fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        settings: Settings {
            runs: 5,
            sessions: 16,
            warmup: Duration::from_secs(1),
            measure: Duration::from_secs(3),
        },
        max_replicas: 3,
        only: None,
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
                s.runs = 1;
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
                    "--runs" => s.runs = number(&v)?.max(1),
                    "--sessions" => s.sessions = number(&v)?.max(1),
                    "--warmup" => s.warmup = seconds(&v)?,
                    "--measure" => s.measure = seconds(&v)?.max(Duration::from_millis(10)),
                    "--max-replicas" => {
                        let n = number(&v)?;
                        if !(1..=MAX_REPLICAS).contains(&n) {
                            return Err(format!("--max-replicas takes 1 to {MAX_REPLICAS}"));
                        }
                        options.max_replicas = n;
                    }
                    "--only" => {
                        options.only = Some(v.split(',').map(|k| k.trim().to_owned()).collect());
                    }
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
    match cli::options("scaleout-bench", USAGE, parse_args(&args)) {
        Ok(options) => cli::exit("scaleout-bench", run(&options).await),
        Err(code) => code,
    }
}

/// The layouts `--only` keeps (all without it); an error names an unknown key.
fn chosen(options: &Options) -> Result<Vec<Layout>, String> {
    let all = measure::layouts(options.max_replicas);
    let Some(only) = &options.only else {
        return Ok(all);
    };
    for key in only {
        if !all.iter().any(|l| l.key == key) {
            let keys: Vec<&str> = all.iter().map(|l| l.key).collect();
            return Err(format!(
                "--only: no layout {key:?} (the layouts: {})",
                keys.join(", ")
            ));
        }
    }
    Ok(all
        .into_iter()
        .filter(|l| only.iter().any(|k| k == l.key))
        .collect())
}

async fn run(options: &Options) -> Result<(), String> {
    let programs = Programs::locate(&options.bin_dir)?;
    let layouts = chosen(options)?;
    let log_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/scaleout-bench");
    std::fs::create_dir_all(&log_dir)
        .map_err(|e| format!("creating {}: {e}", log_dir.display()))?;
    let s = options.settings;
    let machine = Machine::detect();
    let wall = Instant::now();
    let load_before = report::load_average();
    let busy_before = procfs::machine_busy_seconds().map_err(|e| e.to_string())?;
    let mut command = vec!["bench/target/release/scaleout-bench".to_owned()];
    command.extend(options.shown.iter().cloned());
    let mut results: Vec<(Layout, Vec<measure::Sample>)> =
        layouts.iter().map(|l| (*l, Vec::new())).collect();
    for run in 1..=s.runs {
        for (layout, samples) in &mut results {
            let mut deployment = Deployment::start(&programs, layout, &log_dir).await?;
            let measured = measure::measure(&deployment, &s).await;
            let alive = deployment.check_alive();
            deployment.stop().await;
            let sample = measured
                .and_then(|sample| alive.map(|()| sample))
                .map_err(|e| format!("{} (run {run}): {e}", layout.key))?;
            eprintln!(
                "run {run} {}: {} calls/s, p50 {:.0} µs, p99 {:.0} µs, {:.0} % busy, {} Redis \
                 commands/call, {} failed",
                layout.key,
                report::thousands(sample.rate),
                sample.p50_us,
                sample.p99_us,
                sample.busy * 100.0,
                sample.redis.as_ref().map_or_else(
                    || "no".to_owned(),
                    |r| format!("{:.2}", r.total() as f64 / sample.calls.max(1) as f64)
                ),
                sample.failures
            );
            samples.push(sample);
        }
    }
    let haproxy = command_version(&programs.haproxy.display().to_string(), &["-v"]);
    let redis = command_version(&programs.redis.display().to_string(), &["--version"]);
    // `HAProxy version 2.6.12-1+deb12u4 2026/10/17 - https://haproxy.org/` and `Redis server
    // v=7.0.15 sha=… malloc=…`: the versions only.
    let software = format!(
        "{}, {}",
        haproxy.split(" - ").next().unwrap_or(&haproxy),
        redis
            .split_whitespace()
            .find_map(|w| w.strip_prefix("v="))
            .map_or(redis.clone(), |v| format!("redis-server {v}"))
    );
    let f = Findings {
        command: command.join(" "),
        settings: s,
        results,
        software,
        load: (load_before, report::load_average()),
        wall_seconds: wall.elapsed().as_secs_f64(),
        busy_seconds: procfs::machine_busy_seconds().map_err(|e| e.to_string())? - busy_before,
    };
    let doc = scaleout_report::markdown(&f, &machine, &report::today());
    println!("{doc}");
    if let Some(path) = &options.out {
        std::fs::write(path, &doc).map_err(|e| format!("writing {}: {e}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}
