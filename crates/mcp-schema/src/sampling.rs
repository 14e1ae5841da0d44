//! Sampling: `sampling/createMessage` (a server asks the client's LLM for a completion),
//! including tool use (2025-11-25+). Deprecated in 2026-07-28, where the request travels inside
//! an [`InputRequiredResult`](crate::InputRequiredResult) instead of as a server request.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use crate::common::{JsonObject, ResultType, Role, str_member};
use crate::content::{AudioContent, ContentBlock, ImageContent, TextContent};
use crate::macros::{extensible, has_meta, string_enum, value_union_serde};
use crate::meta::Meta;
use crate::tags::{ToolResultTag, ToolUseTag};
use crate::tasks::TaskMetadata;
use crate::tools::Tool;

/// A hint for model selection (`ModelHint`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelHint {
    /// A (sub)string of a model name (`"sonnet"`, `"claude-3-5-sonnet"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ModelHint {
    /// A hint naming a model.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: Some(name.into()),
            extra: Map::new(),
        }
    }
}

/// The server's model preferences, all advisory (`ModelPreferences`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelPreferences {
    /// Hints, evaluated in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<ModelHint>>,
    /// How much cost matters, 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_priority: Option<Number>,
    /// How much speed matters, 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_priority: Option<Number>,
    /// How much intelligence matters, 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intelligence_priority: Option<Number>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

string_enum! {
    /// Which servers' context to include (`CreateMessageRequestParams.includeContext`).
    pub enum IncludeContext {
        /// `"none"` (the default).
        None = "none",
        /// `"thisServer"` (deprecated since 2025-11-25).
        ThisServer = "thisServer",
        /// `"allServers"` (deprecated since 2025-11-25).
        AllServers = "allServers",
    }
}

string_enum! {
    /// How the model may use tools (`ToolChoice.mode`, 2025-11-25+).
    pub enum ToolChoiceMode {
        /// `"auto"`: the model decides (the default).
        Auto = "auto",
        /// `"required"`: the model must use a tool.
        Required = "required",
        /// `"none"`: the model must not use tools.
        None = "none",
    }
}

/// Tool selection for sampling (`ToolChoice`, 2025-11-25+).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolChoice {
    /// The mode (absent means auto).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ToolChoiceMode>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

string_enum! {
    /// Why sampling stopped (`CreateMessageResult.stopReason`; an open set of strings).
    pub enum StopReason {
        /// `"endTurn"`: natural end of the turn.
        EndTurn = "endTurn",
        /// `"stopSequence"`: a stop sequence was met.
        StopSequence = "stopSequence",
        /// `"maxTokens"`: the token limit was reached.
        MaxTokens = "maxTokens",
        /// `"toolUse"`: the model wants to use tools (2025-11-25+).
        ToolUse = "toolUse",
    }
}

/// The assistant asks to call a tool (`ToolUseContent`, 2025-11-25+).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolUseContent {
    /// `"type": "tool_use"`.
    pub r#type: ToolUseTag,
    /// Identifies this tool use; results refer to it.
    pub id: String,
    /// The tool name.
    pub name: String,
    /// The arguments.
    pub input: Map<String, Value>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The result of a tool use, sent back to the assistant (`ToolResultContent`, 2025-11-25+).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultContent {
    /// `"type": "tool_result"`.
    pub r#type: ToolResultTag,
    /// The id of the [`ToolUseContent`] answered.
    pub tool_use_id: String,
    /// The unstructured result.
    pub content: Vec<ContentBlock>,
    /// The structured result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the tool use failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A content block of a sampling message (`SamplingMessageContentBlock`; text, image and
/// audio before 2025-11-25).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SamplingMessageContentBlock {
    /// `"type": "text"`.
    Text(TextContent),
    /// `"type": "image"`.
    Image(ImageContent),
    /// `"type": "audio"` (2025-03-26+).
    Audio(AudioContent),
    /// `"type": "tool_use"` (2025-11-25+).
    ToolUse(ToolUseContent),
    /// `"type": "tool_result"` (2025-11-25+).
    ToolResult(ToolResultContent),
    /// A block with a `type` this crate does not know, kept verbatim.
    Unknown(Value),
}

