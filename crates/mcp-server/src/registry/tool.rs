//! Tools: typed handlers with schemas derived from Rust types, and raw handlers with a JSON schema.

use std::future::Future;
use std::sync::Arc;

use mcp_schema::{
    CallToolResult, ContentBlock, Icon, Meta, StructuredContent, Tool, ToolAnnotations,
    ToolInputSchema, ToolOutputSchema,
};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use mcp_schema::headers::{ParamHeader, param_headers};

use crate::context::RequestContext;
use crate::error::{Error, Result};
use crate::registry::BoxFuture;
use crate::tasks::{TaskOptions, TaskStart, TaskSupport};
use crate::validate::{CompiledSchema, SchemaError};

type ToolFn =
    dyn Fn(Map<String, Value>, RequestContext) -> BoxFuture<Result<CallToolResult>> + Send + Sync;

/// A tool and its handler, ready to register with
/// [`ServerBuilder::tool_def`](crate::ServerBuilder::tool_def) or
/// [`Server::add_tool`](crate::Server::add_tool).
pub struct ToolDef {
    pub(crate) tool: Tool,
    pub(crate) handler: Arc<ToolFn>,
    pub(crate) input: Arc<CompiledSchema>,
    /// The output schema results are checked against: set when it was declared with
    /// [`ToolDef::output_schema`]; `None` when there is none, and when it was derived from the
    /// handler's [`Json<T>`] result type, whose serialization matches it by construction.
    pub(crate) output: Option<Arc<CompiledSchema>>,
    /// Arguments mirrored in `Mcp-Param-*` HTTP headers (2026-07-28 `x-mcp-header`).
    pub(crate) param_headers: Vec<ParamHeader>,
    /// Whether and when a call may become a task (the tasks extension).
    pub(crate) task: TaskOptions,
}

impl std::fmt::Debug for ToolDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolDef").field("tool", &self.tool).finish()
    }
}

/// The arguments of a tool that takes none (`{"type": "object", "properties": {}}`).
#[derive(Debug, Clone, Copy, Default, serde::Deserialize, JsonSchema)]
pub struct NoArguments {}

/// A structured tool result: serialized as `structuredContent` (and, for clients that predate
/// structured output, as a JSON text block); its type's schema becomes the tool's
/// `outputSchema`.
#[derive(Debug, Clone, PartialEq)]
pub struct Json<T>(pub T);

/// What a tool handler may return.
pub trait IntoToolResult: Send + 'static {
    /// The `outputSchema` this kind of result promises, if any.
    fn output_schema() -> Option<Value> {
        None
    }

    /// The result.
    fn into_tool_result(self) -> Result<CallToolResult>;
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> Result<CallToolResult> {
        Ok(self)
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> Result<CallToolResult> {
        Ok(CallToolResult::text(self))
    }
}

impl IntoToolResult for &'static str {
    fn into_tool_result(self) -> Result<CallToolResult> {
        Ok(CallToolResult::text(self))
    }
}

impl IntoToolResult for ContentBlock {
    fn into_tool_result(self) -> Result<CallToolResult> {
        Ok(CallToolResult::new(vec![self]))
    }
}

impl IntoToolResult for Vec<ContentBlock> {
    fn into_tool_result(self) -> Result<CallToolResult> {
        Ok(CallToolResult::new(self))
    }
}

impl IntoToolResult for () {
    fn into_tool_result(self) -> Result<CallToolResult> {
        Ok(CallToolResult::new(Vec::new()))
    }
}

impl<T: Serialize + JsonSchema + Send + 'static> IntoToolResult for Json<T> {
    fn output_schema() -> Option<Value> {
        Some(schema_of::<T>())
    }

    /// Serialized once: the JSON text is both the text block and the `structuredContent`,
    /// written into the response as it is.
    fn into_tool_result(self) -> Result<CallToolResult> {
        let structured = StructuredContent::serialize(&self.0)
            .map_err(|e| Error::msg(format!("the tool's result does not serialize: {e}")))?;
        let mut result = CallToolResult::text(structured.json().into_owned());
        result.structured_content = Some(structured);
        Ok(result)
    }
}

/// The JSON Schema (2020-12) of `T`, without the `$schema` member (2020-12 is MCP's default
/// dialect, and some clients' validators do not know the 2020-12 meta-schema URL).
pub fn schema_of<T: JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let mut value = generator.into_root_schema_for::<T>().to_value();
    if let Some(obj) = value.as_object_mut() {
        obj.remove("$schema");
    }
    value
}

fn input_schema(value: &Value) -> std::result::Result<ToolInputSchema, SchemaError> {
    serde_json::from_value(value.clone()).map_err(|e| {
        SchemaError::new(format!(
            "a tool's inputSchema must be an object schema (\"type\": \"object\"): {e}"
        ))
    })
}

