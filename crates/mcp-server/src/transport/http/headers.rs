//! The request metadata headers of 2026-07-28 (`MCP-Protocol-Version`, `Mcp-Method`,
//! `Mcp-Name`, `Mcp-Param-*`), checked against the body they mirror. Any disagreement is a
//! `400 Bad Request` with `-32020 HeaderMismatch`, so that an intermediary routing on the
//! headers and the server acting on the body can never see two different requests.

use axum::http::HeaderMap;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::Server;
use crate::registry::tool::ParamKind;

pub(super) const SESSION_ID: &str = "mcp-session-id";
pub(super) const PROTOCOL_VERSION: &str = "mcp-protocol-version";
pub(super) const LAST_EVENT_ID: &str = "last-event-id";
const METHOD: &str = "mcp-method";
const NAME: &str = "mcp-name";

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
                server.inner.options.protocol_versions.join(", "),
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
    match text(headers, METHOD) {
        Err(()) => return Err("the Mcp-Method header contains invalid characters".into()),
        Ok(None) => {
            return Err(format!(
                "the Mcp-Method header is required (send Mcp-Method: {method})"
            ));
        }
        Ok(Some(m)) if m != method => {
            return Err(format!(
                "Mcp-Method header value '{m}' does not match body value '{method}'"
            ));
        }
        Ok(Some(_)) => {}
    }
    let named = match method {
        "tools/call" | "prompts/get" => peek.name.as_ref(),
        "resources/read" => peek.uri.as_ref(),
        _ => None,
    };
    // A missing or non-string name is the dispatcher's -32602.
    if let Some(Value::String(body)) = named {
        let header = decoded(headers, NAME, "Mcp-Name")?.ok_or_else(|| {
            format!("the Mcp-Name header is required for {method} (send Mcp-Name: {body})")
        })?;
        if header != *body {
            return Err(format!(
                "Mcp-Name header value '{header}' does not match body value '{body}'"
            ));
        }
    }
    if method == "tools/call"
        && let Some(Value::String(tool)) = &peek.name
    {
        check_params(server, headers, tool, peek.arguments)?;
    }
    Ok(())
}

/// A header that may carry the `=?base64?…?=` form, decoded.
fn decoded(headers: &HeaderMap, name: &str, display: &str) -> Result<Option<String>, String> {
    let Some(raw) = text(headers, name).map_err(|()| {
        format!(
            "the {display} header contains invalid characters; encode the value as =?base64?…?="
        )
    })?
    else {
        return Ok(None);
    };
    let Some(encoded) = raw
        .strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
    else {
        return Ok(Some(raw.to_owned()));
    };
    let bytes = STANDARD
        .decode(encoded)
        .map_err(|e| format!("the {display} header is not valid base64 ({e})"))?;
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| format!("the {display} header does not decode to UTF-8 text"))
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
    let arguments: Value = arguments
        .and_then(|a| serde_json::from_str(a.get()).ok())
        .unwrap_or(Value::Null);
    for declared in &def.param_headers {
        let body = declared
            .path
            .iter()
            .try_fold(&arguments, |v, key| v.get(key))
            .filter(|v| !v.is_null());
        // Absent or null: the client sends no header, and one sent anyway is not looked at.
        let Some(body) = body else {
            continue;
        };
        let (name, path) = (&declared.name, &declared.path);
        let display = format!("Mcp-Param-{name}");
        let header =
            decoded(headers, &display.to_ascii_lowercase(), &display)?.ok_or_else(|| {
                format!(
                    "the {display} header is required: argument `{}` is in the body",
                    path.join(".")
                )
            })?;
        // Integers compare numerically (`42.0` is `42`); the rest as text.
        let equal = match (declared.kind, body) {
            (_, Value::String(s)) => header == *s,
            (ParamKind::Integer, Value::Number(n)) => header
                .parse::<f64>()
                .ok()
                .zip(n.as_f64())
                .is_some_and(|(h, b)| h == b),
            (_, Value::Bool(b)) => header == if *b { "true" } else { "false" },
            // Another type than the schema declares: nothing the header could equal.
            _ => false,
        };
        if !equal {
            return Err(format!(
                "{display} header value '{header}' does not match body value {body}"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn base64_values_are_decoded_and_checked() {
        let h = headers(&[
            ("mcp-name", "=?base64?SGVsbG8=?="),
            ("a", "=?base64?SGVsbG8?="),
            ("b", "=?base64?SGVs!!!bG8=?="),
            ("c", "=?base64?SGVsbG8="),
            ("d", "  spaced  "),
        ]);
        assert_eq!(
            decoded(&h, "mcp-name", "Mcp-Name").unwrap().as_deref(),
            Some("Hello")
        );
        assert!(decoded(&h, "a", "A").is_err(), "missing padding");
        assert!(decoded(&h, "b", "B").is_err(), "invalid characters");
        assert_eq!(
            decoded(&h, "c", "C").unwrap().as_deref(),
            Some("=?base64?SGVsbG8=")
        );
        assert_eq!(decoded(&h, "d", "D").unwrap().as_deref(), Some("spaced"));
        assert_eq!(decoded(&h, "missing", "M").unwrap(), None);
    }
}
