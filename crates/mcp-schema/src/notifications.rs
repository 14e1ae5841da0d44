//! Params of the notifications shared by both sides: `notifications/cancelled` and
//! `notifications/progress`. (The `list_changed` and `initialized` notifications carry
//! [`NotificationParams`](crate::NotificationParams); topic-specific params live in their
//! modules.)

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use crate::common::number;
use crate::macros::{extensible, has_meta};
use crate::meta::{Meta, ProgressToken, RequestId};

/// Params of `notifications/cancelled` (`CancelledNotificationParams`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelledNotificationParams {
    /// The request to cancel (required except in 2025-11-25, where tasks are cancelled with
    /// `tasks/cancel` instead).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<RequestId>,
    /// Why, for logs or the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl CancelledNotificationParams {
    /// Cancels request `id`.
    pub fn new(id: impl Into<RequestId>) -> Self {
        Self {
            request_id: Some(id.into()),
            ..Self::default()
        }
    }
}

/// Params of `notifications/progress` (`ProgressNotificationParams`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgressNotificationParams {
    /// The token from the request's `_meta.progressToken`.
    pub progress_token: ProgressToken,
    /// Progress so far (increases with every notification).
    pub progress: Number,
    /// The total, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<Number>,
    /// A description of the progress (2025-03-26+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ProgressNotificationParams {
    /// Progress `progress` (of `total`, if known) for `token`.
    pub fn new(token: impl Into<ProgressToken>, progress: f64, total: Option<f64>) -> Self {
        Self {
            progress_token: token.into(),
            progress: number(progress),
            total: total.map(number),
            message: None,
            meta: None,
            extra: Map::new(),
        }
    }
}

has_meta!(CancelledNotificationParams, ProgressNotificationParams);
extensible!(CancelledNotificationParams, ProgressNotificationParams);
