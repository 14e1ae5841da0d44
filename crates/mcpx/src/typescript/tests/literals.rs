//! `enum` and `const` as literal types.

use serde_json::json;

use super::ts;

#[test]
fn an_enum_is_a_union_of_json_literals() {
    let schema = json!({"enum": ["a", "say \"hi\"", 1, 2.5, -3, true, null]});
    assert_eq!(ts(schema), r#""a"|"say \"hi\""|1|2.5|-3|true|null"#);
}

#[test]
fn an_enum_wins_over_its_type() {
    let schema = json!({"type": "string", "enum": ["open", "closed"]});
    assert_eq!(ts(schema), r#""open"|"closed""#);
}

#[test]
fn repeated_enum_values_are_written_once() {
    assert_eq!(ts(json!({"enum": ["a", "a", "b"]})), r#""a"|"b""#);
}

#[test]
fn an_empty_enum_is_never() {
    assert_eq!(ts(json!({"enum": []})), "never");
}

#[test]
fn enum_values_that_are_objects_or_arrays_are_literal_types() {
    let schema = json!({"enum": [{"a": 1}, [1, "x"]]});
    assert_eq!(ts(schema), r#"{"a":1}|[1,"x"]"#);
}

#[test]
fn const_is_one_literal() {
    assert_eq!(ts(json!({"const": "fixed"})), r#""fixed""#);
    assert_eq!(ts(json!({"const": 0})), "0");
    assert_eq!(ts(json!({"const": false})), "false");
    assert_eq!(ts(json!({"const": null})), "null");
    assert_eq!(ts(json!({"const": "a", "enum": ["a", "b"]})), r#""a""#);
}

#[test]
fn an_enum_with_nullable_gains_null_once() {
    assert_eq!(
        ts(json!({"enum": ["a", null], "nullable": true})),
        r#""a"|null"#
    );
    assert_eq!(ts(json!({"enum": ["a"], "nullable": true})), r#""a"|null"#);
}
