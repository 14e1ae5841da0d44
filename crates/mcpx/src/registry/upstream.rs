//! One upstream server: its state, and the task that keeps it connected.
//!
//! The supervisor connects (handshake and every page of `tools/list`, within
//! `connect_timeout`), then waits for one of: the connection closing, a call noticing it is
//! dead, a `tools/list_changed` (refresh), or shutdown. A lost or failed connection is retried
//! with capped exponential backoff (a stdio server is spawned again); meanwhile the last
//! catalog stays visible and calls fail at once, saying why.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use backon::{BackoffBuilder, ExponentialBuilder};
use mcp_kit::{Manager, Session};
use mcp_schema::Era;
use parking_lot::{Mutex, RwLock};
use serde_json::json;
use tokio::sync::{Notify, mpsc};
use tokio_util::sync::CancellationToken;

use super::catalog::{CachedTool, Catalog, ServerSummary};
use super::forward::Ask;
use crate::options::UpstreamOptions;

/// The first retry waits this long; each next one twice as long, up to [`RETRY_MAX`].
pub const RETRY_MIN: Duration = Duration::from_millis(250);
/// The longest wait between two connection attempts.
pub const RETRY_MAX: Duration = Duration::from_secs(10);

/// Where an upstream stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// The first connection attempt is under way.
    Connecting,
    /// Connected; its tools are cached and callable.
    Ready,
    /// The last attempt failed; another follows after a backoff.
    Failed {
        /// Why the attempt failed.
        reason: String,
    },
    /// The connection was lost and is being made again.
    Reconnecting {
        /// Why it was lost.
        reason: String,
    },
}

impl Status {
    /// A one-word name: `connecting`, `ready`, `failed`, `reconnecting`.
    pub fn name(&self) -> &'static str {
        match self {
            Status::Connecting => "connecting",
            Status::Ready => "ready",
            Status::Failed { .. } => "failed",
            Status::Reconnecting { .. } => "reconnecting",
        }
    }

    /// Why the upstream is not ready, if it is not.
    pub fn reason(&self) -> Option<&str> {
        match self {
            Status::Failed { reason } | Status::Reconnecting { reason } => Some(reason),
            _ => None,
        }
    }
}

/// The state of one upstream, as the registry shares it.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// Where it stands.
    pub status: Status,
    /// The live session, when ready.
    pub session: Option<Arc<Session>>,
    /// The last catalog (kept while reconnecting, so `inspect` still answers).
    pub catalog: Option<Catalog>,
}

/// One configured upstream.
pub struct Upstream {
    name: String,
    options: UpstreamOptions,
    state: RwLock<Snapshot>,
    /// A call saw the connection die, or a `tools/list_changed` arrived.
    lost: Notify,
    refresh: Notify,
    calls: Mutex<Vec<(u64, mpsc::Sender<Ask>)>>,
    next_call: AtomicU64,
}

impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upstream")
            .field("name", &self.name)
            .field("status", &self.state.read().status)
            .finish()
    }
}

/// A call in flight on an upstream, registered so that the upstream's requests to the client
/// (elicitation, sampling, roots) reach the downstream client that made it.
pub struct CallGuard<'a> {
    upstream: &'a Upstream,
    id: u64,
}

impl Drop for CallGuard<'_> {
    fn drop(&mut self) {
        self.upstream.calls.lock().retain(|(id, _)| *id != self.id);
    }
}

impl Upstream {
    pub(super) fn new(name: String, options: UpstreamOptions) -> Self {
        Self {
            name,
            options,
            state: RwLock::new(Snapshot {
                status: Status::Connecting,
                session: None,
                catalog: None,
            }),
            lost: Notify::new(),
            refresh: Notify::new(),
            calls: Mutex::new(Vec::new()),
            next_call: AtomicU64::new(0),
        }
    }

    /// The configured name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its options.
    pub fn options(&self) -> &UpstreamOptions {
        &self.options
    }

    /// Its current state.
    pub fn snapshot(&self) -> Snapshot {
        self.state.read().clone()
    }

