//! Runs the JSON-RPC benchmarks and prints their part of `docs/benchmarks.md` (`bench/run.sh`
//! writes the whole page).
//!
//! ```sh
//! cargo run --release --manifest-path bench/Cargo.toml --bin jsonrpc-bench [-- --quick] [-- --out PATH]
//! ```
//!
//! `--quick` runs each measurement once, briefly; `--warmup S` and `--measure S` set the
//! warm-up and measured seconds of each run (default 1 and 5); `--out PATH` also writes the
//! part to `PATH`. For profiling: `--only rtt|codec`, `--impl ours|rmcp`, `--in-flight N`
//! (default 64) and `--threads N` (tokio workers; 0 for a current-thread runtime).
//! `jsonrpc-bench echo-child` is the echo MCP server the round-trip measurements spawn.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use mcp_jsonrpc_bench::codec::Codec;
use mcp_jsonrpc_bench::report::{self, Machine, Pair, Results, Settings};
use mcp_jsonrpc_bench::rtt::{self, ChildCommand, Implementation};
use mcp_jsonrpc_bench::{echo, payload};

/// Command-line options.
struct Options {
    quick: bool,
    /// Warm-up and measured time of each run, when not the defaults.
    warmup: Option<Duration>,
    measure: Option<Duration>,
    out: Option<PathBuf>,
    /// Run only the round trips (`rtt`) or only parse + serialize (`codec`).
    only: Option<String>,
    /// Requests in flight in the pipelined measurement.
    in_flight: usize,
    /// Worker threads of the tokio runtime (0: a current-thread runtime).
    threads: Option<usize>,
    /// Round trips of only this implementation (for profiling one of them).
    implementation: Option<Implementation>,
}

/// A number of seconds.
fn seconds(name: &str, value: &str) -> Result<Duration, String> {
    value
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| format!("{name} takes seconds, not {value:?}"))
}

/// Parses the command line (without the program name).
fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        quick: false,
        warmup: None,
        measure: None,
        out: None,
        only: None,
        in_flight: 64,
        threads: None,
        implementation: None,
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--quick" => options.quick = true,
            "--warmup" => options.warmup = Some(seconds("--warmup", value("--warmup")?)?),
            "--measure" => options.measure = Some(seconds("--measure", value("--measure")?)?),
            "--out" => options.out = Some(value("--out")?.into()),
            "--only" => match value("--only")?.as_str() {
                which @ ("rtt" | "codec") => options.only = Some(which.to_owned()),
                other => return Err(format!("--only takes rtt or codec, not {other:?}")),
            },
            "--impl" => match value("--impl")?.as_str() {
                "ours" => options.implementation = Some(Implementation::Ours),
                "rmcp" => options.implementation = Some(Implementation::Rmcp),
                other => return Err(format!("--impl takes ours or rmcp, not {other:?}")),
            },
            "--in-flight" => {
                options.in_flight = value("--in-flight")?
                    .parse()
                    .map_err(|e| format!("--in-flight: {e}"))?;
            }
            "--threads" => {
                options.threads = Some(
                    value("--threads")?
                        .parse()
                        .map_err(|e| format!("--threads: {e}"))?,
                );
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(options)
}

