//! Sending: one POST per message, and reading whatever comes back.

use super::*;
use crate::message::{self, Message, Parsed, Response};

/// A `-32000` error standing for a failed HTTP exchange.
pub(super) fn bridged(message: String, status: Option<StatusCode>, body: Option<&[u8]>) -> Error {
    let mut data = serde_json::Map::new();
    if let Some(status) = status {
        data.insert(message::HTTP_STATUS.into(), json!(status.as_u16()));
    }
    if let Some(body) = body.filter(|b| !b.is_empty()) {
        data.insert("body".into(), json!(crate::connection::preview(body)));
    }
    let mut error = ErrorObject::new(error_codes::SERVER_ERROR, message);
    if !data.is_empty() {
        error.data = Some(data.into());
    }
    Error::Rpc(Box::new(error))
}

impl HttpOutbound {
    pub(crate) async fn send(
        self: &Arc<Self>,
        shared: &Arc<Shared>,
        frame: Frame,
    ) -> Result<(), Error> {
        match frame.kind {
            FrameKind::Request(id) => {
                let task = tokio::spawn(self.clone().post_request(
                    shared.clone(),
                    frame.bytes,
                    frame.headers,
                    id,
                ));
                shared.pending.attach(&id, task.abort_handle());
                Ok(())
            }
            FrameKind::Notification | FrameKind::Response => {
                self.post_message(shared, frame.bytes).await
            }
        }
    }

    pub(crate) fn send_detached(self: &Arc<Self>, shared: &Arc<Shared>, frame: Frame) -> bool {
        let Ok(permit) = self.detached.clone().try_acquire_owned() else {
            return false;
        };
        let this = self.clone();
        let shared = shared.clone();
        tokio::spawn(async move {
            if let Err(e) = this.post_message(&shared, frame.bytes).await {
                tracing::warn!(error = %e, "could not deliver an automatic reply to the server");
            }
            drop(permit);
        });
        true
    }

    /// POSTs a notification or a response; the server accepts it with `202`. Bounded by
    /// `request_timeout` like every POST exchange, so that a server that never answers cannot
    /// hold `notify` (or an automatic reply's slot) forever. A refusal the authorizer answers
    /// is sent again (the time it takes is not counted).
    pub(super) async fn post_message(
        self: &Arc<Self>,
        shared: &Arc<Shared>,
        bytes: Vec<u8>,
    ) -> Result<(), Error> {
        match self
            .authorized(bytes, |bytes| self.timed_message(shared, bytes))
            .await?
        {
            None => Ok(()),
            Some(refusal) => Err(self.message_refused(refusal.status, &refusal.body)),
        }
    }

    /// One attempt at a notification or response, bounded by `request_timeout`.
    async fn timed_message(
        self: &Arc<Self>,
        shared: &Arc<Shared>,
        bytes: Vec<u8>,
    ) -> Result<Attempt, Error> {
        let exchange = self.post_message_exchange(shared, bytes);
        match self.request_timeout {
            Some(limit) => tokio::time::timeout(limit, exchange)
                .await
                .unwrap_or_else(|_| {
                    Err(Error::Http(format!(
                        "POST {} timed out after {limit:?} (request_timeout)",
                        self.post_shown
                    )))
                }),
            None => exchange.await,
        }
    }

    /// Makes `attempt`s at sending `bytes` until one is not refused, or a refusal stands:
    /// each refusal goes to the authorizer first (outside the attempt's timeout), and is
    /// sent again when it says so, at most [`MAX_AUTH_RETRIES`] times. `Ok(None)`: done;
    /// `Ok(Some(refusal))`: the refusal to report; `Err`: the attempt's or the authorizer's
    /// error.
    async fn authorized<F, Fut>(
        &self,
        bytes: Vec<u8>,
        mut attempt: F,
    ) -> Result<Option<Refusal>, Error>
    where
        F: FnMut(Vec<u8>) -> Fut,
        Fut: std::future::Future<Output = Result<Attempt, Error>>,
    {
        let mut bytes = bytes;
        let mut retries = 0;
        loop {
            self.prepare_authorization().await;
            let again = self.keep_for_retry(&bytes, retries);
            let refusal = match attempt(bytes).await? {
                Attempt::Finished => return Ok(None),
                Attempt::Refused(refusal) => refusal,
            };
            match again {
                Some(copy) if self.authorize(&refusal.challenge).await? == AuthOutcome::Retry => {
                    retries += 1;
                    bytes = copy;
                }
                _ => return Ok(Some(refusal)),
            }
        }
    }

