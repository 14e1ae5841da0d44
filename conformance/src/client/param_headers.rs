//! `x-mcp-header` (2026-07-28, SEP-2243): a tool's input schema may mark a parameter so that
//! its value is mirrored into an `Mcp-Param-{Name}` HTTP header on `tools/call`, for
//! intermediaries that route without parsing bodies.
//!
//! - [`declarations`] reads and validates a tool's declarations. A tool with an invalid one
//!   (empty name, a name that is not an RFC 9110 token, a duplicate ignoring case, a
//!   non-primitive parameter, or an annotation not reachable through `properties` alone) MUST
//!   be rejected by clients: the scenarios exclude it from the tools they use.
//! - [`header_values`] encodes one call's arguments (strings plain or `=?base64?…?=`, integers
//!   in decimal, booleans `true`/`false`; null or absent values have no header).
//! - [`call_tool`] sends the call with those headers.
//!
//! WORKAROUND: `mcp-kit` does not do this yet (`Session::call_tool` sends only `Mcp-Method`
//! and `Mcp-Name`, and `Session::list_tools` keeps invalid tools). Until it does, [`call_tool`]
//! builds the 2026-07-28 request itself (the `_meta` envelope the session would add, and the
//! standard headers) and sends it through the session's own connection
//! (`Session::client().handle().start_request_with_headers`). It does not answer
//! `InputRequiredResult`s (the session's `call_tool` does).

use std::collections::HashSet;

use anyhow::{Context, bail};
use mcp_kit::mcp::Era;
use serde_json::{Map, Value, json};

use super::connect::Connected;

/// One `x-mcp-header` declaration: the parameter's path from the arguments object (through
/// `properties` keys) and the header's name suffix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParamHeader {
    pub(crate) path: Vec<String>,
    pub(crate) name: String,
}

const KEYWORD: &str = "x-mcp-header";
/// The parameter types the spec allows an annotation on.
const PRIMITIVE_TYPES: [&str; 3] = ["string", "integer", "boolean"];
/// Keywords whose values are data, not subschemas: never searched for annotations.
const DATA_KEYWORDS: [&str; 6] = ["default", "const", "enum", "examples", "required", "type"];

/// The `x-mcp-header` declarations of an input schema, or why the tool is invalid.
pub(crate) fn declarations(input_schema: &Value) -> Result<Vec<ParamHeader>, String> {
    let mut found = Vec::new();
    walk(input_schema, &mut Vec::new(), true, &mut found)?;
    let mut seen = HashSet::new();
    for declaration in &found {
        if !seen.insert(declaration.name.to_ascii_lowercase()) {
            return Err(format!(
                "x-mcp-header `{}` is declared twice (names are case-insensitive)",
                declaration.name
            ));
        }
    }
    Ok(found)
}

/// `reachable`: the node is the root or reached from it through `properties` keys only.
fn walk(
    node: &Value,
    path: &mut Vec<String>,
    reachable: bool,
    found: &mut Vec<ParamHeader>,
) -> Result<(), String> {
    match node {
        Value::Object(object) => {
            if let Some(name) = object.get(KEYWORD) {
                found.push(declaration(object, name, path, reachable)?);
            }
            for (key, child) in object {
                if key == KEYWORD || DATA_KEYWORDS.contains(&key.as_str()) {
                    continue;
                }
                match (key.as_str(), child) {
                    ("properties", Value::Object(properties)) => {
                        for (property, schema) in properties {
                            path.push(property.clone());
                            let outcome = walk(schema, path, reachable, found);
                            path.pop();
                            outcome?;
                        }
                    }
                    // items, anyOf, $defs, additionalProperties, if/then/else…: an annotation
                    // in there is not statically reachable.
                    _ => walk(child, path, false, found)?,
                }
            }
            Ok(())
        }
        Value::Array(items) => items
            .iter()
            .try_for_each(|item| walk(item, path, false, found)),
        _ => Ok(()),
    }
}

