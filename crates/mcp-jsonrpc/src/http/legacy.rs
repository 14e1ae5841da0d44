//! The HTTP+SSE transport of protocol version 2024-11-05, which many deployed servers still
//! serve: a GET opens one SSE stream that carries every server message; its first event,
//! `endpoint`, gives the URL each client message is POSTed to (the server accepts a POST with
//! `202` and answers on the stream).
//!
//! - The `endpoint` URL is resolved against the stream's URL and must have the same origin
//!   (a server cannot make the client POST elsewhere); it must arrive within
//!   `connect_timeout`.
//! - `message` events (and events without a name) are JSON-RPC messages; other events are
//!   ignored. When the stream ends, the connection closes: nothing the server sends could
//!   reach the client any more.
//! - A POST that fails (connect error, non-2xx) fails the request it carried with a `-32000`
//!   error naming the status; `request_timeout` bounds each POST.
//! - There is no session to end: closing the connection drops the stream.

use super::post::{bridged, read_limited};
use super::*;

/// The legacy transport's side of a connection.
struct LegacyOutbound {
    http: reqwest::Client,
    headers: Mutex<HeaderMap>,
    /// Where messages are POSTed (from the `endpoint` event).
    post_url: Url,
    post_shown: String,
    request_timeout: Option<Duration>,
    detached: Arc<Semaphore>,
}

/// Connects to a legacy HTTP+SSE endpoint (`url` is the SSE URL, often `…/sse`).
pub(crate) async fn connect(
    url: &str,
    http_options: StreamableHttpOptions,
    options: SpawnOptions,
) -> Result<(Arc<Shared>, InboundReceivers), Error> {
    let sse_url = parse_url("url", url)?;
    let shown = redact_url(sse_url.as_str());
    let (http, headers) = client(&http_options)?;
    let request = http
        .get(sse_url.clone())
        .headers(headers.clone())
        .header(ACCEPT, "text/event-stream");
    let limit = http_options.connect_timeout.unwrap_or(Duration::MAX);
    let response = tokio::time::timeout(limit, request.send())
        .await
        .map_err(|_| Error::Http(format!("GET {shown}: no response within connect_timeout")))?
        .map_err(|e| Error::Http(format!("GET {shown} failed: {}", cause::described(e))))?;
    let status = response.status();
    if !status.is_success() || !is_event_stream(&response) {
        return Err(Error::Http(format!(
            "GET {shown}: HTTP {status}, not an event stream: not a legacy HTTP+SSE endpoint"
        )));
    }
    let log = options
        .stdout_log
        .as_ref()
        .map(StdoutLogWriter::open)
        .transpose()?;
    let mut stream = EventStream {
        response,
        parser: SseParser::new(options.limits.max_message_bytes),
        shown,
        log,
        early: Vec::new(),
    };
    let endpoint = tokio::time::timeout(limit, stream.endpoint())
        .await
        .map_err(|_| {
            Error::Http(format!(
                "GET {}: no `endpoint` event within connect_timeout: not a legacy HTTP+SSE \
                 endpoint",
                stream.shown
            ))
        })??;
    let post_url = sse_url.join(&endpoint).map_err(|e| {
        Error::Http(format!(
            "the `endpoint` event of {} is not a URL ({e})",
            stream.shown
        ))
    })?;
    if post_url.origin() != sse_url.origin() {
        return Err(Error::Http(format!(
            "the `endpoint` event of {} points to another origin ({}): refused",
            stream.shown,
            redact_url(post_url.as_str())
        )));
    }
    let outbound = Arc::new(LegacyOutbound {
        http,
        headers: Mutex::new(headers),
        post_shown: redact_url(post_url.as_str()),
        post_url,
        request_timeout: http_options.request_timeout,
        detached: Arc::new(Semaphore::new(MAX_DETACHED_POSTS)),
    });
    let (shared, receivers) = Shared::new(
        Outbound::Exchanges(Arc::new(LegacyTransport(outbound))),
        options.limits,
        options.wire,
    );
    tokio::spawn(stream.serve(shared.clone()));
    Ok((shared, receivers))
}

/// The GET stream and what reads it.
struct EventStream {
    response: reqwest::Response,
    parser: SseParser,
    shown: String,
    log: Option<StdoutLogWriter>,
    /// Messages that came with the `endpoint` event (in the same chunk), delivered first.
    early: Vec<Vec<u8>>,
}

impl EventStream {
    /// Reads until the `endpoint` event; its data.
    async fn endpoint(&mut self) -> Result<String, Error> {
        loop {
            let chunk = self.next_chunk().await?.ok_or_else(|| {
                Error::Http(format!(
                    "GET {}: the stream ended before an `endpoint` event: not a legacy \
                     HTTP+SSE endpoint",
                    self.shown
                ))
            })?;
            let mut endpoint = None;
            let early = &mut self.early;
            self.parser.feed(&chunk, &mut |event| match event {
                SseEvent::Message {
                    event: Some(name),
                    data,
                } if name == "endpoint" && endpoint.is_none() => {
                    endpoint = Some(String::from_utf8_lossy(&data).trim().to_owned());
                }
                SseEvent::Message { event, data } if is_message(event.as_deref()) => {
                    early.push(data);
                }
                _ => {}
            });
            if let Some(endpoint) = endpoint {
                return Ok(endpoint);
            }
        }
    }

