//! `tools/list` and `tools/call`: argument validation, structured output checks, tool errors.

use serde_json::{Map, Value};

use super::paging::{listing, page};
use super::{Call, tool_error_result};
use crate::error::Error;

pub(super) fn list(call: &Call<'_>) -> Result<Value, Error> {
    let snapshot = call.session().server.inner.registry.tools.snapshot();
    let page = page(call, "tools", &snapshot.items, |t| {
        serde_json::to_value(&t.tool).unwrap_or_default()
    })?;
    Ok(listing("tools", page))
}

pub(super) async fn call(call: &Call<'_>) -> Result<Value, Error> {
    let name = match call.params.get("name") {
        Some(Value::String(n)) => n.as_str(),
        _ => {
            return Err(Error::invalid_params(
                "tools/call needs params.name (a string)",
            ));
        }
    };
    let Some(def) = call.session().server.inner.registry.tools.get(name) else {
        return Err(Error::invalid_params(format!("Unknown tool: {name}")));
    };
    let empty = Value::Object(Map::new());
    let arguments = match call.params.get("arguments") {
        None | Some(Value::Null) => &empty,
        Some(a @ Value::Object(_)) => a,
        Some(_) => {
            return Err(Error::invalid_params(
                "params.arguments must be a JSON object",
            ));
        }
    };
    let version = call.cx.inner.version;
    if let Err(problems) = def.input.check(arguments) {
        let message = format!("Invalid arguments for tool {name}: {problems}");
        // 2025-11-25 (SEP-1303) and later: a tool error the model can read and correct.
        // Before: a protocol error.
        return if version >= mcp_schema::ProtocolVersion::V2025_11_25 {
            tool_error_result(Error::msg(message))
        } else {
            Err(Error::invalid_params(message))
        };
    }
    let Value::Object(arguments) = arguments.clone() else {
        unreachable!("checked above to be an object")
    };
    let result = match (def.handler)(arguments, call.cx.clone()).await {
        Ok(result) => result,
        Err(e) => return tool_error_result(e.resolve(call.era())),
    };
    if let Some(output) = &def.output
        && !result.is_error()
    {
        let Some(structured) = &result.structured_content else {
            return Err(Error::rpc(mcp_jsonrpc::ErrorObject::internal_error(
                format!("tool {name} declares an outputSchema but returned no structuredContent"),
            )));
        };
        if let Err(problems) = output.check(structured) {
            return Err(Error::rpc(mcp_jsonrpc::ErrorObject::internal_error(
                format!(
                    "tool {name} returned structuredContent that does not match its outputSchema: {problems}"
                ),
            )));
        }
    }
    serde_json::to_value(&result).map_err(Error::msg)
}
