//! Arguments given on a command line: `KEY=VALUE` pairs (converted by a tool's input schema,
//! or kept as strings) and JSON objects, as `mcpctl call` and `mcpx exec` take them. Errors
//! are messages for the user, naming the flag or argument.

use std::io::Read;
use std::path::Path;

use serde_json::{Map, Value};

use crate::config::value_kind;

/// Splits `KEY=VALUE` at the first `=`; the key must not be empty.
pub fn split_pair<'a>(pair: &'a str, flag: &str) -> Result<(&'a str, &'a str), String> {
    match pair.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key, value)),
        _ => Err(format!(
            "invalid {flag} `{pair}`: expected KEY=VALUE with a non-empty KEY"
        )),
    }
}

/// `KEY=VALUE` pairs as a map of strings (prompt arguments, completion context). A key given
/// twice is an error.
pub fn string_pairs(pairs: &[String], flag: &str) -> Result<Map<String, Value>, String> {
    let mut map = Map::new();
    for pair in pairs {
        let (key, value) = split_pair(pair, flag)?;
        if map
            .insert(key.to_owned(), Value::String(value.to_owned()))
            .is_some()
        {
            return Err(format!("{flag} `{key}` is given twice"));
        }
    }
    Ok(map)
}

/// Parses `text` as a JSON object (`what` names the flag in errors).
pub fn json_object(text: &str, what: &str) -> Result<Map<String, Value>, String> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(format!(
            "{what} must be a JSON object, not {}",
            value_kind(&other)
        )),
        Err(e) => Err(format!("{what} is not valid JSON: {e}")),
    }
}

/// Reads a JSON object from `path` (`-`: standard input).
pub fn json_object_file(path: &Path) -> Result<Map<String, Value>, String> {
    let shown = path.display();
    let text = if path == Path::new("-") {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| format!("cannot read --arguments-file from standard input: {e}"))?;
        text
    } else {
        std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read --arguments-file {shown}: {e}"))?
    };
    json_object(&text, &format!("--arguments-file {shown}"))
}

/// Converts `KEY=VALUE` pairs into tool arguments, following the tool's input schema:
/// properties typed `string` keep the value verbatim; `integer`, `number`, `boolean`,
/// `array`, `object` and `null` ones are parsed as JSON (and must be of that type); a
/// property with several types takes the first non-string reading that fits, else the
/// string; an untyped property is JSON when the value parses, else the string. A key the
/// schema does not declare is an error unless `additionalProperties` is `true` or a schema.
pub fn typed_pairs(
    pairs: &[String],
    schema: &Value,
    tool: &str,
) -> Result<Map<String, Value>, String> {
    let properties = schema.get("properties").and_then(Value::as_object);
    let additional = schema.get("additionalProperties");
    let mut map = Map::new();
    for pair in pairs {
        let (key, raw) = split_pair(pair, "argument")?;
        let property = match properties.and_then(|p| p.get(key)) {
            Some(property) => property,
            None => match additional {
                Some(Value::Bool(true)) => &Value::Bool(true),
                Some(extra @ Value::Object(_)) => extra,
                _ => {
                    let known = properties
                        .map(|p| p.keys().map(String::as_str).collect::<Vec<_>>().join(", "))
                        .filter(|k| !k.is_empty())
                        .unwrap_or_else(|| "none".to_owned());
                    return Err(format!(
                        "tool `{tool}` has no argument `{key}` in its input schema (known: \
                         {known}); use --arguments-json to send it anyway"
                    ));
                }
            },
        };
        let value = convert(raw, property, schema).map_err(|expected| {
            format!(
                "argument `{key}` of tool `{tool}`: expected {expected} (from the tool's input \
                 schema), got `{raw}`"
            )
        })?;
        if map.insert(key.to_owned(), value).is_some() {
            return Err(format!("argument `{key}` is given twice"));
        }
    }
    Ok(map)
}

