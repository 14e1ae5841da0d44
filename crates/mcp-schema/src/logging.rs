//! Logging: `logging/setLevel` (stateful versions), the per-request
//! `io.modelcontextprotocol/logLevel` (2026-07-28) and `notifications/message`. Deprecated in
//! 2026-07-28.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::macros::{extensible, has_meta, string_enum};
use crate::meta::Meta;

string_enum! {
    /// The severity of a log message, as in syslog (`LoggingLevel`).
    pub enum LoggingLevel {
        /// `"debug"`.
        Debug = "debug",
        /// `"info"`.
        Info = "info",
        /// `"notice"`.
        Notice = "notice",
        /// `"warning"`.
        Warning = "warning",
        /// `"error"`.
        Error = "error",
        /// `"critical"`.
        Critical = "critical",
        /// `"alert"`.
        Alert = "alert",
        /// `"emergency"`.
        Emergency = "emergency",
    }
}

impl LoggingLevel {
    /// The severity rank, 0 (`debug`) to 7 (`emergency`); `None` for an unknown level.
    pub fn severity(&self) -> Option<u8> {
        let rank = Self::KNOWN.iter().position(|k| *k == self.as_str())?;
        u8::try_from(rank).ok()
    }

    /// Whether a message at `self` passes a `minimum` level (unknown levels always pass).
    pub fn passes(&self, minimum: &LoggingLevel) -> bool {
        match (self.severity(), minimum.severity()) {
            (Some(s), Some(m)) => s >= m,
            _ => true,
        }
    }
}

/// Params of `logging/setLevel` (`SetLevelRequestParams`; stateful versions).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetLevelRequestParams {
    /// The minimum level the client wants.
    pub level: LoggingLevel,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl SetLevelRequestParams {
    /// Params setting `level`.
    pub fn new(level: LoggingLevel) -> Self {
        Self {
            level,
            meta: None,
            extra: Map::new(),
        }
    }
}

/// Params of `notifications/message` (`LoggingMessageNotificationParams`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoggingMessageNotificationParams {
    /// The severity.
    pub level: LoggingLevel,
    /// The logger name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// The data to log (any JSON value).
    pub data: Value,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl LoggingMessageNotificationParams {
    /// A log message.
    pub fn new(level: LoggingLevel, data: impl Into<Value>) -> Self {
        Self {
            level,
            logger: None,
            data: data.into(),
            meta: None,
            extra: Map::new(),
        }
    }
}

has_meta!(SetLevelRequestParams, LoggingMessageNotificationParams);
extensible!(SetLevelRequestParams, LoggingMessageNotificationParams);
