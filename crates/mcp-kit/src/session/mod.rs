//! [`Session`]: one connection to one server, past its handshake.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use mcp_jsonrpc::{Peer, PeerHandle};
use mcp_schema::{DiscoverRequest, Era, InitializeRequest, McpNotification, McpRequest};
use parking_lot::{Mutex, MutexGuard};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use tokio::sync::mpsc;

use crate::Error;
use crate::handlers::Handlers;

mod dispatch;
mod era;
mod input_required;
mod legacy_tasks;
mod methods;
mod request;
mod skills;
mod subscription;
mod tasks;

pub use request::ProgressUpdate;
pub use skills::{LoadedSkill, SkillFileContent};
pub use subscription::Subscription;
pub use tasks::{CancelGuard, TaskHandle, ToolCall, task_status_line};

/// What a handshake that ran out of time is called in its [`Error::Timeout`].
const HANDSHAKE: &str = "the handshake (server/discover, or initialize)";

/// How long [`Session::with_exit_details`] waits for a server whose connection closed to exit.
const EXIT_GRACE: Duration = Duration::from_millis(500);

/// What a [`Session`] is configured with (from the [`Manager`](crate::Manager)).
#[derive(Debug, Clone)]
pub(crate) struct SessionSettings {
    pub(crate) client_info: mcp_schema::Implementation,
    pub(crate) protocol_version: Option<String>,
    pub(crate) capabilities: Map<String, Value>,
    pub(crate) timeout: Duration,
    pub(crate) handlers: Handlers,
    /// The log level asked of every server once connected.
    pub(crate) log_level: Option<mcp_schema::LoggingLevel>,
    /// The era each server spoke before, by server name (the handshake tries it first).
    pub(crate) era_hints: HashMap<String, Era>,
}

/// The outcome of the handshake.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Negotiated {
    /// `initialize` succeeded (protocol versions up to 2025-11-25).
    Initialize {
        /// The protocol version the server answered with.
        protocol_version: String,
        /// The `InitializeResult`.
        result: Value,
    },
    /// `server/discover` succeeded (2026-07-28 and later): no session, per-request metadata.
    Discover {
        /// The version chosen from the server's `supportedVersions`.
        protocol_version: String,
        /// The `DiscoverResult`.
        result: Value,
    },
}

impl Negotiated {
    /// The negotiated protocol version.
    pub fn protocol_version(&self) -> &str {
        match self {
            Negotiated::Initialize {
                protocol_version, ..
            }
            | Negotiated::Discover {
                protocol_version, ..
            } => protocol_version,
        }
    }

    /// The protocol era.
    pub fn era(&self) -> Era {
        match self {
            Negotiated::Initialize { .. } => Era::Stateful,
            Negotiated::Discover { .. } => Era::Stateless,
        }
    }

    /// The handshake method used: `initialize` or `server/discover`.
    pub fn handshake(&self) -> &'static str {
        match self {
            Negotiated::Initialize { .. } => InitializeRequest::METHOD,
            Negotiated::Discover { .. } => DiscoverRequest::METHOD,
        }
    }

    /// The `InitializeResult` or `DiscoverResult`.
    pub fn result(&self) -> &Value {
        match self {
            Negotiated::Initialize { result, .. } | Negotiated::Discover { result, .. } => result,
        }
    }
}

/// Where notifications for in-flight calls go.
#[derive(Default)]
struct Routes {
    progress: HashMap<String, mpsc::Sender<ProgressUpdate>>,
    subscriptions: HashMap<i64, mpsc::Sender<subscription::SubscriptionEvent>>,
    /// Subscription notifications that arrived before their subscription was routed (the
    /// acknowledgment can overtake the `subscriptions/listen` call that sent the request);
    /// the oldest go first once [`UNCLAIMED_LIMIT`] are kept.
    unclaimed: std::collections::VecDeque<(i64, subscription::SubscriptionEvent)>,
}

/// The most subscription notifications kept for a subscription not routed yet.
const UNCLAIMED_LIMIT: usize = 32;

/// What the session and its dispatch tasks share.
struct Shared {
    server: String,
    handle: PeerHandle,
    http: bool,
    handlers: Handlers,
    routes: Mutex<Routes>,
    next_token: AtomicU64,
    /// Notifications the dispatch task has handled (routed or given to the handler), to be
    /// compared with the peer's `notifications_queued`.
    handled: tokio::sync::watch::Sender<u64>,
}

