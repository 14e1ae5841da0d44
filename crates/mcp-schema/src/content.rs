//! Content blocks (text, image, audio, resource links, embedded resources) and resource
//! contents (text or blob).
//!
//! Unions are parsed by their discriminator; a block whose `type` this crate does not know is
//! kept as [`ContentBlock::Unknown`] with the whole JSON value, so a newer peer's content never
//! makes a result fail to parse and a proxy forwards it unchanged.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::common::{Annotations, has_member, str_member};
use crate::macros::{extensible, has_meta, value_union_serde};
use crate::meta::Meta;
use crate::resources::Resource;
use crate::tags::{AudioTag, ImageTag, ResourceLinkTag, ResourceTag, TextTag};

/// Text provided to or from an LLM (`TextContent`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextContent {
    /// `"type": "text"`.
    pub r#type: TextTag,
    /// The text.
    pub text: String,
    /// Client annotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta` (2025-06-18+).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl TextContent {
    /// Text content.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            ..Self::default()
        }
    }
}

/// An image provided to or from an LLM (`ImageContent`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageContent {
    /// `"type": "image"`.
    pub r#type: ImageTag,
    /// Base64-encoded image data.
    pub data: String,
    /// The image's MIME type.
    pub mime_type: String,
    /// Client annotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta` (2025-06-18+).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ImageContent {
    /// An image from base64 data and a MIME type.
    pub fn new(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self {
            data: data.into(),
            mime_type: mime_type.into(),
            ..Self::default()
        }
    }
}

/// Audio provided to or from an LLM (`AudioContent`, 2025-03-26+).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AudioContent {
    /// `"type": "audio"`.
    pub r#type: AudioTag,
    /// Base64-encoded audio data.
    pub data: String,
    /// The audio's MIME type.
    pub mime_type: String,
    /// Client annotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta` (2025-06-18+).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl AudioContent {
    /// Audio from base64 data and a MIME type.
    pub fn new(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self {
            data: data.into(),
            mime_type: mime_type.into(),
            ..Self::default()
        }
    }
}

/// A link to a resource the server can read, in a prompt or tool result (`ResourceLink`,
/// 2025-06-18+): a [`Resource`] with `"type": "resource_link"`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResourceLink {
    /// `"type": "resource_link"`.
    pub r#type: ResourceLinkTag,
    /// The linked resource (its unmodelled members are kept in `resource.extra`).
    #[serde(flatten)]
    pub resource: Resource,
}

impl ResourceLink {
    /// A link to `resource`.
    pub fn new(resource: Resource) -> Self {
        Self {
            r#type: ResourceLinkTag,
            resource,
        }
    }
}

/// The contents of a resource embedded into a prompt or tool result (`EmbeddedResource`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmbeddedResource {
    /// `"type": "resource"`.
    pub r#type: ResourceTag,
    /// The resource contents.
    pub resource: ResourceContents,
    /// Client annotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta` (2025-06-18+).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl EmbeddedResource {
    /// Embeds `resource`.
    pub fn new(resource: impl Into<ResourceContents>) -> Self {
        Self {
            r#type: ResourceTag,
            resource: resource.into(),
            annotations: None,
            meta: None,
            extra: Map::new(),
        }
    }
}

/// A content block of a tool result or prompt message (`ContentBlock`; before 2025-06-18 the
/// same union was written inline).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ContentBlock {
    /// `"type": "text"`.
    Text(TextContent),
    /// `"type": "image"`.
    Image(ImageContent),
    /// `"type": "audio"` (2025-03-26+).
    Audio(AudioContent),
    /// `"type": "resource_link"` (2025-06-18+).
    ResourceLink(ResourceLink),
    /// `"type": "resource"`.
    Resource(EmbeddedResource),
    /// A block with a `type` this crate does not know, kept verbatim.
    Unknown(Value),
}

value_union_serde!(ContentBlock, |v| match str_member(&v, "type") {
    Some("text") => serde_json::from_value(v).map(ContentBlock::Text),
    Some("image") => serde_json::from_value(v).map(ContentBlock::Image),
    Some("audio") => serde_json::from_value(v).map(ContentBlock::Audio),
    Some("resource_link") => serde_json::from_value(v).map(ContentBlock::ResourceLink),
    Some("resource") => serde_json::from_value(v).map(ContentBlock::Resource),
    _ => Ok(ContentBlock::Unknown(v)),
});

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(TextContent::new(text))
    }

    /// The text, if this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text(t) => Some(&t.text),
            _ => None,
        }
    }

    /// The `type` discriminator.
    pub fn kind(&self) -> &str {
        match self {
            ContentBlock::Text(_) => TextTag::VALUE,
            ContentBlock::Image(_) => ImageTag::VALUE,
            ContentBlock::Audio(_) => AudioTag::VALUE,
            ContentBlock::ResourceLink(_) => ResourceLinkTag::VALUE,
            ContentBlock::Resource(_) => ResourceTag::VALUE,
            ContentBlock::Unknown(v) => str_member(v, "type").unwrap_or(""),
        }
    }
}

