//! `subscriptions/listen` (2026-07-28): a request that stays open and carries the change
//! notifications the client opted in to, each tagged with the subscription id.

use mcp_schema::{
    HasMeta, Meta, NotificationParams, PromptListChangedNotification,
    ResourceListChangedNotification, ResourceUpdatedNotification,
    ResourceUpdatedNotificationParams, SubscriptionFilter, SubscriptionsAcknowledgedNotification,
    SubscriptionsAcknowledgedNotificationParams, SubscriptionsListenRequestParams,
    SubscriptionsListenResult, ToolListChangedNotification,
};
use tokio::sync::broadcast::error::RecvError;

use super::tasks;
use crate::error::Error;
use crate::middleware::Call;
use crate::registry::Change;
use crate::session::{Outbound, notification};

pub(super) async fn listen(
    call: &Call<'_>,
    params: &SubscriptionsListenRequestParams,
) -> Result<SubscriptionsListenResult, Error> {
    let filter = &params.notifications;
    let cx = &call.cx.inner;
    let tagged = Meta::new().with_subscription_id(&cx.request_id);
    let agreed = SubscriptionFilter {
        tools_list_changed: filter.tools_list_changed.filter(|b| *b),
        prompts_list_changed: filter.prompts_list_changed.filter(|b| *b),
        resources_list_changed: filter.resources_list_changed.filter(|b| *b),
        resource_subscriptions: filter.resource_subscriptions.clone(),
        task_ids: match &filter.task_ids {
            Some(ids) => Some(tasks::followable(call, ids).await?),
            None => None,
        },
        extra: Default::default(),
    };
    // Subscribe before acknowledging, so no change after the acknowledgement is missed.
    let mut changes = call.registry.subscribe();
    let follows_tasks = agreed.task_ids.as_ref().is_some_and(|ids| !ids.is_empty());
    let mut task_changes = cx.session.shared.tasks.subscribe();
    let ack = SubscriptionsAcknowledgedNotificationParams {
        notifications: agreed.clone(),
        meta: Some(tagged.clone()),
        extra: Default::default(),
    };
    send(
        call,
        notification::<SubscriptionsAcknowledgedNotification>(Some(&ack)),
    )
    .await?;
    let finished = || SubscriptionsListenResult::default().with_meta(tagged.clone());
    let shutdown = &cx.session.shared.shutdown;
    loop {
        let change = tokio::select! {
            change = changes.recv() => change,
            task = task_changes.recv(), if follows_tasks => {
                match task {
                    Ok(id) if agreed.task_ids.as_ref().is_some_and(|ids| ids.contains(&id)) => {
                        if let Some(message) = tasks::status_notification(call, &id, &tagged).await {
                            send(call, message).await?;
                        }
                    }
                    Err(RecvError::Lagged(n)) => {
                        tracing::warn!(missed = n, "a slow subscriber missed task notifications");
                    }
                    _ => {}
                }
                continue;
            }
            _ = cx.cancel.cancelled() => return Err(Error::cancelled()),
            _ = cx.outlet.closed() => return Err(Error::cancelled()),
            _ = shutdown.cancelled() => return Ok(finished()),
            _ = cx.session.ending() => return Ok(finished()),
        };
        let change = match change {
            Ok(c) => c,
            Err(RecvError::Lagged(n)) => {
                tracing::warn!(missed = n, "a slow subscriber missed change notifications");
                continue;
            }
            Err(RecvError::Closed) => return Ok(finished()),
        };
        let list_changed = || NotificationParams::default().with_meta(tagged.clone());
        let message = match &change {
            Change::Tools if agreed.tools_list_changed == Some(true) => {
                notification::<ToolListChangedNotification>(Some(&list_changed()))
            }
            Change::Prompts if agreed.prompts_list_changed == Some(true) => {
                notification::<PromptListChangedNotification>(Some(&list_changed()))
            }
            Change::Resources if agreed.resources_list_changed == Some(true) => {
                notification::<ResourceListChangedNotification>(Some(&list_changed()))
            }
            Change::ResourceUpdated(uri)
                if agreed
                    .resource_subscriptions
                    .as_ref()
                    .is_some_and(|subs| subs.iter().any(|s| covers(s, uri))) =>
            {
                let params =
                    ResourceUpdatedNotificationParams::new(uri.clone()).with_meta(tagged.clone());
                notification::<ResourceUpdatedNotification>(Some(&params))
            }
            _ => continue,
        };
        send(call, message).await?;
    }
}

async fn send(call: &Call<'_>, message: Outbound) -> Result<(), Error> {
    call.cx
        .inner
        .outlet
        .send(message)
        .await
        .map_err(|_| Error::cancelled())
}

/// A subscription to `sub` covers `uri` itself and its sub-resources (`sub/…`).
fn covers(sub: &str, uri: &str) -> bool {
    uri == sub
        || uri
            .strip_prefix(sub)
            .is_some_and(|rest| sub.ends_with('/') || rest.starts_with('/'))
}
