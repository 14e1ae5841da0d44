//! Tools: `tools/list` and `tools/call`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::common::{CacheScope, Icons, ResultType};
use crate::content::ContentBlock;
use crate::input_required::InputResponses;
use crate::macros::{extensible, has_meta, string_enum};
use crate::meta::Meta;
use crate::pagination::Cursor;
use crate::structured::StructuredContent;
use crate::tags::ObjectTag;
use crate::tasks::TaskMetadata;

/// A tool the client can call (`Tool`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// Programmatic name.
    pub name: String,
    /// Display name (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments (always `"type": "object"` at the root).
    pub input_schema: ToolInputSchema,
    /// JSON Schema of `structuredContent` (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<ToolOutputSchema>,
    /// Behaviour hints (2025-03-26+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Task support (2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<ToolExecution>,
    /// Icons (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Icons>,
    /// `_meta` (2025-06-18+).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Tool {
    /// A tool with a name and an input schema.
    pub fn new(name: impl Into<String>, input_schema: ToolInputSchema) -> Self {
        Self {
            name: name.into(),
            input_schema,
            ..Self::default()
        }
    }
}

/// `Tool.inputSchema`: a JSON Schema whose root is `"type": "object"`.
///
/// Before 2026-07-28 the schema lists `properties` and `required` only; 2026-07-28 allows any
/// JSON Schema 2020-12 keyword alongside `type` (kept in `extra`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolInputSchema {
    /// The dialect (`$schema`, 2025-11-25+; 2020-12 when absent).
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// `"type": "object"`.
    pub r#type: ObjectTag,
    /// Property schemas.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub properties: Option<Map<String, Value>>,
    /// Required property names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<Vec<String>>,
    /// Other JSON Schema keywords.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ToolInputSchema {
    /// An object schema with these property schemas and required names.
    pub fn object(properties: Map<String, Value>, required: Vec<String>) -> Self {
        Self {
            properties: Some(properties),
            required: (!required.is_empty()).then_some(required),
            ..Self::default()
        }
    }
}

/// `Tool.outputSchema`: the JSON Schema of a tool's structured output.
///
/// 2025-06-18 and 2025-11-25 require `"type": "object"`; 2026-07-28 allows any JSON Schema.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolOutputSchema {
    /// The dialect (`$schema`, 2025-11-25+).
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// The schema `type` (a string or an array of strings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r#type: Option<Value>,
    /// Property schemas.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub properties: Option<Map<String, Value>>,
    /// Required property names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<Vec<String>>,
    /// Other JSON Schema keywords.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ToolOutputSchema {
    /// An object schema with these property schemas and required names (valid in every
    /// version that has output schemas).
    pub fn object(properties: Map<String, Value>, required: Vec<String>) -> Self {
        Self {
            r#type: Some(Value::String("object".to_owned())),
            properties: Some(properties),
            required: (!required.is_empty()).then_some(required),
            ..Self::default()
        }
    }
}

/// Hints describing a tool (`ToolAnnotations`, 2025-03-26+). Untrusted unless the server is.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// A human-readable title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not modify its environment (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Repeated calls with the same arguments have no further effect (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool interacts with an open world of external entities (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

string_enum! {
    /// Whether a tool may run as a task (`ToolExecution.taskSupport`, 2025-11-25).
    pub enum TaskSupport {
        /// `"forbidden"` (the default).
        Forbidden = "forbidden",
        /// `"optional"`.
        Optional = "optional",
        /// `"required"`.
        Required = "required",
    }
}

/// Execution properties of a tool (`ToolExecution`, 2025-11-25).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolExecution {
    /// Task support (absent means forbidden).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_support: Option<TaskSupport>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The result of `tools/list` (`ListToolsResult`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListToolsResult {
    /// The tools of this page.
    pub tools: Vec<Tool>,
    /// The cursor of the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// Freshness hint in milliseconds (2026-07-28; required there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Cache scope (2026-07-28; required there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// `resultType` (2026-07-28; absent means complete).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Params of `tools/call` (`CallToolRequestParams`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolRequestParams {
    /// The tool name.
    pub name: String,
    /// The arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Map<String, Value>>,
    /// Run as a task (2025-11-25, when the server and tool support it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Answers to a previous `InputRequiredResult` (2026-07-28 retry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// The opaque state of a previous `InputRequiredResult` (2026-07-28 retry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl CallToolRequestParams {
    /// Params calling tool `name` without arguments.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            ..Self::default()
        }
    }

    /// With one more argument.
    pub fn with_argument(mut self, name: impl Into<String>, value: impl Into<Value>) -> Self {
        self.arguments
            .get_or_insert_with(Map::new)
            .insert(name.into(), value.into());
        self
    }

    /// With these arguments.
    pub fn with_arguments(mut self, arguments: Map<String, Value>) -> Self {
        self.arguments = Some(arguments);
        self
    }
}

/// The result of `tools/call` (`CallToolResult`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// The unstructured result.
    pub content: Vec<ContentBlock>,
    /// The structured result (2025-06-18+: an object; 2026-07-28: any JSON value).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<StructuredContent>,
    /// Whether the call ended in an error (absent means false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// `resultType` (2026-07-28; absent means complete).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl CallToolResult {
    /// A successful result with this content.
    pub fn new(content: Vec<ContentBlock>) -> Self {
        Self {
            content,
            ..Self::default()
        }
    }

    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::new(vec![ContentBlock::text(text)])
    }

    /// A tool error (`isError: true`) with one text block describing it.
    pub fn error(text: impl Into<String>) -> Self {
        Self {
            is_error: Some(true),
            ..Self::text(text)
        }
    }

    /// Whether the call ended in an error.
    pub fn is_error(&self) -> bool {
        self.is_error.unwrap_or(false)
    }

    /// The concatenated text of the text blocks.
    pub fn text_content(&self) -> String {
        self.content
            .iter()
            .filter_map(ContentBlock::as_text)
            .collect::<Vec<_>>()
            .join("\n")
    }
}

has_meta!(Tool, ListToolsResult, CallToolRequestParams, CallToolResult);
extensible!(
    Tool,
    ToolInputSchema,
    ToolOutputSchema,
    ToolAnnotations,
    ToolExecution,
    ListToolsResult,
    CallToolRequestParams,
    CallToolResult,
);
crate::macros::result_fields!(CallToolResult);
crate::macros::cache_hints!(ListToolsResult);
