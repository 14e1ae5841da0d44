//! Multi round-trip requests (MRTR, 2026-07-28): an `InputRequiredResult` is answered through the
//! session's handlers and the request retried, transparently to the caller.

use serde_json::{Map, Value};

use super::Session;
use crate::Error;
use crate::handlers::{RequestOrigin, ServerRequestContext};

/// How many times one request may come back with `input_required` before the client gives up.
const MAX_ROUNDS: usize = 16;

impl Session {
    pub(crate) async fn call_with_input(
        &self,
        method: &str,
        params: Option<Value>,
        progress_token: Option<&str>,
    ) -> Result<Value, Error> {
        let mut attempt = params.clone();
        for _ in 0..MAX_ROUNDS {
            let result = self.exchange(method, attempt, progress_token).await?;
            if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
                return Ok(result);
            }
            let responses = self.answer_input_requests(method, &result).await?;
            // Each retry is the original request plus this round's answers; requestState is
            // echoed exactly when present and never invented.
            let mut retry = match &params {
                Some(Value::Object(original)) => original.clone(),
                _ => Map::new(),
            };
            if !responses.is_empty() {
                retry.insert("inputResponses".into(), Value::Object(responses));
            }
            if let Some(state) = result.get("requestState") {
                retry.insert("requestState".into(), state.clone());
            }
            attempt = Some(Value::Object(retry));
        }
        Err(Error::Protocol {
            server: self.server_name().to_owned(),
            message: format!("{method} still asked for input after {MAX_ROUNDS} rounds; giving up"),
        })
    }

    async fn answer_input_requests(
        &self,
        method: &str,
        result: &Value,
    ) -> Result<Map<String, Value>, Error> {
        let mut responses = Map::new();
        let Some(requests) = result.get("inputRequests").and_then(Value::as_object) else {
            return Ok(responses);
        };
        for (key, request) in requests {
            let input_method = request
                .get("method")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let ctx = ServerRequestContext {
                server_name: self.server_name().to_owned(),
                method: input_method.clone(),
                params: request.get("params").cloned(),
                origin: RequestOrigin::InputRequest {
                    key: key.clone(),
                    during: method.to_owned(),
                },
            };
            match self.shared.handlers.answer(ctx).await {
                Ok(answer) => {
                    responses.insert(key.clone(), answer);
                }
                Err(error) => {
                    return Err(Error::Protocol {
                        server: self.server_name().to_owned(),
                        message: format!(
                            "{method} needs input `{key}` ({input_method}) that this client cannot give: {error}. \
                             Install a server request handler (Manager::with_server_request_handler) and declare the capability."
                        ),
                    });
                }
            }
        }
        Ok(responses)
    }
}
