//! Official extensions (SEP-2133): their identifiers, and how each side declares them in its
//! capabilities (`extensions`, keyed by identifier, each with a settings object).
//!
//! The methods an extension adds have rows in the [method table](crate::methods) like core
//! methods; their `extension` member ([`ExtensionRow`](crate::methods::ExtensionRow)) says which
//! extension they belong to, so that a server can answer `-32601` when it does not serve the
//! extension and `-32021` when the client did not declare it.
//!
//! ```
//! use mcp_schema::ext::{self, TASKS};
//! use mcp_schema::{ClientCapabilities, ServerCapabilities};
//!
//! let client = ClientCapabilities::default().with_extension(TASKS, Default::default());
//! assert!(client.declares_extension(TASKS));
//! let server = ServerCapabilities::default();
//! assert!(server.extension(ext::SKILLS).is_none());
//! ```

pub mod skills;
pub mod tasks;

use crate::capabilities::{ClientCapabilities, ServerCapabilities};
use crate::common::JsonObject;
use crate::error::MissingRequiredClientCapabilityData;

/// `io.modelcontextprotocol/tasks` (SEP-2663): a `tools/call` answered with a task the client
/// polls (`tasks/get`), feeds input (`tasks/update`) and cancels (`tasks/cancel`). 2026-07-28
/// and later; the client declares it on each request that may become a task.
pub const TASKS: &str = "io.modelcontextprotocol/tasks";

/// `io.modelcontextprotocol/skills` (SEP-2640): Agent Skills served as resources, listed with
/// `skills/list` and `skills/get`. Every era; only the server declares it.
pub const SKILLS: &str = "io.modelcontextprotocol/skills";

/// The first protocol version in which extension `id` has methods (the method table says);
/// `None` for an extension this crate does not know.
pub fn since(id: &str) -> Option<crate::version::ProtocolVersion> {
    crate::methods::METHODS
        .iter()
        .filter_map(|m| m.extension.filter(|e| e.id == id))
        .map(|e| e.since)
        .min()
}

impl ClientCapabilities {
    /// Whether the client declares extension `id`.
    pub fn declares_extension(&self, id: &str) -> bool {
        self.extensions.as_ref().is_some_and(|e| e.contains_key(id))
    }

    /// These capabilities, declaring extension `id` with `settings`.
    pub fn with_extension(mut self, id: &str, settings: JsonObject) -> Self {
        self.extensions
            .get_or_insert_with(Default::default)
            .insert(id.to_owned(), settings);
        self
    }
}

impl ServerCapabilities {
    /// The settings of extension `id`, when the server declares it.
    pub fn extension(&self, id: &str) -> Option<&JsonObject> {
        self.extensions.as_ref().and_then(|e| e.get(id))
    }

    /// These capabilities, declaring extension `id` with `settings`.
    pub fn with_extension(mut self, id: &str, settings: JsonObject) -> Self {
        self.extensions
            .get_or_insert_with(Default::default)
            .insert(id.to_owned(), settings);
        self
    }
}

impl MissingRequiredClientCapabilityData {
    /// The `-32021` data of a request that needs the client to declare extension `id`.
    pub fn extension(id: &str) -> Self {
        Self {
            required_capabilities: ClientCapabilities::default()
                .with_extension(id, Default::default()),
            extra: Default::default(),
        }
    }
}
