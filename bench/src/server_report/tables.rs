//! The tables: every measurement by transport and tool, memory, and every run.

use std::fmt::Write as _;

use super::{MemorySample, View, medians, ms, us};
use crate::load::mcp::Tool;
use crate::load::server::{ServerSpec, Transport};
use crate::report::thousands;

pub(super) fn tables(w: &mut String, v: &View<'_>) {
    let s = v.settings;
    // Our WebSocket rows go with streamable HTTP: the same server process, the same load.
    let http = if v
        .specs
        .iter()
        .any(|sp| sp.transport == Transport::WebSocket)
    {
        "Streamable HTTP and WebSocket"
    } else {
        "Streamable HTTP"
    };
    let sections = [
        (
            Transport::Http,
            Tool::Echo,
            true,
            format!("{http}, `echo`, {} concurrent sessions", s.sessions),
        ),
        (
            Transport::Http,
            Tool::Echo,
            false,
            format!("{http}, `echo`, 1 session"),
        ),
        (
            Transport::Http,
            Tool::Blob,
            true,
            format!(
                "{http}, `blob` (10 KiB structured result), {} sessions",
                s.sessions
            ),
        ),
        (
            Transport::Stdio,
            Tool::Echo,
            false,
            "stdio, `echo`, sequential (1 in flight)".to_owned(),
        ),
        (
            Transport::Stdio,
            Tool::Echo,
            true,
            format!("stdio, `echo`, {} in flight", s.in_flight),
        ),
        (
            Transport::Stdio,
            Tool::Blob,
            true,
            format!("stdio, `blob`, {} in flight", s.in_flight),
        ),
    ];
    for (transport, tool, many, title) in sections {
        let specs: Vec<&ServerSpec> = v
            .specs
            .iter()
            .filter(|sp| sp.transport.listens() == transport.listens())
            .collect();
        if specs.is_empty() {
            continue;
        }
        let _ = writeln!(w, "### {title}\n");
        let _ = writeln!(
            w,
            "| server | configuration | calls/s | p50 ms | p99 ms | server CPU µs/call | generator CPU µs/call |"
        );
        let _ = writeln!(w, "| --- | --- | ---: | ---: | ---: | ---: | ---: |");
        for spec in specs {
            let Some(scenario) = v.scenario(spec.key, tool, many) else {
                continue;
            };
            match (
                medians(v.results.of(spec.key, scenario)),
                v.results.failure(spec.key, scenario),
            ) {
                (Some(m), failure) => {
                    let note = if failure.is_some() { " ¹" } else { "" };
                    let _ = writeln!(
                        w,
                        "| {} | {} | {}{note} | {} | {} | {} | {} |",
                        spec.implementation,
                        spec.mode,
                        thousands(m.rate),
                        ms(m.p50_us),
                        ms(m.p99_us),
                        us(m.server_cpu_us),
                        us(m.client_cpu_us)
                    );
                }
                (None, failure) => {
                    let why: String = failure
                        .unwrap_or("not measured")
                        .chars()
                        .take(160)
                        .collect::<String>()
                        .replace('|', "/")
                        .replace('\n', " ");
                    let _ = writeln!(
                        w,
                        "| {} | {} | failed: {why} | | | | |",
                        spec.implementation, spec.mode
                    );
                }
            }
        }
        let _ = writeln!(w);
    }
    if !v.results.failures.is_empty() {
        let _ = writeln!(w, "¹ at least one run of this measurement failed:\n");
        let mut failures: Vec<_> = v.results.failures.iter().collect();
        failures.sort_by_key(|((k, s), _)| (*k, s.concurrency, s.tool.name()));
        for ((key, scenario), e) in failures {
            let _ = writeln!(
                w,
                "- `{key}` {} × {}: {}",
                scenario.tool.name(),
                scenario.concurrency,
                e.replace('\n', " ")
            );
        }
        let _ = writeln!(w);
    }
}

pub(super) fn memory_table(w: &mut String, v: &View<'_>) {
    let s = v.settings;
    let _ = writeln!(w, "### Memory\n");
    let _ = writeln!(
        w,
        "| server | configuration | peak RSS during the runs (MiB) | KiB per connected session | KiB per idle session |"
    );
    let _ = writeln!(w, "| --- | --- | ---: | ---: | ---: |");
    for spec in v.specs {
        let peak = v
            .peak_mib(spec.key)
            .map_or_else(|| "–".to_owned(), |m| format!("{m:.1}"));
        let show = |m: Option<&Result<MemorySample, String>>| match m {
            None => "–".to_owned(),
            Some(Ok(m)) => format!(
                "{:.1} ({} sessions)",
                m.per_session_kib(),
                thousands(m.sessions as f64)
            ),
            Some(Err(e)) => format!("failed: {}", e.chars().take(80).collect::<String>()),
        };
        let _ = writeln!(
            w,
            "| {} | {} | {peak} | {} | {} |",
            spec.implementation,
            spec.mode,
            show(View::memory(&v.results.connected, spec.key)),
            show(View::memory(&v.results.idle, spec.key))
        );
    }
    let _ = writeln!(
        w,
        "\nPeak RSS is `VmHWM` of the server process at the end of a run (all its \
         measurements), the largest of the runs. Per session: `VmRSS` of a fresh server after \
         one session and one call, then again half a second after opening the sessions \
         (connected: {} sessions, each `initialize`d on its own keep-alive connection, or \
         WebSocket connection, that stays open; idle: {} sessions `initialize`d over 16 \
         connections that are then closed, at most 2,000 for the Python SDK, which refuses more \
         than 10,000 sessions by default and opens them slowly, and none over WebSocket, where \
         the session ends with its connection); the difference divided by the sessions.\n",
        thousands(s.connected as f64),
        thousands(s.idle as f64)
    );
}

pub(super) fn every_run(w: &mut String, v: &View<'_>) {
    let _ = writeln!(
        w,
        "<details><summary>Every run (calls/s)</summary>\n\n| server | measurement | runs |\n| --- | --- | --- |"
    );
    for spec in v.specs {
        for scenario in
            crate::load::plan::scenarios(spec.transport, v.settings.sessions, v.settings.in_flight)
        {
            let runs: Vec<String> = v
                .results
                .of(spec.key, scenario)
                .iter()
                .map(|s| thousands(s.rate))
                .collect();
            let _ = writeln!(
                w,
                "| `{}` | `{}` × {} | {} |",
                spec.key,
                scenario.tool.name(),
                scenario.concurrency,
                runs.join(" / ")
            );
        }
    }
    let _ = writeln!(w, "\n</details>\n");
}
