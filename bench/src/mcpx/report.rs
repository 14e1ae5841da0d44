//! The `## mcpx` part of `docs/benchmarks.md`: tokens, the listing budget, `inspect` sizes and
//! the latency `exec` adds, each against the target.

use std::fmt::Write as _;

use mcpx::listing::{Detail, TOOL_LINE_LENS};

use super::latency::{PathRuns, Route, Run, Settings, Transport};
use super::tokens::{Exposure, InspectStats, percent};
use crate::report::{Machine, median, thousands};

/// mcpx's `tools/list` against GitHub's, at most (per cent).
pub const TARGET_GITHUB_PERCENT: f64 = 5.0;
/// ... against the three SDK servers', at most (per cent).
pub const TARGET_MIXED_PERCENT: f64 = 15.0;
/// `inspect(server, tool)` against the tool's JSON, at most (per cent).
pub const TARGET_INSPECT_PERCENT: f64 = 50.0;
/// What mcpx may add to a call's median round trip, at most (µs).
pub const TARGET_OVERHEAD_US: f64 = 50.0;

/// Everything the part reports.
#[derive(Debug, Clone)]
pub struct Findings {
    /// The setups measured for tokens, each with its exposure target (per cent).
    pub tokens: Vec<(Exposure, f64)>,
    /// The latency paths (empty when not measured).
    pub latency: Vec<PathRuns>,
    /// How latency was measured.
    pub settings: Settings,
    /// `/proc/loadavg` before and after.
    pub load: (String, String),
    /// Wall time of the run, seconds.
    pub wall_seconds: f64,
    /// Busy CPU-seconds of the whole machine during the run.
    pub busy_seconds: f64,
    /// Versions of the peers (Node.js, Python).
    pub peers: String,
}

/// `**met**` when `value` is at most `limit`, else `**missed**`.
pub(crate) fn verdict(value: f64, limit: f64) -> &'static str {
    if value <= limit {
        "**met**"
    } else {
        "**missed**"
    }
}

/// The full listing: a line of up to this many characters per tool.
const FULL: Detail = Detail::Lines(TOOL_LINE_LENS[0]);

fn detail_name(detail: Detail) -> String {
    match detail {
        FULL => format!(
            "full (a line of ≤ {} characters per tool)",
            TOOL_LINE_LENS[0]
        ),
        Detail::Lines(len) => format!("a line of ≤ {len} characters per tool"),
        Detail::Names => "tool names only".to_owned(),
        Detail::Counts => "tool counts only".to_owned(),
    }
}

/// The part, with its head.
pub fn markdown(f: &Findings, machine: &Machine, date: &str, default_budget: usize) -> String {
    let mut doc = String::new();
    let w = &mut doc;
    let _ = writeln!(
        w,
        "## mcpx: the agent's prompt and the cost of a call (`mcpx-bench`)\n\n\
         The third part of `bench/run.sh`. On its own, after `{}` and `cargo build --release \
         --manifest-path bench/Cargo.toml --bins`: `bench/target/release/mcpx-bench` \
         (`--quick` for one short run; `bench/README.md` lists the options).\n",
        super::setup::BUILD
    );
    let _ = writeln!(w, "- Date: {date}");
    let _ = writeln!(
        w,
        "{}",
        machine.run_line(f.wall_seconds, f.busy_seconds, &f.load)
    );
    let _ = writeln!(
        w,
        "- Toolchain: {}, release profile (mcpx, the example and replay servers of the root \
         workspace, and the client){}\n",
        machine.rustc,
        if f.peers.is_empty() {
            String::new()
        } else {
            format!("; peers: {}", f.peers)
        }
    );
    tokens_part(w, f, default_budget);
    latency_part(w, f);
    doc.push_str(NOTES);
    doc
}

fn tokens_part(w: &mut String, f: &Findings, default_budget: usize) {
    if f.tokens.is_empty() {
        return;
    }
    let _ = writeln!(w, "### Tokens: every tool schema, or two tools\n");
    let _ = writeln!(
        w,
        "o200k tokens (`mcpx::text::count_tokens`) of the compact JSON of a `tools/list` \
         result, `{{\"tools\":[…]}}`: *direct* is what a client connected to each upstream \
         puts in the prompt (the tools as served, every page), *mcpx* is mcpx's own \
         `tools/list` (`inspect`, whose description is the listing, and `exec`) with default \
         options (`listing_budget_tokens` = {default_budget}).\n"
    );
    let _ = writeln!(
        w,
        "| upstreams | tools | direct | mcpx | mcpx / direct | target | | the listing in mcpx's |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |"
    );
    for (e, target) in &f.tokens {
        let share = percent(e.mcpx, e.direct);
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {share:.1} % | ≤ {target:.0} % | {} | {}, {} tokens |",
            e.label,
            e.tool_count(),
            thousands(e.direct as f64),
            thousands(e.mcpx as f64),
            verdict(share, *target),
            detail_name(e.detail),
            thousands(e.listing as f64)
        );
    }
    let _ = writeln!(
        w,
        "\nPer upstream (`inspect(server)` is the answer listing a server's tools, each with a \
         line and its input type):\n\n\
         | setup | upstream | tools | direct `tools/list` | `inspect(server)` |\n\
         | --- | --- | ---: | ---: | ---: |"
    );
    for (e, _) in &f.tokens {
        for u in &e.upstreams {
            let _ = writeln!(
                w,
                "| {} | `{}` | {} | {} | {} |",
                e.label,
                u.server,
                u.tools,
                thousands(u.direct as f64),
                thousands(u.inspect_server as f64)
            );
        }
    }
    budgets(w, f, default_budget);
    inspect_part(w, f);
}

