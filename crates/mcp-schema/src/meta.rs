//! The `_meta` object and its reserved keys.
//!
//! `_meta` appears on request params, notification params, results and many data types. This
//! crate keeps it as a [`Meta`]: an ordinary JSON object (every key survives a round trip) with
//! typed accessors for the keys the protocol reserves:
//!
//! | key | where | accessor |
//! |-----|-------|----------|
//! | `progressToken` | request params | [`Meta::progress_token`] |
//! | `io.modelcontextprotocol/protocolVersion` | 2026-07-28 request params (required) | [`Meta::protocol_version`] |
//! | `io.modelcontextprotocol/clientInfo` | 2026-07-28 request params | [`Meta::client_info`] |
//! | `io.modelcontextprotocol/clientCapabilities` | 2026-07-28 request params (required) | [`Meta::client_capabilities`] |
//! | `io.modelcontextprotocol/logLevel` | 2026-07-28 request params | [`Meta::log_level`] |
//! | `io.modelcontextprotocol/subscriptionId` | 2026-07-28 notifications and `subscriptions/listen` results | [`Meta::subscription_id`] |
//! | `io.modelcontextprotocol/serverInfo` | 2026-07-28 results | [`Meta::server_info`] |
//! | `io.modelcontextprotocol/related-task` | 2025-11-25 task-related messages | [`Meta::related_task`] |
//! | `io.modelcontextprotocol/model-immediate-response` | 2025-11-25 `CreateTaskResult` | [`Meta::model_immediate_response`] |
//!
//! Structured accessors deserialize on demand and report a malformed value as an error instead
//! of hiding it: a server must answer a request whose required `_meta` keys are missing or
//! malformed with `-32602`.

use std::ops::{Deref, DerefMut};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::capabilities::ClientCapabilities;
use crate::common::Implementation;
use crate::logging::LoggingLevel;
use crate::tasks::RelatedTaskMetadata;

/// A JSON-RPC request id (`string | integer`), shared with `mcp-jsonrpc`.
pub type RequestId = mcp_jsonrpc::Id;

/// A progress token (`string | integer`): the same shape as a request id.
pub type ProgressToken = mcp_jsonrpc::Id;

/// The reserved `_meta` key names.
pub mod keys {
    /// Opts a request into `notifications/progress`.
    pub const PROGRESS_TOKEN: &str = "progressToken";
    /// The protocol version of a 2026-07-28 request.
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    /// The client's `Implementation` on a 2026-07-28 request.
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    /// The client's capabilities on a 2026-07-28 request.
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    /// The minimum log level the server should emit for a 2026-07-28 request.
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    /// The `subscriptions/listen` request id a notification belongs to.
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
    /// The server's `Implementation` on a 2026-07-28 result.
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    /// The task a 2025-11-25 message relates to (`{"taskId": …}`).
    pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
    /// A string a host may hand to the model while a 2025-11-25 task runs.
    pub const MODEL_IMMEDIATE_RESPONSE: &str = "io.modelcontextprotocol/model-immediate-response";
    /// OpenTelemetry trace context.
    pub const TRACEPARENT: &str = "traceparent";
    /// OpenTelemetry trace state.
    pub const TRACESTATE: &str = "tracestate";
    /// W3C baggage.
    pub const BAGGAGE: &str = "baggage";
}

/// The contents of a `_meta` field: a JSON object that keeps every key.
///
/// Dereferences to the underlying [`Map`], so any key can be read or written directly; the typed
/// accessors cover the reserved keys (see the [module documentation](self)).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Meta(pub Map<String, Value>);

impl Deref for Meta {
    type Target = Map<String, Value>;
    fn deref(&self) -> &Map<String, Value> {
        &self.0
    }
}

impl DerefMut for Meta {
    fn deref_mut(&mut self) -> &mut Map<String, Value> {
        &mut self.0
    }
}

impl From<Map<String, Value>> for Meta {
    fn from(map: Map<String, Value>) -> Self {
        Meta(map)
    }
}

impl From<Meta> for Map<String, Value> {
    fn from(meta: Meta) -> Self {
        meta.0
    }
}

/// Serializes one of this crate's data types. They hold only strings, numbers, booleans,
/// vectors and string-keyed maps, which `serde_json` always serializes.
pub(crate) fn to_value_infallible<T: Serialize + ?Sized>(value: &T) -> Value {
    serde_json::to_value(value).expect("mcp-schema types always serialize to JSON")
}

impl Meta {
    /// An empty `_meta`.
    pub fn new() -> Self {
        Self::default()
    }

    /// The `_meta` a 2026-07-28 client puts on every request: protocol version, client
    /// capabilities and (recommended) client info.
    pub fn for_request(
        protocol_version: &str,
        client_info: Option<&Implementation>,
        client_capabilities: &ClientCapabilities,
    ) -> Self {
        let mut meta = Meta::new()
            .with_protocol_version(protocol_version)
            .with_client_capabilities(client_capabilities);
        if let Some(info) = client_info {
            meta.set_client_info(info);
        }
        meta
    }

    /// Deserializes the value at `key`: `Ok(None)` when absent, `Err` when malformed.
    pub fn get_as<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>, serde_json::Error> {
        self.0.get(key).map(|v| T::deserialize(v)).transpose()
    }

