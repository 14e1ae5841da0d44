//! Constant discriminator values (`"type": "text"`, `"jsonrpc": "2.0"`, …) as zero-sized types.
//!
//! A struct such as [`TextContent`](crate::TextContent) carries its `type` as a field of one of
//! these types: it always serializes the right string, refuses any other string when parsing,
//! and costs nothing. Fill it with `Default::default()` (or use the struct's constructor).

use crate::macros::tag;

tag!(
    /// `"type": "text"` ([`TextContent`](crate::TextContent)).
    TextTag = "text"
);
tag!(
    /// `"type": "image"` ([`ImageContent`](crate::ImageContent)).
    ImageTag = "image"
);
tag!(
    /// `"type": "audio"` ([`AudioContent`](crate::AudioContent)).
    AudioTag = "audio"
);
tag!(
    /// `"type": "resource_link"` ([`ResourceLink`](crate::ResourceLink)).
    ResourceLinkTag = "resource_link"
);
tag!(
    /// `"type": "resource"` ([`EmbeddedResource`](crate::EmbeddedResource)).
    ResourceTag = "resource"
);
tag!(
    /// `"type": "tool_use"` ([`ToolUseContent`](crate::ToolUseContent)).
    ToolUseTag = "tool_use"
);
tag!(
    /// `"type": "tool_result"` ([`ToolResultContent`](crate::ToolResultContent)).
    ToolResultTag = "tool_result"
);
tag!(
    /// `"type": "ref/prompt"` ([`PromptReference`](crate::PromptReference)).
    PromptRefTag = "ref/prompt"
);
tag!(
    /// `"type": "ref/resource"` ([`ResourceTemplateReference`](crate::ResourceTemplateReference)).
    ResourceRefTag = "ref/resource"
);
tag!(
    /// `"type": "object"` (tool input schemas, elicitation requested schemas).
    ObjectTag = "object"
);
tag!(
    /// `"type": "string"` (string and single-select enum elicitation schemas).
    StringTag = "string"
);
tag!(
    /// `"type": "boolean"` ([`BooleanSchema`](crate::BooleanSchema)).
    BooleanTag = "boolean"
);
tag!(
    /// `"type": "array"` (multi-select enum elicitation schemas).
    ArrayTag = "array"
);
tag!(
    /// `"mode": "form"` ([`ElicitRequestFormParams`](crate::ElicitRequestFormParams)).
    FormModeTag = "form"
);
tag!(
    /// `"mode": "url"` ([`ElicitRequestUrlParams`](crate::ElicitRequestUrlParams)).
    UrlModeTag = "url"
);
tag!(
    /// `"jsonrpc": "2.0"` (the JSON-RPC envelopes in [`envelope`](crate::envelope)).
    JsonRpcTag = "2.0"
);
