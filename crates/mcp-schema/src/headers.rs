//! The HTTP request headers of 2026-07-28 streamable HTTP that mirror a request's body, for
//! clients that set them and servers that check them — one set of rules for both sides.
//!
//! - `MCP-Protocol-Version`, `Mcp-Method` on every request; `Mcp-Name` carrying the target of
//!   the methods whose row of the method table says so ([`MethodInfo::target_header`]):
//!   [`request_headers`].
//! - `Mcp-Param-{Name}` for the tool arguments an input schema marks with `x-mcp-header`:
//!   [`param_headers`] reads and validates the declarations, [`ParamHeader::header_value`]
//!   encodes one call's value, [`ParamHeader::matches`] compares a received header with the body.
//! - Values that are not plain visible ASCII travel as `=?base64?…?=` ([`encode_value`],
//!   [`decode_value`]).
//!
//! ```
//! use mcp_schema::headers::{self, ParamKind};
//! use serde_json::json;
//!
//! let schema = json!({
//!     "type": "object",
//!     "properties": { "region": { "type": "string", "x-mcp-header": "Region" } }
//! });
//! let declared = headers::param_headers(&schema).unwrap();
//! assert_eq!(declared[0].header_name(), "Mcp-Param-Region");
//! assert_eq!(declared[0].kind, ParamKind::String);
//! let arguments = json!({ "region": "Hello, 世界" });
//! let value = declared[0].header_value(arguments.as_object().unwrap()).unwrap();
//! assert_eq!(value, "=?base64?SGVsbG8sIOS4lueVjA==?=");
//! assert_eq!(headers::decode_value(&value).unwrap(), "Hello, 世界");
//! ```
//!
//! [`MethodInfo::target_header`]: crate::methods::MethodInfo::target_header

use std::borrow::Cow;
use std::collections::HashSet;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value};

use crate::methods::method_info;

/// `MCP-Protocol-Version`: the protocol version of the request.
pub const PROTOCOL_VERSION: &str = "MCP-Protocol-Version";
/// `Mcp-Method`: the request's `method`.
pub const METHOD: &str = "Mcp-Method";
/// `Mcp-Name`: the request's target (`params.name` or `params.uri`).
pub const NAME: &str = "Mcp-Name";
/// The prefix of the headers mirroring `x-mcp-header` arguments (`Mcp-Param-Region`).
pub const PARAM_PREFIX: &str = "Mcp-Param-";
/// The schema keyword declaring a mirrored argument.
pub const X_MCP_HEADER: &str = "x-mcp-header";

const BASE64_PREFIX: &str = "=?base64?";
const BASE64_SUFFIX: &str = "?=";

/// The `Mcp-Method` and (for methods whose target the header carries) `Mcp-Name` headers of a
/// request, values encoded.
pub fn request_headers(method: &str, params: Option<&Value>) -> Vec<(&'static str, String)> {
    let mut headers = vec![(METHOD, encode_value(method).into_owned())];
    let target = method_info(method)
        .filter(|info| info.target_header)
        .and_then(|info| info.target)
        .and_then(|field| params?.get(field.as_str())?.as_str());
    if let Some(target) = target {
        headers.push((NAME, encode_value(target).into_owned()));
    }
    headers
}

/// A header value as 2026-07-28 wants it: the value itself when it is non-empty visible ASCII
/// (inner spaces allowed) that does not look like the base64 form, `=?base64?…?=` of its
/// UTF-8 bytes otherwise.
pub fn encode_value(value: &str) -> Cow<'_, str> {
    let looks_encoded = value.starts_with(BASE64_PREFIX) && value.ends_with(BASE64_SUFFIX);
    let plain = !value.is_empty()
        && value.bytes().all(|b| (0x20..0x7f).contains(&b))
        && !value.starts_with(' ')
        && !value.ends_with(' ')
        && !looks_encoded;
    if plain {
        Cow::Borrowed(value)
    } else {
        Cow::Owned(format!(
            "{BASE64_PREFIX}{}{BASE64_SUFFIX}",
            STANDARD.encode(value)
        ))
    }
}

/// Why a received header value could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderValueError {
    /// The `=?base64?…?=` form holds something that is not standard padded base64.
    #[error("not valid base64 ({0})")]
    Base64(String),
    /// The base64 form decodes to bytes that are not UTF-8.
    #[error("does not decode to UTF-8 text")]
    NotUtf8,
}

/// A received header value, decoded from the `=?base64?…?=` form when it has it. Surrounding
/// spaces and tabs (which HTTP does not count as part of a value) are dropped first.
pub fn decode_value(raw: &str) -> Result<Cow<'_, str>, HeaderValueError> {
    let raw = raw.trim_matches([' ', '\t']);
    let Some(encoded) = raw
        .strip_prefix(BASE64_PREFIX)
        .and_then(|r| r.strip_suffix(BASE64_SUFFIX))
    else {
        return Ok(Cow::Borrowed(raw));
    };
    let bytes = STANDARD
        .decode(encoded)
        .map_err(|e| HeaderValueError::Base64(e.to_string()))?;
    String::from_utf8(bytes)
        .map(Cow::Owned)
        .map_err(|_| HeaderValueError::NotUtf8)
}