fn budgets(w: &mut String, f: &Findings, default_budget: usize) {
    let Some((e, _)) = f.tokens.iter().find(|(e, _)| !e.budgets.is_empty()) else {
        return;
    };
    let _ = writeln!(
        w,
        "\n### The listing budget: {}\n\n\
         The `inspect` description lists every tool with a line; over `listing_budget_tokens` \
         it degrades to shorter lines, then names, then counts (`mcpx::listing`).\n\n\
         | `listing_budget_tokens` | listing | listing tokens | mcpx `tools/list` | mcpx / direct |\n\
         | ---: | --- | ---: | ---: | ---: |",
        e.label
    );
    for row in &e.budgets {
        let mark = if row.budget == default_budget {
            " (default)"
        } else {
            ""
        };
        let _ = writeln!(
            w,
            "| {}{mark} | {} | {} | {} | {:.1} % |",
            thousands(row.budget as f64),
            detail_name(row.detail),
            thousands(row.listing as f64),
            thousands(row.exposure as f64),
            percent(row.exposure, e.direct)
        );
    }
    let full = e
        .budgets
        .iter()
        .filter(|r| r.detail == FULL)
        .map(|r| r.listing)
        .next();
    let _ = match full {
        Some(tokens) => writeln!(
            w,
            "\nThe full listing of these {} tools is {} tokens: a budget at or above it keeps a \
             line per tool, a smaller one drops to the next form that fits.",
            e.tool_count(),
            thousands(tokens as f64)
        ),
        None => writeln!(
            w,
            "\nNo budget measured keeps the full listing of these {} tools.",
            e.tool_count()
        ),
    };
}

fn inspect_part(w: &mut String, f: &Findings) {
    let _ = writeln!(
        w,
        "\n### `inspect(server, tool)` against the tool's JSON\n\n\
         The text `inspect(server, tool)` returns (default options: TypeScript types, \
         descriptions cut at 120 characters) against the tool's compact JSON as listed, per \
         tool.\n\n\
         | upstreams | tools | tools' JSON | `inspect` texts | total | median tool | worst tool | tools over {:.0} % | target | |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- | --- |",
        TARGET_INSPECT_PERCENT
    );
    for (e, _) in &f.tokens {
        let s = InspectStats::of(&e.tools, TARGET_INSPECT_PERCENT);
        let total = percent(s.inspect, s.json);
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {total:.1} % | {:.1} % | `{}` {:.1} % | {} | each ≤ {:.0} % | {} |",
            e.label,
            s.tools,
            thousands(s.json as f64),
            thousands(s.inspect as f64),
            s.median_percent,
            s.worst.0,
            s.worst.1,
            s.over_limit,
            s.limit_percent,
            if s.over_limit == 0 {
                "**met**"
            } else {
                "**missed**"
            }
        );
    }
}

fn median_of(runs: &[Run], field: impl Fn(&Run) -> f64) -> f64 {
    median(&runs.iter().map(field).collect::<Vec<_>>())
}

fn path(f: &Findings, transport: Transport, route: Route) -> Option<&PathRuns> {
    f.latency
        .iter()
        .find(|p| p.transport == transport && p.route == route)
}

/// The transport as the report names it.
pub(crate) fn transport_name(transport: Transport) -> &'static str {
    match transport {
        Transport::Stdio => "stdio",
        Transport::Http => "streamable HTTP",
    }
}

fn route_name(route: Route) -> &'static str {
    match route {
        Route::Direct => "direct",
        Route::Mcpx => "through mcpx",
    }
}

