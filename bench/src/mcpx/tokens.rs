//! What the agent's prompt carries, in o200k tokens: every tool of the upstreams as a direct
//! connection lists them, against mcpx's own two tools; the `inspect` listing at several
//! budgets; and `inspect(server, tool)` against each tool's JSON.
//!
//! The direct side is measured on the wire: a client (mcp-kit) connected to each upstream
//! pages through `tools/list` and keeps the tools as served. The mcpx side is built in
//! process (`Registry`, `Proxy`) over the same upstreams, with default options unless a
//! budget says otherwise.

use std::sync::Arc;

use mcp_kit::{McpRequest, Session, TrustMode, UntrustedStreamableHttpPolicy};
use mcp_server::schema::ListToolsRequest;
use mcp_test_support::repo_root;
use mcpx::inspect::{InspectRequest, inspect};
use mcpx::listing::{Detail, listing};
use mcpx::options::ProxyOptions;
use mcpx::proxy::Proxy;
use mcpx::registry::Registry;
use mcpx::report;
use mcpx::text::count_tokens;
use serde_json::{Value, json};

use super::setup::{self, Upstreams};
use crate::report::median;

/// Pages of `tools/list` followed at most.
const MAX_PAGES: usize = 100;

/// One upstream's tools.
#[derive(Debug, Clone)]
pub struct UpstreamTokens {
    /// The configured name.
    pub server: String,
    /// Tools listed.
    pub tools: usize,
    /// Its `tools/list` result (`{"tools":[…]}`, compact JSON), tokens.
    pub direct: usize,
    /// `inspect(server)` text, tokens.
    pub inspect_server: usize,
}

/// The listing at one budget.
#[derive(Debug, Clone, Copy)]
pub struct BudgetRow {
    /// `listing_budget_tokens`.
    pub budget: usize,
    /// How detailed the listing ended up.
    pub detail: Detail,
    /// The listing (the `inspect` description), tokens.
    pub listing: usize,
    /// mcpx's whole `tools/list` at that budget, tokens.
    pub exposure: usize,
}

/// One tool: its JSON against its `inspect(server, tool)` text.
#[derive(Debug, Clone)]
pub struct ToolTokens {
    /// The server.
    pub server: String,
    /// The tool.
    pub tool: String,
    /// The tool as listed (compact JSON), tokens.
    pub json: usize,
    /// `inspect(server, tool)` text with default options, tokens.
    pub inspect: usize,
}

/// Every token figure of one setup of upstreams.
#[derive(Debug, Clone)]
pub struct Exposure {
    /// What the setup is.
    pub label: String,
    /// Per upstream.
    pub upstreams: Vec<UpstreamTokens>,
    /// Sum of the direct `tools/list` results.
    pub direct: usize,
    /// mcpx's `tools/list` with default options.
    pub mcpx: usize,
    /// The default listing's detail.
    pub detail: Detail,
    /// The default listing's size.
    pub listing: usize,
    /// The listing at each budget asked for.
    pub budgets: Vec<BudgetRow>,
    /// Every tool.
    pub tools: Vec<ToolTokens>,
}

impl Exposure {
    /// Tools over every upstream.
    pub fn tool_count(&self) -> usize {
        self.upstreams.iter().map(|u| u.tools).sum()
    }
}

/// `part / whole` in per cent.
pub fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        f64::NAN
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// `inspect(server, tool)` against the tools' JSON, over all tools of a setup.
#[derive(Debug, Clone)]
pub struct InspectStats {
    /// Tools.
    pub tools: usize,
    /// Sum of the tools' JSON, tokens.
    pub json: usize,
    /// Sum of the `inspect` texts, tokens.
    pub inspect: usize,
    /// Median of the per-tool ratios, per cent.
    pub median_percent: f64,
    /// The tool with the highest ratio, and that ratio in per cent.
    pub worst: (String, f64),
    /// Tools whose `inspect` text is over this many per cent of their JSON...
    pub limit_percent: f64,
    /// ... and how many they are.
    pub over_limit: usize,
}

impl InspectStats {
    /// The figures of `tools` against `limit_percent`.
    pub fn of(tools: &[ToolTokens], limit_percent: f64) -> Self {
        let ratio = |t: &ToolTokens| percent(t.inspect, t.json);
        let ratios: Vec<f64> = tools.iter().map(ratio).collect();
        let worst = tools
            .iter()
            .max_by(|a, b| ratio(a).total_cmp(&ratio(b)))
            .map_or((String::new(), f64::NAN), |t| (t.tool.clone(), ratio(t)));
        Self {
            tools: tools.len(),
            json: tools.iter().map(|t| t.json).sum(),
            inspect: tools.iter().map(|t| t.inspect).sum(),
            median_percent: median(&ratios),
            worst,
            limit_percent,
            over_limit: ratios.iter().filter(|r| **r > limit_percent).count(),
        }
    }
}

