//! What the server offers: tools, resources, resource templates, prompts and their completers.
//!
//! Everything can be added and removed while the server runs; each change is announced to
//! connected clients (`notifications/*/list_changed` in the stateful era, through
//! `subscriptions/listen` in 2026-07-28).

use std::future::Future;
use std::pin::Pin;

pub(crate) mod catalog;
pub(crate) mod completion;
pub(crate) mod prompt;
pub(crate) mod resource;
pub(crate) mod tool;

use catalog::Catalog;

/// A boxed, sendable future (the erased form of handlers).
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// A change clients may be told about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Change {
    Tools,
    Prompts,
    Resources,
    ResourceUpdated(String),
}

#[derive(Default)]
pub(crate) struct Registry {
    pub(crate) tools: Catalog<tool::ToolDef>,
    pub(crate) resources: Catalog<resource::ResourceDef>,
    pub(crate) templates: Catalog<resource::ResourceTemplateDef>,
    pub(crate) prompts: Catalog<prompt::PromptDef>,
}
