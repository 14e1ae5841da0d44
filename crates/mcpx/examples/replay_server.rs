//! A replay server: serves the tools of a catalog file (a real server's `tools/list`, such as
//! `github-mcp-server.tools.json` of `mcp_test_support::catalog_path`) so that mcpx can be tried
//! and tested against a server of realistic size without that server.
//!
//! Each tool is listed as the file has it: name, title, description, inputSchema, outputSchema,
//! annotations, icons and `_meta`. Calling one validates the arguments against its
//! inputSchema, then answers a text result that tells what was called, as compact JSON:
//! `{"tool":"<name>","arguments":{…}}`.
//!
//! ```text
//! replay_server --catalog PATH                             # stdio
//! replay_server --catalog PATH --http 127.0.0.1:PORT       # http://127.0.0.1:PORT/mcp
//! replay_server --catalog PATH --instructions TEXT         # the server's instructions
//! cargo run -p mcpx --example replay_server -- --catalog ../shared/catalogs/github-mcp-server.tools.json
//! ```
//!
//! The catalog is a JSON object with a `tools` array (`{"source": …, "tools": […]}`, or a
//! `tools/list` result), or the array alone. The server does not start (exit status 1) when a
//! tool cannot be served as the file has it (its schema does not compile, or it would be listed
//! differently): each such tool is named on stderr. Over HTTP the server announces
//! `MCP server listening on <url>` on stderr and runs until SIGINT or SIGTERM. Usage errors
//! exit with status 2.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use mcp_server::schema::{CallToolResult, Tool};
use mcp_server::{HttpOptions, Server, ToolDef};
use serde_json::{Map, Value};

const USAGE: &str = "usage: replay_server --catalog PATH [--http ADDR:PORT | --http PORT] \
                     [--instructions TEXT]   (no --http: stdio)";

/// The command line.
#[derive(Debug, Default)]
struct Options {
    /// The catalog file.
    catalog: PathBuf,
    /// Where to serve streamable HTTP (`None`: stdio).
    http: Option<String>,
    /// The server's instructions.
    instructions: Option<String>,
}

/// Reads `--catalog PATH`, `--http ADDR`, `--instructions TEXT` (also as `--flag=value`);
/// `None` for `--help`.
fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Option<Options>, String> {
    let mut options = Options::default();
    let mut catalog = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag.to_owned(), Some(value.into())),
            _ => (arg, None),
        };
        if flag == "--help" || flag == "-h" {
            return Ok(None);
        }
        if !matches!(flag.as_str(), "--catalog" | "--http" | "--instructions") {
            return Err(format!("unknown argument `{flag}`"));
        }
        let value = inline
            .or_else(|| args.next())
            .ok_or_else(|| format!("`{flag}` needs a value"))?;
        let slot = match flag.as_str() {
            "--catalog" => &mut catalog,
            "--http" => &mut options.http,
            _ => &mut options.instructions,
        };
        if slot.replace(value).is_some() {
            return Err(format!("`{flag}` is given twice"));
        }
    }
    options.catalog = catalog.ok_or("`--catalog PATH` is required")?.into();
    Ok(Some(options))
}

/// The tools of the catalog file, as JSON objects.
fn read_catalog(path: &Path) -> Result<Vec<Value>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the catalog {}: {e}", path.display()))?;
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| format!("the catalog {} is not JSON: {e}", path.display()))?;
    match value {
        Value::Array(tools) => Ok(tools),
        Value::Object(mut catalog) => match catalog.remove("tools") {
            Some(Value::Array(tools)) => Ok(tools),
            _ => Err(format!(
                "the catalog {} has no `tools` array",
                path.display()
            )),
        },
        _ => Err(format!(
            "the catalog {} is neither an object with `tools` nor an array",
            path.display()
        )),
    }
}

/// The text a call answers: `{"tool":"<name>","arguments":{…}}` (in that order).
fn call_text(name: &str, arguments: &Map<String, Value>) -> String {
    let name = Value::String(name.to_owned());
    format!(
        r#"{{"tool":{name},"arguments":{}}}"#,
        Value::Object(arguments.clone())
    )
}

/// The definition that serves one entry of the catalog (a tool as `tools/list` lists it).
fn tool_def(entry: &Value) -> Result<ToolDef, String> {
    let tool: Tool = serde_json::from_value(entry.clone()).map_err(|e| e.to_string())?;
    let name = tool.name.clone();
    let input = entry.get("inputSchema").cloned().unwrap_or(Value::Null);
    let answer = name.clone();
    let mut def = ToolDef::raw(
        name,
        tool.description.unwrap_or_default(),
        input,
        move |arguments, _cx| {
            let text = call_text(&answer, &arguments);
            async move { Ok(CallToolResult::text(text)) }
        },
    )
    .map_err(|e| format!("inputSchema: {e}"))?;
    if let Some(output) = entry.get("outputSchema") {
        def = def
            .output_schema(output.clone())
            .map_err(|e| format!("outputSchema: {e}"))?;
    }
    if let Some(title) = tool.title {
        def = def.title(title);
    }
    if let Some(annotations) = tool.annotations {
        def = def.annotations(annotations);
    }
    if let Some(icons) = tool.icons {
        def = def.icons(icons);
    }
    if let Some(meta) = tool.meta {
        def = def.meta(meta);
    }
    Ok(def)
}

/// The server: every tool of the catalog; a tool that cannot be served, or would be listed
/// other than the file has it, is an error naming the tool.
fn server(entries: &[Value], instructions: Option<String>) -> Result<Server, String> {
    let mut builder = Server::builder("replay-server", env!("CARGO_PKG_VERSION"));
    if let Some(instructions) = instructions {
        builder = builder.instructions(instructions);
    }
    let mut problems = Vec::new();
    for (index, entry) in entries.iter().enumerate() {
        let name = entry.get("name").and_then(Value::as_str).unwrap_or("?");
        match tool_def(entry) {
            Ok(def) => {
                let listed = serde_json::to_value(def.tool()).map_err(|e| e.to_string())?;
                if &listed != entry {
                    problems.push(format!(
                        "tool #{index} `{name}` would be listed differently: {listed}"
                    ));
                }
                builder = builder.tool_def(def);
            }
            Err(e) => problems.push(format!("tool #{index} `{name}`: {e}")),
        }
    }
    if problems.is_empty() {
        Ok(builder.build())
    } else {
        Err(problems.join("\n"))
    }
}

/// Serves streamable HTTP at `addr` (`ADDR:PORT`, or a port on 127.0.0.1) until SIGINT or
/// SIGTERM.
async fn serve_http(server: &Server, addr: &str) -> std::io::Result<()> {
    let addr = match addr.parse::<u16>() {
        Ok(port) => format!("127.0.0.1:{port}"),
        Err(_) => addr.to_owned(),
    };
    server.shutdown_on_signals()?;
    let http = server.bind_http(addr, HttpOptions::default()).await?;
    eprintln!("MCP server listening on {}", http.url());
    http.wait().await
}

#[tokio::main]
async fn main() -> ExitCode {
    let options = match parse_args(std::env::args().skip(1)) {
        Ok(Some(options)) => options,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("replay_server: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let server = match read_catalog(&options.catalog)
        .and_then(|entries| server(&entries, options.instructions))
    {
        Ok(server) => server,
        Err(message) => {
            eprintln!("replay_server: {message}");
            return ExitCode::FAILURE;
        }
    };
    let served = match &options.http {
        Some(addr) => serve_http(&server, addr).await,
        None => server.serve_stdio().await,
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("replay_server: {e}");
            ExitCode::FAILURE
        }
    }
}
