use serde_json::json;

use super::*;

fn tool(properties: Value) -> Value {
    json!({ "type": "object", "properties": properties })
}

#[test]
fn values_are_encoded_as_the_spec_examples_say() {
    assert_eq!(encode_value("us-west1"), "us-west1");
    assert_eq!(encode_value("us west 1"), "us west 1");
    assert_eq!(
        encode_value("Hello, 世界"),
        "=?base64?SGVsbG8sIOS4lueVjA==?="
    );
    assert_eq!(encode_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
    assert_eq!(encode_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
    assert_eq!(encode_value("\tindented"), "=?base64?CWluZGVudGVk?=");
    assert_eq!(
        encode_value("=?base64?literal?="),
        "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
    );
    assert_eq!(encode_value(""), "=?base64??=");
}

#[test]
fn values_are_decoded_and_checked() {
    assert_eq!(decode_value("=?base64?SGVsbG8=?=").unwrap(), "Hello");
    assert_eq!(decode_value("  spaced  ").unwrap(), "spaced");
    assert_eq!(
        decode_value("=?base64?SGVsbG8=").unwrap(),
        "=?base64?SGVsbG8="
    );
    assert!(matches!(
        decode_value("=?base64?SGVsbG8?="),
        Err(HeaderValueError::Base64(_))
    ));
    assert!(decode_value("=?base64?SGVs!!!bG8=?=").is_err());
    assert_eq!(
        decode_value("=?base64?/w==?="),
        Err(HeaderValueError::NotUtf8)
    );
    for value in ["x", "Hello, 世界", " padded ", "=?base64?literal?=", ""] {
        assert_eq!(decode_value(&encode_value(value)).unwrap(), value);
    }
}

#[test]
fn request_headers_follow_the_method_table() {
    let h = request_headers("tools/call", Some(&json!({"name": "get_weather"})));
    assert_eq!(
        h,
        [(METHOD, "tools/call".into()), (NAME, "get_weather".into())]
    );
    let h = request_headers("resources/read", Some(&json!({"uri": "file:///ä"})));
    assert_eq!(h[1], (NAME, "=?base64?ZmlsZTovLy/DpA==?=".into()));
    // resources/subscribe has a target, but no Mcp-Name header.
    let h = request_headers("resources/subscribe", Some(&json!({"uri": "file:///a"})));
    assert_eq!(h.len(), 1);
    assert_eq!(request_headers("tools/list", None).len(), 1);
}

#[test]
fn valid_declarations_are_found_nested_ones_included() {
    let schema = tool(json!({
        "region": { "type": "string", "x-mcp-header": "Region" },
        "query": { "type": "string" },
        "opts": { "type": "object", "properties": {
            "debug": { "type": "boolean", "x-mcp-header": "Debug" }
        } },
        "n": { "type": "integer", "x-mcp-header": "N" },
        "doc": { "type": "string", "default": { "x-mcp-header": "NotASchema" } }
    }));
    let mut found = param_headers(&schema).unwrap();
    found.sort_by(|a, b| a.name.cmp(&b.name));
    let summary: Vec<_> = found
        .iter()
        .map(|p| (p.name.as_str(), p.path.join("."), p.kind))
        .collect();
    assert_eq!(
        summary,
        [
            ("Debug", "opts.debug".to_owned(), ParamKind::Boolean),
            ("N", "n".to_owned(), ParamKind::Integer),
            ("Region", "region".to_owned(), ParamKind::String),
        ]
    );
}

#[test]
fn invalid_declarations_reject_the_tool() {
    for properties in [
        json!({ "v": { "type": "string", "x-mcp-header": "" } }),
        json!({ "v": { "type": "string", "x-mcp-header": 7 } }),
        json!({ "v": { "type": "object", "x-mcp-header": "V" } }),
        json!({ "v": { "type": "array", "items": { "type": "string" }, "x-mcp-header": "V" } }),
        json!({ "v": { "type": "null", "x-mcp-header": "V" } }),
        json!({ "v": { "type": "number", "x-mcp-header": "V" } }),
        json!({ "v": { "x-mcp-header": "V" } }),
        json!({ "a": { "type": "string", "x-mcp-header": "R" }, "b": { "type": "string", "x-mcp-header": "R" } }),
        json!({ "a": { "type": "string", "x-mcp-header": "My" }, "b": { "type": "string", "x-mcp-header": "my" } }),
        json!({ "v": { "type": "string", "x-mcp-header": "My Region" } }),
        json!({ "v": { "type": "string", "x-mcp-header": "Region:Primary" } }),
        json!({ "v": { "type": "string", "x-mcp-header": "Région" } }),
        json!({ "v": { "type": "string", "x-mcp-header": "Region\t1" } }),
        json!({ "v": { "type": "string", "x-mcp-header": "Region\r\n" } }),
        json!({ "v": { "type": "array", "items": { "type": "string", "x-mcp-header": "V" } } }),
        json!({ "v": { "anyOf": [{ "type": "string", "x-mcp-header": "V" }] } }),
    ] {
        assert!(
            param_headers(&tool(properties.clone())).is_err(),
            "{properties}"
        );
    }
    let root = json!({ "type": "string", "x-mcp-header": "Root" });
    assert!(param_headers(&root).is_err());
    let defs = json!({
        "type": "object",
        "$defs": { "x": { "type": "string", "x-mcp-header": "X" } }
    });
    assert!(param_headers(&defs).is_err());
}

#[test]
fn one_call_s_values_are_encoded_and_checked() {
    let declared = param_headers(&tool(json!({
        "region": { "type": "string", "x-mcp-header": "Region" },
        "priority": { "type": "integer", "x-mcp-header": "Priority" },
        "verbose": { "type": "boolean", "x-mcp-header": "Verbose" },
        "text": { "type": "string", "x-mcp-header": "Text" },
        "absent": { "type": "string", "x-mcp-header": "Absent" },
        "nested": { "type": "object", "properties": {
            "flag": { "type": "boolean", "x-mcp-header": "Flag" }
        } },
        "query": { "type": "string" }
    })))
    .unwrap();
    let arguments = json!({
        "region": "us-west1", "priority": 42, "verbose": null, "text": "Hello, 世界",
        "nested": { "flag": false }, "query": "q"
    });
    let arguments = arguments.as_object().unwrap();
    let mut sent: Vec<(String, String)> = declared
        .iter()
        .filter_map(|p| Some((p.header_name(), p.header_value(arguments)?)))
        .collect();
    sent.sort();
    assert_eq!(
        sent,
        [
            ("Mcp-Param-Flag".to_owned(), "false".to_owned()),
            ("Mcp-Param-Priority".to_owned(), "42".to_owned()),
            ("Mcp-Param-Region".to_owned(), "us-west1".to_owned()),
            (
                "Mcp-Param-Text".to_owned(),
                "=?base64?SGVsbG8sIOS4lueVjA==?=".to_owned()
            ),
        ]
    );
    let priority = declared.iter().find(|p| p.name == "Priority").unwrap();
    assert!(priority.matches("42", &json!(42)));
    assert!(priority.matches("42.0", &json!(42)));
    assert!(!priority.matches("43", &json!(42)));
    assert!(!priority.matches("42", &json!("x")));
    let region = declared.iter().find(|p| p.name == "Region").unwrap();
    assert!(region.matches("us-west1", &json!("us-west1")));
    assert!(!region.matches("us-west2", &json!("us-west1")));
    let verbose = declared.iter().find(|p| p.name == "Verbose").unwrap();
    assert!(verbose.matches("true", &json!(true)));
    assert!(!verbose.matches("True", &json!(true)));
}
