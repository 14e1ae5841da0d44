//! 2026-07-28 multi round-trip requests: `InputRequiredResult` out, `inputResponses` and
//! `requestState` back in.
//!
//! The handler runs again on every retry. Each [`RequestContext::elicit`]-like call gets a
//! key from its position (`elicitation-1`, `sampling-2`, …); answers the client sent, and
//! answers of earlier rounds carried in the signed `requestState`, are found under that key.
//! The state is bound to the method and the tool/prompt/resource it was issued for and
//! expires; a state that fails verification is refused with `-32602`.
//!
//! [`RequestContext::elicit`]: crate::RequestContext::elicit

use std::time::{SystemTime, UNIX_EPOCH};

use mcp_schema::InputResponses;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::Call;
use crate::Server;
use crate::context::InputRound;
use crate::error::Error;

const PURPOSE: &str = "request-state";

#[derive(Serialize, Deserialize)]
struct State {
    /// The method and target the state was issued for.
    m: String,
    t: String,
    /// Answers gathered in earlier rounds.
    a: InputResponses,
    /// Expiry, seconds since the epoch.
    x: u64,
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

fn target(method: &str, params: &Map<String, Value>) -> String {
    let key = if method == "resources/read" {
        "uri"
    } else {
        "name"
    };
    params
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// Reads the answers a retry carries.
pub(super) fn receive(
    server: &Server,
    method: &str,
    params: &Map<String, Value>,
) -> Result<InputRound, Error> {
    let mut answers: InputResponses = match params.get("inputResponses") {
        None | Some(Value::Null) => InputResponses::new(),
        Some(v) => serde_json::from_value(v.clone()).map_err(|e| {
            Error::invalid_params(format!("params.inputResponses is malformed: {e}"))
        })?,
    };
    match params.get("requestState") {
        None | Some(Value::Null) => {}
        Some(Value::String(token)) => {
            let state: State = server
                .inner
                .signer
                .verify(PURPOSE, token)
                .map_err(|e| Error::invalid_params(format!("invalid requestState: {e}")))?;
            if state.m != method || state.t != target(method, params) {
                return Err(Error::invalid_params(
                    "invalid requestState: it was issued for another request",
                ));
            }
            if state.x < now() {
                return Err(Error::invalid_params(
                    "invalid requestState: it expired; send the request again without it",
                ));
            }
            for (key, answer) in state.a {
                answers.entry(key).or_insert(answer);
            }
        }
        Some(_) => {
            return Err(Error::invalid_params(
                "params.requestState must be a string",
            ));
        }
    }
    Ok(InputRound::new(answers))
}

/// Turns a handler that stopped for input into an `InputRequiredResult`.
pub(super) fn finish(
    server: &Server,
    call: &Call<'_>,
    result: Result<Value, Error>,
) -> Result<Value, Error> {
    let Err(error) = result else {
        return result;
    };
    if !error.is_input_required() {
        return Err(error);
    }
    let Some(round) = &call.cx.inner.input else {
        return Err(error);
    };
    let pending = std::mem::take(&mut *round.pending.lock().unwrap_or_else(|p| p.into_inner()));
    if pending.is_empty() {
        return Err(error);
    }
    let state = State {
        m: call.method.to_owned(),
        t: target(call.method, &call.params),
        a: round.answers.clone(),
        x: now() + server.inner.options.request_state_ttl.as_secs(),
    };
    Ok(json!({
        "resultType": "input_required",
        "inputRequests": pending,
        "requestState": server.inner.signer.sign(PURPOSE, &state),
    }))
}
