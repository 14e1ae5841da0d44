//! The targets for `mcp-server`, and the issue's own figures beside this run's.

use std::fmt::Write as _;

use super::{View, ms};
use crate::load::mcp::Tool;
use crate::report::thousands;

/// The targets for our server.
mod target {
    pub const STATEFUL_RATE: f64 = 47_000.0;
    pub const STATELESS_RATE: f64 = 55_000.0;
    pub const CPU_US: f64 = 20.0;
    pub const P50_MS: f64 = 0.12;
    pub const STDIO_SEQUENTIAL: f64 = 12_000.0;
    pub const STDIO_PIPELINED: f64 = 60_000.0;
    pub const CONNECTED_KIB: f64 = 32.0;
    pub const IDLE_KIB: f64 = 4.0;
    /// Issue 11: the 10 KiB structured result against rmcp and the axum ceiling.
    pub const BLOB_VS_RMCP: f64 = 1.5;
    pub const BLOB_OF_AXUM_PERCENT: f64 = 85.0;
}

/// Whether `value` meets a target (`at_least`: value ≥ target, else value ≤ target).
fn verdict(value: f64, target: f64, at_least: bool) -> &'static str {
    if value.is_nan() {
        "not measured"
    } else if (at_least && value >= target) || (!at_least && value <= target) {
        "**met**"
    } else {
        "**missed**"
    }
}

