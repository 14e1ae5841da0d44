//! The `## Scale-out` part of `docs/benchmarks.md`: calls/s, latency and where the CPU goes
//! for the single process and for replicas sharing their sessions in Redis behind haproxy,
//! against the targets.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::measure::{Layout, Sample, Settings};
use super::setup::BUILD;
use crate::report::{Machine, median, thousands};

/// What the Redis store may cost at one replica, at most (a share of the single process's
/// calls/s).
pub const TARGET_STORE_COST: f64 = 0.30;
/// The machine's busy share of its CPUs from which the cores are called the limit.
pub const SATURATED: f64 = 0.90;
/// Growth from one replica count to the next below which throughput is said not to grow.
pub const GROWTH: f64 = 1.05;

/// Everything the part reports.
#[derive(Debug, Clone)]
pub struct Findings {
    /// The command that produced the figures.
    pub command: String,
    /// How they were measured.
    pub settings: Settings,
    /// Every layout with its runs, in the order measured.
    pub results: Vec<(Layout, Vec<Sample>)>,
    /// haproxy's and Redis's versions.
    pub software: String,
    /// `/proc/loadavg` before and after.
    pub load: (String, String),
    /// Wall time of the run, seconds.
    pub wall_seconds: f64,
    /// Busy CPU-seconds of the whole machine during the run.
    pub busy_seconds: f64,
}

/// The medians of a layout's runs.
#[derive(Debug, Clone)]
struct Medians {
    layout: Layout,
    rate: f64,
    p50_us: f64,
    p99_us: f64,
    busy: f64,
    others: f64,
    replicas_us: f64,
    haproxy_us: f64,
    redis_us: f64,
    client_us: f64,
    total_us: f64,
    /// Redis commands per call, all together and per command.
    redis_ops: Option<f64>,
    redis_by_command: BTreeMap<String, f64>,
    /// Bytes into and out of Redis per call.
    redis_bytes: Option<(f64, f64)>,
    /// Each replica's share of the requests (all runs together), per cent.
    shares: Vec<f64>,
    failures: u64,
    first_failure: Option<String>,
    rates: Vec<f64>,
}

impl Medians {
    fn of(layout: Layout, runs: &[Sample]) -> Self {
        let m = |f: &dyn Fn(&Sample) -> f64| median(&runs.iter().map(f).collect::<Vec<_>>());
        let per_call = |s: &Sample, n: u64| n as f64 / s.calls.max(1) as f64;
        let with_redis: Vec<&Sample> = runs.iter().filter(|s| s.redis.is_some()).collect();
        let redis_ops = (!with_redis.is_empty()).then(|| {
            median(
                &with_redis
                    .iter()
                    .map(|s| per_call(s, s.redis.as_ref().map_or(0, |r| r.total())))
                    .collect::<Vec<_>>(),
            )
        });
        let mut commands: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        for s in &with_redis {
            let counters = s.redis.as_ref().expect("filtered");
            for name in counters.calls.keys() {
                commands.entry(name.clone()).or_default();
            }
        }
        for (name, values) in &mut commands {
            for s in &with_redis {
                let n = s.redis.as_ref().and_then(|r| r.calls.get(name)).copied();
                values.push(per_call(s, n.unwrap_or(0)));
            }
        }
        let redis_bytes = (!with_redis.is_empty()).then(|| {
            let bytes = |f: &dyn Fn(&Sample) -> u64| {
                median(
                    &with_redis
                        .iter()
                        .map(|s| per_call(s, f(s)))
                        .collect::<Vec<_>>(),
                )
            };
            (
                bytes(&|s| s.redis.as_ref().map_or(0, |r| r.input_bytes)),
                bytes(&|s| s.redis.as_ref().map_or(0, |r| r.output_bytes)),
            )
        });
        let mut requests = vec![0u64; layout.replicas];
        for s in runs {
            for (total, n) in requests.iter_mut().zip(&s.per_replica) {
                *total += n;
            }
        }
        let all: u64 = requests.iter().sum();
        let shares = if all == 0 {
            Vec::new()
        } else {
            requests
                .iter()
                .map(|&n| 100.0 * n as f64 / all as f64)
                .collect()
        };
        Self {
            layout,
            rate: m(&|s| s.rate),
            p50_us: m(&|s| s.p50_us),
            p99_us: m(&|s| s.p99_us),
            busy: m(&|s| s.busy),
            others: m(&|s| s.others),
            replicas_us: m(&|s| s.cpu_us.replicas),
            haproxy_us: m(&|s| s.cpu_us.haproxy),
            redis_us: m(&|s| s.cpu_us.redis),
            client_us: m(&|s| s.cpu_us.client),
            total_us: m(&|s| s.cpu_us.processes()),
            redis_ops,
            redis_by_command: commands
                .into_iter()
                .map(|(name, values)| (name, median(&values)))
                .collect(),
            redis_bytes,
            shares,
            failures: runs.iter().map(|s| s.failures).sum(),
            first_failure: runs.iter().find_map(|s| s.first_failure.clone()),
            rates: runs.iter().map(|s| s.rate).collect(),
        }
    }
}

