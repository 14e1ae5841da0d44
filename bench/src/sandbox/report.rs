//! The `## Sandbox` part of `docs/benchmarks.md`: the floor, cold sessions with and without
//! warm sandboxes, calls in a session, ten sessions at once and memory per idle session,
//! against the targets, and the cold starts other sandboxes' vendors state.

use std::fmt::Write as _;

use super::measure::{Crowd, FLOOR_ENV, SETTLE, Settings, Spread};
use super::memory::{IDLE, Idle};
use super::server::{BUILD, Setup, Template, TemplateExt};
use crate::mcpx::latency::Transport;
use crate::mcpx::report::{transport_name, verdict};
use crate::report::{Machine, thousands};

/// What a new Python session's first result may take beyond the bare interpreter start, at
/// most (p50, ms).
pub const TARGET_COLD_OVER_FLOOR_MS: f64 = 15.0;
/// What a call in an existing session may take over streamable HTTP, at most (p50, ms).
pub const TARGET_WARM_HTTP_MS: f64 = 3.0;

/// One measured path: a template over a transport, with or without warm sandboxes.
#[derive(Debug, Clone, Copy)]
pub struct Path<T> {
    /// The template.
    pub template: Template,
    /// The transport.
    pub transport: Transport,
    /// `MSB_POOL_SIZE` of the server.
    pub pool_size: usize,
    /// What was measured.
    pub value: T,
}

impl<T> Path<T> {
    /// `value`, measured with `template` on a server set up as `setup` says.
    pub fn of(setup: &Setup, template: Template, value: T) -> Self {
        Self {
            template,
            transport: setup.transport,
            pool_size: setup.pool_size,
            value,
        }
    }
}

/// Versions and settings of the software measured.
#[derive(Debug, Clone, Default)]
pub struct Software {
    /// `python3 --version`.
    pub python: String,
    /// `node --version`.
    pub node: String,
    /// `bwrap --version`.
    pub bwrap: String,
    /// The `limits:` line of `mcp-sandbox --check`.
    pub limits: String,
}

impl Software {
    /// The interpreter of `template` and its version (`Python 3.11.2`, `Node.js v20.20.2`).
    pub fn version(&self, template: Template) -> String {
        match template {
            Template::Python => self.python.clone(),
            Template::Node => format!("Node.js {}", self.node),
        }
    }
}

/// Everything the part reports.
#[derive(Debug, Clone)]
pub struct Findings {
    /// The command line that produced them.
    pub command: String,
    /// How much was measured.
    pub settings: Settings,
    /// The bare starts.
    pub floor: Vec<(Template, Spread)>,
    /// New sessions' first results.
    pub cold: Vec<Path<Spread>>,
    /// Calls in an existing session.
    pub warm: Vec<Path<Spread>>,
    /// Sessions at once.
    pub crowd: Vec<Path<Crowd>>,
    /// Idle sessions' memory.
    pub memory: Vec<Idle>,
    /// The memory server's `VmRSS` before its first session, KiB.
    pub server_rss_kib: u64,
    /// Versions.
    pub software: Software,
    /// `/proc/loadavg` before and after.
    pub load: (String, String),
    /// Wall time of the run, seconds.
    pub wall_seconds: f64,
    /// Busy CPU-seconds of the whole machine during the run.
    pub busy_seconds: f64,
}

impl Findings {
    fn floor_of(&self, template: Template) -> Option<&Spread> {
        self.floor
            .iter()
            .find(|(t, _)| *t == template)
            .map(|(_, s)| s)
    }
}

/// Milliseconds, with two decimals below 10.
fn ms(value: f64) -> String {
    if value < 10.0 {
        format!("{value:.2} ms")
    } else {
        format!("{value:.1} ms")
    }
}

/// A difference in milliseconds, with its sign.
fn signed_ms(value: f64) -> String {
    if value < 0.0 {
        format!("−{}", ms(-value))
    } else {
        format!("+{}", ms(value))
    }
}

fn pool_name(pool_size: usize) -> String {
    match pool_size {
        0 => "none (`MSB_POOL_SIZE=0`)".to_owned(),
        n => format!("{n} per template (`MSB_POOL_SIZE={n}`)"),
    }
}

