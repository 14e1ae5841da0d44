//! The events of SSE streams in Redis Streams: written in order by one task per replica
//! (the transport never waits for them), read back to resume a stream on any replica, and
//! followed while another replica still writes them.

use std::sync::{Arc, Weak};
use std::time::Duration;

use axum::body::Bytes;
use redis::Value;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use super::{Inner, scripts};
use crate::transport::http::session_store::{Followed, StoreError, StoredStream};

/// The entry id that ends a stream (above every event's `0-seq`).
const END: &str = "1-0";
/// Writes sent in one round trip, at most.
const BATCH: usize = 256;
/// How long one read of a followed stream waits for news before checking its writer.
const FOLLOW_BLOCK: Duration = Duration::from_secs(1);

/// Who writes a stream, and for which request.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Meta {
    pub(super) owner: String,
    /// The request's id, encoded as JSON (`None`: the GET stream).
    pub(super) request: Option<String>,
}

/// One write of the event log of `session`'s stream `stream`.
pub(super) struct Op {
    pub(super) session: String,
    pub(super) stream: u64,
    pub(super) write: Write,
}

pub(super) enum Write {
    /// The stream starts: who writes it.
    Open(Meta),
    /// Event `seq`.
    Event(u64, Bytes),
    /// The stream ends.
    End,
}

pub(super) fn queue(inner: &Inner, op: Op) {
    // The writer lives as long as the store; before `start` writes wait in the queue.
    let _ = inner.log.send(op);
}

/// Writes the queued operations in order, a batch per round trip.
pub(super) async fn writer(store: Weak<Inner>, mut rx: mpsc::UnboundedReceiver<Op>) {
    let script = &*scripts::STREAMING;
    let mut batch = Vec::with_capacity(BATCH);
    while rx.recv_many(&mut batch, BATCH).await > 0 {
        let Some(inner) = store.upgrade() else {
            return;
        };
        let ttl = inner.ttl_ms();
        let max = inner.options.max_events_per_stream;
        // The script is loaded once per batch (a restarted Redis forgot it); each write then
        // goes by its hash.
        let mut pipe = redis::pipe();
        pipe.ignore_errors();
        pipe.cmd("SCRIPT").arg("LOAD").arg(scripts::STREAM).ignore();
        for op in batch.drain(..) {
            let cmd = pipe
                .cmd("EVALSHA")
                .arg(script.get_hash())
                .arg(3)
                .arg(inner.key(&op.session, "rec"))
                .arg(inner.key(&op.session, "streams"))
                .arg(inner.stream_key(&op.session, op.stream))
                .arg(ttl);
            match op.write {
                Write::Open(meta) => {
                    let meta = serde_json::to_string(&meta).unwrap_or_default();
                    cmd.arg("open").arg(op.stream).arg(meta)
                }
                Write::Event(seq, message) => {
                    cmd.arg("event").arg(seq).arg(message.as_ref()).arg(max)
                }
                Write::End => cmd.arg("end"),
            }
            .ignore();
        }
        let Ok(mut conn) = inner.conn() else {
            continue;
        };
        // Stream events are not worth a fast failure: a write while Redis is down is lost
        // (the connection that carries the stream still gets every event).
        if let Err(e) = inner.run_anyway(pipe.query_async::<()>(&mut conn)).await {
            tracing::warn!("stream events not stored in the session store: {e}");
        }
    }
}

/// One entry of a stream: `None` for the end marker.
fn entry(value: Value) -> Option<Option<(u64, Bytes)>> {
    let Value::Array(parts) = value else {
        return None;
    };
    let mut parts = parts.into_iter();
    let id: String = redis::from_redis_value(parts.next()?).ok()?;
    if id == END {
        return Some(None);
    }
    let seq = id.strip_prefix("0-")?.parse().ok()?;
    let fields: Vec<Vec<u8>> = redis::from_redis_value(parts.next()?).ok()?;
    let message = fields
        .chunks(2)
        .find(|f| f[0] == b"m")
        .map(|f| f[1].clone())?;
    Some(Some((seq, Bytes::from(message))))
}

/// What a list of entries says: the events, and whether the end came.
fn entries(value: Value, into: &mut Vec<(u64, Bytes)>) -> bool {
    let Value::Array(items) = value else {
        return false;
    };
    let mut ended = false;
    for item in items {
        match entry(item) {
            Some(Some(event)) => into.push(event),
            Some(None) => ended = true,
            None => {}
        }
    }
    ended
}