/// Milliseconds from microseconds, three significant digits at most.
fn ms(us: f64) -> String {
    let v = us / 1_000.0;
    if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}

/// Microseconds with one decimal, or a dash when nothing was spent there.
fn us(v: f64, present: bool) -> String {
    if present {
        format!("{v:.1}")
    } else {
        "–".into()
    }
}

/// The part, with its head.
pub fn markdown(f: &Findings, machine: &Machine, date: &str) -> String {
    let medians: Vec<Medians> = f
        .results
        .iter()
        .map(|(layout, runs)| Medians::of(*layout, runs))
        .collect();
    let s = &f.settings;
    let mut doc = String::new();
    let w = &mut doc;
    let _ = writeln!(
        w,
        "## Scale-out: stateful sessions on replicas sharing Redis (`scaleout-bench`)\n\n\
         The fifth part of `bench/run.sh`. On its own, after `{BUILD}` and `cargo build \
         --release --manifest-path bench/Cargo.toml --bins`: `bench/target/release/scaleout-bench` \
         (`--quick` for one short run; `bench/README.md` lists the options). Every figure below \
         was produced by `{}`.\n",
        f.command
    );
    let _ = writeln!(w, "- Date: {date}");
    let _ = writeln!(
        w,
        "{}",
        machine.run_line(f.wall_seconds, f.busy_seconds, &f.load)
    );
    let _ = writeln!(
        w,
        "- Software: the root workspace's release `example_server` (feature `redis`), {}; \
         client: the load generator of `server-bench`; {}, release profile",
        f.software, machine.rustc
    );
    let _ = writeln!(
        w,
        "- Method: {} stateful sessions (`initialize` at 2025-11-25, then `tools/call` of \
         `echo` with a message that differs on every call), each on its own keep-alive \
         connection, one call at a time; {:.1} s of warm-up, then {:.1} s counted; only answers \
         whose text was checked count. Every layout starts on fresh processes (Redis, \
         replicas, haproxy) in every run; each figure is the median of {} run(s), the layouts \
         taking turns within each run.\n",
        s.sessions,
        s.warmup.as_secs_f64(),
        s.measure.as_secs_f64(),
        s.runs
    );
    targets(w, &medians, machine.cpus);
    throughput(w, &medians, s.sessions);
    cpu(w, &medians, machine.cpus);
    redis_commands(w, &medians);
    failures(w, &medians);
    runs(w, &medians);
    doc.push_str(NOTES);
    doc
}

fn find<'a>(medians: &'a [Medians], key: &str) -> Option<&'a Medians> {
    medians.iter().find(|m| m.layout.key == key)
}

/// The replica layouts with Redis through haproxy, by replica count.
fn scaled(medians: &[Medians]) -> Vec<&Medians> {
    let mut scaled: Vec<&Medians> = medians
        .iter()
        .filter(|m| m.layout.redis && m.layout.balanced)
        .collect();
    scaled.sort_by_key(|m| m.layout.replicas);
    scaled
}