    /// Tells the supervisor that a call on `session` failed as if the connection were dead;
    /// it checks, and reconnects if so. A report about a session already replaced is ignored.
    pub fn report_lost(&self, session: &Arc<Session>) {
        let current = self.state.read().session.clone();
        if current.is_some_and(|current| Arc::ptr_eq(&current, session)) {
            self.lost.notify_one();
        }
    }

    /// Tells the supervisor to list the tools again.
    pub fn request_refresh(&self) {
        self.refresh.notify_one();
    }

    /// Registers a call in flight until the guard drops: the upstream's requests to the client
    /// made meanwhile arrive on the receiver, for the caller to put to its downstream client.
    pub fn track_call(&self) -> (CallGuard<'_>, mpsc::Receiver<Ask>) {
        let id = self.next_call.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::channel(4);
        self.calls.lock().push((id, tx));
        (CallGuard { upstream: self, id }, rx)
    }

    /// Where the upstream's request to the client goes: the most recent call in flight, which
    /// it is taken to belong to (neither era says which call a request is part of).
    pub(super) fn current_caller(&self) -> Option<mpsc::Sender<Ask>> {
        self.calls.lock().last().map(|(_, tx)| tx.clone())
    }

    fn set(&self, status: Status, session: Option<Arc<Session>>, catalog: Option<Catalog>) {
        let mut state = self.state.write();
        state.status = status;
        state.session = session;
        if catalog.is_some() {
            state.catalog = catalog;
        }
    }

    /// Keeps the upstream connected until `shutdown`; `changed` is called after every change
    /// of status or catalog.
    pub(super) async fn supervise(
        self: Arc<Self>,
        manager: Arc<Manager>,
        shutdown: CancellationToken,
        changed: impl Fn() + Send + Sync,
    ) {
        let mut delays = backoff();
        loop {
            let attempt = tokio::select! {
                attempt = self.connect(&manager) => attempt,
                () = shutdown.cancelled() => return,
            };
            match attempt {
                Ok((session, catalog)) => {
                    delays = backoff();
                    let session = Arc::new(session);
                    tracing::info!(upstream = %self.name, tools = catalog.tools.len(), "upstream ready");
                    self.set(Status::Ready, Some(session.clone()), Some(catalog));
                    changed();
                    let reason = self.watch(&session, &shutdown, &changed).await;
                    let Some(reason) = reason else { return };
                    tracing::warn!(upstream = %self.name, %reason, "upstream lost; reconnecting");
                    self.set(Status::Reconnecting { reason }, None, None);
                    changed();
                    // The old session (a child process) goes away when its last holder does.
                    drop(session);
                    // A lost connection is tried again at once, then with backoff.
                    continue;
                }
                Err(reason) => {
                    let status = Status::Failed { reason };
                    let differs = self.state.read().status != status;
                    if differs {
                        tracing::warn!(upstream = %self.name, reason = status.reason(), "upstream connection failed; retrying with backoff");
                    } else {
                        tracing::debug!(upstream = %self.name, reason = status.reason(), "upstream connection failed again");
                    }
                    self.set(status, None, None);
                    if differs {
                        changed();
                    }
                }
            }
            let delay = delays.next().unwrap_or(RETRY_MAX);
            tokio::select! {
                () = tokio::time::sleep(delay) => {}
                () = shutdown.cancelled() => return,
            }
        }
    }

    /// One connection attempt: a session and its catalog, within `connect_timeout`.
    async fn connect(&self, manager: &Manager) -> Result<(Session, Catalog), String> {
        let started = Instant::now();
        let limit = self.options.connect_timeout;
        let attempt = async {
            let session = manager
                .open(&self.name)
                .await
                .map_err(|e| e.to_string())?
                .with_timeout(self.options.call_timeout);
            let tools = session.list_all_tools().await.map_err(|e| e.to_string())?;
            Ok::<_, String>((session, tools))
        };
        let (session, tools) = tokio::time::timeout(limit, attempt)
            .await
            .map_err(|_| format!("no answer within the connect timeout ({limit:?})"))??;
        let server =
            ServerSummary::from_handshake(session.initialize_result(), session.protocol_version());
        let (tools, hidden) = self.filter(tools);
        let catalog = Catalog {
            server,
            tools,
            hidden,
            connect_latency: started.elapsed(),
        };
        Ok((session, catalog))
    }

