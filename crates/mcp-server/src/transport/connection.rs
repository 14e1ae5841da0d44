//! One connection's messages into its session, and the answers back: what stdio (a line per
//! message) and WebSocket (a text frame per message) share.
//!
//! Requests run concurrently, each answered when done, at most
//! [`ServerOptions::max_in_flight`](crate::ServerOptions::max_in_flight) at once: one more is
//! answered `-32012` at once and the connection goes on (reading never stops, so a response
//! the client sends to a request of ours always gets through). Notifications and responses are
//! handled in order, at once; bad input is answered and the connection goes on.

use std::sync::Arc;

use mcp_jsonrpc::message::{Parsed, encode_error, parse};
use mcp_jsonrpc::{ErrorObject, Message};
use tokio_util::task::TaskTracker;

use super::batch::handle_batch;
use crate::middleware::codes;
use crate::session::{Outbound, Outlet, Session};

/// A stream connection being served.
pub(crate) struct Connection {
    session: Arc<Session>,
    outlet: Outlet,
    /// The requests (and batches) in flight.
    tasks: TaskTracker,
    max_in_flight: usize,
}

impl Connection {
    /// Serves `session`, whose answers go to `outlet` (also its push outlet: list changes and
    /// resource updates go there too).
    pub(crate) fn new(session: Arc<Session>, outlet: Outlet) -> Self {
        session.set_push(Some(outlet.clone()));
        let max_in_flight = session.shared.options.max_in_flight.max(1);
        Self {
            session,
            outlet,
            tasks: TaskTracker::new(),
            max_in_flight,
        }
    }

    pub(crate) fn session(&self) -> &Arc<Session> {
        &self.session
    }

    /// Handles one message (or batch) as read.
    pub(crate) async fn on_frame(&self, frame: &[u8]) {
        let parsed = match parse(frame) {
            Ok(parsed) => parsed,
            Err(e) => return self.send_error(None, &ErrorObject::parse_error(e)).await,
        };
        match parsed {
            Parsed::Single(Err(invalid)) => {
                self.send(Message::Response(invalid.to_response()).to_vec())
                    .await;
            }
            Parsed::Single(Ok(Message::Request(request))) => {
                if self.tasks.len() >= self.max_in_flight {
                    return self.send_error(Some(&request.id), &self.too_busy()).await;
                }
                let serve = self.session.begin_request(request, self.outlet.clone());
                let outlet = self.outlet.clone();
                self.tasks.spawn(async move {
                    if let Some(out) = serve.await {
                        let _ = outlet.send(Outbound::Message(out)).await;
                    }
                });
            }
            Parsed::Single(Ok(other)) => {
                // A connection's session lives in this process only.
                let _ = self.session.receive(other);
            }
            Parsed::Batch(items) => {
                if self.tasks.len() >= self.max_in_flight {
                    return self.send_error(None, &self.too_busy()).await;
                }
                let session = self.session.clone();
                let outlet = self.outlet.clone();
                self.tasks.spawn(async move {
                    if let Some(answers) = handle_batch(&session, items, &outlet).await {
                        let _ = outlet.send(Outbound::Message(answers)).await;
                    }
                });
            }
        }
    }

    /// The client will send nothing more: requests waiting on it fail, the others run to
    /// completion (awaited here), then the session ends.
    pub(crate) async fn finish(&self) {
        self.session.input_closed();
        self.wait().await;
        self.session.close();
    }

    /// Waits until every request in flight answered (none can start after).
    pub(crate) async fn wait(&self) {
        self.tasks.close();
        self.tasks.wait().await;
    }

    /// Sends an encoded message (waiting while the outlet is full: back-pressure).
    pub(crate) async fn send(&self, message: Vec<u8>) {
        let _ = self.outlet.send(Outbound::Message(message)).await;
    }

    /// Sends an error response.
    pub(crate) async fn send_error(&self, id: Option<&mcp_jsonrpc::Id>, error: &ErrorObject) {
        let mut out = Vec::new();
        encode_error(&mut out, id, error);
        self.send(out).await;
    }

    fn too_busy(&self) -> ErrorObject {
        let limit = self.max_in_flight;
        ErrorObject::new(
            codes::OVERLOADED,
            format!(
                "too many requests in flight on this connection (the limit is {limit}, \
                 ServerOptions::max_in_flight): wait for answers before sending more"
            ),
        )
        .with_data(serde_json::json!({ "limit": limit }))
    }
}