fn declaration(
    schema: &Map<String, Value>,
    name: &Value,
    path: &[String],
    reachable: bool,
) -> Result<ParamHeader, String> {
    let at = if path.is_empty() {
        "the root schema".to_owned()
    } else {
        format!("parameter `{}`", path.join("."))
    };
    if path.is_empty() || !reachable {
        return Err(format!(
            "x-mcp-header on {at} is not reachable through `properties` alone"
        ));
    }
    let Some(name) = name.as_str() else {
        return Err(format!("x-mcp-header of {at} is not a string"));
    };
    if name.is_empty() {
        return Err(format!("x-mcp-header of {at} is empty"));
    }
    if !is_token(name) {
        return Err(format!(
            "x-mcp-header `{}` of {at} is not an HTTP token (letters, digits, !#$%&'*+-.^_`|~)",
            name.escape_default()
        ));
    }
    match schema.get("type").and_then(Value::as_str) {
        Some(t) if PRIMITIVE_TYPES.contains(&t) => Ok(ParamHeader {
            path: path.to_vec(),
            name: name.to_owned(),
        }),
        other => Err(format!(
            "x-mcp-header `{name}` is on {at} of type {}, not string, integer or boolean",
            other.map_or_else(|| "(none)".to_owned(), |t| format!("`{t}`"))
        )),
    }
}

/// RFC 9110 `token`.
fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// The `Mcp-Param-*` headers of one call.
pub(crate) fn header_values(
    declarations: &[ParamHeader],
    arguments: &Map<String, Value>,
) -> Vec<(String, String)> {
    let mut headers = Vec::new();
    for declaration in declarations {
        let mut value = None;
        let mut scope = Some(arguments);
        for (i, key) in declaration.path.iter().enumerate() {
            let Some(found) = scope.and_then(|s| s.get(key)) else {
                break;
            };
            if i + 1 == declaration.path.len() {
                value = Some(found);
            } else {
                scope = found.as_object();
            }
        }
        let encoded = match value {
            None | Some(Value::Null) => continue,
            Some(Value::String(s)) => encode_value(s),
            Some(Value::Number(n)) => n.to_string(),
            Some(Value::Bool(b)) => b.to_string(),
            Some(other) => {
                tracing::warn!(header = %declaration.name, value = %other, "not a primitive: no header");
                continue;
            }
        };
        headers.push((format!("Mcp-Param-{}", declaration.name), encoded));
    }
    headers
}

/// A header value in the spec's encoding: plain when it is visible ASCII (inner spaces
/// allowed, no leading or trailing space) and does not look like the sentinel,
/// `=?base64?…?=` otherwise (the empty string included, as `mcp-kit` encodes `Mcp-Name`).
pub(crate) fn encode_value(value: &str) -> String {
    let sentinel_like = value.starts_with("=?base64?") && value.ends_with("?=");
    let visible_ascii = value.bytes().all(|b| (0x20..0x7f).contains(&b));
    let padded = value.starts_with(' ') || value.ends_with(' ');
    let plain = !value.is_empty() && visible_ascii && !padded && !sentinel_like;
    if plain {
        value.to_owned()
    } else {
        format!("=?base64?{}?=", base64(value.as_bytes()))
    }
}

