//! How a request's handler runs: inline, in the task that serves the request (no task of its
//! own per request), with a panic turned into an error response; and, when the serving task
//! drops it before the end (the client went away), finished in a task of its own, so that the
//! handler still sees its cancellation and cleans up.

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use mcp_jsonrpc::message::encode_error;
use mcp_jsonrpc::{ErrorObject, Id};

use crate::error::panic_message;
use crate::session::{BusyGuard, Session};

/// A handler's work: the encoded response, or nothing (cancelled).
pub(super) type Handler = Pin<Box<dyn Future<Output = Option<Vec<u8>>> + Send>>;

/// One request being served (see the module docs).
pub(super) struct HandlerRun {
    id: Id,
    session: Arc<Session>,
    handler: Option<Handler>,
    /// Whether the request holds its id in the session's in-flight table (a request reusing
    /// the id of one in flight does not, and must not free it).
    registered: bool,
    /// Already moved to a task of its own: dropping it again ends it.
    detached: bool,
    busy: Option<BusyGuard>,
}

impl HandlerRun {
    pub(super) fn new(
        session: Arc<Session>,
        id: Id,
        handler: Handler,
        registered: bool,
        busy: BusyGuard,
    ) -> Self {
        Self {
            id,
            session,
            handler: Some(handler),
            registered,
            detached: false,
            busy: Some(busy),
        }
    }

    fn finish(&mut self) {
        self.handler = None;
        if self.registered {
            self.session.request_done(&self.id);
        }
        self.busy = None;
    }
}

impl Future for HandlerRun {
    type Output = Option<Vec<u8>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        let Some(handler) = this.handler.as_mut() else {
            return Poll::Ready(None);
        };
        let out = match catch_unwind(AssertUnwindSafe(|| handler.as_mut().poll(cx))) {
            Ok(Poll::Pending) => return Poll::Pending,
            Ok(Poll::Ready(out)) => out,
            Err(panic) => {
                let what = panic_message(&*panic);
                tracing::error!(id = %this.id, "a handler panicked: {what}");
                let mut out = Vec::new();
                encode_error(
                    &mut out,
                    Some(&this.id),
                    &ErrorObject::internal_error(
                        "the request's handler panicked; see the server log",
                    ),
                );
                Some(out)
            }
        };
        this.finish();
        Poll::Ready(out)
    }
}

impl Drop for HandlerRun {
    fn drop(&mut self) {
        let Some(handler) = self.handler.take() else {
            return;
        };
        if !self.detached
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(HandlerRun {
                id: self.id.clone(),
                session: self.session.clone(),
                handler: Some(handler),
                registered: self.registered,
                detached: true,
                busy: self.busy.take(),
            });
            return;
        }
        self.finish();
    }
}