/// The part.
pub fn markdown(f: &Findings, machine: &Machine, date: &str) -> String {
    let mut doc = String::new();
    let w = &mut doc;
    let _ = writeln!(
        w,
        "## Sandbox: cold sessions, calls and memory of `mcp-sandbox` (`sandbox-bench`)\n\n\
         The fourth part of `bench/run.sh`. On its own, after `{BUILD}` and `cargo build \
         --release --manifest-path bench/Cargo.toml --bins`: `bench/target/release/sandbox-bench` \
         (`--quick` for one short run; `bench/README.md` lists the options). Every figure \
         below was produced by `{}`.\n",
        f.command
    );
    let _ = writeln!(w, "- Date: {date}");
    let _ = writeln!(
        w,
        "{}",
        machine.run_line(f.wall_seconds, f.busy_seconds, &f.load)
    );
    let s = &f.software;
    let _ = writeln!(
        w,
        "- Software: the root workspace's release `mcp-sandbox` (limits: {}, as `mcp-sandbox \
         --check` reports), {}; {} at `{}` and {} at `{}`, the same interpreters for \
         the floor and inside the sandboxes (`MSB_PYTHON`, `MSB_NODE`); client: mcp-kit; {}, \
         release profile\n",
        s.limits,
        s.bwrap,
        s.version(Template::Python),
        Template::Python.interpreter(),
        s.version(Template::Node),
        Template::Node.interpreter(),
        machine.rustc
    );
    targets(w, f);
    floor(w, f);
    cold(w, f);
    warm(w, f);
    crowd(w, f);
    memory(w, f);
    doc.push_str(VENDORS);
    doc.push_str(NOTES);
    doc
}

fn targets(w: &mut String, f: &Findings) {
    let _ = writeln!(
        w,
        "### The issue's targets\n\n| target | this run | verdict |\n| --- | ---: | --- |"
    );
    for c in f.cold.iter().filter(|c| c.template == Template::Python) {
        let Some(floor) = f.floor_of(c.template) else {
            continue;
        };
        let over = c.value.p50_ms - floor.p50_ms;
        let _ = writeln!(
            w,
            "| new Python session → first result, {}, warm sandboxes: {}: p50 ≤ floor ({}) + \
             {TARGET_COLD_OVER_FLOOR_MS:.0} ms | {} (floor {}) | {} |",
            transport_name(c.transport),
            pool_name(c.pool_size),
            ms(floor.p50_ms),
            ms(c.value.p50_ms),
            signed_ms(over),
            verdict(over, TARGET_COLD_OVER_FLOOR_MS)
        );
    }
    for p in f.warm.iter().filter(|p| p.transport == Transport::Http) {
        let _ = writeln!(
            w,
            "| `execute_code` in an existing {} session, {}: p50 ≤ {TARGET_WARM_HTTP_MS:.0} ms \
             | {} | {} |",
            p.template.label(),
            transport_name(p.transport),
            ms(p.value.p50_ms),
            verdict(p.value.p50_ms, TARGET_WARM_HTTP_MS)
        );
    }
    let _ = writeln!(w);
}

