//! `x-mcp-header` (2026-07-28): a tool's input schema may mark parameters whose values the
//! client mirrors into `Mcp-Param-{Name}` headers on `tools/call` over streamable HTTP, so that
//! intermediaries can route without parsing bodies.
//!
//! [`declarations`] reads and validates a tool's declarations. A tool with an invalid one (an
//! empty name, a name that is not an RFC 9110 token, a duplicate ignoring case, a parameter not
//! of type string, integer or boolean, or an annotation not reachable through `properties`
//! alone) must be left out of `tools/list`. [`header_values`] encodes one call's arguments:
//! strings plain or `=?base64?…?=`, integers in decimal, booleans `true`/`false`; a null or
//! absent value has no header.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::headers::encode_value;

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
    if !mcp_jsonrpc::is_header_name(name) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
