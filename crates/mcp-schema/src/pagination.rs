//! Pagination: cursors and the params of the `*/list` requests.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::macros::{extensible, has_meta};
use crate::meta::Meta;

/// An opaque pagination position (`Cursor`).
pub type Cursor = String;

/// Params of a paginated request (`PaginatedRequestParams`): `tools/list`, `prompts/list`,
/// `resources/list`, `resources/templates/list`, `tasks/list`.
///
/// Every field is optional and `PaginatedRequestParams::default()` serializes as `{}`. Before
/// 2026-07-28 the params of these requests are optional: a caller with nothing to send may omit
/// them (see [`PaginatedRequestParams::is_empty`]), and receivers treat absent params as the
/// default. 2026-07-28 requires params, because `_meta` is required.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaginatedRequestParams {
    /// Where to continue from (a previous result's `nextCursor`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<Cursor>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl PaginatedRequestParams {
    /// Params asking for the page after `cursor`.
    pub fn with_cursor(cursor: impl Into<Cursor>) -> Self {
        Self {
            cursor: Some(cursor.into()),
            ..Self::default()
        }
    }

    /// True when there is nothing to send.
    pub fn is_empty(&self) -> bool {
        self.cursor.is_none() && self.meta.is_none() && self.extra.is_empty()
    }
}

has_meta!(PaginatedRequestParams);
extensible!(PaginatedRequestParams);
