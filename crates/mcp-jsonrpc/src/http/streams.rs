//! Reading SSE bodies, and resuming a broken stream with `Last-Event-ID`.

use super::*;

pub(super) fn is_event_stream(response: &reqwest::Response) -> bool {
    content_type(response).starts_with("text/event-stream")
}

fn content_type(response: &reqwest::Response) -> String {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

impl HttpOutbound {
    /// Resumes a broken stream: waits the `retry:` delay the stream asked for (or
    /// [`DEFAULT_RETRY`]), then GETs with `Last-Event-ID`; up to [`MAX_RESUME_ATTEMPTS`]
    /// tries. `parser` must be [finished](SseParser::finish).
    pub(super) async fn resume_with_retries(
        &self,
        parser: &SseParser,
        last_event_id: &str,
    ) -> Result<reqwest::Response, Error> {
        let delay = parser
            .retry_ms()
            .map_or(DEFAULT_RETRY, Duration::from_millis);
        let mut attempt = 0;
        loop {
            attempt += 1;
            tokio::time::sleep(delay).await;
            match self.resume(last_event_id).await {
                Ok(response) => return Ok(response),
                Err(e) if attempt >= MAX_RESUME_ATTEMPTS => return Err(e),
                Err(e) => {
                    tracing::debug!(error = %e, attempt, "resuming an SSE stream failed");
                }
            }
        }
    }

    /// GET of the SSE URL (with `Last-Event-ID` when resuming); `connect_timeout` bounds the
    /// wait for the response's headers.
    pub(super) async fn send_get(
        &self,
        last_event_id: Option<&str>,
    ) -> Result<reqwest::Response, Error> {
        let mut request = self
            .request(Method::GET, &self.sse_url)
            .header(ACCEPT, "text/event-stream");
        if let Some(last) = last_event_id {
            request = request.header(LAST_EVENT_ID, last);
        }
        let send = request.send();
        match self.connect_timeout {
            Some(limit) => tokio::time::timeout(limit, send).await.map_err(|_| {
                Error::Http(format!(
                    "GET {}: no response within connect_timeout",
                    self.sse_shown
                ))
            })?,
            None => send.await,
        }
        .map_err(|e| {
            Error::Http(format!(
                "GET {} failed: {}",
                self.sse_shown,
                cause::described(e)
            ))
        })
    }

    /// GET with `Last-Event-ID` to resume a stream.
    pub(super) async fn resume(&self, last_event_id: &str) -> Result<reqwest::Response, Error> {
        let response = self.send_get(Some(last_event_id)).await?;
        if response.status().is_success() && is_event_stream(&response) {
            Ok(response)
        } else {
            Err(Error::Http(format!(
                "GET {}: HTTP {}",
                self.sse_shown,
                response.status()
            )))
        }
    }

    /// Delivers the events of one SSE body until it ends. With `request`, the body is that
    /// request's response stream: it is let go as soon as the request is answered (a server
    /// that keeps it open must not hold a connection per request), `[DONE]` ends it (nothing
    /// after it is delivered), and an oversized event whose id cannot be read is charged to
    /// the request.
    pub(super) async fn pump(
        &self,
        shared: &Arc<Shared>,
        mut response: reqwest::Response,
        parser: &mut SseParser,
        request: Option<i64>,
    ) -> Result<StreamEnd, Error> {
        let mut done = false;
        while !done {
            let chunk = match response.chunk().await {
                Ok(Some(chunk)) => chunk,
                Ok(None) => return Ok(StreamEnd::Ended),
                Err(e) => {
                    // Broken off inside an event over the limit: that is the failure to
                    // report (the request fails with MessageTooLarge, naming the limit).
                    if let Some(o) = parser.abandon() {
                        self.charge_oversized(shared, o, request);
                        if request.is_some_and(|own| !shared.is_pending(own)) {
                            return Ok(StreamEnd::Answered);
                        }
                    }
                    return Err(Error::Http(format!(
                        "SSE stream error: {}",
                        cause::described(e)
                    )));
                }
            };
            parser.feed(&chunk, &mut |event| match event {
                _ if done => {}
                SseEvent::Message { data, .. } => {
                    if data.as_slice() == b"[DONE]" {
                        if request.is_some() {
                            done = true;
                        }
                    } else {
                        self.deliver(shared, &data);
                    }
                }
                SseEvent::Oversized(o) => self.charge_oversized(shared, o, request),
            });
            if request.is_some_and(|own| !shared.is_pending(own)) {
                return Ok(StreamEnd::Answered);
            }
        }
        Ok(StreamEnd::Done)
    }
}

impl HttpOutbound {
    /// Charges a discarded oversized event to the request it answered: its own id when the
    /// scan read one, else (on a request's response stream) that request.
    fn charge_oversized(
        &self,
        shared: &Arc<Shared>,
        o: crate::sse::Oversized,
        request: Option<i64>,
    ) {
        let id = match (o.id, request) {
            (Some(id), _) => Some(id),
            (None, Some(own)) if !o.is_request => Some(Id::Number(own)),
            (None, _) => None,
        };
        shared.oversized(id, o.is_request);
    }
}

/// How an SSE body ended without an error.
pub(super) enum StreamEnd {
    /// The body ended.
    Ended,
    /// The request whose response stream this is was answered (or abandoned).
    Answered,
    /// `[DONE]` ended a request's response stream.
    Done,
}