/// Standard base64 with padding (RFC 4648 §4).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `tools/call` with the `Mcp-Param-*` headers of `declarations` (see the module's
/// WORKAROUND note); through `Session::call_tool` when there is nothing to mirror or the
/// session is not in the 2026-07-28 era (where `x-mcp-header` does not exist).
pub(crate) async fn call_tool(
    connected: &Connected,
    name: &str,
    arguments: Map<String, Value>,
    declarations: &[ParamHeader],
) -> anyhow::Result<Value> {
    let session = &connected.session;
    let param_headers = header_values(declarations, &arguments);
    if param_headers.is_empty() || session.negotiated().era() != Era::Stateless {
        let result = session
            .call_tool(name, Some(arguments))
            .await
            .with_context(|| format!("tools/call {name}"))?;
        return serde_json::to_value(result).context("encoding a CallToolResult");
    }
    let params = json!({
        "name": name,
        "arguments": arguments,
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": session.protocol_version(),
            "io.modelcontextprotocol/clientInfo": connected.client_info,
            "io.modelcontextprotocol/clientCapabilities": connected.capabilities,
        },
    });
    let mut headers = vec![
        ("Mcp-Method".to_owned(), "tools/call".to_owned()),
        ("Mcp-Name".to_owned(), encode_value(name)),
    ];
    tracing::info!(tool = name, headers = ?param_headers, "mirroring x-mcp-header parameters");
    headers.extend(param_headers);
    let pending = session
        .client()
        .handle()
        .start_request_with_headers("tools/call", Some(&params), headers)
        .await
        .with_context(|| format!("sending tools/call {name}"))?;
    let raw = tokio::time::timeout(session.timeout(), pending)
        .await
        .with_context(|| {
            format!(
                "tools/call {name}: no answer within {:?}",
                session.timeout()
            )
        })?
        .with_context(|| format!("tools/call {name}"))?;
    let result: Value = serde_json::from_str(raw.get()).context("decoding a CallToolResult")?;
    if result.get("resultType").and_then(Value::as_str) == Some("input_required") {
        bail!("tools/call {name} asked for input, which this direct call does not answer");
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(properties: Value) -> Value {
        json!({ "type": "object", "properties": properties })
    }

    #[test]
    fn valid_declarations_are_found_nested_ones_included() {
        let schema = tool(json!({
            "region": { "type": "string", "x-mcp-header": "Region" },
            "query": { "type": "string" },
            "opts": { "type": "object", "properties": {
                "debug": { "type": "boolean", "x-mcp-header": "Debug" }
            } },
            "doc": { "type": "string", "default": { "x-mcp-header": "NotASchema" } }
        }));
        let mut found = declarations(&schema).unwrap();
        found.sort_by(|a, b| a.name.cmp(&b.name));
        assert_eq!(
            found,
            [
                ParamHeader {
                    path: vec!["opts".into(), "debug".into()],
                    name: "Debug".into()
                },
                ParamHeader {
                    path: vec!["region".into()],
                    name: "Region".into()
                },
            ]
        );
    }

    #[test]
    fn invalid_declarations_reject_the_tool() {
        for properties in [
            json!({ "v": { "type": "string", "x-mcp-header": "" } }),
            json!({ "v": { "type": "object", "x-mcp-header": "V" } }),
            json!({ "v": { "type": "array", "items": { "type": "string" }, "x-mcp-header": "V" } }),
            json!({ "v": { "type": "null", "x-mcp-header": "V" } }),
            json!({ "v": { "type": "number", "x-mcp-header": "V" } }),
            json!({ "a": { "type": "string", "x-mcp-header": "R" }, "b": { "type": "string", "x-mcp-header": "R" } }),
            json!({ "a": { "type": "string", "x-mcp-header": "My" }, "b": { "type": "string", "x-mcp-header": "my" } }),
            json!({ "v": { "type": "string", "x-mcp-header": "My Region" } }),
            json!({ "v": { "type": "string", "x-mcp-header": "Region:Primary" } }),
            json!({ "v": { "type": "string", "x-mcp-header": "Région" } }),
            json!({ "v": { "type": "string", "x-mcp-header": "Region\t1" } }),
            json!({ "v": { "type": "array", "items": { "type": "string", "x-mcp-header": "V" } } }),
            json!({ "v": { "anyOf": [{ "type": "string", "x-mcp-header": "V" }] } }),
        ] {
            assert!(
                declarations(&tool(properties.clone())).is_err(),
                "{properties}"
            );
        }
    }

    #[test]
    fn values_are_encoded_as_the_spec_says() {
        let declarations = declarations(&tool(json!({
            "region": { "type": "string", "x-mcp-header": "Region" },
            "priority": { "type": "integer", "x-mcp-header": "Priority" },
            "verbose": { "type": "boolean", "x-mcp-header": "Verbose" },
            "text": { "type": "string", "x-mcp-header": "Text" },
            "absent": { "type": "string", "x-mcp-header": "Absent" },
            "query": { "type": "string" }
        })))
        .unwrap();
        let arguments = json!({
            "region": "us-west1", "priority": 42, "verbose": null, "text": "Hello, 世界", "query": "q"
        });
        let mut headers = header_values(&declarations, arguments.as_object().unwrap());
        headers.sort();
        assert_eq!(
            headers,
            [
                ("Mcp-Param-Priority".to_owned(), "42".to_owned()),
                ("Mcp-Param-Region".to_owned(), "us-west1".to_owned()),
                (
                    "Mcp-Param-Text".to_owned(),
                    "=?base64?SGVsbG8sIOS4lueVjA==?=".to_owned()
                ),
            ]
        );
        assert_eq!(encode_value("us west 1"), "us west 1");
        assert_eq!(encode_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(
            encode_value("line1\r\nline2"),
            "=?base64?bGluZTENCmxpbmUy?="
        );
        assert_eq!(encode_value("\tindented"), "=?base64?CWluZGVudGVk?=");
        assert_eq!(encode_value(""), "=?base64??=");
    }
}
