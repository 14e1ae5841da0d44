//! `anyOf`, `oneOf`, `allOf`, type arrays and `nullable`, with parentheses where needed.

use serde_json::json;

use super::ts;

#[test]
fn any_of_and_one_of_are_unions() {
    let schema = json!({"anyOf": [{"type": "string"}, {"type": "number"}]});
    assert_eq!(ts(schema), "string|number");
    let object =
        json!({"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"]});
    let schema = json!({"oneOf": [{"const": "a"}, object]});
    assert_eq!(ts(schema), r#""a"|{b:string}"#);
}

#[test]
fn all_of_is_an_intersection() {
    let schema = json!({
        "allOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"type": "object", "properties": {"b": {"type": "number"}}},
        ],
    });
    assert_eq!(ts(schema), "{a:string}&{b?:number}");
}

#[test]
fn a_union_inside_an_intersection_is_parenthesized() {
    let schema = json!({
        "type": "object",
        "properties": {"kind": {"type": "string"}},
        "anyOf": [{"required": ["a"]}, {"required": ["b"]}],
    });
    assert_eq!(ts(schema), "{kind?:string}&({a:any}|{b:any})");
}

#[test]
fn a_bare_object_type_beside_a_union_of_objects_adds_nothing() {
    let schema = json!({
        "type": "object",
        "oneOf": [
            {"properties": {"id": {"type": "string"}}, "required": ["id"]},
            {"properties": {"name": {"type": "string"}}, "required": ["name"]},
        ],
    });
    assert_eq!(ts(schema), "{id:string}|{name:string}");
}

#[test]
fn type_arrays_and_nullable_add_null() {
    assert_eq!(ts(json!({"type": ["string", "null"]})), "string|null");
    assert_eq!(
        ts(json!({"type": "string", "nullable": true})),
        "string|null"
    );
    assert_eq!(
        ts(json!({"type": ["string", "null"], "nullable": true})),
        "string|null"
    );
    assert_eq!(ts(json!({"nullable": true})), "any");
}

#[test]
fn an_array_of_a_nullable_union_is_parenthesized() {
    let schema =
        json!({"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "null"}]}});
    assert_eq!(ts(schema), "(string|null)[]");
    let schema = json!({
        "type": "array",
        "items": {"allOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}]},
        "$defs": {
            "A": {"type": "object", "properties": {"a": {"type": "string"}}},
            "B": {"type": "object", "properties": {"b": {"type": "string"}}},
        },
    });
    assert_eq!(ts(schema), "({a?:string}&{b?:string})[]");
}

#[test]
fn a_type_array_with_objects_and_arrays() {
    let schema = json!({
        "type": ["object", "array", "null"],
        "properties": {"a": {"type": "string"}},
        "items": {"type": "number"},
    });
    assert_eq!(ts(schema), "{a?:string}|number[]|null");
}

#[test]
fn a_documented_member_of_a_union_keeps_its_comment_inline() {
    let schema = json!({"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}]});
    assert_eq!(ts(schema), "/** format: date */string|null");
    let date_or_null = json!({"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}]});
    let schema = json!({"type": "array", "items": date_or_null});
    assert_eq!(ts(schema), "(/** format: date */string|null)[]");
}

#[test]
fn empty_combinator_arrays_are_ignored() {
    assert_eq!(
        ts(json!({"type": "string", "anyOf": [], "allOf": []})),
        "string"
    );
}
