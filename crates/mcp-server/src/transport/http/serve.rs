//! Serving the connections of an endpoint: the accept loop with its connection cap, and each
//! connection with its timeouts, upgrades (WebSocket) and graceful shutdown.
//!
//! - **Header read** (`HttpOptions::header_read_timeout`): from the moment a connection is
//!   ready for a request — just accepted, or after its previous response — the request's
//!   headers must be complete within this time. A client that trickles header bytes
//!   (slowloris) or an idle keep-alive connection is closed then.
//! - **Idle** (`HttpOptions::idle_timeout`): a connection that neither sends nor receives a
//!   byte for this long while none of its requests is being handled is closed (a client that
//!   stopped reading its response); a request body that stops arriving for this long is
//!   refused `408`.
//! - **Cap** (`HttpOptions::max_connections`): at the cap, the listener stops accepting until
//!   a connection closes (new clients wait in the kernel's backlog; the loop never spins).
//!   Connections upgraded to WebSocket leave the count (they have their own heartbeat).

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::Request;
use axum::response::Response;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower_service::Service as _;

use super::tls::{Conn, Listener};

/// The limits every connection of an endpoint is held to.
#[derive(Debug, Clone, Copy)]
pub(super) struct ConnectionLimits {
    pub(super) header_read_timeout: Duration,
    pub(super) idle_timeout: Duration,
    pub(super) max_connections: usize,
}

/// Serves `router` on `listener` until `stop` completes, then lets the open connections finish
/// (idle ones close at once; others after their requests in flight).
pub(super) async fn serve(
    mut listener: Listener,
    router: Router,
    limits: ConnectionLimits,
    stop: impl Future<Output = ()>,
) {
    let open = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let connections = TaskTracker::new();
    let stopping = CancellationToken::new();
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    tokio::pin!(stop);
    loop {
        let permit = tokio::select! {
            permit = open.clone().acquire_owned() => permit.expect("the semaphore is never closed"),
            () = &mut stop => break,
        };
        let (io, remote) = tokio::select! {
            accepted = axum::serve::Listener::accept(&mut listener) => accepted,
            () = &mut stop => break,
        };
        let activity = Arc::new(Activity::new());
        let io = TokioIo::new(Tracked {
            io,
            activity: activity.clone(),
        });
        let service = Handle {
            router: router.clone(),
            remote,
            activity: activity.clone(),
        };
        let connection = builder.serve_connection(io, service).with_upgrades();
        let stopping = stopping.clone();
        connections.spawn(async move {
            let _counted = permit;
            tokio::pin!(connection);
            let served = tokio::select! {
                served = connection.as_mut() => served,
                () = activity.idle_for(limits.idle_timeout) => {
                    tracing::debug!(%remote, "an idle HTTP connection was closed");
                    return;
                }
                () = stopping.cancelled() => {
                    // Requests in flight finish and are answered; then the connection closes.
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            if let Err(e) = served {
                tracing::debug!(%remote, "an HTTP connection ended: {e}");
            }
        });
    }
    drop(listener);
    stopping.cancel();
    connections.close();
    connections.wait().await;
}

/// What a connection did, for the idle timeout: a count of its reads and writes (no clock read
/// per I/O; a clock read per read and write cost about 5 % of the server's CPU on small calls).
struct Activity {
    /// Reads and writes that moved bytes, and handlers that ended.
    events: AtomicU64,
    /// Requests of the connection in their handler now.
    handling: AtomicUsize,
}

impl Activity {
    fn new() -> Self {
        Self {
            events: AtomicU64::new(0),
            handling: AtomicUsize::new(0),
        }
    }

    fn touch(&self) {
        self.events.fetch_add(1, Ordering::Relaxed);
    }

    /// Completes once a whole `timeout` went by with no activity and no request in its
    /// handler: the connection is closed between `timeout` and twice that after its last byte.
    async fn idle_for(&self, timeout: Duration) {
        let mut seen = self.events.load(Ordering::Relaxed);
        loop {
            tokio::time::sleep(timeout).await;
            let now = self.events.load(Ordering::Relaxed);
            if now == seen && self.handling.load(Ordering::Acquire) == 0 {
                return;
            }
            seen = now;
        }
    }
}

struct Handling(Arc<Activity>);

impl Handling {
    fn new(activity: Arc<Activity>) -> Self {
        activity.handling.fetch_add(1, Ordering::AcqRel);
        Self(activity)
    }
}

impl Drop for Handling {
    fn drop(&mut self) {
        self.0.touch();
        self.0.handling.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A connection's byte stream, recording its activity.
struct Tracked {
    io: Conn,
    activity: Arc<Activity>,
}

impl AsyncRead for Tracked {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.io).poll_read(cx, buf);
        if buf.filled().len() > before {
            this.activity.touch();
        }
        polled
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.io).poll_write(cx, buf);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            this.activity.touch();
        }
        polled
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.io).poll_write_vectored(cx, bufs);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            this.activity.touch();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

/// The router, as one connection's service: each request learns the peer's address
/// (`ConnectInfo`) and counts as handled while the router works on it.
#[derive(Clone)]
struct Handle {
    router: Router,
    remote: SocketAddr,
    activity: Arc<Activity>,
}

impl hyper::service::Service<Request<Incoming>> for Handle {
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn call(&self, mut request: Request<Incoming>) -> Self::Future {
        request.extensions_mut().insert(ConnectInfo(self.remote));
        let mut router = self.router.clone();
        let activity = self.activity.clone();
        Box::pin(async move {
            let _handling = Handling::new(activity);
            router.call(request.map(Body::new)).await
        })
    }
}