fn targets(w: &mut String, medians: &[Medians], cpus: usize) {
    let _ = writeln!(
        w,
        "### The issue's targets\n\n| target | this run | verdict |\n| --- | --- | --- |"
    );
    let cost_row =
        |w: &mut String, what: &str, with: Option<&Medians>, without: Option<&Medians>| {
            let (Some(with), Some(without)) = (with, without) else {
                return;
            };
            // Each run measures both layouts a few seconds apart: the runs' own ratios are less
            // exposed to the machine's drift than the ratio of the medians.
            let costs: Vec<f64> = with
                .rates
                .iter()
                .zip(&without.rates)
                .map(|(w, o)| 1.0 - w / o)
                .collect();
            let cost = median(&costs);
            let verdict = if cost <= TARGET_STORE_COST {
                "**met**"
            } else {
                "**missed**"
            };
            let signed = |c: f64| format!("{:.0} %", c * 100.0);
            let per_run: Vec<String> = costs.iter().map(|c| signed(*c)).collect();
            let _ = writeln!(
                w,
                "| {what} costs ≤ {:.0} % of the calls/s without it | {} against {} calls/s \
             (medians); the runs' own: {} less, median **{}**; CPU per call, all processes: \
             {:.1} → {:.1} µs | {verdict} |",
                TARGET_STORE_COST * 100.0,
                thousands(with.rate),
                thousands(without.rate),
                per_run.join(" / "),
                signed(cost),
                without.total_us,
                with.total_us
            );
        };
    cost_row(
        w,
        "The Redis store at 1 replica (both through haproxy: the issue's target)",
        find(medians, "redis-1"),
        find(medians, "single-haproxy"),
    );
    cost_row(
        w,
        "The Redis store at 1 replica (both reached directly)",
        find(medians, "redis-1-direct"),
        find(medians, "single"),
    );
    cost_row(
        w,
        "Store and balancer together (1 replica with Redis through haproxy against the single \
         process reached directly)",
        find(medians, "redis-1"),
        find(medians, "single"),
    );
    let scaled = scaled(medians);
    if scaled.len() >= 2 {
        let (verdict, text) = growth(&scaled, cpus);
        let figures: Vec<String> = scaled
            .iter()
            .map(|m| {
                format!(
                    "{}: {} calls/s ({:.0} % busy)",
                    m.layout.replicas,
                    thousands(m.rate),
                    m.busy * 100.0
                )
            })
            .collect();
        let _ = writeln!(
            w,
            "| calls/s grow with replicas until the {cpus} cores are the limit | {} | {verdict}: \
             {text} |",
            figures.join("; ")
        );
    }
    let _ = writeln!(
        w,
        "\n*Busy*: the whole machine's busy share of its {cpus} CPUs over the counted time \
         (`/proc/stat`); from {:.0} % the cores are called the limit. Throughput is said to grow \
         when it rises by at least {:.0} % from one replica count to the next.\n",
        SATURATED * 100.0,
        (GROWTH - 1.0) * 100.0
    );
}