fn output_schema(value: &Value) -> std::result::Result<ToolOutputSchema, SchemaError> {
    if value.get("type").and_then(Value::as_str) != Some("object") {
        return Err(SchemaError::new(
            "a tool's outputSchema must be an object schema (\"type\": \"object\")",
        ));
    }
    serde_json::from_value(value.clone()).map_err(|e| SchemaError::new(e.to_string()))
}

impl ToolDef {
    /// A tool with a typed handler. The input schema is derived from `A` (a struct deriving
    /// `Deserialize` and `JsonSchema`), the output schema from `R` when it is a [`Json`].
    ///
    /// # Panics
    /// When the schema derived from `A` or `R` is not an object schema: a programming error
    /// caught the first time the server is built.
    pub fn new<A, R, F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        handler: F,
    ) -> Self
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        R: IntoToolResult,
        F: Fn(A, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R>> + Send + 'static,
    {
        let name = name.into();
        let input = schema_of::<A>();
        let handler = Arc::new(handler);
        let erased: Arc<ToolFn> = Arc::new(move |args, cx| {
            let handler = handler.clone();
            Box::pin(async move {
                let args: A = serde_json::from_value(Value::Object(args))
                    .map_err(|e| Error::invalid_params(format!("invalid arguments: {e}")))?;
                handler(args, cx).await?.into_tool_result()
            })
        });
        let mut def = Self::from_parts(name.clone(), description.into(), &input, erased)
            .unwrap_or_else(|e| panic!("tool `{name}`: {e}"));
        if let Some(out) = R::output_schema() {
            def = def
                .output_schema(out)
                .unwrap_or_else(|e| panic!("tool `{name}`: {e}"));
            // Derived from the result type: its values cannot fail it, so calls skip the check.
            def.output = None;
        }
        def
    }

    /// A tool with an untyped handler: it receives the arguments object after it was validated
    /// against `input_schema`.
    pub fn raw<F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
        handler: F,
    ) -> std::result::Result<Self, SchemaError>
    where
        F: Fn(Map<String, Value>, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CallToolResult>> + Send + 'static,
    {
        let erased: Arc<ToolFn> = Arc::new(move |args, cx| Box::pin(handler(args, cx)));
        Self::from_parts(name.into(), description.into(), &input_schema, erased)
    }

    fn from_parts(
        name: String,
        description: String,
        input: &Value,
        handler: Arc<ToolFn>,
    ) -> std::result::Result<Self, SchemaError> {
        let compiled = CompiledSchema::compile(input)?;
        let param_headers =
            param_headers(input).map_err(|e| SchemaError::new(format!("inputSchema: {e}")))?;
        let mut tool = Tool::new(name, input_schema(input)?);
        if !description.is_empty() {
            tool.description = Some(description);
        }
        Ok(Self {
            tool,
            handler,
            input: Arc::new(compiled),
            output: None,
            param_headers,
            task: TaskOptions::default(),
        })
    }

    /// Declares the schema of `structuredContent`; every result is checked against it (a
    /// mismatch is answered `-32603`). Typed tools returning [`Json<T>`] get the schema of `T`
    /// without the per-call check.
    pub fn output_schema(mut self, schema: Value) -> std::result::Result<Self, SchemaError> {
        let compiled = CompiledSchema::compile(&schema)?;
        self.tool.output_schema = Some(output_schema(&schema)?);
        self.output = Some(Arc::new(compiled));
        Ok(self)
    }

    /// A display name.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.tool.title = Some(title.into());
        self
    }

    /// Behaviour hints (read-only, destructive, idempotent, open world).
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.tool.annotations = Some(annotations);
        self
    }

    /// Icons.
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.tool.icons = Some(icons);
        self
    }

    /// `_meta`.
    pub fn meta(mut self, meta: Meta) -> Self {
        self.tool.meta = Some(meta);
        self
    }

    /// Whether a call may run as a task (the tasks extension, 2026-07-28): by default it may
    /// not. A tool whose support is [`TaskSupport::Required`] answers clients that did not
    /// declare the extension `-32021`. The handler does not change: a task is the same call,
    /// answered with a handle the client polls.
    pub fn task_support(mut self, support: TaskSupport) -> Self {
        self.task.support = support;
        self
    }

    /// When a call that may run as a task becomes one ([`TaskStart::Immediate`] by default).
    pub fn task_start(mut self, start: TaskStart) -> Self {
        self.task.start = start;
        self
    }

    /// Whether a call may run as a task.
    pub fn runs_as_task(&self) -> bool {
        self.task.support != TaskSupport::Forbidden
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.tool.name
    }

    /// The tool as clients see it in `tools/list`.
    pub fn tool(&self) -> &Tool {
        &self.tool
    }
}
