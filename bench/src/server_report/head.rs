//! The head of the page: the title, the one command, the machine, the noise of the run and
//! the method.

use std::fmt::Write as _;

use super::View;
use crate::report::{Machine, command_version};

pub(super) fn head(w: &mut String, v: &View<'_>, machine: &Machine, date: &str) {
    let r = v.results;
    let s = v.settings;
    let _ = writeln!(w, "# Benchmarks\n");
    let _ = writeln!(
        w,
        "Written by the benchmarks themselves; do not edit by hand. One command builds \
         everything, runs the five parts (the MCP servers side by side, the JSON-RPC layer, \
         the mcpx proxy, the sandbox, then replicas sharing sessions in Redis) and writes this \
         page (and `llms.txt`), in about 12 minutes on 2 cores; run it on an otherwise idle \
         machine, after `scripts/install-peers.sh` and `scripts/install-system-deps.sh`:\n\n\
         ```sh\nbench/run.sh\n```\n\n\
         (`bench/run.sh --quick` measures everything once, briefly, and prints the page \
         without writing it. `bench/README.md` lists the options of the five programs.)\n"
    );
    let _ = writeln!(w, "## MCP servers side by side (`server-bench`)\n");
    let _ = writeln!(w, "- Date: {date}");
    let capacity = r.wall_seconds * machine.cpus.max(1) as f64;
    let _ = writeln!(
        w,
        "- Machine: {} cores (`nproc`), CPU model \"{}\" (`/proc/cpuinfo`), Linux {}, a \
         virtual machine shared with other work.",
        machine.cpus, machine.cpu_model, machine.kernel
    );
    // Per-process times and the tick-sampled `/proc/stat` disagree by a few per cent, so
    // less than that is no evidence of other work.
    let foreign = r.machine_busy_seconds - r.own_seconds;
    let tolerance = 0.05 * r.own_seconds;
    let others = if foreign <= tolerance {
        "no CPU use by other processes beyond that disagreement, so the machine was quiet"
            .to_owned()
    } else {
        let share = 100.0 * foreign / capacity;
        format!(
            "other processes used about {foreign:.0} CPU-seconds ({share:.0} % of the \
             machine), so the machine was {}",
            if share < 10.0 {
                "somewhat busy"
            } else {
                "busy: the figures below are lower than on an idle machine"
            }
        )
    };
    let _ = writeln!(
        w,
        "- Noise: the run took {:.0} s, in which the machine had {:.0} CPU-seconds and was busy \
         for {:.1} (`/proc/stat`: user, system, interrupts, steal), the generator and every \
         server it started for {:.1} (their `/proc/<pid>/stat` times, which disagree with \
         `/proc/stat` by a few per cent): {others}. Load average (1/5/15 min) {} before and \
         {} after (the benchmark itself keeps both cores busy).",
        r.wall_seconds,
        capacity,
        r.machine_busy_seconds,
        r.own_seconds,
        r.load_before,
        r.load_after
    );
    let _ = writeln!(
        w,
        "- Toolchain: {}, release profile. Peers: rmcp 3.9 (crates.io), \
         `@modelcontextprotocol/sdk` 1.32.2 on Node.js {}, `mcp` 2.3.0 on {} (installed by \
         `scripts/install-peers.sh`).",
        machine.rustc,
        command_version("node", &["--version"]),
        std::env::var("PEERS_PYTHON")
            .ok()
            .map(|p| command_version(&p, &["--version"]))
            .unwrap_or_else(|| "Python".into())
    );
    let _ = writeln!(
        w,
        "- Method: one load generator (`server-bench`, Rust) for every server. Each figure is \
         the median of {} runs (every run starts every server afresh, in turn); a measurement \
         warms up for {:.1} s and then counts for {:.1} s only the answers whose content was \
         checked (`echo`: the text equals the message sent, which differs on every call; \
         `blob`: every field of all {} records). HTTP: {} concurrent sessions, each on its own \
         keep-alive connection, one call at a time (closed loop), or 1 session. WebSocket \
         (ours only: none of the peers ships a WebSocket server transport): the same, with {} connections to \
         `/ws` of the process that serves streamable HTTP, each connection one `initialize`d \
         session calling one at a time (tokio-tungstenite client), or 1 connection. stdio: one \
         child, one session, with {} calls in flight, or 1 (sequential). Server CPU = \
         utime + stime of the server process (`/proc/<pid>/stat`) over the measured time, \
         divided by the checked answers; the generator's own CPU per call is shown beside it, \
         since both share the 2 cores.\n",
        s.runs,
        s.timing.warmup.as_secs_f64(),
        s.timing.measure.as_secs_f64(),
        crate::tools::BLOB_ITEMS,
        s.sessions,
        s.sessions,
        s.in_flight
    );
}