/// Serves as the echo child (`echo-child`) or runs the benchmarks.
fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("echo-child") {
        return match echo::run_stdio() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("echo-child: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let options = match parse_args(&args) {
        Ok(options) => options,
        Err(e) => {
            eprintln!(
                "jsonrpc-bench: {e}\nusage: jsonrpc-bench [--quick] [--warmup S] [--measure S] \
                 [--out PATH] [--only rtt|codec] [--impl ours|rmcp] [--in-flight N] [--threads N]"
            );
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("jsonrpc-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the selected measurements, prints the report and writes it to `--out` if given.
fn run(options: &Options) -> Result<(), String> {
    let (warmup, measure, runs) = if options.quick {
        (Duration::from_millis(200), Duration::from_secs(1), 1)
    } else {
        (Duration::from_secs(1), Duration::from_secs(5), 3)
    };
    let warmup = options.warmup.unwrap_or(warmup);
    let measure = options.measure.unwrap_or(measure);
    let settings = Settings {
        warmup,
        measure,
        runs,
        in_flight: options.in_flight,
    };
    // Before the pinning below, which would make this machine look like one CPU.
    let machine = Machine::detect();
    let mut results = Results {
        load_before: report::load_average(),
        ..Results::default()
    };
    let round_trips = options.only.as_deref() != Some("codec");
    if round_trips {
        let (sequential, pipelined) = (&mut results.sequential, &mut results.pipelined);
        run_round_trips(&settings, options, sequential, pipelined)?;
    }
    if options.only.as_deref() != Some("rtt") {
        run_codecs(&settings, &mut results)?;
    }
    if round_trips {
        // Last, because the pinning is never undone: every thread created from here on,
        // and the child processes, inherit it.
        let core = core_affinity::get_core_ids()
            .and_then(|ids| ids.into_iter().next())
            .ok_or("cannot list the CPUs to pin to")?;
        if !core_affinity::set_for_current(core) {
            return Err("cannot pin to one CPU".into());
        }
        eprintln!("pinned to CPU {}", core.id);
        let (sequential, pipelined) = (
            &mut results.sequential_pinned,
            &mut results.pipelined_pinned,
        );
        run_round_trips(&settings, options, sequential, pipelined)?;
    }
    results.load_after = report::load_average();

    let doc = report::markdown(&results, &settings, &machine, &report::today());
    println!("{doc}");
    if let Some(path) = &options.out {
        std::fs::write(path, doc).map_err(|e| format!("writing {}: {e}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// Part (a): round trips, sequential and pipelined, runs of the two implementations
/// interleaved, on a runtime created here (so that it inherits the current CPU affinity).
fn run_round_trips(
    settings: &Settings,
    options: &Options,
    sequential: &mut Pair,
    pipelined: &mut Pair,
) -> Result<(), String> {
    let child = ChildCommand {
        program: std::env::current_exe().map_err(|e| e.to_string())?,
        args: vec!["echo-child".into()],
    };
    let runtime = match options.threads {
        Some(0) => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
        Some(n) => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(n)
            .enable_all()
            .build(),
        None => tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build(),
    }
    .map_err(|e| e.to_string())?;
    for run in 1..=settings.runs {
        for in_flight in [1, settings.in_flight] {
            for implementation in [Implementation::Ours, Implementation::Rmcp] {
                if options
                    .implementation
                    .is_some_and(|only| only != implementation)
                {
                    continue;
                }
                let rate = runtime.block_on(rtt::requests_per_second(
                    implementation,
                    &child,
                    in_flight,
                    settings.warmup,
                    settings.measure,
                ))?;
                eprintln!(
                    "run {run}: {in_flight:>3} in flight, {implementation:?}: {rate:.0} round trips/s"
                );
                let pair = if in_flight == 1 {
                    &mut *sequential
                } else {
                    &mut *pipelined
                };
                match implementation {
                    Implementation::Ours => pair.ours.push(rate),
                    Implementation::Rmcp => pair.rmcp.push(rate),
                }
            }
        }
    }
    Ok(())
}

/// Part (b): parse + serialize of the large response, every path verified first.
fn run_codecs(settings: &Settings, results: &mut Results) -> Result<(), String> {
    let line = payload::call_tool_response_line();
    results.payload_bytes = line.len();
    for codec in [Codec::OursRaw, Codec::OursTyped, Codec::Rmcp] {
        codec.verify(&line)?;
    }
    for run in 1..=settings.runs {
        for (codec, typed) in [
            (Codec::OursRaw, false),
            (Codec::Rmcp, false),
            (Codec::OursTyped, true),
            (Codec::Rmcp, true),
        ] {
            let rate = codec.throughput(&line, settings.warmup, settings.measure);
            eprintln!("run {run}: {codec:?}: {rate:.1} MB/s");
            let pair = if typed {
                &mut results.codec_typed
            } else {
                &mut results.codec_raw
            };
            match codec {
                Codec::Rmcp => pair.rmcp.push(rate),
                Codec::OursRaw | Codec::OursTyped => pair.ours.push(rate),
            }
        }
    }
    Ok(())
}
