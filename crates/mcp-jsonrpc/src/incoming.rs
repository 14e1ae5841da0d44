//! Requests that the peer sends to us, and how they are answered: through [`Replies`], which
//! the connection implements (this layer sits below it).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use parking_lot::Mutex;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::message::{self, params_as};
use crate::{Error, ErrorObject, Id};

/// Where the answers to the peer's requests go.
pub(crate) trait Replies: Send + Sync {
    /// Queues an encoded response, waiting for room.
    fn send_response(
        self: Arc<Self>,
        bytes: Vec<u8>,
    ) -> Pin<Box<dyn Future<Output = Result<(), Error>> + Send>>;
    /// Queues an encoded response without waiting (dropped and counted when there is no room).
    fn send_now(self: Arc<Self>, bytes: Vec<u8>);
}

/// A request from the peer (server→client), which must be answered exactly once.
///
/// Answer with [`respond_ok`](Self::respond_ok), [`respond_error`](Self::respond_error) or
/// [`respond`](Self::respond). A request dropped without an answer is answered
/// `-32603 Internal error` automatically, so the peer never waits forever. Requests that
/// arrived in a batch are answered together in one array once all are answered.
#[derive(Debug)]
pub struct IncomingRequest {
    /// The request id chosen by the peer.
    pub id: Id,
    /// The method name.
    pub method: String,
    /// The parameters, as sent.
    pub params: Option<Box<RawValue>>,
    reply: Option<ReplyTo>,
}

pub(crate) struct ReplyTo {
    pub(crate) sink: Arc<dyn Replies>,
    pub(crate) batch: Option<(Arc<BatchReplies>, usize)>,
}

impl std::fmt::Debug for ReplyTo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReplyTo")
            .field("batch", &self.batch)
            .finish_non_exhaustive()
    }
}

impl IncomingRequest {
    pub(crate) fn new(request: message::Request, reply: ReplyTo) -> Self {
        Self {
            id: request.id,
            method: request.method,
            params: request.params,
            reply: Some(reply),
        }
    }

    /// Deserializes the parameters (absent parameters deserialize from `null`).
    pub fn params_as<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        params_as(self.params.as_deref())
    }

    /// The parameters as a [`Value`] (`Value::Null` when absent).
    pub fn params_value(&self) -> Value {
        self.params_as().unwrap_or(Value::Null)
    }

    /// Answers with a result.
    pub async fn respond_ok<R: Serialize>(mut self, result: R) -> Result<(), Error> {
        let mut bytes = Vec::with_capacity(128);
        if let Err(e) = message::encode_result(&mut bytes, &self.id, &result) {
            let error = ErrorObject::internal_error("the client could not encode its result");
            self.reject_now(error);
            return Err(Error::Encode(e));
        }
        self.deliver(bytes).await
    }

    /// Answers with an error.
    pub async fn respond_error(mut self, error: ErrorObject) -> Result<(), Error> {
        let mut bytes = Vec::with_capacity(128);
        message::encode_error(&mut bytes, Some(&self.id), &error);
        self.deliver(bytes).await
    }

    /// Answers with a result or an error.
    pub async fn respond(self, outcome: Result<Value, ErrorObject>) -> Result<(), Error> {
        match outcome {
            Ok(value) => self.respond_ok(value).await,
            Err(error) => self.respond_error(error).await,
        }
    }

    async fn deliver(&mut self, bytes: Vec<u8>) -> Result<(), Error> {
        let Some(reply) = self.reply.take() else {
            return Ok(());
        };
        match reply.batch {
            Some((batch, index)) => match batch.fill(index, bytes) {
                Some(array) => reply.sink.send_response(array).await,
                None => Ok(()),
            },
            None => reply.sink.send_response(bytes).await,
        }
    }

    /// Answers with an error without waiting for room in the outbound queue (the answer is
    /// dropped and counted when there is none).
    pub(crate) fn reject_now(mut self, error: ErrorObject) {
        self.reject_in_place(&error);
    }

    fn reject_in_place(&mut self, error: &ErrorObject) {
        let Some(reply) = self.reply.take() else {
            return;
        };
        let mut bytes = Vec::with_capacity(128);
        message::encode_error(&mut bytes, Some(&self.id), error);
        match reply.batch {
            Some((batch, index)) => batch.fill_now(reply.sink, index, bytes),
            None => reply.sink.send_now(bytes),
        }
    }
}

impl Drop for IncomingRequest {
    fn drop(&mut self) {
        if self.reply.is_some() {
            tracing::debug!(id = %self.id, method = %self.method, "server→client request dropped without an answer: answering -32603");
            self.reject_in_place(&ErrorObject::internal_error(
                "the client dropped the request without answering it",
            ));
        }
    }
}

/// Collects the answers to one inbound batch.
#[derive(Debug)]
pub(crate) struct BatchReplies {
    parts: Mutex<Vec<Option<Vec<u8>>>>,
    remaining: AtomicUsize,
}

impl BatchReplies {
    pub(crate) fn new(count: usize) -> Arc<Self> {
        Arc::new(Self {
            parts: Mutex::new(vec![None; count]),
            remaining: AtomicUsize::new(count),
        })
    }

    /// Stores one answer; returns the encoded array once the last one is in.
    fn fill(&self, index: usize, bytes: Vec<u8>) -> Option<Vec<u8>> {
        let mut parts = self.parts.lock();
        if let Some(part) = parts.get_mut(index) {
            *part = Some(bytes);
        }
        if self.remaining.fetch_sub(1, Ordering::AcqRel) != 1 {
            return None;
        }
        let mut array = Vec::with_capacity(parts.iter().flatten().map(|p| p.len() + 1).sum());
        array.push(b'[');
        for (i, part) in parts.iter_mut().filter_map(Option::take).enumerate() {
            if i > 0 {
                array.push(b',');
            }
            array.extend_from_slice(&part);
        }
        array.push(b']');
        Some(array)
    }

    pub(crate) fn fill_now(&self, sink: Arc<dyn Replies>, index: usize, bytes: Vec<u8>) {
        if let Some(array) = self.fill(index, bytes) {
            sink.send_now(array);
        }
    }
}
