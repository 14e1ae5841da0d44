//! The GET SSE stream: opened at connect, retried after a `202` or a new session, followed
//! through resumptions, and fatal to the connection when lost for good.

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum GetState {
    Closed,
    Connecting,
    Open,
    NotOffered,
    /// Switched off by the application (e.g. in the 2026-07-28 era, which has no GET stream).
    Disabled,
}

pub(super) struct GetStream {
    state: GetState,
    /// The session id the last attempt was made with.
    tried_with_session: Option<HeaderValue>,
    /// Whether an attempt was already made after a `202` for that session.
    tried_after_accepted: bool,
    /// The task following an open stream.
    task: Option<tokio::task::AbortHandle>,
}

/// Why the GET stream is being (re)tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Trigger {
    Connect,
    Accepted,
    NewSession,
}

impl GetStream {
    pub(super) fn new() -> Self {
        Self {
            state: GetState::Closed,
            tried_with_session: None,
            tried_after_accepted: false,
            task: None,
        }
    }
}

impl HttpOutbound {
    /// Closes the GET stream, if open, and never opens it again.
    pub(super) fn stop_get_stream(&self) {
        let mut get = self.get.lock();
        get.state = GetState::Disabled;
        if let Some(task) = get.task.take() {
            task.abort();
        }
    }

    pub(super) fn retry_get_stream(self: &Arc<Self>, trigger: Trigger) {
        let session = self.session.lock().clone();
        {
            let mut get = self.get.lock();
            if get.state != GetState::NotOffered {
                return;
            }
            let retry = match trigger {
                Trigger::Connect => false,
                Trigger::NewSession => get.tried_with_session != session,
                Trigger::Accepted => !get.tried_after_accepted || get.tried_with_session != session,
            };
            if !retry {
                return;
            }
            if trigger == Trigger::Accepted {
                get.tried_after_accepted = true;
            }
        }
        let this = self.clone();
        tokio::spawn(async move {
            if let Err(e) = this.open_get_stream(trigger).await {
                tracing::debug!(error = %e, "retrying the GET SSE stream failed");
            }
        });
    }

    /// Tries to open the GET stream. At connect, only a refusal the transport tolerates is
    /// `Ok`; later attempts never fail the connection.
    pub(super) async fn open_get_stream(self: &Arc<Self>, trigger: Trigger) -> Result<(), Error> {
        let session = {
            let session = self.session.lock().clone();
            let mut get = self.get.lock();
            if matches!(
                get.state,
                GetState::Open | GetState::Connecting | GetState::Disabled
            ) {
                return Ok(());
            }
            get.state = GetState::Connecting;
            if get.tried_with_session != session {
                get.tried_after_accepted = trigger == Trigger::Accepted;
            }
            get.tried_with_session = session.clone();
            session
        };
        let sent = self.send_get(None).await;
        let set_state = |state| {
            let mut get = self.get.lock();
            if get.state != GetState::Disabled {
                get.state = state;
            }
        };
        let response = match sent {
            Ok(response) => response,
            Err(e) => {
                set_state(GetState::NotOffered);
                return if trigger == Trigger::Connect {
                    Err(e)
                } else {
                    Ok(())
                };
            }
        };
        self.note_session(&response);
        let status = response.status();
        if status.is_success() && is_event_stream(&response) {
            let mut get = self.get.lock();
            if get.state == GetState::Disabled {
                return Ok(());
            }
            get.state = GetState::Open;
            let this = self.clone();
            get.task = Some(
                tokio::spawn(async move { this.run_get_stream(response).await }).abort_handle(),
            );
            return Ok(());
        }
        set_state(GetState::NotOffered);
        // Refused for want of authorization: the POST that follows obtains it, and the GET is
        // tried again once a session exists.
        let unauthorized = self.authorizer.is_some()
            && matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN);
        let tolerated = status == StatusCode::METHOD_NOT_ALLOWED
            || unauthorized
            || (session.is_none()
                && matches!(status, StatusCode::BAD_REQUEST | StatusCode::NOT_FOUND));
        if tolerated || trigger != Trigger::Connect {
            tracing::debug!(%status, url = %self.sse_shown, "the server offers no GET SSE stream (yet)");
            return Ok(());
        }
        Err(Error::Http(format!(
            "GET {} (SSE stream): HTTP {status}{}",
            self.sse_shown,
            if status.is_redirection() {
                " (redirects are not followed unless follow_redirects is set)"
            } else {
                ""
            }
        )))
    }

    /// Pumps the GET stream; resumes it when it breaks and the server gave event ids; closes
    /// the connection otherwise, or when resuming keeps failing.
    pub(super) async fn run_get_stream(self: Arc<Self>, response: reqwest::Response) {
        let Some(shared) = self.shared() else { return };
        let reason = tokio::select! {
            reason = self.follow_get_stream(&shared, response) => reason,
            () = shared.closed() => return,
        };
        self.get.lock().state = GetState::Closed;
        shared.close(reason);
    }

    /// Follows the GET stream through its resumptions; returns why it was lost for good. Every
    /// successful resumption starts a fresh count of attempts: a server may close the
    /// connection after each event and have the client poll (spec 2025-11-25).
    pub(super) async fn follow_get_stream(
        &self,
        shared: &Arc<Shared>,
        mut response: reqwest::Response,
    ) -> String {
        let mut parser = SseParser::new(self.max_message_bytes);
        loop {
            let why = match self.pump(shared, response, &mut parser, None).await {
                Ok(_) => "the server ended it".to_owned(),
                Err(e) => e.to_string(),
            };
            parser.finish();
            let Some(last) = parser.last_event_id().map(str::to_owned) else {
                return format!(
                    "the server's SSE stream (GET {}) was lost: {why}; closing so that no server message is lost silently",
                    self.sse_shown
                );
            };
            response = match self.resume_with_retries(&parser, &last).await {
                Ok(next) => next,
                Err(e) => {
                    return format!(
                        "the server's SSE stream (GET {}) was lost: {why}, and {MAX_RESUME_ATTEMPTS} resumptions with Last-Event-ID failed (last: {e}); closing so that no server message is lost silently",
                        self.sse_shown
                    );
                }
            };
        }
    }
}
