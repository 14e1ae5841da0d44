//! `inspect`: tool schemas from the cache, or a search over every cached tool.
//!
//! Each answer has two forms: `structured`, the raw JSON (schemas untouched), for programs;
//! and `text` for the model, whichever of TOON and compact JSON is fewer tokens, with schemas
//! as TypeScript types when compression is on.

use serde_json::{Map, Value, json};

use crate::exec::{ExecError, find_tool, find_upstream, unavailable};
use crate::options::ProxyOptions;
use crate::registry::{CachedTool, Catalog, Registry};
use crate::text::{SearchDoc, SearchIndex, compact_text, cut};
use crate::typescript::{TsOptions, to_typescript};

/// How many matches a query returns.
pub const QUERY_LIMIT: usize = 10;
/// Longest one-line description in a server's tool list or in search matches (characters).
pub const LIST_DESCRIPTION_LEN: usize = 200;

/// What `inspect` was asked.
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct InspectRequest {
    /// The server.
    #[serde(default)]
    pub server_name: Option<String>,
    /// One tool of that server.
    #[serde(default)]
    pub tool_name: Option<String>,
    /// Words to search tool names and descriptions for.
    #[serde(default)]
    pub query: Option<String>,
}

/// An `inspect` answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Inspection {
    /// For the model: TOON or compact JSON, schemas as TypeScript types after it when
    /// compression is on.
    pub text: String,
    /// For programs: the raw JSON.
    pub structured: Value,
}

impl Inspection {
    fn new(text: String, structured: Value) -> Self {
        Self { text, structured }
    }
}

/// Answers `request` from the cache.
///
/// # Errors
/// An unknown server or tool (with the closest names), an upstream that never connected,
/// or a request that names neither a server nor a query.
pub fn inspect(
    registry: &Registry,
    options: &ProxyOptions,
    request: &InspectRequest,
) -> Result<Inspection, ExecError> {
    let query = request
        .query
        .as_deref()
        .map(str::trim)
        .filter(|q| !q.is_empty());
    if let Some(query) = query {
        return Ok(search(registry, request.server_name.as_deref(), query));
    }
    let Some(server) = request.server_name.as_deref() else {
        return Err(ExecError::InvalidRequest(
            "inspect needs server_name (a server's tools), server_name and tool_name (one tool's schema), or query (a search)".to_owned(),
        ));
    };
    let upstream = find_upstream(registry, server)?;
    let snapshot = upstream.snapshot();
    let Some(catalog) = snapshot.catalog else {
        return Err(unavailable(server, &snapshot.status));
    };
    let view = View { options };
    match request.tool_name.as_deref() {
        Some(tool) => {
            let cached = find_tool(server, &catalog, tool)?;
            let raw = serde_json::to_value(&cached.tool).unwrap_or(Value::Null);
            Ok(Inspection::new(view.tool(server, cached), raw))
        }
        None => Ok(Inspection::new(
            view.server(server, &catalog),
            json!({
                "server": server,
                "serverInfo": server_info(&catalog),
                "tools": catalog.tools.iter().map(|t| serde_json::to_value(&t.tool).unwrap_or(Value::Null)).collect::<Vec<_>>(),
            }),
        )),
    }
}

fn server_info(catalog: &Catalog) -> Value {
    let s = &catalog.server;
    let mut info =
        json!({ "name": s.name, "version": s.version, "protocolVersion": s.protocol_version });
    if let Some(title) = &s.title {
        info["title"] = json!(title);
    }
    if let Some(instructions) = &s.instructions {
        info["instructions"] = json!(instructions);
    }
    info
}

/// How tools are shown to the model.
///
/// With compression on, schemas are TypeScript code: the data about a tool (name,
/// description, hints) is TOON or compact JSON, and each type follows it as written
/// (`input: {path: string}`), since a type inside a quoted string costs an escape for every
/// quote and line break. With compression off, the schemas stay JSON inside the data.
struct View<'a> {
    options: &'a ProxyOptions,
}

/// Text for the model: data, then labelled TypeScript types.
#[derive(Default)]
struct Text {
    out: String,
}

impl Text {
    fn data(&mut self, value: &Value) {
        if !self.out.is_empty() {
            self.out.push_str("\n\n");
        }
        self.out.push_str(&compact_text(value).1);
    }

    fn typed(&mut self, label: &str, ts: &str) {
        self.out.push('\n');
        self.out.push_str(label);
        self.out.push_str(": ");
        self.out.push_str(ts);
    }
}