fn floor(w: &mut String, f: &Findings) {
    let _ = writeln!(
        w,
        "### The floor: the interpreter alone\n\n\
         The interpreter started from the benchmark (`std::process::Command`, standard streams \
         to `/dev/null`) and waited for, doing nothing; spawn to exit, {} runs after one \
         untimed. Its environment is only what a sandbox's interpreter gets ({}): the \
         benchmark's own may not be a fair floor (with `NODE_EXTRA_CA_CERTS` set, for one, \
         Node.js reads a certificate bundle at every start, which took about 40 ms on this \
         machine while this benchmark was written).\n\n\
         | interpreter | command | p50 | p99 |\n| --- | --- | ---: | ---: |",
        f.settings.floor_runs,
        FLOOR_ENV
            .iter()
            .map(|(k, v)| format!("`{k}={v}`"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    for (template, spread) in &f.floor {
        let [a, b] = template.bare_args();
        let _ = writeln!(
            w,
            "| {} | `{} {a} {b}` | {} | {} |",
            f.software.version(*template),
            template.interpreter(),
            ms(spread.p50_ms),
            ms(spread.p99_ms)
        );
    }
    let _ = writeln!(w);
}

fn cold(w: &mut String, f: &Findings) {
    let _ = writeln!(
        w,
        "### A new session's first result\n\n\
         `execute_code` of `1` with a template and no `session_id` (the call creates the \
         session; the answer must be `status: \"ok\"`, `session_created: true` and stdout \
         `1`), timed by the client around the whole `tools/call`. {} sessions per row, one at \
         a time, after one untimed: before each the previous session is stopped \
         (`stop_session`); with warm sandboxes the benchmark then waits until `get_sessions` \
         shows `warm_sandboxes[template] ≥ 1`; then it pauses {} ms. Without warm sandboxes \
         the sandbox (bubblewrap, cgroup, interpreter, the driver) starts inside the call.\n\n\
         | template | transport | warm sandboxes | p50 | p99 | p50 − floor |\n\
         | --- | --- | --- | ---: | ---: | ---: |",
        f.settings.cold_runs,
        SETTLE.as_millis()
    );
    for c in &f.cold {
        let over = f.floor_of(c.template).map_or_else(
            || "–".to_owned(),
            |fl| signed_ms(c.value.p50_ms - fl.p50_ms),
        );
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {} | {over} |",
            c.template.label(),
            transport_name(c.transport),
            pool_name(c.pool_size),
            ms(c.value.p50_ms),
            ms(c.value.p99_ms)
        );
    }
    let _ = writeln!(w);
}

fn warm(w: &mut String, f: &Findings) {
    let s = &f.settings;
    let _ = writeln!(
        w,
        "### A call in an existing session\n\n\
         `execute_code` of `1+1` with the session's `session_id` (stdout `2` checked), one at \
         a time: {} calls after {} untimed, in a session created for them.\n\n\
         | template | transport | p50 | p99 |\n| --- | --- | ---: | ---: |",
        thousands(s.calls as f64),
        thousands(s.warmup_calls as f64)
    );
    for p in &f.warm {
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} |",
            p.template.label(),
            transport_name(p.transport),
            ms(p.value.p50_ms),
            ms(p.value.p99_ms)
        );
    }
    let _ = writeln!(w);
}

fn crowd(w: &mut String, f: &Findings) {
    let s = &f.settings;
    let Some(first) = f.crowd.first() else {
        return;
    };
    let n = first.value.sessions;
    let _ = writeln!(
        w,
        "### {n} sessions at once\n\n\
         On a server with {}: every other session stopped, a warm sandbox of the template \
         ready, then {n} concurrent `execute_code` calls of `1` without `session_id` on the \
         one client connection (each creates a session). *All first results*: the time until \
         the last of them answered (*first*: the fastest). Then each session loops on `1+1` \
         in its own session, all {n} at once, for {:.1} s after {:.1} s; calls/s, p50 and p99 \
         are those of the calls that ended within the counted time.\n\n\
         | template | transport | all first results | first | calls/s, {n} sessions | p50 | p99 |\n\
         | --- | --- | ---: | ---: | ---: | ---: | ---: |",
        pool_name(first.pool_size),
        s.measure.as_secs_f64(),
        s.warmup.as_secs_f64()
    );
    for p in &f.crowd {
        let c = &p.value;
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {} | {} | {} |",
            p.template.label(),
            transport_name(p.transport),
            ms(c.all_first.as_secs_f64() * 1e3),
            ms(c.fastest_first.as_secs_f64() * 1e3),
            thousands(c.rate),
            ms(c.latency.p50_ms),
            ms(c.latency.p99_ms)
        );
    }
    let _ = writeln!(w);
}

fn memory(w: &mut String, f: &Findings) {
    let Some(first) = f.memory.first() else {
        return;
    };
    let fallbacks: usize = f.memory.iter().map(|m| m.rss_fallbacks).sum();
    let _ = writeln!(
        w,
        "### Memory per idle session\n\n\
         {} sessions of a template opened one after another on a server over streamable HTTP \
         without warm sandboxes (so that its descendant processes are the sessions' sandboxes \
         only), each having run `1`, then left idle for {:.0} s. *Pss*: the sum over the \
         server's descendant processes of their proportional set size \
         (`/proc/<pid>/smaps_rollup`{}), divided by the sessions; *RSS*: the same with \
         `VmRSS`, which counts pages shared by several processes once per process; \
         *cgroup*: the mean `memory_bytes` that `get_sessions` reports (the session's \
         cgroup: it also counts page cache and kernel memory).\n\n\
         | template | processes per session | Pss per session | RSS per session | cgroup per session | server `VmRSS` |\n\
         | --- | ---: | ---: | ---: | ---: | ---: |",
        first.sessions,
        IDLE.as_secs_f64(),
        if fallbacks == 0 {
            ", readable for every process".to_owned()
        } else {
            format!("; for {fallbacks} processes it could not be read and `VmRSS` counts")
        }
    );
    for m in &f.memory {
        let _ = writeln!(
            w,
            "| {} | {:.1} | {:.1} MiB | {:.1} MiB | {} | {:.1} MiB |",
            m.template.label(),
            m.processes as f64 / m.sessions.max(1) as f64,
            m.per_session_mib(m.pss_kib),
            m.per_session_mib(m.rss_kib),
            m.reported_bytes.map_or_else(
                || "–".to_owned(),
                |b| format!("{:.1} MiB", m.per_session_mib(b / 1_024))
            ),
            m.server_rss_kib as f64 / 1_024.0
        );
    }
    let _ = writeln!(
        w,
        "\nThe server's own `VmRSS` before its first session: {:.1} MiB; the last column is \
         the same with the {} idle sessions.\n",
        f.server_rss_kib as f64 / 1_024.0,
        first.sessions
    );
}

