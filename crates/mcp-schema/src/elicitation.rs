//! Elicitation: `elicitation/create` (a server asks the user for input through the client), in
//! form mode (2025-06-18+) and URL mode (2025-11-25+), and `notifications/elicitation/complete`
//! (2025-11-25 only).
//!
//! Form mode restricts the requested schema to flat [`PrimitiveSchemaDefinition`]s. The enum
//! schemas have no discriminator; their members tell them apart (`oneOf`, `enum`, `enumNames`,
//! `items.anyOf`). An unknown `type` is kept as [`PrimitiveSchemaDefinition::Unknown`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use crate::common::{ResultType, has_member, str_member};
use crate::macros::{extensible, has_meta, string_enum, value_union_serde};
use crate::meta::Meta;
use crate::tags::{ArrayTag, BooleanTag, FormModeTag, ObjectTag, StringTag, UrlModeTag};
use crate::tasks::TaskMetadata;

string_enum! {
    /// The `format` of a [`StringSchema`].
    pub enum StringFormat {
        /// `"email"`.
        Email = "email",
        /// `"uri"`.
        Uri = "uri",
        /// `"date"`.
        Date = "date",
        /// `"date-time"`.
        DateTime = "date-time",
    }
}

/// A string field (`StringSchema`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StringSchema {
    /// `"type": "string"`.
    pub r#type: StringTag,
    /// Field title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Field description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// Maximum length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// Format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<StringFormat>,
    /// Default value (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

string_enum! {
    /// The `type` of a [`NumberSchema`].
    pub enum NumberType {
        /// `"number"`.
        Number = "number",
        /// `"integer"`.
        Integer = "integer",
    }
}

/// A number field (`NumberSchema`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NumberSchema {
    /// `"number"` or `"integer"`.
    pub r#type: NumberType,
    /// Field title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Field description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum: Option<Number>,
    /// Maximum.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum: Option<Number>,
    /// Default value (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Number>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl NumberSchema {
    /// A number field of this type.
    pub fn new(r#type: NumberType) -> Self {
        Self {
            r#type,
            title: None,
            description: None,
            minimum: None,
            maximum: None,
            default: None,
            extra: Map::new(),
        }
    }
}

/// A boolean field (`BooleanSchema`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BooleanSchema {
    /// `"type": "boolean"`.
    pub r#type: BooleanTag,
    /// Field title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Field description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An option with a display title (`{ const, title }` of the titled enum schemas).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TitledEnumOption {
    /// The value.
    pub r#const: String,
    /// The display label.
    pub title: String,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl TitledEnumOption {
    /// An option.
    pub fn new(value: impl Into<String>, title: impl Into<String>) -> Self {
        Self {
            r#const: value.into(),
            title: title.into(),
            extra: Map::new(),
        }
    }
}

/// Single choice among plain values (`UntitledSingleSelectEnumSchema`, 2025-11-25+; also the
/// 2025-06-18 `EnumSchema` without `enumNames`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UntitledSingleSelectEnumSchema {
    /// `"type": "string"`.
    pub r#type: StringTag,
    /// Field title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Field description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The values.
    pub r#enum: Vec<String>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Single choice among titled options (`TitledSingleSelectEnumSchema`, 2025-11-25+).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledSingleSelectEnumSchema {
    /// `"type": "string"`.
    pub r#type: StringTag,
    /// Field title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Field description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The options.
    pub one_of: Vec<TitledEnumOption>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `items` of an [`UntitledMultiSelectEnumSchema`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UntitledEnumItems {
    /// `"type": "string"`.
    pub r#type: StringTag,
    /// The values.
    pub r#enum: Vec<String>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `items` of a [`TitledMultiSelectEnumSchema`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledEnumItems {
    /// The options.
    pub any_of: Vec<TitledEnumOption>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Several choices among plain values (`UntitledMultiSelectEnumSchema`, 2025-11-25+).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UntitledMultiSelectEnumSchema {
    /// `"type": "array"`.
    pub r#type: ArrayTag,
    /// Field title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Field description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum number of selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Maximum number of selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The values.
    pub items: UntitledEnumItems,
    /// Default selection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Several choices among titled options (`TitledMultiSelectEnumSchema`, 2025-11-25+).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledMultiSelectEnumSchema {
    /// `"type": "array"`.
    pub r#type: ArrayTag,
    /// Field title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Field description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum number of selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Maximum number of selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The options.
    pub items: TitledEnumItems,
    /// Default selection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Single choice with legacy `enumNames` titles (`LegacyTitledEnumSchema`; the 2025-06-18
/// `EnumSchema` with `enumNames`). Prefer [`TitledSingleSelectEnumSchema`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LegacyTitledEnumSchema {
    /// `"type": "string"`.
    pub r#type: StringTag,
    /// Field title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Field description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The values.
    pub r#enum: Vec<String>,
    /// Display names of the values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enum_names: Option<Vec<String>>,
    /// Default value (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `SingleSelectEnumSchema`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SingleSelectEnumSchema {
    /// Plain values (`enum`).
    Untitled(UntitledSingleSelectEnumSchema),
    /// Titled options (`oneOf`).
    Titled(TitledSingleSelectEnumSchema),
}

/// `MultiSelectEnumSchema`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum MultiSelectEnumSchema {
    /// Plain values (`items.enum`).
    Untitled(UntitledMultiSelectEnumSchema),
    /// Titled options (`items.anyOf`).
    Titled(TitledMultiSelectEnumSchema),
}

/// An enum field (`EnumSchema`; in 2025-06-18 a single `{ enum, enumNames? }` shape).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum EnumSchema {
    /// One value (`"type": "string"`).
    SingleSelect(SingleSelectEnumSchema),
    /// Several values (`"type": "array"`).
    MultiSelect(MultiSelectEnumSchema),
    /// One value with legacy `enumNames`.
    LegacyTitled(LegacyTitledEnumSchema),
}

