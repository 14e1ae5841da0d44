//! The tasks that serve what a server sends on its own: requests answered through the
//! handlers, notifications routed to progress listeners, subscriptions, or the handler.

use std::sync::Arc;

use mcp_jsonrpc::{IncomingRequest, Notification};
use mcp_schema::{McpNotification, ProgressNotification};
use serde_json::Value;
use tokio::sync::mpsc;

use super::Shared;
use super::subscription::SubscriptionEvent;
use crate::handlers::{RequestOrigin, ServerNotificationContext, ServerRequestContext};

pub(super) async fn serve_requests(
    shared: Arc<Shared>,
    mut requests: mpsc::Receiver<IncomingRequest>,
) {
    while let Some(request) = requests.recv().await {
        let shared = shared.clone();
        // Each on its own task: a slow handler (a user answering an elicitation) must not
        // hold up the others.
        tokio::spawn(async move {
            let ctx = ServerRequestContext {
                server_name: shared.server.clone(),
                method: request.method.clone(),
                params: request.params.as_ref().map(|_| request.params_value()),
                origin: RequestOrigin::JsonRpc(request.id.clone()),
            };
            let outcome = shared.handlers.answer(ctx).await;
            if let Err(e) = request.respond(outcome).await {
                tracing::debug!(error = %e, "could not answer a server request");
            }
        });
    }
}

pub(super) async fn serve_notifications(
    shared: Arc<Shared>,
    mut notifications: mpsc::Receiver<Notification>,
) {
    while let Some(notification) = notifications.recv().await {
        let params = notification
            .params
            .as_ref()
            .map(|_| notification.params_value());
        if !route(&shared, &notification.method, params.as_ref()) {
            shared
                .handlers
                .notify(ServerNotificationContext {
                    server_name: shared.server.clone(),
                    method: notification.method,
                    params,
                })
                .await;
        }
        shared.handled.send_modify(|n| *n += 1);
    }
    // The connection closed: subscriptions end.
    shared.routes().subscriptions.clear();
}

/// Delivers a notification to the call or subscription it belongs to; false when it belongs
/// to none.
fn route(shared: &Shared, method: &str, params: Option<&Value>) -> bool {
    let Some(params) = params else { return false };
    if method == ProgressNotification::METHOD {
        let token = match params.get("progressToken") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => return false,
        };
        let sender = shared.routes().progress.get(&token).cloned();
        if let Some(sender) = sender {
            if let Ok(update) = serde_json::from_value(params.clone()) {
                // Lossy on purpose: a listener that does not keep up misses updates.
                let _ = sender.try_send(update);
            }
            return true;
        }
        return false;
    }
    let subscription = params
        .get("_meta")
        .and_then(|m| m.get("io.modelcontextprotocol/subscriptionId"))
        .and_then(Value::as_i64);
    if let Some(id) = subscription {
        let event = SubscriptionEvent::Notification {
            method: method.to_owned(),
            params: params.clone(),
        };
        let sender = {
            let mut routes = shared.routes();
            let Some(sender) = routes.subscriptions.get(&id).cloned() else {
                // Its subscription may not be routed yet: keep it for `subscribe` to claim.
                if routes.unclaimed.len() == super::UNCLAIMED_LIMIT {
                    routes.unclaimed.pop_front();
                }
                routes.unclaimed.push_back((id, event));
                return true;
            };
            sender
        };
        if sender.try_send(event).is_err() {
            tracing::warn!(
                subscription = id,
                method,
                "subscription queue full: notification dropped"
            );
        }
        return true;
    }
    false
}