    async fn next_chunk(
        &mut self,
    ) -> Result<Option<impl std::ops::Deref<Target = [u8]> + use<>>, Error> {
        self.response.chunk().await.map_err(|e| {
            Error::Http(format!(
                "the SSE stream of {} failed: {}",
                self.shown,
                cause::described(e)
            ))
        })
    }

    /// Delivers the stream's messages until it ends or the connection closes; then closes the
    /// connection.
    async fn serve(mut self, shared: Arc<Shared>) {
        for data in std::mem::take(&mut self.early) {
            self.deliver(&shared, &data);
        }
        let reason = loop {
            let chunk = tokio::select! {
                chunk = self.next_chunk() => chunk,
                () = shared.closed() => return,
            };
            match chunk {
                Ok(Some(chunk)) => {
                    let mut messages = Vec::new();
                    self.parser.feed(&chunk, &mut |event| match event {
                        SseEvent::Message { event, data } if is_message(event.as_deref()) => {
                            messages.push(data);
                        }
                        SseEvent::Message { .. } => {}
                        SseEvent::Oversized(o) => shared.oversized(o.id, o.is_request),
                    });
                    for data in messages {
                        self.deliver(&shared, &data);
                    }
                }
                Ok(None) => break format!("the SSE stream of {} ended", self.shown),
                Err(e) => break e.to_string(),
            }
        };
        shared.close(reason);
    }
}

impl EventStream {
    /// Logs and dispatches one message.
    fn deliver(&mut self, shared: &Arc<Shared>, data: &[u8]) {
        if data.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        if let Some(log) = self.log.as_mut() {
            log.write_line(data);
        }
        shared.dispatch(data);
    }
}

/// Whether an event of this name carries a JSON-RPC message (`message`, or no name).
fn is_message(event: Option<&str>) -> bool {
    matches!(event, None | Some("message"))
}

/// The legacy transport as the connection sees it.
struct LegacyTransport(Arc<LegacyOutbound>);

impl Transport for LegacyTransport {
    fn send<'a>(
        &'a self,
        shared: &'a Arc<Shared>,
        frame: Frame,
    ) -> TransportFuture<'a, Result<(), Error>> {
        Box::pin(async move {
            match frame.kind {
                // The answer comes on the stream; a failed POST is the request's answer.
                FrameKind::Request(id) => {
                    if let Err(error) = self.0.post(frame.bytes).await {
                        shared.complete(id, Err(error));
                    }
                    Ok(())
                }
                FrameKind::Notification | FrameKind::Response => self.0.post(frame.bytes).await,
            }
        })
    }

    fn send_detached(&self, shared: &Arc<Shared>, frame: Frame) -> bool {
        let Ok(permit) = self.0.detached.clone().try_acquire_owned() else {
            return false;
        };
        let this = self.0.clone();
        let shared = shared.clone();
        tokio::spawn(async move {
            let outcome = this.post(frame.bytes).await;
            match (frame.kind, outcome) {
                (FrameKind::Request(id), Err(error)) => {
                    shared.complete(id, Err(error));
                }
                (_, Err(e)) => {
                    tracing::warn!(error = %e, "could not deliver a message to the server")
                }
                (_, Ok(())) => {}
            }
            drop(permit);
        });
        true
    }

    fn set_header(&self, name: &str, value: &str) -> Result<(), Error> {
        set_header(&self.0.headers, name, value)
    }
}

impl LegacyOutbound {
    /// POSTs one message; the server accepts it (`202`, or any 2xx) and answers on the stream.
    async fn post(&self, bytes: Vec<u8>) -> Result<(), Error> {
        let request = self
            .http
            .post(self.post_url.clone())
            .headers(self.headers.lock().clone())
            .header(CONTENT_TYPE, "application/json")
            .body(bytes);
        let exchange = async {
            let response = request.send().await.map_err(|e| {
                bridged(
                    format!("POST {} failed: {}", self.post_shown, cause::described(e)),
                    None,
                    None,
                )
            })?;
            let status = response.status();
            if status.is_success() {
                return Ok(());
            }
            let body: Vec<u8> = read_limited(response, ERROR_BODY_LIMIT)
                .await
                .unwrap_or_default();
            Err(bridged(
                format!("HTTP {status} from POST {}", self.post_shown),
                Some(status),
                Some(&body),
            ))
        };
        match self.request_timeout {
            Some(limit) => tokio::time::timeout(limit, exchange)
                .await
                .unwrap_or_else(|_| {
                    Err(bridged(
                        format!(
                            "POST {} timed out after {limit:?} (request_timeout)",
                            self.post_shown
                        ),
                        None,
                        None,
                    ))
                }),
            None => exchange.await,
        }
    }
}
