//! Roots: `roots/list` (the server asks the client which directories or files it may operate
//! on) and `notifications/roots/list_changed` (stateful versions). Deprecated in 2026-07-28,
//! where `roots/list` travels inside an [`InputRequiredResult`](crate::InputRequiredResult).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::common::ResultType;
use crate::macros::{extensible, has_meta};
use crate::meta::Meta;

/// A root the server may operate on (`Root`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Root {
    /// The root URI (`file://` for now).
    pub uri: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `_meta` (2025-06-18+).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Root {
    /// A root at `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            ..Self::default()
        }
    }
}

/// The client's answer to `roots/list` (`ListRootsResult`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListRootsResult {
    /// The roots.
    pub roots: Vec<Root>,
    /// `resultType` (not defined for client results; kept if present).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// `_meta` (stateful versions).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ListRootsResult {
    /// A result with these roots.
    pub fn new(roots: Vec<Root>) -> Self {
        Self {
            roots,
            ..Self::default()
        }
    }
}

has_meta!(Root, ListRootsResult);
extensible!(Root, ListRootsResult);
crate::macros::result_fields!(ListRootsResult);
