//! What each command does.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use mcp_kit::arguments::{json_object, typed_pairs};
use mcp_kit::terminal::{Table, sanitize, write_stdout};
use mcp_kit::{ServerRequestOutcome, UntrustedStreamableHttpPolicy};
use mcp_server::BoxFuture;
use mcpx::config::{ProxyConfig, load};
use mcpx::exec::{Downstream, ExecError, exec, find_upstream, for_agent};
use mcpx::inspect::{InspectRequest, inspect};
use mcpx::proxy::Proxy;
use mcpx::registry::Registry;
use mcpx::report;
use serde_json::{Value, json};

use crate::args::{Cli, Command};

/// Exit code of `check` when an upstream is not ready, and of `exec` when the tool failed.
const NOT_OK: u8 = 1;

pub(crate) async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let cwd = std::env::current_dir().context("cannot determine the current directory")?;
    let config = load(cli.config.clone(), &cwd, cli.trust, std::env::vars()).await?;
    let ProxyConfig {
        servers,
        options,
        trust,
    } = config;
    let policy = UntrustedStreamableHttpPolicy {
        require_https: !cli.allow_http,
        allow_localhost: cli.allow_localhost || cli.allow_private_ip,
        allow_private_ips: cli.allow_private_ip,
        ..UntrustedStreamableHttpPolicy::default()
    };
    let registry = Arc::new(Registry::start(servers, cwd, &options, trust, policy));
    registry.settled().await;
    let proxy = Proxy::new(registry.clone(), options.clone());
    let json_out = cli.json || !std::io::stdout().is_terminal();
    let code = match cli.command {
        None => {
            serve(&proxy, cli.http.as_deref()).await?;
            ExitCode::SUCCESS
        }
        Some(Command::Check) => {
            let lines = report::check(&registry);
            let ok = lines.iter().all(|l| l.state == "ready");
            if json_out {
                print(&serde_json::to_string_pretty(&lines)?)?;
            } else {
                let mut table = Table::new([
                    "SERVER", "STATE", "ERA", "PROTOCOL", "TOOLS", "LATENCY", "ERROR",
                ]);
                for l in &lines {
                    table.row([
                        l.server.clone(),
                        l.state.to_owned(),
                        l.era.unwrap_or_default().to_owned(),
                        l.protocol_version.clone().unwrap_or_default(),
                        l.tools.map(|t| t.to_string()).unwrap_or_default(),
                        l.latency_ms
                            .map(|ms| format!("{ms} ms"))
                            .unwrap_or_default(),
                        l.error.clone().unwrap_or_default(),
                    ]);
                }
                print(&table.render())?;
            }
            if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(NOT_OK)
            }
        }
        Some(Command::Tokens) => {
            let tokens = report::tokens(&proxy, &options);
            if json_out {
                print(&serde_json::to_string_pretty(&tokens)?)?;
            } else {
                let mut table = Table::new([
                    "SERVER",
                    "TOOLS",
                    "DIRECT",
                    "INSPECT(SERVER)",
                    "INSPECT(TOOL) ALL",
                    "TOOLS JSON",
                ]);
                for u in &tokens.upstreams {
                    table.row([
                        u.server.clone(),
                        u.tools.to_string(),
                        u.direct.to_string(),
                        u.inspect_server.to_string(),
                        u.inspect_tools.to_string(),
                        u.tools_json.to_string(),
                    ]);
                }
                print(&table.render())?;
                print(&format!(
                    "direct tools/list: {} tokens; mcpx tools/list: {} tokens ({}%)",
                    tokens.direct_total, tokens.mcpx_exposure, tokens.exposure_percent
                ))?;
            }
            ExitCode::SUCCESS
        }
        Some(Command::Inspect {
            server,
            tool,
            query,
            raw,
        }) => {
            let request = InspectRequest {
                server_name: server,
                tool_name: tool,
                query,
            };
            match inspect(&registry, &options, &request) {
                Ok(found) if raw || cli.json => {
                    print(&serde_json::to_string_pretty(&found.structured)?)?
                }
                Ok(found) => print(&sanitize(&found.text))?,
                Err(e) => anyhow::bail!(e),
            }
            ExitCode::SUCCESS
        }
        Some(Command::Exec {
            server,
            tool,
            pairs,
            arguments_json,
        }) => {
            let mut arguments = match &arguments_json {
                Some(text) => json_object(text, "--arguments-json").map_err(anyhow::Error::msg)?,
                None => serde_json::Map::new(),
            };
            if !pairs.is_empty() {
                let schema = find_upstream(&registry, &server)?
                    .snapshot()
                    .catalog
                    .and_then(|c| c.tool(&tool).map(|t| t.input_schema()))
                    .unwrap_or_else(|| json!({}));
                arguments.extend(typed_pairs(&pairs, &schema, &tool).map_err(anyhow::Error::msg)?);
            }
            match exec(&registry, &server, &tool, Some(arguments), &Terminal).await {
                Ok(result) => {
                    let failed = result.is_error();
                    let result = for_agent(result);
                    if json_out {
                        print(&serde_json::to_string_pretty(&result)?)?;
                    } else {
                        for block in &result.content {
                            match block {
                                mcp_schema::ContentBlock::Text(t) => print(&sanitize(&t.text))?,
                                other => print(&sanitize(&serde_json::to_string(other)?))?,
                            }
                        }
                    }
                    if failed {
                        ExitCode::from(NOT_OK)
                    } else {
                        ExitCode::SUCCESS
                    }
                }
                Err(ExecError::Upstream(error)) => {
                    anyhow::bail!(
                        "server `{server}` returned error {}: {}",
                        error.code,
                        error.message
                    )
                }
                Err(e) => anyhow::bail!(e),
            }
        }
    };
    registry.shutdown().await;
    Ok(code)
}

async fn serve(proxy: &Proxy, http: Option<&str>) -> anyhow::Result<()> {
    let server = proxy.server();
    match http {
        None => server.serve_stdio().await.context("serving stdio")?,
        Some(addr) => {
            server
                .shutdown_on_signals()
                .context("installing signal handlers")?;
            let http = server
                .bind_http(addr, mcp_server::HttpOptions::default())
                .await
                .with_context(|| format!("cannot listen on {addr}"))?;
            eprintln!("mcpx listening on {}", http.url());
            http.wait().await.context("serving HTTP")?;
        }
    }
    Ok(())
}

fn print(text: &str) -> anyhow::Result<()> {
    Ok(write_stdout(text)?)
}

/// `mcpx exec` on a terminal: progress on stderr; no client to ask for input.
struct Terminal;

impl Downstream for Terminal {
    fn wants_progress(&self) -> bool {
        true
    }

    fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> BoxFuture<()> {
        let total = total.map(|t| format!("/{t}")).unwrap_or_default();
        eprintln!(
            "progress {progress}{total} {}",
            sanitize(&message.unwrap_or_default())
        );
        Box::pin(async {})
    }

    fn ask(
        &self,
        method: String,
        _params: Option<Value>,
    ) -> BoxFuture<Result<ServerRequestOutcome, mcp_server::Error>> {
        Box::pin(async move {
            Ok(ServerRequestOutcome::Error {
                code: mcp_jsonrpc::error_codes::METHOD_NOT_FOUND,
                message: format!("mcpx exec on the command line cannot answer {method}"),
                data: None,
            })
        })
    }

    fn cancelled(&self) -> BoxFuture<()> {
        Box::pin(std::future::pending())
    }
}
