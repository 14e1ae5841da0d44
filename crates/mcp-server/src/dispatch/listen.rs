//! `subscriptions/listen` (2026-07-28): a request that stays open and carries the change
//! notifications the client opted in to, each tagged with the subscription id.

use mcp_schema::SubscriptionFilter;
use mcp_schema::meta::keys;
use serde_json::{Value, json};
use tokio::sync::broadcast::error::RecvError;

use super::Call;
use crate::error::Error;
use crate::registry::Change;
use crate::session::notification;

pub(super) async fn listen(call: &Call<'_>) -> Result<Value, Error> {
    let filter: SubscriptionFilter = match call.params.get("notifications") {
        Some(v) => serde_json::from_value(v.clone()).map_err(|e| {
            Error::invalid_params(format!("params.notifications is malformed: {e}"))
        })?,
        None => {
            return Err(Error::invalid_params(
                "subscriptions/listen needs params.notifications",
            ));
        }
    };
    let cx = &call.cx.inner;
    let id = serde_json::to_value(&cx.request_id).unwrap_or_default();
    let agreed = SubscriptionFilter {
        tools_list_changed: filter.tools_list_changed.filter(|b| *b),
        prompts_list_changed: filter.prompts_list_changed.filter(|b| *b),
        resources_list_changed: filter.resources_list_changed.filter(|b| *b),
        resource_subscriptions: filter.resource_subscriptions.clone(),
        extra: Default::default(),
    };
    // Subscribe before acknowledging, so no change after the acknowledgement is missed.
    let mut changes = cx.session.server.subscribe_changes();
    let ack = json!({
        "notifications": agreed,
        "_meta": { keys::SUBSCRIPTION_ID: id },
    });
    if cx
        .outlet
        .send(notification(
            "notifications/subscriptions/acknowledged",
            Some(&ack),
        ))
        .await
        .is_err()
    {
        return Err(Error::cancelled());
    }
    let mut cancel = cx.cancel.clone();
    loop {
        let change = tokio::select! {
            change = changes.recv() => change,
            _ = cancel.wait_for(|c| *c) => return Err(Error::cancelled()),
            _ = cx.outlet.closed() => return Err(Error::cancelled()),
            _ = cx.session.server.shutting_down() => {
                return Ok(json!({ "_meta": { keys::SUBSCRIPTION_ID: id } }));
            }
            _ = cx.session.ending() => {
                return Ok(json!({ "_meta": { keys::SUBSCRIPTION_ID: id } }));
            }
        };
        let change = match change {
            Ok(c) => c,
            Err(RecvError::Lagged(n)) => {
                tracing::warn!(missed = n, "a slow subscriber missed change notifications");
                continue;
            }
            Err(RecvError::Closed) => return Ok(json!({ "_meta": { keys::SUBSCRIPTION_ID: id } })),
        };
        let (method, params) = match &change {
            Change::Tools if agreed.tools_list_changed == Some(true) => {
                ("notifications/tools/list_changed", json!({}))
            }
            Change::Prompts if agreed.prompts_list_changed == Some(true) => {
                ("notifications/prompts/list_changed", json!({}))
            }
            Change::Resources if agreed.resources_list_changed == Some(true) => {
                ("notifications/resources/list_changed", json!({}))
            }
            Change::ResourceUpdated(uri)
                if agreed
                    .resource_subscriptions
                    .as_ref()
                    .is_some_and(|subs| subs.iter().any(|s| covers(s, uri))) =>
            {
                ("notifications/resources/updated", json!({ "uri": uri }))
            }
            _ => continue,
        };
        let mut params = params;
        params["_meta"] = json!({ keys::SUBSCRIPTION_ID: id });
        if cx
            .outlet
            .send(notification(method, Some(&params)))
            .await
            .is_err()
        {
            return Err(Error::cancelled());
        }
    }
}

/// A subscription to `sub` covers `uri` itself and its sub-resources (`sub/…`).
fn covers(sub: &str, uri: &str) -> bool {
    uri == sub
        || uri
            .strip_prefix(sub)
            .is_some_and(|rest| sub.ends_with('/') || rest.starts_with('/'))
}
