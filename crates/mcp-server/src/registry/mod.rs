//! What the server offers: tools, resources, resource templates, prompts and their completers,
//! and skills (served as resources).
//!
//! Everything can be added and removed while the server runs; each change is announced to
//! connected clients (`notifications/*/list_changed` in the stateful era, through
//! `subscriptions/listen` in 2026-07-28).

use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::broadcast;

pub(crate) mod catalog;
pub(crate) mod completion;
pub(crate) mod prompt;
pub(crate) mod resource;
pub(crate) mod skill;
pub(crate) mod skills;
pub(crate) mod tool;

use catalog::Catalog;

pub use crate::boxed::BoxFuture;

pub(crate) use crate::shared::Change;

/// Everything the server offers, and the feed of its changes.
pub(crate) struct Registry {
    pub(crate) tools: Catalog<tool::ToolDef>,
    pub(crate) resources: Catalog<resource::ResourceDef>,
    pub(crate) templates: Catalog<resource::ResourceTemplateDef>,
    pub(crate) prompts: Catalog<prompt::PromptDef>,
    pub(crate) skills: skills::Skills,
    changes: broadcast::Sender<Change>,
    /// Grows with every change (what caches compare against).
    generation: AtomicU64,
}

impl Default for Registry {
    fn default() -> Self {
        Self {
            tools: Catalog::default(),
            resources: Catalog::default(),
            templates: Catalog::default(),
            prompts: Catalog::default(),
            skills: skills::Skills::default(),
            changes: broadcast::channel(256).0,
            generation: AtomicU64::new(0),
        }
    }
}

impl Registry {
    /// Changes from now on.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.changes.subscribe()
    }

    /// Tells subscribers about a change (nobody listening is fine: nobody is connected).
    pub(crate) fn announce(&self, change: Change) {
        self.generation.fetch_add(1, Ordering::AcqRel);
        let _ = self.changes.send(change);
    }

    /// A number that changes whenever the registry does.
    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }
}