impl From<TextContent> for ContentBlock {
    fn from(c: TextContent) -> Self {
        ContentBlock::Text(c)
    }
}
impl From<ImageContent> for ContentBlock {
    fn from(c: ImageContent) -> Self {
        ContentBlock::Image(c)
    }
}
impl From<AudioContent> for ContentBlock {
    fn from(c: AudioContent) -> Self {
        ContentBlock::Audio(c)
    }
}
impl From<ResourceLink> for ContentBlock {
    fn from(c: ResourceLink) -> Self {
        ContentBlock::ResourceLink(c)
    }
}
impl From<EmbeddedResource> for ContentBlock {
    fn from(c: EmbeddedResource) -> Self {
        ContentBlock::Resource(c)
    }
}

/// The text contents of a resource (`TextResourceContents`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextResourceContents {
    /// The resource URI.
    pub uri: String,
    /// The MIME type, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The text.
    pub text: String,
    /// `_meta` (2025-06-18+).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl TextResourceContents {
    /// Text contents of `uri`.
    pub fn new(uri: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            text: text.into(),
            ..Self::default()
        }
    }
}

/// The binary contents of a resource (`BlobResourceContents`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BlobResourceContents {
    /// The resource URI.
    pub uri: String,
    /// The MIME type, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Base64-encoded data.
    pub blob: String,
    /// `_meta` (2025-06-18+).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl BlobResourceContents {
    /// Binary contents of `uri` (base64 `blob`).
    pub fn new(uri: impl Into<String>, blob: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            blob: blob.into(),
            ..Self::default()
        }
    }
}

/// The contents of a resource: text or blob (the schema's `TextResourceContents |
/// BlobResourceContents`, whose common base is `ResourceContents`). Told apart by the `text` /
/// `blob` member; anything else is kept as [`ResourceContents::Unknown`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ResourceContents {
    /// Has `text`.
    Text(TextResourceContents),
    /// Has `blob`.
    Blob(BlobResourceContents),
    /// Neither: kept verbatim.
    Unknown(Value),
}

value_union_serde!(ResourceContents, |v| if has_member(&v, "text") {
    serde_json::from_value(v).map(ResourceContents::Text)
} else if has_member(&v, "blob") {
    serde_json::from_value(v).map(ResourceContents::Blob)
} else {
    Ok(ResourceContents::Unknown(v))
});

impl ResourceContents {
    /// The resource URI (for an unknown shape, its `uri` member if a string).
    pub fn uri(&self) -> Option<&str> {
        match self {
            ResourceContents::Text(t) => Some(&t.uri),
            ResourceContents::Blob(b) => Some(&b.uri),
            ResourceContents::Unknown(v) => str_member(v, "uri"),
        }
    }
}

impl From<TextResourceContents> for ResourceContents {
    fn from(c: TextResourceContents) -> Self {
        ResourceContents::Text(c)
    }
}
impl From<BlobResourceContents> for ResourceContents {
    fn from(c: BlobResourceContents) -> Self {
        ResourceContents::Blob(c)
    }
}

has_meta!(
    TextContent,
    ImageContent,
    AudioContent,
    EmbeddedResource,
    TextResourceContents,
    BlobResourceContents
);
extensible!(
    TextContent,
    ImageContent,
    AudioContent,
    EmbeddedResource,
    TextResourceContents,
    BlobResourceContents
);

impl crate::meta::HasMeta for ResourceLink {
    fn meta(&self) -> Option<&Meta> {
        self.resource.meta.as_ref()
    }
    fn meta_mut(&mut self) -> &mut Option<Meta> {
        &mut self.resource.meta
    }
}

impl crate::common::Extensible for ResourceLink {
    fn extra(&self) -> &Map<String, Value> {
        &self.resource.extra
    }
    fn extra_mut(&mut self) -> &mut Map<String, Value> {
        &mut self.resource.extra
    }
}
