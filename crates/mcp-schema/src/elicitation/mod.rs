//! Elicitation: `elicitation/create` (a server asks the user for input through the client),
//! in form mode (2025-06-18+) and URL mode (2025-11-25+), and
//! `notifications/elicitation/complete` (2025-11-25 only).
//!
//! Form mode restricts the requested schema to flat [`PrimitiveSchemaDefinition`]s. The enum
//! schemas have no discriminator: they are told apart by their members (`oneOf`, `enum`,
//! `enumNames`, `items.anyOf`); a definition with an unknown `type` is kept as
//! [`PrimitiveSchemaDefinition::Unknown`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use crate::common::ResultType;
use crate::macros::{extensible, has_meta, string_enum, value_union_serde};
use crate::meta::Meta;
use crate::tags::{FormModeTag, ObjectTag, UrlModeTag};
use crate::tasks::TaskMetadata;

mod schema;

pub use schema::*;

/// `requestedSchema` of a form-mode elicitation: a flat object schema.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ElicitRequestedSchema {
    /// The dialect (`$schema`, 2025-11-25+).
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// `"type": "object"`.
    pub r#type: ObjectTag,
    /// The fields.
    pub properties: BTreeMap<String, PrimitiveSchemaDefinition>,
    /// Required field names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<Vec<String>>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Params of a form-mode `elicitation/create` (`ElicitRequestFormParams`; in 2025-06-18 the
/// only shape, without `mode`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequestFormParams {
    /// `"mode": "form"` (2025-11-25+; may be omitted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<FormModeTag>,
    /// What is being asked, for the user.
    pub message: String,
    /// The form.
    pub requested_schema: ElicitRequestedSchema,
    /// Run as a task (2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// `_meta` (2025-11-25; not defined for 2026-07-28 input requests).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Params of a URL-mode `elicitation/create` (`ElicitRequestURLParams`, 2025-11-25+).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequestUrlParams {
    /// `"mode": "url"`.
    pub mode: UrlModeTag,
    /// Why the interaction is needed, for the user.
    pub message: String,
    /// The URL the user should open.
    pub url: String,
    /// Correlates `notifications/elicitation/complete` (required in 2025-11-25, removed in
    /// 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    /// Run as a task (2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// `_meta` (2025-11-25; not defined for 2026-07-28 input requests).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Params of `elicitation/create` (`ElicitRequestParams`), by `mode`: absent or `"form"` is form
/// mode, `"url"` URL mode; another mode is kept as [`ElicitRequestParams::Unknown`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ElicitRequestParams {
    /// Form mode.
    Form(ElicitRequestFormParams),
    /// URL mode.
    Url(ElicitRequestUrlParams),
    /// A mode this crate does not know, kept verbatim.
    Unknown(Value),
}

value_union_serde!(ElicitRequestParams, |v| match v.get("mode") {
    None => serde_json::from_value(v).map(ElicitRequestParams::Form),
    Some(m) if m == "form" => serde_json::from_value(v).map(ElicitRequestParams::Form),
    Some(m) if m == "url" => serde_json::from_value(v).map(ElicitRequestParams::Url),
    Some(_) => Ok(ElicitRequestParams::Unknown(v)),
});

impl From<ElicitRequestFormParams> for ElicitRequestParams {
    fn from(p: ElicitRequestFormParams) -> Self {
        ElicitRequestParams::Form(p)
    }
}
impl From<ElicitRequestUrlParams> for ElicitRequestParams {
    fn from(p: ElicitRequestUrlParams) -> Self {
        ElicitRequestParams::Url(p)
    }
}

string_enum! {
    /// The user's answer to an elicitation (`ElicitResult.action`).
    pub enum ElicitAction {
        /// `"accept"`: submitted or confirmed.
        Accept = "accept",
        /// `"decline"`: explicitly declined.
        Decline = "decline",
        /// `"cancel"`: dismissed without a choice.
        Cancel = "cancel",
    }
}

/// A submitted form value (`string | number | boolean | string[]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ElicitValue {
    /// A string.
    String(String),
    /// A number.
    Number(Number),
    /// A boolean.
    Boolean(bool),
    /// Several strings (multi-select, 2025-11-25+).
    StringArray(Vec<String>),
    /// Any other JSON value, kept verbatim.
    Other(Value),
}

/// The client's answer to `elicitation/create` (`ElicitResult`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted form (form mode with `accept` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<BTreeMap<String, ElicitValue>>,
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

impl ElicitResult {
    /// A result with this action and no content.
    pub fn new(action: ElicitAction) -> Self {
        Self {
            action,
            content: None,
            result_type: None,
            meta: None,
            extra: Map::new(),
        }
    }
}

/// Params of `notifications/elicitation/complete` (2025-11-25 only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitationCompleteNotificationParams {
    /// The `elicitationId` of the completed URL-mode elicitation.
    pub elicitation_id: String,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

has_meta!(
    ElicitRequestFormParams,
    ElicitRequestUrlParams,
    ElicitResult,
    ElicitationCompleteNotificationParams,
);
extensible!(
    StringSchema,
    NumberSchema,
    BooleanSchema,
    TitledEnumOption,
    UntitledSingleSelectEnumSchema,
    TitledSingleSelectEnumSchema,
    UntitledEnumItems,
    TitledEnumItems,
    UntitledMultiSelectEnumSchema,
    TitledMultiSelectEnumSchema,
    LegacyTitledEnumSchema,
    ElicitRequestedSchema,
    ElicitRequestFormParams,
    ElicitRequestUrlParams,
    ElicitResult,
    ElicitationCompleteNotificationParams,
);
crate::macros::result_fields!(ElicitResult);
