//! What `mcpx check` and `mcpx tokens` report: the state of every upstream, and what the
//! proxy saves in tokens.

use serde::Serialize;
use serde_json::{Value, json};

use crate::inspect::{InspectRequest, inspect};
use crate::options::ProxyOptions;
use crate::proxy::Proxy;
use crate::registry::Registry;
use crate::text::count_tokens;

/// One upstream's line of `mcpx check`.
#[derive(Debug, Clone, Serialize)]
pub struct UpstreamCheck {
    /// The configured name.
    pub server: String,
    /// `connecting`, `ready`, `failed` or `reconnecting`.
    pub state: &'static str,
    /// The negotiated protocol version (when it connected).
    pub protocol_version: Option<String>,
    /// `stateful` (`initialize`) or `stateless` (2026-07-28), when it connected.
    pub era: Option<&'static str>,
    /// Tools shown.
    pub tools: Option<usize>,
    /// Tools the filters hide.
    pub hidden: Option<usize>,
    /// Connecting and listing, in milliseconds.
    pub latency_ms: Option<u64>,
    /// Why it is not ready.
    pub error: Option<String>,
}

/// The state of every upstream.
pub fn check(registry: &Registry) -> Vec<UpstreamCheck> {
    registry
        .upstreams()
        .map(|u| {
            let snapshot = u.snapshot();
            let catalog = snapshot.catalog.as_ref();
            UpstreamCheck {
                server: u.name().to_owned(),
                state: snapshot.status.name(),
                protocol_version: catalog.map(|c| c.server.protocol_version.clone()),
                era: catalog.map(|c| match mcp_schema::Era::of(&c.server.protocol_version) {
                    Some(mcp_schema::Era::Stateless) => "stateless",
                    _ => "stateful",
                }),
                tools: catalog.map(|c| c.tools.len()),
                hidden: catalog.map(|c| c.hidden.len()),
                latency_ms: catalog
                    .map(|c| u64::try_from(c.connect_latency.as_millis()).unwrap_or(u64::MAX)),
                error: snapshot.status.reason().map(str::to_owned),
            }
        })
        .collect()
}

/// One upstream's line of `mcpx tokens`.
#[derive(Debug, Clone, Serialize)]
pub struct UpstreamTokens {
    /// The configured name.
    pub server: String,
    /// Tools shown.
    pub tools: usize,
    /// Its `tools/list` result as served (compact JSON), in o200k tokens: what a client
    /// connected to it directly puts in the prompt.
    pub direct: usize,
    /// `inspect(server)` text.
    pub inspect_server: usize,
    /// `inspect(server, tool)` text, summed over its tools.
    pub inspect_tools: usize,
    /// The compact JSON of each tool, summed (what `inspect_tools` compares with).
    pub tools_json: usize,
}

/// What mcpx saves, in o200k tokens.
#[derive(Debug, Clone, Serialize)]
pub struct TokenReport {
    /// Per upstream (those with a catalog).
    pub upstreams: Vec<UpstreamTokens>,
    /// Sum of `direct`.
    pub direct_total: usize,
    /// mcpx's own `tools/list` (`inspect` with its listing, and `exec`), as served.
    pub mcpx_exposure: usize,
    /// `mcpx_exposure` / `direct_total`, in percent.
    pub exposure_percent: f64,
}

/// Measures every upstream with a catalog against what `proxy` exposes.
pub fn tokens(proxy: &Proxy, options: &ProxyOptions) -> TokenReport {
    let registry = proxy.registry();
    let mut upstreams = Vec::new();
    for upstream in registry.upstreams() {
        let Some(catalog) = upstream.snapshot().catalog else {
            continue;
        };
        let tools: Vec<Value> = catalog
            .tools
            .iter()
            .map(|t| serde_json::to_value(&t.tool).unwrap_or(Value::Null))
            .collect();
        let direct = count_tokens(&json!({ "tools": tools }).to_string());
        let ask = |tool: Option<&str>| {
            let request = InspectRequest {
                server_name: Some(upstream.name().to_owned()),
                tool_name: tool.map(str::to_owned),
                query: None,
            };
            inspect(registry, options, &request).map_or(0, |found| count_tokens(&found.text))
        };
        upstreams.push(UpstreamTokens {
            server: upstream.name().to_owned(),
            tools: tools.len(),
            direct,
            inspect_server: ask(None),
            inspect_tools: catalog.tools.iter().map(|t| ask(Some(t.name()))).sum(),
            tools_json: tools.iter().map(|t| count_tokens(&t.to_string())).sum(),
        });
    }
    let direct_total = upstreams.iter().map(|u| u.direct).sum();
    let mcpx_exposure = exposure(proxy);
    TokenReport {
        upstreams,
        direct_total,
        mcpx_exposure,
        exposure_percent: percent(mcpx_exposure, direct_total),
    }
}

/// mcpx's own `tools/list` result as served (`{"tools":[inspect, exec]}`), in o200k tokens:
/// what the agent's prompt carries for every upstream together.
pub fn exposure(proxy: &Proxy) -> usize {
    count_tokens(&json!({ "tools": proxy.server().tools() }).to_string())
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        #[allow(clippy::cast_precision_loss)]
        let ratio = part as f64 / whole as f64;
        (ratio * 1000.0).round() / 10.0
    }
}
