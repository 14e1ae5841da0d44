//! 2026-07-28 multi round-trip requests: an `InputRequiredResult` out, `inputResponses` and
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

use mcp_schema::{ClientRequest, InputRequiredResult, InputResponses, Outcome, RetryParams};
use serde::{Deserialize, Serialize};

use crate::context::InputRound;
use crate::error::Error;
use crate::middleware::Call;
use crate::shared::Shared;

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

/// Reads the answers a retry carries.
pub(super) fn receive(
    shared: &Shared,
    request: &ClientRequest,
    retry: &dyn RetryParams,
) -> Result<InputRound, Error> {
    let mut answers = retry.input_responses().cloned().unwrap_or_default();
    if let Some(token) = retry.request_state() {
        let state: State = shared
            .signer()
            .verify(PURPOSE, token)
            .map_err(|e| Error::invalid_params(format!("invalid requestState: {e}")))?;
        if state.m != request.method() || state.t != request.target().unwrap_or_default() {
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
    Ok(InputRound::new(answers))
}

/// The outcome of a handler that may have stopped for input: an `InputRequiredResult` then.
pub(super) fn outcome<T>(call: &Call<'_>, result: Result<T, Error>) -> Result<Outcome<T>, Error> {
    let error = match result {
        Ok(t) => return Ok(Outcome::Complete(t)),
        Err(e) if e.is_input_required() => e,
        Err(e) => return Err(e),
    };
    let Some(round) = &call.cx.inner.input else {
        return Err(error);
    };
    let pending = std::mem::take(&mut *round.pending.lock());
    if pending.is_empty() {
        return Err(error);
    }
    let shared = &call.cx.inner.session.shared;
    let state = State {
        m: call.request.method().to_owned(),
        t: call.request.target().unwrap_or_default().to_owned(),
        a: round.answers.clone(),
        x: now() + shared.options.request_state_ttl.as_secs(),
    };
    let state = shared.signer().sign(PURPOSE, &state);
    Ok(Outcome::InputRequired(InputRequiredResult::new(
        pending,
        Some(state),
    )))
}
