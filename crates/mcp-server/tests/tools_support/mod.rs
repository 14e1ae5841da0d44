//! Tools more than one test server registers.

#![allow(dead_code)]

use mcp_server::{NoArguments, ServerBuilder};
use serde_json::json;

/// Adds `ask`: asks the client for a name with an elicitation form and answers
/// `hello "{name}"` (the name as JSON).
pub(crate) fn with_ask(builder: ServerBuilder) -> ServerBuilder {
    builder.tool(
        "ask",
        "Asks the user's name",
        |_: NoArguments, cx| async move {
            let answer = cx
                .elicit_form(
                    "Name?",
                    json!({ "type": "object", "properties": { "name": { "type": "string" } } }),
                )
                .await?;
            let content = serde_json::to_value(answer.content).unwrap_or_default();
            Ok(format!("hello {}", content["name"]))
        },
    )
}
