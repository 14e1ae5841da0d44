//! The client side: one function per scenario of the suite, each driving an `mcp-kit`
//! [`Session`](mcp_kit::Session) the way an application would.
//!
//! | scenario | what the client does |
//! |---|---|
//! | `initialize`, `tools_call` | handshake, `tools/list`, calls `add_numbers` when offered |
//! | `elicitation-sep1034-client-defaults` | answers `elicitation/create` with the form's defaults |
//! | `sse-retry` | a tool call whose SSE stream the server closes: the transport resumes it |
//! | `request-metadata` | 2026-07-28 per-request `_meta` and version retry, then `tools/list` |
//! | `sep-2322-client-request-state` | multi round-trip tool calls (`InputRequiredResult`) |
//! | `http-standard-headers` | every tool, resource and prompt (`Mcp-Method`, `Mcp-Name`) |
//! | `http-custom-headers`, `http-invalid-tool-headers` | `x-mcp-header` → `Mcp-Param-*` |
//! | `json-schema-ref-no-deref` | lists tools without fetching a network `$ref` |
//! | `json-schema-2020-12-preservation` | echoes a tool's input schema back verbatim |
//! | `auth/*` | authorizes with `mcp-kit`'s OAuth client ([`auth`]), lists tools, calls `test-tool` |
//! | `sep-2640-*` | refused: `mcp-kit` does not implement the skills extension |

use anyhow::{Context, bail};
use serde_json::Value;

mod auth;
mod connect;
mod elicitation;
mod scenarios;

/// Environment variable naming the scenario (set by the suite).
pub const SCENARIO_ENV: &str = "MCP_CONFORMANCE_SCENARIO";
/// Environment variable naming the protocol version the run targets (set by the suite).
pub const PROTOCOL_VERSION_ENV: &str = "MCP_CONFORMANCE_PROTOCOL_VERSION";
/// Environment variable holding scenario data as JSON (set by the suite for some scenarios).
pub const CONTEXT_ENV: &str = "MCP_CONFORMANCE_CONTEXT";

/// What to run: from the command line and the environment the suite sets.
#[derive(Debug, Clone)]
pub struct Invocation {
    /// The scenario's name.
    pub scenario: String,
    /// The MCP endpoint of the scenario's server.
    pub url: String,
    /// The protocol version the run targets (`None`: negotiate automatically).
    pub protocol_version: Option<String>,
    /// Scenario data (`MCP_CONFORMANCE_CONTEXT`), when the suite gave some.
    pub context: Option<Value>,
}

impl Invocation {
    /// Reads `[--scenario NAME] <url>` (the URL is the last argument, as the suite appends it)
    /// and the suite's environment variables.
    pub fn from_args_and_env(args: impl IntoIterator<Item = String>) -> anyhow::Result<Self> {
        let mut args: Vec<String> = args.into_iter().collect();
        let Some(url) = args.pop() else {
            bail!("the server URL is missing");
        };
        let mut scenario = None;
        let mut rest = args.into_iter();
        while let Some(arg) = rest.next() {
            match arg.as_str() {
                "--scenario" => {
                    scenario = Some(rest.next().context("--scenario needs a value")?);
                }
                other => bail!("unexpected argument `{other}`"),
            }
        }
        let scenario = match scenario {
            Some(scenario) => scenario,
            None => std::env::var(SCENARIO_ENV)
                .with_context(|| format!("no scenario: pass --scenario or set {SCENARIO_ENV}"))?,
        };
        let protocol_version = std::env::var(PROTOCOL_VERSION_ENV)
            .ok()
            .filter(|v| !v.is_empty());
        let context = match std::env::var(CONTEXT_ENV) {
            Ok(raw) if !raw.is_empty() => Some(
                serde_json::from_str(&raw).with_context(|| format!("{CONTEXT_ENV} is not JSON"))?,
            ),
            _ => None,
        };
        Ok(Self {
            scenario,
            url,
            protocol_version,
            context,
        })
    }
}

/// Runs the invocation's scenario to its end.
pub async fn run(invocation: &Invocation) -> anyhow::Result<()> {
    tracing::info!(
        scenario = %invocation.scenario,
        url = %invocation.url,
        protocol_version = invocation.protocol_version.as_deref().unwrap_or("(negotiate)"),
        "starting"
    );
    scenarios::run(invocation).await
}
