//! Answering what servers ask of the client: server→client requests (stateful era) and the
//! input requests embedded in an `InputRequiredResult` (2026-07-28) go through one path, so the
//! same handler serves both eras.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use mcp_jsonrpc::{ErrorObject, error_codes};
use mcp_schema::{ListRootsRequest, McpRequest, PingRequest};
use serde_json::{Value, json};

use crate::config::Root;

/// A boxed future, as handlers return them.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// Handles requests from servers (`sampling/createMessage`, `elicitation/create`, custom
/// methods…). Built-in `roots/list` (when roots are set) and `ping` are answered before it is
/// called.
pub type ServerRequestHandler =
    Arc<dyn Fn(ServerRequestContext) -> BoxFuture<ServerRequestOutcome> + Send + Sync>;

/// Receives every notification from servers (after progress and subscription routing).
pub type ServerNotificationHandler =
    Arc<dyn Fn(ServerNotificationContext) -> BoxFuture<()> + Send + Sync>;

/// A request from a server.
#[derive(Debug, Clone)]
pub struct ServerRequestContext {
    /// The configured name of the server asking.
    pub server_name: String,
    /// The method (`sampling/createMessage`, `elicitation/create`, …).
    pub method: String,
    /// The parameters.
    pub params: Option<Value>,
    /// How it arrived: a JSON-RPC request (stateful era) or an input request of an
    /// `InputRequiredResult` (2026-07-28).
    pub origin: RequestOrigin,
}

/// How a server's request reached the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestOrigin {
    /// A JSON-RPC request with this id (stateful era).
    JsonRpc(mcp_jsonrpc::Id),
    /// An entry of `inputRequests` with this key, made while the client's request `method`
    /// was in flight (2026-07-28).
    InputRequest {
        /// The key in `inputRequests`.
        key: String,
        /// The method of the client request that got the `InputRequiredResult`.
        during: String,
    },
    /// An entry of a task's `inputRequests` (the tasks extension), answered with
    /// `tasks/update`.
    TaskInput {
        /// The task.
        task_id: String,
        /// The key in `inputRequests`.
        key: String,
    },
}

impl std::fmt::Display for RequestOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RequestOrigin::JsonRpc(id) => write!(f, "request {id}"),
            RequestOrigin::InputRequest { key, during } => {
                write!(f, "input request `{key}` of {during}")
            }
            RequestOrigin::TaskInput { task_id, key } => {
                write!(f, "input request `{key}` of task {task_id}")
            }
        }
    }
}

/// What a [`ServerRequestHandler`] answers.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerRequestOutcome {
    /// A result.
    Ok(Value),
    /// A JSON-RPC error.
    Error {
        /// The error code.
        code: i64,
        /// The message.
        message: String,
        /// Additional data.
        data: Option<Value>,
    },
    /// `-32601 Method not found`: the handler does not know the method.
    MethodNotFound,
}

/// A notification from a server.
#[derive(Debug, Clone)]
pub struct ServerNotificationContext {
    /// The configured name of the server.
    pub server_name: String,
    /// The method.
    pub method: String,
    /// The parameters.
    pub params: Option<Value>,
}

/// The handlers of one session: built-ins first, then the user's.
#[derive(Clone, Default)]
pub(crate) struct Handlers {
    pub(crate) roots: Option<Arc<Vec<Root>>>,
    pub(crate) request: Option<ServerRequestHandler>,
    pub(crate) notification: Option<ServerNotificationHandler>,
}

impl std::fmt::Debug for Handlers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handlers")
            .field("roots", &self.roots)
            .field("request", &self.request.is_some())
            .field("notification", &self.notification.is_some())
            .finish()
    }
}

impl Handlers {
    /// Answers a server's request.
    pub(crate) async fn answer(&self, ctx: ServerRequestContext) -> Result<Value, ErrorObject> {
        match ctx.method.as_str() {
            ListRootsRequest::METHOD if self.roots.is_some() => {
                let roots = self.roots.as_deref().map(Vec::as_slice).unwrap_or_default();
                return Ok(json!({ "roots": roots }));
            }
            PingRequest::METHOD => return Ok(json!({})),
            _ => {}
        }
        let method = ctx.method.clone();
        let outcome = match &self.request {
            Some(handler) => handler(ctx).await,
            None => ServerRequestOutcome::MethodNotFound,
        };
        match outcome {
            ServerRequestOutcome::Ok(value) => Ok(value),
            ServerRequestOutcome::Error {
                code,
                message,
                data,
            } => {
                let mut error = ErrorObject::new(code, message);
                error.data = data;
                Err(error)
            }
            ServerRequestOutcome::MethodNotFound => Err(ErrorObject::new(
                error_codes::METHOD_NOT_FOUND,
                format!("Method not found: {method}"),
            )),
        }
    }

    pub(crate) async fn notify(&self, ctx: ServerNotificationContext) {
        if let Some(handler) = &self.notification {
            handler(ctx).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(method: &str) -> ServerRequestContext {
        ServerRequestContext {
            server_name: "s".into(),
            method: method.into(),
            params: None,
            origin: RequestOrigin::JsonRpc(mcp_jsonrpc::Id::Number(1)),
        }
    }

    #[tokio::test]
    async fn built_ins_then_user_then_method_not_found() {
        let mut handlers = Handlers::default();
        assert_eq!(
            handlers.answer(ctx("roots/list")).await.unwrap_err().code,
            -32601
        );
        assert_eq!(handlers.answer(ctx("ping")).await.unwrap(), json!({}));
        handlers.roots = Some(Arc::new(vec![Root {
            uri: "file:///r".into(),
            name: None,
        }]));
        assert_eq!(
            handlers.answer(ctx("roots/list")).await.unwrap(),
            json!({ "roots": [{ "uri": "file:///r" }] })
        );
        handlers.request = Some(Arc::new(|ctx: ServerRequestContext| {
            Box::pin(async move {
                match ctx.method.as_str() {
                    "x/ok" => ServerRequestOutcome::Ok(json!(1)),
                    "x/err" => ServerRequestOutcome::Error {
                        code: -1,
                        message: "no".into(),
                        data: Some(json!("d")),
                    },
                    _ => ServerRequestOutcome::MethodNotFound,
                }
            }) as _
        }));
        assert_eq!(handlers.answer(ctx("x/ok")).await.unwrap(), json!(1));
        let error = handlers.answer(ctx("x/err")).await.unwrap_err();
        assert_eq!((error.code, error.data), (-1, Some(json!("d"))));
        let error = handlers.answer(ctx("x/other")).await.unwrap_err();
        assert_eq!(error.message, "Method not found: x/other");
    }
}
