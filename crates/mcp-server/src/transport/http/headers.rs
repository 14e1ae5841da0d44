//! The request metadata headers of 2026-07-28 (`MCP-Protocol-Version`, `Mcp-Method`,
//! `Mcp-Name`, `Mcp-Param-*`), checked against the body they mirror. Any disagreement is a
//! `400 Bad Request` with `-32020 HeaderMismatch`, so that an intermediary routing on the
//! headers and the server acting on the body can never see two different requests.

use axum::http::HeaderMap;
use mcp_schema::headers::{self as mirrored, decode_value};
use mcp_schema::methods::{TargetField, method_info};
use mcp_schema::{CallToolRequest, McpRequest};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::Server;
use crate::error::reflect;

pub(super) use mcp_jsonrpc::http_headers::{LAST_EVENT_ID, SESSION_ID};
pub(super) use mcp_schema::headers::PROTOCOL_VERSION;

/// A header's value: `Ok(None)` when absent, `Err(())` when it is not visible ASCII.
pub(super) fn text<'a>(headers: &'a HeaderMap, name: &str) -> Result<Option<&'a str>, ()> {
    match headers.get(name) {
        None => Ok(None),
        Some(v) => v
            .to_str()
            .map(|s| Some(s.trim_matches([' ', '\t'])))
            .map_err(|_| ()),
    }
}

/// The members of a request's params that the transport looks at before dispatching (the
/// arguments stay unparsed).
#[derive(Debug, Default, Deserialize)]
pub(super) struct Peek<'a> {
    #[serde(rename = "_meta", default)]
    pub(super) meta: Option<Value>,
    #[serde(default)]
    pub(super) name: Option<Value>,
    #[serde(default)]
    pub(super) uri: Option<Value>,
    #[serde(default, rename = "taskId")]
    pub(super) task_id: Option<Value>,
    #[serde(default, borrow)]
    pub(super) arguments: Option<&'a RawValue>,
}

impl<'a> Peek<'a> {
    pub(super) fn of(params: Option<&'a RawValue>) -> Self {
        params
            .and_then(|p| serde_json::from_str(p.get()).ok())
            .unwrap_or_default()
    }

    /// `_meta["io.modelcontextprotocol/protocolVersion"]`, when it is a string.
    pub(super) fn version(&self) -> Option<&str> {
        self.meta
            .as_ref()?
            .get(mcp_schema::meta::keys::PROTOCOL_VERSION)?
            .as_str()
    }
}

/// Checks the headers of a 2026-07-28 request against its body; the error is the message of
/// the `-32020` to send.
pub(super) fn check(
    server: &Server,
    headers: &HeaderMap,
    method: &str,
    peek: &Peek<'_>,
) -> Result<(), String> {
    let version = text(headers, PROTOCOL_VERSION)
        .map_err(|()| "the MCP-Protocol-Version header contains invalid characters".to_owned())?
        .ok_or_else(|| {
            format!(
                "the MCP-Protocol-Version header is required on every request (this server \
                 supports {}); send it equal to params._meta[\"{}\"]",
                server.options().protocol_versions.join(", "),
                mcp_schema::meta::keys::PROTOCOL_VERSION
            )
        })?;
    // A body without a version is answered by the dispatcher (-32602: the _meta is incomplete).
    if let Some(body) = peek.version()
        && body != version
    {
        return Err(format!(
            "MCP-Protocol-Version header value '{version}' does not match body value '{body}'"
        ));
    }
    match text(headers, mirrored::METHOD) {
        Err(()) => return Err("the Mcp-Method header contains invalid characters".into()),
        Ok(None) => {
            return Err(format!(
                "the Mcp-Method header is required (send Mcp-Method: {})",
                reflect(method)
            ));
        }
        Ok(Some(m)) if m != method => {
            return Err(format!(
                "Mcp-Method header value '{}' does not match body value '{}'",
                reflect(m),
                reflect(method)
            ));
        }
        Ok(Some(_)) => {}
    }
    let target = method_info(method)
        .filter(|info| info.target_header)
        .and_then(|info| info.target);
    let named = match target {
        Some(TargetField::Name) => peek.name.as_ref(),
        Some(TargetField::Uri) => peek.uri.as_ref(),
        Some(TargetField::TaskId) => peek.task_id.as_ref(),
        None => None,
    };
    // A missing or non-string name is the dispatcher's -32602.
    if let Some(Value::String(body)) = named {
        let header = decoded(headers, mirrored::NAME)?.ok_or_else(|| {
            format!(
                "the Mcp-Name header is required for {method} (send Mcp-Name: {})",
                reflect(body)
            )
        })?;
        if header != *body {
            return Err(format!(
                "Mcp-Name header value '{}' does not match body value '{}'",
                reflect(&header),
                reflect(body)
            ));
        }
    }
    if method == CallToolRequest::METHOD
        && let Some(Value::String(tool)) = &peek.name
    {
        check_params(server, headers, tool, peek.arguments)?;
    }
    Ok(())
}

/// A header that may carry the `=?base64?…?=` form, decoded.
fn decoded(headers: &HeaderMap, name: &str) -> Result<Option<String>, String> {
    let Some(raw) = text(headers, name).map_err(|()| {
        format!("the {name} header contains invalid characters; encode the value as =?base64?…?=")
    })?
    else {
        return Ok(None);
    };
    decode_value(raw)
        .map(|v| Some(v.into_owned()))
        .map_err(|e| format!("the {name} header {e}"))
}

fn check_params(
    server: &Server,
    headers: &HeaderMap,
    tool: &str,
    arguments: Option<&RawValue>,
) -> Result<(), String> {
    let Some(def) = server.inner.registry.tools.get(tool) else {
        return Ok(());
    };
    if def.param_headers.is_empty() {
        return Ok(());
    }
    let arguments: serde_json::Map<String, Value> = arguments
        .and_then(|a| serde_json::from_str(a.get()).ok())
        .unwrap_or_default();
    for declared in &def.param_headers {
        // Absent or null: the client sends no header, and one sent anyway is not looked at.
        let Some(body) = declared.value_in(&arguments) else {
            continue;
        };
        let name = declared.header_name();
        let header = decoded(headers, &name)?.ok_or_else(|| {
            format!(
                "the {name} header is required: argument `{}` is in the body",
                declared.path.join(".")
            )
        })?;
        if !declared.matches(&header, body) {
            return Err(format!(
                "{name} header value '{}' does not match body value {}",
                reflect(&header),
                reflect(&body.to_string())
            ));
        }
    }
    Ok(())
}
