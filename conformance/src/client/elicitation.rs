//! What the client answers when a server asks: `elicitation/create` (as a JSON-RPC request in
//! the stateful era, or as an input request of an `InputRequiredResult` in 2026-07-28: the
//! same handler serves both), and a log of server notifications.
//!
//! The "user" of this client is the test: it accepts every form as the form is pre-filled,
//! i.e. with the default of each field that has one (SEP-1034: clients SHOULD pre-populate
//! form fields with their defaults). A form with a required field that has no default cannot
//! be completed that way and is declined; URL-mode elicitations are declined too (nobody is
//! there to open the page).

use std::collections::BTreeMap;
use std::sync::Arc;

use mcp_kit::mcp::{ElicitAction, ElicitRequestParams, ElicitResult, ElicitValue};
use mcp_kit::{
    ServerNotificationContext, ServerNotificationHandler, ServerRequestContext,
    ServerRequestHandler, ServerRequestOutcome,
};
use serde_json::Value;

/// The handler of server requests.
pub(crate) fn handler() -> ServerRequestHandler {
    Arc::new(|ctx: ServerRequestContext| {
        Box::pin(async move {
            tracing::info!(method = %ctx.method, via = %ctx.origin, "server request");
            match ctx.method.as_str() {
                "elicitation/create" => elicit(ctx.params),
                _ => ServerRequestOutcome::MethodNotFound,
            }
        })
    })
}

/// Logs every notification the server sends that no call or subscription took.
pub(crate) fn notification_logger() -> ServerNotificationHandler {
    Arc::new(|ctx: ServerNotificationContext| {
        Box::pin(async move {
            tracing::info!(method = %ctx.method, params = ?ctx.params, "server notification");
        })
    })
}

fn invalid_params(message: String) -> ServerRequestOutcome {
    ServerRequestOutcome::Error {
        code: mcp_kit::mcp::error_codes::INVALID_PARAMS,
        message,
        data: None,
    }
}

fn elicit(params: Option<Value>) -> ServerRequestOutcome {
    let params: ElicitRequestParams = match serde_json::from_value(params.unwrap_or(Value::Null)) {
        Ok(params) => params,
        Err(e) => return invalid_params(format!("invalid elicitation/create params: {e}")),
    };
    let result = match params {
        ElicitRequestParams::Form(form) => {
            tracing::info!(message = %form.message, "elicitation form");
            let mut content = BTreeMap::new();
            let mut missing = Vec::new();
            for (name, field) in &form.requested_schema.properties {
                let default = serde_json::to_value(field)
                    .ok()
                    .and_then(|field| field.get("default").cloned());
                match default.map(serde_json::from_value::<ElicitValue>) {
                    Some(Ok(value)) => {
                        content.insert(name.clone(), value);
                    }
                    Some(Err(e)) => {
                        return invalid_params(format!(
                            "field `{name}` has an invalid default: {e}"
                        ));
                    }
                    None => missing.push(name.as_str()),
                }
            }
            let required = form
                .requested_schema
                .required
                .as_deref()
                .unwrap_or_default();
            let unfilled: Vec<&str> = required
                .iter()
                .map(String::as_str)
                .filter(|name| missing.contains(name))
                .collect();
            if unfilled.is_empty() {
                let mut result = ElicitResult::new(ElicitAction::Accept);
                result.content = Some(content);
                result
            } else {
                tracing::info!(?unfilled, "required fields without a default: declining");
                ElicitResult::new(ElicitAction::Decline)
            }
        }
        ElicitRequestParams::Url(url) => {
            tracing::info!(url = %url.url, "URL elicitation: declining (no user to open it)");
            ElicitResult::new(ElicitAction::Decline)
        }
        ElicitRequestParams::Unknown(other) => {
            return invalid_params(format!("unsupported elicitation mode: {other}"));
        }
    };
    match serde_json::to_value(&result) {
        Ok(value) => {
            tracing::info!(answer = %value, "elicitation answered");
            ServerRequestOutcome::Ok(value)
        }
        Err(e) => ServerRequestOutcome::Error {
            code: mcp_kit::mcp::error_codes::INTERNAL_ERROR,
            message: format!("cannot encode the elicitation result: {e}"),
            data: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answer(params: Value) -> Value {
        match elicit(Some(params)) {
            ServerRequestOutcome::Ok(value) => value,
            other => panic!("not answered: {other:?}"),
        }
    }

    #[test]
    fn a_form_is_accepted_with_its_defaults() {
        let answer = answer(json!({
            "message": "m",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "name": { "type": "string", "default": "John Doe" },
                    "age": { "type": "integer", "default": 30 },
                    "score": { "type": "number", "default": 95.5 },
                    "status": { "type": "string", "enum": ["a", "b"], "default": "a" },
                    "verified": { "type": "boolean", "default": true },
                    "note": { "type": "string" }
                },
                "required": []
            }
        }));
        assert_eq!(
            answer,
            json!({
                "action": "accept",
                "content": { "name": "John Doe", "age": 30, "score": 95.5, "status": "a", "verified": true }
            })
        );
    }

    #[test]
    fn a_required_field_without_default_declines_and_url_mode_declines() {
        let form = json!({
            "message": "m",
            "requestedSchema": {
                "type": "object",
                "properties": { "code": { "type": "string" } },
                "required": ["code"]
            }
        });
        assert_eq!(answer(form), json!({ "action": "decline" }));
        let url = json!({ "mode": "url", "message": "m", "url": "https://example.com", "elicitationId": "e" });
        assert_eq!(answer(url), json!({ "action": "decline" }));
    }
}