    /// The tools the filters show, cached, and the names of those they hide.
    fn filter(
        &self,
        tools: Vec<mcp_schema::Tool>,
    ) -> (Arc<Vec<Arc<CachedTool>>>, Arc<Vec<String>>) {
        let (shown, hidden): (Vec<_>, Vec<_>) =
            tools.into_iter().partition(|t| self.options.shows(&t.name));
        (
            Arc::new(
                shown
                    .into_iter()
                    .map(|t| Arc::new(CachedTool::new(t)))
                    .collect(),
            ),
            Arc::new(hidden.into_iter().map(|t| t.name).collect()),
        )
    }

    /// Waits while the session is good, refreshing the catalog on `tools/list_changed`;
    /// returns why it ended (`None` on shutdown).
    async fn watch(
        &self,
        session: &Arc<Session>,
        shutdown: &CancellationToken,
        changed: &(impl Fn() + Send + Sync),
    ) -> Option<String> {
        let handle = session.peer().handle();
        // 2026-07-28: list changes come on a `subscriptions/listen` stream.
        let mut listen = match session.negotiated().era() {
            Era::Stateless => session
                .subscribe(json!({ "toolsListChanged": true }))
                .await
                .map_err(|e| tracing::debug!(upstream = %self.name, error = %e, "no subscriptions/listen"))
                .ok(),
            Era::Stateful => None,
        };
        loop {
            let notified = async {
                match listen.as_mut() {
                    Some(listen) => listen.next().await.is_some(),
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                () = handle.closed() => {
                    return Some(handle.close_reason().map_or_else(|| "the connection closed".to_owned(), |r| r.to_string()));
                }
                () = self.lost.notified() => {
                    if !session.is_connected() || handle.is_closed() {
                        return Some(handle.close_reason().map_or_else(|| "the connection was lost".to_owned(), |r| r.to_string()));
                    }
                    // A call failed to reach it: check (2026-07-28 has no ping; a discover is
                    // as cheap).
                    let alive = match session.negotiated().era() {
                        Era::Stateful => session.ping().await,
                        Era::Stateless => session.discover().await.map(drop),
                    };
                    if let Err(e) = alive {
                        return Some(e.to_string());
                    }
                }
                () = self.refresh.notified() => self.refresh(session, changed).await,
                alive = notified => {
                    if alive {
                        self.refresh(session, changed).await;
                    } else {
                        listen = None;
                    }
                }
                () = shutdown.cancelled() => return None,
            }
        }
    }

    /// Lists the tools again; the rest of the catalog (who the server is, how long
    /// connecting took) stays.
    async fn refresh(&self, session: &Arc<Session>, changed: &(impl Fn() + Send + Sync)) {
        match tokio::time::timeout(self.options.connect_timeout, session.list_all_tools()).await {
            Ok(Ok(tools)) => {
                let (tools, hidden) = self.filter(tools);
                tracing::info!(upstream = %self.name, tools = tools.len(), "upstream tools changed");
                if let Some(catalog) = self.state.write().catalog.as_mut() {
                    catalog.tools = tools;
                    catalog.hidden = hidden;
                }
                changed();
            }
            Ok(Err(e)) => {
                tracing::warn!(upstream = %self.name, error = %e, "refreshing tools failed");
            }
            Err(_) => tracing::warn!(upstream = %self.name, "refreshing tools timed out"),
        }
    }
}

fn backoff() -> impl Iterator<Item = Duration> {
    ExponentialBuilder::default()
        .with_min_delay(RETRY_MIN)
        .with_max_delay(RETRY_MAX)
        .with_factor(2.0)
        .with_jitter()
        .without_max_times()
        .build()
}