fn latency_part(w: &mut String, f: &Findings) {
    if f.latency.is_empty() {
        return;
    }
    let s = &f.settings;
    let _ = writeln!(
        w,
        "\n### `exec`: a call directly and through mcpx\n\n\
         `echo` of `mcp-server`'s example server, called directly (`tools/call` of `echo`) and \
         through mcpx (`tools/call` of `exec` with `server_name`, `tool_name`, `arguments`), \
         by an mcp-kit client. Latency: {} sequential calls after {} of warm-up, timed by the \
         client. Throughput: {} callers looping on one session for {:.1} s after {:.1} s. \
         Every answer is checked; medians of {} run(s), the routes alternating within each.\n\n\
         | transport | route | protocol | p50 | p99 | calls/s, {} callers | mcpx CPU per call |\n\
         | --- | --- | --- | ---: | ---: | ---: | ---: |",
        thousands(s.calls as f64),
        thousands(s.warmup_calls as f64),
        s.callers,
        s.measure.as_secs_f64(),
        s.warmup.as_secs_f64(),
        s.runs,
        s.callers
    );
    for p in &f.latency {
        let _ = writeln!(
            w,
            "| {} | {} | {} | {:.0} µs | {:.0} µs | {} | {} |",
            transport_name(p.transport),
            route_name(p.route),
            p.protocol,
            median_of(&p.runs, |r| r.p50_us),
            median_of(&p.runs, |r| r.p99_us),
            thousands(median_of(&p.runs, |r| r.rate)),
            match p
                .runs
                .iter()
                .filter_map(|r| r.mcpx_cpu_us)
                .collect::<Vec<_>>()
            {
                cpu if cpu.is_empty() => "–".to_owned(),
                cpu => format!("{:.1} µs", median(&cpu)),
            }
        );
    }
    let _ = writeln!(w);
    for transport in [Transport::Stdio, Transport::Http] {
        let (Some(direct), Some(mcpx)) = (
            path(f, transport, Route::Direct),
            path(f, transport, Route::Mcpx),
        ) else {
            continue;
        };
        let p50 = |p: &PathRuns| median_of(&p.runs, |r| r.p50_us);
        let p99 = |p: &PathRuns| median_of(&p.runs, |r| r.p99_us);
        let rate = |p: &PathRuns| median_of(&p.runs, |r| r.rate);
        let overhead = p50(mcpx) - p50(direct);
        let _ = writeln!(
            w,
            "- {}: mcpx adds {overhead:.0} µs at p50 ({:.0} → {:.0} µs) against the target of \
             ≤ {TARGET_OVERHEAD_US:.0} µs: {}; p99 {:.0} → {:.0} µs; with {} callers {} calls/s \
             through mcpx, {:.0} % of direct.",
            transport_name(transport),
            p50(direct),
            p50(mcpx),
            verdict(overhead, TARGET_OVERHEAD_US),
            p99(direct),
            p99(mcpx),
            s.callers,
            thousands(rate(mcpx)),
            100.0 * rate(mcpx) / rate(direct)
        );
    }
    if s.runs > 1 {
        let _ = writeln!(
            w,
            "\nEvery run (p50 µs; p99 µs; calls/s):\n\n\
             | transport | route | p50 | p99 | calls/s |\n| --- | --- | --- | --- | --- |"
        );
        for p in &f.latency {
            let runs = |field: &dyn Fn(&Run) -> f64| {
                p.runs
                    .iter()
                    .map(|r| thousands(field(r)))
                    .collect::<Vec<_>>()
                    .join(" / ")
            };
            let _ = writeln!(
                w,
                "| {} | {} | {} | {} | {} |",
                transport_name(p.transport),
                route_name(p.route),
                runs(&|r| r.p50_us),
                runs(&|r| r.p99_us),
                runs(&|r| r.rate)
            );
        }
    }
    let _ = writeln!(w);
}

/// The fixed part: what exactly is measured and how to read it.
const NOTES: &str = "\
#### What is measured

- **Upstreams.** GitHub: `replay_server` (an example of `mcpx`) serving the 117 tools of \
`github-mcp-server.tools.json` (github/github-mcp-server's tool snapshots, read from the \
shared catalogs folder, never copied into the repository) over stdio. The three SDK servers: \
the reference everything server (`@modelcontextprotocol/server-everything`, Node.js, stdio), \
`mcp-server`'s `example_server` (stdio) and the Python SDK's server \
(`crates/test-support/fixtures/python_server.py`, streamable HTTP). mcpx is built in process \
(`Registry::start`, `Proxy::new`) over the same configuration a direct client uses; that \
client announces what mcpx announces upstream (elicitation and sampling), since a server may \
list tools by the client's capabilities (the everything server lists two more with them).
- **Latency.** Over stdio the client spawns the example server, or spawns `mcpx --config` \
(which spawns its own); over HTTP one example server listens and mcpx (`--http`) is its \
client. Each side negotiates its protocol version as it would by default (the table's \
column is the client's); mcpx checks the arguments against the cached schema before it \
forwards a call.
- **Reading it.** Through mcpx a call crosses one more process and, over HTTP, one more \
HTTP exchange (mcpx serves the client's request and makes its own to the upstream). The \
added p50 is mcpx's own work plus the wake-ups of that extra process: on these 2 vCPUs three \
processes (client, mcpx, upstream) take turns, and a process woken on the other, idle vCPU \
pays tens of microseconds for it (see the JSON-RPC part). *mcpx CPU per call* (user + system \
time of the mcpx process over the counted calls of the concurrent callers, \
`/proc/<pid>/stat`) is its own work; the rest of the difference is scheduling. With the \
concurrent callers both cores are busy, so calls/s there is bounded by the CPU all three processes spend per call. The machine is \
shared: the load averages above say how busy it was.
";