    /// A copy of a message for sending it again after a refusal, while the authorizer may
    /// still answer one.
    fn keep_for_retry(&self, bytes: &[u8], retries: usize) -> Option<Vec<u8>> {
        (self.authorizer.is_some() && retries < MAX_AUTH_RETRIES).then(|| bytes.to_vec())
    }

    /// The error of a notification or response the server refused.
    fn message_refused(&self, status: StatusCode, body: &[u8]) -> Error {
        Error::Http(format!(
            "POST {}: HTTP {status}{}",
            self.post_shown,
            if body.is_empty() {
                String::new()
            } else {
                format!(": {}", crate::connection::preview(body))
            }
        ))
    }

    pub(super) async fn post_message_exchange(
        self: &Arc<Self>,
        shared: &Arc<Shared>,
        bytes: Vec<u8>,
    ) -> Result<Attempt, Error> {
        let sent_at = std::time::Instant::now();
        let response = self.post(bytes, &[]).await.map_err(|e| {
            Error::Http(format!(
                "POST {} failed: {}",
                self.post_shown,
                cause::described(e)
            ))
        })?;
        self.note_session(&response);
        let status = response.status();
        if status == StatusCode::ACCEPTED {
            self.retry_get_stream(Trigger::Accepted);
        }
        if let Some(challenge) = self.challenge(&Method::POST, &response, sent_at) {
            return Ok(Attempt::Refused(Refusal::read(challenge, response).await));
        }
        if !status.is_success() {
            let body = read_limited(response, ERROR_BODY_LIMIT)
                .await
                .unwrap_or_default();
            return Err(self.message_refused(status, &body));
        }
        if is_event_stream(&response) {
            // Unusual for a notification, but whatever the server streams is delivered.
            let this = self.clone();
            let shared = shared.clone();
            tokio::spawn(async move {
                let mut parser = SseParser::new(this.max_message_bytes);
                tokio::select! {
                    _ = this.pump(&shared, response, &mut parser, None) => {}
                    () = shared.closed() => {}
                }
            });
        } else if let Ok(body) = read_limited(response, self.max_message_bytes).await {
            self.deliver(shared, &body);
        }
        Ok(Attempt::Finished)
    }