/// Checks that `arguments` hold every property the tool's input schema lists as `required`;
/// the error names each missing one with its type, so that it can be given before the call.
pub fn check_required(
    arguments: &Map<String, Value>,
    schema: &Value,
    tool: &str,
) -> Result<(), String> {
    let properties = schema.get("properties").and_then(Value::as_object);
    let missing: Vec<String> = schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|name| !arguments.contains_key(*name))
        .map(|name| {
            let types = properties
                .and_then(|p| p.get(name))
                .map(|property| property_types(property, schema))
                .unwrap_or_default();
            if types.is_empty() {
                name.to_owned()
            } else {
                format!("{name} ({})", types.join(" or "))
            }
        })
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(format!(
        "tool `{tool}` needs the argument{} {} (required by its input schema); give {} as \
         KEY=VALUE",
        if missing.len() == 1 { "" } else { "s" },
        missing.join(", "),
        if missing.len() == 1 { "it" } else { "them" }
    ))
}

/// The JSON Schema types a property allows: `type`, else the union over `anyOf`/`oneOf`,
/// else the kinds of its `enum`/`const` values; empty when unknown.
///
/// `$ref`s to the input schema's own definitions (`#/$defs/…`, `#/definitions/…`) are
/// followed, up to a few levels (a cycle ends there).
pub fn property_types(property: &Value, input_schema: &Value) -> Vec<String> {
    allowed_types(property, input_schema, MAX_REF_DEPTH)
}

/// How many `$ref`s in a row [`property_types`] follows.
const MAX_REF_DEPTH: usize = 8;

fn allowed_types(schema: &Value, root: &Value, depth: usize) -> Vec<String> {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        return match reference.strip_prefix('#') {
            Some(pointer) if depth > 0 => root
                .pointer(pointer)
                .map(|target| allowed_types(target, root, depth - 1))
                .unwrap_or_default(),
            _ => Vec::new(),
        };
    }
    match schema.get("type") {
        Some(Value::String(t)) => return vec![t.clone()],
        Some(Value::Array(types)) => {
            return types
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect();
        }
        _ => {}
    }
    let mut types = Vec::new();
    for key in ["anyOf", "oneOf"] {
        for branch in schema
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            for t in allowed_types(branch, root, depth) {
                if !types.contains(&t) {
                    types.push(t);
                }
            }
        }
    }
    let constants = schema
        .get("enum")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .chain(schema.get("const"));
    for constant in constants {
        let t = match constant {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
        .to_owned();
        if !types.contains(&t) {
            types.push(t);
        }
    }
    types
}

