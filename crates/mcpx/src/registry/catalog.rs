//! What is cached of one upstream: who it is and its tools.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use mcp_schema::Tool;
use mcp_server::CompiledSchema;
use serde_json::Value;

/// Who an upstream server is, from its handshake (`initialize` or `server/discover`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerSummary {
    /// `serverInfo.name`.
    pub name: String,
    /// `serverInfo.version`.
    pub version: String,
    /// `serverInfo.title`, if given.
    pub title: Option<String>,
    /// The server's `instructions`, if given.
    pub instructions: Option<String>,
    /// The negotiated protocol version.
    pub protocol_version: String,
}

impl ServerSummary {
    /// Reads the summary from a handshake result (either era).
    pub fn from_handshake(result: &Value, protocol_version: &str) -> Self {
        let info = result.get("serverInfo");
        let text = |v: Option<&Value>, key: &str| {
            v.and_then(|v| v.get(key))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        Self {
            name: text(info, "name").unwrap_or_default(),
            version: text(info, "version").unwrap_or_default(),
            title: text(info, "title"),
            instructions: text(Some(result), "instructions").filter(|s| !s.trim().is_empty()),
            protocol_version: protocol_version.to_owned(),
        }
    }
}

/// One cached tool, with its argument validator compiled on first use.
#[derive(Debug)]
pub struct CachedTool {
    /// The tool as the upstream listed it, untouched.
    pub tool: Tool,
    validator: OnceLock<Result<CompiledSchema, String>>,
}

impl CachedTool {
    /// Caches `tool`.
    pub fn new(tool: Tool) -> Self {
        Self {
            tool,
            validator: OnceLock::new(),
        }
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.tool.name
    }

    /// The first line of the tool's description (empty when it has none).
    pub fn summary(&self) -> &str {
        self.tool
            .description
            .as_deref()
            .and_then(|d| d.lines().map(str::trim).find(|l| !l.is_empty()))
            .unwrap_or("")
    }

    /// The `inputSchema` as JSON.
    pub fn input_schema(&self) -> Value {
        serde_json::to_value(&self.tool.input_schema).unwrap_or(Value::Null)
    }

    /// Checks `arguments` against the `inputSchema`: `Err` lists every violation with its
    /// JSON path. A schema the validator cannot compile checks nothing (the upstream decides),
    /// which is logged once.
    pub fn check(&self, arguments: &Value) -> Result<(), String> {
        let validator = self.validator.get_or_init(|| {
            CompiledSchema::compile(&self.input_schema()).map_err(|e| {
                tracing::warn!(tool = %self.tool.name, error = %e, "inputSchema does not compile; arguments are not checked");
                e.to_string()
            })
        });
        match validator {
            Ok(schema) => schema.check(arguments),
            Err(_) => Ok(()),
        }
    }
}

/// Everything cached of one upstream while it is (or was last) connected.
#[derive(Debug, Clone)]
pub struct Catalog {
    /// Who the server is.
    pub server: ServerSummary,
    /// Its tools that the filters show, in the order listed.
    pub tools: Arc<Vec<Arc<CachedTool>>>,
    /// The names of the tools the upstream lists that the filters hide.
    pub hidden: Arc<Vec<String>>,
    /// How long connecting and listing took.
    pub connect_latency: Duration,
}

impl Catalog {
    /// The tool `name`, if shown.
    pub fn tool(&self, name: &str) -> Option<&Arc<CachedTool>> {
        self.tools.iter().find(|t| t.name() == name)
    }
}