impl Shared {
    fn routes(&self) -> MutexGuard<'_, Routes> {
        self.routes.lock()
    }
}

/// An MCP session with one server: the handshake is done; send requests and notifications,
/// with typed helpers for every client→server method of both eras.
///
/// A `Session` owns its connection: dropping it closes the connection (and kills a spawned
/// server). In the 2026-07-28 era every request carries the protocol version, client info and
/// capabilities in `_meta`, and `InputRequiredResult`s are answered through the handlers and
/// retried transparently.
pub struct Session {
    shared: Arc<Shared>,
    client: Peer,
    negotiated: Negotiated,
    client_info: Value,
    capabilities: Value,
    timeout: Duration,
    /// The `x-mcp-header` declarations of the tools listed so far (2026-07-28 over HTTP).
    tool_headers: Mutex<HashMap<String, Vec<mcp_schema::headers::ParamHeader>>>,
    /// The log level every request carries (2026-07-28; see
    /// [`set_logging_level`](Self::set_logging_level)).
    log_level: Mutex<Option<mcp_schema::LoggingLevel>>,
    /// The tools a 2025-11-25 server runs only as tasks, once listed.
    task_only: Mutex<Option<std::collections::HashSet<String>>>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("server", &self.shared.server)
            .field("protocol_version", &self.negotiated.protocol_version())
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl Session {
    /// Takes over a JSON-RPC connection and performs the handshake.
    /// `error`, with how the server ended when it is about a closed connection to a server
    /// this session spawned: waits up to `EXIT_GRACE` (500 ms) for the server to exit and its
    /// captured stderr to end, then gives [`Error::ServerExited`] with its exit status and
    /// last stderr lines (see [`Manager::with_stderr`](crate::Manager::with_stderr)). Any
    /// other error is returned as it is.
    pub async fn with_exit_details(&mut self, error: Error) -> Error {
        if self.is_connected() || matches!(error, Error::ServerExited { .. }) {
            return error;
        }
        let Some(exit) = self.client.child_exit(EXIT_GRACE).await else {
            return error;
        };
        if exit.status.is_none() && exit.stderr_tail.is_empty() {
            return error;
        }
        Error::ServerExited {
            server: self.shared.server.clone(),
            status: exit.status.map(|status| status.to_string()),
            stderr_tail: exit.stderr_tail,
            source: Box::new(error),
        }
    }

    pub(crate) async fn establish(
        server: &str,
        mut client: Peer,
        http: bool,
        settings: &SessionSettings,
    ) -> Result<Session, Error> {
        let shared = Arc::new(Shared {
            server: server.to_owned(),
            handle: client.handle(),
            http,
            handlers: settings.handlers.clone(),
            routes: Mutex::new(Routes::default()),
            next_token: AtomicU64::new(1),
            handled: tokio::sync::watch::Sender::new(0),
        });
        if let Some(requests) = client.take_requests() {
            tokio::spawn(dispatch::serve_requests(shared.clone(), requests));
        }
        if let Some(notifications) = client.take_notifications() {
            tokio::spawn(dispatch::serve_notifications(shared.clone(), notifications));
        }
        let mut capabilities = settings.capabilities.clone();
        if settings.handlers.roots.is_some() && !capabilities.contains_key("roots") {
            capabilities.insert("roots".into(), Value::Object(Map::new()));
        }
        // A task is followed to its end by any call (`tasks`), so the extension is declared.
        if let Value::Object(extensions) = capabilities
            .entry("extensions")
            .or_insert_with(|| Value::Object(Map::new()))
        {
            extensions
                .entry(mcp_schema::ext::TASKS)
                .or_insert_with(|| Value::Object(Map::new()));
        }
        let client_info = serde_json::to_value(&settings.client_info).map_err(|e| Error::Json {
            context: "encoding clientInfo".into(),
            source: e,
        })?;
        let mut session = Session {
            shared,
            client,
            // Replaced by the handshake below.
            negotiated: Negotiated::Initialize {
                protocol_version: String::new(),
                result: Value::Null,
            },
            client_info,
            capabilities: Value::Object(capabilities),
            timeout: settings.timeout,
            tool_headers: Mutex::new(HashMap::new()),
            log_level: Mutex::new(None),
            task_only: Mutex::new(None),
        };
        // One deadline for the whole handshake, however many probes it takes.
        let handshake = era::negotiate(
            &session,
            settings.protocol_version.as_deref(),
            settings.era_hints.get(server).copied(),
        );
        session.negotiated = match tokio::time::timeout(settings.timeout, handshake).await {
            Ok(Ok(negotiated)) => negotiated,
            Ok(Err(error)) => return Err(session.with_exit_details(error).await),
            Err(_) => {
                let error = Error::Timeout {
                    method: HANDSHAKE.into(),
                    timeout: settings.timeout,
                };
                return Err(session.with_exit_details(error).await);
            }
        };
        if session.shared.http {
            // Every later HTTP request names the negotiated version.
            let _ = session.shared.handle.set_http_header(
                mcp_schema::headers::PROTOCOL_VERSION,
                session.negotiated.protocol_version(),
            );
        }
        tracing::debug!(
            server,
            version = session.negotiated.protocol_version(),
            "mcp session established"
        );
        if let Some(level) = settings.log_level.clone() {
            // Logs are a help, not the session's purpose: a refusal is reported, not fatal.
            if let Err(error) = session.ask_log_level(level).await {
                tracing::warn!(server, %error, "the server refused the log level");
            }
        }
        Ok(session)
    }

    /// The server's configured name.
    pub fn server_name(&self) -> &str {
        &self.shared.server
    }

    /// How the handshake went: version, era and the server's answer.
    pub fn negotiated(&self) -> &Negotiated {
        &self.negotiated
    }

    /// The negotiated protocol version.
    pub fn protocol_version(&self) -> &str {
        self.negotiated.protocol_version()
    }

    /// The server's `InitializeResult` (or, in the 2026-07-28 era, its `DiscoverResult`).
    pub fn initialize_result(&self) -> &Value {
        self.negotiated.result()
    }

    /// The per-request timeout.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Sets the per-request timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The underlying JSON-RPC connection.
    pub fn peer(&self) -> &Peer {
        &self.client
    }

    /// The underlying JSON-RPC connection, mutably (to wait for or take a child process).
    pub fn peer_mut(&mut self) -> &mut Peer {
        &mut self.client
    }

    /// True while the connection is open.
    pub fn is_connected(&self) -> bool {
        !self.shared.handle.is_closed()
    }

    /// Closes the connection (on streamable HTTP the session is ended with `DELETE`).
    pub async fn close(mut self) {
        self.client.close().await;
    }

    // ----- raw requests -----------------------------------------------------------------------

    /// Sends a request and returns its result. A timeout sends `notifications/cancelled` and
    /// is [`Error::Timeout`]; a JSON-RPC error is [`Error::Rpc`].
    pub async fn request(&self, method: &str, params: Option<Value>) -> Result<Value, Error> {
        self.call(method, params, None).await
    }

    /// Sends a request with typed params and result, bound by [`McpRequest`].
    pub async fn request_typed<R: McpRequest>(
        &self,
        params: Option<R::Params>,
    ) -> Result<R::Result, Error> {
        let params = to_params(R::METHOD, params.as_ref())?;
        let value = self.request(R::METHOD, params).await?;
        from_result(R::METHOD, value)
    }

    /// Sends a notification.
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), Error> {
        self.shared
            .handle
            .notify(method, params)
            .await
            .map_err(|e| self.request_error(method, e))
    }

    /// Sends a notification with typed params, bound by [`McpNotification`].
    pub async fn notify_typed<N: McpNotification>(
        &self,
        params: Option<N::Params>,
    ) -> Result<(), Error> {
        let params = to_params(N::METHOD, params.as_ref())?;
        self.notify(N::METHOD, params).await
    }

    fn next_token(&self) -> String {
        format!(
            "mcp-kit-{}",
            self.shared.next_token.fetch_add(1, Ordering::Relaxed)
        )
    }
}

pub(crate) fn to_params<P: Serialize>(
    method: &str,
    params: Option<&P>,
) -> Result<Option<Value>, Error> {
    params
        .map(serde_json::to_value)
        .transpose()
        .map_err(|e| Error::Json {
            context: format!("encoding the params of {method}"),
            source: e,
        })
}

pub(crate) fn from_result<T: DeserializeOwned>(method: &str, value: Value) -> Result<T, Error> {
    serde_json::from_value(value).map_err(|e| Error::Json {
        context: format!("decoding the result of {method}"),
        source: e,
    })
}
