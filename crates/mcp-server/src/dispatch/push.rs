//! Messages unrelated to any request: registry changes sent to a stateful session's push
//! outlet (stdout, a WebSocket, the HTTP GET stream) as `list_changed` and
//! `resources/updated` notifications.

use std::sync::{Arc, Weak};

use mcp_schema::{
    PromptListChangedNotification, ResourceListChangedNotification, ResourceUpdatedNotification,
    ResourceUpdatedNotificationParams, ToolListChangedNotification,
};
use tokio::sync::broadcast::{self, error::RecvError};

use crate::registry::Change;
use crate::session::{Outlet, Push, Session, notification};

/// Sets (or clears) the session's push outlet and starts forwarding changes there.
pub(super) fn set(session: &Arc<Session>, outlet: Option<Outlet>) {
    let push = outlet.map(|outlet| {
        // Subscribed here, not in the task, so that no change made after this call is missed
        // (the task may first run later).
        let changes = session.server().inner.registry.subscribe();
        let forwarder = tokio::spawn(forward(Arc::downgrade(session), outlet, changes));
        Push::new(forwarder.abort_handle(), session.shared.metrics.clone())
    });
    session.replace_push(push);
}

/// Sends registry changes to a stateful session's push outlet until it closes.
async fn forward(session: Weak<Session>, outlet: Outlet, mut changes: broadcast::Receiver<Change>) {
    loop {
        let change = tokio::select! {
            change = changes.recv() => change,
            _ = outlet.closed() => return,
        };
        let change = match change {
            Ok(c) => c,
            Err(RecvError::Lagged(n)) => {
                tracing::warn!(missed = n, "a slow session missed change notifications");
                continue;
            }
            Err(RecvError::Closed) => return,
        };
        let Some(session) = session.upgrade() else {
            return;
        };
        let negotiated = session.negotiated();
        if !negotiated.initialized && negotiated.version.is_none() {
            continue;
        }
        let message = match &change {
            Change::Tools => notification::<ToolListChangedNotification>(None),
            Change::Prompts => notification::<PromptListChangedNotification>(None),
            Change::Resources => notification::<ResourceListChangedNotification>(None),
            Change::ResourceUpdated(uri) => {
                // With other replicas, the client may have subscribed on any of them.
                let subscribed = match (session.shared.replicas.get(), &session.id) {
                    (Some(replicas), Some(id)) => replicas.is_subscribed(id, uri),
                    _ => Box::pin(std::future::ready(session.is_subscribed(uri))),
                };
                if !subscribed.await {
                    continue;
                }
                let params = ResourceUpdatedNotificationParams::new(uri.clone());
                notification::<ResourceUpdatedNotification>(Some(&params))
            }
        };
        drop(session);
        if outlet.send(message).await.is_err() {
            return;
        }
    }
}