    pub(super) async fn post(
        &self,
        bytes: Vec<u8>,
        headers: &[(String, String)],
    ) -> Result<reqwest::Response, reqwest::Error> {
        let mut request = self.request(Method::POST, &self.post_url);
        for (name, value) in headers {
            // Validated when the request was started.
            if let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(value),
            ) {
                request = request.header(name, value);
            }
        }
        request
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream")
            .body(bytes)
            .send()
            .await
    }

    pub(super) fn deliver(&self, shared: &Arc<Shared>, bytes: &[u8]) {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        self.log(bytes);
        shared.dispatch(bytes);
    }

    /// Carries one request: POST, then read the answer however it comes. Whatever goes wrong
    /// becomes the request's error response. A refusal the authorizer answers is sent again,
    /// each attempt with a fresh `request_timeout` (authorizing may wait for a person).
    pub(super) async fn post_request(
        self: Arc<Self>,
        shared: Arc<Shared>,
        bytes: Vec<u8>,
        headers: Vec<(String, String)>,
        id: i64,
    ) {
        let outcome = match self
            .authorized(bytes, |bytes| {
                self.timed_exchange(&shared, bytes, &headers, id)
            })
            .await
        {
            Ok(None) => Ok(()),
            Ok(Some(refusal)) => self.refused(&shared, refusal.status, &refusal.body, id),
            Err(error) => Err(error),
        };
        if let Err(error) = outcome {
            shared.complete(id, Err(error));
        }
    }

    /// One attempt at a request, bounded by `request_timeout`, the wait for an answer the
    /// server promised with `202` included.
    async fn timed_exchange(
        self: &Arc<Self>,
        shared: &Arc<Shared>,
        bytes: Vec<u8>,
        headers: &[(String, String)],
        id: i64,
    ) -> Result<Attempt, Error> {
        let started = tokio::time::Instant::now();
        let exchange = self.exchange(shared, bytes, headers, id);
        let timed_out = |limit: Duration, what: &str| {
            Err(bridged(
                format!("HTTP request timed out after {limit:?} (request_timeout){what}"),
                None,
                None,
            ))
        };
        match self.request_timeout {
            Some(limit) => match tokio::time::timeout(limit, exchange).await {
                Ok(Ok(Attempt::Finished)) if shared.is_pending(id) => {
                    // The server accepted the request with `202`: its answer is to come on the
                    // GET stream, and `request_timeout` still bounds the wait for it. When the
                    // answer comes first, completing below does nothing (and this task is
                    // aborted if the caller abandons the request).
                    tokio::time::sleep_until(started + limit).await;
                    timed_out(
                        limit,
                        " waiting for the answer to a request the server accepted with 202",
                    )
                }
                Ok(outcome) => outcome,
                Err(_) => timed_out(limit, ""),
            },
            None => exchange.await,
        }
    }

    pub(super) async fn exchange(
        self: &Arc<Self>,
        shared: &Arc<Shared>,
        bytes: Vec<u8>,
        headers: &[(String, String)],
        id: i64,
    ) -> Result<Attempt, Error> {
        let sent_at = std::time::Instant::now();
        let response = self.post(bytes, headers).await.map_err(|e| {
            let unreached = e.is_connect();
            let mut error = bridged(
                format!("POST {} failed: {}", self.post_shown, cause::described(e)),
                None,
                None,
            );
            // No connection, so no byte of the request reached the server.
            if let (true, Error::Rpc(object)) = (unreached, &mut error) {
                object.data = Some(json!({ message::NOT_DELIVERED: true }));
            }
            error
        })?;
        self.note_session(&response);
        let status = response.status();
        if status == StatusCode::ACCEPTED {
            // The answer will arrive on the GET stream.
            self.retry_get_stream(Trigger::Accepted);
            return Ok(Attempt::Finished);
        }
        if let Some(challenge) = self.challenge(&Method::POST, &response, sent_at) {
            return Ok(Attempt::Refused(Refusal::read(challenge, response).await));
        }
        if !status.is_success() {
            let body = read_limited(response, ERROR_BODY_LIMIT)
                .await
                .unwrap_or_default();
            self.refused(shared, status, &body, id)?;
            return Ok(Attempt::Finished);
        }
        if is_event_stream(&response) {
            let mut parser = SseParser::new(self.max_message_bytes);
            let mut response = response;
            loop {
                let ended = self.pump(shared, response, &mut parser, Some(id)).await;
                if !shared.is_pending(id) {
                    return Ok(Attempt::Finished);
                }
                let why = match ended {
                    // An explicit end of the stream: nothing is to be resumed.
                    Ok(StreamEnd::Done) => {
                        return Err(bridged(
                            "the SSE response stream ended with [DONE] before the response arrived"
                                .into(),
                            Some(status),
                            None,
                        ));
                    }
                    Ok(StreamEnd::Ended | StreamEnd::Answered) => "it ended".to_owned(),
                    Err(e) => e.to_string(),
                };
                parser.finish();
                let Some(last) = parser.last_event_id().map(str::to_owned) else {
                    return Err(bridged(
                        format!(
                            "the SSE response stream closed before the response arrived ({why})"
                        ),
                        Some(status),
                        None,
                    ));
                };
                response = self
                    .resume_with_retries(&parser, &last)
                    .await
                    .map_err(|e| {
                        bridged(
                            format!(
                                "the SSE response stream broke ({why}) and {MAX_RESUME_ATTEMPTS} \
                                 resumptions with Last-Event-ID failed (last: {e})"
                            ),
                            Some(status),
                            None,
                        )
                    })?;
            }
        }
        match read_limited(response, self.max_message_bytes).await {
            Ok(body) => self.deliver(shared, &body),
            Err(BodyError::TooLarge) => {
                shared.oversized(Some(Id::Number(id)), false);
                return Ok(Attempt::Finished);
            }
            Err(BodyError::Http(e)) => {
                return Err(bridged(
                    format!("reading the response body failed: {}", cause::described(e)),
                    Some(status),
                    None,
                ));
            }
        }
        if shared.is_pending(id) {
            return Err(bridged(
                format!("HTTP {status} carried no JSON-RPC response for this request"),
                Some(status),
                None,
            ));
        }
        Ok(Attempt::Finished)
    }

    /// What a request refused with a non-success status comes to: the JSON-RPC error the body
    /// carries, else the status as a `-32000` error. `Ok` when the body answered the request.
    fn refused(
        &self,
        shared: &Arc<Shared>,
        status: StatusCode,
        body: &[u8],
        id: i64,
    ) -> Result<(), Error> {
        // A modern server answers with a JSON-RPC error in the body (e.g. 404 + -32601).
        // One with a null id (the server could not or would not read ours) still answers
        // the request this POST carried: it is the only one the exchange can be about.
        // The HTTP status goes with it (`data.httpStatus`, when the server sent no data):
        // a 404 says the session is gone, which the error code alone may not.
        if let Ok(Parsed::Single(Ok(Message::Response(Response {
            id: answered,
            outcome: Err(mut error),
        })))) = message::parse(body)
            && answered.as_ref().is_none_or(|a| a.as_i64() == Some(id))
        {
            self.log(body);
            if error.data.is_none() {
                error.data = Some(json!({ message::HTTP_STATUS: status.as_u16() }));
            }
            return Err(Error::Rpc(Box::new(error)));
        }
        if body.first().is_some_and(|b| *b == b'{' || *b == b'[') {
            self.deliver(shared, body);
            if !shared.is_pending(id) {
                return Ok(());
            }
        }
        Err(bridged(
            self.status_message(status),
            Some(status),
            Some(body),
        ))
    }

    pub(super) fn status_message(&self, status: StatusCode) -> String {
        let mut message = format!("HTTP {status} from POST {}", self.post_shown);
        if status == StatusCode::NOT_FOUND && self.session.lock().is_some() {
            message.push_str(" (the server no longer knows this session: it expired or was deleted; reconnect to start a new one)");
        } else if status.is_redirection() {
            message.push_str(" (redirects are not followed unless follow_redirects is set)");
        }
        message
    }
}

