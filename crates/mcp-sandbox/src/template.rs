//! Templates: which interpreter a session's code runs in.

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The language of a session's `execute_code`: one long-lived interpreter per session, so
/// that variables, imports and functions persist between calls. Fixed when the session is
/// created.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Template {
    /// Python 3 (`python3`).
    #[default]
    Python,
    /// Node.js (`node`), with top-level `await`.
    Node,
}

impl Template {
    /// Every template.
    pub const ALL: [Template; 2] = [Template::Python, Template::Node];

    /// The template's name, as in the tools' arguments.
    pub fn name(self) -> &'static str {
        match self {
            Template::Python => "python",
            Template::Node => "node",
        }
    }

    /// The interpreter's program name, looked up on the host.
    pub fn program(self) -> &'static str {
        match self {
            Template::Python => "python3",
            Template::Node => "node",
        }
    }
}

impl fmt::Display for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A template name that is not `python` or `node`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown template `{0}`: use python or node")]
pub struct UnknownTemplate(pub String);

impl FromStr for Template {
    type Err = UnknownTemplate;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Template::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownTemplate(s.to_owned()))
    }
}