    /// Serializes `value` under `key`, replacing any previous value.
    pub fn set_as<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) {
        self.0.insert(key.to_owned(), to_value_infallible(value));
    }

    /// `progressToken`.
    pub fn progress_token(&self) -> Result<Option<ProgressToken>, serde_json::Error> {
        self.get_as(keys::PROGRESS_TOKEN)
    }

    /// Sets `progressToken`.
    pub fn set_progress_token(&mut self, token: impl Into<ProgressToken>) {
        self.set_as(keys::PROGRESS_TOKEN, &token.into());
    }

    /// With `progressToken` set.
    pub fn with_progress_token(mut self, token: impl Into<ProgressToken>) -> Self {
        self.set_progress_token(token);
        self
    }

    /// `io.modelcontextprotocol/protocolVersion`, when present and a string.
    pub fn protocol_version(&self) -> Option<&str> {
        self.0.get(keys::PROTOCOL_VERSION).and_then(Value::as_str)
    }

    /// Sets `io.modelcontextprotocol/protocolVersion`.
    pub fn set_protocol_version(&mut self, version: &str) {
        self.0.insert(
            keys::PROTOCOL_VERSION.to_owned(),
            Value::String(version.to_owned()),
        );
    }

    /// With `io.modelcontextprotocol/protocolVersion` set.
    pub fn with_protocol_version(mut self, version: &str) -> Self {
        self.set_protocol_version(version);
        self
    }

    /// `io.modelcontextprotocol/clientInfo`.
    pub fn client_info(&self) -> Result<Option<Implementation>, serde_json::Error> {
        self.get_as(keys::CLIENT_INFO)
    }

    /// Sets `io.modelcontextprotocol/clientInfo`.
    pub fn set_client_info(&mut self, info: &Implementation) {
        self.set_as(keys::CLIENT_INFO, info);
    }

    /// With `io.modelcontextprotocol/clientInfo` set.
    pub fn with_client_info(mut self, info: &Implementation) -> Self {
        self.set_client_info(info);
        self
    }

    /// `io.modelcontextprotocol/clientCapabilities`.
    pub fn client_capabilities(&self) -> Result<Option<ClientCapabilities>, serde_json::Error> {
        self.get_as(keys::CLIENT_CAPABILITIES)
    }

    /// Sets `io.modelcontextprotocol/clientCapabilities`.
    pub fn set_client_capabilities(&mut self, capabilities: &ClientCapabilities) {
        self.set_as(keys::CLIENT_CAPABILITIES, capabilities);
    }

    /// With `io.modelcontextprotocol/clientCapabilities` set.
    pub fn with_client_capabilities(mut self, capabilities: &ClientCapabilities) -> Self {
        self.set_client_capabilities(capabilities);
        self
    }

    /// `io.modelcontextprotocol/logLevel`.
    pub fn log_level(&self) -> Result<Option<LoggingLevel>, serde_json::Error> {
        self.get_as(keys::LOG_LEVEL)
    }

    /// Sets `io.modelcontextprotocol/logLevel`.
    pub fn set_log_level(&mut self, level: &LoggingLevel) {
        self.set_as(keys::LOG_LEVEL, level);
    }

    /// With `io.modelcontextprotocol/logLevel` set.
    pub fn with_log_level(mut self, level: &LoggingLevel) -> Self {
        self.set_log_level(level);
        self
    }

    /// `io.modelcontextprotocol/subscriptionId`.
    pub fn subscription_id(&self) -> Result<Option<RequestId>, serde_json::Error> {
        self.get_as(keys::SUBSCRIPTION_ID)
    }

    /// Sets `io.modelcontextprotocol/subscriptionId`.
    pub fn set_subscription_id(&mut self, id: &RequestId) {
        self.set_as(keys::SUBSCRIPTION_ID, id);
    }

    /// With `io.modelcontextprotocol/subscriptionId` set.
    pub fn with_subscription_id(mut self, id: &RequestId) -> Self {
        self.set_subscription_id(id);
        self
    }

    /// `io.modelcontextprotocol/serverInfo`.
    pub fn server_info(&self) -> Result<Option<Implementation>, serde_json::Error> {
        self.get_as(keys::SERVER_INFO)
    }

    /// Sets `io.modelcontextprotocol/serverInfo`.
    pub fn set_server_info(&mut self, info: &Implementation) {
        self.set_as(keys::SERVER_INFO, info);
    }

    /// With `io.modelcontextprotocol/serverInfo` set.
    pub fn with_server_info(mut self, info: &Implementation) -> Self {
        self.set_server_info(info);
        self
    }

    /// `io.modelcontextprotocol/related-task` (2025-11-25).
    pub fn related_task(&self) -> Result<Option<RelatedTaskMetadata>, serde_json::Error> {
        self.get_as(keys::RELATED_TASK)
    }

    /// Sets `io.modelcontextprotocol/related-task` (2025-11-25).
    pub fn set_related_task(&mut self, task: &RelatedTaskMetadata) {
        self.set_as(keys::RELATED_TASK, task);
    }

    /// `io.modelcontextprotocol/model-immediate-response` (2025-11-25), when a string.
    pub fn model_immediate_response(&self) -> Option<&str> {
        self.0
            .get(keys::MODEL_IMMEDIATE_RESPONSE)
            .and_then(Value::as_str)
    }
}

/// Types with an optional `_meta` member: every params, result and notification params type,
/// and the data types that carry `_meta`.
///
/// Lets generic code (a client stamping the 2026-07-28 request `_meta`, a proxy rewriting a
/// progress token) reach `_meta` without knowing the concrete type.
pub trait HasMeta {
    /// The `_meta` member, if present.
    fn meta(&self) -> Option<&Meta>;
    /// The `_meta` member, for modification.
    fn meta_mut(&mut self) -> &mut Option<Meta>;

    /// The `_meta` member, created empty when absent.
    fn meta_or_default(&mut self) -> &mut Meta {
        self.meta_mut().get_or_insert_with(Meta::default)
    }

    /// With `_meta` replaced.
    fn with_meta(mut self, meta: Meta) -> Self
    where
        Self: Sized,
    {
        *self.meta_mut() = Some(meta);
        self
    }
}