/// The JSON types an `x-mcp-header` argument may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamKind {
    /// `"type": "string"`: sent as is (or base64).
    String,
    /// `"type": "integer"`: sent in decimal; compared numerically.
    Integer,
    /// `"type": "boolean"`: sent as `true` / `false`.
    Boolean,
}

/// One argument a tool's input schema marks with `"x-mcp-header": "{name}"`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ParamHeader {
    /// The name suffix as declared (`Region` for `Mcp-Param-Region`; compared
    /// case-insensitively).
    pub name: String,
    /// The property names from the root of the arguments to the value.
    pub path: Vec<String>,
    /// The property's type.
    pub kind: ParamKind,
}

/// Why a tool's `x-mcp-header` declarations make it invalid (a client leaves such a tool out of
/// `tools/list`; a server refuses to register it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidParamHeader(String);

/// Keywords whose values are data, not subschemas: never searched for declarations.
const DATA_KEYWORDS: [&str; 6] = ["default", "const", "enum", "examples", "required", "type"];

/// The `x-mcp-header` declarations of an input schema, or why they make the tool invalid: each
/// must be a non-empty HTTP token, unique ignoring case, on a `string`, `integer` or `boolean`
/// property reached from the root through `properties` keys alone (an annotation under
/// `items`, `anyOf`, `$defs`, `if`/`then`, … or on the root is invalid).
pub fn param_headers(input_schema: &Value) -> Result<Vec<ParamHeader>, InvalidParamHeader> {
    let mut found = Vec::new();
    walk(input_schema, &mut Vec::new(), true, &mut found)?;
    let mut seen = HashSet::new();
    for declaration in &found {
        if !seen.insert(declaration.name.to_ascii_lowercase()) {
            return Err(InvalidParamHeader(format!(
                "x-mcp-header `{}` is declared twice (names are case-insensitive)",
                declaration.name
            )));
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
) -> Result<(), InvalidParamHeader> {
    match node {
        Value::Object(object) => {
            if let Some(name) = object.get(X_MCP_HEADER) {
                found.push(declaration(object, name, path, reachable)?);
            }
            for (key, child) in object {
                if key == X_MCP_HEADER || DATA_KEYWORDS.contains(&key.as_str()) {
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
) -> Result<ParamHeader, InvalidParamHeader> {
    let at = if path.is_empty() {
        "the root schema".to_owned()
    } else {
        format!("parameter `{}`", path.join("."))
    };
    let invalid = |why: String| Err(InvalidParamHeader(why));
    if path.is_empty() || !reachable {
        return invalid(format!(
            "x-mcp-header on {at} is not reachable through `properties` alone"
        ));
    }
    let Some(name) = name.as_str() else {
        return invalid(format!("x-mcp-header of {at} is not a string"));
    };
    if name.is_empty() {
        return invalid(format!("x-mcp-header of {at} is empty"));
    }
    if !mcp_jsonrpc::is_header_name(name) {
        return invalid(format!(
            "x-mcp-header `{}` of {at} is not an HTTP token (letters, digits, !#$%&'*+-.^_`|~)",
            name.escape_default()
        ));
    }
    let kind = match schema.get("type").and_then(Value::as_str) {
        Some("string") => ParamKind::String,
        Some("integer") => ParamKind::Integer,
        Some("boolean") => ParamKind::Boolean,
        other => {
            return invalid(format!(
                "x-mcp-header `{name}` is on {at} of type {}, not string, integer or boolean",
                other.map_or_else(|| "(none)".to_owned(), |t| format!("`{t}`"))
            ));
        }
    };
    Ok(ParamHeader {
        name: name.to_owned(),
        path: path.to_vec(),
        kind,
    })
}

impl ParamHeader {
    /// The header's name, `Mcp-Param-{name}`.
    pub fn header_name(&self) -> String {
        format!("{PARAM_PREFIX}{}", self.name)
    }

    /// The argument at this declaration's path; `None` when it is absent or `null` (then no
    /// header is sent, and none is expected).
    pub fn value_in<'a>(&self, arguments: &'a Map<String, Value>) -> Option<&'a Value> {
        let (last, parents) = self.path.split_last()?;
        let mut scope = arguments;
        for key in parents {
            scope = scope.get(key)?.as_object()?;
        }
        scope.get(last).filter(|v| !v.is_null())
    }

    /// The encoded header value of one call's arguments (`None`: send no header). A value of
    /// another type than a primitive has no header form (the server's argument validation
    /// reports it).
    pub fn header_value(&self, arguments: &Map<String, Value>) -> Option<String> {
        match self.value_in(arguments)? {
            Value::String(s) => Some(encode_value(s).into_owned()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }

    /// Whether a received (decoded) header value equals the body's value: integers compare
    /// numerically (`42.0` is `42`), the rest as text.
    pub fn matches(&self, header: &str, body: &Value) -> bool {
        match (self.kind, body) {
            (_, Value::String(s)) => header == s,
            (ParamKind::Integer, Value::Number(n)) => header
                .parse::<f64>()
                .ok()
                .zip(n.as_f64())
                .is_some_and(|(h, b)| h == b),
            (_, Value::Bool(b)) => header == if *b { "true" } else { "false" },
            // Another type than the schema declares: nothing the header could equal.
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests;
