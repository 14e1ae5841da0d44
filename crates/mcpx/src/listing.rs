//! The description of the `inspect` tool: every server with its instructions and every tool
//! with one line, generated from the cache, within a token budget.
//!
//! When the full listing is over the budget it degrades one step at a time until it fits:
//! shorter tool lines, then tool names only (grouped by server), then servers with their tool
//! counts. A degraded listing says so, and how to get the rest.

use std::fmt::Write as _;

use crate::registry::{Registry, Snapshot, Status};
use crate::text::{count_tokens, cut, one_line};

/// Instructions of a server are cut at this many characters (the seed's rule).
pub const INSTRUCTIONS_LEN: usize = 300;
/// The lengths a tool's line is cut at, in characters, tried longest first: 80 is the full
/// listing; the shorter ones trade words of description for room in the budget.
pub const TOOL_LINE_LENS: [usize; 5] = [80, 56, 40, 28, 20];

const HEAD: &str = "Inspect available MCP tools and their schemas: inspect(server_name) lists \
a server's tools, inspect(server_name, tool_name) gives a tool's schema, inspect(query) \
searches them all.";

/// How much of the listing is shown, most first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// Every tool with a line of description cut at this many characters (80: the full
    /// listing).
    Lines(usize),
    /// Tool names only, grouped by server.
    Names,
    /// Servers and their tool counts.
    Counts,
}

impl Detail {
    /// Every level, most detailed first.
    pub fn levels() -> impl Iterator<Item = Detail> {
        TOOL_LINE_LENS
            .into_iter()
            .map(Detail::Lines)
            .chain([Detail::Names, Detail::Counts])
    }

    fn is_full(self) -> bool {
        self == Detail::Lines(TOOL_LINE_LENS[0])
    }
}

/// The listing and how detailed it ended up.
#[derive(Debug, Clone)]
pub struct Listing {
    /// The description text.
    pub text: String,
    /// Its detail.
    pub detail: Detail,
    /// Its size in o200k tokens.
    pub tokens: usize,
}

/// The `inspect` description for the registry's current state, within `budget` tokens when
/// at all possible (the server-count form is used however long it is).
pub fn listing(registry: &Registry, budget: usize) -> Listing {
    let servers: Vec<(String, Snapshot)> = registry
        .upstreams()
        .map(|u| (u.name().to_owned(), u.snapshot()))
        .collect();
    let mut last = None;
    for detail in Detail::levels() {
        let text = render(&servers, detail, budget);
        let tokens = count_tokens(&text);
        let listing = Listing {
            text,
            detail,
            tokens,
        };
        if tokens <= budget {
            return listing;
        }
        last = Some(listing);
    }
    // Not even the server counts fit: they are the least that can be said.
    last.expect("there is always a last level")
}

fn render(servers: &[(String, Snapshot)], detail: Detail, budget: usize) -> String {
    let mut out = String::from(HEAD);
    if !detail.is_full() {
        let _ = write!(
            out,
            "\n\nThe list below is shortened to fit {budget} tokens: use inspect(server_name) or \
             inspect(query) for the rest."
        );
    }
    out.push_str("\n\nAvailable tools:");
    for (name, snapshot) in servers {
        server_lines(&mut out, name, snapshot, detail);
    }
    out
}

fn server_lines(out: &mut String, name: &str, snapshot: &Snapshot, detail: Detail) {
    let _ = write!(out, "\n  Server: {name}");
    let state = match &snapshot.status {
        Status::Ready => None,
        Status::Connecting => Some("connecting".to_owned()),
        status => Some(format!(
            "unavailable: {}",
            cut(&one_line(status.reason().unwrap_or_default()), 120)
        )),
    };
    let Some(catalog) = &snapshot.catalog else {
        let _ = write!(out, " ({})", state.unwrap_or_default());
        return;
    };
    let instructions = catalog.server.instructions.as_deref().map(one_line);
    match detail {
        Detail::Counts => {
            let _ = write!(out, " - {} tools", catalog.tools.len());
        }
        _ => {
            // The seed's 300 characters in the full listing; less as the listing shrinks.
            let len = match detail {
                _ if detail.is_full() => INSTRUCTIONS_LEN,
                Detail::Lines(_) => INSTRUCTIONS_LEN / 2,
                _ => INSTRUCTIONS_LEN / 4,
            };
            if let Some(instructions) = instructions.filter(|i| !i.is_empty()) {
                let _ = write!(out, " - {}", cut(&instructions, len));
            }
        }
    }
    if let Some(state) = state {
        let _ = write!(out, " ({state})");
    }
    match detail {
        Detail::Lines(len) => {
            for tool in catalog.tools.iter() {
                let summary = one_line(tool.summary());
                if summary.is_empty() {
                    let _ = write!(out, "\n    - {}", tool.name());
                } else {
                    let _ = write!(out, "\n    - {}: {}", tool.name(), cut(&summary, len));
                }
            }
        }
        Detail::Names => {
            let names: Vec<&str> = catalog.tools.iter().map(|t| t.name()).collect();
            let _ = write!(out, "\n    {}", names.join(", "));
        }
        Detail::Counts => {}
    }
}