pub(super) async fn replay(
    inner: &Inner,
    session: &str,
    stream: u64,
    after: u64,
) -> Result<Option<StoredStream>, StoreError> {
    let key = inner.stream_key(session, stream);
    let mut conn = inner.conn()?;
    let mut pipe = redis::pipe();
    pipe.cmd("XRANGE")
        .arg(&key)
        .arg(format!("(0-{after}"))
        .arg("+");
    pipe.cmd("XREVRANGE")
        .arg(&key)
        .arg(format!("({END}"))
        .arg("-")
        .arg("COUNT")
        .arg(1);
    pipe.hget(inner.key(session, "streams"), stream);
    let (range, last, meta): (Value, Value, Option<String>) =
        inner.run(pipe.query_async(&mut conn)).await?;
    let mut out = StoredStream::default();
    out.finished = entries(range, &mut out.events);
    let mut newest = Vec::new();
    entries(last, &mut newest);
    out.last = newest.first().map_or(after, |(seq, _)| *seq);
    let meta: Option<Meta> = meta.and_then(|m| serde_json::from_str(&m).ok());
    if meta.is_none() && out.events.is_empty() && !out.finished && newest.is_empty() {
        return Ok(None);
    }
    if let Some(meta) = meta {
        out.owner = Some(meta.owner);
        out.request = meta.request;
    }
    Ok(Some(out))
}

/// Follows a stream another replica writes, on a connection of its own (a blocking read
/// would hold up every command behind it on the shared one).
pub(super) fn follow(
    inner: &Arc<Inner>,
    session: &str,
    stream: u64,
    after: u64,
) -> mpsc::Receiver<Followed> {
    let (tx, rx) = mpsc::channel(64);
    let inner = inner.clone();
    let key = inner.stream_key(session, stream);
    let streams = inner.key(session, "streams");
    tokio::spawn(async move {
        let step = following(&inner, &key, &streams, stream, after, &tx).await;
        let last = match step {
            Ok(last) => last,
            Err(e) => Followed::Failed(e),
        };
        let _ = tx.send(last).await;
    });
    rx
}

async fn following(
    inner: &Inner,
    key: &str,
    streams: &str,
    stream: u64,
    mut after: u64,
    tx: &mpsc::Sender<Followed>,
) -> Result<Followed, StoreError> {
    let config = redis::AsyncConnectionConfig::new()
        .set_connection_timeout(Some(inner.options.op_timeout))
        .set_response_timeout(Some(FOLLOW_BLOCK + inner.options.op_timeout));
    let mut conn = inner
        .run(
            inner
                .client
                .get_multiplexed_async_connection_with_config(&config),
        )
        .await?;
    loop {
        let mut xread = redis::cmd("XREAD");
        xread
            .arg("COUNT")
            .arg(BATCH)
            .arg("BLOCK")
            .arg(FOLLOW_BLOCK.as_millis() as u64)
            .arg("STREAMS")
            .arg(key)
            .arg(format!("0-{after}"));
        let xread = xread.query_async::<Value>(&mut conn);
        // The read waits up to FOLLOW_BLOCK by design: it gets that much more time.
        let read = match tokio::time::timeout(FOLLOW_BLOCK + inner.options.op_timeout, xread).await
        {
            Ok(Ok(read)) => read,
            Ok(Err(e)) => return Err(inner.unavailable(e)),
            Err(_) => return Err(inner.unavailable("a followed stream stopped answering")),
        };
        if tx.is_closed() {
            return Ok(Followed::End);
        }
        // XREAD answers [[key, [entries…]]], or nil when nothing came.
        let mut events = Vec::new();
        let mut ended = false;
        if let Value::Array(per_key) = read {
            for item in per_key {
                if let Value::Array(mut pair) = item
                    && pair.len() == 2
                {
                    ended |= entries(pair.remove(1), &mut events);
                }
            }
        } else {
            // Nothing new: is the writer still there?
            let meta: Option<String> = inner
                .run(
                    redis::cmd("HGET")
                        .arg(streams)
                        .arg(stream)
                        .query_async(&mut conn),
                )
                .await?;
            let meta: Option<Meta> = meta.and_then(|m| serde_json::from_str(&m).ok());
            let Some(meta) = meta else {
                // The session ended (or expired) with its streams.
                return Ok(Followed::End);
            };
            let alive: bool = inner
                .run(
                    redis::cmd("EXISTS")
                        .arg(inner.heartbeat_key(&meta.owner))
                        .query_async(&mut conn),
                )
                .await?;
            if !alive {
                return Ok(Followed::Abandoned(meta.request));
            }
        }
        for (seq, message) in events {
            after = after.max(seq);
            if tx.send(Followed::Event(seq, message)).await.is_err() {
                return Ok(Followed::End);
            }
        }
        if ended {
            return Ok(Followed::End);
        }
    }
}
