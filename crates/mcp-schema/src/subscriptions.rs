//! `subscriptions/listen` (2026-07-28): a long-lived request whose response stream carries the
//! opted-in change notifications, each tagged with
//! `_meta["io.modelcontextprotocol/subscriptionId"]` (the id of the listen request). It
//! replaces `resources/subscribe` / `resources/unsubscribe` and the HTTP GET stream.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::common::ResultType;
use crate::macros::{extensible, has_meta};
use crate::meta::{Meta, RequestId};

/// The notifications a client opts in to, or a server agreed to send (`SubscriptionFilter`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_list_changed: Option<bool>,
    /// `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_list_changed: Option<bool>,
    /// `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_list_changed: Option<bool>,
    /// `notifications/resources/updated` for these URIs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_subscriptions: Option<Vec<String>>,
    /// `notifications/tasks` for these tasks (the tasks extension,
    /// [`crate::ext::TASKS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_ids: Option<Vec<String>>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Params of `subscriptions/listen` (`SubscriptionsListenRequestParams`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionsListenRequestParams {
    /// The notifications to receive.
    pub notifications: SubscriptionFilter,
    /// `_meta` (the per-request protocol fields).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl SubscriptionsListenRequestParams {
    /// Params opting in to `notifications`.
    pub fn new(notifications: SubscriptionFilter) -> Self {
        Self {
            notifications,
            ..Self::default()
        }
    }
}

/// The response that ends a subscription gracefully (`SubscriptionsListenResult`). Its `_meta`
/// carries `io.modelcontextprotocol/subscriptionId` (required).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionsListenResult {
    /// `resultType`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// `_meta` (required; see [`SubscriptionsListenResult::closing`]).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl SubscriptionsListenResult {
    /// The result closing the subscription opened by request `id`.
    pub fn closing(id: &RequestId) -> Self {
        Self {
            result_type: Some(ResultType::Complete),
            meta: Some(Meta::new().with_subscription_id(id)),
            extra: Map::new(),
        }
    }
}

/// Params of `notifications/subscriptions/acknowledged`
/// (`SubscriptionsAcknowledgedNotificationParams`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionsAcknowledgedNotificationParams {
    /// The subset of the requested notifications the server will send.
    pub notifications: SubscriptionFilter,
    /// `_meta` (carries `io.modelcontextprotocol/subscriptionId`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl SubscriptionsAcknowledgedNotificationParams {
    /// Acknowledges subscription `id` with the agreed `notifications`.
    pub fn new(id: &RequestId, notifications: SubscriptionFilter) -> Self {
        Self {
            notifications,
            meta: Some(Meta::new().with_subscription_id(id)),
            extra: Map::new(),
        }
    }
}

has_meta!(
    SubscriptionsListenRequestParams,
    SubscriptionsListenResult,
    SubscriptionsAcknowledgedNotificationParams,
);
extensible!(
    SubscriptionFilter,
    SubscriptionsListenRequestParams,
    SubscriptionsListenResult,
    SubscriptionsAcknowledgedNotificationParams,
);
crate::macros::result_fields!(SubscriptionsListenResult);
