//! Argument completion: `completion/complete`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::common::{ResultType, str_member};
use crate::macros::{extensible, has_meta, value_union_serde};
use crate::meta::Meta;
use crate::tags::{PromptRefTag, ResourceRefTag};

/// Identifies a prompt (`PromptReference`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PromptReference {
    /// `"type": "ref/prompt"`.
    pub r#type: PromptRefTag,
    /// The prompt name.
    pub name: String,
    /// Display name (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Identifies a resource or resource template (`ResourceTemplateReference`; `ResourceReference`
/// before 2025-06-18).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResourceTemplateReference {
    /// `"type": "ref/resource"`.
    pub r#type: ResourceRefTag,
    /// The URI or URI template.
    pub uri: String,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The 2024-11-05 / 2025-03-26 name of [`ResourceTemplateReference`].
pub type ResourceReference = ResourceTemplateReference;

/// What is being completed (`CompleteRequestParams.ref`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Reference {
    /// A prompt argument.
    Prompt(PromptReference),
    /// A resource template variable.
    ResourceTemplate(ResourceTemplateReference),
    /// A reference `type` this crate does not know, kept verbatim.
    Unknown(Value),
}

value_union_serde!(Reference, |v| match str_member(&v, "type") {
    Some("ref/prompt") => serde_json::from_value(v).map(Reference::Prompt),
    Some("ref/resource") => serde_json::from_value(v).map(Reference::ResourceTemplate),
    _ => Ok(Reference::Unknown(v)),
});

impl Reference {
    /// A reference to prompt `name`.
    pub fn prompt(name: impl Into<String>) -> Self {
        Reference::Prompt(PromptReference {
            name: name.into(),
            ..PromptReference::default()
        })
    }

    /// A reference to the resource template `uri`.
    pub fn resource_template(uri: impl Into<String>) -> Self {
        Reference::ResourceTemplate(ResourceTemplateReference {
            uri: uri.into(),
            ..ResourceTemplateReference::default()
        })
    }
}

/// The argument being completed (`CompleteRequestParams.argument`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CompleteArgument {
    /// The argument name.
    pub name: String,
    /// The value typed so far.
    pub value: String,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Already-resolved arguments (`CompleteRequestParams.context`, 2025-06-18+).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CompleteContext {
    /// Previously resolved variables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Params of `completion/complete` (`CompleteRequestParams`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompleteRequestParams {
    /// What is being completed.
    #[serde(rename = "ref")]
    pub reference: Reference,
    /// The argument.
    pub argument: CompleteArgument,
    /// Context (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompleteContext>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl CompleteRequestParams {
    /// Params completing argument `name` (typed so far: `value`) of `reference`.
    pub fn new(reference: Reference, name: impl Into<String>, value: impl Into<String>) -> Self {
        Self {
            reference,
            argument: CompleteArgument {
                name: name.into(),
                value: value.into(),
                extra: Map::new(),
            },
            context: None,
            meta: None,
            extra: Map::new(),
        }
    }
}

/// The completions (`CompleteResult.completion`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// At most 100 values.
    pub values: Vec<String>,
    /// The total number of options (may exceed `values`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether there are more options than returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The result of `completion/complete` (`CompleteResult`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompleteResult {
    /// The completions.
    pub completion: Completion,
    /// `resultType` (2026-07-28; absent means complete).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl CompleteResult {
    /// A result with these values.
    pub fn new(values: Vec<String>) -> Self {
        Self {
            completion: Completion {
                values,
                ..Completion::default()
            },
            ..Self::default()
        }
    }
}

has_meta!(CompleteRequestParams, CompleteResult);
extensible!(
    PromptReference,
    ResourceTemplateReference,
    CompleteArgument,
    CompleteContext,
    CompleteRequestParams,
    Completion,
    CompleteResult,
);
crate::macros::result_fields!(CompleteResult);