/// A form field (`PrimitiveSchemaDefinition`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum PrimitiveSchemaDefinition {
    /// A string.
    String(StringSchema),
    /// A number or integer.
    Number(NumberSchema),
    /// A boolean.
    Boolean(BooleanSchema),
    /// A choice.
    Enum(EnumSchema),
    /// A definition with a `type` this crate does not know, kept verbatim.
    Unknown(Value),
}

/// Picks the enum schema shape of `v`, if it is one.
fn pick_enum(v: Value) -> Result<Result<EnumSchema, serde_json::Error>, Value> {
    match str_member(&v, "type") {
        Some("string") if has_member(&v, "oneOf") => Ok(serde_json::from_value(v)
            .map(|s| EnumSchema::SingleSelect(SingleSelectEnumSchema::Titled(s)))),
        Some("string") if has_member(&v, "enum") && has_member(&v, "enumNames") => {
            Ok(serde_json::from_value(v).map(EnumSchema::LegacyTitled))
        }
        Some("string") if has_member(&v, "enum") => Ok(serde_json::from_value(v)
            .map(|s| EnumSchema::SingleSelect(SingleSelectEnumSchema::Untitled(s)))),
        Some("array") if v.get("items").is_some_and(|i| has_member(i, "anyOf")) => {
            Ok(serde_json::from_value(v)
                .map(|s| EnumSchema::MultiSelect(MultiSelectEnumSchema::Titled(s))))
        }
        Some("array") => Ok(serde_json::from_value(v)
            .map(|s| EnumSchema::MultiSelect(MultiSelectEnumSchema::Untitled(s)))),
        _ => Err(v),
    }
}

fn not_an_enum_schema() -> serde_json::Error {
    serde::de::Error::custom("not an enum schema (no `enum`, `oneOf` or `items`)")
}

value_union_serde!(EnumSchema, |v| pick_enum(v)
    .unwrap_or_else(|_| Err(not_an_enum_schema())));

value_union_serde!(SingleSelectEnumSchema, |v| match pick_enum(v) {
    Ok(Ok(EnumSchema::SingleSelect(s))) => Ok(s),
    Ok(Err(e)) => Err(e),
    _ => Err(serde::de::Error::custom("not a single-select enum schema")),
});

value_union_serde!(MultiSelectEnumSchema, |v| match pick_enum(v) {
    Ok(Ok(EnumSchema::MultiSelect(s))) => Ok(s),
    Ok(Err(e)) => Err(e),
    _ => Err(serde::de::Error::custom("not a multi-select enum schema")),
});

value_union_serde!(PrimitiveSchemaDefinition, |v| match pick_enum(v) {
    Ok(r) => r.map(PrimitiveSchemaDefinition::Enum),
    Err(v) => match str_member(&v, "type") {
        Some("string") => serde_json::from_value(v).map(PrimitiveSchemaDefinition::String),
        Some("number" | "integer") => {
            serde_json::from_value(v).map(PrimitiveSchemaDefinition::Number)
        }
        Some("boolean") => serde_json::from_value(v).map(PrimitiveSchemaDefinition::Boolean),
        _ => Ok(PrimitiveSchemaDefinition::Unknown(v)),
    },
});

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
    /// Correlates `notifications/elicitation/complete` (required in 2025-11-25, not 2026-07-28).
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
