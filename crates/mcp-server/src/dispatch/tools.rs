//! `tools/list` and `tools/call`: argument validation, structured output checks, tool errors.

use mcp_jsonrpc::ErrorObject;
use mcp_schema::{
    CallToolRequestParams, CallToolResult, ListToolsResult, Outcome, PaginatedRequestParams,
    ProtocolVersion,
};
use serde_json::{Map, Value};

use super::paging::page;
use super::{input, tasks};
use crate::error::{Error, ErrorKind, reflect};
use crate::middleware::Call;
use crate::registry::BoxFuture;
use crate::registry::tool::ToolDef;

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
    let name = params.name.as_str();
    let Some(def) = call.registry.tools.get(name) else {
        return Err(Error::invalid_params(format!(
            "Unknown tool: {}",
            reflect(name)
        )));
    };
    // Before the arguments are looked at: a tool that must run as a task refuses a client that
    // cannot follow one whatever it sent.
    let start = tasks::start(call, &def)?;
    let arguments = match arguments(call, &def, params) {
        Ok(arguments) => arguments,
        Err(refusal) => return (*refusal).map(Outcome::Complete),
    };
    let cx = call.cx.clone();
    let version = cx.protocol_version();
    let handler = def.handler.clone();
    let work: BoxFuture<Result<CallToolResult, Error>> =
        Box::pin(async move { finish(&def, version, handler(arguments, cx).await) });
    match start {
        Some(start) => tasks::call(call, start, work).await,
        None => input::outcome(call, work.await),
    }
}

/// The arguments, validated against the tool's input schema; a mismatch is a tool error the
/// model can read (2025-11-25, SEP-1303 and later) or, before, a protocol error.
fn arguments(
    call: &Call<'_>,
    def: &ToolDef,
    params: &CallToolRequestParams,
) -> Result<Map<String, Value>, Box<Result<CallToolResult, Error>>> {
    let name = def.name();
    let as_value = Value::Object(params.arguments.clone().unwrap_or_default());
    if let Err(problems) = def.input.check(&as_value) {
        let message = format!("Invalid arguments for tool {name}: {problems}");
        return Err(Box::new(
            if call.cx.protocol_version() >= ProtocolVersion::V2025_11_25 {
                Ok(CallToolResult::error(message))
            } else {
                Err(Error::invalid_params(message))
            },
        ));
    }
    let Value::Object(arguments) = as_value else {
        unreachable!("built from a map above")
    };
    Ok(arguments)
}

/// What the handler's outcome becomes: tool errors as `isError` results, and results checked
/// against the tool's output schema.
fn finish(
    def: &ToolDef,
    version: ProtocolVersion,
    outcome: Result<CallToolResult, Error>,
) -> Result<CallToolResult, Error> {
    let name = def.name();
    let result = match outcome {
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
