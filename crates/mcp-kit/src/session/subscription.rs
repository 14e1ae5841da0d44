//! `subscriptions/listen` (2026-07-28): a long-lived request whose notifications carry its id.

use std::sync::Arc;

use mcp_jsonrpc::Id;
use mcp_schema::{
    Era, McpNotification, McpRequest, SubscriptionsAcknowledgedNotification,
    SubscriptionsListenRequest,
};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::request::send_cancelled_detached;
use super::{Session, Shared};
use crate::Error;

/// Notifications buffered per subscription; more are dropped with a warning.
const SUBSCRIPTION_BUFFER: usize = 256;

pub(crate) enum SubscriptionEvent {
    Notification { method: String, params: Value },
}

/// An open `subscriptions/listen` stream. Dropping it cancels the subscription (closing the
/// HTTP stream, or `notifications/cancelled` on stdio).
pub struct Subscription {
    id: i64,
    acknowledged: Value,
    events: mpsc::Receiver<SubscriptionEvent>,
    shared: Arc<Shared>,
    listen: JoinHandle<Result<Box<serde_json::value::RawValue>, mcp_jsonrpc::Error>>,
}

impl std::fmt::Debug for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription")
            .field("id", &self.id)
            .field("acknowledged", &self.acknowledged)
            .finish_non_exhaustive()
    }
}

impl Subscription {
    /// The subscription id: the JSON-RPC id of its `subscriptions/listen` request.
    pub fn id(&self) -> i64 {
        self.id
    }

    /// The filter the server agreed to honour (from `notifications/subscriptions/acknowledged`).
    pub fn acknowledged(&self) -> &Value {
        &self.acknowledged
    }

    /// The next notification (`method`, `params`); `None` once the server ended the
    /// subscription or the connection closed.
    pub async fn next(&mut self) -> Option<(String, Value)> {
        match self.events.recv().await? {
            SubscriptionEvent::Notification { method, params } => Some((method, params)),
        }
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.listen.abort();
        self.shared.routes().subscriptions.remove(&self.id);
        // Over HTTP, the listen request's stream closing (its task aborted above) cancels it.
        if !self.shared.http {
            send_cancelled_detached(
                &self.shared,
                &Id::Number(self.id),
                "subscription closed by the client",
            );
        }
    }
}

impl Session {
    /// Opens a `subscriptions/listen` stream (2026-07-28) with this notification filter, e.g.
    /// `{"toolsListChanged": true, "resourceSubscriptions": ["file:///a"]}`, and waits for the
    /// server's acknowledgment. In the stateful era use
    /// [`subscribe_resource`](Self::subscribe_resource) and the notification handler instead.
    pub async fn subscribe(&self, filter: Value) -> Result<Subscription, Error> {
        const METHOD: &str = SubscriptionsListenRequest::METHOD;
        if self.negotiated.era() != Era::Stateless {
            return Err(Error::Protocol {
                server: self.server_name().to_owned(),
                message: format!(
                    "{METHOD} needs the 2026-07-28 protocol, but this session negotiated {}",
                    self.protocol_version()
                ),
            });
        }
        let params = self.prepare_params(METHOD, Some(json!({ "notifications": filter })), None)?;
        let headers = self.era_headers(METHOD, params.as_ref());
        let pending = self
            .shared
            .handle
            .start_request_with_headers(METHOD, params.as_ref(), headers)
            .await
            .map_err(|e| self.request_error(METHOD, e))?;
        let id = pending.id().as_i64().unwrap_or_default();
        let (tx, mut events) = mpsc::channel(SUBSCRIPTION_BUFFER);
        {
            // Under the routes lock, so that nothing slips between the early ones and the rest.
            let mut routes = self.shared.routes();
            let early: std::collections::VecDeque<_> = {
                let (mine, others) = std::mem::take(&mut routes.unclaimed)
                    .into_iter()
                    .partition(|(owner, _)| *owner == id);
                routes.unclaimed = others;
                mine
            };
            for (_, event) in early {
                let _ = tx.try_send(event);
            }
            routes.subscriptions.insert(id, tx);
        }
        let shared = self.shared.clone();
        let listen = tokio::spawn(async move {
            // Resolves when the server ends the subscription (or the connection goes).
            let outcome = pending.await;
            shared.routes().subscriptions.remove(&id);
            outcome
        });
        let first = tokio::time::timeout(self.timeout, events.recv()).await;
        if let Ok(None) = first {
            // The request itself ended before any acknowledgment: report what the server said.
            return Err(match listen.await {
                Ok(Err(e)) => self.request_error(METHOD, e),
                _ => Error::Protocol {
                    server: self.server_name().to_owned(),
                    message: format!("subscription {id} ended before it was acknowledged"),
                },
            });
        }
        // From here on, dropping `subscription` (on success or failure) cancels it.
        let mut subscription = Subscription {
            id,
            acknowledged: Value::Null,
            events,
            shared: self.shared.clone(),
            listen,
        };
        match first {
            Ok(Some(SubscriptionEvent::Notification { method, params }))
                if method == SubscriptionsAcknowledgedNotification::METHOD =>
            {
                subscription.acknowledged =
                    params.get("notifications").cloned().unwrap_or(Value::Null);
                Ok(subscription)
            }
            Ok(Some(SubscriptionEvent::Notification { method, .. })) => Err(Error::Protocol {
                server: self.server_name().to_owned(),
                message: format!(
                    "the first message of subscription {id} was {method}, not notifications/subscriptions/acknowledged"
                ),
            }),
            Ok(None) | Err(_) => Err(Error::Timeout {
                method: METHOD.into(),
                timeout: self.timeout,
            }),
        }
    }
}
