//! Resources (fixed URIs) and resource templates (URI patterns), with their readers.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use base64::Engine;
use mcp_schema::{
    Annotations, BlobResourceContents, Icon, Meta, ReadResourceResult, Resource, ResourceContents,
    ResourceTemplate, TextResourceContents,
};

use crate::context::RequestContext;
use crate::error::Result;
use crate::registry::BoxFuture;
use crate::registry::completion::{Completer, CompletionFn};
use crate::uri_template::{TemplateError, UriTemplate, Variables};

pub(crate) type ReadFn = dyn Fn(String, Variables, RequestContext) -> BoxFuture<Result<ReadResourceResult>>
    + Send
    + Sync;

/// What a resource reader may return.
pub trait IntoContents: Send + 'static {
    /// The result of reading `uri`, whose declared MIME type is `mime_type`.
    fn into_read_result(self, uri: &str, mime_type: Option<&str>) -> ReadResourceResult;
}

impl IntoContents for ReadResourceResult {
    fn into_read_result(self, _: &str, _: Option<&str>) -> ReadResourceResult {
        self
    }
}

impl IntoContents for Vec<ResourceContents> {
    fn into_read_result(self, _: &str, _: Option<&str>) -> ReadResourceResult {
        ReadResourceResult::new(self)
    }
}

impl IntoContents for ResourceContents {
    fn into_read_result(self, _: &str, _: Option<&str>) -> ReadResourceResult {
        ReadResourceResult::new(vec![self])
    }
}

/// Text, under the URI that was read.
impl IntoContents for String {
    fn into_read_result(self, uri: &str, mime_type: Option<&str>) -> ReadResourceResult {
        let mut text = TextResourceContents::new(uri, self);
        text.mime_type = mime_type.map(str::to_owned);
        ReadResourceResult::new(vec![ResourceContents::Text(text)])
    }
}

/// Binary content (sent base64-encoded), under the URI that was read.
impl IntoContents for Vec<u8> {
    fn into_read_result(self, uri: &str, mime_type: Option<&str>) -> ReadResourceResult {
        let mut blob =
            BlobResourceContents::new(uri, base64::engine::general_purpose::STANDARD.encode(self));
        blob.mime_type = mime_type.map(str::to_owned);
        ReadResourceResult::new(vec![ResourceContents::Blob(blob)])
    }
}

/// A resource with a fixed URI and its reader.
pub struct ResourceDef {
    pub(crate) resource: Resource,
    pub(crate) read: Arc<ReadFn>,
}

impl std::fmt::Debug for ResourceDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceDef")
            .field("resource", &self.resource)
            .finish()
    }
}

fn erase<R, F, Fut>(handler: F, mime_type: Option<String>) -> Arc<ReadFn>
where
    R: IntoContents,
    F: Fn(String, Variables, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<R>> + Send + 'static,
{
    let handler = Arc::new(handler);
    Arc::new(move |uri, vars, cx| {
        let handler = handler.clone();
        let mime_type = mime_type.clone();
        Box::pin(async move {
            let out = handler(uri.clone(), vars, cx).await?;
            Ok(out.into_read_result(&uri, mime_type.as_deref()))
        })
    })
}

impl ResourceDef {
    /// A resource whose content `reader` produces on every read.
    pub fn new<R, F, Fut>(
        uri: impl Into<String>,
        name: impl Into<String>,
        mime_type: Option<&str>,
        reader: F,
    ) -> Self
    where
        R: IntoContents,
        F: Fn(RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R>> + Send + 'static,
    {
        let mut resource = Resource::new(uri, name);
        resource.mime_type = mime_type.map(str::to_owned);
        let read = erase(move |_, _, cx| reader(cx), resource.mime_type.clone());
        Self { resource, read }
    }

    /// A resource with fixed text content.
    pub fn text(
        uri: impl Into<String>,
        name: impl Into<String>,
        mime_type: &str,
        text: impl Into<String>,
    ) -> Self {
        let text: Arc<str> = text.into().into();
        Self::new(uri, name, Some(mime_type), move |_| {
            let text = text.to_string();
            async move { Ok(text) }
        })
    }

    /// A resource with fixed binary content.
    pub fn blob(
        uri: impl Into<String>,
        name: impl Into<String>,
        mime_type: &str,
        bytes: impl Into<Vec<u8>>,
    ) -> Self {
        let bytes: Arc<[u8]> = bytes.into().into();
        Self::new(uri, name, Some(mime_type), move |_| {
            let bytes = bytes.to_vec();
            async move { Ok(bytes) }
        })
    }

    /// A description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.resource.description = Some(description.into());
        self
    }

    /// A display name.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.resource.title = Some(title.into());
        self
    }

    /// The size of the raw content in bytes.
    pub fn size(mut self, size: u64) -> Self {
        self.resource.size = Some(size);
        self
    }

    /// Client annotations (audience, priority, last modified).
    pub fn annotations(mut self, annotations: Annotations) -> Self {
        self.resource.annotations = Some(annotations);
        self
    }

    /// Icons.
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.resource.icons = Some(icons);
        self
    }

    /// `_meta`.
    pub fn meta(mut self, meta: Meta) -> Self {
        self.resource.meta = Some(meta);
        self
    }

    /// The URI.
    pub fn uri(&self) -> &str {
        &self.resource.uri
    }
}

/// A resource template (`test://items/{id}`) and the reader of the URIs it matches.
pub struct ResourceTemplateDef {
    pub(crate) template: ResourceTemplate,
    pub(crate) pattern: UriTemplate,
    pub(crate) read: Arc<ReadFn>,
    pub(crate) completers: HashMap<String, Arc<CompletionFn>>,
}

impl std::fmt::Debug for ResourceTemplateDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceTemplateDef")
            .field("template", &self.template)
            .finish()
    }
}

impl ResourceTemplateDef {
    /// A template whose matches `reader` reads; it receives the URI and the template's
    /// variables.
    pub fn new<R, F, Fut>(
        uri_template: impl Into<String>,
        name: impl Into<String>,
        mime_type: Option<&str>,
        reader: F,
    ) -> std::result::Result<Self, TemplateError>
    where
        R: IntoContents,
        F: Fn(String, Variables, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R>> + Send + 'static,
    {
        let mut template = ResourceTemplate::new(uri_template, name);
        template.mime_type = mime_type.map(str::to_owned);
        let pattern = UriTemplate::parse(&template.uri_template)?;
        let read = erase(reader, template.mime_type.clone());
        Ok(Self {
            template,
            pattern,
            read,
            completers: HashMap::new(),
        })
    }

    /// Completes values of the variable `argument` for `completion/complete`.
    pub fn complete(mut self, argument: impl Into<String>, completer: impl Completer) -> Self {
        self.completers
            .insert(argument.into(), Arc::new(move |r| completer.complete(r)));
        self
    }

    /// A description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.template.description = Some(description.into());
        self
    }

    /// A display name.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.template.title = Some(title.into());
        self
    }

    /// Client annotations.
    pub fn annotations(mut self, annotations: Annotations) -> Self {
        self.template.annotations = Some(annotations);
        self
    }

    /// Icons.
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.template.icons = Some(icons);
        self
    }

    /// `_meta`.
    pub fn meta(mut self, meta: Meta) -> Self {
        self.template.meta = Some(meta);
        self
    }

    /// The URI template.
    pub fn uri_template(&self) -> &str {
        &self.template.uri_template
    }
}
