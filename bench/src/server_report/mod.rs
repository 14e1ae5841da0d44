//! The Markdown of the server comparison: the head of `docs/benchmarks.md` (title, the one
//! command, the machine) and its first part, the MCP servers side by side.
//!
//! - `head`: the title, the one command, the machine, the noise and the method.
//! - `tables`: the tables of the measurements, of memory, and of every run.
//! - `targets`: the targets for `mcp-server` and its own figures.
//! - `standings`: where `mcp-server` beats or trails each peer.
//! - `notes`: the prose: Nagle's algorithm, how the servers are set up, how to read the
//!   numbers.
//!
//! This module holds what they share: the `View` of a run and the formatting of figures.

mod head;
mod notes;
mod standings;
mod tables;
mod targets;

use std::collections::HashMap;

use crate::load::mcp::Tool;
use crate::load::memory::MemorySample;
use crate::load::plan::{Results, Settings};
use crate::load::server::{ServerSpec, Transport};
use crate::load::{Sample, Scenario};
use crate::report::{Machine, median};

/// Medians of every field of a list of samples.
fn medians(samples: &[Sample]) -> Option<Sample> {
    if samples.is_empty() {
        return None;
    }
    let of = |f: fn(&Sample) -> f64| median(&samples.iter().map(f).collect::<Vec<_>>());
    Some(Sample {
        rate: of(|s| s.rate),
        p50_us: of(|s| s.p50_us),
        p99_us: of(|s| s.p99_us),
        server_cpu_us: of(|s| s.server_cpu_us),
        client_cpu_us: of(|s| s.client_cpu_us),
        requests: samples.iter().map(|s| s.requests).sum(),
    })
}

/// The report's view of one run.
struct View<'a> {
    results: &'a Results,
    specs: &'a [ServerSpec],
    settings: &'a Settings,
}

impl View<'_> {
    fn spec(&self, key: &str) -> Option<&ServerSpec> {
        self.specs.iter().find(|s| s.key == key)
    }

    fn scenario(&self, key: &str, tool: Tool, many: bool) -> Option<Scenario> {
        let spec = self.spec(key)?;
        let concurrency = match (many, spec.transport) {
            (false, _) => 1,
            (true, Transport::Http | Transport::WebSocket) => self.settings.sessions,
            (true, Transport::Stdio) => self.settings.in_flight,
        };
        Some(Scenario { tool, concurrency })
    }

    /// The medians of `key` in a scenario.
    fn get(&self, key: &str, tool: Tool, many: bool) -> Option<Sample> {
        let scenario = self.scenario(key, tool, many)?;
        medians(self.results.of(key, scenario))
    }

    fn peak_mib(&self, key: &str) -> Option<f64> {
        self.results
            .peak_rss_kib
            .get(key)
            .and_then(|v| v.iter().max())
            .map(|&kib| kib as f64 / 1024.0)
    }

    fn memory<'m>(
        map: &'m HashMap<&'static str, Result<MemorySample, String>>,
        key: &str,
    ) -> Option<&'m Result<MemorySample, String>> {
        map.get(key)
    }
}

fn ms(us: f64) -> String {
    if us.is_nan() {
        "–".into()
    } else if us >= 10_000.0 {
        format!("{:.1}", us / 1e3)
    } else {
        format!("{:.3}", us / 1e3)
    }
}

fn us(v: f64) -> String {
    if v.is_nan() {
        "–".into()
    } else {
        format!("{v:.1}")
    }
}

/// The head of `docs/benchmarks.md` and the server comparison.
pub fn markdown(
    results: &Results,
    specs: &[ServerSpec],
    settings: &Settings,
    machine: &Machine,
    date: &str,
) -> String {
    let v = View {
        results,
        specs,
        settings,
    };
    let mut doc = String::new();
    let w = &mut doc;
    head::head(w, &v, machine, date);
    tables::tables(w, &v);
    tables::memory_table(w, &v);
    notes::nagle(w, &v);
    targets::targets(w, &v);
    standings::standings(w, &v);
    tables::every_run(w, &v);
    doc.push_str(notes::NOTES);
    doc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_take_each_field() {
        let s = |rate, p50| Sample {
            rate,
            p50_us: p50,
            ..Sample::default()
        };
        let m = medians(&[s(1.0, 30.0), s(3.0, 10.0), s(2.0, 20.0)]).unwrap();
        assert_eq!((m.rate, m.p50_us), (2.0, 20.0));
    }
}
