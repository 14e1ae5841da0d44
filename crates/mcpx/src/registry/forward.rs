//! An upstream's requests to the client (elicitation, sampling, roots), handed to the call in
//! flight that they belong to, whose task puts them to the downstream client.

use mcp_kit::{ServerRequestContext, ServerRequestOutcome};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

/// A request an upstream made of the client while a call was in flight.
#[derive(Debug)]
pub struct Ask {
    /// The method (`elicitation/create`, `sampling/createMessage`, `roots/list`, …).
    pub method: String,
    /// Its parameters, as the upstream sent them.
    pub params: Option<Value>,
    /// Where the answer goes.
    pub reply: oneshot::Sender<ServerRequestOutcome>,
}

/// The JSON-RPC code of a request that cannot be forwarded (no call in flight).
const NOT_FORWARDED: i64 = mcp_jsonrpc::error_codes::INVALID_REQUEST;

pub(super) async fn to_downstream(
    caller: Option<mpsc::Sender<Ask>>,
    request: ServerRequestContext,
) -> ServerRequestOutcome {
    let refused = |why: &str| ServerRequestOutcome::Error {
        code: NOT_FORWARDED,
        message: format!(
            "mcpx cannot forward {} from upstream `{}` to its client: {why}",
            request.method, request.server_name
        ),
        data: None,
    };
    let Some(caller) = caller else {
        return refused("no exec call is in flight on that upstream");
    };
    let (reply, answer) = oneshot::channel();
    let ask = Ask {
        method: request.method.clone(),
        params: request.params.clone(),
        reply,
    };
    if caller.send(ask).await.is_err() {
        return refused("the exec call it belonged to has ended");
    }
    answer
        .await
        .unwrap_or_else(|_| refused("the exec call it belonged to has ended"))
}
