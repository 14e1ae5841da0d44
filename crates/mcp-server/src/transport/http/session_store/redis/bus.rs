//! Messages between replicas over Redis pub/sub: `P:bus` reaches every replica, `P:bus:ID`
//! replica ID only. The subscriptions ride a connection manager of their own (RESP3 pushes),
//! which subscribes again by itself after a reconnection.

use std::sync::{Arc, Weak};

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{PushInfo, PushKind, Value};
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use super::Inner;
use crate::transport::http::session_store::{BusMessage, StoreError};

/// A message as published: who sent it, and what.
#[derive(Serialize, Deserialize)]
struct Envelope {
    from: String,
    message: BusMessage,
}

fn channel(inner: &Inner, replica: Option<&str>) -> String {
    match replica {
        Some(replica) => format!("{}:bus:{replica}", inner.options.prefix),
        None => format!("{}:bus", inner.options.prefix),
    }
}

/// Subscribes this replica to its channels and starts delivering what arrives.
pub(super) async fn start(
    inner: &Arc<Inner>,
    config: ConnectionManagerConfig,
) -> Result<(), StoreError> {
    let (tx, rx) = mpsc::unbounded_channel::<PushInfo>();
    let info = inner.client.get_connection_info().clone();
    let resp3 = info
        .redis_settings()
        .clone()
        .set_protocol(redis::ProtocolVersion::RESP3);
    let client =
        redis::Client::open(info.set_redis_settings(resp3)).map_err(|e| inner.unavailable(e))?;
    let config = config.set_push_sender(tx).set_automatic_resubscription();
    let mut conn = inner
        .run_anyway(ConnectionManager::new_with_config(client, config))
        .await?;
    for name in [channel(inner, None), channel(inner, Some(&inner.replica))] {
        inner.run_anyway(conn.subscribe(name)).await?;
    }
    let _ = inner.bus_conn.set(conn);
    tokio::spawn(deliver(Arc::downgrade(inner), rx));
    Ok(())
}

/// A command on the subscribed connection: after Redis came back, the manager reconnects
/// (and subscribes again) only when asked to do something.
pub(super) async fn probe(inner: &Inner) {
    if let Some(conn) = inner.bus_conn.get() {
        let mut conn = conn.clone();
        let _ = inner
            .run_anyway(redis::cmd("PING").query_async::<Value>(&mut conn))
            .await;
    }
}

/// Hands each message from another replica to this one's listeners.
async fn deliver(store: Weak<Inner>, mut rx: mpsc::UnboundedReceiver<PushInfo>) {
    while let Some(push) = rx.recv().await {
        let Some(inner) = store.upgrade() else {
            return;
        };
        match push.kind {
            PushKind::Message => {}
            PushKind::Disconnection => {
                inner.mark_down("the connection to Redis closed");
                continue;
            }
            _ => continue,
        }
        // [channel, payload]
        let Some(payload) = push.data.into_iter().nth(1) else {
            continue;
        };
        let Ok(payload) = redis::from_redis_value::<Vec<u8>>(payload) else {
            continue;
        };
        match serde_json::from_slice::<Envelope>(&payload) {
            Ok(envelope) if envelope.from != inner.replica => {
                let _ = inner.bus.send(envelope.message);
            }
            Ok(_) => {}
            Err(e) => tracing::debug!("an unreadable message on the session bus: {e}"),
        }
    }
}

/// Publishes `message` to replica `to`, or to all; false when a directed message reached no
/// one.
pub(super) async fn publish(
    inner: &Inner,
    to: Option<&str>,
    message: &BusMessage,
) -> Result<bool, StoreError> {
    let envelope = Envelope {
        from: inner.replica.clone(),
        message: message.clone(),
    };
    let payload = serde_json::to_vec(&envelope).map_err(|e| inner.unavailable(e))?;
    let mut conn = inner.conn()?;
    let receivers: i64 = inner
        .run(
            redis::cmd("PUBLISH")
                .arg(channel(inner, to))
                .arg(payload)
                .query_async(&mut conn),
        )
        .await?;
    Ok(receivers > 0)
}
