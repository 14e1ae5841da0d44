//! Types shared by many messages: implementation info, icons, roles, annotations, the common
//! result and params shapes.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use crate::macros::{extensible, has_meta, string_enum};
use crate::meta::Meta;

/// A JSON object (`JSONObject` in the 2026-07-28 schema; `object` in older ones). Capability
/// flags such as `"logging": {}` and settings objects use it.
pub type JsonObject = Map<String, Value>;

/// Types that keep the members this crate does not model (`extra`), so that nothing is lost
/// between parsing and serializing.
pub trait Extensible {
    /// Members not modelled by this type, as received.
    fn extra(&self) -> &Map<String, Value>;
    /// Members not modelled by this type, for modification.
    fn extra_mut(&mut self) -> &mut Map<String, Value>;
}

/// A JSON number from an `f64`, written as an integer when it has no fractional part (so `50.0`
/// is sent as `50`). Non-finite values (which JSON cannot represent) become `0`.
pub fn number(value: f64) -> Number {
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        // The cast is exact: the value is integral and within the f64 integer range.
        Number::from(value as i64)
    } else {
        Number::from_f64(value).unwrap_or_else(|| Number::from(0))
    }
}

string_enum! {
    /// The sender or recipient of messages and data in a conversation (`Role`).
    pub enum Role {
        /// `"user"`.
        User = "user",
        /// `"assistant"`.
        Assistant = "assistant",
    }
}

string_enum! {
    /// The background an icon is designed for (`Icon.theme`, 2025-11-25+).
    pub enum IconTheme {
        /// `"light"`: for a light background.
        Light = "light",
        /// `"dark"`: for a dark background.
        Dark = "dark",
    }
}

/// An optionally-sized icon that can be displayed in a user interface (`Icon`, 2025-11-25+).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// An `https:` or `data:` URI of the icon.
    pub src: String,
    /// MIME type override (`image/png`, `image/svg+xml`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes the icon can be used at (`"48x48"`, `"any"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// The theme the icon is designed for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<IconTheme>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Icon {
    /// An icon at `src`.
    pub fn new(src: impl Into<String>) -> Self {
        Self {
            src: src.into(),
            ..Self::default()
        }
    }
}

/// The `icons` member (`Icons` in the schema): the set of icons of a tool, prompt, resource or
/// implementation. Used as `Option<Icons>` fields.
pub type Icons = Vec<Icon>;

/// Describes an MCP implementation, client or server (`Implementation`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    /// Programmatic name.
    pub name: String,
    /// Human-readable display name (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The version of the implementation.
    pub version: String,
    /// What the implementation does (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The implementation's website (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
    /// Icons (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Icons>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Implementation {
    /// An implementation with a name and a version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            ..Self::default()
        }
    }
}

/// Hints for the client about how to use or display an object (`Annotations`; `Annotated` in
/// 2024-11-05).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// Who the data is intended for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// Importance from 0 (optional) to 1 (required).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<Number>,
    /// ISO 8601 time of the last modification (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

string_enum! {
    /// How a client should parse a result (`ResultType`, 2026-07-28). Results from servers of
    /// earlier versions carry none, which means [`ResultType::Complete`].
    pub enum ResultType {
        /// `"complete"`: the final result.
        Complete = "complete",
        /// `"input_required"`: an [`InputRequiredResult`](crate::InputRequiredResult).
        InputRequired = "input_required",
        /// `"task"`: the request became a task (the tasks extension's
        /// [`CreateTaskResult`](crate::ext::tasks::CreateTaskResult)).
        Task = "task",
    }
}

string_enum! {
    /// Who may cache a result (`cacheScope`, 2026-07-28).
    pub enum CacheScope {
        /// `"public"`: no user-specific data; shared caches may serve it to anyone.
        Public = "public",
        /// `"private"`: reusable only within the same authorization context.
        Private = "private",
    }
}

/// Results: access to the common `resultType` member, so that generic code (a 2026-07-28 server
/// stamping `resultType: "complete"`) works on any result type.
pub trait ResultFields: crate::meta::HasMeta {
    /// `resultType`, if present.
    fn result_type(&self) -> Option<&ResultType>;
    /// `resultType`, for modification.
    fn result_type_mut(&mut self) -> &mut Option<ResultType>;

    /// Whether the result is complete (an absent `resultType` means complete, for results of
    /// servers of earlier versions).
    fn is_complete(&self) -> bool {
        matches!(self.result_type(), None | Some(ResultType::Complete))
    }

    /// Sets `resultType: "complete"` (required on 2026-07-28 results, absent before).
    fn mark_complete(&mut self) {
        *self.result_type_mut() = Some(ResultType::Complete);
    }

    /// The cache hints, for the cacheable results (2026-07-28 `CacheableResult`).
    fn cache_hints_mut(&mut self) -> Option<&mut dyn CacheHints> {
        None
    }
}

/// Cacheable results (2026-07-28 `CacheableResult`: `server/discover`, the `*/list` results and
/// `resources/read`), which must carry `ttlMs` and `cacheScope` when complete.
pub trait CacheHints {
    /// `ttlMs`: how long the result may be considered fresh.
    fn ttl_ms(&self) -> Option<u64>;
    /// `cacheScope`.
    fn cache_scope(&self) -> Option<&CacheScope>;
    /// Sets both hints.
    fn set_cache_hints(&mut self, ttl_ms: u64, scope: CacheScope);
}

/// A result that carries nothing but the common result members (`EmptyResult`; also the
/// schema's base `Result`): the answer to `ping`, `resources/subscribe`, `logging/setLevel`, ….
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmptyResult {
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// `resultType` (2026-07-28; absent means complete).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The schema's base `Result`: any result, with its common members typed.
pub type GenericResult = EmptyResult;

/// Params that carry nothing but `_meta` (`RequestParams`): `ping`, `server/discover`,
/// `roots/list`.
///
/// Every field is optional, so `RequestParams::default()` serializes as `{}`; methods whose params
/// are optional may also omit them, and receivers treat absent params as the default.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestParams {
    /// `_meta` (required on 2026-07-28 requests: see [`Meta::for_request`]).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl RequestParams {
    /// Params with this `_meta`.
    pub fn with_meta(meta: Meta) -> Self {
        Self {
            meta: Some(meta),
            ..Self::default()
        }
    }

    /// True when there is nothing to send (no `_meta`, no other member).
    pub fn is_empty(&self) -> bool {
        self.meta.is_none() && self.extra.is_empty()
    }
}

/// Params that carry nothing but `_meta` (`NotificationParams`): the `list_changed`
/// notifications and `notifications/initialized`.
///
/// Every field is optional; a sender may omit empty params altogether (see
/// [`NotificationParams::is_empty`]), and receivers treat absent params as the default.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NotificationParams {
    /// `_meta` (carries `io.modelcontextprotocol/subscriptionId` on a 2026-07-28 subscription
    /// stream).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl NotificationParams {
    /// True when there is nothing to send (no `_meta`, no other member).
    pub fn is_empty(&self) -> bool {
        self.meta.is_none() && self.extra.is_empty()
    }
}

has_meta!(EmptyResult, RequestParams, NotificationParams);
extensible!(
    Icon,
    Implementation,
    Annotations,
    EmptyResult,
    RequestParams,
    NotificationParams
);

/// The string member `key` of an object value.
pub(crate) fn str_member<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// True when `value` is an object with member `key`.
pub(crate) fn has_member(value: &Value, key: &str) -> bool {
    value.get(key).is_some()
}

crate::macros::result_fields!(EmptyResult);