pub(super) fn targets(w: &mut String, v: &View<'_>) {
    let s = v.settings;
    let _ = writeln!(w, "### The issue's targets for `mcp-server`\n");
    let _ = writeln!(w, "| target | this run | verdict |");
    let _ = writeln!(w, "| --- | ---: | --- |");
    let nan = f64::NAN;
    let rate = |key, tool, many| v.get(key, tool, many).map_or(nan, |m| m.rate);
    let cpu = |key| {
        v.get(key, Tool::Echo, true)
            .map_or(nan, |m| m.server_cpu_us)
    };
    let p50 = |key| {
        v.get(key, Tool::Echo, false)
            .map_or(nan, |m| m.p50_us / 1e3)
    };
    let mem = |map, key| match View::memory(map, key) {
        Some(Ok(m)) => m.per_session_kib(),
        _ => nan,
    };
    let rows = [
        (
            format!("stateful, {} sessions: ≥ 47,000 calls/s", s.sessions),
            rate("ours-http", Tool::Echo, true),
            target::STATEFUL_RATE,
            true,
            "calls/s",
        ),
        (
            format!("stateless, {} sessions: ≥ 55,000 calls/s", s.sessions),
            rate("ours-http-stateless", Tool::Echo, true),
            target::STATELESS_RATE,
            true,
            "calls/s",
        ),
        (
            "stateful: ≤ 20 µs server CPU per call".to_owned(),
            cpu("ours-http"),
            target::CPU_US,
            false,
            "µs",
        ),
        (
            "stateless: ≤ 20 µs server CPU per call".to_owned(),
            cpu("ours-http-stateless"),
            target::CPU_US,
            false,
            "µs",
        ),
        (
            "stateful, 1 session: p50 ≤ 0.12 ms".to_owned(),
            p50("ours-http"),
            target::P50_MS,
            false,
            "ms",
        ),
        (
            "stateless, 1 session: p50 ≤ 0.12 ms".to_owned(),
            p50("ours-http-stateless"),
            target::P50_MS,
            false,
            "ms",
        ),
        (
            "stdio: ≥ 12,000 sequential calls/s".to_owned(),
            rate("ours-stdio", Tool::Echo, false),
            target::STDIO_SEQUENTIAL,
            true,
            "calls/s",
        ),
        (
            format!("stdio: ≥ 60,000 calls/s with {} in flight", s.in_flight),
            rate("ours-stdio", Tool::Echo, true),
            target::STDIO_PIPELINED,
            true,
            "calls/s",
        ),
        (
            format!(
                "≤ 32 KiB per connected session ({})",
                thousands(s.connected as f64)
            ),
            mem(&v.results.connected, "ours-http"),
            target::CONNECTED_KIB,
            false,
            "KiB",
        ),
        (
            format!("≤ 4 KiB per idle session ({})", thousands(s.idle as f64)),
            mem(&v.results.idle, "ours-http"),
            target::IDLE_KIB,
            false,
            "KiB",
        ),
        (
            format!(
                "`blob`, {} sessions: ≥ 1.5× rmcp's calls/s (issue 11)",
                s.sessions
            ),
            rate("ours-http", Tool::Blob, true) / rate("rmcp-http", Tool::Blob, true),
            target::BLOB_VS_RMCP,
            true,
            "×",
        ),
        (
            format!(
                "`blob`, {} sessions: ≥ 85 % of the axum ceiling's calls/s (issue 11)",
                s.sessions
            ),
            100.0 * rate("ours-http", Tool::Blob, true) / rate("axum-http", Tool::Blob, true),
            target::BLOB_OF_AXUM_PERCENT,
            true,
            "%",
        ),
    ];
    for (label, value, goal, at_least, unit) in rows {
        let shown = match unit {
            "calls/s" => thousands(value),
            "ms" => format!("{value:.3} ms"),
            "×" => format!("{value:.2}×"),
            "%" => format!("{value:.0} %"),
            _ => format!("{value:.1} {unit}"),
        };
        let shown = if value.is_nan() { "–".into() } else { shown };
        let _ = writeln!(
            w,
            "| {label} | {shown} | {} |",
            verdict(value, goal, at_least)
        );
    }
    let _ = writeln!(
        w,
        "\nThe issue's own figures, measured on a machine like this one (2 cores, the issue's \
         generator, medians of 3), next to the same figures here:\n"
    );
    let _ = writeln!(w, "| figure | issue | this run |");
    let _ = writeln!(w, "| --- | ---: | ---: |");
    let pair = |key: &str| {
        v.get(key, Tool::Echo, true).map_or_else(
            || "–".to_owned(),
            |m| format!("{} ({:.0} µs)", thousands(m.rate), m.server_cpu_us),
        )
    };
    let _ = writeln!(
        w,
        "| rmcp stateful SSE, {} sessions: calls/s (server CPU per call) | 23,500 (54 µs) | {} |",
        s.sessions,
        pair("rmcp-http")
    );
    let _ = writeln!(
        w,
        "| rmcp stateless JSON, {} sessions, 2026-07-28 requests | 30,500 (45 µs) | {} |",
        s.sessions,
        pair("rmcp-http-stateless")
    );
    let _ = writeln!(
        w,
        "| rmcp stateless JSON, {} sessions, 2025-11-25 requests without a session | 30,500 (45 µs) | {} |",
        s.sessions,
        pair("rmcp-http-stateless-legacy")
    );
    let _ = writeln!(
        w,
        "| plain axum JSON echo, {} sessions | 82,000 (12 µs) | {} |",
        s.sessions,
        pair("axum-http")
    );
    let p50_of = |key: &str| {
        v.get(key, Tool::Echo, false)
            .map_or_else(|| "–".to_owned(), |m| format!("{} ms", ms(m.p50_us)))
    };
    let _ = writeln!(
        w,
        "| p50 at 1 session: rmcp stateful / stateless | 0.14–0.17 ms | {} / {} |",
        p50_of("rmcp-http"),
        p50_of("rmcp-http-stateless")
    );
    let _ = writeln!(
        w,
        "| p50 at 1 session: axum | 0.11 ms | {} |",
        p50_of("axum-http")
    );
    let stdio = |many| {
        v.get("rmcp-stdio", Tool::Echo, many)
            .map_or_else(|| "–".to_owned(), |m| thousands(m.rate))
    };
    let _ = writeln!(
        w,
        "| rmcp stdio: sequential / {} in flight | 8,500 / 16,500 | {} / {} |",
        s.in_flight,
        stdio(false),
        stdio(true)
    );
    let _ = writeln!(
        w,
        "| rmcp: KiB per connected session | about 137 | {} |\n",
        match View::memory(&v.results.connected, "rmcp-http") {
            Some(Ok(m)) => format!("{:.1}", m.per_session_kib()),
            _ => "–".to_owned(),
        }
    );
}
