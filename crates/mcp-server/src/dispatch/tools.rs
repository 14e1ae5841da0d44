//! `tools/list` and `tools/call`: argument validation, structured output checks, tool errors.

use mcp_jsonrpc::ErrorObject;
use mcp_schema::{
    CallToolRequestParams, CallToolResult, ListToolsResult, Outcome, PaginatedRequestParams,
    ProtocolVersion,
};
use serde_json::Value;

use super::input;
use super::paging::page;
use crate::error::{Error, ErrorKind, reflect};
use crate::middleware::Call;

pub(super) fn list(
    call: &Call<'_>,
    params: Option<&PaginatedRequestParams>,
) -> Result<ListToolsResult, Error> {
    let snapshot = call.registry.tools.snapshot();
    let shared = &call.cx.inner.session.shared;
    let page = page(shared, params, "tools", &snapshot.items, |t| t.tool.clone())?;
    Ok(ListToolsResult {
        tools: page.items,
        next_cursor: page.next_cursor,
        ..Default::default()
    })
}

pub(super) async fn call(
    call: &Call<'_>,
    params: &CallToolRequestParams,
) -> Result<Outcome<CallToolResult>, Error> {
    let result = run(call, params).await;
    input::outcome(call, result)
}

async fn run(call: &Call<'_>, params: &CallToolRequestParams) -> Result<CallToolResult, Error> {
    let name = params.name.as_str();
    let Some(def) = call.registry.tools.get(name) else {
        return Err(Error::invalid_params(format!(
            "Unknown tool: {}",
            reflect(name)
        )));
    };
    let version = call.cx.protocol_version();
    let arguments = params.arguments.clone().unwrap_or_default();
    let as_value = Value::Object(arguments);
    if let Err(problems) = def.input.check(&as_value) {
        let message = format!("Invalid arguments for tool {name}: {problems}");
        // 2025-11-25 (SEP-1303) and later: a tool error the model can read and correct.
        // Before: a protocol error.
        return if version >= ProtocolVersion::V2025_11_25 {
            Ok(CallToolResult::error(message))
        } else {
            Err(Error::invalid_params(message))
        };
    }
    let Value::Object(arguments) = as_value else {
        unreachable!("built from a map above")
    };
    let result = match (def.handler)(arguments, call.cx.clone()).await {
        Ok(result) => result,
        Err(e) => return tool_error(e.resolve(version.era())),
    };
    if let Some(output) = &def.output
        && !result.is_error()
    {
        let Some(structured) = &result.structured_content else {
            return Err(Error::rpc(ErrorObject::internal_error(format!(
                "tool {name} declares an outputSchema but returned no structuredContent"
            ))));
        };
        if let Err(problems) = output.check(&structured.to_value()) {
            return Err(Error::rpc(ErrorObject::internal_error(format!(
                "tool {name} returned structuredContent that does not match its outputSchema: \
                 {problems}"
            ))));
        }
    }
    Ok(result)
}

/// What a tool's error becomes: the message as an `isError` result (so the model can read and
/// correct it); other kinds stay protocol errors (and the input-required signal passes on).
fn tool_error(error: Error) -> Result<CallToolResult, Error> {
    match error.kind {
        ErrorKind::Message(message) => Ok(CallToolResult::error(message)),
        kind => Err(Error { kind }),
    }
}