/// The verdict on growth with replicas, and where the cores became the limit.
fn growth(scaled: &[&Medians], cpus: usize) -> (&'static str, String) {
    let limit_at = scaled.iter().find(|m| m.busy >= SATURATED);
    let mut short = Vec::new();
    for pair in scaled.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let saturated = limit_at.is_some_and(|l| a.layout.replicas >= l.layout.replicas);
        if !saturated && b.rate < a.rate * GROWTH {
            short.push(format!(
                "{} → {} replicas: {} → {} calls/s with the cores {:.0} % busy",
                a.layout.replicas,
                b.layout.replicas,
                thousands(a.rate),
                thousands(b.rate),
                a.busy * 100.0
            ));
        }
    }
    let best = scaled
        .iter()
        .max_by(|a, b| a.rate.total_cmp(&b.rate))
        .expect("at least two");
    let count = |n: usize| {
        if n == 1 {
            "1 replica".to_owned()
        } else {
            format!("{n} replicas")
        }
    };
    let limit = match limit_at {
        Some(l) if l.layout.replicas == 1 => format!(
            "the {cpus} cores are the limit already at 1 replica ({:.0} % busy), so more \
             replicas on this machine cannot add calls/s; the most were {} calls/s, at {}",
            l.busy * 100.0,
            thousands(best.rate),
            count(best.layout.replicas)
        ),
        Some(l) => format!(
            "the {cpus} cores are the limit from {} ({:.0} % busy); the most were {} calls/s, \
             at {}",
            count(l.layout.replicas),
            l.busy * 100.0,
            thousands(best.rate),
            count(best.layout.replicas)
        ),
        None => format!(
            "the cores never reached {:.0} % busy; the most were {} calls/s, at {}",
            SATURATED * 100.0,
            thousands(best.rate),
            count(best.layout.replicas)
        ),
    };
    let last = scaled.last().expect("at least two");
    let limit = if last.rate < best.rate / GROWTH {
        format!(
            "{limit}; past the limit, more replicas cost calls/s: {} at {}, {:.0} % below the \
             most",
            thousands(last.rate),
            count(last.layout.replicas),
            100.0 * (1.0 - last.rate / best.rate)
        )
    } else {
        limit
    };
    if short.is_empty() {
        let qualifier = if limit_at.is_some_and(|l| l.layout.replicas == 1) {
            "**met**, but only trivially"
        } else {
            "**met**"
        };
        (qualifier, limit)
    } else {
        (
            "**missed**",
            format!("no growth below the limit ({}); {limit}", short.join("; ")),
        )
    }
}