/// Other sandboxes' cold starts, as their vendors state them.
const VENDORS: &str = "\
### Other sandboxes' cold starts, as their vendors state them (not measured here)

| sandbox | isolation | the vendor's statement | source |
| --- | --- | --- | --- |
| E2B | Firecracker microVM | \"a small isolated VM the [sic] can be started very quickly (~150ms)\" | E2B's documentation, <https://e2b.dev/docs> (the text as it stood in e2b-dev/E2B, `apps/web/src/app/(docs)/docs/page.mdx` at commit `d0095071284153e9ebd517f3f8f006c14441d040`, before the documentation moved to another site in October 2025) |
| Daytona | containers (OCI/Docker) | \"spinning up in under 90ms from code to execution\" | README of <https://github.com/daytonaio/daytona> (commit `ec4c21b2d597091ac09ecc278f3bcc172575a987`) |
| microsandbox | microVM (libkrun) | \"Boot times under 200 ms\" | README of <https://github.com/zerocore-ai/microsandbox> (commit `ba02ae334e319faefd8c18dde34bce9822ab3df5`) |

These are the vendors' words, for their own services and machines (E2B and Daytona are \
hosted: their figures leave out the network to them, or say nothing about it), with \
isolation of another kind: a virtual machine or a container per sandbox, where \
`mcp-sandbox` runs an interpreter in Linux namespaces (bubblewrap), cgroups and seccomp on \
the host's kernel. None of them was run here.

";

/// The fixed part: what exactly is measured and how to read it.
const NOTES: &str = "\
#### What is measured

- **Servers.** Each setting gets a server of its own, started afresh: over streamable HTTP \
the benchmark runs `mcp-sandbox` with `MCP_SERVER_PORT` and waits for `MCP server listening`; \
over stdio mcp-kit spawns `mcp-sandbox --stdio`. Both with `MSB_WORKSPACE_ROOT` (a new \
temporary directory), `MSB_PYTHON=/usr/bin/python3`, `MSB_NODE=/usr/bin/node` and \
`MSB_POOL_SIZE` as the tables say, every other setting at its default (the `small` flavor: \
1 CPU, 1 GiB; at most 10 sessions; no network). The client is mcp-kit, one connection per \
server, with the protocol version it negotiates by default. Servers are stopped gracefully \
(SIGTERM, or the end of stdin) so that they remove their sandboxes, cgroups and workspaces.
- **Cold sessions.** With warm sandboxes a new session takes one that is already started \
(its interpreter and driver loaded) and a replacement starts in the background; the first \
result then costs the call, the hand-over and the execution. Without them the call starts \
the sandbox: bubblewrap's namespaces, joining the session's cgroups, the interpreter and the \
driver that speaks to the server. The floor is the interpreter's own start, without \
bubblewrap or driver; *p50 − floor* is what the sandbox and the MCP round trip add to it. \
The issue's target for a new Python session (floor + 15 ms) holds for the default setting, one \
warm sandbox per template; without warm sandboxes it does not on this machine, where the start \
itself adds more than that: bubblewrap building the sandbox's mounts and namespaces before it \
runs the interpreter, the move of the new process into the session's cgroups (three cgroup v1 \
hierarchies here, each a write to `cgroup.procs` that the kernel makes wait for other CPUs), \
and the driver's own start. The p99 of a few dozen samples is their slowest.
- **Reading it.** The machine has 2 vCPUs: with ten sessions at once, every session's \
interpreter, the server and the client share them, so calls/s there is bounded by CPU, and \
the time to ten first results (without a warm sandbox for nine of them) by ten sandbox \
starts on two cores. The machine is shared: the load averages above say how busy it was.
";