/// How one attempt at an exchange ended.
pub(super) enum Attempt {
    /// Done: the request was answered or failed (its outcome is delivered), or the message
    /// was accepted.
    Finished,
    /// Refused with 401 or 403, for the authorizer to answer.
    Refused(Refusal),
}

/// A refusal, with what is needed to report it if it stands.
pub(super) struct Refusal {
    challenge: AuthChallenge,
    status: StatusCode,
    body: Vec<u8>,
}

impl Refusal {
    async fn read(challenge: AuthChallenge, response: reqwest::Response) -> Self {
        let status = response.status();
        let body = read_limited(response, ERROR_BODY_LIMIT)
            .await
            .unwrap_or_default();
        Self {
            challenge,
            status,
            body,
        }
    }
}

/// Why [`read_limited`] read no body.
#[derive(Debug)]
pub enum BodyError {
    /// The body is larger than the limit (by its `Content-Length`, or as it arrived).
    TooLarge,
    /// Reading it failed.
    Http(reqwest::Error),
}

/// Reads a whole response body, refusing to hold more than `limit` bytes: a `Content-Length`
/// over the limit is refused before reading, a body that grows past it as soon as it does.
pub async fn read_limited(
    mut response: reqwest::Response,
    limit: usize,
) -> Result<Vec<u8>, BodyError> {
    if response.content_length().is_some_and(|n| n > limit as u64) {
        return Err(BodyError::TooLarge);
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(BodyError::Http)? {
        if body.len() + chunk.len() > limit {
            return Err(BodyError::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}