fn throughput(w: &mut String, medians: &[Medians], sessions: usize) {
    let base = find(medians, "single").map(|m| m.rate);
    let _ = writeln!(
        w,
        "### `echo`, {sessions} stateful sessions\n\n\
         | layout | calls/s | against the single process, direct | p50 ms | p99 ms | busy | \
         other processes | requests per replica |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    );
    for m in medians {
        let against = base.map_or_else(|| "–".into(), |b| format!("{:.0} %", 100.0 * m.rate / b));
        let shares = if m.shares.is_empty() {
            "–".to_owned()
        } else {
            m.shares
                .iter()
                .map(|s| format!("{s:.0} %"))
                .collect::<Vec<_>>()
                .join(" / ")
        };
        let _ = writeln!(
            w,
            "| {} | {} | {against} | {} | {} | {:.0} % | {:.0} % | {shares} |",
            m.layout.describe(),
            thousands(m.rate),
            ms(m.p50_us),
            ms(m.p99_us),
            m.busy * 100.0,
            m.others * 100.0
        );
    }
    let _ = writeln!(
        w,
        "\n*Busy*: as above. *Other processes*: the part of it that none of the measurement's \
         processes (client, haproxy, Redis, replicas) spent (`/proc/stat` less their \
         `/proc/<pid>/stat` times, which disagree by a few per cent): other work on the \
         machine. *Requests per replica*: each replica's share of the requests haproxy \
         forwarded over the counted time (its statistics page, all runs together).\n"
    );
}

fn cpu(w: &mut String, medians: &[Medians], cpus: usize) {
    let _ = writeln!(
        w,
        "### Where the CPU goes\n\n\
         CPU time (user + system, `/proc/<pid>/stat`) over the counted time, divided by the \
         checked answers. *Ceiling*: the calls/s that {cpus} cores would allow if every one of \
         their CPU-microseconds went to these processes at this cost per call.\n\n\
         | layout | replicas µs/call | haproxy µs/call | redis-server µs/call | client µs/call | \
         all µs/call | ceiling calls/s | calls/s |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    );
    for m in medians {
        let l = &m.layout;
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {} | {:.1} | {} | {} |",
            l.describe(),
            us(m.replicas_us, true),
            us(m.haproxy_us, l.balanced),
            us(m.redis_us, l.redis),
            us(m.client_us, true),
            m.total_us,
            thousands(cpus as f64 * 1e6 / m.total_us),
            thousands(m.rate)
        );
    }
    let _ = writeln!(w);
}

fn redis_commands(w: &mut String, medians: &[Medians]) {
    let with: Vec<&Medians> = medians.iter().filter(|m| m.redis_ops.is_some()).collect();
    if with.is_empty() {
        return;
    }
    let _ = writeln!(
        w,
        "### Redis operations per call\n\n\
         Commands Redis executed over the counted time (`INFO commandstats`, the benchmark's own \
         `INFO` left out), divided by the checked answers. Redis counts the commands a Lua \
         script runs (`redis.call`) as well as the `EVALSHA` that ran it, so *all commands* is \
         more than the requests the replicas sent; the script calls are in the last column \
         with the rest. The heartbeat and the bus (every replica's own, whatever the load) are \
         included.\n\n\
         | layout | all commands per call | bytes to Redis per call | bytes from Redis per call \
         | per command, per call |\n| --- | ---: | ---: | ---: | --- |"
    );
    for m in with {
        let mut commands: Vec<(&String, &f64)> = m.redis_by_command.iter().collect();
        commands.sort_by(|a, b| b.1.total_cmp(a.1).then(a.0.cmp(b.0)));
        let listed: Vec<String> = commands
            .iter()
            .filter(|(_, n)| **n >= 0.005)
            .map(|(name, n)| format!("`{}` {n:.2}", name.to_uppercase()))
            .collect();
        let (input, output) = m.redis_bytes.unwrap_or((f64::NAN, f64::NAN));
        let _ = writeln!(
            w,
            "| {} | {:.2} | {input:.0} | {output:.0} | {} |",
            m.layout.describe(),
            m.redis_ops.unwrap_or(f64::NAN),
            if listed.is_empty() {
                "–".to_owned()
            } else {
                listed.join(", ")
            }
        );
    }
    let _ = writeln!(w);
}

fn failures(w: &mut String, medians: &[Medians]) {
    let failed: Vec<&Medians> = medians.iter().filter(|m| m.failures > 0).collect();
    if failed.is_empty() {
        let _ = writeln!(
            w,
            "No call failed: every answer of every run, warm-up included, was the `echo` text \
             sent.\n"
        );
        return;
    }
    let _ = writeln!(
        w,
        "**Failed calls** (any phase; the session then started anew: new connection, new \
         `initialize`):\n"
    );
    for m in failed {
        let _ = writeln!(
            w,
            "- {}: {} failed; the first: {}",
            m.layout.describe(),
            m.failures,
            m.first_failure.as_deref().unwrap_or("?")
        );
    }
    let _ = writeln!(w);
}

fn runs(w: &mut String, medians: &[Medians]) {
    let _ = writeln!(
        w,
        "Every run (calls/s):\n\n| layout | runs |\n| --- | --- |"
    );
    for m in medians {
        let runs: Vec<String> = m.rates.iter().map(|r| thousands(*r)).collect();
        let _ = writeln!(w, "| `{}` | {} |", m.layout.key, runs.join(" / "));
    }
    let _ = writeln!(w);
}

const NOTES: &str = "\
#### What is measured

- **Layouts.** *Direct*: the client connects to the one process. *Through haproxy*: to an \
haproxy in HTTP mode, keep-alive on both sides, `balance roundrobin` without stickiness, so \
every request of a session (the `initialize`, the `notifications/initialized`, every call) may \
land on another replica; with one replica it measures the balancer's own cost. *Sessions in \
Redis*: every replica runs with `MCP_REDIS_URL` naming one `redis-server` (`--save \"\" \
--appendonly no`: nothing written to disk), so a replica that did not create a session loads \
it from Redis. Without Redis the replica keeps its sessions in memory, as a single process \
does.
- **Reading it.** Everything runs on the same 2 vCPUs: the client, haproxy, Redis and the \
replicas take turns on them, and one replica (a multi-threaded tokio runtime) can already use \
both. Once the machine is busy, a layout's calls/s is bounded by the CPU all of its processes \
spend per call (the ceiling column), not by the replicas: a second or third replica then adds \
processes to schedule, each with fewer requests to batch per wake-up, and no cores to run them \
on. Replicas add calls/s where each brings cores of its own (other machines, or a machine \
with more cores than the processes around them need). The machine is shared: the load \
averages above, and the *other processes* column, say how busy it was with other work.
";

#[cfg(test)]
mod tests;