/// Measures `upstreams`: the direct listing on the wire, then mcpx in process with default
/// options and at each of `budgets`.
pub async fn measure(
    label: &str,
    upstreams: &Upstreams,
    budgets: &[usize],
) -> Result<Exposure, String> {
    let listed = direct_listing(upstreams).await?;
    let options = ProxyOptions::default();
    let registry = Arc::new(Registry::start(
        setup::config(upstreams),
        repo_root(),
        &options,
        TrustMode::Trusted,
        UntrustedStreamableHttpPolicy::default(),
    ));
    registry.settled().await;
    if let Some(bad) = report::check(&registry)
        .into_iter()
        .find(|line| line.state != "ready")
    {
        return Err(format!(
            "mcpx did not reach the upstream {} ({}): {}",
            bad.server,
            bad.state,
            bad.error.unwrap_or_default()
        ));
    }
    let proxy = Proxy::new(registry.clone(), options.clone());
    let own = report::tokens(&proxy, &options);
    let mut upstream_tokens = Vec::new();
    let mut tools = Vec::new();
    for (server, listed_tools) in &listed {
        let direct = count_tokens(&json!({ "tools": listed_tools }).to_string());
        let cached = own.upstreams.iter().find(|u| &u.server == server);
        // More than 1 % apart: the upstream listed other tools to mcpx than to the client.
        if let Some(cached) = cached.filter(|c| c.direct.abs_diff(direct) * 100 > direct) {
            eprintln!(
                "note: {server}: {direct} tokens on the wire, {} from mcpx's cache (mcpx tokens)",
                cached.direct
            );
        }
        upstream_tokens.push(UpstreamTokens {
            server: server.clone(),
            tools: listed_tools.len(),
            direct,
            inspect_server: cached.map_or(0, |c| c.inspect_server),
        });
        for tool in listed_tools {
            let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
            let request = InspectRequest {
                server_name: Some(server.clone()),
                tool_name: Some(name.to_owned()),
                query: None,
            };
            let text = inspect(&registry, &options, &request)
                .map_err(|e| format!("inspect({server}, {name}): {e}"))?
                .text;
            tools.push(ToolTokens {
                server: server.clone(),
                tool: name.to_owned(),
                json: count_tokens(&tool.to_string()),
                inspect: count_tokens(&text),
            });
        }
    }
    let default = listing(&registry, options.listing_budget_tokens);
    let mut rows = Vec::new();
    for &budget in budgets {
        let at = listing(&registry, budget);
        let options = ProxyOptions {
            listing_budget_tokens: budget,
            ..options.clone()
        };
        rows.push(BudgetRow {
            budget,
            detail: at.detail,
            listing: at.tokens,
            exposure: report::exposure(&Proxy::new(registry.clone(), options)),
        });
    }
    let exposure = Exposure {
        label: label.to_owned(),
        direct: upstream_tokens.iter().map(|u| u.direct).sum(),
        upstreams: upstream_tokens,
        mcpx: report::exposure(&proxy),
        detail: default.detail,
        listing: default.tokens,
        budgets: rows,
        tools,
    };
    registry.shutdown().await;
    Ok(exposure)
}

/// Every upstream's tools as a direct client gets them.
async fn direct_listing(upstreams: &Upstreams) -> Result<Vec<(String, Vec<Value>)>, String> {
    let client = setup::client(upstreams);
    let mut listed = Vec::new();
    for (name, _) in upstreams {
        let session = setup::session(&client, name).await?;
        let tools = list_tools(&session)
            .await
            .map_err(|e| format!("tools/list of {name}: {e}"))?;
        listed.push((name.clone(), tools));
    }
    Ok(listed)
}

/// Every page of `tools/list`, the tools as served.
async fn list_tools(session: &Session) -> Result<Vec<Value>, String> {
    let mut tools = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let params = cursor.as_ref().map(|c| json!({ "cursor": c }));
        let mut page = session
            .request(ListToolsRequest::METHOD, params)
            .await
            .map_err(|e| e.to_string())?;
        match page.get_mut("tools").map(Value::take) {
            Some(Value::Array(list)) => tools.extend(list),
            _ => return Err(format!("a page without a tools array: {page}")),
        }
        cursor = page
            .get("nextCursor")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if cursor.is_none() {
            return Ok(tools);
        }
    }
    Err(format!("more than {MAX_PAGES} pages"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inspect_stats_of_known_tools() {
        let tool = |name: &str, json, inspect| ToolTokens {
            server: "s".into(),
            tool: name.into(),
            json,
            inspect,
        };
        let tools = [tool("a", 100, 40), tool("b", 100, 60), tool("c", 200, 50)];
        let s = InspectStats::of(&tools, 50.0);
        assert_eq!((s.tools, s.json, s.inspect, s.over_limit), (3, 400, 150, 1));
        assert_eq!(s.median_percent, 40.0);
        assert_eq!(s.worst, ("b".to_owned(), 60.0));
        assert_eq!(percent(150, 400), 37.5);
    }
}
