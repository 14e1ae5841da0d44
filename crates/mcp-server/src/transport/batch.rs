//! JSON-RPC batches (protocol 2025-03-26), on every transport, within limits.
//!
//! A batch is answered with one array holding the answers to its requests in the order of the
//! batch. The limits of [`ServerOptions`](crate::ServerOptions) keep one message from turning
//! into unbounded work: a batch longer than `max_batch_len` is answered with one `-32600`
//! error (JSON-RPC answers a batch it cannot process as a whole with a single error object);
//! at most `batch_concurrency` of its requests run at once; and once the answers would exceed
//! `max_batch_response_bytes`, each further answer is replaced by a `-32603` error saying so —
//! every request still gets exactly one response, as JSON-RPC requires.

use std::sync::Arc;

use mcp_jsonrpc::message::{InvalidMessage, encode_error};
use mcp_jsonrpc::{ErrorObject, Id, Message};
use serde_json::json;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use crate::session::{Outlet, Session};

/// Serves a batch; `None` when nothing is answered (only notifications and responses).
pub(crate) async fn handle_batch(
    session: &Arc<Session>,
    items: Vec<Result<Message, InvalidMessage>>,
    related: &Outlet,
) -> Option<Vec<u8>> {
    let options = &session.shared.options;
    if items.len() > options.max_batch_len {
        let mut out = Vec::new();
        let error = ErrorObject::invalid_request(format!(
            "the batch holds {} messages, more than this server's limit of {} \
             (ServerOptions::max_batch_len): send fewer per batch",
            items.len(),
            options.max_batch_len
        ))
        .with_data(json!({ "limit": options.max_batch_len }));
        encode_error(&mut out, None, &error);
        return Some(out);
    }
    let turns = Arc::new(Semaphore::new(options.batch_concurrency.max(1)));
    let mut running = JoinSet::new();
    let mut answers = Answers::new(options.max_batch_response_bytes);
    for (index, item) in items.into_iter().enumerate() {
        match item {
            Ok(Message::Request(request)) => {
                let turn = turns.clone().acquire_owned().await.ok()?;
                let id = request.id.clone();
                let serve = session.begin_request(request, related.clone());
                running.spawn(async move {
                    let answer = serve.await;
                    drop(turn);
                    (index, id, answer)
                });
            }
            Ok(other) => {
                // An answer or cancellation in a batch that matches nothing here is dropped:
                // batches (2025-03-26) are not relayed to other replicas.
                let _ = session.receive(other);
            }
            Err(invalid) => {
                let mut out = Vec::new();
                Message::Response(invalid.to_response()).encode(&mut out);
                answers.add(index, None, out);
            }
        }
        // Collect what finished meanwhile, so memory holds answers, not finished tasks.
        while let Some(done) = running.try_join_next() {
            answers.take(done);
        }
    }
    while let Some(done) = running.join_next().await {
        answers.take(done);
    }
    answers.into_array()
}

/// The answers of a batch so far, within the response budget.
struct Answers {
    by_index: Vec<(usize, Vec<u8>)>,
    bytes: usize,
    budget: usize,
}

impl Answers {
    fn new(budget: usize) -> Self {
        Self {
            by_index: Vec::new(),
            bytes: 0,
            budget,
        }
    }

    fn take(&mut self, done: Result<(usize, Id, Option<Vec<u8>>), tokio::task::JoinError>) {
        if let Ok((index, id, Some(out))) = done {
            self.add(index, Some(&id), out);
        }
    }

    /// Keeps an answer, or (over the budget) an error in its place.
    fn add(&mut self, index: usize, id: Option<&Id>, answer: Vec<u8>) {
        let answer = if self.bytes + answer.len() > self.budget {
            let mut out = Vec::new();
            let error = ErrorObject::internal_error(format!(
                "the answers to this batch exceed this server's limit of {} bytes \
                 (ServerOptions::max_batch_response_bytes): send this request again on its own",
                self.budget
            ));
            encode_error(&mut out, id, &error);
            out
        } else {
            answer
        };
        self.bytes += answer.len();
        self.by_index.push((index, answer));
    }

    fn into_array(mut self) -> Option<Vec<u8>> {
        if self.by_index.is_empty() {
            return None;
        }
        self.by_index.sort_by_key(|(i, _)| *i);
        let mut out = Vec::with_capacity(self.bytes + self.by_index.len() + 1);
        out.push(b'[');
        for (n, (_, answer)) in self.by_index.iter().enumerate() {
            if n > 0 {
                out.push(b',');
            }
            out.extend_from_slice(answer);
        }
        out.push(b']');
        Some(out)
    }
}
