//! Where `mcp-server` beats or trails each peer, figure by figure.

use std::fmt::Write as _;

use super::View;
use crate::load::Sample;
use crate::load::mcp::{Protocol, Tool};
use crate::load::server::Transport;
use crate::report::thousands;

/// A comparison of ours with a peer for one figure.
fn compare(label: &str, ours: f64, peer: f64, higher_is_better: bool, unit: &str) -> String {
    if ours.is_nan() || peer.is_nan() || ours <= 0.0 || peer <= 0.0 {
        return format!("{label}: not measured");
    }
    let ratio = if higher_is_better {
        ours / peer
    } else {
        peer / ours
    };
    let verdict = if (0.95..=1.05).contains(&ratio) {
        "level".to_owned()
    } else if ratio > 1.0 {
        format!("**ahead**, {ratio:.2}×")
    } else {
        format!("**behind**, the peer {:.2}×", 1.0 / ratio)
    };
    let show = |v: f64| match unit {
        "calls/s" => thousands(v),
        "ms" => format!("{:.3}", v / 1e3),
        _ => format!("{v:.1}"),
    };
    format!(
        "{label} {} vs {} {unit} ({verdict})",
        show(ours),
        show(peer)
    )
}

/// One bullet per peer: where `mcp-server` is ahead or behind, figure by figure.
pub(super) fn standings(w: &mut String, v: &View<'_>) {
    let _ = writeln!(w, "### Where `mcp-server` beats or trails each peer\n");
    let s = v.settings;
    let nan = f64::NAN;
    let pick = |key: &str, tool, many, f: fn(&Sample) -> f64| {
        v.get(key, tool, many).map_or(nan, |m| f(&m))
    };
    let mem = |map, key: &str| match View::memory(map, key) {
        Some(Ok(m)) => m.per_session_kib(),
        _ => nan,
    };
    let pairs = [
        ("ours-http", "rmcp-http"),
        ("ours-http-stateless", "rmcp-http-stateless"),
        ("ours-http-stateless", "rmcp-http-stateless-legacy"),
        ("ours-http", "ts-http"),
        ("ours-http", "python-http"),
        // Not a peer: our WebSocket endpoint against our streamable HTTP one.
        ("ours-ws", "ours-http"),
        ("ours-stdio", "rmcp-stdio"),
        ("ours-stdio", "ts-stdio"),
        ("ours-stdio", "python-stdio"),
    ];
    for (ours, peer) in pairs {
        let (Some(ours_spec), Some(peer_spec)) = (v.spec(ours), v.spec(peer)) else {
            continue;
        };
        let many = match ours_spec.transport {
            Transport::Http | Transport::WebSocket => format!("{} sessions", s.sessions),
            Transport::Stdio => format!("{} in flight", s.in_flight),
        };
        let one = match ours_spec.transport {
            Transport::Http | Transport::WebSocket => "1 session",
            Transport::Stdio => "sequential",
        };
        let mut parts = vec![
            compare(
                &format!("`echo` at {many}"),
                pick(ours, Tool::Echo, true, |m| m.rate),
                pick(peer, Tool::Echo, true, |m| m.rate),
                true,
                "calls/s",
            ),
            compare(
                &format!("`echo` {one}"),
                pick(ours, Tool::Echo, false, |m| m.rate),
                pick(peer, Tool::Echo, false, |m| m.rate),
                true,
                "calls/s",
            ),
            compare(
                &format!("p50 {one}"),
                pick(ours, Tool::Echo, false, |m| m.p50_us),
                pick(peer, Tool::Echo, false, |m| m.p50_us),
                false,
                "ms",
            ),
            compare(
                &format!("`blob` at {many}"),
                pick(ours, Tool::Blob, true, |m| m.rate),
                pick(peer, Tool::Blob, true, |m| m.rate),
                true,
                "calls/s",
            ),
            compare(
                &format!("server CPU per `echo` at {many}"),
                pick(ours, Tool::Echo, true, |m| m.server_cpu_us),
                pick(peer, Tool::Echo, true, |m| m.server_cpu_us),
                false,
                "µs",
            ),
            compare(
                "peak RSS",
                v.peak_mib(ours).unwrap_or(nan),
                v.peak_mib(peer).unwrap_or(nan),
                false,
                "MiB",
            ),
        ];
        if peer_spec.protocol == Protocol::Stateful && peer_spec.transport == Transport::Http {
            parts.push(compare(
                "per connected session",
                mem(&v.results.connected, ours),
                mem(&v.results.connected, peer),
                false,
                "KiB",
            ));
            // A WebSocket session ends with its connection: it is never idle.
            if ours_spec.transport != Transport::WebSocket {
                parts.push(compare(
                    "per idle session",
                    mem(&v.results.idle, ours),
                    mem(&v.results.idle, peer),
                    false,
                    "KiB",
                ));
            }
        }
        if peer_spec.implementation == ours_spec.implementation {
            let _ = writeln!(
                w,
                "- **Our WebSocket endpoint against our streamable HTTP one** ({} against {}; \
                 “the peer” below is streamable HTTP): {}.",
                ours_spec.mode,
                peer_spec.mode,
                parts.join("; ")
            );
        } else {
            let _ = writeln!(
                w,
                "- **vs {} ({})**, against ours {}: {}.",
                peer_spec.implementation,
                peer_spec.mode,
                ours_spec.mode,
                parts.join("; ")
            );
        }
    }
    if let Some(ceiling) = v.get("axum-http", Tool::Echo, true) {
        for ours in ["ours-http", "ours-http-stateless"] {
            if let (Some(spec), Some(m)) = (v.spec(ours), v.get(ours, Tool::Echo, true)) {
                let _ = writeln!(
                    w,
                    "- **The axum ceiling**: ours {} reaches {:.0} % of the plain JSON echo's \
                     calls/s at {} sessions ({} vs {}) and spends {:.1}× its server CPU per call \
                     ({:.1} vs {:.1} µs).",
                    spec.mode,
                    100.0 * m.rate / ceiling.rate,
                    s.sessions,
                    thousands(m.rate),
                    thousands(ceiling.rate),
                    m.server_cpu_us / ceiling.server_cpu_us,
                    m.server_cpu_us,
                    ceiling.server_cpu_us
                );
            }
        }
    }
    let _ = writeln!(
        w,
        "\n“Ahead”/“behind” compare medians; within 5 % is called level. The ratio is how many \
         times better the leader is (higher calls/s, or lower latency, CPU or memory).\n"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compares_in_both_directions() {
        assert!(compare("x", 200.0, 100.0, true, "calls/s").contains("**ahead**, 2.00×"));
        assert!(compare("x", 200.0, 100.0, false, "µs").contains("**behind**, the peer 2.00×"));
        assert!(compare("x", 100.0, 102.0, true, "calls/s").contains("level"));
        assert!(compare("x", f64::NAN, 1.0, true, "calls/s").contains("not measured"));
    }
}
