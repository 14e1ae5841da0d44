//! `mcp-sandbox`: the sandbox MCP server over streamable HTTP (default) or stdio.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use mcp_sandbox::config::FIELDS;
use mcp_sandbox::{SandboxConfig, SandboxServer, check_exposure};
use mcp_server::ServerConfig;

/// The port of seed 004's server.
const DEFAULT_PORT: u16 = 8775;

#[derive(Debug, Parser)]
#[command(
    name = "mcp-sandbox",
    version,
    about = "An MCP server that runs Python, Node.js and shell commands in isolated, persistent, \
             resource-limited sessions (bubblewrap namespaces, cgroups, seccomp).",
    long_about = None,
    after_help = after_help()
)]
struct Args {
    /// Speak MCP on standard input and output instead of serving HTTP.
    #[arg(long)]
    stdio: bool,

    /// A TOML file: the `[sandbox]` table and the server's sections (`[server]`, `[http]`,
    /// `[auth]`, …). The environment overrides it.
    #[arg(long, value_name = "FILE", env = "MCP_CONFIG")]
    config: Option<PathBuf>,

    /// Check that sandboxes can start on this host (bubblewrap, interpreters, cgroups), print
    /// how they are isolated, and exit.
    #[arg(long)]
    check: bool,
}

fn after_help() -> String {
    let mut text = String::from(
        "Serves http://127.0.0.1:8775/mcp unless MCP_SERVER_HOST / MCP_SERVER_PORT say otherwise; \
         a non-loopback address needs authentication (MCP_AUTH_TOKENS or MCP_OAUTH_*). \
         MCP_ENABLE_CORS=true adds CORS headers. SIGINT/SIGTERM: running calls may finish \
         (server.shutdown_grace), then every sandbox is stopped.\n\nSandbox settings \
         (environment variable, [sandbox] key: meaning and default):\n",
    );
    for field in FIELDS {
        text.push_str(&format!("  {}, {}: {}\n", field.var, field.key, field.help));
    }
    text
}

fn configs(args: &Args) -> Result<(SandboxConfig, ServerConfig), String> {
    let mut server = ServerConfig::default();
    server.port = DEFAULT_PORT;
    let mut sandbox = SandboxConfig::default();
    if let Some(path) = &args.config {
        let (file_server, sections) = server
            .with_file(path, &["sandbox"])
            .map_err(|e| e.to_string())?;
        server = file_server;
        if let Some(table) = sections.get("sandbox") {
            let table = table
                .as_table()
                .ok_or_else(|| format!("{}: sandbox: expected a table", path.display()))?;
            sandbox = sandbox
                .with_table(table, Some(path))
                .map_err(|e| e.to_string())?;
        }
    }
    let server = server.with_env().map_err(|e| e.to_string())?;
    let sandbox = sandbox.with_env().map_err(|e| e.to_string())?;
    Ok((sandbox, server))
}

async fn run(args: Args) -> Result<(), String> {
    let (sandbox_config, server_config) = configs(&args)?;
    if !args.stdio && !args.check {
        check_exposure(&server_config).map_err(|e| e.to_string())?;
    }
    let sandbox = SandboxServer::start(sandbox_config, &server_config)
        .await
        .map_err(|e| e.to_string())?;
    if args.check {
        let backend = sandbox.sessions().backend();
        let isolation = backend.isolation();
        println!("backend: {}", isolation.backend);
        println!("limits: {}", isolation.limits);
        let templates: Vec<&str> = backend.templates().iter().map(|t| t.name()).collect();
        println!("templates: {}", templates.join(", "));
        for line in &isolation.details {
            println!("{line}");
        }
        sandbox.shutdown().await;
        return Ok(());
    }
    let server = sandbox.server().clone();
    server.shutdown_on_signals().map_err(|e| e.to_string())?;
    let served = if args.stdio {
        server.serve_stdio().await
    } else {
        server.serve_config(&server_config).await
    };
    sandbox.shutdown().await;
    served.map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    let args = Args::parse();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("mcp-sandbox: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcp-sandbox: {e}");
            ExitCode::FAILURE
        }
    }
}