value_union_serde!(
    SamplingMessageContentBlock,
    |v| match str_member(&v, "type") {
        Some("text") => serde_json::from_value(v).map(SamplingMessageContentBlock::Text),
        Some("image") => serde_json::from_value(v).map(SamplingMessageContentBlock::Image),
        Some("audio") => serde_json::from_value(v).map(SamplingMessageContentBlock::Audio),
        Some("tool_use") => serde_json::from_value(v).map(SamplingMessageContentBlock::ToolUse),
        Some("tool_result") =>
            serde_json::from_value(v).map(SamplingMessageContentBlock::ToolResult),
        _ => Ok(SamplingMessageContentBlock::Unknown(v)),
    }
);

impl SamplingMessageContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        SamplingMessageContentBlock::Text(TextContent::new(text))
    }
}

/// The content of a sampling message: one block, or (2025-11-25+) an array of blocks.
// One block is the common case; boxing it would cost every message an allocation to save
// stack space in a type that lives inside a heap-allocated request anyway.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SamplingContent {
    /// A single block.
    Single(SamplingMessageContentBlock),
    /// Several blocks (2025-11-25+).
    Multiple(Vec<SamplingMessageContentBlock>),
}

value_union_serde!(SamplingContent, |v| if v.is_array() {
    serde_json::from_value(v).map(SamplingContent::Multiple)
} else {
    serde_json::from_value(v).map(SamplingContent::Single)
});

impl SamplingContent {
    /// The blocks, whether one or several.
    pub fn blocks(&self) -> &[SamplingMessageContentBlock] {
        match self {
            SamplingContent::Single(b) => std::slice::from_ref(b),
            SamplingContent::Multiple(v) => v,
        }
    }
}

impl From<SamplingMessageContentBlock> for SamplingContent {
    fn from(b: SamplingMessageContentBlock) -> Self {
        SamplingContent::Single(b)
    }
}

/// A message to or from an LLM (`SamplingMessage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Who speaks.
    pub role: Role,
    /// The content.
    pub content: SamplingContent,
    /// `_meta` (2025-11-25+).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl SamplingMessage {
    /// A text message.
    pub fn text(role: Role, text: impl Into<String>) -> Self {
        Self {
            role,
            content: SamplingMessageContentBlock::text(text).into(),
            meta: None,
            extra: Map::new(),
        }
    }
}

/// Params of `sampling/createMessage` (`CreateMessageRequestParams`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageRequestParams {
    /// The conversation.
    pub messages: Vec<SamplingMessage>,
    /// Model preferences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// A system prompt the client may modify or omit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Context to include.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<IncludeContext>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<Number>,
    /// The maximum number of tokens to sample.
    pub max_tokens: u64,
    /// Stop sequences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider-specific metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    /// Tools the model may use (2025-11-25+; needs the client's `sampling.tools` capability).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// How the model may use tools (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// Run as a task (2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// `_meta` (not defined for 2026-07-28 input requests; kept if present).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl CreateMessageRequestParams {
    /// Params with the required members.
    pub fn new(messages: Vec<SamplingMessage>, max_tokens: u64) -> Self {
        Self {
            messages,
            model_preferences: None,
            system_prompt: None,
            include_context: None,
            temperature: None,
            max_tokens,
            stop_sequences: None,
            metadata: None,
            tools: None,
            tool_choice: None,
            task: None,
            meta: None,
            extra: Map::new(),
        }
    }
}

/// The client's answer to `sampling/createMessage` (`CreateMessageResult`: a
/// [`SamplingMessage`] plus the model and stop reason).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageResult {
    /// Who speaks (normally the assistant).
    pub role: Role,
    /// The sampled content.
    pub content: SamplingContent,
    /// The model that generated it.
    pub model: String,
    /// Why sampling stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<StopReason>,
    /// `resultType` (not defined for client results; kept if present).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl CreateMessageResult {
    /// An assistant text answer from `model`.
    pub fn text(model: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: SamplingMessageContentBlock::text(text).into(),
            model: model.into(),
            stop_reason: None,
            result_type: None,
            meta: None,
            extra: Map::new(),
        }
    }
}

has_meta!(
    ToolUseContent,
    ToolResultContent,
    SamplingMessage,
    CreateMessageRequestParams,
    CreateMessageResult,
);
extensible!(
    ModelHint,
    ModelPreferences,
    ToolChoice,
    ToolUseContent,
    ToolResultContent,
    SamplingMessage,
    CreateMessageRequestParams,
    CreateMessageResult,
);
crate::macros::result_fields!(CreateMessageResult);