/// True when `value` is of JSON Schema type `t` (an integral number is an `integer`).
fn is_of_type(value: &Value, t: &str) -> bool {
    match t {
        "integer" => {
            value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "string" => value.is_string(),
        _ => false,
    }
}

/// One value by its property's schema; `Err` holds what was expected.
fn convert(raw: &str, property: &Value, root: &Value) -> Result<Value, String> {
    let types = property_types(property, root);
    if types.is_empty() {
        return Ok(serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_owned())));
    }
    if types.iter().any(|t| t != "string")
        && let Ok(value) = serde_json::from_str::<Value>(raw)
        && types.iter().any(|t| t != "string" && is_of_type(&value, t))
    {
        return Ok(value);
    }
    if types.iter().any(|t| t == "string") {
        return Ok(Value::String(raw.to_owned()));
    }
    Err(types.join(" or "))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn types_come_from_any_of_one_of_and_local_refs() {
        let schema = json!({
            "type": "object",
            "$defs": { "Count": { "type": "integer" }, "Loop": { "$ref": "#/$defs/Loop" } },
            "definitions": { "Mode": { "enum": ["a", "b"] } },
            "properties": {
                "n": { "$ref": "#/$defs/Count" },
                "m": { "$ref": "#/definitions/Mode" },
                "either": { "anyOf": [{ "$ref": "#/$defs/Count" }, { "type": "null" }] },
                "loop": { "$ref": "#/$defs/Loop" },
                "remote": { "$ref": "https://example.com/schema" }
            }
        });
        let types = |name: &str| property_types(&schema["properties"][name], &schema);
        assert_eq!(types("n"), ["integer"]);
        assert_eq!(types("m"), ["string"]);
        assert_eq!(types("either"), ["integer", "null"]);
        assert!(types("loop").is_empty() && types("remote").is_empty());
        let typed =
            typed_pairs(&["n=3".to_owned(), "either=null".to_owned()], &schema, "t").unwrap();
        assert_eq!(Value::Object(typed), json!({ "n": 3, "either": null }));
        assert!(
            typed_pairs(&["n=x".to_owned()], &schema, "t")
                .unwrap_err()
                .contains("expected integer")
        );
    }

    #[test]
    fn missing_required_arguments_are_named_with_their_types() {
        let schema = json!({
            "type": "object",
            "properties": { "a": { "type": "number" }, "b": { "type": "integer" }, "c": {} },
            "required": ["a", "b", "c"]
        });
        let given = |v: Value| v.as_object().cloned().unwrap();
        let error = check_required(&given(json!({ "b": 1 })), &schema, "add").unwrap_err();
        assert_eq!(
            error,
            "tool `add` needs the arguments a (number), c (required by its input schema); \
             give them as KEY=VALUE"
        );
        let error = check_required(&given(json!({ "a": 1, "c": 0 })), &schema, "add").unwrap_err();
        assert!(error.contains("the argument b (integer)") && error.contains("give it"));
        check_required(&given(json!({ "a": 1, "b": 2, "c": null })), &schema, "add").unwrap();
        check_required(&Map::new(), &json!({ "type": "object" }), "t").unwrap();
    }

    use super::*;

    fn pairs(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn converts_by_schema_type() {
        let schema = json!({
            "type": "object",
            "properties": {
                "s": {"type": "string"},
                "i": {"type": "integer"},
                "n": {"type": "number"},
                "b": {"type": "boolean"},
                "a": {"type": "array"},
                "o": {"type": "object"},
                "sn": {"type": ["string", "null"]},
                "any": {},
                "e": {"enum": [1, 2]}
            }
        });
        let args = typed_pairs(
            &pairs(&[
                "s=42",
                "i=7",
                "n=1.5",
                "b=true",
                "a=[1]",
                "o={\"k\":1}",
                "sn=null",
                "any=x",
                "e=2",
            ]),
            &schema,
            "t",
        )
        .unwrap();
        assert_eq!(
            Value::Object(args),
            json!({"s": "42", "i": 7, "n": 1.5, "b": true, "a": [1], "o": {"k": 1}, "sn": null, "any": "x", "e": 2})
        );
        assert_eq!(typed_pairs(&pairs(&["s="]), &schema, "t").unwrap()["s"], "");
    }

    #[test]
    fn refuses_mismatches_unknown_keys_and_duplicates() {
        let schema = json!({"type": "object", "properties": {"i": {"type": "integer"}}});
        let error = typed_pairs(&pairs(&["i=1.5"]), &schema, "t")
            .unwrap_err()
            .to_string();
        assert!(error.contains("expected integer"), "{error}");
        let error = typed_pairs(&pairs(&["x=1"]), &schema, "t")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("has no argument `x`") && error.contains("known: i"),
            "{error}"
        );
        let error = typed_pairs(&pairs(&["i=1", "i=2"]), &schema, "t")
            .unwrap_err()
            .to_string();
        assert!(error.contains("twice"), "{error}");
        assert!(typed_pairs(&pairs(&["noequals"]), &schema, "t").is_err());
        let open = json!({"properties": {}, "additionalProperties": {"type": "number"}});
        assert_eq!(typed_pairs(&pairs(&["x=3"]), &open, "t").unwrap()["x"], 3);
        let open = json!({"additionalProperties": true});
        assert_eq!(typed_pairs(&pairs(&["x=y"]), &open, "t").unwrap()["x"], "y");
    }

    #[test]
    fn json_objects() {
        assert_eq!(json_object("{\"k\":\"v\"}", "--x").unwrap()["k"], "v");
        assert!(
            json_object("[1]", "--x")
                .unwrap_err()
                .to_string()
                .contains("not an array")
        );
        assert!(
            json_object("{", "--x")
                .unwrap_err()
                .to_string()
                .contains("not valid JSON")
        );
        assert_eq!(string_pairs(&pairs(&["a=b=c"]), "arg").unwrap()["a"], "b=c");
    }
}