impl View<'_> {
    fn typescript(&self, schema: &Value) -> String {
        let ts = TsOptions {
            max_description_len: self.options.max_description_len,
        };
        to_typescript(schema, &ts)
    }

    /// Puts `schema` under `label`: in the data (`into`) as JSON, or after it as TypeScript
    /// (`types`).
    fn schema(
        &self,
        label: &'static str,
        schema: Value,
        into: &mut Map<String, Value>,
        types: &mut Vec<(&'static str, String)>,
    ) {
        if self.options.schema_compression {
            types.push((label, self.typescript(&schema)));
        } else {
            into.insert(label.into(), schema);
        }
    }

    /// One tool in full.
    fn tool(&self, server: &str, cached: &CachedTool) -> String {
        let tool = &cached.tool;
        let mut data = Map::new();
        let mut types = Vec::new();
        data.insert("server".into(), json!(server));
        data.insert("tool".into(), json!(tool.name));
        if let Some(title) = &tool.title {
            data.insert("title".into(), json!(title));
        }
        if let Some(description) = &tool.description {
            data.insert("description".into(), json!(description.trim()));
        }
        if let Some(hints) = hints(cached) {
            data.insert("hints".into(), json!(hints));
        }
        self.schema("input", cached.input_schema(), &mut data, &mut types);
        if let Some(output) = &tool.output_schema
            && let Ok(output) = serde_json::to_value(output)
        {
            self.schema("output", output, &mut data, &mut types);
        }
        let mut text = Text::default();
        text.data(&Value::Object(data));
        for (label, ts) in types {
            text.typed(label, &ts);
        }
        text.out
    }

    /// Every tool of a server: one line of description and the input type each.
    fn server(&self, server: &str, catalog: &Catalog) -> String {
        let mut head = Map::new();
        head.insert("server".into(), json!(server));
        if let Some(instructions) = &catalog.server.instructions {
            head.insert("instructions".into(), json!(instructions));
        }
        let mut text = Text::default();
        if !self.options.schema_compression {
            let tools: Vec<Value> = catalog
                .tools
                .iter()
                .map(|cached| {
                    json!({
                        "tool": cached.name(),
                        "description": cut(cached.summary(), LIST_DESCRIPTION_LEN),
                        "input": cached.input_schema(),
                    })
                })
                .collect();
            head.insert("tools".into(), Value::Array(tools));
            text.data(&Value::Object(head));
            return text.out;
        }
        text.data(&Value::Object(head));
        for cached in catalog.tools.iter() {
            text.data(&json!({
                "tool": cached.name(),
                "description": cut(cached.summary(), LIST_DESCRIPTION_LEN),
            }));
            text.typed("input", &self.typescript(&cached.input_schema()));
        }
        text.out
    }
}

/// The behaviour hints that matter to a caller, as words (`read-only`, `destructive`, …).
fn hints(cached: &CachedTool) -> Option<String> {
    let annotations = cached.tool.annotations.as_ref()?;
    let value = serde_json::to_value(annotations).ok()?;
    let flag = |key: &str| value.get(key).and_then(Value::as_bool);
    let mut words = Vec::new();
    if flag("readOnlyHint") == Some(true) {
        words.push("read-only");
    }
    if flag("destructiveHint") == Some(true) && flag("readOnlyHint") != Some(true) {
        words.push("destructive");
    }
    if flag("idempotentHint") == Some(true) {
        words.push("idempotent");
    }
    if flag("openWorldHint") == Some(true) {
        words.push("open-world");
    }
    (!words.is_empty()).then(|| words.join(", "))
}

/// A search over every cached tool (of `server` only, when given).
fn search(registry: &Registry, server: Option<&str>, query: &str) -> Inspection {
    let catalogs: Vec<(String, Catalog)> = registry
        .upstreams()
        .filter(|u| server.is_none_or(|s| s == u.name()))
        .filter_map(|u| Some((u.name().to_owned(), u.snapshot().catalog?)))
        .collect();
    let index = SearchIndex::new(catalogs.iter().flat_map(|(name, catalog)| {
        catalog.tools.iter().map(move |t| SearchDoc {
            server: name,
            tool: t.name(),
            description: t.tool.description.as_deref().unwrap_or(""),
        })
    }));
    let hits = index.search(query, QUERY_LIMIT);
    let describe = |server: &str, tool: &str| {
        catalogs
            .iter()
            .find(|(name, _)| name == server)
            .and_then(|(_, c)| c.tool(tool))
            .map(|t| cut(t.summary(), LIST_DESCRIPTION_LEN))
            .unwrap_or_default()
    };
    let matches: Vec<Value> = hits
        .iter()
        .map(|hit| {
            json!({
                "server": hit.server,
                "tool": hit.tool,
                "description": describe(&hit.server, &hit.tool),
            })
        })
        .collect();
    let structured = json!({
        "query": query,
        "matches": hits.iter().zip(&matches).map(|(hit, m)| {
            let mut m = m.clone();
            m["score"] = json!(hit.score);
            m
        }).collect::<Vec<_>>(),
    });
    let text = compact_text(&json!({ "query": query, "matches": matches })).1;
    Inspection::new(text, structured)
}
